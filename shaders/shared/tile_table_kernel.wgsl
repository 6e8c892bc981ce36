// The bindings and entry points the tile-table kernels share (kernel_tile_table.wgsl,
// kernel_tile_table_bucketed.wgsl, kernel_tile_table_packed.wgsl; bound by
// src/kernels/tile_table.rs): lookups (one thread per query) and the ancestor walk that inserts
// every key it missed into the feedback set (as a height-sampling shader will). The includer
// binds its table at @binding(0) and defines
//   fn kernel_table_lookup(key: vec2<u32>) -> u32 (the atlas slot or TILE_MISS)
//   fn kernel_table_lookup_ancestor(key: vec2<u32>) -> vec2<u32> ((atlas slot, zoom) of the
//      nearest resident tile, (TILE_MISS, 0) when none)
//!include shared/dispatch.wgsl
//!include shared/tile_feedback.wgsl

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
        slots_found[q] = kernel_table_lookup(queries[q]);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup_ancestor(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        let key = queries[q];
        let found = kernel_table_lookup_ancestor(key);
        ancestors_found[q] = found;
        if (found.x == TILE_MISS || found.y != tile_key_zoom(key)) {
            tile_feedback_insert(key);
        }
    }
}
