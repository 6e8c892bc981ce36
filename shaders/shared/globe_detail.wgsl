// Detail below the data (issue 15 item 4): deterministic band-limited gradient noise added to
// the globe's heights at spacings finer than the data's own samples. Mirrors
// src/globe/detail.rs (the CPU twin; its module comment explains the choices). No bindings (the
// data's level comes from the tile's error layer: tile_detail_sample in shared/tile_error.wgsl).
//!include shared/hash.wgsl
//!include shared/globe_constants.wgsl

// The finest lattice level of the detail (the 32-bit fixed-point map's limit).
const DETAIL_FINEST_LEVEL: u32 = 30u;
// Octave i's amplitude is DETAIL_GAIN x the data's slope (metres per data spacing) / 2^i.
const DETAIL_GAIN: f32 = 0.15;
// Heights (m) over which detail fades in above sea level.
const DETAIL_SHORE_M: f32 = 2.0;
const DETAIL_MAP_ONE: u32 = 1073741824u;

fn detail_fade(t: f32) -> f32 {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

// The gradients of the four lattice corners of cell `c` at `level` (c, c + x, c + y, c + x + y),
// from h = fmix32(corner.x ^ fmix32(corner.y ^ fmix32(level ^ 0x9e3779b9u))), the level's and each
// row's hash computed once (7 fmix32, not 12).
fn detail_cell_gradients(c: vec2<u32>, level: u32) -> array<vec2<f32>, 4> {
    let hl = fmix32(level ^ 0x9e3779b9u);
    let h0 = fmix32(c.y ^ hl);
    let h1 = fmix32((c.y + 1u) ^ hl);
    return array<vec2<f32>, 4>(
        detail_hash_gradient(fmix32(c.x ^ h0)),
        detail_hash_gradient(fmix32((c.x + 1u) ^ h0)),
        detail_hash_gradient(fmix32(c.x ^ h1)),
        detail_hash_gradient(fmix32((c.x + 1u) ^ h1)),
    );
}

// Gradient noise on the lattice of 2^level cells per map side at fixed-point map point `map`
// (0 at every lattice point; |n| < 1).
fn detail_noise(map: vec2<u32>, level: u32) -> f32 {
    let shift = 30u - level;
    let c = map >> vec2<u32>(shift);
    let f = vec2<f32>(map & vec2<u32>((1u << shift) - 1u)) / f32(1u << shift);
    let g = detail_cell_gradients(c, level);
    let n00 = g[0].x * f.x + g[0].y * f.y;
    let n10 = g[1].x * (f.x - 1.0) + g[1].y * f.y;
    let n01 = g[2].x * f.x + g[2].y * (f.y - 1.0);
    let n11 = g[3].x * (f.x - 1.0) + g[3].y * (f.y - 1.0);
    let u = vec2<f32>(detail_fade(f.x), detail_fade(f.y));
    let a = n00 + (n10 - n00) * u.x;
    let b = n01 + (n11 - n01) * u.x;
    return a + (b - a) * u.y;
}

// The detail in metres at fixed-point map point `map` where the data gives `data_m` and slope
// `slope_m` (metres per level-data_level cell), the data's samples `first` (in [0, 1)) of an
// octave coarser than the lattice of level `data_level` (2^data_level per map side), for a vertex
// whose pixel spans `pixel_m` metres: octaves at lattice levels data_level + i up to
// DETAIL_FINEST_LEVEL (i = 0 weighted by `first`), each faded in over an octave as its spacing
// grows from 1 to 2 pixels (the loop stops at the first under 1 pixel), none at sea, and none on
// the map's border (where the octahedral map folds).
fn globe_detail_from_m(map: vec2<u32>, slope_m: f32, data_m: f32, pixel_m: f32, data_level: u32, first: f32) -> f32 {
    let shore = detail_shore(map, data_m);
    if (!(shore > 0.0)) {
        return 0.0;
    }
    let cell_m = detail_cell_m(data_level);
    var sum = 0.0;
    for (var i = 0u; data_level + i <= DETAIL_FINEST_LEVEL; i += 1u) {
        let weight = detail_octave_fade(cell_m, i, pixel_m);
        if (!(weight > 0.0)) {
            break;
        }
        sum += (weight * detail_octave_share(i, first)) * (DETAIL_GAIN * slope_m / f32(1u << i)) * detail_noise(map, data_level + i);
    }
    return shore * sum;
}

// The factor the detail and its gradient take at `map` where the data gives `data_m`: min(h / 2 m,
// 1) above sea level, 0 at sea (or no data) and on the map's border (where the octahedral map
// folds, so both sides agree).
fn detail_shore(map: vec2<u32>, data_m: f32) -> f32 {
    if (any(map == vec2<u32>(0u)) || any(map >= vec2<u32>(DETAIL_MAP_ONE)) || !(data_m > 0.0)) {
        return 0.0;
    }
    return clamp(data_m / DETAIL_SHORE_M, 0.0, 1.0);
}

// Metres per level-`data_level` cell (the map's side over its cells, ignoring the map's distortion).
fn detail_cell_m(data_level: u32) -> f32 {
    return GLOBE_MAP_SIDE_M / f32(1u << data_level);
}

// Octave i's fade (spacing `cell_m` / 2^i) for a pixel spanning `pixel_m` metres: from 0 to 1 as
// its spacing grows from 1 to 2 pixels; 0 (stop: spacings fall) from the first octave under a
// pixel.
fn detail_octave_fade(cell_m: f32, i: u32, pixel_m: f32) -> f32 {
    return clamp((cell_m / f32(1u << i)) / pixel_m - 1.0, 0.0, 1.0);
}

// Octave i's share of its amplitude: `first` for octave 0 (the data's samples are `first` of an
// octave coarser than the data's lattice), 1 below it.
fn detail_octave_share(i: u32, first: f32) -> f32 {
    return select(1.0, first, i == 0u);
}

// The derivative of the quintic fade.
fn detail_fade_slope(t: f32) -> f32 {
    return 30.0 * t * t * (t * (t - 2.0) + 1.0);
}

// The gradient of a lattice corner from its hash `h` (detail_cell_gradients').
// The eight gradients, in order: (1, 0), (-1, 0), (0, 1), (0, -1), then the diagonals (+, +),
// (-, +), (+, -), (-, -) of length 1; computed, not read from an array indexed at run time (which
// may go to local memory).
fn detail_hash_gradient(h: u32) -> vec2<f32> {
    let i = h >> 29u;
    let sx = select(1.0, -1.0, (i & 1u) == 1u);
    if (i >= 4u) {
        return vec2<f32>(sx, select(1.0, -1.0, (i & 2u) == 2u)) * 0.70710677;
    }
    return select(vec2<f32>(sx, 0.0), vec2<f32>(0.0, sx), i >= 2u);
}

// The gradient of detail_noise at fixed-point map point `map`, per level-`level` cell (analytic:
// the corners' dot products interpolated by the quintic fade, differentiated).
fn detail_noise_gradient(map: vec2<u32>, level: u32) -> vec2<f32> {
    let shift = 30u - level;
    let c = map >> vec2<u32>(shift);
    let f = vec2<f32>(map & vec2<u32>((1u << shift) - 1u)) / f32(1u << shift);
    let g = detail_cell_gradients(c, level);
    let g00 = g[0];
    let g10 = g[1];
    let g01 = g[2];
    let g11 = g[3];
    let n00 = g00.x * f.x + g00.y * f.y;
    let n10 = g10.x * (f.x - 1.0) + g10.y * f.y;
    let n01 = g01.x * f.x + g01.y * (f.y - 1.0);
    let n11 = g11.x * (f.x - 1.0) + g11.y * (f.y - 1.0);
    let u = vec2<f32>(detail_fade(f.x), detail_fade(f.y));
    let du = vec2<f32>(detail_fade_slope(f.x), detail_fade_slope(f.y));
    // n = a + (b - a) u.y with a, b the rows interpolated along x.
    let a = n00 + (n10 - n00) * u.x;
    let b = n01 + (n11 - n01) * u.x;
    let a_x = g00.x + (g10.x - g00.x) * u.x + (n10 - n00) * du.x;
    let b_x = g01.x + (g11.x - g01.x) * u.x + (n11 - n01) * du.x;
    let a_y = g00.y + (g10.y - g00.y) * u.x;
    let b_y = g01.y + (g11.y - g01.y) * u.x;
    return vec2<f32>(a_x + (b_x - a_x) * u.y, a_y + (b_y - a_y) * u.y + (b - a) * du.y);
}

// The gradient of globe_detail_from_m (same arguments) in metres per map unit (1.0 = the map's
// side, as globe_shading_gradient's): each weighted octave's noise gradient times its amplitude
// and weight, analytic (the amplitude's own change with the slope and the shore's left out). It
// stops at the first octave under a pixel, and before lattice level 30 (0 at every fixed-point
// map point: the heights have none of it). Mirrors detail::detail_gradient.
fn globe_detail_gradient(map: vec2<u32>, slope_m: f32, data_m: f32, pixel_m: f32, data_level: u32, first: f32) -> vec2<f32> {
    let shore = detail_shore(map, data_m);
    if (!(shore > 0.0)) {
        return vec2<f32>(0.0);
    }
    let cell_m = detail_cell_m(data_level);
    var sum = vec2<f32>(0.0);
    for (var i = 0u; data_level + i < DETAIL_FINEST_LEVEL; i += 1u) {
        let weight = detail_octave_fade(cell_m, i, pixel_m);
        if (!(weight > 0.0)) {
            break;
        }
        // Amplitude slope / 2^i metres times 2^(data_level + i) cells per map unit: the 2^i cancel.
        sum += (weight * detail_octave_share(i, first)) * detail_noise_gradient(map, data_level + i);
    }
    return (shore * (DETAIL_GAIN * slope_m * f32(1u << data_level))) * sum;
}
