//! 16-bit greyscale PNG height maps with a user-given height scale and extent: sample value v
//! is v * scale_m metres; the image spans size_m metres west to east (square pixels), its first
//! row at the north edge, in local metres from the south-west corner.

use std::path::Path;

use image::ImageDecoder;

use super::raster::{Crs, Raster};
use super::TerrainError;
use crate::input::{MAX_RASTER_SAMPLES, PNG16_BYTES};

/// Largest height scale, metres per sample unit (a 16-bit sample then spans 65 km).
pub const MAX_SCALE_M: f64 = 1000.0;
/// Largest width of a height map in metres (the Earth's circumference).
pub const MAX_SIZE_M: f64 = 4.0e7;

/// A height scale or width out of range (the message says which and why).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum ScaleError {
    #[error("height scale {} is out of range: SCALE_M is metres per sample unit, more than 0 and at most {MAX_SCALE_M}, e.g. 0.1", show(*.0))]
    Scale(f64),
    #[error("width {} is out of range: SIZE_M is the image's width in metres, more than 0 and at most {MAX_SIZE_M:e}, e.g. 20480", show(*.0))]
    Size(f64),
}

/// A number as the messages show it: scientific when very large or small.
fn show(v: f64) -> String {
    if v != 0.0 && v.is_finite() && (v.abs() >= 1e7 || v.abs() < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Checks a height scale and width: finite, scale in (0, MAX_SCALE_M] metres per unit and size
/// in (0, MAX_SIZE_M] metres.
pub fn check_scale(scale_m: f64, size_m: f64) -> Result<(), ScaleError> {
    if !(scale_m > 0.0 && scale_m <= MAX_SCALE_M) {
        return Err(ScaleError::Scale(scale_m));
    }
    if !(size_m > 0.0 && size_m <= MAX_SIZE_M) {
        return Err(ScaleError::Size(size_m));
    }
    Ok(())
}

/// Reads `path` (at most `crate::input::PNG16_BYTES`) as a one-channel 16-bit PNG.
pub fn read(path: &Path, scale_m: f64, size_m: f64) -> Result<Raster, TerrainError> {
    let bytes = crate::input::read_limited(path, PNG16_BYTES, "height map")?;
    read_bytes(&bytes, &path.display().to_string(), scale_m, size_m)
}

/// Decodes a one-channel 16-bit PNG held in memory; `name` names it in errors. At most
/// `crate::input::MAX_RASTER_SAMPLES` samples (checked before decoding); heights must lie in
/// `crate::input::MIN_HEIGHT_M..=MAX_HEIGHT_M`.
pub fn read_bytes(bytes: &[u8], name: &str, scale_m: f64, size_m: f64) -> Result<Raster, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: name.to_string(), problem };
    check_scale(scale_m, size_m).map_err(|e| bad(e.to_string()))?;
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Png);
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(MAX_RASTER_SAMPLES * 2);
    reader.limits(limits);
    let decoder = reader.into_decoder().map_err(|e| bad(format!("not a readable PNG ({e})")))?;
    let (width, height) = decoder.dimensions();
    if width < 2 || height < 2 || width as u64 * height as u64 > MAX_RASTER_SAMPLES {
        return Err(bad(format!("{width} x {height} pixels is not a usable height map (2 x 2 up to {MAX_RASTER_SAMPLES} samples)")));
    }
    if decoder.total_bytes() > bytes.len() as u64 * crate::input::PNG_MAX_EXPANSION {
        return Err(bad(format!(
            "the header claims {width} x {height} pixels, more than the file's {} bytes can hold; the file is truncated or corrupt",
            bytes.len()
        )));
    }
    if decoder.color_type() != image::ColorType::L16 {
        return Err(bad(format!("heights must be a 16-bit greyscale PNG, this one is {:?}", decoder.color_type())));
    }
    let decoded = image::DynamicImage::from_decoder(decoder).map_err(|e| bad(format!("not a readable PNG ({e})")))?;
    let image::DynamicImage::ImageLuma16(image) = decoded else {
        return Err(bad(format!("heights must be a 16-bit greyscale PNG, this one is {:?}", decoded.color())));
    };
    let step = size_m / (width - 1) as f64;
    let raster = Raster {
        width,
        height,
        heights_m: image.into_raw().into_iter().map(|v| (v as f64 * scale_m) as f32).collect(),
        origin: (0.0, (height - 1) as f64 * step),
        step: (step, step),
        crs: Crs::Local,
    };
    raster.check_heights(name, &format!(" with SCALE_M {scale_m}; check the height scale"))?;
    Ok(raster)
}
