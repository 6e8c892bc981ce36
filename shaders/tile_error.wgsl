// Pass "cache.tile_error": the error summary of freshly written atlas layers, in two dispatches.
//   blocks  one workgroup per level-0 block (8 x 8 blocks of 16 cells) of each listed slot: its
//           64 invocations share the block's 17 x 17 samples, then merge their partial summaries
//           in workgroup memory (max and min are exact in any order); the block's texels, and
//           the block into `partial` for the next dispatch
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

// Sample `k` (0..289, row-major over the block's 17 x 17 samples) of block (bx, by) into `b`.
fn add_sample(slot: u32, bx: u32, by: u32, k: u32, b: ptr<function, Block>) {
    let x = 1u + BLOCK_CELLS * bx + k % (BLOCK_CELLS + 1u);
    let y = 1u + BLOCK_CELLS * by + k / (BLOCK_CELLS + 1u);
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
        add_sample(slot, bx, by, k, &b);
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
        var m = wg_blocks[0];
        let smoothed = min(shift, SCALES - 1u);
        for (var s = 0u; s < smoothed; s += 1u) {
            m.bend[s] = m.bend[smoothed] * bitcast<f32>((127u - 2u * (smoothed - s)) << 23u);
        }
        partial[64u * job + group.x] = m;
        store(slot, bx, by, m, slots[job]);
    }
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
