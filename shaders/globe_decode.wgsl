// globe.decode: one thread per leaf writes the leaf's node id for the draw and the deepest
// depth, measures visible leaves and their largest projected hypotenuse (the statistics), and
// tells the tile cache which tiles the visible leaves use and miss (at their vertices and
// centre, at the zoom each point wants).
//!include shared/decode.wgsl
//!include shared/hash.wgsl
//!include shared/globe_leb.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/tile_cache_record.wgsl
//!include shared/globe_lod.wgsl
//!include shared/globe_error_request.wgsl

@group(0) @binding(3) var<uniform> globe: GlobeFrame;

// Projected size (largest edge, pixels) above which a leaf may span several tiles: tiles aim at
// one to two pixels per sample over 128 samples, so they span 128 pixels or more. (Leaves split
// above 48 px at the default pixel target, so only a coarse target makes leaves this large.)
const LARGE_LEAF_PX: f32 = 128.0;

// Records the tile that a vertex at map point `p` samples: used, or missed (asked for).
fn request_tile(p: vec2<u32>) {
    let zoom = globe_vertex_zoom(p);
    tile_cache_record(p, zoom, tile_cache_find(p, zoom));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = decode_leaf_index(group, local);
    if (decode_has_leaf(leaf_index)) {
        let node = decode_leaf(leaf_index);
        let b = globe_bound(node.id, node.depth);
        if (!globe_is_hidden(b)) {
            let v = globe_decode_map(node.id, node.depth);
            let projected_px = globe_projected_px(b);
            if (node.depth == CBT_MAX_DEPTH || projected_px > LARGE_LEAF_PX) {
                // A leaf that may be larger than a tile (it cannot split, or the pixel target is
                // coarse): the 15 points of its 4 x 4 grid, so the fragments inside find every
                // tile they want resident (with the corners alone, tiles inside such leaves were
                // never asked for and showed coarse ancestors).
                let q = array<vec2<u32>, 3>(v[0] / 4u, v[1] / 4u, v[2] / 4u);
                for (var i = 0u; i <= 4u; i += 1u) {
                    for (var j = 0u; j <= 4u - i; j += 1u) {
                        request_tile(q[0] * (4u - i - j) + q[1] * i + q[2] * j);
                    }
                }
            } else {
                request_tile(v[0]);
                request_tile(v[1]);
                request_tile(v[2]);
                request_tile(v[0] / 4u + v[2] / 4u + v[1] / 2u);
            }
            if (globe.criterion == GLOBE_CRITERION_ERROR) {
                globe_request_error_tile(v, globe_nearest_m(b));
            }
            decode_count_visible(projected_px);
            if (node.depth == CBT_MAX_DEPTH && globe_criterion_px(b) > globe.split_threshold_px) {
                decode_count_capped();
            }
        }
    }
    decode_flush_stats(local);
}
