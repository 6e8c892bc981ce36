// The visibility buffer of the compute rasteriser (src/schedule/raster.rs, VisBuffers): one u64 per pixel of the
// viewport, row by row, holding depth << 32 | node id of the nearest triangle (0: none). Depth is
// reverse Z (nearer is greater, always > 0 in front of the camera), so a 64-bit atomic max keeps
// the nearest triangle; its bits as a u32 order like the float.

// Keep in sync with RasterUniforms in src/schedule/raster.rs.
struct RasterUniforms {
    // The viewport (and the buffer's) width and height in pixels.
    size_px: vec2<u32>,
    // Triangles whose screen bounding box is wider or taller than this go to raster.bin and
    // raster.wide (binned per tile in compute), as do those crossing the near plane.
    large_px: u32,
    _pad: u32,
}

// Triangle-size histogram bins: bin 0 holds triangles under 1 px, bin k those of 2^(k-1) up to
// 2^k px (longest side of the screen bounding box), the last bin everything larger.
const RASTER_HISTOGRAM_BINS: u32 = 16u;

// The histogram bin of a triangle whose bounding box's longest side is `size_px`.
fn raster_histogram_bin(size_px: f32) -> u32 {
    if (size_px < 1.0) {
        return 0u;
    }
    return min(firstLeadingBit(u32(min(size_px, 65536.0))) + 1u, RASTER_HISTOGRAM_BINS - 1u);
}

// The pixel position (x right, y down, pixel centres at i + 0.5) of the clip-space point `clip`
// on a viewport of `size_px`.
fn raster_pixel_position(clip: vec4<f32>, size_px: vec2<u32>) -> vec2<f32> {
    let ndc = clip.xy / clip.w;
    return vec2<f32>(0.5 + 0.5 * ndc.x, 0.5 - 0.5 * ndc.y) * vec2<f32>(size_px);
}

// The buffer word of node `id` at reverse-Z depth `depth` (in (0, 1]).
fn vis_pack(depth: f32, id: u32) -> u64 {
    return (u64(bitcast<u32>(depth)) << 32u) | u64(id);
}
