// The CBT heap bound read-write with atomics: split, merge and masked field writes.
// Include with shared/cbt.wgsl.

@group(0) @binding(0) var<storage, read_write> cbt_heap: array<atomic<u32>>;

fn cbt_load(word: u32) -> u32 {
    return atomicLoad(&cbt_heap[word]);
}

// Writes `value` into `width` bits at bit `offset` with atomics, leaving every other bit alone.
fn cbt_write_bits(offset: u32, width: u32, value: u32) {
    let word = offset >> 5u;
    let shift = offset & 31u;
    let mask = cbt_mask(width);
    atomicAnd(&cbt_heap[word], ~(mask << shift));
    atomicOr(&cbt_heap[word], (value & mask) << shift);
    if (shift + width > 32u) {
        let high = 32u - shift;
        atomicAnd(&cbt_heap[word + 1u], ~(mask >> high));
        atomicOr(&cbt_heap[word + 1u], (value & mask) >> high);
    }
}

// Splits `node` into two leaves: sets the bitfield bit of its right child (idempotent).
fn cbt_split(node: CbtNode) {
    if (!cbt_is_ceil_node(node)) {
        let bit = cbt_bitfield_bit(cbt_right_child(node));
        atomicOr(&cbt_heap[bit >> 5u], 1u << (bit & 31u));
    }
}

// Merges `node`'s two leaf children into `node`: clears that bit (idempotent).
fn cbt_merge(node: CbtNode) {
    if (!cbt_is_ceil_node(node)) {
        let bit = cbt_bitfield_bit(cbt_right_child(node));
        atomicAnd(&cbt_heap[bit >> 5u], ~(1u << (bit & 31u)));
    }
}
