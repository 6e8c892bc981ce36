// shade (src/flat/raster.rs): one thread per pixel of the viewport shades it from the visibility
// buffer (shared/vis_shade.wgsl) and stores it into the colour target's rgba8unorm view,
// sRGB-encoded here when the target is read as sRGB (the bytes an sRGB render target would
// hold); pixels without a triangle get the clear colour. A compute pass: on GPUs with few ROPs
// (the H100) a full-screen fragment pass is slow whatever it computes.
//!include shared/vis_shade.wgsl
//!include shared/shade_store.wgsl

// The linear colour of pixels without terrain.
override CLEAR_RED: f32 = 0.0;
override CLEAR_GREEN: f32 = 0.0;
override CLEAR_BLUE: f32 = 0.0;

@group(3) @binding(0) var colour_target: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(SHADE_TILE_PX, SHADE_TILE_PX)
fn cs_shade(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= r.size_px)) {
        return;
    }
    let word = vis_word_at(id.xy);
    var colour = vec3<f32>(CLEAR_RED, CLEAR_GREEN, CLEAR_BLUE);
    if (word.y != 0u) {
        colour = vis_shaded(vec2<f32>(id.xy) + 0.5, word.x);
    }
    shade_store(id.xy, colour);
}
