// The tile cache's read side: find the nearest resident tile of a map point and sample it
// (height, gradient). Mirrors src/globe/cache/tile_cache.rs (cpu_find, cpu_height, cpu_gradient).
// Usable from vertex, fragment and compute shaders: it binds only
//   @group(2) @binding(0) tile_table  (storage, read)
//   @group(2) @binding(1) tile_atlas  (texture_2d_array<f32>, R32Float, textureLoad only)
// Recording what was used and missed is in shared/tile_cache_record.wgsl (read_write bindings,
// fragment and compute only).
//
// Map coordinates are fixed point, vec2<u32> with MAP_ONE = 2^30 = 1.0 (src/globe/octahedral.rs).
// Tile (zoom z, x, y) covers [x, x + 1] / 2^z x [y, y + 1] / 2^z; texel (i, j) of its layer is
// the sample at ((x + (i - 1) / 128) / 2^z, ...) (src/globe/cache/tile_layout.rs), so the texel index
// and bilinear fraction of a map point come from integer shifts, with no float drift.
//
// Pipeline-overridable constants (TileCache::pipeline_constants gives their values):
//   TILE_CACHE_SOURCE    the source field of the cache's keys
//   TILE_CACHE_MAX_ZOOM  the deepest zoom the producer makes; wanted zooms are clamped to it
//!include shared/tile_table.wgsl

@group(2) @binding(0) var<storage, read> tile_table: TileTable;
@group(2) @binding(1) var tile_atlas: texture_2d_array<f32>;

override TILE_CACHE_SOURCE: u32 = 0u;
override TILE_CACHE_MAX_ZOOM: u32 = 27u;

// The tile of zoom `zoom` containing `map` (points on the square's right or top side belong to
// the last tile).
fn tile_cache_tile_xy(map: vec2<u32>, zoom: u32) -> vec2<u32> {
    return min(map >> vec2<u32>(30u - zoom), vec2<u32>((1u << zoom) - 1u));
}

// The key of the tile containing `map` at `wanted_zoom` (clamped to TILE_CACHE_MAX_ZOOM).
fn tile_cache_wanted_key(map: vec2<u32>, wanted_zoom: u32) -> vec2<u32> {
    let zoom = min(wanted_zoom, TILE_CACHE_MAX_ZOOM);
    let t = tile_cache_tile_xy(map, zoom);
    return tile_key(TILE_CACHE_SOURCE, zoom, t.x, t.y);
}

// The nearest resident tile among the tile containing `map` at `wanted_zoom` and its ancestors.
// The root is pinned, so once the cache exists this never returns TILE_MISS.
fn tile_cache_find(map: vec2<u32>, wanted_zoom: u32) -> TileFound {
    return tile_lookup_ancestor(tile_cache_wanted_key(map, wanted_zoom));
}

struct TileTexel {
    // Texel (with the border) at the lower corner of the bilinear cell: 1..=128.
    base: vec2<i32>,
    // Bilinear weights of the upper texels, exact (a dyadic fraction of at most 23 bits).
    frac: vec2<f32>,
}

// The bilinear cell of `map` in `found`'s layer, from the fixed-point bits. The cell index runs
// 0..=127; a point on the tile's upper edge uses cell 127 with fraction 1, so the gradient's
// central differences stay inside the layer's border.
fn tile_cache_texel(found: TileFound, map: vec2<u32>) -> TileTexel {
    let zoom = found.zoom;
    let t = tile_cache_tile_xy(map, zoom);
    let local = map - (t << vec2<u32>(30u - zoom));
    var cell: vec2<u32>;
    var frac: vec2<f32>;
    if (zoom <= 23u) {
        let s = 23u - zoom;
        cell = local >> vec2<u32>(s);
        frac = vec2<f32>(local & vec2<u32>((1u << s) - 1u)) * (1.0 / f32(1u << s));
    } else {
        cell = local << vec2<u32>(zoom - 23u);
        frac = vec2<f32>(0.0);
    }
    let last = cell >= vec2<u32>(128u);
    cell = select(cell, vec2<u32>(127u), last);
    frac = select(frac, vec2<f32>(1.0), last);
    return TileTexel(vec2<i32>(cell) + vec2<i32>(1), frac);
}

fn tile_cache_load(slot: u32, ij: vec2<i32>) -> f32 {
    return textureLoad(tile_atlas, ij, slot, 0).x;
}

fn tile_cache_bilinear(f: vec2<f32>, h00: f32, h10: f32, h01: f32, h11: f32) -> f32 {
    let a = h00 + (h10 - h00) * f.x;
    let b = h01 + (h11 - h01) * f.x;
    return a + (b - a) * f.y;
}

// Height in metres at `map`, bilinear in `found`'s layer (NaN where the source has no data; 0
// when found is TILE_MISS, which the pinned root rules out).
fn tile_cache_height(found: TileFound, map: vec2<u32>) -> f32 {
    if (found.slot == TILE_MISS) {
        return 0.0;
    }
    let t = tile_cache_texel(found, map);
    let b = t.base;
    return tile_cache_bilinear(t.frac, tile_cache_load(found.slot, b), tile_cache_load(found.slot, b + vec2<i32>(1, 0)),
        tile_cache_load(found.slot, b + vec2<i32>(0, 1)), tile_cache_load(found.slot, b + vec2<i32>(1, 1)));
}

// Height in metres at `map` (x, as tile_cache_height) and the derivative of its bilinear cell
// (yz: metres per map unit), from the cell's 4 texels alone (the detail's slope: cheaper than
// tile_cache_gradient's 16 texels). Mirrors cpu_height_slope.
fn tile_cache_height_slope(found: TileFound, map: vec2<u32>) -> vec3<f32> {
    if (found.slot == TILE_MISS) {
        return vec3<f32>(0.0);
    }
    let t = tile_cache_texel(found, map);
    let b = t.base;
    let h00 = tile_cache_load(found.slot, b);
    let h10 = tile_cache_load(found.slot, b + vec2<i32>(1, 0));
    let h01 = tile_cache_load(found.slot, b + vec2<i32>(0, 1));
    let h11 = tile_cache_load(found.slot, b + vec2<i32>(1, 1));
    let dx = (h10 - h00) + ((h11 - h01) - (h10 - h00)) * t.frac.y;
    let dy = (h01 - h00) + ((h11 - h10) - (h01 - h00)) * t.frac.x;
    return vec3<f32>(tile_cache_bilinear(t.frac, h00, h10, h01, h11), vec2<f32>(dx, dy) * exp2(f32(7u + found.zoom)));
}

// Central difference of the layer at texel `ij`, in metres per texel.
fn tile_cache_texel_gradient(slot: u32, ij: vec2<i32>) -> vec2<f32> {
    return 0.5 * vec2<f32>(
        tile_cache_load(slot, ij + vec2<i32>(1, 0)) - tile_cache_load(slot, ij - vec2<i32>(1, 0)),
        tile_cache_load(slot, ij + vec2<i32>(0, 1)) - tile_cache_load(slot, ij - vec2<i32>(0, 1)),
    );
}

// dh/dmap at `map` in metres per map unit (1.0 = the whole map's side): central differences of
// the texels around the cell (the border supplies the outer ones), interpolated bilinearly.
fn tile_cache_gradient(found: TileFound, map: vec2<u32>) -> vec2<f32> {
    if (found.slot == TILE_MISS) {
        return vec2<f32>(0.0);
    }
    let t = tile_cache_texel(found, map);
    let b = t.base;
    let g00 = tile_cache_texel_gradient(found.slot, b);
    let g10 = tile_cache_texel_gradient(found.slot, b + vec2<i32>(1, 0));
    let g01 = tile_cache_texel_gradient(found.slot, b + vec2<i32>(0, 1));
    let g11 = tile_cache_texel_gradient(found.slot, b + vec2<i32>(1, 1));
    let g = vec2<f32>(tile_cache_bilinear(t.frac, g00.x, g10.x, g01.x, g11.x), tile_cache_bilinear(t.frac, g00.y, g10.y, g01.y, g11.y));
    // Texels per map unit: 128 x 2^zoom.
    return g * exp2(f32(7u + found.zoom));
}
