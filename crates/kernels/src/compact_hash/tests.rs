//! Unit tests of the CPU twins, the tree shapes and the checks.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use super::check::sorted_nodes;
use super::*;

fn options(length: u32, bucket_size: u32, table_log2: u32, distribution: VectorDistribution, count: u32) -> CompactHashOptions {
    CompactHashOptions { length, bucket_size, table_log2, vectors: Some(count), distribution, ..Default::default() }
}

/// The nodes of `vector`'s tree by meaning (a child node by its own content, not by a slot
/// reference), level by level as documented: the reference model of `tree_find_or_put`.
fn model_nodes(vector: &[u32], ids: &mut HashMap<u128, u64>) {
    if vector.len() == 1 {
        let next = ids.len() as u64;
        ids.entry(vector[0] as u128).or_insert(next);
        return;
    }
    // An item is a word (below 2^32) or 2^40 + the id of a node.
    let mut items: Vec<u64> = vector.iter().map(|&w| w as u64).collect();
    while items.len() > 1 {
        let mut up = Vec::new();
        for pair in items.chunks(2) {
            if let [a, b] = pair {
                let next = ids.len() as u64;
                up.push(1 << 40 | *ids.entry((*a as u128) << 64 | *b as u128).or_insert(next));
            } else {
                up.push(pair[0]);
            }
        }
        items = up;
    }
}

#[test]
fn cpu_table_stores_each_node_once_and_reports_first_occurrences_new() {
    for length in 1..=8usize {
        for distribution in [VectorDistribution::Uniform, VectorDistribution::Shared, VectorDistribution::Duplicates] {
            let words = make_vectors(length, 3000, distribution, 7 + length as u64);
            let vectors: Vec<&[u32]> = words.chunks(length).collect();
            let table = CompactTable::new(Geometry { slot_log2: 15, bucket_log2: 2 });
            let mut seen = HashSet::new();
            let mut model = HashMap::new();
            for (i, v) in vectors.iter().enumerate() {
                let result = table.find_or_put(v);
                assert_ne!(result, FAILED);
                assert_eq!(result & NEW_BIT != 0, seen.insert(*v), "{v:?}");
                model_nodes(v, &mut model);
                // Every root decodes back to its vector.
                if i % 500 == 0 {
                    let copy = table.snapshot();
                    assert_eq!(decode(result & REFERENCE_MASK, length, |r| copy.node(r)).as_deref(), Some(*v));
                }
            }
            let copy = table.snapshot();
            let (nodes, zero) = (sorted_nodes(&copy.nodes), copy.zero);
            assert!(nodes.windows(2).all(|w| w[0] < w[1]));
            // Equal, unless a node of slot references happens to equal a node of two words
            // (then both are one 64-bit node, stored once: likely only with small words).
            let stored = nodes.len() + zero as usize;
            if distribution == VectorDistribution::Shared {
                assert!(stored <= model.len() && stored > model.len() * 9 / 10, "length {length}: {stored} vs {}", model.len());
            } else {
                assert_eq!(stored, model.len(), "length {length} {distribution:?}");
            }
            for v in &vectors {
                assert_eq!(table.find_or_put(v) & NEW_BIT, 0);
            }
        }
    }
}

#[test]
fn shapes_are_the_documented_ones() {
    let table = CompactTable::new(Geometry { slot_log2: 8, bucket_log2: 1 });
    let root = table.find_or_put(&[10, 11, 12]);
    let plain = table.snapshot().nodes;
    let node = |r: u32| unpack(plain[(r & REFERENCE_MASK) as usize]);
    let (left, right) = node(root);
    assert_eq!(right, 12);
    assert_eq!(node(left), (10, 11));
    let root = table.find_or_put(&[1, 2, 3, 4, 5]);
    let plain = table.snapshot().nodes;
    let node = |r: u32| unpack(plain[(r & REFERENCE_MASK) as usize]);
    let (left, right) = node(root);
    assert_eq!(right, 5);
    let (a, b) = node(left);
    assert_eq!((node(a), node(b)), ((1, 2), (3, 4)));
    // One word: the node (w, 0).
    let root = table.find_or_put(&[77]);
    assert_eq!(table.snapshot().nodes[(root & REFERENCE_MASK) as usize], pack(77, 0));
}

#[test]
fn zero_words_and_zero_references_round_trip() {
    // Node (0, 0) is kept out of the table. In a table of 2 slots, node (5, 6) lands in slot
    // 0 and the root of [5, 6, 5, 6], (slot 0, slot 0), is (0, 0) too; likewise [0; 8].
    for v in [&[0u32][..], &[0, 0], &[0, 0, 0], &[0, 0, 0, 0], &[5, 6, 5, 6], &[0; 8], &[0, 1, 0, 1, 0, 1, 0]] {
        let table = CompactTable::new(Geometry { slot_log2: 1, bucket_log2: 1 });
        let first = table.find_or_put(v);
        assert_ne!(first & NEW_BIT, 0, "{v:?}");
        assert_ne!(first, FAILED, "{v:?}");
        assert_eq!(table.find_or_put(v), first & REFERENCE_MASK, "{v:?}");
        assert_eq!(decode(first & REFERENCE_MASK, v.len(), |r| table.snapshot().node(r)).as_deref(), Some(v));
        if v == [5, 6, 5, 6] || v == [0; 8] {
            assert_eq!(first & REFERENCE_MASK, ZERO_REFERENCE, "{v:?}");
            assert!(table.zero_root.load(Ordering::Relaxed));
        }
    }
}

#[test]
fn a_root_equal_to_a_word_pair_is_still_a_new_vector() {
    let table = CompactTable::new(Geometry { slot_log2: 10, bucket_log2: 1 });
    assert_ne!(table.find_or_put(&[5, 6, 7]) & NEW_BIT, 0);
    let s = table.find_or_put_node(5, 6);
    // [s, 9, 1] stores the word pair (s, 9) ...
    assert_ne!(table.find_or_put(&[s, 9, 1]) & NEW_BIT, 0);
    // ... which is, bit for bit, the root of [5, 6, 9]: that node is seen, the vector is new.
    assert_eq!(table.find_or_put_node(s, 9) & NEW_BIT, 0);
    let root = table.find_or_put(&[5, 6, 9]);
    assert_ne!(root & NEW_BIT, 0);
    assert_eq!(table.find_or_put(&[5, 6, 9]), root & REFERENCE_MASK);
    let copy = table.snapshot();
    assert_eq!(decode(root & REFERENCE_MASK, 3, |r| copy.node(r)), Some(vec![5, 6, 9]));
    let words = [5, 6, 7, s, 9, 1, 5, 6, 9];
    let vectors: Vec<&[u32]> = words.chunks(3).collect();
    let results: Vec<u32> = vectors.iter().map(|v| table.find_or_put(v)).collect();
    // All seen now, and the table passes the checks (3 roots marked, one node serving two roles).
    assert!(results.iter().all(|r| r & NEW_BIT == 0));
    let first: Vec<u32> = results.iter().map(|r| r | NEW_BIT).collect();
    assert_eq!(check_compact_table(&copy, &vectors, &first, Some(&results), 3, 0), Ok(3));
}

#[test]
fn a_full_table_fails_clearly() {
    // 4 slots: the fifth distinct node cannot be stored.
    let table = CompactTable::new(Geometry { slot_log2: 2, bucket_log2: 1 });
    let results: Vec<u32> = (1..=6u32).map(|w| table.find_or_put(&[w])).collect();
    assert_eq!(results.iter().filter(|&&r| r == FAILED).count(), 2);
    assert!(results[..4].iter().all(|&r| r & NEW_BIT != 0));
}

#[test]
fn probing_visits_eight_buckets_and_wraps() {
    let g = Geometry { slot_log2: 6, bucket_log2: 2 };
    let slots: Vec<u32> = g.probe(u32::MAX).collect();
    assert_eq!(slots.len(), 4 * 32);
    assert_eq!(&slots[..6], &[60, 61, 62, 63, 0, 1]);
    // The second round starts at another bucket's first slot.
    assert_eq!(slots[32] % 4, 0);
    assert_eq!(slots[32] / 4, rehash(u32::MAX, 1) >> 28);
    let tiny: Vec<u32> = Geometry { slot_log2: 2, bucket_log2: 2 }.probe(12345).collect();
    assert_eq!(tiny, [0, 1, 2, 3].repeat(4));
}

#[test]
fn parallel_cpu_twin_stores_the_same_nodes_and_one_new_per_vector() {
    let length = 4;
    let words = make_vectors(length, 20000, VectorDistribution::Duplicates, 3);
    let vectors: Vec<&[u32]> = words.chunks(length).collect();
    let one = CompactTable::new(Geometry { slot_log2: 16, bucket_log2: 1 });
    vectors.iter().for_each(|v| _ = one.find_or_put(v));
    let many = CompactTable::new(Geometry { slot_log2: 16, bucket_log2: 1 });
    let news: u64 = std::thread::scope(|s| {
        let handles: Vec<_> =
            vectors.chunks(2500).map(|c| s.spawn(|| c.iter().filter(|v| many.find_or_put(v) & NEW_BIT != 0).count() as u64)).collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(sorted_nodes(&one.snapshot().nodes).len(), sorted_nodes(&many.snapshot().nodes).len());
    assert_eq!(news as usize, vectors.iter().collect::<HashSet<_>>().len());
}

#[test]
fn uncompressed_twin_stores_each_vector_once() {
    for length in [1usize, 3, 8] {
        let words = make_vectors(length, 2000, VectorDistribution::Shared, 9);
        let vectors: Vec<&[u32]> = words.chunks(length).collect();
        let table = UncompressedTable::new(Geometry { slot_log2: 12, bucket_log2: 3 }, length);
        let mut seen = HashSet::new();
        for (i, v) in vectors.iter().enumerate() {
            let r = table.find_or_put(&vectors, i);
            assert_eq!(r & NEW_BIT != 0, seen.insert(*v));
        }
        // A second batch (the same vectors) finds them all, at the same slots.
        for i in 0..vectors.len() {
            assert_eq!(table.find_or_put(&vectors, i) & NEW_BIT, 0);
        }
        let cells: Vec<u32> = table.cells.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let mut stored = uncompressed_contents(&cells, length).unwrap();
        stored.sort_unstable();
        let mut expected: Vec<&[u32]> = seen.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(stored, expected);
    }
}

#[test]
fn checks_catch_wrong_results() {
    let words = [1u32, 2, 3, 4, 1, 2, 3, 4];
    let vectors: Vec<&[u32]> = words.chunks(4).collect();
    let table = CompactTable::new(Geometry { slot_log2: 4, bucket_log2: 1 });
    let insert: Vec<u32> = vectors.iter().map(|v| table.find_or_put(v)).collect();
    let again: Vec<u32> = insert.iter().map(|r| r & REFERENCE_MASK).collect();
    let copy = table.snapshot();
    let mut plain = copy.nodes.clone();
    let check = |nodes: &[u64], insert: &[u32]| {
        check_compact_table(&TableCopy { nodes: nodes.to_vec(), ..copy.clone() }, &vectors, insert, Some(&again), 1, 0)
    };
    assert_eq!(check(&plain, &insert), Ok(1));
    // Both duplicates new, none new, a wrong reference, a failure not counted.
    assert!(check(&plain, &[insert[0], insert[0]]).is_err());
    assert!(check(&plain, &again).is_err());
    assert!(check(&plain, &[insert[0], 0]).is_err());
    assert!(check(&plain, &[insert[0], FAILED]).is_err());
    // A node no tree uses, and a node stored twice.
    let free = plain.iter().position(|&n| n == 0).unwrap();
    plain[free] = pack(9, 9);
    assert!(check(&plain, &insert).unwrap_err().to_string().contains("no stored vector"));
    plain[free] = plain[(insert[0] & REFERENCE_MASK) as usize];
    assert!(check(&plain, &insert).unwrap_err().to_string().contains("twice"));
    // A root bit too many.
    let mut extra = copy.clone();
    extra.root_bits[0] ^= 1 << 31;
    assert!(check_compact_table(&extra, &vectors, &insert, None, 1, 0).unwrap_err().to_string().contains("marked as roots"));
}

#[test]
fn options_are_checked() {
    assert_eq!(CompactHashOptions::default().check(), Ok(()));
    assert_eq!(CompactHashOptions::default().vector_count(), 10923);
    assert!(options(9, 2, 16, VectorDistribution::Uniform, 1).check().unwrap_err().to_string().contains("--length 9"));
    assert!(options(4, 3, 16, VectorDistribution::Uniform, 1).check().unwrap_err().to_string().contains("--bucket-size 3"));
    assert!(options(4, 32, 4, VectorDistribution::Uniform, 1).check().unwrap_err().to_string().contains("--table-log2 4"));
    assert!(options(4, 2, 16, VectorDistribution::Uniform, 0).check().unwrap_err().to_string().contains("--vectors 0"));
    let fill = CompactHashOptions { fill: 1.5, ..Default::default() };
    assert!(fill.check().unwrap_err().to_string().contains("--fill 1.5"));
    assert_eq!(options(8, 2, 16, VectorDistribution::Uniform, 100).uncompressed_geometry().slot_log2, 8);
}
