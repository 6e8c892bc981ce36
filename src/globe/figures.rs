//! Figures of a converged view that anyone can check (`shot --json`, issue 15 item 7): how many
//! leaves, how deep, how many wanted to split and could not, and how long the drawn edges are on
//! the land near the camera (what decides whether the bridge view is sharp).

use crate::cbt::cpu::Node;
use crate::globe::camera::GlobeCamera;
use crate::globe::{ellipsoid, EARTH_RADIUS_M};
use crate::leb::base_mesh::BaseMesh;
use crate::leb::octahedral::{lon_lat_deg, to_unit_sphere};
use glam::DVec2;

/// Distance from the camera within which `near_edge_m` measures the drawn edges.
pub const NEAR_DISTANCE_M: f64 = 3000.0;

/// The figures `shot --json` writes.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ViewFigures {
    /// Leaves of the tree (triangles before the globe's per-leaf subdivision).
    pub leaves: u32,
    /// Depth of the deepest leaf, in levels below the base mesh (the octahedron's 8 triangles on
    /// the globe, the square's 2 on the flat terrain).
    pub max_depth_reached: u32,
    /// Slots of the bisector pool, and those in use; null while the tree is the bit-packed heap,
    /// which has no pool (issue 15 item 1).
    pub pool_slots: Option<u32>,
    pub pool_used: Option<u32>,
    /// Leaves that wanted to split and could not: visible ones at the max depth (the heap), or,
    /// from the bisector pool's last split frame, every leaf refused by depth or by the pool.
    pub capped_leaves: u32,
    /// Edges of the drawn triangles over land (ground above 0 m) within `NEAR_DISTANCE_M` of the
    /// camera; absent when there are none (globe only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_edge_m: Option<EdgeStats>,
}

/// The smallest and median of a set of edge lengths, and how many there were.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct EdgeStats {
    pub min: f64,
    pub median: f64,
    pub count: usize,
}

impl EdgeStats {
    /// The statistics of `lengths_m` (None when empty).
    pub fn of(mut lengths_m: Vec<f64>) -> Option<EdgeStats> {
        if lengths_m.is_empty() {
            return None;
        }
        lengths_m.sort_by(f64::total_cmp);
        let n = lengths_m.len();
        let median = if n % 2 == 1 { lengths_m[n / 2] } else { 0.5 * (lengths_m[n / 2 - 1] + lengths_m[n / 2]) };
        Some(EdgeStats { min: lengths_m[0], median, count: n })
    }
}

/// The edges of the triangles drawn for the globe's `leaf_ids` over land within
/// `NEAR_DISTANCE_M` of `camera`. Each leaf is drawn as 2^`sub_levels` triangles, its bisections
/// continued; each drawn triangle whose centre lies on land (height above 0 m) within that
/// distance contributes its three edges. Vertices lie at `height_m(lon_deg, lat_deg)` above the
/// sphere (at 0 m over the sea, as drawn; None: no data, sea level).
pub fn near_edges(
    leaf_ids: &[u32],
    camera: &GlobeCamera,
    sub_levels: u32,
    height_m: impl FnMut(f64, f64) -> Option<f64>,
) -> Option<EdgeStats> {
    let mesh = BaseMesh::octahedron();
    let triangles = leaf_ids.iter().map(|&id| mesh.decode_vertices(Node::from_id(id)).map(DVec2::from_array));
    near_edges_of_map_triangles(triangles, camera, sub_levels, height_m)
}

/// `near_edges` of the bisector pool's leaves, given by their 64-bit fixed-point map vertices
/// (`MAP_ONE_64` = 1.0; f64 holds them to 2^-53 of the map, nanometres), each drawn as one
/// triangle.
pub fn near_edges_pool(
    leaf_vertices: &[[[u64; 2]; 3]],
    camera: &GlobeCamera,
    height_m: impl FnMut(f64, f64) -> Option<f64>,
) -> Option<EdgeStats> {
    let one = crate::leb::node64::MAP_ONE_64 as f64;
    let triangles = leaf_vertices.iter().map(|v| v.map(|p| DVec2::new(p[0] as f64 / one, p[1] as f64 / one)));
    near_edges_of_map_triangles(triangles, camera, 0, height_m)
}

/// `near_edges` of leaves given by their map vertices in [0, 1]^2.
fn near_edges_of_map_triangles(
    leaves: impl Iterator<Item = [DVec2; 3]>,
    camera: &GlobeCamera,
    sub_levels: u32,
    mut height_m: impl FnMut(f64, f64) -> Option<f64>,
) -> Option<EdgeStats> {
    let mut ground = |p: DVec2| {
        let n = to_unit_sphere(p);
        let (lon, lat) = lon_lat_deg(n);
        (n, height_m(lon, lat).unwrap_or(0.0))
    };
    let mut lengths = Vec::new();
    for v in leaves {
        let n = v.map(to_unit_sphere);
        // Heights move points by at most some 10 km and a leaf spans its longest edge: a cheap
        // test on the sphere first.
        let reach_m = (n[0] - n[2]).length() * EARTH_RADIUS_M + 12_000.0;
        if (ellipsoid::position_m((n[0] + n[1] + n[2]).normalize(), 0.0) - camera.position_m).length() > NEAR_DISTANCE_M + reach_m {
            continue;
        }
        // The drawn triangles: `sub_levels` more bisections (as decode_vertices: the hypotenuse
        // v0-v2 is halved, children (v0, m, v1) and (v1, m, v2)).
        let mut triangles = vec![v];
        for _ in 0..sub_levels {
            triangles = triangles
                .iter()
                .flat_map(|&[a, b, c]| {
                    let m = 0.5 * (a + c);
                    [[a, m, b], [b, m, c]]
                })
                .collect();
        }
        for t in triangles {
            let (centre_n, centre_h) = ground((t[0] + t[1] + t[2]) / 3.0);
            let centre = ellipsoid::position_m(centre_n, centre_h);
            if centre_h <= 0.0 || (centre - camera.position_m).length() > NEAR_DISTANCE_M {
                continue;
            }
            let p = t.map(|q| {
                let (n, h) = ground(q);
                ellipsoid::position_m(n, h.max(0.0))
            });
            lengths.extend([(p[0] - p[1]).length(), (p[1] - p[2]).length(), (p[2] - p[0]).length()]);
        }
    }
    EdgeStats::of(lengths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    #[test]
    fn edge_stats_are_the_minimum_and_median() {
        let mut rng = XorShift::fresh("edge_stats_are_the_minimum_and_median");
        let n = 1 + (rng.next_u64() % 50) as usize;
        let lengths: Vec<f64> = (0..n).map(|_| rng.range(1.0, 1000.0).round()).collect();
        let stats = EdgeStats::of(lengths.clone()).unwrap();
        let mut sorted = lengths.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(stats.min, sorted[0]);
        assert_eq!(stats.count, n);
        // As many lengths at or below the median as at or above it.
        assert!(lengths.iter().filter(|&&l| l <= stats.median).count() >= n.div_ceil(2));
        assert!(lengths.iter().filter(|&&l| l >= stats.median).count() >= n.div_ceil(2));
        assert_eq!(EdgeStats::of(Vec::new()), None);
    }

    #[test]
    fn near_edges_measure_the_leaves_under_the_camera_only() {
        // A uniform refinement at depth d (27-29: leaves of a few km, so some lie within 3 km):
        // every leaf's edges are known within the map's distortion; flat ground at 100 m
        // everywhere, the camera 20 m above it.
        let mut rng = XorShift::fresh("near_edges_measure_the_leaves_under_the_camera_only");
        let depth = 27 + (rng.next_u64() % 3) as u32;
        let (lon, lat) = (rng.range(-180.0, 180.0), rng.range(-80.0, 80.0));
        let camera = GlobeCamera::at_lon_lat(lon, lat, 120.0, 0.0, -10.0, 60.0);
        // The leaves of depth `depth` around the camera's point: walk down from the base triangle.
        let mesh = BaseMesh::octahedron();
        let target = crate::leb::octahedral::from_unit_sphere(camera.up());
        let mut ids = Vec::new();
        for base in 8u32..16 {
            let mut stack = vec![Node { id: base, depth: 3 }];
            while let Some(node) = stack.pop() {
                let v = mesh.decode_vertices(node);
                let c = DVec2::new((v[0][0] + v[1][0] + v[2][0]) / 3.0, (v[0][1] + v[1][1] + v[2][1]) / 3.0);
                let size = (DVec2::from_array(v[0]) - DVec2::from_array(v[2])).length();
                if (c - target).length() > 2.0 * size + 1e-3 {
                    continue;
                }
                if node.depth == depth {
                    ids.push(node.id);
                } else {
                    stack.extend([Node { id: 2 * node.id, depth: node.depth + 1 }, Node { id: 2 * node.id + 1, depth: node.depth + 1 }]);
                }
            }
        }
        let stats = near_edges(&ids, &camera, 4, |_, _| Some(100.0)).expect("leaves under the camera");
        // Hypotenuses of depth d + 4 (the drawn triangles) on the octahedral map: the map's side
        // over 2^((d + 4 - 3) / 2), at most sqrt(3) times stretched or shrunk onto the sphere;
        // legs are 1/sqrt(2) of them.
        let hyp_m = std::f64::consts::PI * EARTH_RADIUS_M / 2f64.powf((depth + 4 - 3) as f64 / 2.0);
        assert!(stats.min > hyp_m / 2f64.sqrt() / 3.0 && stats.median < hyp_m * 3.0, "{stats:?} vs hypotenuse {hyp_m} m");
        // Over the sea (height 0 everywhere) nothing is land.
        assert_eq!(near_edges(&ids, &camera, 4, |_, _| Some(0.0)), None);
        // A camera far away sees nothing near.
        let far = GlobeCamera::at_lon_lat(lon + 90.0, -lat, 120.0, 0.0, -10.0, 60.0);
        assert_eq!(near_edges(&ids, &far, 4, |_, _| Some(100.0)), None);
    }
}
