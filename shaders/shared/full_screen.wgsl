// The vertex stage of shade's full-screen fragment pass on both scenes (terrain_shade.wgsl,
// globe_shade_compute.wgsl): one triangle covering the viewport.

@vertex
fn vs_full_screen(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the viewport.
    let xy = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(xy * 2.0 - 1.0, 0.0, 1.0);
}
