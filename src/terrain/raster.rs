//! A georeferenced grid of heights and the sampling every height query goes through (bilinear
//! between sample points; `None` where there is no data).

use super::bilinear;

/// The coordinate system of a raster's sample positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crs {
    /// Longitude, latitude in degrees (EPSG:4326).
    Geographic,
    /// Easting, northing in metres of a projected system (EPSG code, e.g. 32611 for UTM 11N).
    Projected { epsg: u16 },
    /// Metres from the south-west corner (a PNG height map).
    Local,
}

/// Heights on a regular grid. Sample (col, row) sits at
/// (origin_x + col * step_x, origin_y - row * step_y): rows run from north to south.
#[derive(Clone, Debug)]
pub struct Raster {
    pub width: u32,
    pub height: u32,
    /// Heights in metres, row-major; NaN where there is no data.
    pub heights_m: Vec<f32>,
    /// Position of sample (0, 0) in the CRS.
    pub origin: (f64, f64),
    /// Distance between samples in CRS units (degrees or metres), both positive.
    pub step: (f64, f64),
    pub crs: Crs,
}

/// `Raster::sample_m` over any grid of `size` (width, height) samples placed by `origin` and
/// `step`, whose sample (col, row) `at` reads (NaN: no data; an error stops the sampling): the
/// one bilinear rule for rasters held whole and for GeoTIFFs read tile by tile (`super::cog`).
pub fn sample_grid_m<E>(
    size: (u32, u32),
    origin: (f64, f64),
    step: (f64, f64),
    x: f64,
    y: f64,
    mut at: impl FnMut(u32, u32) -> Result<f32, E>,
) -> Result<Option<f32>, E> {
    let (width, height) = size;
    let col = (x - origin.0) / step.0;
    let row = (origin.1 - y) / step.1;
    let (max_col, max_row) = ((width - 1) as f64, (height - 1) as f64);
    // Half a sample of tolerance at the edges, where the renderer still shows the edge sample.
    if !(-0.5..=max_col + 0.5).contains(&col) || !(-0.5..=max_row + 0.5).contains(&row) {
        return Ok(None);
    }
    let (col, row) = (col.clamp(0.0, max_col), row.clamp(0.0, max_row));
    let (c0, r0) = (col.floor() as u32, row.floor() as u32);
    let (c1, r1) = ((c0 + 1).min(width - 1), (r0 + 1).min(height - 1));
    let (fc, fr) = (col - c0 as f64, row - r0 as f64);
    let mut present = |c: u32, r: u32| at(c, r).map(|h| Some(h).filter(|h| !h.is_nan()));
    let corners = [present(c0, r0)?, present(c1, r0)?, present(c0, r1)?, present(c1, r1)?];
    if let Some((height_m, _)) = bilinear::over_present(corners, fc, fr) {
        Ok(Some(height_m))
    } else {
        let nearest = at(col.round() as u32, row.round() as u32)?;
        Ok((!nearest.is_nan()).then_some(nearest))
    }
}

impl Raster {
    /// Refuses heights that cannot be real: infinite, or outside
    /// `crate::input::MIN_HEIGHT_M..=MAX_HEIGHT_M` (NaN is nodata and passes); the error names
    /// `file`, the first such sample and ends with `advice`.
    pub fn check_heights(&self, file: &str, advice: &str) -> Result<(), super::TerrainError> {
        use crate::input::{MAX_HEIGHT_M, MIN_HEIGHT_M};
        let width = self.width.max(1) as usize;
        match self.heights_m.iter().position(|&h| !h.is_nan() && !(MIN_HEIGHT_M..=MAX_HEIGHT_M).contains(&h)) {
            None => Ok(()),
            Some(i) => Err(super::TerrainError::File {
                path: file.to_string(),
                problem: format!(
                    "height {} m at sample (column {}, row {}) is outside {MIN_HEIGHT_M}..{MAX_HEIGHT_M} m: not a height on Earth{advice}",
                    self.heights_m[i],
                    i % width,
                    i / width
                ),
            }),
        }
    }

    /// The height at (x, y) in the raster's CRS, bilinear between the four surrounding samples;
    /// samples without data are left out and the weights renormalised. None outside the raster
    /// or where all four have no data.
    pub fn sample_m(&self, x: f64, y: f64) -> Option<f32> {
        let at = |c: u32, r: u32| Ok::<f32, std::convert::Infallible>(self.heights_m[(r * self.width + c) as usize]);
        match sample_grid_m((self.width, self.height), self.origin, self.step, x, y, at) {
            Ok(h) => h,
            Err(never) => match never {},
        }
    }

    /// As `sample_m`, with the sample's coverage in (0, 1]: the share of the bilinear weight on
    /// samples with data (1 inside the data, falling continuously to 0 across a nodata edge).
    /// None outside the raster or where no weighted sample has data. With `sea_band_m` Some(b),
    /// samples within b of 0 m (|h| <= b) count as nodata too (the planet's sea rule,
    /// src/globe/earth.rs).
    pub fn sample_coverage_m(&self, x: f64, y: f64, sea_band_m: Option<f32>) -> Option<(f32, f64)> {
        let col = (x - self.origin.0) / self.step.0;
        let row = (self.origin.1 - y) / self.step.1;
        let (max_col, max_row) = ((self.width - 1) as f64, (self.height - 1) as f64);
        if !(-0.5..=max_col + 0.5).contains(&col) || !(-0.5..=max_row + 0.5).contains(&row) {
            return None;
        }
        let (col, row) = (col.clamp(0.0, max_col), row.clamp(0.0, max_row));
        let (c0, r0) = (col.floor() as u32, row.floor() as u32);
        let (c1, r1) = ((c0 + 1).min(self.width - 1), (r0 + 1).min(self.height - 1));
        let (fc, fr) = (col - c0 as f64, row - r0 as f64);
        let at = |c: u32, r: u32| {
            let h = self.heights_m[(r * self.width + c) as usize];
            (!(h.is_nan() || sea_band_m.is_some_and(|b| h.abs() <= b))).then_some(h)
        };
        bilinear::over_present([at(c0, r0), at(c1, r0), at(c0, r1), at(c1, r1)], fc, fr)
    }

    /// Lowest and highest height with data, and where the highest is (x, y in the CRS).
    pub fn stats(&self) -> Option<(f32, f32, (f64, f64))> {
        let mut best: Option<(f32, f32, usize)> = None;
        for (i, &h) in self.heights_m.iter().enumerate() {
            if h.is_nan() {
                continue;
            }
            best = Some(match best {
                None => (h, h, i),
                Some((lo, hi, at)) => (lo.min(h), if h > hi { h } else { hi }, if h > hi { i } else { at }),
            });
        }
        best.map(|(lo, hi, at)| (lo, hi, self.position(at as u32 % self.width, at as u32 / self.width)))
    }

    /// The CRS position of sample (col, row).
    pub fn position(&self, col: u32, row: u32) -> (f64, f64) {
        (self.origin.0 + col as f64 * self.step.0, self.origin.1 - row as f64 * self.step.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Raster {
        Raster {
            width: 3,
            height: 2,
            heights_m: vec![0.0, 10.0, 20.0, 100.0, f32::NAN, 120.0],
            origin: (10.0, 50.0),
            step: (1.0, 2.0),
            crs: Crs::Geographic,
        }
    }

    #[test]
    fn samples_hit_grid_points_and_interpolate() {
        let r = grid();
        assert_eq!(r.sample_m(10.0, 50.0), Some(0.0));
        assert_eq!(r.sample_m(12.0, 48.0), Some(120.0));
        assert_eq!(r.sample_m(10.5, 50.0), Some(5.0));
        assert_eq!(r.sample_m(10.0, 49.0), Some(50.0));
        // The missing sample (11, 48) is left out of its neighbours' interpolation.
        assert_eq!(r.sample_m(11.0, 48.0), None);
        assert_eq!(r.sample_m(11.0, 49.0), Some(10.0));
        assert_eq!(r.sample_m(9.0, 50.0), None);
        assert_eq!(r.sample_m(10.0, 53.0), None);
    }

    #[test]
    fn coverage_falls_across_a_nodata_edge() {
        let r = grid();
        assert_eq!(r.sample_coverage_m(10.5, 50.0, None), Some((5.0, 1.0)));
        // Half the weight on the missing sample (11, 48).
        assert_eq!(r.sample_coverage_m(11.0, 49.0, None), Some((10.0, 0.5)));
        assert_eq!(r.sample_coverage_m(11.0, 48.0, None), None);
        assert_eq!(r.sample_coverage_m(9.0, 50.0, None), None);
        // Zero as nodata: the 0 m sample (10, 50) drops out, half the weight is left.
        assert_eq!(r.sample_coverage_m(10.5, 50.0, Some(0.0)), Some((10.0, 0.5)));
        assert_eq!(r.sample_coverage_m(10.0, 50.0, Some(0.0)), None);
        // A band of 10 m around 0 m drops (11, 50) too, but not 20 m at (12, 50).
        assert_eq!(r.sample_coverage_m(11.0, 50.0, Some(10.0)), None);
        assert_eq!(r.sample_coverage_m(11.5, 50.0, Some(10.0)), Some((20.0, 0.5)));
        assert_eq!(r.sample_coverage_m(11.5, 50.0, Some(9.9)), Some((15.0, 1.0)));
    }

    #[test]
    fn stats_skip_missing_samples() {
        let (lo, hi, at) = grid().stats().unwrap();
        assert_eq!((lo, hi, at), (0.0, 120.0, (12.0, 48.0)));
    }
}
