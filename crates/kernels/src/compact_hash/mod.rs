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

mod check;
mod gpu;
mod table;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use bisector_gpu::timings::TimingMs;
use bisector_gpu::{Gpu, Requirements};

pub use check::{check_compact_table, uncompressed_contents, CheckError};
pub use gpu::run_on_vectors;
pub use table::{root_bitmap_words, CompactTable, TableCopy, UncompressedTable};

use crate::{Kernel, KernelError, MAX_ITERATIONS};

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

pub use bisector_gpu::hash::fmix32;

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
    /// Also run the subgroup variant of the compressed table (a bucket read by a whole subgroup,
    /// shaders/kernel_compact_hash_subgroup.wgsl; needs Features::SUBGROUP).
    pub subgroup: bool,
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
            subgroup: false,
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
    pub fn check(&self) -> Result<(), OptionsError> {
        if !(1..=MAX_LENGTH).contains(&self.length) {
            return Err(OptionsError::Length(self.length));
        }
        if !BUCKET_SIZES.contains(&self.bucket_size) {
            return Err(OptionsError::BucketSize(self.bucket_size));
        }
        let bucket_log2 = self.bucket_size.ilog2();
        if !(bucket_log2..=MAX_SLOT_LOG2).contains(&self.table_log2) {
            return Err(OptionsError::TableLog2 { table_log2: self.table_log2, bucket_log2, bucket_size: self.bucket_size });
        }
        match self.vectors {
            Some(v) if v == 0 || v > MAX_VECTORS => return Err(OptionsError::Vectors(v)),
            None if !(self.fill > 0.0 && self.fill <= 1.0) => return Err(OptionsError::Fill(self.fill)),
            _ => {}
        }
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            return Err(OptionsError::Iterations(self.iterations));
        }
        Ok(())
    }
}

/// What is wrong with the options, naming the option (as the CLI spells it).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum OptionsError {
    #[error("--length {0}: must be 1..={MAX_LENGTH} words")]
    Length(u32),
    #[error("--bucket-size {0}: must be 2, 4, 8, 16 or 32 slots")]
    BucketSize(u32),
    #[error("--table-log2 {table_log2}: must be {bucket_log2}..={MAX_SLOT_LOG2} (at least one bucket of {bucket_size} slots)")]
    TableLog2 { table_log2: u32, bucket_log2: u32, bucket_size: u32 },
    #[error("--vectors {0}: must be 1..={MAX_VECTORS}")]
    Vectors(u32),
    #[error("--fill {0}: must be in (0, 1] (nodes per slot)")]
    Fill(f64),
    #[error("--iterations {0}: must be 1..={MAX_ITERATIONS}")]
    Iterations(u32),
}

/// The kernel, run through [`Kernel`].
pub struct CompactHash;

impl Kernel for CompactHash {
    const NAME: &'static str = "compact-hash";
    type Options = CompactHashOptions;
    type Report = CompactHashReport;

    fn check(options: &CompactHashOptions) -> Result<(), KernelError> {
        Ok(options.check()?)
    }

    fn requirements(options: &CompactHashOptions) -> Requirements {
        let requirements = Requirements::kernel(
            largest_buffer_bytes(options),
            format!("for the tables of {} vectors of {} words; lower --table-log2 or --vectors", options.vector_count(), options.length),
        )
        .with_feature(wgpu::Features::SHADER_INT64, "the compressed table's nodes are 64-bit integers")
        .with_feature(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS, "nodes are stored with a 64-bit compare-and-swap");
        if options.subgroup {
            requirements
                .with_feature(wgpu::Features::SUBGROUP, "the subgroup variant reads a bucket with a whole subgroup; leave out --subgroup")
        } else {
            requirements
        }
    }

    /// findOrPut of every vector into the empty compressed table and again (all seen), the same
    /// for the uncompressed table, `iterations` times; verifies the last iteration.
    fn measure(gpu: &Gpu, options: &CompactHashOptions) -> CompactHashReport {
        let words = make_vectors(options.length as usize, options.vector_count() as usize, options.distribution, options.seed);
        run_on_vectors(gpu, options, &words)
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
    /// The compressed table again, each bucket read by a whole subgroup (with `subgroup`).
    pub compressed_subgroup: Option<TableReport>,
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

impl CompactHashReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "compact-hash on {}: {} vectors of {} words ({:?}), bucket size {}, verified: {}\n",
            self.adapter, self.vectors, self.length, self.distribution, self.bucket_size, self.verified
        );
        for t in self.tables() {
            out += &format!(
                "  {:19} 2^{} slots ({:.1} MiB): insert {:.4} ms {:.3} G findOrPut/s, again {:.4} ms {:.3} G/s; fill {:.3}; {} new; verified: {}{}\n",
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

    /// Every table run: compressed, its subgroup variant where run, uncompressed.
    pub fn tables(&self) -> Vec<&TableReport> {
        std::iter::once(&self.compressed).chain(self.compressed_subgroup.as_ref()).chain([&self.uncompressed]).collect()
    }

    /// One line saying which table overflowed and what to do, or None.
    pub fn overflow_message(&self) -> Option<String> {
        let full: Vec<String> = self
            .tables()
            .into_iter()
            .filter(|t| t.failed > 0)
            .map(|t| format!("{} of {} findOrPuts into the {} table (2^{} slots) found no free slot (probing up to {MAX_PROBED_BUCKETS} buckets for each of {MAX_HASHES} hash functions)", t.failed, self.vectors, t.table, t.slots.ilog2()))
            .collect();
        (!full.is_empty()).then(|| format!("{}; raise --table-log2 or lower --fill / --vectors", full.join("; ")))
    }
}
