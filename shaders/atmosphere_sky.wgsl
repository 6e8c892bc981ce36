// atmosphere.sky: the sky behind the terrain, one full-screen triangle on the far plane (depth 0,
// reverse Z) drawn after the globe's draw with depth test Equal, so only the pixels the terrain
// left are shaded (shared/atmosphere_sky.wgsl).
//!include shared/atmosphere.wgsl
//!include shared/atmosphere_sky.wgsl

@group(0) @binding(0) var<uniform> atmosphere: Atmosphere;
@group(0) @binding(1) var atmosphere_transmittance_lut: texture_2d<f32>;
@group(0) @binding(2) var sky_view_lut: texture_2d<f32>;
@group(0) @binding(3) var atmosphere_sampler: sampler;

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) @invariant vec4<f32> {
    let p = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(sky_colour(sky_view_lut, position.xy / atmosphere.viewport.xy), 1.0);
}
