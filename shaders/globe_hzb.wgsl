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

@compute @workgroup_size(8, 8)
fn from_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(destination))) {
        return;
    }
    var farthest = 1.0;
    for (var k = 0u; k < 4u; k += 1u) {
        let p = 2u * id.xy + vec2<u32>(k & 1u, k >> 1u);
        var d = 0.0;
        if (all(p < viewport.size_px)) {
            d = textureLoad(depth, p, 0);
        }
        farthest = min(farthest, d);
    }
    textureStore(destination, id.xy, vec4<f32>(farthest, 0.0, 0.0, 0.0));
}

@compute @workgroup_size(8, 8)
fn from_vis(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(destination))) {
        return;
    }
    var farthest = 1.0;
    for (var k = 0u; k < 4u; k += 1u) {
        let p = 2u * id.xy + vec2<u32>(k & 1u, k >> 1u);
        var d = 0.0;
        if (all(p < viewport.size_px)) {
            d = bitcast<f32>(vis_words[p.y * viewport.size_px.x + p.x].y);
        }
        farthest = min(farthest, d);
    }
    textureStore(destination, id.xy, vec4<f32>(farthest, 0.0, 0.0, 0.0));
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
