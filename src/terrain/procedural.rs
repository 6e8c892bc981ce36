//! The built-in procedural terrain: deterministic from a seed, fBm value noise shaped into ridged
//! mountain ranges with valleys between them.

use super::HeightField;

/// Seed of the default terrain.
pub const DEFAULT_SEED: u32 = 1;
/// Samples per side of the default height grid.
pub const DEFAULT_SAMPLES: u32 = 1025;
/// Side of the default terrain in metres (20 m between samples).
pub const DEFAULT_SIZE_M: f32 = 20480.0;

fn hash(x: i32, y: i32, seed: u32) -> u32 {
    let mut h = (x as u32).wrapping_mul(0x8da6_b343) ^ (y as u32).wrapping_mul(0xd816_3841) ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^ (h >> 15)
}

/// Value noise in [-1, 1] with quintic interpolation between lattice values.
fn value_noise(x: f64, y: f64, seed: u32) -> f64 {
    let (xi, yi) = (x.floor(), y.floor());
    let (fx, fy) = (x - xi, y - yi);
    let fade = |t: f64| t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    let (u, v) = (fade(fx), fade(fy));
    let lattice = |dx: i32, dy: i32| hash(xi as i32 + dx, yi as i32 + dy, seed) as f64 / u32::MAX as f64 * 2.0 - 1.0;
    let a = lattice(0, 0) + (lattice(1, 0) - lattice(0, 0)) * u;
    let b = lattice(0, 1) + (lattice(1, 1) - lattice(0, 1)) * u;
    a + (b - a) * v
}

/// Fractal Brownian motion: `octaves` of value noise, each at twice the frequency and half the amplitude, rotated.
fn fbm(mut x: f64, mut y: f64, octaves: u32, seed: u32) -> f64 {
    let (mut sum, mut amplitude, mut norm) = (0.0, 1.0, 0.0);
    for octave in 0..octaves {
        sum += amplitude * value_noise(x, y, seed.wrapping_add(octave));
        norm += amplitude;
        amplitude *= 0.5;
        (x, y) = (1.6 * x - 1.2 * y, 1.2 * x + 1.6 * y);
    }
    sum / norm
}

/// Ridged multifractal in [0, 1]: sharp crests where the noise crosses zero, detail weighted by the crest below.
fn ridged(mut x: f64, mut y: f64, octaves: u32, seed: u32) -> f64 {
    let (mut sum, mut amplitude, mut norm, mut weight) = (0.0, 1.0, 0.0, 1.0);
    for octave in 0..octaves {
        let ridge = 1.0 - value_noise(x, y, seed.wrapping_add(100 + octave)).abs();
        let ridge = ridge * ridge * weight;
        weight = (ridge * 2.0).clamp(0.0, 1.0);
        sum += amplitude * ridge;
        norm += amplitude;
        amplitude *= 0.5;
        (x, y) = (1.6 * x - 1.2 * y, 1.2 * x + 1.6 * y);
    }
    sum / norm
}

/// Height in metres at unit-square position (u, v) for `seed`.
pub fn height_m(u: f64, v: f64, seed: u32) -> f64 {
    let (x, y) = (u * 6.0, v * 6.0);
    // Domain warp so ranges curve instead of following the lattice.
    let (wx, wy) = (fbm(x + 3.1, y - 1.7, 4, seed ^ 0x51), fbm(x - 5.3, y + 2.9, 4, seed ^ 0xa3));
    let (x, y) = (x + 0.6 * wx, y + 0.6 * wy);
    let uplift = (0.5 + 0.5 * fbm(x * 0.35, y * 0.35, 4, seed)).clamp(0.0, 1.0);
    let mountains = ridged(x, y, 9, seed);
    let hills = fbm(x * 2.0, y * 2.0, 6, seed ^ 0x77);
    let mask = smoothstep(0.25, 0.75, uplift);
    150.0 + 700.0 * uplift + 2300.0 * mountains * mountains * mask + 120.0 * hills
}

fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The height grid of `samples_per_side`^2 samples over a square of `size_m` metres.
pub fn generate(seed: u32, samples_per_side: u32, size_m: f32) -> HeightField {
    let n = samples_per_side as usize;
    let step = 1.0 / (n - 1) as f64;
    let mut heights_m = vec![0.0f32; n * n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let rows_per_chunk = n.div_ceil(threads);
    std::thread::scope(|scope| {
        for (chunk_index, chunk) in heights_m.chunks_mut(rows_per_chunk * n).enumerate() {
            scope.spawn(move || {
                for (i, h) in chunk.iter_mut().enumerate() {
                    let (row, col) = (chunk_index * rows_per_chunk + i / n, i % n);
                    *h = height_m(col as f64 * step, row as f64 * step, seed) as f32;
                }
            });
        }
    });
    HeightField { samples_per_side, heights_m, size_m, data_bounds_m: [0.0, 0.0, size_m, size_m], nodata: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_seed_dependent() {
        let a = generate(3, 33, 1000.0);
        let b = generate(3, 33, 1000.0);
        let c = generate(4, 33, 1000.0);
        assert_eq!(a.heights_m, b.heights_m);
        assert_ne!(a.heights_m, c.heights_m);
    }

    #[test]
    fn has_mountains_and_valleys() {
        let field = generate(DEFAULT_SEED, 129, DEFAULT_SIZE_M);
        let (lo, hi) = field.height_range_m();
        assert!(hi - lo > 1000.0, "relief {lo}..{hi} m is too flat");
        assert!(field.heights_m.iter().all(|h| h.is_finite()));
    }
}
