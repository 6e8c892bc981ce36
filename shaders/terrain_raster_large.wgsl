// raster.large: the hardware rasteriser draws the triangles raster.small left to it (larger than
// RasterUniforms.large_px, or crossing the near plane) into the same visibility buffer: every
// fragment writes depth << 32 | leaf index by a 64-bit atomic max, so both paths meet per pixel
// under one depth order. The corners' heights are those raster.small stored.
//!include shared/terrain_surface.wgsl
//!include shared/raster_large.wgsl

@group(0) @binding(0) var<storage, read> large_ids: array<u32>;
@group(0) @binding(3) var<storage, read> leaf_ids: array<u32>;
@group(1) @binding(3) var<storage, read> corner_heights: array<f32>;
@group(2) @binding(0) var<storage, read_write> vis: array<atomic<u64>>;
@group(2) @binding(1) var<uniform> r: RasterUniforms;

@vertex
fn vs_large(@builtin(vertex_index) index: u32) -> LargeOut {
    let leaf_index = large_ids[index / 3u];
    let corner = index % 3u;
    let uv = terrain_corners_uv(leaf_ids[leaf_index])[corner];
    let world = vec3<f32>(uv * u.terrain_size_m, corner_heights[3u * leaf_index + corner]);
    return LargeOut(u.clip_from_world * vec4<f32>(world, 1.0), leaf_index);
}
