// The per-leaf passes of leb.split / leb.merge over any base mesh: split frames refine with
// conforming splits, merge frames coarsen whole diamonds. Mirrors leb::cpu::update. The leaves
// come from the previous frame's decode (the tree has not changed since), so no thread walks
// the tree. The includer binds group 0 binding 0 (the CBT heap, through shared/cbt.wgsl) and
// defines the criterion:
//   fn should_split(node: CbtNode) -> bool   split on split frames
//   fn keeps_split(node: CbtNode) -> bool    a parent whose children may merge stays split
// Needs shared/cbt.wgsl, shared/cbt_heap_atomic.wgsl, shared/dispatch.wgsl, shared/leb_split.wgsl
// and a base mesh (shared/leb.wgsl or shared/globe_leb.wgsl).

@group(0) @binding(2) var<storage, read> leaf_ids: array<u32>;
// FrameStats (shared/frame.wgsl) read as words: [0] = leaves, [3] = capacity of leaf_ids.
@group(0) @binding(3) var<storage, read> stats_words: array<u32, 4>;

// The `leaf_index`-th leaf, or None-like id 0 past the last leaf.
fn leaf_node(group: vec3<u32>, local: u32) -> CbtNode {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index >= stats_words[0]) {
        return CbtNode(0u, 0u);
    }
    if (leaf_index < stats_words[3]) {
        return cbt_node_from_id(leaf_ids[leaf_index]);
    }
    // More leaves than leaf_ids holds (flagged by cbt.args): walk the tree for the rest.
    return cbt_decode_node_by_counts(leaf_index);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn split_pass(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let node = leaf_node(group, local);
    if (node.id != 0u && should_split(node)) {
        leb_split_conforming(node);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_pass(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let node = leaf_node(group, local);
    // One thread per diamond half: the left child of a parent whose children are both leaves.
    if (node.id == 0u || node.depth <= LEB_BASE_DEPTH || (node.id & 1u) == 1u || !cbt_is_leaf(cbt_sibling(node))) {
        return;
    }
    let parent = cbt_parent(node);
    let top = leb_edge_neighbour(parent.id, parent.depth);
    if (top != 0u) {
        let top_node = cbt_node_from_id(top);
        if (!cbt_is_leaf(cbt_left_child(top_node)) || !cbt_is_leaf(cbt_right_child(top_node)) || keeps_split(top_node)) {
            return;
        }
    }
    if (keeps_split(parent)) {
        return;
    }
    cbt_merge(parent);
    if (top != 0u) {
        cbt_merge(cbt_node_from_id(top));
    }
}
