//! Builds the LEB node bounds of a height field (see `leb::bounds`): for every triangle down to a
//! stored depth, the nested error bound, the lowest and highest height under it, and the range of
//! slopes of every triangle that can be drawn in its place.
//!
//! ```text
//! On a grid of 2^k cells per side, triangles at depth 2k+1 are half cells whose vertices are
//! samples: the data's resolution. Bottom-up (Lindstrom et al. 1996, ROAM's "wedgies"):
//!   half cell (v0, v1, v2), fourth corner v3 = v0 + v2 - v1:
//!       error = |h0 + h2 - h1 - h3| / 4   (bilinear surface vs the triangle's plane, at the centre)
//!       heights within [min, max] of h0..h3
//!   parent P with children c0, c1 and new vertex m = (v0 + v2) / 2:
//!       error(P) = max(error(c0), error(c1)) + |h(m) - (h(v0) + h(v2)) / 2|
//!       heights(P) = heights(c0) U heights(c1)
//! The children's planes differ from P's by a piecewise-linear function that is 0 at P's
//! vertices and |h(m) - (h(v0)+h(v2))/2| at m, so the bound holds and is nested.
//! Slopes (dh/dx, dh/dy ranges):
//!   half cell: the bilinear cell's, [min, max] of its two edge differences along each axis
//!       (it contains the half cell's plane and every finer triangle sampled from the cell)
//!   parent P: slopes(c0) U slopes(c1) U gradient of P's own plane
//! ```

use super::HeightField;
use crate::leb::bounds::{pack_slope_range, slope_depth, NodeBounds};

/// Ranges of dh/dx and dh/dy in height metres per grid cell: [x lowest, x highest, y lowest, y highest].
type Slopes = [f32; 4];

fn union(a: Slopes, b: Slopes) -> Slopes {
    [a[0].min(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].max(b[3])]
}

/// Vertices (v0, v1, v2) of node `id` at `depth` in grid coordinates (the square is
/// [0, cells]^2); exact while depth <= 2 log2(cells) + 1. Mirrors `leb::cpu::decode_vertices`.
pub fn grid_vertices(id: u32, depth: u32, cells: i32) -> [[i32; 2]; 3] {
    let [mut v0, mut v1, mut v2] =
        if (id >> (depth - 1)) & 1 == 0 { [[0, cells], [0, 0], [cells, 0]] } else { [[cells, 0], [cells, cells], [0, cells]] };
    for bit_index in (0..depth - 1).rev() {
        let m = [(v0[0] + v2[0]) / 2, (v0[1] + v2[1]) / 2];
        (v0, v1, v2) = if (id >> bit_index) & 1 == 0 { (v0, m, v1) } else { (v1, m, v2) };
    }
    [v0, v1, v2]
}

struct Grid<'a> {
    heights_m: &'a [f32],
    samples: i32,
    data_depth: u32,
}

impl Grid<'_> {
    fn h(&self, v: [i32; 2]) -> f32 {
        self.heights_m[(v[1] * self.samples + v[0]) as usize]
    }

    /// (error, lowest, highest, slopes) of the triangle (v0, v1, v2) at `depth`, from the data
    /// below it.
    fn subtree(&self, v: [[i32; 2]; 3], depth: u32) -> (f32, f32, f32, Slopes) {
        let [v0, v1, v2] = v;
        if depth >= self.data_depth {
            let v3 = [v0[0] + v2[0] - v1[0], v0[1] + v2[1] - v1[1]];
            let (h0, h1, h2, h3) = (self.h(v0), self.h(v1), self.h(v2), self.h(v3));
            let error = (h0 + h2 - h1 - h3).abs() / 4.0;
            return (error, h0.min(h1).min(h2).min(h3), h0.max(h1).max(h2).max(h3), self.cell_slopes([v0, v1, v2, v3]));
        }
        let m = [(v0[0] + v2[0]) / 2, (v0[1] + v2[1]) / 2];
        let a = self.subtree([v0, m, v1], depth + 1);
        let b = self.subtree([v1, m, v2], depth + 1);
        (a.0.max(b.0) + self.midpoint_error_m(v), a.1.min(b.1), a.2.max(b.2), union(union(a.3, b.3), self.plane_slopes(v)))
    }

    /// The slope ranges of the bilinear surface over the cell with these four corners.
    fn cell_slopes(&self, corners: [[i32; 2]; 4]) -> Slopes {
        let (x0, x1) = (corners.iter().map(|c| c[0]).min().unwrap(), corners.iter().map(|c| c[0]).max().unwrap());
        let (y0, y1) = (corners.iter().map(|c| c[1]).min().unwrap(), corners.iter().map(|c| c[1]).max().unwrap());
        let (h00, h10, h01, h11) = (self.h([x0, y0]), self.h([x1, y0]), self.h([x0, y1]), self.h([x1, y1]));
        let (dx0, dx1, dy0, dy1) = (h10 - h00, h11 - h01, h01 - h00, h11 - h10);
        [dx0.min(dx1), dx0.max(dx1), dy0.min(dy1), dy0.max(dy1)]
    }

    /// The gradient of the triangle's own plane, as a range of one value per axis. v1 is the
    /// right angle: the legs e0 = v0 - v1 and e2 = v2 - v1 are orthogonal and equally long, so
    /// gradient = ((h0 - h1) e0 + (h2 - h1) e2) / |e0|^2.
    fn plane_slopes(&self, v: [[i32; 2]; 3]) -> Slopes {
        let (e0, e2) = ([v[0][0] - v[1][0], v[0][1] - v[1][1]], [v[2][0] - v[1][0], v[2][1] - v[1][1]]);
        let leg_sq = (e0[0] * e0[0] + e0[1] * e0[1]) as f32;
        let (d0, d2) = (self.h(v[0]) - self.h(v[1]), self.h(v[2]) - self.h(v[1]));
        let gx = (d0 * e0[0] as f32 + d2 * e2[0] as f32) / leg_sq;
        let gy = (d0 * e0[1] as f32 + d2 * e2[1] as f32) / leg_sq;
        [gx, gx, gy, gy]
    }

    /// |h(m) - (h(v0) + h(v2)) / 2|: how far the new vertex of a split lies from the parent's plane.
    fn midpoint_error_m(&self, v: [[i32; 2]; 3]) -> f32 {
        let m = [(v[0][0] + v[2][0]) / 2, (v[0][1] + v[2][1]) / 2];
        (self.h(m) - 0.5 * (self.h(v[0]) + self.h(v[2]))).abs()
    }
}

/// The node bounds of `field`, stored down to `max_stored_depth` (or the data's depth when
/// shallower). The grid must have 2^k + 1 samples per side. Uses every CPU core.
pub fn build(field: &HeightField, max_stored_depth: u32) -> NodeBounds {
    let cells = field.samples_per_side - 1;
    assert!(cells.is_power_of_two() && cells >= 2, "height grids have 2^k + 1 samples per side, not {}", field.samples_per_side);
    let data_depth = 2 * cells.trailing_zeros() + 1;
    let depth = data_depth.min(max_stored_depth);
    let grid = Grid { heights_m: &field.heights_m, samples: field.samples_per_side as i32, data_depth };
    let len = 2usize << depth;
    let (mut error_m, mut lo_m, mut hi_m) = (vec![0.0f32; len], vec![0.0f32; len], vec![0.0f32; len]);
    // Slopes of the level below the one being built (per grid cell), and the packed ones (per metre).
    let stored_slopes = slope_depth(depth);
    let mut slope_range = vec![[0u32; 2]; 2usize << stored_slopes];
    let mut child_slopes: Vec<Slopes> = Vec::new();
    let metres_per_cell = field.size_m / cells as f32;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for d in (1..=depth).rev() {
        let first = 1usize << d;
        let (e_lower, e_upper) = error_m.split_at_mut(2 * first);
        let (lo_lower, lo_upper) = lo_m.split_at_mut(2 * first);
        let (hi_lower, hi_upper) = hi_m.split_at_mut(2 * first);
        let (e_level, lo_level, hi_level) = (&mut e_lower[first..], &mut lo_lower[first..], &mut hi_lower[first..]);
        let (e_children, lo_children, hi_children) = (&*e_upper, &*lo_upper, &*hi_upper);
        let mut level_slopes = vec![[0.0f32; 4]; first];
        let children_slopes = &child_slopes;
        let chunk = first.div_ceil(threads).max(1024);
        std::thread::scope(|scope| {
            let chunks = e_level
                .chunks_mut(chunk)
                .zip(lo_level.chunks_mut(chunk))
                .zip(hi_level.chunks_mut(chunk))
                .zip(level_slopes.chunks_mut(chunk));
            for (c, (((e, lo), hi), slopes)) in chunks.enumerate() {
                let grid = &grid;
                scope.spawn(move || {
                    for i in 0..e.len() {
                        let id = (first + c * chunk + i) as u32;
                        let v = grid_vertices(id, d, cells as i32);
                        (e[i], lo[i], hi[i], slopes[i]) = if d == depth {
                            grid.subtree(v, d)
                        } else {
                            // Children of id are 2 id and 2 id + 1, stored in the level below at 2 id - 2 first.
                            let (c0, c1) = (2 * id as usize - 2 * first, 2 * id as usize + 1 - 2 * first);
                            let error = e_children[c0].max(e_children[c1]) + grid.midpoint_error_m(v);
                            let slopes = union(union(children_slopes[c0], children_slopes[c1]), grid.plane_slopes(v));
                            (error, lo_children[c0].min(lo_children[c1]), hi_children[c0].max(hi_children[c1]), slopes)
                        };
                    }
                });
            }
        });
        if d <= stored_slopes {
            for (i, s) in level_slopes.iter().enumerate() {
                let per_metre = s.map(|g| g / metres_per_cell);
                slope_range[first + i] = [pack_slope_range([per_metre[0], per_metre[1]]), pack_slope_range([per_metre[2], per_metre[3]])];
            }
        }
        child_slopes = level_slopes;
    }
    // Node 1 (the square) is never a leaf; give it the union of the two base triangles.
    (error_m[1], lo_m[1], hi_m[1]) = (error_m[2].max(error_m[3]), lo_m[2].min(lo_m[3]), hi_m[2].max(hi_m[3]));
    let whole = union(child_slopes[0], child_slopes[1]).map(|g| g / metres_per_cell);
    slope_range[1] = [pack_slope_range([whole[0], whole[1]]), pack_slope_range([whole[2], whole[3]])];
    NodeBounds { depth, data_depth, error_m, height_min_m: lo_m, height_max_m: hi_m, slope_range }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::cpu::Node;
    use crate::leb::cpu::decode_vertices;
    use crate::leb::lod::{Criterion, LodParams, LodView};

    fn field(k: u32, f: impl Fn(f32, f32) -> f32) -> HeightField {
        let n = (1u32 << k) + 1;
        let heights_m = (0..n * n).map(|i| f((i % n) as f32, (i / n) as f32)).collect();
        HeightField { samples_per_side: n, heights_m, size_m: 1000.0, data_bounds_m: [0.0, 0.0, 1000.0, 1000.0], nodata: Vec::new() }
    }

    #[test]
    fn grid_vertices_equal_the_unit_square_decode() {
        for depth in 1..=13u32 {
            for id in ((1u32 << depth)..(2u32 << depth)).step_by(5) {
                let unit = decode_vertices(Node { id, depth });
                let grid = grid_vertices(id, depth, 64);
                for i in 0..3 {
                    assert_eq!([grid[i][0] as f32 / 64.0, grid[i][1] as f32 / 64.0], unit[i], "node {id}");
                }
            }
        }
    }

    #[test]
    fn a_plane_has_no_error_and_exact_height_ranges() {
        let bounds = build(&field(5, |x, y| 3.0 * x - 2.0 * y + 7.0), 30);
        assert_eq!(bounds.data_depth, 11);
        assert_eq!(bounds.depth, 11);
        assert!(bounds.error_m.iter().all(|&e| e == 0.0));
        let whole = bounds.get(Node::from_id(1));
        assert_eq!((whole.height_min_m, whole.height_max_m), (7.0 - 64.0, 7.0 + 96.0));
    }

    /// The bound holds: at every sample inside a triangle, |height - plane| <= error, and the
    /// heights lie within the node's range; and bounds are nested.
    #[test]
    fn bounds_contain_the_data_and_nest() {
        let f = field(4, |x, y| ((x * 0.7).sin() * 40.0 + (y * 1.3).cos() * 25.0 + x * y * 0.3).round());
        let bounds = build(&f, 7);
        assert_eq!(bounds.depth, 7);
        let cells = 16;
        for depth in 1..=9u32 {
            for id in (1u32 << depth)..(2u32 << depth) {
                let node = Node { id, depth };
                let b = bounds.get(node);
                if depth <= bounds.depth && depth > 1 {
                    assert!(b.error_m <= bounds.get(node.parent()).error_m);
                }
                let v = grid_vertices(id, depth, cells).map(|p| [p[0] as f32, p[1] as f32]);
                let hv = v.map(|p| f.heights_m[(p[1] as usize) * 17 + p[0] as usize]);
                let den = (v[1][1] - v[2][1]) * (v[0][0] - v[2][0]) + (v[2][0] - v[1][0]) * (v[0][1] - v[2][1]);
                for y in 0..=cells {
                    for x in 0..=cells {
                        let (px, py) = (x as f32 - v[2][0], y as f32 - v[2][1]);
                        let w0 = ((v[1][1] - v[2][1]) * px + (v[2][0] - v[1][0]) * py) / den;
                        let w1 = ((v[2][1] - v[0][1]) * px + (v[0][0] - v[2][0]) * py) / den;
                        let w2 = 1.0 - w0 - w1;
                        if w0 < -1e-6 || w1 < -1e-6 || w2 < -1e-6 {
                            continue;
                        }
                        let plane = w0 * hv[0] + w1 * hv[1] + w2 * hv[2];
                        let h = f.heights_m[y as usize * 17 + x as usize];
                        assert!((h - plane).abs() <= b.error_m + 1e-3, "node {id}: |{h} - {plane}| > {}", b.error_m);
                        assert!(h >= b.height_min_m && h <= b.height_max_m, "node {id}: {h} outside its range");
                    }
                }
            }
        }
    }

    fn ramp_bounds(k: u32, f: impl Fn(f32, f32) -> f32) -> NodeBounds {
        let n = (1u32 << k) + 1;
        let cell_m = 1000.0 / (n - 1) as f32;
        let heights_m = (0..n * n).map(|i| f((i % n) as f32 * cell_m, (i / n) as f32 * cell_m)).collect();
        let field =
            HeightField { samples_per_side: n, heights_m, size_m: 1000.0, data_bounds_m: [0.0, 0.0, 1000.0, 1000.0], nodata: Vec::new() };
        build(&field, 2 * k + 1)
    }

    #[test]
    fn a_slope_seen_from_behind_is_hidden_and_from_the_front_is_not() {
        // h = x / 2: the surface faces -x and up.
        let bounds = ramp_bounds(4, |x, _| 0.5 * x);
        let view = |x: f32| LodView {
            position_m: glam::Vec3::new(x, 500.0, 300.0),
            clip_from_world: None,
            fov_y_rad: 1.0,
            viewport_height_px: 512,
        };
        let behind = LodParams::new(&view(2000.0), Criterion::ScreenSpaceError, 1.0, 1000.0, 20, bounds.depths());
        let front = LodParams::new(&view(-500.0), Criterion::ScreenSpaceError, 1.0, 1000.0, 20, bounds.depths());
        for id in 2u32..(2u32 << 8) {
            let node = Node::from_id(id);
            assert!(behind.is_hidden(node, &bounds), "node {id} seen from behind");
            assert!(!front.is_hidden(node, &bounds), "node {id} seen from the front");
        }
    }

    /// Conservative: when a node counts as back-facing, every triangle that can be drawn in its
    /// place (its descendants down to the data's resolution) faces away at each of its vertices.
    #[test]
    fn back_facing_nodes_hide_only_back_facing_triangles() {
        use rand::{Rng, SeedableRng};
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (a, b) = (rng.random_range(0.002..0.02f32), rng.random_range(0.002..0.02f32));
        let bounds = ramp_bounds(4, |x, y| 300.0 * (a * x).sin() * (b * y).cos() + 0.2 * x);
        let height = |p: [f32; 2]| 300.0 * (a * p[0]).sin() * (b * p[1]).cos() + 0.2 * p[0];
        let mut hidden = 0;
        for _ in 0..40 {
            let position =
                glam::Vec3::new(rng.random_range(-500.0..1500.0), rng.random_range(-500.0..1500.0), rng.random_range(-400.0..700.0));
            let view = LodView { position_m: position, clip_from_world: None, fov_y_rad: 1.0, viewport_height_px: 512 };
            let lod = LodParams::new(&view, Criterion::ScreenSpaceError, 1.0, 1000.0, 20, bounds.depths());
            for id in 2u32..(2u32 << 7) {
                let node = Node::from_id(id);
                if !lod.is_hidden(node, &bounds) {
                    continue;
                }
                hidden += 1;
                let c = position.to_array();
                for depth in node.depth..=bounds.data_depth {
                    let shift = depth - node.depth;
                    for d in (id << shift)..((id + 1) << shift) {
                        let v = decode_vertices(Node { id: d, depth }).map(|p| [p[0] * 1000.0, p[1] * 1000.0]);
                        let h = v.map(|p| height([p[0], p[1]]));
                        let (e0, e2) = ([v[0][0] - v[1][0], v[0][1] - v[1][1]], [v[2][0] - v[1][0], v[2][1] - v[1][1]]);
                        let leg_sq = e0[0] * e0[0] + e0[1] * e0[1];
                        let g = [
                            ((h[0] - h[1]) * e0[0] + (h[2] - h[1]) * e2[0]) / leg_sq,
                            ((h[0] - h[1]) * e0[1] + (h[2] - h[1]) * e2[1]) / leg_sq,
                        ];
                        for (p, hp) in v.iter().zip(h) {
                            let facing = (c[2] - hp) - g[0] * (c[0] - p[0]) - g[1] * (c[1] - p[1]);
                            assert!(
                                facing <= 1e-2,
                                "seed {seed}: node {id} hidden but descendant {d} faces the camera at {position} ({facing})"
                            );
                        }
                    }
                }
            }
        }
        assert!(hidden > 0, "seed {seed}: no node was back-facing from any of the cameras");
    }
}
