// The globe's per-frame uniforms and camera-relative vertex positions. Keep GlobeFrame in sync
// with src/globe/frame.rs, which explains the scheme; the includer binds
//   @group(0) @binding(1) var<uniform> globe: GlobeFrame;
//!include shared/globe_constants.wgsl

struct GlobeFrame {
    // Camera-relative metres -> clip space (reverse Z, infinite far plane).
    clip_from_relative: mat4x4<f32>,
    // The anchor A: an octahedron point near the camera's, fixed point (1.0 = 2^29).
    anchor_fixed: vec4<i32>,
    // xyz = A as floats, w = |A| (computed in f64).
    anchor: vec4<f32>,
    // w = h_c, the camera's height above the sphere in metres (f32); xyz = camera - (R + h_c) A/|A|
    // in metres (computed in f64: small).
    camera_from_anchor_m: vec4<f32>,
    // xyz = planet centre - camera in metres, w = distance from the centre to the camera.
    centre_from_camera_m: vec4<f32>,
    // Frustum planes in camera-relative metres: dot(xyz, p) + w >= 0 inside, xyz unit.
    frustum: array<vec4<f32>, 6>,
    // xyz = unit vector towards the sun (earth-fixed axes), w unused.
    sun_direction: vec4<f32>,
    radius_m: f32,
    // Radius of a sphere everything lies above (culling behind the horizon).
    occluder_radius_m: f32,
    // Viewport height / (2 tan(fov_y / 2)): pixels per unit of tangent.
    projection_scale_px: f32,
    // Projected hypotenuse lengths in pixels above which triangles split / stay split.
    split_threshold_px: f32,
    merge_threshold_px: f32,
    wireframe: u32,
    // 0 = the edge-length criterion; 1 = the test criterion (hash of the node id; tests/globe.rs);
    // 2 = the data's screen-space error (GLOBE_CRITERION_ERROR).
    criterion: u32,
    // 1 = the detail below the data (shared/globe_detail.wgsl), 0 = off (--detail off).
    detail: u32,
}

const GLOBE_CRITERION_ERROR: u32 = 2u;

// The octahedron point |x| + |y| + |z| = 1 (in units of 2^-29) of fixed-point map point `map`
// (MAP_ONE = 2^30): exact integer arithmetic, so shared vertices agree bit for bit.
fn globe_octahedron_fixed(map: vec2<u32>) -> vec3<i32> {
    let q = vec2<i32>(map) - vec2<i32>(GLOBE_FIXED_ONE);
    let z = GLOBE_FIXED_ONE - abs(q.x) - abs(q.y);
    if (z >= 0) {
        return vec3<i32>(q, z);
    }
    return vec3<i32>(select(-1, 1, q.x >= 0) * (GLOBE_FIXED_ONE - abs(q.y)), select(-1, 1, q.y >= 0) * (GLOBE_FIXED_ONE - abs(q.x)), z);
}

// The unit vector (earth-fixed) at map point `map`.
fn globe_unit_vector(map: vec2<u32>) -> vec3<f32> {
    return normalize(vec3<f32>(globe_octahedron_fixed(map)));
}

// The point at map point `map` and `height_m` above the sphere, relative to the camera, in
// metres: (R + h) (q/|q| - A/|A|) + (h - h_c) A/|A| - (camera - (R + h_c) A/|A|), with q the
// octahedron point and A the anchor. q/|q| - A/|A| is evaluated as
//   d/|q| - A (2 A.d + d.d) / (|q| |A| (|q| + |A|)),   d = q - A (exact integers),
// whose rounding error is relative to d, and h - h_c is exact near the camera, so errors vanish
// near the camera: no jitter at 2 m above the ground anywhere on Earth, though f32 cannot hold
// the Earth-centred coordinates themselves (src/globe/frame.rs).
fn globe_relative_position_m(map: vec2<u32>, height_m: f32) -> vec3<f32> {
    let q_fixed = globe_octahedron_fixed(map);
    let d = vec3<f32>(q_fixed - globe.anchor_fixed.xyz);
    let q = vec3<f32>(q_fixed);
    let q_len = length(q);
    let a = globe.anchor.xyz;
    let a_len = globe.anchor.w;
    let direction_change = d / q_len - a * ((2.0 * dot(a, d) + dot(d, d)) / (q_len * a_len * (q_len + a_len)));
    return (globe.radius_m + height_m) * direction_change + (height_m - globe.camera_from_anchor_m.w) * (a / a_len) - globe.camera_from_anchor_m.xyz;
}
