//! The `bisector` command line: view | shot | bench | kernel | probe | info.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

use bisector::bench::globe_path::GlobePath;
use bisector::bench::path::CameraPath;
use bisector::bench::run::{run_bench, BenchOptions};
use bisector::cache::tile_cache::{Producer, TileCache, TileCacheConfig};
use bisector::cli::{check_output_path, check_outputs, parse_camera, parse_size, write_atomic, write_bytes_atomic, write_png};
use bisector::globe::camera::GlobeCamera;
use bisector::globe::ground::Ground;
use bisector::globe::renderer::{GlobeRenderer, GlobeSettings};
use bisector::globe::spec::GlobeSpec;
use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::chained_hash::{BuildVariant, ChainedHashOptions, KeyDistribution};
use bisector::kernels::closest_pairs::{ClosestPairsOptions, Distribution, Variant as CpVariant};
use bisector::kernels::compact_hash::{CompactHashOptions, VectorDistribution};
use bisector::leb::base_mesh::BaseMesh;
use bisector::leb::lod::Criterion;
use bisector::render::camera::Camera;
use bisector::render::render_shot;
use bisector::render::{RenderSettings, Renderer};
use bisector::schedule::headless::{convergence_frame_limit, HeadlessView, Shot};
use bisector::terrain::TerrainSpec;
use bisector::viewer::SceneOptions;

/// Prints a line on stdout like `println!`, but a closed stdout (its reader gone, as in
/// `bisector ... | head -1`) is no error: the rest is not printed and the command goes on.
macro_rules! say {
    ($($arg:tt)*) => { print_line(format_args!($($arg)*)) };
}

/// Writes one line to stdout unless stdout has closed (then nothing more is printed).
fn print_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static CLOSED: AtomicBool = AtomicBool::new(false);
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        CLOSED.store(true, Ordering::Relaxed);
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("warning: cannot write to stdout ({error}); the rest of the output is not printed");
        }
    }
}

#[derive(Parser)]
#[command(
    name = "bisector",
    version,
    about = "GPU terrain level of detail: concurrent binary tree + longest-edge bisection",
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options every rendering command shares.
#[derive(clap::Args, Clone)]
struct RenderArgs {
    /// Terrain: procedural[:SEED] (the built-in default), a GeoTIFF, PNG or tile-pyramid folder,
    /// or the globe: planet[:SEED] (procedural) or planet:BASE.tif[,REGION...].
    #[arg(long, default_value = "procedural")]
    terrain: String,
    /// Max depth D of the concurrent binary tree (5..=29; the heap takes 2^(D-1) bytes).
    /// Default: 24, and 28 for --terrain planet (the globe needs 25 levels below its base
    /// triangles for triangles under 2 km; 29 needs a GPU that binds 256 MiB).
    #[arg(long)]
    max_depth: Option<u32>,
    /// Level-of-detail criterion: "error" splits triangles whose error bound from the data
    /// projects to more than --pixel-error pixels; "edge" splits triangles whose longest edge
    /// projects to more than --pixel-target pixels.
    #[arg(long, value_enum, default_value_t = LodArg::Error)]
    lod: LodArg,
    /// Screen-space error target in pixels (--lod error).
    #[arg(long, default_value_t = RenderSettings::default().pixel_error_px)]
    pixel_error: f32,
    /// Projected edge-length target in pixels (--lod edge).
    #[arg(long, default_value_t = RenderSettings::default().pixel_target_px)]
    pixel_target: f32,
    /// Do not morph new vertices (splits and merges then pop).
    #[arg(long)]
    no_morph: bool,
    /// Largest height grid (samples per side, 2^k + 1) a GeoTIFF, PNG or tile pyramid is loaded
    /// into: files load at their own resolution up to this, at the finest level that fits above.
    /// Default: 8193, and 2049 on a software (CPU) adapter, whose GPU memory is the process's own.
    #[arg(long)]
    max_samples: Option<u32>,
    /// Overlay the triangle edges.
    #[arg(long)]
    wireframe: bool,
    /// Tiles the globe's tile cache holds (--terrain planet): atlas layers of 131 x 131 heights
    /// (67 KiB each), evicted least recently used.
    #[arg(long, default_value_t = 1024)]
    cache_tiles: u32,
}

/// The --lod values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum LodArg {
    Error,
    Edge,
}

#[derive(Subcommand)]
enum Command {
    /// Open the interactive viewer with its egui panel (C: orbit/fly, drag, scroll, WASD/QE, F wireframe, L freeze, F12 screenshot; --terrain planet: the globe, right drag or Q/E/T/G to turn and tilt).
    View {
        #[command(flatten)]
        render: RenderArgs,
        /// Quit after this many frames.
        #[arg(long)]
        frames: Option<u32>,
        /// With --frames: write the last frame (with the panel) to this PNG.
        #[arg(long, requires = "frames")]
        screenshot: Option<PathBuf>,
        /// Present as fast as possible instead of at the display's refresh rate.
        #[arg(long)]
        no_vsync: bool,
    },
    /// Print the adapter, backend, driver, the features and limits the renderer uses.
    Info,
    /// Render one headless frame after the level of detail has converged and write a PNG.
    Shot {
        #[command(flatten)]
        render: RenderArgs,
        /// PX,PY,PZ,TX,TY,TZ[,FOV_DEG] (metres, degrees) or a camera-path file (its first pose).
        /// On a globe: LON,LAT,ALT[,HEADING_DEG,PITCH_DEG[,FOV_DEG]], ALT in metres above the
        /// sphere (R = 6,371,000 m), e.g. 30000, or above the ground with agl, e.g. 100agl, or a
        /// globe camera-path file (its first pose).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Image size WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// Output PNG.
        #[arg(long)]
        out: PathBuf,
    },
    /// Fly a camera path headless, print per-pass GPU times and write a JSON report.
    Bench {
        #[command(flatten)]
        render: RenderArgs,
        /// Camera path file (JSON keyframes; see the README).
        #[arg(long)]
        path: PathBuf,
        /// Image size WIDTHxHEIGHT.
        #[arg(long, default_value = "1920x1080")]
        size: String,
        /// Frames to render along the path.
        #[arg(long, default_value_t = 300)]
        frames: u32,
        /// Frames rendered at the path's start before measuring (the globe stops early once its
        /// tree has converged and its tile cache has settled).
        #[arg(long, default_value_t = 60)]
        warmup: u32,
        /// Start frames no faster than this many per second (0: as fast as the GPU goes). Tiles
        /// stream on background threads in real time, so this sets the time they get per frame.
        #[arg(long, default_value_t = 60.0)]
        fps: f64,
        /// JSON report to write.
        #[arg(long)]
        json: PathBuf,
        /// Also write a PNG chart of per-pass GPU time per frame.
        #[arg(long)]
        plot: Option<PathBuf>,
    },
    /// Run one diagnostic GPU kernel, verified against its CPU reference, with timings.
    #[command(arg_required_else_help = true)]
    Kernel {
        #[command(subcommand)]
        kernel: KernelCommand,
    },
    /// Measure the level of detail against the full-resolution data: the screen-space-error
    /// criterion at --pixel-error, and the edge-length criterion at the coarsest target whose
    /// measured error is no larger; prints triangles and measured errors of both.
    Quality {
        #[command(flatten)]
        render: RenderArgs,
        /// PX,PY,PZ,TX,TY,TZ[,FOV_DEG] (metres, degrees) or a camera-path file (its first pose).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Image size WIDTHxHEIGHT.
        #[arg(long, default_value = "1920x1080")]
        size: String,
        /// Write the measurements as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Print the height in metres the renderer samples at a point.
    Probe {
        /// Terrain: procedural[:SEED], a GeoTIFF file, a tile-pyramid folder, or a globe:
        /// planet[:SEED] or planet:BASE.tif[,REGION...] (the ground from the finest data).
        #[arg(long, default_value = "procedural")]
        terrain: String,
        /// X,Y in the source's coordinates: metres for the procedural terrain and projected
        /// rasters, lon,lat in degrees for geographic rasters, tile pyramids and globes.
        #[arg(long, allow_hyphen_values = true)]
        at: String,
    },
}

/// The chart's font, shipped in the binary.
const PLOT_FONT_TTF: &[u8] = include_bytes!("../assets/fonts/DejaVuSans.ttf");

#[derive(Subcommand)]
enum KernelCommand {
    /// Chained hash table (seed 000): parallel build (global or subgroup counter) and lookups.
    ChainedHash {
        /// log2 of the elements inserted.
        #[arg(long, default_value_t = 16)]
        elements_log2: u32,
        /// log2 of the buckets.
        #[arg(long, default_value_t = 15)]
        buckets_log2: u32,
        /// How keys are drawn.
        #[arg(long, value_enum, default_value_t = KeyDistribution::Uniform)]
        keys: KeyDistribution,
        /// Which build to run.
        #[arg(long, value_enum, default_value_t = BuildVariant::Both)]
        variant: BuildVariant,
        /// Timed repetitions of each build and lookup set.
        #[arg(long, default_value_t = 10)]
        iterations: u32,
        /// Seed of the random keys (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Tree-compressed hash table of state vectors (seed 002): findOrPut beside an uncompressed table.
    CompactHash {
        /// Words (32-bit) per vector, 1..=8.
        #[arg(long, default_value_t = 4)]
        length: u32,
        /// Slots (64-bit nodes) per bucket: 2, 4, 8, 16 or 32.
        #[arg(long, default_value_t = 2)]
        bucket_size: u32,
        /// log2 of the compressed table's slots (8 bytes each; at most 27).
        #[arg(long, default_value_t = 16)]
        table_log2: u32,
        /// Vectors to insert (default: as many as fill the table to --fill with distinct trees).
        #[arg(long, conflicts_with = "fill")]
        vectors: Option<u32>,
        /// Target fill of the compressed table (nodes / slots) when --vectors is not given.
        #[arg(long, default_value_t = 0.5)]
        fill: f64,
        /// How vectors are drawn (shared: model-checker-like states differing in one word).
        #[arg(long, value_enum, default_value_t = VectorDistribution::Uniform)]
        distribution: VectorDistribution,
        /// Timed repetitions.
        #[arg(long, default_value_t = 5)]
        iterations: u32,
        /// Seed of the random vectors (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Closest 100 pairs between two armies (seed 001): brute force and exact uniform grid.
    ClosestPairs {
        /// Points in army A (random armies).
        #[arg(long, default_value_t = 4096)]
        m: usize,
        /// Points in army B (random armies).
        #[arg(long, default_value_t = 2048)]
        n: usize,
        /// How random points are drawn (uniform: in [0, 10^6)^3).
        #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
        distribution: Distribution,
        /// Army A from a CSV file (one x,y,z per line; ids are line numbers from 0); needs --b.
        #[arg(long, requires = "b")]
        a: Option<PathBuf>,
        /// Army B from a CSV file; needs --a.
        #[arg(long, requires = "a")]
        b: Option<PathBuf>,
        /// Which GPU version to run.
        #[arg(long, value_enum, default_value_t = CpVariant::Both)]
        variant: CpVariant,
        /// Timed repetitions.
        #[arg(long, default_value_t = 3)]
        iterations: u32,
        /// Seed of the random armies (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Write the 100 closest pairs as CSV a,b,distance.
        #[arg(long)]
        pairs: Option<PathBuf>,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Extended Shift-And (seed 003): many patterns over a chunked text, every match end position.
    ShiftAnd {
        /// Patterns, one per line (default: random ones).
        #[arg(long, requires = "text")]
        patterns: Option<PathBuf>,
        /// Text to search (default: random bytes).
        #[arg(long, requires = "patterns")]
        text: Option<PathBuf>,
        /// Random patterns generated.
        #[arg(long, default_value_t = 64)]
        count: usize,
        /// Most states of a random pattern (32 per module, up to 256).
        #[arg(long, default_value_t = 32)]
        max_states: usize,
        /// Random text bytes.
        #[arg(long, default_value_t = 1 << 15)]
        text_bytes: usize,
        /// Bytes the random text and patterns use.
        #[arg(long, default_value = "abcdefghijklmnopqrstuvwxyz")]
        alphabet: String,
        /// Bytes per chunk (0: about 1024 chunks).
        #[arg(long, default_value_t = 0)]
        chunk: u32,
        /// Match positions kept (counts are always complete).
        #[arg(long, default_value_t = 1 << 22)]
        capacity: u32,
        /// Timed repetitions.
        #[arg(long, default_value_t = 3)]
        iterations: u32,
        /// Seed of the random workload (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Write every match as a line `pattern_index position`, sorted.
        #[arg(long)]
        matches: Option<PathBuf>,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Tile-cache hash table: GPU lookups (hits, misses, the ancestor walk that fills the
    /// feedback set) at load 0.5 and 0.9, verified against the CPU twin.
    TileTable {
        /// log2 of the table's slots; each lookup set has as many queries.
        #[arg(long, default_value_t = 16)]
        capacity_log2: u32,
        /// Slots of the feedback set the ancestor walk fills (a power of two).
        #[arg(long, default_value_t = 4096)]
        feedback_capacity: u32,
        /// Timed repetitions of each lookup set.
        #[arg(long, default_value_t = 10)]
        iterations: u32,
        /// Seed of the random keys (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Every kernel at the seed papers' sizes, in one table beside the papers' figures; sizes
    /// that do not fit the adapter are scaled down (the row says so), kernels it cannot run are
    /// skipped with a line saying why.
    All {
        /// Run every size 2^N times smaller and every kernel twice (a quick check of the table).
        #[arg(long, default_value_t = 0)]
        shrink_log2: u32,
    },
    /// CBT sum reduction and decode of every leaf on a tree filled to a fraction of 2^D.
    Cbt {
        /// Max depth D (5..=29).
        #[arg(long, default_value_t = 17)]
        max_depth: u32,
        /// Leaves as a fraction of 2^D: 1, 0.5, 0.25, ...
        #[arg(long, default_value_t = 0.25)]
        fill: f64,
        /// Timed repetitions.
        #[arg(long, default_value_t = 50)]
        iterations: u32,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

fn chained_hash_gpu(options: &ChainedHashOptions) -> anyhow::Result<Gpu> {
    let bytes = bisector::kernels::chained_hash::buffer_bytes(options);
    let mut requirements = Requirements::kernel(
        bytes,
        format!(
            "for 2^{} hash-table nodes and 2^{} buckets; lower --elements-log2 or --buckets-log2",
            options.element_log2, options.bucket_log2
        ),
    );
    if options.variant != BuildVariant::Global {
        requirements = requirements
            .with_feature(wgpu::Features::SUBGROUP, "the subgroup build aggregates its counter per subgroup; use --variant global");
    }
    Ok(Gpu::headless(&requirements)?)
}

fn compact_hash_gpu(options: &CompactHashOptions) -> anyhow::Result<Gpu> {
    let bytes = bisector::kernels::compact_hash::largest_buffer_bytes(options);
    let requirements = Requirements::kernel(
        bytes,
        format!("for the tables of {} vectors of {} words; lower --table-log2 or --vectors", options.vector_count(), options.length),
    )
    .with_feature(wgpu::Features::SHADER_INT64, "the compressed table's nodes are 64-bit integers")
    .with_feature(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS, "nodes are stored with a 64-bit compare-and-swap");
    Ok(Gpu::headless(&requirements)?)
}

fn kernel_compact_hash(options: &CompactHashOptions, json: Option<&std::path::Path>) -> anyhow::Result<()> {
    check_files(&[], &[("--json", json)])?;
    options.check().map_err(anyhow::Error::msg)?;
    let report = bisector::kernels::compact_hash::run(&compact_hash_gpu(options)?, options);
    say!("{} (seed {})", report.summary(), options.seed);
    write_json(json, &report)?;
    if let Some(line) = report.overflow_message() {
        anyhow::bail!("compact-hash: the table is full: {line}");
    }
    if !report.verified {
        anyhow::bail!("compact-hash: the GPU result differs from the CPU reference (seed {})", options.seed);
    }
    Ok(())
}

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
    use bisector::kernels::compact_hash::{self as ch, BUCKET_SIZES};
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
        let report = ch::run(&compact_hash_gpu(&options)?, &options);
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

fn tile_table_gpu(capacity_log2: u32) -> anyhow::Result<Gpu> {
    let bytes = bisector::kernels::tile_table::largest_buffer_bytes(capacity_log2);
    Ok(Gpu::headless(&Requirements::kernel(bytes, format!("for a tile table of 2^{capacity_log2} slots; lower --capacity-log2")))?)
}

fn kernel_tile_table(
    capacity_log2: u32,
    feedback_capacity: u32,
    iterations: u32,
    seed: Option<u64>,
    json: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use bisector::kernels::tile_table as tt;
    if capacity_log2 > 26 {
        anyhow::bail!("--capacity-log2 {capacity_log2}: must be 0..=26 (1 to 2^26 slots)");
    }
    if !feedback_capacity.is_power_of_two() || feedback_capacity > 1 << 24 {
        anyhow::bail!("--feedback-capacity {feedback_capacity}: must be a power of two from 1 to 2^24");
    }
    check_iterations(iterations)?;
    check_files(&[], &[("--json", json)])?;
    let seed = seed.unwrap_or_else(clock_seed);
    let options = tt::TileTableOptions { capacity_log2, feedback_capacity, iterations, seed };
    let report = tt::run(&tile_table_gpu(capacity_log2)?, &options);
    say!("{} (seed {seed})", report.summary());
    write_json(json, &report)?;
    if !report.verified {
        anyhow::bail!("tile-table: the GPU result differs from the CPU twin (seed {seed})");
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

fn kernel_all(shrink_log2: u32) -> anyhow::Result<()> {
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
        let Some((e, note)) = sizes.fit_log2(element_log2, 4, |e| bisector::kernels::chained_hash::buffer_bytes(&options(e))) else {
            anyhow::bail!("even 2^4 elements do not fit the adapter's largest buffer");
        };
        let options = options(e);
        let report = bisector::kernels::chained_hash::run(&chained_hash_gpu(&options)?, &options);
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
    use bisector::kernels::closest_pairs as cp;
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
    let armies_drawn = cp::make_armies(m, n, Distribution::Uniform, 1);
    let report = cp::run(
        &closest_pairs_gpu(m, n)?,
        &ClosestPairsOptions { variant: CpVariant::Both, iterations: sizes.iterations(5) },
        &armies_drawn,
    );
    for v in &report.variants {
        let paper = if v.variant == "brute" {
            "585 ms brute force (RTX 2080 Ti)"
        } else {
            "172 ms inexact 27-cell grid (RTX 2080 Ti); target 2 ms"
        };
        let name = format!("closest-pairs {m} x {n} ({})", v.variant);
        say!("{name:<34} {:>12.4} {:>10.1} M/s {:>9}  {paper}{note}", v.total_gpu.median_ms, v.queries_per_s / 1e6, v.verified);
    }
    say!(
        "{:<34} {:>12.1} {:>14} {:>9}  (CPU reference: exact grid, {} threads; grid built on the CPU in {:.1} ms)",
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
    use bisector::kernels::shift_and as sa;
    let patterns = (1000usize >> (sizes.shrink_log2 / 2)).max(8);
    // log2 of the text bytes; the match capacity is a quarter of the text's bytes; patterns of at
    // most 32 states are one word each (the per-chunk states are 4 bytes per chunk and pattern).
    let workload = |log2: u32| sa::make_workload(patterns, 32, 1 << log2, b"abcdefghijklmnopqrstuvwxyz", 1);
    let capacity = |log2: u32| 1u32 << (log2 - 2);
    let Some((log2, note)) = sizes.fit_log2(26, 12, |log2| {
        sa::largest_buffer_bytes(1 << log2, capacity(log2)).max(4 * sa::chunk_count(1 << log2, 0) * patterns as u64)
    }) else {
        anyhow::bail!("even a 4 KB text does not fit the adapter's largest buffer");
    };
    let work = workload(log2);
    let options = sa::ShiftAndOptions {
        chunk_len: 0,
        iterations: sizes.iterations(3),
        capacity: capacity(log2),
        max_carry_rounds: sa::MAX_CARRY_ROUNDS,
    };
    let report = sa::run(&shift_and_gpu(&work, 0, options.capacity)?, &options, &work);
    let name = format!("shift-and {patterns} patterns x {} KB", work.text.len() >> 10);
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
    };
    let report = tt::run(&tile_table_gpu(options.capacity_log2)?, &options);
    for l in &report.loads {
        for q in &l.lookups {
            let paper = match (q.queries, l.load == 0.9) {
                ("hits", true) => {
                    "Awad et al. 2023: bucketed cuckoo ~7 G finds/s at load 0.9 (A100); cuco::static_map 11.9 G/s (H100, 32-bit keys)"
                }
                ("hits", false) => "cuco::static_map 21.9 G finds/s at load 0.5 (H100, 32-bit keys)",
                _ => "-",
            };
            let name = format!("tile-table 2^{capacity_log2} load {} ({})", l.load, q.queries);
            say!("{name:<34} {:>12.4} {:>10.3} G/s {:>9}  {paper}{note}", q.gpu.median_ms, q.lookups_per_s / 1e9, q.verified);
        }
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
        let options = bisector::kernels::cbt::CbtKernelOptions { max_depth, fill, iterations: sizes.iterations(50) };
        let gpu = Gpu::headless(&bisector::cbt::requirements(max_depth, leaves(max_depth)).with_timestamps())?;
        let report = bisector::kernels::cbt::run(&gpu, &options);
        say!(
            "{:<34} {:>12.4} {:>14} {:>9}  {paper}{note}",
            format!("cbt D={max_depth} fill {fill} reduce"),
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

fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

/// Most timed repetitions a command runs (more would run for hours).
const MAX_ITERATIONS: u32 = bisector::kernels::MAX_ITERATIONS;
/// Most frames `bench` renders before measuring.
const MAX_WARMUP_FRAMES: u32 = 100_000;
/// Most frames `bench` measures or `view --frames` shows.
const MAX_FRAMES: u32 = 1_000_000;
/// Fastest pace `bench --fps` takes (slower than 1 frame per second would run for hours).
const FPS_RANGE: std::ops::RangeInclusive<f64> = 1.0..=1000.0;
/// Most layers of the globe's tile cache (--cache-tiles; each 67 KiB).
const MAX_CACHE_TILES: u32 = 1 << 16;
/// Largest pixel targets (--pixel-error, --pixel-target): past this nothing is ever split.
const MAX_PIXEL_TARGET_PX: f32 = 10_000.0;

/// Checks `--iterations` before any work.
fn check_iterations(iterations: u32) -> anyhow::Result<()> {
    if !(1..=MAX_ITERATIONS).contains(&iterations) {
        anyhow::bail!("--iterations {iterations}: must be 1..={MAX_ITERATIONS}");
    }
    Ok(())
}

/// The files and folders `--terrain` reads (none for the procedural terrains, or a spec that does
/// not parse: its reader reports that).
fn terrain_inputs(terrain: &str) -> Vec<PathBuf> {
    match GlobeSpec::parse(terrain) {
        Some(Ok(GlobeSpec::Earth { base, regions })) => std::iter::once(base).chain(regions).collect(),
        Some(_) => Vec::new(),
        None => match TerrainSpec::parse(terrain) {
            Ok(TerrainSpec::GeoTiff(path) | TerrainSpec::Pyramid(path) | TerrainSpec::Png16 { path, .. }) => vec![path],
            _ => Vec::new(),
        },
    }
}

/// The inputs of a rendering command: `--terrain`'s files and a `--camera` that names a file.
fn render_inputs(render: &RenderArgs, camera: Option<&str>) -> Vec<(&'static str, PathBuf)> {
    let mut inputs: Vec<(&'static str, PathBuf)> = terrain_inputs(&render.terrain).into_iter().map(|p| ("--terrain", p)).collect();
    inputs.extend(camera.map(PathBuf::from).filter(|p| p.is_file()).map(|p| ("--camera", p)));
    inputs
}

/// Checks every output before any work: its folder can be written, and it names no input file
/// (nor a file inside an input folder) and no other output of the command, links resolved.
fn check_files(inputs: &[(&str, PathBuf)], outputs: &[(&str, Option<&std::path::Path>)]) -> anyhow::Result<()> {
    let outputs: Vec<(&str, &std::path::Path)> = outputs.iter().filter_map(|&(flag, path)| Some((flag, path?))).collect();
    for &(flag, path) in &outputs {
        check_output_path(path, flag)?;
    }
    let inputs: Vec<(&str, &std::path::Path)> = inputs.iter().map(|(flag, path)| (*flag, path.as_path())).collect();
    Ok(check_outputs(&inputs, &outputs)?)
}

/// Checks the numeric options every rendering command shares (--max-depth and the pixel targets
/// are checked with the settings).
fn check_render_args(args: &RenderArgs) -> anyhow::Result<()> {
    if let Some(max_samples) = args.max_samples.filter(|&n| bisector::terrain::check_max_samples(n).is_err()) {
        anyhow::bail!("--max-samples {max_samples}: must be 2^k + 1 between 65 and 16385, e.g. 4097");
    }
    if !(1..=MAX_CACHE_TILES).contains(&args.cache_tiles) {
        anyhow::bail!("--cache-tiles {}: must be 1..={MAX_CACHE_TILES}", args.cache_tiles);
    }
    for (flag, value) in [("--pixel-target", args.pixel_target), ("--pixel-error", args.pixel_error)] {
        if !(value.is_finite() && value > 0.0 && value <= MAX_PIXEL_TARGET_PX) {
            anyhow::bail!("{flag} {value}: must be a positive number of pixels, at most {MAX_PIXEL_TARGET_PX}");
        }
    }
    Ok(())
}

/// Writes `value` as pretty JSON to `json` (atomically), when given.
fn write_json(json: Option<&std::path::Path>, value: &impl serde::Serialize) -> anyhow::Result<()> {
    if let Some(json) = json {
        write_bytes_atomic(json, serde_json::to_string_pretty(value)?.as_bytes())?;
    }
    Ok(())
}

fn closest_pairs_gpu(m: usize, n: usize) -> anyhow::Result<Gpu> {
    let bytes = bisector::kernels::closest_pairs::largest_buffer_bytes(m, n);
    Ok(Gpu::headless(&Requirements::kernel(bytes, format!("for {m} + {n} points; use smaller armies")))?)
}

#[allow(clippy::too_many_arguments)]
fn kernel_closest_pairs(
    m: usize,
    n: usize,
    distribution: Distribution,
    files: (Option<&std::path::Path>, Option<&std::path::Path>),
    variant: CpVariant,
    iterations: u32,
    seed: Option<u64>,
    pairs: Option<&std::path::Path>,
    json: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use bisector::kernels::closest_pairs as cp;
    let inputs: Vec<(&str, PathBuf)> =
        [("--a", files.0), ("--b", files.1)].into_iter().filter_map(|(flag, path)| Some((flag, path?.to_path_buf()))).collect();
    check_files(&inputs, &[("--json", json), ("--pairs", pairs)])?;
    check_iterations(iterations)?;
    let armies = match files {
        (Some(a), Some(b)) => {
            let a_points = cp::read_army(a).map_err(anyhow::Error::msg)?;
            let b_points = cp::read_army(b).map_err(anyhow::Error::msg)?;
            cp::Armies { a: a_points, b: b_points, source: format!("files {} {}", a.display(), b.display()) }
        }
        _ => {
            for (count, flag) in [(m, "--m"), (n, "--n")] {
                if count == 0 {
                    anyhow::bail!("{flag} 0: the army is empty; an army needs at least one point");
                }
                if count > 1 << 26 {
                    anyhow::bail!("{flag} {count}: at most 2^26 points");
                }
            }
            let seed = seed.unwrap_or_else(clock_seed);
            cp::make_armies(m, n, distribution, seed)
        }
    };
    let options = ClosestPairsOptions { variant, iterations };
    let report = cp::run(&closest_pairs_gpu(armies.a.len(), armies.b.len())?, &options, &armies);
    say!("{}", report.summary());
    write_json(json, &report)?;
    if let Some(path) = pairs {
        write_atomic(path, |_, temp| cp::write_pairs(temp, &report.pairs))?;
    }
    if !report.verified {
        anyhow::bail!("closest-pairs: the GPU result differs from the CPU reference ({})", report.source);
    }
    Ok(())
}

fn shift_and_gpu(work: &bisector::kernels::shift_and::Workload, chunk_len: u32, capacity: u32) -> anyhow::Result<Gpu> {
    use bisector::kernels::shift_and as sa;
    let bytes = sa::run_buffer_bytes(work, chunk_len, capacity);
    let why = format!(
        "for {} patterns over {} text bytes in {} chunks and {capacity} match positions; use fewer patterns (--count), a larger --chunk, a smaller text or --capacity",
        work.patterns.len(),
        work.text.len(),
        sa::chunk_count(work.text.len(), chunk_len)
    );
    Ok(Gpu::headless(&Requirements::kernel(bytes, why))?)
}

fn kernel_shift_and(kernel: &KernelCommand) -> anyhow::Result<()> {
    use bisector::kernels::shift_and as sa;
    let KernelCommand::ShiftAnd {
        patterns,
        text,
        count,
        max_states,
        text_bytes,
        alphabet,
        chunk,
        capacity,
        iterations,
        seed,
        matches,
        json,
    } = kernel
    else {
        unreachable!()
    };
    let inputs: Vec<(&str, PathBuf)> =
        [("--patterns", patterns), ("--text", text)].into_iter().filter_map(|(flag, path)| Some((flag, path.clone()?))).collect();
    check_files(&inputs, &[("--json", json.as_deref()), ("--matches", matches.as_deref())])?;
    check_iterations(*iterations)?;
    let work = match (patterns, text) {
        (Some(p), Some(t)) => {
            let list = sa::read_patterns(p).map_err(anyhow::Error::msg)?;
            let bytes = sa::read_text(t)?;
            sa::Workload { patterns: list, text: bytes, source: format!("{} on {}", p.display(), t.display()) }
        }
        _ => {
            if !(1..=sa::MAX_PATTERNS).contains(count) {
                anyhow::bail!("--count {count}: must be 1..={}", sa::MAX_PATTERNS);
            }
            if *text_bytes == 0 {
                anyhow::bail!("--text-bytes 0: must be at least 1");
            }
            if !(1..=32 * sa::MAX_WORDS).contains(max_states) {
                anyhow::bail!("--max-states {max_states}: must be 1..={}", 32 * sa::MAX_WORDS);
            }
            if *text_bytes > 1 << 30 {
                anyhow::bail!("--text-bytes {text_bytes}: at most 2^30");
            }
            let mut set: Vec<u8> = alphabet.bytes().filter(|b| !b"\\[]^-.?*+{}".contains(b)).collect();
            set.sort_unstable();
            set.dedup();
            if set.is_empty() {
                anyhow::bail!("--alphabet '{alphabet}': needs at least one byte that is not pattern syntax");
            }
            sa::make_workload(*count, *max_states, *text_bytes, &set, seed.unwrap_or_else(clock_seed))
        }
    };
    if work.patterns.len() > sa::MAX_PATTERNS {
        anyhow::bail!("--patterns: {} patterns, at most {} in one run", work.patterns.len(), sa::MAX_PATTERNS);
    }
    let chunks = sa::chunk_count(work.text.len(), *chunk);
    if chunks > 65535 {
        anyhow::bail!("--chunk {chunk}: makes {chunks} chunks, at most 65535");
    }
    let options =
        sa::ShiftAndOptions { chunk_len: *chunk, iterations: *iterations, capacity: *capacity, max_carry_rounds: sa::MAX_CARRY_ROUNDS };
    let report = sa::run(&shift_and_gpu(&work, *chunk, *capacity)?, &options, &work);
    say!("{}", report.summary());
    write_json(json.as_deref(), &report)?;
    if let Some(path) = matches {
        if report.positions_overflowed {
            anyhow::bail!("--matches: {} matches exceed --capacity {capacity}; raise it", report.total_matches);
        }
        let mut out = String::new();
        for (p, i) in &report.matches {
            out += &format!("{p} {i}\n");
        }
        write_bytes_atomic(path, out.as_bytes())?;
    }
    if !report.verified {
        anyhow::bail!("shift-and: the GPU result differs from the CPU reference ({})", report.source);
    }
    Ok(())
}

fn kernel(kernel: &KernelCommand) -> anyhow::Result<()> {
    match kernel {
        KernelCommand::All { shrink_log2 } => kernel_all(*shrink_log2),
        KernelCommand::TileTable { capacity_log2, feedback_capacity, iterations, seed, json } => {
            kernel_tile_table(*capacity_log2, *feedback_capacity, *iterations, *seed, json.as_deref())
        }
        KernelCommand::ShiftAnd { .. } => kernel_shift_and(kernel),
        KernelCommand::CompactHash { length, bucket_size, table_log2, vectors, fill, distribution, iterations, seed, json } => {
            let options = CompactHashOptions {
                length: *length,
                bucket_size: *bucket_size,
                table_log2: *table_log2,
                vectors: *vectors,
                fill: *fill,
                distribution: *distribution,
                iterations: *iterations,
                seed: seed.unwrap_or_else(clock_seed),
            };
            kernel_compact_hash(&options, json.as_deref())
        }
        KernelCommand::ClosestPairs { m, n, distribution, a, b, variant, iterations, seed, pairs, json } => kernel_closest_pairs(
            *m,
            *n,
            *distribution,
            (a.as_deref(), b.as_deref()),
            *variant,
            *iterations,
            *seed,
            pairs.as_deref(),
            json.as_deref(),
        ),
        KernelCommand::ChainedHash { elements_log2, buckets_log2, keys, variant, iterations, seed, json } => {
            if *elements_log2 > 28 {
                anyhow::bail!("--elements-log2 {elements_log2}: must be 0..=28 (1 to 2^28 elements)");
            }
            if *buckets_log2 > 30 {
                anyhow::bail!("--buckets-log2 {buckets_log2}: must be 0..=30");
            }
            check_iterations(*iterations)?;
            check_files(&[], &[("--json", json.as_deref())])?;
            let seed = seed.unwrap_or_else(clock_seed);
            let options = ChainedHashOptions {
                element_log2: *elements_log2,
                bucket_log2: *buckets_log2,
                keys: *keys,
                variant: *variant,
                iterations: *iterations,
                seed,
            };
            let report = bisector::kernels::chained_hash::run(&chained_hash_gpu(&options)?, &options);
            say!("{} (seed {seed})", report.summary());
            write_json(json.as_deref(), &report)?;
            if !report.verified {
                anyhow::bail!("chained-hash: the GPU result differs from the CPU reference (seed {seed})");
            }
            Ok(())
        }
        KernelCommand::Cbt { max_depth, fill, iterations, json } => {
            bisector::cbt::gpu::check_max_depth(*max_depth).context("--max-depth")?;
            if bisector::kernels::cbt::fill_depth(*max_depth, *fill).is_none() {
                anyhow::bail!("--fill {fill}: must be 1, 0.5, 0.25, ... (a power of two no smaller than 2^-D)");
            }
            check_iterations(*iterations)?;
            check_files(&[], &[("--json", json.as_deref())])?;
            let leaves = 1u64 << bisector::kernels::cbt::fill_depth(*max_depth, *fill).unwrap_or(0);
            let gpu = Gpu::headless(&bisector::cbt::requirements(*max_depth, leaves).with_timestamps())?;
            let options = bisector::kernels::cbt::CbtKernelOptions { max_depth: *max_depth, fill: *fill, iterations: *iterations };
            let report = bisector::kernels::cbt::run(&gpu, &options);
            say!("{}", report.summary());
            write_json(json.as_deref(), &report)?;
            if !report.verified {
                anyhow::bail!("cbt kernel: the GPU result differs from the CPU reference");
            }
            Ok(())
        }
    }
}

/// The grid files are loaded into without --max-samples: smaller on a software adapter, whose
/// GPU memory is the process's own (`terrain::default_max_samples`).
fn default_max_samples() -> u32 {
    let instance = bisector::gpu::create_instance();
    match bisector::gpu::request_adapter(&instance, None) {
        Ok(adapter) => bisector::terrain::default_max_samples(adapter.get_info().device_type),
        // The GPU's own error comes when the renderer asks for it.
        Err(_) => bisector::terrain::DEFAULT_MAX_SAMPLES,
    }
}

/// Loads the terrain to draw, telling the user on stderr when it is coarser than its source.
fn load_terrain(spec: &TerrainSpec, args: &RenderArgs) -> anyhow::Result<bisector::terrain::HeightField> {
    check_render_args(args)?;
    let max_samples = match (args.max_samples, spec) {
        (Some(max_samples), _) => max_samples,
        // The built-in terrain has its own grid: no adapter to ask.
        (None, TerrainSpec::Procedural { .. }) => bisector::terrain::DEFAULT_MAX_SAMPLES,
        (None, _) => default_max_samples(),
    };
    let loaded = spec.load(max_samples)?;
    if let Some(note) = loaded.note {
        eprintln!("{note}");
    }
    Ok(loaded.field)
}

fn settings(args: &RenderArgs) -> anyhow::Result<RenderSettings> {
    let max_depth = args.max_depth.unwrap_or(RenderSettings::default().max_depth);
    bisector::cbt::gpu::check_max_depth(max_depth).context("--max-depth")?;
    for (flag, value) in [("--pixel-target", args.pixel_target), ("--pixel-error", args.pixel_error)] {
        if !(value.is_finite() && value > 0.0) {
            anyhow::bail!("{flag} {value}: must be a positive number of pixels");
        }
    }
    Ok(RenderSettings {
        max_depth,
        criterion: match args.lod {
            LodArg::Error => Criterion::ScreenSpaceError,
            LodArg::Edge => Criterion::EdgeLength,
        },
        pixel_error_px: args.pixel_error,
        pixel_target_px: args.pixel_target,
        morph: !args.no_morph,
        wireframe: args.wireframe,
        ..Default::default()
    })
}

fn info() -> anyhow::Result<()> {
    let settings = RenderSettings::default();
    let requirements = bisector::cbt::requirements(settings.max_depth, settings.effective_leaf_capacity() as u64);
    let instance = bisector::gpu::create_instance();
    let adapter = bisector::gpu::request_adapter(&instance, None)?;
    let info = adapter.get_info();
    say!("adapter:  {}", info.name);
    say!("backend:  {:?}", info.backend);
    say!("type:     {:?}", info.device_type);
    say!("driver:   {} {}", info.driver, info.driver_info);
    let features = adapter.features();
    say!("features used:");
    for (feature, why) in &requirements.features {
        say!(
            "  {}: {} (required: {why})",
            bisector::gpu::feature_name(*feature),
            if features.contains(*feature) { "yes" } else { "MISSING" }
        );
    }
    for feature in requirements.optional_features.iter() {
        say!(
            "  {}: {} (optional: GPU pass timings; required by bench)",
            bisector::gpu::feature_name(feature),
            if features.contains(feature) { "yes" } else { "no" }
        );
    }
    let limits = adapter.limits();
    say!("limits (adapter / needed at the default max depth {}):", settings.max_depth);
    for (name, needed, _) in &requirements.limits {
        say!("  {name}: {} / {needed}", bisector::gpu::limit_value(&limits, name));
    }
    let deepest = (bisector::cbt::cpu::MIN_MAX_DEPTH..=bisector::cbt::cpu::MAX_MAX_DEPTH)
        .rev()
        .find(|&d| bisector::cbt::cpu::heap_size_bytes(d) <= limits.max_storage_buffer_binding_size as u64)
        .unwrap_or(0);
    say!("deepest CBT this adapter holds: max depth {deepest} ({} MiB heap)", bisector::cbt::cpu::heap_size_bytes(deepest) >> 20);
    Ok(())
}

fn shot(render: &RenderArgs, camera: Option<&str>, size: &str, out: &std::path::Path) -> anyhow::Result<()> {
    check_files(&render_inputs(render, camera), &[("--out", Some(out))])?;
    check_render_args(render)?;
    if let Some(spec) = GlobeSpec::parse(&render.terrain) {
        return globe_shot(render, &spec?, camera, size, out);
    }
    let settings = settings(render)?;
    let (width, height) = parse_size(size)?;
    let spec = TerrainSpec::parse(&render.terrain)?;
    let camera = camera.map(parse_camera).transpose()?;
    let field = load_terrain(&spec, render)?;
    let gpu = Gpu::headless(&bisector::render::requirements(&settings, field.samples_per_side).with_image_size((width, height)))?;
    let camera = camera.unwrap_or_else(|| Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64));
    if let Some(warning) = camera.below_ground_warning(&field) {
        eprintln!("{warning}");
    }
    let Shot { image, frames, last } = render_shot(&gpu, &field, settings, &camera, (width, height));
    write_png(&image, out)?;
    say!(
        "{}: {width}x{height}, {} leaves, max depth {} after {frames} frames on {}{}",
        out.display(),
        last.stats.leaves,
        last.stats.max_depth,
        gpu.describe(),
        if last.stats.overflow == 1 { " (leaf buffer full: some leaves not drawn)" } else { "" }
    );
    Ok(())
}

/// The globe's settings from the render flags (--lod and --pixel-error do not apply: the globe
/// splits by projected edge length).
fn globe_settings(args: &RenderArgs) -> anyhow::Result<GlobeSettings> {
    let max_depth = args.max_depth.unwrap_or(GlobeSettings::default().max_depth);
    bisector::cbt::gpu::check_max_depth(max_depth).context("--max-depth")?;
    if max_depth <= BaseMesh::octahedron().depth {
        anyhow::bail!("--max-depth {max_depth}: the globe's base triangles are at depth 3, so it needs at least 4");
    }
    if !(args.pixel_target.is_finite() && args.pixel_target > 0.0) {
        anyhow::bail!("--pixel-target {}: must be a positive number of pixels", args.pixel_target);
    }
    Ok(GlobeSettings { max_depth, pixel_target_px: args.pixel_target, wireframe: args.wireframe, ..Default::default() })
}

/// The height of the surface drawn at (lon, lat): the ground, or sea level over the sea (as the
/// globe draws the water's surface); an error names the point where no layer has data.
fn ground_height_m(ground: &Ground, lon_deg: f64, lat_deg: f64) -> anyhow::Result<f64> {
    ground
        .height_m(lon_deg, lat_deg)?
        .map(|h| f64::from(h.max(0.0)))
        .with_context(|| format!("no ground height at {lon_deg},{lat_deg}: no layer of the globe has data there"))
}

/// The sizes of a globe's tile cache holding `tiles` tiles (one loader thread per core).
fn globe_cache_config(tiles: u32) -> TileCacheConfig {
    let loader_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    TileCacheConfig { tiles, loader_threads, ..Default::default() }
}

/// The tile cache of a globe, holding `tiles` tiles of `producer`.
fn globe_cache(gpu: &Gpu, producer: Producer, tiles: u32) -> anyhow::Result<TileCache> {
    Ok(TileCache::new(gpu, globe_cache_config(tiles), producer)?)
}

/// Frames `shot` allows the globe's tile cache to settle in, beyond the tree's convergence.
const GLOBE_LOADING_FRAMES: u32 = 3000;

fn globe_shot(render: &RenderArgs, spec: &GlobeSpec, camera: Option<&str>, size: &str, out: &std::path::Path) -> anyhow::Result<()> {
    let settings = globe_settings(render)?;
    let (width, height) = parse_size(size)?;
    let camera = camera.map(bisector::cli::parse_globe_camera).transpose()?;
    // Real data is opened here, so bad files fail before any GPU work; its tiles then load on
    // background threads.
    let ground = Ground::open(spec)?;
    let camera = match camera {
        Some(camera) => camera.resolve(|lon, lat| ground_height_m(&ground, lon, lat))?,
        None => GlobeCamera::default_orbit(),
    };
    if let Some(warning) = ground.below_ground_warning(&camera)? {
        eprintln!("{warning}");
    }
    let producer = ground.producer();
    let gpu = Gpu::headless(&bisector::globe::renderer::requirements(&settings, render.cache_tiles).with_image_size((width, height)))?;
    let max_depth = settings.max_depth;
    let cache = globe_cache(&gpu, producer, render.cache_tiles)?;
    let renderer = GlobeRenderer::new(&gpu, settings, bisector::gpu::target::COLOR_FORMAT, cache);
    let mut view = HeadlessView::new(&gpu, renderer, width, height);
    // Frames for the tree to converge, and then for the tile cache to load what the view needs.
    let Shot { image, frames, last } = view.shot(&gpu, &camera, convergence_frame_limit(max_depth) + GLOBE_LOADING_FRAMES);
    write_png(&image, out)?;
    let c = &view.scene.cache.stats();
    say!(
        "{}: {width}x{height}, camera {:.1} m above the sphere, {} leaves, max depth {} after {frames} frames, {} of {} cache tiles resident ({} missed{}) on {}",
        out.display(),
        camera.altitude_m(),
        last.stats.leaves,
        last.stats.max_depth,
        c.resident_tiles,
        c.capacity_tiles,
        c.misses,
        if view.scene.cache.is_settled() { "" } else { ", not settled: tiles still missing" },
        gpu.describe()
    );
    Ok(())
}

fn bench(
    render: &RenderArgs,
    path: &std::path::Path,
    options: BenchOptions,
    json: &std::path::Path,
    plot: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let mut inputs = render_inputs(render, None);
    inputs.push(("--path", path.to_path_buf()));
    check_files(&inputs, &[("--json", Some(json)), ("--plot", plot)])?;
    if !(1..=MAX_FRAMES).contains(&options.frames) {
        anyhow::bail!("--frames {}: must be 1..={MAX_FRAMES}", options.frames);
    }
    if options.warmup_frames > MAX_WARMUP_FRAMES {
        anyhow::bail!("--warmup {}: must be 0..={MAX_WARMUP_FRAMES}", options.warmup_frames);
    }
    if !(options.pace_fps == 0.0 || FPS_RANGE.contains(&options.pace_fps)) {
        anyhow::bail!(
            "--fps {}: must be 0 (as fast as the GPU goes) or {} to {} frames per second",
            options.pace_fps,
            FPS_RANGE.start(),
            FPS_RANGE.end()
        );
    }
    check_render_args(render)?;
    let globe = GlobeSpec::parse(&render.terrain).transpose()?;
    let report = match globe {
        Some(spec) => globe_bench(render, &spec, path, &options)?,
        None => {
            let settings = settings(render)?;
            let spec = TerrainSpec::parse(&render.terrain)?;
            let camera_path = CameraPath::load(path)?;
            let field = load_terrain(&spec, render)?;
            let gpu = Gpu::headless(
                &bisector::render::requirements(&settings, field.samples_per_side).with_image_size(options.size_px).with_timestamps(),
            )?;
            let renderer = Renderer::new(&gpu, &field, settings, bisector::gpu::target::COLOR_FORMAT);
            run_bench(&gpu, &mut HeadlessView::new(&gpu, renderer, options.size_px.0, options.size_px.1), &camera_path, &options)
        }
    };
    say!("{}", report.summary_table());
    write_bytes_atomic(json, report.to_json().as_bytes())?;
    if let Some(plot) = plot {
        // The chart is drawn to a temporary file beside the plot, then renamed over it.
        write_atomic(plot, |_, temp| report.write_plot_png(temp, PLOT_FONT_TTF).map_err(std::io::Error::other))?;
    }
    Ok(())
}

/// `bench --terrain planet...`: the globe along a lon/lat camera path.
fn globe_bench(
    render: &RenderArgs,
    spec: &GlobeSpec,
    path: &std::path::Path,
    options: &BenchOptions,
) -> anyhow::Result<bisector::bench::report::BenchReport> {
    let settings = globe_settings(render)?;
    let camera_path = GlobePath::load(path)?;
    let producer = Ground::open(spec)?.producer();
    let gpu = Gpu::headless(
        &bisector::globe::renderer::requirements(&settings, render.cache_tiles).with_image_size(options.size_px).with_timestamps(),
    )?;
    let cache = globe_cache(&gpu, producer, render.cache_tiles)?;
    let renderer = GlobeRenderer::new(&gpu, settings, bisector::gpu::target::COLOR_FORMAT, cache);
    let mut view = HeadlessView::new(&gpu, renderer, options.size_px.0, options.size_px.1);
    Ok(bisector::bench::run::run_globe_bench(&gpu, &mut view, &camera_path, options))
}

fn quality(render: &RenderArgs, camera: Option<&str>, size: &str, json: Option<&std::path::Path>) -> anyhow::Result<()> {
    check_files(&render_inputs(render, camera), &[("--json", json)])?;
    check_render_args(render)?;
    let settings = settings(render)?;
    let size_px = parse_size(size)?;
    let spec = TerrainSpec::parse(&render.terrain)?;
    let camera = camera.map(parse_camera).transpose()?;
    let field = load_terrain(&spec, render)?;
    let gpu = Gpu::headless(&bisector::render::requirements(&settings, field.samples_per_side).with_image_size(size_px))?;
    let camera = camera.unwrap_or_else(|| Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64));
    if let Some(warning) = camera.below_ground_warning(&field) {
        eprintln!("{warning}");
    }
    let bounds = bisector::terrain::node_bounds::build(&field, bisector::render::bounds_depth_for(&gpu.device.limits()));
    let comparison = bisector::bench::quality::compare(&gpu, &field, &bounds, &settings, &camera, size_px);
    say!("{}", comparison.summary());
    write_json(json, &comparison)?;
    Ok(())
}

fn probe(terrain: &str, at: &str) -> anyhow::Result<()> {
    if let Some(spec) = GlobeSpec::parse(terrain) {
        let spec = spec?;
        let (lon, lat) = bisector::cli::parse_lon_lat(at)?;
        match Ground::open(&spec)?.height_m(lon, lat)? {
            Some(height_m) => say!("{height_m:.2}"),
            None => say!("nodata"),
        }
        return Ok(());
    }
    let spec = TerrainSpec::parse(terrain)?;
    let (x, y) = at
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?)))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .with_context(|| format!("--at '{at}': expected X,Y (metres, or lon,lat in degrees for geographic data), e.g. 10240,5120"))?;
    match spec.open()?.sample_m(x, y)? {
        Some(height_m) => say!("{height_m:.2}"),
        None => say!("nodata"),
    }
    Ok(())
}

fn view(render: &RenderArgs, frames: Option<u32>, screenshot: Option<&std::path::Path>, no_vsync: bool) -> anyhow::Result<()> {
    check_files(&render_inputs(render, None), &[("--screenshot", screenshot)])?;
    check_render_args(render)?;
    if let Some(frames) = frames.filter(|f| !(1..=MAX_FRAMES).contains(f)) {
        anyhow::bail!("--frames {frames}: must be 1..={MAX_FRAMES}");
    }
    let scene = match GlobeSpec::parse(&render.terrain) {
        Some(spec) => {
            let spec = spec?;
            let settings = globe_settings(render)?;
            SceneOptions::Globe { settings, producer: Ground::open(&spec)?.producer(), cache: globe_cache_config(render.cache_tiles) }
        }
        None => {
            let settings = settings(render)?;
            let spec = TerrainSpec::parse(&render.terrain)?;
            SceneOptions::Heightfield { field: load_terrain(&spec, render)?, settings }
        }
    };
    bisector::viewer::run(bisector::viewer::ViewerOptions {
        scene,
        frames,
        screenshot: screenshot.map(|p| p.to_path_buf()),
        vsync: !no_vsync,
    })
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match &cli.command {
        Command::View { render, frames, screenshot, no_vsync } => view(render, *frames, screenshot.as_deref(), *no_vsync),
        Command::Info => info(),
        Command::Shot { render, camera, size, out } => shot(render, camera.as_deref(), size, out),
        Command::Bench { render, path, size, frames, warmup, fps, json, plot } => {
            let options = BenchOptions {
                terrain_name: render.terrain.clone(),
                path_name: path.display().to_string(),
                size_px: parse_size(size)?,
                frames: *frames,
                warmup_frames: *warmup,
                pace_fps: *fps,
                progress: true,
            };
            bench(render, path, options, json, plot.as_deref())
        }
        Command::Probe { terrain, at } => probe(terrain, at),
        Command::Quality { render, camera, size, json } => quality(render, camera.as_deref(), size, json.as_deref()),
        Command::Kernel { kernel: k } => kernel(k),
    }
}

/// One line for a command-line error: clap's first paragraph (the message and, for missing
/// arguments, their names) joined, then where to look.
fn clap_error_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let message: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let message = if message.is_empty() { "error: bad arguments".to_string() } else { message.join(" ") };
    format!("{message} (see bisector --help)")
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn,wgpu_hal=off")).init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            let _ = error.print();
            return;
        }
        Err(error) if error.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `bisector` or `bisector kernel` alone: the help, and the exit of a usage error.
            let _ = error.print();
            std::process::exit(2);
        }
        Err(error) => {
            eprintln!("{}", clap_error_line(&error));
            std::process::exit(2);
        }
    };
    if !matches!(cli.command, Command::View { .. }) {
        bisector::gpu::quiet_headless_platform();
    }
    if let Err(error) = run(cli) {
        eprintln!("error: {error:#}");
        std::process::exit(1);
    }
}
