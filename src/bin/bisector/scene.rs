//! What a rendering command draws: settings from the flags, the terrain, the globe's tile cache.

use anyhow::Context;

use bisector::flat::RenderSettings;
use bisector::globe::cache::tile_cache::{Producer, TileCache, TileCacheConfig};
use bisector::globe::camera::GlobeCamera;
use bisector::globe::ground::Ground;
use bisector::globe::renderer::GlobeSettings;
use bisector::gpu::Gpu;
use bisector::leb::base_mesh::BaseMesh;
use bisector::leb::lod::Criterion;
use bisector::leb::node64::MAX_DEPTH_64;
use bisector::pool::gpu::PoolError;
use bisector::pool::PoolSettings;
use bisector::terrain::TerrainSpec;

use crate::args::{LodArg, OnOff, RenderArgs};
use crate::checks::check_render_args;

/// The height of the surface drawn at (lon, lat): the ground, or sea level over the sea (as the
/// globe draws the water's surface); an error names the point where no layer has data.
fn ground_height_m(ground: &Ground, lon_deg: f64, lat_deg: f64) -> anyhow::Result<f64> {
    ground
        .height_m(lon_deg, lat_deg)?
        .map(|h| f64::from(h.max(0.0)))
        .with_context(|| format!("no ground height at {lon_deg},{lat_deg}: no layer of the globe has data there"))
}

/// The globe camera of `--camera` (`shot`, `view`), its heights above the ground resolved on
/// `ground`; an error where it is below the surface (the ground, or the sea).
pub(crate) fn globe_camera(camera: Option<&str>, ground: &Ground) -> anyhow::Result<Option<GlobeCamera>> {
    let Some(text) = camera else {
        return Ok(None);
    };
    let camera = bisector::cli::parse_globe_camera(text)?.resolve(|lon, lat| ground_height_m(ground, lon, lat))?;
    if let Some(problem) = ground.below_surface(&camera)? {
        anyhow::bail!("--camera: {problem}");
    }
    Ok(Some(camera))
}

/// The grid files are loaded into without --max-samples: smaller on a software adapter, whose
/// GPU memory is the process's own (`terrain::default_max_samples`).
fn default_max_samples() -> u32 {
    let instance = bisector::gpu::create_instance();
    match bisector::gpu::request_adapter(&instance, None) {
        Ok(adapter) => bisector::terrain::default_max_samples(adapter.get_info().device_type),
        // The GPU's own error comes when the renderer asks for it.
        Err(_) => bisector::terrain::DEFAULT_MAX_SAMPLES,
    }
}

/// Loads the terrain to draw, telling the user on stderr when it is coarser than its source.
pub(crate) fn load_terrain(spec: &TerrainSpec, args: &RenderArgs) -> anyhow::Result<bisector::terrain::HeightField> {
    check_render_args(args)?;
    let max_samples = match (args.max_samples, spec) {
        (Some(max_samples), _) => max_samples,
        // The built-in terrain has its own grid: no adapter to ask.
        (None, TerrainSpec::Procedural { .. }) => bisector::terrain::DEFAULT_MAX_SAMPLES,
        (None, _) => default_max_samples(),
    };
    let loaded = spec.load(max_samples)?;
    if let Some(note) = loaded.note {
        eprintln!("{note}");
    }
    Ok(loaded.field)
}

pub(crate) fn settings(args: &RenderArgs) -> anyhow::Result<RenderSettings> {
    let max_depth = args.max_depth.unwrap_or(RenderSettings::default().max_depth);
    bisector::cbt::gpu::check_max_depth(max_depth).context("--max-depth")?;
    if !(args.sea_time_s.is_finite() && args.sea_time_s.abs() <= 1e6) {
        anyhow::bail!("--sea-time-s {}: must be a number of seconds within one million of 0", args.sea_time_s);
    }
    for (flag, value) in [("--pixel-target", args.pixel_target), ("--pixel-error", args.pixel_error)] {
        if !(value.is_finite() && value > 0.0) {
            anyhow::bail!("{flag} {value}: must be a positive number of pixels");
        }
    }
    Ok(RenderSettings {
        max_depth,
        criterion: criterion(args.lod.unwrap_or(LodArg::Error)),
        pixel_error_px: args.pixel_error,
        pixel_target_px: args.pixel_target,
        morph: !args.no_morph,
        wireframe: args.wireframe,
        raster: args.raster.path(),
        raster_large_px: args.raster_large_px,
        ..Default::default()
    })
}

fn criterion(lod: LodArg) -> Criterion {
    match lod {
        LodArg::Error => Criterion::ScreenSpaceError,
        LodArg::Edge => Criterion::EdgeLength,
    }
}

/// The globe's settings from the render flags (--lod defaults to edge: the heap's; over the
/// bisector pool `globe_pool_settings` makes it error).
pub(crate) fn globe_settings(args: &RenderArgs) -> anyhow::Result<GlobeSettings> {
    let max_depth = args.max_depth.unwrap_or(GlobeSettings::default().max_depth);
    bisector::cbt::gpu::check_max_depth(max_depth).context("--max-depth")?;
    if max_depth <= BaseMesh::octahedron().depth {
        anyhow::bail!("--max-depth {max_depth}: the globe's base triangles are at depth 3, so it needs at least 4");
    }
    if !(args.sea_time_s.is_finite() && args.sea_time_s.abs() <= 1e6) {
        anyhow::bail!("--sea-time-s {}: must be a number of seconds within one million of 0", args.sea_time_s);
    }
    for (flag, value) in [("--pixel-target", args.pixel_target), ("--pixel-error", args.pixel_error)] {
        if !(value.is_finite() && value > 0.0) {
            anyhow::bail!("{flag} {value}: must be a positive number of pixels");
        }
    }
    Ok(GlobeSettings {
        max_depth,
        criterion: criterion(args.lod.unwrap_or(LodArg::Edge)),
        pixel_target_px: args.pixel_target,
        pixel_error_px: args.pixel_error,
        detail: args.detail == OnOff::On,
        atmosphere: args.atmosphere == OnOff::On,
        sea: bisector::globe::sea::SeaSettings { enabled: args.sea == OnOff::On, time_s: args.sea_time_s },
        wireframe: args.wireframe,
        occlusion: args.occlusion == OnOff::On,
        raster: args.raster.path(),
        raster_large_px: args.raster_large_px,
        ..Default::default()
    })
}

/// Slots of the globe's bisector pool without `--pool-slots` (2^20: 48 MiB of vertices).
pub(crate) const DEFAULT_POOL_SLOTS: u32 = 1 << 20;

/// The bisector pool's settings from `--pool-slots` (default `DEFAULT_POOL_SLOTS`; 0: None, the
/// globe draws from the heap) and `--max-depth` (the pool's, default `MAX_DEPTH_64`), checked;
/// the globe's settings then come from the other flags.
pub(crate) fn pool_settings(args: &RenderArgs) -> anyhow::Result<Option<PoolSettings>> {
    let pool_slots = match args.pool_slots {
        Some(0) => return Ok(None),
        Some(slots) => slots,
        None => DEFAULT_POOL_SLOTS,
    };
    let settings = PoolSettings { pool_slots, max_depth: args.max_depth.unwrap_or(MAX_DEPTH_64), ..Default::default() };
    settings.pool_depth().map_err(|e| match e {
        PoolError::Depth(depth) => anyhow::anyhow!("--max-depth {depth}: the bisector pool's ids hold depths 4..={MAX_DEPTH_64}"),
        other => anyhow::anyhow!("{other}"),
    })?;
    Ok(Some(settings))
}

/// The sun `--time` or `--sun` asks for (`--sun` at the place whose up direction is `place_up`),
/// over `settings`' default.
pub(crate) fn with_sun(mut settings: GlobeSettings, args: &RenderArgs, place_up: glam::DVec3) -> anyhow::Result<GlobeSettings> {
    use bisector::globe::sun;
    if let Some(time) = &args.time {
        let unix_s = sun::parse_time(time)?;
        settings.sun_direction = sun::sun_at_time(unix_s);
        settings.sun_time_unix_s = Some(unix_s);
    }
    if let Some(angles) = &args.sun {
        let (azimuth_deg, elevation_deg) = sun::parse_angles(angles)?;
        settings.sun_direction = sun::sun_from_angles(place_up, azimuth_deg, elevation_deg);
    }
    Ok(settings)
}

/// The globe's settings when it draws from the bisector pool: `globe_settings` without the
/// heap's max depth (--max-depth is the pool's), and --lod error by default.
pub(crate) fn globe_pool_settings(args: &RenderArgs) -> anyhow::Result<GlobeSettings> {
    globe_settings(&RenderArgs { max_depth: None, lod: Some(args.lod.unwrap_or(LodArg::Error)), ..args.clone() })
}

/// The sizes of a globe's tile cache holding `tiles` tiles (one loader thread per core).
pub(crate) fn globe_cache_config(tiles: u32) -> TileCacheConfig {
    let loader_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    TileCacheConfig { tiles, loader_threads, ..Default::default() }
}

/// The tile cache of a globe, holding `tiles` tiles of `producer`.
pub(crate) fn globe_cache(gpu: &Gpu, producer: Producer, tiles: u32) -> anyhow::Result<TileCache> {
    Ok(TileCache::new(gpu, globe_cache_config(tiles), producer)?)
}
