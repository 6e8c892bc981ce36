// The atmosphere after Hillaire 2020 ("A Scalable and Production Ready Sky and Atmosphere
// Rendering Technique"): its uniforms, the medium (Rayleigh, Mie, ozone), the phase functions,
// ray-sphere distances and the look-up tables' parameterisations and look-ups. Distances in km,
// positions planet-centred on earth-fixed axes. Keep Atmosphere in sync with AtmosphereUniforms in
// src/globe/atmosphere/mod.rs (and the CPU twin, src/globe/atmosphere/cpu.rs). The includer binds
// `atmosphere: Atmosphere` (uniform), `atmosphere_transmittance_lut` (texture_2d<f32>) and
// `atmosphere_sampler` (linear, clamped). Look-up tables hold light for a sun of illuminance 1.

struct Atmosphere {
    // x = bottom radius, y = top radius (km), z = Mie phase g, w = multiple-scattering factor.
    radii: vec4<f32>,
    // xyz = Rayleigh scattering at the bottom (1/km), w = its density's exponent per km (-1/H).
    rayleigh: vec4<f32>,
    // xyz = Mie scattering at the bottom (1/km), w = its density's exponent per km.
    mie_scattering: vec4<f32>,
    // xyz = Mie extinction at the bottom (1/km), w unused.
    mie_extinction: vec4<f32>,
    // xyz = ozone absorption at its peak (1/km), w = the height of the peak (km).
    ozone: vec4<f32>,
    // The ozone's density, a tent: x, y = linear and constant terms below the peak; z, w above it.
    ozone_density: vec4<f32>,
    // rgb = ground albedo (the multiple scattering's bounce), w = the sun's angular radius (rad).
    ground_albedo: vec4<f32>,
    // rgb = the sun's illuminance, w = exposure (display = 1 - exp(-exposure * luminance)).
    sun_illuminance: vec4<f32>,
    // xyz = the camera (km, planet-centred), w = its height above the bottom (km, from f64).
    camera_km: vec4<f32>,
    // xyz = unit vector towards the sun, w = 1 with the atmosphere on, 0 off.
    sun_direction: vec4<f32>,
    // Camera-relative direction of a clip-space point: the inverse of the globe's clip_from_relative.
    relative_from_clip: mat4x4<f32>,
    // x, y = the viewport in pixels, z = the aerial-perspective volume's depth (km), w = 1 where
    // its slices end at the ground in every column (from 40 km up; shared/atmosphere_apply.wgsl).
    viewport: vec4<f32>,
    // The sea (shared/globe_sea.wgsl): x = 1 on, 0 off (water is flat and plain), y = the waves'
    // time in seconds, zw unused.
    sea: vec4<f32>,
}

const ATMOSPHERE_PI: f32 = 3.14159265358979;
// Points are raised to at least this height above the bottom (km, 1 m): rays start off the
// ground sphere (Hillaire's PLANET_RADIUS_OFFSET, which is 10 m).
const ATMOSPHERE_GROUND_OFFSET_KM: f32 = 0.001;
// Sizes of the sky-view look-up table (Hillaire's).
const ATMOSPHERE_SKY_VIEW_SIZE: vec2<f32> = vec2<f32>(192.0, 108.0);

// Scattering and extinction coefficients (1/km) of the air at `height_km` above the bottom.
struct AtmosphereMedium {
    scattering: vec3<f32>,
    extinction: vec3<f32>,
    rayleigh: vec3<f32>,
    mie: vec3<f32>,
}

fn atmosphere_medium(height_km: f32) -> AtmosphereMedium {
    let h = max(height_km, 0.0);
    let rayleigh = exp(atmosphere.rayleigh.w * h) * atmosphere.rayleigh.xyz;
    let mie_density = exp(atmosphere.mie_scattering.w * h);
    let d = atmosphere.ozone_density;
    let ozone_density = clamp(select(d.z * h + d.w, d.x * h + d.y, h < atmosphere.ozone.w), 0.0, 1.0);
    let mie = mie_density * atmosphere.mie_scattering.xyz;
    let extinction = rayleigh + mie_density * atmosphere.mie_extinction.xyz + ozone_density * atmosphere.ozone.xyz;
    return AtmosphereMedium(rayleigh + mie, extinction, rayleigh, mie);
}

fn atmosphere_rayleigh_phase(cos_theta: f32) -> f32 {
    return 3.0 / (16.0 * ATMOSPHERE_PI) * (1.0 + cos_theta * cos_theta);
}

// Cornette-Shanks, with `cos_theta` between the view ray and the direction towards the sun.
fn atmosphere_mie_phase(g: f32, cos_theta: f32) -> f32 {
    let k = 3.0 / (8.0 * ATMOSPHERE_PI) * (1.0 - g * g) / (2.0 + g * g);
    return k * (1.0 + cos_theta * cos_theta) / pow(1.0 + g * g - 2.0 * g * cos_theta, 1.5);
}

// Distance along a ray from a point at `height_km` above the bottom (radius r = bottom + height)
// whose direction makes cosine `mu` with the vertical, to the sphere of `radius_km`: the nearest
// hit ahead, or -1. r^2 - radius^2 is formed from the height, so a camera 1 m above the sea is
// exact enough in f32.
fn atmosphere_ray_sphere(height_km: f32, mu: f32, radius_km: f32) -> f32 {
    let r = atmosphere.radii.x + height_km;
    let b = r * mu;
    let c = (height_km - (radius_km - atmosphere.radii.x)) * (r + radius_km);
    let discriminant = b * b - c;
    if (discriminant < 0.0) {
        return -1.0;
    }
    let s = sqrt(discriminant);
    let t0 = -b - s;
    let t1 = -b + s;
    if (t0 < 0.0 && t1 < 0.0) {
        return -1.0;
    }
    if (t0 < 0.0) {
        return max(0.0, t1);
    }
    return max(0.0, min(t0, t1));
}

// Whether the sun (cosine `mu_s` with the vertical) is above the bottom sphere's horizon at
// `height_km`: 1 lit, 0 in the planet's shadow.
fn atmosphere_earth_shadow(height_km: f32, mu_s: f32) -> f32 {
    let h = max(height_km, 0.0);
    let r = atmosphere.radii.x + h;
    return select(0.0, 1.0, mu_s >= -sqrt(h * (2.0 * atmosphere.radii.x + h)) / r);
}

// Transmittance look-up table (Bruneton 2017's parameterisation, as Hillaire): uv -> (r, mu).
fn atmosphere_transmittance_params(uv: vec2<f32>) -> vec2<f32> {
    let bottom = atmosphere.radii.x;
    let top = atmosphere.radii.y;
    let big_h = sqrt(top * top - bottom * bottom);
    let rho = big_h * uv.y;
    let r = sqrt(rho * rho + bottom * bottom);
    let d_min = top - r;
    let d_max = rho + big_h;
    let d = d_min + uv.x * (d_max - d_min);
    var mu = 1.0;
    if (d != 0.0) {
        mu = (big_h * big_h - rho * rho - d * d) / (2.0 * r * d);
    }
    return vec2<f32>(r, clamp(mu, -1.0, 1.0));
}

// (height above the bottom, mu) -> uv of the transmittance look-up table.
fn atmosphere_transmittance_uv(height_km: f32, mu: f32) -> vec2<f32> {
    let bottom = atmosphere.radii.x;
    let top = atmosphere.radii.y;
    let h = max(height_km, 0.0);
    let r = bottom + h;
    let big_h = sqrt(top * top - bottom * bottom);
    let rho = sqrt(h * (2.0 * bottom + h));
    let discriminant = r * r * (mu * mu - 1.0) + top * top;
    let d = max(0.0, -r * mu + sqrt(max(discriminant, 0.0)));
    let d_min = top - r;
    let d_max = rho + big_h;
    return vec2<f32>((d - d_min) / (d_max - d_min), rho / big_h);
}

// Transmittance from `height_km` along a ray of cosine `mu` with the vertical to the top (or to
// the ground where the ray meets it).
fn atmosphere_transmittance(height_km: f32, mu: f32) -> vec3<f32> {
    return textureSampleLevel(atmosphere_transmittance_lut, atmosphere_sampler, atmosphere_transmittance_uv(height_km, mu), 0.0).rgb;
}

// Hillaire's sub-texel remapping: [0, 1] onto the texel centres of a table of `size` texels.
fn atmosphere_unit_to_sub_uv(u: vec2<f32>, size: vec2<f32>) -> vec2<f32> {
    return (u + 0.5 / size) * (size / (size + 1.0));
}

fn atmosphere_sub_uv_to_unit(u: vec2<f32>, size: vec2<f32>) -> vec2<f32> {
    return (u - 0.5 / size) * (size / (size - 1.0));
}

// The multiple-scattering table's uv of (height above the bottom, cosine of the sun's zenith angle).
fn atmosphere_multiple_scattering_uv(height_km: f32, mu_s: f32, size: vec2<f32>) -> vec2<f32> {
    let u = clamp(vec2<f32>(mu_s * 0.5 + 0.5, height_km / (atmosphere.radii.y - atmosphere.radii.x)), vec2<f32>(0.0), vec2<f32>(1.0));
    return atmosphere_unit_to_sub_uv(u, size);
}

// The angle between straight down and the horizon for a camera `height_km` above the bottom
// sphere (beta in Hillaire's sky-view parametrisation: the horizon's zenith angle is pi - beta).
fn atmosphere_horizon_nadir_angle(height_km: f32) -> f32 {
    let bottom = atmosphere.radii.x;
    let h = max(height_km, 0.0);
    let horizon = sqrt(h * (2.0 * bottom + h));
    return acos(clamp(horizon / (bottom + h), -1.0, 1.0));
}

// The sky-view table's texel -> (cosine of the view's zenith angle, cosine of the angle between
// the view and the sun around the vertical), for a camera at `height_km` (Hillaire's non-linear
// latitude: dense near the horizon).
fn atmosphere_sky_view_params(height_km: f32, uv_in: vec2<f32>) -> vec2<f32> {
    let uv = atmosphere_sub_uv_to_unit(uv_in, ATMOSPHERE_SKY_VIEW_SIZE);
    let beta = atmosphere_horizon_nadir_angle(height_km);
    let zenith_horizon = ATMOSPHERE_PI - beta;
    var cos_view: f32;
    if (uv.y < 0.5) {
        var coord = 1.0 - 2.0 * uv.y;
        coord = 1.0 - coord * coord;
        cos_view = cos(zenith_horizon * coord);
    } else {
        var coord = uv.y * 2.0 - 1.0;
        coord = coord * coord;
        cos_view = cos(zenith_horizon + beta * coord);
    }
    let x = uv.x * uv.x;
    return vec2<f32>(cos_view, -(x * 2.0 - 1.0));
}

// The inverse of atmosphere_sky_view_params; `ground`: the view ray meets the bottom sphere.
fn atmosphere_sky_view_uv(height_km: f32, ground: bool, cos_view: f32, cos_light: f32) -> vec2<f32> {
    let beta = atmosphere_horizon_nadir_angle(height_km);
    let zenith_horizon = ATMOSPHERE_PI - beta;
    var v: f32;
    let angle = acos(clamp(cos_view, -1.0, 1.0));
    if (!ground) {
        let coord = 1.0 - sqrt(max(1.0 - angle / zenith_horizon, 0.0));
        v = coord * 0.5;
    } else {
        let coord = sqrt(clamp((angle - zenith_horizon) / beta, 0.0, 1.0));
        v = coord * 0.5 + 0.5;
    }
    let u = sqrt(clamp(-cos_light * 0.5 + 0.5, 0.0, 1.0));
    return atmosphere_unit_to_sub_uv(vec2<f32>(u, v), ATMOSPHERE_SKY_VIEW_SIZE);
}

// The sky's luminance (sun of illuminance 1) in unit direction `dir` from the sky-view table
// `table` (built for a camera `height_km` up), around the unit vertical `up`: the sky pass's
// look-up (up = the camera's), and the sea's reflection (up = the water's).
fn atmosphere_sky_view_luminance(table: texture_2d<f32>, height_km: f32, up: vec3<f32>, dir: vec3<f32>) -> vec3<f32> {
    let sun = atmosphere.sun_direction.xyz;
    let cos_view = dot(up, dir);
    let ground = atmosphere_ray_sphere(height_km, cos_view, atmosphere.radii.x) >= 0.0;
    // The sun's azimuth relative to the view's, around the vertical.
    let side = cross(up, dir);
    var cos_light = dot(sun, dir);
    if (length(side) > 1e-6) {
        let side_unit = normalize(side);
        let forward = normalize(cross(side_unit, up));
        let on_plane = vec2<f32>(dot(sun, forward), dot(sun, side_unit));
        cos_light = select(1.0, on_plane.x / length(on_plane), length(on_plane) > 1e-6);
    }
    let uv = atmosphere_sky_view_uv(height_km, ground, cos_view, cos_light);
    return textureSampleLevel(table, atmosphere_sampler, uv, 0.0).rgb;
}

// The camera-relative unit direction through viewport point `uv` ([0, 1]^2, y down).
fn atmosphere_view_direction(uv: vec2<f32>) -> vec3<f32> {
    let clip = vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 1.0, 1.0);
    let p = atmosphere.relative_from_clip * clip;
    return normalize(p.xyz / p.w);
}

// Distance (km) from the camera along unit `dir` to where the ray enters the atmosphere: 0 inside
// it, -1 when the ray misses it.
fn atmosphere_entry_km(dir: vec3<f32>) -> f32 {
    let h = atmosphere.camera_km.w;
    if (h < atmosphere.radii.y - atmosphere.radii.x) {
        return 0.0;
    }
    let mu = dot(normalize(atmosphere.camera_km.xyz), dir);
    return atmosphere_ray_sphere(h, mu, atmosphere.radii.y);
}

// Depth (km beyond the entry `entry_km`) of the aerial-perspective column of unit `dir` from high up:
// to where its ray meets the bottom sphere, or passes closest to the planet's centre when it misses.
fn atmosphere_aerial_column_km(dir: vec3<f32>, entry_km: f32) -> f32 {
    let h = atmosphere.camera_km.w;
    let mu = dot(normalize(atmosphere.camera_km.xyz), dir);
    let ground_km = atmosphere_ray_sphere(h, mu, atmosphere.radii.x);
    let closest_km = -mu * (atmosphere.radii.x + h);
    return max(select(closest_km, ground_km, ground_km >= 0.0) - max(entry_km, 0.0), 1.0);
}

// Display colour of luminance `luminance`: exposure and an exponential curve (the target is sRGB).
fn atmosphere_tonemap(luminance: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(1.0) - exp(-atmosphere.sun_illuminance.w * luminance);
}
