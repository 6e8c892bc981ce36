//! Where a tile pyramid's bytes come from: one trait, [`TileSource`], implemented by a folder of
//! `{z}/{x}/{y}.png` files with a TileJSON `tiles.json` ([`FolderSource`]), an MBTiles archive
//! (`super::mbtiles`), a PMTiles v3 archive (`super::pmtiles`), a large GeoTIFF read tile by tile
//! (`super::cog_source`) and a tile server
//! (`super::http_source`). `pyramid` decodes and keeps
//! the tiles; a source only finds bytes.

use std::path::{Path, PathBuf};

use super::pyramid::Encoding;
use super::tile_files;
use super::TerrainError;

/// What a source says about its pyramid, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceIndex {
    pub min_zoom: u32,
    /// At most 24.
    pub max_zoom: u32,
    /// West, south, east, north in degrees (finite, west < east, south < north, on the globe).
    pub bounds: Option<[f64; 4]>,
    pub encoding: Encoding,
}

/// Deepest zoom a source may claim.
pub const MAX_SOURCE_ZOOM: u32 = 24;

/// A pyramid's tiles by Web-Mercator (z, x, y), y growing southwards (XYZ rows: a source that
/// stores TMS rows flips them itself).
pub trait TileSource: Send + Sync {
    /// The source's name in messages (its path or address).
    fn name(&self) -> String;
    /// Zoom range, bounds and encoding.
    fn index(&self) -> &SourceIndex;
    /// The name of tile (z, x, y) in messages: a file path, or the archive and the tile.
    fn tile_name(&self, z: u32, x: u32, y: u32) -> String;
    /// The encoded bytes of tile (z, x, y), None where the source has no tile there; an error
    /// when the source cannot be read (it names the source), or `TerrainError::Unavailable`
    /// for a tile a remote source could not fetch this time (the pyramid reads it as missing).
    fn get(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<u8>>, TerrainError>;
    /// `true` for a source across a network: a tile it sends that is not a readable PNG is a
    /// counted rejected tile, not an error, and a pyramid whose tile size cannot be probed
    /// assumes 256 px.
    fn remote(&self) -> bool {
        false
    }
    /// The heights in metres of tile (z, x, y) (row-major, NaN for nodata) for a source that
    /// computes them rather than storing encoded tiles (a GeoTIFF read lazily: no quantisation,
    /// no PNG); such a source keeps them within its own memory budget, and the pyramid does not
    /// keep them. None for a source of encoded bytes, read through [`TileSource::get`].
    fn heights_m(&self, _z: u32, _x: u32, _y: u32) -> Option<Result<Option<std::sync::Arc<Vec<f32>>>, TerrainError>> {
        None
    }
    /// The tile side in pixels when the source knows it without reading a tile.
    fn tile_size_px(&self) -> Option<u32> {
        None
    }
}

/// Checks a zoom range and bounds read from an archive's metadata; `name` names it in errors.
pub fn check_index(index: SourceIndex, name: &str) -> Result<SourceIndex, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    if index.min_zoom > index.max_zoom || index.max_zoom > MAX_SOURCE_ZOOM {
        return Err(bad(format!(
            "zoom range {}..{} is not usable (0 <= minzoom <= maxzoom <= {MAX_SOURCE_ZOOM})",
            index.min_zoom, index.max_zoom
        )));
    }
    if let Some([west, south, east, north]) = index.bounds {
        let on_globe = (-180.0..=180.0).contains(&west)
            && (-180.0..=180.0).contains(&east)
            && (-90.0..=90.0).contains(&south)
            && (-90.0..=90.0).contains(&north);
        if !on_globe || west >= east || south >= north {
            return Err(bad(format!(
                "bounds {:?} are not west, south, east, north in degrees with west < east and south < north",
                [west, south, east, north]
            )));
        }
    }
    Ok(index)
}

/// Parses an `encoding` value of a TileJSON or an archive's metadata (None: Terrain-RGB).
pub fn parse_encoding(value: Option<&str>, name: &str) -> Result<Encoding, TerrainError> {
    match value {
        None | Some("mapbox") | Some("terrain-rgb") => Ok(Encoding::TerrainRgb),
        Some("terrarium") => Ok(Encoding::Terrarium),
        Some(other) => Err(TerrainError::File {
            path: name.to_string(),
            problem: format!("encoding '{other}' is not mapbox (Terrain-RGB) or terrarium"),
        }),
    }
}

/// The name of an encoding in metadata (`mapbox` for Terrain-RGB, as Mapbox writes it).
pub fn encoding_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::TerrainRgb => "mapbox",
        Encoding::Terrarium => "terrarium",
    }
}

/// A folder with `tiles.json` and tile files (today's pyramids).
pub struct FolderSource {
    dir: PathBuf,
    /// Tile path relative to the folder, with `{z}`, `{x}` and `{y}`.
    template: String,
    tms: bool,
    index: SourceIndex,
}

impl FolderSource {
    /// Opens the folder `dir` (reads its `tiles.json`).
    pub fn open(dir: &Path) -> Result<FolderSource, TerrainError> {
        let index_path = dir.join("tiles.json");
        let bytes = crate::input::read_limited(&index_path, crate::input::TILEJSON_BYTES, "TileJSON")?;
        let json = tile_files::parse_tilejson(&bytes, &index_path.display().to_string())?;
        Ok(FolderSource {
            dir: dir.to_path_buf(),
            template: json.template,
            tms: json.tms,
            index: SourceIndex { min_zoom: json.min_zoom, max_zoom: json.max_zoom, bounds: json.bounds, encoding: json.encoding },
        })
    }

    fn tile_path(&self, z: u32, x: u32, y: u32) -> PathBuf {
        let y = if self.tms { (1 << z) - 1 - y } else { y };
        self.dir.join(self.template.replace("{z}", &z.to_string()).replace("{x}", &x.to_string()).replace("{y}", &y.to_string()))
    }
}

impl TileSource for FolderSource {
    fn name(&self) -> String {
        self.dir.display().to_string()
    }

    fn index(&self) -> &SourceIndex {
        &self.index
    }

    fn tile_name(&self, z: u32, x: u32, y: u32) -> String {
        self.tile_path(z, x, y).display().to_string()
    }

    fn get(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<u8>>, TerrainError> {
        let path = self.tile_path(z, x, y);
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(crate::input::read_limited(&path, crate::input::TILE_BYTES, "tile")?))
    }
}

/// What kind of pyramid `path` is, from its type and extension: a folder, `.mbtiles`,
/// `.pmtiles` or a GeoTIFF read lazily (`.tif`, `.tiff`); None for anything else.
pub fn archive_kind(path: &Path) -> Option<&'static str> {
    if path.is_dir() {
        return Some("folder");
    }
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("mbtiles") => Some("mbtiles"),
        Some("pmtiles") => Some("pmtiles"),
        Some("tif" | "tiff") => Some("geotiff"),
        _ => None,
    }
}

/// Opens the pyramid at `path`: a folder with `tiles.json`, an `.mbtiles` or a `.pmtiles` archive,
/// a tiled GeoTIFF read lazily (`super::cog_source`), or an http(s) address (a URL template or a TileJSON).
pub fn open(path: &Path) -> Result<Box<dyn TileSource>, TerrainError> {
    if let Some(url) = path.to_str().filter(|p| super::http_source::is_url(p)) {
        return Ok(Box::new(super::http_source::HttpSource::open(url)?));
    }
    Ok(match archive_kind(path) {
        Some("folder") => Box::new(FolderSource::open(path)?),
        Some("mbtiles") => Box::new(super::mbtiles::MbTiles::open(path)?),
        Some("pmtiles") => Box::new(super::pmtiles::PmTiles::open(path)?),
        Some("geotiff") => Box::new(super::cog_source::CogSource::open(path)?),
        _ => {
            return Err(TerrainError::File {
                path: path.display().to_string(),
                problem: "not a tile pyramid: expected a folder with tiles.json, an .mbtiles or a .pmtiles archive".into(),
            })
        }
    })
}
