// A test kernel: the sea's wave normal (shared/sea_waves.wgsl) at given points, so tests compare
// it with its CPU twin (src/globe/sea.rs). One thread per point.
//!include shared/sea_waves.wgsl

struct WaveProbe {
    // xyz = earth-fixed position modulo the period (m), w = time (s).
    position_time: vec4<f32>,
    // xyz = unit vertical, w = metres per pixel.
    up_pixel: vec4<f32>,
}

@group(0) @binding(0) var<storage, read> probes: array<WaveProbe>;
// xyz = the unit normal, w = the faded waves' slope variance.
@group(0) @binding(1) var<storage, read_write> normals: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&probes)) {
        let p = probes[id.x];
        normals[id.x] = sea_wave_normal(p.position_time.xyz, p.up_pixel.xyz, p.position_time.w, p.up_pixel.w);
    }
}
