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
    // w = h_c, the camera's height above the WGS84 ellipsoid in metres (f32); xyz = camera -
    // P(A/|A|, h_c) in metres (computed in f64: small; src/globe/frame.rs).
    camera_from_anchor_m: vec4<f32>,
    // xyz = planet centre - camera in metres, w = distance from the centre to the camera.
    centre_from_camera_m: vec4<f32>,
    // Frustum planes in camera-relative metres: dot(xyz, p) + w >= 0 inside, xyz unit.
    frustum: array<vec4<f32>, 6>,
    // xyz = unit vector towards the sun (earth-fixed axes), w unused.
    sun_direction: vec4<f32>,
    // xyz = this frame's camera - the last globe.pool_decode's camera in metres (earth-fixed);
    // w = 1: the pool's criterion may move that decode's vertices by xyz (shared/pool_criterion_globe.wgsl).
    camera_moved_m: vec4<f32>,
    // The ellipsoid's prime vertical radius at the anchor, N(a_z), in metres (a nominal radius
    // for the bulge of a patch and the shading's tangents).
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

// The point at height `height_m` above the ellipsoid along the octahedron point `q` (any scale:
// q/|q| is the normal), relative to the camera, in metres; `d` = q - A in the anchor's units of
// 2^-29, exact before it became f32. Evaluated as (src/globe/frame.rs)
//   (N(a_z) D + h) δ + (N(u_z) - N(a_z)) D u + (h - h_c) a - c,   δ = u - a,
// with δ = d/|q| - A (2 A.d + d.d) / (|q| |A| (|q| + |A|)) and N(u_z) - N(a_z) from δ_z, so every
// rounding error is relative to d and h - h_c is exact near the camera: errors vanish near the
// camera, so no jitter at 1 m above the ground anywhere on Earth, though f32 cannot hold the
// Earth-centred coordinates themselves.
fn globe_lift_relative_m(q: vec3<f32>, d: vec3<f32>, height_m: f32) -> vec3<f32> {
    let q_len = length(q);
    let a = globe.anchor.xyz;
    let a_len = globe.anchor.w;
    let delta = d / q_len - a * ((2.0 * dot(a, d) + dot(d, d)) / (q_len * a_len * (q_len + a_len)));
    let u = q / q_len;
    let a_unit = a / a_len;
    let s_u = sqrt(1.0 - GLOBE_WGS84_E2 * u.z * u.z);
    let s_a = sqrt(1.0 - GLOBE_WGS84_E2 * a_unit.z * a_unit.z);
    let n_change_m = GLOBE_WGS84_A_M * GLOBE_WGS84_E2 * delta.z * (u.z + a_unit.z) / (s_u * s_a * (s_u + s_a));
    let squash = vec3<f32>(1.0, 1.0, 1.0 - GLOBE_WGS84_E2);
    return (globe.radius_m * squash + height_m) * delta + n_change_m * (squash * u) + (height_m - globe.camera_from_anchor_m.w) * a_unit
        - globe.camera_from_anchor_m.xyz;
}

// The point at map point `map` and `height_m` above the ellipsoid, relative to the camera, in
// metres (globe_lift_relative_m; d = q - A exact integers).
fn globe_relative_position_m(map: vec2<u32>, height_m: f32) -> vec3<f32> {
    let q_fixed = globe_octahedron_fixed(map);
    return globe_lift_relative_m(vec3<f32>(q_fixed), vec3<f32>(q_fixed - globe.anchor_fixed.xyz), height_m);
}
