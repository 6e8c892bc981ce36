//! The uniform grid over army B (built on the CPU, searched exactly ring by ring on the CPU and,
//! with the same arithmetic, on the GPU) and the CPU references: every A's nearest B by the grid
//! on all cores and by brute force, and the closest pairs among them.

use super::{distance2, Nearest, Pair, Point, MAX_CELLS, NONE};

/// The uniform grid over B: points sorted by cell (stable, so by id within a cell).
#[derive(Clone, Debug)]
pub struct Grid {
    pub dims: [u32; 3],
    pub origin: Point,
    pub cell_size_m: f32,
    pub inv_cell_size: f32,
    /// Absolute margin for the rounding of cell faces and assignments.
    pub slack: f32,
    /// Cell c holds points[cell_start[c] .. cell_start[c + 1]].
    pub cell_start: Vec<u32>,
    /// (x, y, z, id) in cell order.
    pub points: Vec<[f32; 4]>,
}

impl Grid {
    /// About two B per cell over B's bounding box (per occupied cell when most are empty), at most 2^22 cells.
    pub fn build(b: &[Point], a: &[Point]) -> Grid {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in b {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let extent: [f64; 3] = std::array::from_fn(|k| (hi[k] as f64 - lo[k] as f64).max(0.0));
        let largest = extent.iter().copied().fold(0.0, f64::max);
        let volume: f64 = extent.iter().map(|e| e.max(largest * 1e-3)).product();
        let dims_for = |cell: f64| -> [u32; 3] { std::array::from_fn(|k| ((extent[k] / cell).floor() as u64 + 1).min(1024) as u32) };
        let cell_for = |target_cells: f64| -> f64 {
            if largest == 0.0 {
                return 1.0;
            }
            let mut cell = (volume / target_cells.clamp(1.0, MAX_CELLS as f64)).cbrt();
            while dims_for(cell).iter().map(|&d| d as u64).product::<u64>() > MAX_CELLS {
                cell *= 1.25;
            }
            cell
        };
        // About two B per cell over the box; where B leaves most cells empty (clusters), as many
        // more cells as makes about two per occupied cell (at most MAX_CELLS).
        let mut cell = cell_for(b.len() as f64 / 2.0);
        let occupied_fraction = {
            let dims = dims_for(cell);
            let inv = 1.0 / cell as f32;
            let mut seen = std::collections::HashSet::new();
            for p in b {
                let c: [i64; 3] = std::array::from_fn(|k| cell_coordinate(p[k], lo[k], inv, dims[k]));
                seen.insert(c);
            }
            seen.len() as f64 / dims.iter().map(|&d| d as f64).product::<f64>()
        };
        if occupied_fraction < 0.25 {
            cell = cell_for(b.len() as f64 / 2.0 / occupied_fraction);
        }
        let dims = dims_for(cell);
        let cell_size_m = cell as f32;
        let inv_cell_size = 1.0 / cell_size_m;
        let magnitude = a.iter().chain(b).flat_map(|p| p.iter()).fold(0.0f32, |m, &x| m.max(x.abs()));
        let slack = ((magnitude as f64 + largest + 2.0 * cell) * (8.0 / 8_388_608.0)) as f32;
        let mut grid = Grid { dims, origin: lo, cell_size_m, inv_cell_size, slack, cell_start: Vec::new(), points: Vec::new() };
        (grid.cell_start, grid.points) = grid.sort_by_cell(b);
        grid
    }

    /// `points` as (x, y, z, id) sorted by cell (stable: by id within a cell), and where each
    /// cell's run starts (cells + 1 entries).
    pub fn sort_by_cell(&self, points: &[Point]) -> (Vec<u32>, Vec<[f32; 4]>) {
        let dims = self.dims;
        let cell_count = dims.iter().map(|&d| d as usize).product::<usize>();
        let index = |p: &Point| -> usize {
            let c: [u32; 3] = std::array::from_fn(|k| cell_coordinate(p[k], self.origin[k], self.inv_cell_size, dims[k]) as u32);
            ((c[2] * dims[1] + c[1]) * dims[0] + c[0]) as usize
        };
        let mut cell_start = vec![0u32; cell_count + 1];
        let cells: Vec<usize> = points.iter().map(index).collect();
        for &c in &cells {
            cell_start[c + 1] += 1;
        }
        for c in 0..cell_count {
            cell_start[c + 1] += cell_start[c];
        }
        let mut cursor = cell_start.clone();
        let mut sorted = vec![[0.0f32; 4]; points.len()];
        for (id, (&c, p)) in cells.iter().zip(points).enumerate() {
            sorted[cursor[c] as usize] = [p[0], p[1], p[2], f32::from_bits(id as u32)];
            cursor[c] += 1;
        }
        (cell_start, sorted)
    }

    /// The nearest B of `p`, searched ring by ring until proven (the GPU's algorithm, with the
    /// bound in f64).
    pub fn nearest(&self, p: Point) -> Nearest {
        let dims = self.dims.map(|d| d as i64);
        let c: [i64; 3] = std::array::from_fn(|k| cell_coordinate(p[k], self.origin[k], self.inv_cell_size, self.dims[k]));
        let mut best = Nearest::EMPTY;
        let visit = |x: i64, y: i64, z: i64, best: &mut Nearest| {
            let cell = ((z * dims[1] + y) * dims[0] + x) as usize;
            for q in &self.points[self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize] {
                best.offer(distance2(p, [q[0], q[1], q[2]]), q[3].to_bits());
            }
        };
        for r in 0..dims.iter().copied().max().unwrap_or(1) {
            let lo: [i64; 3] = std::array::from_fn(|k| (c[k] - r).max(0));
            let hi: [i64; 3] = std::array::from_fn(|k| (c[k] + r).min(dims[k] - 1));
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    if (z - c[2]).abs() == r || (y - c[1]).abs() == r {
                        for x in lo[0]..=hi[0] {
                            visit(x, y, z, &mut best);
                        }
                    } else {
                        if c[0] - r >= 0 {
                            visit(c[0] - r, y, z, &mut best);
                        }
                        if c[0] + r < dims[0] {
                            visit(c[0] + r, y, z, &mut best);
                        }
                    }
                }
            }
            let cell = self.cell_size_m as f64;
            let mut bound = f64::INFINITY;
            for k in 0..3 {
                if c[k] - r > 0 {
                    bound = bound.min(p[k] as f64 - (self.origin[k] as f64 + (c[k] - r) as f64 * cell));
                }
                if c[k] + r + 1 < dims[k] {
                    bound = bound.min(self.origin[k] as f64 + (c[k] + r + 1) as f64 * cell - p[k] as f64);
                }
            }
            if bound == f64::INFINITY {
                break;
            }
            let safe = bound - self.slack as f64;
            if best.d2_bits != NONE && safe > 0.0 && safe * safe * (1.0 - 1.0 / 1_048_576.0) > f32::from_bits(best.d2_bits) as f64 {
                break;
            }
        }
        best
    }
}

/// The cell of coordinate `x` along one axis, clamped to the grid (as the shaders compute it).
pub(crate) fn cell_coordinate(x: f32, origin: f32, inv_cell_size: f32, dim: u32) -> i64 {
    ((x - origin) * inv_cell_size).floor().clamp(0.0, (dim - 1) as f32) as i64
}

/// Every A's nearest B by comparing with every B (the CPU brute force; for tests).
pub fn nearest_brute_cpu(a: &[Point], b: &[Point]) -> Vec<Nearest> {
    a.iter()
        .map(|&p| {
            let mut best = Nearest::EMPTY;
            for (id, &q) in b.iter().enumerate() {
                best.offer(distance2(p, q), id as u32);
            }
            best
        })
        .collect()
}

/// Every A's nearest B through `grid`, on `threads` threads.
pub fn nearest_grid_cpu(a: &[Point], grid: &Grid, threads: usize) -> Vec<Nearest> {
    let mut out = vec![Nearest::EMPTY; a.len()];
    let chunk = a.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        for (points, results) in a.chunks(chunk).zip(out.chunks_mut(chunk)) {
            scope.spawn(move || {
                for (p, r) in points.iter().zip(results) {
                    *r = grid.nearest(*p);
                }
            });
        }
    });
    out
}

/// The `k` closest pairs among each A's nearest, sorted by distance, then A id (then B id).
pub fn top_pairs(nearest: &[Nearest], k: usize) -> Vec<Pair> {
    let mut order: Vec<(u32, u32)> = nearest.iter().enumerate().map(|(a, n)| (n.d2_bits, a as u32)).collect();
    let k = k.min(order.len());
    if k < order.len() {
        order.select_nth_unstable(k);
        order.truncate(k);
    }
    order.sort_unstable();
    order
        .into_iter()
        .map(|(bits, a)| Pair { a, b: nearest[a as usize].b, distance: (f32::from_bits(bits) as f64).sqrt(), d2_bits: bits })
        .collect()
}
