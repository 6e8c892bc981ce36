// The read side of the tile cache's error summaries (pass cache.tile_error; the layout is in
// src/globe/cache/tile_error.rs): the error bound of a triangle drawn flat over the data, for the
// globe's screen-space error criterion (--lod error). Mirrors tile_error::box_error_m.
// Needs shared/tile_cache.wgsl (the cache at @group(2)) and shared/globe_detail.wgsl; binds
//   @group(2) @binding(4) tile_errors  (texture_2d_array<f32>, Rgba32Float, 32 x 88 per slot)

@group(2) @binding(4) var tile_errors: texture_2d_array<f32>;

const TILE_ERROR_BLOCK_CELLS: u32 = 16u;
const TILE_ERROR_LEVELS: u32 = 3u;
const TILE_ERROR_MAP_LAST: u32 = 1073741823u;
// The fine blocks (src/globe/cache/tile_error.rs FINE_CELLS, FINE_ROW, FINE_SIDE): 4 cells a
// side, 32 x 32 a tile, row 0 (min, max, bend 1, bend 2) from texel row 24, row 1 (bend 4,
// bend 8, slope, 0) 32 rows below.
const TILE_ERROR_FINE_CELLS: u32 = 4u;
const TILE_ERROR_FINE_ROW: u32 = 24u;
const TILE_ERROR_FINE_SIDE: u32 = 32u;

// The zoom of the tile whose data bounds the box lo..=hi (fixed-point map points): the finest
// tile holding the whole box, but no finer than `wanted_zoom`.
fn tile_error_zoom(lo: vec2<u32>, hi: vec2<u32>, wanted_zoom: u32) -> u32 {
    let h = min(hi, vec2<u32>(TILE_ERROR_MAP_LAST));
    let differ = (lo.x ^ h.x) | (lo.y ^ h.y);
    var fit = 30u;
    if (differ != 0u) {
        fit = 29u - firstLeadingBit(differ);
    }
    return min(fit, wanted_zoom);
}

fn tile_error_texel(level: u32, bx: u32, by: u32) -> vec2<u32> {
    return vec2<u32>(select(select(12u, 8u, level == 1u), 0u, level == 0u) + bx, by);
}

// Where the data's samples lie in tile `found`: x = the lattice level D of its cells, zoom + 7,
// less its native shift N (the data's samples are c = 2^(N + f) cells apart), y = f, the
// fraction of an octave the data is coarser still (0 where N reaches the map's whole side); pass
// cache.tile_error stores (N, f) in every block's row-2 texel's .zw. Mirrors
// tile_error::data_lattice.
fn tile_error_data_level(found: TileFound) -> vec2<f32> {
    let t = textureLoad(tile_errors, vec2<u32>(0u, 16u), found.slot, 0);
    let level = found.zoom + 7u;
    let shift = u32(t.z);
    return vec2<f32>(f32(level - min(shift, level)), select(t.w, 0.0, shift >= level));
}

// What the detail's octaves take in tile `found` at a point whose height and slope per map unit
// are `s` (tile_cache_height_slope): the data's lattice level D and first octave's share
// (tile_error_data_level), and the slope in metres per level-D cell.
struct DetailInputs {
    level: u32,
    first: f32,
    slope_m: f32,
}

fn tile_detail_inputs(found: TileFound, s: vec3<f32>) -> DetailInputs {
    let lattice = tile_error_data_level(found);
    let level = u32(lattice.x);
    // Metres per map unit -> metres per level-D cell (the error's bound takes the larger forward
    // difference times sqrt 2, which bounds this magnitude).
    return DetailInputs(level, lattice.y, length(s.yz) / f32(1u << level));
}

// The data's height at `map` in tile `found` (x) and the detail below it (y) for a vertex whose
// pixel spans `pixel_m` metres (shared/globe_detail.wgsl). Mirrors ground::tile_detail_m.
fn tile_detail_sample(found: TileFound, map: vec2<u32>, pixel_m: f32) -> vec2<f32> {
    let s = tile_cache_height_slope(found, map);
    let d = tile_detail_inputs(found, s);
    return vec2<f32>(s.x, globe_detail_from_m(map, d.slope_m, s.x, pixel_m, d.level, d.first));
}

// The error estimate of the detail's octaves finer than a triangle `n` cells across in a
// zoom-`tile_zoom` tile whose data's samples are 2^(shift + first) cells apart, where the slope is
// at most `slope_m` per tile cell along x or y (shared/globe_detail.wgsl;
// src/globe/cache/tile_error.rs detail_error_m, whose module says why): the octaves' spacings are
// 2^e cells for e from shift (weighted by `first`) down to tile_zoom - 23 (lattice level 30), of
// amplitude at most DETAIL_GAIN sqrt 2 slope_m 2^e; those under 2n (from 2^top down) sum to
// DETAIL_GAIN sqrt 2 slope_m (2^(top + 1) - 2^(tile_zoom - 23)), plus `first` 2^shift's share,
// and the estimate is DETAIL_ERROR_SHARE = 0.35 of that sum (the 99th percentile of the detail's
// deviation from a flat triangle). Exponents are kept biased (127 + e), as f32 bits build the
// powers exactly.
fn tile_error_detail_m(slope_m: f32, n: f32, tile_zoom: u32, shift: u32, first: f32) -> f32 {
    let bottom = 104u + tile_zoom;
    let two_n = 2.0 * n;
    if (!(two_n > bitcast<f32>(bottom << 23u))) {
        return 0.0;
    }
    // The largest power of two under 2n: 2n's exponent, less one where 2n is a power of two.
    let bits = bitcast<u32>(two_n);
    let under = (bits >> 23u) - select(0u, 1u, (bits & 0x7fffffu) == 0u);
    let level0 = 127u + min(shift, tile_zoom + 7u);
    let top = min(level0 - 1u, under);
    // In units of 2^bottom: (2^(top + 1 - bottom) - 1), then the first octave's (an exact product).
    var ones = 0.0;
    if (top >= bottom) {
        ones = bitcast<f32>((127u + top + 1u - bottom) << 23u) - 1.0;
    }
    if (level0 <= under && level0 >= bottom) {
        ones += first * bitcast<f32>((127u + level0 - bottom) << 23u);
    }
    // The power of two last: a caller's add fused with an exact product rounds as the twin's
    // separate add does.
    // DETAIL_GAIN x sqrt 2 x DETAIL_ERROR_SHARE (0.35) in f32, one constant (a compiler may fold
    // constants' products).
    let gain = bitcast<f32>(0x3d980e66u);
    return ((gain * slope_m) * ones) * bitcast<f32>(bottom << 23u);
}

// The error in metres of a triangle drawn flat whose box spans cells lo..=hi (0..=128) of the
// zoom-`tile_zoom` tile in `slot`: min(height range, the largest bend up to the triangle's
// scale / 2) over the blocks holding the box (src/globe/cache/tile_error.rs says why), plus the
// detail's bound where `detail` and the blocks have land.
fn tile_error_bound_cells_m(slot: u32, lo: vec2<f32>, hi: vec2<f32>, tile_zoom: u32, detail: bool) -> f32 {
    let lo_cell = vec2<u32>(clamp(lo, vec2<f32>(0.0), vec2<f32>(127.0)));
    let hi_cell = vec2<u32>(clamp(hi, vec2<f32>(0.0), vec2<f32>(127.0)));
    let n = max(hi.x - lo.x, hi.y - lo.y) * 1.4142135;
    if (all(hi_cell / TILE_ERROR_FINE_CELLS <= lo_cell / TILE_ERROR_FINE_CELLS + 1u)) {
        // A box within 2 x 2 fine blocks (under 8 cells: n < 16, bends up to 8 cells apart).
        var low = 3.4e38;
        var high = -3.4e38;
        var bend = 0.0;
        var slope = 0.0;
        for (var by = lo_cell.y / TILE_ERROR_FINE_CELLS; by <= hi_cell.y / TILE_ERROR_FINE_CELLS; by += 1u) {
            for (var bx = lo_cell.x / TILE_ERROR_FINE_CELLS; bx <= hi_cell.x / TILE_ERROR_FINE_CELLS; bx += 1u) {
                let a = textureLoad(tile_errors, vec2<u32>(bx, TILE_ERROR_FINE_ROW + by), slot, 0);
                low = min(low, a.x);
                high = max(high, a.y);
                bend = max(bend, a.z);
                if (n > 2.0) {
                    bend = max(bend, a.w);
                }
                if (detail || n > 4.0) {
                    let b = textureLoad(tile_errors, vec2<u32>(bx, TILE_ERROR_FINE_ROW + TILE_ERROR_FINE_SIDE + by), slot, 0);
                    if (n > 4.0) {
                        bend = max(bend, b.x);
                    }
                    if (n > 8.0) {
                        bend = max(bend, b.y);
                    }
                    slope = max(slope, b.z);
                }
            }
        }
        // The tile's native shift and fraction, the same in every level-0 block's row-2 texel.
        var native = vec2<f32>(0.0);
        if (detail && high > 0.0) {
            native = textureLoad(tile_errors, vec2<u32>(0u, 16u), slot, 0).zw;
        }
        return tile_error_of(low, high, bend, slope, native, n, tile_zoom, detail);
    }
    var level = 0u;
    loop {
        if (level + 1u >= TILE_ERROR_LEVELS) {
            break;
        }
        let size = TILE_ERROR_BLOCK_CELLS << level;
        if (all(hi_cell / size <= lo_cell / size + 1u)) {
            break;
        }
        level += 1u;
    }
    let size = TILE_ERROR_BLOCK_CELLS << level;
    let first = lo_cell / size;
    let last = hi_cell / size;
    // The bends of the spacings 1, 2, 4, ... 64 below n, kept as one maximum over the blocks (the
    // twin's loop written out: an array indexed at run time may go to local memory); a block's
    // second texel is read only where n reaches its spacings, its third where the detail or the
    // spacing 64 needs it. t2.yzw: the detail's (zw the same in every block).
    var low = 3.4e38;
    var high = -3.4e38;
    var bend = 0.0;
    var t2 = vec4<f32>(0.0);
    for (var by = first.y; by <= last.y; by += 1u) {
        for (var bx = first.x; bx <= last.x; bx += 1u) {
            let p = tile_error_texel(level, bx, by);
            let a = textureLoad(tile_errors, p, slot, 0);
            low = min(low, a.x);
            high = max(high, a.y);
            bend = max(bend, a.z);
            if (n > 2.0) {
                bend = max(bend, a.w);
            }
            if (n > 4.0) {
                let b = textureLoad(tile_errors, p + vec2<u32>(0u, 8u), slot, 0);
                bend = max(bend, b.x);
                if (n > 8.0) {
                    bend = max(bend, b.y);
                }
                if (n > 16.0) {
                    bend = max(bend, b.z);
                }
                if (n > 32.0) {
                    bend = max(bend, b.w);
                }
            }
            if (detail || n > 64.0) {
                t2 = max(t2, textureLoad(tile_errors, p + vec2<u32>(0u, 16u), slot, 0));
            }
        }
    }
    if (n > 64.0) {
        bend = max(bend, t2.x);
    }
    return tile_error_of(low, high, bend, t2.y, t2.zw, n, tile_zoom, detail);
}

// The error in metres of a triangle `n` cells across drawn flat over blocks whose heights span
// low..high, whose largest bend up to its scale is `bend` and slope `slope_m` (the detail's),
// in a zoom-`tile_zoom` tile whose native shift and fraction are `native` (read where `detail`
// and `high` > 0).
fn tile_error_of(low: f32, high: f32, bend: f32, slope_m: f32, native: vec2<f32>, n: f32, tile_zoom: u32, detail: bool) -> f32 {
    var e = 0.5 * bend;
    if (n < 2.0) {
        e = 0.5 * bend * (0.5 * n) * (0.5 * n);
    }
    let data = min(high - low, e);
    if (detail && high > 0.0) {
        let first = select(native.y, 0.0, u32(native.x) >= tile_zoom + 7u);
        return data + tile_error_detail_m(slope_m, n, tile_zoom, u32(native.x), first);
    }
    return data;
}

// The error bound in metres of a triangle drawn flat whose fixed-point map box is lo..=hi, from
// the resident tile nearest to `tile_error_zoom` (its ancestors bound coarser, and their blocks
// are as good a bound as the cache has); with the detail's bound where `detail`.
fn tile_error_box_m(lo: vec2<u32>, hi: vec2<u32>, wanted_zoom: u32, detail: bool) -> f32 {
    return tile_error_found_box_m(tile_cache_find(lo, tile_error_zoom(lo, hi, wanted_zoom)), lo, hi, detail);
}

// `tile_error_box_m` from the tile `found` there (tile_cache_find at lo and tile_error_zoom).
fn tile_error_found_box_m(found: TileFound, lo: vec2<u32>, hi: vec2<u32>, detail: bool) -> f32 {
    if (found.slot == TILE_MISS) {
        return 0.0;
    }
    let zoom = found.zoom;
    let origin = tile_cache_tile_xy(lo, zoom) << vec2<u32>(30u - zoom);
    // 2^(zoom - 23), exactly: built from its exponent bits.
    let scale = bitcast<f32>((zoom + 104u) << 23u);
    let h = min(hi, vec2<u32>(TILE_ERROR_MAP_LAST));
    return tile_error_bound_cells_m(found.slot, vec2<f32>(lo - origin) * scale, vec2<f32>(h - origin) * scale, zoom, detail);
}
