// What shade's compute pass shares on both scenes (terrain_shade_compute.wgsl,
// globe_shade_compute.wgsl): its workgroup's side, the sRGB switch, and the store of a pixel's
// colour into the target's rgba8unorm view `colour_target` (bound by the including pass),
// sRGB-encoded here when the target is read as sRGB (the bytes an sRGB render target would hold).
//!include shared/srgb.wgsl

// Whether the target's bytes are sRGB-encoded (its render view has the sRGB format).
override SHADE_SRGB: bool = true;
// Side of the square workgroup in pixels (SHADE_TILE_PX in src/schedule/raster.rs).
const SHADE_TILE_PX: u32 = 8u;

// Stores the linear colour `colour` of pixel `pixel` into the target.
fn shade_store(pixel: vec2<u32>, colour: vec3<f32>) {
    var stored = colour;
    if (SHADE_SRGB) {
        stored = srgb_encoded(colour);
    }
    textureStore(colour_target, pixel, vec4<f32>(stored, 1.0));
}
