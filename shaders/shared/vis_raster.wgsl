// The compute rasteriser's triangle setup and pixel loop, shared by raster.small
// (terrain_raster_small.wgsl) and its test probe (vis_raster_probe.wgsl); src/flat/raster.rs's
// `rasterise_cpu` is its CPU twin. A triangle whose screen bounding box is at most
// RasterUniforms.large_px wide and tall is rasterised: its corners snapped to 1/256 px as the
// hardware does, every pixel centre inside or on its edges gets depth << 32 | id by a 64-bit
// atomic max. Back faces and triangles outside the viewport are dropped. Binds the visibility
// buffer and the uniforms at @group(2) @binding(0) and (1). Larger triangles, and those crossing
// the near plane clipped against it (`raster_clip`), are set up here for raster.bin and
// raster.wide (`raster_wide_setup`, `raster_wide_pixel`: the same snapping and edge test in i64).
//!include shared/vis_buffer.wgsl

@group(2) @binding(0) var<storage, read_write> vis: array<atomic<u64>>;
@group(2) @binding(1) var<uniform> r: RasterUniforms;

// Triangles counted per size bin by this workgroup (every triangle on screen, any path).
var<workgroup> wg_histogram: array<atomic<u32>, RASTER_HISTOGRAM_BINS>;

// What `raster_triangle` did with a triangle.
const RASTER_DROPPED: u32 = 0u;
const RASTER_DRAWN: u32 = 1u;
const RASTER_LARGE: u32 = 2u;

// Twice the signed area of (a, b, p): >= 0 on the inner side of edge a -> b when (a, b, c) is
// positive.
fn edge_function(a: vec2<i32>, b: vec2<i32>, p: vec2<i32>) -> i32 {
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// floor(n / d) for d > 0.
fn raster_floor_div(n: i32, d: i32) -> i32 {
    if (n >= 0) {
        return n / d;
    }
    return -((d - 1 - n) / d);
}

// The pixels (first, last) of a row, offsets from its first pixel, that `span` allows and the
// edge whose function is `row_value` at the first pixel and grows by `step` per pixel keeps
// inside (non-negative).
fn raster_edge_span(span: vec2<i32>, row_value: i32, step: i32) -> vec2<i32> {
    if (step > 0) {
        return vec2<i32>(max(span.x, -raster_floor_div(row_value, step)), span.y);
    } else if (step < 0) {
        return vec2<i32>(span.x, min(span.y, raster_floor_div(row_value, -step)));
    } else if (row_value < 0) {
        return vec2<i32>(span.x, -1);
    }
    return span;
}

// Rasterises triangle `id` with corners at `clip` (all in front of the near plane, in drawing
// order: counter-clockwise seen from the front in y-up coordinates) unless it is too large.
fn raster_triangle(clip: array<vec4<f32>, 3>, id: u32) -> u32 {
    let size = vec2<f32>(r.size_px);
    let p0 = raster_pixel_position(clip[0], r.size_px);
    let p1 = raster_pixel_position(clip[1], r.size_px);
    let p2 = raster_pixel_position(clip[2], r.size_px);
    // Front faces run counter-clockwise in y-up coordinates: clockwise here, y down.
    let d1 = p1 - p0;
    let d2 = p2 - p0;
    if (d1.x * d2.y - d1.y * d2.x >= 0.0) {
        return RASTER_DROPPED;
    }
    let p_min = min(p0, min(p1, p2));
    let p_max = max(p0, max(p1, p2));
    if (p_max.x < 0.0 || p_max.y < 0.0 || p_min.x > size.x || p_min.y > size.y) {
        return RASTER_DROPPED;
    }
    let extent = max(p_max.x - p_min.x, p_max.y - p_min.y);
    atomicAdd(&wg_histogram[raster_histogram_bin(extent)], 1u);
    if (extent > f32(r.large_px)) {
        return RASTER_LARGE;
    }
    // The pixels whose centres (i + 0.5) lie in the bounding box, inside the viewport.
    let lo = max(vec2<i32>(ceil(p_min - 0.5)), vec2<i32>(0));
    let hi = min(vec2<i32>(floor(p_max - 0.5)), vec2<i32>(r.size_px) - 1);
    // Fixed point, 8 sub-pixel bits, relative to a pixel corner by the triangle (large_px <= 64
    // keeps every edge function within i32).
    let base = floor(p_min);
    let a = vec2<i32>(round((p0 - base) * 256.0));
    // Clockwise here: b and c swapped to make the area positive.
    let b = vec2<i32>(round((p2 - base) * 256.0));
    let c = vec2<i32>(round((p1 - base) * 256.0));
    let area = edge_function(a, b, c);
    if (area <= 0) {
        return RASTER_DROPPED;
    }
    let za = clip[0].z / clip[0].w;
    let zb = clip[2].z / clip[2].w;
    let zc = clip[1].z / clip[1].w;
    let inv_area = 1.0 / f32(area);
    let origin = vec2<i32>(base) * 256 - 128;
    // Scanlines: on each row every edge function is linear in x, so the covered span is solved
    // for exactly in integers and only its pixels are visited.
    let step_x = vec3<i32>(c.y - b.y, a.y - c.y, b.y - a.y) * -256;
    let step_y = vec3<i32>(c.x - b.x, a.x - c.x, b.x - a.x) * 256;
    let p_lo = lo * 256 - origin;
    var row = vec3<i32>(edge_function(b, c, p_lo), edge_function(c, a, p_lo), edge_function(a, b, p_lo));
    for (var y = lo.y; y <= hi.y; y++) {
        // The span each edge allows, edge by edge (written out: a vector indexed at run time may
        // go to local memory).
        var span = vec2<i32>(0, hi.x - lo.x);
        span = raster_edge_span(span, row.x, step_x.x);
        span = raster_edge_span(span, row.y, step_x.y);
        span = raster_edge_span(span, row.z, step_x.z);
        let first = span.x;
        let last = span.y;
        for (var k = first; k <= last; k++) {
            let w = row + step_x * k;
            let depth = (f32(w.x) * za + f32(w.y) * zb + f32(w.z) * zc) * inv_area;
            atomicMax(&vis[u32(y) * r.size_px.x + u32(lo.x + k)], vis_pack(depth, id));
        }
        row += step_y;
    }
    return RASTER_DRAWN;
}

// Pixel coordinates of a triangle raster.wide draws stay below this (2^22, in absolute value), so
// that round(p * 256) fits within 2^30, the corners relative to the box's corner within i32, and
// the edge functions within i64; larger ones go to the hardware.
const RASTER_WIDE_GUARD_PX: f32 = 4194304.0;
// Side in pixels of the square screen tiles of raster.wide (one workgroup each).
const RASTER_WIDE_TILE_PX: i32 = 32;

// A piece of a listed triangle set up for raster.wide by raster.bin, as `raster_triangle` sets one up:
// corners snapped to 1/256 px relative to `base`, in the order of its edge test.
struct WideTriangle {
    a: vec2<i32>,
    b: vec2<i32>,
    c: vec2<i32>,
    // floor of the bounding box's minimum corner, in pixels.
    base: vec2<i32>,
    // The pixels whose centres lie in the bounding box, inside the viewport (inclusive).
    lo: vec2<i32>,
    hi: vec2<i32>,
    // Reverse-Z depths at a, b and c.
    z: vec3<f32>,
    // The id written into the visibility buffer.
    id: u32,
}

// Tile entries raster.wide's lists hold at most (one workgroup each, within one dispatch
// dimension); src/schedule/raster.rs's WIDE_ENTRY_CAPACITY.
const RASTER_WIDE_ENTRY_CAPACITY: u32 = 65535u;

// raster.wide's lists, written by raster.bin: per tile entry the index into `triangles` and the
// tile's x | y << 16, then the large triangles set up (RASTER_WIDE_PIECES slots per listed
// triangle: the pieces of its clipping, `raster_clip`).
struct WideLists {
    entries: array<vec2<u32>, RASTER_WIDE_ENTRY_CAPACITY>,
    triangles: array<WideTriangle>,
}

// `edge_function` in i64, for triangles too large for i32.
fn edge_function_i64(a: vec2<i32>, b: vec2<i32>, p: vec2<i32>) -> i64 {
    return (i64(b.x) - i64(a.x)) * (i64(p.y) - i64(a.y)) - (i64(b.y) - i64(a.y)) * (i64(p.x) - i64(a.x));
}

// Sets up triangle `id` with corners at `clip` (in front of the near plane) for raster.wide; `ok` false when a corner lies outside
// the guard band (the hardware draws it).
struct WideSetup {
    t: WideTriangle,
    ok: bool,
}

fn raster_wide_setup(clip: array<vec4<f32>, 3>, id: u32) -> WideSetup {
    var out: WideSetup;
    let p0 = raster_pixel_position(clip[0], r.size_px);
    let p1 = raster_pixel_position(clip[1], r.size_px);
    let p2 = raster_pixel_position(clip[2], r.size_px);
    let p_min = min(p0, min(p1, p2));
    let p_max = max(p0, max(p1, p2));
    // Written so that NaN fails too.
    out.ok = all(abs(p_min) < vec2<f32>(RASTER_WIDE_GUARD_PX)) && all(abs(p_max) < vec2<f32>(RASTER_WIDE_GUARD_PX));
    if (!out.ok) {
        return out;
    }
    out.t.lo = max(vec2<i32>(ceil(p_min - 0.5)), vec2<i32>(0));
    out.t.hi = min(vec2<i32>(floor(p_max - 0.5)), vec2<i32>(r.size_px) - 1);
    out.t.base = vec2<i32>(floor(p_min));
    // Snapped where they are (p * 256 is exact), then made relative: a corner shared by two
    // triangles snaps to the same point whatever their boxes (`raster_triangle`'s p - base is
    // exact in its small boxes, so the two agree).
    let origin = out.t.base * 256;
    out.t.a = vec2<i32>(round(p0 * 256.0)) - origin;
    // Clockwise here: b and c swapped to make the area positive.
    out.t.b = vec2<i32>(round(p2 * 256.0)) - origin;
    out.t.c = vec2<i32>(round(p1 * 256.0)) - origin;
    out.t.z = vec3<f32>(clip[0].z / clip[0].w, clip[2].z / clip[2].w, clip[1].z / clip[1].w);
    out.t.id = id;
    return out;
}

// Twice the area of `t` in 1/256-px units squared (<= 0: nothing to draw).
fn raster_wide_area(t: WideTriangle) -> i64 {
    return edge_function_i64(t.a, t.b, t.c);
}

// Whether some pixel centre of screen tile `tile` (RASTER_WIDE_TILE_PX square) inside `t`'s
// pixel box lies on the inner side of each of `t`'s edges: each edge function is linear, so its
// largest value over the box's pixel centres is at one of their corners. False: raster.wide would
// draw nothing there (exact per edge; a tile all three edges graze apart may still be true).
fn raster_wide_tile_touched(t: WideTriangle, tile: vec2<i32>) -> bool {
    let lo = max(tile * RASTER_WIDE_TILE_PX, t.lo);
    let hi = min(tile * RASTER_WIDE_TILE_PX + RASTER_WIDE_TILE_PX - 1, t.hi);
    let p_lo = (lo - t.base) * 256 + 128;
    let p_hi = (hi - t.base) * 256 + 128;
    // The edges b -> c, c -> a, a -> b, written out (an array indexed at run time may go to
    // local memory).
    return raster_wide_edge_touches(t.b, t.c, p_lo, p_hi) && raster_wide_edge_touches(t.c, t.a, p_lo, p_hi)
        && raster_wide_edge_touches(t.a, t.b, p_lo, p_hi);
}

// Whether edge a -> b's function is non-negative at the box corner (p_lo..=p_hi) where it is
// largest: it grows with x when b.y < a.y and with y when b.x > a.x.
fn raster_wide_edge_touches(a: vec2<i32>, b: vec2<i32>, p_lo: vec2<i32>, p_hi: vec2<i32>) -> bool {
    let p = vec2<i32>(select(p_lo.x, p_hi.x, b.y < a.y), select(p_lo.y, p_hi.y, b.x > a.x));
    return edge_function_i64(a, b, p) >= 0;
}

// Writes `t` into the visibility buffer at `pixel` if the pixel's centre lies in its bounding
// box and inside or on its edges, with the depth `raster_triangle` interpolates.
fn raster_wide_pixel(t: WideTriangle, inv_area: f32, pixel: vec2<i32>) {
    if (any(pixel < t.lo) || any(pixel > t.hi)) {
        return;
    }
    let p = (pixel - t.base) * 256 + 128;
    let w0 = edge_function_i64(t.b, t.c, p);
    let w1 = edge_function_i64(t.c, t.a, p);
    let w2 = edge_function_i64(t.a, t.b, p);
    if (w0 < 0 || w1 < 0 || w2 < 0) {
        return;
    }
    let depth = (f32(w0) * t.z.x + f32(w1) * t.z.y + f32(w2) * t.z.z) * inv_area;
    atomicMax(&vis[u32(pixel.y) * r.size_px.x + u32(pixel.x)], vis_pack(depth, t.id));
}

// Triangles raster.small lists for raster.bin at most (one workgroup each, within one dispatch
// dimension); src/schedule/raster.rs's WIDE_TRIANGLE_CAPACITY.
const RASTER_WIDE_TRIANGLE_CAPACITY: u32 = 65535u;

// A triangle raster.small lists for raster.bin: its clip-space corners in drawing order and the
// id it writes. Keep in sync with WideInput in src/schedule/raster.rs.
struct WideInput {
    clip: array<vec4<f32>, 3>,
    id: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Whether clip-space point `p` lies in front of the near plane (reverse Z with an infinite far
// plane: clip z is the near distance, so w <= z is on or before it).
fn raster_in_front(p: vec4<f32>) -> bool {
    return p.w > p.z;
}

// Clip-space guard band of raster.bin's clipping: x and y within +-RASTER_CLIP_GUARD * w (a
// power of two, so that the planes' distances round alike with or without a fused multiply-add;
// 128.5 viewport widths from the centre, inside RASTER_WIDE_GUARD_PX up to 2^15-px viewports).
const RASTER_CLIP_GUARD: f32 = 256.0;
// Most corners of a triangle clipped by the near plane and the guard band's four planes.
const RASTER_CLIP_CORNERS: u32 = 8u;
// Most triangles it is split into (a fan from its first corner): raster.bin's slots per triangle.
const RASTER_WIDE_PIECES: u32 = 6u;

// Distance of clip-space point `p` to clipping plane `plane` (> 0 inside): 0 the near plane (w > z,
// as `raster_in_front`), 1-4 the guard band's x <= g w, -x <= g w, y <= g w, -y <= g w.
fn raster_plane_distance(p: vec4<f32>, plane: u32) -> f32 {
    switch plane {
        case 0u: {
            return p.w - p.z;
        }
        case 1u: {
            return RASTER_CLIP_GUARD * p.w - p.x;
        }
        case 2u: {
            return RASTER_CLIP_GUARD * p.w + p.x;
        }
        case 3u: {
            return RASTER_CLIP_GUARD * p.w - p.y;
        }
        default: {
            return RASTER_CLIP_GUARD * p.w + p.y;
        }
    }
}

// Whether `p` orders before `q` (lexicographically by x, y, z, w).
fn raster_clip_before(p: vec4<f32>, q: vec4<f32>) -> bool {
    if (p.x != q.x) {
        return p.x < q.x;
    }
    if (p.y != q.y) {
        return p.y < q.y;
    }
    if (p.z != q.z) {
        return p.z < q.z;
    }
    return p.w < q.w;
}

// Where edge p-q (one end inside plane `plane`, the other not) meets it: interpolated from the
// edge's endpoints in a fixed order (the one `raster_clip_before` puts first), so that two
// triangles sharing the edge get bit-identical points, whichever way each runs along it.
fn raster_plane_crossing(p: vec4<f32>, q: vec4<f32>, plane: u32) -> vec4<f32> {
    var a = p;
    var b = q;
    if (raster_clip_before(q, p)) {
        a = q;
        b = p;
    }
    let da = raster_plane_distance(a, plane);
    let db = raster_plane_distance(b, plane);
    let t = da / (da - db);
    return a + (b - a) * t;
}

// A convex polygon in clip space, its corners in drawing order.
struct ClipPolygon {
    count: u32,
    corners: array<vec4<f32>, RASTER_CLIP_CORNERS>,
}

// Clips triangle `clip` in homogeneous clip space against the near plane, then the guard band's
// planes (Sutherland-Hodgman: each edge's crossing by `raster_plane_crossing`); a triangle wholly
// inside is itself, its corners in the same order. Fewer than 3 corners left: count 0. Its
// pieces are the fan (corner 0, k + 1, k + 2), in the triangle's drawing order.
fn raster_clip(clip: array<vec4<f32>, 3>) -> ClipPolygon {
    var polygon: ClipPolygon;
    polygon.count = 3u;
    polygon.corners[0] = clip[0];
    polygon.corners[1] = clip[1];
    polygon.corners[2] = clip[2];
    for (var plane = 0u; plane < 5u; plane++) {
        var out: ClipPolygon;
        out.count = 0u;
        for (var k = 0u; k < polygon.count; k++) {
            let p = polygon.corners[k];
            let q = polygon.corners[(k + 1u) % polygon.count];
            let p_inside = raster_plane_distance(p, plane) > 0.0;
            if (p_inside) {
                out.corners[out.count] = p;
                out.count++;
            }
            if (p_inside != (raster_plane_distance(q, plane) > 0.0)) {
                out.corners[out.count] = raster_plane_crossing(p, q, plane);
                out.count++;
            }
        }
        polygon = out;
        if (polygon.count < 3u) {
            polygon.count = 0u;
            break;
        }
    }
    return polygon;
}
