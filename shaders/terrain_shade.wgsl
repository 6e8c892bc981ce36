// shade's full-screen fragment fallback (src/flat/raster.rs), for colour targets the compute
// pass cannot write (the viewer's window surface): each pixel is shaded from the visibility buffer
// by shared/vis_shade.wgsl, as terrain_shade_compute.wgsl does; pixels without a triangle keep
// the clear colour.
//!include shared/vis_shade.wgsl
//!include shared/full_screen.wgsl

@fragment
fn fs_shade(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let word = vis_word_at(vec2<u32>(position.xy));
    if (word.y == 0u) {
        discard;
    }
    return vec4<f32>(vis_shaded(position.xy, word.x), 1.0);
}
