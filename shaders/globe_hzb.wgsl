// The hierarchical depth buffer of the globe's occlusion culling (pass globe.hzb; the CPU twin is
// globe::occlusion::hzb_levels). Level 0 texel (x, y) is the farthest depth (reverse Z: the
// minimum) of the drawn pixels 2x..2x+1 by 2y..2y+1, a pixel outside the viewport counting as
// the far plane (0); level l's texel is the minimum of its 2 x 2 texels of level l - 1 (its
// last row or column repeated where level l - 1 is a single texel wide). Level 0 comes from the
// hardware draw's depth texture (`from_depth`), or on the compute rasteriser's path from the
// depth bits of its visibility buffer (`from_vis`: the same reverse-Z depths, 0 where no triangle
// is; twin: hzb_levels over globe::occlusion::vis_depths).

struct HzbViewport {
    size_px: vec2<u32>,
    pad: vec2<u32>,
}

@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var source: texture_2d<f32>;
@group(0) @binding(2) var destination: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var<uniform> viewport: HzbViewport;
// The visibility buffer (shared/vis_buffer.wgsl) read as (leaf index, depth bits) pairs, one per
// viewport pixel, row by row.
@group(0) @binding(4) var<storage, read> vis_words: array<vec2<u32>>;

// Steps from a pixel to its right and lower neighbours.
const RIGHT = vec2<u32>(1u, 0u);
const DOWN = vec2<u32>(0u, 1u);

// Level 0's texel `texel` from the depths of its 2 x 2 pixels, row by row: the farthest.
fn store_farthest(texel: vec2<u32>, d0: f32, d1: f32, d2: f32, d3: f32) {
    let farthest = min(min(min(min(1.0, d0), d1), d2), d3);
    textureStore(destination, texel, vec4<f32>(farthest, 0.0, 0.0, 0.0));
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

@compute @workgroup_size(8, 8)
fn from_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(destination))) {
        return;
    }
    let p = 2u * id.xy;
    store_farthest(id.xy, depth_at(p), depth_at(p + RIGHT), depth_at(p + DOWN), depth_at(p + RIGHT + DOWN));
}

@compute @workgroup_size(8, 8)
fn from_vis(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(destination))) {
        return;
    }
    let p = 2u * id.xy;
    store_farthest(id.xy, vis_depth_at(p), vis_depth_at(p + RIGHT), vis_depth_at(p + DOWN), vis_depth_at(p + RIGHT + DOWN));
}

@compute @workgroup_size(8, 8)
fn from_level(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(destination))) {
        return;
    }
    let last = textureDimensions(source) - 1u;
    var farthest = 1.0;
    for (var k = 0u; k < 4u; k += 1u) {
        let p = min(2u * id.xy + vec2<u32>(k & 1u, k >> 1u), last);
        farthest = min(farthest, textureLoad(source, p, 0).x);
    }
    textureStore(destination, id.xy, vec4<f32>(farthest, 0.0, 0.0, 0.0));
}
