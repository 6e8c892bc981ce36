//! Pass "cache.tile_generate": the procedural planet (`--terrain planet` without files) made on
//! the GPU straight into the atlas (shaders/tile_generate.wgsl, shaders/shared/planet.wgsl), and
//! its CPU twin (`planet_tile`), which mirrors the WGSL operation by operation in f32.
//!
//! ```text
//! texel (i, j) of tile (z, x, y) -> fixed-point map point (MAP_ONE = 2^30), exact:
//!     x * 2^(30 - z) + (i - 1) * 2^(23 - z)        (z <= 23; finer: the offset floored)
//!   folded across the map's sides in integers     -> equal integers on shared edges and folds
//!   octahedron point in integers, normalised (f32) -> direction d
//! height_m(d, z, seed) = continents + mountain belts + detail octaves
//!   continents  t = fbm(d, 1.5, 6 octaves) - 0.02; ocean to -4200 m below t = -0.12, land to
//!               600 m above t = 0.3, coasts at 0
//!   mountains   5400 m x belt x ridged(d, 4, 5 octaves); belt = low-frequency noise x land
//!   detail      (150 + 450 belt) m x fbm(d, 8, min(z + 2, 14) octaves): finer zooms add octaves
//!               up to about the tile's Nyquist limit; past zoom 12 f32 directions run out of
//!               bits, so no octave is added (PLANET_MAX_ZOOM stops the requests at 14)
//! ```
//! Value noise (hashed lattice, quintic fade) is continuous, so the last-bit differences between
//! GPU and CPU arithmetic (fused multiply-adds, `normalize`) move heights by millimetres; tests
//! compare with a stated tolerance. Tiles sharing an edge compute their shared texels from the
//! same integers with the same code, so on one device they are bit-identical.

use wgpu::util::DeviceExt;

use super::atlas::Atlas;
use super::tile_key::TileKey;
use super::tile_layout::{TILE_SIDE, TILE_TEXELS};
use crate::hash::fmix32;
use crate::leb::octahedral::MAP_ONE;

/// The source index of the procedural planet's tiles.
pub const PLANET_SOURCE: u8 = 30;
/// The deepest zoom worth generating (see the module comment).
pub const PLANET_MAX_ZOOM: u8 = 14;

/// One scheduled tile. Keep in sync with tile_jobs in shaders/tile_generate.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TileJob {
    pub key: [u32; 2],
    pub layer: u32,
    pub seed: u32,
}
const _: () = assert!(std::mem::size_of::<TileJob>() == 16);

fn lattice(i: [i32; 3], salt: u32) -> f32 {
    let h = fmix32(i[0] as u32 ^ fmix32(i[1] as u32 ^ fmix32(i[2] as u32 ^ salt)));
    (h >> 8) as f32 * (1.0 / 8_388_608.0) - 1.0
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

fn ramp(x: f32) -> f32 {
    let s = x.clamp(0.0, 1.0);
    s * s * (3.0 - 2.0 * s)
}

/// 3-D value noise in [-1, 1]. Mirrors planet_noise.
pub fn planet_noise(p: [f32; 3], salt: u32) -> f32 {
    let fl = p.map(f32::floor);
    let i = fl.map(|c| c as i32);
    let u = [fade(p[0] - fl[0]), fade(p[1] - fl[1]), fade(p[2] - fl[2])];
    let l = |dx: i32, dy: i32, dz: i32| lattice([i[0].wrapping_add(dx), i[1].wrapping_add(dy), i[2].wrapping_add(dz)], salt);
    let x00 = lerp(l(0, 0, 0), l(1, 0, 0), u[0]);
    let x10 = lerp(l(0, 1, 0), l(1, 1, 0), u[0]);
    let x01 = lerp(l(0, 0, 1), l(1, 0, 1), u[0]);
    let x11 = lerp(l(0, 1, 1), l(1, 1, 1), u[0]);
    lerp(lerp(x00, x10, u[1]), lerp(x01, x11, u[1]), u[2])
}

fn scaled(d: [f32; 3], f: f32) -> [f32; 3] {
    d.map(|c| c * f)
}

fn fbm(d: [f32; 3], frequency: f32, octaves: u32, salt: u32) -> f32 {
    let (mut sum, mut amplitude, mut f) = (0.0f32, 0.5f32, frequency);
    for o in 0..octaves {
        sum += amplitude * planet_noise(scaled(d, f), salt.wrapping_add(o.wrapping_mul(0x9e37_79b9)));
        f *= 2.0;
        amplitude *= 0.5;
    }
    sum
}

fn ridged(d: [f32; 3], frequency: f32, octaves: u32, salt: u32) -> f32 {
    let (mut sum, mut amplitude, mut f) = (0.0f32, 0.5f32, frequency);
    for o in 0..octaves {
        let r = 1.0 - planet_noise(scaled(d, f), salt.wrapping_add(o.wrapping_mul(0x9e37_79b9))).abs();
        sum += amplitude * r * r;
        f *= 2.0;
        amplitude *= 0.5;
    }
    sum
}

/// Detail octaves of a zoom-`zoom` tile. Mirrors planet_detail_octaves.
pub fn planet_detail_octaves(zoom: u32) -> u32 {
    (zoom + 2).min(14)
}

/// Height in metres at unit direction `d` for a tile of zoom `zoom`. Mirrors planet_height_m.
pub fn planet_height_m(d: [f32; 3], zoom: u32, seed: u32) -> f32 {
    let salt = fmix32(seed);
    let t = fbm(d, 1.5, 6, salt ^ 1) - 0.02;
    let mut h = -4200.0 * ramp(-t / 0.12) + 600.0 * ramp(t / 0.3);
    let belt = ramp(fbm(d, 2.3, 3, salt ^ 2) / 0.2) * ramp(t / 0.08);
    h += 5400.0 * belt * ridged(d, 4.0, 5, salt ^ 3);
    h += (150.0 + 450.0 * belt) * fbm(d, 8.0, planet_detail_octaves(zoom), salt ^ 4);
    h
}

/// Fixed-point map point of texel (i, j) of `key`, folded into [0, MAP_ONE]^2. Mirrors
/// tile_texel_map_fixed (see the module comment).
pub fn tile_texel_map_fixed(key: TileKey, i: u32, j: u32) -> [u32; 2] {
    let one = MAP_ONE as i64;
    let z = key.zoom as u32;
    let coord = |t: u32, o: u32| -> i64 {
        let tile = (t as i64) << (30 - z);
        let offset = o as i64 - 1;
        if z <= 23 {
            tile + offset * (1 << (23 - z))
        } else {
            tile + (offset >> (z - 23))
        }
    };
    let (mut u, mut v) = (coord(key.x, i), coord(key.y, j));
    for _ in 0..2 {
        if u > one {
            (u, v) = (one - (u - one), one - v);
        } else if u < 0 {
            (u, v) = (-u, one - v);
        }
        if v > one {
            (u, v) = (one - u, one - (v - one));
        } else if v < 0 {
            (u, v) = (one - u, -v);
        }
    }
    [u as u32, v as u32]
}

/// Unit direction at fixed-point map point `p`. Mirrors planet_direction.
pub fn planet_direction(p: [u32; 2]) -> [f32; 3] {
    let one = MAP_ONE as i32;
    let q = [(p[0] as i32 - one / 2) * 2, (p[1] as i32 - one / 2) * 2];
    let z = one - q[0].abs() - q[1].abs();
    let sign = |c: i32| if c >= 0 { 1 } else { -1 };
    let o = if z >= 0 { [q[0], q[1], z] } else { [sign(q[0]) * (one - q[1].abs()), sign(q[1]) * (one - q[0].abs()), z] };
    let f = o.map(|c| c as f32);
    let len = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
    f.map(|c| c / len)
}

/// The heights of `key`'s tile, row-major (the CPU twin of the pass).
pub fn planet_tile(key: TileKey, seed: u32) -> Vec<f32> {
    let mut out = Vec::with_capacity(TILE_TEXELS);
    for j in 0..TILE_SIDE {
        for i in 0..TILE_SIDE {
            out.push(planet_height_m(planet_direction(tile_texel_map_fixed(key, i, j)), key.zoom as u32, seed));
        }
    }
    out
}

/// The pass: its pipeline and a job buffer for up to `max_jobs` tiles a frame.
pub struct TileGenerate {
    pipeline: wgpu::ComputePipeline,
    jobs: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    pub max_jobs: u32,
}

impl TileGenerate {
    pub fn new(device: &wgpu::Device, atlas: &Atlas, max_jobs: u32) -> TileGenerate {
        let pipeline = crate::shaders::SHADERS.compute_pipeline(device, "cache.tile_generate", "tile_generate.wgsl", "main", &[]);
        let jobs = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cache.tile_generate.jobs"),
            contents: bytemuck::cast_slice(&vec![TileJob { key: [0, 0], layer: 0, seed: 0 }; max_jobs.max(1) as usize]),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cache.tile_generate"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: jobs.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&atlas.view) },
            ],
        });
        TileGenerate { pipeline, jobs, bind_group, max_jobs: max_jobs.max(1) }
    }

    /// Writes `jobs` (at most `max_jobs`) and records the dispatch that generates them. Call
    /// once per submission: the job buffer is written with `queue.write_buffer`.
    /// Timed by `profiler` when given (a frame's uploads).
    pub fn record(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        profiler: Option<&wgpu_profiler::GpuProfiler>,
        jobs: &[TileJob],
    ) {
        assert!(jobs.len() as u32 <= self.max_jobs, "{} jobs, room for {}", jobs.len(), self.max_jobs);
        if jobs.is_empty() {
            return;
        }
        queue.write_buffer(&self.jobs, 0, bytemuck::cast_slice(jobs));
        crate::gpu::compute_pass_timed_by(profiler, encoder, "cache.tile_generate", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            let groups = TILE_SIDE.div_ceil(8);
            pass.dispatch_workgroups(groups, groups, jobs.len() as u32);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::globe::cache::tile_layout::texel_map_point;
    use crate::leb::octahedral;

    #[test]
    fn texel_fixed_point_equals_the_layout_and_the_fold() {
        for key in [
            TileKey::new(0, 0, 0, 0).unwrap(),
            TileKey::new(0, 3, 7, 0).unwrap(),
            TileKey::new(0, 12, 4095, 17).unwrap(),
            TileKey::new(0, 5, 0, 31).unwrap(),
        ] {
            for (i, j) in [(0, 0), (1, 1), (130, 5), (64, 130), (130, 130), (0, 77)] {
                let exact = octahedral::wrap(texel_map_point(key, i, j));
                let fixed = octahedral::from_fixed(tile_texel_map_fixed(key, i, j));
                assert!((exact - fixed).length() < 1e-15, "{key:?} ({i}, {j}): {exact} vs {fixed}");
                let d = planet_direction(tile_texel_map_fixed(key, i, j));
                let n = octahedral::to_unit_sphere(exact);
                assert!((n - glam::DVec3::new(d[0] as f64, d[1] as f64, d[2] as f64)).length() < 1e-6);
            }
        }
        // Neighbours share their edge texels exactly, also at zooms finer than the fixed point.
        for zoom in [4u8, 23, 24, 27] {
            let a = TileKey::new(0, zoom, 5, 9).unwrap();
            let b = TileKey::new(0, zoom, 6, 9).unwrap();
            for j in 0..TILE_SIDE {
                assert_eq!(tile_texel_map_fixed(a, 129, j), tile_texel_map_fixed(b, 1, j));
                assert_eq!(tile_texel_map_fixed(a, 130, j), tile_texel_map_fixed(b, 2, j));
                assert_eq!(tile_texel_map_fixed(a, 128, j), tile_texel_map_fixed(b, 0, j));
            }
        }
    }

    #[test]
    fn planet_heights_have_oceans_land_and_mountains() {
        let tile = planet_tile(TileKey::new(PLANET_SOURCE, 0, 0, 0).unwrap(), 7);
        let (lo, hi) = tile.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
        let ocean = tile.iter().filter(|&&h| h < 0.0).count() as f64 / tile.len() as f64;
        assert!(lo < -3000.0 && hi > 2000.0 && hi < 7000.0, "range {lo}..{hi}");
        assert!((0.2..0.9).contains(&ocean), "ocean fraction {ocean}");
        assert_ne!(planet_tile(TileKey::new(PLANET_SOURCE, 0, 0, 0).unwrap(), 8)[5000], tile[5000], "the seed matters");
    }
}
