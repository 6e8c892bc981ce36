// Longest-edge bisection over the globe's octahedron (BaseMesh::octahedron in
// src/leb/base_mesh.rs): same-depth neighbours across base triangles and the map's folds, and
// vertices in fixed-point map coordinates (MAP_ONE = 2^30 = 1.0; exact). Defines what
// shared/leb_split.wgsl needs (LEB_BASE_DEPTH, leb_edge_neighbour). No bindings.
//!include shared/leb_bits.wgsl
//!include shared/globe_base_mesh.wgsl

fn globe_base_index(id: u32, depth: u32) -> u32 {
    return (id >> (depth - LEB_BASE_DEPTH)) - (1u << LEB_BASE_DEPTH);
}

// Same-depth neighbours of a node at or below the base depth (never 0: the mesh is closed).
fn leb_neighbours(id: u32, depth: u32) -> LebNeighbours {
    let base = globe_base_index(id, depth);
    var table = LEB_BASE_NEIGHBOURS;
    let b = table[base];
    var n = LebNeighbours(b.x, b.y, b.z, base + (1u << LEB_BASE_DEPTH));
    for (var bit_index = i32(depth - LEB_BASE_DEPTH) - 1; bit_index >= 0; bit_index -= 1) {
        n = leb_split_neighbours(n, (id >> u32(bit_index)) & 1u);
    }
    return n;
}

fn leb_edge_neighbour(id: u32, depth: u32) -> u32 {
    return leb_neighbours(id, depth).edge;
}

// The vertices of child `bit` of the triangle `v` in fixed-point map coordinates (exact):
// child 0 = (v0, m, v1), child 1 = (v1, m, v2), m the midpoint of v0-v2.
fn globe_bisect(v: array<vec2<u32>, 3>, bit: u32) -> array<vec2<u32>, 3> {
    let m = (v[0] + v[2]) >> vec2<u32>(1u);
    if (bit == 0u) {
        return array<vec2<u32>, 3>(v[0], m, v[1]);
    }
    return array<vec2<u32>, 3>(v[1], m, v[2]);
}

// Vertices (v0, v1, v2) of a node in fixed-point map coordinates: the base triangle's, bisected
// bit by bit.
fn globe_decode_map(id: u32, depth: u32) -> array<vec2<u32>, 3> {
    var table = LEB_BASE_VERTICES;
    var v = table[globe_base_index(id, depth)];
    for (var bit_index = i32(depth - LEB_BASE_DEPTH) - 1; bit_index >= 0; bit_index -= 1) {
        v = globe_bisect(v, (id >> u32(bit_index)) & 1u);
    }
    return v;
}
