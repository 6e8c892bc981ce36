// The globe's LOD criterion: a node's triangle on the sphere, bounded by a ball relative to the
// camera, splits while its hypotenuse projects to more than a threshold in pixels, unless the
// ball lies outside the view frustum or behind the horizon. Mirrors src/globe/lod.rs.
// Needs shared/globe_leb.wgsl, shared/globe_frame.wgsl (with `globe` bound), shared/hash.wgsl
// and shared/globe_heights.wgsl.
//!include shared/globe_cull.wgsl

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
    var b = GlobeBound(centre, radius, hypotenuse, 0.0);
    if (globe.criterion == GLOBE_CRITERION_ERROR) {
        b.error_m = globe_data_error_m(v, globe_nearest_m(b));
    }
    return b;
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
    return !globe_is_hidden(b) && globe_criterion_px(b) > threshold_px;
}
