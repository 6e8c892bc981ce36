// The globe's LOD criterion: a node's triangle on the sphere, bounded by a ball relative to the
// camera, splits while its hypotenuse projects to more than a threshold in pixels, unless the
// ball lies outside the view frustum or behind the horizon. Mirrors src/globe/lod.rs.
// Needs shared/globe_leb.wgsl, shared/globe_frame.wgsl (with `globe` bound), shared/hash.wgsl
// and shared/globe_heights.wgsl.

struct GlobeBound {
    // Centre of a ball holding the node's patch of terrain, camera-relative metres.
    centre: vec3<f32>,
    radius_m: f32,
    // Length of the triangle's hypotenuse (its longest edge) in metres.
    hypotenuse_m: f32,
}

// A ball around the node's patch: the vertices at their heights, widened by the sphere's bulge
// between them (the sagitta, over-estimated by angle^2 / 8) and a quarter of the hypotenuse for
// terrain rising or dipping between the vertices.
fn globe_bound(id: u32, depth: u32) -> GlobeBound {
    let v = globe_decode_map(id, depth);
    let p0 = globe_relative_position_m(v[0], globe_vertex_height_m(v[0]));
    let p1 = globe_relative_position_m(v[1], globe_vertex_height_m(v[1]));
    let p2 = globe_relative_position_m(v[2], globe_vertex_height_m(v[2]));
    let centre = (p0 + p1 + p2) / 3.0;
    let hypotenuse = length(p2 - p0);
    let angle = hypotenuse / globe.radius_m;
    let slack = globe.radius_m * angle * angle / 8.0 + 0.25 * hypotenuse;
    let radius = max(max(length(p0 - centre), length(p1 - centre)), length(p2 - centre)) + slack;
    return GlobeBound(centre, radius, hypotenuse);
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

// The test criterion: a node splits when a hash of its id falls below a share, so CPU and GPU
// decide bit for bit alike. threshold_px (as a share of 2^32 / 1000) selects split or merge.
fn globe_test_wants_split(id: u32, threshold_px: f32) -> bool {
    return f32(fmix32(id) % 1000u) < threshold_px;
}

// Does the node want to be split under threshold `threshold_px`?
fn globe_wants_split(id: u32, depth: u32, threshold_px: f32) -> bool {
    if (globe.criterion == 1u) {
        return globe_test_wants_split(id, threshold_px);
    }
    let b = globe_bound(id, depth);
    return !globe_is_hidden(b) && globe_projected_px(b) > threshold_px;
}
