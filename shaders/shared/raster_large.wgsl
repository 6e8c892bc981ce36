// What raster.large shares on both scenes (terrain_raster_large.wgsl, globe_raster_large.wgsl):
// the vertex output and the fragment that writes depth << 32 | leaf index into the visibility
// buffer by a 64-bit atomic max, so both paths meet per pixel under one depth order. The including
// pass binds `vis` (array<atomic<u64>>) and `r` (RasterUniforms) and writes `vs_large`.
//!include shared/vis_buffer.wgsl

struct LargeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) leaf_index: u32,
}

@fragment
fn fs_large(in: LargeOut) {
    let p = vec2<u32>(in.clip.xy);
    atomicMax(&vis[p.y * r.size_px.x + p.x], vis_pack(in.clip.z, in.leaf_index));
}
