//! The CPU twins of the two tables: `CompactTable` (the compressed table on `AtomicU64`s, the
//! same slots, hash, probing and CAS protocol as the GPU's, so it also runs on all cores) and
//! `UncompressedTable`; `TableCopy`, a plain copy of a compressed table.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use super::*;

/// The CPU twin of the compressed table: the same slots, hash, probing and CAS protocol, on
/// `AtomicU64`s, so that it also runs on all cores.
pub struct CompactTable {
    pub geometry: Geometry,
    pub slots: Vec<AtomicU64>,
    /// The all-zero node is stored.
    pub zero: AtomicBool,
    /// One bit per slot: its node is the root of a stored vector (lengths 3 and more).
    pub root_bits: Vec<AtomicU32>,
    /// The all-zero node is the root of a stored vector.
    pub zero_root: AtomicBool,
}

/// A plain copy of a compressed table (read back from the GPU, or of a `CompactTable`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableCopy {
    /// 0 = empty.
    pub nodes: Vec<u64>,
    pub zero: bool,
    pub root_bits: Vec<u32>,
    pub zero_root: bool,
}

impl TableCopy {
    /// The stored node of `reference` (not the all-zero one), None for an empty or unknown slot.
    pub fn node(&self, reference: u32) -> Option<u64> {
        self.nodes.get(reference as usize).copied().filter(|&n| n != 0)
    }

    pub(super) fn is_root(&self, reference: u32) -> bool {
        if reference == ZERO_REFERENCE {
            self.zero_root
        } else {
            self.root_bits.get(reference as usize / 32).is_some_and(|w| w >> (reference % 32) & 1 == 1)
        }
    }
}

/// Words of a root bitmap for 2^`slot_log2` slots.
pub fn root_bitmap_words(slot_log2: u32) -> usize {
    (1usize << slot_log2).div_ceil(32)
}

impl CompactTable {
    pub fn new(geometry: Geometry) -> CompactTable {
        CompactTable {
            geometry,
            slots: (0..geometry.slots()).map(|_| AtomicU64::new(0)).collect(),
            zero: AtomicBool::new(false),
            root_bits: (0..root_bitmap_words(geometry.slot_log2)).map(|_| AtomicU32::new(0)).collect(),
            zero_root: AtomicBool::new(false),
        }
    }

    /// Claims `reference` as the root of a stored vector: true for the one call that does.
    fn claim_root(&self, reference: u32) -> bool {
        if reference == ZERO_REFERENCE {
            return !self.zero_root.swap(true, Ordering::Relaxed);
        }
        let bit = 1u32 << (reference % 32);
        self.root_bits[reference as usize / 32].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// findOrPut of one node: its reference, | NEW_BIT when this call stored it, or FAILED.
    pub fn find_or_put_node(&self, left: u32, right: u32) -> u32 {
        if left == 0 && right == 0 {
            return if self.zero.swap(true, Ordering::Relaxed) { ZERO_REFERENCE } else { ZERO_REFERENCE | NEW_BIT };
        }
        let node = pack(left, right);
        for slot in self.geometry.probe(hash_node(left, right)) {
            match self.slots[slot as usize].compare_exchange(0, node, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return slot | NEW_BIT,
                Err(current) if current == node => return slot,
                Err(_) => {}
            }
        }
        FAILED
    }

    /// findOrPut of one vector: its root reference, | NEW_BIT when it was not stored yet, or FAILED.
    pub fn find_or_put(&self, vector: &[u32]) -> u32 {
        let result = tree_find_or_put(vector, |l, r| self.find_or_put_node(l, r));
        if vector.len() <= 2 || result == FAILED {
            return result;
        }
        let root = result & REFERENCE_MASK;
        if self.claim_root(root) {
            root | NEW_BIT
        } else {
            root
        }
    }

    /// A plain copy.
    pub fn snapshot(&self) -> TableCopy {
        TableCopy {
            nodes: self.slots.iter().map(|s| s.load(Ordering::Relaxed)).collect(),
            zero: self.zero.load(Ordering::Relaxed),
            root_bits: self.root_bits.iter().map(|s| s.load(Ordering::Relaxed)).collect(),
            zero_root: self.zero_root.load(Ordering::Relaxed),
        }
    }
}

/// The CPU twin of the uncompressed table: slots of one state word and `length` words, claimed
/// by a CAS of the state from empty to the vector's index + 1, then written, then marked ready;
/// a reader compares a claimed slot's vector in the input, so it never waits.
pub struct UncompressedTable {
    pub geometry: Geometry,
    pub length: usize,
    pub cells: Vec<AtomicU32>,
}

impl UncompressedTable {
    pub fn new(geometry: Geometry, length: usize) -> UncompressedTable {
        UncompressedTable { geometry, length, cells: (0..geometry.slots() * (length + 1)).map(|_| AtomicU32::new(0)).collect() }
    }

    /// findOrPut of `vectors[v]` (a batch): its slot, | NEW_BIT when this call stored it, or FAILED.
    pub fn find_or_put(&self, vectors: &[&[u32]], v: usize) -> u32 {
        let vector = vectors[v];
        let hash = hash_vector(vector);
        let ready = hash | READY_BIT;
        for slot in self.geometry.probe(hash) {
            let at = slot as usize * (self.length + 1);
            let state = match self.cells[at].compare_exchange(EMPTY_STATE, v as u32 + 1, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    for (cell, &w) in self.cells[at + 1..].iter().zip(vector) {
                        cell.store(w, Ordering::Relaxed);
                    }
                    self.cells[at].store(ready, Ordering::Release);
                    return slot | NEW_BIT;
                }
                Err(state) => state,
            };
            let holds = if state & READY_BIT == 0 {
                vectors[state as usize - 1] == vector
            } else {
                state == ready && self.cells[at + 1..at + 1 + self.length].iter().zip(vector).all(|(c, &w)| c.load(Ordering::Relaxed) == w)
            };
            if holds {
                return slot;
            }
        }
        FAILED
    }
}
