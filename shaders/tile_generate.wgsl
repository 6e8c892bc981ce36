// Pass "cache.tile_generate": the procedural planet's tiles made on the GPU, straight into their
// atlas layers. One invocation per texel, one workgroup layer (z) per scheduled tile. Mirrors
// src/globe/cache/tile_generate.rs (planet_tile, the CPU twin).
//!include shared/planet.wgsl
//!include shared/tile_constants.wgsl

// Keep in sync with TileJob in src/globe/cache/tile_generate.rs: x = key lo, y = key hi, z = atlas
// layer, w = seed.
@group(0) @binding(0) var<storage, read> tile_jobs: array<vec4<u32>>;
@group(0) @binding(1) var atlas: texture_storage_2d_array<r32float, write>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= TILE_SIDE || id.y >= TILE_SIDE || id.z >= arrayLength(&tile_jobs)) {
        return;
    }
    let job = tile_jobs[id.z];
    let zoom = (job.x >> 27u) - 1u;
    let p = tile_texel_map_fixed(zoom, job.x & 0x07ffffffu, job.y & 0x07ffffffu, id.x, id.y);
    let h = planet_height_m(planet_direction(p), zoom, job.w);
    textureStore(atlas, vec2<u32>(id.x, id.y), job.z, vec4<f32>(h, 0.0, 0.0, 0.0));
}
