//! Longest-edge bisection over a closed base mesh: the globe's octahedron (issue 4), and the
//! square of `leb::cpu` as the same construction with two base triangles.
//!
//! ```text
//! A base mesh is 2^k triangles, the CBT nodes of depth k (ids 2^k .. 2^(k+1)), each with its
//! vertices (v0, v1, v2): v1 the apex, v0-v2 the edge that bisection splits first, and its
//! neighbours across (v0, v1) = left, (v1, v2) = right and (v2, v0) = edge (0 = none). The
//! split rules of `leb::cpu` hold when every shared edge is walked in opposite directions by its
//! two triangles (a consistently oriented mesh) and a left edge always meets a right edge (or an
//! edge meets an edge): then the same bit rules give every descendant's neighbours.
//!
//! The octahedron, on the octahedral map of the unit square (centre = north pole, edge
//! midpoints m_i = the equator points E_i, corners = the south pole), counter-clockwise seen
//! from outside, apex at a pole:
//!   north i = (m_{i+1}, centre, m_i)      left = north i+1, right = north i-1, edge = south i
//!   south i = (m_i, corner_i, m_{i+1})    left = south i-1, right = south i+1, edge = north i
//! with E_0..E_3 = +x, +y, -x, -y at m = (1, 1/2), (1/2, 1), (0, 1/2), (1/2, 0), and corner_i the
//! square's corner between m_i and m_{i+1}. The south triangles' legs lie on the square's
//! boundary, where the map folds: the two halves of a side are one edge of the octahedron.
//! Vertices are decoded in map coordinates (exact dyadic values) and folded onto the
//! octahedron |x| + |y| + |z| = 1, where the triangles of a conforming mesh meet edge to edge.
//! ```

use crate::cbt::cpu::{Cbt, Node};
use crate::leb::cpu::{split_neighbours, Neighbours};

/// Base triangles and their neighbour links.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseMesh {
    /// Depth k of the base triangles: there are 2^k of them, node ids 2^k + i.
    pub depth: u32,
    /// Vertices (v0, v1, v2) of base triangle i in map coordinates.
    pub vertices: Vec<[[f64; 2]; 3]>,
    /// Neighbours of base triangle i (node ids; 0 = none); `node` is its own id.
    pub neighbours: Vec<Neighbours>,
}

impl BaseMesh {
    /// The unit square's two triangles (as `leb::cpu`): open, the square's sides have no neighbour.
    pub fn square() -> BaseMesh {
        BaseMesh {
            depth: 1,
            vertices: vec![[[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]],
            neighbours: vec![Neighbours { left: 0, right: 0, edge: 3, node: 2 }, Neighbours { left: 0, right: 0, edge: 2, node: 3 }],
        }
    }

    /// The octahedron of the octahedral map: eight triangles, closed (see the module header).
    pub fn octahedron() -> BaseMesh {
        let m = [[1.0, 0.5], [0.5, 1.0], [0.0, 0.5], [0.5, 0.0]];
        let corner = [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]];
        let (north, south) = (|i: usize| 8 + (i % 4) as u32, |i: usize| 12 + (i % 4) as u32);
        let mut vertices = Vec::new();
        let mut neighbours = Vec::new();
        for i in 0..4 {
            vertices.push([m[(i + 1) % 4], [0.5, 0.5], m[i]]);
            neighbours.push(Neighbours { left: north(i + 1), right: north(i + 3), edge: south(i), node: north(i) });
        }
        for i in 0..4 {
            vertices.push([m[i], corner[i], m[(i + 1) % 4]]);
            neighbours.push(Neighbours { left: south(i + 3), right: south(i + 1), edge: north(i), node: south(i) });
        }
        BaseMesh { depth: 3, vertices, neighbours }
    }

    fn base_index(&self, node: Node) -> usize {
        assert!(node.depth >= self.depth, "node {node:?} is above the base mesh");
        ((node.id >> (node.depth - self.depth)) - (1 << self.depth)) as usize
    }

    /// Same-depth neighbours of `node` (at or below the base depth).
    pub fn neighbours(&self, node: Node) -> Neighbours {
        let mut n = self.neighbours[self.base_index(node)];
        for bit_index in (0..node.depth - self.depth).rev() {
            n = split_neighbours(n, (node.id >> bit_index) & 1);
        }
        n
    }

    /// Vertices (v0, v1, v2) of `node` in map coordinates (exact: dyadic values).
    pub fn decode_vertices(&self, node: Node) -> [[f64; 2]; 3] {
        let [mut v0, mut v1, mut v2] = self.vertices[self.base_index(node)];
        for bit_index in (0..node.depth - self.depth).rev() {
            let m = [0.5 * (v0[0] + v2[0]), 0.5 * (v0[1] + v2[1])];
            (v0, v1, v2) = if (node.id >> bit_index) & 1 == 0 { (v0, m, v1) } else { (v1, m, v2) };
        }
        [v0, v1, v2]
    }

    /// Splits `node` and every triangle needed to keep the mesh conforming, across base
    /// triangles too.
    pub fn split_conforming(&self, cbt: &mut Cbt, node: Node) {
        if cbt.is_ceil_node(node) {
            return;
        }
        cbt.split(node);
        let mut it = self.neighbours(node).edge;
        while it != 0 {
            let n = Node::from_id(it);
            cbt.split(n);
            it = 0;
            if n.depth > self.depth {
                let parent = n.parent();
                cbt.split(parent);
                it = self.neighbours(parent).edge;
            }
        }
    }
}

/// The point of the octahedron |x| + |y| + |z| = 1 at octahedral-map coordinates `p` (the unit
/// square; centre = +z, corners = -z). Exact for dyadic inputs.
pub fn octahedron_point(p: [f64; 2]) -> [f64; 3] {
    let q = [2.0 * p[0] - 1.0, 2.0 * p[1] - 1.0];
    let z = 1.0 - q[0].abs() - q[1].abs();
    let (x, y) = if z >= 0.0 { (q[0], q[1]) } else { ((1.0 - q[1].abs()).copysign(q[0]), (1.0 - q[0].abs()).copysign(q[1])) };
    // + 0.0 turns -0.0 into 0.0, so equal points have equal bits.
    [x + 0.0, y + 0.0, z + 0.0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leb::cpu;
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;

    #[test]
    fn the_square_base_mesh_is_leb_cpu() {
        let square = BaseMesh::square();
        for depth in 1..=12u32 {
            for id in ((1u32 << depth)..(2u32 << depth)).step_by(3) {
                let node = Node { id, depth };
                assert_eq!(square.neighbours(node), cpu::neighbours(node), "node {id}");
                let v = square.decode_vertices(node).map(|p| p.map(|c| c as f32));
                assert_eq!(v, cpu::decode_vertices(node), "node {id}");
            }
        }
    }

    /// Each leaf's edges keyed by their two end points on the octahedron (exact bits).
    fn edge_counts(mesh: &BaseMesh, leaves: &[Node]) -> HashMap<[[u64; 3]; 2], Vec<u32>> {
        let mut edges: HashMap<[[u64; 3]; 2], Vec<u32>> = HashMap::new();
        for &leaf in leaves {
            let v = mesh.decode_vertices(leaf).map(|p| octahedron_point(p).map(f64::to_bits));
            for (a, b) in [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])] {
                edges.entry(if a < b { [a, b] } else { [b, a] }).or_default().push(leaf.id);
            }
        }
        edges
    }

    #[test]
    fn the_octahedron_is_closed_and_its_links_are_mutual() {
        let mesh = BaseMesh::octahedron();
        let leaves: Vec<Node> = (8..16).map(Node::from_id).collect();
        for (edge, ids) in edge_counts(&mesh, &leaves) {
            assert_eq!(ids.len(), 2, "edge {edge:?} belongs to {ids:?}");
        }
        for &node in &leaves {
            let n = mesh.neighbours(node);
            for (neighbour, expected_back) in [(n.left, "right"), (n.right, "left"), (n.edge, "edge")] {
                let back = mesh.neighbours(Node::from_id(neighbour));
                let found = match expected_back {
                    "right" => back.right,
                    "left" => back.left,
                    _ => back.edge,
                };
                assert_eq!(found, node.id, "node {} -> {neighbour}: its {expected_back} neighbour is {found}", node.id);
            }
        }
    }

    /// Random conforming refinement, with splits crossing the base triangles and the map's folds:
    /// every edge of the leaves is shared by exactly two leaves (watertight, no T-junction), and
    /// every leaf's same-depth neighbours, where they are leaves, share the expected edge.
    #[test]
    fn random_refinement_of_the_octahedron_stays_watertight() {
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mesh = BaseMesh::octahedron();
        for round in 0..6 {
            let max_depth = rng.random_range(8..=14u32);
            let mut cbt = Cbt::new(max_depth, mesh.depth);
            for _ in 0..rng.random_range(1..120) {
                // Refine around a random map point down to a random depth.
                let p = [rng.random_range(0.0..1.0), rng.random_range(0.0..1.0)];
                let target = rng.random_range(mesh.depth + 1..=max_depth);
                loop {
                    let hit = cbt.leaves().into_iter().find(|&leaf| leaf.depth < target && contains(mesh.decode_vertices(leaf), p));
                    match hit {
                        Some(leaf) => mesh.split_conforming(&mut cbt, leaf),
                        None => break,
                    }
                    cbt.reduce();
                }
            }
            let leaves = cbt.leaves();
            let area: f64 = leaves.iter().map(|&l| twice_area(mesh.decode_vertices(l)).abs() / 2.0).sum();
            assert_eq!(area, 1.0, "seed {seed} round {round}: the leaves do not tile the map");
            for (edge, ids) in edge_counts(&mesh, &leaves) {
                assert_eq!(ids.len(), 2, "seed {seed} round {round}: edge {edge:?} belongs to leaves {ids:?}");
            }
            let is_leaf: std::collections::HashSet<u32> = leaves.iter().map(|l| l.id).collect();
            for &leaf in &leaves {
                let n = mesh.neighbours(leaf);
                let v = mesh.decode_vertices(leaf).map(octahedron_point);
                for (neighbour, a, b) in [(n.left, v[0], v[1]), (n.right, v[1], v[2]), (n.edge, v[2], v[0])] {
                    assert_ne!(neighbour, 0, "the octahedron has no boundary");
                    if is_leaf.contains(&neighbour) {
                        let w = mesh.decode_vertices(Node::from_id(neighbour)).map(octahedron_point);
                        assert!(w.contains(&a) && w.contains(&b), "seed {seed}: leaf {} and its neighbour {neighbour} do not share an edge", leaf.id);
                    }
                }
            }
        }
    }

    fn twice_area(v: [[f64; 2]; 3]) -> f64 {
        (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0])
    }

    fn contains(v: [[f64; 2]; 3], p: [f64; 2]) -> bool {
        let sign = twice_area(v).signum();
        (0..3).all(|i| twice_area([v[i], v[(i + 1) % 3], p]) * sign >= 0.0)
    }
}
