//! `bisector view`: the interactive viewer.

use bisector::cli::parse_camera;
use bisector::globe::camera::GlobeCamera;
use bisector::globe::ground::Ground;
use bisector::globe::spec::GlobeSpec;
use bisector::terrain::TerrainSpec;
use bisector::viewer::SceneOptions;

use crate::args::RenderArgs;
use crate::checks::{check_files, check_render_args, render_inputs, MAX_FRAMES};
use crate::scene::{
    globe_cache_config, globe_camera, globe_pool_settings, globe_settings, load_terrain, pool_settings, settings, with_sun,
};

pub(crate) fn view(
    render: &RenderArgs,
    camera: Option<&str>,
    frames: Option<u32>,
    screenshot: Option<&std::path::Path>,
    no_vsync: bool,
) -> anyhow::Result<()> {
    check_files(&render_inputs(render, camera), &[("--screenshot", screenshot)])?;
    check_render_args(render)?;
    if let Some(frames) = frames.filter(|f| !(1..=MAX_FRAMES).contains(f)) {
        anyhow::bail!("--frames {frames}: must be 1..={MAX_FRAMES}");
    }
    let scene = match GlobeSpec::parse(&render.terrain) {
        Some(spec) => {
            let spec = spec?;
            let pool = pool_settings(render)?;
            let settings = if pool.is_some() { globe_pool_settings(render)? } else { globe_settings(render)? };
            let ground = Ground::open(&spec)?;
            let camera = globe_camera(camera, &ground)?;
            let up = camera.as_ref().map_or_else(|| GlobeCamera::default_orbit().up(), GlobeCamera::up);
            let settings = with_sun(settings, render, up)?;
            SceneOptions::Globe { settings, pool, ground, cache: globe_cache_config(render.cache_tiles), camera }
        }
        None => {
            let settings = settings(render)?;
            let spec = TerrainSpec::parse(&render.terrain)?;
            let camera = camera.map(parse_camera).transpose()?;
            let field = load_terrain(&spec, render)?;
            if let Some(warning) = camera.as_ref().and_then(|c| c.below_ground_warning(&field)) {
                eprintln!("{warning}");
            }
            SceneOptions::Heightfield { field, settings, camera }
        }
    };
    Ok(bisector::viewer::run(bisector::viewer::ViewerOptions {
        scene,
        frames,
        screenshot: screenshot.map(|p| p.to_path_buf()),
        vsync: !no_vsync,
    })?)
}
