//! `bisector shot`: one headless frame after the level of detail has converged, as a PNG.

use bisector::cli::{parse_camera, parse_size, write_png};
use bisector::flat::camera::Camera;
use bisector::flat::render_shot;
use bisector::globe::camera::GlobeCamera;
use bisector::globe::figures::{near_edges, near_edges_pool, ViewFigures};
use bisector::globe::ground::Ground;
use bisector::globe::pool_scene::GlobePoolRenderer;
use bisector::globe::renderer::{GlobeRenderer, GlobeSettings};
use bisector::globe::spec::GlobeSpec;
use bisector::gpu::Gpu;
use bisector::leb::base_mesh::BaseMesh;
use bisector::leb::cpu::UpdateKind;
use bisector::pool::PoolSettings;
use bisector::schedule::headless::{convergence_frame_limit, HeadlessView, Shot};
use bisector::schedule::LebScene;
use bisector::terrain::TerrainSpec;

use crate::args::RenderArgs;
use crate::checks::{check_files, check_render_args, render_inputs, write_json};
use crate::scene::{globe_cache, globe_camera, globe_pool_settings, globe_settings, load_terrain, pool_settings, settings, with_sun};

pub(crate) fn shot(
    render: &RenderArgs,
    camera: Option<&str>,
    size: &str,
    out: &std::path::Path,
    json: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    check_files(&render_inputs(render, camera), &[("--out", Some(out)), ("--json", json)])?;
    check_render_args(render)?;
    if let Some(spec) = GlobeSpec::parse(&render.terrain) {
        return globe_shot(render, &spec?, camera, size, out, json);
    }
    let settings = settings(render)?;
    let (width, height) = parse_size(size)?;
    let spec = TerrainSpec::parse(&render.terrain)?;
    let camera = camera.map(parse_camera).transpose()?;
    let field = load_terrain(&spec, render)?;
    let gpu = Gpu::headless(&bisector::flat::requirements(&settings, field.samples_per_side).with_image_size((width, height)))?;
    let camera = camera.unwrap_or_else(|| Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64));
    if let Some(warning) = camera.below_ground_warning(&field) {
        eprintln!("{warning}");
    }
    let Shot { image, frames, last } = render_shot(&gpu, &field, settings, &camera, (width, height));
    write_png(&image, out)?;
    let figures = ViewFigures {
        leaves: last.stats.leaves,
        max_depth_reached: last.stats.max_depth.saturating_sub(bisector::leb::cpu::BASE_DEPTH),
        pool_slots: None,
        pool_used: None,
        capped_leaves: last.lod.capped_leaves,
        near_edge_m: None,
    };
    write_json(json, &figures)?;
    say!(
        "{}: {width}x{height}, {} leaves, max depth {} after {frames} frames on {}{}",
        out.display(),
        last.stats.leaves,
        last.stats.max_depth,
        gpu.describe(),
        if last.stats.overflow == 1 { " (leaf buffer full: some leaves not drawn)" } else { "" }
    );
    Ok(())
}

/// Frames `shot` allows the globe's tile cache to settle in, beyond the tree's convergence.
const GLOBE_LOADING_FRAMES: u32 = 3000;

fn globe_shot(
    render: &RenderArgs,
    spec: &GlobeSpec,
    camera: Option<&str>,
    size: &str,
    out: &std::path::Path,
    json: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let pool = pool_settings(render)?;
    let settings = if pool.is_some() { globe_pool_settings(render)? } else { globe_settings(render)? };
    let (width, height) = parse_size(size)?;
    // Real data is opened here, so bad files fail before any GPU work; its tiles then load on
    // background threads.
    let ground = Ground::open(spec)?;
    let camera = globe_camera(camera, &ground)?.unwrap_or_else(GlobeCamera::default_orbit);
    let settings = with_sun(settings, render, camera.up())?;
    if let Some(pool) = pool {
        return globe_pool_shot(render, settings, pool, &ground, &camera, (width, height), out, json);
    }
    let producer = ground.producer();
    let gpu = Gpu::headless(&bisector::globe::renderer::requirements(&settings, render.cache_tiles).with_image_size((width, height)))?;
    let max_depth = settings.max_depth;
    let cache = globe_cache(&gpu, producer, render.cache_tiles)?;
    let renderer = GlobeRenderer::new(&gpu, settings, bisector::gpu::target::COLOR_FORMAT, cache);
    let mut view = HeadlessView::new(&gpu, renderer, width, height);
    // Frames for the tree to converge, and then for the tile cache to load what the view needs.
    let Shot { image, frames, last } = view.shot(&gpu, &camera, convergence_frame_limit(max_depth) + GLOBE_LOADING_FRAMES);
    write_png(&image, out)?;
    if json.is_some() {
        let leaf_ids = view.scene.read_leaf_ids(&gpu);
        let sub_levels = view.scene.settings.sub_levels;
        let near_edge_m = near_edges(&leaf_ids, &camera, sub_levels, |lon, lat| ground.height_m(lon, lat).ok().flatten().map(f64::from));
        let figures = ViewFigures {
            leaves: last.stats.leaves,
            max_depth_reached: last.stats.max_depth.saturating_sub(BaseMesh::octahedron().depth),
            pool_slots: None,
            pool_used: None,
            capped_leaves: last.lod.capped_leaves,
            near_edge_m,
        };
        write_json(json, &figures)?;
    }
    let c = &view.scene.cache.stats();
    say!(
        "{}: {width}x{height}, camera {:.1} m above the ellipsoid, {} leaves, max depth {} after {frames} frames, {} of {} cache tiles resident ({} missed{}) on {}",
        out.display(),
        camera.altitude_m(),
        last.stats.leaves,
        last.stats.max_depth,
        c.resident_tiles,
        c.capacity_tiles,
        c.misses,
        if view.scene.cache.is_settled() { "" } else { ", not settled: tiles still missing" },
        gpu.describe()
    );
    Ok(())
}

/// `shot` of the globe drawn from the bisector pool (`--pool-slots`): converged, then one more
/// split frame if the last was a merge frame, so that the pool's counters say which leaves were
/// capped (by depth or by the pool); `--json` adds the pool's figures.
#[allow(clippy::too_many_arguments)]
fn globe_pool_shot(
    render: &RenderArgs,
    settings: GlobeSettings,
    pool: PoolSettings,
    ground: &Ground,
    camera: &GlobeCamera,
    (width, height): (u32, u32),
    out: &std::path::Path,
    json: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let gpu = Gpu::headless(
        &bisector::globe::pool_scene::requirements_for(&pool, render.cache_tiles, settings.raster).with_image_size((width, height)),
    )?;
    let cache = globe_cache(&gpu, ground.producer(), render.cache_tiles)?;
    let renderer = GlobePoolRenderer::new(&gpu, settings, pool, bisector::gpu::target::COLOR_FORMAT, cache)?;
    let mut view = HeadlessView::new(&gpu, renderer, width, height);
    let (mut frames, mut last) = view.converge(&gpu, camera, convergence_frame_limit(pool.max_depth) + GLOBE_LOADING_FRAMES);
    if view.scene.tree.update_kind() == Some(UpdateKind::Split) {
        last = view.frame(&gpu, camera);
        frames += 1;
    }
    let counters = view.scene.read_pool_counters(&gpu);
    write_png(&view.image(&gpu), out)?;
    if json.is_some() {
        let state = view.scene.pool.read_state(&gpu);
        let leaves: Vec<[[u64; 2]; 3]> = state.list.iter().map(|&slot| state.vertices[slot as usize]).collect();
        let near_edge_m = near_edges_pool(&leaves, camera, |lon, lat| ground.height_m(lon, lat).ok().flatten().map(f64::from));
        let figures = ViewFigures {
            leaves: last.stats.leaves,
            max_depth_reached: last.stats.max_depth.saturating_sub(BaseMesh::octahedron().depth),
            pool_slots: Some(pool.pool_slots),
            pool_used: Some(state.list.len() as u32),
            capped_leaves: counters.capped_leaves(),
            near_edge_m,
        };
        write_json(json, &figures)?;
    }
    let c = &view.scene.cache.stats();
    say!(
        "{}: {width}x{height}, camera {:.1} m above the ellipsoid, bisector pool of {} slots: {} leaves, max depth {}, {} capped ({} by depth, {} by the pool) after {frames} frames, {} of {} cache tiles resident ({} missed{}) on {}",
        out.display(),
        camera.altitude_m(),
        pool.pool_slots,
        last.stats.leaves,
        last.stats.max_depth,
        counters.capped_leaves(),
        counters.capped_by_depth,
        counters.capped_by_pool,
        c.resident_tiles,
        c.capacity_tiles,
        c.misses,
        if view.scene.cache.is_settled() { "" } else { ", not settled: tiles still missing" },
        gpu.describe()
    );
    Ok(())
}
