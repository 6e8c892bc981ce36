// The sRGB encoding a compute pass applies by hand where it stores into the bytes of an sRGB
// target (an sRGB format cannot be a storage texture); CPU twin: flat::raster::srgb_encoded_u8.

// The sRGB encoding of the linear colour `linear` clamped to [0, 1] (IEC 61966-2-1), as an sRGB
// render target applies it.
fn srgb_encoded(linear: vec3<f32>) -> vec3<f32> {
    let c = clamp(linear, vec3<f32>(0.0), vec3<f32>(1.0));
    return select(1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055, 12.92 * c, c <= vec3<f32>(0.0031308));
}
