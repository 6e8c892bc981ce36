//! The tile cache on the GPU (lavapipe) against its CPU twins: the WGSL API (find, bilinear
//! height, gradient, record) equals `globe::cache::tile_cache::cpu_*` over the same resident set and its
//! feedback and used bits are exactly the expected sets; a tiny cache streaming from a CPU
//! producer never has holes and converges to the fully-resident heights; the GPU planet
//! generator equals its CPU twin and neighbouring tiles share their edge texels bit for bit.
//! Fresh random inputs every run (seed printed; BISECTOR_TEST_SEED replays).

#[path = "support/cache_probe.rs"]
mod cache_probe;
mod common;

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bisector::globe::cache::atlas::Atlas;
use bisector::globe::cache::tile_cache::{cpu_find, cpu_gradient, cpu_height, cpu_wanted_key, Producer, TileCache, TileCacheConfig};
use bisector::globe::cache::tile_generate::{planet_tile, TileGenerate, TileJob, PLANET_SOURCE};
use bisector::globe::cache::tile_key::TileKey;
use bisector::globe::cache::tile_layout::{texel_map_point, TILE_SIDE, TILE_TEXELS};
use bisector::globe::cache::tile_producer::TileProducer;
use bisector::globe::cache::tile_table::TILE_MISS;
use bisector::gpu::readback::read_buffer;
use bisector::gpu::Gpu;
use bisector::leb::octahedral::{self, MAP_ONE};
use bisector::terrain::TerrainError;
use cache_probe::{cache_probe_pipeline, query_buffers};
use rand::Rng;

/// Heights an analytic function of the (folded) map point; fails on one chosen key; counts calls.
struct Analytic {
    max_zoom: u8,
    fail: Option<TileKey>,
    calls: Mutex<HashMap<TileKey, usize>>,
    total: AtomicUsize,
}

const SOURCE: u8 = 4;

fn analytic_height_m(p: glam::DVec2) -> f32 {
    (2000.0 * (7.0 * p.x).sin() * (5.0 * p.y).cos() + 500.0 * (p.x - p.y) + 40.0 * (60.0 * p.x).sin()) as f32
}

impl TileProducer for Analytic {
    fn source(&self) -> u8 {
        SOURCE
    }
    fn max_zoom(&self) -> u8 {
        self.max_zoom
    }
    fn produce(&self, key: TileKey) -> Result<Vec<f32>, TerrainError> {
        *self.calls.lock().unwrap().entry(key).or_default() += 1;
        self.total.fetch_add(1, Ordering::Relaxed);
        if Some(key) == self.fail {
            return Err(TerrainError::File { path: "analytic".into(), problem: format!("{key:?} refused on purpose") });
        }
        Ok((0..TILE_SIDE)
            .flat_map(|j| (0..TILE_SIDE).map(move |i| analytic_height_m(octahedral::wrap(texel_map_point(key, i, j)))))
            .collect())
    }
}

fn analytic(max_zoom: u8, fail: Option<TileKey>) -> Arc<Analytic> {
    Arc::new(Analytic { max_zoom, fail, calls: Mutex::new(HashMap::new()), total: AtomicUsize::new(0) })
}

/// The probe kernel (shaders/tile_cache_probe.wgsl) bound to a cache.
struct Probe {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// One probe answer.
#[derive(Clone, Copy, Debug)]
struct Answer {
    height_m: f32,
    gradient: [f32; 2],
    zoom: u32,
    slot: u32,
}

impl Probe {
    fn new(gpu: &Gpu, cache: &TileCache) -> Probe {
        let (pipeline, layout) = cache_probe_pipeline(gpu, cache, "tile_cache_probe.wgsl", "main", &[(0, true), (1, false), (2, false)]);
        Probe { pipeline, layout }
    }

    /// Records the probe over `queries` (map x, map y, wanted zoom, record); returns the output
    /// buffers to read after the submission.
    fn record(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        cache: &TileCache,
        queries: &[[u32; 4]],
    ) -> (wgpu::Buffer, wgpu::Buffer) {
        let (bind_group, results, slots) = query_buffers(gpu, &self.layout, queries);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("probe"), timestamp_writes: None });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_bind_group(2, cache.bind_group(), &[]);
        pass.dispatch_workgroups((queries.len() as u32).div_ceil(64), 1, 1);
        drop(pass);
        (results, slots)
    }

    fn read(gpu: &Gpu, (results, slots): &(wgpu::Buffer, wgpu::Buffer)) -> Vec<Answer> {
        let r: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&read_buffer(&gpu.device, &gpu.queue, results, 0, results.size()));
        let s: Vec<u32> = bytemuck::pod_collect_to_vec(&read_buffer(&gpu.device, &gpu.queue, slots, 0, slots.size()));
        r.iter().zip(s).map(|(r, slot)| Answer { height_m: r[0], gradient: [r[1], r[2]], zoom: r[3] as u32, slot }).collect()
    }

    /// One whole frame of the cache with the probe inside; the answers.
    fn frame(&self, gpu: &Gpu, cache: &mut TileCache, queries: &[[u32; 4]]) -> Vec<Answer> {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        cache.begin_frame(gpu, &mut encoder, cache.frame() + 1);
        let out = self.record(gpu, &mut encoder, cache, queries);
        cache.end_frame(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        cache.after_submit();
        gpu.wait_idle();
        Probe::read(gpu, &out)
    }
}

/// A random fixed-point map point; sometimes exactly on a side or a tile edge.
fn random_map(rng: &mut impl Rng) -> [u32; 2] {
    let c = |rng: &mut dyn rand::RngCore| match rng.random_range(0..8) {
        0 => 0,
        1 => MAP_ONE,
        2 => (rng.random_range(0..=64u32)) << 24,
        _ => rng.random_range(0..=MAP_ONE),
    };
    [c(rng), c(rng)]
}

fn small_gpu() -> Gpu {
    common::gpu(10)
}

/// Everything the CPU twins need: the layer of every resident key.
fn layers_of(cache: &TileCache, make: &dyn Fn(TileKey) -> Vec<f32>) -> HashMap<u32, (TileKey, Vec<f32>)> {
    cache.table().iter().map(|(k, slot)| (slot, (k, make(k)))).collect()
}

/// Checks one probe frame's answers, feedback and used bits against the twins.
fn check_probe_frame(
    gpu: &Gpu,
    cache: &TileCache,
    queries: &[[u32; 4]],
    answers: &[Answer],
    layers: &HashMap<u32, (TileKey, Vec<f32>)>,
    context: &str,
) {
    let (source, max_zoom) = (cache.source(), cache.max_zoom());
    let mut missed = BTreeSet::new();
    let mut used = BTreeSet::new();
    for (q, a) in queries.iter().zip(answers) {
        let map = [q[0], q[1]];
        let (slot, zoom) = cpu_find(cache.table(), source, max_zoom, map, q[2]).unwrap_or_else(|| panic!("{context}: a hole at {map:?}"));
        assert_eq!((a.slot, a.zoom), (slot, zoom as u32), "{context}: find at {map:?} zoom {}", q[2]);
        let (key, layer) = &layers[&slot];
        assert_eq!(key.zoom, zoom);
        let h = cpu_height(layer, zoom, map);
        // f32 bilinear of the same texels with exact weights: equal up to rounding.
        let tol = 1e-3 + 1e-6 * h.abs();
        assert!((a.height_m - h).abs() <= tol, "{context}: height at {map:?}: GPU {} CPU {h}", a.height_m);
        let g = cpu_gradient(layer, zoom, map);
        for c in 0..2 {
            let tol = 1e-3 * (1.0 + g[c].abs());
            assert!((a.gradient[c] - g[c]).abs() <= tol, "{context}: gradient at {map:?}: GPU {:?} CPU {g:?}", a.gradient);
        }
        if q[3] != 0 {
            used.insert(slot);
            if (zoom as u32) < q[2].min(max_zoom as u32) {
                missed.insert(cpu_wanted_key(source, max_zoom, map, q[2]));
            }
        }
    }
    let feedback = cache.feedback().read(&gpu.device, &gpu.queue);
    assert!(!feedback.overflow && feedback.bad_slots == 0, "{context}: feedback {feedback:?}");
    assert_eq!(feedback.keys.iter().copied().collect::<BTreeSet<_>>(), missed, "{context}: the feedback keys");
    let words: Vec<u32> =
        bytemuck::pod_collect_to_vec(&read_buffer(&gpu.device, &gpu.queue, cache.used_buffer(), 0, cache.used_buffer().size()));
    let gpu_used: BTreeSet<u32> = (0..32 * words.len() as u32).filter(|&s| words[s as usize / 32] >> (s % 32) & 1 == 1).collect();
    assert_eq!(gpu_used, used, "{context}: the used bits");
}

fn run_probe_test(producer: Producer, make: &dyn Fn(TileKey) -> Vec<f32>, max_wanted: u32, name: &str) {
    let mut rng = common::rng(name);
    let gpu = small_gpu();
    let config = TileCacheConfig { tiles: 48, uploads_per_frame: 4, feedback_capacity: 1024, loader_threads: 2 };
    let mut cache = TileCache::new(&gpu, config, producer).unwrap();
    let probe = Probe::new(&gpu, &cache);
    // A random, partly converged resident set: frames of queries around a few centres, stopped
    // at a random frame; then probe frames checked against the twins.
    let centres: Vec<[u32; 2]> = (0..6).map(|_| random_map(&mut rng)).collect();
    let frames = rng.random_range(2..25);
    for frame in 0..frames + 3 {
        let queries: Vec<[u32; 4]> = (0..512)
            .map(|_| {
                let c = centres[rng.random_range(0..centres.len())];
                let jitter =
                    |v: u32, rng: &mut dyn rand::RngCore| v.saturating_add_signed(rng.random_range(-(1 << 22)..(1 << 22))).min(MAP_ONE);
                let map = if rng.random_bool(0.3) { random_map(&mut rng) } else { [jitter(c[0], &mut rng), jitter(c[1], &mut rng)] };
                [map[0], map[1], rng.random_range(0..=max_wanted), rng.random_bool(0.8) as u32]
            })
            .collect();
        let answers = probe.frame(&gpu, &mut cache, &queries);
        // Wait for loaders now and then, so some frames upload.
        if frame % 3 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if frame >= frames {
            let layers = layers_of(&cache, make);
            check_probe_frame(
                &gpu,
                &cache,
                &queries,
                &answers,
                &layers,
                &format!("{name}, frame {frame}, {} resident", cache.table().len()),
            );
        }
    }
    assert!(cache.table().len() > 5, "{name}: nothing was streamed in: {:?}", cache.stats());
}

#[test]
fn gpu_tile_cache_api_equals_cpu_twin_over_streamed_tiles() {
    let producer = analytic(9, None);
    let p = producer.clone();
    run_probe_test(Producer::Cpu(producer), &move |k| p.produce(k).unwrap(), 10, "gpu_tile_cache_api_equals_cpu_twin_over_streamed_tiles");
}

#[test]
fn gpu_tile_cache_api_equals_cpu_twin_over_procedural_tiles() {
    run_probe_test_procedural(rand::random());
}

fn run_probe_test_procedural(seed: u32) {
    let name = "gpu_tile_cache_api_equals_cpu_twin_over_procedural_tiles";
    let mut rng = common::rng(name);
    let gpu = small_gpu();
    let config = TileCacheConfig { tiles: 24, uploads_per_frame: 3, feedback_capacity: 256, loader_threads: 1 };
    let mut cache = TileCache::new(&gpu, config, Producer::Procedural { seed }).unwrap();
    assert_eq!(cache.source(), PLANET_SOURCE);
    let probe = Probe::new(&gpu, &cache);
    for frame in 0..rng.random_range(3..12) {
        let queries: Vec<[u32; 4]> = (0..256)
            .map(|_| {
                let m = random_map(&mut rng);
                [m[0], m[1], rng.random_range(0..=20), 1]
            })
            .collect();
        let answers = probe.frame(&gpu, &mut cache, &queries);
        // The twin of the layers is the GPU's own layers read back (the generator's own test
        // compares them with planet_tile): this checks the API over generated tiles exactly.
        let layers: HashMap<u32, (TileKey, Vec<f32>)> =
            cache.table().iter().map(|(k, slot)| (slot, (k, cache.atlas.read_layer(&gpu.device, &gpu.queue, slot)))).collect();
        check_probe_frame(&gpu, &cache, &queries, &answers, &layers, &format!("procedural frame {frame}"));
        for (key, layer) in layers.values() {
            let twin = planet_tile(*key, seed);
            let err = layer.iter().zip(&twin).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
            assert!(err <= PLANET_TOLERANCE_M, "{key:?}: GPU tile differs from planet_tile by {err} m");
        }
    }
}

/// GPU against CPU heights of the planet: f32 noise of the same direction; the GPU may fuse
/// multiply-adds and normalise differently, which moves a continuous function by millimetres.
/// (Measured on lavapipe: at most 0.001 m, one f32 ulp at 4-8 km.)
const PLANET_TOLERANCE_M: f32 = 0.05;

#[test]
fn tiny_cache_never_has_holes_and_converges_to_the_resident_heights() {
    let name = "tiny_cache_never_has_holes_and_converges_to_the_resident_heights";
    let mut rng = common::rng(name);
    let gpu = small_gpu();
    let fail = TileKey::new(SOURCE, 3, rng.random_range(0..8), rng.random_range(0..8)).unwrap();
    let producer = analytic(8, Some(fail));
    let config = TileCacheConfig { tiles: 16, uploads_per_frame: 2, feedback_capacity: 256, loader_threads: 2 };
    let mut cache = TileCache::new(&gpu, config, Producer::Cpu(producer.clone())).unwrap();
    let probe = Probe::new(&gpu, &cache);
    // Phase 1: a camera jumping all over the globe (queries around a random centre each frame,
    // finer near it), far more tiles over time than fit: never a hole, and every answer is the
    // twin's over the resident set of that frame.
    let mut evictions = 0;
    for frame in 0..40 {
        let centre = random_map(&mut rng);
        let queries: Vec<[u32; 4]> = (0..128)
            .map(|_| {
                let r = 1i32 << rng.random_range(20..28);
                let m = centre.map(|c| c.saturating_add_signed(rng.random_range(-r..=r)).min(MAP_ONE));
                [m[0], m[1], (30 - r.ilog2()).min(8), 1]
            })
            .collect();
        // The failed key's tile is wanted every frame.
        let mut queries = queries;
        let fail_centre = [((2 * fail.x + 1) << 26), ((2 * fail.y + 1) << 26)];
        queries.push([fail_centre[0], fail_centre[1], 3, 1]);
        let answers = probe.frame(&gpu, &mut cache, &queries);
        assert!(answers.iter().all(|a| a.slot != TILE_MISS), "frame {frame}: a hole");
        let stats = cache.stats();
        assert!(stats.resident_tiles <= 16 && stats.uploaded_tiles <= 2, "{stats:?}");
        evictions = stats.evictions_total;
        if frame % 8 == 7 {
            let layers = layers_of(&cache, &|k| producer.produce(k).unwrap_or_default());
            check_probe_frame(&gpu, &cache, &queries, &answers, &layers, &format!("tiny cache frame {frame}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(evictions > 0, "the tiny cache never evicted: {:?}", cache.stats());
    // Phase 2: fixed requests whose wanted tiles fit (at most 6 distinct, beside the 5 pins):
    // the cache settles and then samples exactly the fully resident heights.
    let points: Vec<[u32; 2]> = (0..6).map(|_| random_map(&mut rng)).collect();
    let queries: Vec<[u32; 4]> = points
        .iter()
        .map(|m| [m[0], m[1], rng.random_range(2..=8), 1])
        .chain([[((2 * fail.x + 1) << 26), ((2 * fail.y + 1) << 26), 3, 1]])
        .collect();
    let frames = cache
        .settle(&gpu, 400, |encoder, cache| {
            // Dropped output buffers are kept alive by the encoder until it finishes.
            probe.record(&gpu, encoder, cache, &queries);
        })
        .unwrap();
    let answers = probe.frame(&gpu, &mut cache, &queries);
    for (q, a) in queries.iter().zip(&answers).take(points.len()) {
        let map = [q[0], q[1]];
        let key = cpu_wanted_key(SOURCE, 8, map, q[2]);
        if key.ancestors().any(|k| k == fail) {
            continue;
        }
        let full = cpu_height(&producer.produce(key).unwrap(), key.zoom, map);
        assert_eq!(a.zoom, q[2], "after {frames} frames, {map:?} is still served from zoom {} ({:?})", a.zoom, cache.stats());
        assert!((a.height_m - full).abs() <= 1e-3 + 1e-6 * full.abs(), "{map:?}: {} vs fully resident {full}", a.height_m);
    }
    // The failing tile was asked for every frame, loaded once, reported once, and its
    // parent serves its area.
    let stats = cache.stats();
    assert_eq!(stats.failed_loads, 1, "{stats:?}");
    assert_eq!(producer.calls.lock().unwrap()[&fail], 1, "the failed key was retried");
    assert!(answers.last().unwrap().zoom < 3);
}

#[test]
fn gpu_planet_tiles_equal_the_cpu_twin_and_neighbours_share_edges() {
    let name = "gpu_planet_tiles_equal_the_cpu_twin_and_neighbours_share_edges";
    let mut rng = common::rng(name);
    let gpu = small_gpu();
    let seed: u32 = rng.random();
    // Random tiles at random zooms, each with its right neighbour (or, on the square's right
    // side, its left one), some on the square's sides so their borders cross the folds.
    let mut keys = Vec::new();
    while keys.len() < 12 {
        let zoom = rng.random_range(0..=16u8);
        let side = 1u32 << zoom;
        let x = if rng.random_bool(0.3) { side - 1 } else { rng.random_range(0..side) };
        let y = if rng.random_bool(0.3) { 0 } else { rng.random_range(0..side) };
        let a = TileKey::new(PLANET_SOURCE, zoom, x.min(side.saturating_sub(2)), y).unwrap();
        if let Some(b) = TileKey::new(PLANET_SOURCE, zoom, a.x + 1, y) {
            keys.extend([a, b]);
        } else {
            keys.push(a);
        }
    }
    let atlas = Atlas::new(&gpu.device, keys.len() as u32).unwrap();
    let generate = TileGenerate::new(&gpu.device, &atlas, keys.len() as u32);
    let jobs: Vec<TileJob> = keys.iter().enumerate().map(|(i, k)| TileJob { key: k.pack(), layer: i as u32, seed }).collect();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    generate.record(&gpu.queue, &mut encoder, None, &jobs);
    gpu.queue.submit([encoder.finish()]);
    let layers: Vec<Vec<f32>> = (0..keys.len() as u32).map(|l| atlas.read_layer(&gpu.device, &gpu.queue, l)).collect();
    let mut worst = 0.0f32;
    for (key, layer) in keys.iter().zip(&layers) {
        assert_eq!(layer.len(), TILE_TEXELS);
        let twin = planet_tile(*key, seed);
        for (t, (g, c)) in layer.iter().zip(&twin).enumerate() {
            let err = (g - c).abs();
            worst = worst.max(err);
            assert!(err <= PLANET_TOLERANCE_M, "seed {seed}, {key:?} texel {t}: GPU {g} CPU {c}");
        }
    }
    eprintln!("largest GPU - CPU planet height difference: {worst} m");
    // Neighbours (same zoom, x and x + 1) share columns 128..=130 / 0..=2 exactly.
    for (i, pair) in keys.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        if a.zoom != b.zoom || a.y != b.y || a.x + 1 != b.x {
            continue;
        }
        for j in 0..TILE_SIDE {
            for (ia, ib) in [(128, 0), (129, 1), (130, 2)] {
                let (ha, hb) = (layers[i][(j * TILE_SIDE + ia) as usize], layers[i + 1][(j * TILE_SIDE + ib) as usize]);
                assert_eq!(ha.to_bits(), hb.to_bits(), "{a:?} column {ia} vs {b:?} column {ib}, row {j}");
            }
        }
    }
}
