//! The sea on the globe (issue 17 item 3): the settings the draw reads, the wave spectrum, the
//! frame the waves are laid in, and the CPU twin of the wave tiles (`tiles` computes them on the
//! GPU in shaders/sea_tiles.wgsl; shaders/shared/globe_sea.wgsl samples and shades them).
//!
//! ```text
//! Tiles: LAYERS square tiles of TILE_SIDE texels, TILE_M[l] metres a side (sizes with no common
//!   measure, so their sum does not repeat within sight), each the sum of WAVES_PER_LAYER waves
//!   whose wave vectors are whole multiples of 2 pi / TILE_M[l], so each tile wraps seamlessly:
//!     k = 2 pi (m, n) / TILE_M[l],  theta = k . x + phase(t),  phase(t) = phase_0 - sqrt(g |k|) t
//!     h = sum a sin(theta)
//!     slope = sum a cos(theta) k / max(1 - Q sum a |k| sin(theta), 1/4)   (Gerstner's sharper crests)
//!   texel (i, j) of mip 0 holds (slope.x, slope.y, |slope|^2, h) at its centre
//!   x = (i + 1/2, j + 1/2) TILE_M / TILE_SIDE; there k . x = pi (m (2i + 1) + n (2j + 1)) / TILE_SIDE,
//!   whose whole-number part modulo 2 TILE_SIDE is exact, and phase(t) is reduced modulo 2 pi in f64.
//!   Each mip texel is the mean of the 2 x 2 below it, so |slope|^2 - |mean slope|^2 is the slope
//!   variance the texel averages away (LEAN mapping): it widens the glint instead of aliasing.
//! Spectrum: per tile, a band of wavelengths BANDS_M[l] cut into 8 x 8 strata of (log |k|, the
//!   direction within 90 degrees of the wind's), one jittered wave per stratum snapped to the
//!   lattice, energy from Phillips' spectrum P(k) = exp(-1 / (k L_w)^2) / k^4 cos^2(angle to the
//!   wind), L_w = U^2 / g, with JONSWAP's peak enhancement gamma^r (gamma 3.3 about the peak
//!   frequency 0.855 g / U, 56 m waves at 8 m/s), times the stratum's area; amplitudes scaled to a
//!   total slope variance.
//! Frame: the tiles lie in the tangent plane of a point snapped to a FRAME_STEP_DEG grid of
//!   latitude and longitude near the camera (east, north): wave coordinates (p . east, p . north)
//!   of the earth-fixed point p, a linear function of p, so the water does not slide as the camera
//!   moves; the camera's coordinates modulo each tile (f64) are the shader's origin. Crossing a
//!   grid line turns the frame by under a degree and starts another (statistically equal) pattern.
//! ```
//! Land and sea: the tile cache carries one height per texel and none of the repository's sources
//! has a water mask, so water is where the drawn data is at or below 0 m (after the region's sea
//! rule, src/globe/earth.rs, which keeps the land of a pyramid up to its coast).

pub mod tiles;

use glam::{DVec2, DVec3};
use std::f64::consts::{PI, TAU};

/// Number of wave tiles (SEA_LAYERS).
pub const LAYERS: usize = 3;
/// Side of each wave tile in texels (SEA_TILE_SIDE).
pub const TILE_SIDE: u32 = 256;
/// Mip levels of the tiles, TILE_SIDE down to 1 texel.
pub const MIP_LEVELS: u32 = TILE_SIDE.ilog2() + 1;
/// Waves summed into each tile (SEA_WAVES_PER_LAYER).
pub const WAVES_PER_LAYER: usize = 64;
/// Sides of the tiles in metres: no common measure, so together they repeat nowhere in sight.
pub const TILE_M: [f64; LAYERS] = [373.0, 109.7, 31.3];
/// The wavelengths each tile holds (longest, shortest), metres: adjoining bands, at least 5
/// texels a wavelength.
pub const BANDS_M: [(f64, f64); LAYERS] = [(190.0, 24.0), (24.0, 4.8), (4.8, 0.62)];
/// Standard gravity (deep-water dispersion), m/s^2.
pub const GRAVITY_M_S2: f64 = 9.81;
/// Gerstner's Q: how far the crests sharpen (the slope's vertical term), 0 = plain sines.
pub const GERSTNER_Q: f64 = 0.6;
/// The wind's speed (m/s): Phillips' largest waves, L_w = U^2 / g.
pub const WIND_SPEED_M_S: f64 = 8.0;
/// The direction the waves run to, degrees clockwise from the frame's north (onshore on
/// Taiwan's east coast).
pub const WIND_TOWARD_DEG: f64 = 250.0;
/// Total slope variance of the waves in the tiles (Cox and Munk's 0.003 + 0.00512 U is the sea's
/// whole, the ripples below the tiles' shortest waves included, which the glint's base roughness
/// stands for).
pub const SLOPE_VARIANCE: f64 = 0.026;
/// The grid of latitude and longitude (degrees) the waves' frame snaps to.
pub const FRAME_STEP_DEG: f64 = 1.0;

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

/// One wave of a tile: its wave vector in units of 2 pi / TILE_M (whole numbers), amplitude and
/// phase at time 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wave {
    pub m: i32,
    pub n: i32,
    pub amplitude_m: f64,
    pub phase_rad: f64,
}

/// A uniform number in [0, 1) from `seed` (hashed).
fn unit(seed: u32) -> f64 {
    crate::gpu::hash::fmix32(seed) as f64 / 4_294_967_296.0
}

/// JONSWAP's peak enhancement: how much more energy the waves near the peak hold.
pub const PEAK_ENHANCEMENT: f64 = 3.3;

/// Phillips' spectrum at wave number `k_per_m` and angle `angle_rad` to the wind (no constant),
/// with JONSWAP's peak enhancement at the wind sea's peak frequency 0.855 g / U.
fn spectrum_density(k_per_m: f64, angle_rad: f64) -> f64 {
    let l_w = WIND_SPEED_M_S * WIND_SPEED_M_S / GRAVITY_M_S2;
    let phillips = (-1.0 / (k_per_m * l_w).powi(2)).exp() / k_per_m.powi(4) * angle_rad.cos().powi(2);
    let (omega, omega_peak) = ((GRAVITY_M_S2 * k_per_m).sqrt(), 0.855 * GRAVITY_M_S2 / WIND_SPEED_M_S);
    let sigma = if omega <= omega_peak { 0.07 } else { 0.09 };
    phillips * PEAK_ENHANCEMENT.powf((-(omega - omega_peak).powi(2) / (2.0 * (sigma * omega_peak).powi(2))).exp())
}

/// The sea's waves, LAYERS x WAVES_PER_LAYER (tile after tile): the spectrum sampled as the module
/// says, the same on every run.
pub fn spectrum() -> Vec<Wave> {
    const STRATA: usize = 8;
    let wind_rad = (90.0 - WIND_TOWARD_DEG).to_radians();
    let mut waves = Vec::with_capacity(LAYERS * WAVES_PER_LAYER);
    for (layer, (&tile_m, &(long_m, short_m))) in TILE_M.iter().zip(&BANDS_M).enumerate() {
        let (ln_k0, ln_k1) = ((TAU / long_m).ln(), (TAU / short_m).ln());
        let d_ln_k = (ln_k1 - ln_k0) / STRATA as f64;
        let d_angle = PI / STRATA as f64;
        for r in 0..STRATA {
            for a in 0..STRATA {
                let seed = ((layer * STRATA + r) * STRATA + a) as u32 * 4;
                let k = (ln_k0 + (r as f64 + unit(seed)) * d_ln_k).exp();
                let angle = wind_rad - PI / 2.0 + (a as f64 + unit(seed + 1)) * d_angle;
                let lattice = DVec2::from_angle(angle) * k * tile_m / TAU;
                let (mut m, n) = (lattice.x.round() as i32, lattice.y.round() as i32);
                if m == 0 && n == 0 {
                    m = 1;
                }
                // The wave as snapped: its wave number and angle to the wind.
                let k_vec = DVec2::new(m as f64, n as f64) * TAU / tile_m;
                let k_len = k_vec.length();
                let to_wind = k_vec.angle_to(DVec2::from_angle(wind_rad));
                let energy = spectrum_density(k_len, to_wind.clamp(-PI / 2.0, PI / 2.0)) * k_len * k_len * d_ln_k * d_angle;
                waves.push(Wave { m, n, amplitude_m: (2.0 * energy).sqrt(), phase_rad: TAU * unit(seed + 2) });
            }
        }
    }
    let variance: f64 = waves.iter().zip(wave_numbers(&waves)).map(|(w, k)| 0.5 * (w.amplitude_m * k).powi(2)).sum();
    let scale = (SLOPE_VARIANCE / variance).sqrt();
    waves.iter().map(|w| Wave { amplitude_m: w.amplitude_m * scale, ..*w }).collect()
}

/// The wave number |k| (1/m) of each of `waves` (tile after tile).
fn wave_numbers(waves: &[Wave]) -> Vec<f64> {
    waves.iter().enumerate().map(|(i, w)| TAU * ((w.m * w.m + w.n * w.n) as f64).sqrt() / TILE_M[i / WAVES_PER_LAYER]).collect()
}

/// The waves as the GPU reads them at `time_s`: (m, n, amplitude_m, phase in [0, 2 pi)), the
/// phase advanced by the dispersion in f64 (keep in sync with SeaWave in shared/sea_tiles.wgsl).
pub fn wave_records(waves: &[Wave], time_s: f64) -> Vec<[f32; 4]> {
    waves
        .iter()
        .zip(wave_numbers(waves))
        .map(|(w, k)| {
            let phase = (w.phase_rad - (GRAVITY_M_S2 * k).sqrt() * time_s).rem_euclid(TAU);
            [w.m as f32, w.n as f32, w.amplitude_m as f32, phase as f32]
        })
        .collect()
}

/// Mip 0 of the tiles from `records` (wave_records): TILE_SIDE^2 texels (slope.x, slope.y,
/// |slope|^2, h) per layer, rows of i then j, layer after layer (the CPU twin of "sea.waves").
pub fn tile_texels(records: &[[f32; 4]]) -> Vec<[f64; 4]> {
    let side = TILE_SIDE as i64;
    let mut texels = Vec::with_capacity(LAYERS * (side * side) as usize);
    for (layer, waves) in records.chunks_exact(WAVES_PER_LAYER).enumerate() {
        let k_unit = TAU / TILE_M[layer];
        for j in 0..side {
            for i in 0..side {
                let (mut gradient, mut vertical, mut h) = (DVec2::ZERO, 0.0, 0.0);
                for w in waves {
                    let (m, n) = (w[0] as i64, w[1] as i64);
                    let whole = (m * (2 * i + 1) + n * (2 * j + 1)).rem_euclid(2 * side);
                    let theta = whole as f64 * (PI / side as f64) + w[3] as f64;
                    let k = DVec2::new(m as f64, n as f64) * k_unit;
                    let a = w[2] as f64;
                    gradient += a * theta.cos() * k;
                    vertical += a * k.length() * theta.sin();
                    h += a * theta.sin();
                }
                let slope = gradient / (1.0 - GERSTNER_Q * vertical).max(0.25);
                texels.push([slope.x, slope.y, slope.length_squared(), h]);
            }
        }
    }
    texels
}

/// The next mip level of `texels` (layers of `side`^2): each texel the mean of the 2 x 2 below
/// it (the CPU twin of "sea.mips").
pub fn next_mip(texels: &[[f64; 4]], side: u32) -> Vec<[f64; 4]> {
    let (side, half) = (side as usize, (side / 2).max(1) as usize);
    let layers = texels.len() / (side * side);
    let mut out = Vec::with_capacity(layers * half * half);
    for layer in 0..layers {
        for j in 0..half {
            for i in 0..half {
                let at =
                    |di: usize, dj: usize| texels[layer * side * side + (2 * j + dj).min(side - 1) * side + (2 * i + di).min(side - 1)];
                let quad = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)];
                out.push(std::array::from_fn(|c| quad.iter().map(|t| t[c]).sum::<f64>() / 4.0));
            }
        }
    }
    out
}

/// The waves' frame for a camera at earth-fixed `camera_m`: east and north of the point whose
/// latitude and longitude (of the direction from the centre) are the camera's snapped to
/// FRAME_STEP_DEG.
pub fn wave_frame(camera_m: DVec3) -> (DVec3, DVec3) {
    let dir = camera_m.normalize_or(DVec3::Z);
    let snap = |deg: f64| (deg / FRAME_STEP_DEG).round() * FRAME_STEP_DEG;
    let lat = snap(dir.z.clamp(-1.0, 1.0).asin().to_degrees()).to_radians();
    let lon = snap(dir.y.atan2(dir.x).to_degrees()).to_radians();
    let east = DVec3::new(-lon.sin(), lon.cos(), 0.0);
    let north = DVec3::new(-lat.sin() * lon.cos(), -lat.sin() * lon.sin(), lat.cos());
    (east, north)
}

/// The wave coordinates (metres along east and north) of earth-fixed `p_m` in `frame`.
pub fn wave_coordinates_m(frame: (DVec3, DVec3), p_m: DVec3) -> DVec2 {
    DVec2::new(p_m.dot(frame.0), p_m.dot(frame.1))
}

/// Keep in sync with SeaUniforms in shaders/shared/sea_tiles.wgsl (which documents the fields).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SeaUniforms {
    pub east: [f32; 4],
    pub north: [f32; 4],
    pub tiles: [[f32; 4]; LAYERS],
}
const _: () = assert!(std::mem::size_of::<SeaUniforms>() == 80);

/// The sea's uniforms for a camera at earth-fixed `camera_m`: the frame, and per tile the
/// camera's wave coordinates modulo the tile (in tiles, from f64) and its side.
pub fn uniforms(camera_m: DVec3) -> SeaUniforms {
    let frame = wave_frame(camera_m);
    let at = wave_coordinates_m(frame, camera_m);
    let v = |d: DVec3, w: f64| [d.x as f32, d.y as f32, d.z as f32, w as f32];
    SeaUniforms {
        east: v(frame.0, GERSTNER_Q),
        north: v(frame.1, 0.0),
        tiles: std::array::from_fn(|l| {
            let uv = at / TILE_M[l];
            [uv.x.rem_euclid(1.0) as f32, uv.y.rem_euclid(1.0) as f32, TILE_M[l] as f32, 0.0]
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spectrum: the stated slope variance, waves within 90 degrees of the wind's direction,
    /// every wave at least 5 texels long, and many directions (not a few parallel crests).
    #[test]
    fn the_spectrum_spreads_around_the_wind() {
        let waves = spectrum();
        assert_eq!(waves.len(), LAYERS * WAVES_PER_LAYER);
        let k = wave_numbers(&waves);
        let variance: f64 = waves.iter().zip(&k).map(|(w, k)| 0.5 * (w.amplitude_m * k).powi(2)).sum();
        assert!((variance - SLOPE_VARIANCE).abs() < 1e-12, "{variance}");
        let wind = DVec2::from_angle((90.0 - WIND_TOWARD_DEG).to_radians());
        let mut directions = std::collections::BTreeSet::new();
        for (i, (w, k)) in waves.iter().zip(&k).enumerate() {
            let dir = DVec2::new(w.m as f64, w.n as f64).normalize();
            assert!(dir.dot(wind) > -0.2, "wave {i} {w:?} runs against the wind");
            let texels_per_wavelength = TAU / k / (TILE_M[i / WAVES_PER_LAYER] / TILE_SIDE as f64);
            assert!(texels_per_wavelength >= 4.5, "wave {i} {w:?}: {texels_per_wavelength} texels a wavelength");
            directions.insert((dir.to_angle().to_degrees() / 5.0).round() as i32);
        }
        assert!(directions.len() >= 20, "only {} directions (5 degree bins)", directions.len());
    }

    /// A mip texel is the mean of the four below it, and the whole tile's mean slope is about 0
    /// (waves average out) while its mean |slope|^2 keeps the variance.
    #[test]
    fn mips_average_slopes_and_keep_their_variance() {
        let records = wave_records(&spectrum(), 12.5);
        let mut level = tile_texels(&records);
        let mut side = TILE_SIDE;
        while side > 1 {
            level = next_mip(&level, side);
            side /= 2;
        }
        assert_eq!(level.len(), LAYERS);
        let total: f64 = level.iter().map(|t| t[2] - (t[0] * t[0] + t[1] * t[1])).sum();
        for t in &level {
            assert!(t[0].abs() < 0.02 && t[1].abs() < 0.02, "mean slope {t:?}");
        }
        assert!((total - SLOPE_VARIANCE).abs() < 0.3 * SLOPE_VARIANCE, "variance {total} ({SLOPE_VARIANCE} without Q)");
    }

    /// The frame: orthonormal, horizontal at the camera, and the same for cameras in one grid cell.
    #[test]
    fn the_frame_is_tangent_and_snapped() {
        let camera = DVec3::new(-2_875_123.25, 5_012_345.5, 2_580_001.0);
        let (east, north) = wave_frame(camera);
        let up = camera.normalize();
        assert!(east.dot(north).abs() < 1e-12 && (east.length() - 1.0).abs() < 1e-12 && (north.length() - 1.0).abs() < 1e-12);
        assert!(east.dot(up).abs() < 0.02 && north.dot(up).abs() < 0.02, "{} {}", east.dot(up), north.dot(up));
        assert_eq!(wave_frame(camera + east * 1000.0), (east, north));
        let u = uniforms(camera);
        for l in 0..LAYERS {
            assert!((0.0..1.0).contains(&u.tiles[l][0]) && (0.0..1.0).contains(&u.tiles[l][1]));
        }
    }
}
