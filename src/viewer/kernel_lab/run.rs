//! The app side of the Kernel lab: what a run needs from the viewer's device, and the run itself.
//! The seed papers' kernels run through `bisector_kernels::Kernel` (the checks, requirements and
//! run `bisector kernel NAME` uses); the CBT kernel through `crate::kernels::cbt`.

use bisector_kernels::chained_hash::ChainedHash;
use bisector_kernels::closest_pairs::{self, ClosestPairs, ClosestPairsInput, ClosestPairsOptions};
use bisector_kernels::compact_hash::{self, CompactHash};
use bisector_kernels::shift_and::{self, ShiftAnd, ShiftAndInput};
use bisector_kernels::{check_iterations, IterationsError, Kernel, KernelError};

use super::*;
use crate::gpu::{Gpu, GpuError, Requirements};

/// Why a run of the lab did not happen or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("max depth: {0}")]
    MaxDepth(crate::cbt::gpu::CbtError),
    #[error("fill {fill}: too small for max depth {max_depth}")]
    Fill { fill: f64, max_depth: u32 },
    #[error("max states {0}: must be 1..={max}", max = 32 * shift_and::MAX_WORDS)]
    MaxStates(u32),
    #[error(transparent)]
    Iterations(#[from] IterationsError),
    /// A seed kernel refused its options.
    #[error(transparent)]
    Kernel(KernelError),
    #[error("the viewer's device lacks {feature}, which {why}; `bisector kernel` may still run it on its own device")]
    MissingFeature { feature: String, why: &'static str },
    #[error("the viewer's device limits {limit} to {have}, but {needed} is needed {why}")]
    LimitTooLow { limit: &'static str, have: u64, needed: u64, why: String },
    #[error(transparent)]
    Gpu(GpuError),
    #[error("the kernel failed: {0}")]
    Panicked(String),
    /// A validation or out-of-memory error on the viewer's device during the run (the device
    /// stays usable).
    #[error("the kernel failed on the GPU: {0}")]
    GpuFailed(String),
}

impl From<KernelError> for RunError {
    fn from(error: KernelError) -> RunError {
        match error {
            KernelError::Device(error) => RunError::from(error),
            other => RunError::Kernel(other),
        }
    }
}

impl From<GpuError> for RunError {
    /// A device that lacks what a run needs, in the viewer's words.
    fn from(error: GpuError) -> RunError {
        match error {
            GpuError::MissingFeature { feature, why, .. } => RunError::MissingFeature { feature: crate::gpu::feature_name(feature), why },
            GpuError::LimitTooLow { limit, needed, available, why, .. } => RunError::LimitTooLow { limit, have: available, needed, why },
            other => RunError::Gpu(other),
        }
    }
}

/// Ok when a device with `features` and `limits` meets `requirements`, else what is missing.
pub fn check_device(features: wgpu::Features, limits: &wgpu::Limits, requirements: &Requirements) -> Result<(), RunError> {
    Ok(requirements.check("the viewer's device", features, limits)?)
}

/// Asks the viewer's device for what the kernel lab uses where the adapter has it, without
/// making any of it mandatory: timestamps, subgroups, 64-bit integers and atomics, 12 storage
/// buffers per stage.
pub fn request_optional(requirements: &mut Requirements, adapter: &wgpu::Adapter) {
    requirements.optional_features |= wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::SUBGROUP
        | wgpu::Features::SHADER_INT64
        | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
    if adapter.limits().max_storage_buffers_per_shader_stage >= 12 {
        requirements.limits.push((crate::gpu::Limit::MaxStorageBuffersPerShaderStage, 12, "for the kernel lab".into()));
    }
}

/// What the CBT kernel needs of the device (the same as `bisector kernel cbt` asks for).
fn cbt_requirements(s: &CbtSettings) -> Requirements {
    let leaves = 1u64 << crate::kernels::cbt::fill_depth(s.max_depth, s.fill()).unwrap_or(0);
    crate::cbt::requirements(s.max_depth, leaves).with_timestamps()
}

/// Checks the parameters before any input is made: the CBT kernel's, the seed kernels' own
/// checks, and the sizes of the random inputs the panel draws for closest-pairs and shift-and.
pub(super) fn check(request: &KernelRequest) -> Result<(), RunError> {
    match request {
        KernelRequest::Cbt(s) => {
            crate::cbt::gpu::check_max_depth(s.max_depth).map_err(RunError::MaxDepth)?;
            if crate::kernels::cbt::fill_depth(s.max_depth, s.fill()).is_none() {
                return Err(RunError::Fill { fill: s.fill(), max_depth: s.max_depth });
            }
            Ok(check_iterations(s.iterations)?)
        }
        KernelRequest::ChainedHash(s) => Ok(ChainedHash::check(s)?),
        KernelRequest::CompactHash(s) => Ok(CompactHash::check(s)?),
        KernelRequest::ClosestPairs(s) => {
            if s.m == 0 || s.n == 0 {
                return Err(KernelError::from(closest_pairs::OptionsError::EmptyArmy).into());
            }
            if s.m as usize > closest_pairs::MAX_ARMY_POINTS || s.n as usize > closest_pairs::MAX_ARMY_POINTS {
                return Err(KernelError::from(closest_pairs::OptionsError::TooManyPoints).into());
            }
            Ok(check_iterations(s.iterations)?)
        }
        KernelRequest::ShiftAnd(s) => {
            if s.patterns == 0 || s.text_bytes == 0 {
                return Err(KernelError::from(shift_and::OptionsError::Empty).into());
            }
            if !(1..=32 * shift_and::MAX_WORDS as u32).contains(&s.max_states) {
                return Err(RunError::MaxStates(s.max_states));
            }
            if s.text_bytes as usize > shift_and::MAX_TEXT_BYTES {
                return Err(KernelError::from(shift_and::OptionsError::TextTooLong).into());
            }
            if s.patterns as usize > shift_and::MAX_PATTERNS {
                return Err(KernelError::from(shift_and::OptionsError::TooManyPatterns(s.patterns as usize)).into());
            }
            Ok(check_iterations(s.iterations)?)
        }
    }
}

/// Runs `request` on `gpu` and waits for it (the caller's frame stalls meanwhile). Err: why it
/// could not run (parameters, the device's features or limits, or a panic inside the kernel).
pub fn run(gpu: &Gpu, request: &KernelRequest) -> Result<KernelResult, RunError> {
    check(request)?;
    let start = std::time::Instant::now();
    let mut result = match request {
        KernelRequest::Cbt(s) => {
            check_device(gpu.device.features(), &gpu.device.limits(), &cbt_requirements(s))?;
            let options =
                crate::kernels::cbt::CbtKernelOptions { max_depth: s.max_depth, fill: s.fill(), iterations: s.iterations, path: None };
            cbt_result(&caught(gpu, || crate::kernels::cbt::run(gpu, &options))?)
        }
        KernelRequest::ChainedHash(s) => chained_hash_result(&run_kernel::<ChainedHash>(gpu, s)?),
        KernelRequest::CompactHash(s) => compact_hash_result(&run_kernel::<CompactHash>(gpu, s)?),
        KernelRequest::ClosestPairs(s) => {
            let armies = closest_pairs::make_armies(s.m as usize, s.n as usize, s.distribution, s.seed);
            let input = ClosestPairsInput { armies, options: ClosestPairsOptions { variant: s.variant, iterations: s.iterations } };
            closest_pairs_result(&run_kernel::<ClosestPairs>(gpu, &input)?)
        }
        KernelRequest::ShiftAnd(s) => {
            let work =
                shift_and::make_workload(s.patterns as usize, s.max_states as usize, s.text_bytes as usize, SHIFT_AND_ALPHABET, s.seed);
            let options = shift_and::ShiftAndOptions {
                chunk_len: 0,
                iterations: s.iterations,
                capacity: SHIFT_AND_CAPACITY,
                carry: shift_and::Carry::Scan,
                long_capacity: 0,
            };
            shift_and_result(&run_kernel::<ShiftAnd>(gpu, &ShiftAndInput { work, options })?)
        }
    };
    result.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(result)
}

/// `K::run` (its checks, the device's, the run), a panic inside it caught.
fn run_kernel<K: Kernel>(gpu: &Gpu, options: &K::Options) -> Result<K::Report, RunError> {
    Ok(caught(gpu, || K::run(gpu, options))??)
}

/// `f()`, or the message of a panic inside it, or the GPU error it caused (caught by an error
/// scope, so it reaches neither the viewer's error log nor its exit).
fn caught<T>(gpu: &Gpu, f: impl FnOnce() -> T) -> Result<T, RunError> {
    let (outcome, gpu_error) = crate::gpu::errors::capture(&gpu.device, || std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    if let Some(error) = gpu_error {
        return Err(RunError::GpuFailed(crate::gpu::errors::one_line(&error)));
    }
    outcome.map_err(|panic| {
        let message =
            panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
        RunError::Panicked(message)
    })
}

/// The figures of a CBT kernel run.
fn cbt_result(report: &crate::kernels::cbt::CbtKernelReport) -> KernelResult {
    KernelResult {
        verified: report.verified,
        rows: vec![
            ResultRow { label: "decode".into(), gpu_ms: report.decode.median_ms, per_s: report.decode_leaves_per_s },
            ResultRow {
                label: "reduce".into(),
                gpu_ms: report.reduce.median_ms,
                per_s: report.leaves as f64 / (report.reduce.median_ms * 1e-3),
            },
        ],
        unit: "leaves/s",
        wall_ms: 0.0,
        detail: format!(
            "D={} fill {}: {} leaves, {} KiB heap, {} reduce dispatches ({} path); medians of {} iterations",
            report.max_depth,
            report.fill,
            report.leaves,
            report.heap_bytes >> 10,
            report.reduce_dispatches,
            report.reduce_path,
            report.iterations
        ),
    }
}

/// The figures of a chained-hash run.
fn chained_hash_result(report: &bisector_kernels::chained_hash::ChainedHashReport) -> KernelResult {
    let lookups: Vec<String> =
        report.lookups.iter().map(|l| format!("{} {}", l.queries.trim(), format_rate(l.lookups_per_s, "lookups/s"))).collect();
    KernelResult {
        verified: report.verified,
        rows: report
            .builds
            .iter()
            .map(|b| ResultRow { label: format!("build {}", b.variant), gpu_ms: b.gpu.median_ms, per_s: b.elements_per_s })
            .collect(),
        unit: "elements/s",
        wall_ms: 0.0,
        detail: format!(
            "{} elements into {} buckets; lookups: {}; upload {:.1} ms, read-back {:.1} ms; CPU build {:.1} ms",
            report.elements,
            report.buckets,
            lookups.join(", "),
            report.upload_ms,
            report.readback_ms,
            report.cpu_build_ms
        ),
    }
}

/// The figures of a compact-hash run.
fn compact_hash_result(report: &compact_hash::CompactHashReport) -> KernelResult {
    let row = |label: &str, t: &compact_hash::TableReport, again: bool| ResultRow {
        label: format!("{label} {}", if again { "again" } else { "insert" }),
        gpu_ms: if again { t.again.median_ms } else { t.insert.median_ms },
        per_s: if again { t.again_per_s } else { t.insert_per_s },
    };
    KernelResult {
        verified: report.verified && !report.overflow,
        rows: vec![row("compressed", &report.compressed, false), row("compressed", &report.compressed, true), row("uncompressed", &report.uncompressed, false), row("uncompressed", &report.uncompressed, true)],
        unit: "findOrPut/s",
        wall_ms: 0.0,
        detail: format!(
            "{} vectors of {} words, {} distinct; {} nodes in 2^{} slots: fill {:.2}, compression ratio {:.2}; upload {:.1} ms, read-back {:.1} ms; CPU twin {} threads {:.1} ms{}",
            report.vectors,
            report.length,
            report.distinct_vectors,
            report.nodes,
            report.compressed.slots.ilog2(),
            report.compressed.fill,
            report.compression_ratio,
            report.upload_ms,
            report.readback_ms,
            report.cpu_threads,
            report.cpu_parallel_ms,
            report.overflow_message().map_or(String::new(), |m| format!("; {m}"))
        ),
    }
}

/// The figures of a closest-pairs run.
fn closest_pairs_result(report: &closest_pairs::ClosestPairsReport) -> KernelResult {
    KernelResult {
        verified: report.verified,
        rows: report
            .variants
            .iter()
            .map(|v| ResultRow { label: v.variant.to_string(), gpu_ms: v.total_gpu.median_ms, per_s: v.queries_per_s })
            .collect(),
        unit: "queries/s",
        wall_ms: 0.0,
        detail: format!(
            "{} x {} points; closest pair {}{}; upload {:.1} ms, read-back {:.1} ms; CPU reference {:.1} ms{}",
            report.a_points,
            report.b_points,
            report.pairs.first().map_or("none".to_string(), |p| format!("A {} - B {} at {:.3}", p.a, p.b, p.distance)),
            report.end_to_end_ms.map_or(String::new(), |e| format!("; grid end to end (GPU-built grid) {e:.1} ms")),
            report.upload_ms,
            report.readback_ms,
            report.cpu_reference_ms,
            if report.lavapipe_loop_limit_exceeded { "; lavapipe's shader loop limit may cut this size short" } else { "" }
        ),
    }
}

/// The figures of a shift-and run.
fn shift_and_result(report: &shift_and::ShiftAndReport) -> KernelResult {
    KernelResult {
        verified: report.verified,
        rows: vec![ResultRow { label: "scan + carries".into(), gpu_ms: report.total_gpu.median_ms, per_s: report.byte_patterns_per_s }],
        unit: "byte-patterns/s",
        wall_ms: 0.0,
        detail: format!(
            "{} patterns over {} bytes in {} chunks; {} matches; upload {:.1} ms, read-back {:.1} ms; CPU reference {:.1} ms{}",
            report.patterns,
            report.text_bytes,
            report.chunks,
            report.total_matches,
            report.upload_ms,
            report.readback_ms,
            report.cpu_reference_ms,
            if report.lavapipe_loop_limit_exceeded { "; lavapipe's shader loop limit was exceeded" } else { "" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bisector_kernels::chained_hash::BuildVariant;

    #[test]
    fn missing_features_and_limits_are_named() {
        let both = ChainedHash::requirements(&ChainedHashSettings::default());
        let global = ChainedHash::requirements(&ChainedHashSettings { variant: BuildVariant::Global, ..Default::default() });
        let mut limits = wgpu::Limits::default();
        let err = check_device(wgpu::Features::empty(), &limits, &global).unwrap_err().to_string();
        assert!(err.contains("TIMESTAMP_QUERY"), "{err}");
        let err = check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &global).unwrap_err().to_string();
        assert!(err.contains("max_storage_buffers_per_shader_stage"), "{err}");
        limits.max_storage_buffers_per_shader_stage = 12;
        assert!(check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &global).is_ok());
        let err = check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &both).unwrap_err().to_string();
        assert!(err.contains("SUBGROUP") && err.contains("global"), "{err}");
        // Too large for the device's storage buffers.
        let huge =
            ChainedHash::requirements(&ChainedHashSettings { element_log2: 28, variant: BuildVariant::Global, ..Default::default() });
        let err = check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &huge).unwrap_err().to_string();
        assert!(err.contains("max_storage_buffer_binding_size"), "{err}");
        // Out-of-range parameters never reach the GPU.
        assert!(check(&KernelRequest::Cbt(CbtSettings { max_depth: 5, fill_log2: 6, iterations: 1 })).is_err());
        assert!(check(&KernelRequest::ClosestPairs(ClosestPairsSettings { m: 0, ..Default::default() })).is_err());
        assert!(check(&KernelRequest::CompactHash(CompactHashSettings { bucket_size: 3, ..Default::default() }))
            .unwrap_err()
            .to_string()
            .contains("bucket"));
        assert!(check(&KernelRequest::ShiftAnd(ShiftAndSettings { max_states: 0, ..Default::default() })).is_err());
        assert!(check(&KernelRequest::ChainedHash(ChainedHashSettings { iterations: 0, ..Default::default() })).is_err());
        // The compressed table needs 64-bit atomics.
        let compact = CompactHash::requirements(&CompactHashSettings::default());
        assert!(check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &compact).unwrap_err().to_string().contains("SHADER_INT64"));
        for kernel in [
            KernelRequest::Cbt(CbtSettings::default()),
            KernelRequest::ChainedHash(ChainedHashSettings::default()),
            KernelRequest::CompactHash(CompactHashSettings::default()),
            KernelRequest::ClosestPairs(ClosestPairsSettings::default()),
            KernelRequest::ShiftAnd(ShiftAndSettings::default()),
        ] {
            assert!(check(&kernel).is_ok(), "{kernel:?}");
        }
    }

    #[test]
    fn small_kernels_run_on_a_viewer_like_device() {
        // The device as the viewer asks for it (renderer needs + the lab's optional ones).
        let instance = crate::gpu::create_instance();
        let adapter = crate::gpu::request_adapter(&instance, None).expect("a GPU adapter (lavapipe in CI)");
        let mut needs = crate::cbt::requirements(12, 1 << 12);
        request_optional(&mut needs, &adapter);
        let gpu = Gpu::with_adapter(instance, adapter, &needs).unwrap();
        let mut lab = KernelLabState::default();
        for request in [
            KernelRequest::Cbt(CbtSettings { max_depth: 8, fill_log2: 1, iterations: 2 }),
            KernelRequest::ChainedHash(ChainedHashSettings {
                element_log2: 8,
                bucket_log2: 6,
                variant: BuildVariant::Global,
                iterations: 2,
                ..Default::default()
            }),
            KernelRequest::CompactHash(CompactHashSettings { table_log2: 10, iterations: 1, ..Default::default() }),
            KernelRequest::ClosestPairs(ClosestPairsSettings { m: 64, n: 32, iterations: 1, ..Default::default() }),
            KernelRequest::ShiftAnd(ShiftAndSettings { patterns: 4, text_bytes: 512, iterations: 1, ..Default::default() }),
        ] {
            let result = run(&gpu, &request).unwrap_or_else(|e| panic!("{request:?}: {e}"));
            assert!(result.verified, "{request:?}: {result:?}");
            assert!(!result.rows.is_empty() && result.rows.iter().all(|r| r.gpu_ms >= 0.0), "{result:?}");
            lab.record(request.kernel(), Ok(result));
            assert_eq!(lab.panel(request.kernel()).runs, 1);
        }
    }
}
