// Height field sampling: bilinear filtering of an R32Float texture of heights in metres whose
// texels sit on a regular grid with texel (0, 0) at uv (0, 0) and the last texel at uv (1, 1).
// NaN texels have no data: they count as 0 m in the filter and flag the sample as nodata.
// Bound at @group(1) @binding(0) by the passes that include this file.

@group(1) @binding(0) var height_texture: texture_2d<f32>;

struct HeightSample {
    height_m: f32,
    // True when a texel under the filter has no data.
    nodata: bool,
}

// NaN by its bits (a float comparison may be optimised on the assumption that there is no NaN).
fn is_nodata_bits(bits: u32) -> bool {
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

fn height_texel(p: vec2<i32>) -> f32 {
    let size = vec2<i32>(textureDimensions(height_texture));
    let bits = bitcast<u32>(textureLoad(height_texture, clamp(p, vec2<i32>(0), size - 1), 0).r);
    return select(bitcast<f32>(bits), 0.0, is_nodata_bits(bits));
}

fn texel_is_nodata(p: vec2<i32>) -> bool {
    let size = vec2<i32>(textureDimensions(height_texture));
    return is_nodata_bits(bitcast<u32>(textureLoad(height_texture, clamp(p, vec2<i32>(0), size - 1), 0).r));
}

fn height_sample_at_uv(uv: vec2<f32>) -> HeightSample {
    let size = vec2<f32>(textureDimensions(height_texture));
    let p = clamp(uv, vec2<f32>(0.0), vec2<f32>(1.0)) * (size - 1.0);
    let p0 = vec2<i32>(floor(p));
    let f = p - floor(p);
    let h00 = height_texel(p0);
    let h10 = height_texel(p0 + vec2<i32>(1, 0));
    let h01 = height_texel(p0 + vec2<i32>(0, 1));
    let h11 = height_texel(p0 + vec2<i32>(1, 1));
    // A sample on a texel (or an edge between two) only depends on the texels with weight.
    let nodata = texel_is_nodata(p0)
        || (f.x > 0.0 && texel_is_nodata(p0 + vec2<i32>(1, 0)))
        || (f.y > 0.0 && texel_is_nodata(p0 + vec2<i32>(0, 1)))
        || (f.x > 0.0 && f.y > 0.0 && texel_is_nodata(p0 + vec2<i32>(1, 1)));
    return HeightSample(mix(mix(h00, h10, f.x), mix(h01, h11, f.x), f.y), nodata);
}

fn height_at_uv_m(uv: vec2<f32>) -> f32 {
    return height_sample_at_uv(uv).height_m;
}

// d(height)/d(uv) by central differences one texel apart (metres per unit uv).
fn height_gradient_at_uv(uv: vec2<f32>) -> vec2<f32> {
    let texel = 1.0 / (vec2<f32>(textureDimensions(height_texture)) - 1.0);
    let dx = height_at_uv_m(uv + vec2<f32>(texel.x, 0.0)) - height_at_uv_m(uv - vec2<f32>(texel.x, 0.0));
    let dy = height_at_uv_m(uv + vec2<f32>(0.0, texel.y)) - height_at_uv_m(uv - vec2<f32>(0.0, texel.y));
    return vec2<f32>(dx / (2.0 * texel.x), dy / (2.0 * texel.y));
}
