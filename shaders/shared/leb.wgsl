// Longest-edge bisection on the unit square: same-depth neighbours and vertex decoding from
// node-id bits. Mirrors src/leb/cpu.rs (see its header for the rules). No bindings.

//!include shared/leb_bits.wgsl
// LEB_BASE_DEPTH: the unit square's base triangles are the nodes of that depth (src/leb/cpu.rs).
//!include shared/leb_constants.wgsl

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

// S(b) = [[1-b, b, 0], [1/2, 0, 1/2], [0, 1-b, b]] maps a triangle's vertices to its child b's.
// Vertices (v0, v1, v2) of a node in unit-square coordinates (exact dyadic values): the base
// triangle multiplied by S(b) for each bit, from the first bisection to the last. Applying each
// S(b) to the three vertices costs 6 multiply-adds per level instead of a 3x3 matrix product.
fn leb_decode_vertices(id: u32, depth: u32) -> array<vec2<f32>, 3> {
    var v0: vec2<f32>;
    var v1: vec2<f32>;
    var v2: vec2<f32>;
    if (((id >> (depth - 1u)) & 1u) == 0u) {
        v0 = vec2<f32>(0.0, 1.0);
        v1 = vec2<f32>(0.0, 0.0);
        v2 = vec2<f32>(1.0, 0.0);
    } else {
        v0 = vec2<f32>(1.0, 0.0);
        v1 = vec2<f32>(1.0, 1.0);
        v2 = vec2<f32>(0.0, 1.0);
    }
    for (var bit_index = i32(depth) - 2; bit_index >= 0; bit_index -= 1) {
        let b = f32((id >> u32(bit_index)) & 1u);
        let c = 1.0 - b;
        let m = 0.5 * (v0 + v2);
        let n0 = c * v0 + b * v1;
        let n2 = c * v1 + b * v2;
        v0 = n0;
        v1 = m;
        v2 = n2;
    }
    return array<vec2<f32>, 3>(v0, v1, v2);
}
