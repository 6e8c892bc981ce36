// Test probe (tests/globe_occlusion.rs): globe_is_occluded on balls, each two vec4s (centre and
// radius; margin), against the occlusion group at @group(1).
//!include shared/globe_occlusion.wgsl

@group(0) @binding(0) var<storage, read> balls: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> occluded: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&occluded)) {
        return;
    }
    let a = balls[2u * i];
    occluded[i] = u32(globe_is_occluded(a.xyz, a.w, balls[2u * i + 1u].x));
}
