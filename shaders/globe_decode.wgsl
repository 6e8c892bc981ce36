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
//!include shared/globe_tile_requests.wgsl

@group(0) @binding(3) var<uniform> globe: GlobeFrame;

@compute @workgroup_size(WORKGROUP_SIZE)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = decode_leaf_index(group, local);
    if (decode_has_leaf(leaf_index)) {
        let node = decode_leaf(leaf_index);
        let b = globe_bound(node.id, node.depth);
        if (!globe_is_hidden(b)) {
            let v = globe_decode_map(node.id, node.depth);
            let projected_px = globe_projected_px(b);
            globe_request_leaf_tiles(v, node.depth == CBT_MAX_DEPTH || projected_px > LARGE_LEAF_PX);
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
