// The conforming split of LEB: split a node, then walk its edge-neighbour chain.
// Mirrors leb::cpu::split_conforming. Needs shared/cbt.wgsl with shared/cbt_heap_atomic.wgsl,
// and shared/leb.wgsl (the unit square) or shared/globe_leb.wgsl (the octahedron): either
// defines LEB_BASE_DEPTH and leb_edge_neighbour.

// Splits `node` and walks the edge-neighbour chain so the mesh stays conforming.
fn leb_split_conforming(node: CbtNode) {
    if (cbt_is_ceil_node(node)) {
        return;
    }
    cbt_split(node);
    var it = leb_edge_neighbour(node.id, node.depth);
    while (it != 0u) {
        let n = cbt_node_from_id(it);
        cbt_split(n);
        let parent = cbt_parent(n);
        it = 0u;
        if (parent.depth >= LEB_BASE_DEPTH) {
            cbt_split(parent);
            it = leb_edge_neighbour(parent.id, parent.depth);
        }
    }
}
