// The globe's culling and projected size of a ball around a patch of terrain, shared by the
// heap's criterion (shared/globe_lod.wgsl) and the bisector pool's (shared/pool_criterion_globe.wgsl).
// Needs shared/globe_frame.wgsl (with `globe` bound).

struct GlobeBound {
    // Centre of a ball holding the node's patch of terrain, camera-relative metres.
    centre: vec3<f32>,
    radius_m: f32,
    // Length of the triangle's hypotenuse (its longest edge) in metres.
    hypotenuse_m: f32,
    // Under --lod error: the data's error bound in metres of the triangle drawn flat
    // (shared/tile_error.wgsl); 0 under the edge criterion.
    error_m: f32,
}

// True when the ball is certainly invisible: outside a frustum plane, or inside the shadow cone
// of the occluder sphere (everything lies above it) beyond the plane of its horizon circle.
fn globe_is_hidden(b: GlobeBound) -> bool {
    for (var i = 0; i < 6; i += 1) {
        let plane = globe.frustum[i];
        if (dot(plane.xyz, b.centre) + plane.w < -b.radius_m) {
            return true;
        }
    }
    let to_centre = globe.centre_from_camera_m.xyz;
    let d = globe.centre_from_camera_m.w;
    let r_o = globe.occluder_radius_m;
    if (d <= r_o) {
        return false;
    }
    let axis = to_centre / d;
    // Beyond the horizon plane: (c - O).(E - O)/|E - O| + r < r_o^2 / d.
    if (dot(b.centre - to_centre, -axis) + b.radius_m >= r_o * r_o / d) {
        return false;
    }
    // Inside the cone of half-angle asin(r_o / d) around the axis, by the ball's angular radius.
    let c_len = length(b.centre);
    if (c_len <= b.radius_m) {
        return false;
    }
    let angle = acos(clamp(dot(b.centre, axis) / c_len, -1.0, 1.0));
    return angle + asin(b.radius_m / c_len) < asin(r_o / d);
}

// The hypotenuse's projected length in pixels, seen from the ball's nearest point (at least 1 m).
fn globe_projected_px(b: GlobeBound) -> f32 {
    return b.hypotenuse_m * globe.projection_scale_px / max(length(b.centre) - b.radius_m, 1.0);
}

// The distance from the camera to the ball's nearest point (at least 1 m).
fn globe_nearest_m(b: GlobeBound) -> f32 {
    return max(length(b.centre) - b.radius_m, 1.0);
}

// An upper bound, over the ball, of the sine of the angle between the line of sight and the
// vertical: a vertical segment of length e at distance d projects to e sin / d (ROAM's projected
// wedgie). The angle at the centre grows by the ball's angular radius seen from the camera, by how
// far the vertical turns across the ball (radius over the ellipsoid's smallest radius of
// curvature) and by GLOBE_VERTICAL_SLACK_RAD (the geocentric direction standing for the vertical,
// and f32's acos); 1 when the camera is inside the ball.
fn globe_vertical_sine(b: GlobeBound) -> f32 {
    let c_len = length(b.centre);
    if (c_len <= b.radius_m) {
        return 1.0;
    }
    let up = normalize(b.centre - globe.centre_from_camera_m.xyz);
    let angle = acos(clamp(abs(dot(b.centre, up)) / c_len, 0.0, 1.0));
    let spread = asin(b.radius_m / c_len) + b.radius_m / GLOBE_MIN_CURVATURE_RADIUS_M + GLOBE_VERTICAL_SLACK_RAD;
    return sin(min(angle + spread, GLOBE_HALF_PI));
}

// What the criterion compares with the pixel target: the projected hypotenuse (edge), or the
// projected error of the triangle drawn flat (error): the data's bound plus the sphere's bulge
// under the chord (hypotenuse² / 8R), both vertical, seen from the ball's nearest point along
// lines of sight at most globe_vertical_sine from the vertical; 0 for a triangle whose
// hypotenuse projects under GLOBE_MIN_SPLIT_PX (src/globe/frame.rs MIN_SPLIT_PX says why).
fn globe_criterion_px(b: GlobeBound) -> f32 {
    if (globe.criterion == GLOBE_CRITERION_ERROR) {
        if (globe_projected_px(b) < GLOBE_MIN_SPLIT_PX) {
            return 0.0;
        }
        let bulge_m = b.hypotenuse_m * b.hypotenuse_m / (8.0 * globe.radius_m);
        return (b.error_m + bulge_m) * globe_vertical_sine(b) * globe.projection_scale_px / globe_nearest_m(b);
    }
    return globe_projected_px(b);
}

