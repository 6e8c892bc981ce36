// The refinement criterion: split when the projected longest edge exceeds the pixel target.
// Mirrors LodParams::should_split in src/leb/lod.rs operation for operation.
//!include shared/leb.wgsl

// Keep in sync with LodParams in src/leb/lod.rs.
struct LodParams {
    camera_position_m: vec4<f32>,
    terrain_size_m: f32,
    height_min_m: f32,
    height_max_m: f32,
    projection_scale_sq: f32,
    pixel_error_sq: f32,
    max_depth: u32,
    _pad0: u32,
    _pad1: u32,
}

fn lod_distance_sq_m2(lod: LodParams, v: array<vec2<f32>, 3>) -> f32 {
    let s = lod.terrain_size_m;
    let x0 = v[0].x * s;
    let x1 = v[1].x * s;
    let x2 = v[2].x * s;
    let y0 = v[0].y * s;
    let y1 = v[1].y * s;
    let y2 = v[2].y * s;
    let lo = vec3<f32>(min(min(x0, x1), x2), min(min(y0, y1), y2), lod.height_min_m);
    let hi = vec3<f32>(max(max(x0, x1), x2), max(max(y0, y1), y2), lod.height_max_m);
    var d2 = 0.0;
    for (var axis = 0u; axis < 3u; axis += 1u) {
        let c = lod.camera_position_m[axis];
        let d = max(max(lo[axis] - c, 0.0), c - hi[axis]);
        d2 += d * d;
    }
    return d2;
}

fn lod_should_split(lod: LodParams, id: u32, depth: u32) -> bool {
    if (depth >= lod.max_depth) {
        return false;
    }
    let v = leb_decode_vertices(id, depth);
    let s = lod.terrain_size_m;
    let dx = (v[0].x - v[2].x) * s;
    let dy = (v[0].y - v[2].y) * s;
    let edge_sq_m2 = dx * dx + dy * dy;
    return edge_sq_m2 * lod.projection_scale_sq > lod.pixel_error_sq * lod_distance_sq_m2(lod, v);
}
