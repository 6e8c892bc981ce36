// Closest pairs (seed 001): shared parameters, point buffers and the squared distance.
//
// Bit-exact distances: d2 = (sq(dx) + sq(dy)) + sq(dz) in f32, each square a correctly rounded
// product that passes through an integer OR with `params.zero` (always 0, unknown to the
// compiler), so no compiler can contract a product and a sum into a fused multiply-add (whose
// single rounding differs, and lavapipe's fma() is not fused either); squares below the smallest
// normal f32 are flushed to 0 explicitly, so GPUs that flush denormals and ones that do not agree.
// The CPU reference (crates/kernels/src/closest_pairs/mod.rs, distance2) does the same operations in the
// same order, so the two agree bit for bit. Squared distances are never negative, so their bit
// patterns order like their values (NaN and inf inputs are refused).

// Keep in sync with ClosestPairsParams in crates/kernels/src/closest_pairs/mod.rs.
struct ClosestPairsParams {
    a_count: u32,
    b_count: u32,
    // Candidates the top-100 pass reads (its input list's length).
    candidates: u32,
    top: u32,
    // Always 0: see distance2.
    zero: u32,
    // Slots of the grid's table of occupied cells (a power of two).
    slots: u32,
    pad1: u32,
    pad2: u32,
}

// The hashed uniform grid over B as the GPU built it (kernel_closest_pairs_build.wgsl): the
// virtual grid's dims (at most 1024 per axis) and cell size. Keep in sync
// with GpuGridParams in crates/kernels/src/closest_pairs/gpu_grid.rs.
struct GridParams {
    dim_x: u32,
    dim_y: u32,
    dim_z: u32,
    cells: u32,
    origin: vec3<f32>,
    cell_size_m: f32,
    inv_cell_size: f32,
    // Absolute margin subtracted from the grid's distance bound (rounding of cell faces).
    slack: f32,
    pad0: u32,
    pad1: u32,
}

// A free slot of the grid's table (cell keys start at 1).
const EMPTY_KEY: u32 = 0u;

// The table key of grid cell `c` (each coordinate below 1024). Mirrors cell_key in
// crates/kernels/src/closest_pairs/gpu_grid.rs.
fn cell_key(c: vec3<u32>) -> u32 {
    return (c.x | (c.y << 10u) | (c.z << 20u)) + 1u;
}

// No B found yet: larger than the bits of any squared distance, inf included.
const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: ClosestPairsParams;
// xyz = the point; w = bitcast of its id (for B in grid order: the original line number).
@group(0) @binding(1) var<storage, read> a_points: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b_points: array<vec4<f32>>;
// Per A: (bits of the squared distance to its nearest B, that B's id).
@group(0) @binding(3) var<storage, read_write> nearest: array<vec2<u32>>;

fn square(x: f32) -> f32 {
    let s = bitcast<f32>(bitcast<u32>(x * x) | params.zero);
    return select(s, 0.0, s < 1.17549435e-38);
}

fn distance2(a: vec3<f32>, b: vec3<f32>) -> f32 {
    let d = a - b;
    return (square(d.x) + square(d.y)) + square(d.z);
}

// True when (d2, id) comes before (best_d2, best_id): nearer, or as near with a smaller id.
fn before(d2: u32, id: u32, best_d2: u32, best_id: u32) -> bool {
    return d2 < best_d2 || (d2 == best_d2 && id < best_id);
}
