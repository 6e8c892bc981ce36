//! Tile pyramids: a folder with a TileJSON `tiles.json` (XYZ or TMS scheme, min/max zoom, bounds)
//! and Web-Mercator PNG tiles of Mapbox Terrain-RGB or Terrarium heights. A height query uses the
//! finest zoom whose tile is present; missing tiles are nodata, not errors. The tiles come from a
//! [`TileSource`]: a folder, an MBTiles or a PMTiles archive.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::bilinear;
use super::tile_files::{self, TileContent};
use super::tile_source::{self, TileSource};
use super::TerrainError;

/// How a tile's RGB encodes height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Mapbox Terrain-RGB: -10000 + (R * 65536 + G * 256 + B) * 0.1 m; exactly -10000 m (black) is nodata.
    TerrainRgb,
    /// Terrarium: R * 256 + G + B / 256 - 32768 m.
    Terrarium,
}

impl Encoding {
    /// Height in metres of one pixel (NaN for nodata).
    pub fn decode(self, r: u8, g: u8, b: u8) -> f32 {
        match self {
            Encoding::TerrainRgb => {
                let code = (r as u32) << 16 | (g as u32) << 8 | b as u32;
                if code == 0 {
                    f32::NAN
                } else {
                    // (code - 100000) * 0.1, not -10000 + code * 0.1: sea level must decode to exactly 0.
                    ((code as f64 - 100_000.0) * 0.1) as f32
                }
            }
            Encoding::Terrarium => (r as f64 * 256.0 + g as f64 + b as f64 / 256.0 - 32768.0) as f32,
        }
    }

    /// The RGB that encodes `height_m` (nearest representable value).
    pub fn encode(self, height_m: f64) -> [u8; 3] {
        let code = match self {
            Encoding::TerrainRgb => ((height_m + 10000.0) * 10.0).round().clamp(1.0, 16_777_215.0) as u32,
            Encoding::Terrarium => ((height_m + 32768.0) * 256.0).round().clamp(0.0, 16_777_215.0) as u32,
        };
        [(code >> 16) as u8, (code >> 8) as u8, code as u8]
    }
}

/// A tile's heights (row-major, tile_size^2), None where the file is absent.
pub type Tile = Option<Arc<Vec<f32>>>;

/// A per-thread memo of the tiles a thread has used (not the GPU tile cache): the last one of
/// each zoom (most samples fall in the same tiles as the previous one) and the others by (z, x, y).
#[derive(Default)]
pub struct TileMemo {
    /// By zoom (at most 24, as `open` checks).
    last: [Option<((u32, u32), Tile)>; 25],
    tiles: HashMap<(u32, u32, u32), Tile>,
}

/// An opened pyramid; tiles are read on first use and kept (shared between threads).
pub struct TilePyramid {
    source: Box<dyn TileSource>,
    min_zoom: u32,
    max_zoom: u32,
    /// West, south, east, north in degrees.
    pub bounds: [f64; 4],
    pub encoding: Encoding,
    tile_size: u32,
    tiles: RwLock<HashMap<(u32, u32, u32), Tile>>,
    /// Tiles that cannot be Terrain-RGB/Terrarium, read as nodata (the first one is named on stderr).
    rejected_tiles: AtomicU64,
}

impl TilePyramid {
    /// Opens the pyramid at `path`: a folder with `tiles.json`, an `.mbtiles` or a `.pmtiles`
    /// archive (reads the index and one tile to learn the tile size).
    pub fn open(path: &Path) -> Result<TilePyramid, TerrainError> {
        TilePyramid::from_source(tile_source::open(path)?)
    }

    /// Opens the pyramid whose tiles `source` gives (reads one tile to learn the tile size).
    pub fn from_source(source: Box<dyn TileSource>) -> Result<TilePyramid, TerrainError> {
        let index = source.index().clone();
        let mut pyramid = TilePyramid {
            source,
            min_zoom: index.min_zoom,
            max_zoom: index.max_zoom,
            bounds: index.bounds.unwrap_or([-180.0, -85.051129, 180.0, 85.051129]),
            encoding: index.encoding,
            tile_size: 0,
            tiles: RwLock::new(HashMap::new()),
            rejected_tiles: AtomicU64::new(0),
        };
        pyramid.tile_size = match pyramid.source.tile_size_px() {
            Some(size) => size,
            None => pyramid.find_tile_size()?,
        };
        Ok(pyramid)
    }

    /// The side of the tile under the centre of the bounds at the coarsest zoom that has one.
    fn find_tile_size(&self) -> Result<u32, TerrainError> {
        let centre = ((self.bounds[0] + self.bounds[2]) / 2.0, (self.bounds[1] + self.bounds[3]) / 2.0);
        for z in self.min_zoom..=self.max_zoom {
            let (x, y) = tile_xy(z, centre.0, centre.1);
            let bytes = match self.source.get(z, x as u32, y as u32) {
                Err(TerrainError::Unavailable { .. }) => None,
                other => other?,
            };
            if let Some(bytes) = bytes {
                return tile_files::tile_size_px(&bytes, &self.source.tile_name(z, x as u32, y as u32));
            }
        }
        if self.source.remote() {
            return Ok(256);
        }
        Err(TerrainError::File { path: self.source.name(), problem: "no tile found under the centre of the bounds at any zoom".into() })
    }

    /// Heights of tile (z, x, y), None when the source has none there.
    fn tile(&self, z: u32, x: u32, y: u32) -> Result<Tile, TerrainError> {
        if let Some(tile) = self.tiles.read().expect("tile cache lock").get(&(z, x, y)) {
            return Ok(tile.clone());
        }
        // A source that computes its tiles keeps them within its own budget.
        if let Some(heights_m) = self.source.heights_m(z, x, y) {
            return heights_m;
        }
        let tile = match self.source.get(z, x, y) {
            Ok(Some(bytes)) => self.decode(&bytes, z, x, y)?,
            Ok(None) => None,
            // Counted by the source; not kept, so a later read asks again.
            Err(TerrainError::Unavailable { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        // Another thread may have read it meanwhile: keep the first.
        Ok(self.tiles.write().expect("tile cache lock").entry((z, x, y)).or_insert(tile).clone())
    }

    /// Decodes the bytes of tile (z, x, y); a tile that cannot be Terrain-RGB/Terrarium is
    /// counted, named on stderr if it is the pyramid's first, and read as absent (a coarser zoom
    /// shows through, as for any missing tile).
    fn decode(&self, bytes: &[u8], z: u32, x: u32, y: u32) -> Result<Tile, TerrainError> {
        let name = self.source.tile_name(z, x, y);
        let decoded = match tile_files::decode_tile(bytes, self.encoding, self.tile_size, &name) {
            Err(TerrainError::File { problem, .. }) if self.source.remote() => TileContent::Rejected(problem),
            other => other?,
        };
        match decoded {
            TileContent::Heights(heights_m) => Ok(Some(Arc::new(heights_m))),
            TileContent::Rejected(reason) => {
                let count = self.rejected_tiles.fetch_add(1, Ordering::Relaxed) + 1;
                if count == 1 {
                    eprintln!("warning: {name}: {reason}; tile read as missing, as if absent (1 such tile so far in {}; later ones are counted, not named)", self.source.name());
                }
                Ok(None)
            }
        }
    }

    /// Tiles read so far that could not be Terrain-RGB/Terrarium and were treated as nodata.
    pub fn rejected_tiles(&self) -> u64 {
        self.rejected_tiles.load(Ordering::Relaxed)
    }

    /// As `tile`, through `local`, a cache of the calling thread's own (no lock per sample).
    pub fn tile_via(&self, local: &mut TileMemo, z: u32, x: u32, y: u32) -> Result<Tile, TerrainError> {
        if let Some((key, tile)) = &local.last[z as usize] {
            if *key == (x, y) {
                return Ok(tile.clone());
            }
        }
        let tile = match local.tiles.get(&(z, x, y)) {
            Some(tile) => tile.clone(),
            None => {
                let tile = self.tile(z, x, y)?;
                local.tiles.insert((z, x, y), tile.clone());
                tile
            }
        };
        local.last[z as usize] = Some(((x, y), tile.clone()));
        Ok(tile)
    }

    /// Ground size in metres of one pixel at the finest zoom, at latitude `lat_rad` (Web Mercator).
    pub fn finest_pixel_m(&self, lat_rad: f64) -> f64 {
        self.pixel_m_at(self.max_zoom, lat_rad)
    }

    /// Pixel size in metres of zoom `z` at latitude `lat_rad`.
    pub fn pixel_m_at(&self, z: u32, lat_rad: f64) -> f64 {
        const EQUATOR_M: f64 = 2.0 * std::f64::consts::PI * 6_378_137.0;
        EQUATOR_M * lat_rad.cos() / (self.tile_size as f64 * (1u64 << z) as f64)
    }

    /// The finest zoom up to `max_zoom` whose tile at (lon, lat) is present: the zoom whose
    /// pixels `sample_coverage_via` reads there; None outside the bounds or with no tile.
    pub fn serving_zoom_via(&self, local: &mut TileMemo, lon: f64, lat: f64, max_zoom: u32) -> Result<Option<u32>, TerrainError> {
        let [west, south, east, north] = self.bounds;
        if !(west..=east).contains(&lon) || !(south..=north).contains(&lat) {
            return Ok(None);
        }
        for z in (self.min_zoom..=max_zoom.min(self.max_zoom)).rev() {
            let (tx, ty) = tile_xy(z, lon, lat);
            if self.tile_via(local, z, tx as u32, ty as u32)?.is_some() {
                return Ok(Some(z));
            }
        }
        Ok(None)
    }

    /// The height at longitude/latitude (degrees), bilinear at the finest zoom whose tile is
    /// present; None outside the bounds or where no tile has data.
    pub fn sample_m(&self, lon: f64, lat: f64) -> Result<Option<f32>, TerrainError> {
        self.sample_up_to_zoom_m(lon, lat, self.max_zoom)
    }

    /// The coarsest zoom whose pixels are at most `step_m` apart at latitude `lat_rad` (the
    /// finest zoom when none is that fine): the level to resample a grid of that spacing from.
    pub fn zoom_for_step(&self, step_m: f64, lat_rad: f64) -> u32 {
        (self.min_zoom..=self.max_zoom)
            .find(|&z| self.finest_pixel_m(lat_rad) * (1u64 << (self.max_zoom - z)) as f64 <= step_m)
            .unwrap_or(self.max_zoom)
    }

    /// As `sample_m`, using zooms up to `max_zoom` only.
    pub fn sample_up_to_zoom_m(&self, lon: f64, lat: f64, max_zoom: u32) -> Result<Option<f32>, TerrainError> {
        self.sample_via(&mut TileMemo::default(), lon, lat, max_zoom)
    }

    /// As `sample_up_to_zoom_m`, reading tiles through the calling thread's cache `local`.
    pub fn sample_via(&self, local: &mut TileMemo, lon: f64, lat: f64, max_zoom: u32) -> Result<Option<f32>, TerrainError> {
        Ok(self.sample_coverage_via(local, lon, lat, max_zoom, None)?.map(|(h, _)| h))
    }

    /// As `sample_via`, with the sample's coverage in (0, 1]: the share of the bilinear weight on
    /// pixels with data among the pixels of present tiles (1 inside the data, falling
    /// continuously to 0 across a nodata edge; pixels of absent tiles count for neither). With
    /// `sea_band_m` Some(b), pixels within b of 0 m (|h| <= b) count as nodata too (the planet's
    /// sea rule, src/globe/earth.rs).
    pub fn sample_coverage_via(
        &self,
        local: &mut TileMemo,
        lon: f64,
        lat: f64,
        max_zoom: u32,
        sea_band_m: Option<f32>,
    ) -> Result<Option<(f32, f64)>, TerrainError> {
        let [west, south, east, north] = self.bounds;
        if !(west..=east).contains(&lon) || !(south..=north).contains(&lat) {
            return Ok(None);
        }
        for z in (self.min_zoom..=max_zoom.min(self.max_zoom)).rev() {
            let (tx, ty) = tile_xy(z, lon, lat);
            if self.tile_via(local, z, tx as u32, ty as u32)?.is_none() {
                continue;
            }
            // Global pixel coordinates, pixel centres at integer + 0.5.
            let n = (self.tile_size as f64) * (1u64 << z) as f64;
            let (px, py) = (
                tx.fract() * self.tile_size as f64 + tx.floor() * self.tile_size as f64 - 0.5,
                ty.fract() * self.tile_size as f64 + ty.floor() * self.tile_size as f64 - 0.5,
            );
            let (x0, y0) = (px.floor(), py.floor());
            let (fx, fy) = (px - x0, py - y0);
            // Corners in missing tiles count for nothing; corners without data count for the
            // coverage (present) but not for the height.
            let (mut corners, mut present) = ([None; 4], 0.0f64);
            for (k, ((dx, dy), w)) in
                [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].into_iter().zip(bilinear::weights(fx, fy)).enumerate()
            {
                let (gx, gy) = ((x0 + dx).clamp(0.0, n - 1.0) as u32, (y0 + dy).clamp(0.0, n - 1.0) as u32);
                let size = self.tile_size;
                let Some(tile) = self.tile_via(local, z, gx / size, gy / size)? else { continue };
                let h = tile[((gy % size) * size + gx % size) as usize];
                present += w;
                corners[k] = (!(h.is_nan() || sea_band_m.is_some_and(|b| h.abs() <= b))).then_some(h);
            }
            return Ok(bilinear::over_present(corners, fx, fy).map(|(h, weight)| (h, weight / present)));
        }
        Ok(None)
    }
}

/// Fractional Web-Mercator tile coordinates of (lon, lat) at zoom `z` (y grows southwards).
pub fn tile_xy(z: u32, lon: f64, lat: f64) -> (f64, f64) {
    let n = (1u64 << z) as f64;
    let lat = lat.clamp(-85.051_128_78, 85.051_128_78).to_radians();
    let x = (lon + 180.0) / 360.0 * n;
    let y = (1.0 - (lat.tan() + 1.0 / lat.cos()).ln() / std::f64::consts::PI) / 2.0 * n;
    (x.clamp(0.0, n - 1e-9), y.clamp(0.0, n - 1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_round_trip() {
        for h in [-9000.0, -0.5, 0.0, 3952.3, 8848.0] {
            let t = Encoding::TerrainRgb.encode(h);
            assert!((Encoding::TerrainRgb.decode(t[0], t[1], t[2]) as f64 - h).abs() <= 0.05 + 1e-3);
            let r = Encoding::Terrarium.encode(h);
            assert!((Encoding::Terrarium.decode(r[0], r[1], r[2]) as f64 - h).abs() <= 1.0 / 512.0 + 1e-3);
        }
        assert!(Encoding::TerrainRgb.decode(0, 0, 0).is_nan());
    }

    #[test]
    fn tile_coordinates() {
        assert_eq!(tile_xy(0, 0.0, 0.0), (0.5, 0.5));
        let (x, y) = tile_xy(13, 120.9572, 23.47);
        assert_eq!((x as u32, y as u32), (6848, 3546));
    }
}
