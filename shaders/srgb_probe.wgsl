// Test probe of shared/srgb.wgsl (tests/raster.rs): one thread per texel stores the sRGB encoding
// of its linear colour into an rgba8unorm storage texture, as terrain_shade_compute.wgsl does; the
// bytes are compared with src/flat/raster.rs's CPU twin.
//!include shared/srgb.wgsl

@group(0) @binding(0) var<storage, read> linear_colours: array<vec4<f32>>;
@group(0) @binding(1) var encoded: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) thread: vec3<u32>) {
    let width = textureDimensions(encoded).x;
    if (thread.x < arrayLength(&linear_colours)) {
        let texel = vec2<u32>(thread.x % width, thread.x / width);
        textureStore(encoded, texel, vec4<f32>(srgb_encoded(linear_colours[thread.x].xyz), 1.0));
    }
}
