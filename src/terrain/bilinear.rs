//! Bilinear interpolation, written once for every CPU sampler: the GPU's f32 form (`lerp2`, as
//! the shaders blend texels: the height field, the tile cache's twin) and the data-aware f64 form
//! (`weights`, `over_present`: rasters, tile pyramids, the layered Earth's grids), which leaves
//! out corners without data and renormalises the rest.

/// Bilinear at fraction `f` (x, y in [0, 1]) between corners `h` = [h00, h10, h01, h11] in f32,
/// in the order the shaders compute it: along x on both rows, then along y.
pub fn lerp2(f: [f32; 2], h: [f32; 4]) -> f32 {
    let a = h[0] + (h[1] - h[0]) * f[0];
    let b = h[2] + (h[3] - h[2]) * f[0];
    a + (b - a) * f[1]
}

/// The weights of corners (0, 0), (1, 0), (0, 1), (1, 1) at fraction (`fx`, `fy`).
pub fn weights(fx: f64, fy: f64) -> [f64; 4] {
    [(1.0 - fx) * (1.0 - fy), fx * (1.0 - fy), (1.0 - fx) * fy, fx * fy]
}

/// Bilinear over the corners that have data (`Some`, in the order of `weights`) at fraction
/// (`fx`, `fy`), the others' weights left out and the rest renormalised: the value and the weight
/// on corners with data (1 inside the data). None when no corner of positive weight has data.
pub fn over_present(corners: [Option<f32>; 4], fx: f64, fy: f64) -> Option<(f32, f64)> {
    let (mut sum, mut weight) = (0.0f64, 0.0f64);
    for (h, w) in corners.into_iter().zip(weights(fx, fy)) {
        if let Some(h) = h.filter(|_| w > 0.0) {
            sum += h as f64 * w;
            weight += w;
        }
    }
    (weight > 0.0).then(|| ((sum / weight) as f32, weight))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    #[test]
    fn both_forms_agree_and_the_data_aware_one_renormalises() {
        let mut rng = XorShift::fresh("both_forms_agree_and_the_data_aware_one_renormalises");
        for _ in 0..1000 {
            let h: [f32; 4] = std::array::from_fn(|_| rng.range(-500.0, 4000.0) as f32);
            let (fx, fy) = (rng.unit(), rng.unit());
            let gpu = lerp2([fx as f32, fy as f32], h);
            let (all, weight) = over_present(h.map(Some), fx, fy).unwrap();
            assert!((gpu - all).abs() <= 1e-3, "{gpu} vs {all}");
            assert!((weight - 1.0).abs() < 1e-12, "{weight}");
            // At a corner the value is that corner's (exactly at the first; at the others within
            // the rounding of h0 + (h1 - h0), as on the GPU).
            assert_eq!(lerp2([0.0, 0.0], h), h[0]);
            assert!((lerp2([1.0, 1.0], h) - h[3]).abs() <= 1e-3);
            // Without corner 3 the rest renormalise: a constant stays constant.
            let c = rng.range(-100.0, 100.0) as f32;
            let (value, weight) = over_present([Some(c), Some(c), Some(c), None], fx, fy).unwrap();
            assert!((value - c).abs() < 1e-4 && (weight - (1.0 - fx * fy)).abs() < 1e-12, "{value} {weight}");
        }
        assert_eq!(over_present([None, None, None, None], 0.5, 0.5), None);
        assert_eq!(over_present([None, Some(1.0), None, None], 0.0, 0.0), None, "a zero-weight corner is no data");
    }
}
