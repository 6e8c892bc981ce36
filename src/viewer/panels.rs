//! The egui side panel: Camera, LOD, Stats and Kernel lab (`kernel_lab.rs`) sections, and on the
//! globe its own Camera and LOD sections and the tile cache's (`globe_panels.rs`). The `_ui`
//! functions only change `UiState` and return `Action`s; the app applies them (so they are
//! testable without a GPU).

use egui::{CollapsingHeader, Grid, RichText, Ui};
use egui_plot::{Bar, BarChart, Legend, Line, Plot};
use winit::keyboard::KeyCode;

use super::bookmarks::Bookmark;
use super::config::PanelState;
use super::globe_panels::{self, GlobeData};
use super::kernel_lab::{KernelLabState, KernelRequest};
use super::rig::CameraMode;
use super::stats::{LeafStats, TimingHistory};
use crate::cbt::cpu::MIN_MAX_DEPTH;
use crate::flat::camera::Camera;
use crate::flat::{RenderSettings, Renderer};
use crate::globe::renderer::GlobeSettings;
use crate::leb::lod::Criterion;

/// The LOD controls, and the one place where they reach the renderer: when the renderer gains a
/// setting (morphing, a pixel-error criterion), add a field here, a control in `lod_ui` and one
/// line in `apply`.
#[derive(Clone, Debug, PartialEq)]
pub struct LodSettings {
    /// Max depth of the tree; changing it rebuilds the renderer (the tree starts over).
    pub max_depth: u32,
    /// Screen-space error (the default) or edge length.
    pub criterion: Criterion,
    /// Split threshold of the screen-space-error criterion.
    pub pixel_error_px: f32,
    /// Split threshold of the edge-length criterion.
    pub pixel_target_px: f32,
    /// Vertex morphing (no popping).
    pub morph: bool,
    /// The globe's sun placed for this moment (seconds after the Unix epoch); None: as the
    /// renderer started (the default sun, or `--sun`).
    pub sun_time_unix_s: Option<f64>,
    /// Neither split nor merge: the triangulation stays as it is while the camera moves.
    pub freeze: bool,
    pub split: bool,
    pub merge: bool,
    pub wireframe: bool,
    /// The globe over the pool: terrain hidden in the last frame does not refine (`--occlusion`).
    pub occlusion: bool,
}

impl LodSettings {
    /// The controls as the renderer starts with `settings`.
    pub fn from_settings(settings: &RenderSettings) -> LodSettings {
        LodSettings {
            max_depth: settings.max_depth,
            criterion: settings.criterion,
            pixel_error_px: settings.pixel_error_px,
            pixel_target_px: settings.pixel_target_px,
            morph: settings.morph,
            sun_time_unix_s: None,
            freeze: false,
            split: true,
            merge: true,
            wireframe: settings.wireframe,
            occlusion: true,
        }
    }

    /// The controls as the globe renderer starts with `settings` (no morphing on the globe).
    pub fn from_globe(settings: &GlobeSettings) -> LodSettings {
        LodSettings {
            max_depth: settings.max_depth,
            criterion: settings.criterion,
            pixel_error_px: settings.pixel_error_px,
            pixel_target_px: settings.pixel_target_px,
            morph: false,
            sun_time_unix_s: settings.sun_time_unix_s,
            freeze: false,
            split: true,
            merge: true,
            wireframe: settings.wireframe,
            occlusion: settings.occlusion,
        }
    }

    /// Sets the globe renderer's settings from the controls: the criterion, its targets and the
    /// wireframe, read every frame (the max depth needs a rebuild; `update_passes` goes to its tree).
    pub fn apply_to_globe(&self, settings: &mut GlobeSettings) {
        settings.criterion = self.criterion;
        settings.pixel_error_px = self.pixel_error_px;
        if let Some(unix_s) = self.sun_time_unix_s {
            settings.sun_direction = crate::globe::sun::sun_at_time(unix_s);
            settings.sun_time_unix_s = Some(unix_s);
        }
        settings.pixel_target_px = self.pixel_target_px;
        settings.wireframe = self.wireframe;
        settings.occlusion = self.occlusion;
    }

    /// Whether leb.split and leb.merge run (freeze stops both).
    pub fn update_passes(&self) -> (bool, bool) {
        (self.split && !self.freeze, self.merge && !self.freeze)
    }

    /// Sets the renderer's fields from the controls (except the max depth: see `needs_rebuild`).
    pub fn apply(&self, renderer: &mut Renderer) {
        renderer.settings.criterion = self.criterion;
        renderer.settings.pixel_error_px = self.pixel_error_px;
        renderer.settings.pixel_target_px = self.pixel_target_px;
        renderer.settings.morph = self.morph;
        renderer.settings.wireframe = self.wireframe;
        (renderer.tree.split_enabled, renderer.tree.merge_enabled) = self.update_passes();
    }

    /// The renderer must be rebuilt for the max depth asked for.
    pub fn needs_rebuild(&self, renderer: &Renderer) -> bool {
        self.max_depth != renderer.settings.max_depth
    }
}

/// Something the panel or a key asks the app to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Quit,
    Screenshot,
    TogglePanel,
    Reset,
    SetMode(CameraMode),
    /// x, y in metres, height above the ground in metres.
    GoTo {
        x_m: f64,
        y_m: f64,
        height_m: f64,
    },
    /// On the globe: longitude and latitude in degrees, altitude above the sphere in metres.
    GoToLonLat {
        lon_deg: f64,
        lat_deg: f64,
        altitude_m: f64,
    },
    AddBookmark(String),
    ApplyBookmark(usize),
    DeleteBookmark(usize),
    SaveBookmarks,
    StartRecording,
    StopRecording,
    SavePath(String),
    /// Present at the display's refresh rate (true) or as fast as possible.
    SetVsync(bool),
    /// Rebuild the renderer at the LOD panel's max depth.
    Rebuild,
    /// Run a kernel of the Kernel lab on the viewer's device (the frame waits for it).
    RunKernel(KernelRequest),
}

/// Per-session panel state (the persisted part is `PanelState`).
#[derive(Clone, Debug)]
pub struct UiState {
    pub lod: LodSettings,
    /// Deepest max depth the device was set up for (deeper needs a restart with --max-depth).
    pub max_depth_limit: u32,
    /// Max depth of the renderer now.
    pub renderer_max_depth: u32,
    pub goto: [f64; 3],
    pub bookmark_name: String,
    pub path_file: String,
    /// Last message for the user (saved files, errors).
    pub status: String,
    /// Kernel lab parameters (persisted through `PanelState::kernel_lab`) and results.
    pub kernel_lab: KernelLabState,
    /// Left edge of the side panel in egui points as last drawn (the 3-D view uses the window
    /// left of it); None while the panel is hidden.
    pub panel_left_pt: Option<f32>,
}

impl UiState {
    pub fn new(settings: &RenderSettings) -> UiState {
        UiState::with_lod(LodSettings::from_settings(settings))
    }

    /// The state for a renderer whose controls start as `lod` (its max depth is the deepest the
    /// device was set up for).
    pub fn with_lod(lod: LodSettings) -> UiState {
        UiState {
            max_depth_limit: lod.max_depth,
            renderer_max_depth: lod.max_depth,
            lod,
            goto: [0.0, 0.0, 500.0],
            bookmark_name: "view 1".into(),
            path_file: format!("flight-{}.json", super::timestamp_utc()),
            status: String::new(),
            panel_left_pt: None,
            kernel_lab: KernelLabState::default(),
        }
    }

    /// What a key does (pressed while egui does not want the keyboard). LOD toggles change the
    /// state here; the rest are actions for the app.
    pub fn key(&mut self, code: KeyCode, mode: CameraMode) -> Option<Action> {
        match code {
            KeyCode::Escape => Some(Action::Quit),
            KeyCode::F12 => Some(Action::Screenshot),
            KeyCode::F1 => Some(Action::TogglePanel),
            KeyCode::KeyR => Some(Action::Reset),
            KeyCode::KeyC => Some(Action::SetMode(match mode {
                CameraMode::Orbit => CameraMode::Fly,
                CameraMode::Fly | CameraMode::Ship => CameraMode::Orbit,
            })),
            // The globe's ship (the flat terrain flies instead).
            KeyCode::KeyB => Some(Action::SetMode(CameraMode::Ship)),
            KeyCode::KeyF => {
                self.lod.wireframe = !self.lod.wireframe;
                None
            }
            KeyCode::KeyL => {
                self.lod.freeze = !self.lod.freeze;
                None
            }
            _ => None,
        }
    }
}

/// What the panel shows besides its own state.
pub struct PanelData<'a> {
    pub mode: CameraMode,
    pub scene: SceneData<'a>,
    pub stats: Option<&'a LeafStats>,
    pub history: &'a TimingHistory,
    /// Triangles drawn per leaf (the globe draws each leaf as 2^sub_levels sub-triangles).
    pub triangles_per_leaf: u32,
    pub timestamps: bool,
    pub vsync: bool,
}

/// What the panel shows of the scene.
pub enum SceneData<'a> {
    Heightfield(HeightfieldData<'a>),
    Globe(GlobeData),
}

/// The flat height field's camera, bookmarks and path recording.
pub struct HeightfieldData<'a> {
    pub camera: Camera,
    /// Metres above the ground.
    pub height_above_ground_m: f64,
    pub bookmarks: &'a [Bookmark],
    pub recording: bool,
    pub recorded_poses: usize,
    pub recorded_s: f64,
}

/// The whole side panel; returns the actions asked for.
pub fn panel_ui(ui: &mut Ui, state: &mut UiState, panels: &mut PanelState, data: &PanelData) -> Vec<Action> {
    let mut actions = Vec::new();
    let panel = egui::Panel::right("bisector.panel").default_size(330.0).show(ui, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.label(RichText::new("bisector").strong());
            ui.label("F1 hides this panel, F12 saves a screenshot");
            CollapsingHeader::new("Camera").id_salt("bisector.camera").default_open(true).show(ui, |ui| match &data.scene {
                SceneData::Heightfield(flat) => camera_ui(ui, state, panels, data.mode, flat, &mut actions),
                SceneData::Globe(globe) => globe_panels::globe_camera_ui(ui, state, panels, data.mode, globe, &mut actions),
            });
            CollapsingHeader::new("LOD").id_salt("bisector.lod").default_open(true).show(ui, |ui| match &data.scene {
                SceneData::Heightfield(_) => lod_ui(ui, state, &mut actions),
                SceneData::Globe(globe) if globe.pool.is_some() => globe_panels::pool_lod_ui(ui, state),
                SceneData::Globe(_) => globe_panels::globe_lod_ui(ui, state, &mut actions),
            });
            CollapsingHeader::new("Stats")
                .id_salt("bisector.stats")
                .default_open(true)
                .show(ui, |ui| stats_ui(ui, panels, data, &mut actions));
            if let SceneData::Globe(globe) = &data.scene {
                CollapsingHeader::new("Tile cache")
                    .id_salt("bisector.tile_cache")
                    .default_open(true)
                    .show(ui, |ui| globe_panels::tile_cache_ui(ui, &globe.cache, globe.http.as_deref()));
                if let Some(pool) = &globe.pool {
                    CollapsingHeader::new("Bisector pool")
                        .id_salt("bisector.pool")
                        .default_open(true)
                        .show(ui, |ui| globe_panels::pool_ui(ui, pool, data.stats));
                }
            }
            CollapsingHeader::new("Kernel lab")
                .id_salt("bisector.kernel_lab")
                .default_open(false)
                .show(ui, |ui| actions.extend(super::kernel_lab::kernel_lab_ui(ui, &mut state.kernel_lab)));
            if !state.status.is_empty() {
                ui.separator();
                ui.label(&state.status);
            }
        });
    });
    state.panel_left_pt = Some(panel.response.rect.left());
    actions
}

/// Camera mode, speed, go-to, reset, bookmarks and path recording.
pub fn camera_ui(
    ui: &mut Ui,
    state: &mut UiState,
    panels: &mut PanelState,
    mode: CameraMode,
    data: &HeightfieldData,
    actions: &mut Vec<Action>,
) {
    mode_ui(ui, mode, false, actions);
    ui.label(match mode {
        CameraMode::Orbit => "drag: orbit, scroll: zoom, WASD: move, C: fly",
        CameraMode::Fly | CameraMode::Ship => "WASD/QE: move, drag: look, Shift: fast, scroll: speed, C: orbit",
    });
    let p = data.camera.position_m;
    ui.label(format!("at {:.0}, {:.0}, {:.0} m ({:.0} m above ground)", p.x, p.y, p.z, data.height_above_ground_m));
    ui.add(egui::Slider::new(&mut panels.speed_scale, 0.05..=20.0).logarithmic(true).text("fly speed ×"));
    ui.horizontal(|ui| {
        ui.label("go to");
        ui.add(egui::DragValue::new(&mut state.goto[0]).speed(10.0).prefix("x "));
        ui.add(egui::DragValue::new(&mut state.goto[1]).speed(10.0).prefix("y "));
        ui.add(egui::DragValue::new(&mut state.goto[2]).speed(5.0).range(2.0..=1.0e6).prefix("h "));
        if ui.button("Go").clicked() {
            actions.push(Action::GoTo { x_m: state.goto[0], y_m: state.goto[1], height_m: state.goto[2] });
        }
    });
    ui.separator();
    ui.label("Bookmarks");
    for (i, bookmark) in data.bookmarks.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui.button("Go").clicked() {
                actions.push(Action::ApplyBookmark(i));
            }
            if ui.small_button("Delete").clicked() {
                actions.push(Action::DeleteBookmark(i));
            }
            ui.label(&bookmark.name);
        });
    }
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut state.bookmark_name).desired_width(120.0));
        if ui.button("Add").clicked() {
            actions.push(Action::AddBookmark(state.bookmark_name.clone()));
        }
        if ui.button("Save bookmarks").clicked() {
            actions.push(Action::SaveBookmarks);
        }
    });
    ui.separator();
    ui.horizontal(|ui| {
        if data.recording {
            if ui.button("Stop").clicked() {
                actions.push(Action::StopRecording);
            }
            ui.label(
                RichText::new(format!("recording: {} poses, {:.1} s", data.recorded_poses, data.recorded_s))
                    .color(egui::Color32::LIGHT_RED),
            );
        } else {
            if ui.button("Record path").clicked() {
                actions.push(Action::StartRecording);
            }
            if data.recorded_poses > 0 {
                ui.label(format!("{} poses, {:.1} s", data.recorded_poses, data.recorded_s));
            }
        }
    });
    if !data.recording && data.recorded_poses > 0 {
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut state.path_file).desired_width(180.0));
            if ui.button("Save path").clicked() {
                actions.push(Action::SavePath(state.path_file.clone()));
            }
        });
    }
}

/// Orbit / Fly (/ Ship on the globe) and Reset.
pub fn mode_ui(ui: &mut Ui, mode: CameraMode, ship: bool, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        let mut chosen = mode;
        ui.selectable_value(&mut chosen, CameraMode::Orbit, "Orbit");
        ui.selectable_value(&mut chosen, CameraMode::Fly, "Fly");
        if ship {
            ui.selectable_value(&mut chosen, CameraMode::Ship, "Ship");
        }
        if chosen != mode {
            actions.push(Action::SetMode(chosen));
        }
        if ui.button("Reset").clicked() {
            actions.push(Action::Reset);
        }
    });
}

/// The max depth slider and its Rebuild button.
pub fn max_depth_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<Action>) {
    let lod = &mut state.lod;
    ui.horizontal(|ui| {
        ui.add(egui::Slider::new(&mut lod.max_depth, MIN_MAX_DEPTH..=state.max_depth_limit.max(MIN_MAX_DEPTH)).text("max depth"));
        if ui
            .add_enabled(lod.max_depth != state.renderer_max_depth, egui::Button::new("Rebuild"))
            .on_hover_text("rebuild the tree at this max depth (deeper than the start needs --max-depth)")
            .clicked()
        {
            actions.push(Action::Rebuild);
        }
    });
}

/// Max depth, criterion and its pixel target, morphing, freeze, split/merge, wireframe.
pub fn lod_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<Action>) {
    max_depth_ui(ui, state, actions);
    criterion_ui(ui, &mut state.lod);
    ui.checkbox(&mut state.lod.morph, "Morphing");
    update_passes_ui(ui, &mut state.lod);
}

/// The criterion and its target's slider (the flat terrain and the globe).
pub fn criterion_ui(ui: &mut Ui, lod: &mut LodSettings) {
    ui.horizontal(|ui| {
        ui.radio_value(&mut lod.criterion, Criterion::ScreenSpaceError, "screen-space error");
        ui.radio_value(&mut lod.criterion, Criterion::EdgeLength, "edge length");
    });
    match lod.criterion {
        Criterion::ScreenSpaceError => {
            ui.add(egui::Slider::new(&mut lod.pixel_error_px, 0.25..=16.0).logarithmic(true).text("pixel error (px)"))
        }
        Criterion::EdgeLength => {
            ui.add(egui::Slider::new(&mut lod.pixel_target_px, 1.0..=64.0).logarithmic(true).text("pixel target (px)"))
        }
    };
}

/// Freeze, split/merge and wireframe: the tree's switches, the same for both scenes.
pub fn update_passes_ui(ui: &mut Ui, lod: &mut LodSettings) {
    ui.checkbox(&mut lod.freeze, "Freeze LOD (L)");
    ui.horizontal(|ui| {
        ui.add_enabled(!lod.freeze, egui::Checkbox::new(&mut lod.split, "split"));
        ui.add_enabled(!lod.freeze, egui::Checkbox::new(&mut lod.merge, "merge"));
    });
    ui.checkbox(&mut lod.wireframe, "Wireframe (F)");
}

/// Plots leave room for the scroll bar (at full width their right edge is clipped).
fn plot_width(ui: &Ui) -> f32 {
    (ui.available_width() - 14.0).max(120.0)
}

/// Leaf count, triangles, depths, GPU pass times and CPU frame time.
pub fn stats_ui(ui: &mut Ui, panels: &mut PanelState, data: &PanelData, actions: &mut Vec<Action>) {
    match data.stats {
        Some(stats) => {
            Grid::new("bisector.stats.grid").num_columns(2).show(ui, |ui| {
                ui.label("leaves");
                ui.label(stats.stats.leaves.to_string());
                ui.end_row();
                if let Some(lod) = &stats.lod {
                    ui.label("visible leaves");
                    ui.label(lod.visible_leaves.to_string());
                    ui.end_row();
                    // Over the bisector pool the decode's count is the leaves still waiting for a
                    // split frame; the Bisector pool section has the capped ones.
                    let pool = matches!(&data.scene, SceneData::Globe(g) if g.pool.is_some());
                    let (label, hover) = if pool {
                        ("pending splits", "visible leaves that want to split, for the next split frame (capped: Bisector pool section)")
                    } else {
                        ("capped leaves", "visible leaves that want to split but are at the max depth")
                    };
                    ui.label(label);
                    ui.label(lod.capped_leaves.to_string()).on_hover_text(hover);
                    ui.end_row();
                }
                ui.label("triangles");
                ui.label((stats.triangles() as u64 * data.triangles_per_leaf as u64).to_string());
                ui.end_row();
                ui.label("max depth reached");
                // The globe's depths count from the tree's root; its base triangles are at depth 3
                // (the Bisector pool section and shot --json count from them).
                match &data.scene {
                    SceneData::Globe(_) => {
                        let below_base = stats.stats.max_depth.saturating_sub(crate::leb::base_mesh::BaseMesh::octahedron().depth);
                        ui.label(format!("{} ({below_base} below the octahedron's base)", stats.stats.max_depth))
                    }
                    SceneData::Heightfield(_) => ui.label(stats.stats.max_depth.to_string()),
                };
                ui.end_row();
                if stats.stats.overflow != 0 {
                    ui.label(RichText::new("overflow").color(egui::Color32::LIGHT_RED));
                    ui.label(format!("only {} leaves fit the leaf buffer", stats.stats.capacity));
                    ui.end_row();
                }
            });
            // The bisector pool lists slots, not node ids: no depth histogram.
            if !stats.depth_histogram.is_empty() {
                let bars: Vec<Bar> = stats
                    .depth_histogram
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(d, &n)| Bar::new(d as f64, n as f64).width(0.8))
                    .collect();
                ui.label(if stats.sampled < stats.triangles() {
                    format!("leaves per depth (the first {} of {})", stats.sampled, stats.triangles())
                } else {
                    "leaves per depth".to_string()
                });
                Plot::new("bisector.depths")
                    .height(90.0)
                    .width(plot_width(ui))
                    .include_x(0.0)
                    .include_x(stats.depth_histogram.len() as f64)
                    .include_y(0.0)
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .show(ui, |plot| plot.bar_chart(BarChart::new("leaves", bars)));
            }
        }
        None => {
            ui.label("waiting for the first statistics…");
        }
    }
    ui.separator();
    if !data.timestamps {
        ui.label("GPU times: this adapter has no timestamp queries");
    }
    ui.horizontal(|ui| {
        let mut vsync = data.vsync;
        if ui.checkbox(&mut vsync, "vsync").changed() {
            actions.push(Action::SetVsync(vsync));
        }
        ui.checkbox(&mut panels.plot_passes, "per pass");
        ui.add(egui::DragValue::new(&mut panels.plot_frames).range(30..=2000).suffix(" frames"));
    });
    let history = data.history;
    let start = history.frame_gpu.back().map_or(0, |&(f, _)| f.saturating_sub(panels.plot_frames as u64));
    let series = |q: &std::collections::VecDeque<(u64, f64)>| {
        q.iter().filter(|(f, _)| *f >= start).map(|&(f, ms)| [f as f64, ms]).collect::<Vec<[f64; 2]>>()
    };
    Plot::new("bisector.gpu_times")
        .height(140.0)
        .width(plot_width(ui))
        .legend(Legend::default())
        .y_axis_label("ms")
        .include_y(0.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            if panels.plot_passes {
                for (label, q) in &history.passes {
                    plot.line(Line::new(label.clone(), series(q)));
                }
            }
            plot.line(Line::new("GPU frame", series(&history.frame_gpu)));
        });
    Grid::new("bisector.timings").num_columns(3).striped(true).show(ui, |ui| {
        ui.label(RichText::new("pass").strong());
        ui.label(RichText::new("median ms").strong());
        ui.label(RichText::new("p95 ms").strong());
        ui.end_row();
        for (label, median, p95) in history.table() {
            ui.label(label);
            ui.label(format!("{median:.3}"));
            ui.label(format!("{p95:.3}"));
            ui.end_row();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::accesskit;

    /// Runs `ui` for one frame with `events`, returning the accessibility tree (labels and bounds).
    fn frame(ctx: &egui::Context, events: Vec<egui::Event>, mut ui: impl FnMut(&mut Ui)) -> accesskit::TreeUpdate {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 900.0))),
            events,
            ..Default::default()
        };
        let mut output = ctx.run_ui(input, |root| ui(root));
        output.textures_delta.clear();
        output.platform_output.accesskit_update.take().expect("accesskit enabled")
    }

    /// The centre of the widget labelled `label`.
    fn centre_of(tree: &accesskit::TreeUpdate, label: &str) -> egui::Pos2 {
        let node = tree
            .nodes
            .iter()
            .find(|(_, n)| n.label().is_some_and(|l| l == label))
            .unwrap_or_else(|| panic!("no widget labelled {label:?}"))
            .1
            .clone();
        let b = node.bounds().expect("bounds");
        egui::pos2(((b.x0 + b.x1) / 2.0) as f32, ((b.y0 + b.y1) / 2.0) as f32)
    }

    /// Clicks the widget labelled `label`, returning the actions of the frame that sees the click.
    fn click(ctx: &egui::Context, label: &str, mut ui: impl FnMut(&mut Ui) -> Vec<Action>) -> Vec<Action> {
        let mut actions = Vec::new();
        let tree = frame(ctx, vec![], |root| actions = ui(root));
        let at = centre_of(&tree, label);
        let press =
            |pressed| egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers: Default::default() };
        frame(ctx, vec![egui::Event::PointerMoved(at), press(true)], |root| actions = ui(root));
        frame(ctx, vec![press(false)], |root| actions = ui(root));
        actions
    }

    fn settings() -> RenderSettings {
        RenderSettings { max_depth: 20, pixel_target_px: 12.0, wireframe: false, leaf_capacity: 1 << 16, ..Default::default() }
    }

    #[test]
    fn lod_controls_change_the_settings() {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let mut state = UiState::new(&settings());
        let run = |label: &str, state: &mut UiState| {
            click(&ctx, label, |ui| {
                let mut actions = Vec::new();
                lod_ui(ui, state, &mut actions);
                actions
            })
        };
        run("Freeze LOD (L)", &mut state);
        assert!(state.lod.freeze);
        assert_eq!(state.lod.update_passes(), (false, false));
        run("Freeze LOD (L)", &mut state);
        run("merge", &mut state);
        assert_eq!(state.lod.update_passes(), (true, false));
        run("Wireframe (F)", &mut state);
        assert!(state.lod.wireframe);
        // Rebuild is offered only when the max depth differs from the tree's.
        assert!(run("Rebuild", &mut state).is_empty());
        state.lod.max_depth = 12;
        assert_eq!(run("Rebuild", &mut state), vec![Action::Rebuild]);
    }

    #[test]
    fn camera_controls_ask_for_actions() {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let mut state = UiState::new(&settings());
        let mut panels = PanelState::default();
        let marks = vec![Bookmark::of_camera("peak", &Camera::look_at(glam::DVec3::Z * 900.0, glam::DVec3::X * 100.0, 60.0))];
        let data = HeightfieldData {
            camera: marks[0].camera(),
            height_above_ground_m: 900.0,
            bookmarks: &marks,
            recording: false,
            recorded_poses: 0,
            recorded_s: 0.0,
        };
        state.goto = [100.0, 200.0, 300.0];
        let mut run = |label: &str| {
            click(&ctx, label, |ui| {
                let mut actions = Vec::new();
                camera_ui(ui, &mut state, &mut panels, CameraMode::Orbit, &data, &mut actions);
                actions
            })
        };
        assert_eq!(run("Fly"), vec![Action::SetMode(CameraMode::Fly)]);
        assert_eq!(run("Reset"), vec![Action::Reset]);
        assert_eq!(run("Record path"), vec![Action::StartRecording]);
        assert_eq!(run("Add"), vec![Action::AddBookmark("view 1".into())]);
        assert_eq!(run("Save bookmarks"), vec![Action::SaveBookmarks]);
    }

    #[test]
    fn kernel_lab_run_asks_for_the_kernel_with_its_parameters() {
        use super::super::kernel_lab::{kernel_lab_ui, CbtSettings, ChainedHashSettings, KernelName};
        use bisector_kernels::chained_hash::{BuildVariant, KeyDistribution};
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        ctx.global_style_mut(|s| s.animation_time = 0.0);
        let mut lab = KernelLabState::default();
        let mut run = |label: &str| click(&ctx, label, |ui| kernel_lab_ui(ui, &mut lab));
        // Open chained-hash, change its keys and build, run it.
        assert!(run("chained-hash").is_empty());
        assert!(run("duplicates").is_empty());
        assert!(run("global").is_empty());
        let expected = ChainedHashSettings { keys: KeyDistribution::Duplicates, variant: BuildVariant::Global, ..Default::default() };
        assert_eq!(run("Run"), vec![Action::RunKernel(KernelRequest::ChainedHash(expected.clone()))]);
        // Close it, open cbt, pick fill 1/2, run that.
        run("chained-hash");
        run("cbt");
        run("1/2");
        assert_eq!(run("Run"), vec![Action::RunKernel(KernelRequest::Cbt(CbtSettings { fill_log2: 1, ..Default::default() }))]);
        // The parameters stay in the state (saved as PanelState::kernel_lab); nothing ran.
        assert_eq!(lab.settings.chained_hash, expected);
        assert_eq!(lab.settings.cbt.fill_log2, 1);
        assert!(KernelName::ALL.iter().all(|k| lab.panel(*k).last.is_none()));
    }

    #[test]
    fn keys_toggle_lod_and_ask_for_actions() {
        let mut state = UiState::new(&settings());
        assert_eq!(state.key(KeyCode::KeyF, CameraMode::Orbit), None);
        assert!(state.lod.wireframe);
        state.key(KeyCode::KeyL, CameraMode::Orbit);
        assert!(state.lod.freeze);
        assert_eq!(state.key(KeyCode::KeyC, CameraMode::Orbit), Some(Action::SetMode(CameraMode::Fly)));
        assert_eq!(state.key(KeyCode::KeyC, CameraMode::Fly), Some(Action::SetMode(CameraMode::Orbit)));
        assert_eq!(state.key(KeyCode::KeyB, CameraMode::Orbit), Some(Action::SetMode(CameraMode::Ship)));
        assert_eq!(state.key(KeyCode::KeyC, CameraMode::Ship), Some(Action::SetMode(CameraMode::Orbit)));
        assert_eq!(state.key(KeyCode::F12, CameraMode::Fly), Some(Action::Screenshot));
        assert_eq!(state.key(KeyCode::Escape, CameraMode::Fly), Some(Action::Quit));
    }

    #[test]
    fn stats_panel_draws_with_and_without_data() {
        let ctx = egui::Context::default();
        let mut panels = PanelState::default();
        let mut history = TimingHistory::new(50);
        history.add_gpu(&crate::gpu::timings::FrameTimings {
            passes: vec![crate::gpu::timings::PassTiming { label: "render.draw".into(), gpu_ms: 1.0 }],
            frame_gpu_ms: 1.5,
        });
        let stats = LeafStats {
            frame: 8,
            stats: crate::cbt::gpu::FrameStats { leaves: 4, max_depth: 3, overflow: 1, capacity: 4 },
            depth_histogram: vec![0, 0, 2, 2],
            sampled: 4,
            lod: None,
        };
        for stats in [None, Some(&stats)] {
            let scene = SceneData::Heightfield(HeightfieldData {
                camera: Camera::look_at(glam::DVec3::Z, glam::DVec3::X, 60.0),
                height_above_ground_m: 1.0,
                bookmarks: &[],
                recording: true,
                recorded_poses: 3,
                recorded_s: 0.2,
            });
            let data = PanelData {
                mode: CameraMode::Fly,
                scene,
                stats,
                history: &history,
                triangles_per_leaf: 1,
                timestamps: false,
                vsync: false,
            };
            ctx.run_ui(egui::RawInput::default(), |ui| stats_ui(ui, &mut panels, &data, &mut Vec::new())).textures_delta.clear();
        }
    }
}
