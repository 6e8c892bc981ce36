//! The CPU twin (f64) of the atmosphere's tables: the transmittance table's texels and a sky-view
//! texel (single scattering plus the multiple-scattering term read from a table) and an
//! aerial-perspective froxel, function by
//! function as shaders/shared/atmosphere.wgsl, shared/atmosphere_march.wgsl,
//! atmosphere_luts.wgsl and atmosphere_views.wgsl compute them.

use super::{AtmosphereParams, AtmosphereUniforms, SKY_VIEW_SIZE};
use glam::{DMat4, DVec3, DVec4};
use std::f64::consts::PI;

type Rgb = [f64; 3];

fn add(a: Rgb, b: Rgb) -> Rgb {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn mul(a: Rgb, b: Rgb) -> Rgb {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}
fn scale(a: Rgb, s: f64) -> Rgb {
    a.map(|x| x * s)
}

/// Height at least which rays start above the bottom (ATMOSPHERE_GROUND_OFFSET_KM).
pub const GROUND_OFFSET_KM: f64 = 0.001;

/// Scattering and extinction (1/km) at a height: (scattering, extinction, Rayleigh, Mie).
pub fn medium(p: &AtmosphereParams, height_km: f64) -> (Rgb, Rgb, Rgb, Rgb) {
    let h = height_km.max(0.0);
    let rayleigh = scale(p.rayleigh_scattering_per_km, (-h / p.rayleigh_scale_height_km).exp());
    let mie_density = (-h / p.mie_scale_height_km).exp();
    let d = p.ozone_density;
    let ozone = if h < p.ozone_peak_km { d[0] * h + d[1] } else { d[2] * h + d[3] }.clamp(0.0, 1.0);
    let mie = scale(p.mie_scattering_per_km, mie_density);
    let extinction = add(add(rayleigh, scale(p.mie_extinction_per_km, mie_density)), scale(p.ozone_absorption_per_km, ozone));
    (add(rayleigh, mie), extinction, rayleigh, mie)
}

/// atmosphere_ray_sphere: the nearest distance ahead to the sphere of `radius_km` from a point at
/// `height_km` above the bottom along cosine `mu` with the vertical, or -1.
pub fn ray_sphere(p: &AtmosphereParams, height_km: f64, mu: f64, radius_km: f64) -> f64 {
    let r = p.bottom_radius_km + height_km;
    let b = r * mu;
    let c = (height_km - (radius_km - p.bottom_radius_km)) * (r + radius_km);
    let discriminant = b * b - c;
    if discriminant < 0.0 {
        return -1.0;
    }
    let s = discriminant.sqrt();
    let (t0, t1) = (-b - s, -b + s);
    if t0 < 0.0 && t1 < 0.0 {
        return -1.0;
    }
    if t0 < 0.0 {
        return t1.max(0.0);
    }
    t0.min(t1).max(0.0)
}

/// The transmittance table's (r, mu) of `uv`.
pub fn transmittance_params(p: &AtmosphereParams, uv: [f64; 2]) -> (f64, f64) {
    let (bottom, top) = (p.bottom_radius_km, p.top_radius_km);
    let big_h = (top * top - bottom * bottom).sqrt();
    let rho = big_h * uv[1];
    let r = (rho * rho + bottom * bottom).sqrt();
    let d_min = top - r;
    let d = d_min + uv[0] * (rho + big_h - d_min);
    let mu = if d == 0.0 { 1.0 } else { (big_h * big_h - rho * rho - d * d) / (2.0 * r * d) };
    (r, mu.clamp(-1.0, 1.0))
}

/// The transmittance table's uv of (height above the bottom, mu).
pub fn transmittance_uv(p: &AtmosphereParams, height_km: f64, mu: f64) -> [f64; 2] {
    let (bottom, top) = (p.bottom_radius_km, p.top_radius_km);
    let h = height_km.max(0.0);
    let r = bottom + h;
    let big_h = (top * top - bottom * bottom).sqrt();
    let rho = (h * (2.0 * bottom + h)).sqrt();
    let discriminant = r * r * (mu * mu - 1.0) + top * top;
    let d = (-r * mu + discriminant.max(0.0).sqrt()).max(0.0);
    let (d_min, d_max) = (top - r, rho + big_h);
    [(d - d_min) / (d_max - d_min), rho / big_h]
}

/// Optical depth from radius `r` along `mu` to the top or the ground, in 40 steps (optical_depth
/// of atmosphere_luts.wgsl).
pub fn optical_depth(p: &AtmosphereParams, r: f64, mu: f64) -> Rgb {
    let height_km = r - p.bottom_radius_km;
    let t_bottom = ray_sphere(p, height_km, mu, p.bottom_radius_km);
    let t_top = ray_sphere(p, height_km, mu, p.top_radius_km);
    let t_max = if t_bottom >= 0.0 { t_top.min(t_bottom) } else { t_top };
    let direction = [(1.0 - mu * mu).max(0.0).sqrt(), mu];
    let samples = 40.0;
    let (mut depth, mut t) = ([0.0; 3], 0.0);
    for s in 0..40 {
        let new_t = t_max * (s as f64 + 0.3) / samples;
        let dt = new_t - t;
        t = new_t;
        let point = [t * direction[0], r + t * direction[1]];
        let h = (point[0] * point[0] + point[1] * point[1]).sqrt() - p.bottom_radius_km;
        depth = add(depth, scale(medium(p, h).1, dt));
    }
    depth
}

/// Texel `(x, y)` of a transmittance table of `size` texels.
pub fn transmittance_texel(p: &AtmosphereParams, (x, y): (u32, u32), size: (u32, u32)) -> Rgb {
    let uv = [(x as f64 + 0.5) / size.0 as f64, (y as f64 + 0.5) / size.1 as f64];
    let (r, mu) = transmittance_params(p, uv);
    optical_depth(p, r, mu).map(|d| (-d).exp())
}

/// A 2-D table read back from the GPU, sampled bilinearly with clamping as the GPU's sampler does.
pub struct Table2 {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[f32; 4]>,
}

impl Table2 {
    /// The rgb at `uv` (texel centres at (i + 0.5) / size).
    pub fn sample(&self, uv: [f64; 2]) -> Rgb {
        let texel = |x: i64, y: i64| {
            let (x, y) = (x.clamp(0, self.width as i64 - 1) as usize, y.clamp(0, self.height as i64 - 1) as usize);
            let t = self.texels[y * self.width as usize + x];
            [t[0] as f64, t[1] as f64, t[2] as f64]
        };
        let fx = uv[0].clamp(0.0, 1.0) * self.width as f64 - 0.5;
        let fy = uv[1].clamp(0.0, 1.0) * self.height as f64 - 0.5;
        let (x0, y0) = (fx.floor(), fy.floor());
        let (ax, ay) = (fx - x0, fy - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let top = add(scale(texel(x0, y0), 1.0 - ax), scale(texel(x0 + 1, y0), ax));
        let bottom = add(scale(texel(x0, y0 + 1), 1.0 - ax), scale(texel(x0 + 1, y0 + 1), ax));
        add(scale(top, 1.0 - ay), scale(bottom, ay))
    }
}

fn unit_to_sub_uv(u: f64, size: f64) -> f64 {
    (u + 0.5 / size) * (size / (size + 1.0))
}
fn sub_uv_to_unit(u: f64, size: f64) -> f64 {
    (u - 0.5 / size) * (size / (size - 1.0))
}

/// The sky-view table's (cosine of the view's zenith angle, cosine of the sun-relative azimuth)
/// of texel-centre `uv` for a camera at `height_km`.
pub fn sky_view_params(p: &AtmosphereParams, height_km: f64, uv: [f64; 2]) -> (f64, f64) {
    let (u, v) = (sub_uv_to_unit(uv[0], SKY_VIEW_SIZE.0 as f64), sub_uv_to_unit(uv[1], SKY_VIEW_SIZE.1 as f64));
    let h = height_km.max(0.0);
    let r = p.bottom_radius_km + h;
    let beta = ((h * (2.0 * p.bottom_radius_km + h)).sqrt() / r).clamp(-1.0, 1.0).acos();
    let zenith_horizon = PI - beta;
    let cos_view = if v < 0.5 {
        let coord = 1.0 - 2.0 * v;
        (zenith_horizon * (1.0 - coord * coord)).cos()
    } else {
        let coord = v * 2.0 - 1.0;
        (zenith_horizon + beta * coord * coord).cos()
    };
    (cos_view, -(u * u * 2.0 - 1.0))
}

fn dot(a: Rgb, b: Rgb) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn length(a: Rgb) -> f64 {
    dot(a, a).sqrt()
}

/// The GPU's tables the sky-view twin reads.
pub struct Tables<'a> {
    pub transmittance: &'a Table2,
    pub multiple_scattering: &'a Table2,
}

/// atmosphere_march with the Rayleigh and Mie phases and no ground bounce: the light scattered
/// towards `origin` (at `height_km`) along unit `dir`, sun `sun`, in `samples` quadratic steps.
fn march(p: &AtmosphereParams, tables: &Tables, origin: Rgb, height_km: f64, dir: Rgb, sun: Rgb, samples: u32) -> Rgb {
    march_to(p, tables, origin, height_km, dir, sun, 1e9, samples, true).0
}

/// atmosphere_march with the Rayleigh and Mie phases and no ground bounce, at most `max_km` long,
/// in `samples` steps (`quadratic`, or even after a first of 0.3): the light scattered towards
/// `origin` and the transmittance along the marched length.
#[allow(clippy::too_many_arguments)]
fn march_to(
    p: &AtmosphereParams,
    tables: &Tables,
    origin: Rgb,
    height_km: f64,
    dir: Rgb,
    sun: Rgb,
    max_km: f64,
    samples: u32,
    quadratic: bool,
) -> (Rgb, Rgb) {
    let mu = dot(origin, dir) / length(origin);
    let t_bottom = ray_sphere(p, height_km, mu, p.bottom_radius_km);
    let t_top = ray_sphere(p, height_km, mu, p.top_radius_km);
    let t_max = if t_bottom < 0.0 {
        if t_top < 0.0 {
            return ([0.0; 3], [1.0; 3]);
        }
        t_top
    } else if t_top > 0.0 {
        t_top.min(t_bottom)
    } else {
        0.0
    }
    .min(max_km);
    let cos_theta = dot(sun, dir);
    let g = p.mie_phase_g;
    let k = 3.0 / (8.0 * PI) * (1.0 - g * g) / (2.0 + g * g);
    let mie_phase = k * (1.0 + cos_theta * cos_theta) / (1.0 + g * g - 2.0 * g * cos_theta).powf(1.5);
    let rayleigh_phase = 3.0 / (16.0 * PI) * (1.0 + cos_theta * cos_theta);
    let (mut luminance, mut throughput) = ([0.0; 3], [1.0; 3]);
    let n = samples as f64;
    let ms_size = tables.multiple_scattering.width as f64;
    let mut t = 0.0;
    for s in 0..samples {
        let s = s as f64;
        let dt;
        if quadratic {
            let t0 = t_max * (s / n) * (s / n);
            let t1 = t_max * ((s + 1.0) / n) * ((s + 1.0) / n);
            (t, dt) = (t0 + (t1 - t0) * 0.3, t1 - t0);
        } else {
            let new_t = t_max * (s + 0.3) / n;
            (t, dt) = (new_t, new_t - t);
        }
        let point = add(origin, scale(dir, t));
        let r = length(point);
        let h = r - p.bottom_radius_km;
        let mu_s = dot(sun, point) / r;
        let (scattering, extinction, rayleigh, mie) = medium(p, h);
        let step = extinction.map(|e| (-e * dt).exp());
        let to_sun = tables.transmittance.sample(transmittance_uv(p, h, mu_s));
        let phase_scattering = add(scale(mie, mie_phase), scale(rayleigh, rayleigh_phase));
        let hh = h.max(0.0);
        let shadow = if mu_s >= -(hh * (2.0 * p.bottom_radius_km + hh)).sqrt() / (p.bottom_radius_km + hh) { 1.0 } else { 0.0 };
        let ms_uv =
            [unit_to_sub_uv((mu_s * 0.5 + 0.5).clamp(0.0, 1.0), ms_size), unit_to_sub_uv((h / p.thickness_km()).clamp(0.0, 1.0), ms_size)];
        let multiple = tables.multiple_scattering.sample(ms_uv);
        let source = add(scale(mul(to_sun, phase_scattering), shadow), mul(multiple, scattering));
        for c in 0..3 {
            luminance[c] += throughput[c] * (source[c] - source[c] * step[c]) / extinction[c];
            throughput[c] *= step[c];
        }
    }
    (luminance, throughput)
}

/// Texel `(x, y)` of the sky-view table for a camera at `height_km` above the bottom and a sun of
/// zenith cosine `cos_sun` (sky_view of atmosphere_views.wgsl).
pub fn sky_view_texel(p: &AtmosphereParams, tables: &Tables, height_km: f64, cos_sun: f64, (x, y): (u32, u32)) -> Rgb {
    let uv = [(x as f64 + 0.5) / SKY_VIEW_SIZE.0 as f64, (y as f64 + 0.5) / SKY_VIEW_SIZE.1 as f64];
    let mut height_km = height_km.max(GROUND_OFFSET_KM);
    let (cos_view, cos_light) = sky_view_params(p, height_km, uv);
    let sun = {
        let s = [(1.0 - cos_sun * cos_sun).max(0.0).sqrt(), 0.0, cos_sun];
        scale(s, 1.0 / length(s))
    };
    let sin_view = (1.0 - cos_view * cos_view).max(0.0).sqrt();
    let dir = [sin_view * cos_light, sin_view * (1.0 - cos_light * cos_light).max(0.0).sqrt(), cos_view];
    let mut origin = [0.0, 0.0, p.bottom_radius_km + height_km];
    if height_km >= p.thickness_km() {
        let t_top = ray_sphere(p, height_km, cos_view, p.top_radius_km);
        if t_top < 0.0 {
            return [0.0; 3];
        }
        let entry = add(origin, scale(dir, t_top));
        height_km = p.thickness_km() - GROUND_OFFSET_KM;
        origin = scale(entry, (p.bottom_radius_km + height_km) / length(entry));
    }
    march(p, tables, origin, height_km, dir, sun, 30)
}

/// The camera-relative unit direction of the aerial-perspective volume's column `(x, y)` of
/// `size` under the uniforms `u` (atmosphere_view_direction).
pub fn froxel_direction(u: &AtmosphereUniforms, size: (u32, u32, u32), (x, y): (u32, u32)) -> DVec3 {
    let uv = [(x as f64 + 0.5) / size.0 as f64, (y as f64 + 0.5) / size.1 as f64];
    let clip = DMat4::from_cols_array_2d(&u.relative_from_clip.map(|c| c.map(f64::from)));
    let q = clip * DVec4::new(uv[0] * 2.0 - 1.0, 1.0 - uv[1] * 2.0, 1.0, 1.0);
    (q.truncate() / q.w).normalize()
}

/// Froxel `(x, y, z)` of the aerial-perspective volume of `size` under the uniforms `u` (the
/// aerial_perspective kernel of atmosphere_views.wgsl, in f64 from the same f32 uniforms): the
/// light scattered towards the camera (rgb) and the mean transmittance (a) from where the ray
/// enters the atmosphere to the froxel's slice.
pub fn aerial_perspective_froxel(
    p: &AtmosphereParams,
    tables: &Tables,
    u: &AtmosphereUniforms,
    size: (u32, u32, u32),
    (x, y, z): (u32, u32, u32),
) -> [f64; 4] {
    let dir = froxel_direction(u, size, (x, y));
    let camera = DVec4::from_array(u.camera_km.map(f64::from)).truncate();
    let h = u.camera_km[3] as f64;
    let mu = camera.normalize().dot(dir);
    let entry_km = if h < p.thickness_km() { 0.0 } else { ray_sphere(p, h, mu, p.top_radius_km) };
    if entry_km < 0.0 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let slice = (z as f64 + 0.5) / size.2 as f64;
    let slice_km = if u.viewport[3] == 1.0 {
        // atmosphere_aerial_column_km: to the ground, or the ray's closest approach.
        let ground_km = ray_sphere(p, h, mu, p.bottom_radius_km);
        let reach_km = if ground_km >= 0.0 { ground_km } else { -mu * (p.bottom_radius_km + h) };
        (reach_km - entry_km).max(1.0) * (1.0 - (1.0 - slice) * (1.0 - slice))
    } else {
        u.viewport[2] as f64 * slice * slice
    };
    let mut origin = camera + entry_km * dir;
    let mut height_km = h.max(GROUND_OFFSET_KM);
    if entry_km > 0.0 {
        height_km = p.thickness_km() - GROUND_OFFSET_KM;
        origin = origin.normalize() * (p.bottom_radius_km + height_km);
    }
    let sun = DVec4::from_array(u.sun_direction.map(f64::from)).truncate().to_array();
    let samples = (z + 1) * 2;
    let (luminance, transmittance) = march_to(p, tables, origin.to_array(), height_km, dir.to_array(), sun, slice_km, samples, false);
    [luminance[0], luminance[1], luminance[2], transmittance.iter().sum::<f64>() / 3.0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// The transmittance table's parameterisation and its inverse agree on random (height, mu).
    #[test]
    fn transmittance_uv_inverts_transmittance_params() {
        let p = AtmosphereParams::earth();
        let mut rng = XorShift::fresh("transmittance_uv_inverts_transmittance_params");
        for _ in 0..1000 {
            let uv = [rng.unit(), rng.unit()];
            let (r, mu) = transmittance_params(&p, uv);
            let back = transmittance_uv(&p, r - p.bottom_radius_km, mu);
            assert!((back[0] - uv[0]).abs() < 1e-6 && (back[1] - uv[1]).abs() < 1e-6, "{uv:?} -> ({r}, {mu}) -> {back:?}");
        }
    }

    /// Distances from heights equal the textbook ray-sphere intersection on random rays.
    #[test]
    fn ray_sphere_from_heights_equals_the_textbook_formula() {
        let p = AtmosphereParams::earth();
        let mut rng = XorShift::fresh("ray_sphere_from_heights_equals_the_textbook_formula");
        for _ in 0..1000 {
            let height_km = 10f64.powf(rng.range(-3.0, 4.0));
            let mu = rng.range(-1.0, 1.0);
            let radius = if rng.unit() < 0.5 { p.bottom_radius_km } else { p.top_radius_km };
            let r = p.bottom_radius_km + height_km;
            let (b, c) = (r * mu, r * r - radius * radius);
            let d = b * b - c;
            let want = if d < 0.0 {
                -1.0
            } else {
                let (t0, t1) = (-b - d.sqrt(), -b + d.sqrt());
                if t1 < 0.0 {
                    -1.0
                } else if t0 < 0.0 {
                    t1
                } else {
                    t0
                }
            };
            let got = ray_sphere(&p, height_km, mu, radius);
            assert!((got - want).abs() <= 1e-6 * (1.0 + want.abs()), "h {height_km} mu {mu} radius {radius}: {got} vs {want}");
        }
    }
}
