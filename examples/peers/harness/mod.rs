//! The peers harness: each GPU kernel and its CPU peer run in one process on the same generated
//! inputs, checked to give the same answer, timed side by side (`examples/peers/main.rs` prints
//! and writes the rows; `tests/peers.rs` runs it at tiny sizes on lavapipe).

pub mod cbt;
pub mod closest_pairs;
pub mod shift_and;
pub mod tables;

use std::time::Instant;

use serde::Serialize;

/// The kernels the harness runs, in the order of the table.
pub const KERNELS: [&str; 6] = ["closest-pairs", "shift-and", "chained-hash", "compact-hash", "tile-table", "cbt"];

/// Input sizes of one run (the kernels' benchmark sizes by default, `quick` for lavapipe).
#[derive(Clone, Debug, Serialize)]
pub struct Sizes {
    /// Closest pairs: points of army A and of army B.
    pub cp_a_points: usize,
    pub cp_b_points: usize,
    /// Closest pairs: "uniform" and/or "clustered".
    pub cp_distributions: Vec<String>,
    /// Shift-and: random patterns, their most states, random text bytes.
    pub sa_patterns: usize,
    pub sa_max_states: usize,
    pub sa_text_bytes: usize,
    /// Chained hash: log2 of the elements and of the buckets.
    pub ch_elements_log2: u32,
    pub ch_buckets_log2: u32,
    /// Compact hash: words per vector, slots per bucket, log2 of the compressed table's slots.
    pub compact_length: u32,
    pub compact_bucket_size: u32,
    pub compact_table_log2: u32,
    /// Tile table: log2 of the slots.
    pub tt_capacity_log2: u32,
    /// CBT: (max depth D, fill) pairs.
    pub cbt_trees: Vec<(u32, f64)>,
}

impl Sizes {
    /// The sizes of docs/BENCHMARKS.md (`bisector kernel all`, the seed papers' sizes).
    pub fn benchmark() -> Sizes {
        Sizes {
            cp_a_points: 1_000_000,
            cp_b_points: 400_000,
            cp_distributions: vec!["uniform".into(), "clustered".into()],
            sa_patterns: 1000,
            sa_max_states: 32,
            sa_text_bytes: 64 << 20,
            ch_elements_log2: 24,
            ch_buckets_log2: 23,
            compact_length: 4,
            compact_bucket_size: 2,
            compact_table_log2: 26,
            tt_capacity_log2: 24,
            cbt_trees: vec![(17, 0.25), (20, 1.0), (25, 1.0)],
        }
    }

    /// Sizes small enough for lavapipe on two cores (a check of the harness, not a measurement).
    pub fn quick() -> Sizes {
        Sizes {
            cp_a_points: 3000,
            cp_b_points: 1500,
            cp_distributions: vec!["uniform".into(), "clustered".into()],
            sa_patterns: 16,
            sa_max_states: 32,
            sa_text_bytes: 1 << 14,
            ch_elements_log2: 12,
            ch_buckets_log2: 11,
            compact_length: 4,
            compact_bucket_size: 2,
            compact_table_log2: 12,
            tt_capacity_log2: 10,
            cbt_trees: vec![(8, 0.25), (10, 1.0), (12, 1.0)],
        }
    }
}

/// What one run does.
#[derive(Clone, Debug)]
pub struct Options {
    pub sizes: Sizes,
    /// Seed of every generated input.
    pub seed: u64,
    /// Timed repetitions of each GPU kernel; peers run `peer_repeats` times (median).
    pub iterations: u32,
    pub peer_repeats: u32,
    /// The kernels to run (names of `KERNELS`).
    pub kernels: Vec<String>,
    /// The Python interpreter for the scipy peer; None: skip it.
    pub python: Option<String>,
}

/// One line of the table: a kernel's pass on one input, beside its peer.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub kernel: String,
    pub input: String,
    /// The kernel's GPU time (median, GPU timestamps).
    pub gpu_ms: Option<f64>,
    /// Host arrays to the answer on the host, where the kernel reports it.
    pub gpu_end_to_end_ms: Option<f64>,
    pub peer: String,
    /// The peer's wall-clock time (median of its repeats).
    pub peer_ms: Option<f64>,
    /// peer ms / GPU ms (end to end where reported, else GPU).
    pub ratio: Option<f64>,
    /// Whether the GPU and the peer gave the same answer; None when the peer did not run.
    pub agree: Option<bool>,
    /// What was compared, or why the peer did not run.
    pub note: String,
}

impl Row {
    /// A row with the ratio filled in from the times.
    pub fn new(kernel: &str, input: String, gpu: (Option<f64>, Option<f64>), peer: &str, peer_ms: Option<f64>) -> Row {
        let base = gpu.1.or(gpu.0);
        let ratio = match (peer_ms, base) {
            (Some(p), Some(g)) if g > 0.0 => Some(p / g),
            _ => None,
        };
        Row {
            kernel: kernel.into(),
            input,
            gpu_ms: gpu.0,
            gpu_end_to_end_ms: gpu.1,
            peer: peer.into(),
            peer_ms,
            ratio,
            agree: None,
            note: String::new(),
        }
    }

    /// The row of a peer that did not run, saying why.
    pub fn skipped(mut self, why: &str) -> Row {
        self.note = why.to_string();
        self
    }

    /// The row with the agreement and what was compared.
    pub fn checked(mut self, agree: bool, note: impl Into<String>) -> Row {
        self.agree = Some(agree);
        self.note = note.into();
        self
    }
}

/// Why a kernel's rows could not be made at all.
#[derive(Debug, thiserror::Error)]
pub enum PeersError {
    /// No device meets the kernel's requirements.
    #[error(transparent)]
    Gpu(#[from] bisector::gpu::GpuError),
    /// The kernel refused its options or the device.
    #[error(transparent)]
    Kernel(#[from] bisector_kernels::KernelError),
    /// A size or input the harness cannot use, said in one line.
    #[error("{0}")]
    Input(String),
}

/// Runs the chosen kernels and their peers; a kernel that cannot run gives one row saying why
/// (skipped, `agree` None, where the device lacks what it needs; failed otherwise).
pub fn run(options: &Options, mut progress: impl FnMut(&Row)) -> Vec<Row> {
    let mut rows = Vec::new();
    for kernel in KERNELS.iter().filter(|k| options.kernels.iter().any(|o| o == *k)) {
        let result = match *kernel {
            "closest-pairs" => closest_pairs::rows(options),
            "shift-and" => shift_and::rows(options),
            "chained-hash" => tables::chained_hash_rows(options),
            "compact-hash" => tables::compact_hash_rows(options),
            "tile-table" => tables::tile_table_rows(options),
            _ => cbt::rows(options),
        };
        let new = result.unwrap_or_else(|error| {
            let row = Row::new(kernel, "-".into(), (None, None), "-", None);
            // A device that cannot run the kernel skips it; anything else is a failure.
            vec![match error {
                PeersError::Gpu(_) | PeersError::Kernel(bisector_kernels::KernelError::Device(_)) => {
                    row.skipped(&format!("skipped: this device cannot run it: {error}"))
                }
                _ => row.checked(false, format!("did not run: {error}")),
            }]
        });
        new.iter().for_each(&mut progress);
        rows.extend(new);
    }
    rows
}

/// Runs `f` `repeats` times (at least once): the last result and the median milliseconds.
pub fn timed<T>(repeats: u32, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (last.expect("ran at least once"), times[times.len() / 2])
}

/// Threads of the peers (rayon's global pool: every core).
pub fn cpu_threads() -> usize {
    rayon::current_num_threads()
}

/// The table as text: one header line, one line per row.
pub fn table(rows: &[Row]) -> String {
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    let mut out = format!(
        "{:<14} {:<58} {:>11} {:>11} {:<30} {:>11} {:>9} {:<6} note\n",
        "kernel", "input", "GPU ms", "GPU e2e ms", "peer", "peer ms", "peer/GPU", "agree"
    );
    for r in rows {
        let agree = match r.agree {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "-",
        };
        out += &format!(
            "{:<14} {:<58} {:>11} {:>11} {:<30} {:>11} {:>9} {:<6} {}\n",
            r.kernel,
            r.input,
            ms(r.gpu_ms),
            ms(r.gpu_end_to_end_ms),
            r.peer,
            ms(r.peer_ms),
            r.ratio.map_or("-".to_string(), |x| format!("{x:.1}x")),
            agree,
            r.note
        );
    }
    out
}
