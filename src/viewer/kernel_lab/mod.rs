//! The Kernel lab section of the viewer's panel: one sub-section per diagnostic kernel (the
//! seed papers' kernels of `bisector_kernels`, and `crate::kernels::cbt`) with its main
//! parameters, a Run button, the verification verdict, GPU time and throughput of the last run
//! and a plot of throughput over the runs of this session.
//!
//! This file holds the lab's state; `ui` draws it: `kernel_lab_ui` only changes `KernelLabState`
//! and returns `Action::RunKernel`. The app runs the kernel on its own device with `run::run`
//! (synchronously: the frame stalls for the run) and hands the outcome back through
//! `KernelLabState::record`. The parameters persist in `PanelState::kernel_lab` (viewer.ron); the
//! history does not.

mod run;
mod ui;

use serde::{Deserialize, Serialize};

use bisector_kernels::closest_pairs::{Distribution, Variant};

pub use run::{check_device, request_optional, run, RunError};
pub use ui::{format_rate, kernel_lab_ui};

/// The kernels of the lab, in panel order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelName {
    Cbt,
    ChainedHash,
    CompactHash,
    ClosestPairs,
    ShiftAnd,
}

impl KernelName {
    pub const ALL: [KernelName; 5] =
        [KernelName::Cbt, KernelName::ChainedHash, KernelName::CompactHash, KernelName::ClosestPairs, KernelName::ShiftAnd];

    /// The name of `bisector kernel NAME`.
    pub fn label(self) -> &'static str {
        match self {
            KernelName::Cbt => "cbt",
            KernelName::ChainedHash => "chained-hash",
            KernelName::CompactHash => "compact-hash",
            KernelName::ClosestPairs => "closest-pairs",
            KernelName::ShiftAnd => "shift-and",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// `bisector kernel cbt`: reduction and decode of a tree of max depth D filled to 2^-k.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CbtSettings {
    pub max_depth: u32,
    /// The tree holds 2^(D - fill_log2) leaves (fill 1, 1/2, 1/4, ...).
    pub fill_log2: u32,
    pub iterations: u32,
}

impl Default for CbtSettings {
    /// The CLI's size (D=17, fill 1/4) with 10 instead of 50 iterations (well under a second on lavapipe).
    fn default() -> Self {
        CbtSettings { max_depth: 17, fill_log2: 2, iterations: 10 }
    }
}

impl CbtSettings {
    pub fn fill(&self) -> f64 {
        0.5f64.powi(self.fill_log2 as i32)
    }
}

/// `bisector kernel chained-hash`: its options, persisted as they are.
pub type ChainedHashSettings = bisector_kernels::chained_hash::ChainedHashOptions;

/// `bisector kernel compact-hash`: its options, persisted as they are (the panel sizes the run by
/// fill, so `vectors` stays None).
pub type CompactHashSettings = bisector_kernels::compact_hash::CompactHashOptions;

/// `bisector kernel closest-pairs` on random armies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClosestPairsSettings {
    pub m: u32,
    pub n: u32,
    pub distribution: Distribution,
    pub variant: Variant,
    pub iterations: u32,
    pub seed: u64,
}

impl Default for ClosestPairsSettings {
    /// The CLI's defaults, with a fixed seed.
    fn default() -> Self {
        ClosestPairsSettings { m: 4096, n: 2048, distribution: Distribution::Uniform, variant: Variant::Both, iterations: 3, seed: 1 }
    }
}

/// `bisector kernel shift-and` on random patterns and text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShiftAndSettings {
    pub patterns: u32,
    pub max_states: u32,
    pub text_bytes: u32,
    pub iterations: u32,
    pub seed: u64,
}

impl Default for ShiftAndSettings {
    /// The CLI's defaults, with a fixed seed.
    fn default() -> Self {
        ShiftAndSettings { patterns: 64, max_states: 32, text_bytes: 1 << 15, iterations: 3, seed: 1 }
    }
}

/// Match positions kept by the panel's shift-and runs (the CLI's default; counts are always exact).
pub const SHIFT_AND_CAPACITY: u32 = 1 << 22;
/// Random text and patterns of the panel's shift-and runs draw from these bytes (the CLI's default).
pub const SHIFT_AND_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// The parameters of every kernel (persisted in viewer.ron).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KernelLabSettings {
    pub cbt: CbtSettings,
    pub chained_hash: ChainedHashSettings,
    pub compact_hash: CompactHashSettings,
    pub closest_pairs: ClosestPairsSettings,
    pub shift_and: ShiftAndSettings,
}

/// One kernel run asked for by the panel.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelRequest {
    Cbt(CbtSettings),
    ChainedHash(ChainedHashSettings),
    CompactHash(CompactHashSettings),
    ClosestPairs(ClosestPairsSettings),
    ShiftAnd(ShiftAndSettings),
}

impl KernelRequest {
    pub fn kernel(&self) -> KernelName {
        match self {
            KernelRequest::Cbt(_) => KernelName::Cbt,
            KernelRequest::ChainedHash(_) => KernelName::ChainedHash,
            KernelRequest::CompactHash(_) => KernelName::CompactHash,
            KernelRequest::ClosestPairs(_) => KernelName::ClosestPairs,
            KernelRequest::ShiftAnd(_) => KernelName::ShiftAnd,
        }
    }
}

/// One timed figure of a run (a variant or a pass): GPU median milliseconds and throughput.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub label: String,
    pub gpu_ms: f64,
    /// Items (`KernelResult::unit`) per second.
    pub per_s: f64,
}

/// What the panel shows of a finished run.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelResult {
    /// Every GPU result equals the CPU reference.
    pub verified: bool,
    pub rows: Vec<ResultRow>,
    /// What the throughput counts, e.g. "leaves/s".
    pub unit: &'static str,
    /// Sizes, upload and read-back, notes.
    pub detail: String,
    /// Wall-clock milliseconds of the whole run (inputs, CPU reference, GPU, checks): the frame's stall.
    pub wall_ms: f64,
}

/// How the last run of a kernel ended.
#[derive(Clone, Debug, PartialEq)]
pub enum LastRun {
    /// It ran; its result (verified or not).
    Finished(KernelResult),
    /// Why it did not run, or failed (the `RunError`'s message).
    Failed(String),
}

/// Per kernel: the last outcome and the throughput of each run of this session.
#[derive(Clone, Debug, Default)]
pub struct KernelPanel {
    pub last: Option<LastRun>,
    /// Runs that finished (the plot's x).
    pub runs: u32,
    /// (row label, [run, throughput per second]) of every finished run, at most `HISTORY` each.
    pub history: Vec<(String, Vec<[f64; 2]>)>,
}

/// Runs kept in a kernel's history plot.
pub const HISTORY: usize = 100;

/// The Kernel lab's state: parameters (persisted) and each kernel's results (this session only).
#[derive(Clone, Debug, Default)]
pub struct KernelLabState {
    pub settings: KernelLabSettings,
    pub kernels: [KernelPanel; 5],
}

impl KernelLabState {
    pub fn new(settings: KernelLabSettings) -> KernelLabState {
        KernelLabState { settings, kernels: Default::default() }
    }

    pub fn panel(&self, kernel: KernelName) -> &KernelPanel {
        &self.kernels[kernel.index()]
    }

    /// Takes the outcome of a run of `kernel`: the verdict, and a point of history when it ran.
    pub fn record(&mut self, kernel: KernelName, outcome: Result<KernelResult, RunError>) {
        let panel = &mut self.kernels[kernel.index()];
        if let Ok(result) = &outcome {
            panel.runs += 1;
            for row in &result.rows {
                let at = match panel.history.iter().position(|(label, _)| *label == row.label) {
                    Some(at) => at,
                    None => {
                        panel.history.push((row.label.clone(), Vec::new()));
                        panel.history.len() - 1
                    }
                };
                let series = &mut panel.history[at].1;
                series.push([panel.runs as f64, row.per_s]);
                if series.len() > HISTORY {
                    series.remove(0);
                }
            }
        }
        panel.last = Some(match outcome {
            Ok(result) => LastRun::Finished(result),
            Err(why) => LastRun::Failed(why.to_string()),
        });
    }
}
