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
    for (var y = lo.y; y <= hi.y; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            let p = vec2<i32>(x, y) * 256 - origin;
            let wa = edge_function(b, c, p);
            let wb = edge_function(c, a, p);
            let wc = edge_function(a, b, p);
            if (wa >= 0 && wb >= 0 && wc >= 0) {
                let depth = (f32(wa) * za + f32(wb) * zb + f32(wc) * zc) * inv_area;
                atomicMax(&vis[u32(y) * r.size_px.x + u32(x)], vis_pack(depth, id));
            }
        }
    }
    return RASTER_DRAWN;
}
