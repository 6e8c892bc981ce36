//! CPU twin of longest-edge bisection on the unit square (Dupuy 2020, libleb), driving a `Cbt`.
//!
//! ```text
//! Node ids are CBT heap indices. The square's two base triangles are the depth-1 nodes:
//!   node 2 = ((0,1), (0,0), (1,0))   node 3 = ((1,0), (1,1), (0,1))
//! Every triangle is (v0, v1, v2) with its longest edge (hypotenuse) v0-v2 and apex v1.
//! Bisection bit b of a node id picks a child, with m = (v0 + v2) / 2:
//!   b = 0: (v0, m, v1)      b = 1: (v1, m, v2)
//! i.e. vertices = S(b_0) ... S(b_{d-2}) * base, with the per-bit 3x3 splitting matrix
//!   S(b) = [[1-b, b, 0], [1/2, 0, 1/2], [0, 1-b, b]].
//! Same-depth neighbours (left = across v0-v1, right = across v1-v2, edge = across v0-v2)
//! follow from the bits alone; 0 means "none" (the square's boundary):
//!   b = 0: left = 2*edge+1, right = 2*node+1, edge = 2*left+1
//!   b = 1: left = 2*node,   right = 2*edge,   edge = 2*right
//! A conforming split splits the node, then walks the edge-neighbour chain (neighbour,
//! its parent, the parent's edge neighbour, ...) splitting each: idempotent bit sets, so
//! concurrent walks on the GPU give the same tree as this sequential one.
//! A diamond (node P and its edge neighbour Q) merges only when all its children are
//! leaves and the criterion says neither P nor Q must stay split (a lower threshold than
//! splitting: hysteresis).
//! ```

use crate::cbt::cpu::{Cbt, Node};
use crate::leb::lod::Lod;

/// Depth of the square's two base triangles: the tree is never merged above it.
pub const BASE_DEPTH: u32 = 1;

/// The same-depth neighbours of a node (0 = none) and the node itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Neighbours {
    pub left: u32,
    pub right: u32,
    pub edge: u32,
    pub node: u32,
}

/// The neighbours of child `bit` of a node with neighbours `n` (the rules in the header).
pub(crate) fn split_neighbours(n: Neighbours, bit: u32) -> Neighbours {
    let child = |id: u32, b: u32| if id == 0 { 0 } else { (id << 1) | b };
    if bit == 0 {
        Neighbours { left: child(n.edge, 1), right: child(n.node, 1), edge: child(n.left, 1), node: n.node << 1 }
    } else {
        Neighbours { left: child(n.node, 0), right: child(n.edge, 0), edge: child(n.right, 0), node: (n.node << 1) | 1 }
    }
}

/// Same-depth neighbours of `node` (depth >= 1) in the square base mesh.
pub fn neighbours(node: Node) -> Neighbours {
    assert!(node.depth >= BASE_DEPTH, "node {node:?} is above the base mesh");
    let quad_bit = (node.id >> (node.depth - 1)) & 1;
    let mut n = Neighbours { left: 0, right: 0, edge: 3 - quad_bit, node: 2 + quad_bit };
    for bit_index in (0..node.depth - 1).rev() {
        n = split_neighbours(n, (node.id >> bit_index) & 1);
    }
    n
}

/// The neighbour across `node`'s longest edge (0 = none).
pub fn edge_neighbour(node: Node) -> u32 {
    neighbours(node).edge
}

/// A row-major 3x3 matrix acting on the stacked vertices (v0, v1, v2).
pub type Matrix3 = [[f32; 3]; 3];

fn splitting_matrix(bit: u32) -> Matrix3 {
    let b = bit as f32;
    let c = 1.0 - b;
    [[c, b, 0.0], [0.5, 0.0, 0.5], [0.0, c, b]]
}

fn mul(a: &Matrix3, b: &Matrix3) -> Matrix3 {
    let mut r = [[0.0f32; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    r
}

/// The product of the per-bit splitting matrices of `node` (identity for a base triangle).
pub fn decode_matrix(node: Node) -> Matrix3 {
    let mut m = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for bit_index in (0..node.depth - 1).rev() {
        m = mul(&splitting_matrix((node.id >> bit_index) & 1), &m);
    }
    m
}

/// The base triangle that `node` descends from, in unit-square coordinates.
pub fn base_triangle(node: Node) -> [[f32; 2]; 3] {
    if (node.id >> (node.depth - 1)) & 1 == 0 {
        [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    } else {
        [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    }
}

/// Vertices (v0, v1, v2) of `node` in unit-square coordinates; exact (dyadic) in f32 up to depth 46.
/// Applies S(b) to the vertices level by level (as shaders/shared/leb.wgsl does); equal to
/// `decode_matrix(node)` applied to `base_triangle(node)`.
pub fn decode_vertices(node: Node) -> [[f32; 2]; 3] {
    let [mut v0, mut v1, mut v2] = base_triangle(node);
    for bit_index in (0..node.depth - 1).rev() {
        let b = ((node.id >> bit_index) & 1) as f32;
        let c = 1.0 - b;
        let m = [0.5 * (v0[0] + v2[0]), 0.5 * (v0[1] + v2[1])];
        let n0 = [c * v0[0] + b * v1[0], c * v0[1] + b * v1[1]];
        let n2 = [c * v1[0] + b * v2[0], c * v1[1] + b * v2[1]];
        (v0, v1, v2) = (n0, m, n2);
    }
    [v0, v1, v2]
}

/// Splits `node` and every triangle needed to keep the mesh conforming (no T-junctions).
pub fn split_conforming(cbt: &mut Cbt, node: Node) {
    if cbt.is_ceil_node(node) {
        return;
    }
    cbt.split(node);
    let mut it = edge_neighbour(node);
    while it > 1 {
        let n = Node::from_id(it);
        cbt.split(n);
        let parent = n.parent();
        it = 0;
        if parent.id > 1 {
            cbt.split(parent);
            it = edge_neighbour(parent);
        }
    }
}

/// Which half of the alternating update a frame runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateKind {
    Split,
    Merge,
}

impl UpdateKind {
    /// The kind of frame number `frame` (even frames split, odd frames merge).
    pub fn for_frame(frame: u64) -> UpdateKind {
        if frame.is_multiple_of(2) {
            UpdateKind::Split
        } else {
            UpdateKind::Merge
        }
    }
}

/// If leaf `node` is the left child of a mergeable diamond, the diamond's (P, Q) ids (Q = 0 when P is on the boundary).
pub fn mergeable_diamond(cbt: &Cbt, node: Node, lod: &Lod) -> Option<(Node, u32)> {
    if node.depth <= BASE_DEPTH || node.id & 1 == 1 || !cbt.is_leaf(node.sibling()) {
        return None;
    }
    let parent = node.parent();
    let top = edge_neighbour(parent);
    if top != 0 {
        let top_node = Node::from_id(top);
        if !cbt.is_leaf(top_node.left_child()) || !cbt.is_leaf(top_node.right_child()) || lod.keeps_split(top_node) {
            return None;
        }
    }
    if lod.keeps_split(parent) {
        return None;
    }
    Some((parent, top))
}

/// One update frame over every leaf, with all decisions taken on the tree as it was at the
/// start of the frame (as the GPU does), then the tree is reduced. Returns true if it changed.
pub fn update(cbt: &mut Cbt, kind: UpdateKind, lod: &Lod) -> bool {
    let leaves = cbt.leaves();
    let before = cbt.heap().to_vec();
    match kind {
        UpdateKind::Split => {
            for node in leaves {
                if lod.should_split(node) {
                    split_conforming(cbt, node);
                }
            }
        }
        UpdateKind::Merge => {
            let diamonds: Vec<(Node, u32)> = leaves.iter().filter_map(|&n| mergeable_diamond(cbt, n, lod)).collect();
            for (parent, top) in diamonds {
                cbt.merge(parent);
                if top != 0 {
                    cbt.merge(Node::from_id(top));
                }
            }
        }
    }
    cbt.reduce();
    cbt.heap() != before
}

/// Runs alternating split/merge frames until two consecutive frames change nothing, at most `max_frames`.
/// Returns the number of frames run.
pub fn converge(cbt: &mut Cbt, lod: &Lod, max_frames: u64) -> u64 {
    let mut quiet = 0;
    for frame in 0..max_frames {
        if update(cbt, UpdateKind::for_frame(frame), lod) {
            quiet = 0;
        } else {
            quiet += 1;
            if quiet == 2 {
                return frame + 1;
            }
        }
    }
    max_frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_neighbours_face_each_other() {
        assert_eq!(neighbours(Node::from_id(2)), Neighbours { left: 0, right: 0, edge: 3, node: 2 });
        assert_eq!(neighbours(Node::from_id(3)), Neighbours { left: 0, right: 0, edge: 2, node: 3 });
    }

    #[test]
    fn children_halve_the_parent() {
        let v = decode_vertices(Node::from_id(2));
        let c0 = decode_vertices(Node::from_id(4));
        let c1 = decode_vertices(Node::from_id(5));
        let m = [(v[0][0] + v[2][0]) / 2.0, (v[0][1] + v[2][1]) / 2.0];
        assert_eq!(c0, [v[0], m, v[1]]);
        assert_eq!(c1, [v[1], m, v[2]]);
    }

    /// The draw relies on this to wind every triangle the same way (terrain_draw.wgsl).
    #[test]
    fn winding_alternates_with_depth_parity() {
        for depth in 1..16u32 {
            for id in ((1u32 << depth)..(2u32 << depth)).step_by(5) {
                let [a, b, c] = decode_vertices(Node { id, depth });
                let twice_area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
                assert_eq!(twice_area > 0.0, depth % 2 == 1, "node {id}: twice the signed area {twice_area}");
            }
        }
    }

    #[test]
    fn vertex_decoding_equals_the_matrix_product() {
        for depth in 1..16u32 {
            for id in ((1u32 << depth)..(2u32 << depth)).step_by(7) {
                let node = Node { id, depth };
                let (m, base) = (decode_matrix(node), base_triangle(node));
                let expected: Vec<[f32; 2]> = (0..3)
                    .map(|i| [0, 1].map(|axis| m[i][0] * base[0][axis] + m[i][1] * base[1][axis] + m[i][2] * base[2][axis]))
                    .collect();
                assert_eq!(decode_vertices(node).to_vec(), expected, "node {id}");
            }
        }
    }

    #[test]
    fn edge_neighbours_are_symmetric() {
        for depth in 1..14u32 {
            for id in (1u32 << depth)..(2u32 << depth) {
                let node = Node { id, depth };
                let n = neighbours(node);
                for other in [n.left, n.right, n.edge] {
                    if other != 0 {
                        let back = neighbours(Node::from_id(other));
                        assert!([back.left, back.right, back.edge].contains(&id), "{id} -> {other} not symmetric");
                    }
                }
            }
        }
    }
}
