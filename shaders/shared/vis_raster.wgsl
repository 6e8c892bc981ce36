// The compute rasteriser's triangle setup and pixel loop, shared by raster.small
// (terrain_raster_small.wgsl) and its test probe (vis_raster_probe.wgsl); src/flat/raster.rs's
// `rasterise_cpu` is its CPU twin. A triangle whose screen bounding box is at most
// RasterUniforms.large_px wide and tall is rasterised: its corners snapped to 1/256 px as the
// hardware does, every pixel centre inside or on its edges gets depth << 32 | id by a 64-bit
// atomic max. Back faces and triangles outside the viewport are dropped. Binds the visibility
// buffer and the uniforms at @group(2) @binding(0) and (1).
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
        var first = 0;
        var last = hi.x - lo.x;
        for (var e = 0; e < 3; e++) {
            if (step_x[e] > 0) {
                first = max(first, -raster_floor_div(row[e], step_x[e]));
            } else if (step_x[e] < 0) {
                last = min(last, raster_floor_div(row[e], -step_x[e]));
            } else if (row[e] < 0) {
                last = -1;
            }
        }
        for (var k = first; k <= last; k++) {
            let w = row + step_x * k;
            let depth = (f32(w.x) * za + f32(w.y) * zb + f32(w.z) * zc) * inv_area;
            atomicMax(&vis[u32(y) * r.size_px.x + u32(lo.x + k)], vis_pack(depth, id));
        }
        row += step_y;
    }
    return RASTER_DRAWN;
}
