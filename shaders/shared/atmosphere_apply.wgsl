// The atmosphere on the globe's terrain and water (its draws' @group(1)): sunlight through the
// transmittance table with the planet's shadow, a sky light, and the aerial-perspective volume
// between the camera and the surface; with the atmosphere off, plain sun and sky light. Needs
// shared/shading.wgsl; binds @group(1) (src/globe/atmosphere/mod.rs, draw_bind_group).
//!include shared/atmosphere.wgsl

@group(1) @binding(0) var<uniform> atmosphere: Atmosphere;
@group(1) @binding(1) var atmosphere_transmittance_lut: texture_2d<f32>;
@group(1) @binding(2) var atmosphere_aerial_perspective: texture_3d<f32>;
@group(1) @binding(3) var atmosphere_sampler: sampler;

// Light of the night side (a fraction of the sun's illuminance): enough to see the globe's shape.
const ATMOSPHERE_NIGHT_LIGHT: f32 = 0.002;
// With the atmosphere off, reflectances times this make the plain light's display colours.
const ATMOSPHERE_OFF_GAIN: f32 = 2.5;

// The light scattered towards the camera (rgb, sun of illuminance 1) and the transmittance (a)
// between the camera and the surface at `relative_m`, seen at framebuffer point `pixel`.
fn atmosphere_aerial(pixel: vec2<f32>, relative_m: vec3<f32>) -> vec4<f32> {
    let distance_km = length(relative_m) * 0.001;
    let entry_km = atmosphere_entry_km(relative_m / max(length(relative_m), 1e-6));
    let beyond_km = distance_km - max(entry_km, 0.0);
    if (entry_km < 0.0 || beyond_km <= 0.0) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let slices = f32(textureDimensions(atmosphere_aerial_perspective).z);
    var w = sqrt(beyond_km / atmosphere.viewport.z);
    // Fade to nothing over the first half slice (Hillaire).
    let weight = clamp(w * slices * 2.0, 0.0, 1.0);
    w = max(w, 0.5 / slices);
    let uvw = vec3<f32>(pixel / atmosphere.viewport.xy, w);
    let ap = textureSampleLevel(atmosphere_aerial_perspective, atmosphere_sampler, uvw, 0.0);
    return vec4<f32>(weight * ap.rgb, mix(1.0, ap.a, weight));
}

// The display colour of a surface of `albedo` with unit `normal` at unit vertical `up`, at
// `relative_m` from the camera, seen at framebuffer point `pixel`: Lambert under the sun
// (through the atmosphere, in the planet's shadow at night) and the sky, then aerial perspective.
fn atmosphere_shade(albedo: vec3<f32>, normal: vec3<f32>, up: vec3<f32>, relative_m: vec3<f32>, pixel: vec2<f32>) -> vec3<f32> {
    let sun = atmosphere.sun_direction.xyz;
    if (atmosphere.sun_direction.w == 0.0) {
        let daylight = smoothstep(-0.1, 0.15, dot(up, sun));
        // The plain light is a display colour, not a luminance: the reflectances are brightened.
        return sun_and_sky_light(min(albedo * ATMOSPHERE_OFF_GAIN, vec3<f32>(1.0)), normal, sun, dot(normal, up), 0.05 + 0.17 * daylight);
    }
    let point_km = atmosphere.camera_km.xyz + relative_m * 0.001;
    let height_km = max(length(point_km) - atmosphere.radii.x, 0.0);
    let mu_s = dot(up, sun);
    // The planet's shadow, softened over the sun's disc.
    let r = atmosphere.radii.x + height_km;
    let horizon_mu = -sqrt(height_km * (2.0 * atmosphere.radii.x + height_km)) / r;
    let lit = smoothstep(horizon_mu - atmosphere.ground_albedo.w, horizon_mu + atmosphere.ground_albedo.w, mu_s);
    let direct = lit * atmosphere_transmittance(height_km, mu_s) * max(dot(normal, sun), 0.0);
    // Sky light: what the vertical column scatters out of the sunlight (bluish), while the sun is
    // up or just below the horizon, more on faces turned to the sky. An approximation, not a table.
    let column = vec3<f32>(1.0) - atmosphere_transmittance(height_km, 1.0);
    let sky = column * smoothstep(-0.2, 0.3, mu_s) * (0.5 + 0.5 * dot(normal, up));
    let irradiance = atmosphere.sun_illuminance.rgb * (direct + sky + ATMOSPHERE_NIGHT_LIGHT);
    let surface = albedo / ATMOSPHERE_PI * irradiance;
    let ap = atmosphere_aerial(pixel, relative_m);
    return atmosphere_tonemap(surface * ap.a + atmosphere.sun_illuminance.rgb * ap.rgb);
}
