//! `bisector tiles`: builds a Web-Mercator Terrain-RGB/Terrarium pyramid from GeoTIFFs
//! (`bisector::terrain::build_tiles`), checking the options and files first.

use std::path::{Path, PathBuf};

use anyhow::bail;

use bisector::terrain::build_tiles::{self, BuildOptions, BuildSource, TilesOutput, MAX_BUILD_ZOOM};
use bisector::terrain::pyramid::Encoding;

use crate::args::TileEncodingArg;

/// The path with links and `..` resolved where it exists (its parent's, joined, where it does not).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(path) = path.canonicalize() {
        return path;
    }
    match (path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p }), path.file_name()) {
        (Some(parent), Some(name)) => parent.canonicalize().map(|p| p.join(name)).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

pub(crate) fn tiles(
    from: &[PathBuf],
    out: &Path,
    encoding: TileEncodingArg,
    max_zoom: Option<u32>,
    min_zoom: u32,
    attribution: Option<&str>,
    threads: Option<usize>,
) -> anyhow::Result<()> {
    if let Some(max) = max_zoom {
        if max > MAX_BUILD_ZOOM {
            bail!("--max-zoom {max}: must be 0 to {MAX_BUILD_ZOOM}");
        }
        if min_zoom > max {
            bail!("--min-zoom {min_zoom} is above --max-zoom {max}");
        }
    }
    if min_zoom > MAX_BUILD_ZOOM {
        bail!("--min-zoom {min_zoom}: must be 0 to {MAX_BUILD_ZOOM}");
    }
    if threads == Some(0) {
        bail!("--threads 0: must be at least 1");
    }
    let output = TilesOutput::from_path(out);
    let out_resolved = resolved(out);
    for path in from {
        if !path.is_file() {
            bail!("--from {}: no such file", path.display());
        }
        if resolved(path) == out_resolved {
            bail!("--out {} is also a --from input; bisector does not overwrite its inputs", out.display());
        }
    }
    match &output {
        TilesOutput::MbTiles(path) | TilesOutput::PmTiles(path) if path.exists() => {
            bail!("--out {}: already exists; bisector does not overwrite it", path.display())
        }
        TilesOutput::MbTiles(path) | TilesOutput::PmTiles(path) if !resolved(path).parent().is_some_and(Path::is_dir) => {
            bail!("--out {}: its folder does not exist", path.display())
        }
        _ => {}
    }
    let mut sources = Vec::with_capacity(from.len());
    for path in from {
        sources.push(BuildSource::open(path)?);
    }
    let options = BuildOptions {
        encoding: match encoding {
            TileEncodingArg::TerrainRgb => Encoding::TerrainRgb,
            TileEncodingArg::Terrarium => Encoding::Terrarium,
        },
        min_zoom: Some(min_zoom),
        max_zoom,
        attribution: attribution.map(str::to_string),
        threads: threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("tiles {bar:40} {pos}/{len} tiles, {per_sec}, {eta} left").expect("valid template"),
    );
    let start = std::time::Instant::now();
    let report = build_tiles::build(&sources, &output, &options, &bar)?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    // Throughput: the sources' samples (input megapixels) and the tiles planned, per second.
    let input_mpx = sources.iter().map(|s| s.raster.width as f64 * s.raster.height as f64).sum::<f64>() / 1e6;
    let per_s = |n: f64| n / seconds.max(1e-9);
    say!(
        "{}: zooms {}..{}, {} tiles written, {} kept from a previous run, {} without data left out, in {seconds:.1} s ({:.2} input Mpx/s, {:.0} tiles/s)",
        out.display(),
        report.min_zoom,
        report.max_zoom,
        report.tiles_written,
        report.tiles_kept,
        report.tiles_empty,
        per_s(input_mpx),
        per_s(report.tiles_planned as f64)
    );
    let cog = bisector::terrain::cog::stats();
    if cog.tiles_decoded > 0 {
        let bytes = bisector::input::format_bytes;
        say!(
            "large GeoTIFFs read tile by tile: at most {} of tiles held (budget {}: --cog-cache-mib, --cog-tiles-mib), {} tiles decoded, {} read",
            bytes(cog.cache_peak_bytes),
            bytes(cog.cache_budget_bytes),
            cog.tiles_decoded,
            bytes(cog.bytes_read)
        );
    }
    Ok(())
}
