// shade's full-screen fragment fallback (src/flat/raster.rs), for colour targets the compute
// pass cannot write (the viewer's window surface): each pixel is shaded from the visibility buffer
// by shared/vis_shade.wgsl, as terrain_shade_compute.wgsl does; pixels without a triangle keep
// the clear colour.
//!include shared/vis_shade.wgsl

@vertex
fn vs_full_screen(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the viewport.
    let xy = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(xy * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_shade(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let word = vis_word_at(vec2<u32>(position.xy));
    if (word.y == 0u) {
        discard;
    }
    return vec4<f32>(vis_shaded(position.xy, word.x), 1.0);
}
