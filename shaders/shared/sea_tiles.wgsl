// The sea's wave tiles: their sizes and the uniforms shared by their passes (shaders/sea_tiles.wgsl)
// and the draws that sample them (shared/globe_sea.wgsl). Rust: src/globe/sea/mod.rs, which
// documents the waves, the tiles and the frame they lie in (keep the constants in sync there).

const SEA_LAYERS: u32 = 3u;
const SEA_TILE_SIDE: u32 = 256u;
const SEA_WAVES_PER_LAYER: u32 = 64u;

// Keep in sync with SeaUniforms in src/globe/sea/mod.rs.
struct SeaUniforms {
    // xyz = the waves' frame's east (unit, earth-fixed), w = Gerstner's Q.
    east: vec4<f32>,
    // xyz = the frame's north (unit, earth-fixed), w unused.
    north: vec4<f32>,
    // Per tile: xy = the camera's wave coordinates modulo the tile (in tiles, from f64), z = the
    // tile's side (m), w unused.
    tiles: array<vec4<f32>, 3>,
}
