//! `PoolTwin::validate`: the pool's invariants, checked against the CBT and against the implicit
//! 64-bit neighbour arithmetic of `leb::node64` (docs/design/bisector-pool.md 3.4, the CPU side
//! of the future `pool.validate` pass).
//!
//! ```text
//! CBT      bit s set <=> ids[s] != 0; the counts equal a fresh reduction; root = used slots;
//!          the draw list = the used slots, in slot order (= decode_used_slot(i) for every i) or
//!          in tree order (the compact mode's: `tree_order_key` increasing)
//! slots    no id twice; base depth <= depth <= max depth; vertices = decode_vertices(id)
//! links    neighbour k of leaf T holds the leaf the ids predict: M = T's same-depth neighbour k,
//!          or across the hypotenuse M's parent, or across a leg M's child on T's side (left
//!          edges meet right edges: child 1 of a left neighbour, child 0 of a right one);
//!          each link is named back exactly once (symmetric)
//! graph    every used slot is reachable through the links from the first one
//! ```

use std::collections::HashMap;

use crate::leb::node64::Node64;
use crate::pool::cpu::{tree_order_key, PoolTwin, EDGE, LEFT, NO_SLOT, RIGHT};

/// At most this many violations are described; the rest are counted.
const MAX_REPORTED: usize = 16;

impl PoolTwin {
    /// Checks the pool's invariants (CBT counts, ids, vertices, symmetric links that equal the
    /// implicit neighbours, reachability). Returns the violations found; empty when consistent.
    pub fn validate(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let mut report = |message: String| {
            if errors.len() < MAX_REPORTED {
                errors.push(message);
            } else if errors.len() == MAX_REPORTED {
                errors.push("... more violations".to_string());
            }
        };
        let slots = self.slot_count();
        let used: Vec<u32> = (0..slots).filter(|&s| self.ids[s as usize] != 0).collect();
        for slot in 0..slots {
            if self.cbt.is_slot_used(slot) != (self.ids[slot as usize] != 0) {
                report(format!("slot {slot}: CBT bit {} but id {}", self.cbt.is_slot_used(slot), self.ids[slot as usize]));
            }
        }
        let mut reduced = self.cbt.clone();
        reduced.reduce();
        if reduced != self.cbt {
            report("the CBT's counts are not those of its bitfield".to_string());
        }
        if self.cbt.node_count() as usize != used.len() {
            report(format!("CBT root count {} for {} used slots", self.cbt.node_count(), used.len()));
        }
        if self.list != used {
            let mut sorted = self.list.clone();
            sorted.sort_unstable();
            if sorted != used {
                report(format!("the draw list has {} slots, {} are used", self.list.len(), used.len()));
            } else if !self.list.windows(2).all(|w| tree_order_key(self.ids[w[0] as usize]) < tree_order_key(self.ids[w[1] as usize])) {
                report("the draw list is in neither slot order nor tree order".to_string());
            }
        }
        for (i, &slot) in used.iter().enumerate().take(self.cbt.node_count() as usize) {
            if self.cbt.decode_used_slot(i as u32) != slot {
                report(format!("decode_used_slot({i}) = {} but used slot {i} is {slot}", self.cbt.decode_used_slot(i as u32)));
            }
        }

        let mut slot_of: HashMap<u64, u32> = HashMap::with_capacity(used.len());
        for &slot in &used {
            if let Some(other) = slot_of.insert(self.ids[slot as usize], slot) {
                report(format!("id {} in slots {other} and {slot}", self.ids[slot as usize]));
            }
        }
        for &slot in &used {
            let node = Node64(self.ids[slot as usize]);
            if node.depth() < self.mesh.depth || node.depth() > self.max_depth {
                report(format!("slot {slot}: {node:?} outside depths {}..={}", self.mesh.depth, self.max_depth));
                continue;
            }
            if self.vertices[slot as usize] != self.mesh.decode_vertices(node) {
                report(format!("slot {slot}: the vertices of {node:?} are not its decoded ones"));
            }
            let same_depth = self.mesh.neighbours(node);
            for (field, m) in [(LEFT, same_depth.left), (RIGHT, same_depth.right), (EDGE, same_depth.edge)] {
                let expected = self.leaf_across(&slot_of, field, m);
                let actual = self.neighbours[slot as usize][field];
                if actual == NO_SLOT {
                    if let Some(id) = expected {
                        report(format!("slot {slot} ({node:?}) field {field}: no neighbour, expected id {id}"));
                    }
                    continue;
                }
                let actual_id = self.ids.get(actual as usize).copied().unwrap_or(0);
                if expected != Some(actual_id) {
                    report(format!("slot {slot} ({node:?}) field {field}: slot {actual} holds id {actual_id}, expected {expected:?}"));
                }
                let back = self.neighbours.get(actual as usize).map_or(0, |links| links.iter().filter(|&&s| s == slot).count());
                if back != 1 {
                    report(format!("slot {slot} field {field} names slot {actual}, which names it back {back} times"));
                }
            }
        }

        if let Some(&first) = used.first() {
            let mut seen = vec![false; slots as usize];
            let mut stack = vec![first];
            seen[first as usize] = true;
            let mut reached = 0;
            while let Some(slot) = stack.pop() {
                reached += 1;
                for next in self.neighbours[slot as usize] {
                    if next != NO_SLOT && (next as usize) < seen.len() && !seen[next as usize] && self.ids[next as usize] != 0 {
                        seen[next as usize] = true;
                        stack.push(next);
                    }
                }
            }
            if reached != used.len() {
                report(format!("{reached} of {} used slots are reachable through the links", used.len()));
            }
        }
        errors
    }

    /// The id of the leaf across a leaf's edge `field`, whose same-depth neighbour there is `m`
    /// (0 = none): M itself, M's parent (hypotenuse), or M's child on the leaf's side (legs).
    fn leaf_across(&self, slot_of: &HashMap<u64, u32>, field: usize, m: u64) -> Option<u64> {
        if m == 0 {
            return None;
        }
        let m = Node64(m);
        let candidate = if slot_of.contains_key(&m.0) {
            m
        } else if field == EDGE {
            if m.depth() <= self.mesh.depth {
                return None;
            }
            m.parent()
        } else {
            m.child(if field == LEFT { 1 } else { 0 })
        };
        slot_of.contains_key(&candidate.0).then_some(candidate.0)
    }
}
