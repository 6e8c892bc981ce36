//! `bisector kernel closest-pairs`: the closest 100 pairs between two armies (seed 001). For
//! every A (M points) its nearest B (N points), then the 100 nearest (A, B) pairs overall, sorted
//! by distance, then A id, then B id. Two GPU versions: brute force tiled through workgroup
//! memory, and an exact uniform grid whose search grows ring by ring until the nearest B is
//! proven (the seed's grid searches 27 cells and can miss). The grid is built on the GPU from the
//! armies uploaded once as packed f32 (gpu_grid.rs: bounds, cells from the occupied cells,
//! counting sort by cell with a prefix sum), and the grid version is timed end to end, host
//! arrays to the 100 pairs on the host (`end_to_end_ms`), beside its GPU time (`gpu_ms`).
//!
//! Exactness: a distance is the f32 squared distance (dx² + dy²) + dz², each square correctly
//! rounded and flushed to 0 below the smallest normal f32, computed with the same f32 operations
//! in the same order on the GPU (shaders/shared/closest_pairs.wgsl, which also keeps compilers
//! from fusing them) and on the CPU ([`distance2`]), so both produce the same bits (tested on
//! lavapipe and the H100); ties between Bs go to the
//! smaller B id. Every GPU result (each A's nearest B and its distance bits, and the 100 pairs)
//! is compared for equality with the CPU reference, which is an exact grid search on all cores
//! (tested equal to the CPU brute force).

mod gpu_grid;
mod grid;
mod run;

use serde::Serialize;

use bisector_gpu::timings::TimingMs;
use bisector_gpu::{Gpu, Requirements};

pub use gpu_grid::{build_grid_gpu, cell_key, table_slots, GpuGridContents, GpuGridParams, SCAN_BLOCK};
pub use grid::{nearest_brute_cpu, nearest_grid_cpu, top_pairs, Grid};

use crate::{check_iterations, IterationsError, Kernel, KernelError};

/// How many closest pairs are reported.
pub const TOP_PAIRS: usize = 100;
/// Side of the cube the uniform distribution fills, [0, UNIFORM_RANGE)^3 (the peer figures'
/// range in DESIGN.md).
pub const UNIFORM_RANGE: f32 = 1.0e6;
/// Candidates each workgroup of the top-100 pass sorts. Keep in sync with CHUNK in
/// shaders/kernel_closest_pairs_top.wgsl.
pub const TOP_CHUNK: u32 = 2048;
/// "No B": above the bits of any squared distance. Keep in sync with NONE in the shaders.
pub const NONE: u32 = u32::MAX;
/// Grid cells at most (the CPU reference's grid).
pub(crate) const MAX_CELLS: u64 = 1 << 22;

/// Parameters of the kernels. Keep in sync with ClosestPairsParams in shaders/shared/closest_pairs.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClosestPairsParams {
    pub a_count: u32,
    pub b_count: u32,
    pub candidates: u32,
    pub top: u32,
    /// Always 0 (keeps the shader's compiler from fusing the distance's products and sums).
    pub zero: u32,
    /// Slots of the grid's table of occupied cells (`table_slots(b_count)`).
    pub slots: u32,
    pub pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<ClosestPairsParams>() == 32);

/// A point in 3-D.
pub type Point = [f32; 3];

/// The squared distance of `a` and `b` exactly as the shaders compute it (same f32 operations,
/// same order, no fused multiply-add, squares below f32::MIN_POSITIVE flushed to 0).
pub fn distance2(a: Point, b: Point) -> f32 {
    let square = |x: f32| {
        let s = x * x;
        if s < f32::MIN_POSITIVE {
            0.0
        } else {
            s
        }
    };
    (square(a[0] - b[0]) + square(a[1] - b[1])) + square(a[2] - b[2])
}

/// One A's nearest B: the bits of the squared distance and the B id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Nearest {
    pub d2_bits: u32,
    pub b: u32,
}

impl Nearest {
    const EMPTY: Nearest = Nearest { d2_bits: NONE, b: NONE };

    fn offer(&mut self, d2: f32, b: u32) {
        let bits = d2.to_bits();
        if bits < self.d2_bits || (bits == self.d2_bits && b < self.b) {
            *self = Nearest { d2_bits: bits, b };
        }
    }
}

/// One of the closest pairs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
    /// Euclidean distance: the square root (f64) of the f32 squared distance.
    pub distance: f64,
    #[serde(skip)]
    pub d2_bits: u32,
}

/// How points are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
pub enum Distribution {
    /// Uniform in the cube [0, 10^6)^3.
    Uniform,
    /// 16 clusters (shared by both armies) of about 1% of the cube's side, centres uniform in it.
    Clustered,
    /// Every point of both armies at the same place (every distance 0: ties everywhere).
    Equal,
}

/// Which GPU version to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
pub enum Variant {
    Brute,
    Grid,
    Both,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct ClosestPairsOptions {
    pub variant: Variant,
    pub iterations: u32,
}

/// The two armies, and where they came from.
#[derive(Clone, Debug)]
pub struct Armies {
    pub a: Vec<Point>,
    pub b: Vec<Point>,
    /// "uniform seed 5", "files a.csv b.csv", ...
    pub source: String,
}

/// Random armies of `m` and `n` points.
pub fn make_armies(m: usize, n: usize, distribution: Distribution, seed: u64) -> Armies {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // 24 random bits as a float in [0, 1).
        (state >> 40) as f32 / 16_777_216.0
    };
    let centres: Vec<Point> = (0..16).map(|_| [next() * UNIFORM_RANGE, next() * UNIFORM_RANGE, next() * UNIFORM_RANGE]).collect();
    let point = |next: &mut dyn FnMut() -> f32| -> Point {
        match distribution {
            Distribution::Uniform => [next() * UNIFORM_RANGE, next() * UNIFORM_RANGE, next() * UNIFORM_RANGE],
            Distribution::Clustered => {
                let c = centres[((next() * 16.0) as usize).min(15)];
                // A sum of three uniforms: a bell of about 1% of the side.
                let mut offset = || (next() + next() + next() - 1.5) * 0.01 * UNIFORM_RANGE;
                [c[0] + offset(), c[1] + offset(), c[2] + offset()]
            }
            Distribution::Equal => [1234.5, -77.25, 1.0e5],
        }
    };
    let a = (0..m).map(|_| point(&mut next)).collect();
    let b = (0..n).map(|_| point(&mut next)).collect();
    Armies { a, b, source: format!("{distribution:?} seed {seed}").to_lowercase() }
}

/// Why the text of a CSV army cannot be used: a bad line (named file:line, lines from 1), no
/// points or too many.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArmyError {
    #[error("{file}:{line}: expected x,y,z (three finite numbers), found '{found}'")]
    NotAPoint { file: String, line: usize, found: String },
    #[error("{file}:{line}: '{field}' is not a finite number; expected x,y,z (three finite numbers)")]
    NotFinite { file: String, line: usize, field: String },
    #[error("{file}:{line}: '{field}' is out of range: coordinates must fit f32 (magnitude at most {max:e})", max = f32::MAX)]
    OutOfRange { file: String, line: usize, field: String },
    #[error("{file}: no points (an army needs at least one)")]
    Empty { file: String },
    #[error("{file}: more than {} points", NONE - 1)]
    TooMany { file: String },
}

/// Parses the text of a CSV army: one `x,y,z` point per line, the id is the line number from 0;
/// `file` names it in errors. A bad line is an error naming `file:line`; an empty text is an
/// error too. Coordinates must be finite and fit f32 (a value past f32::MAX is out of range, not
/// infinite). (The caller reads the file, within its size limit.)
pub fn parse_army(text: &str, file: &str) -> Result<Vec<Point>, ArmyError> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut points = Vec::new();
    if text.is_empty() {
        return Err(ArmyError::Empty { file: file.to_string() });
    }
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (file, line_number) = (|| file.to_string(), i + 1);
        let not_a_point = || ArmyError::NotAPoint { file: file(), line: line_number, found: line.chars().take(60).collect() };
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != 3 {
            return Err(not_a_point());
        }
        let mut point = [0.0f32; 3];
        for (value, field) in point.iter_mut().zip(&fields) {
            let wide: f64 = field.parse().map_err(|_| not_a_point())?;
            if !wide.is_finite() {
                return Err(ArmyError::NotFinite { file: file(), line: line_number, field: field.to_string() });
            }
            if wide.abs() > f32::MAX as f64 {
                return Err(ArmyError::OutOfRange { file: file(), line: line_number, field: field.to_string() });
            }
            *value = wide as f32;
        }
        if points.len() >= NONE as usize - 1 {
            return Err(ArmyError::TooMany { file: file() });
        }
        points.push(point);
    }
    Ok(points)
}

/// The pairs as CSV `a,b,distance`, one line each after the header.
pub fn pairs_csv(pairs: &[Pair]) -> String {
    let mut out = String::from("a,b,distance\n");
    for p in pairs {
        out += &format!("{},{},{}\n", p.a, p.b, p.distance);
    }
    out
}

/// Why the kernel cannot run with its options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("an army needs at least one point")]
    EmptyArmy,
    #[error("at most 2^26 points per army")]
    TooManyPoints,
    #[error(transparent)]
    Iterations(#[from] IterationsError),
}

/// Most points of an army.
pub const MAX_ARMY_POINTS: usize = 1 << 26;

/// What one run is given: the armies, and how to run over them.
#[derive(Clone, Debug)]
pub struct ClosestPairsInput {
    pub armies: Armies,
    pub options: ClosestPairsOptions,
}

/// The kernel, run through [`Kernel`].
pub struct ClosestPairs;

impl Kernel for ClosestPairs {
    const NAME: &'static str = "closest-pairs";
    type Options = ClosestPairsInput;
    type Report = ClosestPairsReport;

    fn check(input: &ClosestPairsInput) -> Result<(), KernelError> {
        let (m, n) = (input.armies.a.len(), input.armies.b.len());
        if m == 0 || n == 0 {
            return Err(OptionsError::EmptyArmy.into());
        }
        if m > MAX_ARMY_POINTS || n > MAX_ARMY_POINTS {
            return Err(OptionsError::TooManyPoints.into());
        }
        check_iterations(input.options.iterations).map_err(OptionsError::from)?;
        Ok(())
    }

    fn requirements(input: &ClosestPairsInput) -> Requirements {
        let (m, n) = (input.armies.a.len(), input.armies.b.len());
        Requirements::kernel(largest_buffer_bytes(m, n), format!("for {m} + {n} points; use smaller armies"))
    }

    fn measure(gpu: &Gpu, input: &ClosestPairsInput) -> ClosestPairsReport {
        run::measure(gpu, &input.options, &input.armies)
    }
}

/// One GPU version's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct VariantReport {
    pub variant: &'static str,
    /// The nearest-B pass.
    pub nearest_gpu: TimingMs,
    /// The top-100 passes (summed per iteration).
    pub top_gpu: TimingMs,
    /// The grid's build on the GPU (bounds, plan, counting sorts of B and A; grid version only).
    pub build_gpu: TimingMs,
    /// Build + nearest + top-100 per iteration.
    pub total_gpu: TimingMs,
    /// Host arrays to the 100 pairs on the host: upload of the packed points, every pass, read-back
    /// of the pairs (grid version only; the brute force's points are uploaded once beforehand).
    pub end_to_end: Option<TimingMs>,
    /// A points answered per second (total, median).
    pub queries_per_s: f64,
    /// Every A's nearest B (id and distance bits) and the 100 pairs equal the CPU reference.
    pub verified: bool,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct ClosestPairsReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub a_points: usize,
    pub b_points: usize,
    pub source: String,
    pub verified: bool,
    pub variants: Vec<VariantReport>,
    /// The grid version's end to end milliseconds (median): host arrays to the 100 pairs on the host.
    pub end_to_end_ms: Option<f64>,
    /// The grid version's GPU milliseconds (median): build, nearest and top-100 passes.
    pub gpu_ms: Option<f64>,
    /// Buffers created and filled (armies for the brute force; buffers of the grid version).
    pub upload_ms: f64,
    /// Reading back every A's nearest and the pairs (last variant).
    pub readback_ms: f64,
    /// The CPU reference's own grid over B (its build time, part of `cpu_reference_ms`).
    pub grid_build_cpu_ms: f64,
    /// The GPU grid's cells (the last run's): the virtual grid's dims, the cell side, the
    /// cells B occupies (the only ones stored) and the most B in one cell.
    pub grid_dims: [u32; 3],
    pub grid_cell_size: f32,
    pub grid_occupied_cells: usize,
    pub grid_longest_cell: u32,
    /// Whether the GPU grid equals its CPU twin (the same points in each cell, A's cell order
    /// too; `GpuGridContents::equals_cpu_twin`; grid version only).
    pub grid_verified: Option<bool>,
    /// The CPU reference (exact grid search) and its threads.
    pub cpu_reference_ms: f64,
    pub cpu_threads: usize,
    pub pairs: Vec<Pair>,
    /// On lavapipe, which stops a shader loop after 65535 iterations in all: whether a thread
    /// of this run may need more (brute force over more B, or a grid cell holding that many).
    pub lavapipe_loop_limit_exceeded: bool,
}

/// Storage bytes the largest buffer of a run needs.
pub fn largest_buffer_bytes(m: usize, n: usize) -> u64 {
    (16 * m.max(n) as u64).max(4 * (table_slots(n) as u64 + 2))
}

impl ClosestPairsReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "closest-pairs on {}: A {} points, B {} points ({}), verified: {}\n",
            self.adapter, self.a_points, self.b_points, self.source, self.verified
        );
        for v in &self.variants {
            out += &format!(
                "  {:5}: median {:.4} ms (grid build {:.4} + nearest {:.4} + top-100 {:.4}), min {:.4} ms, {:.3} M queries/s, verified: {}\n",
                v.variant,
                v.total_gpu.median_ms,
                v.build_gpu.median_ms,
                v.nearest_gpu.median_ms,
                v.top_gpu.median_ms,
                v.total_gpu.min_ms,
                v.queries_per_s / 1e6,
                v.verified
            );
            if let Some(e2e) = &v.end_to_end {
                out += &format!(
                    "         end to end (packed upload, build, search, 100 pairs read back) median {:.3} ms, min {:.3} ms\n",
                    e2e.median_ms, e2e.min_ms
                );
            }
        }
        out += &format!(
            "  buffers {:.1} ms, read-back {:.1} ms, GPU grid {:?} cells of {:.4}, {} occupied (at most {} B), equal to its CPU twin: {:?}; CPU reference (its own grid {:.1} ms, exact search, {} threads) {:.1} ms\n",
            self.upload_ms,
            self.readback_ms,
            self.grid_dims,
            self.grid_cell_size,
            self.grid_occupied_cells,
            self.grid_longest_cell,
            self.grid_verified,
            self.grid_build_cpu_ms,
            self.cpu_threads,
            self.cpu_reference_ms
        );
        for (rank, p) in self.pairs.iter().enumerate().take(3) {
            out += &format!("  #{:<3} A {} - B {}: {}\n", rank + 1, p.a, p.b, p.distance);
        }
        if let Some(last) = self.pairs.last() {
            out += &format!("  #{:<3} A {} - B {}: {}", self.pairs.len(), last.a, last.b, last.distance);
        }
        if self.lavapipe_loop_limit_exceeded {
            out += "\n  warning: lavapipe stops a shader loop after 65535 iterations and this run may need more: use B under 65,000 points on lavapipe";
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_grid_equals_brute_force() {
        for (distribution, seed) in [(Distribution::Uniform, 3), (Distribution::Clustered, 4), (Distribution::Equal, 5)] {
            let armies = make_armies(700, 300, distribution, seed);
            let grid = Grid::build(&armies.b, &armies.a);
            let brute = nearest_brute_cpu(&armies.a, &armies.b);
            assert_eq!(nearest_grid_cpu(&armies.a, &grid, 3), brute, "{distribution:?}");
            let pairs = top_pairs(&brute, TOP_PAIRS);
            assert_eq!(pairs.len(), TOP_PAIRS);
            assert!(pairs.windows(2).all(|w| (w[0].d2_bits, w[0].a) < (w[1].d2_bits, w[1].a)));
        }
    }

    #[test]
    fn grid_finds_far_and_outside_points() {
        // A far outside B's box, B on a line (flat box), one B.
        let b: Vec<Point> = (0..50).map(|i| [i as f32 * 10.0, 0.0, 0.0]).collect();
        let a: Vec<Point> = vec![[-1e5, 3.0, 0.0], [245.0, 1e4, -1e4], [499.0, 0.0, 0.0], [5.0, 0.0, 0.0]];
        let grid = Grid::build(&b, &a);
        assert_eq!(nearest_grid_cpu(&a, &grid, 2), nearest_brute_cpu(&a, &b));
        // A tie: 5.0 is as near to B 0 as to B 1, the smaller id wins.
        assert_eq!(nearest_grid_cpu(&a, &grid, 1)[3].b, 0);
        let one = vec![[1.0, 2.0, 3.0]];
        let grid = Grid::build(&one, &a);
        assert!(nearest_grid_cpu(&a, &grid, 1).iter().all(|n| n.b == 0));
    }

    #[test]
    fn csv_armies_and_errors() {
        assert_eq!(parse_army("1,2,3\r\n 4.5, -6 ,7e2\n", "good.csv").unwrap(), vec![[1.0, 2.0, 3.0], [4.5, -6.0, 700.0]]);
        let error = |text: &str| parse_army(text, "bad.csv").unwrap_err().to_string();
        assert!(error("1,2,3\n1,2\n").starts_with("bad.csv:2: expected x,y,z"));
        assert!(error("1,2,3\nx,y,z\n").starts_with("bad.csv:2: expected x,y,z"));
        assert!(error("1,nan,3\n").starts_with("bad.csv:1: 'nan' is not a finite number"));
        assert_eq!(error(""), "bad.csv: no points (an army needs at least one)");
        assert_eq!(pairs_csv(&[Pair { a: 3, b: 1, distance: 0.5, d2_bits: 0 }]), "a,b,distance\n3,1,0.5\n");
    }
}
