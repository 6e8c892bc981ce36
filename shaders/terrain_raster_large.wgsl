// raster.large: the hardware rasteriser draws the triangles raster.small left to it (larger than
// RasterUniforms.large_px, or crossing the near plane) into the same visibility buffer: every
// fragment writes depth << 32 | id by a 64-bit atomic max, so both paths meet per pixel under one
// depth order.
//!include shared/terrain_surface.wgsl
//!include shared/vis_buffer.wgsl

@group(0) @binding(0) var<storage, read> large_ids: array<u32>;
@group(2) @binding(0) var<storage, read_write> vis: array<atomic<u64>>;
@group(2) @binding(1) var<uniform> r: RasterUniforms;

struct LargeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) id: u32,
}

@vertex
fn vs_large(@builtin(vertex_index) index: u32) -> LargeOut {
    let id = large_ids[index / 3u];
    return LargeOut(terrain_vertex(id, index % 3u).clip, id);
}

@fragment
fn fs_large(in: LargeOut) {
    let p = vec2<u32>(in.clip.xy);
    atomicMax(&vis[p.y * r.size_px.x + p.x], vis_pack(in.clip.z, in.id));
}
