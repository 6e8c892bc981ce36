//! `peers`: every GPU kernel beside its CPU peer, in one process, on the same generated inputs
//! (same seed, the kernels' benchmark sizes unless overridden): closest pairs beside kiddo's k-d
//! tree and scipy's cKDTree (a child process, when Python has scipy), shift-and beside a lazy-DFA
//! regex engine, the hash tables and the CBT beside their CPU twins, all on every core. Prints one
//! table (GPU ms, peer ms, ratio, whether the answers agree) and exits non-zero when any differ.
//!
//! `cargo build --release --example peers && scripts/peers [--quick] [--json FILE] ...`

mod harness;

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

use harness::{Options, Sizes, KERNELS};

/// Every kernel beside its peer on the same inputs, in one run.
#[derive(Parser)]
#[command(name = "peers")]
struct Args {
    /// Sizes small enough for lavapipe (a check of the harness, not a measurement).
    #[arg(long)]
    quick: bool,
    /// Kernels to run, comma-separated (default: all): closest-pairs, shift-and, chained-hash,
    /// compact-hash, tile-table, cbt.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Seed of every generated input.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Timed repetitions of each GPU kernel.
    #[arg(long, default_value_t = 5)]
    iterations: u32,
    /// Runs of each peer (the median is reported).
    #[arg(long, default_value_t = 3)]
    peer_repeats: u32,
    /// Python interpreter of the scipy peer.
    #[arg(long, default_value = "python3")]
    python: String,
    /// Skip the scipy peer.
    #[arg(long)]
    no_scipy: bool,
    /// Closest pairs: points of army A.
    #[arg(long)]
    cp_a_points: Option<usize>,
    /// Closest pairs: points of army B.
    #[arg(long)]
    cp_b_points: Option<usize>,
    /// Closest pairs: distributions, comma-separated (uniform, clustered).
    #[arg(long, value_delimiter = ',')]
    cp_distributions: Vec<String>,
    /// Shift-and: random patterns.
    #[arg(long)]
    sa_patterns: Option<usize>,
    /// Shift-and: most states of a random pattern.
    #[arg(long)]
    sa_max_states: Option<usize>,
    /// Shift-and: random text bytes.
    #[arg(long)]
    sa_text_bytes: Option<usize>,
    /// Chained hash: log2 of the elements.
    #[arg(long)]
    ch_elements_log2: Option<u32>,
    /// Chained hash: log2 of the buckets.
    #[arg(long)]
    ch_buckets_log2: Option<u32>,
    /// Compact hash: log2 of the compressed table's slots (filled to 0.5).
    #[arg(long)]
    compact_table_log2: Option<u32>,
    /// Compact hash: slots per bucket.
    #[arg(long)]
    compact_bucket_size: Option<u32>,
    /// Tile table: log2 of the slots.
    #[arg(long)]
    tt_capacity_log2: Option<u32>,
    /// CBT: max depths, comma-separated (the smallest at 25 % fill, the others full).
    #[arg(long, value_delimiter = ',')]
    cbt_depths: Vec<u32>,
    /// Write the rows as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn main() {
    if let Err(error) = run(Args::parse()) {
        eprintln!("peers: error: {error:#}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    let options = options(&args)?;
    if let Some(path) = &args.json {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !dir.is_dir() {
            anyhow::bail!("--json {}: the directory {} does not exist", path.display(), dir.display());
        }
        if path.is_dir() {
            anyhow::bail!("--json {}: is a directory", path.display());
        }
    }
    println!(
        "peers: seed {}, {} GPU iterations, {} runs per peer, {} CPU threads{}",
        options.seed,
        options.iterations,
        options.peer_repeats,
        harness::cpu_threads(),
        if args.quick { " (--quick: lavapipe sizes, not a measurement)" } else { "" }
    );
    let mut printed_header = false;
    let rows = harness::run(&options, |row| {
        let text = harness::table(std::slice::from_ref(row));
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        if !printed_header {
            println!("{header}");
            printed_header = true;
        }
        lines.for_each(|line| println!("{line}"));
    });
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "adapter": bisector::gpu::request_adapter(&bisector::gpu::create_instance(), None).map(|a| a.get_info().name).unwrap_or_default(),
            "cpu_threads": harness::cpu_threads(),
            "seed": options.seed,
            "iterations": options.iterations,
            "peer_repeats": options.peer_repeats,
            "quick": args.quick,
            "sizes": options.sizes,
            "rows": rows,
        });
        let text = serde_json::to_string_pretty(&json)?;
        bisector::cli::write_bytes_atomic(path, text.as_bytes()).with_context(|| format!("--json {}", path.display()))?;
    }
    let differ: Vec<String> = rows.iter().filter(|r| r.agree == Some(false)).map(|r| format!("{} {}", r.kernel, r.input)).collect();
    if !differ.is_empty() {
        anyhow::bail!("the GPU and its peer differ (or the kernel did not run) in {} rows: {}", differ.len(), differ.join("; "));
    }
    Ok(())
}

/// The run's options from the arguments, each checked.
fn options(args: &Args) -> anyhow::Result<Options> {
    let mut sizes = if args.quick { Sizes::quick() } else { Sizes::benchmark() };
    for kernel in &args.only {
        if !KERNELS.contains(&kernel.as_str()) {
            anyhow::bail!("--only {kernel}: not a kernel; choose from {}", KERNELS.join(", "));
        }
    }
    bisector_kernels::check_iterations(args.iterations).context("--iterations")?;
    bisector_kernels::check_iterations(args.peer_repeats).context("--peer-repeats")?;
    let set = |value: Option<usize>, field: &mut usize, flag: &str, max: usize| -> anyhow::Result<()> {
        match value {
            Some(v) if v == 0 || v > max => anyhow::bail!("--{flag} {v}: must be 1..={max}"),
            Some(v) => *field = v,
            None => {}
        }
        Ok(())
    };
    set(args.cp_a_points, &mut sizes.cp_a_points, "cp-a-points", 1 << 26)?;
    set(args.cp_b_points, &mut sizes.cp_b_points, "cp-b-points", 1 << 26)?;
    set(args.sa_patterns, &mut sizes.sa_patterns, "sa-patterns", 65535)?;
    set(args.sa_max_states, &mut sizes.sa_max_states, "sa-max-states", 256)?;
    set(args.sa_text_bytes, &mut sizes.sa_text_bytes, "sa-text-bytes", 1 << 30)?;
    let set_log2 = |value: Option<u32>, field: &mut u32, flag: &str, range: std::ops::RangeInclusive<u32>| -> anyhow::Result<()> {
        match value {
            Some(v) if !range.contains(&v) => anyhow::bail!("--{flag} {v}: must be {}..={}", range.start(), range.end()),
            Some(v) => *field = v,
            None => {}
        }
        Ok(())
    };
    set_log2(args.ch_elements_log2, &mut sizes.ch_elements_log2, "ch-elements-log2", 0..=28)?;
    set_log2(args.ch_buckets_log2, &mut sizes.ch_buckets_log2, "ch-buckets-log2", 0..=30)?;
    set_log2(args.compact_table_log2, &mut sizes.compact_table_log2, "compact-table-log2", 4..=27)?;
    set_log2(args.tt_capacity_log2, &mut sizes.tt_capacity_log2, "tt-capacity-log2", 4..=26)?;
    if let Some(b) = args.compact_bucket_size {
        if !bisector_kernels::compact_hash::BUCKET_SIZES.contains(&b) {
            anyhow::bail!("--compact-bucket-size {b}: must be one of {:?}", bisector_kernels::compact_hash::BUCKET_SIZES);
        }
        sizes.compact_bucket_size = b;
    }
    if !args.cp_distributions.is_empty() {
        if let Some(bad) = args.cp_distributions.iter().find(|d| !["uniform", "clustered"].contains(&d.as_str())) {
            anyhow::bail!("--cp-distributions {bad}: must be uniform or clustered");
        }
        sizes.cp_distributions = args.cp_distributions.clone();
    }
    if !args.cbt_depths.is_empty() {
        if let Some(bad) = args.cbt_depths.iter().find(|&&d| !(5..=29).contains(&d)) {
            anyhow::bail!("--cbt-depths {bad}: must be 5..=29");
        }
        let smallest = args.cbt_depths.iter().min().copied();
        sizes.cbt_trees = args.cbt_depths.iter().map(|&d| (d, if Some(d) == smallest { 0.25 } else { 1.0 })).collect();
    }
    Ok(Options {
        sizes,
        seed: args.seed,
        iterations: args.iterations,
        peer_repeats: args.peer_repeats,
        kernels: if args.only.is_empty() { KERNELS.iter().map(|k| k.to_string()).collect() } else { args.only.clone() },
        python: (!args.no_scipy).then(|| args.python.clone()),
    })
}
