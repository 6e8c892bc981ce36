// kernel.tile_table: tile-table lookups and the ancestor walk (shared/tile_table_kernel.wgsl), and
// feedback inserts alone. Checked against src/globe/cache (the CPU twins) by
// src/kernels/tile_table.rs.
//!include shared/dispatch.wgsl
//!include shared/tile_table.wgsl
//!include shared/tile_feedback.wgsl
//!include shared/tile_table_kernel.wgsl

@group(0) @binding(0) var<storage, read> tile_table: TileTable;

fn kernel_table_lookup(key: vec2<u32>) -> u32 {
    return tile_table_lookup(key);
}

fn kernel_table_lookup_ancestor(key: vec2<u32>) -> vec2<u32> {
    let found = tile_lookup_ancestor(key);
    return vec2<u32>(found.slot, found.zoom);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn feedback_insert(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        tile_feedback_insert(queries[q]);
    }
}
