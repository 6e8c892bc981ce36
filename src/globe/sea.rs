//! The sea on the globe (issue 17 item 3): the settings the draw reads and the CPU twin of its
//! wave normals (shaders/shared/sea_waves.wgsl, shaded in shaders/shared/globe_sea.wgsl).
//!
//! ```text
//! Waves: 8 Gerstner waves, plane waves in earth-fixed space with wave vectors
//!   k_i = 2 pi n_i / PERIOD_M, n_i whole numbers,
//! so the pattern repeats every PERIOD_M along each axis: the shader adds the camera-relative
//! point to the camera's position modulo PERIOD_M (computed here in f64) and gets the phases of
//! the exact position, at any distance from the origin, without f32 losing them.
//!   h = sum a_i sin(theta_i),  theta_i = k_i . p - sqrt(g |k_i|) t,  a_i |k_i| = steepness s_i
//!   n = normalize(up (1 - Q sum s_i fade_i sin theta_i) - sum a_i fade_i cos(theta_i) k_i,t)
//! k_i,t: k_i's part in the tangent plane (a wave's direction and wavelength on the surface).
//! fade_i = clamp((wavelength_i / pixel_m - 2) / 6, 0, 1): a wave shorter than 2 pixels is gone,
//! and its slope variance (1 - fade_i) s_i^2 / 2 goes to the glint's roughness instead.
//! ```
//! Land and sea: the tile cache carries one height per texel and none of the repository's sources
//! has a water mask, so water is where the drawn data is at or below 0 m (after the region's sea
//! rule, src/globe/earth.rs, which keeps the land of a pyramid up to its coast).

use glam::DVec3;

/// The period of the wave pattern along every earth-fixed axis (SEA_WAVE_PERIOD_M), metres.
pub const PERIOD_M: f64 = 256.0;
/// Standard gravity (deep-water dispersion), m/s^2.
pub const GRAVITY_M_S2: f64 = 9.81;
/// Gerstner's Q (SEA_GERSTNER_Q).
pub const GERSTNER_Q: f64 = 0.5;
/// The waves (SEA_WAVES): the wave vector in units of 2 pi / PERIOD_M, and the steepness a |k|.
pub const WAVES: [([f64; 3], f64); 8] = [
    ([3.0, 1.0, 2.0], 0.040),
    ([-2.0, 4.0, 1.0], 0.045),
    ([5.0, -3.0, 4.0], 0.050),
    ([-7.0, 2.0, -6.0], 0.060),
    ([11.0, 8.0, -5.0], 0.060),
    ([-13.0, -9.0, 12.0], 0.070),
    ([23.0, -17.0, 9.0], 0.070),
    ([-31.0, 24.0, -29.0], 0.080),
];

/// What the sea's shading needs from the settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeaSettings {
    /// Waves, the sky's reflection and the glint (off: flat water of the base roughness).
    pub enabled: bool,
    /// The waves' time in seconds (fixed in `shot`, the clock in the viewer).
    pub time_s: f64,
}

impl Default for SeaSettings {
    fn default() -> Self {
        SeaSettings { enabled: true, time_s: 0.0 }
    }
}

/// The camera's earth-fixed position modulo PERIOD_M along each axis (the waves' origin).
pub fn wave_origin_m(camera_m: DVec3) -> DVec3 {
    DVec3::new(camera_m.x.rem_euclid(PERIOD_M), camera_m.y.rem_euclid(PERIOD_M), camera_m.z.rem_euclid(PERIOD_M))
}

/// The wave normal at earth-fixed `position_m` on the sea of unit vertical `up` at `time_s`,
/// where a pixel covers `pixel_m` metres: the unit normal and the faded waves' slope variance
/// (the CPU twin of `sea_wave_normal`).
pub fn wave_normal(position_m: DVec3, up: DVec3, time_s: f64, pixel_m: f64) -> (DVec3, f64) {
    let k_unit = std::f64::consts::TAU / PERIOD_M;
    let (mut tangent, mut vertical, mut variance) = (DVec3::ZERO, 0.0, 0.0);
    for (n, steepness) in WAVES {
        let k = DVec3::from_array(n) * k_unit;
        let k_len = k.length();
        let wavelength_m = std::f64::consts::TAU / k_len;
        let fade = ((wavelength_m / pixel_m.max(1e-6) - 2.0) / 6.0).clamp(0.0, 1.0);
        variance += (1.0 - fade) * steepness * steepness * 0.5;
        if fade > 0.0 {
            let phase = k.dot(position_m) - (GRAVITY_M_S2 * k_len).sqrt() * time_s;
            let amplitude_m = fade * steepness / k_len;
            tangent += amplitude_m * phase.cos() * (k - up * k.dot(up));
            vertical += GERSTNER_Q * amplitude_m * k_len * phase.sin();
        }
    }
    ((up * (1.0 - vertical) - tangent).normalize(), variance)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern repeats every PERIOD_M along each axis: the origin's reduction is exact.
    #[test]
    fn the_waves_repeat_every_period() {
        let up = DVec3::new(0.3, -0.5, 0.8).normalize();
        let p = DVec3::new(12.5, -3.25, 40.0);
        let (a, _) = wave_normal(p, up, 3.0, 0.01);
        for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
            let (b, _) = wave_normal(p + axis * PERIOD_M * 7.0, up, 3.0, 0.01);
            assert!((a - b).length() < 1e-9, "{a} against {b}");
        }
        let far = DVec3::new(-2_875_123.25, 5_012_345.5, 2_580_001.0);
        let o = wave_origin_m(far);
        assert!(o.min_element() >= 0.0 && o.max_element() < PERIOD_M);
        let (c, _) = wave_normal(far, up, 3.0, 0.01);
        let (d, _) = wave_normal(o, up, 3.0, 0.01);
        assert!((c - d).length() < 1e-6, "{c} against {d}");
    }

    /// Far away (every wave under 2 pixels) the sea is flat and all the slope is roughness.
    #[test]
    fn far_waves_fade_into_roughness() {
        let up = DVec3::Z;
        let (n, variance) = wave_normal(DVec3::new(1.0, 2.0, 3.0), up, 0.0, 1000.0);
        assert!((n - up).length() < 1e-12);
        let total: f64 = WAVES.iter().map(|w| w.1 * w.1 * 0.5).sum();
        assert!((variance - total).abs() < 1e-12);
    }
}
