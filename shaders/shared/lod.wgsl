// The refinement criterion: split when the node's size on screen (its error bound from the data,
// or its longest edge) projected at its bounding box exceeds the threshold; never when hidden
// (outside the frustum, or facing away from the camera). Mirrors LodParams::wants_split in src/leb/lod.rs operation for operation.
//!include shared/leb.wgsl
//!include shared/node_bounds.wgsl
//!include shared/lod_constants.wgsl

// Keep in sync with LodParams in src/leb/lod.rs (tests/shaders.rs compares the layouts).
struct LodParams {
    camera_position_m: vec4<f32>,
    terrain_size_m: f32,
    projection_scale_sq: f32,
    split_threshold_sq: f32,
    merge_threshold_sq: f32,
    max_depth: u32,
    // 0 = screen-space error, 1 = edge length.
    criterion: u32,
    bounds_depth: u32,
    data_depth: u32,
    frustum_planes: array<vec4<f32>, 5>,
}

struct LodBox {
    lo: vec3<f32>,
    hi: vec3<f32>,
    // Slope ranges (lowest, highest) along x and y, metres per metre.
    slope_x: vec2<f32>,
    slope_y: vec2<f32>,
}

fn lod_bounding_box(lod: LodParams, v: array<vec2<f32>, 3>, bounds_index: u32, slope_index: u32) -> LodBox {
    let s = lod.terrain_size_m;
    let x0 = v[0].x * s;
    let x1 = v[1].x * s;
    let x2 = v[2].x * s;
    let y0 = v[0].y * s;
    let y1 = v[1].y * s;
    let y2 = v[2].y * s;
    let lo = vec3<f32>(min(min(x0, x1), x2), min(min(y0, y1), y2), node_height_min_m[bounds_index]);
    let hi = vec3<f32>(max(max(x0, x1), x2), max(max(y0, y1), y2), node_height_max_m[bounds_index]);
    let slopes = node_slope_range[slope_index];
    return LodBox(lo, hi, unpack2x16float(slopes.x), unpack2x16float(slopes.y));
}

fn lod_distance_sq_m2(lod: LodParams, b: LodBox) -> f32 {
    var d2 = 0.0;
    for (var axis = 0u; axis < 3u; axis += 1u) {
        let c = lod.camera_position_m[axis];
        let d = max(max(b.lo[axis] - c, 0.0), c - b.hi[axis]);
        d2 += d * d;
    }
    return d2;
}

fn lod_is_culled(lod: LodParams, b: LodBox) -> bool {
    for (var i = 0u; i < 5u; i += 1u) {
        let p = lod.frustum_planes[i];
        let c = select(b.lo, b.hi, p.xyz >= vec3<f32>(0.0));
        if (p.x * c.x + p.y * c.y + p.z * c.z + p.w < 0.0) {
            return true;
        }
    }
    return false;
}

// Mirrors LodParams::box_is_back_facing: every surface under the node faces away from the camera
// by at least the margin (squared sine; BACK_FACE_MARGIN_SQ comes from src/leb/lod.rs).
fn lod_is_back_facing(lod: LodParams, b: LodBox, margin_sq: f32) -> bool {
    let c = lod.camera_position_m.xyz;
    let dx = vec2<f32>(c.x - b.hi.x, c.x - b.lo.x);
    let dy = vec2<f32>(c.y - b.hi.y, c.y - b.lo.y);
    let along_x = max(max(-b.slope_x.x * dx.x, -b.slope_x.x * dx.y), max(-b.slope_x.y * dx.x, -b.slope_x.y * dx.y));
    let along_y = max(max(-b.slope_y.x * dy.x, -b.slope_y.x * dy.y), max(-b.slope_y.y * dy.x, -b.slope_y.y * dy.y));
    let facing = (c.z - b.lo.z) + along_x + along_y;
    return facing <= 0.0 && facing * facing >= margin_sq * lod_distance_sq_m2(lod, b);
}

// Outside the frustum, or back-facing by margin_sq (BACK_FACE_MARGIN_SQ for splits, 0 for the
// statistics: what can be seen).
fn lod_is_hidden(lod: LodParams, b: LodBox, margin_sq: f32) -> bool {
    return lod_is_culled(lod, b) || lod_is_back_facing(lod, b, margin_sq);
}

fn lod_size_sq_m2(lod: LodParams, v: array<vec2<f32>, 3>, bounds_index: u32) -> f32 {
    if (lod.criterion == 1u) {
        let s = lod.terrain_size_m;
        let dx = (v[0].x - v[2].x) * s;
        let dy = (v[0].y - v[2].y) * s;
        return dx * dx + dy * dy;
    }
    let e = node_error_m[bounds_index];
    return e * e;
}

fn lod_wants_split(lod: LodParams, id: u32, depth: u32, threshold_sq: f32) -> bool {
    if (depth >= lod.max_depth || (lod.criterion == 0u && depth >= lod.data_depth)) {
        return false;
    }
    let v = leb_decode_vertices(id, depth);
    let index = node_bounds_index(id, depth, lod.bounds_depth);
    let b = lod_bounding_box(lod, v, index, node_slope_index(id, depth, lod.bounds_depth));
    if (lod_is_hidden(lod, b, BACK_FACE_MARGIN_SQ)) {
        return false;
    }
    return lod_size_sq_m2(lod, v, index) * lod.projection_scale_sq > threshold_sq * lod_distance_sq_m2(lod, b);
}

// The node's size on screen in pixels, 0 when hidden or at the data's resolution under
// screen-space error (LodParams::projected_size_px).
fn lod_projected_size_px(lod: LodParams, id: u32, depth: u32) -> f32 {
    if (lod.criterion == 0u && depth >= lod.data_depth) {
        return 0.0;
    }
    let v = leb_decode_vertices(id, depth);
    let index = node_bounds_index(id, depth, lod.bounds_depth);
    let b = lod_bounding_box(lod, v, index, node_slope_index(id, depth, lod.bounds_depth));
    if (lod_is_hidden(lod, b, 0.0)) {
        return 0.0;
    }
    // The camera inside the box: distance 1 mm rather than a division by zero.
    return sqrt(lod_size_sq_m2(lod, v, index) * lod.projection_scale_sq / max(lod_distance_sq_m2(lod, b), 1e-6));
}
