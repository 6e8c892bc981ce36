//! The globe drawn from the bisector pool (issue 15 step 9, src/globe/pool_scene.rs) on the bridge
//! view of assets/paths/globe-taiwan-coast-ship.json (20 m above the sea off the Qingshui cliffs):
//! it converges past the heap's depth with metre-scale edges on the land near the camera, and the
//! pool read back validates and is watertight; a tiny pool caps without holes.

mod common;
#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use std::collections::HashMap;

use bisector::globe::cache::tile_cache::{TileCache, TileCacheConfig};
use bisector::globe::camera::GlobeCamera;
use bisector::globe::figures::{near_edges_pool, EdgeStats};
use bisector::globe::ground::Ground;
use bisector::globe::pool_scene::{requirements, GlobePoolRenderer};
use bisector::globe::renderer::{GlobeSettings, SPACE_COLOR};
use bisector::gpu::Gpu;
use bisector::leb::lod::Criterion;
use bisector::leb::node64::{octahedron_point_fixed, twice_area_fixed, MAP_ONE_64};
use bisector::leb::octahedral::{lon_lat_deg, to_unit_sphere};
use bisector::pool::{PoolSettings, PoolState};
use bisector::schedule::headless::HeadlessView;
use bisector::schedule::LebScene;

/// `near_edge_m.median` of the heap (max depth 28) on this view at 480x270 on lavapipe.
const HEAP_NEAR_EDGE_MEDIAN_M: f64 = 780.0;

use common::{bridge_camera, taiwan_ground as taiwan};

/// What a converged pool view gave.
struct PoolView {
    image: image::RgbaImage,
    state: PoolState,
    validation_errors: Vec<String>,
    max_depth_below_base: u32,
    capped_leaves: u32,
    frames: u32,
}

/// Renders the bridge view from a pool of `pool_slots` at `size_px` until it converges.
fn render_pool(ground: &Ground, pool_slots: u32, size_px: (u32, u32), tiles: u32) -> PoolView {
    render_pool_with(ground, pool_slots, size_px, tiles, GlobeSettings::default())
}

/// `render_pool` under `settings`.
fn render_pool_with(ground: &Ground, pool_slots: u32, (width_px, height_px): (u32, u32), tiles: u32, settings: GlobeSettings) -> PoolView {
    let start = std::time::Instant::now();
    let pool_settings = PoolSettings { pool_slots, ..Default::default() };
    let gpu = Gpu::headless(&requirements(&pool_settings, tiles).with_image_size((width_px, height_px)))
        .unwrap_or_else(|e| panic!("{e}\n(the README's test command installs the software Vulkan driver lavapipe)"));
    let cache = TileCache::new(&gpu, TileCacheConfig { tiles, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
    let scene =
        GlobePoolRenderer::new(&gpu, settings, pool_settings, bisector::gpu::target::COLOR_FORMAT, cache).unwrap_or_else(|e| panic!("{e}"));
    let mut view = HeadlessView::new(&gpu, scene, width_px, height_px);
    let camera = bridge_camera();
    let (frames, last) = view.converge(&gpu, &camera, 600);
    assert!(view.scene.is_settled(), "the tile cache did not settle in {frames} frames: {:?}", view.scene.cache.stats());
    let twin = view.scene.pool.read_twin(&gpu);
    let validation_errors = twin.validate().into_iter().map(|e| format!("{e:?}")).collect();
    let state = view.scene.pool.read_state(&gpu);
    eprintln!(
        "pool of {pool_slots} slots at {width_px}x{height_px}: {frames} frames, {} leaves, max depth {}, {} capped, {:.1} s",
        last.stats.leaves,
        last.stats.max_depth,
        last.lod.capped_leaves,
        start.elapsed().as_secs_f64()
    );
    PoolView {
        image: view.image(&gpu),
        state,
        validation_errors,
        max_depth_below_base: last.stats.max_depth - 3,
        capped_leaves: last.lod.capped_leaves,
        frames,
    }
}

/// Every edge of the leaves is shared by exactly two leaves, and the leaves tile the map.
fn assert_watertight(state: &PoolState) {
    let mut edges: HashMap<[[i64; 3]; 2], u32> = HashMap::new();
    let mut area = 0i128;
    for &slot in &state.list {
        let v = state.vertices[slot as usize];
        area += twice_area_fixed(v).abs();
        let p = v.map(octahedron_point_fixed);
        for (a, b) in [(p[0], p[1]), (p[1], p[2]), (p[2], p[0])] {
            *edges.entry(if a < b { [a, b] } else { [b, a] }).or_default() += 1;
        }
    }
    assert_eq!(area, 2 * (MAP_ONE_64 as i128) * (MAP_ONE_64 as i128), "the leaves do not tile the map");
    let bad: Vec<_> = edges.iter().filter(|(_, &n)| n != 2).take(3).collect();
    assert!(bad.is_empty(), "edges not shared by exactly two leaves: {bad:?}");
}

/// Whether pixel `p` is the clear colour (space, or the sky of a low view).
fn is_space(p: &image::Rgba<u8>) -> bool {
    let space = [SPACE_COLOR.r, SPACE_COLOR.g, SPACE_COLOR.b]
        .map(|c| (255.0 * if c <= 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 }).round() as i32);
    (0..3).all(|i| (p[i] as i32 - space[i]).abs() <= 1)
}

fn near_edge_m(ground: &Ground, state: &PoolState) -> Option<EdgeStats> {
    let leaves: Vec<[[u64; 2]; 3]> = state.list.iter().map(|&slot| state.vertices[slot as usize]).collect();
    near_edges_pool(&leaves, &bridge_camera(), |lon, lat| ground.height_m(lon, lat).ok().flatten().map(f64::from))
}

/// A 2^20-slot pool on the bridge view at 480x270: deeper than the heap can go (29 levels below
/// the base), edges on the land within 3 km far shorter than the heap's, sea below and cliffs
/// above it; the pool read back validates and is watertight.
#[test]
fn the_pool_refines_the_bridge_view_past_the_heap() {
    let ground = taiwan();
    let view = render_pool(&ground, 1 << 20, (480, 270), 512);
    assert!(
        view.validation_errors.is_empty(),
        "the pool does not validate: {:?}",
        &view.validation_errors[..3.min(view.validation_errors.len())]
    );
    assert_watertight(&view.state);
    assert!(view.max_depth_below_base > 29, "max depth {} levels below the base", view.max_depth_below_base);
    let near = near_edge_m(&ground, &view.state).expect("land within 3 km");
    eprintln!("near_edge_m {near:?} after {} frames", view.frames);
    assert!(near.median < HEAP_NEAR_EDGE_MEDIAN_M / 10.0, "near_edge_m.median {} m", near.median);
    let (w, h) = view.image.dimensions();
    let blue = |p: &image::Rgba<u8>| p[2] as i32 > p[0] as i32 + 30;
    let bottom = (0..w).filter(|&x| blue(view.image.get_pixel(x, h - 4))).count();
    assert!(bottom > w as usize * 9 / 10, "the bottom row is not sea: {bottom} of {w} blue pixels");
    let middle = (0..w).filter(|&x| !blue(view.image.get_pixel(x, h / 2 - 30)) && !is_space(view.image.get_pixel(x, h / 2 - 30))).count();
    assert!(middle > w as usize / 2, "no cliffs above the sea: {middle} of {w} pixels of land");
    golden::assert_golden("taiwan_bridge_pool", &view.image, 0.01);
}

/// A 2^12-slot pool on the same view wants more slots than it has: leaves are capped, the pool
/// stays valid and watertight, and no pixel below the horizon shows space (drawn without the
/// atmosphere, so that a hole shows space's colour).
#[test]
fn a_tiny_pool_caps_without_holes() {
    let ground = taiwan();
    let view = render_pool_with(&ground, 1 << 12, (240, 135), 256, GlobeSettings { atmosphere: false, ..Default::default() });
    assert!(
        view.validation_errors.is_empty(),
        "the pool does not validate: {:?}",
        &view.validation_errors[..3.min(view.validation_errors.len())]
    );
    assert_watertight(&view.state);
    assert!(view.state.list.len() <= 1 << 12);
    assert!(view.capped_leaves > 0, "nothing capped in a pool of 4096 slots");
    let (w, h) = view.image.dimensions();
    let holes = (h / 2 + 10..h).flat_map(|y| (0..w).map(move |x| (x, y))).filter(|&(x, y)| is_space(view.image.get_pixel(x, y))).count();
    if let Ok(path) = std::env::var("BISECTOR_TINY_POOL_IMAGE") {
        view.image.save(path).expect("image written");
    }
    assert_eq!(holes, 0, "{holes} pixels of space below the horizon");
}

/// The pixel target is live: raising it from 12 to 48 px on a converged view merges leaves back
/// (fewer than half remain), and the pool still validates and stays watertight.
#[test]
fn a_raised_pixel_target_merges_leaves_back() {
    let ground = taiwan();
    let pool_settings = PoolSettings { pool_slots: 1 << 16, ..Default::default() };
    let gpu = Gpu::headless(&requirements(&pool_settings, 256).with_image_size((160, 90))).unwrap_or_else(|e| panic!("{e}"));
    let cache =
        TileCache::new(&gpu, TileCacheConfig { tiles: 256, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
    let scene = GlobePoolRenderer::new(&gpu, GlobeSettings::default(), pool_settings, bisector::gpu::target::COLOR_FORMAT, cache)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut view = HeadlessView::new(&gpu, scene, 160, 90);
    let camera = bridge_camera();
    let (_, fine) = view.converge(&gpu, &camera, 600);
    view.scene.settings.pixel_target_px = 48.0;
    let (_, coarse) = view.converge(&gpu, &camera, 600);
    assert!(coarse.stats.leaves < fine.stats.leaves / 2, "{} leaves at 12 px, {} at 48 px", fine.stats.leaves, coarse.stats.leaves);
    let twin = view.scene.pool.read_twin(&gpu);
    assert!(twin.validate().is_empty(), "the pool does not validate");
    assert_watertight(&view.scene.pool.read_state(&gpu));
}

/// Leaves of `state` whose three vertices lie at sea level (no ground above 0 m), and the others.
fn sea_and_land_leaves(ground: &Ground, state: &PoolState) -> (usize, usize) {
    let one = MAP_ONE_64 as f64;
    let mut sea = 0;
    for &slot in &state.list {
        let at_sea = state.vertices[slot as usize].iter().all(|p| {
            let n = to_unit_sphere(glam::DVec2::new(p[0] as f64 / one, p[1] as f64 / one));
            let (lon, lat) = lon_lat_deg(n);
            ground.height_m(lon, lat).ok().flatten().is_none_or(|h| h <= 0.0)
        });
        sea += at_sea as usize;
    }
    (sea, state.list.len() - sea)
}

/// Under the data's screen-space error (--lod error) the flat sea stays coarse while the cliffs
/// refine past the heap's depth: a tenth of the sea leaves that the edge criterion makes, land
/// leaves below depth 29, and the pool valid and watertight.
#[test]
fn the_data_error_keeps_the_sea_coarse_and_refines_the_cliffs() {
    let ground = taiwan();
    let edge = render_pool_with(&ground, 1 << 16, (240, 135), 256, GlobeSettings::default());
    let settings = GlobeSettings { criterion: Criterion::ScreenSpaceError, pixel_error_px: 2.0, ..Default::default() };
    let error = render_pool_with(&ground, 1 << 16, (240, 135), 256, settings);
    assert!(error.validation_errors.is_empty(), "the pool does not validate: {:?}", &error.validation_errors[..1]);
    assert_watertight(&error.state);
    let (edge_sea, edge_land) = sea_and_land_leaves(&ground, &edge.state);
    let (error_sea, error_land) = sea_and_land_leaves(&ground, &error.state);
    eprintln!("edge: {edge_sea} sea and {edge_land} land leaves; error: {error_sea} sea and {error_land} land leaves");
    assert!(error_sea * 10 < edge_sea, "sea leaves: {error_sea} under error, {edge_sea} under edge");
    assert!(error_land > 1000, "{error_land} land leaves under error");
    assert!(error.max_depth_below_base > 29, "max depth {} levels below the base", error.max_depth_below_base);
    assert_eq!(error.capped_leaves, 0, "the pool of 65536 slots is enough at 2 px");
}

/// The pool's criterion on the last decode's vertices (moved by the camera's motion) agrees with
/// placing them from the tile cache again: a pool converged with one keeps every leaf under the
/// other at the same camera (no split wanted, no diamond merged), both ways round. A wrong list
/// index, drawing-order permutation or error bound in shared/pool_criterion_globe.wgsl would split
/// or merge leaves here. The motion itself: `camera_moved_m` below.
#[test]
fn the_criterion_on_the_decoded_vertices_agrees_with_placing_them_again() {
    let ground = taiwan();
    let pool_settings = PoolSettings { pool_slots: 1 << 16, ..Default::default() };
    let (width_px, height_px, tiles) = (240, 135, 512);
    let gpu = Gpu::headless(&requirements(&pool_settings, tiles).with_image_size((width_px, height_px)))
        .unwrap_or_else(|e| panic!("{e}\n(the README's test command installs the software Vulkan driver lavapipe)"));
    let camera = bridge_camera();
    for reuse_first in [false, true] {
        let cache =
            TileCache::new(&gpu, TileCacheConfig { tiles, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
        // The data's error criterion (the command line's default): the decoded error bound counts.
        let settings = GlobeSettings { criterion: Criterion::ScreenSpaceError, pixel_error_px: 1.0, ..Default::default() };
        let mut scene = GlobePoolRenderer::new(&gpu, settings, pool_settings, bisector::gpu::target::COLOR_FORMAT, cache)
            .unwrap_or_else(|e| panic!("{e}"));
        scene.reuse_decoded_vertices = reuse_first;
        let mut view = HeadlessView::new(&gpu, scene, width_px, height_px);
        let (frames, last) = view.converge(&gpu, &camera, 600);
        assert!(view.scene.is_settled() && frames < 600, "no convergence in {frames} frames");
        let before = view.scene.pool.read_state(&gpu);
        view.scene.reuse_decoded_vertices = !reuse_first;
        for _ in 0..2 {
            view.frame(&gpu, &camera);
            let counters = view.scene.read_pool_counters(&gpu);
            assert_eq!(
                (counters.wanted_split, counters.diamonds_merged),
                (0, 0),
                "reuse {} after converging with reuse {reuse_first}: {counters:?}",
                !reuse_first
            );
        }
        let after = view.scene.pool.read_state(&gpu);
        let ids = |s: &PoolState| {
            let mut ids: Vec<u64> = s.list.iter().map(|&slot| s.ids[slot as usize]).collect();
            ids.sort_unstable();
            ids
        };
        assert_eq!(ids(&before), ids(&after));
        eprintln!("converged with reuse {reuse_first} in {frames} frames: {} leaves, kept under the other", last.stats.leaves);
    }
}

#[test]
fn camera_moved_m_is_the_motion_up_to_a_kilometre_or_a_quarter_of_the_altitude() {
    use bisector::globe::pool_scene::{camera_moved_m, MAX_REUSED_MOTION_M, REUSED_MOTION_ALTITUDE_SHARE};
    use glam::DVec3;
    // 64 km under the ellipsoid: a kilometre.
    let decoded = DVec3::new(-3.0e6, 4.9e6, 2.6e6);
    assert_eq!(camera_moved_m(decoded + DVec3::new(1.5, -0.25, 2.0), Some(decoded)), [1.5, -0.25, 2.0, 1.0]);
    assert_eq!(camera_moved_m(decoded + DVec3::new(MAX_REUSED_MOTION_M + 1.0, 0.0, 0.0), Some(decoded)), [0.0; 4]);
    assert_eq!(camera_moved_m(decoded, None), [0.0; 4]);
    // 1,000 km over 24N 121E, moving down 40 km (the descent's pace from orbit): reused, up to a quarter
    // of the altitude.
    let high = GlobeCamera::at_lon_lat(121.0, 24.0, 1.0e6, 0.0, -90.0, 45.0);
    let altitude_m = high.altitude_m();
    assert!((altitude_m - 1.0e6).abs() < 1e-3, "{altitude_m}");
    let down = -high.up();
    let moved = camera_moved_m(high.position_m + 4.0e4 * down, Some(high.position_m));
    assert_eq!(moved[3], 1.0);
    assert!((DVec3::new(moved[0].into(), moved[1].into(), moved[2].into()) - 4.0e4 * down).length() < 1e-2, "{moved:?}");
    let limit_m = REUSED_MOTION_ALTITUDE_SHARE * altitude_m;
    let start = high.position_m - (limit_m - 1.0) * down;
    assert_eq!(camera_moved_m(high.position_m, Some(start))[3], 1.0);
    assert_eq!(camera_moved_m(high.position_m, Some(start - 2.0 * down)), [0.0; 4]);
}
