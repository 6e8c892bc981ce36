// Test probe of the compute rasteriser (tests/raster.rs): one thread per triangle of clip-space
// corners runs `raster_triangle` (shared/vis_raster.wgsl) with id = index + 1 and writes what it
// did; the visibility buffer is read back and compared with src/flat/raster.rs's CPU twin.
//!include shared/vis_raster.wgsl

@group(0) @binding(0) var<storage, read> triangles: array<array<vec4<f32>, 3>>;
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) thread: vec3<u32>) {
    if (thread.x < arrayLength(&results)) {
        results[thread.x] = raster_triangle(triangles[thread.x], thread.x + 1u);
    }
}
