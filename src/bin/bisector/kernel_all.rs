//! `bisector kernel all`: every kernel at the seed papers' sizes, in one table.

use bisector::gpu::Gpu;
use bisector_kernels::chained_hash::{BuildVariant, ChainedHash, ChainedHashOptions, KeyDistribution};
use bisector_kernels::closest_pairs::{ClosestPairs, ClosestPairsInput, ClosestPairsOptions, Distribution, Variant as CpVariant};
use bisector_kernels::compact_hash::{CompactHash, CompactHashOptions, VectorDistribution};
use bisector_kernels::shift_and::{ShiftAnd, ShiftAndInput};

use crate::kernel::{run_kernel, tile_table_gpu};

/// Table 6.12 (bucket size 32) and 6.13 (optimal bucket size) of seed 002, per vector length:
/// the optimal bucket size, and the only figures the paper gives, which are relative.
const COMPACT_HASH_PAPER: [(u32, u32, &str, &str); 5] = [
    (1, 4, "1.97-2.03x its 32-bit version (T6.12)", "1.18-1.33x bucket 32, 1.06-1.31x 32-bit (T6.13)"),
    (2, 4, "2.03-2.05x its 32-bit version (T6.12)", "1.33-1.38x bucket 32, 1.06-1.11x 32-bit (T6.13)"),
    (3, 4, "2.52-2.59x its 32-bit version (T6.12)", "1.83-1.86x bucket 32, 1.26-1.27x 32-bit (T6.13)"),
    (4, 2, "2.42-2.62x its 32-bit version (T6.12)", "1.51-2.04x bucket 32, 1.24-1.29x 32-bit (T6.13)"),
    (8, 2, "2.84-3.27x its 32-bit version (T6.12)", "1.99-3.08x bucket 32, 1.34-1.41x 32-bit (T6.13)"),
];

/// `kernel all`'s compact-hash rows, uniform vectors at fill 0.5: at 2^24 slots every bucket size
/// for length 4 (the paper's default) and the paper's optimal size and 32 for its other lengths;
/// then the target's row (length 4, bucket size 2) at 2^26 slots (both scaled by `sizes`).
fn kernel_all_compact_hash(sizes: &AllSizes) -> anyhow::Result<()> {
    use bisector_kernels::compact_hash::{self as ch, BUCKET_SIZES};
    let int64 = wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
    if !sizes.features.contains(int64) {
        anyhow::bail!("the adapter lacks 64-bit integer atomics (SHADER_INT64_ATOMIC_ALL_OPS), which the compressed table's nodes need");
    }
    say!("compact-hash: uniform vectors at fill 0.5; the paper (seed 002) gives only speedups, no absolute figures; target >= 1 G findOrPut/s at length 4");
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    for (length, optimal, _, _) in COMPACT_HASH_PAPER {
        let sizes = if length == 4 { BUCKET_SIZES.to_vec() } else { vec![optimal, 32] };
        runs.extend(sizes.into_iter().map(|b| (length, b, 24)));
    }
    runs.push((4, 2, 26));
    let mut per_s = Vec::new();
    for (length, bucket_size, paper_log2) in runs {
        let (_, optimal, paper_32, paper_optimal) = COMPACT_HASH_PAPER.into_iter().find(|p| p.0 == length).unwrap_or(COMPACT_HASH_PAPER[3]);
        let options = |table_log2: u32| CompactHashOptions {
            length,
            bucket_size,
            table_log2,
            vectors: None,
            fill: 0.5,
            distribution: VectorDistribution::Uniform,
            iterations: sizes.iterations(5),
            seed: 1,
            subgroup: sizes.features.contains(wgpu::Features::SUBGROUP),
        };
        let name = format!("compact-hash n={length} b={bucket_size}");
        let Some((table_log2, note)) =
            sizes.fit_log2(paper_log2, bucket_size.ilog2().max(1), |log2| ch::largest_buffer_bytes(&options(log2)))
        else {
            say!(
                "{name:<34} skipped: even the smallest table does not fit the adapter's largest buffer ({} bytes)",
                sizes.max_buffer_bytes
            );
            continue;
        };
        let options = options(table_log2);
        let report = run_kernel::<CompactHash>(&options)?;
        per_s.push(((length, bucket_size, paper_log2), report.compressed.insert_per_s));
        let paper = match bucket_size {
            _ if paper_log2 != 24 => "target: >= 1 G/s".to_string(),
            32 => format!("paper: {paper_32}"),
            b if b == optimal => "the paper's optimal bucket size for this length".to_string(),
            _ => String::new(),
        };
        let name = format!("{name} 2^{table_log2}");
        say!(
            "{name:<34} {:>12.4} {:>10.3} G/s {:>9}  {paper}{note}",
            report.compressed.insert.median_ms,
            report.compressed.insert_per_s / 1e9,
            report.verified && !report.overflow
        );
        say!(
            "{:<34} {:>12.4} {:>10.3} G/s {:>9}  (uncompressed table; compressed: fill {:.2}, compression ratio {:.2}, all seen {:.3} G/s{})",
            "",
            report.uncompressed.insert.median_ms,
            report.uncompressed.insert_per_s / 1e9,
            "",
            report.compressed.fill,
            report.compression_ratio,
            report.compressed.again_per_s / 1e9,
            report.overflow_message().map_or(String::new(), |m| format!("; OVERFLOW: {m}"))
        );
        say!(
            "{:<34} {:>12.1} {:>10.3} G/s {:>9}  (CPU twin, {} threads: GPU {:.1}x)",
            "",
            report.cpu_parallel_ms,
            report.vectors as f64 / report.cpu_parallel_ms / 1e6,
            "",
            report.cpu_threads,
            report.gpu_over_cpu
        );
        if let Some(t) = &report.compressed_subgroup {
            say!(
                "{:<34} {:>12.4} {:>10.3} G/s {:>9}  (compressed, a bucket read by a subgroup: {:.2}x one thread per bucket)",
                "",
                t.insert.median_ms,
                t.insert_per_s / 1e9,
                t.verified,
                t.insert_per_s / report.compressed.insert_per_s
            );
        }
        let rate = |b: u32| per_s.iter().find(|(run, _)| *run == (length, b, 24)).map_or(f64::NAN, |(_, r)| *r);
        if bucket_size == 32 {
            say!(
                "{:<34} {:>12} {:>14} {:>9}  n={length}: bucket {optimal} / bucket 32 = {:.2}x here; paper {paper_optimal}",
                "",
                "",
                "",
                "",
                rate(optimal) / rate(32)
            );
        }
    }
    Ok(())
}

/// The papers' figures `kernel all` prints beside ours.
const CHAINED_HASH_PAPER: [(u32, u32, &str); 4] =
    [(23, 22, "77 ms (GTX 780 Ti), CPU 2.5 s"), (23, 21, "-"), (24, 23, "160 ms (GTX 780 Ti), CPU 4.5 s"), (24, 22, "-")];

/// Most `kernel all --shrink-log2`.
const MAX_SHRINK_LOG2: u32 = 16;

/// How `kernel all` sizes its runs: the papers' sizes 2^`shrink_log2` times smaller, and smaller
/// still where a buffer would not fit the adapter.
struct AllSizes {
    shrink_log2: u32,
    /// The adapter's largest storage binding and buffer, the smaller of the two.
    max_buffer_bytes: u64,
    features: wgpu::Features,
}

impl AllSizes {
    /// The largest log2 size from `paper_log2 - shrink_log2` down to `min_log2` whose largest
    /// buffer (`bytes(log2)`) fits the adapter, with a note for the row when the adapter made it
    /// smaller; None when none fits.
    fn fit_log2(&self, paper_log2: u32, min_log2: u32, bytes: impl Fn(u32) -> u64) -> Option<(u32, String)> {
        let wanted = paper_log2.saturating_sub(self.shrink_log2).max(min_log2);
        let log2 = (min_log2..=wanted).rev().find(|&log2| bytes(log2) <= self.max_buffer_bytes)?;
        Some((log2, self.note(wanted - log2)))
    }

    /// The row's note when the adapter's buffers made a size 2^`fewer_log2` times smaller.
    fn note(&self, fewer_log2: u32) -> String {
        if fewer_log2 == 0 {
            String::new()
        } else {
            format!(" [scaled down 2^{fewer_log2}x to fit the adapter's {} MiB buffers]", self.max_buffer_bytes >> 20)
        }
    }

    /// Timed repetitions: the kernel's own, or 2 in a shrunken quick check.
    fn iterations(&self, paper: u32) -> u32 {
        if self.shrink_log2 > 0 {
            paper.min(2)
        } else {
            paper
        }
    }
}

/// One kernel's rows of `kernel all`.
type AllSection = fn(&AllSizes) -> anyhow::Result<()>;

pub(crate) fn kernel_all(shrink_log2: u32) -> anyhow::Result<()> {
    if shrink_log2 > MAX_SHRINK_LOG2 {
        anyhow::bail!("--shrink-log2 {shrink_log2}: must be 0..={MAX_SHRINK_LOG2}");
    }
    let sizes = {
        let instance = bisector::gpu::create_instance();
        let adapter = bisector::gpu::request_adapter(&instance, None)?;
        let limits = adapter.limits();
        AllSizes {
            shrink_log2,
            max_buffer_bytes: limits.max_storage_buffer_binding_size.min(limits.max_buffer_size),
            features: adapter.features(),
        }
    };
    if shrink_log2 > 0 {
        say!("(every size 2^{shrink_log2} times smaller than the papers', 2 iterations: a quick check, not a measurement)");
    }
    say!("{:<34} {:>12} {:>14} {:>9}  paper", "kernel and size", "GPU ms", "throughput", "verified");
    // Each kernel that cannot run on this adapter is one line saying why; the others still run.
    let sections: [(&str, AllSection); 6] = [
        ("chained-hash", kernel_all_chained_hash),
        ("compact-hash", kernel_all_compact_hash),
        ("closest-pairs", kernel_all_closest_pairs),
        ("shift-and", kernel_all_shift_and),
        ("tile-table", kernel_all_tile_table),
        ("cbt", kernel_all_cbt),
    ];
    for (name, section) in sections {
        if let Err(error) = section(&sizes) {
            say!("{name:<34} skipped: {error:#}");
        }
    }
    Ok(())
}

/// `kernel all`'s chained-hash rows (seed 000's sizes).
fn kernel_all_chained_hash(sizes: &AllSizes) -> anyhow::Result<()> {
    let variant = if sizes.features.contains(wgpu::Features::SUBGROUP) { BuildVariant::Both } else { BuildVariant::Global };
    for (element_log2, bucket_log2, paper) in CHAINED_HASH_PAPER {
        let options = |e: u32| ChainedHashOptions {
            element_log2: e,
            bucket_log2: (e + bucket_log2).saturating_sub(element_log2),
            keys: KeyDistribution::Uniform,
            variant,
            iterations: sizes.iterations(10),
            seed: 1,
        };
        let Some((e, note)) = sizes.fit_log2(element_log2, 4, |e| bisector_kernels::chained_hash::buffer_bytes(&options(e))) else {
            anyhow::bail!("even 2^4 elements do not fit the adapter's largest buffer");
        };
        let options = options(e);
        let report = run_kernel::<ChainedHash>(&options)?;
        for build in &report.builds {
            let name = format!("chained-hash 2^{} -> 2^{} ({})", options.element_log2, options.bucket_log2, build.variant);
            say!("{name:<34} {:>12.4} {:>10.3} G/s {:>9}  {paper}{note}", build.gpu.median_ms, build.elements_per_s / 1e9, report.verified);
        }
        say!("{:<34} {:>12.1} {:>14} {:>9}  (CPU reference, 1 thread)", "", report.cpu_build_ms, "", "");
        say!("{:<34} {:>12.1} {:>14} {:>9}  (CPU build, {} threads)", "", report.cpu_parallel_build_ms, "", "", report.cpu_threads);
    }
    Ok(())
}

/// `kernel all`'s closest-pairs rows (seed 001's 1M x 400k).
fn kernel_all_closest_pairs(sizes: &AllSizes) -> anyhow::Result<()> {
    use bisector_kernels::closest_pairs as cp;
    let (paper_m, paper_n) = (1_000_000usize, 400_000usize);
    // log2 of the divisor of both armies.
    let armies = |d: u32| (paper_m >> d, paper_n >> d);
    let Some((d, note)) = sizes.fit_log2(16, 0, |d| {
        let (m, n) = armies(16 - d);
        cp::largest_buffer_bytes(m, n)
    }) else {
        anyhow::bail!("even the smallest armies do not fit the adapter's largest buffer");
    };
    let (m, n) = armies(16 - d);
    let armies = cp::make_armies(m, n, Distribution::Uniform, 1);
    let options = ClosestPairsOptions { variant: CpVariant::Both, iterations: sizes.iterations(5) };
    let report = run_kernel::<ClosestPairs>(&ClosestPairsInput { armies, options })?;
    for v in &report.variants {
        let paper = if v.variant == "brute" {
            "585 ms brute force (RTX 2080 Ti)"
        } else {
            "172 ms inexact 27-cell grid (RTX 2080 Ti); target 2 ms"
        };
        let name = format!("closest-pairs {m} x {n} ({})", v.variant);
        say!("{name:<34} {:>12.4} {:>10.1} M/s {:>9}  {paper}{note}", v.total_gpu.median_ms, v.queries_per_s / 1e6, v.verified);
        if let Some(e2e) = &v.end_to_end {
            let name = format!("closest-pairs {m} x {n} (end to end)");
            say!("{name:<34} {:>12.4} {:>14} {:>9}  host arrays to 100 pairs on the host; target 20 ms", e2e.median_ms, "", v.verified);
        }
    }
    say!(
        "{:<34} {:>12.1} {:>14} {:>9}  (CPU reference: exact grid, {} threads; its grid built in {:.1} ms)",
        "",
        report.cpu_reference_ms,
        "",
        "",
        report.cpu_threads,
        report.grid_build_cpu_ms
    );
    say_loop_limit_warning(report.lavapipe_loop_limit_exceeded);
    Ok(())
}

/// `kernel all`'s row warning that a run may have passed lavapipe's shader loop limit.
fn say_loop_limit_warning(exceeded: bool) {
    if exceeded {
        say!(
            "{:<34} {:>12} {:>14} {:>9}  warning: lavapipe stops a shader loop after 65535 iterations and this run may need more",
            "",
            "",
            "",
            ""
        );
    }
}

/// `kernel all`'s shift-and row (the target: 1,000 patterns of at most 32 states over 64 MB).
fn kernel_all_shift_and(sizes: &AllSizes) -> anyhow::Result<()> {
    use bisector_kernels::shift_and as sa;
    let patterns = (1000usize >> (sizes.shrink_log2 / 2)).max(8);
    // log2 of the text bytes; the match capacity is a quarter of the text's bytes; patterns of at
    // most 32 states are one word each (the transfer functions are 33 u32 per chunk and pattern).
    let workload = |log2: u32| sa::make_workload(patterns, 32, 1 << log2, b"abcdefghijklmnopqrstuvwxyz", 1);
    let capacity = |log2: u32| 1u32 << (log2 - 2);
    let Some((log2, note)) = sizes.fit_log2(26, 12, |log2| {
        let chunks = sa::chunk_count(1 << log2, 0);
        sa::largest_buffer_bytes(1 << log2, capacity(log2)).max(sa::transfer_bytes(std::iter::repeat_n(1, patterns), chunks))
    }) else {
        anyhow::bail!("even a 4 KB text does not fit the adapter's largest buffer");
    };
    let work = workload(log2);
    let options = sa::ShiftAndOptions {
        chunk_len: 0,
        iterations: sizes.iterations(3),
        capacity: capacity(log2),
        carry: sa::Carry::Scan,
        long_capacity: 0,
    };
    let name = format!("shift-and {patterns} patterns x {} KB", work.text.len() >> 10);
    let report = run_kernel::<ShiftAnd>(&ShiftAndInput { work, options })?;
    say!(
        "{name:<34} {:>12.4} {:>10.1} G/s {:>9}  target 1 TB/s (text bytes x patterns){note}",
        report.total_gpu.median_ms,
        report.byte_patterns_per_s / 1e9,
        report.verified
    );
    say!("{:<34} {:>12.1} {:>14} {:>9}  (CPU reference, {} threads)", "", report.cpu_reference_ms, "", "", report.cpu_threads);
    say_loop_limit_warning(report.lavapipe_loop_limit_exceeded);
    Ok(())
}

/// `kernel all`'s tile-table rows (2^24 slots).
fn kernel_all_tile_table(sizes: &AllSizes) -> anyhow::Result<()> {
    use bisector::kernels::tile_table as tt;
    let Some((capacity_log2, note)) = sizes.fit_log2(24, 4, tt::largest_buffer_bytes) else {
        anyhow::bail!("even 2^4 slots do not fit the adapter's largest buffer");
    };
    let options = tt::TileTableOptions {
        capacity_log2,
        feedback_capacity: (1u32 << 16) >> (24 - capacity_log2).min(15),
        iterations: sizes.iterations(10),
        seed: 1,
        variant: tt::TableVariant::All,
    };
    let report = tt::run(&tile_table_gpu(options.capacity_log2)?, &options);
    let paper = |queries: &str, load: f64| match (queries, load == 0.9) {
        ("hits", true) => {
            "Awad et al. 2023: bucketed cuckoo ~7 G finds/s at load 0.9 (A100); cuco::static_map 11.9 G/s (H100, 32-bit keys)"
        }
        ("hits", false) => "cuco::static_map 21.9 G finds/s at load 0.5 (H100, 32-bit keys)",
        _ => "-",
    };
    // The linear table's rows, then the bucketed and the packed table's on the same keys and queries.
    let rows = report.loads.iter().flat_map(|l| l.lookups.iter().map(move |q| ("", l.load, q)));
    let rows = rows.chain(report.bucketed.iter().flat_map(|l| l.lookups.iter().map(move |q| ("bucketed ", l.load, q))));
    let rows = rows.chain(report.packed.iter().flat_map(|l| l.lookups.iter().map(move |q| ("packed ", l.load, q))));
    for (layout, load, q) in rows {
        let name = format!("tile-table {layout}2^{capacity_log2} load {load} ({})", q.queries);
        let paper = paper(q.queries, load);
        say!("{name:<34} {:>12.4} {:>10.3} G/s {:>9}  {paper}{note}", q.gpu.median_ms, q.lookups_per_s / 1e9, q.verified);
    }
    let f = &report.feedback_inserts;
    say!(
        "{:<34} {:>12.4} {:>10.3} G/s {:>9}  Awad et al. 2023: ~4 G inserts/s at load 0.9 (A100; distinct keys, not a deduplicating set){note}",
        format!("tile-feedback 2^{capacity_log2} inserts"),
        f.gpu.median_ms,
        f.lookups_per_s / 1e9,
        f.verified
    );
    Ok(())
}

/// `kernel all`'s CBT rows (D = 17 at 25%, 20 and 25 full).
fn kernel_all_cbt(sizes: &AllSizes) -> anyhow::Result<()> {
    use bisector::cbt::cpu::{heap_size_bytes, MIN_MAX_DEPTH};
    for (paper_depth, paper) in [
        (17, "23 us per reduce + decode cycle at 25% (RTX 3080)"),
        (20, "decode of a full tree 0.128 ms"),
        (25, "target: reduce within 0.02 ms"),
    ] {
        let fill = if paper_depth == 17 { 0.25 } else { 1.0 };
        let leaves = |max_depth: u32| 1u64 << bisector::kernels::cbt::fill_depth(max_depth, fill).unwrap_or(0);
        let Some((max_depth, note)) = sizes.fit_log2(paper_depth, MIN_MAX_DEPTH, |d| heap_size_bytes(d).max(4 * leaves(d))) else {
            anyhow::bail!("even the smallest tree does not fit the adapter's largest buffer");
        };
        let options = bisector::kernels::cbt::CbtKernelOptions { max_depth, fill, iterations: sizes.iterations(50), path: None };
        let gpu = Gpu::headless(&bisector::cbt::requirements(max_depth, leaves(max_depth)).with_timestamps())?;
        let report = bisector::kernels::cbt::run(&gpu, &options);
        say!(
            "{:<34} {:>12.4} {:>14} {:>9}  {paper}{note}",
            format!("cbt D={max_depth} fill {fill} reduce ({})", report.reduce_path),
            report.reduce.median_ms,
            "",
            report.verified
        );
        say!(
            "{:<34} {:>12.4} {:>10.3} G/s {:>9}",
            format!("cbt D={max_depth} fill {fill} decode"),
            report.decode.median_ms,
            report.decode_leaves_per_s / 1e9,
            report.verified
        );
    }
    Ok(())
}
