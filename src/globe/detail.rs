//! Detail below the data (issue 15 item 4): deterministic band-limited noise added to the
//! globe's heights at spacings finer than the data's own samples, and the CPU twin of
//! shaders/shared/globe_detail.wgsl (f32, operation for operation; `--detail off` disables it).
//!
//! ```text
//! detail(p) = shore(h) x sum over i = 0, 1, 2, ... (lattice levels L = D + i <= 30) of
//!             f_i x w_i x 0.15 x slope x n_i(p) / 2^i
//!   D        the lattice level of the data's samples in the tile sampled (2^D per map side):
//!            zoom + 7 - N, N = floor(log2 c) the tile's native shift, c = native_cells (the
//!            data's samples are c of its cells apart; pass cache.tile_error stores N and
//!            log2 c - N in the error layer, src/globe/cache/tile_error.rs). A place's data has one
//!            spacing, so every tile at or finer than the data there gives the same D, whichever
//!            zoom a vertex samples; where data is coarser than the finest zoom (Taiwan's coast,
//!            about 2.4 zoom-13 cells; ETOPO's 37 km) the octaves start there, not one octave
//!            below the finest zoom's cells. A tile coarser than its data (c = 1) starts the
//!            octaves at its own cells: under 1-2 px at the zoom a vertex wants, so faded out
//!            (and only while a finer tile is still loading where it wants more)
//!   f_i      1, but f_0 = log2 c - N: the octave at level D itself is finer than the data by
//!            that fraction of an octave and comes in with it, so the detail is continuous in c
//!            (real data's c varies across the map: neighbouring tiles whose c straddles a power
//!            of two would otherwise differ by a whole octave along their common edge)
//!   n_i      gradient (Perlin) noise on the lattice of level D + i, on the octahedral map in
//!            fixed point: 0 at every lattice point, |n_i| < 1
//!   slope    the data's slope at p, metres per level-D cell (2^-D of the map's side): steep
//!            ground gets rough detail, flat ground (beaches, plains) little; octave i's amplitude
//!            is 0.15 x the gradient (m/m) x its own spacing (a fractal continuation of the data
//!            with Hurst exponent 1)
//!   w_i      the octave faded in over an octave of distance: 0 while its spacing is under 1 px
//!            at the vertex, 1 from 2 px (no shimmer, no popping as the camera moves); spacings
//!            fall with i, so the sum stops at the first octave of weight 0: its cost is the
//!            number of visible octaves
//!   shore(h) min(h / 2 m, 1) for data height h above 0 m; 0 over the sea and on the map's
//!            border (where the octahedral map folds, so both sides agree)
//! ```
//! Data whose samples lie on the level-D lattice (a power-of-two spacing aligned with the map:
//! the procedural planet, tiles at the data's zoom) lies on every octave's lattice, so the detail
//! is exactly 0 there: heights at the data's own samples do not move (bound: 0 m, tested). Every
//! octave's amplitude is at most 0.15 f_i slope / 2^i, so anywhere, samples of data that is not
//! lattice-aligned (real data resampled onto the map) included, the detail stays within
//! `amplitude_bound_m` = 0.15 x slope x (f_0 + 1 - 2^-(30 - D)) < 0.3 x the gradient x the
//! data's spacing of the data (tested).
//!
//! The shading's normals have the detail too (`detail_gradient`, shared/globe_shade.wgsl): the
//! gradient of the same sum, analytic (octave i's noise gradient per level-(D + i) cell, the
//! quintic fade differentiated, times f_i w_i 0.15 slope 2^D: its amplitude / 2^i times 2^(D + i)
//! cells per map unit), in metres per map unit as the data's gradient in the shading; the
//! amplitude's change with the slope and the shore's fade are left out (they vary at the data's
//! spacing, not the octaves'). Analytic rather than differences of `detail_m`: one evaluation
//! per octave instead of four (x and y either side), and no step to choose against f32 heights
//! (the sum's rounding, about 2^-24 of the coarsest octave's amplitude, over a step 2^-8 of the
//! finest of k octaves' cells is 2^(k - 16) of an octave's gradient). The weights are the pixel's at the pixel's distance, the same as a vertex's there, so
//! the light and the geometry agree; the octave at level 30 is left out (the fixed-point map's
//! points are its lattice, where it is 0: the heights have none of it). Tested against central
//! differences of `detail_m` (within 1e-2 of an octave's gradient scale 0.15 slope 2^D).

use crate::gpu::hash::fmix32;

/// The finest lattice level of the detail (the 32-bit fixed-point map's limit).
pub const DETAIL_FINEST_LEVEL: u32 = 30;
/// Octave i's amplitude is this x the slope (metres per data spacing) / 2^i.
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

/// The derivative of the quintic fade.
fn fade_slope(t: f32) -> f32 {
    30.0 * t * t * (t * (t - 2.0) + 1.0)
}

fn corner_gradient(c: [u32; 2], level: u32) -> [f32; 2] {
    GRADIENTS[(fmix32(c[0] ^ fmix32(c[1] ^ fmix32(level ^ 0x9e37_79b9))) >> 29) as usize]
}

fn corner(c: [u32; 2], level: u32, f: [f32; 2]) -> f32 {
    let g = corner_gradient(c, level);
    g[0] * f[0] + g[1] * f[1]
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

/// The gradient of `noise` at fixed-point map point `map`, per level-`level` cell (the derivative
/// of the quintic fade's interpolation of the corners' dot products). Mirrors detail_noise_gradient.
pub fn noise_gradient(map: [u32; 2], level: u32) -> [f32; 2] {
    let shift = 30 - level;
    let c = [map[0] >> shift, map[1] >> shift];
    let mask = (1u32 << shift) - 1;
    let scale = (1u32 << shift) as f32;
    let f = [(map[0] & mask) as f32 / scale, (map[1] & mask) as f32 / scale];
    let g00 = corner_gradient(c, level);
    let g10 = corner_gradient([c[0].wrapping_add(1), c[1]], level);
    let g01 = corner_gradient([c[0], c[1].wrapping_add(1)], level);
    let g11 = corner_gradient([c[0].wrapping_add(1), c[1].wrapping_add(1)], level);
    let n00 = g00[0] * f[0] + g00[1] * f[1];
    let n10 = g10[0] * (f[0] - 1.0) + g10[1] * f[1];
    let n01 = g01[0] * f[0] + g01[1] * (f[1] - 1.0);
    let n11 = g11[0] * (f[0] - 1.0) + g11[1] * (f[1] - 1.0);
    let u = [fade(f[0]), fade(f[1])];
    let du = [fade_slope(f[0]), fade_slope(f[1])];
    // n = a + (b - a) u_y with a, b the rows interpolated along x.
    let a = n00 + (n10 - n00) * u[0];
    let b = n01 + (n11 - n01) * u[0];
    let a_x = g00[0] + (g10[0] - g00[0]) * u[0] + (n10 - n00) * du[0];
    let b_x = g01[0] + (g11[0] - g01[0]) * u[0] + (n11 - n01) * du[0];
    let a_y = g00[1] + (g10[1] - g00[1]) * u[0];
    let b_y = g01[1] + (g11[1] - g01[1]) * u[0];
    [a_x + (b_x - a_x) * u[1], a_y + (b_y - a_y) * u[1] + (b - a) * du[1]]
}

/// The detail in metres at fixed-point map point `map` where the data gives `data_m` and a slope
/// of `slope_m` metres per level-`data_level` cell, the data's samples `first` (in [0, 1)) of an
/// octave coarser than the lattice of level `data_level` (2^`data_level` per map side), at a
/// vertex whose pixel spans `pixel_m` metres (0: every octave). Mirrors globe_detail_from_m.
pub fn detail_m(map: [u32; 2], slope_m: f32, data_m: f32, pixel_m: f32, data_level: u32, first: f32) -> f32 {
    let shore = shore(map, data_m);
    if shore <= 0.0 {
        return 0.0;
    }
    let sum = octaves(data_level, DETAIL_FINEST_LEVEL, pixel_m, first)
        .fold(0.0f32, |sum, (i, weight)| sum + weight * (DETAIL_GAIN * slope_m / (1u32 << i) as f32) * noise(map, data_level + i));
    shore * sum
}

/// The factor the detail and its gradient take at `map` where the data gives `data_m`: min(h / 2
/// m, 1) above sea level, 0 at sea (or no data) and on the map's border. Mirrors detail_shore.
fn shore(map: [u32; 2], data_m: f32) -> f32 {
    if map.contains(&0) || map[0] >= MAP_ONE || map[1] >= MAP_ONE || data_m.is_nan() || data_m <= 0.0 {
        return 0.0;
    }
    (data_m / DETAIL_SHORE_M).clamp(0.0, 1.0)
}

/// The octaves i from the data's lattice level `data_level` up to lattice level `last_level`, each
/// with its weight: faded in as its spacing grows from 1 to 2 pixels of `pixel_m` metres, octave 0
/// taking its share `first`; they end at the first octave under a pixel (spacings fall). Mirrors
/// detail_octave_fade and detail_octave_share.
fn octaves(data_level: u32, last_level: u32, pixel_m: f32, first: f32) -> impl Iterator<Item = (u32, f32)> {
    let cell_m = crate::globe::MAP_SIDE_M as f32 / (1u32 << data_level) as f32;
    (0..(last_level + 1).saturating_sub(data_level))
        .map(move |i| (i, ((cell_m / (1u32 << i) as f32) / pixel_m - 1.0).clamp(0.0, 1.0)))
        .take_while(|&(_, fade)| fade > 0.0)
        .map(move |(i, fade)| (i, fade * if i == 0 { first } else { 1.0 }))
}

/// The gradient of `detail_m` (same arguments) in metres per map unit (1.0 = the map's side, as
/// the data's gradient in the shading): each weighted octave's noise gradient times its amplitude
/// and weight (the amplitude's own change with the slope and the shore's are left out), analytic.
/// The octave at lattice level 30 is left out: it is 0 at every fixed-point map point (they are
/// its lattice), so the heights have none of it. Mirrors globe_detail_gradient.
pub fn detail_gradient(map: [u32; 2], slope_m: f32, data_m: f32, pixel_m: f32, data_level: u32, first: f32) -> [f32; 2] {
    let shore = shore(map, data_m);
    if shore <= 0.0 {
        return [0.0; 2];
    }
    let mut sum = [0.0f32; 2];
    // Level 30 left out (see above): the octaves end one level before DETAIL_FINEST_LEVEL.
    for (i, weight) in octaves(data_level, DETAIL_FINEST_LEVEL - 1, pixel_m, first) {
        // Amplitude slope / 2^i metres times 2^(data_level + i) cells per map unit: the 2^i cancel.
        let g = noise_gradient(map, data_level + i);
        sum = [sum[0] + weight * g[0], sum[1] + weight * g[1]];
    }
    let scale = shore * (DETAIL_GAIN * slope_m * (1u32 << data_level) as f32);
    [scale * sum[0], scale * sum[1]]
}

/// The largest detail any point can get where the slope is `slope_m` (metres per level-`data_level`
/// cell) and the data's samples are `first` of an octave coarser than that lattice (`detail_m`):
/// the sum of every octave's amplitude.
pub fn amplitude_bound_m(slope_m: f32, data_level: u32, first: f32) -> f32 {
    let finer: f32 = (1..=DETAIL_FINEST_LEVEL.saturating_sub(data_level)).map(|i| DETAIL_GAIN * slope_m / (1u32 << i) as f32).sum();
    DETAIL_GAIN * slope_m * first + finer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    #[test]
    fn detail_is_zero_at_the_data_samples_and_bounded_elsewhere() {
        let mut rng = XorShift::fresh("detail_is_zero_at_the_data_samples_and_bounded_elsewhere");
        for k in 0..20_000 {
            // Data from zoom 4 to 15 in tiles up to 6 zooms finer: levels 5 (zoom 4, N = 6) to 22.
            let data_level = 5 + (rng.next_u64() % 18) as u32;
            let first = if k % 4 == 0 { 0.0 } else { rng.unit() as f32 };
            let slope_m = rng.range(0.0, 40.0) as f32;
            let data_m = rng.range(-50.0, 3000.0) as f32;
            // A data sample on the level's lattice (2^(30 - data_level) fixed units apart).
            let cell = 1u32 << (30 - data_level);
            let sample = [(rng.next_u64() as u32 % (MAP_ONE / cell)) * cell, (rng.next_u64() as u32 % (MAP_ONE / cell)) * cell];
            assert_eq!(detail_m(sample, slope_m, data_m, 0.0, data_level, first), 0.0, "{sample:?} at level {data_level}");
            let p = [1 + rng.next_u64() as u32 % (MAP_ONE - 1), 1 + rng.next_u64() as u32 % (MAP_ONE - 1)];
            let d = detail_m(p, slope_m, data_m, 0.0, data_level, first);
            let bound = amplitude_bound_m(slope_m, data_level, first);
            assert!(d.abs() <= bound + 1e-6, "{d} m at slope {slope_m}");
            assert!(bound <= 2.0 * DETAIL_GAIN * slope_m, "{bound} m bound at slope {slope_m}");
            if data_m <= 0.0 {
                assert_eq!(d, 0.0, "detail at sea");
            }
            // Faded by pixel size: octaves under a pixel add nothing, so a pixel as large as the
            // lattice's cell (every octave under 1 px) leaves the data alone.
            let cell_m = crate::globe::MAP_SIDE_M as f32 / (1u32 << data_level) as f32;
            assert_eq!(detail_m(p, slope_m, data_m, cell_m, data_level, first), 0.0, "detail under a pixel");
        }
        // Not zero in general: some detail where it is asked for, for data at zoom 13 (level 20)
        // and for coarse data at zoom 10 under a zoom-13 tile (level 17).
        for data_level in [17, 20] {
            let some =
                (1..1000u32).filter(|&k| detail_m([k * 7919 + 12345, k * 104_729 + 999], 10.0, 100.0, 0.0, data_level, 0.0) != 0.0).count();
            assert!(some > 900, "{some} of 999 points have detail at level {data_level}");
        }
    }

    #[test]
    fn the_octaves_start_at_the_data_and_stop_at_the_pixel() {
        // Data at level 17 (zoom 10): its octaves of 76, 38 and 19 m show at a pixel of 10 m;
        // data at level 20 (zoom 13) has none that coarse, and its first (9.5 m) is under 1 px.
        let map = [123_456_789, 987_654_321];
        let coarse = detail_m(map, 30.0, 500.0, 10.0, 17, 0.0);
        assert!(coarse.abs() > 0.01, "{coarse}");
        assert_eq!(detail_m(map, 30.0 / 8.0, 500.0, 10.0, 20, 0.0), 0.0);
        // Only octaves down to the pixel: spacings of 76, 38 and 19 m at a 10 m pixel (the last
        // one faded by 0.9), none of the finer ones.
        let spacing_m = |level: u32| crate::globe::MAP_SIDE_M as f32 / (1u32 << level) as f32;
        let mut sum = 0.0f32;
        for i in 1..=3 {
            let weight = (spacing_m(17 + i) / 10.0 - 1.0).clamp(0.0, 1.0);
            sum += weight * (DETAIL_GAIN * 30.0 / (1u32 << i) as f32) * noise(map, 17 + i);
        }
        assert!(spacing_m(21) < 10.0);
        assert_eq!(coarse, sum);
    }

    #[test]
    fn the_detail_is_continuous_in_the_datas_spacing() {
        // Data 2^(N + f) cells apart: as f reaches 1 (level L, first -> 1), the detail becomes
        // that of the next shift (level L - 1, first 0, the same gradient: twice the slope per
        // cell), so tiles whose spacings straddle a power of two agree along their edges.
        let mut rng = XorShift::fresh("the_detail_is_continuous_in_the_datas_spacing");
        for _ in 0..5000 {
            let level = 6 + (rng.next_u64() % 20) as u32;
            let slope_m = rng.range(0.0, 40.0) as f32;
            let pixel_m = if rng.unit() < 0.3 { 0.0 } else { rng.range(0.01, 2000.0) as f32 };
            let p = [1 + rng.next_u64() as u32 % (MAP_ONE - 1), 1 + rng.next_u64() as u32 % (MAP_ONE - 1)];
            let at_one = detail_m(p, slope_m, 50.0, pixel_m, level, 1.0);
            let next = detail_m(p, 2.0 * slope_m, 50.0, pixel_m, level - 1, 0.0);
            assert!((at_one - next).abs() <= 1e-6 * amplitude_bound_m(slope_m, level, 1.0) + 1e-9, "{at_one} vs {next}");
            let almost = detail_m(p, slope_m, 50.0, pixel_m, level, 0.999);
            assert!((almost - next).abs() <= 2e-3 * DETAIL_GAIN * slope_m + 1e-6, "{almost} vs {next}");
        }
    }

    /// Central differences of `f` at `p` along x and y, `h` fixed-point units either side, per
    /// map unit.
    fn central(f: impl Fn([u32; 2]) -> f32, p: [u32; 2], h: u32) -> [f64; 2] {
        let per_map = MAP_ONE as f64 / (2.0 * h as f64);
        let dx = f64::from(f([p[0] + h, p[1]])) - f64::from(f([p[0] - h, p[1]]));
        let dy = f64::from(f([p[0], p[1] + h])) - f64::from(f([p[0], p[1] - h]));
        [dx * per_map, dy * per_map]
    }

    #[test]
    fn the_noise_gradient_equals_central_differences() {
        // Steps of 1/256 of a cell: the truncation error (h^2/6 x the third derivative, under
        // about 300 per cell^3) stays under 1e-3 per cell, the rounding (a few ulps of |n| < 1
        // over 2/256) under 1e-4; the gradient itself is up to about 6 per cell.
        let mut rng = XorShift::fresh("the_noise_gradient_equals_central_differences");
        let mut worst = 0.0f64;
        for _ in 0..20_000 {
            let level = 2 + (rng.next_u64() % 21) as u32;
            let h = 1u32 << (30 - level - 8);
            let p = [h + rng.next_u64() as u32 % (MAP_ONE - 2 * h), h + rng.next_u64() as u32 % (MAP_ONE - 2 * h)];
            let g = noise_gradient(p, level);
            let d = central(|q| noise(q, level), p, h);
            let cells = f64::from(1u32 << level);
            for k in 0..2 {
                let error = (f64::from(g[k]) - d[k] / cells).abs();
                worst = worst.max(error);
                assert!(error <= 2e-3, "{p:?} level {level}: analytic {g:?} central {:?} per cell", [d[0] / cells, d[1] / cells]);
            }
        }
        println!("worst noise gradient error {worst:.2e} per cell");
    }

    #[test]
    fn the_detail_gradient_equals_central_differences_of_the_detail() {
        // Up to 5 octaves above a pixel of `pixel_m`; steps of 1/256 of the finest one's cell.
        // Per octave the gradient is about G = DETAIL_GAIN x slope x 2^data_level (metres per map
        // unit; the 2^i of amplitude and cells cancel): tolerance 1e-2 G (truncation as in the
        // noise's test, and the rounding of heights up to 2 x DETAIL_GAIN x slope, a few ulps,
        // over steps 2^-8 of the finest cell, 2^-4 of the first: about 2e-3 G).
        let mut rng = XorShift::fresh("the_detail_gradient_equals_central_differences_of_the_detail");
        let mut worst = 0.0f64;
        let mut moving = 0;
        for k in 0..20_000 {
            let data_level = 5 + (rng.next_u64() % 14) as u32;
            let octaves = (rng.next_u64() % 5) as u32;
            let cell_m = crate::globe::MAP_SIDE_M as f32 / (1u32 << data_level) as f32;
            // Octave `octaves` is the finest of weight > 0 (its spacing over the pixel is in (1, 2.5]).
            let pixel_m = cell_m / (1u32 << octaves) as f32 * rng.range(0.4, 0.99) as f32;
            let first = if k % 4 == 0 { 0.0 } else { rng.unit() as f32 };
            let slope_m = rng.range(0.0, 40.0) as f32;
            let data_m = rng.range(0.0, 3000.0) as f32;
            let h = 1u32 << (30 - data_level - octaves - 8);
            let p = [h + rng.next_u64() as u32 % (MAP_ONE - 2 * h), h + rng.next_u64() as u32 % (MAP_ONE - 2 * h)];
            let g = detail_gradient(p, slope_m, data_m, pixel_m, data_level, first);
            let d = central(|q| detail_m(q, slope_m, data_m, pixel_m, data_level, first), p, h);
            let scale = f64::from(DETAIL_GAIN * slope_m) * f64::from(1u32 << data_level);
            for k in 0..2 {
                let error = (f64::from(g[k]) - d[k]).abs();
                worst = worst.max(error / scale.max(1e-30));
                assert!(error <= 1e-2 * scale + 1e-9, "{p:?} level {data_level} pixel {pixel_m} m: analytic {g:?} central {d:?}");
            }
            moving += (g[0] != 0.0) as usize;
        }
        assert!(moving > 15_000, "only {moving} points with a gradient");
        println!("worst detail gradient error {worst:.2e} G");
    }

    #[test]
    fn the_detail_gradient_is_zero_at_sea_on_the_border_and_under_a_pixel() {
        let mut rng = XorShift::fresh("the_detail_gradient_is_zero_at_sea_on_the_border_and_under_a_pixel");
        for _ in 0..5000 {
            let data_level = 5 + (rng.next_u64() % 20) as u32;
            let slope_m = rng.range(0.1, 40.0) as f32;
            let pixel_m = if rng.unit() < 0.5 { 0.0 } else { rng.range(0.01, 100.0) as f32 };
            let p = [1 + rng.next_u64() as u32 % (MAP_ONE - 1), 1 + rng.next_u64() as u32 % (MAP_ONE - 1)];
            let sea_m = rng.range(-5000.0, 0.0) as f32;
            assert_eq!(detail_gradient(p, slope_m, sea_m, pixel_m, data_level, 0.5), [0.0; 2], "at sea {p:?}");
            assert_eq!(detail_gradient(p, slope_m, f32::NAN, pixel_m, data_level, 0.5), [0.0; 2]);
            for border in [[0, p[1]], [p[0], 0], [MAP_ONE, p[1]], [p[0], MAP_ONE]] {
                assert_eq!(detail_gradient(border, slope_m, 100.0, pixel_m, data_level, 0.5), [0.0; 2], "on the border {border:?}");
            }
            let cell_m = crate::globe::MAP_SIDE_M as f32 / (1u32 << data_level) as f32;
            assert_eq!(detail_gradient(p, slope_m, 100.0, cell_m, data_level, 0.5), [0.0; 2], "under a pixel");
            // Land with a slope has a gradient where any octave shows (the same points as detail_m).
            if pixel_m > 0.0 && pixel_m < 0.5 * cell_m {
                assert_ne!(detail_gradient(p, slope_m, 100.0, pixel_m, data_level, 0.5), [0.0; 2], "{p:?}");
            }
        }
    }
}
