//! The Kernel lab section of the viewer's panel: one sub-section per diagnostic kernel
//! (`crate::kernels`) with its main parameters, a Run button, the verification verdict, GPU time
//! and throughput of the last run and a plot of throughput over the runs of this session.
//!
//! `kernel_lab_ui` only changes `KernelLabState` and returns `Action::RunKernel`; the app runs
//! the kernel on its own device with `run` (synchronously: the frame stalls for the run) and
//! hands the outcome back through `KernelLabState::record`. The parameters persist in
//! `PanelState::kernel_lab` (viewer.ron); the history does not.

use egui::{CollapsingHeader, Color32, Grid, RichText, Ui};
use egui_plot::{Legend, Line, Plot};
use serde::{Deserialize, Serialize};

use super::panels::Action;
use crate::gpu::{Gpu, Requirements};
use crate::kernels::chained_hash::{BuildVariant, KeyDistribution};
use crate::kernels::closest_pairs::{Distribution, Variant};
use crate::kernels::compact_hash::VectorDistribution;

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
pub type ChainedHashSettings = crate::kernels::chained_hash::ChainedHashOptions;

/// `bisector kernel compact-hash`: its options, persisted as they are (the panel sizes the run by
/// fill, so `vectors` stays None).
pub type CompactHashSettings = crate::kernels::compact_hash::CompactHashOptions;

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

/// Per kernel: the last outcome and the throughput of each run of this session.
#[derive(Clone, Debug, Default)]
pub struct KernelPanel {
    /// Ok: the run's result; Err: why it did not run.
    pub last: Option<Result<KernelResult, String>>,
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
    pub fn record(&mut self, kernel: KernelName, outcome: Result<KernelResult, String>) {
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
        panel.last = Some(outcome);
    }
}

/// A rate with an SI prefix, as the CLI prints it: "12.3 M leaves/s".
pub fn format_rate(per_s: f64, unit: &str) -> String {
    let (scale, prefix) =
        [(1e12, "T "), (1e9, "G "), (1e6, "M "), (1e3, "k ")].into_iter().find(|(s, _)| per_s.abs() >= *s).unwrap_or((1.0, ""));
    format!("{:.1} {prefix}{unit}", per_s / scale)
}

const RUN_HINT: &str = "runs the kernel on the viewer's GPU, verifies it against the CPU reference and times it; the viewer waits (the frame stalls) until it has finished";

/// The Kernel lab's sub-sections; returns `Action::RunKernel` when a Run button is clicked.
pub fn kernel_lab_ui(ui: &mut Ui, state: &mut KernelLabState) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.label("Each kernel: its parameters, Run, and the verdict against the CPU reference (`bisector kernel NAME` runs the same)");
    for kernel in KernelName::ALL {
        CollapsingHeader::new(kernel.label()).id_salt(("bisector.kernel_lab", kernel.label())).default_open(false).show(ui, |ui| {
            let settings = &mut state.settings;
            match kernel {
                KernelName::Cbt => cbt_ui(ui, &mut settings.cbt),
                KernelName::ChainedHash => chained_hash_ui(ui, &mut settings.chained_hash),
                KernelName::CompactHash => compact_hash_ui(ui, &mut settings.compact_hash),
                KernelName::ClosestPairs => closest_pairs_ui(ui, &mut settings.closest_pairs),
                KernelName::ShiftAnd => shift_and_ui(ui, &mut settings.shift_and),
            }
            if ui.button("Run").on_hover_text(RUN_HINT).clicked() {
                actions.push(Action::RunKernel(match kernel {
                    KernelName::Cbt => KernelRequest::Cbt(settings.cbt.clone()),
                    KernelName::ChainedHash => KernelRequest::ChainedHash(settings.chained_hash.clone()),
                    KernelName::CompactHash => KernelRequest::CompactHash(settings.compact_hash.clone()),
                    KernelName::ClosestPairs => KernelRequest::ClosestPairs(settings.closest_pairs.clone()),
                    KernelName::ShiftAnd => KernelRequest::ShiftAnd(settings.shift_and.clone()),
                }));
            }
            result_ui(ui, kernel, &state.kernels[kernel.index()]);
        });
    }
    actions
}

fn iterations_and_seed(ui: &mut Ui, iterations: &mut u32, seed: Option<&mut u64>) {
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(iterations).range(1..=1000).prefix("iterations "));
        if let Some(seed) = seed {
            ui.add(egui::DragValue::new(seed).prefix("seed "));
        }
    });
}

fn cbt_ui(ui: &mut Ui, s: &mut CbtSettings) {
    ui.add(egui::Slider::new(&mut s.max_depth, crate::cbt::cpu::MIN_MAX_DEPTH..=24).text("max depth"));
    ui.horizontal(|ui| {
        ui.label("fill");
        for k in 0..=4 {
            ui.selectable_value(&mut s.fill_log2, k, if k == 0 { "1".to_string() } else { format!("1/{}", 1 << k) });
        }
    });
    iterations_and_seed(ui, &mut s.iterations, None);
}

fn chained_hash_ui(ui: &mut Ui, s: &mut ChainedHashSettings) {
    ui.add(egui::Slider::new(&mut s.element_log2, 0..=22).text("log2 elements"));
    ui.add(egui::Slider::new(&mut s.bucket_log2, 0..=22).text("log2 buckets"));
    ui.horizontal_wrapped(|ui| {
        ui.label("keys");
        ui.radio_value(&mut s.keys, KeyDistribution::Uniform, "uniform");
        ui.radio_value(&mut s.keys, KeyDistribution::Duplicates, "duplicates");
        ui.radio_value(&mut s.keys, KeyDistribution::Sequential, "sequential");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("build");
        ui.radio_value(&mut s.variant, BuildVariant::Global, "global");
        ui.radio_value(&mut s.variant, BuildVariant::Subgroup, "subgroup");
        ui.radio_value(&mut s.variant, BuildVariant::Both, "both");
    });
    iterations_and_seed(ui, &mut s.iterations, Some(&mut s.seed));
}

fn compact_hash_ui(ui: &mut Ui, s: &mut CompactHashSettings) {
    s.vectors = None;
    ui.add(egui::Slider::new(&mut s.length, 1..=crate::kernels::compact_hash::MAX_LENGTH).text("words per vector"));
    ui.horizontal(|ui| {
        ui.label("bucket size");
        for b in crate::kernels::compact_hash::BUCKET_SIZES {
            ui.selectable_value(&mut s.bucket_size, b, b.to_string());
        }
    });
    ui.add(egui::Slider::new(&mut s.table_log2, 5..=24).text("log2 slots"));
    ui.add(egui::Slider::new(&mut s.fill, 0.05..=0.95).text("fill (nodes / slots)"));
    ui.horizontal_wrapped(|ui| {
        ui.label("vectors");
        ui.radio_value(&mut s.distribution, VectorDistribution::Uniform, "uniform");
        ui.radio_value(&mut s.distribution, VectorDistribution::Shared, "shared (one word changed)");
        ui.radio_value(&mut s.distribution, VectorDistribution::Duplicates, "duplicates");
    });
    iterations_and_seed(ui, &mut s.iterations, Some(&mut s.seed));
}

fn closest_pairs_ui(ui: &mut Ui, s: &mut ClosestPairsSettings) {
    ui.add(egui::Slider::new(&mut s.m, 1..=1 << 20).logarithmic(true).text("army A points"));
    ui.add(egui::Slider::new(&mut s.n, 1..=1 << 20).logarithmic(true).text("army B points"));
    ui.horizontal_wrapped(|ui| {
        ui.label("points");
        ui.radio_value(&mut s.distribution, Distribution::Uniform, "uniform");
        ui.radio_value(&mut s.distribution, Distribution::Clustered, "clustered");
        ui.radio_value(&mut s.distribution, Distribution::Equal, "all equal");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("version");
        ui.radio_value(&mut s.variant, Variant::Brute, "brute force");
        ui.radio_value(&mut s.variant, Variant::Grid, "grid");
        ui.radio_value(&mut s.variant, Variant::Both, "both");
    });
    iterations_and_seed(ui, &mut s.iterations, Some(&mut s.seed));
}

fn shift_and_ui(ui: &mut Ui, s: &mut ShiftAndSettings) {
    ui.add(egui::Slider::new(&mut s.patterns, 1..=1000).logarithmic(true).text("patterns"));
    ui.add(egui::Slider::new(&mut s.max_states, 1..=(32 * crate::kernels::shift_and::MAX_WORDS) as u32).text("max states"));
    ui.add(egui::Slider::new(&mut s.text_bytes, 64..=1 << 24).logarithmic(true).text("text bytes"));
    iterations_and_seed(ui, &mut s.iterations, Some(&mut s.seed));
}

/// Verdict, the last run's figures and the throughput history of `kernel`.
fn result_ui(ui: &mut Ui, kernel: KernelName, panel: &KernelPanel) {
    match &panel.last {
        None => {
            ui.label("not run yet");
        }
        Some(Err(why)) => {
            ui.label(RichText::new(why).color(Color32::LIGHT_RED));
        }
        Some(Ok(result)) => {
            if result.verified {
                ui.label(RichText::new("verified").color(Color32::LIGHT_GREEN).strong());
            } else {
                ui.label(RichText::new("NOT verified").color(Color32::LIGHT_RED).strong());
            }
            Grid::new(("bisector.kernel_lab.grid", kernel.label())).num_columns(3).striped(true).show(ui, |ui| {
                ui.label(RichText::new("").strong());
                ui.label(RichText::new("GPU ms").strong());
                ui.label(RichText::new("throughput").strong());
                ui.end_row();
                for row in &result.rows {
                    ui.label(&row.label);
                    ui.label(format!("{:.3}", row.gpu_ms));
                    ui.label(format_rate(row.per_s, result.unit));
                    ui.end_row();
                }
            });
            ui.label(RichText::new(format!("{}; the whole run took {:.0} ms", result.detail, result.wall_ms)).small());
        }
    }
    if panel.runs > 0 {
        let unit = match &panel.last {
            Some(Ok(result)) => result.unit,
            _ => "/s",
        };
        Plot::new(("bisector.kernel_lab.history", kernel.label()))
            .height(110.0)
            .width((ui.available_width() - 14.0).max(120.0))
            .legend(Legend::default().position(egui_plot::Corner::RightBottom))
            .x_axis_label(format!("run; y: M {unit}"))
            .include_y(0.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .show(ui, |plot| {
                for (label, series) in &panel.history {
                    plot.line(Line::new(label.clone(), series.iter().map(|&[x, y]| [x, y / 1e6]).collect::<Vec<[f64; 2]>>()));
                }
            });
    }
}

// ---------------------------------------------------------------------------------------------
// The app side: what a run needs from the device, and the run itself.

/// What `request` needs from the device (the same as `bisector kernel NAME` asks for).
pub fn requirements(request: &KernelRequest) -> Requirements {
    use crate::kernels::{chained_hash, closest_pairs, compact_hash, shift_and};
    match request {
        KernelRequest::Cbt(s) => {
            let leaves = 1u64 << crate::kernels::cbt::fill_depth(s.max_depth, s.fill()).unwrap_or(0);
            crate::cbt::requirements(s.max_depth, leaves).with_timestamps()
        }
        KernelRequest::ChainedHash(s) => {
            let r = Requirements::kernel(
                chained_hash::largest_buffer_bytes(s.element_log2),
                format!("for 2^{} hash-table nodes; use fewer elements", s.element_log2),
            );
            if s.variant == BuildVariant::Global {
                r
            } else {
                r.with_feature(wgpu::Features::SUBGROUP, "the subgroup build aggregates its counter per subgroup; choose the global build")
            }
        }
        KernelRequest::CompactHash(s) => Requirements::kernel(
            compact_hash::largest_buffer_bytes(s),
            format!("for the tables of {} vectors; use fewer slots", s.vector_count()),
        )
        .with_feature(wgpu::Features::SHADER_INT64, "the compressed table's nodes are 64-bit integers")
        .with_feature(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS, "nodes are stored with a 64-bit compare-and-swap"),
        KernelRequest::ClosestPairs(s) => Requirements::kernel(
            closest_pairs::largest_buffer_bytes(s.m as usize, s.n as usize),
            format!("for {} + {} points; use smaller armies", s.m, s.n),
        ),
        KernelRequest::ShiftAnd(s) => Requirements::kernel(
            shift_and::largest_buffer_bytes(s.text_bytes as usize, SHIFT_AND_CAPACITY),
            format!("for {} text bytes; use a smaller text", s.text_bytes),
        ),
    }
}

/// Ok when a device with `features` and `limits` meets `requirements`, else what is missing.
pub fn check_device(features: wgpu::Features, limits: &wgpu::Limits, requirements: &Requirements) -> Result<(), String> {
    for (feature, why) in &requirements.features {
        if !features.contains(*feature) {
            return Err(format!(
                "the viewer's device lacks {}, which {why}; `bisector kernel` may still run it on its own device",
                crate::gpu::feature_name(*feature)
            ));
        }
    }
    for (limit, needed, why) in &requirements.limits {
        let have = crate::gpu::limit_value(limits, limit);
        if have < *needed {
            return Err(format!("the viewer's device limits {limit} to {have}, but {needed} is needed {why}"));
        }
    }
    Ok(())
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
        requirements.limits.push(("max_storage_buffers_per_shader_stage", 12, "for the kernel lab".into()));
    }
}

/// Checks that the size parameters are in range (the CLI's checks).
fn check_settings(request: &KernelRequest) -> Result<(), String> {
    match request {
        KernelRequest::Cbt(s) => {
            crate::cbt::gpu::check_max_depth(s.max_depth).map_err(|e| format!("max depth: {e}"))?;
            if crate::kernels::cbt::fill_depth(s.max_depth, s.fill()).is_none() {
                return Err(format!("fill {}: too small for max depth {}", s.fill(), s.max_depth));
            }
            nonzero(s.iterations)
        }
        KernelRequest::ChainedHash(s) => {
            if s.element_log2 > 28 || s.bucket_log2 > 30 {
                return Err("at most 2^28 elements and 2^30 buckets".into());
            }
            nonzero(s.iterations)
        }
        KernelRequest::CompactHash(s) => s.check(),
        KernelRequest::ClosestPairs(s) => {
            if s.m == 0 || s.n == 0 {
                return Err("an army needs at least one point".into());
            }
            if s.m > 1 << 26 || s.n > 1 << 26 {
                return Err("at most 2^26 points per army".into());
            }
            nonzero(s.iterations)
        }
        KernelRequest::ShiftAnd(s) => {
            if s.patterns == 0 || s.text_bytes == 0 {
                return Err("at least one pattern and one text byte".into());
            }
            if !(1..=32 * crate::kernels::shift_and::MAX_WORDS as u32).contains(&s.max_states) {
                return Err(format!("max states {}: must be 1..={}", s.max_states, 32 * crate::kernels::shift_and::MAX_WORDS));
            }
            if s.text_bytes > 1 << 30 {
                return Err("at most 2^30 text bytes".into());
            }
            nonzero(s.iterations)
        }
    }
}

fn nonzero(iterations: u32) -> Result<(), String> {
    if iterations == 0 {
        Err("at least one iteration is needed".into())
    } else {
        Ok(())
    }
}

/// Runs `request` on `gpu` and waits for it (the caller's frame stalls meanwhile). Err: why it
/// could not run (parameters, the device's features or limits, or a panic inside the kernel).
pub fn run(gpu: &Gpu, request: &KernelRequest) -> Result<KernelResult, String> {
    check_settings(request)?;
    check_device(gpu.device.features(), &gpu.device.limits(), &requirements(request))?;
    let start = std::time::Instant::now();
    // A GPU validation or out-of-memory error inside the run is caught here and reported as a
    // failed run; the viewer's device stays usable.
    let (outcome, gpu_error) =
        crate::gpu::errors::capture(&gpu.device, || std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_checked(gpu, request))));
    if let Some(error) = gpu_error {
        return Err(format!("the kernel failed on the GPU: {}", crate::gpu::errors::one_line(&error)));
    }
    let mut result = outcome.map_err(|panic| {
        let message =
            panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
        format!("the kernel failed: {message}")
    })?;
    result.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(result)
}

fn run_checked(gpu: &Gpu, request: &KernelRequest) -> KernelResult {
    use crate::kernels::{cbt, chained_hash, closest_pairs, compact_hash, shift_and};
    match request {
        KernelRequest::Cbt(s) => {
            let report = cbt::run(gpu, &cbt::CbtKernelOptions { max_depth: s.max_depth, fill: s.fill(), iterations: s.iterations });
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
                    "D={} fill {}: {} leaves, {} KiB heap, {} reduce dispatches; medians of {} iterations",
                    report.max_depth,
                    report.fill,
                    report.leaves,
                    report.heap_bytes >> 10,
                    report.reduce_dispatches,
                    report.iterations
                ),
            }
        }
        KernelRequest::ChainedHash(s) => {
            let options = s.clone();
            let report = chained_hash::run(gpu, &options);
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
        KernelRequest::CompactHash(s) => {
            let report = compact_hash::run(gpu, s);
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
        KernelRequest::ClosestPairs(s) => {
            let armies = closest_pairs::make_armies(s.m as usize, s.n as usize, s.distribution, s.seed);
            let report =
                closest_pairs::run(gpu, &closest_pairs::ClosestPairsOptions { variant: s.variant, iterations: s.iterations }, &armies);
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
                    "{} x {} points; closest pair {}; upload {:.1} ms, read-back {:.1} ms; CPU reference {:.1} ms{}",
                    report.a_points,
                    report.b_points,
                    report.pairs.first().map_or("none".to_string(), |p| format!("A {} - B {} at {:.3}", p.a, p.b, p.distance)),
                    report.upload_ms,
                    report.readback_ms,
                    report.cpu_reference_ms,
                    if report.lavapipe_loop_limit_exceeded { "; lavapipe's shader loop limit may cut this size short" } else { "" }
                ),
            }
        }
        KernelRequest::ShiftAnd(s) => {
            let work =
                shift_and::make_workload(s.patterns as usize, s.max_states as usize, s.text_bytes as usize, SHIFT_AND_ALPHABET, s.seed);
            let options = shift_and::ShiftAndOptions {
                chunk_len: 0,
                iterations: s.iterations,
                capacity: SHIFT_AND_CAPACITY,
                max_carry_rounds: shift_and::MAX_CARRY_ROUNDS,
            };
            let report = shift_and::run(gpu, &options, &work);
            KernelResult {
                verified: report.verified,
                rows: vec![ResultRow {
                    label: "scan + carries".into(),
                    gpu_ms: report.total_gpu.median_ms,
                    per_s: report.byte_patterns_per_s,
                }],
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::accesskit;

    fn result(verified: bool, per_s: f64) -> KernelResult {
        KernelResult {
            verified,
            rows: vec![
                ResultRow { label: "build global".into(), gpu_ms: 1.5, per_s },
                ResultRow { label: "build subgroup".into(), gpu_ms: 1.0, per_s: 2.0 * per_s },
            ],
            unit: "elements/s",
            detail: "65536 elements".into(),
            wall_ms: 20.0,
        }
    }

    /// The texts of every label the result section of `panel` draws.
    fn result_labels(panel: &KernelPanel) -> Vec<String> {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| result_ui(ui, KernelName::ChainedHash, panel));
        output.textures_delta.clear();
        let tree: accesskit::TreeUpdate = output.platform_output.accesskit_update.take().expect("accesskit enabled");
        tree.nodes
            .iter()
            .filter(|(_, n)| n.role() == accesskit::Role::Label)
            .filter_map(|(_, n)| n.value().map(|l| l.to_string()))
            .collect()
    }

    #[test]
    fn results_update_the_verdict_and_the_history() {
        let mut lab = KernelLabState::default();
        assert!(result_labels(lab.panel(KernelName::ChainedHash)).contains(&"not run yet".to_string()));

        lab.record(KernelName::ChainedHash, Ok(result(true, 3.0e8)));
        let panel = lab.panel(KernelName::ChainedHash);
        assert_eq!(panel.runs, 1);
        assert_eq!(
            panel.history,
            vec![("build global".to_string(), vec![[1.0, 3.0e8]]), ("build subgroup".to_string(), vec![[1.0, 6.0e8]])]
        );
        let labels = result_labels(panel);
        assert!(labels.contains(&"verified".to_string()), "{labels:?}");
        assert!(labels.contains(&"300.0 M elements/s".to_string()), "{labels:?}");
        assert!(labels.contains(&"1.500".to_string()), "{labels:?}");

        lab.record(KernelName::ChainedHash, Ok(result(false, 1.0e8)));
        let panel = lab.panel(KernelName::ChainedHash);
        assert_eq!(panel.runs, 2);
        assert_eq!(panel.history[0].1, vec![[1.0, 3.0e8], [2.0, 1.0e8]]);
        assert!(result_labels(panel).contains(&"NOT verified".to_string()));

        // A run that could not start: its reason, and no point of history.
        lab.record(KernelName::ChainedHash, Err("the viewer's device lacks SUBGROUP".into()));
        let panel = lab.panel(KernelName::ChainedHash);
        assert_eq!((panel.runs, panel.history[0].1.len()), (2, 2));
        assert!(result_labels(panel).contains(&"the viewer's device lacks SUBGROUP".to_string()));
        // Other kernels are untouched.
        assert!(lab.panel(KernelName::Cbt).last.is_none());

        for run in 0..2 * HISTORY {
            lab.record(
                KernelName::Cbt,
                Ok(KernelResult {
                    verified: true,
                    rows: vec![ResultRow { label: "decode".into(), gpu_ms: 1.0, per_s: run as f64 }],
                    unit: "leaves/s",
                    detail: String::new(),
                    wall_ms: 1.0,
                }),
            );
        }
        assert_eq!(lab.panel(KernelName::Cbt).history[0].1.len(), HISTORY);
    }

    #[test]
    fn rates_get_a_prefix() {
        assert_eq!(format_rate(2.5e9, "leaves/s"), "2.5 G leaves/s");
        assert_eq!(format_rate(12.0, "queries/s"), "12.0 queries/s");
    }

    #[test]
    fn missing_features_and_limits_are_named() {
        let both = requirements(&KernelRequest::ChainedHash(ChainedHashSettings::default()));
        let global = requirements(&KernelRequest::ChainedHash(ChainedHashSettings { variant: BuildVariant::Global, ..Default::default() }));
        let mut limits = wgpu::Limits::default();
        let err = check_device(wgpu::Features::empty(), &limits, &global).unwrap_err();
        assert!(err.contains("TIMESTAMP_QUERY"), "{err}");
        let err = check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &global).unwrap_err();
        assert!(err.contains("max_storage_buffers_per_shader_stage"), "{err}");
        limits.max_storage_buffers_per_shader_stage = 12;
        assert_eq!(check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &global), Ok(()));
        let err = check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &both).unwrap_err();
        assert!(err.contains("SUBGROUP") && err.contains("global"), "{err}");
        // Too large for the device's storage buffers.
        let huge = requirements(&KernelRequest::ShiftAnd(ShiftAndSettings { text_bytes: 1 << 30, ..Default::default() }));
        assert!(check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &huge).unwrap_err().contains("max_storage_buffer_binding_size"));
        // Out-of-range parameters never reach the GPU.
        assert!(check_settings(&KernelRequest::Cbt(CbtSettings { max_depth: 5, fill_log2: 6, iterations: 1 })).is_err());
        assert!(check_settings(&KernelRequest::ClosestPairs(ClosestPairsSettings { m: 0, ..Default::default() })).is_err());
        assert!(check_settings(&KernelRequest::CompactHash(CompactHashSettings { bucket_size: 3, ..Default::default() }))
            .unwrap_err()
            .contains("bucket"));
        // The compressed table needs 64-bit atomics.
        let compact = requirements(&KernelRequest::CompactHash(CompactHashSettings::default()));
        assert!(check_device(wgpu::Features::TIMESTAMP_QUERY, &limits, &compact).unwrap_err().contains("SHADER_INT64"));
        for kernel in [
            KernelRequest::Cbt(CbtSettings::default()),
            KernelRequest::ChainedHash(ChainedHashSettings::default()),
            KernelRequest::CompactHash(CompactHashSettings::default()),
            KernelRequest::ClosestPairs(ClosestPairsSettings::default()),
            KernelRequest::ShiftAnd(ShiftAndSettings::default()),
        ] {
            assert_eq!(check_settings(&kernel), Ok(()), "{kernel:?}");
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
            let outcome = run(&gpu, &request);
            let result = outcome.clone().unwrap_or_else(|e| panic!("{request:?}: {e}"));
            assert!(result.verified, "{request:?}: {result:?}");
            assert!(!result.rows.is_empty() && result.rows.iter().all(|r| r.gpu_ms >= 0.0), "{result:?}");
            lab.record(request.kernel(), outcome);
            assert_eq!(lab.panel(request.kernel()).runs, 1);
        }
    }
}
