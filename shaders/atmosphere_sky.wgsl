// atmosphere.sky: the sky behind the terrain, one full-screen triangle on the far plane (depth 0,
// reverse Z) drawn after the globe's draw with depth test Equal, so only the pixels the terrain
// left are shaded: the sky-view table in the pixel's direction plus the sun's disc (dimmed by the
// transmittance along the ray), over space's colour.
//!include shared/atmosphere.wgsl

@group(0) @binding(0) var<uniform> atmosphere: Atmosphere;
@group(0) @binding(1) var atmosphere_transmittance_lut: texture_2d<f32>;
@group(0) @binding(2) var sky_view_lut: texture_2d<f32>;
@group(0) @binding(3) var atmosphere_sampler: sampler;

// Space behind the atmosphere (linear; SPACE_COLOR in src/globe/renderer.rs).
const SPACE: vec3<f32> = vec3<f32>(0.005, 0.007, 0.018);

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) @invariant vec4<f32> {
    let p = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}

// The sky's luminance (sun of illuminance 1) in camera-relative unit direction `dir`.
fn sky_luminance(dir: vec3<f32>) -> vec3<f32> {
    let height_km = max(atmosphere.camera_km.w, ATMOSPHERE_GROUND_OFFSET_KM);
    let up = normalize(atmosphere.camera_km.xyz);
    let sun = atmosphere.sun_direction.xyz;
    let cos_view = dot(up, dir);
    let ground = atmosphere_ray_sphere(height_km, cos_view, atmosphere.radii.x) >= 0.0;
    var luminance = atmosphere_sky_view_luminance(sky_view_lut, height_km, up, dir);
    // The sun's disc: its illuminance spread over its solid angle, softened over its outer 20 %.
    let radius = atmosphere.ground_albedo.w;
    let angle = acos(clamp(dot(dir, sun), -1.0, 1.0));
    if (!ground && angle < radius) {
        var through = vec3<f32>(1.0);
        let entry_km = atmosphere_entry_km(dir);
        if (entry_km == 0.0) {
            through = atmosphere_transmittance(height_km, cos_view);
        } else if (entry_km > 0.0) {
            let entry = atmosphere.camera_km.xyz + entry_km * dir;
            through = atmosphere_transmittance(atmosphere.radii.y - atmosphere.radii.x, dot(normalize(entry), dir));
        }
        let disc = 1.0 - smoothstep(0.8 * radius, radius, angle);
        luminance += disc * through / (ATMOSPHERE_PI * radius * radius);
    }
    return luminance;
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let dir = atmosphere_view_direction(position.xy / atmosphere.viewport.xy);
    let luminance = atmosphere.sun_illuminance.rgb * sky_luminance(dir);
    return vec4<f32>(SPACE + atmosphere_tonemap(luminance), 1.0);
}
