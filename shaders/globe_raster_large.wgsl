// raster.large on the globe over the bisector pool (src/globe/pool_raster.rs): the hardware
// rasteriser draws the triangles raster.small left to it (larger than RasterUniforms.large_px, or
// crossing the near plane) into the same visibility buffer: every fragment writes depth << 32 |
// the leaf's list index by a 64-bit atomic max, so both paths meet per pixel under one depth
// order. The vertices are those globe.pool_decode placed, as globe.pool_draw reads them.
//!include shared/globe_frame.wgsl
//!include shared/raster_large.wgsl

@group(0) @binding(0) var<storage, read> large_ids: array<u32>;
@group(0) @binding(1) var<uniform> globe: GlobeFrame;
@group(0) @binding(2) var<storage, read> draw_positions: array<vec4<f32>>;
@group(1) @binding(0) var<storage, read_write> vis: array<atomic<u64>>;
@group(1) @binding(1) var<uniform> r: RasterUniforms;

@vertex
fn vs_large(@builtin(vertex_index) index: u32) -> LargeOut {
    let leaf_index = large_ids[index / 3u];
    let relative = draw_positions[3u * leaf_index + index % 3u].xyz;
    return LargeOut(globe.clip_from_relative * vec4<f32>(relative, 1.0), leaf_index);
}
