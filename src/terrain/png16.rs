//! 16-bit greyscale PNG height maps with a user-given height scale and extent: sample value v
//! is v * scale_m metres; the image spans size_m metres west to east (square pixels), its first
//! row at the north edge, in local metres from the south-west corner.

use std::path::Path;

use super::raster::{Crs, Raster};
use super::TerrainError;

/// Reads `path` as a one-channel 16-bit PNG.
pub fn read(path: &Path, scale_m: f64, size_m: f64) -> Result<Raster, TerrainError> {
    let bad = |problem: String| TerrainError::File { path: path.display().to_string(), problem };
    let decoded = image::open(path).map_err(|e| bad(format!("not a readable PNG ({e})")))?;
    let image::DynamicImage::ImageLuma16(image) = decoded else {
        return Err(bad(format!("heights must be a 16-bit greyscale PNG, this one is {:?}", decoded.color())));
    };
    let (width, height) = image.dimensions();
    if width < 2 || height < 2 {
        return Err(bad(format!("{width} x {height} pixels is too small for a height map (2 x 2 at least)")));
    }
    let step = size_m / (width - 1) as f64;
    Ok(Raster {
        width,
        height,
        heights_m: image.into_raw().into_iter().map(|v| (v as f64 * scale_m) as f32).collect(),
        origin: (0.0, (height - 1) as f64 * step),
        step: (step, step),
        crs: Crs::Local,
    })
}
