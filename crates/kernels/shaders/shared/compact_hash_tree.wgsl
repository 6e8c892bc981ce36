// The tree-compressed table's nodes (kernel_compact_hash.wgsl and its subgroup variant,
// kernel_compact_hash_subgroup.wgsl): the table, the root bitmap, the node hash and the root claim.
// Include after shared/compact_hash.wgsl.

// The reference of the all-zero node (never a slot: tables have at most 2^27 slots; and
// ZERO_REFERENCE | NEW_BIT is not FAILED).
const ZERO_REFERENCE: u32 = 0x7ffffffeu;
const EMPTY: u64 = 0lu;
// A weak compare-and-swap may fail spuriously; retry a slot at most this often.
const MAX_CAS_TRIES: u32 = 64u;

@group(0) @binding(1) var<storage, read_write> table: array<atomic<u64>>;
// One bit per slot: the slot's node is the root of a stored vector (lengths 3 and more).
@group(0) @binding(5) var<storage, read_write> root_bits: array<atomic<u32>>;

// Claims `reference` as the root of a stored vector: true for the one call that does.
fn claim_root(reference: u32) -> bool {
    if (reference == ZERO_REFERENCE) {
        return atomicLoad(&status[2]) == 0u && atomicExchange(&status[2], 1u) == 0u;
    }
    let word = reference >> 5u;
    let bit = 1u << (reference & 31u);
    return (atomicLoad(&root_bits[word]) & bit) == 0u && (atomicOr(&root_bits[word], bit) & bit) == 0u;
}

fn hash_node(left: u32, right: u32) -> u32 {
    return fmix32(left ^ fmix32(right ^ GOLDEN));
}
