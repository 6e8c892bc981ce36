//! `bisector bench`: fly a camera path headless, flat terrain or globe.

use bisector::bench::globe_path::GlobePath;
use bisector::bench::path::CameraPath;
use bisector::bench::run::{run_bench, BenchOptions};
use bisector::cli::{write_atomic, write_bytes_atomic};
use bisector::flat::Renderer;
use bisector::globe::ground::Ground;
use bisector::globe::pool_scene::GlobePoolRenderer;
use bisector::globe::renderer::GlobeRenderer;
use bisector::globe::spec::GlobeSpec;
use bisector::gpu::Gpu;
use bisector::schedule::headless::HeadlessView;
use bisector::terrain::TerrainSpec;

use crate::args::RenderArgs;
use crate::checks::{check_files, check_render_args, render_inputs, FPS_RANGE, MAX_FRAMES, MAX_WARMUP_FRAMES};
use crate::scene::{globe_cache, globe_pool_settings, globe_settings, load_terrain, pool_settings, settings, with_sun};

/// The chart's font, shipped in the binary.
const PLOT_FONT_TTF: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

pub(crate) fn bench(
    render: &RenderArgs,
    path: &std::path::Path,
    options: BenchOptions,
    json: &std::path::Path,
    plot: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let mut inputs = render_inputs(render, None);
    inputs.push(("--path", path.to_path_buf()));
    check_files(&inputs, &[("--json", Some(json)), ("--plot", plot)])?;
    if !(1..=MAX_FRAMES).contains(&options.frames) {
        anyhow::bail!("--frames {}: must be 1..={MAX_FRAMES}", options.frames);
    }
    if options.warmup_frames > MAX_WARMUP_FRAMES {
        anyhow::bail!("--warmup {}: must be 0..={MAX_WARMUP_FRAMES}", options.warmup_frames);
    }
    if !(options.pace_fps == 0.0 || FPS_RANGE.contains(&options.pace_fps)) {
        anyhow::bail!(
            "--fps {}: must be 0 (as fast as the GPU goes) or {} to {} frames per second",
            options.pace_fps,
            FPS_RANGE.start(),
            FPS_RANGE.end()
        );
    }
    check_render_args(render)?;
    let globe = GlobeSpec::parse(&render.terrain).transpose()?;
    let report = match globe {
        Some(spec) => globe_bench(render, &spec, path, &options)?,
        None => {
            let settings = settings(render)?;
            let spec = TerrainSpec::parse(&render.terrain)?;
            let camera_path = CameraPath::load(path)?;
            let field = load_terrain(&spec, render)?;
            let gpu = Gpu::headless(
                &bisector::flat::requirements(&settings, field.samples_per_side).with_image_size(options.size_px).with_timestamps(),
            )?;
            let renderer = Renderer::new(&gpu, &field, settings, bisector::gpu::target::COLOR_FORMAT);
            run_bench(&gpu, &mut HeadlessView::new(&gpu, renderer, options.size_px.0, options.size_px.1), &camera_path, &options)
        }
    };
    say!("{}", report.summary_table());
    write_bytes_atomic(json, report.to_json().as_bytes())?;
    if let Some(plot) = plot {
        // The chart is drawn to a temporary file beside the plot, then renamed over it.
        write_atomic(plot, |_, temp| report.write_plot_png(temp, PLOT_FONT_TTF).map_err(std::io::Error::other))?;
    }
    Ok(())
}

/// `bench --terrain planet...`: the globe along a lon/lat camera path.
fn globe_bench(
    render: &RenderArgs,
    spec: &GlobeSpec,
    path: &std::path::Path,
    options: &BenchOptions,
) -> anyhow::Result<bisector::bench::report::BenchReport> {
    let pool = pool_settings(render)?;
    let settings = if pool.is_some() { globe_pool_settings(render)? } else { globe_settings(render)? };
    let camera_path = GlobePath::load(path)?;
    let settings = with_sun(settings, render, camera_path.sample(0.0).camera().up())?;
    let ground = Ground::open(spec)?;
    // Every frame's pose, before any GPU work.
    for frame in 0..options.frames {
        let time_s = bisector::bench::run::frame_time_s(camera_path.duration_s(), frame, options.frames);
        if let Some(problem) = ground.below_surface(&camera_path.sample(time_s).camera())? {
            anyhow::bail!("{}: at {time_s:.2} s (frame {frame}), {problem}", path.display());
        }
    }
    let producer = ground.producer();
    if let Some(pool) = pool {
        let requirements = bisector::globe::pool_scene::requirements_for(&pool, render.cache_tiles, settings.raster);
        let gpu = Gpu::headless(&requirements.with_image_size(options.size_px).with_timestamps())?;
        let cache = globe_cache(&gpu, producer, render.cache_tiles)?;
        let renderer = GlobePoolRenderer::new(&gpu, settings, pool, bisector::gpu::target::COLOR_FORMAT, cache)?;
        let mut view = HeadlessView::new(&gpu, renderer, options.size_px.0, options.size_px.1);
        return Ok(bisector::bench::run::run_globe_pool_bench(&gpu, &mut view, &camera_path, options));
    }
    let gpu = Gpu::headless(
        &bisector::globe::renderer::requirements(&settings, render.cache_tiles).with_image_size(options.size_px).with_timestamps(),
    )?;
    let cache = globe_cache(&gpu, producer, render.cache_tiles)?;
    let renderer = GlobeRenderer::new(&gpu, settings, bisector::gpu::target::COLOR_FORMAT, cache);
    let mut view = HeadlessView::new(&gpu, renderer, options.size_px.0, options.size_px.1);
    Ok(bisector::bench::run::run_globe_bench(&gpu, &mut view, &camera_path, options))
}
