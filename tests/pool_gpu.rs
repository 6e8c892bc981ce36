//! The bisector pool on the GPU (issue 15, steps 5-7 of docs/design/bisector-pool.md) against its
//! CPU twin `PoolTwin`, driven by the same test criterion (a hash of the 64-bit node id, plus foci
//! whose ancestors all split): after every random split or merge frame, at depths beyond 40 and
//! across the octahedral map's folds, the GPU holds the twin's pool bit for bit (the same ids in
//! the same slots, links, vertices, CBT heap and draw list, as allocation goes in slot order on
//! both), the same frame figures, and its state read back validates and is watertight. The
//! compact mode (`PoolMode::Compact`, the renderer's: lists and atomic allocation) equals the twin
//! by meaning instead: the same leaves, links between them and vertices by node id, in other slots.

mod common;

use std::collections::{BTreeMap, HashMap};

use bisector::gpu::Gpu;
use bisector::leb::node64::{octahedron_point_fixed, twice_area_fixed, BaseMesh64, Node64, MAP_ONE_64};
use bisector::pool::cpu::{tree_order_key, NO_SLOT};
use bisector::pool::gpu::{clean_update_records, LIST_ALLOCATIONS, LIST_CANDIDATES, LIST_MERGE, LIST_MERGED, UPDATE_WORDS};
use bisector::pool::{GpuPool, PoolMode, PoolSettings, PoolState, PoolTwin, TestCriterion};
use rand::Rng;

fn gpu_for(slots: u32) -> Gpu {
    let settings = PoolSettings { pool_slots: slots, ..Default::default() };
    Gpu::headless(&settings.requirements())
        .unwrap_or_else(|e| panic!("{e}\n(the README's test command installs the software Vulkan driver lavapipe)"))
}

fn contains(v: &[[u64; 2]; 3], p: [u64; 2]) -> bool {
    let sign = twice_area_fixed(*v).signum();
    (0..3).all(|i| twice_area_fixed([v[i], v[(i + 1) % 3], p]) * sign >= 0)
}

/// The node of `depth` that holds map point `p` (the first one, where several share it).
fn node_at(mesh: &BaseMesh64, p: [u64; 2], depth: u32) -> Node64 {
    let mut node = mesh.roots().find(|&r| contains(&mesh.decode_vertices(r), p)).expect("a base triangle holds every map point");
    while node.depth() < depth {
        node =
            [node.child(0), node.child(1)].into_iter().find(|&c| contains(&mesh.decode_vertices(c), p)).expect("a child holds the point");
    }
    node
}

/// A map point on the square's border (the folds), at a corner, on the equator's segment from
/// (1, 1/2) to (1/2, 1), on the meridian x = 1/2, at the centre, or anywhere.
fn random_point(rng: &mut impl Rng) -> [u64; 2] {
    let one = MAP_ONE_64;
    let t = rng.random_range(0..=one);
    match rng.random_range(0..6) {
        0 => [[t, 0], [t, one], [0, t], [one, t]][rng.random_range(0..4)],
        1 => [[0, 0], [0, one], [one, 0], [one, one]][rng.random_range(0..4)],
        2 => [one - t / 2, one / 2 + t / 2],
        3 => [one / 2, t],
        4 => [one / 2, one / 2],
        _ => [t, rng.random_range(0..=one)],
    }
}

/// Every edge of the leaves (two exact points on the octahedron) is shared by exactly two leaves,
/// and the leaves tile the map exactly.
fn assert_watertight(state: &PoolState, context: &str) {
    let mut edges: HashMap<[[i64; 3]; 2], u32> = HashMap::new();
    let mut area = 0i128;
    for &slot in &state.list {
        let v = state.vertices[slot as usize];
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

/// The GPU's state equals the twin's: ids everywhere, links and vertices of the used slots, the
/// CBT heap, the draw list and T_eff².
fn assert_same_pool(got: &PoolState, twin: &PoolTwin, context: &str) {
    let expected = twin.state();
    assert_eq!(got.list, expected.list, "{context}: the draw lists differ");
    if got.ids != expected.ids {
        let slot = (0..got.ids.len()).find(|&s| got.ids[s] != expected.ids[s]).unwrap();
        panic!("{context}: slot {slot} holds id {} on the GPU, {} in the twin", got.ids[slot], expected.ids[slot]);
    }
    for &slot in &expected.list {
        let s = slot as usize;
        assert_eq!(got.neighbours[s], expected.neighbours[s], "{context}: the links of slot {slot} (id {})", expected.ids[s]);
        assert_eq!(got.vertices[s], expected.vertices[s], "{context}: the vertices of slot {slot} (id {})", expected.ids[s]);
    }
    assert_eq!(got.cbt, expected.cbt, "{context}: the CBT heaps differ");
    assert_eq!(got.effective_target_sq_px2.to_bits(), expected.effective_target_sq_px2.to_bits(), "{context}: T_eff²");
}

fn assert_valid(twin: &PoolTwin, context: &str) {
    let errors = twin.validate();
    assert!(errors.is_empty(), "{context}: the pool read back is inconsistent:\n{}", errors.join("\n"));
}

/// One frame on both, with the figures compared.
fn frame(gpu: &Gpu, pool: &GpuPool, twin: &mut PoolTwin, criterion: &TestCriterion, split: bool, context: &str) {
    pool.set_criterion(gpu, criterion);
    let stats = if split {
        pool.split_frame(gpu);
        twin.split_frame(|node, _| criterion.error_sq_px2(node))
    } else {
        pool.merge_frame(gpu);
        twin.merge_frame(|node, _| criterion.error_sq_px2(node))
    };
    let counters = pool.read_counters(gpu);
    assert_eq!(counters.frame_stats(), stats, "{context}: the frame's figures");
    assert_eq!(counters.leaves, twin.used_slots(), "{context}: leaves");
    let deepest = twin.leaves().iter().map(|l| l.depth()).max().unwrap();
    assert_eq!(counters.max_depth_reached, deepest, "{context}: the deepest leaf");
    let listed = counters.listed.map(|n| n as usize);
    if pool.mode() == PoolMode::Deterministic {
        assert_eq!(listed, [0; 4], "{context}: the bit-exact mode wrote compact lists");
        return;
    }
    // The lists hold what each pass acts for: the candidates below max depth; the bisected
    // leaves, each allocating 1-3 slots; each merged diamond's even leaves, each freeing a slot.
    let l = |k: u32| listed[k as usize] as u32;
    if split {
        assert_eq!(l(LIST_CANDIDATES), stats.wanted_split - stats.capped_by_depth, "{context}: listed candidates");
        let bisected = l(LIST_ALLOCATIONS);
        assert!(bisected <= stats.slots_allocated && stats.slots_allocated <= 3 * bisected, "{context}: {bisected} bisected leaves");
        assert_eq!((l(LIST_MERGE), l(LIST_MERGED)), (0, 0), "{context}: merge lists in a split frame");
    } else {
        assert_eq!(l(LIST_MERGED), stats.slots_freed, "{context}: listed merged leaves");
        assert!(l(LIST_MERGE) >= l(LIST_MERGED), "{context}: fewer even leaves in merge state than merged");
        assert_eq!((l(LIST_CANDIDATES), l(LIST_ALLOCATIONS)), (0, 0), "{context}: split lists in a merge frame");
    }
    // Its classify passes clear no record: pool.clean leaves every one clean for the next frame.
    let records = bisector::gpu::readback::read_buffer(&gpu.device, &gpu.queue, &pool.update, 0, pool.update.size());
    let clean = clean_update_records(pool.slot_count());
    let dirty: Vec<usize> = bytemuck::cast_slice::<u8, u32>(&records)
        .chunks(UPDATE_WORDS as usize)
        .zip(clean.chunks(UPDATE_WORDS as usize))
        .enumerate()
        .filter(|(_, (gpu, clean))| gpu != clean)
        .map(|(slot, _)| slot)
        .collect();
    assert!(dirty.is_empty(), "{context}: {} update records left dirty, first slots {:?}", dirty.len(), &dirty[..dirty.len().min(8)]);
}

/// What a pool holds, slots aside: for every leaf's id, the ids of its three neighbours (0 across
/// an open border) and its vertices.
fn meaning(state: &PoolState) -> BTreeMap<u64, ([u64; 3], [[u64; 2]; 3])> {
    let id_of = |slot: u32| if slot == NO_SLOT { 0 } else { state.ids.get(slot as usize).copied().unwrap_or(u64::MAX) };
    state
        .list
        .iter()
        .map(|&slot| (state.ids[slot as usize], (state.neighbours[slot as usize].map(id_of), state.vertices[slot as usize])))
        .collect()
}

/// Leaves per depth.
fn depth_histogram(state: &PoolState) -> BTreeMap<u32, u32> {
    let mut histogram = BTreeMap::new();
    for &slot in &state.list {
        *histogram.entry(63 - state.ids[slot as usize].leading_zeros()).or_default() += 1;
    }
    histogram
}

/// The GPU's state equals the twin's by meaning: the CBT's root count, the set of leaf ids, the
/// leaves per depth, every leaf's neighbours (as ids) and vertices, and T_eff².
fn assert_same_meaning(got: &PoolState, twin: &PoolTwin, context: &str) {
    let expected = twin.state();
    assert_eq!(got.cbt.node_count(), expected.cbt.node_count(), "{context}: the CBT's root counts");
    let (got_leaves, expected_leaves) = (meaning(got), meaning(&expected));
    assert_eq!(got_leaves.len(), got.list.len(), "{context}: an id is listed twice");
    // The compact mode keeps its draw list in tree order (shaders/pool_order.wgsl).
    let keys: Vec<u64> = got.list.iter().map(|&slot| tree_order_key(got.ids[slot as usize])).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{context}: the draw list is not in tree order");
    if let Some(id) = expected_leaves.keys().find(|id| !got_leaves.contains_key(id)) {
        panic!("{context}: leaf {id} is missing on the GPU ({} leaves there, {} in the twin)", got_leaves.len(), expected_leaves.len());
    }
    if let Some(id) = got_leaves.keys().find(|id| !expected_leaves.contains_key(id)) {
        panic!("{context}: the GPU holds leaf {id}, the twin does not");
    }
    assert_eq!(depth_histogram(got), depth_histogram(&expected), "{context}: leaves per depth");
    for (id, (neighbours, vertices)) in &expected_leaves {
        let (got_neighbours, got_vertices) = &got_leaves[id];
        assert_eq!(got_neighbours, neighbours, "{context}: the neighbours of leaf {id} (left, right, edge)");
        assert_eq!(got_vertices, vertices, "{context}: the vertices of leaf {id}");
    }
    assert_eq!(got.effective_target_sq_px2.to_bits(), expected.effective_target_sq_px2.to_bits(), "{context}: T_eff²");
}

/// Step 5: a new pool holds the base mesh as the twin does; an uploaded twin state reads back
/// unchanged and validates; a corrupted pointer, uploaded, is reported by `validate` on the
/// state read back; bad settings are refused with one line.
#[test]
fn uploaded_states_read_back_and_validate() {
    let mut rng = common::rng("uploaded_states_read_back_and_validate");
    let slots = 1 << 12;
    let gpu = gpu_for(slots);
    let settings = PoolSettings { pool_slots: slots, max_depth: 50, target_error_px: 1.0, ..Default::default() };
    let pool = GpuPool::new(&gpu, &settings).unwrap();
    let fresh = PoolTwin::new(BaseMesh64::octahedron(), 12, 50, 1.0);
    assert_same_pool(&pool.read_state(&gpu), &fresh, "the base mesh");
    assert_valid(&pool.read_twin(&gpu), "the base mesh");

    let mut twin = fresh.clone();
    for _ in 0..12 {
        let criterion = TestCriterion { salt: rng.random(), split_share: 1 << 14, keep_share: 0, random_max_depth: 40, foci: vec![] };
        twin.split_frame(|node, _| criterion.error_sq_px2(node));
    }
    assert!(twin.used_slots() > 100);
    pool.upload(&gpu, &twin);
    assert_same_pool(&pool.read_state(&gpu), &twin, "uploaded");
    assert_valid(&pool.read_twin(&gpu), "uploaded");

    let mut state = twin.state();
    let (a, b) = (state.list[rng.random_range(0..state.list.len())], state.list[rng.random_range(0..state.list.len())]);
    let field = rng.random_range(0..3);
    state.neighbours[a as usize][field] = if state.neighbours[a as usize][field] == b { a } else { b };
    pool.upload(&gpu, &twin.with_state(state));
    assert!(!pool.read_twin(&gpu).validate().is_empty(), "a wrong pointer in slot {a} went unnoticed");

    for bad in [PoolSettings { pool_slots: 3000, ..settings }, PoolSettings { pool_slots: 1 << 8, ..settings }] {
        let message = GpuPool::new(&gpu, &bad).err().expect("bad settings are refused").to_string();
        assert!(message.contains("--pool-slots") && !message.contains('\n'), "{message}");
    }
    let bad = PoolSettings { mode: PoolMode::Compact { workgroups: 0 }, ..settings };
    let message = GpuPool::new(&gpu, &bad).err().expect("a compact mode of no workgroups is refused").to_string();
    assert!(message.contains("workgroups") && !message.contains('\n'), "{message}");
}

/// Compares a read-back with the twin as the pool's mode allows: bit for bit in the
/// deterministic mode, by meaning in the compact one (slots differ there).
fn assert_like_twin(mode: PoolMode, state: &PoolState, twin: &PoolTwin, context: &str) {
    match mode {
        PoolMode::Deterministic => assert_same_pool(state, twin, context),
        PoolMode::Compact { .. } => assert_same_meaning(state, twin, context),
    }
}

/// `frames` random split and merge frames with foci on the folds, corners and base edges refined
/// to depths 41-56 (moved every 100 frames) in a 2^`pool_depth`-slot pool of `mode`, compared
/// with the twin after every frame, and its CBT heap with the heap its own bitfield reduces to;
/// returns whether the pool's slots ever left the twin's.
fn random_frames(name: &str, mode: PoolMode, pool_depth: u32, frames: u32) -> bool {
    let mut rng = common::rng(name);
    let max_depth = 56;
    let gpu = gpu_for(1 << pool_depth);
    let mesh = BaseMesh64::octahedron();
    let mut twin = PoolTwin::new(mesh.clone(), pool_depth, max_depth, 1.0);
    let pool = GpuPool::from_twin_in(&gpu, &twin, mode);
    // From 2^17 slots the compact mode reduces in pool.order's dispatch (pool_order_reduce.wgsl).
    assert_eq!(pool.reduces_in_order(), mode != PoolMode::Deterministic && pool_depth >= 17, "where the reduction runs");
    let mut foci = Vec::new();
    let (mut deepest, mut moved_slots) = (0, false);
    for frame_index in 0..frames {
        if frame_index % 100 == 0 {
            foci = (0..3).map(|_| node_at(&mesh, random_point(&mut rng), rng.random_range(41..=max_depth))).collect();
        }
        let criterion =
            TestCriterion { salt: rng.random(), split_share: 1 << 10, keep_share: 1 << 14, random_max_depth: 20, foci: foci.clone() };
        let context = format!("frame {frame_index}");
        frame(&gpu, &pool, &mut twin, &criterion, frame_index % 2 == 0, &context);
        let state = pool.read_state(&gpu);
        assert_like_twin(mode, &state, &twin, &context);
        let mut reduced = state.cbt.clone();
        reduced.reduce();
        assert!(state.cbt == reduced, "{context}: the CBT's counts are not its bitfield's");
        let mut slots = state.list.clone();
        slots.sort_unstable();
        moved_slots |= slots != twin.leaf_slots();
        if frame_index % 10 == 9 {
            assert_valid(&twin.with_state(state.clone()), &context);
            assert_watertight(&state, &context);
        }
        deepest = deepest.max(pool.read_counters(&gpu).max_depth_reached);
    }
    assert!(deepest > 40, "the frames reached depth {deepest} only");
    moved_slots
}

/// Steps 6 and 7: random split and merge frames, alternating, with foci on the folds, corners,
/// base edges and anywhere refined to depths 41-56 and moved once, random splits above depth 20
/// and random merges: after every frame the GPU pool equals the twin bit for bit, with the same
/// figures; every 10 frames its state read back validates and is watertight.
#[test]
fn random_frames_equal_the_twin() {
    assert!(!random_frames("random_frames_equal_the_twin", PoolMode::Deterministic, 14, 150), "the deterministic mode moved slots");
}

/// The compact mode (the renderer's) over the same random frames equals the twin by meaning.
#[test]
fn compact_frames_equal_the_twin_by_meaning() {
    let moved = random_frames("compact_frames_equal_the_twin_by_meaning", PoolMode::COMPACT, 14, 120);
    eprintln!("the compact mode's slots {} the twin's", if moved { "left" } else { "kept" });
}

/// The same in a pool of 2^17 slots, whose CBT the compact mode reduces in pool.order's dispatch:
/// after every frame the heap holds its bitfield's counts, and the pool equals the twin by meaning.
#[test]
fn compact_frames_reducing_in_pool_order_equal_the_twin() {
    random_frames("compact_frames_reducing_in_pool_order_equal_the_twin", PoolMode::COMPACT, 17, 120);
}

/// A pool of 4,096 slots of `mode` under a criterion that wants every leaf split: the splits back
/// off in priority order as the twin's do (the same b*, admitted and capped leaves, the same pool
/// after every frame); the pool fills past half without a crack or hole, and `capped_leaves` > 0.
/// Returns the longest candidate list (0 in the deterministic mode).
fn tiny_pool(name: &str, mode: PoolMode) -> u32 {
    let mut rng = common::rng(name);
    let (pool_depth, max_depth) = (12, 40);
    let gpu = gpu_for(1 << pool_depth);
    let mut twin = PoolTwin::new(BaseMesh64::octahedron(), pool_depth, max_depth, 1.0);
    let pool = GpuPool::from_twin_in(&gpu, &twin, mode);
    let salt = rng.random();
    let (mut capped, mut longest) = (0, 0);
    for frame_index in 0..40 {
        let criterion = TestCriterion { salt, split_share: 1 << 16, keep_share: 0, random_max_depth: 64, foci: vec![] };
        let context = format!("frame {frame_index}");
        frame(&gpu, &pool, &mut twin, &criterion, frame_index % 2 == 0, &context);
        let state = pool.read_state(&gpu);
        assert_like_twin(mode, &state, &twin, &context);
        assert!(twin.used_slots() <= twin.slot_count());
        if frame_index % 2 == 0 {
            let counters = pool.read_counters(&gpu);
            capped = counters.capped_leaves();
            assert_eq!(capped, twin.capped_leaves(), "{context}: capped leaves");
            longest = longest.max(counters.listed[LIST_CANDIDATES as usize]);
        }
        if frame_index % 5 == 4 {
            assert_valid(&twin.with_state(state.clone()), &context);
            assert_watertight(&state, &context);
        }
    }
    assert!(capped > 0, "the last split frame capped nothing");
    assert!(twin.used_slots() > (1 << pool_depth) / 2, "the pool never filled: {} slots used", twin.used_slots());
    longest
}

#[test]
fn a_tiny_pool_caps_like_the_twin() {
    assert_eq!(tiny_pool("a_tiny_pool_caps_like_the_twin", PoolMode::Deterministic), 0, "the deterministic mode listed candidates");
}

/// The compact mode with one workgroup per list pass, so each thread loops over many entries.
#[test]
fn compact_tiny_pool_caps_like_the_twin() {
    let longest = tiny_pool("compact_tiny_pool_caps_like_the_twin", PoolMode::Compact { workgroups: 1 });
    assert!(longest > 4 * 256, "the candidate lists had {longest} entries at most: the threads never looped");
}

/// The renderer's compact mode on the full tiny pool: each of mark's many workgroups finds the
/// same b* by its own scan of the histogram (the pool full), workgroup 0 writes it.
#[test]
fn compact_tiny_pool_scans_in_every_workgroup() {
    let longest = tiny_pool("compact_tiny_pool_scans_in_every_workgroup", PoolMode::COMPACT);
    assert!(longest > 256, "the candidate lists had {longest} entries at most: one workgroup held them");
}

/// A pool of 2^`pool_depth` slots of `mode` filled by a criterion that wants every leaf split for
/// `fill_frames` frames, then coarsened until `frames`, compared with the twin after every frame;
/// returns the most leaves it held and its last state.
fn fill_and_empty(name: &str, mode: PoolMode, pool_depth: u32, frames: u32, fill_frames: u32) -> (u32, PoolState) {
    let mut rng = common::rng(name);
    let max_depth = 30;
    let gpu = gpu_for(1 << pool_depth);
    let mut twin = PoolTwin::new(BaseMesh64::octahedron(), pool_depth, max_depth, 1.0);
    let pool = GpuPool::from_twin_in(&gpu, &twin, mode);
    let salt = rng.random();
    let mut most = 0;
    for frame_index in 0..frames {
        // Fill, then let everything merge (every parent under the merge target).
        let filling = frame_index < fill_frames;
        let split_share = if filling { 1 << 16 } else { 0 };
        let criterion = TestCriterion { salt, split_share, keep_share: 0, random_max_depth: 64, foci: vec![] };
        let context = format!("frame {frame_index}");
        frame(&gpu, &pool, &mut twin, &criterion, filling, &context);
        assert_like_twin(mode, &pool.read_state(&gpu), &twin, &context);
        most = most.max(twin.used_slots());
    }
    let state = pool.read_state(&gpu);
    assert_valid(&twin.with_state(state.clone()), "the end");
    assert_watertight(&state, "the end");
    (most, state)
}

/// A pool of 2^17 slots filled to over 65,536 leaves, then coarsened: the allocation's scan then
/// spans several group sums per thread, the list and every pass many workgroups, and the pool
/// still equals the twin bit for bit.
#[test]
fn a_large_pool_fills_and_empties_like_the_twin() {
    let (most, _) = fill_and_empty("a_large_pool_fills_and_empties_like_the_twin", PoolMode::Deterministic, 17, 20, 16);
    assert!(most > 1 << 16, "the pool held {most} leaves at most");
}

/// The compact mode's merges: a 2^16-slot pool filled by splits and merged back to the base
/// mesh, two workgroups per list pass, equals the twin by meaning after every frame and ends
/// with the 8 base triangles.
#[test]
fn compact_pool_fills_and_empties_like_the_twin() {
    let (most, state) = fill_and_empty("compact_pool_fills_and_empties_like_the_twin", PoolMode::Compact { workgroups: 2 }, 16, 36, 12);
    assert!(most > 1 << 14, "the pool held {most} leaves at most");
    assert_eq!(state.list.len(), 8, "the pool did not merge back to the base mesh");
}
