// raster.small: the compute rasteriser's pass over every leaf (one thread per leaf). A triangle
// whose screen bounding box is at most RasterUniforms.large_px wide and tall, wholly in front of
// the near plane, is rasterised here: its corners snapped to 1/256 px as the hardware does, every
// pixel centre inside or on its edges gets depth << 32 | id by a 64-bit atomic max. Larger ones
// and those crossing the near plane are listed for raster.bin (raster_bin.wgsl: clipped against
// the near plane, binned per 32x32-px tile for raster.wide); those outside its guard band or past
// its lists' capacity go to the list raster.large draws. Back faces, triangles
// outside the viewport and those touching samples without data are dropped, as the hardware draw
// drops them. Every triangle on screen counts in the size histogram. The buffer's
// ids are leaf indices (into leaf_ids); every drawn leaf's three morphed corner heights are stored
// by leaf index, for raster.large and shade to read instead of sampling and morphing again.
//!include shared/terrain_surface.wgsl
//!include shared/raster_small.wgsl

// cbt.stats, read-only (FrameStats in shared/frame.wgsl).
struct LeafCount {
    leaves: u32,
    max_depth: u32,
    overflow: u32,
    capacity: u32,
}

@group(0) @binding(0) var<storage, read> leaf_ids: array<u32>;
@group(0) @binding(2) var<storage, read> leaf_count: LeafCount;
@group(2) @binding(5) var<storage, read_write> corner_heights: array<f32>;

fn raster_leaf(leaf_index: u32) {
    let uv = terrain_corners_uv(leaf_ids[leaf_index]);
    let s = array<HeightSample, 3>(height_sample_at_uv(uv[0]), height_sample_at_uv(uv[1]), height_sample_at_uv(uv[2]));
    if (s[0].nodata || s[1].nodata || s[2].nodata) {
        return;
    }
    var clip: array<vec4<f32>, 3>;
    for (var k = 0u; k < 3u; k++) {
        let world = vec3<f32>(uv[k] * u.terrain_size_m, morphed_height_m(uv[k], s[k].height_m));
        corner_heights[3u * leaf_index + k] = world.z;
        clip[k] = u.clip_from_world * vec4<f32>(world, 1.0);
    }
    raster_any_triangle(clip, leaf_index);
}

// The leaves raster.small draws: those listed, at most the capacity.
fn raster_leaf_count() -> u32 {
    return min(leaf_count.leaves, leaf_count.capacity);
}
