// Concurrent binary tree on the GPU: heap field access, split/merge, decode.
// Mirrors src/cbt/cpu.rs function by function. A pass that includes this file binds the heap
// (2^(D+2) bits as u32 words) at @group(0) @binding(0) and calls cbt_init() first.

@group(0) @binding(0) var<storage, read_write> cbt_heap: array<atomic<u32>>;

struct CbtNode {
    id: u32,
    depth: u32,
}

var<private> cbt_max_depth: u32;

// Reads the max depth D from heap word 0 (which holds 2^D below the root's field).
fn cbt_init() {
    cbt_max_depth = firstTrailingBit(atomicLoad(&cbt_heap[0]));
}

fn cbt_left_child(node: CbtNode) -> CbtNode {
    return CbtNode(node.id << 1u, node.depth + 1u);
}

fn cbt_right_child(node: CbtNode) -> CbtNode {
    return CbtNode((node.id << 1u) | 1u, node.depth + 1u);
}

fn cbt_parent(node: CbtNode) -> CbtNode {
    return CbtNode(node.id >> 1u, node.depth - 1u);
}

fn cbt_sibling(node: CbtNode) -> CbtNode {
    return CbtNode(node.id ^ 1u, node.depth);
}

fn cbt_node_from_id(id: u32) -> CbtNode {
    return CbtNode(id, firstLeadingBit(id));
}

// Bit offset of a node's count field: 2^(d+1) + k * (D - d + 1).
fn cbt_node_bit_offset(node: CbtNode) -> u32 {
    return (2u << node.depth) + node.id * (cbt_max_depth - node.depth + 1u);
}

// Bit offset of the first field of depth d (the field of node 2^d).
fn cbt_level_bit_offset(depth: u32) -> u32 {
    return (1u << depth) * (cbt_max_depth - depth + 3u);
}

fn cbt_mask(width: u32) -> u32 {
    return select((1u << width) - 1u, 0xffffffffu, width >= 32u);
}

// Reads `width` (<= 31) bits at bit `offset`; the field may straddle two words.
fn cbt_read_bits(offset: u32, width: u32) -> u32 {
    let word = offset >> 5u;
    let shift = offset & 31u;
    var bits = atomicLoad(&cbt_heap[word]) >> shift;
    if (shift + width > 32u) {
        bits |= atomicLoad(&cbt_heap[word + 1u]) << (32u - shift);
    }
    return bits & cbt_mask(width);
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

fn cbt_heap_read(node: CbtNode) -> u32 {
    return cbt_read_bits(cbt_node_bit_offset(node), cbt_max_depth - node.depth + 1u);
}

// Number of leaves (the root's count).
fn cbt_node_count() -> u32 {
    return cbt_heap_read(CbtNode(1u, 0u));
}

fn cbt_is_leaf(node: CbtNode) -> bool {
    return cbt_heap_read(node) == 1u;
}

fn cbt_is_ceil_node(node: CbtNode) -> bool {
    return node.depth == cbt_max_depth;
}

// Bit offset, in the bitfield, of the leftmost depth-D descendant of `node`.
fn cbt_bitfield_bit(node: CbtNode) -> u32 {
    return (2u << cbt_max_depth) + (node.id << (cbt_max_depth - node.depth));
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

// The `leaf_index`-th leaf in left-to-right order.
fn cbt_decode_node(leaf_index: u32) -> CbtNode {
    var node = CbtNode(1u, 0u);
    var index = leaf_index;
    loop {
        if (cbt_heap_read(node) <= 1u) {
            break;
        }
        let left = cbt_left_child(node);
        let left_count = cbt_heap_read(left);
        if (index < left_count) {
            node = left;
        } else {
            index -= left_count;
            node = cbt_right_child(node);
        }
    }
    return node;
}
