// The procedural planet: height in metres as a deterministic function of a unit-sphere direction,
// a seed and the tile zoom (finer zooms add octaves). Mirrors src/globe/cache/tile_generate.rs
// (planet_height_m and friends) operation by operation in f32. Also the exact fixed-point map
// point of a tile texel (tile_texel_map_fixed), so tiles sharing an edge compute identical
// heights there. No bindings.
//!include shared/hash.wgsl
//!include shared/globe_constants.wgsl

// Lattice value in [-1, 1) at integer point `i`, decorrelated by `salt`.
fn planet_lattice(i: vec3<i32>, salt: u32) -> f32 {
    let h = fmix32(bitcast<u32>(i.x) ^ fmix32(bitcast<u32>(i.y) ^ fmix32(bitcast<u32>(i.z) ^ salt)));
    return f32(h >> 8u) * (1.0 / 8388608.0) - 1.0;
}

fn planet_lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t;
}

// Quintic fade: C2 continuous value noise.
fn planet_fade(t: f32) -> f32 {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

// 0 below 0, 1 above 1, a cubic ramp between.
fn planet_ramp(x: f32) -> f32 {
    let s = clamp(x, 0.0, 1.0);
    return s * s * (3.0 - 2.0 * s);
}

// 3-D value noise in [-1, 1], continuous (so a last-bit difference in p changes it a little).
fn planet_noise(p: vec3<f32>, salt: u32) -> f32 {
    let fl = floor(p);
    let i = vec3<i32>(fl);
    let f = p - fl;
    let u = vec3<f32>(planet_fade(f.x), planet_fade(f.y), planet_fade(f.z));
    let x00 = planet_lerp(planet_lattice(i, salt), planet_lattice(i + vec3<i32>(1, 0, 0), salt), u.x);
    let x10 = planet_lerp(planet_lattice(i + vec3<i32>(0, 1, 0), salt), planet_lattice(i + vec3<i32>(1, 1, 0), salt), u.x);
    let x01 = planet_lerp(planet_lattice(i + vec3<i32>(0, 0, 1), salt), planet_lattice(i + vec3<i32>(1, 0, 1), salt), u.x);
    let x11 = planet_lerp(planet_lattice(i + vec3<i32>(0, 1, 1), salt), planet_lattice(i + vec3<i32>(1, 1, 1), salt), u.x);
    return planet_lerp(planet_lerp(x00, x10, u.y), planet_lerp(x01, x11, u.y), u.z);
}

// Sum of `octaves` noise octaves from frequency `frequency`, each twice the frequency and half
// the amplitude of the last (first amplitude 0.5).
fn planet_fbm(d: vec3<f32>, frequency: f32, octaves: u32, salt: u32) -> f32 {
    var sum = 0.0;
    var amplitude = 0.5;
    var f = frequency;
    for (var o = 0u; o < octaves; o += 1u) {
        sum += amplitude * planet_noise(d * f, salt + o * 0x9e3779b9u);
        f *= 2.0;
        amplitude *= 0.5;
    }
    return sum;
}

// Ridged octaves: (1 - |noise|)^2, sharp crests, in [0, 1).
fn planet_ridged(d: vec3<f32>, frequency: f32, octaves: u32, salt: u32) -> f32 {
    var sum = 0.0;
    var amplitude = 0.5;
    var f = frequency;
    for (var o = 0u; o < octaves; o += 1u) {
        let r = 1.0 - abs(planet_noise(d * f, salt + o * 0x9e3779b9u));
        sum += amplitude * r * r;
        f *= 2.0;
        amplitude *= 0.5;
    }
    return sum;
}

// Detail octaves of a zoom-`zoom` tile: zoom + 2, at most 14 (finest frequency 8 x 2^13 on the
// unit sphere, about two texels at zoom 12; beyond, f32 directions lack the bits).
fn planet_detail_octaves(zoom: u32) -> u32 {
    return min(zoom + 2u, 14u);
}

// Height in metres at unit direction `d`: continents (low-frequency noise around a threshold,
// ocean floor to about -4200 m, coasts at 0), mountain belts of ridged noise (up to about
// 5400 m more), and detail octaves by zoom.
fn planet_height_m(d: vec3<f32>, zoom: u32, seed: u32) -> f32 {
    let salt = fmix32(seed);
    let t = planet_fbm(d, 1.5, 6u, salt ^ 0x1u) - 0.02;
    var h = -4200.0 * planet_ramp(-t / 0.12) + 600.0 * planet_ramp(t / 0.3);
    let belt = planet_ramp(planet_fbm(d, 2.3, 3u, salt ^ 0x2u) / 0.2) * planet_ramp(t / 0.08);
    h += 5400.0 * belt * planet_ridged(d, 4.0, 5u, salt ^ 0x3u);
    h += (150.0 + 450.0 * belt) * planet_fbm(d, 8.0, planet_detail_octaves(zoom), salt ^ 0x4u);
    return h;
}

// Fixed-point map point (PLANET_MAP_ONE = 1.0) of texel (i, j) of tile (zoom, x, y), folded into
// [0, ONE]^2 across the octahedral map's sides (src/globe/cache/tile_layout.rs). Exact: tiles sharing
// an edge get equal integers there (below zoom 24 every texel is exact; finer, a texel offset is
// floored to the fixed-point grid).
fn tile_texel_map_fixed(zoom: u32, x: u32, y: u32, i: u32, j: u32) -> vec2<i32> {
    let tile = vec2<i32>(vec2<u32>(x, y) << vec2<u32>(30u - zoom));
    let offset = vec2<i32>(i32(i) - 1, i32(j) - 1);
    var p: vec2<i32>;
    if (zoom <= 23u) {
        p = tile + offset * (1 << (23u - zoom));
    } else {
        p = tile + (offset >> vec2<u32>(zoom - 23u));
    }
    let one = PLANET_MAP_ONE;
    for (var n = 0; n < 2; n += 1) {
        if (p.x > one) {
            p = vec2<i32>(one - (p.x - one), one - p.y);
        } else if (p.x < 0) {
            p = vec2<i32>(-p.x, one - p.y);
        }
        if (p.y > one) {
            p = vec2<i32>(one - p.x, one - (p.y - one));
        } else if (p.y < 0) {
            p = vec2<i32>(one - p.x, -p.y);
        }
    }
    return p;
}

// The unit direction at fixed-point map point `p` in [0, ONE]^2: the octahedron point computed
// in integers (exact), then normalised in f32.
fn planet_direction(p: vec2<i32>) -> vec3<f32> {
    let one = PLANET_MAP_ONE;
    let q = (p - vec2<i32>(one / 2)) * 2;
    let z = one - abs(q.x) - abs(q.y);
    var o = vec3<i32>(q, z);
    if (z < 0) {
        o = vec3<i32>(select(-1, 1, q.x >= 0) * (one - abs(q.y)), select(-1, 1, q.y >= 0) * (one - abs(q.x)), z);
    }
    return normalize(vec3<f32>(o));
}
