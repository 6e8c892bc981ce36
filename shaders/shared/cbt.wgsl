// Concurrent binary tree on the GPU: heap field reads and decode. Mirrors src/cbt/cpu.rs
// function by function. A pass includes this file and exactly one of shared/cbt_heap_atomic.wgsl
// (split, merge, field writes) or shared/cbt_heap_read.wgsl (plain, cacheable loads), which bind
// the heap (2^(D+2) bits as u32 words) at @group(0) @binding(0) and define cbt_load(word).

// Max depth D, set per pipeline (see cbt::gpu::pipeline_constants).
override CBT_MAX_DEPTH: u32 = 20u;

struct CbtNode {
    id: u32,
    depth: u32,
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
    return (2u << node.depth) + node.id * (CBT_MAX_DEPTH - node.depth + 1u);
}

// Bit offset of the first field of depth d (the field of node 2^d).
fn cbt_level_bit_offset(depth: u32) -> u32 {
    return (1u << depth) * (CBT_MAX_DEPTH - depth + 3u);
}

fn cbt_mask(width: u32) -> u32 {
    return select((1u << width) - 1u, 0xffffffffu, width >= 32u);
}

// Reads `width` (<= 31) bits at bit `offset`; the field may straddle two words.
fn cbt_read_bits(offset: u32, width: u32) -> u32 {
    let word = offset >> 5u;
    let shift = offset & 31u;
    var bits = cbt_load(word) >> shift;
    if (shift + width > 32u) {
        bits |= cbt_load(word + 1u) << (32u - shift);
    }
    return bits & cbt_mask(width);
}

fn cbt_heap_read(node: CbtNode) -> u32 {
    return cbt_read_bits(cbt_node_bit_offset(node), CBT_MAX_DEPTH - node.depth + 1u);
}

// Number of leaves (the root's count).
fn cbt_node_count() -> u32 {
    return cbt_heap_read(CbtNode(1u, 0u));
}

fn cbt_is_leaf(node: CbtNode) -> bool {
    return cbt_heap_read(node) == 1u;
}

fn cbt_is_ceil_node(node: CbtNode) -> bool {
    return node.depth == CBT_MAX_DEPTH;
}

// Bit offset, in the bitfield, of the leftmost depth-D descendant of `node`.
fn cbt_bitfield_bit(node: CbtNode) -> u32 {
    return (2u << CBT_MAX_DEPTH) + (node.id << (CBT_MAX_DEPTH - node.depth));
}

// The depth-D node of pool slot `slot` in a pool-mode CBT, whose bitfield bit s is slot s in use
// (Cbt::slot_node).
fn cbt_slot_node(slot: u32) -> CbtNode {
    return CbtNode((1u << CBT_MAX_DEPTH) + slot, CBT_MAX_DEPTH);
}

// Whether pool slot `slot` is in use: its bitfield bit (Cbt::is_slot_used; needs no reduction).
fn cbt_is_slot_used(slot: u32) -> bool {
    return cbt_heap_read(cbt_slot_node(slot)) == 1u;
}

// Where a walk down the counts stopped: the node, and the leaf's index among the node's leaves.
struct CbtWalk {
    node: CbtNode,
    index: u32,
}

// Walks from the root towards the `leaf_index`-th leaf, going left when the index is below the
// left child's count, until a leaf (count <= 1) or a node at `stop_depth`.
fn cbt_walk_counts(leaf_index: u32, stop_depth: u32) -> CbtWalk {
    var node = CbtNode(1u, 0u);
    var index = leaf_index;
    loop {
        if (node.depth == stop_depth || cbt_heap_read(node) <= 1u) {
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
    return CbtWalk(node, index);
}

// The `leaf_index`-th leaf, reading counts only (one field per level down to the leaf). Safe
// while other threads split or merge: those change bitfield bits only, and only under leaves.
fn cbt_decode_node_by_counts(leaf_index: u32) -> CbtNode {
    return cbt_walk_counts(leaf_index, CBT_MAX_DEPTH + 1u).node;
}

// Position of the `rank`-th set bit of `word` (rank < countOneBits(word)), by binary search.
fn cbt_select_bit(word: u32, rank: u32) -> u32 {
    var w = word;
    var r = rank;
    var position = 0u;
    for (var width = 16u; width > 0u; width >>= 1u) {
        let low = countOneBits(w & ((1u << width) - 1u));
        if (r >= low) {
            r -= low;
            w >>= width;
            position += width;
        }
    }
    return position;
}

// The `leaf_index`-th leaf in left-to-right order. Walks the counts down to depth D-5, then
// finds the leaf among the 32 bitfield bits under that node with one word read. Only for passes
// that do not change the tree (the word may be mid-update in leb.split / leb.merge).
fn cbt_decode_node(leaf_index: u32) -> CbtNode {
    let walk = cbt_walk_counts(leaf_index, CBT_MAX_DEPTH - 5u);
    let node = walk.node;
    let index = walk.index;
    if (node.depth < CBT_MAX_DEPTH - 5u) {
        return node;
    }
    // The 32 bitfield bits of this depth-(D-5) node: leaf k starts at its k-th set bit.
    let word = cbt_load(cbt_bitfield_bit(node) >> 5u);
    return cbt_word_leaf(node.id, word, cbt_select_bit(word, index));
}

// The leaf that starts at set bit `start` of `word`, the 32 bitfield bits of the depth-(D-5)
// node `node_id`, when that node is not itself a leaf: it ends where the next set bit (or the
// word) starts, and its size gives its depth.
fn cbt_word_leaf(node_id: u32, word: u32, start: u32) -> CbtNode {
    let rest = word >> start >> 1u;
    let size = select(firstTrailingBit(rest) + 1u, 32u - start, rest == 0u);
    let size_log2 = firstTrailingBit(size);
    return CbtNode(((node_id << 5u) | start) >> size_log2, CBT_MAX_DEPTH - size_log2);
}

// Pool mode (the bisector pool's allocator, issue 15; src/cbt/cpu.rs `decode_used_slot` and
// `decode_free_slot`): bit i of the bitfield marks slot i of a pool of 2^D slots used, and the
// counts count used slots. The slot of the `index`-th used slot (`free` false) or free slot
// (`free` true), in slot order: the walk goes by used counts, or by the complement of the
// counts (a node's capacity minus its count), down to depth D-5, then selects the bit among
// that node's 32 bitfield bits.
fn cbt_decode_pool_slot(index: u32, free: bool) -> u32 {
    var node = CbtNode(1u, 0u);
    var i = index;
    for (var depth = 0u; depth < CBT_MAX_DEPTH - 5u; depth += 1u) {
        let left = cbt_left_child(node);
        let used = cbt_heap_read(left);
        let count = select(used, (1u << (CBT_MAX_DEPTH - left.depth)) - used, free);
        if (i < count) {
            node = left;
        } else {
            i -= count;
            node = cbt_right_child(node);
        }
    }
    let word = cbt_load(cbt_bitfield_bit(node) >> 5u);
    let bits = select(word, ~word, free);
    return ((node.id << 5u) | cbt_select_bit(bits, i)) - (1u << CBT_MAX_DEPTH);
}
