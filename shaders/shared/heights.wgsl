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

fn texel_bits(p: vec2<i32>, size: vec2<i32>) -> u32 {
    return bitcast<u32>(textureLoad(height_texture, clamp(p, vec2<i32>(0), size - 1), 0).r);
}

fn height_sample_at_uv(uv: vec2<f32>) -> HeightSample {
    let size_i = vec2<i32>(textureDimensions(height_texture));
    let size = vec2<f32>(size_i);
    let p = clamp(uv, vec2<f32>(0.0), vec2<f32>(1.0)) * (size - 1.0);
    let p0 = vec2<i32>(floor(p));
    let f = p - floor(p);
    let b00 = texel_bits(p0, size_i);
    let b10 = texel_bits(p0 + vec2<i32>(1, 0), size_i);
    let b01 = texel_bits(p0 + vec2<i32>(0, 1), size_i);
    let b11 = texel_bits(p0 + vec2<i32>(1, 1), size_i);
    // A sample on a texel (or an edge between two) only depends on the texels with weight.
    let nodata = is_nodata_bits(b00)
        || (f.x > 0.0 && is_nodata_bits(b10))
        || (f.y > 0.0 && is_nodata_bits(b01))
        || (f.x > 0.0 && f.y > 0.0 && is_nodata_bits(b11));
    let h = vec4<f32>(
        select(bitcast<f32>(b00), 0.0, is_nodata_bits(b00)),
        select(bitcast<f32>(b10), 0.0, is_nodata_bits(b10)),
        select(bitcast<f32>(b01), 0.0, is_nodata_bits(b01)),
        select(bitcast<f32>(b11), 0.0, is_nodata_bits(b11)),
    );
    return HeightSample(mix(mix(h.x, h.y, f.x), mix(h.z, h.w, f.x), f.y), nodata);
}

fn height_at_uv_m(uv: vec2<f32>) -> f32 {
    return height_sample_at_uv(uv).height_m;
}

