//! `bisector kernel compact-hash`: findOrPut of state vectors into a tree-compressed hash table
//! (seed 002), beside an uncompressed table of the same vectors, every GPU result verified against
//! the CPU twin below.
//!
//! Tree compression. A vector of n words (1..=8) is a binary tree of n - 1 nodes of 64 bits, two
//! 32-bit halves each, built bottom-up without recursion: each level pairs item 2j with item
//! 2j + 1 into a node (left half low, right half high) and carries an odd last item up unchanged,
//! until one node is left, the root. Leaves are the words themselves: a child covering one word
//! is that word, a child covering more is the reference (slot index) of its node. For n = 3:
//! root = (node(w0, w1), w2); for n = 5: root = (node(node(w0, w1), node(w2, w3)), w4). The shape
//! depends on n alone, so a root reference identifies a vector of a given length (the tables hold
//! vectors of one length, as a model checker's states are). A vector of one word is the node
//! (w, 0): one node, half of it unused (the paper's "lost" entries of length 1).
//!
//! The table: 2^slot_log2 slots of 64 bits, buckets of 2^bucket_log2 slots (2..=32), the first
//! bucket from the node's hash, linear probing over at most 8 buckets; when those are full, the
//! paper's rehashing: another first bucket from the next of MAX_HASHES = 4 hash functions; then
//! the findOrPut fails and is counted (overflow, reported, never silent). An empty slot is 0 and
//! is claimed with a 64-bit compare-and-swap (WGSL `atomic<u64>`, wgpu's SHADER_INT64 +
//! SHADER_INT64_ATOMIC_ALL_OPS, which naga 30 and lavapipe support, no `enable` needed; so no
//! 32-bit state-word protocol with readers waiting for "written"). The all-zero node, which would
//! read as empty, is kept out of the table as one flag with the reference ZERO_REFERENCE.
//!
//! New vs seen. Every thread that looks for one node visits the same slots in the same order,
//! and slots only go from empty to full, so all of them reach the same slot: exactly one wins the
//! CAS and reports the node new. For lengths 1 and 2 every node is a root and a vector is new
//! exactly when its node is. From length 3 on, a root (reference r, word w) may equal bit for bit
//! a node of another role (the words (r, w) of another vector), and one node then serves both, so
//! "root node seen" does not mean "vector seen": the root's slot is claimed in a bitmap of one bit
//! per slot (1/64 of the table), and the findOrPut whose atomicOr sets the bit reports the vector
//! new. (Words use all 32 bits, so no bit of a node can tell roles apart.) Racing duplicates (one
//! vector several times in a batch): the thread that installs the root (lengths 1, 2) or sets its
//! root bit (3 and more) first reports "new"; which of them depends on timing; the one-thread
//! CPU reference reports the first occurrence. So the verification compares per distinct vector:
//! exactly one "new" among its occurrences in the batch that stores it, none in a later batch; a
//! vector that occurs once has exactly the CPU's flag. Slot numbers also depend on timing, so the
//! stored trees are compared by meaning (`check_compact_table`).
//!
//! The uncompressed table stores whole vectors: a state word (empty / claimed by vector i /
//! ready = hash) and the words, wait-free; see shaders/kernel_compact_hash_uncompressed.wgsl.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wgpu::util::DeviceExt;

use crate::gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use crate::gpu::readback::read_buffer;
use crate::gpu::{profiled_compute_pass, Gpu};
use crate::kernels::{submit_and_time_all, TimingMs};
use crate::shaders::SHADERS;

/// Parameters of a pass. Keep in sync with CompactHashParams in shaders/shared/compact_hash.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CompactHashParams {
    pub vectors: u32,
    pub length: u32,
    pub slot_log2: u32,
    pub bucket_log2: u32,
}
const _: () = assert!(std::mem::size_of::<CompactHashParams>() == 16);

/// Set in a result when this findOrPut stored the vector (or node).
pub const NEW_BIT: u32 = 0x8000_0000;
/// A result's reference bits.
pub const REFERENCE_MASK: u32 = 0x7fff_ffff;
/// The result of a findOrPut that found no free slot (see `Geometry::probe`).
pub const FAILED: u32 = u32::MAX;
/// The reference of the all-zero node, which is not stored in the table (never a slot index,
/// and with NEW_BIT not FAILED).
pub const ZERO_REFERENCE: u32 = 0x7fff_fffe;
/// Linear probing visits at most this many buckets per hash function.
pub const MAX_PROBED_BUCKETS: u32 = 8;
/// Hash functions tried (rehashing) before a findOrPut fails.
pub const MAX_HASHES: u32 = 4;
/// Longest vector, in 32-bit words.
pub const MAX_LENGTH: u32 = 8;
/// Largest table: 2^27 slots (1 GiB of nodes); references stay below ZERO_REFERENCE.
pub const MAX_SLOT_LOG2: u32 = 27;
/// Bucket sizes in slots: 2^1..=2^5.
pub const BUCKET_SIZES: [u32; 5] = [2, 4, 8, 16, 32];
/// Most vectors in one run.
pub const MAX_VECTORS: u32 = 1 << 26;
/// 2^32 / the golden ratio: decorrelates the node hash and the rehash rounds (GOLDEN in the shaders).
pub const GOLDEN: u32 = 0x9e37_79b9;
// Uncompressed slot states: empty, claimed (the claiming vector's index + 1) or ready (the
// vector's hash with READY_BIT).
const EMPTY_STATE: u32 = 0;
/// Marks an uncompressed slot's state as ready (READY_BIT in the shaders).
pub const READY_BIT: u32 = 0x8000_0000;

pub use crate::hash::fmix32;

/// The hash of node (left, right).
pub fn hash_node(left: u32, right: u32) -> u32 {
    fmix32(left ^ fmix32(right ^ GOLDEN))
}

/// The hash of rehashing round `round` (round 0: the hash itself).
pub fn rehash(hash: u32, round: u32) -> u32 {
    if round == 0 {
        hash
    } else {
        fmix32(hash.wrapping_add(round.wrapping_mul(GOLDEN)))
    }
}

/// The hash of a whole vector (uncompressed table).
pub fn hash_vector(words: &[u32]) -> u32 {
    words.iter().fold(GOLDEN, |h, &w| fmix32(h ^ w))
}

/// A node as the table stores it: left in the low half, right in the high half.
pub fn pack(left: u32, right: u32) -> u64 {
    (right as u64) << 32 | left as u64
}

/// (left, right) of a stored node.
pub fn unpack(node: u64) -> (u32, u32) {
    (node as u32, (node >> 32) as u32)
}

/// Slots and buckets of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub slot_log2: u32,
    pub bucket_log2: u32,
}

impl Geometry {
    pub fn slots(self) -> usize {
        1 << self.slot_log2
    }

    /// The slots findOrPut visits for `hash`, in order: for each of MAX_HASHES hash functions,
    /// every slot of up to 8 buckets from the function's first bucket.
    pub fn probe(self, hash: u32) -> impl Iterator<Item = u32> {
        let buckets_log2 = self.slot_log2 - self.bucket_log2;
        let mask = (1u32 << buckets_log2) - 1;
        let bucket_log2 = self.bucket_log2;
        (0..MAX_HASHES).flat_map(move |round| {
            let h = rehash(hash, round);
            let first = if buckets_log2 == 0 { 0 } else { h >> (32 - buckets_log2) };
            (0..MAX_PROBED_BUCKETS.min(1 << buckets_log2))
                .flat_map(move |p| (0..1u32 << bucket_log2).map(move |s| ((first.wrapping_add(p) & mask) << bucket_log2) | s))
        })
    }
}

/// Runs findOrPut of the tree of `vector` bottom-up with `put` (which returns a node's result);
/// returns the root's result, FAILED as soon as one node fails.
pub fn tree_find_or_put(vector: &[u32], mut put: impl FnMut(u32, u32) -> u32) -> u32 {
    let mut items = [0u32; MAX_LENGTH as usize];
    items[..vector.len()].copy_from_slice(vector);
    if vector.len() == 1 {
        return put(items[0], 0);
    }
    let mut count = vector.len();
    let mut result = FAILED;
    while count > 1 {
        let pairs = count / 2;
        for j in 0..pairs {
            result = put(items[2 * j], items[2 * j + 1]);
            if result == FAILED {
                return FAILED;
            }
            items[j] = result & REFERENCE_MASK;
        }
        if count % 2 == 1 {
            items[pairs] = items[count - 1];
        }
        count = pairs + count % 2;
    }
    result
}

/// The vector of `length` words whose root is `root`, read from a table's nodes (`node` gives the
/// stored node of a reference, None for an empty or out-of-range one); None when it does not decode.
pub fn decode(root: u32, length: usize, node: impl Fn(u32) -> Option<u64>) -> Option<Vec<u32>> {
    decode_visiting(root, length, node, |_| {})
}

/// `decode`, calling `visit` with the reference of every node it reads.
pub fn decode_visiting(root: u32, length: usize, node: impl Fn(u32) -> Option<u64>, mut visit: impl FnMut(u32)) -> Option<Vec<u32>> {
    let mut read = |reference: u32| {
        visit(reference);
        if reference == ZERO_REFERENCE {
            Some((0, 0))
        } else {
            node(reference).map(unpack)
        }
    };
    if length == 1 {
        let (word, unused) = read(root)?;
        return (unused == 0).then_some(vec![word]);
    }
    // Items per level, bottom (the words) to top (the root).
    let mut counts = vec![length];
    while *counts.last()? > 1 {
        counts.push(counts.last()?.div_ceil(2));
    }
    let mut items = vec![root];
    for level in (0..counts.len() - 1).rev() {
        let count = counts[level];
        let mut below = vec![0u32; count];
        for (j, &item) in items.iter().enumerate() {
            if j < count / 2 {
                (below[2 * j], below[2 * j + 1]) = read(item)?;
            } else {
                below[count - 1] = item;
            }
        }
        items = below;
    }
    Some(items)
}

/// Checks a compressed table against the results of findOrPut of `vectors` into it (and of the
/// second pass, when there was one): every root decodes to its vector, no node is stored twice,
/// (without overflow) every stored node belongs to a stored vector's tree, so the table holds
/// exactly the trees of the distinct vectors, and the root bitmap marks exactly the roots. Slot
/// references depend on the order of the insertions, so this compares meanings, not slots.
/// Returns the vectors reported new.
pub fn check_compact_table(
    copy: &TableCopy,
    vectors: &[&[u32]],
    insert: &[u32],
    again: Option<&[u32]>,
    distinct: usize,
    failed_counted: u32,
) -> Result<u64, String> {
    let table = &copy.nodes;
    let length = vectors.first().map_or(1, |v| v.len());
    let mut reached = vec![false; table.len()];
    let mut zero_reached = false;
    let new = check_results(vectors, insert, again, distinct, failed_counted, |root| {
        if length > 2 && !copy.is_root(root) {
            return None;
        }
        decode_visiting(
            root,
            length,
            |r| copy.node(r),
            |r| match reached.get_mut(r as usize) {
                Some(seen) => *seen = true,
                None => zero_reached |= r == ZERO_REFERENCE,
            },
        )
    })?;
    let mut roots: Vec<u32> = insert.iter().filter(|&&r| r != FAILED && length > 2).map(|r| r & REFERENCE_MASK).collect();
    roots.sort_unstable();
    roots.dedup();
    let marked = copy.root_bits.iter().map(|w| w.count_ones() as usize).sum::<usize>() + copy.zero_root as usize;
    if marked != roots.len() {
        return Err(format!("{marked} slots are marked as roots, but {} roots were returned", roots.len()));
    }
    let zero = copy.zero;
    let nodes = sorted_nodes(table);
    if let Some(w) = nodes.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("node {:?} is stored twice", unpack(w[0])));
    }
    if !insert.contains(&FAILED) {
        if let Some(slot) = table.iter().zip(&reached).position(|(&n, &r)| n != 0 && !r) {
            return Err(format!("slot {slot} holds node {:?}, which no stored vector's tree uses", unpack(table[slot])));
        }
        if zero != zero_reached {
            return Err(format!(
                "the all-zero node is {}stored, but {}used",
                if zero { "" } else { "not " },
                if zero_reached { "" } else { "not " }
            ));
        }
    }
    Ok(new)
}

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

    fn is_root(&self, reference: u32) -> bool {
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

/// The vectors a plain copy of an uncompressed table's cells holds, in slot order; Err when a
/// slot is not ready or its state does not match its vector's hash.
pub fn uncompressed_contents(cells: &[u32], length: usize) -> Result<Vec<&[u32]>, String> {
    let mut out = Vec::new();
    for (slot, cell) in cells.chunks(length + 1).enumerate() {
        match cell[0] {
            EMPTY_STATE => {}
            state if state & READY_BIT == 0 => return Err(format!("uncompressed slot {slot} is claimed but was never marked ready")),
            state if state == hash_vector(&cell[1..]) | READY_BIT => out.push(&cell[1..]),
            _ => return Err(format!("uncompressed slot {slot}: the state word does not match the vector's hash")),
        }
    }
    Ok(out)
}

/// How vectors are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum VectorDistribution {
    /// Every word uniform random (32 bits): almost nothing shared.
    Uniform,
    /// Model-checker-like states: each vector is one of the 256 vectors before it with one word
    /// changed to a value below 256, so sub-vectors (and some whole vectors) repeat.
    Shared,
    /// count/4 distinct uniform vectors, each about 4 times (racing duplicates in one batch).
    Duplicates,
}

/// What to run (also the viewer's persisted panel parameters).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompactHashOptions {
    /// Words per vector, 1..=8.
    pub length: u32,
    /// Slots per bucket: 2, 4, 8, 16 or 32.
    pub bucket_size: u32,
    /// The compressed table has 2^table_log2 slots (64-bit nodes).
    pub table_log2: u32,
    /// Vectors to insert; None: as many as fill the table to `fill` with distinct trees.
    pub vectors: Option<u32>,
    /// Target fill (nodes / slots) when `vectors` is None.
    pub fill: f64,
    pub distribution: VectorDistribution,
    pub iterations: u32,
    pub seed: u64,
}

impl Default for CompactHashOptions {
    /// The CLI's defaults, with a fixed seed: length 4, bucket size 2, 2^16 slots, fill 0.5.
    fn default() -> Self {
        CompactHashOptions {
            length: 4,
            bucket_size: 2,
            table_log2: 16,
            vectors: None,
            fill: 0.5,
            distribution: VectorDistribution::Uniform,
            iterations: 5,
            seed: 1,
        }
    }
}

impl CompactHashOptions {
    /// The vectors of a run: `vectors`, or fill x slots / nodes per vector (at least 1).
    pub fn vector_count(&self) -> u32 {
        self.vectors.unwrap_or_else(|| {
            let nodes_per_vector = self.length.saturating_sub(1).max(1) as f64;
            ((self.fill * (1u64 << self.table_log2) as f64 / nodes_per_vector).round() as u64).clamp(1, MAX_VECTORS as u64) as u32
        })
    }

    pub fn geometry(&self) -> Geometry {
        Geometry { slot_log2: self.table_log2, bucket_log2: self.bucket_size.max(1).ilog2() }
    }

    /// The uncompressed table: a power of two of vector slots, at least twice the vectors (and
    /// one bucket), so its fill is at most 0.5.
    pub fn uncompressed_geometry(&self) -> Geometry {
        let bucket_log2 = self.bucket_size.max(1).ilog2();
        Geometry { slot_log2: (2 * self.vector_count() as u64).next_power_of_two().ilog2().max(bucket_log2), bucket_log2 }
    }

    /// Ok, or what is wrong with the options, in one line naming the option.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_LENGTH).contains(&self.length) {
            return Err(format!("--length {}: must be 1..={MAX_LENGTH} words", self.length));
        }
        if !BUCKET_SIZES.contains(&self.bucket_size) {
            return Err(format!("--bucket-size {}: must be 2, 4, 8, 16 or 32 slots", self.bucket_size));
        }
        let bucket_log2 = self.bucket_size.ilog2();
        if !(bucket_log2..=MAX_SLOT_LOG2).contains(&self.table_log2) {
            return Err(format!(
                "--table-log2 {}: must be {bucket_log2}..={MAX_SLOT_LOG2} (at least one bucket of {} slots)",
                self.table_log2, self.bucket_size
            ));
        }
        match self.vectors {
            Some(v) if v == 0 || v > MAX_VECTORS => return Err(format!("--vectors {v}: must be 1..={MAX_VECTORS}")),
            None if !(self.fill > 0.0 && self.fill <= 1.0) => {
                return Err(format!("--fill {}: must be in (0, 1] (nodes per slot)", self.fill))
            }
            _ => {}
        }
        if !(1..=super::MAX_ITERATIONS).contains(&self.iterations) {
            return Err(format!("--iterations {}: must be 1..={}", self.iterations, super::MAX_ITERATIONS));
        }
        Ok(())
    }
}

/// Storage bytes the largest buffer of a run needs (table, vectors or uncompressed table).
pub fn largest_buffer_bytes(options: &CompactHashOptions) -> u64 {
    let vectors = options.vector_count() as u64;
    let length = options.length as u64;
    let uncompressed = (1u64 << options.uncompressed_geometry().slot_log2) * (length + 1) * 4;
    (8u64 << options.table_log2).max(vectors * length * 4).max(uncompressed)
}

/// `count` vectors of `length` words drawn from `distribution`, one after the other.
pub fn make_vectors(length: usize, count: usize, distribution: VectorDistribution, seed: u64) -> Vec<u32> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 16) as u32
    };
    let mut words = Vec::with_capacity(length * count);
    match distribution {
        VectorDistribution::Uniform => words.extend((0..length * count).map(|_| next())),
        VectorDistribution::Duplicates => {
            let distinct = (count / 4).max(1);
            let pool: Vec<u32> = (0..length * distinct).map(|_| next()).collect();
            for _ in 0..count {
                let v = next() as usize % distinct;
                words.extend_from_slice(&pool[v * length..(v + 1) * length]);
            }
        }
        VectorDistribution::Shared => {
            words.extend((0..length).map(|_| next() % 256));
            for i in 1..count {
                let parent = i - 1 - next() as usize % i.min(256);
                words.extend_from_within(parent * length..(parent + 1) * length);
                let position = next() as usize % length;
                words[i * length + position] = next() % 256;
            }
        }
    }
    words
}

/// One table's figures (compressed or uncompressed).
#[derive(Clone, Debug, Serialize)]
pub struct TableReport {
    pub table: &'static str,
    pub slots: u64,
    pub table_bytes: u64,
    /// findOrPut of every vector into the empty table.
    pub insert: TimingMs,
    pub insert_per_s: f64,
    /// findOrPut of every vector again (all seen).
    pub again: TimingMs,
    pub again_per_s: f64,
    /// Slots in use / slots.
    pub fill: f64,
    /// Vectors reported new by the insert pass.
    pub new_vectors: u64,
    /// findOrPuts of the insert pass that found no free slot (overflow).
    pub failed: u64,
    /// Every result (new/seen, the stored set, each reference decoding to its vector) agrees
    /// with the CPU reference.
    pub verified: bool,
    /// Why not, when not.
    pub problem: Option<String>,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct CompactHashReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub length: u32,
    pub bucket_size: u32,
    pub vectors: u32,
    pub distribution: VectorDistribution,
    pub seed: u64,
    pub iterations: u32,
    pub verified: bool,
    /// Some findOrPut found no free slot within 8 buckets (the table is too full).
    pub overflow: bool,
    /// Vectors the one-thread CPU reference reports new (the distinct vectors); each table's
    /// `new_vectors` must equal it.
    pub distinct_vectors: u64,
    /// Nodes stored (the all-zero node included).
    pub nodes: u64,
    /// Nodes the one-thread CPU reference stores: the same, except where a node of slot
    /// references happens to equal a node of two words (then one node serves both).
    pub cpu_nodes: u64,
    /// What is wrong with the CPU twins' results, if anything.
    pub cpu_problem: Option<String>,
    /// Bytes of the distinct vectors (4 per word) / bytes of their nodes (8 per node).
    pub compression_ratio: f64,
    pub compressed: TableReport,
    pub uncompressed: TableReport,
    pub upload_ms: f64,
    pub readback_ms: f64,
    /// The one-thread CPU reference (compressed table).
    pub cpu_ms: f64,
    /// The CPU twin on all cores (`cpu_threads`, the same CAS protocol on AtomicU64), checked
    /// like the GPU's table.
    pub cpu_parallel_ms: f64,
    pub cpu_threads: usize,
    /// GPU insert throughput / all-cores CPU throughput.
    pub gpu_over_cpu: f64,
}

fn storage(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

fn uniform(device: &wgpu::Device, label: &str, params: &CompactHashParams) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(params),
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// One table's GPU buffers and pipeline.
struct GpuTable {
    name: &'static str,
    pipeline: wgpu::ComputePipeline,
    table: wgpu::Buffer,
    status: wgpu::Buffer,
    results: [wgpu::Buffer; 2],
    /// The compressed table's root bitmap.
    root_bits: Option<wgpu::Buffer>,
    groups: [wgpu::BindGroup; 2],
}

impl GpuTable {
    #[allow(clippy::too_many_arguments)]
    fn new(
        device: &wgpu::Device,
        name: &'static str,
        file: &str,
        entry: &str,
        params: &CompactHashParams,
        table_bytes: u64,
        root_bitmap_bytes: Option<u64>,
        words: &wgpu::Buffer,
    ) -> GpuTable {
        let label = format!("kernel.compact_hash.{name}");
        let pipeline = SHADERS.compute_pipeline(device, &label, file, entry, &[("VECTOR_LENGTH", params.length as f64)]);
        let params_buffer = uniform(device, &format!("{label}.params"), params);
        let table = storage(device, &format!("{label}.table"), table_bytes);
        let status = storage(device, &format!("{label}.status"), 16);
        let results = ["insert", "again"].map(|pass| storage(device, &format!("{label}.results_{pass}"), 4 * params.vectors as u64));
        let root_bits = root_bitmap_bytes.map(|bytes| storage(device, &format!("{label}.root_bits"), bytes));
        let groups = [0, 1].map(|r| {
            let mut entries = vec![
                wgpu::BindGroupEntry { binding: 0, resource: params_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: table.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: words.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: results[r].as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: status.as_entire_binding() },
            ];
            if let Some(bits) = &root_bits {
                entries.push(wgpu::BindGroupEntry { binding: 5, resource: bits.as_entire_binding() });
            }
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&label),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        });
        GpuTable { name, pipeline, table, status, results, root_bits, groups }
    }
}

/// The stored nodes of a plain table, sorted (0 = empty left out).
fn sorted_nodes(table: &[u64]) -> Vec<u64> {
    let mut nodes: Vec<u64> = table.iter().copied().filter(|&n| n != 0).collect();
    nodes.sort_unstable();
    nodes
}

/// Checks the results of one table's passes: every reference decodes (`decode`) to its
/// vector, the second pass (if any) finds every vector at the same reference, and the vectors reported new
/// are distinct (their references are: each vector has one root or slot, since the callers also
/// check that nothing is stored twice) and, without overflow, `distinct` (the CPU reference's
/// count) of them. `failed_counted` is what the
/// shader counted in its status word. Returns the vectors reported new.
fn check_results(
    vectors: &[&[u32]],
    insert: &[u32],
    again: Option<&[u32]>,
    distinct: usize,
    failed_counted: u32,
    mut decode: impl FnMut(u32) -> Option<Vec<u32>>,
) -> Result<u64, String> {
    let failed = insert.iter().chain(again.unwrap_or_default()).filter(|&&r| r == FAILED).count();
    if failed != failed_counted as usize {
        return Err(format!("{failed} failed findOrPuts returned but {failed_counted} counted"));
    }
    let mut new_references = Vec::new();
    for (i, (&vector, &first)) in vectors.iter().zip(insert).enumerate() {
        if first == FAILED {
            continue;
        }
        let reference = first & REFERENCE_MASK;
        let decoded = decode(reference);
        if decoded.as_deref() != Some(vector) {
            return Err(format!("vector {i} {vector:?}: reference {reference} holds {decoded:?}"));
        }
        if let Some(second) = again.map(|a| a[i]).filter(|&a| a != reference) {
            return Err(format!("vector {i}: found again as {second:#x}, not at {reference} and seen"));
        }
        if first & NEW_BIT != 0 {
            new_references.push(reference);
        }
    }
    let reported = new_references.len();
    new_references.sort_unstable();
    new_references.dedup();
    if new_references.len() != reported {
        return Err(format!("{} vectors were reported new more than once", reported - new_references.len()));
    }
    if failed == 0 && reported != distinct {
        return Err(format!("{reported} vectors reported new, but there are {distinct} distinct vectors"));
    }
    Ok(reported as u64)
}

/// A table's passes on the GPU, read back.
struct Outcome {
    table: Vec<u8>,
    status: Vec<u32>,
    insert: Vec<u32>,
    again: Vec<u32>,
}

/// Runs the kernel: findOrPut of every vector into the empty compressed table and again (all
/// seen), the same for the uncompressed table, `iterations` times; verifies the last iteration.
/// Needs Features::SHADER_INT64 | SHADER_INT64_ATOMIC_ALL_OPS and TIMESTAMP_QUERY.
pub fn run(gpu: &Gpu, options: &CompactHashOptions) -> CompactHashReport {
    let words = make_vectors(options.length as usize, options.vector_count() as usize, options.distribution, options.seed);
    run_on_vectors(gpu, options, &words)
}

/// `run` on given vectors (`options.length` words each; `options.vectors` and `distribution`
/// are ignored).
pub fn run_on_vectors(gpu: &Gpu, options: &CompactHashOptions, words: &[u32]) -> CompactHashReport {
    let device = &gpu.device;
    let length = options.length as usize;
    let count = (words.len() / length) as u32;
    let vectors: Vec<&[u32]> = words.chunks_exact(length).collect();
    let geometry = options.geometry();
    let uncompressed_geometry = options.uncompressed_geometry();

    let cpu_start = Instant::now();
    let cpu = CompactTable::new(geometry);
    let cpu_results: Vec<u32> = vectors.iter().map(|v| cpu.find_or_put(v)).collect();
    let cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
    let cpu_threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let parallel = CompactTable::new(geometry);
    let mut parallel_results = vec![0u32; vectors.len()];
    let chunk = vectors.len().div_ceil(cpu_threads).max(1);
    let parallel_start = Instant::now();
    std::thread::scope(|scope| {
        for (vs, out) in vectors.chunks(chunk).zip(parallel_results.chunks_mut(chunk)) {
            let table = &parallel;
            scope.spawn(move || vs.iter().zip(out).for_each(|(v, r)| *r = table.find_or_put(v)));
        }
    });
    let cpu_parallel_ms = parallel_start.elapsed().as_secs_f64() * 1e3;
    let cpu_copy = cpu.snapshot();
    let cpu_nodes = cpu_copy.nodes.iter().filter(|&&n| n != 0).count() as u64 + cpu_copy.zero as u64;
    // The distinct vectors: those the one-thread CPU reference reports new (the unit tests check
    // it against a set); counted directly when it overflowed.
    let distinct = if cpu_results.contains(&FAILED) {
        vectors.iter().copied().collect::<HashSet<&[u32]>>().len()
    } else {
        cpu_results.iter().filter(|&&r| r & NEW_BIT != 0).count()
    };
    let failed_in_parallel = parallel_results.iter().filter(|&&r| r == FAILED).count() as u32;
    let parallel_check = check_compact_table(&parallel.snapshot(), &vectors, &parallel_results, None, distinct, failed_in_parallel);

    let upload_start = Instant::now();
    let words_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("kernel.compact_hash.words"),
        contents: bytemuck::cast_slice(words),
        usage: wgpu::BufferUsages::STORAGE,
    });
    gpu.wait_idle();
    let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3;
    let params =
        CompactHashParams { vectors: count, length: options.length, slot_log2: geometry.slot_log2, bucket_log2: geometry.bucket_log2 };
    let uncompressed_params = CompactHashParams { slot_log2: uncompressed_geometry.slot_log2, ..params };
    let uncompressed_bytes = uncompressed_geometry.slots() as u64 * (length as u64 + 1) * 4;
    let tables = [
        GpuTable::new(
            device,
            "compressed",
            "kernel_compact_hash.wgsl",
            "find_or_put",
            &params,
            8 << geometry.slot_log2,
            Some(4 * root_bitmap_words(geometry.slot_log2) as u64),
            &words_buffer,
        ),
        GpuTable::new(
            device,
            "uncompressed",
            "kernel_compact_hash_uncompressed.wgsl",
            "find_or_put_uncompressed",
            &uncompressed_params,
            uncompressed_bytes,
            None,
            &words_buffer,
        ),
    ];
    let labels: Vec<[String; 2]> =
        tables.iter().map(|t| ["insert", "again"].map(|pass| format!("kernel.compact_hash.{}.{pass}", t.name))).collect();
    let mut samples = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
    let mut profiler = crate::gpu::create_profiler(device);
    let (x, y) = groups_2d(count.div_ceil(WORKGROUP_SIZE));
    for _ in 0..options.iterations {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kernel.compact_hash") });
        for (table, labels) in tables.iter().zip(&labels) {
            encoder.clear_buffer(&table.table, 0, None);
            encoder.clear_buffer(&table.status, 0, None);
            if let Some(bits) = &table.root_bits {
                encoder.clear_buffer(bits, 0, None);
            }
            for (group, label) in table.groups.iter().zip(labels) {
                profiled_compute_pass(&profiler, &mut encoder, label, |pass| {
                    pass.set_pipeline(&table.pipeline);
                    pass.set_bind_group(0, group, &[]);
                    pass.dispatch_workgroups(x, y, 1);
                });
            }
        }
        for (label, ms) in submit_and_time_all(gpu, &mut profiler, encoder) {
            for (t, labels) in labels.iter().enumerate() {
                if let Some(pass) = labels.iter().position(|l| *l == label) {
                    samples[t][pass].push(ms);
                }
            }
        }
    }

    let read_start = Instant::now();
    let read = |buffer: &wgpu::Buffer, bytes: u64| read_buffer(device, &gpu.queue, buffer, 0, bytes);
    let outcomes: Vec<Outcome> = tables
        .iter()
        .map(|t| Outcome {
            table: read(&t.table, t.table.size()),
            status: bytemuck::pod_collect_to_vec(&read(&t.status, 16)),
            insert: bytemuck::pod_collect_to_vec(&read(&t.results[0], 4 * count as u64)),
            again: bytemuck::pod_collect_to_vec(&read(&t.results[1], 4 * count as u64)),
        })
        .collect();
    let readback_ms = read_start.elapsed().as_secs_f64() * 1e3;

    // The compressed table: its references decode, and it holds exactly the trees of the vectors.
    let compressed = &outcomes[0];
    let gpu_copy = TableCopy {
        nodes: bytemuck::pod_collect_to_vec(&compressed.table),
        zero: compressed.status[0] != 0,
        root_bits: bytemuck::pod_collect_to_vec(&read_buffer(
            device,
            &gpu.queue,
            tables[0].root_bits.as_ref().expect("the compressed table's root bitmap"),
            0,
            4 * root_bitmap_words(geometry.slot_log2) as u64,
        )),
        zero_root: compressed.status[2] != 0,
    };
    let gpu_nodes = gpu_copy.nodes.iter().filter(|&&n| n != 0).count() as u64;
    let gpu_zero = gpu_copy.zero;
    let compressed_check =
        check_compact_table(&gpu_copy, &vectors, &compressed.insert, Some(&compressed.again), distinct, compressed.status[1]);
    let nodes = gpu_nodes + gpu_zero as u64;

    // The uncompressed table: every slot in use holds a distinct vector under its hash.
    let plain = &outcomes[1];
    let cells: Vec<u32> = bytemuck::pod_collect_to_vec(&plain.table);
    let stride = length + 1;
    let contents = uncompressed_contents(&cells, length);
    let stored_vectors = contents.as_ref().map_or(0, |c| c.len() as u64);
    let uncompressed_check = contents.and_then(|mut stored| {
        let new = check_results(&vectors, &plain.insert, Some(&plain.again), distinct, plain.status[1], |slot| {
            cells.get(slot as usize * stride + 1..(slot as usize + 1) * stride).map(|w| w.to_vec())
        })?;
        let all = stored.len();
        stored.sort_unstable();
        stored.dedup();
        if stored.len() != all {
            return Err("a vector is stored twice".into());
        }
        if stored.len() as u64 != new {
            return Err(format!("{} vectors stored but {new} reported new", stored.len()));
        }
        Ok(new)
    });

    let table_report = |name: &'static str, t: usize, slots: u64, bytes: u64, used: u64, check: Result<u64, String>| {
        let [insert, again] = samples[t].clone().map(TimingMs::of);
        TableReport {
            table: name,
            slots,
            table_bytes: bytes,
            insert_per_s: count as f64 / (insert.median_ms * 1e-3),
            again_per_s: count as f64 / (again.median_ms * 1e-3),
            insert,
            again,
            fill: used as f64 / slots as f64,
            new_vectors: *check.as_ref().unwrap_or(&0),
            failed: outcomes[t].insert.iter().filter(|&&r| r == FAILED).count() as u64,
            verified: check.is_ok(),
            problem: check.err(),
        }
    };
    let compressed = table_report("compressed", 0, geometry.slots() as u64, 8 << geometry.slot_log2, gpu_nodes, compressed_check);
    let uncompressed =
        table_report("uncompressed", 1, uncompressed_geometry.slots() as u64, uncompressed_bytes, stored_vectors, uncompressed_check);
    let stored = if compressed.failed == 0 { distinct as u64 } else { compressed.new_vectors };
    let cpu_per_s = count as f64 / (cpu_parallel_ms * 1e-3);
    CompactHashReport {
        kernel: "compact-hash",
        adapter: gpu.describe(),
        length: options.length,
        bucket_size: options.bucket_size,
        vectors: count,
        distribution: options.distribution,
        seed: options.seed,
        iterations: options.iterations,
        verified: parallel_check.is_ok() && compressed.verified && uncompressed.verified,
        cpu_problem: parallel_check.err(),
        cpu_nodes,
        overflow: compressed.failed > 0 || uncompressed.failed > 0,
        distinct_vectors: distinct as u64,
        nodes,
        compression_ratio: (stored * length as u64 * 4) as f64 / (nodes.max(1) * 8) as f64,
        gpu_over_cpu: compressed.insert_per_s / cpu_per_s,
        compressed,
        uncompressed,
        upload_ms,
        readback_ms,
        cpu_ms,
        cpu_parallel_ms,
        cpu_threads,
    }
}

impl CompactHashReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "compact-hash on {}: {} vectors of {} words ({:?}), bucket size {}, verified: {}\n",
            self.adapter, self.vectors, self.length, self.distribution, self.bucket_size, self.verified
        );
        for t in [&self.compressed, &self.uncompressed] {
            out += &format!(
                "  {:12} 2^{} slots ({:.1} MiB): insert {:.4} ms {:.3} G findOrPut/s, again {:.4} ms {:.3} G/s; fill {:.3}; {} new; verified: {}{}\n",
                t.table,
                t.slots.ilog2(),
                t.table_bytes as f64 / (1 << 20) as f64,
                t.insert.median_ms,
                t.insert_per_s / 1e9,
                t.again.median_ms,
                t.again_per_s / 1e9,
                t.fill,
                t.new_vectors,
                t.verified,
                t.problem.as_ref().map_or(String::new(), |p| format!(" ({p})"))
            );
        }
        out += &format!(
            "  {} distinct vectors in {} nodes: compression ratio {:.2}; upload {:.1} ms, read-back {:.1} ms; CPU reference 1 thread {:.1} ms, {} threads {:.1} ms (GPU {:.1}x)",
            self.distinct_vectors, self.nodes, self.compression_ratio, self.upload_ms, self.readback_ms, self.cpu_ms, self.cpu_threads, self.cpu_parallel_ms, self.gpu_over_cpu
        );
        if let Some(problem) = &self.cpu_problem {
            out += &format!("\n  CPU twin on all cores: {problem}");
        }
        if let Some(line) = self.overflow_message() {
            out += &format!("\n  OVERFLOW: {line}");
        }
        out
    }

    /// One line saying which table overflowed and what to do, or None.
    pub fn overflow_message(&self) -> Option<String> {
        let full: Vec<String> = [&self.compressed, &self.uncompressed]
            .iter()
            .filter(|t| t.failed > 0)
            .map(|t| format!("{} of {} findOrPuts into the {} table (2^{} slots) found no free slot (probing up to {MAX_PROBED_BUCKETS} buckets for each of {MAX_HASHES} hash functions)", t.failed, self.vectors, t.table, t.slots.ilog2()))
            .collect();
        (!full.is_empty()).then(|| format!("{}; raise --table-log2 or lower --fill / --vectors", full.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

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
        assert!(check(&plain, &insert).unwrap_err().contains("no stored vector"));
        plain[free] = plain[(insert[0] & REFERENCE_MASK) as usize];
        assert!(check(&plain, &insert).unwrap_err().contains("twice"));
        // A root bit too many.
        let mut extra = copy.clone();
        extra.root_bits[0] ^= 1 << 31;
        assert!(check_compact_table(&extra, &vectors, &insert, None, 1, 0).unwrap_err().contains("marked as roots"));
    }

    #[test]
    fn options_are_checked() {
        assert_eq!(CompactHashOptions::default().check(), Ok(()));
        assert_eq!(CompactHashOptions::default().vector_count(), 10923);
        assert!(options(9, 2, 16, VectorDistribution::Uniform, 1).check().unwrap_err().contains("--length 9"));
        assert!(options(4, 3, 16, VectorDistribution::Uniform, 1).check().unwrap_err().contains("--bucket-size 3"));
        assert!(options(4, 32, 4, VectorDistribution::Uniform, 1).check().unwrap_err().contains("--table-log2 4"));
        assert!(options(4, 2, 16, VectorDistribution::Uniform, 0).check().unwrap_err().contains("--vectors 0"));
        let fill = CompactHashOptions { fill: 1.5, ..Default::default() };
        assert!(fill.check().unwrap_err().contains("--fill 1.5"));
        assert_eq!(options(8, 2, 16, VectorDistribution::Uniform, 100).uncompressed_geometry().slot_log2, 8);
    }
}
