//! `bisector probe`: the height the renderer samples at a point.

use anyhow::Context;

use bisector::globe::ground::Ground;
use bisector::globe::spec::GlobeSpec;
use bisector::terrain::TerrainSpec;

pub(crate) fn probe(terrain: &str, at: &str, detail: bool) -> anyhow::Result<()> {
    if let Some(spec) = GlobeSpec::parse(terrain) {
        let spec = spec?;
        let (lon, lat) = bisector::cli::parse_lon_lat(at)?;
        let ground = Ground::open(&spec)?;
        let height_m = ground.height_m(lon, lat)?;
        let detail_m = if detail { ground.detail_m(lon, lat)? } else { 0.0 };
        match height_m.map(|h| h + detail_m) {
            Some(height_m) => say!("{height_m:.2}"),
            None => say!("nodata"),
        }
        return Ok(());
    }
    let spec = TerrainSpec::parse(terrain)?;
    let (x, y) = at
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?)))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .with_context(|| format!("--at '{at}': expected X,Y (metres, or lon,lat in degrees for geographic data), e.g. 10240,5120"))?;
    match spec.open()?.sample_m(x, y)? {
        Some(height_m) => say!("{height_m:.2}"),
        None => say!("nodata"),
    }
    Ok(())
}
