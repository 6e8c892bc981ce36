// A test kernel: the globe's shading gradient (shared/globe_materials.wgsl) at given map points
// and zooms, so tests compare it with its CPU twin (src/globe/materials.rs). One thread per query.
//!include shared/tile_cache_record.wgsl
//!include shared/globe_materials.wgsl

// x, y = fixed-point map point, z = wanted zoom, w = 1 to record (used bit, feedback).
@group(0) @binding(0) var<storage, read> probe_queries: array<vec4<u32>>;
// xy = the tile cache's gradient, zw = the shading gradient (m per map unit).
@group(0) @binding(1) var<storage, read_write> probe_results: array<vec4<f32>>;
// The found slot.
@group(0) @binding(2) var<storage, read_write> probe_slots: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&probe_queries)) {
        return;
    }
    let q = probe_queries[id.x];
    let found = tile_cache_find(q.xy, q.z);
    let narrow = tile_cache_gradient(found, q.xy);
    probe_results[id.x] = vec4<f32>(narrow, globe_shading_gradient(found, q.xy, narrow));
    probe_slots[id.x] = found.slot;
    if (q.w != 0u) {
        tile_cache_record(q.xy, q.z, found);
    }
}
