//! Drawing the Kernel lab: each kernel's parameters, its Run button, the last run's verdict and
//! figures, and the throughput history.

use egui::{CollapsingHeader, Color32, Grid, RichText, Ui};
use egui_plot::{Legend, Line, Plot};

use bisector_kernels::chained_hash::{BuildVariant, KeyDistribution};
use bisector_kernels::closest_pairs::{Distribution, Variant};
use bisector_kernels::compact_hash::VectorDistribution;

use super::*;
use crate::viewer::panels::Action;

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
    ui.add(egui::Slider::new(&mut s.length, 1..=bisector_kernels::compact_hash::MAX_LENGTH).text("words per vector"));
    ui.horizontal(|ui| {
        ui.label("bucket size");
        for b in bisector_kernels::compact_hash::BUCKET_SIZES {
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
    ui.add(egui::Slider::new(&mut s.max_states, 1..=(32 * bisector_kernels::shift_and::MAX_WORDS) as u32).text("max states"));
    ui.add(egui::Slider::new(&mut s.text_bytes, 64..=1 << 24).logarithmic(true).text("text bytes"));
    iterations_and_seed(ui, &mut s.iterations, Some(&mut s.seed));
}

/// Verdict, the last run's figures and the throughput history of `kernel`.
pub(super) fn result_ui(ui: &mut Ui, kernel: KernelName, panel: &KernelPanel) {
    match &panel.last {
        None => {
            ui.label("not run yet");
        }
        Some(LastRun::Failed(why)) => {
            ui.label(RichText::new(why).color(Color32::LIGHT_RED));
        }
        Some(LastRun::Finished(result)) => {
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
            Some(LastRun::Finished(result)) => result.unit,
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
        lab.record(
            KernelName::ChainedHash,
            Err(RunError::MissingFeature { feature: "SUBGROUP".into(), why: "the subgroup build needs it" }),
        );
        let panel = lab.panel(KernelName::ChainedHash);
        assert_eq!((panel.runs, panel.history[0].1.len()), (2, 2));
        let labels = result_labels(panel);
        assert!(
            labels.iter().any(|l| l.starts_with("the viewer's device lacks SUBGROUP, which the subgroup build needs it")),
            "{labels:?}"
        );
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
}
