//! `bisector view`: the interactive viewer.

use bisector::globe::ground::Ground;
use bisector::globe::spec::GlobeSpec;
use bisector::terrain::TerrainSpec;
use bisector::viewer::SceneOptions;

use crate::args::RenderArgs;
use crate::checks::{check_files, check_render_args, render_inputs, MAX_FRAMES};
use crate::scene::{globe_cache_config, globe_pool_settings, globe_settings, load_terrain, pool_settings, settings, with_sun};

pub(crate) fn view(render: &RenderArgs, frames: Option<u32>, screenshot: Option<&std::path::Path>, no_vsync: bool) -> anyhow::Result<()> {
    check_files(&render_inputs(render, None), &[("--screenshot", screenshot)])?;
    check_render_args(render)?;
    if let Some(frames) = frames.filter(|f| !(1..=MAX_FRAMES).contains(f)) {
        anyhow::bail!("--frames {frames}: must be 1..={MAX_FRAMES}");
    }
    let scene = match GlobeSpec::parse(&render.terrain) {
        Some(spec) => {
            let spec = spec?;
            let pool = pool_settings(render)?;
            let settings = if pool.is_some() { globe_pool_settings(render)? } else { globe_settings(render)? };
            let settings = with_sun(settings, render, bisector::globe::camera::GlobeCamera::default_orbit().up())?;
            SceneOptions::Globe { settings, pool, ground: Ground::open(&spec)?, cache: globe_cache_config(render.cache_tiles) }
        }
        None => {
            let settings = settings(render)?;
            let spec = TerrainSpec::parse(&render.terrain)?;
            SceneOptions::Heightfield { field: load_terrain(&spec, render)?, settings }
        }
    };
    Ok(bisector::viewer::run(bisector::viewer::ViewerOptions {
        scene,
        frames,
        screenshot: screenshot.map(|p| p.to_path_buf()),
        vsync: !no_vsync,
    })?)
}
