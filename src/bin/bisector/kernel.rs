//! `bisector kernel NAME`: one diagnostic GPU kernel, verified against its CPU reference.

use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;

use bisector::cbt::reduce::ReducePath;
use bisector::cli::write_bytes_atomic;
use bisector::gpu::{Gpu, Requirements};
use bisector::input::{read_limited, read_limited_text, ARMY_BYTES, PATTERNS_BYTES, TEXT_BYTES};
use bisector_kernels::chained_hash::{BuildVariant, ChainedHash, ChainedHashOptions, KeyDistribution};
use bisector_kernels::closest_pairs::{ClosestPairs, ClosestPairsInput, ClosestPairsOptions, Distribution, Variant as CpVariant};
use bisector_kernels::compact_hash::{CompactHash, CompactHashOptions, VectorDistribution};
use bisector_kernels::shift_and::{self as sa, ShiftAnd, ShiftAndInput};
use bisector_kernels::Kernel;

use crate::checks::{check_files, check_iterations, write_json};
use crate::kernel_all::kernel_all;

#[derive(Subcommand)]
pub(crate) enum KernelCommand {
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
        /// Also run the compressed table with each bucket read by a whole subgroup (needs subgroups).
        #[arg(long)]
        subgroup: bool,
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
        /// Keep no match positions, only every pattern's count.
        #[arg(long, conflicts_with_all = ["capacity", "matches"])]
        count_only: bool,
        /// How chunks pass their end states on: a parallel scan of transfer functions, or the
        /// sequential fix-up (one thread per pattern over all chunks), for comparison.
        #[arg(long, value_enum, default_value_t = sa::Carry::Scan)]
        carry: sa::Carry,
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
        /// The table layouts to measure on the same keys: the renderer's linear probing, bucketed
        /// cuckoo hashing (buckets of 8), packed (partial-key cuckoo, one 32-byte bucket of 4),
        /// both (linear and bucketed) or all three, side by side.
        #[arg(long, value_enum, default_value_t = bisector::kernels::tile_table::TableVariant::All)]
        variant: bisector::kernels::tile_table::TableVariant,
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
        /// The reduction's path: auto (cbt::reduce::CbtReduce::new's choice), subgroup, shared (the
        /// fallback) or one (one pass, D = 16..=25).
        #[arg(long, value_enum, default_value_t = ReducePathArg::Auto)]
        reduce_path: ReducePathArg,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// The bisector pool's split and merge frames (issue 15) under a random test criterion,
    /// timed pass by pass; the pool read back is validated.
    Pool {
        /// Slots of the pool (a power of two, 4096..=2^26).
        #[arg(long, default_value_t = 1 << 20)]
        pool_slots: u32,
        /// Random splits above this depth (about 2^DEPTH leaves at most).
        #[arg(long, default_value_t = 18)]
        random_depth: u32,
        /// Random points refined to the max depth (at most 8).
        #[arg(long, default_value_t = 8)]
        foci: u32,
        /// Max depth of a node (64-bit ids: at most 63, 60 levels below the octahedron).
        #[arg(long, default_value_t = 63)]
        max_depth: u32,
        /// Timed frames (split and merge alternate).
        #[arg(long, default_value_t = 200)]
        frames: u32,
        /// Seed of the random criterion (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Write the report as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

/// `kernel cbt --reduce-path`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReducePathArg {
    Auto,
    Subgroup,
    Shared,
    /// The one-pass path (D = 16..=25, any device).
    One,
    /// The one-pass path with its top levels in a second dispatch of one workgroup.
    OneSplit,
}

/// Runs kernel `K` with `options` on a headless device that meets its requirements.
pub(crate) fn run_kernel<K: Kernel>(options: &K::Options) -> anyhow::Result<K::Report> {
    let gpu = Gpu::headless(&K::requirements(options))?;
    Ok(K::run(&gpu, options)?)
}

fn kernel_compact_hash(options: &CompactHashOptions, json: Option<&std::path::Path>) -> anyhow::Result<()> {
    check_files(&[], &[("--json", json)])?;
    CompactHash::check(options)?;
    let report = run_kernel::<CompactHash>(options)?;
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

pub(crate) fn tile_table_gpu(capacity_log2: u32) -> anyhow::Result<Gpu> {
    let bytes = bisector::kernels::tile_table::largest_buffer_bytes(capacity_log2);
    let mut requirements = Requirements::kernel(bytes, format!("for a tile table of 2^{capacity_log2} slots; lower --capacity-log2"));
    // The bucketed table's subgroup lookup runs where the adapter has subgroups.
    requirements.optional_features |= wgpu::Features::SUBGROUP;
    Ok(Gpu::headless(&requirements)?)
}

fn kernel_tile_table(
    capacity_log2: u32,
    feedback_capacity: u32,
    iterations: u32,
    seed: Option<u64>,
    variant: bisector::kernels::tile_table::TableVariant,
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
    let options = tt::TileTableOptions { capacity_log2, feedback_capacity, iterations, seed, variant };
    let report = tt::run(&tile_table_gpu(capacity_log2)?, &options);
    say!("{} (seed {seed})", report.summary());
    write_json(json, &report)?;
    if !report.verified {
        anyhow::bail!("tile-table: the GPU result differs from the CPU twin (seed {seed})");
    }
    Ok(())
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
}

/// Reads a CSV army (at most `input::ARMY_BYTES`).
fn read_army(path: &std::path::Path) -> anyhow::Result<Vec<bisector_kernels::closest_pairs::Point>> {
    let text = read_limited_text(path, ARMY_BYTES, "army").map_err(anyhow::Error::msg)?;
    Ok(bisector_kernels::closest_pairs::parse_army(&text, &path.display().to_string())?)
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
    use bisector_kernels::closest_pairs as cp;
    let inputs: Vec<(&str, PathBuf)> =
        [("--a", files.0), ("--b", files.1)].into_iter().filter_map(|(flag, path)| Some((flag, path?.to_path_buf()))).collect();
    check_files(&inputs, &[("--json", json), ("--pairs", pairs)])?;
    check_iterations(iterations)?;
    let armies = match files {
        (Some(a), Some(b)) => {
            let a_points = read_army(a)?;
            let b_points = read_army(b)?;
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
    let input = ClosestPairsInput { armies, options: ClosestPairsOptions { variant, iterations } };
    let report = run_kernel::<ClosestPairs>(&input)?;
    say!("{}", report.summary());
    write_json(json, &report)?;
    if let Some(path) = pairs {
        write_bytes_atomic(path, cp::pairs_csv(&report.pairs).as_bytes())?;
    }
    if !report.verified {
        anyhow::bail!("closest-pairs: the GPU result differs from the CPU reference ({})", report.source);
    }
    Ok(())
}

/// Reads a pattern file (at most `input::PATTERNS_BYTES`), one pattern per line.
fn read_patterns(path: &std::path::Path) -> anyhow::Result<Vec<Vec<u8>>> {
    let bytes = read_limited(path, PATTERNS_BYTES, "pattern file").map_err(anyhow::Error::msg)?;
    Ok(bisector_kernels::shift_and::parse_patterns(&bytes, &path.display().to_string())?)
}

/// Reads the text to search (at most `input::TEXT_BYTES`, the bound of `--text-bytes` too).
fn read_text(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    let bytes = read_limited(path, TEXT_BYTES, "text")?;
    Ok(bisector_kernels::shift_and::check_text(bytes, &path.display().to_string())?)
}

fn kernel_shift_and(kernel: &KernelCommand) -> anyhow::Result<()> {
    let KernelCommand::ShiftAnd {
        patterns,
        text,
        count,
        max_states,
        text_bytes,
        alphabet,
        chunk,
        capacity,
        count_only,
        carry,
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
            let list = read_patterns(p)?;
            let bytes = read_text(t)?;
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
    let capacity = if *count_only { 0 } else { *capacity };
    let options = sa::ShiftAndOptions { chunk_len: *chunk, iterations: *iterations, capacity, carry: *carry, long_capacity: 0 };
    let report = run_kernel::<ShiftAnd>(&ShiftAndInput { work, options })?;
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

pub(crate) fn kernel(kernel: &KernelCommand) -> anyhow::Result<()> {
    match kernel {
        KernelCommand::All { shrink_log2 } => kernel_all(*shrink_log2),
        KernelCommand::TileTable { capacity_log2, feedback_capacity, iterations, seed, variant, json } => {
            kernel_tile_table(*capacity_log2, *feedback_capacity, *iterations, *seed, *variant, json.as_deref())
        }
        KernelCommand::ShiftAnd { .. } => kernel_shift_and(kernel),
        KernelCommand::CompactHash { length, bucket_size, table_log2, vectors, fill, distribution, iterations, seed, subgroup, json } => {
            let options = CompactHashOptions {
                length: *length,
                bucket_size: *bucket_size,
                table_log2: *table_log2,
                vectors: *vectors,
                fill: *fill,
                distribution: *distribution,
                iterations: *iterations,
                seed: seed.unwrap_or_else(clock_seed),
                subgroup: *subgroup,
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
            let report = run_kernel::<ChainedHash>(&options)?;
            say!("{} (seed {seed})", report.summary());
            write_json(json.as_deref(), &report)?;
            if !report.verified {
                anyhow::bail!("chained-hash: the GPU result differs from the CPU reference (seed {seed})");
            }
            Ok(())
        }
        KernelCommand::Pool { pool_slots, random_depth, foci, max_depth, frames, seed, json } => {
            let settings = bisector::pool::PoolSettings { pool_slots: *pool_slots, max_depth: *max_depth, ..Default::default() };
            settings.pool_depth()?;
            if !(1..=bisector::pool::criterion::MAX_FOCI as u32).contains(foci) {
                anyhow::bail!("--foci {foci}: must be 1..={}", bisector::pool::criterion::MAX_FOCI);
            }
            if !(4..=*max_depth).contains(random_depth) {
                anyhow::bail!("--random-depth {random_depth}: must be 4..=--max-depth ({max_depth})");
            }
            check_iterations(*frames).context("--frames")?;
            check_files(&[], &[("--json", json.as_deref())])?;
            let seed = seed.unwrap_or_else(clock_seed);
            let gpu = Gpu::headless(&settings.requirements().with_timestamps())?;
            let options =
                bisector::kernels::pool::PoolKernelOptions { settings, random_depth: *random_depth, foci: *foci, frames: *frames, seed };
            let report = bisector::kernels::pool::run(&gpu, &options)?;
            say!("seed {seed}\n{}", report.summary());
            write_json(json.as_deref(), &report)?;
            if !report.verified {
                anyhow::bail!("pool kernel: the pool read back after the last frame is inconsistent");
            }
            Ok(())
        }
        KernelCommand::Cbt { max_depth, fill, iterations, reduce_path, json } => {
            bisector::cbt::gpu::check_max_depth(*max_depth).context("--max-depth")?;
            if bisector::kernels::cbt::fill_depth(*max_depth, *fill).is_none() {
                anyhow::bail!("--fill {fill}: must be 1, 0.5, 0.25, ... (a power of two no smaller than 2^-D)");
            }
            check_iterations(*iterations)?;
            check_files(&[], &[("--json", json.as_deref())])?;
            let leaves = 1u64 << bisector::kernels::cbt::fill_depth(*max_depth, *fill).unwrap_or(0);
            let gpu = Gpu::headless(&bisector::cbt::requirements(*max_depth, leaves).with_timestamps())?;
            let path = match reduce_path {
                ReducePathArg::Auto => None,
                ReducePathArg::Shared => Some(ReducePath::Shared),
                ReducePathArg::One | ReducePathArg::OneSplit => {
                    if !bisector::cbt::reduce_one::runs(*max_depth) {
                        anyhow::bail!(
                            "--reduce-path {}: needs --max-depth in {}..={}",
                            if *reduce_path == ReducePathArg::One { "one" } else { "one-split" },
                            bisector::cbt::reduce_one::MIN_DEPTH,
                            bisector::cbt::reduce_one::MAX_DEPTH
                        );
                    }
                    Some(if *reduce_path == ReducePathArg::One { ReducePath::OnePass } else { ReducePath::OnePassSplit })
                }
                ReducePathArg::Subgroup => {
                    if !ReducePath::subgroup_runs(&gpu.device, *max_depth) {
                        let info = gpu.device.adapter_info();
                        anyhow::bail!(
                            "--reduce-path subgroup: '{}' cannot run it at D = {max_depth} (needs Features::SUBGROUP: {}, subgroups of 4..=128 lanes: {}..={}, and --max-depth of at least {})",
                            info.name,
                            gpu.device.features().contains(wgpu::Features::SUBGROUP),
                            info.subgroup_min_size,
                            info.subgroup_max_size,
                            bisector::cbt::reduce_subgroup::MIN_DEPTH
                        );
                    }
                    Some(ReducePath::Subgroup)
                }
            };
            let options = bisector::kernels::cbt::CbtKernelOptions { max_depth: *max_depth, fill: *fill, iterations: *iterations, path };
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
