//! The files of a tile pyramid, decoded from bytes: the TileJSON index (`tiles.json`) and one
//! Terrain-RGB/Terrarium PNG tile. `pyramid` reads the files (within `crate::input`'s limits)
//! and keeps the tiles; the fuzz targets and the mutation test call these directly.

use image::ImageDecoder;

use super::pyramid::Encoding;
use super::TerrainError;
use crate::input::{MAX_HEIGHT_M, MIN_HEIGHT_M};

/// Largest tile side accepted, in pixels.
pub const MAX_TILE_SIZE: u32 = 4096;

/// Most bytes the PNG decoder may allocate for one tile (a 4096 px tile of 16-bit RGBA).
pub const MAX_TILE_DECODE_BYTES: u64 = MAX_TILE_SIZE as u64 * MAX_TILE_SIZE as u64 * 8;

#[derive(serde::Deserialize)]
struct TileJson {
    tiles: Vec<String>,
    minzoom: u32,
    maxzoom: u32,
    #[serde(default)]
    scheme: Option<String>,
    #[serde(default)]
    bounds: Option<[f64; 4]>,
    #[serde(default)]
    encoding: Option<String>,
}

/// What a TileJSON index says about a pyramid, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct TileIndex {
    /// Tile path relative to the folder, with `{z}`, `{x}` and `{y}`.
    pub template: String,
    pub min_zoom: u32,
    /// At most 24.
    pub max_zoom: u32,
    /// TMS rows (y grows northwards) instead of XYZ.
    pub tms: bool,
    /// West, south, east, north in degrees (finite, west < east, south < north, on the globe).
    pub bounds: Option<[f64; 4]>,
    pub encoding: Encoding,
}

/// Parses a TileJSON index; `name` names the file in errors.
pub fn parse_tilejson(bytes: &[u8], name: &str) -> Result<TileIndex, TerrainError> {
    parse_tilejson_at(bytes, name, false)
}

/// As [`parse_tilejson`]; with `remote` (a TileJSON fetched over HTTP) the tile template may
/// also be an absolute http(s) address, `{-y}` may stand for `{y}` with TMS rows.
pub fn parse_tilejson_at(bytes: &[u8], name: &str, remote: bool) -> Result<TileIndex, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    let json: TileJson = serde_json::from_slice(bytes).map_err(|e| bad(format!("not valid TileJSON ({e})")))?;
    let template = json.tiles.first().cloned().ok_or_else(|| bad("`tiles` is empty".into()))?;
    let remote_ok = remote && (!template.contains("://") || super::http_source::is_url(&template));
    if (template.contains("://") && !remote_ok) || !template.contains("{z}") || !template.contains("{x}") || !template.contains("{y}") {
        let what = if remote { "a relative path or an http(s) address" } else { "a relative path" };
        return Err(bad(format!("tile template '{template}' must be {what} with {{z}}, {{x}} and {{y}}")));
    }
    if json.minzoom > json.maxzoom || json.maxzoom > 24 {
        return Err(bad(format!("zoom range {}..{} is not usable (0 <= minzoom <= maxzoom <= 24)", json.minzoom, json.maxzoom)));
    }
    let tms = match json.scheme.as_deref() {
        None | Some("xyz") => false,
        Some("tms") => true,
        Some(other) => return Err(bad(format!("scheme '{other}' is not xyz or tms"))),
    };
    let encoding = match json.encoding.as_deref() {
        None | Some("mapbox") | Some("terrain-rgb") => Encoding::TerrainRgb,
        Some("terrarium") => Encoding::Terrarium,
        Some(other) => return Err(bad(format!("encoding '{other}' is not mapbox (Terrain-RGB) or terrarium"))),
    };
    if let Some([west, south, east, north]) = json.bounds {
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
    Ok(TileIndex { template, min_zoom: json.minzoom, max_zoom: json.maxzoom, tms, bounds: json.bounds, encoding })
}

/// One tile's decoded content.
#[derive(Clone, Debug, PartialEq)]
pub enum TileContent {
    /// Row-major heights in metres, tile_size^2 of them (NaN: nodata).
    Heights(Vec<f32>),
    /// The tile cannot hold Terrain-RGB/Terrarium heights (wrong pixel format, or heights that
    /// are not on Earth): why, for one warning line. The pyramid reads it as absent.
    Rejected(String),
}

fn png_decoder(bytes: &[u8]) -> image::ImageResult<impl ImageDecoder + '_> {
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Png);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_TILE_SIZE);
    limits.max_image_height = Some(MAX_TILE_SIZE);
    limits.max_alloc = Some(MAX_TILE_DECODE_BYTES);
    reader.limits(limits);
    reader.into_decoder()
}

/// The side in pixels of the square tile in `bytes` (from its header only); `name` names it in
/// errors.
pub fn tile_size_px(bytes: &[u8], name: &str) -> Result<u32, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    let (w, h) = png_decoder(bytes)
        .map_err(|e| bad(format!("not a readable PNG tile ({e}); tiles must be square, at most {MAX_TILE_SIZE} px")))?
        .dimensions();
    if w != h || w == 0 {
        return Err(bad(format!("tiles must be square, at most {MAX_TILE_SIZE} px; this one is {w} x {h}")));
    }
    Ok(w)
}

/// A human name of a PNG pixel format, for warnings ("16-bit greyscale").
fn describe(color: image::ColorType) -> String {
    use image::ColorType::*;
    match color {
        L8 => "8-bit greyscale".into(),
        La8 => "8-bit greyscale+alpha".into(),
        L16 => "16-bit greyscale".into(),
        La16 => "16-bit greyscale+alpha".into(),
        Rgb16 => "16-bit RGB".into(),
        Rgba16 => "16-bit RGBA".into(),
        other => format!("{other:?}"),
    }
}

/// Decodes a Terrain-RGB or Terrarium tile of `tile_size_px` pixels a side. An unreadable PNG or
/// one of another size is an error; a tile whose pixels cannot be `encoding` (anything but 8-bit
/// RGB or RGBA: greyscale, 16-bit) or that decodes to heights outside
/// `crate::input::MIN_HEIGHT_M..=MAX_HEIGHT_M` is [`TileContent::Rejected`].
pub fn decode_tile(bytes: &[u8], encoding: Encoding, tile_size_px: u32, name: &str) -> Result<TileContent, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    let decoder = png_decoder(bytes).map_err(|e| bad(format!("not a readable PNG ({e})")))?;
    let (w, h) = decoder.dimensions();
    if (w, h) != (tile_size_px, tile_size_px) {
        return Err(bad(format!("{w} x {h} px, but the pyramid's tiles are {tile_size_px} px")));
    }
    if decoder.total_bytes() > bytes.len() as u64 * crate::input::PNG_MAX_EXPANSION {
        return Err(bad(format!(
            "the header claims {w} x {h} pixels, more than the file's {} bytes can hold; the file is truncated or corrupt",
            bytes.len()
        )));
    }
    let color = decoder.color_type();
    let encoding_name = match encoding {
        Encoding::TerrainRgb => "Terrain-RGB",
        Encoding::Terrarium => "Terrarium",
    };
    if !matches!(color, image::ColorType::Rgb8 | image::ColorType::Rgba8) {
        return Ok(TileContent::Rejected(format!("{} cannot be {encoding_name} (8-bit RGB or RGBA)", describe(color))));
    }
    let image = image::DynamicImage::from_decoder(decoder).map_err(|e| bad(format!("not a readable PNG ({e})")))?;
    let channels = if color == image::ColorType::Rgb8 { 3 } else { 4 };
    let pixels = image.as_bytes();
    let mut heights_m = Vec::with_capacity(pixels.len() / channels);
    for (i, p) in pixels.chunks_exact(channels).enumerate() {
        let h = encoding.decode(p[0], p[1], p[2]);
        if !h.is_nan() && !(MIN_HEIGHT_M..=MAX_HEIGHT_M).contains(&h) {
            let size = tile_size_px as usize;
            return Ok(TileContent::Rejected(format!(
                "height {h} m at pixel ({}, {}) is outside {MIN_HEIGHT_M}..{MAX_HEIGHT_M} m: not {encoding_name} heights on Earth",
                i % size,
                i / size
            )));
        }
        heights_m.push(h);
    }
    Ok(TileContent::Heights(heights_m))
}
