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

// Vertices (v0, v1, v2) of a node in fixed-point map coordinates: the base triangle's, bisected
// bit by bit (child 0 = (v0, m, v1), child 1 = (v1, m, v2), m the midpoint of v0-v2).
fn globe_decode_map(id: u32, depth: u32) -> array<vec2<u32>, 3> {
    var table = LEB_BASE_VERTICES;
    let base = table[globe_base_index(id, depth)];
    var v0 = base[0];
    var v1 = base[1];
    var v2 = base[2];
    for (var bit_index = i32(depth - LEB_BASE_DEPTH) - 1; bit_index >= 0; bit_index -= 1) {
        let m = (v0 + v2) >> vec2<u32>(1u);
        if (((id >> u32(bit_index)) & 1u) == 0u) {
            v2 = v1;
        } else {
            v0 = v1;
        }
        v1 = m;
    }
    return array<vec2<u32>, 3>(v0, v1, v2);
}
