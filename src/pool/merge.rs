//! The merge frame of the pool (docs/design/bisector-pool.md 1.7 and 3.5), one function per GPU
//! pass.
//!
//! ```text
//! classify  every leaf: reset its update; an even leaf below the base depth whose sibling is a
//!           leaf (its right neighbour) is in merge state when the criterion on their parent
//!           (vertices from the child) is at most MERGE_RATIO_SQ · T_eff², and goes on the merge
//!           list; the odd sibling takes no criterion (the even one decides for the pair)
//! elect     even leaf c0 of parent P: its sibling c1 = c0's right neighbour, the facing pair
//!           q1 = c0's left and q0 = c1's right neighbour (children of P's hypotenuse partner Q),
//!           all four leaves of one depth, c0 and q0 in merge state; the smaller id of c0 and q0
//!           elects.
//!           It marks the four merged and each odd child's survivor (its even sibling's slot).
//! merge     P takes c0's slot and id / 2, Q takes q0's; c1's and q1's slots are freed.
//!           P's neighbours: left = survivor(c0's hypotenuse neighbour), right = survivor(c1's),
//!           edge = q0's slot (and the same for Q)
//! fix-up    an unmerged neighbour that named a freed slot names the survivor
//! ```
//! Diamonds whose four children are leaves never conflict: a child's legs face the other three,
//! so a leaf across a child's hypotenuse that merges too is as deep as the child, and the merged
//! parents meet leg to leg.

use crate::leb::node64::Node64;
use crate::pool::cpu::{parent_vertices, FrameStats, PoolTwin, SlotUpdate, EDGE, LEFT, NO_SLOT, RIGHT};

impl PoolTwin {
    /// One merge frame with criterion `error_sq_px2` (as `split_frame`'s, evaluated on the
    /// parents): every diamond whose four children are leaves and whose two parents' errors are
    /// at most `merge_target_sq_px2()` merges.
    pub fn merge_frame(&mut self, mut error_sq_px2: impl FnMut(Node64, &[[u64; 2]; 3]) -> f32) -> FrameStats {
        let mut stats = FrameStats::default();
        let merge_list = self.classify_merge(&mut error_sq_px2);
        let diamonds = self.elect(&merge_list);
        let fixups = self.merge(&diamonds, &mut stats);
        self.fix_up(&fixups);
        self.reduce_and_list();
        self.last_frame = stats;
        stats
    }

    /// Pass `pool.classify` (merge frame): returns the merge list (even leaves in merge state).
    fn classify_merge(&mut self, error_sq_px2: &mut impl FnMut(Node64, &[[u64; 2]; 3]) -> f32) -> Vec<u32> {
        let merge_sq = self.merge_target_sq_px2();
        let mut merge_list = Vec::new();
        for i in 0..self.list.len() {
            let slot = self.list[i];
            self.update[slot as usize] = SlotUpdate::reset(slot);
            let node = Node64(self.ids[slot as usize]);
            if node.0 & 1 == 1 || node.depth() <= self.mesh.depth {
                continue;
            }
            let sibling = self.neighbours[slot as usize][RIGHT];
            if sibling == NO_SLOT || self.ids[sibling as usize] != node.0 | 1 {
                continue;
            }
            let parent = parent_vertices(self.vertices[slot as usize], 0);
            if error_sq_px2(node.parent(), &parent) <= merge_sq {
                self.update[slot as usize].merge = true;
                merge_list.push(slot);
            }
        }
        merge_list
    }

    /// Pass `pool.merge_elect`: the diamonds [c0, c1, q0, q1] (q0 = q1 = NO_SLOT on an open
    /// border), each found by exactly one of its even leaves.
    fn elect(&mut self, merge_list: &[u32]) -> Vec<[u32; 4]> {
        let mut diamonds = Vec::new();
        for &c0 in merge_list {
            let id = self.ids[c0 as usize];
            let c1 = self.neighbours[c0 as usize][RIGHT];
            if c1 == NO_SLOT || self.ids[c1 as usize] != id | 1 {
                continue;
            }
            let (q1, q0) = (self.neighbours[c0 as usize][LEFT], self.neighbours[c1 as usize][RIGHT]);
            if q1 == NO_SLOT && q0 == NO_SLOT {
                diamonds.push([c0, c1, NO_SLOT, NO_SLOT]);
                continue;
            }
            if q1 == NO_SLOT || q0 == NO_SLOT {
                continue;
            }
            let (q0_id, q1_id) = (self.ids[q0 as usize], self.ids[q1 as usize]);
            let facing_pair = q0_id & 1 == 0 && q1_id == q0_id | 1 && Node64(q0_id).depth() == Node64(id).depth();
            if facing_pair && self.update[q0 as usize].merge && id < q0_id {
                diamonds.push([c0, c1, q0, q1]);
            }
        }
        for &[c0, c1, q0, q1] in &diamonds {
            for (even, odd) in [(c0, c1), (q0, q1)] {
                if even != NO_SLOT {
                    self.update[even as usize].merged = true;
                    self.update[odd as usize].merged = true;
                    self.update[odd as usize].survivor = even;
                }
            }
        }
        diamonds
    }

    /// Pass `pool.merge` (reading the neighbours as a snapshot): returns the fix-ups of unmerged
    /// neighbours (slot, field, old slot, new slot).
    fn merge(&mut self, diamonds: &[[u32; 4]], stats: &mut FrameStats) -> Vec<(u32, usize, u32, u32)> {
        let snapshot = self.neighbours.clone();
        let survivor = |update: &[SlotUpdate], slot: u32| if slot == NO_SLOT { NO_SLOT } else { update[slot as usize].survivor };
        let mut fixups = Vec::new();
        for &[c0, c1, q0, q1] in diamonds {
            for (even, odd, partner) in [(c0, c1, q0), (q0, q1, c0)] {
                if even == NO_SLOT {
                    continue;
                }
                let (e, o) = (even as usize, odd as usize);
                self.vertices[e] = parent_vertices(self.vertices[e], 0);
                self.ids[e] >>= 1;
                self.ids[o] = 0;
                self.cbt.set_slot_used(odd, false);
                self.neighbours[e] = [survivor(&self.update, snapshot[e][EDGE]), survivor(&self.update, snapshot[o][EDGE]), partner];
                let outside = snapshot[o][EDGE];
                if outside != NO_SLOT && !self.update[outside as usize].merged {
                    let field = snapshot[outside as usize]
                        .iter()
                        .position(|&s| s == odd)
                        .unwrap_or_else(|| panic!("slot {outside} does not name slot {odd} back"));
                    fixups.push((outside, field, odd, even));
                }
                stats.slots_freed += 1;
            }
            stats.diamonds_merged += 1;
        }
        fixups
    }
}
