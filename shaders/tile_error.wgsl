// Pass "cache.tile_error": the error summary of freshly written atlas layers, in two dispatches.
//   blocks  one workgroup per level-0 block (8 x 8 blocks of 16 cells) of each listed slot: its
//           64 invocations share the block's 17 x 17 samples, then merge their partial summaries
//           in workgroup memory (max and min are exact in any order); the block's texels, and
//           the block into `partial` for the next dispatch; then the 16 fine blocks (4 cells)
//           inside it, 4 invocations sharing each one's 5 x 5 samples
//   levels  one workgroup per listed slot: the 16 level-1 and 4 level-2 blocks from `partial`
// (One invocation per block doing all 289 samples serially cost 0.60 ms a frame on the H100.)
// Mirrors tile_error_texels in src/globe/cache/tile_error.rs (the module comment gives the
// layout), bit for bit.
//!include shared/tile_constants.wgsl

// x = atlas slot, y = N, z = f's bits: the data's samples are 2^(N + f) cells apart (bends below
// 2^N are smoothed, up to N = 6; N and f are stored in every block's row-2 texel's .zw for the
// detail below the data).
@group(0) @binding(0) var<storage, read> slots: array<vec4<u32>>;
@group(0) @binding(1) var atlas: texture_2d_array<f32>;
@group(0) @binding(2) var errors: texture_storage_2d_array<rgba32float, write>;
// Each listed slot's 64 level-0 blocks (index 64 x job + block), written by `blocks`.
@group(0) @binding(3) var<storage, read_write> partial: array<Block>;

const BLOCK_CELLS: u32 = 16u;
const FINE_CELLS: u32 = 4u;
// The fine blocks' first texel row (src/globe/cache/tile_error.rs FINE_ROW) and their count
// along a side (row 1 lies this far below row 0).
const FINE_ROW: u32 = 24u;
const FINE_SIDE: u32 = 32u;
const SCALES: u32 = 7u;
// The last sample's texel (the border is 1 texel).
const LAST: u32 = 129u;

struct Block {
    lo: f32,
    hi: f32,
    bend: array<f32, 7>,
    slope: f32,
}

var<workgroup> wg_blocks: array<Block, 64>;

// The height the globe draws at texel (i, j): sea (below 0 m) and no data at 0 m.
fn drawn_m(slot: u32, i: u32, j: u32) -> f32 {
    let h = textureLoad(atlas, vec2<u32>(i, j), slot, 0).x;
    return select(0.0, h, h > 0.0);
}

fn merge(a: Block, b: Block) -> Block {
    var m = a;
    m.lo = min(a.lo, b.lo);
    m.hi = max(a.hi, b.hi);
    m.slope = max(a.slope, b.slope);
    for (var s = 0u; s < SCALES; s += 1u) {
        m.bend[s] = max(a.bend[s], b.bend[s]);
    }
    return m;
}

fn store(slot: u32, x: u32, y: u32, b: Block, native: vec4<u32>) {
    textureStore(errors, vec2<u32>(x, y), slot, vec4<f32>(b.lo, b.hi, b.bend[0], b.bend[1]));
    textureStore(errors, vec2<u32>(x, y + 8u), slot, vec4<f32>(b.bend[2], b.bend[3], b.bend[4], b.bend[5]));
    textureStore(errors, vec2<u32>(x, y + 16u), slot, vec4<f32>(b.bend[6], b.slope, f32(native.y), bitcast<f32>(native.z)));
}

fn empty_block() -> Block {
    var b: Block;
    b.lo = 3.4e38;
    b.hi = -3.4e38;
    b.slope = 0.0;
    for (var s = 0u; s < SCALES; s += 1u) {
        b.bend[s] = 0.0;
    }
    return b;
}

// Sample `k` (row-major over the block's (cells + 1)² samples) of the block of `cells` cells at
// (bx, by) in units of its side into `b`.
fn add_sample(slot: u32, cells: u32, bx: u32, by: u32, k: u32, b: ptr<function, Block>) {
    let x = 1u + cells * bx + k % (cells + 1u);
    let y = 1u + cells * by + k / (cells + 1u);
    let c = drawn_m(slot, x, y);
    (*b).lo = min((*b).lo, c);
    (*b).hi = max((*b).hi, c);
    let slope_x = drawn_m(slot, x + 1u, y) - c;
    let slope_y = drawn_m(slot, x, y + 1u) - c;
    (*b).slope = max(max((*b).slope, abs(slope_x)), abs(slope_y));
    for (var s = 0u; s < SCALES; s += 1u) {
        let k = 1u << s;
        if (x >= 1u + k && x + k <= LAST) {
            let bend = (drawn_m(slot, x - k, y) + drawn_m(slot, x + k, y)) - (c + c);
            (*b).bend[s] = max((*b).bend[s], abs(bend));
        }
        if (y >= 1u + k && y + k <= LAST) {
            let bend = (drawn_m(slot, x, y - k) + drawn_m(slot, x, y + k)) - (c + c);
            (*b).bend[s] = max((*b).bend[s], abs(bend));
        }
    }
}

// Dispatched (64, jobs): workgroup (block, job).
@compute @workgroup_size(64)
fn blocks(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let job = group.y;
    let slot = slots[job].x;
    let shift = slots[job].y;
    let bx = group.x % 8u;
    let by = group.x / 8u;
    var b = empty_block();
    for (var k = local; k < (BLOCK_CELLS + 1u) * (BLOCK_CELLS + 1u); k += 64u) {
        add_sample(slot, BLOCK_CELLS, bx, by, k, &b);
    }
    wg_blocks[local] = b;
    workgroupBarrier();
    for (var half = 32u; half > 0u; half >>= 1u) {
        if (local < half) {
            wg_blocks[local] = merge(wg_blocks[local], wg_blocks[local + half]);
        }
        workgroupBarrier();
    }
    if (local == 0u) {
        let m = smoothed(wg_blocks[0], shift);
        partial[64u * job + group.x] = m;
        store(slot, bx, by, m, slots[job]);
    }
    workgroupBarrier();
    // The fine blocks: invocation 4 f + q takes samples q, q + 4, ... of fine block f.
    let f = local / 4u;
    let fx = 4u * bx + f % 4u;
    let fy = 4u * by + f / 4u;
    var fine = empty_block();
    for (var k = local % 4u; k < (FINE_CELLS + 1u) * (FINE_CELLS + 1u); k += 4u) {
        add_sample(slot, FINE_CELLS, fx, fy, k, &fine);
    }
    wg_blocks[local] = fine;
    workgroupBarrier();
    if (local % 4u == 0u) {
        let m = smoothed(merge(merge(wg_blocks[local], wg_blocks[local + 1u]), merge(wg_blocks[local + 2u], wg_blocks[local + 3u])), shift);
        textureStore(errors, vec2<u32>(fx, FINE_ROW + fy), slot, vec4<f32>(m.lo, m.hi, m.bend[0], m.bend[1]));
        textureStore(errors, vec2<u32>(fx, FINE_ROW + FINE_SIDE + fy), slot, vec4<f32>(m.bend[2], m.bend[3], m.slope, 0.0));
    }
}

// `b` with its bends at the spacings below the data's, 2^s for s < N' = min(`shift`, 6), those
// of a smooth surface through the data: bend[N'] / 4^(N' - s).
fn smoothed(b: Block, shift: u32) -> Block {
    var m = b;
    let kept = min(shift, SCALES - 1u);
    for (var s = 0u; s < kept; s += 1u) {
        m.bend[s] = m.bend[kept] * bitcast<f32>((127u - 2u * (kept - s)) << 23u);
    }
    return m;
}

// Dispatched (jobs): the coarser levels of slot `job` from its level-0 blocks.
@compute @workgroup_size(16)
fn levels(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let job = group.x;
    let slot = slots[job].x;
    let base = 64u * job;
    let x = local % 4u;
    let y = local / 4u;
    let top = merge(partial[base + (2u * y) * 8u + 2u * x], partial[base + (2u * y) * 8u + 2u * x + 1u]);
    let bottom = merge(partial[base + (2u * y + 1u) * 8u + 2u * x], partial[base + (2u * y + 1u) * 8u + 2u * x + 1u]);
    let m = merge(top, bottom);
    wg_blocks[local] = m;
    store(slot, 8u + x, y, m, slots[job]);
    workgroupBarrier();
    if (local < 4u) {
        let x2 = local % 2u;
        let y2 = local / 2u;
        let top2 = merge(wg_blocks[(2u * y2) * 4u + 2u * x2], wg_blocks[(2u * y2) * 4u + 2u * x2 + 1u]);
        let bottom2 = merge(wg_blocks[(2u * y2 + 1u) * 4u + 2u * x2], wg_blocks[(2u * y2 + 1u) * 4u + 2u * x2 + 1u]);
        store(slot, 12u + x2, y2, merge(top2, bottom2), slots[job]);
    }
}
