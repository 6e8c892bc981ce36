// shade: the compute rasteriser's full-screen pass. Each pixel reads its leaf index from the
// visibility buffer, re-derives the triangle's corners from the leaf's node id and the heights
// raster.small stored, finds the pixel
// centre's perspective-correct barycentric coordinates from the corners' clip positions (2-D
// homogeneous rasterisation: valid for corners behind the camera too) and shades like the
// hardware draw (shared/terrain_surface.wgsl). Pixels without a triangle keep the clear colour.
//!include shared/terrain_surface.wgsl
//!include shared/vis_buffer.wgsl

@group(0) @binding(3) var<storage, read> leaf_ids: array<u32>;
@group(1) @binding(3) var<storage, read> corner_heights: array<f32>;
// The visibility buffer read as (leaf index, depth bits) pairs.
@group(2) @binding(0) var<storage, read> vis_words: array<vec2<u32>>;
@group(2) @binding(1) var<uniform> r: RasterUniforms;

@vertex
fn vs_full_screen(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the viewport.
    let xy = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(xy * 2.0 - 1.0, 0.0, 1.0);
}

// Barycentric coordinates (summing to 1) of the screen point `q` = (ndc x, ndc y, 1) in the
// triangle whose corners' clip (x, y, w) give the rows `n` of the adjugate.
fn homogeneous_barycentric(n: array<vec3<f32>, 3>, q: vec3<f32>) -> vec3<f32> {
    let l = vec3<f32>(dot(n[0], q), dot(n[1], q), dot(n[2], q));
    return l / (l.x + l.y + l.z);
}

@fragment
fn fs_shade(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let pixel = vec2<u32>(position.xy);
    let word = vis_words[pixel.y * r.size_px.x + pixel.x];
    if (word.y == 0u) {
        discard;
    }
    let uv = terrain_corners_uv(leaf_ids[word.x]);
    var world: array<vec3<f32>, 3>;
    var c: array<vec3<f32>, 3>;
    for (var k = 0u; k < 3u; k++) {
        world[k] = vec3<f32>(uv[k] * u.terrain_size_m, corner_heights[3u * word.x + k]);
        c[k] = (u.clip_from_world * vec4<f32>(world[k], 1.0)).xyw;
    }
    let n = array<vec3<f32>, 3>(cross(c[1], c[2]), cross(c[2], c[0]), cross(c[0], c[1]));
    let size = vec2<f32>(r.size_px);
    let q = vec3<f32>(position.x / size.x * 2.0 - 1.0, 1.0 - position.y / size.y * 2.0, 1.0);
    let b = homogeneous_barycentric(n, q);
    let bx = homogeneous_barycentric(n, q + vec3<f32>(2.0 / size.x, 0.0, 0.0));
    let by = homogeneous_barycentric(n, q - vec3<f32>(0.0, 2.0 / size.y, 0.0));
    let world_m = b.x * world[0] + b.y * world[1] + b.z * world[2];
    let uv_here = b.x * uv[0] + b.y * uv[1] + b.z * uv[2];
    return vec4<f32>(terrain_shaded(uv_here, world_m, b, abs(bx - b) + abs(by - b)), 1.0);
}
