//! `PoolTwin`: the CPU twin of the bisector pool, the same arrays as the GPU's buffers
//! (docs/design/bisector-pool.md 3.3) and the same passes as functions (split.rs, merge.rs).
//!
//! ```text
//! ids[s]         u64 node id, 0 = free                         (pool.ids)
//! neighbours[s]  [left, right, edge] slots                     (pool.neighbours, read as a snapshot)
//! vertices[s]    (v0, v1, v2) fixed-point map points           (pool.vertices)
//! update[s]      this frame's pattern, child slots, merge state (pool.update, reset by classify)
//! list           used slots in slot order                      (the draw list, pool.list)
//! cbt            pool-mode CBT: bit s = slot s used, reduced after every frame
//! ```
//! Base triangle i starts in slot i. A split keeps the parent's slot for its first piece (child 0,
//! or child 0's child 0) and takes the others from the free slots, in slot order; a merge keeps
//! the even child's slot and frees the odd one's. So a node's leftmost descendant always sits in
//! the node's slot, and merging everything returns every base triangle to its first slot.

use crate::cbt::cpu::Cbt;
use crate::leb::node64::{BaseMesh64, Node64, MAX_DEPTH_64};

/// "No neighbour" (an open mesh's border; the octahedron has none).
pub const NO_SLOT: u32 = u32::MAX;
/// Neighbour field across (v0, v1).
pub const LEFT: usize = 0;
/// Neighbour field across (v1, v2).
pub const RIGHT: usize = 1;
/// Neighbour field across the hypotenuse (v2, v0).
pub const EDGE: usize = 2;

/// Split pattern bit: the bisector splits in two.
pub const SPLIT_CENTER: u32 = 1;
/// Split pattern bit: child 0 (the half along the left edge) splits again.
pub const SPLIT_LEFT: u32 = 2;
/// Split pattern bit: child 1 (the half along the right edge) splits again.
pub const SPLIT_RIGHT: u32 = 4;

/// Merge hysteresis: a diamond merges when both parents' squared error is at most this times the
/// squared effective target (0.75², an error of at most 0.75 T_eff).
pub const MERGE_RATIO_SQ: f32 = 0.5625;

/// One slot's per-frame state (the GPU's `pool.update`), reset for every leaf by classify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotUpdate {
    /// SPLIT_* bits ORed by the split chains.
    pub pattern: u32,
    /// The slots allocated for the pieces after the first (which keeps this slot), in tree order.
    pub children: [u32; 3],
    /// Merge state: the parent's error is low enough to merge.
    pub merge: bool,
    /// Elected: this leaf's diamond merges in this frame.
    pub merged: bool,
    /// The slot that holds this leaf's area after the merge pass (itself, or for an odd child
    /// that is merged its even sibling's slot).
    pub survivor: u32,
}

impl SlotUpdate {
    pub(crate) fn reset(slot: u32) -> SlotUpdate {
        SlotUpdate { pattern: 0, children: [NO_SLOT; 3], merge: false, merged: false, survivor: slot }
    }
}

/// What one frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Leaves whose error exceeded the target (split frames).
    pub wanted_split: u32,
    /// Leaves admitted to start a split chain (bucket >= b*).
    pub admitted: u32,
    /// Leaves that wanted to split at max depth.
    pub capped_by_depth: u32,
    /// Leaves that wanted to split below max depth but whose bucket was below b* (pool full).
    pub capped_by_pool: u32,
    /// b*, the lowest admitted priority bucket (0: all admitted; 1024: none).
    pub threshold_bucket: u32,
    /// Slots allocated by the splits.
    pub slots_allocated: u32,
    /// Diamonds merged (a diamond on an open border is one parent).
    pub diamonds_merged: u32,
    /// Slots freed by the merges.
    pub slots_freed: u32,
}

impl FrameStats {
    /// Leaves that wanted to split but could not, by depth or by pool.
    pub fn capped_leaves(&self) -> u32 {
        self.capped_by_depth + self.capped_by_pool
    }
}

/// A leaf that wanted to split below max depth in the last split frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitCandidate {
    /// Its slot.
    pub slot: u32,
    /// Its node.
    pub node: Node64,
    /// Its priority bucket (`priority::bucket`).
    pub bucket: u32,
    /// The upper bound on the slots its chain takes: 1 for itself, +1 per same-depth step and
    /// +2 per coarser step along the chain of hypotenuse neighbours.
    pub cost_slots: u32,
    /// Whether its chain was admitted (bucket >= b*).
    pub admitted: bool,
}

/// The pool's arrays: copied from a twin (`PoolTwin::state`) or read back from the GPU
/// (`GpuPool::read_state`), and turned back into a twin by `PoolTwin::with_state`.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolState {
    /// Node id per slot (0 = free).
    pub ids: Vec<u64>,
    /// [left, right, edge] slots per slot (meaningful for used slots only).
    pub neighbours: Vec<[u32; 3]>,
    /// Fixed-point map vertices per slot (meaningful for used slots only).
    pub vertices: Vec<[[u64; 2]; 3]>,
    /// The pool-mode CBT.
    pub cbt: Cbt,
    /// The draw list: the used slots in slot order.
    pub list: Vec<u32>,
    /// T_eff² in px².
    pub effective_target_sq_px2: f32,
}

/// The key of node `id` in tree order: its path bits left-aligned, so that depth first by id, a
/// node's subtree comes after its ancestors' earlier subtrees and before their later ones.
pub fn tree_order_key(id: u64) -> u64 {
    id << id.leading_zeros()
}

impl PoolState {
    /// The used slots in tree order (the compact mode's draw list, shaders/pool_order.wgsl).
    pub fn tree_order(&self) -> Vec<u32> {
        let mut list = self.list.clone();
        list.sort_by_key(|&slot| tree_order_key(self.ids[slot as usize]));
        list
    }
}

/// The CPU twin of the bisector pool over a base mesh.
#[derive(Clone, Debug)]
pub struct PoolTwin {
    pub(crate) mesh: BaseMesh64,
    pub(crate) max_depth: u32,
    pub(crate) target_sq_px2: f32,
    pub(crate) effective_target_sq_px2: f32,
    pub(crate) cbt: Cbt,
    pub(crate) ids: Vec<u64>,
    pub(crate) neighbours: Vec<[u32; 3]>,
    pub(crate) vertices: Vec<[[u64; 2]; 3]>,
    pub(crate) update: Vec<SlotUpdate>,
    pub(crate) list: Vec<u32>,
    pub(crate) histogram: Vec<u32>,
    pub(crate) candidates: Vec<SplitCandidate>,
    pub(crate) last_split: FrameStats,
    pub(crate) last_frame: FrameStats,
}

impl PoolTwin {
    /// A pool of 2^`pool_depth` slots holding the base triangles of `mesh` (triangle i in slot i),
    /// refined at most to `max_depth`, splitting leaves whose error exceeds `target_error_px`.
    pub fn new(mesh: BaseMesh64, pool_depth: u32, max_depth: u32, target_error_px: f32) -> PoolTwin {
        assert!(max_depth > mesh.depth && max_depth <= MAX_DEPTH_64, "max depth {max_depth} outside {}..={MAX_DEPTH_64}", mesh.depth + 1);
        assert!(target_error_px.is_finite() && target_error_px > 0.0, "target error {target_error_px} px is not positive");
        let mut cbt = Cbt::new_pool(pool_depth);
        let slots = cbt.slot_count() as usize;
        let roots: Vec<Node64> = mesh.roots().collect();
        assert!(roots.len() <= slots, "{} base triangles do not fit in {slots} slots", roots.len());
        let first_root = 1u64 << mesh.depth;
        let slot_of = |id: u64| if id == 0 { NO_SLOT } else { (id - first_root) as u32 };
        let (mut ids, mut neighbours, mut vertices) = (vec![0; slots], vec![[NO_SLOT; 3]; slots], vec![[[0; 2]; 3]; slots]);
        for (slot, &root) in roots.iter().enumerate() {
            let n = mesh.neighbours(root);
            ids[slot] = root.0;
            neighbours[slot] = [slot_of(n.left), slot_of(n.right), slot_of(n.edge)];
            vertices[slot] = mesh.decode_vertices(root);
            cbt.set_slot_used(slot as u32, true);
        }
        cbt.reduce();
        let target_sq_px2 = target_error_px * target_error_px;
        let mut twin = PoolTwin {
            mesh,
            max_depth,
            target_sq_px2,
            effective_target_sq_px2: target_sq_px2,
            cbt,
            ids,
            neighbours,
            vertices,
            update: (0..slots as u32).map(SlotUpdate::reset).collect(),
            list: Vec::new(),
            histogram: vec![0; crate::pool::priority::BUCKET_COUNT],
            candidates: Vec::new(),
            last_split: FrameStats::default(),
            last_frame: FrameStats::default(),
        };
        twin.list_pass();
        twin
    }

    /// A copy of the pool's arrays.
    pub fn state(&self) -> PoolState {
        PoolState {
            ids: self.ids.clone(),
            neighbours: self.neighbours.clone(),
            vertices: self.vertices.clone(),
            cbt: self.cbt.clone(),
            list: self.list.clone(),
            effective_target_sq_px2: self.effective_target_sq_px2,
        }
    }

    /// A twin of the same mesh, max depth and target holding `state` (e.g. read back from the
    /// GPU, to `validate` it or to run it on); the per-frame state starts afresh.
    pub fn with_state(&self, state: PoolState) -> PoolTwin {
        let slots = self.slot_count() as usize;
        assert!(
            state.ids.len() == slots && state.neighbours.len() == slots && state.vertices.len() == slots,
            "a state of {} slots for a pool of {slots}",
            state.ids.len()
        );
        assert_eq!(state.cbt.slot_count() as usize, slots, "the state's CBT has another size");
        PoolTwin {
            cbt: state.cbt,
            ids: state.ids,
            neighbours: state.neighbours,
            vertices: state.vertices,
            list: state.list,
            effective_target_sq_px2: state.effective_target_sq_px2,
            update: (0..slots as u32).map(SlotUpdate::reset).collect(),
            candidates: Vec::new(),
            last_split: FrameStats::default(),
            last_frame: FrameStats::default(),
            ..self.clone()
        }
    }

    /// The base mesh.
    pub fn mesh(&self) -> &BaseMesh64 {
        &self.mesh
    }

    /// No node deeper than this is made.
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Slots of the pool (2^D).
    pub fn slot_count(&self) -> u32 {
        self.cbt.slot_count()
    }

    /// Used slots = leaves: the reduced CBT's root count.
    pub fn used_slots(&self) -> u32 {
        self.cbt.node_count()
    }

    /// The pool's allocator.
    pub fn cbt(&self) -> &Cbt {
        &self.cbt
    }

    /// The used slots in slot order (the draw list).
    pub fn leaf_slots(&self) -> &[u32] {
        &self.list
    }

    /// The leaves: the ids of the used slots, in slot order.
    pub fn leaves(&self) -> Vec<Node64> {
        self.list.iter().map(|&s| Node64(self.ids[s as usize])).collect()
    }

    /// The node in `slot` (None when the slot is free).
    pub fn node(&self, slot: u32) -> Option<Node64> {
        let id = self.ids[slot as usize];
        (id != 0).then_some(Node64(id))
    }

    /// The slots across `slot`'s left, right and hypotenuse edges (NO_SLOT: none).
    pub fn neighbour_slots(&self, slot: u32) -> [u32; 3] {
        self.neighbours[slot as usize]
    }

    /// The stored vertices (v0, v1, v2) of `slot`, fixed-point map coordinates.
    pub fn vertices(&self, slot: u32) -> [[u64; 2]; 3] {
        self.vertices[slot as usize]
    }

    /// Leaves that wanted to split but could not (by depth or by pool) in the last split frame.
    pub fn capped_leaves(&self) -> u32 {
        self.last_split.capped_leaves()
    }

    /// The last split frame's figures.
    pub fn last_split_stats(&self) -> FrameStats {
        self.last_split
    }

    /// The last frame's figures (split or merge).
    pub fn last_frame_stats(&self) -> FrameStats {
        self.last_frame
    }

    /// The leaves that wanted to split below max depth in the last split frame, in slot order,
    /// with their buckets, chain costs and admission.
    pub fn split_candidates(&self) -> &[SplitCandidate] {
        &self.candidates
    }

    /// T² in px².
    pub fn target_sq_px2(&self) -> f32 {
        self.target_sq_px2
    }

    /// T_eff² in px², set by the last split frame's b* (`priority::effective_target_sq`).
    pub fn effective_target_sq_px2(&self) -> f32 {
        self.effective_target_sq_px2
    }

    /// The squared error in px² at or below which a parent may merge: MERGE_RATIO_SQ · T_eff².
    pub fn merge_target_sq_px2(&self) -> f32 {
        MERGE_RATIO_SQ * self.effective_target_sq_px2
    }

    /// The draw list: the used slots in slot order, read from the CBT's bitfield (the GPU lists
    /// them by bitfield word, which keeps the same order).
    pub(crate) fn list_pass(&mut self) {
        let cbt = &self.cbt;
        self.list = (0..cbt.slot_count()).filter(|&s| cbt.is_slot_used(s)).collect();
    }

    /// The end of every frame: the reduction of the CBT, then the draw list.
    pub(crate) fn reduce_and_list(&mut self) {
        self.cbt.reduce();
        self.list_pass();
    }

    /// Applies deferred pointer repairs (slot, field, old value, new value) to the neighbours.
    pub(crate) fn fix_up(&mut self, fixups: &[(u32, usize, u32, u32)]) {
        for &(slot, field, old, new) in fixups {
            let pointer = &mut self.neighbours[slot as usize][field];
            assert_eq!(*pointer, old, "fix-up of slot {slot} field {field}: it no longer names slot {old}");
            *pointer = new;
        }
    }
}

/// Vertices of child `bit` of a triangle (v0, v1, v2): (v0, m, v1) or (v1, m, v2), m the
/// hypotenuse's midpoint (exact: the grid halves at most once per level).
pub(crate) fn child_vertices(v: [[u64; 2]; 3], bit: u64) -> [[u64; 2]; 3] {
    let m = [(v[0][0] + v[2][0]) >> 1, (v[0][1] + v[2][1]) >> 1];
    if bit == 0 {
        [v[0], m, v[1]]
    } else {
        [v[1], m, v[2]]
    }
}

/// Vertices of the parent of a child with vertices `v`: from child 0 (a, m, b) it is
/// (a, b, 2m - a), from child 1 (a, m, b) it is (2m - b, a, b). Exact: 2m <= 2^63.
pub(crate) fn parent_vertices(v: [[u64; 2]; 3], bit: u64) -> [[u64; 2]; 3] {
    let [a, m, b] = v;
    if bit == 0 {
        [a, b, [2 * m[0] - a[0], 2 * m[1] - a[1]]]
    } else {
        [[2 * m[0] - b[0], 2 * m[1] - b[1]], a, b]
    }
}
