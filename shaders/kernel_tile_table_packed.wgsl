// kernel.tile_table_packed: lookups in the packed tile table (one thread per query; also with
// both buckets loaded before any compare, and without a branch) and the ancestor walk that
// inserts every key it missed into the feedback set, with the bindings and entry points of
// shared/tile_table_kernel.wgsl. Checked against the CPU twin (src/kernels/tile_table_packed.rs)
// by src/kernels/tile_table.rs.
//!include shared/dispatch.wgsl
//!include shared/tile_table_packed.wgsl
//!include shared/tile_table_kernel.wgsl

@group(0) @binding(0) var<storage, read> tile_packed: TilePackedTable;

fn kernel_table_lookup(key: vec2<u32>) -> u32 {
    return tile_packed_lookup(key);
}

fn kernel_table_lookup_ancestor(key: vec2<u32>) -> vec2<u32> {
    let found = tile_packed_lookup_ancestor(key);
    return vec2<u32>(found.slot, found.zoom);
}

// lookup with both buckets loaded before any compare (2 sectors, one round trip) instead of the
// alternate only behind a full primary (1 or 2 sectors, two round trips): same answers.
@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup_both(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        let query = tile_packed_query(queries[q]);
        let first_bucket = tile_packed.buckets[query.primary];
        let second_bucket = tile_packed.buckets[query.primary ^ tile_packed_offset(query.r)];
        let first = tile_packed_probe_bucket(first_bucket, query.tag, query);
        let second = tile_packed_probe_bucket(second_bucket, vec2<u32>(query.tag.x | 1u, query.tag.y), query);
        slots_found[q] = select(second.value, first.value, first.value != TILE_MISS || first.has_empty);
    }
}

// lookup without a branch: every thread loads a second bucket, the alternate where the primary
// has neither the key nor an empty slot and the primary again (an L1 hit) elsewhere, so no warp
// diverges. Same answers.
@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup_flat(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        let query = tile_packed_query(queries[q]);
        let first = tile_packed_probe_bucket(tile_packed.buckets[query.primary], query.tag, query);
        let done = first.value != TILE_MISS || first.has_empty;
        let second_index = select(query.primary ^ tile_packed_offset(query.r), query.primary, done);
        let second = tile_packed_probe_bucket(tile_packed.buckets[second_index], vec2<u32>(query.tag.x | 1u, query.tag.y), query);
        slots_found[q] = select(second.value, first.value, done);
    }
}

