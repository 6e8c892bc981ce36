//! Tests of the pool's CPU twin against `LeafSet64` (the implicit-id reference of conforming
//! splits and diamond merges), with random criteria, depths beyond 40 and points on the
//! octahedral map's folds. Seeds come from `test_rng` (BISECTOR_TEST_SEED replays one).

use std::collections::HashMap;

use crate::leb::base_mesh::BaseMesh;
use crate::leb::node64::{octahedron_point_fixed, twice_area_fixed, BaseMesh64, LeafSet64, Node64, MAP_ONE_64};
use crate::pool::cpu::{PoolTwin, MERGE_RATIO_SQ, NO_SLOT};
use crate::pool::priority::{bucket, effective_target_sq, threshold_bucket, BUCKET_COUNT};
use crate::test_rng::XorShift;

/// A uniform integer in [0, n).
fn below(rng: &mut XorShift, n: u64) -> u64 {
    rng.next_u64() % n
}

fn shuffle<T>(rng: &mut XorShift, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        items.swap(i, below(rng, i as u64 + 1) as usize);
    }
}

/// splitmix64's finaliser: a hash of a node id and a frame's salt.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn contains(v: &[[u64; 2]; 3], p: [u64; 2]) -> bool {
    let sign = twice_area_fixed(*v).signum();
    (0..3).all(|i| twice_area_fixed([v[i], v[(i + 1) % 3], p]) * sign >= 0)
}

/// A map point: on the square's border (the folds), at a corner (the south pole), on a base
/// triangle's edge (the equator's segments and the meridians), at the centre, or anywhere.
fn random_point(rng: &mut XorShift) -> [u64; 2] {
    let one = MAP_ONE_64;
    let anywhere = |rng: &mut XorShift| below(rng, one + 1);
    match below(rng, 6) {
        0 => {
            let t = anywhere(rng);
            [[t, 0], [t, one], [0, t], [one, t]][below(rng, 4) as usize]
        }
        1 => [[0, 0], [0, one], [one, 0], [one, one]][below(rng, 4) as usize],
        2 => {
            // The segment m_0 = (1, 1/2) .. m_1 = (1/2, 1), one of the equator's.
            let t = anywhere(rng) / 2;
            [one - t, one / 2 + t]
        }
        3 => [one / 2, anywhere(rng)],
        4 => [one / 2, one / 2],
        _ => [anywhere(rng), anywhere(rng)],
    }
}

/// Every edge of the leaves (two exact points on the octahedron) is shared by exactly two
/// leaves, and the leaves tile the map exactly (no crack, no hole, no overlap).
fn assert_watertight(twin: &PoolTwin, context: &str) {
    let mut edges: HashMap<[[i64; 3]; 2], u32> = HashMap::new();
    let mut area = 0i128;
    for &slot in twin.leaf_slots() {
        let v = twin.vertices(slot);
        area += twice_area_fixed(v).abs();
        let p = v.map(octahedron_point_fixed);
        for (a, b) in [(p[0], p[1]), (p[1], p[2]), (p[2], p[0])] {
            *edges.entry(if a < b { [a, b] } else { [b, a] }).or_default() += 1;
        }
    }
    assert_eq!(area, 2 * (MAP_ONE_64 as i128) * (MAP_ONE_64 as i128), "{context}: the leaves do not tile the map");
    let bad: Vec<_> = edges.iter().filter(|(_, &n)| n != 2).take(3).collect();
    assert!(bad.is_empty(), "{context}: edges not shared by exactly two leaves: {bad:?}");
}

fn assert_valid(twin: &PoolTwin, context: &str) {
    let errors = twin.validate();
    assert!(errors.is_empty(), "{context}: the pool is inconsistent:\n{}", errors.join("\n"));
}

fn sorted_ids(leaves: impl IntoIterator<Item = Node64>) -> Vec<u64> {
    let mut ids: Vec<u64> = leaves.into_iter().map(|n| n.0).collect();
    ids.sort_unstable();
    ids
}

fn assert_same_leaves(twin: &PoolTwin, set: &LeafSet64, context: &str) {
    assert_eq!(sorted_ids(twin.leaves()), sorted_ids(set.leaves().iter().copied()), "{context}: the pool's leaves are not the oracle's");
    assert_eq!(twin.used_slots() as usize, set.leaves().len(), "{context}: CBT root count");
}

/// The chain cost of a leaf from the ids alone: +1 for a same-depth hypotenuse neighbour (end),
/// +2 and on for a coarser one.
fn oracle_chain_cost(set: &LeafSet64, node: Node64) -> u32 {
    let (mut cost, mut current) = (1, node);
    loop {
        let edge = set.mesh.neighbours(current).edge;
        if edge == 0 {
            return cost;
        }
        if set.is_leaf(Node64(edge)) {
            return cost + 1;
        }
        current = Node64(edge).parent();
        assert!(set.is_leaf(current), "{node:?}'s chain meets a node that is no leaf");
        cost += 2;
    }
}

/// The merge frame on the leaf set, decided from the ids and the criterion on the decoded
/// parents: every diamond whose four children are leaves and whose parents are at most
/// `merge_sq`. Returns the diamonds merged.
fn oracle_merge(set: &mut LeafSet64, criterion: impl Fn(Node64, &[[u64; 2]; 3]) -> f32, merge_sq: f32) -> u32 {
    let mesh = set.mesh.clone();
    let merges = |p: Node64| criterion(p, &mesh.decode_vertices(p)) <= merge_sq;
    let diamonds: Vec<Node64> = set
        .leaves()
        .iter()
        .copied()
        .filter(|&c| c.depth() > mesh.depth && c.0 & 1 == 0 && set.is_leaf(c.sibling()) && merges(c.parent()))
        .filter(|&c| {
            let q = mesh.neighbours(c.parent()).edge;
            q == 0 || (set.is_leaf(Node64(q).child(0)) && set.is_leaf(Node64(q).child(1)) && merges(Node64(q)))
        })
        .collect();
    diamonds.into_iter().map(|c| u32::from(set.merge_diamond(c))).sum()
}

/// Refinement targets: the leaf holding `point` splits while shallower than `depth`.
struct Focus {
    point: [u64; 2],
    depth: u32,
}

/// A criterion for random frames: leaves holding a focus point want to split (e² = 4) down to
/// its depth; other nodes above depth 20 want to split at random (1 in 64, e² in (1, 3)), and
/// nodes keep their children at random (1 in 4, e² = 0.9, above the merge target 0.5625) or let
/// them merge (0.1).
fn random_criterion(foci: &[Focus], salt: u64) -> impl Fn(Node64, &[[u64; 2]; 3]) -> f32 + '_ {
    move |node, v| {
        if foci.iter().any(|f| node.depth() < f.depth && contains(v, f.point)) {
            return 4.0;
        }
        let h = mix(node.0 ^ salt);
        if node.depth() < 20 && h.is_multiple_of(64) {
            1.0 + (h >> 40) as f32 / (1u64 << 23) as f32
        } else if (h >> 8) & 3 == 0 {
            0.9
        } else {
            0.1
        }
    }
}

/// Random split and merge frames, alternating, with foci on the folds, corners, base edges and
/// anywhere refined past depth 40, moved now and then: after every frame the pool's leaves equal
/// the leaf set's, driven by the same criterion but decided independently (every leaf over the
/// target below max depth starts a conforming split, in a random order; every diamond of four
/// leaf children under the merge target merges), the pool validates, and it stays watertight.
#[test]
fn random_frames_equal_the_leaf_set_and_stay_watertight() {
    let mut rng = XorShift::fresh("pool::random_frames_equal_the_leaf_set_and_stay_watertight");
    let mut deepest = 0;
    for round in 0..2 {
        let max_depth = 44 + below(&mut rng, 20) as u32;
        let mut twin = PoolTwin::new(BaseMesh64::octahedron(), 15, max_depth, 1.0);
        let mut set = LeafSet64::new(BaseMesh64::octahedron(), max_depth);
        let mut foci = Vec::new();
        for frame in 0..260 {
            if frame % 130 == 0 {
                foci = (0..3).map(|_| Focus { point: random_point(&mut rng), depth: 41 + below(&mut rng, 23) as u32 }).collect();
            }
            let salt = rng.next_u64();
            let criterion = random_criterion(&foci, salt);
            let context = format!("round {round} frame {frame} (max depth {max_depth})");
            if frame % 2 == 0 {
                let mut wanted: Vec<Node64> = set
                    .leaves()
                    .iter()
                    .copied()
                    .filter(|&l| l.depth() < max_depth && criterion(l, &set.mesh.decode_vertices(l)) > 1.0)
                    .collect();
                let stats = twin.split_frame(&criterion);
                assert_eq!(stats.capped_by_pool, 0, "{context}: the pool must not cap here");
                assert_eq!(stats.admitted as usize, wanted.len(), "{context}: split candidates");
                shuffle(&mut rng, &mut wanted);
                for leaf in wanted {
                    set.split_conforming(leaf);
                }
            } else {
                let stats = twin.merge_frame(&criterion);
                assert_eq!(twin.merge_target_sq_px2(), MERGE_RATIO_SQ);
                let merged = oracle_merge(&mut set, &criterion, MERGE_RATIO_SQ);
                assert_eq!(stats.diamonds_merged, merged, "{context}: diamonds merged");
            }
            assert_same_leaves(&twin, &set, &context);
            assert_valid(&twin, &context);
            if frame % 10 == 0 {
                assert_watertight(&twin, &context);
            }
            deepest = deepest.max(twin.leaves().iter().map(|l| l.depth()).max().unwrap());
        }
        assert_watertight(&twin, &format!("round {round}, end"));
    }
    assert!(deepest > 40, "the frames reached depth {deepest} only");
}

/// On an open base mesh (the square: its borders have no neighbour) the chains stop at the
/// border and a border diamond is one parent: random frames still equal the leaf set's.
#[test]
fn the_open_square_equals_the_leaf_set() {
    let mut rng = XorShift::fresh("pool::the_open_square_equals_the_leaf_set");
    let square = || BaseMesh64::new(&BaseMesh::square());
    let max_depth = 30;
    let mut twin = PoolTwin::new(square(), 13, max_depth, 1.0);
    let mut set = LeafSet64::new(square(), max_depth);
    let corner = [MAP_ONE_64, 0];
    let foci = [Focus { point: corner, depth: 26 }, Focus { point: [below(&mut rng, MAP_ONE_64 + 1), 0], depth: 22 }];
    for frame in 0..80 {
        let criterion = random_criterion(&foci, rng.next_u64());
        let context = format!("frame {frame}");
        if frame % 2 == 0 {
            let wanted: Vec<Node64> = set
                .leaves()
                .iter()
                .copied()
                .filter(|&l| l.depth() < max_depth && criterion(l, &set.mesh.decode_vertices(l)) > 1.0)
                .collect();
            twin.split_frame(&criterion);
            for leaf in wanted {
                set.split_conforming(leaf);
            }
        } else {
            let stats = twin.merge_frame(&criterion);
            assert_eq!(stats.diamonds_merged, oracle_merge(&mut set, &criterion, MERGE_RATIO_SQ), "{context}: diamonds merged");
        }
        assert_same_leaves(&twin, &set, &context);
        assert_valid(&twin, &context);
    }
    assert!(twin.leaf_slots().iter().any(|&s| twin.neighbour_slots(s).contains(&NO_SLOT)));
}

/// The merge hysteresis' effective target, recomputed: MERGE_RATIO_SQ · T_eff²(b*).
fn merge_sq(target_sq: f32, b_star: u32) -> f32 {
    MERGE_RATIO_SQ * effective_target_sq(target_sq, b_star)
}

/// A pool of 4,096 slots under a criterion that wants every leaf split (a camera-like error:
/// area over squared distance to a focus, plus 1, over T² = 1/4): splits back off in priority
/// order. In every split frame the candidates, their buckets and chain costs equal those
/// recomputed from the ids; b* is the lowest bucket whose suffix fits the free slots; every
/// admitted candidate's bucket is above every refused one's; the leaves equal the leaf set's
/// after the admitted splits (and the independent merges); no crack, no hole, capped > 0.
#[test]
fn a_tiny_pool_backs_off_in_priority_order_without_cracks() {
    let mut rng = XorShift::fresh("pool::a_tiny_pool_backs_off_in_priority_order_without_cracks");
    let (pool_depth, max_depth, target_px) = (12, 26, 0.5f32);
    let target_sq = target_px * target_px;
    let mut twin = PoolTwin::new(BaseMesh64::octahedron(), pool_depth, max_depth, target_px);
    let mut set = LeafSet64::new(BaseMesh64::octahedron(), max_depth);
    let focus = random_point(&mut rng).map(|c| c as f64 / MAP_ONE_64 as f64);
    let scale = rng.range(1e2, 1e5);
    let one_sq = (MAP_ONE_64 as f64) * (MAP_ONE_64 as f64);
    let criterion = move |_: Node64, v: &[[u64; 2]; 3]| {
        let centre = [0, 1].map(|k| v.iter().map(|p| p[k] as f64).sum::<f64>() / (3.0 * MAP_ONE_64 as f64));
        let distance_sq = (centre[0] - focus[0]).powi(2) + (centre[1] - focus[1]).powi(2);
        (1.0 + scale * twice_area_fixed(*v).abs() as f64 / one_sq / (distance_sq + 1e-6)) as f32
    };
    let mut b_star = 0;
    let mut capped_by_pool = 0;
    for frame in 0..80 {
        let context = format!("frame {frame}");
        if frame % 2 == 0 {
            let free = twin.slot_count() - twin.used_slots();
            // The candidates from the ids: every leaf wants to split.
            let mut expected: Vec<(u64, u32, u32)> = Vec::new();
            let mut at_max_depth = 0;
            for &leaf in set.leaves() {
                let error_sq = criterion(leaf, &set.mesh.decode_vertices(leaf));
                assert!(error_sq > target_sq);
                if leaf.depth() >= max_depth {
                    at_max_depth += 1;
                } else {
                    expected.push((leaf.0, bucket(error_sq, target_sq), oracle_chain_cost(&set, leaf)));
                }
            }
            let stats = twin.split_frame(criterion);
            let mut candidates: Vec<(u64, u32, u32)> = twin.split_candidates().iter().map(|c| (c.node.0, c.bucket, c.cost_slots)).collect();
            candidates.sort_unstable();
            expected.sort_unstable();
            assert_eq!(candidates, expected, "{context}: candidates (id, bucket, cost)");
            let mut histogram = vec![0u32; BUCKET_COUNT];
            for &(_, b, cost) in &expected {
                histogram[b as usize] += cost;
            }
            b_star = threshold_bucket(&histogram, free);
            assert_eq!(stats.threshold_bucket, b_star, "{context}: b*");
            let admitted: Vec<_> = twin.split_candidates().iter().filter(|c| c.admitted).collect();
            let refused: Vec<_> = twin.split_candidates().iter().filter(|c| !c.admitted).collect();
            assert!(admitted.iter().all(|c| c.bucket >= b_star) && refused.iter().all(|c| c.bucket < b_star), "{context}: admission");
            if let (Some(low), Some(high)) = (admitted.iter().map(|c| c.bucket).min(), refused.iter().map(|c| c.bucket).max()) {
                assert!(low > high, "{context}: admitted bucket {low} is not above refused bucket {high}");
            }
            assert!(stats.slots_allocated <= free, "{context}: {} slots allocated, {free} free", stats.slots_allocated);
            assert_eq!((stats.capped_by_pool, stats.capped_by_depth), (refused.len() as u32, at_max_depth), "{context}: capped");
            capped_by_pool += stats.capped_by_pool;
            let mut initiators: Vec<Node64> = admitted.iter().map(|c| c.node).collect();
            shuffle(&mut rng, &mut initiators);
            for leaf in initiators {
                set.split_conforming(leaf);
            }
        } else {
            let stats = twin.merge_frame(criterion);
            assert_eq!(twin.merge_target_sq_px2(), merge_sq(target_sq, b_star));
            let merged = oracle_merge(&mut set, criterion, merge_sq(target_sq, b_star));
            assert_eq!(stats.diamonds_merged, merged, "{context}: diamonds merged");
        }
        assert!(twin.used_slots() <= twin.slot_count());
        assert_same_leaves(&twin, &set, &context);
        assert_valid(&twin, &context);
        assert_watertight(&twin, &context);
    }
    assert!(capped_by_pool > 0, "the pool never capped a split");
    assert!(twin.capped_leaves() > 0, "the last split frame capped nothing");
}

/// Refinement past depth 40 (foci on folds and corners, random splits on top), then a criterion
/// that wants nothing split: merge frames return the pool exactly to its first state (the base
/// triangles in their first slots, the same links, vertices and CBT).
#[test]
fn merging_returns_the_pool_to_the_base_mesh() {
    let mut rng = XorShift::fresh("pool::merging_returns_the_pool_to_the_base_mesh");
    let max_depth = 50;
    let fresh = PoolTwin::new(BaseMesh64::octahedron(), 14, max_depth, 1.0);
    let mut twin = fresh.clone();
    let mut set = LeafSet64::new(BaseMesh64::octahedron(), max_depth);
    let foci: Vec<Focus> = (0..3).map(|_| Focus { point: random_point(&mut rng), depth: 41 + below(&mut rng, 10) as u32 }).collect();
    for _ in 0..48 {
        let criterion = random_criterion(&foci, rng.next_u64());
        let wanted: Vec<Node64> =
            set.leaves().iter().copied().filter(|&l| l.depth() < max_depth && criterion(l, &set.mesh.decode_vertices(l)) > 1.0).collect();
        twin.split_frame(&criterion);
        for leaf in wanted {
            set.split_conforming(leaf);
        }
    }
    assert!(twin.leaves().iter().any(|l| l.depth() > 40));
    assert_valid(&twin, "refined");
    assert_same_leaves(&twin, &set, "refined");
    let nothing = |_: Node64, _: &[[u64; 2]; 3]| 0.0f32;
    let mut frames = 0;
    loop {
        let stats = twin.merge_frame(nothing);
        let merged = oracle_merge(&mut set, nothing, MERGE_RATIO_SQ);
        let context = format!("merge frame {frames}");
        assert_eq!(stats.diamonds_merged, merged, "{context}");
        assert_same_leaves(&twin, &set, &context);
        assert_valid(&twin, &context);
        if frames % 8 == 0 {
            assert_watertight(&twin, &context);
        }
        frames += 1;
        if stats.diamonds_merged == 0 {
            break;
        }
        assert!(frames < 4 * max_depth, "merging did not finish");
    }
    assert_eq!(sorted_ids(twin.leaves()), (8..16).collect::<Vec<u64>>());
    // Freed slots keep stale links and vertices (as on the GPU); the used ones are the first.
    assert_eq!(twin.ids, fresh.ids);
    assert_eq!(twin.cbt, fresh.cbt);
    assert_eq!(twin.list, fresh.list);
    for &slot in fresh.leaf_slots() {
        assert_eq!(twin.neighbour_slots(slot), fresh.neighbour_slots(slot), "slot {slot}'s links");
        assert_eq!(twin.vertices(slot), fresh.vertices(slot), "slot {slot}'s vertices");
    }
}

/// The GPU marks the chains in any thread order: with the candidates marked in a random order,
/// a split frame gives the same pool, bit for bit (the patterns are ORs, allocation goes in slot
/// order), on a small pool that caps.
#[test]
fn the_candidate_order_changes_nothing() {
    let mut rng = XorShift::fresh("pool::the_candidate_order_changes_nothing");
    let mut twin = PoolTwin::new(BaseMesh64::octahedron(), 11, 30, 1.0);
    for frame in 0..40 {
        let salt = rng.next_u64();
        // Many overlapping chains: a third of the leaves want to split, with random priorities.
        let criterion = move |node: Node64, _: &[[u64; 2]; 3]| {
            let h = mix(node.0 ^ salt);
            if h.is_multiple_of(3) {
                1.0 + (h >> 44) as f32
            } else {
                (h >> 40) as f32 / (1u64 << 24) as f32
            }
        };
        if frame % 2 == 0 {
            let mut shuffled = twin.clone();
            let seed = rng.next_u64();
            let stats = twin.split_frame(criterion);
            let stats_shuffled = shuffled.split_frame_in_order(criterion, |order| shuffle(&mut XorShift(seed | 1), order));
            assert_eq!(stats, stats_shuffled, "frame {frame}");
            assert_eq!(twin.candidates, shuffled.candidates, "frame {frame}");
            assert_eq!(twin.ids, shuffled.ids, "frame {frame}");
            assert_eq!(twin.neighbours, shuffled.neighbours, "frame {frame}");
            assert_eq!(twin.vertices, shuffled.vertices, "frame {frame}");
            assert_eq!(twin.cbt, shuffled.cbt, "frame {frame}");
        } else {
            twin.merge_frame(criterion);
        }
        assert_valid(&twin, &format!("frame {frame}"));
    }
}

/// `validate` is not vacuous: a wrong pointer, a cleared CBT bit, a moved vertex and a stale
/// count are each reported.
#[test]
fn validate_reports_corruption() {
    let mut rng = XorShift::fresh("pool::validate_reports_corruption");
    let mut twin = PoolTwin::new(BaseMesh64::octahedron(), 10, 20, 1.0);
    for _ in 0..6 {
        let salt = rng.next_u64();
        twin.split_frame(move |node, _| if mix(node.0 ^ salt).is_multiple_of(2) { 2.0 } else { 0.0 });
    }
    assert_valid(&twin, "refined");
    let slots = twin.leaf_slots().to_vec();
    let pick = |rng: &mut XorShift| slots[below(rng, slots.len() as u64) as usize];

    let mut wrong_pointer = twin.clone();
    let (a, b) = (pick(&mut rng), pick(&mut rng));
    let field = below(&mut rng, 3) as usize;
    wrong_pointer.neighbours[a as usize][field] = if wrong_pointer.neighbours[a as usize][field] == b { a } else { b };
    assert!(!wrong_pointer.validate().is_empty(), "a wrong pointer in slot {a} went unnoticed");

    let mut cleared_bit = twin.clone();
    cleared_bit.cbt.set_slot_used(pick(&mut rng), false);
    assert!(!cleared_bit.validate().is_empty(), "a cleared CBT bit went unnoticed");

    let mut stale_count = twin.clone();
    stale_count.cbt.set_slot_used(slots.len() as u32 + below(&mut rng, 16) as u32, true);
    assert!(!stale_count.validate().is_empty(), "an unreduced CBT went unnoticed");

    let mut moved_vertex = twin.clone();
    moved_vertex.vertices[pick(&mut rng) as usize][1][0] ^= 1 << 20;
    assert!(!moved_vertex.validate().is_empty(), "a moved vertex went unnoticed");
}
