// Longest-edge bisection on the unit square: same-depth neighbours and vertex decoding from
// node-id bits. Mirrors src/leb/cpu.rs (see its header for the rules). No bindings.

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

// Same-depth neighbours of a node of depth >= 1 (0 = none).
fn leb_neighbours(id: u32, depth: u32) -> LebNeighbours {
    let quad_bit = (id >> (depth - 1u)) & 1u;
    var n = LebNeighbours(0u, 0u, 3u - quad_bit, 2u + quad_bit);
    for (var bit_index = i32(depth) - 2; bit_index >= 0; bit_index -= 1) {
        n = leb_split_neighbours(n, (id >> u32(bit_index)) & 1u);
    }
    return n;
}

fn leb_edge_neighbour(id: u32, depth: u32) -> u32 {
    return leb_neighbours(id, depth).edge;
}

// S(b) = [[1-b, b, 0], [1/2, 0, 1/2], [0, 1-b, b]], stored by rows (WGSL matrices are
// column-major, so m[j][i] is row i, column j).
fn leb_splitting_matrix(bit: u32) -> mat3x3<f32> {
    let b = f32(bit);
    let c = 1.0 - b;
    return mat3x3<f32>(vec3<f32>(c, 0.5, 0.0), vec3<f32>(b, 0.0, c), vec3<f32>(0.0, 0.5, b));
}

// Vertices (v0, v1, v2) of a node in unit-square coordinates (exact dyadic values).
fn leb_decode_vertices(id: u32, depth: u32) -> array<vec2<f32>, 3> {
    var m = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    for (var bit_index = i32(depth) - 2; bit_index >= 0; bit_index -= 1) {
        m = leb_splitting_matrix((id >> u32(bit_index)) & 1u) * m;
    }
    var base: array<vec2<f32>, 3>;
    if (((id >> (depth - 1u)) & 1u) == 0u) {
        base = array<vec2<f32>, 3>(vec2<f32>(0.0, 1.0), vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0));
    } else {
        base = array<vec2<f32>, 3>(vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0));
    }
    var v: array<vec2<f32>, 3>;
    for (var i = 0u; i < 3u; i += 1u) {
        v[i] = m[0][i] * base[0] + m[1][i] * base[1] + m[2][i] * base[2];
    }
    return v;
}
