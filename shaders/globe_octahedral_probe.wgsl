// A test kernel: the octahedral map in WGSL at given map points, so tests compare it with its
// CPU twin (src/globe/octahedral.rs). One thread per point.
//!include shared/octahedral.wgsl

@group(0) @binding(0) var<storage, read> map_points: array<vec2<f32>>;
// xyz = unit vector, w unused.
@group(0) @binding(1) var<storage, read_write> sphere_points: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&map_points)) {
        sphere_points[id.x] = vec4<f32>(octa_to_unit_sphere(map_points[id.x]), 0.0);
    }
}
