//! bisector's bottom layer, shared by the renderer (the `bisector` crate re-exports it as `gpu`) and
//! the diagnostic kernels (`bisector-kernels`): adapter and device selection (headless or for a
//! window surface), features and limits (each user states its own `Requirements`), profiled
//! passes, read-back, uploads, targets, timings, shader loading (each crate embeds its own WGSL
//! files, `shader::ShaderLibrary`) and the integer hash the GPU hash tables share. It depends on
//! no other crate of the workspace.

pub mod dispatch;
pub mod errors;
pub mod hash;
pub mod limit;
pub mod readback;
pub mod shader;
pub mod target;
pub mod timings;
pub mod upload;

pub use limit::Limit;
use thiserror::Error;

/// Why the GPU could not be set up.
#[derive(Debug, Error)]
pub enum GpuError {
    #[error("no GPU adapter found (Vulkan, Metal or DX12); install a driver, e.g. Debian's mesa-vulkan-drivers for the software adapter lavapipe")]
    NoAdapter,
    #[error("the adapter '{adapter}' lacks the feature {feature:?}, which {why}")]
    MissingFeature { adapter: String, feature: wgpu::Features, why: &'static str },
    #[error("the adapter '{adapter}' limits {limit} to {available}, but {needed} is needed {why}")]
    LimitTooLow { adapter: String, limit: &'static str, needed: u64, available: u64, why: String },
    #[error("could not create the GPU device: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
}

/// What a scene or kernel needs from an adapter: required features, optional ones and minimum limits.
#[derive(Clone, Debug)]
pub struct Requirements {
    /// Features without which the program cannot run, each with the reason.
    pub features: Vec<(wgpu::Features, &'static str)>,
    /// Features used when present (e.g. GPU timestamps for profiling).
    pub optional_features: wgpu::Features,
    /// Minimum limits, each with the reason; everything else stays at the WebGPU defaults.
    pub limits: Vec<(Limit, u64, String)>,
    /// Limits raised as far as the adapter allows, up to the value (the user adapts to what the
    /// device gets, e.g. how deep node bounds are stored).
    pub wanted_limits: Vec<(Limit, u64)>,
}

impl Requirements {
    /// Needs of a diagnostic kernel whose largest storage buffer is `storage_bytes`; timestamps required.
    pub fn kernel(storage_bytes: u64, why: String) -> Requirements {
        Requirements {
            wanted_limits: Vec::new(),
            features: vec![(wgpu::Features::TIMESTAMP_QUERY, "kernels are timed with GPU timestamps")],
            optional_features: wgpu::Features::empty(),
            limits: vec![
                (Limit::MaxStorageBufferBindingSize, storage_bytes, why.clone()),
                (Limit::MaxBufferSize, storage_bytes, why),
                (Limit::MaxComputeWorkgroupsPerDimension, dispatch::MAX_GROUPS_X as u64, "for 2-D dispatches".into()),
                (Limit::MaxStorageBuffersPerShaderStage, 12, "the shift-and kernel's carry pass binds 11 storage buffers".into()),
            ],
        }
    }

    /// Also requires texture arrays of `tiles` layers: the globe's tile-cache atlas.
    pub fn with_cache_tiles(mut self, tiles: u32) -> Requirements {
        self.limits.push((Limit::MaxTextureArrayLayers, tiles as u64, format!("for {tiles} tile-cache layers; lower --cache-tiles")));
        self
    }

    /// Also requires 2-D textures of `samples` texels per side, for a height grid that size, and
    /// asks, where the adapter allows, for storage buffers of `node_bounds_bytes` (the grid's node
    /// bounds down to the data's depth).
    pub fn with_height_grid(mut self, samples: u32, node_bounds_bytes: u64) -> Requirements {
        self.limits.push((
            Limit::MaxTextureDimension2d,
            samples as u64,
            format!("for the {samples}x{samples} height grid; lower --max-samples"),
        ));
        self.wanted_limits.extend([(Limit::MaxStorageBufferBindingSize, node_bounds_bytes), (Limit::MaxBufferSize, node_bounds_bytes)]);
        self
    }

    /// Also requires 2-D textures of `width` x `height` pixels (the image `--size` asks for) and a
    /// buffer that holds the image read back (rows padded to 256 bytes).
    pub fn with_image_size(mut self, (width, height): (u32, u32)) -> Requirements {
        let why = format!("for the {width}x{height} image; lower --size");
        let row_bytes = (u64::from(width) * 4).next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT));
        self.limits.push((Limit::MaxTextureDimension2d, u64::from(width.max(height)), why.clone()));
        self.limits.push((Limit::MaxBufferSize, row_bytes * u64::from(height), why));
        self
    }

    /// Also requires GPU timestamps (for `bench`, whose output is GPU timings).
    pub fn with_timestamps(self) -> Requirements {
        self.with_feature(wgpu::Features::TIMESTAMP_QUERY, "bench needs to time every pass")
    }

    /// Also requires `feature`, for the reason `why`.
    pub fn with_feature(mut self, feature: wgpu::Features, why: &'static str) -> Requirements {
        if !self.features.iter().any(|(f, _)| *f == feature) {
            self.features.push((feature, why));
        }
        self
    }

    /// Also requires `limit` of at least `needed`, for the reason `why`.
    pub fn with_limit(mut self, limit: Limit, needed: u64, why: impl Into<String>) -> Requirements {
        self.limits.push((limit, needed, why.into()));
        self
    }

    /// The limits a device must have: WebGPU's defaults, each required limit raised to its need.
    pub fn needed_limits(&self) -> wgpu::Limits {
        let mut limits = wgpu::Limits::default();
        for &(limit, needed, _) in &self.limits {
            limit.raise(&mut limits, needed);
        }
        limits
    }

    /// Ok when a device (or adapter) named `name` with `features` and `limits` meets these
    /// requirements, else the first feature it lacks or limit it has too low (wgpu's own check of
    /// every limit, with the reason of the requirement that raised it).
    pub fn check(&self, name: &str, features: wgpu::Features, limits: &wgpu::Limits) -> Result<(), GpuError> {
        for (feature, why) in &self.features {
            if !features.contains(*feature) {
                return Err(GpuError::MissingFeature { adapter: name.to_string(), feature: *feature, why });
            }
        }
        let mut too_low = None;
        self.needed_limits().check_limits_with_fail_fn(limits, true, |limit, needed, available| too_low = Some((limit, needed, available)));
        match too_low {
            None => Ok(()),
            Some((limit, needed, available)) => {
                // The reason of the largest need for this limit (the one that set it).
                let why = self
                    .limits
                    .iter()
                    .filter(|(l, _, _)| l.name() == limit)
                    .max_by_key(|(_, n, _)| *n)
                    .map_or_else(|| "by WebGPU's defaults".to_string(), |(_, _, why)| why.clone());
                Err(GpuError::LimitTooLow { adapter: name.to_string(), limit, needed, available, why })
            }
        }
    }
}

/// An adapter with its device and queue.
pub struct Gpu {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

/// Keeps a headless process quiet on Mesa: its device-select layer probes for a Wayland display to
/// order the adapters, and without `XDG_RUNTIME_DIR` libwayland prints "error: XDG_RUNTIME_DIR is
/// invalid" on every probe although nothing is wrong. A headless command needs no display, so the
/// layer is turned off (`NODEVICE_SELECT=1`) unless the user chose a device through it
/// (`MESA_VK_DEVICE_SELECT`) or set `NODEVICE_SELECT` or `XDG_RUNTIME_DIR` themselves.
/// Call it at the start of `main`, before any thread starts (it sets an environment variable).
pub fn quiet_headless_platform() {
    let unset = |name: &str| std::env::var_os(name).is_none();
    if unset("XDG_RUNTIME_DIR") && unset("NODEVICE_SELECT") && unset("MESA_VK_DEVICE_SELECT") {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// The instance for this process (backends and adapter choice follow WGPU_BACKEND / WGPU_ADAPTER_NAME).
pub fn create_instance() -> wgpu::Instance {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    // Vulkan, Metal or DX12 unless WGPU_BACKEND says otherwise: the renderer needs compute and
    // storage buffers in vertex shaders, which the GL backend does not give everywhere.
    descriptor.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
    descriptor.flags = without_indirect_validation(descriptor.flags, std::env::var_os(INDIRECT_VALIDATION_VAR).is_some());
    wgpu::Instance::new(descriptor)
}

/// The environment variable through which wgpu's users turn its indirect-call validation on or off.
pub const INDIRECT_VALIDATION_VAR: &str = "WGPU_VALIDATION_INDIRECT_CALL";

/// `flags` without wgpu's indirect-call validation, unless the user set
/// WGPU_VALIDATION_INDIRECT_CALL (`user_chose`: wgpu's `with_env` has then applied their choice
/// already). wgpu turns it on by default, in release builds too: before every indirect dispatch it
/// records a one-thread dispatch that copies the arguments, clamped to the device's limits, into a
/// buffer of its own, with a barrier either side (and a check of every indirect draw). bisector's
/// indirect arguments are all written by its own shaders within those limits: 2-D dispatches of at
/// most `dispatch::MAX_GROUPS_X` groups a row, raster lists of at most 65,535 entries, the changed
/// blocks of a CBT (at most 2^14, at max depth 29), draws from storage buffers with no vertex
/// buffers. The check only cost time: 0.012 ms of the ship path's update, reduction and decode and
/// 0.05 ms of its frame on the H100 (docs/BENCHMARKS.md, run 94).
pub fn without_indirect_validation(flags: wgpu::InstanceFlags, user_chose: bool) -> wgpu::InstanceFlags {
    if user_chose {
        flags
    } else {
        flags - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL
    }
}

/// A readable name for a single feature flag.
pub fn feature_name(feature: wgpu::Features) -> String {
    if feature == wgpu::Features::TIMESTAMP_QUERY {
        "TIMESTAMP_QUERY".into()
    } else if feature == wgpu::Features::SUBGROUP {
        "SUBGROUP".into()
    } else {
        format!("{feature:?}")
    }
}

/// The adapter to use (high performance, optionally compatible with `surface`).
pub fn request_adapter(instance: &wgpu::Instance, surface: Option<&wgpu::Surface<'_>>) -> Result<wgpu::Adapter, GpuError> {
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: surface,
        ..Default::default()
    };
    pollster::block_on(instance.request_adapter(&options)).map_err(|_| GpuError::NoAdapter)
}

impl Gpu {
    /// A headless device that meets `requirements`.
    pub fn headless(requirements: &Requirements) -> Result<Gpu, GpuError> {
        let instance = create_instance();
        let adapter = request_adapter(&instance, None)?;
        Gpu::with_adapter(instance, adapter, requirements)
    }

    /// A device on `adapter` that meets `requirements`, or an error naming what is missing.
    pub fn with_adapter(instance: wgpu::Instance, adapter: wgpu::Adapter, requirements: &Requirements) -> Result<Gpu, GpuError> {
        let available = adapter.features();
        let adapter_limits = adapter.limits();
        requirements.check(&adapter.get_info().name, available, &adapter_limits)?;
        let mut features = available & requirements.optional_features;
        for (feature, _) in &requirements.features {
            features |= *feature;
        }
        let mut limits = requirements.needed_limits();
        for &(limit, wanted) in &requirements.wanted_limits {
            limit.raise(&mut limits, wanted.min(limit.of(&adapter_limits)));
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("bisector"),
            required_features: features,
            required_limits: limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))?;
        // Command-line runs end on an uncaptured error, with one line; the viewer installs an
        // `errors::ErrorLog` instead and shows them.
        device.on_uncaptured_error(std::sync::Arc::new(|error: wgpu::Error| {
            eprintln!("error: GPU: {}", errors::one_line(&error));
            std::process::exit(3);
        }));
        Ok(Gpu { instance, adapter, device, queue })
    }

    /// One line naming the adapter and its backend.
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {} {})", info.name, info.backend, info.driver, info.driver_info)
    }

    /// Waits until the GPU has finished all submitted work.
    pub fn wait_idle(&self) {
        self.device.poll(wgpu::PollType::wait_indefinitely()).expect("GPU poll failed");
    }
}

static PASS_TIMING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Labels of the empty passes that bound a frame, then its compute before the draw (the update,
/// reduction and decode: "nondraw"): timed even with pass timing off, when the frame records the
/// last three (`timings::take_timings` turns each `X.start`, `X.end` pair into a span `X`).
pub const FRAME_BOUND_LABELS: [&str; 4] = ["frame.start", "frame.end", "nondraw.start", "nondraw.end"];

/// Whether every pass gets GPU timestamps (the default) or only the frame's bounds
/// (FRAME_BOUND_LABELS), for this process. A timestamped pass costs a few microseconds even when
/// it does nothing, so a frame of 40 timed passes holds more than its work; `bench --pass-timing
/// off` measures the frame without them.
pub fn set_pass_timing(on: bool) {
    PASS_TIMING.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// See `set_pass_timing`.
pub fn pass_timing() -> bool {
    PASS_TIMING.load(std::sync::atomic::Ordering::Relaxed)
}

/// The profiler query of a pass labelled `label`: None when pass timing is off and the label is
/// not a frame bound. Close it with `end_pass_query`.
pub fn pass_query(
    profiler: &wgpu_profiler::GpuProfiler,
    label: &str,
    encoder: &mut wgpu::CommandEncoder,
) -> Option<wgpu_profiler::GpuProfilerQuery> {
    (pass_timing() || FRAME_BOUND_LABELS.contains(&label)).then(|| profiler.begin_pass_query(label, encoder))
}

/// Closes a query of `pass_query`.
pub fn end_pass_query(
    profiler: &wgpu_profiler::GpuProfiler,
    encoder: &mut wgpu::CommandEncoder,
    query: Option<wgpu_profiler::GpuProfilerQuery>,
) {
    if let Some(query) = query {
        profiler.end_query(encoder, query);
    }
}

/// Records a compute pass labelled `label` inside a profiler scope of the same name (untimed
/// when pass timing is off: `set_pass_timing`).
pub fn profiled_compute_pass(
    profiler: &wgpu_profiler::GpuProfiler,
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    record: impl FnOnce(&mut wgpu::ComputePass<'_>),
) {
    let query = pass_query(profiler, label, encoder);
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: query.as_ref().and_then(|q| q.compute_pass_timestamp_writes()),
        });
        record(&mut pass);
    }
    end_pass_query(profiler, encoder, query);
}

/// Records a compute pass labelled `label`, inside a profiler scope of the same name when a
/// profiler is given (a frame's passes), else untimed (loads and tests outside frames).
pub fn compute_pass_timed_by(
    profiler: Option<&wgpu_profiler::GpuProfiler>,
    encoder: &mut wgpu::CommandEncoder,
    label: &str,
    record: impl FnOnce(&mut wgpu::ComputePass<'_>),
) {
    match profiler {
        Some(profiler) => profiled_compute_pass(profiler, encoder, label, record),
        None => record(&mut encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: None })),
    }
}

/// A new profiler (timestamps are skipped silently when the device has none).
pub fn create_profiler(device: &wgpu::Device) -> wgpu_profiler::GpuProfiler {
    wgpu_profiler::GpuProfiler::new(device, wgpu_profiler::GpuProfilerSettings { max_num_pending_frames: 8, ..Default::default() })
        .expect("valid profiler settings")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indirect_validation_is_off_unless_the_user_chose() {
        let flags = wgpu::InstanceFlags::debugging();
        assert!(flags.contains(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL));
        let ours = without_indirect_validation(flags, false);
        assert_eq!(ours, flags - wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
        assert!(ours.contains(wgpu::InstanceFlags::VALIDATION), "the other checks stay");
        assert_eq!(without_indirect_validation(flags, true), flags);
        assert_eq!(without_indirect_validation(wgpu::InstanceFlags::empty(), true), wgpu::InstanceFlags::empty());
    }
}
