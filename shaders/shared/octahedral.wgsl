// The octahedral map: map points in [0, 1]^2 onto the unit sphere. Mirrors
// src/globe/octahedral.rs (see its header: +z north pole at the map centre, the corners the south
// pole, the square's sides folds). No bindings.

// `p` folded into [0, 1]^2: a point just outside a side is the point just inside across the fold.
fn octa_wrap(p_in: vec2<f32>) -> vec2<f32> {
    var p = p_in;
    for (var i = 0; i < 2; i += 1) {
        if (p.x > 1.0) {
            p = vec2<f32>(2.0 - p.x, 1.0 - p.y);
        } else if (p.x < 0.0) {
            p = vec2<f32>(-p.x, 1.0 - p.y);
        }
        if (p.y > 1.0) {
            p = vec2<f32>(1.0 - p.x, 2.0 - p.y);
        } else if (p.y < 0.0) {
            p = vec2<f32>(1.0 - p.x, -p.y);
        }
    }
    return p;
}

// The point of the octahedron |x| + |y| + |z| = 1 at map point `p` in [0, 1]^2.
fn octa_octahedron_point(p: vec2<f32>) -> vec3<f32> {
    let q = 2.0 * p - 1.0;
    let z = 1.0 - abs(q.x) - abs(q.y);
    if (z >= 0.0) {
        return vec3<f32>(q, z);
    }
    return vec3<f32>(select(-1.0, 1.0, q.x >= 0.0) * (1.0 - abs(q.y)), select(-1.0, 1.0, q.y >= 0.0) * (1.0 - abs(q.x)), z);
}

// The unit vector at map point `p` (folded into the square first).
fn octa_to_unit_sphere(p: vec2<f32>) -> vec3<f32> {
    return normalize(octa_octahedron_point(octa_wrap(p)));
}

// Longitude and latitude in degrees of unit vector `n`.
fn octa_lon_lat_deg(n: vec3<f32>) -> vec2<f32> {
    return degrees(vec2<f32>(atan2(n.y, n.x), asin(clamp(n.z, -1.0, 1.0))));
}
