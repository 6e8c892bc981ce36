//! Detail below the data (issue 15 item 4): deterministic band-limited noise added to the
//! globe's heights at spacings finer than the finest data's samples, and the CPU twin of
//! shaders/shared/globe_detail.wgsl (f32, operation for operation; `--detail off` disables it).
//!
//! ```text
//! detail(p) = shore(h) x sum over i = 1..=6 of  w_i x 0.15 x slope x n_i(p) / 2^i
//!   n_i      gradient (Perlin) noise on the lattice of the finest zoom's cells / 2^i, on the
//!            octahedral map in fixed point: 0 at every lattice point, |n_i| < 1
//!   slope    the data's slope at p, metres per finest cell: steep ground gets rough detail,
//!            flat ground (beaches, plains) little; each octave halves the amplitude (a
//!            fractal continuation of the data with Hurst exponent 1)
//!   w_i      the octave faded in over an octave of distance: 0 while its spacing is under 1 px
//!            at the vertex, 1 from 2 px (no shimmer, no popping as the camera moves)
//!   shore(h) min(h / 2 m, 1) for data height h above 0 m; 0 over the sea and on the map's
//!            border (where the octahedral map folds, so both sides agree)
//! ```
//! Every data sample lies on every octave's lattice, so the detail is exactly 0 there: heights at
//! the data's own samples do not move (bound: 0 m, tested). Every octave's amplitude is at most
//! 0.15 slope / 2^i, so the detail stays within 0.15 x slope (x 63/64) of the data everywhere.

use crate::gpu::hash::fmix32;

/// Octaves of detail.
pub const DETAIL_OCTAVES: u32 = 6;
/// Octave i's amplitude is this x the slope (metres per finest cell) / 2^i.
pub const DETAIL_GAIN: f32 = 0.15;
/// Heights over which the detail fades in above sea level, metres.
pub const DETAIL_SHORE_M: f32 = 2.0;

const MAP_ONE: u32 = 1 << 30;

fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

const DIAGONAL: f32 = std::f32::consts::FRAC_1_SQRT_2;
const GRADIENTS: [[f32; 2]; 8] = [
    [1.0, 0.0],
    [-1.0, 0.0],
    [0.0, 1.0],
    [0.0, -1.0],
    [DIAGONAL, DIAGONAL],
    [-DIAGONAL, DIAGONAL],
    [DIAGONAL, -DIAGONAL],
    [-DIAGONAL, -DIAGONAL],
];

fn corner(c: [u32; 2], level: u32, f: [f32; 2]) -> f32 {
    let h = (fmix32(c[0] ^ fmix32(c[1] ^ fmix32(level ^ 0x9e37_79b9))) >> 29) as usize;
    GRADIENTS[h][0] * f[0] + GRADIENTS[h][1] * f[1]
}

/// Gradient noise on the lattice of 2^`level` cells per map side at fixed-point map point `map`.
/// Mirrors detail_noise.
pub fn noise(map: [u32; 2], level: u32) -> f32 {
    let shift = 30 - level;
    let c = [map[0] >> shift, map[1] >> shift];
    let mask = (1u32 << shift) - 1;
    let scale = (1u32 << shift) as f32;
    let f = [(map[0] & mask) as f32 / scale, (map[1] & mask) as f32 / scale];
    let n00 = corner(c, level, f);
    let n10 = corner([c[0].wrapping_add(1), c[1]], level, [f[0] - 1.0, f[1]]);
    let n01 = corner([c[0], c[1].wrapping_add(1)], level, [f[0], f[1] - 1.0]);
    let n11 = corner([c[0].wrapping_add(1), c[1].wrapping_add(1)], level, [f[0] - 1.0, f[1] - 1.0]);
    let u = [fade(f[0]), fade(f[1])];
    let a = n00 + (n10 - n00) * u[0];
    let b = n01 + (n11 - n01) * u[0];
    a + (b - a) * u[1]
}

/// The detail in metres at fixed-point map point `map` where the data gives `data_m` and a slope
/// of `slope_m` metres per cell of the finest zoom `max_zoom`, at a vertex whose pixel spans
/// `pixel_m` metres (`f32::MIN_POSITIVE` or less: every octave). Mirrors globe_detail_from_m.
pub fn detail_m(map: [u32; 2], slope_m: f32, data_m: f32, pixel_m: f32, max_zoom: u32) -> f32 {
    if map.contains(&0) || map[0] >= MAP_ONE || map[1] >= MAP_ONE || data_m.is_nan() || data_m <= 0.0 {
        return 0.0;
    }
    let shore = (data_m / DETAIL_SHORE_M).clamp(0.0, 1.0);
    let cell_m = crate::globe::MAP_SIDE_M as f32 / (128u32 << max_zoom) as f32;
    let mut sum = 0.0f32;
    for i in 1..=DETAIL_OCTAVES {
        let level = max_zoom + 7 + i;
        if level > 30 {
            break;
        }
        let spacing_m = cell_m / (1u32 << i) as f32;
        let weight = (spacing_m / pixel_m - 1.0).clamp(0.0, 1.0);
        if weight > 0.0 {
            sum += weight * (DETAIL_GAIN * slope_m / (1u32 << i) as f32) * noise(map, level);
        }
    }
    shore * sum
}

/// The largest detail any point can get where the slope is `slope_m` (metres per finest cell).
pub fn amplitude_bound_m(slope_m: f32) -> f32 {
    (1..=DETAIL_OCTAVES).map(|i| DETAIL_GAIN * slope_m / (1u32 << i) as f32).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    #[test]
    fn detail_is_zero_at_the_data_samples_and_bounded_elsewhere() {
        let mut rng = XorShift::fresh("detail_is_zero_at_the_data_samples_and_bounded_elsewhere");
        for _ in 0..20_000 {
            let max_zoom = 4 + (rng.next_u64() % 12) as u32;
            let slope_m = rng.range(0.0, 40.0) as f32;
            let data_m = rng.range(-50.0, 3000.0) as f32;
            // A data sample: a multiple of the finest cell (2^(30 - max_zoom - 7) fixed units).
            let cell = 1u32 << (23 - max_zoom);
            let sample = [(rng.next_u64() as u32 % (MAP_ONE / cell)) * cell, (rng.next_u64() as u32 % (MAP_ONE / cell)) * cell];
            assert_eq!(detail_m(sample, slope_m, data_m, 1e-9, max_zoom), 0.0, "{sample:?} at zoom {max_zoom}");
            let p = [1 + rng.next_u64() as u32 % (MAP_ONE - 1), 1 + rng.next_u64() as u32 % (MAP_ONE - 1)];
            let d = detail_m(p, slope_m, data_m, 1e-9, max_zoom);
            assert!(d.abs() <= amplitude_bound_m(slope_m) + 1e-6, "{d} m at slope {slope_m}");
            if data_m <= 0.0 {
                assert_eq!(d, 0.0, "detail at sea");
            }
        }
        // Not zero in general: some detail where it is asked for.
        let some = (1..1000u32).filter(|&k| detail_m([k * 7919 + 12345, k * 104_729 + 999], 10.0, 100.0, 1e-9, 13) != 0.0).count();
        assert!(some > 900, "{some} of 999 points have detail");
    }
}
