//! The globe's shading gradient (shaders/shared/globe_materials.wgsl) on lavapipe: over a gentle
//! ramp quantised to Terrain-RGB's 0.1 m steps it equals its CPU twin (src/globe/materials.rs),
//! and it does not band: along the ramp its total variation is under half the tile cache's
//! central differences', with the ramp's mean slope kept.

#[path = "support/cache_probe.rs"]
mod cache_probe;
mod common;

use std::collections::HashMap;
use std::sync::Arc;

use bisector::globe::cache::tile_cache::{cpu_find, cpu_gradient, Producer, TileCache, TileCacheConfig};
use bisector::globe::cache::tile_key::TileKey;
use bisector::globe::cache::tile_layout::{texel_map_point, TILE_SIDE};
use bisector::globe::cache::tile_producer::TileProducer;
use bisector::globe::materials::{cpu_shading_gradient, HEIGHT_STEP_M};
use bisector::gpu::readback::read_buffer;
use bisector::gpu::Gpu;
use bisector::leb::octahedral::{self, MAP_ONE};
use bisector::terrain::TerrainError;
use cache_probe::{cache_probe_pipeline, query_buffers};
use rand::Rng;

const SOURCE: u8 = 5;
const MAX_ZOOM: u8 = 6;
/// Map units per texel at MAX_ZOOM.
const TEXEL: f64 = 1.0 / (128.0 * 64.0);
/// The ramp's slope along u and v, metres per texel at MAX_ZOOM: under one 0.1 m step a texel.
const SLOPE_PER_TEXEL_M: [f64; 2] = [0.04, 0.015];

/// A ramp over the map square, quantised to HEIGHT_STEP_M.
struct QuantisedRamp;

fn ramp_height_m(p: glam::DVec2) -> f32 {
    let h = 500.0 + (SLOPE_PER_TEXEL_M[0] * p.x + SLOPE_PER_TEXEL_M[1] * p.y) / TEXEL;
    ((h / HEIGHT_STEP_M as f64).round() * HEIGHT_STEP_M as f64) as f32
}

impl TileProducer for QuantisedRamp {
    fn source(&self) -> u8 {
        SOURCE
    }
    fn max_zoom(&self) -> u8 {
        MAX_ZOOM
    }
    fn produce(&self, key: TileKey) -> Result<Vec<f32>, TerrainError> {
        Ok((0..TILE_SIDE).flat_map(|j| (0..TILE_SIDE).map(move |i| ramp_height_m(octahedral::wrap(texel_map_point(key, i, j))))).collect())
    }
}

/// Runs the probe kernel over `queries` in the cache's frame; (narrow, shading) gradients.
fn probe(gpu: &Gpu, cache: &mut TileCache, queries: &[[u32; 4]]) -> Vec<[f32; 4]> {
    let (pipeline, layout) = cache_probe_pipeline(gpu, cache, "globe_shading_probe.wgsl", "main", &[(0, true), (1, false), (2, false)]);
    let (bind_group, results, _slots) = query_buffers(gpu, &layout, queries);
    let record = |encoder: &mut wgpu::CommandEncoder, cache: &TileCache| {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("probe"), timestamp_writes: None });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_bind_group(2, cache.bind_group(), &[]);
        pass.dispatch_workgroups((queries.len() as u32).div_ceil(64), 1, 1);
    };
    let frames = cache.settle(gpu, 400, record).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("settled in {frames} frames");
    bytemuck::pod_collect_to_vec(&read_buffer(&gpu.device, &gpu.queue, &results, 0, results.size()))
}

/// The fixed-point map point of (u, v).
fn fixed(u: f64, v: f64) -> [u32; 2] {
    [(u * MAP_ONE as f64) as u32, (v * MAP_ONE as f64) as u32]
}

/// Sum of |g[k + 1] - g[k]|.
fn total_variation(g: &[f32]) -> f64 {
    g.windows(2).map(|w| (w[1] - w[0]).abs() as f64).sum()
}

#[test]
fn the_shading_gradient_equals_its_twin_and_does_not_band() {
    let mut rng = common::rng("the_shading_gradient_equals_its_twin_and_does_not_band");
    let gpu = common::gpu(10);
    let config = TileCacheConfig { tiles: 48, uploads_per_frame: 8, feedback_capacity: 1024, loader_threads: 2 };
    let mut cache = TileCache::new(&gpu, config, Producer::Cpu(Arc::new(QuantisedRamp))).unwrap();
    // A line along u, a quarter texel apart over 800 texels from a random start, and random
    // points around it, all at the finest zoom.
    let (u0, v0) = (rng.random_range(0.30..0.35), rng.random_range(0.30..0.45));
    let line: Vec<[u32; 4]> = (0..3200).map(|k| fixed(u0 + k as f64 * TEXEL / 4.0, v0)).map(|m| [m[0], m[1], MAX_ZOOM as u32, 1]).collect();
    let mut queries = line.clone();
    queries.extend((0..2000).map(|_| {
        let m = fixed(u0 + rng.random_range(0.0..800.0 * TEXEL), v0 + rng.random_range(-8.0..8.0) * TEXEL);
        [m[0], m[1], MAX_ZOOM as u32, 1]
    }));
    let results = probe(&gpu, &mut cache, &queries);
    let layers: HashMap<u32, (TileKey, Vec<f32>)> =
        cache.table().iter().map(|(k, slot)| (slot, (k, QuantisedRamp.produce(k).unwrap()))).collect();
    let mut worst = 0.0f32;
    for (q, r) in queries.iter().zip(&results) {
        let map = [q[0], q[1]];
        let (slot, zoom) = cpu_find(cache.table(), SOURCE, MAX_ZOOM, map, q[2]).expect("resident");
        assert_eq!(zoom, MAX_ZOOM, "{map:?} not at the finest zoom");
        let layer = &layers[&slot].1;
        let (narrow, shading) = (cpu_gradient(layer, zoom, map), cpu_shading_gradient(layer, zoom, map));
        for c in 0..2 {
            // f32 sums of the same texels in another order: relative 1e-4 of the gradient's scale.
            let tol = 1e-4 * (1.0 + narrow[c].abs().max(shading[c].abs()));
            worst = worst.max((r[2 + c] - shading[c]).abs() / tol);
            assert!((r[c] - narrow[c]).abs() <= tol, "narrow gradient at {map:?}: GPU {:?} CPU {narrow:?}", &r[..2]);
            assert!((r[2 + c] - shading[c]).abs() <= tol, "shading gradient at {map:?}: GPU {:?} CPU {shading:?}", &r[2..]);
        }
    }
    eprintln!("largest difference {worst:.3} of the tolerance");
    // Banding: the narrow stencil's u-gradient jumps as the 0.1 m steps pass; the shading one's
    // varies less than half as much, and both keep the ramp's slope on average.
    let narrow_u: Vec<f32> = results[..line.len()].iter().map(|r| r[0]).collect();
    let shading_u: Vec<f32> = results[..line.len()].iter().map(|r| r[2]).collect();
    let (tv_narrow, tv_shading) = (total_variation(&narrow_u), total_variation(&shading_u));
    let want = SLOPE_PER_TEXEL_M[0] / TEXEL;
    let mean = shading_u.iter().map(|&g| g as f64).sum::<f64>() / shading_u.len() as f64;
    eprintln!("total variation along the ramp: narrow {tv_narrow:.0}, shading {tv_shading:.0}; mean slope {mean:.1} (ramp {want:.1})");
    assert!(tv_shading < 0.5 * tv_narrow, "the shading gradient bands: total variation {tv_shading} against {tv_narrow}");
    assert!((mean - want).abs() < 0.05 * want, "the shading gradient's mean {mean} is not the ramp's {want}");
}
