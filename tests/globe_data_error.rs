//! The globe's data error (`--lod error`) on the GPU (lavapipe) against its CPU twin: the tile
//! cache's error summaries (pass cache.tile_error) equal `tile_error_texels` of every resident
//! layer bit for bit, and the error bound of random map boxes (shared/tile_error.wgsl) equals
//! `tile_error::{error_zoom, box_cells, bound_cells_m}` over the same resident set, exactly; the
//! detail below the data (shared/globe_detail.wgsl) equals `globe::detail::detail_m` within
//! 1e-5 of its amplitude bound, and is exactly 0 at the data's samples on both; its gradient (the
//! shading's) equals `detail_gradient`; over tiles finer
//! than their data the native spacing the error layer stores, the detail's bound and the detail
//! a vertex gets from the tile it finds equal their twins.
//! Fresh random inputs every run (seed printed; BISECTOR_TEST_SEED replays).

#[path = "support/cache_probe.rs"]
mod cache_probe;
mod common;

use std::collections::HashMap;

use bisector::globe::cache::tile_cache::{cpu_find, cpu_height_slope, Producer, TileCache, TileCacheConfig};
use bisector::globe::cache::tile_error::{
    bound_cells_m, box_cells, data_lattice, error_zoom, native_spacing, tile_error_texels, NativeSpacing,
};
use bisector::globe::cache::tile_key::TileKey;
use bisector::globe::cache::tile_layout::{texel_map_point, TILE_SIDE};
use bisector::globe::cache::tile_producer::TileProducer;
use bisector::globe::detail::{amplitude_bound_m, detail_gradient, detail_m, DETAIL_GAIN};
use bisector::globe::ground::{tile_detail_m, tile_detail_tolerance_m};
use bisector::gpu::readback::read_buffer;
use bisector::gpu::Gpu;
use bisector::leb::octahedral::MAP_ONE;
use cache_probe::cache_probe_pipeline;
use rand::Rng;
use wgpu::util::DeviceExt;

/// The probe kernel (shaders/tile_error_probe.wgsl) bound to a cache: one frame of random boxes.
fn probe_frame(gpu: &Gpu, cache: &mut TileCache, pipeline: &wgpu::ComputePipeline, queries: &[[u32; 4]]) -> Vec<[f32; 4]> {
    let device = &gpu.device;
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.queries"),
        contents: bytemuck::cast_slice(queries),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let results = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe.results"),
        size: 16 * (queries.len() / 2) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("probe"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: results.as_entire_binding() },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    cache.begin_frame(gpu, &mut encoder, cache.frame() + 1);
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("probe"), timestamp_writes: None });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_bind_group(2, cache.bind_group(), &[]);
        pass.dispatch_workgroups(((queries.len() / 2) as u32).div_ceil(64), 1, 1);
    }
    cache.end_frame(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    cache.after_submit();
    gpu.wait_idle();
    bytemuck::pod_collect_to_vec(&read_buffer(device, &gpu.queue, &results, 0, results.size()))
}

fn make_pipeline(gpu: &Gpu, cache: &TileCache, entry: &str) -> wgpu::ComputePipeline {
    cache_probe_pipeline(gpu, cache, "tile_error_probe.wgsl", entry, &[(0, true), (1, false)]).0
}

/// A random box: a corner anywhere (sometimes on the map's sides), a size from a whole tile at
/// zoom 2 down to a fraction of a cell at zoom 16.
fn random_box(rng: &mut impl Rng) -> ([u32; 2], [u32; 2]) {
    let size = 1u32 << rng.random_range(6..28);
    let corner = |rng: &mut dyn rand::RngCore| match rng.random_range(0..10) {
        0 => 0,
        1 => MAP_ONE - size,
        _ => rng.random_range(0..=MAP_ONE - size),
    };
    let lo = [corner(rng), corner(rng)];
    let extent = |rng: &mut dyn rand::RngCore| rng.random_range(0..=size);
    (lo, [lo[0] + extent(rng), lo[1] + extent(rng)])
}

#[test]
fn tile_error_summaries_and_box_bounds_equal_the_cpu_twin() {
    let mut rng = common::rng("tile_error_summaries_and_box_bounds_equal_the_cpu_twin");
    let gpu = common::gpu(10);
    let config = TileCacheConfig { tiles: 32, uploads_per_frame: 4, feedback_capacity: 256, loader_threads: 1 };
    let mut cache = TileCache::new(&gpu, config, Producer::Procedural { seed: rng.random() }).unwrap();
    let pipeline = make_pipeline(&gpu, &cache, "main");
    // Boxes around a few places, so tiles down to zoom 14 get resident and are asked again.
    let centres: Vec<[u32; 2]> = (0..3).map(|_| [rng.random_range(0..MAP_ONE), rng.random_range(0..MAP_ONE)]).collect();
    let mut last = (Vec::new(), Vec::new());
    for _ in 0..8 {
        let mut queries = Vec::new();
        let mut boxes = Vec::new();
        for i in 0..384 {
            let (lo, hi) = if i % 2 == 0 {
                random_box(&mut rng)
            } else {
                let c = centres[i % centres.len()];
                let size = 1u32 << rng.random_range(8..24);
                let lo = [c[0].saturating_sub(rng.random_range(0..=size)), c[1].saturating_sub(rng.random_range(0..=size))];
                (lo, [(lo[0] + size).min(MAP_ONE), (lo[1] + size).min(MAP_ONE)])
            };
            let wanted = rng.random_range(0..=16u32);
            // The detail's bound on half the boxes.
            let detail = rng.random_bool(0.5);
            queries.push([lo[0], lo[1], hi[0], hi[1]]);
            queries.push([wanted, detail as u32, 0, 0]);
            boxes.push((lo, hi, wanted, detail));
        }
        last = (probe_frame(&gpu, &mut cache, &pipeline, &queries), boxes);
    }
    // Every resident layer's summary, GPU against the twin on the layer read back.
    let mut blocks: HashMap<u32, Vec<[f32; 4]>> = HashMap::new();
    let resident: Vec<_> = cache.table().iter().collect();
    assert!(resident.len() > 10, "only {} tiles resident", resident.len());
    let mut zooms = std::collections::BTreeSet::new();
    for (key, slot) in &resident {
        let layer = cache.atlas.read_layer(&gpu.device, &gpu.queue, *slot);
        let gpu_blocks = cache.errors.read_layer(&gpu.device, &gpu.queue, *slot);
        let cpu_blocks = tile_error_texels(&layer, native_spacing(1.0));
        assert_eq!(gpu_blocks, cpu_blocks, "{key:?} in slot {slot}");
        zooms.insert(key.zoom);
        blocks.insert(*slot, gpu_blocks);
    }
    assert!(blocks.values().any(|b| b.iter().any(|t| t[2] > 0.0)), "some tile bends");
    assert!(zooms.len() >= 4, "resident zooms {zooms:?}");
    // Every box's bound, GPU against the twin over the same resident set.
    let (answers, boxes) = last;
    let mut positive = 0;
    for (answer, (lo, hi, wanted, detail)) in answers.iter().zip(&boxes) {
        let zoom = error_zoom(*lo, *hi, *wanted);
        let (slot, found_zoom) = cpu_find(cache.table(), cache.source(), cache.max_zoom(), *lo, zoom).expect("the root is pinned");
        assert_eq!((answer[1] as u32, answer[2].to_bits()), (found_zoom as u32, slot), "box {lo:?}..{hi:?} at zoom {zoom}");
        let (lo_c, hi_c) = box_cells(*lo, *hi, found_zoom as u32);
        let expected = bound_cells_m(&blocks[&slot], lo_c, hi_c, found_zoom as u32, *detail);
        assert_eq!(answer[0].to_bits(), expected.to_bits(), "box {lo:?}..{hi:?} wanted {wanted}: GPU {} CPU {expected}", answer[0]);
        positive += (expected > 0.0) as usize;
    }
    // Not vacuous: the random planet has land under at least an eighth of the boxes (23% seen at least).
    assert!(positive > boxes.len() / 8, "only {positive} of {} boxes over land", boxes.len());
    // The height and cell slope the detail uses, at random points over the same resident set.
    let slope = make_pipeline(&gpu, &cache, "slope");
    let points: Vec<([u32; 2], u32)> =
        (0..512).map(|_| ([rng.random_range(0..=MAP_ONE), rng.random_range(0..=MAP_ONE)], rng.random_range(0..=14u32))).collect();
    let queries: Vec<[u32; 4]> = points.iter().flat_map(|&(p, z)| [[p[0], p[1], z, 0], [0; 4]]).collect();
    let answers = probe_frame(&gpu, &mut cache, &slope, &queries);
    for (answer, &(p, z)) in answers.iter().zip(&points) {
        let (slot, zoom) = cpu_find(cache.table(), cache.source(), cache.max_zoom(), p, z).expect("the root is pinned");
        assert_eq!(answer[3].to_bits(), slot);
        let layer = cache.atlas.read_layer(&gpu.device, &gpu.queue, slot);
        let (h, g) = cpu_height_slope(&layer, zoom, p);
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-3 + 1e-5 * b.abs();
        assert!(close(answer[0], h) && close(answer[1], g[0]) && close(answer[2], g[1]), "{p:?} zoom {zoom}: GPU {answer:?} CPU {h} {g:?}");
    }
}

#[test]
fn the_detail_below_the_data_equals_its_cpu_twin() {
    let mut rng = common::rng("the_detail_below_the_data_equals_its_cpu_twin");
    let gpu = common::gpu(10);
    let config = TileCacheConfig { tiles: 8, uploads_per_frame: 4, feedback_capacity: 256, loader_threads: 1 };
    let mut cache = TileCache::new(&gpu, config, Producer::Procedural { seed: 1 }).unwrap();
    let pipeline = make_pipeline(&gpu, &cache, "detail");
    let mut queries = Vec::new();
    let mut inputs = Vec::new();
    for i in 0..4096u32 {
        // The data's lattice level: zoom + 7 - N for data from zoom 0 to 16 in tiles up to 6 zooms
        // finer (N > 0: the octaves start above the finest zoom's cells).
        let data_level = rng.random_range(7..=23u32);
        // The data a fraction of an octave coarser than that lattice (real data's spacing).
        let first: f32 = if i % 3 == 0 { 0.0 } else { rng.random_range(0.0..1.0) };
        let map = if i % 4 == 0 {
            // A data sample: the detail is 0 there.
            let cell = 1u32 << (30 - data_level);
            [rng.random_range(1..MAP_ONE / cell) * cell, rng.random_range(1..MAP_ONE / cell) * cell]
        } else {
            [rng.random_range(0..=MAP_ONE), rng.random_range(0..=MAP_ONE)]
        };
        let slope_m: f32 = rng.random_range(0.0..30.0);
        let data_m: f32 = rng.random_range(-100.0..4000.0);
        let pixel_m: f32 = if rng.random_bool(0.3) { 0.0 } else { rng.random_range(0.01..50.0) };
        queries.push([map[0], map[1], slope_m.to_bits(), data_m.to_bits()]);
        queries.push([pixel_m.to_bits(), data_level, first.to_bits(), 0]);
        inputs.push((map, slope_m, data_m, pixel_m, (data_level, first), i % 4 == 0));
    }
    let answers = probe_frame(&gpu, &mut cache, &pipeline, &queries);
    let mut nonzero = 0;
    for (answer, &(map, slope_m, data_m, pixel_m, (data_level, first), sample)) in answers.iter().zip(&inputs) {
        let cpu = detail_m(map, slope_m, data_m, pixel_m, data_level, first);
        let tolerance = 1e-5 * amplitude_bound_m(slope_m, data_level, first) + 1e-6;
        assert!(
            (answer[0] - cpu).abs() <= tolerance,
            "{map:?} slope {slope_m} data {data_m} pixel {pixel_m} level {data_level} first {first}: GPU {} CPU {cpu}",
            answer[0]
        );
        if sample {
            assert_eq!((answer[0], cpu), (0.0, 0.0), "detail at a data sample {map:?}");
        }
        nonzero += (cpu != 0.0) as usize;
    }
    assert!(nonzero > inputs.len() / 3, "only {nonzero} points with detail");
}

/// The gradient of the detail (shared/globe_detail.wgsl globe_detail_gradient, the shading's)
/// equals `detail_gradient` on random map points, data levels, slopes and pixel sizes, within
/// 1e-5 of its scale per octave (DETAIL_GAIN x slope x 2^level metres per map unit) times the
/// octaves, and is 0 at sea on both.
#[test]
fn the_detail_gradient_equals_its_cpu_twin() {
    let mut rng = common::rng("the_detail_gradient_equals_its_cpu_twin");
    let gpu = common::gpu(10);
    let config = TileCacheConfig { tiles: 8, uploads_per_frame: 4, feedback_capacity: 256, loader_threads: 1 };
    let mut cache = TileCache::new(&gpu, config, Producer::Procedural { seed: 1 }).unwrap();
    let pipeline = make_pipeline(&gpu, &cache, "detail_gradient");
    let mut queries = Vec::new();
    let mut inputs = Vec::new();
    for i in 0..4096u32 {
        let data_level = rng.random_range(7..=23u32);
        let first: f32 = if i % 3 == 0 { 0.0 } else { rng.random_range(0.0..1.0) };
        let map = [rng.random_range(0..=MAP_ONE), rng.random_range(0..=MAP_ONE)];
        let slope_m: f32 = rng.random_range(0.0..30.0);
        let data_m: f32 = rng.random_range(-100.0..4000.0);
        let pixel_m: f32 = if rng.random_bool(0.2) { 0.0 } else { rng.random_range(0.01..50.0) };
        queries.push([map[0], map[1], slope_m.to_bits(), data_m.to_bits()]);
        queries.push([pixel_m.to_bits(), data_level, first.to_bits(), 0]);
        inputs.push((map, slope_m, data_m, pixel_m, (data_level, first)));
    }
    let answers = probe_frame(&gpu, &mut cache, &pipeline, &queries);
    let mut nonzero = 0;
    for (answer, &(map, slope_m, data_m, pixel_m, (data_level, first))) in answers.iter().zip(&inputs) {
        let cpu = detail_gradient(map, slope_m, data_m, pixel_m, data_level, first);
        let scale = DETAIL_GAIN * slope_m * (1u32 << data_level) as f32;
        let tolerance = 1e-5 * scale * (31 - data_level) as f32 + 1e-6;
        for k in 0..2 {
            assert!(
                (answer[k] - cpu[k]).abs() <= tolerance,
                "{map:?} slope {slope_m} data {data_m} pixel {pixel_m} level {data_level} first {first}: GPU {:?} CPU {cpu:?}",
                &answer[..2]
            );
        }
        if data_m <= 0.0 {
            assert_eq!((&answer[..2], cpu), (&[0.0f32, 0.0][..], [0.0; 2]), "a gradient at sea {map:?}");
        }
        nonzero += (cpu != [0.0; 2]) as usize;
    }
    assert!(nonzero > inputs.len() / 2, "only {nonzero} points with a gradient");
}

/// Land and sea from a sum of waves; its data's samples as far apart as the key's zoom says.
struct Waves;

impl TileProducer for Waves {
    fn source(&self) -> u8 {
        3
    }
    fn max_zoom(&self) -> u8 {
        12
    }
    fn produce(&self, key: TileKey) -> Result<Vec<f32>, bisector::terrain::TerrainError> {
        let h =
            |p: glam::DVec2| (900.0 * (40.0 * p.x).sin() * (33.0 * p.y).cos() + 300.0 * (900.0 * p.x + 700.0 * p.y).sin() - 200.0) as f32;
        Ok((0..TILE_SIDE)
            .flat_map(|j| (0..TILE_SIDE).map(move |i| h(bisector::leb::octahedral::wrap(texel_map_point(key, i, j)))))
            .collect())
    }
    fn native_cells(&self, key: TileKey) -> Result<f32, bisector::terrain::TerrainError> {
        Ok([1.0, 1.5, 2.0, 3.9, 4.0, 16.0, 100.0, 1000.0][key.zoom as usize % 8])
    }
}

/// Tiles finer than their data (native_cells > 1) smooth the bends below the data's spacing,
/// on the GPU as in the twin, bit for bit, and store the native shift N; the detail's bound over
/// them equals the twin's exactly, and the detail a vertex gets from the tile it finds (its
/// octaves from the data's spacing, zoom + 7 - N, read from the error layer) equals
/// `ground::tile_detail_m` within 1e-4 of its amplitude bound.
#[test]
fn tiles_finer_than_their_data_equal_the_twin() {
    let mut rng = common::rng("tiles_finer_than_their_data_equal_the_twin");
    let gpu = common::gpu(10);
    let config = TileCacheConfig { tiles: 32, uploads_per_frame: 4, feedback_capacity: 256, loader_threads: 1 };
    let producer: std::sync::Arc<dyn TileProducer> = std::sync::Arc::new(Waves);
    let mut cache = TileCache::new(&gpu, config, Producer::Cpu(producer.clone())).unwrap();
    let pipeline = make_pipeline(&gpu, &cache, "main");
    // Tiny boxes at one place at every zoom (so tiles of every shift get asked for), and random
    // boxes; frames until tiles of four shifts are resident (loads finish on loader threads).
    let centre = [rng.random_range(0..MAP_ONE - 1024), rng.random_range(0..MAP_ONE - 1024)];
    for _ in 0..200 {
        let mut queries: Vec<[u32; 4]> =
            (0..=12u32).flat_map(|z| [[centre[0], centre[1], centre[0] + 16, centre[1] + 16], [z, u32::MAX, 0, 0]]).collect();
        queries.extend((0..32).flat_map(|_| {
            let (lo, hi) = random_box(&mut rng);
            [[lo[0], lo[1], hi[0], hi[1]], [rng.random_range(0..=12u32), u32::MAX, 0, 0]]
        }));
        probe_frame(&gpu, &mut cache, &pipeline, &queries);
        let resident: std::collections::BTreeSet<u32> =
            cache.table().iter().map(|(key, _)| native_spacing(producer.native_cells(key).unwrap()).shift).collect();
        if resident.len() >= 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let mut shifts = std::collections::BTreeSet::new();
    for (key, slot) in cache.table().iter() {
        let layer = cache.atlas.read_layer(&gpu.device, &gpu.queue, slot);
        let spacing = native_spacing(producer.native_cells(key).unwrap());
        assert_eq!(cache.errors.read_layer(&gpu.device, &gpu.queue, slot), tile_error_texels(&layer, spacing), "{key:?} {spacing:?}");
        shifts.insert(spacing.shift);
    }
    assert!(shifts.len() >= 4, "shifts {shifts:?}");
    let spacing_of = |cache: &TileCache, slot: u32| -> NativeSpacing {
        let key = cache.table().iter().find(|&(_, s)| s == slot).expect("resident").0;
        native_spacing(producer.native_cells(key).unwrap())
    };
    // The error bound with the detail's term, over tiles of every shift.
    let boxes: Vec<([u32; 2], [u32; 2], u32)> = (0..512)
        .map(|i| {
            let (lo, hi) = if i % 2 == 0 {
                random_box(&mut rng)
            } else {
                let size = 1u32 << rng.random_range(4..20);
                (centre, [centre[0] + size, centre[1] + size])
            };
            (lo, hi, rng.random_range(0..=12u32))
        })
        .collect();
    let queries: Vec<[u32; 4]> = boxes.iter().flat_map(|&(lo, hi, wanted)| [[lo[0], lo[1], hi[0], hi[1]], [wanted, 1, 0, 0]]).collect();
    let answers = probe_frame(&gpu, &mut cache, &pipeline, &queries);
    let mut detailed_shifts = std::collections::BTreeSet::new();
    for (answer, &(lo, hi, wanted)) in answers.iter().zip(&boxes) {
        let zoom = error_zoom(lo, hi, wanted);
        let (slot, found_zoom) = cpu_find(cache.table(), cache.source(), cache.max_zoom(), lo, zoom).expect("the root is pinned");
        assert_eq!((answer[1] as u32, answer[2].to_bits()), (found_zoom as u32, slot), "box {lo:?}..{hi:?} at zoom {zoom}");
        let texels = cache.errors.read_layer(&gpu.device, &gpu.queue, slot);
        let (lo_c, hi_c) = box_cells(lo, hi, found_zoom as u32);
        let expected = bound_cells_m(&texels, lo_c, hi_c, found_zoom as u32, true);
        assert_eq!(answer[0].to_bits(), expected.to_bits(), "box {lo:?}..{hi:?} wanted {wanted}: GPU {} CPU {expected}", answer[0]);
        if expected > bound_cells_m(&texels, lo_c, hi_c, found_zoom as u32, false) {
            detailed_shifts.insert(spacing_of(&cache, slot).shift);
        }
    }
    assert!(detailed_shifts.iter().any(|&s| s > 0), "the detail's bound over tiles of shifts {detailed_shifts:?}");
    // The detail at vertices, from the tile each finds: every octave (pixel 0), or down to a pixel.
    let found = make_pipeline(&gpu, &cache, "found_detail");
    let points: Vec<([u32; 2], u32, f32)> = (0..1024)
        .map(|i| {
            let p = if i % 2 == 0 {
                [rng.random_range(1..MAP_ONE), rng.random_range(1..MAP_ONE)]
            } else {
                [centre[0] + rng.random_range(0..1 << 20), centre[1] + rng.random_range(0..1 << 20)]
            };
            (p, rng.random_range(0..=12u32), if rng.random_bool(0.5) { 0.0 } else { rng.random_range(1.0..5000.0) })
        })
        .collect();
    let queries: Vec<[u32; 4]> = points.iter().flat_map(|&(p, z, pixel_m)| [[p[0], p[1], z, pixel_m.to_bits()], [0; 4]]).collect();
    let answers = probe_frame(&gpu, &mut cache, &found, &queries);
    let mut shown = std::collections::BTreeSet::new();
    for (answer, &(p, z, pixel_m)) in answers.iter().zip(&points) {
        let (slot, zoom) = cpu_find(cache.table(), cache.source(), cache.max_zoom(), p, z).expect("the root is pinned");
        assert_eq!(answer[2].to_bits(), slot, "{p:?} wanted {z}");
        let spacing = spacing_of(&cache, slot);
        let shift = spacing.shift;
        let layer = cache.atlas.read_layer(&gpu.device, &gpu.queue, slot);
        let [data_m, detail] = tile_detail_m(&layer, zoom, spacing, p, pixel_m);
        let (level, first) = data_lattice(u32::from(zoom), spacing);
        assert_eq!(answer[3].floor() as u32, level, "{p:?} zoom {zoom} {spacing:?}");
        assert!((answer[3] - level as f32 - 0.5 * first).abs() < 1e-5, "{p:?} zoom {zoom} {spacing:?}: GPU {}", answer[3]);
        let tolerance = tile_detail_tolerance_m(&layer, zoom, spacing, p);
        assert!((answer[0] - data_m).abs() <= 1e-3 + 1e-5 * data_m.abs(), "{p:?}: GPU height {} CPU {data_m}", answer[0]);
        assert!((answer[1] - detail).abs() <= tolerance, "{p:?} zoom {zoom} shift {shift} pixel {pixel_m}: GPU {} CPU {detail}", answer[1]);
        if detail != 0.0 {
            shown.insert(shift);
        }
    }
    assert!(shown.iter().any(|&s| s > 0), "detail shown over tiles of shifts {shown:?}");
}
