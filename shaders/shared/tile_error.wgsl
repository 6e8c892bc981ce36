// The read side of the tile cache's error summaries (pass cache.tile_error; the layout is in
// src/globe/cache/tile_error.rs): the error bound of a triangle drawn flat over the data, for the
// globe's screen-space error criterion (--lod error). Mirrors tile_error::box_error_m.
// Needs shared/tile_cache.wgsl (the cache at @group(2)) and shared/globe_detail.wgsl; binds
//   @group(2) @binding(4) tile_errors  (texture_2d_array<f32>, Rgba32Float, 16 x 24 per slot)

@group(2) @binding(4) var tile_errors: texture_2d_array<f32>;

const TILE_ERROR_BLOCK_CELLS: u32 = 16u;
const TILE_ERROR_LEVELS: u32 = 3u;
const TILE_ERROR_MAP_LAST: u32 = 1073741823u;
const TILE_ERROR_NO_DETAIL: u32 = 4294967295u;

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

// The error in metres of a triangle drawn flat whose box spans cells lo..=hi (0..=128) of the
// tile in `slot`: min(height range, the largest bend up to the triangle's scale / 2) over the
// blocks holding the box (src/globe/cache/tile_error.rs says why).
// The amplitude bound of the detail's octaves finer than a triangle `n` cells across in a tile
// `finer` zooms above the finest data, where the slope is at most `slope_m` per tile cell along
// x or y (shared/globe_detail.wgsl; src/globe/cache/tile_error.rs detail_bound_m).
fn tile_error_detail_m(slope_m: f32, n: f32, finer: u32) -> f32 {
    let scale = bitcast<f32>((127u + finer) << 23u);
    let slope_finest_m = slope_m * 1.4142135 / scale;
    let n_finest = n * scale;
    var sum = 0.0;
    var spacing = 0.5;
    for (var i = 1u; i <= DETAIL_OCTAVES; i += 1u) {
        if (spacing < 2.0 * n_finest) {
            sum += DETAIL_GAIN * slope_finest_m / f32(1u << i);
        }
        spacing *= 0.5;
    }
    return sum;
}

// `detail_zoom`: the finest data zoom when the detail below the data is on, else TILE_ERROR_NO_DETAIL.
fn tile_error_bound_cells_m(slot: u32, lo: vec2<f32>, hi: vec2<f32>, tile_zoom: u32, detail_zoom: u32) -> f32 {
    let lo_cell = vec2<u32>(clamp(lo, vec2<f32>(0.0), vec2<f32>(127.0)));
    let hi_cell = vec2<u32>(clamp(hi, vec2<f32>(0.0), vec2<f32>(127.0)));
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
    var t0 = vec4<f32>(3.4e38, -3.4e38, 0.0, 0.0);
    var t1 = vec4<f32>(0.0);
    var t2 = vec2<f32>(0.0);
    for (var by = first.y; by <= last.y; by += 1u) {
        for (var bx = first.x; bx <= last.x; bx += 1u) {
            let p = tile_error_texel(level, bx, by);
            let a = textureLoad(tile_errors, p, slot, 0);
            t0 = vec4<f32>(min(t0.x, a.x), max(t0.y, a.y), max(t0.z, a.z), max(t0.w, a.w));
            t1 = max(t1, textureLoad(tile_errors, p + vec2<u32>(0u, 8u), slot, 0));
            t2 = max(t2, textureLoad(tile_errors, p + vec2<u32>(0u, 16u), slot, 0).xy);
        }
    }
    let bends = array<f32, 7>(t0.z, t0.w, t1.x, t1.y, t1.z, t1.w, t2.x);
    let n = max(hi.x - lo.x, hi.y - lo.y) * 1.4142135;
    var bend = bends[0];
    var spacing = 2.0;
    for (var s = 1u; s < 7u; s += 1u) {
        if (spacing >= n) {
            break;
        }
        bend = max(bend, bends[s]);
        spacing *= 2.0;
    }
    var e = 0.5 * bend;
    if (n < 2.0) {
        e = 0.5 * bend * (0.5 * n) * (0.5 * n);
    }
    let data = min(t0.y - t0.x, e);
    if (detail_zoom != TILE_ERROR_NO_DETAIL && t0.y > 0.0 && detail_zoom >= tile_zoom) {
        return data + tile_error_detail_m(t2.y, n, detail_zoom - tile_zoom);
    }
    return data;
}

// The error bound in metres of a triangle drawn flat whose fixed-point map box is lo..=hi, from
// the resident tile nearest to `tile_error_zoom` (its ancestors bound coarser, and their blocks
// are as good a bound as the cache has).
fn tile_error_box_m(lo: vec2<u32>, hi: vec2<u32>, wanted_zoom: u32, detail_zoom: u32) -> f32 {
    return tile_error_found_box_m(tile_cache_find(lo, tile_error_zoom(lo, hi, wanted_zoom)), lo, hi, detail_zoom);
}

// `tile_error_box_m` from the tile `found` there (tile_cache_find at lo and tile_error_zoom).
fn tile_error_found_box_m(found: TileFound, lo: vec2<u32>, hi: vec2<u32>, detail_zoom: u32) -> f32 {
    if (found.slot == TILE_MISS) {
        return 0.0;
    }
    let zoom = found.zoom;
    let origin = tile_cache_tile_xy(lo, zoom) << vec2<u32>(30u - zoom);
    // 2^(zoom - 23), exactly: built from its exponent bits.
    let scale = bitcast<f32>((zoom + 104u) << 23u);
    let h = min(hi, vec2<u32>(TILE_ERROR_MAP_LAST));
    return tile_error_bound_cells_m(found.slot, vec2<f32>(lo - origin) * scale, vec2<f32>(h - origin) * scale, zoom, detail_zoom);
}
