//! Longest-edge bisection with 64-bit node ids over a closed base mesh (the globe's octahedron),
//! the CPU arithmetic of the bisector pool (issue 15; docs/design/bisector-pool.md, step 1).
//!
//! ```text
//! A node id is a leading 1 followed by the path: depth = 63 - leading_zeros(id), so ids reach
//! depth 63, 60 levels below the octahedron's base depth 3 (the u32 ids of `base_mesh` stop at
//! 31, and the classic bit-packed CBT at 29). Neighbours follow the bit rules of `leb::cpu`
//! (`split_neighbours`) from the base triangle's links, exactly as in `BaseMesh::neighbours`.
//! Vertices are fixed-point map coordinates with MAP_ONE_64 = 2^62 = 1.0: the base vertices are
//! multiples of 1/2, and k levels below the base the grid is 2^-(1 + ceil(k/2)), so every vertex
//! down to depth 63 is an exact integer and every midpoint (v0 + v2) / 2 is exact (no sum
//! overflows: coordinates are at most 2^62).
//! `LeafSet64` refines a set of leaves with conforming splits (a node's edge neighbour at the
//! coarser depth is split first, recursively, then both halves of the diamond are split), the
//! reference the pool's split frames must reproduce; `merge_diamond` undoes one.
//! ```

use std::collections::HashSet;

use crate::leb::base_mesh::BaseMesh;

/// 1.0 in the fixed-point map coordinates of `BaseMesh64::decode_vertices`.
pub const MAP_ONE_64: u64 = 1 << 62;
/// Deepest node a 64-bit id holds.
pub const MAX_DEPTH_64: u32 = 63;

/// A node of the 64-bit tree: its id (a leading 1, then one bit per level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node64(pub u64);

impl Node64 {
    /// Depth: the index of the leading 1.
    pub fn depth(self) -> u32 {
        63 - self.0.leading_zeros()
    }

    /// The node one level up.
    pub fn parent(self) -> Node64 {
        Node64(self.0 >> 1)
    }

    /// Child `bit` (0: the half on v0's side, 1: on v2's side).
    pub fn child(self, bit: u64) -> Node64 {
        Node64((self.0 << 1) | bit)
    }

    /// The other child of this node's parent.
    pub fn sibling(self) -> Node64 {
        Node64(self.0 ^ 1)
    }
}

/// The same-depth neighbours of a node (0 = none) and the node itself, as 64-bit ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Neighbours64 {
    pub left: u64,
    pub right: u64,
    pub edge: u64,
    pub node: u64,
}

/// The neighbours of child `bit` of a node with neighbours `n` (the rules of `leb::cpu`).
fn split_neighbours64(n: Neighbours64, bit: u64) -> Neighbours64 {
    let child = |id: u64, b: u64| if id == 0 { 0 } else { (id << 1) | b };
    if bit == 0 {
        Neighbours64 { left: child(n.edge, 1), right: child(n.node, 1), edge: child(n.left, 1), node: n.node << 1 }
    } else {
        Neighbours64 { left: child(n.node, 0), right: child(n.edge, 0), edge: child(n.right, 0), node: (n.node << 1) | 1 }
    }
}

/// A base mesh for 64-bit ids: the base triangles' links and their vertices in fixed point.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseMesh64 {
    /// Depth of the base triangles (3 for the octahedron).
    pub depth: u32,
    neighbours: Vec<Neighbours64>,
    /// Vertices (v0, v1, v2) of each base triangle, MAP_ONE_64 = 1.0.
    vertices: Vec<[[u64; 2]; 3]>,
}

impl BaseMesh64 {
    /// The 64-bit form of `mesh` (its vertices must be multiples of 2^-62 in [0, 1]: the
    /// octahedron's and the square's are).
    pub fn new(mesh: &BaseMesh) -> BaseMesh64 {
        let fixed = |c: f64| {
            let v = c * MAP_ONE_64 as f64;
            assert!((0.0..=MAP_ONE_64 as f64).contains(&v) && v.fract() == 0.0, "base vertex coordinate {c} is not on the 2^-62 grid");
            v as u64
        };
        BaseMesh64 {
            depth: mesh.depth,
            neighbours: mesh
                .neighbours
                .iter()
                .map(|n| Neighbours64 { left: n.left.into(), right: n.right.into(), edge: n.edge.into(), node: n.node.into() })
                .collect(),
            vertices: mesh.vertices.iter().map(|v| v.map(|p| p.map(fixed))).collect(),
        }
    }

    /// The globe's octahedron (`BaseMesh::octahedron`).
    pub fn octahedron() -> BaseMesh64 {
        BaseMesh64::new(&BaseMesh::octahedron())
    }

    /// The base triangles as nodes.
    pub fn roots(&self) -> impl Iterator<Item = Node64> + '_ {
        (0..self.vertices.len() as u64).map(|i| Node64((1 << self.depth) + i))
    }

    fn base_index(&self, node: Node64) -> usize {
        let depth = node.depth();
        assert!(depth >= self.depth && depth <= MAX_DEPTH_64, "node {node:?} is above the base mesh");
        ((node.0 >> (depth - self.depth)) - (1 << self.depth)) as usize
    }

    /// Same-depth neighbours of `node` (at or below the base depth).
    pub fn neighbours(&self, node: Node64) -> Neighbours64 {
        let mut n = self.neighbours[self.base_index(node)];
        for bit_index in (0..node.depth() - self.depth).rev() {
            n = split_neighbours64(n, (node.0 >> bit_index) & 1);
        }
        n
    }

    /// Vertices (v0, v1, v2) of `node` in fixed-point map coordinates (exact).
    pub fn decode_vertices(&self, node: Node64) -> [[u64; 2]; 3] {
        let [mut v0, mut v1, mut v2] = self.vertices[self.base_index(node)];
        for bit_index in (0..node.depth() - self.depth).rev() {
            let m = [(v0[0] + v2[0]) >> 1, (v0[1] + v2[1]) >> 1];
            debug_assert!((v0[0] + v2[0]) % 2 == 0 && (v0[1] + v2[1]) % 2 == 0, "midpoint off the grid at {node:?}");
            (v0, v1, v2) = if (node.0 >> bit_index) & 1 == 0 { (v0, m, v1) } else { (v1, m, v2) };
        }
        [v0, v1, v2]
    }
}

/// The point of the octahedron |x| + |y| + |z| = 1 at fixed-point map point `p`, in units of
/// 2^-62 (exact; centre = +z, corners = -z), as `base_mesh::octahedron_point` in f64.
pub fn octahedron_point_fixed(p: [u64; 2]) -> [i64; 3] {
    let one = MAP_ONE_64 as i128;
    let q = [2 * p[0] as i128 - one, 2 * p[1] as i128 - one];
    let z = one - q[0].abs() - q[1].abs();
    let sign = |v: i128| if v < 0 { -1 } else { 1 };
    let point = if z >= 0 { [q[0], q[1], z] } else { [sign(q[0]) * (one - q[1].abs()), sign(q[1]) * (one - q[0].abs()), z] };
    point.map(|c| i64::try_from(c).expect("octahedron coordinates lie within +-2^62"))
}

/// Twice the signed area of a fixed-point triangle in the map, in units of 2^-124 (exact).
pub fn twice_area_fixed(v: [[u64; 2]; 3]) -> i128 {
    let c = v.map(|p| p.map(|x| x as i128));
    (c[1][0] - c[0][0]) * (c[2][1] - c[0][1]) - (c[1][1] - c[0][1]) * (c[2][0] - c[0][0])
}

/// A conforming LEB triangulation as a set of leaves: the CPU reference for the bisector pool.
#[derive(Clone, Debug)]
pub struct LeafSet64 {
    pub mesh: BaseMesh64,
    /// No node deeper than this is made (at most MAX_DEPTH_64).
    pub max_depth: u32,
    leaves: HashSet<Node64>,
}

impl LeafSet64 {
    /// The base triangles of `mesh` as leaves, refined at most to `max_depth`.
    pub fn new(mesh: BaseMesh64, max_depth: u32) -> LeafSet64 {
        assert!(max_depth > mesh.depth && max_depth <= MAX_DEPTH_64, "max depth {max_depth} outside {}..={MAX_DEPTH_64}", mesh.depth + 1);
        let leaves = mesh.roots().collect();
        LeafSet64 { mesh, max_depth, leaves }
    }

    /// The leaves.
    pub fn leaves(&self) -> &HashSet<Node64> {
        &self.leaves
    }

    /// Whether `node` is a leaf.
    pub fn is_leaf(&self, node: Node64) -> bool {
        self.leaves.contains(&node)
    }

    fn bisect(&mut self, node: Node64) {
        let removed = self.leaves.remove(&node);
        debug_assert!(removed, "{node:?} is not a leaf");
        self.leaves.insert(node.child(0));
        self.leaves.insert(node.child(1));
    }

    /// Splits leaf `node` and whatever the triangulation needs to stay conforming: the edge
    /// neighbour at the coarser depth is split first (recursively), then both halves of the
    /// diamond. Returns false (and changes nothing) when `node` is not a leaf, or the split would
    /// make a node deeper than `max_depth`.
    pub fn split_conforming(&mut self, node: Node64) -> bool {
        if !self.is_leaf(node) || node.depth() >= self.max_depth {
            return false;
        }
        let edge = self.mesh.neighbours(node).edge;
        if edge != 0 {
            let neighbour = Node64(edge);
            if !self.is_leaf(neighbour) && node.depth() > self.mesh.depth && self.is_leaf(neighbour.parent()) {
                // The neighbour across the hypotenuse is one level coarser: split it first, which
                // makes `neighbour` a leaf (conformity allows no other case).
                let split = self.split_conforming(neighbour.parent());
                debug_assert!(split, "the coarser neighbour of {node:?} could not split");
            }
            if self.is_leaf(neighbour) {
                self.bisect(neighbour);
            }
        }
        self.bisect(node);
        true
    }

    /// Merges the diamond whose halves are `node`'s parent and its edge neighbour (or the parent
    /// alone on a boundary), when all its children are leaves. Returns whether it merged.
    pub fn merge_diamond(&mut self, node: Node64) -> bool {
        if node.depth() <= self.mesh.depth || !self.is_leaf(node) || !self.is_leaf(node.sibling()) {
            return false;
        }
        let parent = node.parent();
        let edge = self.mesh.neighbours(parent).edge;
        let top = (edge != 0).then_some(Node64(edge));
        if let Some(top) = top {
            if !(self.is_leaf(top.child(0)) && self.is_leaf(top.child(1))) {
                return false;
            }
        }
        for half in std::iter::once(parent).chain(top) {
            self.leaves.remove(&half.child(0));
            self.leaves.remove(&half.child(1));
            self.leaves.insert(half);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::cpu::{Cbt, Node};
    use crate::leb::base_mesh::octahedron_point;
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;

    #[test]
    fn ids_neighbours_and_vertices_equal_the_32_bit_mesh() {
        let (mesh, mesh64) = (BaseMesh::octahedron(), BaseMesh64::octahedron());
        let mut rng = rand::rngs::StdRng::seed_from_u64(rand::random());
        for _ in 0..5000 {
            let depth = rng.random_range(3..=30u32);
            let id = rng.random_range((1u32 << depth)..=(((1u64 << (depth + 1)) - 1) as u32));
            let (node, node64) = (Node { id, depth }, Node64(id.into()));
            assert_eq!(node64.depth(), depth);
            let (n, n64) = (mesh.neighbours(node), mesh64.neighbours(node64));
            assert_eq!([n.left, n.right, n.edge, n.node].map(u64::from), [n64.left, n64.right, n64.edge, n64.node], "node {id}");
            let v = mesh.decode_vertices(node).map(|p| p.map(|c| c * MAP_ONE_64 as f64));
            let v64 = mesh64.decode_vertices(node64).map(|p| p.map(|c| c as f64));
            assert_eq!(v, v64, "node {id}");
        }
    }

    #[test]
    fn the_fixed_octahedron_point_is_the_f64_one() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(rand::random());
        for _ in 0..10_000 {
            // Points on a 2^-30 grid, where f64 is exact too.
            let p = [rng.random_range(0..=1u64 << 30), rng.random_range(0..=1u64 << 30)];
            let fixed = octahedron_point_fixed(p.map(|c| c << 32));
            let float = octahedron_point(p.map(|c| c as f64 / (1u64 << 30) as f64));
            assert_eq!(fixed.map(|c| c as f64 / MAP_ONE_64 as f64), float, "map point {p:?}");
        }
    }

    /// The leaf containing fixed-point map point `p` below `target` depth, if any.
    fn leaf_to_split(set: &LeafSet64, p: [u64; 2], target: u32) -> Option<Node64> {
        set.leaves().iter().copied().filter(|l| l.depth() < target).find(|&l| contains(set.mesh.decode_vertices(l), p))
    }

    fn contains(v: [[u64; 2]; 3], p: [u64; 2]) -> bool {
        let sign = twice_area_fixed(v).signum();
        (0..3).all(|i| twice_area_fixed([v[i], v[(i + 1) % 3], p]) * sign >= 0)
    }

    /// The conforming splits of the set equal the CBT's chain of idempotent bit sets
    /// (`BaseMesh::split_conforming`) for the same requests, where both can go (depth <= 20).
    #[test]
    fn conforming_splits_equal_the_cbt_chain() {
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mesh = BaseMesh::octahedron();
        for round in 0..4 {
            let max_depth = rng.random_range(8..=16u32);
            let mut cbt = Cbt::new(max_depth, mesh.depth);
            let mut set = LeafSet64::new(BaseMesh64::octahedron(), max_depth);
            for _ in 0..rng.random_range(1..60) {
                let p = [rng.random_range(0..=MAP_ONE_64), rng.random_range(0..=MAP_ONE_64)];
                let target = rng.random_range(mesh.depth + 1..=max_depth);
                while let Some(leaf) = leaf_to_split(&set, p, target) {
                    assert!(set.split_conforming(leaf));
                    mesh.split_conforming(&mut cbt, Node::from_id(leaf.0 as u32));
                    cbt.reduce();
                }
            }
            let mut from_cbt: Vec<u64> = cbt.leaves().into_iter().map(|l| u64::from(l.id)).collect();
            let mut from_set: Vec<u64> = set.leaves().iter().map(|l| l.0).collect();
            from_cbt.sort_unstable();
            from_set.sort_unstable();
            assert_eq!(from_set, from_cbt, "seed {seed} round {round}");
        }
    }

    /// Refinement around random points down to 45-63 levels: the leaves tile the map exactly
    /// (areas in exact integers) and are watertight on the octahedron (every edge, as two exact
    /// fixed-point points, shared by exactly two leaves), across base triangles and folds; then
    /// merging every diamond returns to the base mesh.
    #[test]
    fn deep_refinement_stays_watertight_and_merges_back() {
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for round in 0..3 {
            let max_depth = rng.random_range(45..=MAX_DEPTH_64);
            let mut set = LeafSet64::new(BaseMesh64::octahedron(), max_depth);
            for _ in 0..rng.random_range(2..6) {
                // Points near the map's folds and centre as well as anywhere.
                let p = match rng.random_range(0..3) {
                    0 => [rng.random_range(0..=MAP_ONE_64), 0],
                    1 => [MAP_ONE_64 / 2 + rng.random_range(0..1 << 20), MAP_ONE_64 / 2],
                    _ => [rng.random_range(0..=MAP_ONE_64), rng.random_range(0..=MAP_ONE_64)],
                };
                while let Some(leaf) = leaf_to_split(&set, p, max_depth) {
                    assert!(set.split_conforming(leaf));
                }
            }
            let deepest = set.leaves().iter().map(|l| l.depth()).max().unwrap();
            assert_eq!(deepest, max_depth, "seed {seed} round {round}");
            let area: i128 = set.leaves().iter().map(|&l| twice_area_fixed(set.mesh.decode_vertices(l)).abs()).sum();
            assert_eq!(area, 2 * (MAP_ONE_64 as i128) * (MAP_ONE_64 as i128), "seed {seed} round {round}: the leaves do not tile the map");
            let mut edges: HashMap<[[i64; 3]; 2], u32> = HashMap::new();
            for &leaf in set.leaves() {
                let v = set.mesh.decode_vertices(leaf).map(octahedron_point_fixed);
                for (a, b) in [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])] {
                    *edges.entry(if a < b { [a, b] } else { [b, a] }).or_default() += 1;
                }
            }
            let bad: Vec<_> = edges.iter().filter(|(_, &n)| n != 2).take(3).collect();
            assert!(bad.is_empty(), "seed {seed} round {round}: edges not shared by exactly two leaves: {bad:?}");
            // Coarsen: merge diamonds until none is left.
            loop {
                let candidates: Vec<Node64> = set.leaves().iter().copied().collect();
                if !candidates.into_iter().fold(false, |merged, leaf| set.merge_diamond(leaf) | merged) {
                    break;
                }
            }
            let mut roots: Vec<u64> = set.leaves().iter().map(|l| l.0).collect();
            roots.sort_unstable();
            assert_eq!(roots, (8..16).collect::<Vec<u64>>(), "seed {seed} round {round}: merging did not return to the octahedron");
        }
    }
}
