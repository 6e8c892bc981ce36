// The pool's criterion on the globe (replaces shared/pool_criterion.wgsl in the pool's passes
// when a globe scene draws from the pool, src/globe/pool_scene.rs): the heap's projected-edge
// criterion (shared/globe_lod.wgsl) on the slot's 64-bit vertices, camera-relative
// (shared/pool_globe.wgsl), 0 where the last drawn frame hid the triangle's ball
// (shared/pool_occlusion.wgsl, at @group(1)). Binds the globe's frame at @group(0) @binding(8)
// and the tile cache at @group(2); the pool's target T is the split threshold in px.
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/globe_cull.wgsl
//!include shared/pool_globe.wgsl
//!include shared/pool_occlusion.wgsl

@group(0) @binding(8) var<uniform> globe: GlobeFrame;

fn pool_error_sq_px2(id: vec2<u32>, v: array<vec4<u32>, 3>) -> f32 {
    let b = pool_globe_bound(v);
    let e = pool_globe_error_sq_px2_of(b);
    // Only a triangle that would stay split or split is worth the test.
    let merge = globe.merge_threshold_px * globe.merge_threshold_px;
    if (e > merge && pool_globe_is_occluded(b)) {
        return 0.0;
    }
    return e;
}
