// The shading of one pixel of the compute rasteriser's visibility buffer (src/flat/raster.rs),
// shared by `shade`'s compute pass (terrain_shade_compute.wgsl) and its full-screen fragment
// fallback (terrain_shade.wgsl): the pixel's leaf index gives the triangle's corners (from the
// leaf's node id and the heights raster.small stored), the pixel centre's perspective-correct
// barycentric coordinates come from the corners' clip positions (2-D homogeneous rasterisation:
// valid for corners behind the camera too), and the colour is the hardware draw's
// (shared/terrain_surface.wgsl).
//!include shared/terrain_surface.wgsl
//!include shared/vis_buffer.wgsl

@group(0) @binding(3) var<storage, read> leaf_ids: array<u32>;
@group(1) @binding(3) var<storage, read> corner_heights: array<f32>;
// The visibility buffer read as (leaf index, depth bits) pairs.
@group(2) @binding(0) var<storage, read> vis_words: array<vec2<u32>>;
@group(2) @binding(1) var<uniform> r: RasterUniforms;

// Barycentric coordinates (summing to 1) of the screen point `q` = (ndc x, ndc y, 1) in the
// triangle whose corners' clip (x, y, w) give the rows n0, n1, n2 of the adjugate.
fn homogeneous_barycentric(n0: vec3<f32>, n1: vec3<f32>, n2: vec3<f32>, q: vec3<f32>) -> vec3<f32> {
    let l = vec3<f32>(dot(n0, q), dot(n1, q), dot(n2, q));
    return l / (l.x + l.y + l.z);
}

// The visibility buffer's word at `pixel`: (leaf index, depth bits); depth bits 0 is no triangle.
fn vis_word_at(pixel: vec2<u32>) -> vec2<u32> {
    return vis_words[pixel.y * r.size_px.x + pixel.x];
}

// The linear colour of the terrain at the pixel centre `position_px` (x right, y down, centres at
// i + 0.5) covered by the leaf at index `leaf_index` of leaf_ids.
fn vis_shaded(position_px: vec2<f32>, leaf_index: u32) -> vec3<f32> {
    // Written out corner by corner: no array indexed at run time (local memory on some GPUs).
    let uv = terrain_corners_uv(leaf_ids[leaf_index]);
    let uv0 = uv[0];
    let uv1 = uv[1];
    let uv2 = uv[2];
    let first = 3u * leaf_index;
    let world0 = vec3<f32>(uv0 * u.terrain_size_m, corner_heights[first]);
    let world1 = vec3<f32>(uv1 * u.terrain_size_m, corner_heights[first + 1u]);
    let world2 = vec3<f32>(uv2 * u.terrain_size_m, corner_heights[first + 2u]);
    let c0 = (u.clip_from_world * vec4<f32>(world0, 1.0)).xyw;
    let c1 = (u.clip_from_world * vec4<f32>(world1, 1.0)).xyw;
    let c2 = (u.clip_from_world * vec4<f32>(world2, 1.0)).xyw;
    let n0 = cross(c1, c2);
    let n1 = cross(c2, c0);
    let n2 = cross(c0, c1);
    let size = vec2<f32>(r.size_px);
    let q = vec3<f32>(position_px.x / size.x * 2.0 - 1.0, 1.0 - position_px.y / size.y * 2.0, 1.0);
    let b = homogeneous_barycentric(n0, n1, n2, q);
    let bx = homogeneous_barycentric(n0, n1, n2, q + vec3<f32>(2.0 / size.x, 0.0, 0.0));
    let by = homogeneous_barycentric(n0, n1, n2, q - vec3<f32>(0.0, 2.0 / size.y, 0.0));
    let world_m = b.x * world0 + b.y * world1 + b.z * world2;
    let uv_here = b.x * uv0 + b.y * uv1 + b.z * uv2;
    return terrain_shaded(uv_here, world_m, b, abs(bx - b) + abs(by - b));
}
