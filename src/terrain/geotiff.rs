//! GeoTIFF height rasters through the `tiff` crate: int16, uint16, int32 and float32 samples,
//! strips or tiles, uncompressed, deflate, LZW or PackBits; GeoKeys for geographic (EPSG:4326)
//! and projected rasters; nodata from GDAL_NODATA.

use std::path::Path;

use tiff::decoder::{Decoder, DecodingResult, Limits};
use tiff::tags::Tag;

use super::raster::{Crs, Raster};
use super::TerrainError;

/// Largest raster accepted, in samples (a 32768 x 32768 grid): a bound on memory for corrupt
/// or absurd headers.
pub const MAX_SAMPLES: u64 = crate::input::MAX_RASTER_SAMPLES;

/// Largest value of a tag read before the samples (GeoKeys, tie points, GDAL_NODATA).
const MAX_TAG_BYTES: usize = 1 << 20;

/// The GDAL_NODATA tag's number.
const GDAL_NODATA_TAG: u64 = 42113;

const GT_MODEL_TYPE: u16 = 1024;
const GT_RASTER_TYPE: u16 = 1025;
const GEOGRAPHIC_TYPE: u16 = 2048;
const PROJECTED_CS_TYPE: u16 = 3072;
const RASTER_PIXEL_IS_POINT: u16 = 2;
const MODEL_TYPE_GEOGRAPHIC: u16 = 2;

/// Reads the GeoTIFF at `path` (streamed: see [`read_from`] for what it accepts).
pub fn read(path: &Path) -> Result<Raster, TerrainError> {
    let name = path.display().to_string();
    let file =
        std::fs::File::open(path).map_err(|e| TerrainError::File { path: name.clone(), problem: format!("cannot open it ({e})") })?;
    let len_bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_from(std::io::BufReader::new(file), len_bytes, &name)
}

/// Reads a GeoTIFF held in memory; `name` names it in errors.
pub fn read_bytes(bytes: &[u8], name: &str) -> Result<Raster, TerrainError> {
    read_from(std::io::Cursor::new(bytes), bytes.len() as u64, name)
}

/// What is wrong with a TIFF's first image directory, in words.
#[derive(Debug)]
struct IfdProblem(String);

/// Checks that every tag of the first image directory of the TIFF in `reader` (`len_bytes`
/// long) has values that fit in the file, before the decoder allocates room for them (it reads
/// them with limits only set after it opened the file); leaves `reader` at the start. Files
/// that are not TIFFs pass, for the decoder to refuse.
fn check_first_ifd<R: std::io::Read + std::io::Seek>(reader: &mut R, len_bytes: u64) -> Result<(), IfdProblem> {
    use std::io::SeekFrom;
    let mut read = |at: u64, n: usize| -> Option<Vec<u8>> {
        let mut buf = vec![0; n];
        reader.seek(SeekFrom::Start(at)).ok()?;
        reader.read_exact(&mut buf).ok()?;
        Some(buf)
    };
    let Some(header) = read(0, 16) else { return Ok(()) };
    let little = match &header[..2] {
        b"II" => true,
        b"MM" => false,
        _ => return Ok(()),
    };
    let uint = |b: &[u8]| b.iter().enumerate().fold(0u64, |v, (i, &x)| if little { v | (x as u64) << (8 * i) } else { v << 8 | x as u64 });
    let big = match uint(&header[2..4]) {
        42 => false,
        43 => true,
        _ => return Ok(()),
    };
    let ifd = if big { uint(&header[8..16]) } else { uint(&header[4..8]) };
    let (count_bytes, entry_bytes, inline_bytes): (usize, usize, usize) = if big { (8, 20, 8) } else { (2, 12, 4) };
    let entries = read(ifd, count_bytes).map(|b| uint(&b)).unwrap_or(0).min(len_bytes / entry_bytes as u64);
    let table = read(ifd + count_bytes as u64, (entries * entry_bytes as u64) as usize).unwrap_or_default();
    for entry in table.chunks_exact(entry_bytes) {
        let type_bytes: u64 = match uint(&entry[2..4]) {
            1 | 2 | 6 | 7 => 1,
            3 | 8 => 2,
            4 | 9 | 11 | 13 => 4,
            5 | 10 | 12 | 16 | 17 | 18 => 8,
            _ => continue,
        };
        let count = if big { uint(&entry[4..12]) } else { uint(&entry[4..8]) };
        let value_bytes = count.saturating_mul(type_bytes);
        // The decoder reports an over-long GDAL_NODATA on stderr (a `dbg!`): refuse it first.
        if uint(&entry[..2]) == GDAL_NODATA_TAG && value_bytes > MAX_TAG_BYTES as u64 {
            return Err(IfdProblem(format!("GDAL_NODATA is {value_bytes} bytes long: not a number; the file is corrupt")));
        }
        if value_bytes > inline_bytes as u64 {
            let offset = uint(&entry[entry_bytes - inline_bytes..]);
            if offset.saturating_add(value_bytes) > len_bytes {
                return Err(IfdProblem(format!(
                    "tag {} claims {count} values, more than the file's {len_bytes} bytes hold; the file is truncated or corrupt",
                    uint(&entry[..2])
                )));
            }
        }
    }
    reader.seek(SeekFrom::Start(0)).map_err(|e| IfdProblem(format!("cannot read it ({e})")))?;
    Ok(())
}

/// Reads a GeoTIFF of `len_bytes` bytes from `reader`; `name` names it in errors.
///
/// Memory: the header is checked before the samples are allocated: at most [`MAX_SAMPLES`]
/// samples, and no more decoded bytes than `len_bytes` can expand to under the file's
/// compression (`crate::input::max_expansion`); tags read before the samples are limited to
/// 1 MiB each. The decoder's buffer is the samples' size, the heights 4 bytes a sample.
///
/// Heights: a sample equal to GDAL_NODATA, or a NaN float sample, is nodata (NaN is the usual
/// nodata of float rasters). Infinite samples and heights outside
/// `crate::input::MIN_HEIGHT_M..=MAX_HEIGHT_M` are refused: they are corrupt data or an
/// undeclared nodata value (the error says to declare it in GDAL_NODATA).
pub fn read_from<R: std::io::Read + std::io::Seek>(mut reader: R, len_bytes: u64, name: &str) -> Result<Raster, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    check_first_ifd(&mut reader, len_bytes).map_err(|e| bad(e.0))?;
    let decoder = Decoder::new(reader).map_err(|e| bad(format!("not a readable TIFF ({e})")))?;
    let mut limits = Limits::default();
    limits.decoding_buffer_size = MAX_TAG_BYTES;
    limits.ifd_value_size = MAX_TAG_BYTES;
    limits.intermediate_buffer_size = MAX_TAG_BYTES;
    let mut decoder = decoder.with_limits(limits);
    let (width, height) = decoder.dimensions().map_err(|e| bad(format!("no image dimensions ({e})")))?;
    if width >= 2 && height >= 2 && width as u64 * height as u64 > MAX_SAMPLES {
        return Err(bad(format!("{width} x {height} samples is more than the {MAX_SAMPLES} a GeoTIFF read whole may have; convert it to a Cloud-Optimized GeoTIFF (gdal_translate -of COG IN.tif OUT.tif), which is read tile by tile, or build a pyramid with bisector tiles")));
    }
    if width < 2 || height < 2 {
        return Err(bad(format!("{width} x {height} samples is not a usable height raster (2 x 2 up to {MAX_SAMPLES} samples)")));
    }
    let channels = decoder.find_tag(Tag::SamplesPerPixel).ok().flatten().and_then(|v| v.into_u16().ok()).unwrap_or(1);
    if channels != 1 {
        return Err(bad(format!("{channels} samples per pixel: heights must be one channel of int16, uint16, int32 or float32")));
    }
    let compression = decoder.find_tag(Tag::Compression).ok().flatten().and_then(|v| v.into_u16().ok()).unwrap_or(1);
    let sample_bytes = decoder
        .find_tag(Tag::BitsPerSample)
        .ok()
        .flatten()
        .and_then(|v| v.into_u16().ok())
        .map_or(1, |bits| (bits as u64).div_ceil(8).max(1));
    let decoded_bytes = width as u64 * height as u64 * sample_bytes;
    let expansion = crate::input::max_expansion(compression)
        .ok_or_else(|| bad(format!(
            "compression {} is not supported here (uncompressed, PackBits, LZW or deflate; ZSTD in tiled GeoTIFFs); convert it with gdal_translate -of COG -co COMPRESS=DEFLATE IN.tif OUT.tif",
            super::cog_decode::compression_name(compression)
        )))?;
    if decoded_bytes > len_bytes.saturating_mul(expansion) {
        return Err(bad(format!("the header claims {width} x {height} samples of {sample_bytes} bytes, more than the file's {len_bytes} bytes can hold; the file is truncated or corrupt")));
    }
    let geo_vec =
        |decoder: &mut Decoder<_>, tag: Tag, name: &str| -> Result<Vec<f64>, TerrainError> {
            decoder.find_tag(tag).ok().flatten().and_then(|v| v.into_f64_vec().ok()).ok_or_else(|| {
                bad(format!("no {name} tag: not a GeoTIFF, or one placed by a transformation matrix, which is not supported"))
            })
        };
    let scale = geo_vec(&mut decoder, Tag::ModelPixelScaleTag, "ModelPixelScale")?;
    let tiepoint = geo_vec(&mut decoder, Tag::ModelTiepointTag, "ModelTiepoint")?;
    let keys = decoder.find_tag(Tag::GeoKeyDirectoryTag).ok().flatten().and_then(|v| v.into_u16_vec().ok()).unwrap_or_default();
    let (origin, crs) = georeference(&scale, &tiepoint, &keys, name)?;
    let nodata: Option<f64> = decoder
        .find_tag(Tag::GdalNodata)
        .ok()
        .flatten()
        .and_then(|v| v.into_string().ok())
        .map(|s| s.trim_matches(char::from(0)).trim().to_string())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f64>().map_err(|_| bad(format!("GDAL_NODATA '{s}' is not a number"))))
        .transpose()?;
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(decoded_bytes).unwrap_or(usize::MAX);
    limits.intermediate_buffer_size = usize::try_from(decoded_bytes.max(len_bytes)).unwrap_or(usize::MAX);
    limits.ifd_value_size = MAX_TAG_BYTES;
    let mut decoder = decoder.with_limits(limits);
    let image = decoder.read_image().map_err(|e| bad(format!("cannot decode the samples ({e})")))?;
    // A nodata value the sample type cannot hold (e.g. 3.4e38 in int16) matches no sample.
    // Infinities stay infinite, for `check_heights` to refuse.
    let convert = |v: f64| if nodata == Some(v) || v.is_nan() { f32::NAN } else { v as f32 };
    let heights_m: Vec<f32> = match image {
        DecodingResult::I16(v) => v.into_iter().map(|x| convert(x as f64)).collect(),
        DecodingResult::U16(v) => v.into_iter().map(|x| convert(x as f64)).collect(),
        DecodingResult::I32(v) => v.into_iter().map(|x| convert(x as f64)).collect(),
        DecodingResult::F32(v) => v.into_iter().map(|x| convert(x as f64)).collect(),
        _ => return Err(bad("samples must be one channel of int16, uint16, int32 or float32".into())),
    };
    if heights_m.len() != width as usize * height as usize {
        return Err(bad(format!("{} samples for a {width} x {height} raster: one channel expected", heights_m.len())));
    }
    let raster = Raster { width, height, heights_m, origin, step: (scale[0], scale[1]), crs };
    raster.check_heights(name, "; if it marks missing data, declare it in GDAL_NODATA (gdal_edit.py -a_nodata VALUE)")?;
    Ok(raster)
}

/// The position of sample (0, 0) and the CRS from a GeoTIFF's ModelPixelScale, ModelTiepoint
/// and GeoKeyDirectory values (also `super::cog`'s); `name` names the file in errors.
pub(crate) fn georeference(scale: &[f64], tiepoint: &[f64], keys: &[u16], name: &str) -> Result<((f64, f64), Crs), TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    if scale.len() < 2 || tiepoint.len() < 6 || scale[0] <= 0.0 || scale[1] <= 0.0 || scale.iter().chain(tiepoint).any(|v| !v.is_finite()) {
        return Err(bad(format!("invalid georeferencing (pixel scale {scale:?}, tie point {tiepoint:?})")));
    }
    let key = |id: u16| keys.get(4..).unwrap_or(&[]).chunks_exact(4).find(|e| e[0] == id && e[1] == 0).map(|e| e[3]);
    let crs = match (key(GT_MODEL_TYPE), key(PROJECTED_CS_TYPE), key(GEOGRAPHIC_TYPE)) {
        (Some(MODEL_TYPE_GEOGRAPHIC), _, Some(4326)) | (Some(MODEL_TYPE_GEOGRAPHIC), _, None) => Crs::Geographic,
        (Some(MODEL_TYPE_GEOGRAPHIC), _, Some(other)) => {
            return Err(bad(format!("geographic system EPSG:{other} is not supported (only EPSG:4326)")))
        }
        (_, Some(epsg), _) => Crs::Projected { epsg },
        _ => return Err(bad("GeoKeys name no coordinate system (neither EPSG:4326 nor a projected EPSG code)".into())),
    };
    // PixelIsArea (the default): the tie point is a pixel's corner, its sample sits half a pixel in.
    let half = if key(GT_RASTER_TYPE) == Some(RASTER_PIXEL_IS_POINT) { 0.0 } else { 0.5 };
    let origin = (tiepoint[3] + (half - tiepoint[0]) * scale[0], tiepoint[4] - (half - tiepoint[1]) * scale[1]);
    Ok((origin, crs))
}
