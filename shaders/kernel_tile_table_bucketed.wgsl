// kernel.tile_table_bucketed: lookups in the bucketed tile table (one thread per query; also
// with each bucket read whole) and the ancestor walk that inserts every key it missed into the
// feedback set, with the bindings and entry points of shared/tile_table_kernel.wgsl. Checked
// against the CPU twin (src/kernels/tile_table_bucketed.rs) by src/kernels/tile_table.rs.
//!include shared/dispatch.wgsl
//!include shared/tile_table_bucketed.wgsl
//!include shared/tile_table_kernel.wgsl

@group(0) @binding(0) var<storage, read> tile_buckets: TileBuckets;

fn kernel_table_lookup(key: vec2<u32>) -> u32 {
    return tile_bucketed_lookup(key);
}

fn kernel_table_lookup_ancestor(key: vec2<u32>) -> vec2<u32> {
    let found = tile_bucketed_lookup_ancestor(key);
    return vec2<u32>(found.slot, found.zoom);
}

// tile_bucket_probe with the whole bucket loaded at once (6 independent 16-byte loads, 3 sectors)
// before any compare, instead of the lo words first and then the matching pair (2 sectors, two
// round trips): which is faster depends on the device, so the kernel times both.
fn tile_bucket_probe_whole(b: u32, key: vec2<u32>) -> TileBucketProbe {
    let lo0 = tile_buckets.buckets[b].lo[0];
    let lo1 = tile_buckets.buckets[b].lo[1];
    let p0 = tile_buckets.buckets[b].hi_value[0];
    let p1 = tile_buckets.buckets[b].hi_value[1];
    let p2 = tile_buckets.buckets[b].hi_value[2];
    let p3 = tile_buckets.buckets[b].hi_value[3];
    let k = vec4<u32>(key.x);
    let kh = vec4<u32>(key.y);
    let m0 = (lo0 == k) & (vec4<u32>(p0.x, p0.z, p1.x, p1.z) == kh);
    let m1 = (lo1 == k) & (vec4<u32>(p2.x, p2.z, p3.x, p3.z) == kh);
    if (any(m0) || any(m1)) {
        // Keys are distinct: exactly one slot matched.
        let v = select(vec4<u32>(0u), vec4<u32>(p0.y, p0.w, p1.y, p1.w), m0) | select(vec4<u32>(0u), vec4<u32>(p2.y, p2.w, p3.y, p3.w), m1);
        return TileBucketProbe(v.x | v.y | v.z | v.w, false);
    }
    let zero = vec4<u32>(0u);
    return TileBucketProbe(TILE_MISS, any(lo0 == zero) || any(lo1 == zero));
}

// lookup, each bucket read whole (same answers as tile_bucketed_lookup).
@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup_whole(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q < arrayLength(&queries)) {
        let key = queries[q];
        let b = tile_buckets_of(key);
        var found = tile_bucket_probe_whole(b.x, key);
        if (found.value == TILE_MISS && !found.has_empty) {
            found = tile_bucket_probe_whole(b.y, key);
        }
        slots_found[q] = found.value;
    }
}

