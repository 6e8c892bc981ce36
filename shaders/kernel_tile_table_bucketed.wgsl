// kernel.tile_table_bucketed: lookups in the bucketed tile table (one thread per query) and the
// ancestor walk that inserts every key it missed into the feedback set, the same entry points
// and bindings as kernel_tile_table.wgsl. Checked against the CPU twin
// (src/kernels/tile_table_bucketed.rs) by src/kernels/tile_table.rs.
//!include shared/dispatch.wgsl
//!include shared/tile_table_bucketed.wgsl
//!include shared/tile_feedback.wgsl

@group(0) @binding(0) var<storage, read> tile_buckets: TileBuckets;
@group(0) @binding(1) var<storage, read_write> tile_feedback: TileFeedback;
@group(0) @binding(2) var<storage, read> queries: array<vec2<u32>>;
// lookup: the atlas slot or TILE_MISS per query.
@group(0) @binding(3) var<storage, read_write> slots_found: array<u32>;
// lookup_ancestor: (atlas slot, zoom) of the nearest resident tile per query.
@group(0) @binding(4) var<storage, read_write> ancestors_found: array<vec2<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        slots_found[q] = tile_bucketed_lookup(queries[q]);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup_ancestor(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        let key = queries[q];
        let found = tile_bucketed_lookup_ancestor(key);
        ancestors_found[q] = vec2<u32>(found.slot, found.zoom);
        if (found.slot == TILE_MISS || found.zoom != tile_key_zoom(key)) {
            tile_feedback_insert(key);
        }
    }
}
