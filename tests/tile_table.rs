//! The tile cache's GPU hash tables equal their CPU twins: the tile table (mirrored from the CPU
//! by dirty-slot uploads) under inserts, duplicate inserts and removals up to load 0.9, slot for
//! slot and lookup for lookup (plain and ancestor walk), and the feedback set filled by GPU
//! threads with many duplicates, below, at and above its capacity. Fresh random keys every run.

mod common;
#[path = "support/tile_tables.rs"]
mod tile_tables;

use std::collections::BTreeSet;

use bisector::globe::cache::tile_feedback::{GpuTileFeedback, TileFeedbackSet};
use bisector::globe::cache::tile_key::{TileKey, MAX_SOURCE, MAX_ZOOM};
use bisector::globe::cache::tile_table::{GpuTileTable, TileSlot, TileTable, TileTableHeader, TILE_MISS};
use bisector::gpu::readback::read_buffer;
use bisector::gpu::readback::ReadbackRing;
use bisector::gpu::Gpu;
use bisector::kernels::tile_table::{expected_ancestor, expected_feedback, Pass, TileTableKernel};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;
use tile_tables::random_key;

fn kernel_gpu() -> Gpu {
    tile_tables::kernel_gpu(wgpu::Features::empty())
}

/// Checks every GPU answer against the twin: the buffer itself, lookups and the ancestor walk
/// with its feedback. `removed` keys and unrelated keys are among the queries.
#[allow(clippy::too_many_arguments)]
fn check_gpu_equals_twin(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    table: &TileTable,
    gpu_table: &GpuTileTable,
    feedback: &GpuTileFeedback,
    queries: &[TileKey],
    context: &str,
) {
    let bytes = read_buffer(&gpu.device, &gpu.queue, &gpu_table.buffer, 0, gpu_table.buffer.size());
    let (header, slots) = bytes.split_at(std::mem::size_of::<TileTableHeader>());
    assert_eq!(bytemuck::pod_read_unaligned::<TileTableHeader>(header), table.header(), "{context}: header");
    assert!(bytemuck::cast_slice::<u8, TileSlot>(slots) == table.slots(), "{context}: the GPU slots differ from the twin's");

    let answers = kernel.run(gpu, profiler, "kernel.tile_table.lookup", Pass::Lookup, gpu_table, feedback, queries, 1);
    for (key, &slot) in queries.iter().zip(&answers.slots) {
        assert_eq!(slot, table.lookup(*key).unwrap_or(TILE_MISS), "{context}: lookup {key:?}");
    }
    let answers = kernel.run(gpu, profiler, "kernel.tile_table.lookup_ancestor", Pass::LookupAncestor, gpu_table, feedback, queries, 1);
    for (key, found) in queries.iter().zip(&answers.ancestors) {
        assert_eq!(*found, expected_ancestor(table, *key), "{context}: ancestor of {key:?}");
    }
    let (twin, missed) = expected_feedback(table, queries, feedback.capacity);
    assert!(
        answers.feedback.equals_twin(&twin, &missed),
        "{context}: feedback {:?} vs twin {} keys, overflow {}",
        (answers.feedback.count, answers.feedback.overflow, answers.feedback.bad_slots),
        twin.keys.len(),
        twin.overflow
    );
}

#[test]
fn gpu_tile_table_equals_cpu_twin_under_inserts_and_removals() {
    let mut rng = common::rng("gpu_tile_table_equals_cpu_twin_under_inserts_and_removals");
    let gpu = kernel_gpu();
    let kernel = TileTableKernel::new(&gpu.device);
    let mut profiler = bisector::gpu::create_profiler(&gpu.device);
    let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, 1 << 12);
    for capacity_log2 in [0, 3, 8, 12] {
        let mut table = TileTable::new(capacity_log2);
        let gpu_table = GpuTileTable::new(&gpu.device, &mut table);
        let capacity = table.capacity() as usize;
        // A pool of 2x capacity keys, many of them ancestors of others, so inserts repeat keys
        // and ancestor walks stop at every level.
        let mut pool: Vec<TileKey> = Vec::new();
        while pool.len() < 2 * capacity {
            let deep = random_key(&mut rng, 0..=MAX_ZOOM);
            pool.extend(deep.ancestors().filter(|_| rng.random_bool(0.2)).take(2 * capacity - pool.len()));
        }
        let mut removed: BTreeSet<TileKey> = BTreeSet::new();
        let mut value = 0u32;
        for (round, load) in [0.5, 0.9, 0.7, 0.9].into_iter().enumerate() {
            let target = ((load * capacity as f64).round() as u32).max(1);
            // Insert (some keys again, with a new value) until the load is reached...
            while table.len() < target {
                let key = *pool.choose(&mut rng).unwrap();
                table.insert(key, value).unwrap();
                removed.remove(&key);
                value += 1;
            }
            // ...then remove a fifth of the keys, and try some absent ones.
            let present: Vec<TileKey> = table.iter().map(|(k, _)| k).collect();
            for key in present.iter().filter(|_| rng.random_bool(0.2)) {
                assert!(table.remove(*key).is_some());
                removed.insert(*key);
            }
            for _ in 0..4 {
                // A random key may be present (zoom 0 has 4 keys), and may be drawn twice.
                let key = random_key(&mut rng, 0..=MAX_ZOOM);
                let expected = present.contains(&key) && !removed.contains(&key);
                assert_eq!(table.remove(key).is_some(), expected);
                if expected {
                    removed.insert(key);
                }
            }
            // ...and refill to the load with duplicates of present keys mixed in.
            while table.len() < target {
                let key = *pool.choose(&mut rng).unwrap();
                table.insert(key, value).unwrap();
                removed.remove(&key);
                value += 1;
            }
            table.check_invariants().unwrap();
            gpu_table.sync(&gpu.queue, &mut table);
            let mut queries: Vec<TileKey> = pool.clone();
            queries.extend(removed.iter().copied());
            queries.extend((0..capacity.max(16)).map(|_| random_key(&mut rng, 0..=MAX_ZOOM)));
            queries.extend((0..capacity.max(16)).map(|_| {
                let mut key = *pool.choose(&mut rng).unwrap();
                for _ in 0..rng.random_range(0..4) {
                    key = key.child(rng.random_range(0..4)).unwrap_or(key);
                }
                key
            }));
            queries.shuffle(&mut rng);
            let context =
                format!("2^{capacity_log2} slots, round {round} at load {load} ({} keys, max probe {})", table.len(), table.max_probe());
            check_gpu_equals_twin(&gpu, &mut profiler, &kernel, &table, &gpu_table, &feedback, &queries, &context);
        }
    }
}

#[test]
fn gpu_tile_table_equals_cpu_twin_at_load_half_and_nine_tenths() {
    // The kernel's own workload (distinct random keys) through its own verification.
    let mut rng = common::rng("gpu_tile_table_equals_cpu_twin_at_load_half_and_nine_tenths");
    let gpu = kernel_gpu();
    for capacity_log2 in [1, 10, 14] {
        let options = bisector::kernels::tile_table::TileTableOptions {
            capacity_log2,
            feedback_capacity: 1 << 10,
            iterations: 1,
            seed: rng.random(),
            // The bucketed table: tests/tile_table_bucketed.rs.
            variant: bisector::kernels::tile_table::TableVariant::Linear,
        };
        let report = bisector::kernels::tile_table::run(&gpu, &options);
        assert!(report.verified, "seed {}: {}", options.seed, report.summary());
        assert_eq!(
            report.loads.iter().map(|l| l.keys).collect::<Vec<_>>(),
            [(1u32 << capacity_log2) / 2, ((0.9 * (1u32 << capacity_log2) as f64).round() as u32)]
        );
    }
}

#[test]
fn gpu_feedback_set_equals_cpu_twin() {
    let mut rng = common::rng("gpu_feedback_set_equals_cpu_twin");
    let gpu = kernel_gpu();
    let kernel = TileTableKernel::new(&gpu.device);
    let mut profiler = bisector::gpu::create_profiler(&gpu.device);
    let mut empty = TileTable::new(0);
    let table = GpuTileTable::new(&gpu.device, &mut empty);
    for capacity in [1u32, 16, 256] {
        let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, capacity);
        let c = capacity as usize;
        for distinct in [0, 1, c / 2, c - 1, c, c + 1, 3 * c + 5] {
            for same_lo in [false, true] {
                // Same lo word (zoom and x) for all keys: every slot claim races on lo and only
                // the hi word tells the keys apart.
                let mut keys: BTreeSet<TileKey> = BTreeSet::new();
                while keys.len() < distinct {
                    let key = if same_lo {
                        TileKey::new(rng.random_range(0..=MAX_SOURCE), 20, 777, rng.random_range(0..1 << 20)).unwrap()
                    } else {
                        random_key(&mut rng, 0..=MAX_ZOOM)
                    };
                    keys.insert(key);
                }
                // Each key 1 to 40 times, in random order.
                let mut inserts: Vec<TileKey> = keys.iter().flat_map(|&k| std::iter::repeat_n(k, rng.random_range(1..=40))).collect();
                inserts.shuffle(&mut rng);
                let mut twin = TileFeedbackSet::new(capacity);
                for &k in &inserts {
                    twin.insert(k);
                }
                assert_eq!(twin.overflow, distinct > c);
                // Two runs: the second starts from the cleared set.
                let answers = kernel.run(
                    &gpu,
                    &mut profiler,
                    "kernel.tile_table.feedback_insert",
                    Pass::FeedbackInsert,
                    &table,
                    &feedback,
                    &inserts,
                    1,
                );
                let read = &answers.feedback;
                assert!(read.equals_twin(&twin, &keys), "capacity {capacity}, {distinct} distinct keys (same lo: {same_lo}), {} inserts: GPU {} keys, count {}, overflow {}, bad {}", inserts.len(), read.keys.len(), read.count, read.overflow, read.bad_slots);
                if !twin.overflow {
                    assert_eq!(read.as_set(capacity), twin);
                }
            }
        }
    }
}

/// The read-back ring the frame loops use (`gpu::readback::ReadbackRing`), on the feedback set:
/// each frame's set comes back equal to what the kernel inserted, through non-blocking polls, and
/// nothing is recorded while its three staging buffers are in flight.
#[test]
fn the_readback_ring_returns_each_frames_set_without_blocking() {
    let mut rng = common::rng("the_readback_ring_returns_each_frames_set_without_blocking");
    let gpu = kernel_gpu();
    let kernel = TileTableKernel::new(&gpu.device);
    let mut profiler = bisector::gpu::create_profiler(&gpu.device);
    let table = GpuTileTable::new(&gpu.device, &mut TileTable::new(0));
    let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, 64);
    let mut ring = ReadbackRing::new("test.feedback_readback", 3);
    let bytes = feedback.buffer.size();
    let record = |ring: &mut ReadbackRing<u64>, encoder: &mut wgpu::CommandEncoder, frame: u64| {
        ring.record(&gpu.device, encoder, bytes, frame, |encoder, staging| {
            encoder.copy_buffer_to_buffer(&feedback.buffer, 0, staging, 0, bytes)
        })
    };
    let mut expected = Vec::new();
    let mut received = Vec::new();
    // Frames 0..3 fill the three staging buffers; frame 3 finds none free.
    for frame in 0..4u64 {
        let keys: Vec<TileKey> = (0..rng.random_range(0..100)).map(|_| random_key(&mut rng, 0..=MAX_ZOOM)).collect();
        let answers =
            kernel.run(&gpu, &mut profiler, "kernel.tile_table.feedback_insert", Pass::FeedbackInsert, &table, &feedback, &keys, 1);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let slot = record(&mut ring, &mut encoder, frame);
        gpu.queue.submit([encoder.finish()]);
        assert_eq!(slot.is_some(), frame < 3, "frame {frame}");
        if let Some(slot) = slot {
            ring.map(slot);
            expected.push((frame, answers.feedback));
        }
    }
    for _ in 0..1000 {
        gpu.device.poll(wgpu::PollType::Poll).unwrap();
        received.extend(ring.collect(|&frame, bytes| (frame, GpuTileFeedback::decode(bytemuck::cast_slice(bytes)))));
        if received.len() == expected.len() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    received.sort_by_key(|(frame, _)| *frame);
    assert_eq!(received, expected);
    assert!(!ring.failed());
    // Slots are free again.
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    assert!(record(&mut ring, &mut encoder, 4).is_some());
}

#[test]
fn kernel_tile_table_runs_from_the_cli_and_writes_json() {
    let (_, report) = tile_tables::kernel_tile_table_json(&["--capacity-log2", "10", "--feedback-capacity", "64", "--iterations", "2"]);
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["capacity"], 1024);
    let loads = report["loads"].as_array().unwrap();
    assert_eq!(loads.iter().map(|l| l["load"].as_f64().unwrap()).collect::<Vec<_>>(), [0.5, 0.9]);
    for l in loads {
        assert_eq!(l["lookups"].as_array().unwrap().len(), 3);
        assert!(l["lookups"][0]["lookups_per_s"].as_f64().unwrap() > 0.0);
        // 64 feedback slots cannot hold the ancestor walk's misses.
        assert_eq!(l["feedback"]["overflow"], true);
    }
    for (args, expected) in [
        (["--capacity-log2", "27"], "--capacity-log2 27"),
        (["--feedback-capacity", "100"], "--feedback-capacity 100"),
        (["--iterations", "0"], "--iterations 0"),
    ] {
        tile_tables::kernel_tile_table_refuses(&args, expected);
    }
}
