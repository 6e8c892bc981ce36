// leb.decode: one thread per leaf writes the leaf's node id for the draw and the deepest depth,
// and measures the leaf's size on screen under the LOD criterion (the remaining screen-space
// error) for the statistics.
//!include shared/decode.wgsl
//!include shared/lod.wgsl

@group(0) @binding(3) var<uniform> lod: LodParams;

// false in diagnostics that time the decode alone (kernel cbt).
override MEASURE_LOD: bool = true;

@compute @workgroup_size(WORKGROUP_SIZE)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = decode_leaf_index(group, local);
    if (decode_has_leaf(leaf_index)) {
        let node = decode_leaf(leaf_index);
        var size_px = 0.0;
        if (MEASURE_LOD) {
            size_px = lod_projected_size_px(lod, node.id, node.depth);
        }
        if (size_px > 0.0) {
            decode_count_visible(size_px);
            if (node.depth >= lod.max_depth && size_px * size_px > lod.split_threshold_sq) {
                decode_count_capped();
            }
        }
    }
    decode_flush_stats(local);
}
