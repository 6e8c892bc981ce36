// The globe's occlusion culling (src/globe/occlusion.rs has the CPU twin and says why it is safe):
// a ball is occluded when, in the last drawn frame, every pixel its projection covers held a
// surface nearer than the ball's nearest point less a margin. The hierarchical depth buffer (HZB)
// of that frame holds, per texel, the farthest depth of its pixels (reverse Z: the minimum);
// the pixels outside that frame's viewport are unknown, so a ball reaching them is never occluded.
// Binds
//   @group(1) @binding(0) hzb        (texture_2d<f32>, R32Float with mips; globe_hzb.wgsl builds it)
//   @group(1) @binding(1) occlusion  (uniform Occlusion)

struct Occlusion {
    // The rotation of the HZB's frame: its camera-relative metres -> view space (looking down -z).
    view_from_relative: mat4x4<f32>,
    // xyz = this frame's camera minus the HZB frame's camera, metres (earth-fixed axes); w unused.
    camera_shift_m: vec4<f32>,
    // x, y = the projection's scales along x and y (1 / (aspect tan(fov_y / 2)), 1 / tan(fov_y / 2));
    // z = the near plane in metres (depth = near / distance along the view); w = the margin in
    // hypotenuses (occlusion.rs: what the drawn surface may stray from the ball).
    projection: vec4<f32>,
    // xy = the HZB frame's viewport in pixels; z = the HZB's mip levels; w = 1 when the HZB
    // holds a drawn frame (0: nothing is occluded).
    viewport: vec4<u32>,
}

@group(1) @binding(0) var hzb: texture_2d<f32>;
@group(1) @binding(1) var<uniform> occlusion: Occlusion;

// The tangents (x/z) bounding a circle of radius r around (c, z) seen from the origin, z > r.
fn occlusion_tangent_range(c: f32, z: f32, r: f32) -> vec2<f32> {
    let t = sqrt(max(c * c + z * z - r * r, 0.0));
    let lo_den = z * t + c * r;
    let hi_den = z * t - c * r;
    let lo = select(-3.0e38, (c * t - r * z) / lo_den, lo_den > 0.0);
    let hi = select(3.0e38, (c * t + r * z) / hi_den, hi_den > 0.0);
    return vec2<f32>(lo, hi);
}

// Whether the ball at `centre` (camera-relative metres of this frame) of `radius_m`, whose surface
// the last frame may have drawn up to `margin_m` outside it, lay behind what that frame drew.
fn globe_is_occluded(centre: vec3<f32>, radius_m: f32, margin_m: f32) -> bool {
    if (occlusion.viewport.w == 0u) {
        return false;
    }
    let c = (occlusion.view_from_relative * vec4<f32>(centre + occlusion.camera_shift_m.xyz, 1.0)).xyz;
    let z = -c.z;
    let near = occlusion.projection.z;
    let nearest = z - radius_m - margin_m;
    if (nearest <= near) {
        return false;
    }
    // The ball's bounding rectangle in normalised device coordinates (y up).
    let x = occlusion_tangent_range(c.x, z, radius_m) * occlusion.projection.x;
    let y = occlusion_tangent_range(c.y, z, radius_m) * occlusion.projection.y;
    if (x.x < -1.0 || x.y > 1.0 || y.x < -1.0 || y.y > 1.0) {
        return false;
    }
    // Pixels, a pixel wider on every side for rounding (pixel rows run down).
    let size = vec2<f32>(occlusion.viewport.xy);
    let lo_px = vec2<f32>(x.x * 0.5 + 0.5, 0.5 - 0.5 * y.y) * size - 1.0;
    let hi_px = vec2<f32>(x.y * 0.5 + 0.5, 0.5 - 0.5 * y.x) * size + 1.0;
    let last = occlusion.viewport.xy - 1u;
    let lo = min(vec2<u32>(max(lo_px, vec2<f32>(0.0))), last);
    let hi = min(vec2<u32>(max(hi_px, vec2<f32>(0.0))), last);
    // The finest level whose texels cover the rectangle with at most 2 x 2 (a level-l texel
    // covers 2^(l+1) pixels on a side).
    var level = 0u;
    loop {
        let shift = level + 1u;
        if (level + 1u >= occlusion.viewport.z || all((hi >> vec2<u32>(shift)) - (lo >> vec2<u32>(shift)) <= vec2<u32>(1u))) {
            break;
        }
        level += 1u;
    }
    let shift = vec2<u32>(level + 1u);
    // (Level l's size from level 0's: lavapipe answers textureDimensions at a non-constant level
    // with another level's size.)
    let dims = max(textureDimensions(hzb, 0u) >> shift - 1u, vec2<u32>(1u)) - 1u;
    let a = min(lo >> shift, dims);
    let b = min(hi >> shift, dims);
    let farthest = min(
        min(textureLoad(hzb, a, level).x, textureLoad(hzb, vec2<u32>(b.x, a.y), level).x),
        min(textureLoad(hzb, vec2<u32>(a.x, b.y), level).x, textureLoad(hzb, b, level).x),
    );
    return near / nearest < farthest;
}
