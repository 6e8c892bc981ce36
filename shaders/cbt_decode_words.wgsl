// cbt.decode_words: every leaf's node id (the same as cbt_decode_node of each leaf index), one
// thread per bitfield word instead of one per leaf (src/cbt/decode_words.rs).
//   A leaf starts at a set bit of the bitfield (its leftmost depth-D descendant), so a word's leaf
//   indices follow from the number of set bits before it: the workgroup's 256 words take an
//   exclusive scan of their popcounts, and the leaves before the workgroup are the counts of the
//   left siblings along its subtree root's path, read by one thread per level at once (not one
//   dependent read per level, as the walk down from the root takes).
//   A word of two or more set bits holds its leaves whole (leaves are aligned subtrees): each runs
//   to the next set bit or the word's end, which gives its depth. A word of one set bit (bit 0)
//   lies in a leaf at its depth-(D-5) node or above: the highest ancestor whose count is 1, as the
//   walk down finds it. A word of none lies inside a leaf that started earlier.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/workgroup_scan.wgsl

// The leaves' node ids, in leaf order.
@group(0) @binding(1) var<storage, read_write> leaf_ids: array<u32>;

// shared/workgroup_scan.wgsl scans 256 threads.
const_assert WORKGROUP_SIZE == 256u;

// Leaves past the buffer (more leaves than can be drawn) are not written.
fn emit_leaf(leaf_index: u32, id: u32) {
    if (leaf_index < arrayLength(&leaf_ids)) {
        leaf_ids[leaf_index] = id;
    }
}

var<workgroup> wg_before: atomic<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn decode_words(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let d = CBT_MAX_DEPTH;
    let word_count = 1u << (d - 5u);
    let g = dispatch_group_index(group);
    let w = g * WORKGROUP_SIZE + t;
    var word = 0u;
    if (w < word_count) {
        word = cbt_load((3u << (d - 5u)) + w);
    }
    let count = countOneBits(word);
    if (t == 0u) {
        atomicStore(&wg_before, 0u);
    }
    workgroupBarrier();
    // The workgroup's words form the subtree of node (2^r + g) at depth r = D - 13 (one workgroup,
    // the root's subtree, when there are 256 words or fewer): thread t adds the count of the left
    // sibling of the path's node at depth t + 1 when that node is a right child.
    let r = select(0u, d - 13u, d > 13u);
    if (t < r) {
        let id = ((1u << r) + g) >> (r - (t + 1u));
        if ((id & 1u) == 1u) {
            atomicAdd(&wg_before, cbt_heap_read(CbtNode(id ^ 1u, t + 1u)));
        }
    }
    // (The scan's barriers also order the adds above before the load below.)
    let first_leaf = workgroup_exclusive_scan(t, count) + atomicLoad(&wg_before);
    let node_id = (1u << (d - 5u)) + w;
    if (count >= 2u) {
        var bits = word;
        for (var k = 0u; k < count; k += 1u) {
            emit_leaf(first_leaf + k, cbt_word_leaf(node_id, word, firstTrailingBit(bits)).id);
            bits &= bits - 1u;
        }
    } else if (count == 1u) {
        var node = CbtNode(node_id, d - 5u);
        while (node.depth > 0u && cbt_heap_read(cbt_parent(node)) == 1u) {
            node = cbt_parent(node);
        }
        emit_leaf(first_leaf, node.id);
    }
}
