// A test kernel: the tile cache's error bound (shared/tile_error.wgsl) for given map boxes, so
// tests compare it with the CPU twin (src/globe/cache/tile_error.rs); it records the tile each
// box's bound wants, as the globe's decode passes do, so repeated frames make it resident.
//!include shared/tile_cache_record.wgsl
//!include shared/globe_constants.wgsl
//!include shared/globe_detail.wgsl
//!include shared/tile_error.wgsl

// Per query, two entries: (lo.x, lo.y, hi.x, hi.y) then (wanted zoom, 1 with the detail's bound
// else 0, 0, 0).
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
    let detail = probe_queries[2u * id.x + 1u].y != 0u;
    let zoom = tile_error_zoom(b.xy, b.zw, wanted);
    let found = tile_cache_find(b.xy, zoom);
    tile_cache_record(b.xy, zoom, found);
    probe_results[id.x] = vec4<f32>(tile_error_box_m(b.xy, b.zw, wanted, detail), f32(found.zoom), bitcast<f32>(found.slot), 0.0);
}

// The detail below the data (shared/globe_detail.wgsl) at given inputs: per query, two entries:
// (map.x, map.y, slope_m bits, data_m bits) then (pixel_m bits, data level, first bits, 0);
// x = metres.
@compute @workgroup_size(64)
fn detail(@builtin(global_invocation_id) id: vec3<u32>) {
    if (2u * id.x + 1u >= arrayLength(&probe_queries)) {
        return;
    }
    let a = probe_queries[2u * id.x];
    let b = probe_queries[2u * id.x + 1u];
    let d = globe_detail_from_m(a.xy, bitcast<f32>(a.z), bitcast<f32>(a.w), bitcast<f32>(b.x), b.y, bitcast<f32>(b.z));
    probe_results[id.x] = vec4<f32>(d, 0.0, 0.0, 0.0);
}

// The height and cell slope the detail uses (tile_cache_height_slope): per query, two entries:
// (map.x, map.y, wanted zoom, 0) then unused; x = height, yz = slope, w = the found slot's bits.
@compute @workgroup_size(64)
fn slope(@builtin(global_invocation_id) id: vec3<u32>) {
    if (2u * id.x + 1u >= arrayLength(&probe_queries)) {
        return;
    }
    let q = probe_queries[2u * id.x];
    let found = tile_cache_find(q.xy, q.z);
    let s = tile_cache_height_slope(found, q.xy);
    probe_results[id.x] = vec4<f32>(s, bitcast<f32>(found.slot));
}

// The data's height and the detail below it from the tile a vertex finds, its level read from the
// tile's error layer (tile_detail_sample, as globe_found_height_m uses it): per query, two
// entries: (map.x, map.y, wanted zoom, pixel_m bits) then unused; x = height, y = detail, z = the
// found slot's bits, w = the data's level + its fraction of an octave / 2 (in [0, 0.5)).
@compute @workgroup_size(64)
fn found_detail(@builtin(global_invocation_id) id: vec3<u32>) {
    if (2u * id.x + 1u >= arrayLength(&probe_queries)) {
        return;
    }
    let q = probe_queries[2u * id.x];
    let found = tile_cache_find(q.xy, q.z);
    let s = tile_detail_sample(found, q.xy, bitcast<f32>(q.w));
    let lattice = tile_error_data_level(found);
    probe_results[id.x] = vec4<f32>(s, bitcast<f32>(found.slot), lattice.x + 0.5 * lattice.y);
}

// The gradient of the detail below the data (globe_detail_gradient) at given inputs: queries as
// `detail`'s; xy = metres per map unit.
@compute @workgroup_size(64)
fn detail_gradient(@builtin(global_invocation_id) id: vec3<u32>) {
    if (2u * id.x + 1u >= arrayLength(&probe_queries)) {
        return;
    }
    let a = probe_queries[2u * id.x];
    let b = probe_queries[2u * id.x + 1u];
    let g = globe_detail_gradient(a.xy, bitcast<f32>(a.z), bitcast<f32>(a.w), bitcast<f32>(b.x), b.y, bitcast<f32>(b.z));
    probe_results[id.x] = vec4<f32>(g, 0.0, 0.0);
}
