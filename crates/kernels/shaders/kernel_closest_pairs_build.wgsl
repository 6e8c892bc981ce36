// kernel.closest_pairs build: the hashed uniform grid over B, built on the GPU from the packed f32
// armies (x, y, z per point, ids = indices). Cells are cubes of a virtual grid of at most
// MAX_DIM per axis; only the cells B occupies are stored, in an open-addressing table of
// params.slots slots (a power of two, at least twice B) keyed by the cell's coordinates
// (x | y << 10 | z << 20, plus 1: 0 is a free slot). Its CPU twin is GpuGridContents::equals_cpu_twin in
// crates/kernels/src/closest_pairs/gpu_grid.rs (the same cells and keys).
//   bounds:  B's box and the largest coordinate magnitude of A and B (atomic min/max of
//            order-preserving keys).
//   plan:    one thread: cells for about two B per cell over the box.
//   insert:  every B's cell into the table (compare-and-swap, linear probing); atomicAdd on the
//            slot's count gives the B's rank within its cell; a new key counts an occupied cell.
//   refine:  one thread: where the occupied cells hold more than 4 B each (clusters), smaller
//            cells for about two B per occupied cell; the table is then cleared and filled again.
//            Insert and refine run REFINE_ROUNDS times.
//   count:   (A) every A's slot: its cell's, or the extra slot `slots` when B has no such cell.
//   scan_blocks, scan_sums, scan_add: the exclusive prefix sum of the slots' counts (slots + 2
//            of them) in place: slot h's points are sorted[start[h] .. start[h + 1]].
//   scatter: every point to sorted[start[its slot] + its rank], as (x, y, z, id).
// Order within a cell is the order of the atomics (the search breaks ties by B id, not order).
//!include shared/dispatch.wgsl
//!include shared/hash.wgsl
//!include shared/closest_pairs.wgsl

const MAX_DIM: u32 = 1024u;
// Counts each scan_blocks workgroup scans (WORKGROUP_SIZE threads x 8).
const SCAN_BLOCK: u32 = 2048u;

@group(0) @binding(8) var<storage, read> packed_a: array<f32>;
@group(0) @binding(9) var<storage, read> packed_b: array<f32>;
// [0..3) keys of B's low corner, [3..6) of its high corner, [6] the largest magnitude's bits,
// [7] occupied cells.
@group(0) @binding(10) var<storage, read_write> build_state: array<atomic<u32>, 8>;
@group(0) @binding(11) var<storage, read_write> grid: GridParams;
// Per slot (slots + 2 entries): the count, then (after the scan) the first index.
@group(0) @binding(12) var<storage, read_write> starts: array<atomic<u32>>;
// The table's keys (EMPTY_KEY: a free slot).
@group(0) @binding(16) var<storage, read_write> keys: array<atomic<u32>>;
// Per point: its rank within its cell.
@group(0) @binding(13) var<storage, read_write> rank: array<u32>;
// The points in cell order: (x, y, z, bitcast id).
@group(0) @binding(14) var<storage, read_write> sorted: array<vec4<f32>>;
@group(0) @binding(15) var<storage, read_write> block_sums: array<u32>;

// Which army this pipeline sorts.
override army_b: bool = true;

// An order-preserving key of a float (smaller float, smaller key).
fn order_key(x: f32) -> u32 {
    let bits = bitcast<u32>(x);
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

fn unkey(k: u32) -> f32 {
    return bitcast<f32>(select(~k, k & 0x7fffffffu, (k & 0x80000000u) != 0u));
}

fn point_of(i: u32) -> vec3<f32> {
    if (army_b) {
        return vec3<f32>(packed_b[3u * i], packed_b[3u * i + 1u], packed_b[3u * i + 2u]);
    }
    return vec3<f32>(packed_a[3u * i], packed_a[3u * i + 1u], packed_a[3u * i + 2u]);
}

fn point_count() -> u32 {
    return select(params.a_count, params.b_count, army_b);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bounds(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    var magnitude = 0u;
    if (i < params.b_count) {
        let p = vec3<f32>(packed_b[3u * i], packed_b[3u * i + 1u], packed_b[3u * i + 2u]);
        for (var k = 0u; k < 3u; k += 1u) {
            atomicMin(&build_state[k], order_key(p[k]));
            atomicMax(&build_state[3u + k], order_key(p[k]));
        }
        magnitude = bitcast<u32>(max(abs(p.x), max(abs(p.y), abs(p.z))));
    }
    if (i < params.a_count) {
        let p = vec3<f32>(packed_a[3u * i], packed_a[3u * i + 1u], packed_a[3u * i + 2u]);
        magnitude = max(magnitude, bitcast<u32>(max(abs(p.x), max(abs(p.y), abs(p.z)))));
    }
    if (magnitude != 0u) {
        atomicMax(&build_state[6], magnitude);
    }
}

// Cells of side cbrt(volume / target) (volume over extents of at least 1e-3 of the largest),
// or `refined_cell` when positive, and at least largest / (MAX_DIM - 24) so that the box spans at
// most MAX_DIM cells per axis.
fn plan_cells(target_cells: f32, refined_cell: f32) {
    var lo: vec3<f32>;
    var hi: vec3<f32>;
    for (var k = 0u; k < 3u; k += 1u) {
        lo[k] = unkey(atomicLoad(&build_state[k]));
        hi[k] = unkey(atomicLoad(&build_state[3u + k]));
    }
    let extent = max(hi - lo, vec3<f32>(0.0));
    let largest = max(extent.x, max(extent.y, extent.z));
    var cell = 1.0;
    if (largest > 0.0) {
        let e = max(extent, vec3<f32>(largest * 1e-3));
        let t = max(target_cells, 1.0);
        cell = pow(e.x / t, 1.0 / 3.0) * pow(e.y, 1.0 / 3.0) * pow(e.z, 1.0 / 3.0);
        if (refined_cell > 0.0) {
            cell = refined_cell;
        }
        cell = max(cell, largest / f32(MAX_DIM - 24u));
    }
    let dims = vec3<u32>(min(floor(extent / cell) + 1.0, vec3<f32>(f32(MAX_DIM))));
    let magnitude = bitcast<f32>(atomicLoad(&build_state[6]));
    grid.dim_x = dims.x;
    grid.dim_y = dims.y;
    grid.dim_z = dims.z;
    grid.cells = dims.x * dims.y * dims.z;
    grid.origin = lo;
    grid.cell_size_m = cell;
    grid.inv_cell_size = 1.0 / cell;
    grid.slack = (magnitude + largest + 2.0 * cell) * (8.0 / 8388608.0);
}

@compute @workgroup_size(1)
fn plan() {
    plan_cells(f32(params.b_count) / 2.0, 0.0);
}

// With k occupied cells for n B (more than 4 B per occupied cell), cells of side
// cell * cbrt(2 k / n): about n / 2 occupied cells where B fills its occupied cells evenly.
@compute @workgroup_size(1)
fn refine() {
    let occupied = f32(atomicExchange(&build_state[7], 0u));
    let n = f32(params.b_count);
    let cell = grid.cell_size_m * pow(2.0 * occupied / n, 1.0 / 3.0);
    if (n > 4.0 * occupied && cell < grid.cell_size_m) {
        plan_cells(n / 2.0, cell);
    }
}

// The key of `p`'s cell (as nearest_grid finds it).
fn key_of(p: vec3<f32>) -> u32 {
    let dims = vec3<u32>(grid.dim_x, grid.dim_y, grid.dim_z);
    let c = vec3<u32>(clamp(floor((p - grid.origin) * grid.inv_cell_size), vec3<f32>(0.0), vec3<f32>(dims - 1u)));
    return cell_key(c);
}

// The slot of key `wanted` in the table (inserting it), and whether this call inserted it.
fn insert_key(wanted: u32) -> vec2<u32> {
    let mask = params.slots - 1u;
    var h = fmix32(wanted) & mask;
    var inserted = 0u;
    loop {
        let old = atomicCompareExchangeWeak(&keys[h], EMPTY_KEY, wanted);
        if (old.exchanged) {
            inserted = 1u;
            break;
        }
        if (old.old_value == wanted) {
            break;
        }
        if (old.old_value != EMPTY_KEY) {
            h = (h + 1u) & mask;
        }
    }
    return vec2<u32>(h, inserted);
}

// The slot of the cell of `p`, or `params.slots` when B has no point in that cell.
fn slot_of(p: vec3<f32>) -> u32 {
    let wanted = key_of(p);
    let mask = params.slots - 1u;
    var h = fmix32(wanted) & mask;
    for (var probe = 0u; probe < params.slots; probe += 1u) {
        let k = atomicLoad(&keys[h]);
        if (k == wanted) {
            return h;
        }
        if (k == EMPTY_KEY) {
            break;
        }
        h = (h + 1u) & mask;
    }
    return params.slots;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn insert(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i >= params.b_count) {
        return;
    }
    let slot = insert_key(key_of(point_of(i)));
    rank[i] = atomicAdd(&starts[slot.x], 1u);
    if (slot.y == 1u) {
        atomicAdd(&build_state[7], 1u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn count(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i >= point_count()) {
        return;
    }
    rank[i] = atomicAdd(&starts[slot_of(point_of(i))], 1u);
}

var<workgroup> partial: array<u32, WORKGROUP_SIZE>;

// Exclusive scan of the WORKGROUP_SIZE values in `partial` (Hillis-Steele); returns the total.
fn scan_partial(local: u32) -> u32 {
    for (var offset = 1u; offset < WORKGROUP_SIZE; offset *= 2u) {
        workgroupBarrier();
        var add = 0u;
        if (local >= offset) {
            add = partial[local - offset];
        }
        workgroupBarrier();
        partial[local] += add;
    }
    workgroupBarrier();
    let total = partial[WORKGROUP_SIZE - 1u];
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scan_blocks(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let block = dispatch_group_index(group);
    let n = params.slots + 2u;
    let first = block * SCAN_BLOCK + local * 8u;
    var values: array<u32, 8>;
    var sum = 0u;
    for (var k = 0u; k < 8u; k += 1u) {
        if (first + k < n) {
            values[k] = atomicLoad(&starts[first + k]);
        }
        sum += values[k];
    }
    partial[local] = sum;
    let total = scan_partial(local);
    var running = partial[local] - sum;
    for (var k = 0u; k < 8u; k += 1u) {
        if (first + k < n) {
            atomicStore(&starts[first + k], running);
        }
        running += values[k];
    }
    if (local == 0u) {
        block_sums[block] = total;
    }
}

// One workgroup: the exclusive scan of the blocks' totals, each thread a run of them.
@compute @workgroup_size(WORKGROUP_SIZE)
fn scan_sums(@builtin(local_invocation_index) local: u32) {
    let blocks = (params.slots + 2u + SCAN_BLOCK - 1u) / SCAN_BLOCK;
    let per = (blocks + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    let first = local * per;
    let last = min(first + per, blocks);
    var sum = 0u;
    for (var j = first; j < last; j += 1u) {
        sum += block_sums[j];
    }
    partial[local] = sum;
    scan_partial(local);
    var running = partial[local] - sum;
    for (var j = first; j < last; j += 1u) {
        let value = block_sums[j];
        block_sums[j] = running;
        running += value;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scan_add(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i < params.slots + 2u) {
        atomicAdd(&starts[i], block_sums[i / SCAN_BLOCK]);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i >= point_count()) {
        return;
    }
    let p = point_of(i);
    sorted[atomicLoad(&starts[slot_of(p)]) + rank[i]] = vec4<f32>(p, bitcast<f32>(i));
}
