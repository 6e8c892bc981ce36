// The atmosphere on the globe's terrain and water (its draws' @group(1)): sunlight through the
// transmittance table with the planet's shadow, a sky light, and the aerial-perspective volume
// between the camera and the surface; with the atmosphere off, plain sun and sky light. What varies
// slowly over the surface (the sun's and the sky's light at the point, the aerial perspective) is
// evaluated per vertex (`atmosphere_vertex`) and interpolated; the fragment keeps what depends on
// the normal (`atmosphere_shade`). Needs shared/shading.wgsl; binds @group(1)
// (src/globe/atmosphere/mod.rs, draw_bind_group).
//!include shared/atmosphere.wgsl

@group(1) @binding(0) var<uniform> atmosphere: Atmosphere;
@group(1) @binding(1) var atmosphere_transmittance_lut: texture_2d<f32>;
@group(1) @binding(2) var atmosphere_aerial_perspective: texture_3d<f32>;
@group(1) @binding(3) var atmosphere_sampler: sampler;

// Light of the night side (a fraction of the sun's illuminance): enough to see the globe's shape.
const ATMOSPHERE_NIGHT_LIGHT: f32 = 0.002;
// With the atmosphere off, reflectances times this make the plain light's display colours.
const ATMOSPHERE_OFF_GAIN: f32 = 2.5;

// The atmosphere's light at a vertex, interpolated over the triangle.
struct AtmosphereLight {
    // The sun's light reaching the point (transmittance times the planet's shadow; a sun of 1).
    sun: vec3<f32>,
    // The sky light on a horizontal face (a sun of 1).
    sky: vec3<f32>,
    // The light scattered towards the camera (rgb, a sun of 1) and the transmittance (a) between
    // the camera and the point.
    aerial: vec4<f32>,
}

// The depth coordinate (in [0, 1]) of the aerial-perspective volume `beyond_km` beyond where the
// ray of unit `dir` enters the atmosphere (`entry_km` from the camera). From 40 km up
// (`viewport.w` = 1) every column's slices end where its ray meets the bottom sphere (or passes
// closest to it), densest there; below, they spread quadratically over `viewport.z` km.
// Mirrored by shaders/atmosphere_views.wgsl (aerial_perspective).
fn atmosphere_aerial_depth(dir: vec3<f32>, entry_km: f32, beyond_km: f32) -> f32 {
    if (atmosphere.viewport.w == 1.0) {
        let range_km = atmosphere_aerial_column_km(dir, entry_km);
        return 1.0 - sqrt(max(1.0 - beyond_km / range_km, 0.0));
    }
    return sqrt(beyond_km / atmosphere.viewport.z);
}

// The aerial perspective (in-scatter rgb, transmittance a) of the surface at `relative_m` from
// the camera, seen at viewport point `uv` ([0, 1]^2, y down).
fn atmosphere_aerial(uv: vec2<f32>, relative_m: vec3<f32>) -> vec4<f32> {
    let distance_km = length(relative_m) * 0.001;
    let dir = relative_m / max(length(relative_m), 1e-6);
    let entry_km = atmosphere_entry_km(dir);
    let beyond_km = distance_km - max(entry_km, 0.0);
    if (entry_km < 0.0 || beyond_km <= 0.0) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let slices = f32(textureDimensions(atmosphere_aerial_perspective).z);
    var w = atmosphere_aerial_depth(dir, entry_km, beyond_km);
    // Fade to nothing over the first half slice (Hillaire).
    let weight = clamp(w * slices * 2.0, 0.0, 1.0);
    w = max(w, 0.5 / slices);
    let ap = textureSampleLevel(atmosphere_aerial_perspective, atmosphere_sampler, vec3<f32>(uv, w), 0.0);
    return vec4<f32>(weight * ap.rgb, mix(1.0, ap.a, weight));
}

// The atmosphere's light at the vertex `relative_m` from the camera, of clip position `clip`.
fn atmosphere_vertex(relative_m: vec3<f32>, clip: vec4<f32>) -> AtmosphereLight {
    if (atmosphere.sun_direction.w == 0.0) {
        return AtmosphereLight(vec3<f32>(0.0), vec3<f32>(0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));
    }
    let sun = atmosphere.sun_direction.xyz;
    let point_km = atmosphere.camera_km.xyz + relative_m * 0.001;
    let up = normalize(point_km);
    let height_km = max(length(point_km) - atmosphere.radii.x, 0.0);
    let mu_s = dot(up, sun);
    // The planet's shadow, softened over the sun's disc.
    let r = atmosphere.radii.x + height_km;
    let horizon_mu = -sqrt(height_km * (2.0 * atmosphere.radii.x + height_km)) / r;
    let lit = smoothstep(horizon_mu - atmosphere.ground_albedo.w, horizon_mu + atmosphere.ground_albedo.w, mu_s);
    let direct = lit * atmosphere_transmittance(height_km, mu_s);
    // Sky light: what the vertical column scatters out of the sunlight (bluish), while the sun is
    // up or just below the horizon. An approximation, not a table.
    let sky = (vec3<f32>(1.0) - atmosphere_transmittance(height_km, 1.0)) * smoothstep(-0.2, 0.3, mu_s);
    // The vertex's viewport point (clamped where it lies behind the camera; such triangles are
    // clipped at the near plane, where the aerial perspective is nothing).
    let ndc = clip.xy / max(clip.w, 1e-6);
    let uv = clamp(vec2<f32>(0.5 + 0.5 * ndc.x, 0.5 - 0.5 * ndc.y), vec2<f32>(0.0), vec2<f32>(1.0));
    return AtmosphereLight(direct, sky, atmosphere_aerial(uv, relative_m));
}

// The display colour of a surface of `albedo` with unit `normal` at unit vertical `up` under the
// interpolated `light`: Lambert under the sun (through the atmosphere, in the planet's shadow at
// night) and the sky (more on faces turned to it), then the aerial perspective.
fn atmosphere_shade(albedo: vec3<f32>, normal: vec3<f32>, up: vec3<f32>, light: AtmosphereLight) -> vec3<f32> {
    let sun = atmosphere.sun_direction.xyz;
    if (atmosphere.sun_direction.w == 0.0) {
        let daylight = smoothstep(-0.1, 0.15, dot(up, sun));
        // The plain light is a display colour, not a luminance: the reflectances are brightened.
        return sun_and_sky_light(min(albedo * ATMOSPHERE_OFF_GAIN, vec3<f32>(1.0)), normal, sun, dot(normal, up), 0.05 + 0.17 * daylight);
    }
    let direct = light.sun * max(dot(normal, sun), 0.0);
    let sky = light.sky * (0.5 + 0.5 * dot(normal, up));
    let irradiance = atmosphere.sun_illuminance.rgb * (direct + sky + ATMOSPHERE_NIGHT_LIGHT);
    let surface = albedo / ATMOSPHERE_PI * irradiance;
    return atmosphere_tonemap(surface * light.aerial.a + atmosphere.sun_illuminance.rgb * light.aerial.rgb);
}
