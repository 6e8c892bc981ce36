// The atmosphere's ray march (Hillaire 2020, IntegrateScatteredLuminance): single scattering of
// the sun's light (illuminance 1) with the planet's shadow, plus the multiple-scattering term,
// integrated in closed form over each step (Hillaire's slide 28 of Frostbite 2015). Needs
// shared/atmosphere.wgsl; the includer defines
//   fn atmosphere_ms_luminance(height_km: f32, mu_s: f32) -> vec3<f32>
// (the multiple-scattering table's Psi_ms, or zero while that table is being built).
// Mirrored by march() in src/globe/atmosphere/cpu.rs.

struct AtmosphereMarch {
    // Light scattered towards the ray's origin.
    luminance: vec3<f32>,
    // Transmittance along the marched length.
    transmittance: vec3<f32>,
    // Light scattered as if the light around were 1 everywhere (Hillaire's f_ms integrand).
    multi_as_1: vec3<f32>,
}

// Marches from `origin` (km, planet-centred, inside the atmosphere at `height_km` above the
// bottom) along unit `dir` to the ground or the top, at most `max_km`, in `samples` steps
// (`quadratic`: denser near the origin) towards unit `sun`. `mie_ray_phase`: Rayleigh and Mie
// phase functions, else isotropic. `ground`: add the ground's bounce where the ray ends on it.
fn atmosphere_march(
    origin: vec3<f32>,
    height_km: f32,
    dir: vec3<f32>,
    sun: vec3<f32>,
    max_km: f32,
    samples: f32,
    quadratic: bool,
    mie_ray_phase: bool,
    ground: bool,
) -> AtmosphereMarch {
    var result = AtmosphereMarch(vec3<f32>(0.0), vec3<f32>(1.0), vec3<f32>(0.0));
    let bottom = atmosphere.radii.x;
    let mu = dot(normalize(origin), dir);
    let t_bottom = atmosphere_ray_sphere(height_km, mu, bottom);
    let t_top = atmosphere_ray_sphere(height_km, mu, atmosphere.radii.y);
    var t_max = 0.0;
    var on_ground = false;
    if (t_bottom < 0.0) {
        if (t_top < 0.0) {
            return result;
        }
        t_max = t_top;
    } else if (t_top > 0.0) {
        t_max = min(t_top, t_bottom);
        on_ground = t_bottom <= t_top;
    }
    if (max_km < t_max) {
        t_max = max_km;
        on_ground = false;
    }
    let cos_theta = dot(sun, dir);
    let mie_phase = atmosphere_mie_phase(atmosphere.radii.z, cos_theta);
    let rayleigh_phase = atmosphere_rayleigh_phase(cos_theta);
    var t = 0.0;
    var dt = 0.0;
    for (var s = 0.0; s < samples; s += 1.0) {
        if (quadratic) {
            let t0 = t_max * (s / samples) * (s / samples);
            let t1 = t_max * ((s + 1.0) / samples) * ((s + 1.0) / samples);
            t = t0 + (t1 - t0) * 0.3;
            dt = t1 - t0;
        } else {
            let new_t = t_max * (s + 0.3) / samples;
            dt = new_t - t;
            t = new_t;
        }
        let p = origin + t * dir;
        let r = length(p);
        let h = r - bottom;
        let mu_s = dot(sun, p / r);
        let medium = atmosphere_medium(h);
        let step_transmittance = exp(-medium.extinction * dt);
        let to_sun = atmosphere_transmittance(h, mu_s);
        var phase_scattering = medium.scattering / (4.0 * ATMOSPHERE_PI);
        if (mie_ray_phase) {
            phase_scattering = medium.mie * mie_phase + medium.rayleigh * rayleigh_phase;
        }
        let shadow = atmosphere_earth_shadow(h, mu_s);
        let multiple = atmosphere_ms_luminance(h, mu_s);
        let source = shadow * to_sun * phase_scattering + multiple * medium.scattering;
        result.multi_as_1 += result.transmittance * (medium.scattering - medium.scattering * step_transmittance) / medium.extinction;
        result.luminance += result.transmittance * (source - source * step_transmittance) / medium.extinction;
        result.transmittance *= step_transmittance;
    }
    if (ground && on_ground) {
        let p = origin + t_bottom * dir;
        let up = normalize(p);
        let mu_s = dot(sun, up);
        let to_sun = atmosphere_transmittance(0.0, mu_s);
        result.luminance += to_sun * result.transmittance * clamp(mu_s, 0.0, 1.0) * atmosphere.ground_albedo.rgb / ATMOSPHERE_PI;
    }
    return result;
}
