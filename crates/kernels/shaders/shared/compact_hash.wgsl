// Compact hash (seed 002): what the tree-compressed table and the uncompressed table share: the
// parameters, the input vectors, the per-vector results, the status words and the hash functions.
// Mirrors crates/kernels/src/compact_hash/table.rs (CPU twin).
//!include shared/hash.wgsl
//
// A result is a reference (the root node's slot in the compressed table, the vector's slot in the
// uncompressed one) with NEW_BIT set when this findOrPut stored the vector, or FAILED when no free
// slot was found (the table is too full: overflow).
//
// Probing: the hash picks a first bucket; its slots are scanned in order, then those of the next
// buckets (linear probing), MAX_PROBED_BUCKETS buckets in all. When they are all full, the paper's
// rehashing: a new first bucket from rehash(hash, round), for MAX_HASHES rounds; then FAILED.

// Keep in sync with CompactHashParams in crates/kernels/src/compact_hash/mod.rs.
struct CompactHashParams {
    // Vectors in this batch.
    vectors: u32,
    // Words per vector, 1..=8.
    length: u32,
    // The table has 2^slot_log2 slots (64-bit nodes, or whole vectors when uncompressed).
    slot_log2: u32,
    // A bucket has 2^bucket_log2 slots.
    bucket_log2: u32,
}

const NEW_BIT: u32 = 0x80000000u;
const REFERENCE_MASK: u32 = 0x7fffffffu;
const FAILED: u32 = 0xffffffffu;
// Linear probing visits at most this many buckets.
const MAX_PROBED_BUCKETS: u32 = 8u;
// Hash functions tried (rehashing) before a findOrPut fails.
const MAX_HASHES: u32 = 4u;
const MAX_LENGTH: u32 = 8u;
// Words per vector (= params.length), a pipeline constant so that the per-vector loops have a
// fixed trip count and the driver can keep a vector in registers.
override VECTOR_LENGTH: u32 = 4u;
const GOLDEN: u32 = 0x9e3779b9u;

@group(0) @binding(0) var<uniform> params: CompactHashParams;
// The vectors, `length` words each.
@group(0) @binding(2) var<storage, read> words: array<u32>;
// One result per vector.
@group(0) @binding(3) var<storage, read_write> results: array<u32>;
// [0] the compressed table's all-zero node is stored (see kernel_compact_hash.wgsl);
// [1] findOrPuts that failed (no free slot in reach);
// [2] the all-zero node is the root of a stored vector.
@group(0) @binding(4) var<storage, read_write> status: array<atomic<u32>, 4>;


// The first bucket of a hash among 2^(slot_log2 - bucket_log2): its top bits.
fn first_bucket(hash: u32) -> u32 {
    let buckets_log2 = params.slot_log2 - params.bucket_log2;
    return select(hash >> (32u - buckets_log2), 0u, buckets_log2 == 0u);
}

// The hash of rehashing round `round` (round 0: the hash itself).
fn rehash(hash: u32, round: u32) -> u32 {
    return select(fmix32(hash + round * GOLDEN), hash, round == 0u);
}

// Buckets probed per round: MAX_PROBED_BUCKETS, or all of them when there are fewer.
fn probed_buckets() -> u32 {
    return min(MAX_PROBED_BUCKETS, 1u << (params.slot_log2 - params.bucket_log2));
}

// The slot of the `s`-th slot of the `p`-th probed bucket after `first`.
fn probe_slot(first: u32, p: u32, s: u32) -> u32 {
    let bucket_mask = (1u << (params.slot_log2 - params.bucket_log2)) - 1u;
    return (((first + p) & bucket_mask) << params.bucket_log2) | s;
}

// Records a failed findOrPut and returns FAILED.
fn fail() -> u32 {
    atomicAdd(&status[1], 1u);
    return FAILED;
}
