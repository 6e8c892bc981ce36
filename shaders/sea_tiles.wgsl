// The sea's wave tiles (src/globe/sea/tiles.rs): "sea.waves" sums each tile's waves at its texel
// centres into mip 0 (one thread a texel, z = the tile), "sea.mips" averages 2 x 2 texels of one
// level into the next. CPU twin: src/globe/sea/mod.rs (tile_texels, next_mip), which writes out
// the sums.
//!include shared/sea_tiles.wgsl

@group(0) @binding(0) var<uniform> sea: SeaUniforms;
// Per wave (tile after tile): xy = (m, n), the wave vector in units of 2 pi / the tile's side
// (whole numbers), z = amplitude (m), w = phase at the waves' time (rad, in [0, 2 pi)).
@group(0) @binding(1) var<storage, read> sea_waves: array<vec4<f32>>;
@group(0) @binding(2) var sea_tile_out: texture_storage_2d_array<rgba16float, write>;
@group(0) @binding(3) var sea_mip_in: texture_2d_array<f32>;
@group(0) @binding(4) var sea_mip_out: texture_storage_2d_array<rgba16float, write>;

const SEA_PI: f32 = 3.14159265358979;

// Texel id.xy of tile id.z: (slope.x, slope.y, |slope|^2, height) at its centre.
@compute @workgroup_size(8, 8, 1)
fn waves(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= SEA_TILE_SIDE || id.y >= SEA_TILE_SIDE || id.z >= SEA_LAYERS) {
        return;
    }
    let k_unit = 2.0 * SEA_PI / sea.tiles[id.z].z;
    let period = 2 * i32(SEA_TILE_SIDE);
    // Twice the texel centre in texels: k . x = pi (m (2i + 1) + n (2j + 1)) / side, exact in
    // whole numbers modulo 2 side.
    let centre2 = vec2<i32>(id.xy) * 2 + 1;
    var gradient = vec2<f32>(0.0);
    var vertical = 0.0;
    var height_m = 0.0;
    for (var w = 0u; w < SEA_WAVES_PER_LAYER; w += 1u) {
        let wave = sea_waves[id.z * SEA_WAVES_PER_LAYER + w];
        let mn = vec2<i32>(wave.xy);
        let whole = ((mn.x * centre2.x + mn.y * centre2.y) % period + period) % period;
        // In [-pi, pi], where sin and cos are accurate.
        var theta = f32(whole) * (SEA_PI / f32(SEA_TILE_SIDE)) + wave.w;
        theta -= select(0.0, 2.0 * SEA_PI, theta > SEA_PI);
        theta -= select(0.0, 2.0 * SEA_PI, theta > SEA_PI);
        let k = wave.xy * k_unit;
        let s = sin(theta);
        gradient += wave.z * cos(theta) * k;
        vertical += wave.z * length(k) * s;
        height_m += wave.z * s;
    }
    let slope = gradient / max(1.0 - sea.east.w * vertical, 0.25);
    textureStore(sea_tile_out, vec2<i32>(id.xy), i32(id.z), vec4<f32>(slope, dot(slope, slope), height_m));
}

// Texel id.xy of tile id.z of the next level: the mean of the 2 x 2 texels below it.
@compute @workgroup_size(8, 8, 1)
fn mips(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(sea_mip_out);
    if (id.x >= size.x || id.y >= size.y || id.z >= SEA_LAYERS) {
        return;
    }
    let p = vec2<i32>(id.xy) * 2;
    let layer = i32(id.z);
    let sum = textureLoad(sea_mip_in, p, layer, 0) + textureLoad(sea_mip_in, p + vec2<i32>(1, 0), layer, 0)
        + textureLoad(sea_mip_in, p + vec2<i32>(0, 1), layer, 0) + textureLoad(sea_mip_in, p + vec2<i32>(1, 1), layer, 0);
    textureStore(sea_mip_out, vec2<i32>(id.xy), layer, 0.25 * sum);
}
