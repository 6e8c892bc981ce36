// The hierarchical depth buffer of the globe's occlusion culling (pass globe.hzb; the CPU twin is
// globe::occlusion::hzb_levels). Level 0 texel (x, y) is the farthest depth (reverse Z: the
// minimum) of the drawn pixels 2x..2x+1 by 2y..2y+1, a pixel outside the viewport counting as
// the far plane (0); level l's texel is the minimum of its 2 x 2 texels of level l - 1 (its
// last row or column repeated where level l - 1 is a single texel wide). Level 0 comes from the
// hardware draw's depth texture (`from_depth`), or on the compute rasteriser's path from the
// depth bits of its visibility buffer (`from_vis`: the same reverse-Z depths, 0 where no triangle
// is; twin: hzb_levels over globe::occlusion::vis_depths).
//
// Four levels per dispatch: a workgroup of 16 x 16 invocations takes a 16 x 16 block of a chunk's
// first level (each invocation its texel), keeps it in workgroup memory, and reduces it there to
// the chunk's next three levels (8 x 8, 4 x 4, 2 x 2 of the block). A level-l texel reads level
// l - 1's texels 2x, 2x + 1 (clamped to the last), which lie in the same block. So 11 levels
// take 3 dispatches instead of 11 (the H100 waits a few microseconds between dependent ones).

struct HzbViewport {
    size_px: vec2<u32>,
    pad: vec2<u32>,
}

// The levels this dispatch writes (1..=4): out0 .. out{levels - 1}; the rest are bound to a
// placeholder and not written.
struct HzbChunk {
    levels: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var source: texture_2d<f32>;
@group(0) @binding(2) var out0: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var<uniform> viewport: HzbViewport;
// The visibility buffer (shared/vis_buffer.wgsl) read as (leaf index, depth bits) pairs, one per
// viewport pixel, row by row.
@group(0) @binding(4) var<storage, read> vis_words: array<vec2<u32>>;
@group(0) @binding(5) var out1: texture_storage_2d<r32float, write>;
@group(0) @binding(6) var out2: texture_storage_2d<r32float, write>;
@group(0) @binding(7) var out3: texture_storage_2d<r32float, write>;
@group(0) @binding(8) var<uniform> chunk: HzbChunk;

// Steps from a pixel to its right and lower neighbours.
const RIGHT = vec2<u32>(1u, 0u);
const DOWN = vec2<u32>(0u, 1u);
const BLOCK: u32 = 16u;

var<workgroup> wg_block: array<f32, 256>;

// The farthest (reverse Z: the least) of the depths of a level-0 texel's 2 x 2 pixels.
fn farthest_of(d0: f32, d1: f32, d2: f32, d3: f32) -> f32 {
    return min(min(min(min(1.0, d0), d1), d2), d3);
}

// The hardware draw's depth at pixel `p`, 0 (the far plane) outside the viewport.
fn depth_at(p: vec2<u32>) -> f32 {
    if (any(p >= viewport.size_px)) {
        return 0.0;
    }
    return textureLoad(depth, p, 0);
}

// The visibility buffer's depth at pixel `p`, 0 (the far plane) outside the viewport.
fn vis_depth_at(p: vec2<u32>) -> f32 {
    if (any(p >= viewport.size_px)) {
        return 0.0;
    }
    return bitcast<f32>(vis_words[p.y * viewport.size_px.x + p.x].y);
}

fn store_level(k: u32, texel: vec2<u32>, value: f32) {
    let v = vec4<f32>(value, 0.0, 0.0, 0.0);
    switch k {
        case 0u: { textureStore(out0, texel, v); }
        case 1u: { textureStore(out1, texel, v); }
        case 2u: { textureStore(out2, texel, v); }
        default: { textureStore(out3, texel, v); }
    }
}

fn level_size(k: u32) -> vec2<u32> {
    switch k {
        case 0u: { return textureDimensions(out0); }
        case 1u: { return textureDimensions(out1); }
        case 2u: { return textureDimensions(out2); }
        default: { return textureDimensions(out3); }
    }
}

// The chunk's first level's texel of this invocation holds `first` (ignored outside the level);
// stores it, then the chunk's next levels of the workgroup's block. Call in uniform control flow.
fn reduce_block(group: vec2<u32>, local: vec2<u32>, first: f32) {
    let texel = group * BLOCK + local;
    if (all(texel < level_size(0u))) {
        store_level(0u, texel, first);
    }
    wg_block[local.y * BLOCK + local.x] = first;
    for (var k = 1u; k < 4u; k += 1u) {
        // Uniform: every invocation reads the same `chunk.levels`.
        if (k >= chunk.levels) {
            break;
        }
        workgroupBarrier();
        let side = BLOCK >> k;
        let source_last = level_size(k - 1u) - 1u;
        let origin = group * (2u * side);
        let x = group * side + local;
        var farthest = 1.0;
        let writes = all(local < vec2<u32>(side)) && all(x < level_size(k));
        if (writes) {
            for (var q = 0u; q < 4u; q += 1u) {
                let s = min(2u * x + vec2<u32>(q & 1u, q >> 1u), source_last) - origin;
                farthest = min(farthest, wg_block[s.y * BLOCK + s.x]);
            }
        }
        workgroupBarrier();
        if (writes) {
            wg_block[local.y * BLOCK + local.x] = farthest;
            store_level(k, x, farthest);
        }
    }
}

@compute @workgroup_size(16, 16)
fn from_depth(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let p = 2u * (group.xy * BLOCK + local.xy);
    reduce_block(group.xy, local.xy, farthest_of(depth_at(p), depth_at(p + RIGHT), depth_at(p + DOWN), depth_at(p + RIGHT + DOWN)));
}

@compute @workgroup_size(16, 16)
fn from_vis(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let p = 2u * (group.xy * BLOCK + local.xy);
    reduce_block(group.xy, local.xy, farthest_of(vis_depth_at(p), vis_depth_at(p + RIGHT), vis_depth_at(p + DOWN), vis_depth_at(p + RIGHT + DOWN)));
}

// A chunk after the first: its first level from the level below it (`source`).
@compute @workgroup_size(16, 16)
fn from_level(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let x = group.xy * BLOCK + local.xy;
    let last = textureDimensions(source) - 1u;
    var farthest = 1.0;
    if (all(x < level_size(0u))) {
        for (var k = 0u; k < 4u; k += 1u) {
            let p = min(2u * x + vec2<u32>(k & 1u, k >> 1u), last);
            farthest = min(farthest, textureLoad(source, p, 0).x);
        }
    }
    reduce_block(group.xy, local.xy, farthest);
}
