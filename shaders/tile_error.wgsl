// Pass "cache.tile_error": the error summary of freshly written atlas layers, one workgroup per
// listed slot, one invocation per level-0 block (8 x 8 blocks of 16 cells), then the coarser
// levels from workgroup memory. Mirrors tile_error_texels in src/globe/cache/tile_error.rs (the
// module comment gives the layout), bit for bit.
//!include shared/tile_constants.wgsl

// x = atlas slot, y = N: the data's samples are 2^N cells apart (bends below are smoothed).
@group(0) @binding(0) var<storage, read> slots: array<vec2<u32>>;
@group(0) @binding(1) var atlas: texture_2d_array<f32>;
@group(0) @binding(2) var errors: texture_storage_2d_array<rgba32float, write>;

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

var<workgroup> level0: array<Block, 64>;
var<workgroup> level1: array<Block, 16>;

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

fn store(slot: u32, x: u32, y: u32, b: Block) {
    textureStore(errors, vec2<u32>(x, y), slot, vec4<f32>(b.lo, b.hi, b.bend[0], b.bend[1]));
    textureStore(errors, vec2<u32>(x, y + 8u), slot, vec4<f32>(b.bend[2], b.bend[3], b.bend[4], b.bend[5]));
    textureStore(errors, vec2<u32>(x, y + 16u), slot, vec4<f32>(b.bend[6], b.slope, 0.0, 0.0));
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let slot = slots[group.x].x;
    let shift = slots[group.x].y;
    let bx = local % 8u;
    let by = local / 8u;
    var b: Block;
    b.lo = 3.4e38;
    b.hi = -3.4e38;
    b.slope = 0.0;
    for (var s = 0u; s < SCALES; s += 1u) {
        b.bend[s] = 0.0;
    }
    for (var j = 0u; j <= BLOCK_CELLS; j += 1u) {
        for (var i = 0u; i <= BLOCK_CELLS; i += 1u) {
            let x = 1u + BLOCK_CELLS * bx + i;
            let y = 1u + BLOCK_CELLS * by + j;
            let c = drawn_m(slot, x, y);
            b.lo = min(b.lo, c);
            b.hi = max(b.hi, c);
            let slope_x = drawn_m(slot, x + 1u, y) - c;
            let slope_y = drawn_m(slot, x, y + 1u) - c;
            b.slope = max(max(b.slope, abs(slope_x)), abs(slope_y));
            for (var s = 0u; s < SCALES; s += 1u) {
                let k = 1u << s;
                if (x >= 1u + k && x + k <= LAST) {
                    let bend = (drawn_m(slot, x - k, y) + drawn_m(slot, x + k, y)) - (c + c);
                    b.bend[s] = max(b.bend[s], abs(bend));
                }
                if (y >= 1u + k && y + k <= LAST) {
                    let bend = (drawn_m(slot, x, y - k) + drawn_m(slot, x, y + k)) - (c + c);
                    b.bend[s] = max(b.bend[s], abs(bend));
                }
            }
        }
    }
    for (var s = 0u; s < shift; s += 1u) {
        b.bend[s] = b.bend[shift] * bitcast<f32>((127u - 2u * (shift - s)) << 23u);
    }
    level0[local] = b;
    store(slot, bx, by, b);
    workgroupBarrier();
    if (local < 16u) {
        let x = local % 4u;
        let y = local / 4u;
        let top = merge(level0[(2u * y) * 8u + 2u * x], level0[(2u * y) * 8u + 2u * x + 1u]);
        let bottom = merge(level0[(2u * y + 1u) * 8u + 2u * x], level0[(2u * y + 1u) * 8u + 2u * x + 1u]);
        let m = merge(top, bottom);
        level1[local] = m;
        store(slot, 8u + x, y, m);
    }
    workgroupBarrier();
    if (local < 4u) {
        let x = local % 2u;
        let y = local / 2u;
        let top = merge(level1[(2u * y) * 4u + 2u * x], level1[(2u * y) * 4u + 2u * x + 1u]);
        let bottom = merge(level1[(2u * y + 1u) * 4u + 2u * x], level1[(2u * y + 1u) * 4u + 2u * x + 1u]);
        store(slot, 12u + x, y, merge(top, bottom));
    }
}
