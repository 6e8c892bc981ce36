// A test kernel: camera-relative vertex positions on the globe (globe_relative_position_m, as
// globe.decode and globe.draw place vertices), so tests compare them with f64 and measure jitter.
// One thread per point.
//!include shared/globe_frame.wgsl

// xy = fixed-point map point (MAP_ONE = 2^30), z = height above the sphere (f32 bits), w unused.
@group(0) @binding(0) var<storage, read> points: array<vec4<u32>>;
@group(0) @binding(1) var<uniform> globe: GlobeFrame;
// xyz = position relative to the camera in metres, w unused.
@group(0) @binding(2) var<storage, read_write> relative_m: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&points)) {
        let p = points[id.x];
        relative_m[id.x] = vec4<f32>(globe_relative_position_m(p.xy, bitcast<f32>(p.z)), 0.0);
    }
}
