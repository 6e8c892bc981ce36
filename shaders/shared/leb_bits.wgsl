// The bit rules of longest-edge bisection shared by every base mesh: a child's same-depth
// neighbours from its parent's (mirrors leb::cpu::split_neighbours). No bindings.

struct LebNeighbours {
    left: u32,
    right: u32,
    edge: u32,
    node: u32,
}

fn leb_child_id(id: u32, bit: u32) -> u32 {
    return select((id << 1u) | bit, 0u, id == 0u);
}

fn leb_split_neighbours(n: LebNeighbours, bit: u32) -> LebNeighbours {
    if (bit == 0u) {
        return LebNeighbours(leb_child_id(n.edge, 1u), (n.node << 1u) | 1u, leb_child_id(n.left, 1u), n.node << 1u);
    }
    return LebNeighbours(n.node << 1u, leb_child_id(n.edge, 0u), leb_child_id(n.right, 0u), (n.node << 1u) | 1u);
}
