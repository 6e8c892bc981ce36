// Height field sampling: bilinear filtering of an R32Float texture of heights in metres whose
// texels sit on a regular grid with texel (0, 0) at uv (0, 0) and the last texel at uv (1, 1).
// Bound at @group(1) @binding(0) by the passes that include this file.

@group(1) @binding(0) var height_texture: texture_2d<f32>;

fn height_texel(p: vec2<i32>) -> f32 {
    let size = vec2<i32>(textureDimensions(height_texture));
    return textureLoad(height_texture, clamp(p, vec2<i32>(0), size - 1), 0).r;
}

fn height_at_uv_m(uv: vec2<f32>) -> f32 {
    let size = vec2<f32>(textureDimensions(height_texture));
    let p = clamp(uv, vec2<f32>(0.0), vec2<f32>(1.0)) * (size - 1.0);
    let p0 = vec2<i32>(floor(p));
    let f = p - floor(p);
    let h00 = height_texel(p0);
    let h10 = height_texel(p0 + vec2<i32>(1, 0));
    let h01 = height_texel(p0 + vec2<i32>(0, 1));
    let h11 = height_texel(p0 + vec2<i32>(1, 1));
    return mix(mix(h00, h10, f.x), mix(h01, h11, f.x), f.y);
}

// d(height)/d(uv) by central differences one texel apart (metres per unit uv).
fn height_gradient_at_uv(uv: vec2<f32>) -> vec2<f32> {
    let texel = 1.0 / (vec2<f32>(textureDimensions(height_texture)) - 1.0);
    let dx = height_at_uv_m(uv + vec2<f32>(texel.x, 0.0)) - height_at_uv_m(uv - vec2<f32>(texel.x, 0.0));
    let dy = height_at_uv_m(uv + vec2<f32>(0.0, texel.y)) - height_at_uv_m(uv - vec2<f32>(0.0, texel.y));
    return vec2<f32>(dx / (2.0 * texel.x), dy / (2.0 * texel.y));
}
