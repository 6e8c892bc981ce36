//! `bisector tiles`: builds a Web-Mercator pyramid of 256 px Terrain-RGB or Terrarium PNG tiles
//! from geographic (EPSG:4326) or projected rasters (`super::projection`), on all cores, into a
//! folder (resumable: valid tiles already there are kept), an MBTiles or a PMTiles archive
//! (through `super::mbtiles` and `super::pmtiles`; resumable too, its tiles kept in
//! `super::partial_archive` until the end). Every pixel is sampled bilinearly (`Raster::sample_m`)
//! at its centre from the finest source with data there; a tile with no data in any pixel is
//! absent. A large tiled GeoTIFF (`super::cog::layout` says lazy) is read tile by tile through
//! `super::cog_source`, its coarse zooms from its overviews, so a file larger than memory builds too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::cog_source::CogSource;
use super::partial_archive::{Done, PartialArchive};
use super::projection::Projection;
use super::pyramid::{self, Encoding};
use super::raster::{Crs, Raster};
use super::tile_files::{self, TileContent};
use super::tile_source::{self, SourceIndex};
use super::{mbtiles, pmtiles, TerrainError};

/// The side of every tile built, in pixels.
pub const TILE_SIZE_PX: u32 = 256;

/// Deepest zoom `bisector tiles` builds.
pub const MAX_BUILD_ZOOM: u32 = 22;

/// Most tiles one build may plan (a bound on time and memory for a mistaken --max-zoom).
pub const MAX_PLANNED_TILES: u64 = 50_000_000;

/// Web Mercator's latitude limit in degrees.
const MERCATOR_MAX_LAT: f64 = 85.051_128_779_806_59;

/// One input raster and the name (its file) it goes by in messages and metadata.
pub struct BuildSource {
    pub name: String,
    /// The raster held whole, or, when `lazy` reads it, its georeference alone (no heights).
    pub raster: Raster,
    /// A large tiled GeoTIFF read tile by tile.
    pub lazy: Option<Arc<CogSource>>,
}

impl BuildSource {
    /// A raster held whole.
    pub fn whole(name: impl Into<String>, raster: Raster) -> BuildSource {
        BuildSource { name: name.into(), raster, lazy: None }
    }

    /// The GeoTIFF at `path`: read tile by tile when it is tiled with overviews or larger than
    /// `super::cog::LAZY_MIN_SAMPLES`, else whole (`super::geotiff::read`).
    pub fn open(path: &Path) -> Result<BuildSource, TerrainError> {
        let name = path.display().to_string();
        match super::cog::layout(path)? {
            super::cog::Layout::Lazy => {
                let source = Arc::new(CogSource::open(path)?);
                Ok(BuildSource { name, raster: source.frame(), lazy: Some(source) })
            }
            super::cog::Layout::Whole => Ok(BuildSource::whole(name, super::geotiff::read(path)?)),
        }
    }
}

/// Where the pyramid goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TilesOutput {
    /// A folder of `{z}/{x}/{y}.png` with `tiles.json` (resumable).
    Folder(PathBuf),
    /// An MBTiles archive (written whole at the end).
    MbTiles(PathBuf),
    /// A PMTiles v3 archive (written whole at the end).
    PmTiles(PathBuf),
}

impl TilesOutput {
    /// The output kind from `path`'s extension: `.mbtiles`, `.pmtiles`, anything else a folder.
    pub fn from_path(path: &Path) -> TilesOutput {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("mbtiles") => TilesOutput::MbTiles(path.to_path_buf()),
            Some("pmtiles") => TilesOutput::PmTiles(path.to_path_buf()),
            _ => TilesOutput::Folder(path.to_path_buf()),
        }
    }

    /// The output's path.
    pub fn path(&self) -> &Path {
        match self {
            TilesOutput::Folder(p) | TilesOutput::MbTiles(p) | TilesOutput::PmTiles(p) => p,
        }
    }
}

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub encoding: Encoding,
    /// Coarsest zoom (default 0).
    pub min_zoom: Option<u32>,
    /// Finest zoom (default: [`default_max_zoom`]).
    pub max_zoom: Option<u32>,
    /// Licence and source text for the metadata's `attribution`.
    pub attribution: Option<String>,
    /// Worker threads (at least 1).
    pub threads: usize,
}

/// What a build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildReport {
    pub min_zoom: u32,
    pub max_zoom: u32,
    /// Tiles whose area some source overlaps.
    pub tiles_planned: u64,
    /// Tiles encoded and written by this run.
    pub tiles_written: u64,
    /// Valid tiles of a previous run kept as they were (folder output).
    pub tiles_kept: u64,
    /// Planned tiles left absent because no pixel had data.
    pub tiles_empty: u64,
}

fn file_error(path: impl AsRef<Path>, problem: impl Into<String>) -> TerrainError {
    TerrainError::File { path: path.as_ref().display().to_string(), problem: problem.into() }
}

/// West, south, east, north in degrees that a geographic raster's data reaches (half a sample
/// beyond its edge samples, as `Raster::sample_m` reads), clipped to the globe.
pub fn raster_bounds(raster: &Raster) -> [f64; 4] {
    let (west, north) = (raster.origin.0 - 0.5 * raster.step.0, raster.origin.1 + 0.5 * raster.step.1);
    let east = raster.origin.0 + (raster.width as f64 - 0.5) * raster.step.0;
    let south = raster.origin.1 - (raster.height as f64 - 0.5) * raster.step.1;
    [west.max(-180.0), south.max(-90.0), east.min(180.0), north.min(90.0)]
}

/// The zoom whose pixels are as fine along a parallel as samples `step_deg` apart (the coarsest
/// zoom at least that fine), at most [`MAX_BUILD_ZOOM`].
pub fn zoom_for_step_deg(step_deg: f64) -> u32 {
    let zoom = (360.0 / (TILE_SIZE_PX as f64 * step_deg)).log2();
    (zoom - 1e-9).ceil().clamp(0.0, MAX_BUILD_ZOOM as f64) as u32
}

/// A source placed on the globe: its raster, the area it covers and how to reach its samples
/// from longitude/latitude.
pub struct Placed<'a> {
    pub raster: &'a Raster,
    /// West, south, east, north in degrees, within -180..180.
    pub bounds: [f64; 4],
    /// The part of a geographic raster that reaches past the antimeridian (longitudes 0..360, or
    /// below -180), moved by 360 degrees into -180..180; sampled at longitude -/+ 360.
    pub wrapped: Option<[f64; 4]>,
    /// Its sample spacing as degrees of longitude at its centre (for the default max zoom).
    pub step_deg: f64,
    /// From longitude/latitude to the raster's CRS; None for a geographic raster.
    projection: Option<Projection>,
    /// The file read tile by tile (then `raster` has no heights, and `sample_m` is not used).
    lazy: Option<&'a CogSource>,
}

impl Placed<'_> {
    /// The areas the source covers: its bounds and its wrapped part.
    pub fn areas(&self) -> impl Iterator<Item = [f64; 4]> + '_ {
        std::iter::once(self.bounds).chain(self.wrapped)
    }

    /// The source's height at longitude/latitude in degrees (`Raster::sample_m`).
    pub fn sample_m(&self, lon: f64, lat: f64) -> Option<f32> {
        match &self.projection {
            None if self.wrapped.is_some() => self
                .raster
                .sample_m(lon, lat)
                .or_else(|| self.raster.sample_m(lon + 360.0, lat))
                .or_else(|| self.raster.sample_m(lon - 360.0, lat)),
            None => self.raster.sample_m(lon, lat),
            Some(projection) => {
                let (x, y) = projection.to_crs(lon, lat)?;
                self.raster.sample_m(x, y)
            }
        }
    }
}

/// Places `source` on the globe: a geographic (EPSG:4326) raster as it is, a projected one
/// through its EPSG code's projection; refuses a raster without georeference, an EPSG code the
/// projection crate does not know, or one outside Web Mercator's latitudes.
pub fn place(source: &BuildSource) -> Result<Placed<'_>, TerrainError> {
    let raster = &source.raster;
    let placed = match raster.crs {
        Crs::Geographic => {
            let bounds = raster_bounds(raster);
            // Unclipped longitudes, for the part past the antimeridian.
            let west = raster.origin.0 - 0.5 * raster.step.0;
            let east = west + raster.width as f64 * raster.step.0;
            let wrapped = if east - west >= 360.0 {
                Some([-180.0, bounds[1], 180.0, bounds[3]])
            } else if east > 180.0 {
                Some([-180.0, bounds[1], (east - 360.0).min(180.0), bounds[3]])
            } else if west < -180.0 {
                Some([(west + 360.0).max(-180.0), bounds[1], 180.0, bounds[3]])
            } else {
                None
            };
            Placed { raster, bounds, wrapped, step_deg: raster.step.0, projection: None, lazy: source.lazy.as_deref() }
        }
        Crs::Projected { epsg } => {
            let projection = Projection::for_epsg(epsg).ok_or_else(|| {
                file_error(&source.name, format!("projected coordinates EPSG:{epsg}, which bisector tiles cannot project (not in proj4rs's EPSG table, or it needs grid files); reproject it first, e.g. gdalwarp -t_srs EPSG:4326 IN.tif OUT.tif"))
            })?;
            let outside = || file_error(&source.name, format!("its EPSG:{epsg} corners do not project to longitude/latitude"));
            // The sample area's edge, 64 points a side, in longitude/latitude: its bounding box
            // bounds the whole area (the projection is continuous and one to one).
            let (w, n) = (raster.origin.0 - 0.5 * raster.step.0, raster.origin.1 + 0.5 * raster.step.1);
            let (e, s) = (w + raster.width as f64 * raster.step.0, n - raster.height as f64 * raster.step.1);
            let mut bounds = [180.0f64, 90.0f64, -180.0f64, -90.0f64];
            for k in 0..=64 {
                let t = k as f64 / 64.0;
                for (x, y) in [(w + t * (e - w), n), (w + t * (e - w), s), (w, n + t * (s - n)), (e, n + t * (s - n))] {
                    let (lon, lat) = projection.to_lon_lat(x, y).ok_or_else(outside)?;
                    bounds = [bounds[0].min(lon), bounds[1].min(lat), bounds[2].max(lon), bounds[3].max(lat)];
                }
            }
            let (cx, cy) = ((w + e) / 2.0, (n + s) / 2.0);
            let (lon0, lat0) = projection.to_lon_lat(cx, cy).ok_or_else(outside)?;
            let (lon1, lat1) = projection.to_lon_lat(cx + raster.step.0, cy).ok_or_else(outside)?;
            let cos = lat0.to_radians().cos().max(1e-6);
            let step_deg = ((lon1 - lon0) * cos).hypot(lat1 - lat0) / cos;
            Placed { raster, bounds, wrapped: None, step_deg, projection: Some(projection), lazy: source.lazy.as_deref() }
        }
        Crs::Local => {
            return Err(file_error(&source.name, "no georeference; bisector tiles reads GeoTIFFs in geographic or projected coordinates"))
        }
    };
    let [west, south, east, north] = placed.bounds;
    if west >= east || south >= north || north <= -MERCATOR_MAX_LAT || south >= MERCATOR_MAX_LAT {
        return Err(file_error(&source.name, "its area lies outside Web Mercator's latitudes (85.05 S to 85.05 N) or is empty"));
    }
    Ok(placed)
}

/// Places every source (see [`place`]).
pub fn place_all(sources: &[BuildSource]) -> Result<Vec<Placed<'_>>, TerrainError> {
    sources.iter().map(place).collect()
}

/// The default finest zoom: as fine as the finest source's samples.
pub fn default_max_zoom(placed: &[Placed]) -> u32 {
    placed.iter().map(|p| zoom_for_step_deg(p.step_deg)).max().unwrap_or(0)
}

/// Latitude in degrees of the Web-Mercator row at `t` (0 north edge, 1 south edge).
fn mercator_lat(t: f64) -> f64 {
    (std::f64::consts::PI * (1.0 - 2.0 * t)).sinh().atan().to_degrees()
}

/// The tile range (x0, y0, x1, y1, inclusive) at zoom `z` over `bounds`.
fn tile_range(z: u32, bounds: [f64; 4]) -> (u32, u32, u32, u32) {
    let [west, south, east, north] = bounds;
    let (x0, y0) = pyramid::tile_xy(z, west, north);
    let (x1, y1) = pyramid::tile_xy(z, east, south);
    (x0 as u32, y0 as u32, x1 as u32, y1 as u32)
}

/// The sources in sampling order: finest samples first; among equally fine ones, the later
/// `--from` first.
pub fn priority<'a, 'b>(placed: &'b [Placed<'a>]) -> Vec<&'b Placed<'a>> {
    let mut order: Vec<&Placed> = placed.iter().rev().collect();
    // Stable: equally fine sources keep the later first.
    order.sort_by(|a, b| a.step_deg.total_cmp(&b.step_deg));
    order
}

/// Longitude and latitude in degrees of the centre of pixel (i, j) of tile (z, x, y) of
/// [`TILE_SIZE_PX`] px.
pub fn pixel_centre_deg(z: u32, x: u32, y: u32, i: usize, j: usize) -> (f64, f64) {
    let size = TILE_SIZE_PX as usize;
    let n = TILE_SIZE_PX as f64 * (1u64 << z) as f64;
    (((x as usize * size + i) as f64 + 0.5) / n * 360.0 - 180.0, mercator_lat(((y as usize * size + j) as f64 + 0.5) / n))
}

/// The heights (row-major, NaN where `sample` has none) of tile (z, x, y): `sample` at each
/// pixel's centre, given in longitude and latitude.
pub fn tile_heights_m(z: u32, x: u32, y: u32, mut sample: impl FnMut(f64, f64) -> Option<f32>) -> Vec<f32> {
    let size = TILE_SIZE_PX as usize;
    let mut heights_m = Vec::with_capacity(size * size);
    for j in 0..size {
        for i in 0..size {
            let (lon, lat) = pixel_centre_deg(z, x, y, i, j);
            heights_m.push(sample(lon, lat).unwrap_or(f32::NAN));
        }
    }
    heights_m
}

/// The RGB pixels (row-major, 3 bytes each) of `heights_m` in `encoding`; nodata (NaN) is
/// Terrain-RGB's nodata (code 0, black) or, Terrarium having none, 0 m.
pub fn encode_pixels(heights_m: &[f32], encoding: Encoding) -> Vec<u8> {
    let nodata = match encoding {
        Encoding::TerrainRgb => [0, 0, 0],
        Encoding::Terrarium => encoding.encode(0.0),
    };
    heights_m.iter().flat_map(|&h| if h.is_nan() { nodata } else { encoding.encode(h as f64) }).collect()
}

/// The RGB pixels (row-major, 3 bytes each) of tile (z, x, y): each pixel's centre sampled
/// from the first of `order` with data there; None when no pixel has data. Nodata pixels of a
/// tile with data are Terrain-RGB's nodata (code 0, black) or, Terrarium having none, 0 m. An
/// error only from a source read tile by tile (a tile of its file that cannot be read).
pub fn tile_pixels(order: &[&Placed], z: u32, x: u32, y: u32, encoding: Encoding) -> Result<Option<Vec<u8>>, TerrainError> {
    let size = TILE_SIZE_PX as usize;
    let last = size - 1;
    let ((west, north), (east, south)) = (pixel_centre_deg(z, x, y, 0, 0), pixel_centre_deg(z, x, y, last, last));
    // Only the sources that reach the tile, in order: each fills the pixels still without data.
    let near = order.iter().copied().filter(|p| p.areas().any(|[w, s, e, n]| w <= east && e >= west && s <= north && n >= south));
    let mut heights_m = vec![f32::NAN; size * size];
    for source in near {
        match source.lazy {
            Some(cog) => {
                if let Some(layer) = cog.sample_tile_m(z, x, y)? {
                    for (h, l) in heights_m.iter_mut().zip(layer) {
                        if h.is_nan() {
                            *h = l;
                        }
                    }
                }
            }
            None => {
                for (k, h) in heights_m.iter_mut().enumerate().filter(|(_, h)| h.is_nan()) {
                    let (lon, lat) = pixel_centre_deg(z, x, y, k % size, k / size);
                    *h = source.sample_m(lon, lat).unwrap_or(f32::NAN);
                }
            }
        }
        if !heights_m.iter().any(|h| h.is_nan()) {
            break;
        }
    }
    Ok(heights_m.iter().any(|h| !h.is_nan()).then(|| encode_pixels(&heights_m, encoding)))
}

/// PNG bytes (8-bit RGB) of a tile's pixels.
pub fn png_of_pixels(rgb: &[u8]) -> Vec<u8> {
    use image::ImageEncoder;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(rgb, TILE_SIZE_PX, TILE_SIZE_PX, image::ExtendedColorType::Rgb8)
        .expect("encoding a PNG into memory cannot fail");
    png
}

/// Tile (z, x, y) as PNG bytes (8-bit RGB), None when no pixel has data (see [`tile_pixels`]).
pub fn tile_png(order: &[&Placed], z: u32, x: u32, y: u32, encoding: Encoding) -> Result<Option<Vec<u8>>, TerrainError> {
    Ok(tile_pixels(order, z, x, y, encoding)?.map(|rgb| png_of_pixels(&rgb)))
}

/// Every tile (z, x, y) from `min_zoom` to `max_zoom` that some source's area overlaps, in
/// order; an error naming --max-zoom past [`MAX_PLANNED_TILES`].
pub fn plan(placed: &[Placed], min_zoom: u32, max_zoom: u32) -> Result<Vec<(u32, u32, u32)>, TerrainError> {
    let bounds: Vec<[f64; 4]> = placed.iter().flat_map(Placed::areas).map(clip_mercator).collect();
    let mut count = 0u64;
    for z in min_zoom..=max_zoom {
        for b in &bounds {
            let (x0, y0, x1, y1) = tile_range(z, *b);
            count += (x1 - x0 + 1) as u64 * (y1 - y0 + 1) as u64;
        }
    }
    if count > MAX_PLANNED_TILES {
        return Err(file_error(
            "--max-zoom",
            format!("{max_zoom} asks for {count} tiles, more than {MAX_PLANNED_TILES}; choose a lower --max-zoom"),
        ));
    }
    let mut tiles = BTreeSet::new();
    for z in min_zoom..=max_zoom {
        for b in &bounds {
            let (x0, y0, x1, y1) = tile_range(z, *b);
            tiles.extend((x0..=x1).flat_map(|x| (y0..=y1).map(move |y| (z, x, y))));
        }
    }
    Ok(tiles.into_iter().collect())
}

fn clip_mercator([west, south, east, north]: [f64; 4]) -> [f64; 4] {
    [west, south.max(-MERCATOR_MAX_LAT), east, north.min(MERCATOR_MAX_LAT)]
}

/// The union of the sources' areas, clipped to Web Mercator's latitudes.
fn union_bounds(placed: &[Placed]) -> [f64; 4] {
    placed
        .iter()
        .flat_map(Placed::areas)
        .map(clip_mercator)
        .fold([180.0, 90.0, -180.0, -90.0], |a, b| [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])])
}

/// A hash of a source's georeference and heights (FNV-1a over their bits; for a file read tile
/// by tile, its length and modification time instead of the heights): tells a resumed run's
/// sources from changed ones.
fn source_hash(source: &BuildSource) -> String {
    let raster = &source.raster;
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |bits: u64| {
        for byte in bits.to_le_bytes() {
            hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for v in [raster.origin.0, raster.origin.1, raster.step.0, raster.step.1] {
        eat(v.to_bits());
    }
    eat((raster.width as u64) << 32 | raster.height as u64);
    eat(match raster.crs {
        Crs::Geographic => 4326,
        Crs::Projected { epsg } => epsg as u64,
        Crs::Local => 0,
    });
    for h in &raster.heights_m {
        eat(h.to_bits() as u64);
    }
    if let Some(cog) = &source.lazy {
        let (len_bytes, modified_ns) = cog.file().identity();
        eat(len_bytes);
        eat(modified_ns);
    }
    format!("{hash:016x}")
}

/// What identifies one build (sources, zooms, encoding, attribution): kept in the folder's
/// `tiles.json` so a later run of the same command resumes it and any other refuses it.
fn fingerprint(sources: &[BuildSource], options: &BuildOptions, min_zoom: u32, max_zoom: u32) -> serde_json::Value {
    serde_json::json!({
        "sources": sources.iter().map(|s| serde_json::json!({ "name": s.name, "hash": source_hash(s) })).collect::<Vec<_>>(),
        "encoding": tile_source::encoding_name(options.encoding),
        "minzoom": min_zoom,
        "maxzoom": max_zoom,
        "attribution": options.attribution,
    })
}

/// The sources' names as one line for the metadata's `description`.
fn description(sources: &[BuildSource]) -> String {
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    format!("Elevation built by bisector tiles from {}", names.join(", "))
}

/// Builds the pyramid of `sources` into `output`, ticking `progress` once per planned tile.
///
/// Folder output: `tiles.json` is written first, each tile atomically (a temporary file renamed
/// into place); a folder that exists must be empty or a previous run of the same build (its
/// `tiles.json` records the sources, zooms, encoding and attribution), whose valid tiles are
/// kept. Archive output must not exist; the tiles go into its partial file as they are made
/// (`super::partial_archive`: a run of the same build after an interruption keeps them), and the
/// archive is written from it, a tile at a time, into a temporary file renamed into place at the
/// end, after which the partial file is removed.
pub fn build(
    sources: &[BuildSource],
    output: &TilesOutput,
    options: &BuildOptions,
    progress: &indicatif::ProgressBar,
) -> Result<BuildReport, TerrainError> {
    if sources.is_empty() {
        return Err(file_error("--from", "no source: give at least one GeoTIFF"));
    }
    let placed = place_all(sources)?;
    let max_zoom = options.max_zoom.unwrap_or_else(|| default_max_zoom(&placed));
    let min_zoom = options.min_zoom.unwrap_or(0);
    if max_zoom > MAX_BUILD_ZOOM {
        return Err(file_error("--max-zoom", format!("{max_zoom} is more than {MAX_BUILD_ZOOM}")));
    }
    if min_zoom > max_zoom {
        return Err(file_error("--min-zoom", format!("{min_zoom} is above the max zoom {max_zoom}")));
    }
    let tiles = plan(&placed, min_zoom, max_zoom)?;
    let index = SourceIndex { min_zoom, max_zoom, bounds: Some(union_bounds(&placed)), encoding: options.encoding };
    let description = description(sources);
    let attribution = options.attribution.clone().unwrap_or_default();
    let order = priority(&placed);
    progress.set_length(tiles.len() as u64);
    let mut report = BuildReport { min_zoom, max_zoom, tiles_planned: tiles.len() as u64, tiles_written: 0, tiles_kept: 0, tiles_empty: 0 };
    match output {
        TilesOutput::Folder(dir) => {
            let tilejson = prepare_folder(dir, sources, options, &index, &description)?;
            let counts = for_each_tile(&tiles, options.threads, progress, |z, x, y| folder_tile(dir, &order, z, x, y, options.encoding))?;
            (report.tiles_written, report.tiles_kept, report.tiles_empty) = counts;
            // Rewritten at the end too (same content): a folder whose tiles.json was lost is whole again.
            write_atomic(&dir.join("tiles.json"), tilejson.as_bytes())?;
        }
        TilesOutput::MbTiles(path) | TilesOutput::PmTiles(path) => {
            if path.exists() {
                return Err(file_error(path, "already exists; bisector does not overwrite it"));
            }
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let fingerprint = fingerprint(sources, options, min_zoom, max_zoom).to_string();
            let partial = PartialArchive::open(path, &fingerprint)?;
            let counts =
                for_each_tile(&tiles, options.threads, progress, |z, x, y| archive_tile(&partial, &order, z, x, y, options.encoding))?;
            (report.tiles_written, report.tiles_kept, report.tiles_empty) = counts;
            let temp = tempfile::Builder::new()
                .prefix(".bisector-tiles-")
                .tempdir_in(parent)
                .map_err(|e| file_error(path, format!("cannot write beside it ({e})")))?;
            let temp_path = temp.path().join("archive");
            let extra = [("attribution", attribution.as_str()), ("description", description.as_str())];
            // Streamed from the partial file: one tile in memory at a time.
            match output {
                TilesOutput::MbTiles(_) => {
                    let mut writer = mbtiles::MbTilesWriter::create(&temp_path, &index, &extra)?;
                    partial.for_each_tile(|z, x, y, png| writer.add(z, x, y, png))?;
                    writer.finish()?;
                }
                _ => {
                    let bytes_of = |z, x, y| match partial.get(z, x, y)? {
                        Done::Tile(png) => Ok(png),
                        _ => Err(file_error(partial.path(), format!("lost tile {z}/{x}/{y} while writing the archive"))),
                    };
                    pmtiles::write_streamed(&temp_path, &index, &partial.lengths()?, bytes_of, 0, &extra)?;
                }
            }
            if path.exists() {
                return Err(file_error(path, "appeared while building; bisector does not overwrite it"));
            }
            std::fs::rename(&temp_path, path).map_err(|e| file_error(path, format!("cannot write it ({e})")))?;
            partial.remove()?;
        }
    }
    Ok(report)
}

/// What became of one tile.
enum TileOutcome {
    Written,
    Kept,
    Empty,
}

/// Runs `work` on every tile on `threads` threads; returns (written, kept, empty) or the first error.
fn for_each_tile(
    tiles: &[(u32, u32, u32)],
    threads: usize,
    progress: &indicatif::ProgressBar,
    work: impl Fn(u32, u32, u32) -> Result<TileOutcome, TerrainError> + Sync,
) -> Result<(u64, u64, u64), TerrainError> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let counts = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
    let error = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let Some(&(z, x, y)) = tiles.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    match work(z, x, y) {
                        Ok(outcome) => {
                            counts[outcome as usize].fetch_add(1, Ordering::Relaxed);
                            progress.inc(1);
                        }
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            error.lock().expect("error lock").get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    match error.into_inner().expect("error lock") {
        Some(e) => Err(e),
        None => Ok((counts[0].load(Ordering::Relaxed), counts[1].load(Ordering::Relaxed), counts[2].load(Ordering::Relaxed))),
    }
}

/// Writes `bytes` to `path` atomically (a temporary file in the same folder renamed over it, as
/// `cli::write_atomic` does for the commands' outputs).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TerrainError> {
    use std::io::Write;
    let fail = |e: std::io::Error| file_error(path, format!("cannot write it ({e})"));
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new().prefix(".bisector-").suffix(".tmp").tempfile_in(folder).map_err(fail)?;
    temp.write_all(bytes).map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o644)).map_err(fail)?;
    }
    temp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Checks the output folder (absent, empty, or a previous run of this build), creates it and
/// writes its `tiles.json`; returns that text.
fn prepare_folder(
    dir: &Path,
    sources: &[BuildSource],
    options: &BuildOptions,
    index: &SourceIndex,
    description: &str,
) -> Result<String, TerrainError> {
    let fingerprint = fingerprint(sources, options, index.min_zoom, index.max_zoom);
    if dir.exists() {
        if !dir.is_dir() {
            return Err(file_error(dir, "exists and is not a folder (--out takes a folder, a .mbtiles or a .pmtiles file)"));
        }
        let empty = std::fs::read_dir(dir).map_err(|e| file_error(dir, format!("cannot read it ({e})")))?.next().is_none();
        if !empty {
            let previous = crate::input::read_limited(&dir.join("tiles.json"), crate::input::TILEJSON_BYTES, "TileJSON")
                .ok()
                .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
            if previous.as_ref().and_then(|json| json.get("bisector_tiles")) != Some(&fingerprint) {
                return Err(file_error(
                    dir,
                    "exists, is not empty and is not a previous run of this same bisector tiles command (same --from files and contents, zooms, --encoding, --attribution); bisector does not overwrite it: choose a new --out",
                ));
            }
            remove_temporary_files(dir)?;
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| file_error(dir, format!("cannot create it ({e})")))?;
    let [west, south, east, north] = index.bounds.expect("a build's bounds");
    let tilejson = serde_json::json!({
        "tilejson": "2.2.0",
        "name": dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        "description": description,
        "attribution": options.attribution.clone().unwrap_or_default(),
        "tiles": ["{z}/{x}/{y}.png"],
        "scheme": "xyz",
        "minzoom": index.min_zoom,
        "maxzoom": index.max_zoom,
        "bounds": [west, south, east, north],
        "encoding": tile_source::encoding_name(options.encoding),
        "bisector_tiles": fingerprint,
    });
    let text = serde_json::to_string_pretty(&tilejson).expect("JSON of plain values") + "\n";
    write_atomic(&dir.join("tiles.json"), text.as_bytes())?;
    Ok(text)
}

/// Removes the temporary files (`.bisector-*.tmp`) an interrupted run left in the folder `dir` of
/// a previous run: in it and in its `{z}/{x}` folders, where `write_atomic` makes them.
fn remove_temporary_files(dir: &Path) -> Result<(), TerrainError> {
    let entries = |folder: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(folder).map(|list| list.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default()
    };
    let mut folders = vec![dir.to_path_buf()];
    for z in entries(dir).into_iter().filter(|p| p.is_dir()) {
        folders.extend(entries(&z).into_iter().filter(|p| p.is_dir()));
    }
    for folder in folders {
        for path in entries(&folder) {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with(".bisector-") && name.ends_with(".tmp") && path.is_file() {
                std::fs::remove_file(&path).map_err(|e| file_error(&path, format!("cannot remove it ({e})")))?;
            }
        }
    }
    Ok(())
}

/// Builds tile (z, x, y) into the partial archive, keeping what a previous run built there (a
/// tile with data only if its PNG is a valid tile of the encoding).
fn archive_tile(
    partial: &PartialArchive,
    order: &[&Placed],
    z: u32,
    x: u32,
    y: u32,
    encoding: Encoding,
) -> Result<TileOutcome, TerrainError> {
    match partial.get(z, x, y)? {
        Done::Empty => return Ok(TileOutcome::Empty),
        Done::Tile(png) => {
            let name = format!("{} tile {z}/{x}/{y}", partial.path().display());
            if matches!(tile_files::decode_tile(&png, encoding, TILE_SIZE_PX, &name), Ok(TileContent::Heights(_))) {
                return Ok(TileOutcome::Kept);
            }
        }
        Done::No => {}
    }
    let png = tile_png(order, z, x, y, encoding)?;
    partial.put(z, x, y, png.as_deref())?;
    Ok(if png.is_some() { TileOutcome::Written } else { TileOutcome::Empty })
}

/// Builds tile (z, x, y) into the folder `dir`, keeping a valid tile already there.
fn folder_tile(dir: &Path, order: &[&Placed], z: u32, x: u32, y: u32, encoding: Encoding) -> Result<TileOutcome, TerrainError> {
    let path = dir.join(z.to_string()).join(x.to_string()).join(format!("{y}.png"));
    if let Ok(bytes) = std::fs::read(&path) {
        let name = path.display().to_string();
        if matches!(tile_files::decode_tile(&bytes, encoding, TILE_SIZE_PX, &name), Ok(TileContent::Heights(_))) {
            return Ok(TileOutcome::Kept);
        }
    }
    match tile_png(order, z, x, y, encoding)? {
        Some(png) => {
            let folder = path.parent().expect("a tile's folder");
            std::fs::create_dir_all(folder).map_err(|e| file_error(folder, format!("cannot create it ({e})")))?;
            write_atomic(&path, &png)?;
            Ok(TileOutcome::Written)
        }
        None => {
            // A broken leftover of an interrupted run where no tile belongs.
            if path.exists() {
                std::fs::remove_file(&path).map_err(|e| file_error(&path, format!("cannot remove it ({e})")))?;
            }
            Ok(TileOutcome::Empty)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zooms_for_steps() {
        // 1/3 degree (ETOPO 20'): zoom 2 has 0.35 degree pixels, zoom 3 0.18.
        assert_eq!(zoom_for_step_deg(1.0 / 3.0), 3);
        assert_eq!(zoom_for_step_deg(360.0 / 256.0), 0);
        assert_eq!(zoom_for_step_deg(360.0 / 512.0), 1);
        assert_eq!(zoom_for_step_deg(1e-9), MAX_BUILD_ZOOM);
    }

    #[test]
    fn mercator_rows_match_the_reader() {
        for t in [0.1, 0.37, 0.5, 0.93] {
            let lat = mercator_lat(t);
            let (_, y) = pyramid::tile_xy(0, 0.0, lat);
            assert!((y - t).abs() < 1e-12, "{t} -> {lat} -> {y}");
        }
    }
}
