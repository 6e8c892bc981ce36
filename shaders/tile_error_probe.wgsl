// A test kernel: the tile cache's error bound (shared/tile_error.wgsl) for given map boxes, so
// tests compare it with the CPU twin (src/globe/cache/tile_error.rs); it records the tile each
// box's bound wants, as the globe's decode passes do, so repeated frames make it resident.
//!include shared/tile_cache_record.wgsl
//!include shared/tile_error.wgsl

// Per query, two entries: (lo.x, lo.y, hi.x, hi.y) then (wanted zoom, 0, 0, 0).
@group(0) @binding(0) var<storage, read> probe_queries: array<vec4<u32>>;
// x = the bound in metres, y = the found zoom, z = the found slot (as f32 bits).
@group(0) @binding(1) var<storage, read_write> probe_results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (2u * id.x + 1u >= arrayLength(&probe_queries)) {
        return;
    }
    let b = probe_queries[2u * id.x];
    let wanted = probe_queries[2u * id.x + 1u].x;
    let zoom = tile_error_zoom(b.xy, b.zw, wanted);
    let found = tile_cache_find(b.xy, zoom);
    tile_cache_record(b.xy, zoom, found);
    probe_results[id.x] = vec4<f32>(tile_error_box_m(b.xy, b.zw, wanted), f32(found.zoom), bitcast<f32>(found.slot), 0.0);
}
