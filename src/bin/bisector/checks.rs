//! Checks of a command's numbers and files before any work, and its JSON output.

use std::path::PathBuf;

use bisector::cli::{check_output_path, check_outputs, write_bytes_atomic};
use bisector::globe::spec::GlobeSpec;
use bisector::terrain::{http_source, TerrainSpec};

use crate::args::RenderArgs;

/// Most timed repetitions a command runs (more would run for hours).
const MAX_ITERATIONS: u32 = bisector_kernels::MAX_ITERATIONS;
/// Most frames `bench` renders before measuring.
pub(crate) const MAX_WARMUP_FRAMES: u32 = 100_000;
/// Most frames `bench` measures or `view --frames` shows.
pub(crate) const MAX_FRAMES: u32 = 1_000_000;
/// Fastest pace `bench --fps` takes (slower than 1 frame per second would run for hours).
pub(crate) const FPS_RANGE: std::ops::RangeInclusive<f64> = 1.0..=1000.0;
/// Most layers of the globe's tile cache (--cache-tiles; each 67 KiB, and its error summary 44 KiB).
const MAX_CACHE_TILES: u32 = 1 << 16;
/// Largest pixel targets (--pixel-error, --pixel-target): past this nothing is ever split.
const MAX_PIXEL_TARGET_PX: f32 = 10_000.0;

/// Checks `--iterations` before any work.
pub(crate) fn check_iterations(iterations: u32) -> anyhow::Result<()> {
    if !(1..=MAX_ITERATIONS).contains(&iterations) {
        anyhow::bail!("--iterations {iterations}: must be 1..={MAX_ITERATIONS}");
    }
    Ok(())
}

/// The files and folders `--terrain` reads (none for the procedural terrains, or a spec that does
/// not parse: its reader reports that).
fn terrain_inputs(terrain: &str) -> Vec<PathBuf> {
    match GlobeSpec::parse(terrain) {
        Some(Ok(GlobeSpec::Earth { base, regions })) => {
            std::iter::once(base).chain(regions).filter(|p| !p.to_str().is_some_and(http_source::is_url)).collect()
        }
        Some(_) => Vec::new(),
        None => match TerrainSpec::parse(terrain) {
            Ok(TerrainSpec::Pyramid(path)) if path.to_str().is_some_and(http_source::is_url) => Vec::new(),
            Ok(TerrainSpec::GeoTiff(path) | TerrainSpec::Pyramid(path) | TerrainSpec::Png16 { path, .. }) => vec![path],
            _ => Vec::new(),
        },
    }
}

/// The inputs of a rendering command: `--terrain`'s files and a `--camera` that names a file.
pub(crate) fn render_inputs(render: &RenderArgs, camera: Option<&str>) -> Vec<(&'static str, PathBuf)> {
    let mut inputs: Vec<(&'static str, PathBuf)> = terrain_inputs(&render.terrain).into_iter().map(|p| ("--terrain", p)).collect();
    inputs.extend(camera.map(PathBuf::from).filter(|p| p.is_file()).map(|p| ("--camera", p)));
    inputs
}

/// Checks every output before any work: its folder can be written, and it names no input file
/// (nor a file inside an input folder) and no other output of the command, links resolved.
pub(crate) fn check_files(inputs: &[(&str, PathBuf)], outputs: &[(&str, Option<&std::path::Path>)]) -> anyhow::Result<()> {
    let outputs: Vec<(&str, &std::path::Path)> = outputs.iter().filter_map(|&(flag, path)| Some((flag, path?))).collect();
    for &(flag, path) in &outputs {
        check_output_path(path, flag)?;
    }
    let inputs: Vec<(&str, &std::path::Path)> = inputs.iter().map(|(flag, path)| (*flag, path.as_path())).collect();
    Ok(check_outputs(&inputs, &outputs)?)
}

/// Checks the numeric options every rendering command shares (--max-depth and the pixel targets
/// are checked with the settings).
pub(crate) fn check_render_args(args: &RenderArgs) -> anyhow::Result<()> {
    if let Some(max_samples) = args.max_samples.filter(|&n| bisector::terrain::check_max_samples(n).is_err()) {
        anyhow::bail!("--max-samples {max_samples}: must be 2^k + 1 between 65 and 16385, e.g. 4097");
    }
    if !(1..=MAX_CACHE_TILES).contains(&args.cache_tiles) {
        anyhow::bail!("--cache-tiles {}: must be 1..={MAX_CACHE_TILES}", args.cache_tiles);
    }
    if args.pool_slots.is_some() && bisector::globe::spec::GlobeSpec::parse(&args.terrain).is_none() {
        anyhow::bail!("--pool-slots: only the globe (--terrain planet...) draws from the bisector pool");
    }
    let globe = bisector::globe::spec::GlobeSpec::parse(&args.terrain).is_some();
    if globe && args.pool_slots == Some(0) && args.raster == crate::args::RasterArg::Compute {
        anyhow::bail!(
            "--raster {}: the globe drawn from the heap (--pool-slots 0) has no compute rasteriser; use --raster hardware, or draw it from the bisector pool (leave out --pool-slots 0)",
            args.raster.path().name()
        );
    }
    if !(1..=bisector::flat::raster::MAX_LARGE_PX).contains(&args.raster_large_px) {
        anyhow::bail!("--raster-large-px {}: must be 1..={}", args.raster_large_px, bisector::flat::raster::MAX_LARGE_PX);
    }
    for (flag, given) in [("--time", args.time.is_some()), ("--sun", args.sun.is_some())] {
        if given && !globe {
            anyhow::bail!("{flag}: only the globe (--terrain planet...) has a sun that moves; the flat terrain's is fixed");
        }
    }
    if let Some(time) = &args.time {
        bisector::globe::sun::parse_time(time)?;
    }
    if let Some(angles) = &args.sun {
        bisector::globe::sun::parse_angles(angles)?;
    }
    for (flag, value) in [("--pixel-target", args.pixel_target), ("--pixel-error", args.pixel_error)] {
        if !(value.is_finite() && value > 0.0 && value <= MAX_PIXEL_TARGET_PX) {
            anyhow::bail!("{flag} {value}: must be a positive number of pixels, at most {MAX_PIXEL_TARGET_PX}");
        }
    }
    Ok(())
}

/// Writes `value` as pretty JSON to `json` (atomically), when given.
pub(crate) fn write_json(json: Option<&std::path::Path>, value: &impl serde::Serialize) -> anyhow::Result<()> {
    if let Some(json) = json {
        write_bytes_atomic(json, serde_json::to_string_pretty(value)?.as_bytes())?;
    }
    Ok(())
}
