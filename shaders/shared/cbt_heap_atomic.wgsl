// The CBT heap bound read-write with atomics: split, merge and masked field writes.
// Include with shared/cbt.wgsl.

@group(0) @binding(0) var<storage, read_write> cbt_heap: array<atomic<u32>>;
// The blocks of the bitfield changed since the last cbt.reduce (src/cbt/changed.rs): word 0 counts
// them, then one bit per block, then the list of their indices. A block is what one workgroup of
// the reduction's first dispatch reads, so that dispatch can visit the changed blocks alone.
@group(0) @binding(7) var<storage, read_write> cbt_changed: array<atomic<u32>>;
// Whether split and merge list the blocks they change (GpuCbt::tracks_changes): only deep trees,
// whose whole reduction costs more than the listing.
override CBT_TRACK_CHANGES: bool = true;

// log2 of the bitfield bits per block (cbt::changed::block_bits_log2, set per pipeline).
override CBT_BLOCK_BITS_LOG2: u32 = 13u;

// Words of the block bitmap (one bit per block, at least one word).
fn cbt_changed_bitmap_words() -> u32 {
    return max((1u << CBT_MAX_DEPTH) >> (CBT_BLOCK_BITS_LOG2 + 5u), 1u);
}

// Notes that the bitfield bit at heap bit `bit` changed: the first change to a block lists it.
// Called only where CBT_TRACK_CHANGES.
fn cbt_mark_changed(bit: u32) {
    let block = (bit - (3u << CBT_MAX_DEPTH)) >> CBT_BLOCK_BITS_LOG2;
    let word = 1u + (block >> 5u);
    let mask = 1u << (block & 31u);
    // Most changes fall in blocks already listed: a load spares the bitmap's few words contended
    // atomics (only the reduction clears bits, never during an update).
    if ((atomicLoad(&cbt_changed[word]) & mask) != 0u) {
        return;
    }
    if ((atomicOr(&cbt_changed[word], mask) & mask) == 0u) {
        let slot = atomicAdd(&cbt_changed[0], 1u);
        atomicStore(&cbt_changed[1u + cbt_changed_bitmap_words() + slot], block);
    }
}

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
        let mask = 1u << (bit & 31u);
        if (!CBT_TRACK_CHANGES) {
            atomicOr(&cbt_heap[bit >> 5u], mask);
        } else if ((atomicOr(&cbt_heap[bit >> 5u], mask) & mask) == 0u) {
            cbt_mark_changed(bit);
        }
    }
}

// Merges `node`'s two leaf children into `node`: clears that bit (idempotent).
fn cbt_merge(node: CbtNode) {
    if (!cbt_is_ceil_node(node)) {
        let bit = cbt_bitfield_bit(cbt_right_child(node));
        let mask = 1u << (bit & 31u);
        if (!CBT_TRACK_CHANGES) {
            atomicAnd(&cbt_heap[bit >> 5u], ~mask);
        } else if ((atomicAnd(&cbt_heap[bit >> 5u], ~mask) & mask) != 0u) {
            cbt_mark_changed(bit);
        }
    }
}
