// render.draw: one triangle per LEB leaf. The vertex shader decodes the leaf's
// vertices from its node id, displaces them by the height texture; the fragment shader shades
// with normals from the height gradient, a height colour ramp, sun light, haze and wireframe
// (shared/terrain_surface.wgsl, which the compute rasteriser shares).
// Triangles touching samples without data are not drawn.
//!include shared/terrain_surface.wgsl

@group(0) @binding(0) var<storage, read> leaf_ids: array<u32>;

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    // Three vertices per leaf, one plain (non-instanced) draw; the rasterizer culls the triangles
    // facing away (every triangle faces up in drawing order).
    return terrain_vertex(leaf_ids[index / 3u], index % 3u);
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(terrain_shaded(in.uv, in.world_m, in.barycentric, fwidth(in.barycentric)), 1.0);
}
