// The sea on the globe (issue 17 item 3): water at sea level shaded with the Fresnel (Schlick)
// reflection of the sky (the sky-view table in the reflected direction), the sun's glint (GGX on
// the wave normal, through the sunlight's transmittance), the water's own colour tinted by the
// depth from the bathymetry (shallow water shows its floor), and the atmosphere's aerial
// perspective over it. The wave normal is the sum of the slopes of the sea's wave tiles
// (src/globe/sea), sampled mip-mapped and anisotropically over the pixel's footprint on the
// water; the slope variance a texel averages away widens the glint (LEAN mapping). Needs
// shared/globe_frame.wgsl (`globe`), shared/atmosphere_apply.wgsl and binds the sky-view table at
// @group(1) @binding(4) and the wave tiles at bindings 5-7 (src/globe/sea/tiles.rs).
//!include shared/sea_tiles.wgsl

@group(1) @binding(4) var atmosphere_sky_view_lut: texture_2d<f32>;
@group(1) @binding(5) var<uniform> sea: SeaUniforms;
@group(1) @binding(6) var sea_tiles: texture_2d_array<f32>;
@group(1) @binding(7) var sea_sampler: sampler;

// Most trilinear taps along a footprint's long axis (beyond, the mips blur it).
const SEA_TAPS: u32 = 4u;
// Reflectance of water at normal incidence (index of refraction 1.33).
const SEA_F0: f32 = 0.02;
// The glint's roughness (GGX alpha) from the ripples below the smallest wave.
const SEA_BASE_ROUGHNESS: f32 = 0.10;
// Albedo of deep water (what the water body scatters back), and of the floor under shallow water:
// muted (silt and weed, not white sand), because near a coast the data's depths are the Earth
// source's blend from 0 m at the coast to the base's sea floor over FEATHER_M, not soundings, and
// a bright floor would draw that blend as a pale band along every coast.
const SEA_DEEP_ALBEDO: vec3<f32> = vec3<f32>(0.010, 0.035, 0.065);
const SEA_FLOOR_ALBEDO: vec3<f32> = vec3<f32>(0.05, 0.09, 0.08);
// Light lost per metre of coastal water (absorption, red first, and scattering by what the water
// carries), down to the floor and back: the floor shows through the first few metres only, as the
// bathymetry's depths near a coast are the data's blend, not soundings (src/globe/earth.rs).
const SEA_ABSORPTION_PER_M: vec3<f32> = vec3<f32>(0.65, 0.30, 0.25);

// Schlick's Fresnel reflectance of water at the cosine `cos_theta` of the incidence angle.
fn sea_fresnel(cos_theta: f32) -> f32 {
    let m = 1.0 - clamp(cos_theta, 0.0, 1.0);
    return SEA_F0 + (1.0 - SEA_F0) * m * m * m * m * m;
}

// GGX (Trowbridge-Reitz) distribution of microfacet normals of roughness `alpha` at `n_dot_h`.
fn sea_ggx(n_dot_h: f32, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (ATMOSPHERE_PI * d * d);
}

// Smith's height-correlated visibility term G / (4 n.l n.v) for GGX (Heitz 2014's approximation).
fn sea_visibility(n_dot_l: f32, n_dot_v: f32, alpha: f32) -> f32 {
    let a2 = alpha * alpha;
    let gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    let gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / max(gv + gl, 1e-5);
}

// The albedo of the water body over a floor `depth_m` down (the light's path is twice that).
fn sea_water_albedo(depth_m: f32) -> vec3<f32> {
    let through = exp(-2.0 * max(depth_m, 0.0) * SEA_ABSORPTION_PER_M);
    return mix(SEA_DEEP_ALBEDO, SEA_FLOOR_ALBEDO, through);
}

// The wave normal (xyz) and the glint's roughness (w) at the water `relative_m` from the camera,
// of unit vertical `up`; flat water of the base roughness with the sea off.
fn sea_surface(relative_m: vec3<f32>, up: vec3<f32>) -> vec4<f32> {
    if (atmosphere.sea.x == 0.0) {
        return vec4<f32>(up, SEA_BASE_ROUGHNESS);
    }
    let distance_m = max(length(relative_m), 1e-3);
    let view = relative_m / distance_m;
    // The pixel's footprint on the water (m): across the view, and along it, stretched at grazing angles.
    let cos_view = max(abs(dot(view, up)), 0.02);
    let pixel_m = distance_m / globe.projection_scale_px;
    let level = view - up * dot(view, up);
    let along = select(sea.north.xyz, level / max(length(level), 1e-6), length(level) > 1e-4);
    let foot_along = along * (pixel_m / cos_view);
    let foot_across = cross(up, along) * pixel_m;
    let east = sea.east.xyz;
    let north = sea.north.xyz;
    let at_m = vec2<f32>(dot(relative_m, east), dot(relative_m, north));
    let along_m = vec2<f32>(dot(foot_along, east), dot(foot_along, north));
    let across_m = vec2<f32>(dot(foot_across, east), dot(foot_across, north));
    // Anisotropic by hand: up to SEA_TAPS trilinear taps spread along the footprint's long axis
    // (lavapipe filters a sampler's anisotropy over the whole ellipse, far too slowly).
    let taps = u32(clamp(ceil(length(along_m) / max(length(across_m), 1e-6)), 1.0, f32(SEA_TAPS)));
    let step_m = along_m / f32(taps);
    var slope = vec2<f32>(0.0);
    var variance = 0.0;
    for (var layer = 0u; layer < SEA_LAYERS; layer += 1u) {
        let tile = sea.tiles[layer];
        var mean = vec3<f32>(0.0);
        for (var tap = 0u; tap < taps; tap += 1u) {
            let tap_m = at_m + step_m * (f32(tap) + 0.5 - 0.5 * f32(taps));
            mean += textureSampleGrad(sea_tiles, sea_sampler, tile.xy + tap_m / tile.z, layer, step_m / tile.z, across_m / tile.z).xyz;
        }
        mean /= f32(taps);
        // The tiles are independent: their slopes add, and so do their variances (the footprint's
        // mean |slope|^2 less its mean slope's).
        slope += mean.xy;
        variance += max(mean.z - dot(mean.xy, mean.xy), 0.0);
    }
    let tangent = slope.x * east + slope.y * north;
    let normal = normalize(up - (tangent - up * dot(tangent, up)));
    return vec4<f32>(normal, sqrt(SEA_BASE_ROUGHNESS * SEA_BASE_ROUGHNESS + variance));
}

// The display colour of the sea `depth_m` deep (over the floor the bathymetry gives) at
// `relative_m` from the camera, unit vertical `up`, under the atmosphere's interpolated `light`.
fn sea_shade(depth_m: f32, up: vec3<f32>, relative_m: vec3<f32>, light: AtmosphereLight) -> vec3<f32> {
    let surface = sea_surface(relative_m, up);
    var normal = surface.xyz;
    let alpha = surface.w;
    let view = -relative_m / max(length(relative_m), 1e-6);
    // Waves never face away from the camera: bend the normal back towards it.
    normal = normalize(normal + up * max(0.0, 0.02 - dot(normal, view)));
    let n_dot_v = clamp(dot(normal, view), 1e-3, 1.0);
    var reflected = reflect(-view, normal);
    // The reflection stays above the horizon (no sea seen in the sea).
    reflected = normalize(reflected + up * max(0.0, 0.01 - dot(reflected, up)));
    let fresnel = sea_fresnel(n_dot_v);
    let sun = atmosphere.sun_direction.xyz;
    let half_vector = normalize(sun + view);
    let n_dot_l = dot(normal, sun);
    let glint_brdf = sea_ggx(max(dot(normal, half_vector), 0.0), alpha) * sea_visibility(max(n_dot_l, 0.0), n_dot_v, alpha)
        * sea_fresnel(max(dot(view, half_vector), 0.0));
    let glint = glint_brdf * max(n_dot_l, 0.0);
    let albedo = sea_water_albedo(depth_m);
    if (atmosphere.sun_direction.w == 0.0) {
        // Without the atmosphere: a sky from haze at the horizon to blue above, plain sunlight.
        let daylight = smoothstep(-0.1, 0.15, dot(up, sun));
        let sky = mix(HAZE_COLOUR, SKY_COLOUR * 0.8, sqrt(clamp(dot(reflected, up), 0.0, 1.0))) * (0.1 + 0.9 * daylight);
        let body = sun_and_sky_light(albedo * ATMOSPHERE_OFF_GAIN, up, sun, 1.0, 0.05 + 0.17 * daylight);
        return mix(body, sky, fresnel) + glint * SUN_COLOUR * daylight;
    }
    let height_km = max(atmosphere.camera_km.w, ATMOSPHERE_GROUND_OFFSET_KM);
    let mu_s = dot(up, sun);
    // The sun's and the sky's light at the surface, interpolated from the vertices.
    let sunlight = atmosphere.sun_illuminance.rgb * light.sun;
    // The sky seen from the water: the sky-view table (the camera's sky, turned to the water's
    // vertical) while the camera is low, fading to a uniform sky of the column's light from high up,
    // where the table holds the sky seen from above the air.
    let table_sky = atmosphere_sky_view_luminance(atmosphere_sky_view_lut, height_km, up, reflected);
    let column = light.sky / ATMOSPHERE_PI;
    let sky = atmosphere.sun_illuminance.rgb * mix(table_sky, column, smoothstep(2.0, 20.0, height_km));
    // The water body: lit by the sun through the surface and by the sky (as the terrain is).
    let irradiance = sunlight * max(mu_s, 0.0) + atmosphere.sun_illuminance.rgb * (column * ATMOSPHERE_PI + ATMOSPHERE_NIGHT_LIGHT);
    let body = albedo / ATMOSPHERE_PI * irradiance;
    let radiance = fresnel * sky + (1.0 - fresnel) * body + glint * sunlight;
    return atmosphere_tonemap(radiance * light.aerial.a + atmosphere.sun_illuminance.rgb * light.aerial.rgb);
}
