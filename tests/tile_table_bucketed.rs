//! The kernel lab's bucketed tile table (src/kernels/tile_table_bucketed.rs) equals its CPU twin:
//! the twin against a `HashMap` under random edits with its invariants checked, then on the GPU
//! at load 0.5 and 0.9 on fresh random keys (the uploaded buffer byte for byte, every lookup,
//! ancestor walk and feedback set), before and after a round of evictions and inserts; and
//! `kernel tile-table` reports both layouts side by side. Sizes are small for lavapipe.

mod common;

use std::collections::{BTreeSet, HashMap};

use bisector::globe::cache::tile_feedback::GpuTileFeedback;
use bisector::globe::cache::tile_key::{TileKey, MAX_SOURCE, MAX_ZOOM};
use bisector::globe::cache::tile_table::{TileTableError, TILE_MISS};
use bisector::gpu::readback::read_buffer;
use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::tile_table::{expected_feedback_of, Pass, TableVariant, TileTableKernel, TileTableOptions};
use bisector::kernels::tile_table_bucketed::{BucketedTileTable, GpuBucketedTileTable};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

/// A device with subgroups where the adapter has them (lavapipe does: 8 lanes).
fn kernel_gpu() -> Gpu {
    let mut requirements = Requirements::kernel(64 << 20, "tests".into());
    requirements.optional_features |= wgpu::Features::SUBGROUP;
    Gpu::headless(&requirements).unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

fn random_key(rng: &mut impl Rng, zooms: std::ops::RangeInclusive<u8>) -> TileKey {
    let zoom = rng.random_range(zooms);
    let side = 1u32 << zoom;
    TileKey::new(rng.random_range(0..=3), zoom, rng.random_range(0..side), rng.random_range(0..side)).unwrap()
}

/// The nearest present ancestor by the map's meaning, as (value, zoom).
fn map_ancestor(map: &HashMap<TileKey, u32>, key: TileKey) -> Option<(u32, u8)> {
    key.ancestors().find_map(|k| map.get(&k).map(|&v| (v, k.zoom)))
}

#[test]
fn cpu_twin_equals_a_hash_map_under_random_edits() {
    let mut rng = common::rng("cpu_twin_equals_a_hash_map_under_random_edits");
    for capacity_log2 in [0, 3, 4, 6, 10] {
        let mut table = BucketedTileTable::new(capacity_log2);
        let capacity = table.capacity() as usize;
        let mut map: HashMap<TileKey, u32> = HashMap::new();
        // A pool of 2x capacity keys, many of them ancestors of others.
        let mut pool: Vec<TileKey> = Vec::new();
        while pool.len() < 2 * capacity {
            let deep = random_key(&mut rng, 0..=MAX_ZOOM);
            pool.extend(deep.ancestors().filter(|_| rng.random_bool(0.3)).take(2 * capacity - pool.len()));
        }
        let mut value = 0u32;
        for load in [0.5, 0.9, 0.3, 0.95, 0.9] {
            let target = ((load * capacity as f64).round() as usize).max(1);
            // Removals of present and absent keys down to the target, inserts (some repeated,
            // with a new value) up to it.
            while map.len() > target {
                let key = *pool.choose(&mut rng).unwrap();
                assert_eq!(table.remove(key), map.remove(&key), "remove {key:?}");
            }
            while map.len() < target {
                let key = *pool.choose(&mut rng).unwrap();
                assert_eq!(table.insert(key, value).unwrap(), map.insert(key, value), "insert {key:?}");
                value += 1;
            }
            for _ in 0..capacity / 4 {
                let key = *pool.choose(&mut rng).unwrap();
                assert_eq!(table.remove(key), map.remove(&key), "remove {key:?}");
            }
            table.check_invariants().unwrap_or_else(|e| panic!("2^{capacity_log2}, load {load}: {e}"));
            assert_eq!(table.len() as usize, map.len());
            for &key in &pool {
                assert_eq!(table.lookup(key), map.get(&key).copied(), "lookup {key:?}");
                let child = key.child(rng.random_range(0..4)).unwrap_or(key);
                assert_eq!(table.lookup_ancestor(child), map_ancestor(&map, child), "ancestor of {child:?}");
            }
            let mut listed: Vec<(TileKey, u32)> = table.iter().collect();
            let mut expected: Vec<(TileKey, u32)> = map.iter().map(|(&k, &v)| (k, v)).collect();
            listed.sort_unstable();
            expected.sort_unstable();
            assert_eq!(listed, expected);
        }
    }
}

#[test]
fn a_full_table_refuses_an_insert_and_two_buckets_fill_completely() {
    let mut rng = common::rng("a_full_table_refuses_an_insert_and_two_buckets_fill_completely");
    // Two buckets: every key may go to either, so all 16 slots fill.
    for capacity_log2 in [0, 4] {
        let mut table = BucketedTileTable::new(capacity_log2);
        let mut keys = BTreeSet::new();
        while keys.len() < table.capacity() as usize {
            keys.insert(random_key(&mut rng, 6..=20));
        }
        for (i, &key) in keys.iter().enumerate() {
            assert_eq!(table.insert(key, i as u32), Ok(None));
        }
        table.check_invariants().unwrap();
        let extra = loop {
            let key = random_key(&mut rng, 6..=20);
            if !keys.contains(&key) {
                break key;
            }
        };
        assert_eq!(table.insert(extra, 0), Err(TileTableError::Full { capacity: table.capacity() }));
        assert_eq!(table.insert(*keys.first().unwrap(), TILE_MISS), Err(TileTableError::ReservedValue(TILE_MISS)));
        for (i, &key) in keys.iter().enumerate() {
            assert_eq!(table.lookup(key), Some(i as u32));
        }
        assert_eq!(table.lookup(extra), None);
    }
}

#[test]
fn an_eviction_and_an_insert_rewrite_few_buckets_at_load_nine_tenths() {
    // The cache's steady state: evict a key, insert a new one. A removal rewrites its bucket and
    // one per key pulled back home; an insert its bucket and those along its chain.
    let mut rng = common::rng("an_eviction_and_an_insert_rewrite_few_buckets_at_load_nine_tenths");
    let mut table = BucketedTileTable::new(14);
    let mut keys: Vec<TileKey> = Vec::new();
    while (keys.len() as f64) < 0.9 * table.capacity() as f64 {
        let key = random_key(&mut rng, 6..=24);
        if table.insert(key, keys.len() as u32).unwrap().is_none() {
            keys.push(key);
        }
    }
    table.take_dirty(0);
    let (mut rewritten, mut worst) = (0u32, 0u32);
    let edits = 2000;
    for i in 0..edits {
        let old = keys.swap_remove(rng.random_range(0..keys.len()));
        table.remove(old).unwrap();
        let new = loop {
            let key = random_key(&mut rng, 6..=24);
            if table.lookup(key).is_none() {
                break key;
            }
        };
        table.insert(new, i).unwrap();
        keys.push(new);
        let buckets = table.dirty_buckets();
        table.take_dirty(0);
        rewritten += buckets;
        worst = worst.max(buckets);
    }
    table.check_invariants().unwrap();
    let mean = rewritten as f64 / edits as f64;
    eprintln!("load 0.9: an eviction + an insert rewrote {mean:.2} buckets on average, {worst} at most");
    assert!(mean <= 4.0, "an eviction + an insert rewrote {mean:.2} buckets on average");
}

/// The uploaded buffer, lookups, ancestor walks and the walk's feedback all equal the twin's.
#[allow(clippy::too_many_arguments)]
fn check_gpu_equals_twin(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    table: &BucketedTileTable,
    gpu_table: &GpuBucketedTileTable,
    feedback: &GpuTileFeedback,
    queries: &[TileKey],
    context: &str,
) {
    let bytes = read_buffer(&gpu.device, &gpu.queue, &gpu_table.buffer, 0, gpu_table.buffer.size());
    assert!(bytes == GpuBucketedTileTable::bytes(table), "{context}: the GPU buffer differs from the twin's");
    let mut lookups =
        vec![("kernel.tile_table_bucketed.lookup", Pass::Lookup), ("kernel.tile_table_bucketed.lookup_whole", Pass::LookupWholeBucket)];
    match kernel.subgroup_lookup(gpu) {
        Ok(()) => lookups.push(("kernel.tile_table_bucketed.lookup_subgroup", Pass::LookupSubgroup)),
        // Lavapipe has subgroups of 8 lanes: the subgroup lookup must run there.
        Err(why) => assert!(!gpu.describe().contains("llvmpipe"), "{why}"),
    }
    for (label, pass) in lookups {
        let answers = kernel.run_bucketed(gpu, profiler, label, pass, gpu_table, feedback, queries, 1);
        for (key, &slot) in queries.iter().zip(&answers.slots) {
            assert_eq!(slot, table.lookup(*key).unwrap_or(TILE_MISS), "{context}: {label} {key:?}");
        }
    }
    let label = "kernel.tile_table_bucketed.lookup_ancestor";
    let answers = kernel.run_bucketed(gpu, profiler, label, Pass::LookupAncestor, gpu_table, feedback, queries, 1);
    for (key, found) in queries.iter().zip(&answers.ancestors) {
        let expected = table.lookup_ancestor(*key).map_or([TILE_MISS, 0], |(slot, zoom)| [slot, zoom as u32]);
        assert_eq!(*found, expected, "{context}: ancestor of {key:?}");
    }
    let (twin, missed) = expected_feedback_of(|k| table.lookup(k).is_some(), queries, feedback.capacity);
    assert!(answers.feedback.equals_twin(&twin, &missed), "{context}: feedback differs from the twin's");
}

#[test]
fn gpu_bucketed_table_equals_cpu_twin_at_load_half_and_nine_tenths() {
    let mut rng = common::rng("gpu_bucketed_table_equals_cpu_twin_at_load_half_and_nine_tenths");
    let gpu = kernel_gpu();
    let kernel = TileTableKernel::new(&gpu.device);
    let mut profiler = bisector::gpu::create_profiler(&gpu.device);
    let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, 1 << 12);
    // Keys of one lo word (zoom and x) fill buckets whose 8 lo words all match: only the hi
    // word tells them apart.
    let cases = [(3, false), (4, false), (8, false), (12, false), (3, true), (6, true)];
    for (capacity_log2, same_lo) in cases {
        for load in [0.5, 0.9] {
            let mut table = BucketedTileTable::new(capacity_log2);
            let target = (load * table.capacity() as f64).round() as usize;
            let mut keys = BTreeSet::new();
            while keys.len() < target {
                keys.insert(if same_lo {
                    TileKey::new(rng.random_range(0..=MAX_SOURCE), 20, 777, rng.random_range(0..1 << 20)).unwrap()
                } else {
                    random_key(&mut rng, 0..=MAX_ZOOM)
                });
            }
            let mut keys: Vec<TileKey> = keys.into_iter().collect();
            keys.shuffle(&mut rng);
            for (i, &key) in keys.iter().enumerate() {
                table.insert(key, i as u32).unwrap();
            }
            let gpu_table = GpuBucketedTileTable::new(&gpu.device, &mut table);
            // Hits, random keys (mostly misses), and descendants of present keys.
            let mut queries = keys.clone();
            queries.extend((0..keys.len().max(16)).map(|_| random_key(&mut rng, 0..=MAX_ZOOM)));
            queries.extend((0..keys.len().max(16)).map(|_| {
                let mut key = *keys.choose(&mut rng).unwrap();
                for _ in 0..rng.random_range(0..4) {
                    key = key.child(rng.random_range(0..4)).unwrap_or(key);
                }
                key
            }));
            queries.shuffle(&mut rng);
            let context = format!("2^{capacity_log2} slots at load {load}{}", if same_lo { ", one lo word" } else { "" });
            check_gpu_equals_twin(&gpu, &mut profiler, &kernel, &table, &gpu_table, &feedback, &queries, &context);

            // Evict a third, insert as many new keys, upload the dirty buckets.
            let evicted: Vec<TileKey> = keys.iter().copied().filter(|_| rng.random_bool(1.0 / 3.0)).collect();
            for &key in &evicted {
                assert!(table.remove(key).is_some());
            }
            let mut inserted = 0;
            while inserted < evicted.len() {
                let key = random_key(&mut rng, 0..=MAX_ZOOM);
                if table.lookup(key).is_none() {
                    table.insert(key, 1_000_000 + inserted as u32).unwrap();
                    queries.push(key);
                    inserted += 1;
                }
            }
            table.check_invariants().unwrap();
            gpu_table.sync(&gpu.queue, &mut table);
            let context = format!("{context}, after evicting {} keys", evicted.len());
            check_gpu_equals_twin(&gpu, &mut profiler, &kernel, &table, &gpu_table, &feedback, &queries, &context);
        }
    }
}

#[test]
fn kernel_reports_both_layouts_side_by_side() {
    let mut rng = common::rng("kernel_reports_both_layouts_side_by_side");
    let gpu = kernel_gpu();
    for (capacity_log2, variant) in [(1, TableVariant::Both), (10, TableVariant::Both), (12, TableVariant::Bucketed)] {
        let options = TileTableOptions { capacity_log2, feedback_capacity: 1 << 10, iterations: 1, seed: rng.random(), variant };
        let report = bisector::kernels::tile_table::run(&gpu, &options);
        assert!(report.verified, "seed {}: {}", options.seed, report.summary());
        assert_eq!(report.loads.len(), if variant == TableVariant::Both { 2 } else { 0 });
        assert_eq!(report.bucketed.iter().map(|l| l.load).collect::<Vec<_>>(), [0.5, 0.9]);
        for l in &report.bucketed {
            assert!(l.contents_verified && l.churn.verified && l.build_error.is_none());
            // Lavapipe has subgroups of 8 lanes: the subgroup lookup must run there.
            assert!(l.subgroup_skipped.is_none() || !report.adapter.contains("llvmpipe"), "{:?}", l.subgroup_skipped);
            let mut expected = vec!["hits", "misses", "hits, whole buckets", "misses, whole buckets"];
            if l.subgroup_skipped.is_none() {
                expected.extend(["hits, subgroup", "misses, subgroup"]);
            }
            expected.push("ancestor + feedback");
            assert_eq!(l.lookups.iter().map(|q| q.queries).collect::<Vec<_>>(), expected);
        }
        assert_eq!(report.side_by_side.len(), 4);
        for row in &report.side_by_side {
            assert!(row.bucketed_lookups_per_s.unwrap() > 0.0 && row.bucketed_whole_lookups_per_s.unwrap() > 0.0);
            assert_eq!(row.linear_lookups_per_s.is_some(), variant == TableVariant::Both);
        }
        assert!(report.summary().contains("side by side"), "{}", report.summary());
    }
}

#[test]
fn kernel_tile_table_variant_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tile.json");
    let bin = env!("CARGO_BIN_EXE_bisector");
    let out = std::process::Command::new(bin)
        .args(["kernel", "tile-table", "--capacity-log2", "8", "--iterations", "1", "--variant", "bucketed", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bucketed cuckoo"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["variant"], "bucketed");
    assert_eq!(report["loads"].as_array().unwrap().len(), 0);
    assert_eq!(report["bucketed"].as_array().unwrap().len(), 2);
    assert!(report["side_by_side"][3]["bucketed_lookups_per_s"].as_f64().unwrap() > 0.0);
    assert!(report["side_by_side"][3]["bucketed_whole_lookups_per_s"].as_f64().unwrap() > 0.0);
    assert!(report["side_by_side"][3]["linear_lookups_per_s"].is_null());

    let out = std::process::Command::new(bin).args(["kernel", "tile-table", "--variant", "cuckoo"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--variant") && stderr.lines().count() == 1, "{stderr}");
}
