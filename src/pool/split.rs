//! The split frame of the pool (docs/design/bisector-pool.md 3.5 and 3.6), one function per GPU
//! pass; every pass reads state that no slot of the same pass writes.
//!
//! ```text
//! classify  every leaf: reset its update; e² = criterion(node, vertices); e² > T² wants a split:
//!           at max depth it is capped, else bucket b, chain cost c, hist[b] += c, candidate
//! threshold b* = lowest bucket whose suffix of hist fits the free slots; T_eff² from b*
//! mark      each candidate with b >= b* walks its chain on the snapshot, ORing pattern bits:
//!           itself CENTER; a same-depth hypotenuse neighbour CENTER (the chain ends); a coarser
//!           one CENTER | the requester's side (LEFT or RIGHT), and the walk goes on from it.
//!           A walk stops where the pattern was already non-zero: whoever set it covers the rest
//!           (the path from a bisector is unique), so the patterns do not depend on the order.
//!           The first setter of a pattern puts the bisector on the allocation list.
//! allocate  in slot order, popcount(pattern) free slots each: decode_free_slot(rank + j)
//! bisect    each listed bisector writes its pieces' ids, vertices and neighbour triples,
//!           reading its neighbours' patterns and child slots; it marks its new slots used
//! fix-up    an unsplit neighbour that named the bisector's slot names the piece on its edge
//! ```
//! Pieces of a bisector (v0, v1, v2), m = (v0 + v2) / 2, in tree order: child 0 = (v0, m, v1),
//! or with LEFT its children (v0, m0, m) and (m, m0, v1); child 1 = (v1, m, v2), or with RIGHT
//! (v1, m1, m) and (m, m1, v2). The first piece keeps the bisector's slot. Each split reverses
//! the orientation of the vertex order, so two leaves of one depth walk their shared edge in
//! opposite directions, while a leg and the hypotenuse of a leaf one level finer run the same
//! way: bisect pairs the two sides' pieces along an edge reversed or in order accordingly.

use crate::leb::node64::Node64;
use crate::pool::cpu::{child_vertices, FrameStats, PoolTwin, SlotUpdate, SplitCandidate, EDGE, LEFT, NO_SLOT, RIGHT};
use crate::pool::cpu::{SPLIT_CENTER, SPLIT_LEFT, SPLIT_RIGHT};
use crate::pool::priority;

/// A bisector's pieces after its split: child 0 as [itself, NO_SLOT] or as its two children, and
/// child 1 the same way; slot numbers.
struct Pieces {
    c0: [u32; 2],
    c1: [u32; 2],
}

impl Pieces {
    fn of(slot: u32, update: &SlotUpdate) -> Pieces {
        let mut next = update.children.into_iter();
        let mut take = || next.next().filter(|&s| s != NO_SLOT).expect("a split bisector has a slot for each new piece");
        let c0 = if update.pattern & SPLIT_LEFT != 0 { [slot, take()] } else { [slot, NO_SLOT] };
        let c1 = if update.pattern & SPLIT_RIGHT != 0 { [take(), take()] } else { [take(), NO_SLOT] };
        Pieces { c0, c1 }
    }
}

/// The pieces along one edge of a bisector, in the edge's direction (left v0 -> v1, right
/// v1 -> v2, hypotenuse v2 -> v0): (slot, neighbour field) for each, one or two, and how many.
type EdgePieces = ([(u32, usize); 2], usize);

impl PoolTwin {
    /// One split frame with criterion `error_sq_px2` (a node and its vertices -> its squared
    /// error in px²): every leaf whose error exceeds the target wants to split; the pool admits
    /// the chains of the largest errors first, as many as its free slots surely hold.
    pub fn split_frame(&mut self, error_sq_px2: impl FnMut(Node64, &[[u64; 2]; 3]) -> f32) -> FrameStats {
        self.split_frame_in_order(error_sq_px2, |_| {})
    }

    /// `split_frame`, with the candidates marked in the order `order` leaves in their index list
    /// (the GPU's threads run in any order; the result must not depend on it).
    pub(crate) fn split_frame_in_order(
        &mut self,
        mut error_sq_px2: impl FnMut(Node64, &[[u64; 2]; 3]) -> f32,
        order: impl FnOnce(&mut [usize]),
    ) -> FrameStats {
        let mut stats = FrameStats::default();
        self.classify_split(&mut error_sq_px2, &mut stats);
        self.threshold(&mut stats);
        let allocation_list = self.mark(order, &mut stats);
        self.allocate(&allocation_list, &mut stats);
        let fixups = self.bisect(&allocation_list);
        self.fix_up(&fixups);
        self.reduce_and_list();
        self.last_split = stats;
        self.last_frame = stats;
        stats
    }

    /// Pass `pool.classify` (split frame).
    fn classify_split(&mut self, error_sq_px2: &mut impl FnMut(Node64, &[[u64; 2]; 3]) -> f32, stats: &mut FrameStats) {
        self.histogram.fill(0);
        self.candidates.clear();
        for i in 0..self.list.len() {
            let slot = self.list[i];
            self.update[slot as usize] = SlotUpdate::reset(slot);
            let node = Node64(self.ids[slot as usize]);
            let error_sq = error_sq_px2(node, &self.vertices[slot as usize]);
            // A NaN error never wants a split.
            let wants_split = error_sq > self.target_sq_px2;
            if !wants_split {
                continue;
            }
            stats.wanted_split += 1;
            if node.depth() >= self.max_depth {
                stats.capped_by_depth += 1;
                continue;
            }
            let bucket = priority::bucket(error_sq, self.target_sq_px2);
            let cost_slots = self.chain_cost(slot);
            self.histogram[bucket as usize] += cost_slots;
            self.candidates.push(SplitCandidate { slot, node, bucket, cost_slots, admitted: false });
        }
    }

    /// The upper bound on the slots a chain from `slot` takes, walked on the current links.
    fn chain_cost(&self, slot: u32) -> u32 {
        let (mut cost, mut current) = (1, slot);
        loop {
            let twin = self.neighbours[current as usize][EDGE];
            if twin == NO_SLOT {
                return cost;
            }
            if self.depth(twin) == self.depth(current) {
                return cost + 1;
            }
            debug_assert_eq!(self.depth(twin) + 1, self.depth(current), "hypotenuse neighbour more than one level coarser");
            cost += 2;
            current = twin;
        }
    }

    fn depth(&self, slot: u32) -> u32 {
        Node64(self.ids[slot as usize]).depth()
    }

    /// Pass `pool.threshold`: b* from the histogram and the free slots, and T_eff² from b*.
    fn threshold(&mut self, stats: &mut FrameStats) {
        let free = self.slot_count() - self.used_slots();
        stats.threshold_bucket = priority::threshold_bucket(&self.histogram, free);
        self.effective_target_sq_px2 = priority::effective_target_sq(self.target_sq_px2, stats.threshold_bucket);
    }

    /// Pass `pool.mark`: the admitted candidates' chains; returns the allocation list (the first
    /// setter of each pattern appends its bisector, so each appears once).
    fn mark(&mut self, order: impl FnOnce(&mut [usize]), stats: &mut FrameStats) -> Vec<u32> {
        let mut candidates = std::mem::take(&mut self.candidates);
        let mut indices: Vec<usize> = (0..candidates.len()).collect();
        order(&mut indices);
        let mut allocation_list = Vec::new();
        for i in indices {
            let candidate = &mut candidates[i];
            if candidate.bucket >= stats.threshold_bucket {
                candidate.admitted = true;
                stats.admitted += 1;
                self.mark_chain(candidate.slot, &mut allocation_list);
            } else {
                stats.capped_by_pool += 1;
            }
        }
        self.candidates = candidates;
        allocation_list
    }

    /// ORs `bits` into `slot`'s pattern, returning the previous pattern (the GPU's atomicOr).
    fn or_pattern(&mut self, slot: u32, bits: u32) -> u32 {
        let pattern = &mut self.update[slot as usize].pattern;
        let previous = *pattern;
        *pattern |= bits;
        previous
    }

    fn mark_chain(&mut self, slot: u32, allocation_list: &mut Vec<u32>) {
        if self.or_pattern(slot, SPLIT_CENTER) != 0 {
            return;
        }
        allocation_list.push(slot);
        let mut current = slot;
        loop {
            let twin = self.neighbours[current as usize][EDGE];
            if twin == NO_SLOT {
                return;
            }
            if self.depth(twin) == self.depth(current) {
                if self.or_pattern(twin, SPLIT_CENTER) == 0 {
                    allocation_list.push(twin);
                }
                return;
            }
            // A coarser hypotenuse neighbour: `current`'s hypotenuse is one of its legs, and the
            // child along that leg splits too.
            let links = self.neighbours[twin as usize];
            let side = if links[LEFT] == current {
                SPLIT_LEFT
            } else {
                assert_eq!(links[RIGHT], current, "slot {twin} does not name slot {current} back across a leg");
                SPLIT_RIGHT
            };
            if self.or_pattern(twin, SPLIT_CENTER | side) != 0 {
                return;
            }
            allocation_list.push(twin);
            current = twin;
        }
    }

    /// Pass `pool.allocate`: in slot order (the bit-exact mode's prefix sum), each listed
    /// bisector takes popcount(pattern) free slots, found on the CBT as last reduced.
    fn allocate(&mut self, allocation_list: &[u32], stats: &mut FrameStats) {
        let mut list = allocation_list.to_vec();
        list.sort_unstable();
        let free = self.slot_count() - self.used_slots();
        let mut rank = 0;
        for &slot in &list {
            let count = self.update[slot as usize].pattern.count_ones();
            for j in 0..count {
                assert!(rank + j < free, "the split chains need more than the {free} free slots: a cost bound is wrong");
                self.update[slot as usize].children[j as usize] = self.cbt.decode_free_slot(rank + j);
            }
            rank += count;
        }
        stats.slots_allocated = rank;
    }

    /// The pieces along `slot`'s edge `field`, from the slot's pattern and child slots.
    fn edge_pieces(&self, slot: u32, field: usize) -> EdgePieces {
        let update = &self.update[slot as usize];
        if update.pattern == 0 {
            return ([(slot, field), (NO_SLOT, 0)], 1);
        }
        let Pieces { c0, c1 } = Pieces::of(slot, update);
        let (split0, split1) = (c0[1] != NO_SLOT, c1[1] != NO_SLOT);
        match field {
            // v2 -> m lies on child 1's side, m -> v0 on child 0's.
            EDGE => ([if split1 { (c1[1], EDGE) } else { (c1[0], RIGHT) }, if split0 { (c0[0], EDGE) } else { (c0[0], LEFT) }], 2),
            LEFT if split0 => ([(c0[0], LEFT), (c0[1], RIGHT)], 2),
            LEFT => ([(c0[0], EDGE), (NO_SLOT, 0)], 1),
            RIGHT if split1 => ([(c1[0], LEFT), (c1[1], RIGHT)], 2),
            _ => ([(c1[0], EDGE), (NO_SLOT, 0)], 1),
        }
    }

    /// Pass `pool.bisect` (after the copy of the neighbours, read here as `snapshot`): returns the
    /// fix-ups of unsplit neighbours (slot, field, old slot, new slot).
    fn bisect(&mut self, allocation_list: &[u32]) -> Vec<(u32, usize, u32, u32)> {
        let snapshot = self.neighbours.clone();
        let mut fixups = Vec::new();
        for &slot in allocation_list {
            let update = self.update[slot as usize];
            let Pieces { c0, c1 } = Pieces::of(slot, &update);
            let node = Node64(self.ids[slot as usize]);
            let v = self.vertices[slot as usize];
            for (half, pieces) in [c0, c1].into_iter().enumerate() {
                let (child, w) = (node.child(half as u64), child_vertices(v, half as u64));
                if pieces[1] == NO_SLOT {
                    self.place(pieces[0], child, w);
                } else {
                    self.place(pieces[0], child.child(0), child_vertices(w, 0));
                    self.place(pieces[1], child.child(1), child_vertices(w, 1));
                }
            }
            for &new_slot in update.children.iter().filter(|&&s| s != NO_SLOT) {
                self.cbt.set_slot_used(new_slot, true);
            }
            // The links inside the bisector: child 0's right edge meets child 1's left edge, and
            // each split child's two halves meet along its interior edge.
            let c0_right = if c0[1] != NO_SLOT { (c0[1], EDGE) } else { (c0[0], RIGHT) };
            let c1_left = if c1[1] != NO_SLOT { (c1[0], EDGE) } else { (c1[0], LEFT) };
            self.link(c0_right, c1_left);
            for pieces in [c0, c1] {
                if pieces[1] != NO_SLOT {
                    self.link((pieces[0], RIGHT), (pieces[1], LEFT));
                }
            }
            // The links across its three edges: the neighbour's pieces along the shared edge run
            // the other way.
            for field in [LEFT, RIGHT, EDGE] {
                let (mine, count) = self.edge_pieces(slot, field);
                let other = snapshot[slot as usize][field];
                if other == NO_SLOT {
                    for &(s, f) in &mine[..count] {
                        self.neighbours[s as usize][f] = NO_SLOT;
                    }
                    continue;
                }
                let other_field = snapshot[other as usize]
                    .iter()
                    .position(|&s| s == slot)
                    .unwrap_or_else(|| panic!("slot {other} does not name slot {slot} back"));
                let (theirs, their_count) = self.edge_pieces(other, other_field);
                assert_eq!(count, their_count, "crack: slots {slot} and {other} cut their shared edge differently");
                // Each split flips the vertex order's orientation, so two leaves of one depth walk
                // their shared edge in opposite directions (a leg meets a leg, or the hypotenuse
                // the hypotenuse), and a leg meets the hypotenuse of a leaf one level finer in
                // the same direction.
                let same_direction = (field == EDGE) != (other_field == EDGE);
                for (i, &(s, f)) in mine[..count].iter().enumerate() {
                    self.neighbours[s as usize][f] = theirs[if same_direction { i } else { count - 1 - i }].0;
                }
                if self.update[other as usize].pattern == 0 && mine[0].0 != slot {
                    fixups.push((other, other_field, slot, mine[0].0));
                }
            }
        }
        fixups
    }

    fn place(&mut self, slot: u32, node: Node64, vertices: [[u64; 2]; 3]) {
        debug_assert!(node.depth() <= self.max_depth, "{node:?} is deeper than max depth {}", self.max_depth);
        self.ids[slot as usize] = node.0;
        self.vertices[slot as usize] = vertices;
    }

    fn link(&mut self, (a, field_a): (u32, usize), (b, field_b): (u32, usize)) {
        self.neighbours[a as usize][field_a] = b;
        self.neighbours[b as usize][field_b] = a;
    }
}
