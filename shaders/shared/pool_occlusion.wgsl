// The occlusion test of a pool triangle's ball (src/globe/occlusion.rs): the margin is what the
// last frame's drawn surface may stray from the ball, MARGIN_HYPOTENUSES of its hypotenuse plus
// the data's error bound. Shared by the pool's criterion and globe.pool_decode's capped count.
// Needs shared/globe_cull.wgsl (GlobeBound); binds the occlusion group at @group(1).
//!include shared/globe_occlusion.wgsl

fn pool_globe_is_occluded(b: GlobeBound) -> bool {
    return globe_is_occluded(b.centre, b.radius_m, occlusion.projection.w * b.hypotenuse_m + b.error_m);
}
