// The bisector pool's vertices on the globe: 64-bit fixed-point map points (vec4<u32>: x lo,
// x hi, y lo, y hi; MAP_ONE_64 = 2^62) placed relative to the camera exactly where it matters.
// Needs shared/pool_types.wgsl, shared/globe_frame.wgsl (with `globe` bound) and
// shared/globe_heights.wgsl.
//
// The octahedron point q of a map point is computed in i64 (two u32 words, two's complement,
// units of 2^-61), and d = q - A with the frame's anchor A (units of 2^-29, so A << 32 in the
// same units) is exact; only then does it become f32, with an error relative to |d|. The rest is
// globe_relative_position_m's form (src/globe/frame.rs): the error of a vertex's position
// shrinks with its distance to the camera at any depth, down to the id limit (60 levels below
// the base, where the map grid is 2^-31 of the map).

// 2^61: 1.0 on the octahedron, as (lo, hi).
const POOL_OCTAHEDRON_ONE: vec2<u32> = vec2<u32>(0u, 0x20000000u);

fn i64_negative(a: vec2<u32>) -> bool {
    return (a.y >> 31u) == 1u;
}

fn i64_neg(a: vec2<u32>) -> vec2<u32> {
    return u64_sub(vec2<u32>(0u, 0u), a);
}

fn i64_abs(a: vec2<u32>) -> vec2<u32> {
    return select(a, i64_neg(a), i64_negative(a));
}

// The i64 as a float, in units of 2^32 of its own (error at most 2^-24 relative plus 2^-24).
fn i64_to_f32_over_2_32(a: vec2<u32>) -> f32 {
    return f32(bitcast<i32>(a.y)) + f32(a.x) * (1.0 / 4294967296.0);
}

// The octahedron point |x| + |y| + |z| = 1 of map point `v` in i64 units of 2^-61 (exact).
fn pool_octahedron_fixed(v: vec4<u32>) -> array<vec2<u32>, 3> {
    let qx = u64_sub(v.xy, POOL_OCTAHEDRON_ONE);
    let qy = u64_sub(v.zw, POOL_OCTAHEDRON_ONE);
    let ax = i64_abs(qx);
    let ay = i64_abs(qy);
    let z = u64_sub(u64_sub(POOL_OCTAHEDRON_ONE, ax), ay);
    if (!i64_negative(z)) {
        return array<vec2<u32>, 3>(qx, qy, z);
    }
    let x_fold = u64_sub(POOL_OCTAHEDRON_ONE, ay);
    let y_fold = u64_sub(POOL_OCTAHEDRON_ONE, ax);
    return array<vec2<u32>, 3>(select(i64_neg(x_fold), x_fold, !i64_negative(qx)), select(i64_neg(y_fold), y_fold, !i64_negative(qy)), z);
}

// The map point's 32-bit fixed-point form (MAP_ONE = 2^30: the high words), for the tile cache.
fn pool_map32(v: vec4<u32>) -> vec2<u32> {
    return v.yw;
}

// The height in metres above the sphere at map point `v` (shared/globe_heights.wgsl, at the
// 32-bit map point: within 2^-30 of the map, 2 cm, and the same for every triangle).
fn pool_vertex_height_m(v: vec4<u32>) -> f32 {
    return globe_vertex_height_m(pool_map32(v));
}

// The point at map point `v` and `height_m` above the ellipsoid, relative to the camera, in metres.
fn pool_relative_position_m(v: vec4<u32>, height_m: f32) -> vec3<f32> {
    let q_fixed = pool_octahedron_fixed(v);
    let a_fixed = globe.anchor_fixed;
    // d = q - A in units of 2^-61, exact; then floats in units of 2^-29 (as globe.anchor).
    let dx = u64_sub(q_fixed[0], vec2<u32>(0u, bitcast<u32>(a_fixed.x)));
    let dy = u64_sub(q_fixed[1], vec2<u32>(0u, bitcast<u32>(a_fixed.y)));
    let dz = u64_sub(q_fixed[2], vec2<u32>(0u, bitcast<u32>(a_fixed.z)));
    let d = vec3<f32>(i64_to_f32_over_2_32(dx), i64_to_f32_over_2_32(dy), i64_to_f32_over_2_32(dz));
    let q = vec3<f32>(i64_to_f32_over_2_32(q_fixed[0]), i64_to_f32_over_2_32(q_fixed[1]), i64_to_f32_over_2_32(q_fixed[2]));
    return globe_lift_relative_m(q, d, height_m);
}

// The vertices of triangle `v` at `heights_m`, relative to the camera (as globe.pool_draw
// places them).
fn pool_relative_positions_m(v: array<vec4<u32>, 3>, heights_m: vec3<f32>) -> array<vec3<f32>, 3> {
    return array<vec3<f32>, 3>(
        pool_relative_position_m(v[0], heights_m.x),
        pool_relative_position_m(v[1], heights_m.y),
        pool_relative_position_m(v[2], heights_m.z),
    );
}

// Depth of the octahedron's base triangles, counter-clockwise seen from outside.
const POOL_GLOBE_BASE_DEPTH: u32 = 3u;

// The vertex (0..3) of a triangle of depth `depth` drawn as its `corner`-th: bisection flips the
// winding at every level, so odd levels below the base are drawn in reverse and every triangle
// faces out (as globe_draw.wgsl does).
fn pool_draw_vertex(depth: u32, corner: u32) -> u32 {
    return select(corner, 2u - corner, ((depth - POOL_GLOBE_BASE_DEPTH) & 1u) == 1u);
}

// The heights of triangle `v`'s vertices from the tile cache.
fn pool_vertex_heights_m(v: array<vec4<u32>, 3>) -> vec3<f32> {
    return vec3<f32>(pool_vertex_height_m(v[0]), pool_vertex_height_m(v[1]), pool_vertex_height_m(v[2]));
}

// A ball around the patch of a triangle whose vertices lie at `p` (camera-relative), as
// globe_bound does for the heap's nodes. The CPU twin is globe::pool_lod (src/globe/pool_lod.rs).
fn pool_globe_bound_of(p: array<vec3<f32>, 3>) -> GlobeBound {
    let centre = (p[0] + p[1] + p[2]) / 3.0;
    let hypotenuse = length(p[2] - p[0]);
    let angle = hypotenuse / globe.radius_m;
    let slack = globe.radius_m * angle * angle / 8.0 + 0.25 * hypotenuse;
    let radius = max(max(length(p[0] - centre), length(p[1] - centre)), length(p[2] - centre)) + slack;
    return GlobeBound(centre, radius, hypotenuse, 0.0);
}

// A ball around the patch of triangle `v` whose vertices lie at `heights_m`.
fn pool_globe_bound_at(v: array<vec4<u32>, 3>, heights_m: vec3<f32>) -> GlobeBound {
    return pool_globe_bound_of(pool_relative_positions_m(v, heights_m));
}

// The ball of a triangle `v` at `p` (its vertices at their heights from the tile cache), with
// the data's error bound under --lod error (shared/tile_error.wgsl).
fn pool_globe_bound_with_error(v: array<vec4<u32>, 3>, p: array<vec3<f32>, 3>) -> GlobeBound {
    var b = pool_globe_bound_of(p);
    if (globe.criterion == GLOBE_CRITERION_ERROR) {
        b.error_m = globe_data_error_m(array<vec2<u32>, 3>(pool_map32(v[0]), pool_map32(v[1]), pool_map32(v[2])), globe_nearest_m(b));
    }
    return b;
}

// The ball around triangle `v` at its vertices' heights from the tile cache, with the data's
// error bound under --lod error.
fn pool_globe_bound(v: array<vec4<u32>, 3>) -> GlobeBound {
    return pool_globe_bound_with_error(v, pool_relative_positions_m(v, pool_vertex_heights_m(v)));
}

// The globe's criterion on the ball `b`: 0 when hidden (outside the frustum or behind the
// horizon), else the square of globe_criterion_px (the projected hypotenuse, or error) in px².
fn pool_globe_error_sq_px2_of(b: GlobeBound) -> f32 {
    if (globe_is_hidden(b)) {
        return 0.0;
    }
    let e = globe_criterion_px(b);
    return e * e;
}

// The edge criterion on a pool triangle whose vertices lie at `heights_m` (the test probe's).
fn pool_globe_error_sq_px2_at(v: array<vec4<u32>, 3>, heights_m: vec3<f32>) -> f32 {
    return pool_globe_error_sq_px2_of(pool_globe_bound_at(v, heights_m));
}

// The criterion at the vertices' heights from the tile cache.
fn pool_globe_error_sq_px2(v: array<vec4<u32>, 3>) -> f32 {
    return pool_globe_error_sq_px2_of(pool_globe_bound(v));
}
