//! `bisector quality`: the level of detail measured against the full-resolution data.

use bisector::cli::{parse_camera, parse_size};
use bisector::flat::camera::Camera;
use bisector::gpu::Gpu;
use bisector::terrain::TerrainSpec;

use crate::args::RenderArgs;
use crate::checks::{check_files, check_render_args, render_inputs, write_json};
use crate::scene::{load_terrain, settings};

pub(crate) fn quality(render: &RenderArgs, camera: Option<&str>, size: &str, json: Option<&std::path::Path>) -> anyhow::Result<()> {
    check_files(&render_inputs(render, camera), &[("--json", json)])?;
    check_render_args(render)?;
    let settings = settings(render)?;
    let size_px = parse_size(size)?;
    let spec = TerrainSpec::parse(&render.terrain)?;
    let camera = camera.map(parse_camera).transpose()?;
    let field = load_terrain(&spec, render)?;
    let gpu = Gpu::headless(&bisector::flat::requirements(&settings, field.samples_per_side).with_image_size(size_px))?;
    let camera = camera.unwrap_or_else(|| Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64));
    if let Some(warning) = camera.below_ground_warning(&field) {
        eprintln!("{warning}");
    }
    let bounds = bisector::terrain::node_bounds::build(&field, bisector::flat::bounds_depth_for(&gpu.device.limits()));
    let comparison = bisector::bench::quality::compare(&gpu, &field, &bounds, &settings, &camera, size_px);
    say!("{}", comparison.summary());
    write_json(json, &comparison)?;
    Ok(())
}
