// raster.small on the globe over the bisector pool (src/globe/pool_raster.rs): one thread per
// listed leaf of pool.list. Its three camera-relative vertices, placed by globe.pool_decode in
// drawing order (globe.pool_draw_positions), are projected by the frame's clip_from_relative; a
// triangle whose screen bounding box is at most RasterUniforms.large_px wide and tall, wholly in
// front of the near plane, is rasterised here into the visibility buffer (shared/vis_raster.wgsl:
// depth << 32 | the leaf's list index, by a 64-bit atomic max). Larger ones and those crossing
// the near plane are listed for raster.bin (raster_bin.wgsl: clipped against the near plane,
// binned per 32x32-px tile for raster.wide); those outside its guard band or past its lists'
// capacity go to the list raster.large draws (globe_raster_large.wgsl). Back
// faces and triangles outside the viewport are dropped, as the hardware draw drops them. Every
// triangle on screen counts in the size histogram.
//!include shared/globe_frame.wgsl
//!include shared/raster_small.wgsl

// Each listed leaf's three vertices, camera-relative, in drawing order (globe.pool_decode).
@group(0) @binding(0) var<storage, read> draw_positions: array<vec4<f32>>;
@group(1) @binding(0) var<uniform> globe: GlobeFrame;
// The pool's PoolParams (word 5: the listed leaves), as globe.pool_decode reads them.
@group(0) @binding(2) var<storage, read> pool_params: array<u32, 8>;

// Corner `k` of leaf `leaf_index` in clip space.
fn raster_leaf_clip(leaf_index: u32, k: u32) -> vec4<f32> {
    return globe.clip_from_relative * vec4<f32>(draw_positions[3u * leaf_index + k].xyz, 1.0);
}

fn raster_leaf(leaf_index: u32) {
    // Built whole, not corner by corner in a loop: an array written at a run-time index may go
    // to local memory.
    let clip = array<vec4<f32>, 3>(raster_leaf_clip(leaf_index, 0u), raster_leaf_clip(leaf_index, 1u), raster_leaf_clip(leaf_index, 2u));
    raster_any_triangle(clip, leaf_index);
}

// The leaves raster.small draws: those listed, at most what globe.pool_draw_positions holds.
fn raster_leaf_count() -> u32 {
    return min(pool_params[5], arrayLength(&draw_positions) / 3u);
}
