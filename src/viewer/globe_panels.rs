//! The side panel's sections for the globe: Camera (lon/lat/altitude, heading, go-to), LOD (max
//! depth, pixel target, wireframe) and Tile cache (`TileCacheStats`). Like `panels.rs`, they only
//! change `UiState` and return `Action`s.

use egui::{Grid, RichText, Ui};

use super::config::PanelState;
use super::globe_rig::{GlobeFlight, GlobeOrbit, GlobeShip};
use super::panels::{max_depth_ui, mode_ui, update_passes_ui, Action, UiState};
use super::rig::CameraMode;
use crate::globe::cache::tile_cache::TileCacheStats;
use crate::globe::camera::GlobeCamera;
use crate::leb::octahedral::lon_lat_deg;

/// What the globe's sections show.
pub struct GlobeData {
    /// The camera shown.
    pub camera: GlobeCamera,
    /// The orbit (its target is shown in orbit mode).
    pub orbit: GlobeOrbit,
    /// The ship (its speed, heading and bridge are shown in ship mode).
    pub ship: GlobeShip,
    pub cache: TileCacheStats,
}

/// Mode, where the camera is, flight speed, go-to.
pub fn globe_camera_ui(
    ui: &mut Ui,
    state: &mut UiState,
    panels: &mut PanelState,
    mode: CameraMode,
    data: &GlobeData,
    actions: &mut Vec<Action>,
) {
    mode_ui(ui, mode, true, actions);
    ui.label(match mode {
        CameraMode::Orbit => {
            "drag: move the planet, right drag or Shift drag: turn and tilt, scroll: zoom, Q/E: turn, T/G: tilt, WASD: move, C: fly"
        }
        CameraMode::Fly => "WASD: move along the horizon, Q/E: down/up, drag: look, Shift: fast, scroll: speed, C: orbit, B: ship",
        CameraMode::Ship => "W/S: faster/slower, A/D: steer, Q/E: bridge down/up, drag: look around, scroll: speed by knots, C: orbit",
    });
    let (lon_deg, lat_deg) = lon_lat_deg(data.camera.up());
    let heading_deg = GlobeFlight::from_camera(&data.camera).heading_deg;
    let pitch_deg = data.camera.forward.normalize().dot(data.camera.up()).clamp(-1.0, 1.0).asin().to_degrees();
    Grid::new("bisector.globe_camera").num_columns(2).show(ui, |ui| {
        ui.label("camera");
        ui.label(format!("{lon_deg:.5}°, {lat_deg:.5}°"));
        ui.end_row();
        ui.label("altitude");
        ui.label(altitude_text(data.camera.altitude_m()));
        ui.end_row();
        ui.label("heading, pitch");
        ui.label(format!("{heading_deg:.1}°, {pitch_deg:.2}°"));
        ui.end_row();
        if mode == CameraMode::Ship {
            ui.label("ship");
            ui.label(format!(
                "{:.1} m/s ({:.1} kn), heading {:.1}°, bridge {:.1} m above the sea",
                data.ship.speed_m_per_s,
                data.ship.speed_m_per_s / 0.514,
                data.ship.heading_deg,
                data.ship.bridge_m
            ));
            ui.end_row();
        }
        if mode == CameraMode::Orbit {
            let (lon, lat) = data.orbit.target_lon_lat_deg();
            ui.label("looking at");
            ui.label(format!("{lon:.5}°, {lat:.5}° from {}, tilt {:.1}°", altitude_text(data.orbit.range_m), data.orbit.tilt_deg));
            ui.end_row();
        }
    });
    ui.add(egui::Slider::new(&mut panels.speed_scale, 0.05..=20.0).logarithmic(true).text("fly speed ×"));
    ui.horizontal(|ui| {
        ui.label("go to");
        ui.add(egui::DragValue::new(&mut state.goto[0]).speed(0.01).range(-180.0..=180.0).prefix("lon "));
        ui.add(egui::DragValue::new(&mut state.goto[1]).speed(0.01).range(-90.0..=90.0).prefix("lat "));
        ui.add(egui::DragValue::new(&mut state.goto[2]).speed(10.0).range(2.0..=2.5e7).prefix("alt "));
        if ui.button("Go").clicked() {
            actions.push(Action::GoToLonLat { lon_deg: state.goto[0], lat_deg: state.goto[1], altitude_m: state.goto[2] });
        }
    });
}

/// Metres below 10 km, else kilometres.
fn altitude_text(metres: f64) -> String {
    if metres.abs() < 10_000.0 {
        format!("{metres:.1} m")
    } else {
        format!("{:.1} km", metres / 1000.0)
    }
}

/// Max depth (rebuilds the tree), pixel target, freeze, split/merge and wireframe: what the globe
/// renderer reads.
pub fn globe_lod_ui(ui: &mut Ui, state: &mut UiState, actions: &mut Vec<Action>) {
    max_depth_ui(ui, state, actions);
    let lod = &mut state.lod;
    ui.add(egui::Slider::new(&mut lod.pixel_target_px, 1.0..=64.0).logarithmic(true).text("pixel target (px)"));
    update_passes_ui(ui, lod);
    ui.label("the globe splits by projected edge length; no morphing yet");
}

/// The tile cache's residency, feedback and streaming.
pub fn tile_cache_ui(ui: &mut Ui, stats: &TileCacheStats) {
    Grid::new("bisector.tile_cache.grid").num_columns(2).show(ui, |ui| {
        let mut row = |label: &str, value: String| {
            ui.label(label);
            ui.label(value);
            ui.end_row();
        };
        row("resident tiles", format!("{} / {}", stats.resident_tiles, stats.capacity_tiles));
        row("hits (slots sampled)", stats.hits.to_string());
        row("misses (keys)", stats.misses.to_string());
        row("feedback", format!("{} / {}", stats.feedback_count, stats.feedback_capacity));
        row("uploaded this frame", format!("{} tiles, {:.1} KiB", stats.uploaded_tiles, stats.uploaded_bytes as f64 / 1024.0));
        row("evictions", format!("{} this frame, {} in all", stats.evictions, stats.evictions_total));
        row("load queue", stats.load_queue.to_string());
        row("in flight", stats.in_flight.to_string());
        row("failed loads", stats.failed_loads.to_string());
        row("read back from frame", stats.readback_frame.to_string());
        if stats.feedback_overflow {
            ui.label(RichText::new("feedback overflow").color(egui::Color32::LIGHT_RED));
            ui.label("more missed tiles than the feedback set holds");
            ui.end_row();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::globe::renderer::GlobeSettings;
    use crate::viewer::panels::LodSettings;

    #[test]
    fn globe_sections_draw_and_go_to_asks_for_lon_lat() {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let mut state = UiState::with_lod(LodSettings::from_globe(&GlobeSettings::default()));
        state.goto = [121.5, 25.0, 3000.0];
        let mut panels = PanelState::default();
        let orbit = GlobeOrbit::home();
        let ship = GlobeShip::from_camera(&orbit.camera());
        let data =
            GlobeData { camera: orbit.camera(), orbit, ship, cache: TileCacheStats { feedback_overflow: true, ..Default::default() } };
        let mut actions = Vec::new();
        let mut run = |events: Vec<egui::Event>, actions: &mut Vec<Action>| {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 900.0))),
                events,
                ..Default::default()
            };
            let mut output = ctx.run_ui(input, |ui| {
                globe_camera_ui(ui, &mut state, &mut panels, CameraMode::Orbit, &data, actions);
                globe_lod_ui(ui, &mut state, actions);
                tile_cache_ui(ui, &data.cache);
            });
            output.textures_delta.clear();
            output.platform_output.accesskit_update.take().expect("accesskit enabled")
        };
        let tree = run(vec![], &mut actions);
        let go = tree.nodes.iter().find(|(_, n)| n.label().is_some_and(|l| l == "Go")).expect("a Go button").1.bounds().expect("bounds");
        let at = egui::pos2(((go.x0 + go.x1) / 2.0) as f32, ((go.y0 + go.y1) / 2.0) as f32);
        let press =
            |pressed| egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers: Default::default() };
        run(vec![egui::Event::PointerMoved(at), press(true)], &mut actions);
        run(vec![press(false)], &mut actions);
        assert_eq!(actions, vec![Action::GoToLonLat { lon_deg: 121.5, lat_deg: 25.0, altitude_m: 3000.0 }]);
    }

    #[test]
    fn globe_lod_controls_reach_only_what_the_globe_reads() {
        let settings = GlobeSettings { pixel_target_px: 8.0, wireframe: true, max_depth: 20, ..Default::default() };
        let lod = LodSettings::from_globe(&settings);
        assert_eq!((lod.max_depth, lod.pixel_target_px, lod.wireframe), (20, 8.0, true));
        assert_eq!(altitude_text(2.0), "2.0 m");
        assert_eq!(altitude_text(25_484_000.0), "25484.0 km");
    }
}
