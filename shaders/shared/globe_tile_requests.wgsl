// The decode passes' tile requests (globe.decode, globe.pool_decode): the tiles a visible leaf's
// vertices sample, and under --lod error the tile whose summary bounds it, so they become
// resident. Needs shared/tile_cache_record.wgsl, shared/globe_heights.wgsl and `globe` bound.

// Projected size (largest edge, pixels) above which a leaf may span several tiles: tiles aim at
// one to two pixels per sample over 128 samples, so they span 128 pixels or more. (Leaves split
// above 48 px at the default pixel target, so only a coarse target makes leaves this large.)
const LARGE_LEAF_PX: f32 = 128.0;

// Records the tile that a vertex at map point `p` samples: used, or missed (asked for).
fn globe_request_tile(p: vec2<u32>) {
    let zoom = globe_vertex_zoom(p);
    tile_cache_record(p, zoom, tile_cache_find(p, zoom));
}

// Records the tiles of a visible leaf with map vertices `m`: its vertices and centre, or, for a
// leaf that may be larger than a tile (`large`: it cannot split, or it projects past
// LARGE_LEAF_PX), the 15 points of its 4 x 4 grid, so the fragments inside find every tile they
// want resident (with the corners alone, tiles inside such leaves were never asked for and showed
// coarse ancestors).
fn globe_request_leaf_tiles(m: array<vec2<u32>, 3>, large: bool) {
    if (large) {
        let q = array<vec2<u32>, 3>(m[0] / 4u, m[1] / 4u, m[2] / 4u);
        for (var i = 0u; i <= 4u; i += 1u) {
            for (var j = 0u; j <= 4u - i; j += 1u) {
                globe_request_tile(q[0] * (4u - i - j) + q[1] * i + q[2] * j);
            }
        }
    } else {
        globe_request_tile(m[0]);
        globe_request_tile(m[1]);
        globe_request_tile(m[2]);
        globe_request_tile(globe_leaf_centre(m));
    }
}

// The point a small leaf's centre request samples: the midpoint of its apex and hypotenuse.
fn globe_leaf_centre(m: array<vec2<u32>, 3>) -> vec2<u32> {
    return m[0] / 4u + m[2] / 4u + m[1] / 2u;
}

// Records the tile whose summary bounds the triangle with map vertices `m` seen from
// `distance_m` (decode passes under --lod error, so that tile becomes resident).
fn globe_request_error_tile(m: array<vec2<u32>, 3>, distance_m: f32) {
    let key = globe_data_error_key(m, distance_m);
    tile_cache_record_key(key, tile_lookup_ancestor(key));
}
