// A test kernel: the bisector pool's camera-relative positions and globe criterion
// (shared/pool_globe.wgsl, as the pool's passes and globe.pool_draw evaluate them) at given
// heights, so tests compare them with the f64 twin (src/globe/pool_lod.rs).
//!include shared/pool_types.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/globe_cull.wgsl
//!include shared/pool_globe.wgsl

// 64-bit fixed-point map points (x lo, x hi, y lo, y hi): one per point, or three per triangle.
@group(0) @binding(0) var<storage, read> points: array<vec4<u32>>;
@group(0) @binding(1) var<uniform> globe: GlobeFrame;
// Height above the sphere in metres of each point.
@group(0) @binding(2) var<storage, read> heights_m: array<f32>;
// positions: xyz = relative to the camera in metres; errors: x = e² in px², y = the ball's
// vertical sine (shared/globe_cull.wgsl globe_vertical_sine).
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn positions(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&points)) {
        out[id.x] = vec4<f32>(pool_relative_position_m(points[id.x], heights_m[id.x]), 0.0);
    }
}

@compute @workgroup_size(64)
fn errors(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (3u * i + 2u < arrayLength(&points)) {
        let v = array<vec4<u32>, 3>(points[3u * i], points[3u * i + 1u], points[3u * i + 2u]);
        let h = vec3<f32>(heights_m[3u * i], heights_m[3u * i + 1u], heights_m[3u * i + 2u]);
        out[i] = vec4<f32>(pool_globe_error_sq_px2_at(v, h), globe_vertical_sine(pool_globe_bound_at(v, h)), 0.0, 0.0);
    }
}
