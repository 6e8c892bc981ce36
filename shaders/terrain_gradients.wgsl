// terrain.gradients: once per terrain, the height gradient of every sample by central
// differences (metres per sample step, x and y) and the height itself (z), so that the fragment
// shader reads a filtered gradient and height at full data resolution with one sample: lighting
// and colours then do not change with the level of detail.
//!include shared/heights.wgsl

@group(0) @binding(0) var gradients: texture_storage_2d<rgba16float, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(height_texture);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let p = vec2<i32>(id.xy);
    let dx = 0.5 * (height_texel(p + vec2<i32>(1, 0)) - height_texel(p - vec2<i32>(1, 0)));
    let dy = 0.5 * (height_texel(p + vec2<i32>(0, 1)) - height_texel(p - vec2<i32>(0, 1)));
    textureStore(gradients, p, vec4<f32>(dx, dy, height_texel(p), 0.0));
}
