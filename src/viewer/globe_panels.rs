//! The side panel's sections for the globe: Camera (lon/lat/altitude, heading, go-to), LOD (max
//! depth, pixel target, wireframe), Tile cache (`TileCacheStats`) and, drawn from the bisector
//! pool, Bisector pool (`view --pool-slots`: the figures `shot --json` writes). Like `panels.rs`,
//! they only change `UiState` and return `Action`s.

use egui::{Grid, RichText, Ui};

use super::config::PanelState;
use super::globe_rig::{GlobeFlight, GlobeOrbit, GlobeShip};
use super::panels::{criterion_ui, max_depth_ui, mode_ui, update_passes_ui, Action, LodSettings, UiState};
use super::rig::CameraMode;
use super::stats::{LeafStats, PoolStats};
use crate::globe::cache::tile_cache::TileCacheStats;
use crate::globe::camera::GlobeCamera;
use crate::leb::octahedral::lon_lat_deg;
use crate::terrain::http_source::HttpStats;

/// What the globe's sections show.
pub struct GlobeData {
    /// The camera shown.
    pub camera: GlobeCamera,
    /// The orbit (its target is shown in orbit mode).
    pub orbit: GlobeOrbit,
    /// The ship (its speed, heading and bridge are shown in ship mode).
    pub ship: GlobeShip,
    pub cache: TileCacheStats,
    /// What the HTTP tile sources did so far, when tiles come over HTTP (`--terrain URL`).
    pub http: Option<Box<HttpStats>>,
    /// The bisector pool, when the globe is drawn from it.
    pub pool: Option<Box<PoolData>>,
}

/// What the Bisector pool section shows besides the tree's statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolData {
    pub pool_slots: u32,
    /// The pool's max depth (`--max-depth`), levels from the root.
    pub max_depth: u32,
    /// The latest read-back of the near edges and the pool's counters.
    pub latest: Option<PoolStats>,
}

impl PoolData {
    /// The section's data for a pool of `settings`, read back as `latest`.
    pub fn new(settings: &crate::pool::PoolSettings, latest: Option<PoolStats>) -> PoolData {
        PoolData { pool_slots: settings.pool_slots, max_depth: settings.max_depth, latest }
    }

    /// The figures as `shot --json` names them, in (name, value) rows: pool_slots, pool_used,
    /// capped_leaves, max_depth_reached, near_edge_m.
    pub fn rows(&self, stats: Option<&LeafStats>) -> Vec<(&'static str, String)> {
        let base = crate::leb::base_mesh::BaseMesh::octahedron().depth;
        let mut rows = vec![("pool_slots", self.pool_slots.to_string())];
        if let Some(stats) = stats {
            let used = stats.stats.leaves;
            rows.push(("pool_used", format!("{used} ({:.1}%)", 100.0 * f64::from(used) / f64::from(self.pool_slots.max(1)))));
            // Capped: refused by depth or by the pool in the last split frame read back;
            // pending: visible leaves still wanting a split after this frame (the decode's count).
            let pending = stats.lod.map_or(0, |l| l.capped_leaves);
            let capped = self.latest.as_ref().map_or("-".to_string(), |p| {
                format!(
                    "{} ({} by depth, {} by the pool)",
                    p.counters.capped_leaves(),
                    p.counters.capped_by_depth,
                    p.counters.capped_by_pool
                )
            });
            rows.push(("capped_leaves", capped));
            rows.push(("pending_split_leaves", pending.to_string()));
            rows.push((
                "max_depth_reached",
                format!("{} of {} levels below the base", stats.stats.max_depth.saturating_sub(base), self.max_depth - base),
            ));
        }
        if let Some(pool) = &self.latest {
            rows.push((
                "near_edge_m",
                match pool.near_edges.stats() {
                    Some(e) => format!("min {:.3} m, median {:.2} m, {} edges", e.min, e.median, e.count),
                    None => "no land within 3 km".to_string(),
                },
            ));
            rows.push(("read back from frame", pool.frame.to_string()));
        }
        rows
    }
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
    criterion_ui(ui, &mut state.lod);
    update_passes_ui(ui, &mut state.lod);
    ui.label("screen-space error: the data's error from the tile cache's summaries; no morphing yet");
    sun_ui(ui, &mut state.lod);
}

/// The sun by date and time: a checkbox (off: the sun as the renderer started) and the hour of
/// the day, UTC.
pub fn sun_ui(ui: &mut Ui, lod: &mut LodSettings) {
    /// When the checkbox first turns the clock on: 2026-03-20T04:00Z, noon over Taiwan.
    const FIRST_UNIX_S: f64 = 1_773_979_200.0;
    let mut by_time = lod.sun_time_unix_s.is_some();
    ui.checkbox(&mut by_time, "Sun by date and time (UTC)");
    match (by_time, lod.sun_time_unix_s) {
        (true, None) => lod.sun_time_unix_s = Some(FIRST_UNIX_S),
        (false, Some(_)) => lod.sun_time_unix_s = None,
        _ => {}
    }
    if let Some(unix_s) = lod.sun_time_unix_s.as_mut() {
        let day_s = unix_s.div_euclid(86_400.0) * 86_400.0;
        let mut hour = (*unix_s - day_s) / 3600.0;
        ui.add(egui::Slider::new(&mut hour, 0.0..=23.99).text("hour (UTC)"));
        *unix_s = day_s + hour * 3600.0;
        let (lon, lat) = crate::globe::sun::subsolar_lon_lat_deg(*unix_s);
        let stamp = jiff::Timestamp::from_second(*unix_s as i64).map(|t| t.strftime("%Y-%m-%d %H:%MZ").to_string()).unwrap_or_default();
        ui.label(format!("{stamp}: the sun overhead at {lon:.1}°, {lat:.1}°"));
    }
}

/// Pixel target, freeze, split/merge and wireframe of the globe drawn from the bisector pool (its
/// max depth is `--max-depth`'s, shown in the Bisector pool section).
pub fn pool_lod_ui(ui: &mut Ui, state: &mut UiState) {
    criterion_ui(ui, &mut state.lod);
    update_passes_ui(ui, &mut state.lod);
    ui.checkbox(&mut state.lod.occlusion, "Occlusion culling: land hidden last frame stays coarse");
    ui.label("when the pool is full, splits back off, largest error first");
    sun_ui(ui, &mut state.lod);
}

/// The bisector pool's figures, named as `shot --json` names them, read back without stalling.
pub fn pool_ui(ui: &mut Ui, pool: &PoolData, stats: Option<&LeafStats>) {
    Grid::new("bisector.pool.grid").num_columns(2).show(ui, |ui| {
        for (label, value) in pool.rows(stats) {
            ui.label(label);
            ui.label(value);
            ui.end_row();
        }
    });
}

/// The tile cache's residency, feedback and streaming, and the HTTP sources' counts under it.
pub fn tile_cache_ui(ui: &mut Ui, stats: &TileCacheStats, http: Option<&HttpStats>) {
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
        if let Some(h) = http {
            row("HTTP requests", format!("{} ({} retried)", h.requests, h.retries));
            row("HTTP tiles", format!("{} fetched, {} from the disk cache, {} absent", h.fetched, h.disk_hits, h.no_tile));
            row("HTTP failures", format!("{} given up, {} not cached offline", h.failures, h.offline_misses));
        }
        if stats.feedback_overflow {
            ui.label(RichText::new("feedback overflow").color(egui::Color32::LIGHT_RED));
            ui.label("more missed tiles than the feedback set holds");
            ui.end_row();
        }
    });
}

/// The HTTP sources' counts when any tile went through them (None for files only).
pub fn http_stats() -> Option<Box<HttpStats>> {
    Some(crate::terrain::http_source::stats()).filter(|s| s.requests + s.disk_hits + s.offline_misses > 0).map(Box::new)
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
        let data = GlobeData {
            camera: orbit.camera(),
            orbit,
            ship,
            cache: TileCacheStats { feedback_overflow: true, ..Default::default() },
            http: Some(Box::new(HttpStats { requests: 7, fetched: 5, failures: 1, ..Default::default() })),
            pool: None,
        };
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
                tile_cache_ui(ui, &data.cache, data.http.as_deref());
            });
            output.textures_delta.clear();
            output.platform_output.accesskit_update.take().expect("accesskit enabled")
        };
        let tree = run(vec![], &mut actions);
        // The tile cache section shows the HTTP counts it was given.
        let labels: Vec<String> = tree.nodes.iter().filter_map(|(_, n)| n.label().or(n.value()).map(|l| l.to_string())).collect();
        assert!(labels.iter().any(|l| l == "7 (0 retried)"), "{labels:?}");
        assert!(labels.iter().any(|l| l == "1 given up, 0 not cached offline"), "{labels:?}");
        let go = tree.nodes.iter().find(|(_, n)| n.label().is_some_and(|l| l == "Go")).expect("a Go button").1.bounds().expect("bounds");
        let at = egui::pos2(((go.x0 + go.x1) / 2.0) as f32, ((go.y0 + go.y1) / 2.0) as f32);
        let press =
            |pressed| egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers: Default::default() };
        run(vec![egui::Event::PointerMoved(at), press(true)], &mut actions);
        run(vec![press(false)], &mut actions);
        assert_eq!(actions, vec![Action::GoToLonLat { lon_deg: 121.5, lat_deg: 25.0, altitude_m: 3000.0 }]);
    }

    #[test]
    fn the_pool_section_names_the_figures_as_shot_json_does() {
        use crate::globe::near_edges::{bin_of, NearEdgeHistogram, BINS};
        use crate::viewer::stats::{LeafStats, PoolStats};
        let settings = crate::pool::PoolSettings { pool_slots: 1 << 12, ..Default::default() };
        let mut bins = vec![0; BINS];
        bins[bin_of(2.0)] = 3;
        let near_edges = NearEdgeHistogram { count: 3, min_m: Some(1.99), bins };
        let counters = crate::pool::gpu::GpuPoolCounters { capped_by_depth: 2, capped_by_pool: 5, ..Default::default() };
        let pool = PoolData::new(&settings, Some(PoolStats { frame: 8, near_edges, counters }));
        let mut stats = LeafStats::default();
        stats.stats.leaves = 1024;
        stats.stats.max_depth = 43;
        stats.lod = Some(crate::leb::decode::LodStats { capped_leaves: 9, ..Default::default() });
        let rows: std::collections::HashMap<_, _> = pool.rows(Some(&stats)).into_iter().collect();
        assert_eq!(rows["pool_slots"], "4096");
        assert_eq!(rows["pool_used"], "1024 (25.0%)");
        assert_eq!(rows["capped_leaves"], "7 (2 by depth, 5 by the pool)");
        assert_eq!(rows["pending_split_leaves"], "9");
        assert_eq!(rows["max_depth_reached"], "40 of 60 levels below the base");
        assert!(rows["near_edge_m"].starts_with("min 1.990 m, median 2.0") && rows["near_edge_m"].ends_with(", 3 edges"), "{rows:?}");
        let ctx = egui::Context::default();
        ctx.run_ui(egui::RawInput::default(), |ui| pool_ui(ui, &pool, Some(&stats))).textures_delta.clear();
    }

    #[test]
    fn globe_lod_controls_reach_only_what_the_globe_reads() {
        let settings = GlobeSettings { pixel_target_px: 8.0, wireframe: true, max_depth: 20, ..Default::default() };
        let lod = LodSettings::from_globe(&settings);
        assert_eq!((lod.max_depth, lod.pixel_target_px, lod.wireframe), (20, 8.0, true));
        // The occlusion checkbox starts as the renderer does and reaches it.
        let mut settings = GlobeSettings { occlusion: false, ..Default::default() };
        let mut lod = LodSettings::from_globe(&settings);
        assert!(!lod.occlusion);
        lod.occlusion = true;
        lod.apply_to_globe(&mut settings);
        assert!(settings.occlusion);
        assert_eq!(altitude_text(2.0), "2.0 m");
        assert_eq!(altitude_text(25_484_000.0), "25484.0 km");
    }

    #[test]
    fn the_time_slider_places_the_sun() {
        let mut settings = GlobeSettings::default();
        let mut lod = LodSettings::from_globe(&settings);
        assert_eq!(lod.sun_time_unix_s, None);
        lod.apply_to_globe(&mut settings);
        assert_eq!(settings.sun_direction, GlobeSettings::default().sun_direction, "no time: the sun stays");
        let unix_s = crate::globe::sun::parse_time("2026-06-21T12:00Z").unwrap();
        lod.sun_time_unix_s = Some(unix_s);
        lod.apply_to_globe(&mut settings);
        assert_eq!(settings.sun_direction, crate::globe::sun::sun_at_time(unix_s));
        let (_, lat) = crate::leb::octahedral::lon_lat_deg(settings.sun_direction);
        assert!((lat - 23.44).abs() < 0.1, "{lat}");
    }
}
