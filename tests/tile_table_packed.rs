//! The kernel lab's packed tile table (src/kernels/tile_table_packed.rs) equals its CPU twin: the
//! key encoding and permutation invert exactly; the twin equals a `HashMap` under random edits
//! with its invariants checked; values that do not fit are refused; then on the GPU at load 0.5
//! and 0.9 on fresh random keys (the uploaded buffer byte for byte, both lookups, the ancestor
//! walk and its feedback set), before and after a round of evictions and inserts; and `kernel
//! tile-table --variant packed` reports it side by side. Sizes are small for lavapipe.

mod common;
#[path = "support/tile_tables.rs"]
mod tile_tables;

use std::collections::BTreeSet;

use bisector::globe::cache::tile_key::{TileKey, COORD_MASK, MAX_SOURCE, MAX_ZOOM};
use bisector::globe::cache::tile_table::TILE_MISS;
use bisector::kernels::tile_table::{Pass, TableVariant, TileTableOptions};
use bisector::kernels::tile_table_cuckoo::CuckooTable;
use bisector::kernels::tile_table_packed::{decode, encode, permute, unpermute, PackedTableError, PackedTileTable, KEY_BITS};
use rand::seq::IndexedRandom;
use rand::Rng;
// Keys of every source: the encoding's source field is covered whole.
use tile_tables::{kernel_gpu, random_key_of_any_source as random_key, KernelRig};

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
        // Values wrap past the largest the table holds.
        tile_tables::twin_equals_a_hash_map_under_random_edits(&mut rng, capacity_log2, random_key, PackedTileTable::max_value);
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
    let (mean, worst) = tile_tables::buckets_rewritten_at_load_nine_tenths::<PackedTileTable>(&mut rng, random_key, 2000);
    eprintln!("load 0.9: an eviction + an insert rewrote {mean:.2} buckets on average, {worst} at most");
    assert!(mean <= 8.0, "an eviction + an insert rewrote {mean:.2} buckets on average");
}

#[test]
fn gpu_packed_table_equals_cpu_twin_at_load_half_and_nine_tenths() {
    let mut rng = common::rng("gpu_packed_table_equals_cpu_twin_at_load_half_and_nine_tenths");
    let mut rig = KernelRig::new(wgpu::Features::empty());
    let passes = [Pass::Lookup, Pass::LookupBothBuckets, Pass::LookupFlat];
    // Sizes from one bucket to 2^10 buckets; zooms 0..=MAX_ZOOM cover the encoding's edge cases
    // (zoom 0, and 2 zoom + 1 = 55 bits at zoom 27).
    for capacity_log2 in [1, 3, 4, 8, 12] {
        for load in [0.5, 0.9] {
            let mut table = PackedTileTable::new(capacity_log2);
            let target = ((load * table.capacity() as f64).round() as usize).max(1);
            let keys = tile_tables::distinct_keys(&mut rng, target, |rng| random_key(rng, 0..=MAX_ZOOM));
            // Values across the whole value field, the largest included.
            let max = table.max_value();
            for (i, &key) in keys.iter().enumerate() {
                let value = if i == 0 { max } else { rng.random_range(0..=max) };
                table.insert(key, value).unwrap();
            }
            let context = format!("2^{capacity_log2} slots at load {load}");
            // Evict a third, insert as many new keys (some evicted ones back).
            let new_entry = |rng: &mut rand::rngs::StdRng, evicted: &[TileKey], _| {
                let key = if rng.random_bool(0.25) { *evicted.choose(rng).unwrap() } else { random_key(rng, 0..=MAX_ZOOM) };
                (key, rng.random_range(0..=max))
            };
            rig.check_gpu_before_and_after_churn(&mut rng, &mut table, &keys, &passes, random_key, new_entry, &context);
        }
    }
}

#[test]
fn kernel_reports_the_packed_table_side_by_side() {
    let mut rng = common::rng("kernel_reports_the_packed_table_side_by_side");
    let gpu = kernel_gpu(wgpu::Features::empty());
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
    let (stdout, report) = tile_tables::kernel_tile_table_json(&["--capacity-log2", "8", "--iterations", "1", "--variant", "packed"]);
    assert!(stdout.contains("packed cuckoo"));
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["variant"], "packed");
    assert_eq!(report["loads"].as_array().unwrap().len(), 0);
    assert_eq!(report["bucketed"].as_array().unwrap().len(), 0);
    assert_eq!(report["packed"].as_array().unwrap().len(), 2);
    assert!(report["side_by_side"][3]["packed_lookups_per_s"].as_f64().unwrap() > 0.0);
    assert!(report["side_by_side"][3]["bucketed_lookups_per_s"].is_null());
}
