//! The kernel lab's packed tile table (src/kernels/tile_table_packed.rs) equals its CPU twin: the
//! key encoding and permutation invert exactly; the twin equals a `HashMap` under random edits
//! with its invariants checked; values that do not fit are refused; then on the GPU at load 0.5
//! and 0.9 on fresh random keys (the uploaded buffer byte for byte, both lookups, the ancestor
//! walk and its feedback set), before and after a round of evictions and inserts; and `kernel
//! tile-table --variant packed` reports it side by side. Sizes are small for lavapipe.

mod common;

use std::collections::{BTreeSet, HashMap};

use bisector::globe::cache::tile_feedback::GpuTileFeedback;
use bisector::globe::cache::tile_key::{TileKey, COORD_MASK, MAX_SOURCE, MAX_ZOOM};
use bisector::globe::cache::tile_table::TILE_MISS;
use bisector::gpu::readback::read_buffer;
use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::tile_table::{expected_feedback_of, Pass, TableVariant, TileTableKernel, TileTableOptions};
use bisector::kernels::tile_table_packed::{
    decode, encode, permute, unpermute, GpuPackedTileTable, PackedTableError, PackedTileTable, KEY_BITS,
};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

fn kernel_gpu() -> Gpu {
    Gpu::headless(&Requirements::kernel(64 << 20, "tests".into()))
        .unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

fn random_key(rng: &mut impl Rng, zooms: std::ops::RangeInclusive<u8>) -> TileKey {
    let zoom = rng.random_range(zooms);
    let side = 1u32 << zoom;
    TileKey::new(rng.random_range(0..=MAX_SOURCE), zoom, rng.random_range(0..side), rng.random_range(0..side)).unwrap()
}

/// The nearest present ancestor by the map's meaning, as (value, zoom).
fn map_ancestor(map: &HashMap<TileKey, u32>, key: TileKey) -> Option<(u32, u8)> {
    key.ancestors().find_map(|k| map.get(&k).map(|&v| (v, k.zoom)))
}

#[test]
fn packed_key_encoding_and_permutation_invert_exactly() {
    let mut rng = common::rng("packed_key_encoding_and_permutation_invert_exactly");
    let extremes = [TileKey::new(0, 0, 0, 0).unwrap(), TileKey::new(MAX_SOURCE, MAX_ZOOM, COORD_MASK, COORD_MASK).unwrap()];
    let (mut keys, mut encoded) = (BTreeSet::new(), BTreeSet::new());
    for key in extremes.into_iter().chain((0..20_000).map(|_| random_key(&mut rng, 0..=MAX_ZOOM))) {
        let e = encode(key);
        assert!(e < 1 << KEY_BITS, "{key:?}: {e:#x}");
        assert_eq!(decode(e), Some(key));
        let h = permute(e);
        assert!(h < 1 << KEY_BITS);
        assert_eq!(unpermute(h), e);
        keys.insert(key);
        encoded.insert(e);
    }
    // Distinct keys, distinct codes; codes of no key decode to None.
    assert_eq!(encoded.len(), keys.len());
    for e in [0, 0b10, 31u64 << 55 | 1] {
        assert_eq!(decode(e), None, "{e:#x}");
    }
    // A bijection: 2^12 consecutive values map to distinct values.
    let images: BTreeSet<u64> = (0..1u64 << 12).map(|e| permute(e << 20 | 12345)).collect();
    assert_eq!(images.len(), 1 << 12);
}

#[test]
fn packed_twin_equals_a_hash_map_under_random_edits() {
    let mut rng = common::rng("packed_twin_equals_a_hash_map_under_random_edits");
    for capacity_log2 in [0, 2, 3, 4, 6, 10] {
        let mut table = PackedTileTable::new(capacity_log2);
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
            while map.len() > target {
                let key = *pool.choose(&mut rng).unwrap();
                assert_eq!(table.remove(key), map.remove(&key), "remove {key:?}");
            }
            while map.len() < target {
                let key = *pool.choose(&mut rng).unwrap();
                assert_eq!(table.insert(key, value).unwrap(), map.insert(key, value), "insert {key:?}");
                value = (value + 1) % (table.max_value() + 1);
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
fn packed_table_refuses_values_that_do_not_fit_and_inserts_when_full() {
    let mut rng = common::rng("packed_table_refuses_values_that_do_not_fit_and_inserts_when_full");
    for capacity_log2 in [0, 3, 24] {
        let table = PackedTileTable::new(capacity_log2);
        // At least twice the slots: any atlas of a table at load <= 1 fits.
        assert!(table.max_value() as u64 >= 2 * table.capacity() as u64 - 2, "2^{capacity_log2}");
        assert_eq!(table.max_value() as u64, (1u64 << table.value_bits()) - 2);
    }
    // Two buckets: every key may go to either, so all 8 slots fill.
    for capacity_log2 in [2, 3] {
        let mut table = PackedTileTable::new(capacity_log2);
        let max = table.max_value();
        let key = random_key(&mut rng, 0..=MAX_ZOOM);
        let too_large = PackedTableError::ValueTooLarge { value: max + 1, max, bits: table.value_bits(), capacity: table.capacity() };
        assert_eq!(table.insert(key, max + 1), Err(too_large));
        assert_eq!(table.insert(key, TILE_MISS).unwrap_err().to_string().lines().count(), 1);
        let mut keys = BTreeSet::new();
        while keys.len() < table.capacity() as usize {
            keys.insert(random_key(&mut rng, 0..=MAX_ZOOM));
        }
        for (i, &key) in keys.iter().enumerate() {
            assert_eq!(table.insert(key, max - i as u32), Ok(None));
        }
        table.check_invariants().unwrap();
        let extra = loop {
            let key = random_key(&mut rng, 0..=MAX_ZOOM);
            if !keys.contains(&key) {
                break key;
            }
        };
        assert_eq!(table.insert(extra, 0), Err(PackedTableError::Full { capacity: table.capacity() }));
        for (i, &key) in keys.iter().enumerate() {
            assert_eq!(table.lookup(key), Some(max - i as u32));
        }
        assert_eq!(table.lookup(extra), None);
    }
}

#[test]
fn packed_eviction_and_insert_rewrite_few_buckets_at_load_nine_tenths() {
    let mut rng = common::rng("packed_eviction_and_insert_rewrite_few_buckets_at_load_nine_tenths");
    let mut table = PackedTileTable::new(14);
    let mut keys: Vec<TileKey> = Vec::new();
    while (keys.len() as f64) < 0.9 * table.capacity() as f64 {
        let key = random_key(&mut rng, 6..=24);
        if table.insert(key, keys.len() as u32).unwrap().is_none() {
            keys.push(key);
        }
    }
    table.take_dirty(0);
    let (mut rewritten, edits) = (0u32, 2000);
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
        rewritten += table.dirty_buckets();
        table.take_dirty(0);
    }
    table.check_invariants().unwrap();
    let mean = rewritten as f64 / edits as f64;
    eprintln!("load 0.9: an eviction + an insert rewrote {mean:.2} buckets on average");
    assert!(mean <= 8.0, "an eviction + an insert rewrote {mean:.2} buckets on average");
}

/// The uploaded buffer, both lookups, ancestor walks and the walk's feedback all equal the twin's.
#[allow(clippy::too_many_arguments)]
fn check_gpu_equals_twin(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    table: &PackedTileTable,
    gpu_table: &GpuPackedTileTable,
    feedback: &GpuTileFeedback,
    queries: &[TileKey],
    context: &str,
) {
    let bytes = read_buffer(&gpu.device, &gpu.queue, &gpu_table.buffer, 0, gpu_table.buffer.size());
    assert!(bytes == GpuPackedTileTable::bytes(table), "{context}: the GPU buffer differs from the twin's");
    for (label, pass) in [
        ("kernel.tile_table_packed.lookup", Pass::Lookup),
        ("kernel.tile_table_packed.lookup_both", Pass::LookupBothBuckets),
        ("kernel.tile_table_packed.lookup_flat", Pass::LookupFlat),
    ] {
        let answers = kernel.run_packed(gpu, profiler, label, pass, gpu_table, feedback, queries, 1);
        for (key, &slot) in queries.iter().zip(&answers.slots) {
            assert_eq!(slot, table.lookup(*key).unwrap_or(TILE_MISS), "{context}: {label} {key:?}");
        }
    }
    let label = "kernel.tile_table_packed.lookup_ancestor";
    let answers = kernel.run_packed(gpu, profiler, label, Pass::LookupAncestor, gpu_table, feedback, queries, 1);
    for (key, found) in queries.iter().zip(&answers.ancestors) {
        let expected = table.lookup_ancestor(*key).map_or([TILE_MISS, 0], |(slot, zoom)| [slot, zoom as u32]);
        assert_eq!(*found, expected, "{context}: ancestor of {key:?}");
    }
    let (twin, missed) = expected_feedback_of(|k| table.lookup(k).is_some(), queries, feedback.capacity);
    assert!(answers.feedback.equals_twin(&twin, &missed), "{context}: feedback differs from the twin's");
}

#[test]
fn gpu_packed_table_equals_cpu_twin_at_load_half_and_nine_tenths() {
    let mut rng = common::rng("gpu_packed_table_equals_cpu_twin_at_load_half_and_nine_tenths");
    let gpu = kernel_gpu();
    let kernel = TileTableKernel::new(&gpu.device);
    let mut profiler = bisector::gpu::create_profiler(&gpu.device);
    let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, 1 << 12);
    // Sizes from one bucket to 2^10 buckets; zooms 0..=MAX_ZOOM cover the encoding's edge cases
    // (zoom 0, and 2 zoom + 1 = 55 bits at zoom 27).
    for capacity_log2 in [1, 3, 4, 8, 12] {
        for load in [0.5, 0.9] {
            let mut table = PackedTileTable::new(capacity_log2);
            let target = ((load * table.capacity() as f64).round() as usize).max(1);
            let mut keys = BTreeSet::new();
            while keys.len() < target {
                keys.insert(random_key(&mut rng, 0..=MAX_ZOOM));
            }
            let mut keys: Vec<TileKey> = keys.into_iter().collect();
            keys.shuffle(&mut rng);
            // Values across the whole value field, the largest included.
            let max = table.max_value();
            for (i, &key) in keys.iter().enumerate() {
                let value = if i == 0 { max } else { rng.random_range(0..=max) };
                table.insert(key, value).unwrap();
            }
            let gpu_table = GpuPackedTileTable::new(&gpu.device, &mut table);
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
            let context = format!("2^{capacity_log2} slots at load {load}");
            check_gpu_equals_twin(&gpu, &mut profiler, &kernel, &table, &gpu_table, &feedback, &queries, &context);

            // Evict a third, insert as many new keys (some evicted ones back), upload the dirty buckets.
            let evicted: Vec<TileKey> = keys.iter().copied().filter(|_| rng.random_bool(1.0 / 3.0)).collect();
            for &key in &evicted {
                assert!(table.remove(key).is_some());
            }
            let mut inserted = 0;
            while inserted < evicted.len() {
                let key = if rng.random_bool(0.25) { *evicted.choose(&mut rng).unwrap() } else { random_key(&mut rng, 0..=MAX_ZOOM) };
                if table.lookup(key).is_none() {
                    table.insert(key, rng.random_range(0..=max)).unwrap();
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
fn kernel_reports_the_packed_table_side_by_side() {
    let mut rng = common::rng("kernel_reports_the_packed_table_side_by_side");
    let gpu = kernel_gpu();
    for (capacity_log2, variant) in [(1, TableVariant::All), (10, TableVariant::All), (12, TableVariant::Packed)] {
        let options = TileTableOptions { capacity_log2, feedback_capacity: 1 << 10, iterations: 1, seed: rng.random(), variant };
        let report = bisector::kernels::tile_table::run(&gpu, &options);
        assert!(report.verified, "seed {}: {}", options.seed, report.summary());
        let all = variant == TableVariant::All;
        assert_eq!((report.loads.len(), report.bucketed.len()), if all { (2, 2) } else { (0, 0) });
        assert_eq!(report.packed.iter().map(|l| l.load).collect::<Vec<_>>(), [0.5, 0.9]);
        for l in &report.packed {
            assert!(l.contents_verified && l.churn.verified && l.build_error.is_none());
            let names: Vec<&str> = l.lookups.iter().map(|q| q.queries).collect();
            let expected = [
                "hits",
                "misses",
                "hits, both buckets",
                "misses, both buckets",
                "hits, no branch",
                "misses, no branch",
                "ancestor + feedback",
            ];
            assert_eq!(names, expected);
        }
        assert_eq!(report.side_by_side.len(), 4);
        for row in &report.side_by_side {
            assert!(row.packed_lookups_per_s.unwrap() > 0.0 && row.packed_both_lookups_per_s.unwrap() > 0.0);
            assert!(row.packed_flat_lookups_per_s.unwrap() > 0.0);
            assert_eq!(row.linear_lookups_per_s.is_some(), all);
            assert_eq!(row.bucketed_lookups_per_s.is_some(), all);
        }
        assert!(report.summary().contains("packed cuckoo"), "{}", report.summary());
    }
}

#[test]
fn kernel_tile_table_packed_variant_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tile.json");
    let bin = env!("CARGO_BIN_EXE_bisector");
    let out = std::process::Command::new(bin)
        .args(["kernel", "tile-table", "--capacity-log2", "8", "--iterations", "1", "--variant", "packed", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("packed cuckoo"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["variant"], "packed");
    assert_eq!(report["loads"].as_array().unwrap().len(), 0);
    assert_eq!(report["bucketed"].as_array().unwrap().len(), 0);
    assert_eq!(report["packed"].as_array().unwrap().len(), 2);
    assert!(report["side_by_side"][3]["packed_lookups_per_s"].as_f64().unwrap() > 0.0);
    assert!(report["side_by_side"][3]["bucketed_lookups_per_s"].is_null());
}
