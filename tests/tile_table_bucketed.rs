//! The kernel lab's bucketed tile table (src/kernels/tile_table_bucketed.rs) equals its CPU twin:
//! the twin against a `HashMap` under random edits with its invariants checked, then on the GPU
//! at load 0.5 and 0.9 on fresh random keys (the uploaded buffer byte for byte, every lookup,
//! ancestor walk and feedback set), before and after a round of evictions and inserts; and
//! `kernel tile-table` reports both layouts side by side. Sizes are small for lavapipe.

mod common;
#[path = "support/tile_tables.rs"]
mod tile_tables;

use std::collections::BTreeSet;

use bisector::globe::cache::tile_key::{TileKey, MAX_SOURCE, MAX_ZOOM};
use bisector::globe::cache::tile_table::{TileTableError, TILE_MISS};
use bisector::kernels::tile_table::{Pass, TableVariant, TileTableOptions};
use bisector::kernels::tile_table_bucketed::BucketedTileTable;
use bisector::kernels::tile_table_cuckoo::CuckooTable;
use rand::Rng;
use tile_tables::{kernel_gpu, random_key, KernelRig};

#[test]
fn cpu_twin_equals_a_hash_map_under_random_edits() {
    let mut rng = common::rng("cpu_twin_equals_a_hash_map_under_random_edits");
    for capacity_log2 in [0, 3, 4, 6, 10] {
        // Values count up (TILE_MISS, the only one refused, is never reached).
        let max_value = |_: &BucketedTileTable| TILE_MISS - 1;
        tile_tables::twin_equals_a_hash_map_under_random_edits(&mut rng, capacity_log2, random_key, max_value);
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
    let (mean, worst) = tile_tables::buckets_rewritten_at_load_nine_tenths::<BucketedTileTable>(&mut rng, random_key, 2000);
    eprintln!("load 0.9: an eviction + an insert rewrote {mean:.2} buckets on average, {worst} at most");
    assert!(mean <= 4.0, "an eviction + an insert rewrote {mean:.2} buckets on average");
}

/// The bucketed table's lookups: lo words first, whole buckets, and by subgroup where the device
/// can run it (on lavapipe, with subgroups of 8 lanes, it must).
fn lookup_passes(rig: &KernelRig) -> Vec<Pass> {
    let mut passes = vec![Pass::Lookup, Pass::LookupWholeBucket];
    match rig.kernel.subgroup_lookup(&rig.gpu) {
        Ok(()) => passes.push(Pass::LookupSubgroup),
        Err(why) => assert!(!rig.gpu.describe().contains("llvmpipe"), "{why}"),
    }
    passes
}

#[test]
fn gpu_bucketed_table_equals_cpu_twin_at_load_half_and_nine_tenths() {
    let mut rng = common::rng("gpu_bucketed_table_equals_cpu_twin_at_load_half_and_nine_tenths");
    // A device with subgroups where the adapter has them (lavapipe does: 8 lanes).
    let mut rig = KernelRig::new(wgpu::Features::SUBGROUP);
    let passes = lookup_passes(&rig);
    // Keys of one lo word (zoom and x) fill buckets whose 8 lo words all match: only the hi
    // word tells them apart.
    let cases = [(3, false), (4, false), (8, false), (12, false), (3, true), (6, true)];
    for (capacity_log2, same_lo) in cases {
        for load in [0.5, 0.9] {
            let mut table = BucketedTileTable::new(capacity_log2);
            let target = (load * table.capacity() as f64).round() as usize;
            let keys = tile_tables::distinct_keys(&mut rng, target, |rng| {
                if same_lo {
                    TileKey::new(rng.random_range(0..=MAX_SOURCE), 20, 777, rng.random_range(0..1 << 20)).unwrap()
                } else {
                    random_key(rng, 0..=MAX_ZOOM)
                }
            });
            for (i, &key) in keys.iter().enumerate() {
                table.insert(key, i as u32).unwrap();
            }
            let context = format!("2^{capacity_log2} slots at load {load}{}", if same_lo { ", one lo word" } else { "" });
            // Evict a third, insert as many new keys.
            let new_entry = |rng: &mut _, _: &[TileKey], inserted: usize| (random_key(rng, 0..=MAX_ZOOM), 1_000_000 + inserted as u32);
            rig.check_gpu_before_and_after_churn(&mut rng, &mut table, &keys, &passes, random_key, new_entry, &context);
        }
    }
}

#[test]
fn kernel_reports_both_layouts_side_by_side() {
    let mut rng = common::rng("kernel_reports_both_layouts_side_by_side");
    let gpu = kernel_gpu(wgpu::Features::SUBGROUP);
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
    let (stdout, report) = tile_tables::kernel_tile_table_json(&["--capacity-log2", "8", "--iterations", "1", "--variant", "bucketed"]);
    assert!(stdout.contains("bucketed cuckoo"));
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["variant"], "bucketed");
    assert_eq!(report["loads"].as_array().unwrap().len(), 0);
    assert_eq!(report["bucketed"].as_array().unwrap().len(), 2);
    assert!(report["side_by_side"][3]["bucketed_lookups_per_s"].as_f64().unwrap() > 0.0);
    assert!(report["side_by_side"][3]["bucketed_whole_lookups_per_s"].as_f64().unwrap() > 0.0);
    assert!(report["side_by_side"][3]["linear_lookups_per_s"].is_null());
    tile_tables::kernel_tile_table_refuses(&["--variant", "cuckoo"], "--variant");
}
