// Chained hash table (seed 000): buckets hold a reference to their chain's first node; nodes are
// handed out by a global counter and linked by swapping the bucket head. A reference is the
// node's index + 1, so 0 (what clear_buffer writes) ends a chain. Shared by the build
// variants and the lookup. Mirrors crates/kernels/src/chained_hash.rs (CPU reference).

// Keep in sync with ChainedHashParams in crates/kernels/src/chained_hash.rs.
struct ChainedHashParams {
    elements: u32,
    bucket_log2: u32,
    node_capacity: u32,
    queries: u32,
}

// Keep in sync with ChainNode in crates/kernels/src/chained_hash.rs.
struct ChainNode {
    key: u32,
    value: u32,
    next: u32,
}

// A lookup's answer when the key is absent.
const NOT_FOUND: u32 = 0xffffffffu;
// A = (sqrt(5) - 1) / 2 as a 0.32 fixed-point fraction (Knuth's multiplicative hashing):
// floor(m * frac(k * A)) for m = 2^bucket_log2 is the top bucket_log2 bits of k * 2654435769.
const GOLDEN_FRACTION: u32 = 2654435769u;

@group(0) @binding(0) var<uniform> params: ChainedHashParams;
@group(0) @binding(1) var<storage, read_write> heads: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> nodes: array<ChainNode>;
// [0] = nodes handed out, [1] = 1 when the node capacity overflowed.
@group(0) @binding(3) var<storage, read_write> counter: array<atomic<u32>, 2>;
@group(0) @binding(4) var<storage, read> keys: array<u32>;
@group(0) @binding(5) var<storage, read> values: array<u32>;

fn bucket_of(key: u32) -> u32 {
    return select((key * GOLDEN_FRACTION) >> (32u - params.bucket_log2), 0u, params.bucket_log2 == 0u);
}

// Links element `i` into its bucket at node `slot` (from the counter).
fn insert_at(i: u32, slot: u32) {
    if (slot >= params.node_capacity) {
        atomicStore(&counter[1], 1u);
        return;
    }
    let key = keys[i];
    nodes[slot].key = key;
    nodes[slot].value = values[i];
    nodes[slot].next = atomicExchange(&heads[bucket_of(key)], slot + 1u);
}
