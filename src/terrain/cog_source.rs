//! A large GeoTIFF (`super::cog`) as a [`TileSource`]: Web-Mercator tiles of
//! [`build_tiles::TILE_SIZE_PX`] px sampled, pixel centre by pixel centre, from the level (full
//! resolution or overview) whose samples are the coarsest still as fine as the tile's pixels,
//! exactly as `bisector tiles` samples a raster held whole (`build_tiles::tile_pixels`), so it
//! serves wherever a pyramid does: the flat terrain and the globe's regions.

use std::path::Path;
use std::sync::Arc;

use super::build_tiles::{self, BuildSource, TILE_SIZE_PX};
use super::cog::{CogFile, LevelMemo, TileCache};
use super::projection::Projection;
use super::pyramid::Encoding;
use super::raster::{Crs, Raster};
use super::tile_source::{self, SourceIndex, TileSource};
use super::TerrainError;

/// A lazily read GeoTIFF serving Web-Mercator tiles.
pub struct CogSource {
    cog: Arc<CogFile>,
    index: SourceIndex,
    /// Samples may sit at longitudes past the antimeridian (read at lon -/+ 360 too).
    wrapped: bool,
    /// From longitude/latitude to the file's CRS; None for a geographic file.
    projection: Option<Projection>,
    /// Each level's sample spacing as degrees of longitude at the file's centre.
    step_deg: Vec<f64>,
    /// The Web-Mercator tiles served lately (the pyramid keeps none of a computing source's).
    served: TileCache,
}

/// The budget of the Web-Mercator tiles a source keeps unless told otherwise (256 tiles of 256 px).
pub const SERVED_CACHE_BYTES: u64 = 64 << 20;

/// The budget [`CogSource::new`] gives each source's served tiles (`--cog-tiles-mib`).
static SERVED_BUDGET_BYTES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(SERVED_CACHE_BYTES);

/// Sets the budget of the Web-Mercator tiles the sources made from now on keep (the CLI's
/// `--cog-tiles-mib`; each file's decoded tiles' is `cog::set_file_budget`).
pub fn set_served_budget(budget_bytes: u64) {
    SERVED_BUDGET_BYTES.store(budget_bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The served-tile budget [`CogSource::new`] uses now.
pub fn served_budget() -> u64 {
    SERVED_BUDGET_BYTES.load(std::sync::atomic::Ordering::Relaxed)
}

impl CogSource {
    /// Opens the GeoTIFF at `path` (the process's cache budgets).
    pub fn open(path: &Path) -> Result<CogSource, TerrainError> {
        CogSource::new(Arc::new(CogFile::open(path)?))
    }

    /// Serves the opened `cog`, keeping [`served_budget`] bytes of served tiles; its tiles are
    /// encoded as Terrarium PNGs by [`TileSource::get`].
    pub fn new(cog: Arc<CogFile>) -> Result<CogSource, TerrainError> {
        // `build_tiles::place` reads only the georeference: a raster without heights places it.
        let source = BuildSource::whole(cog.name(), frame_of(&cog));
        let placed = build_tiles::place(&source)?;
        let projection = match cog.crs {
            Crs::Projected { epsg } => Projection::for_epsg(epsg),
            _ => None,
        };
        let step_deg: Vec<f64> = cog.levels.iter().map(|l| placed.step_deg * l.step.0 / cog.levels[0].step.0).collect();
        let max_zoom = build_tiles::zoom_for_step_deg(placed.step_deg);
        let bounds = placed
            .areas()
            .fold([180.0, 90.0, -180.0, -90.0], |a: [f64; 4], b| [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]);
        let index = tile_source::check_index(
            SourceIndex { min_zoom: 0, max_zoom, bounds: Some(bounds), encoding: Encoding::Terrarium },
            cog.name(),
        )?;
        let wrapped = placed.wrapped.is_some();
        drop(placed);
        Ok(CogSource { cog, index, wrapped, projection, step_deg, served: TileCache::new(served_budget()) })
    }

    /// The file's full-resolution georeference as a raster without heights.
    pub fn frame(&self) -> Raster {
        frame_of(&self.cog)
    }

    /// The file read.
    pub fn file(&self) -> &CogFile {
        &self.cog
    }

    /// The figures of the Web-Mercator tiles kept (the file's own are `file().stats()`).
    pub fn served_stats(&self) -> super::cog::CogStats {
        self.served.stats()
    }

    /// The level tiles of zoom `z` are sampled from: the coarsest whose samples are at most a
    /// tile pixel apart (along a parallel), the full resolution when none is that fine.
    pub fn level_for_zoom(&self, z: u32) -> usize {
        let pixel_deg = 360.0 / (TILE_SIZE_PX as f64 * (1u64 << z) as f64);
        (0..self.step_deg.len()).rev().find(|&l| self.step_deg[l] <= pixel_deg * (1.0 + 1e-9)).unwrap_or(0)
    }

    /// The height at longitude/latitude from `level`, as `build_tiles::Placed::sample_m` reads it.
    fn sample(&self, memo: &mut LevelMemo, level: usize, lon: f64, lat: f64) -> Result<Option<f32>, TerrainError> {
        match &self.projection {
            Some(projection) => match projection.to_crs(lon, lat) {
                Some((x, y)) => self.cog.sample_m(memo, level, x, y),
                None => Ok(None),
            },
            None => {
                for shift in if self.wrapped { [0.0, 360.0, -360.0].as_slice() } else { &[0.0] } {
                    if let Some(h) = self.cog.sample_m(memo, level, lon + shift, lat)? {
                        return Ok(Some(h));
                    }
                }
                Ok(None)
            }
        }
    }

    /// Heights of tile (z, x, y) (row-major, NaN for nodata), None when no pixel has data or the
    /// zoom is finer than the file's.
    pub fn tile_heights_m(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<f32>>, TerrainError> {
        if z > self.index.max_zoom {
            return Ok(None);
        }
        self.sample_tile_m(z, x, y)
    }

    /// Heights of tile (z, x, y) at any zoom (finer than the file's: bilinear from its full
    /// resolution, as `bisector tiles` builds a finer source's zooms), None when no pixel has data.
    pub fn sample_tile_m(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<f32>>, TerrainError> {
        let [west, south, east, north] = self.index.bounds.expect("bounds are set at open");
        let last = TILE_SIZE_PX as usize - 1;
        let ((w, n), (e, s)) = (build_tiles::pixel_centre_deg(z, x, y, 0, 0), build_tiles::pixel_centre_deg(z, x, y, last, last));
        if w > east || e < west || s > north || n < south {
            return Ok(None);
        }
        let (level, mut memo, mut error) = (self.level_for_zoom(z), LevelMemo::default(), None);
        let heights_m = build_tiles::tile_heights_m(z, x, y, |lon, lat| {
            if error.is_some() {
                return None;
            }
            self.sample(&mut memo, level, lon, lat).unwrap_or_else(|e| {
                error = Some(e);
                None
            })
        });
        if let Some(e) = error {
            return Err(e);
        }
        Ok(heights_m.iter().any(|h| !h.is_nan()).then_some(heights_m))
    }
}

impl TileSource for CogSource {
    fn name(&self) -> String {
        self.cog.name().to_string()
    }

    fn index(&self) -> &SourceIndex {
        &self.index
    }

    fn tile_name(&self, z: u32, x: u32, y: u32) -> String {
        format!("{} (Web-Mercator tile {z}/{x}/{y})", self.cog.name())
    }

    fn get(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<u8>>, TerrainError> {
        Ok(self.tile_heights_m(z, x, y)?.map(|h| build_tiles::png_of_pixels(&build_tiles::encode_pixels(&h, self.index.encoding))))
    }

    fn heights_m(&self, z: u32, x: u32, y: u32) -> Option<Result<Option<Arc<Vec<f32>>>, TerrainError>> {
        // Empty tiles are kept too, as an empty vector (no tile there).
        let key = (z as u8, x, y);
        let tile = match self.served.get(key) {
            Some(tile) => tile,
            None => match self.tile_heights_m(z, x, y) {
                Ok(heights_m) => self.served.insert(key, Arc::new(heights_m.unwrap_or_default()), 0),
                Err(e) => return Some(Err(e)),
            },
        };
        Some(Ok((!tile.is_empty()).then_some(tile)))
    }

    fn tile_size_px(&self) -> Option<u32> {
        Some(TILE_SIZE_PX)
    }
}

/// The georeference of `cog`'s full resolution as a raster without heights.
fn frame_of(cog: &CogFile) -> Raster {
    let l0 = &cog.levels[0];
    Raster { width: l0.width, height: l0.height, heights_m: Vec::new(), origin: l0.origin, step: l0.step, crs: cog.crs }
}
