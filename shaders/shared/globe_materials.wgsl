// The globe's terrain shading (issue 17 item 4): a gradient that does not band on quantised data
// and materials by slope, height and latitude that read as forest, grass, alpine meadow, rock and
// snow at a distance. Albedos are linear reflectances (the atmosphere's light multiplies them).
// The flat terrain keeps its hypsometric colours (shared/shading.wgsl). Needs shared/tile_cache.wgsl.
// CPU twin of the gradient: src/globe/materials.rs.

// The finest height step of the data's encodings (Terrain-RGB: 0.1 m): a slope that spans a few
// of them across the gradient's stencil shades in bands.
const GLOBE_HEIGHT_STEP_M: f32 = 0.1;

// Reflectances of the materials (linear).
const MATERIAL_GRASS: vec3<f32> = vec3<f32>(0.11, 0.15, 0.06);
const MATERIAL_FOREST: vec3<f32> = vec3<f32>(0.05, 0.085, 0.04);
const MATERIAL_ALPINE: vec3<f32> = vec3<f32>(0.15, 0.14, 0.09);
const MATERIAL_ROCK: vec3<f32> = vec3<f32>(0.17, 0.16, 0.15);
const MATERIAL_SNOW: vec3<f32> = vec3<f32>(0.82, 0.84, 0.88);

// How many texels each side the wide stencil reaches: its differences span 8 texels, so a height
// step changes its slope by a quarter of what it does to the tile cache's 2-texel differences.
const GLOBE_WIDE_TEXELS: i32 = 4;

// The central difference GLOBE_WIDE_TEXELS each side at texel `ij` of layer `slot` (metres per
// texel), the stencil shortened at the layer's edge.
fn globe_wide_texel_gradient(slot: u32, ij: vec2<i32>) -> vec2<f32> {
    let last = i32(TILE_SIDE) - 1;
    let x0 = max(ij.x - GLOBE_WIDE_TEXELS, 0);
    let x1 = min(ij.x + GLOBE_WIDE_TEXELS, last);
    let y0 = max(ij.y - GLOBE_WIDE_TEXELS, 0);
    let y1 = min(ij.y + GLOBE_WIDE_TEXELS, last);
    return vec2<f32>(
        (tile_cache_load(slot, vec2<i32>(x1, ij.y)) - tile_cache_load(slot, vec2<i32>(x0, ij.y))) / f32(x1 - x0),
        (tile_cache_load(slot, vec2<i32>(ij.x, y1)) - tile_cache_load(slot, vec2<i32>(ij.x, y0))) / f32(y1 - y0),
    );
}

// dh/dmap (metres per map unit) for shading at `map` in the tile `found`, given the tile cache's
// `narrow` gradient (central differences 1 texel each side): where those differences span fewer
// than 32 of the encoding's steps, blended towards a stencil four times as wide, fully below 4
// steps. Steep slopes keep the narrow stencil's detail.
fn globe_shading_gradient(found: TileFound, map: vec2<u32>, narrow: vec2<f32>) -> vec2<f32> {
    if (found.slot == TILE_MISS) {
        return narrow;
    }
    let texels_per_map = exp2(f32(7u + found.zoom));
    let steps = 2.0 * max(abs(narrow.x), abs(narrow.y)) / texels_per_map / GLOBE_HEIGHT_STEP_M;
    let wide_share = 1.0 - smoothstep(4.0, 32.0, steps);
    if (wide_share <= 0.0) {
        return narrow;
    }
    let t = tile_cache_texel(found, map);
    let b = t.base;
    let g00 = globe_wide_texel_gradient(found.slot, b);
    let g10 = globe_wide_texel_gradient(found.slot, b + vec2<i32>(1, 0));
    let g01 = globe_wide_texel_gradient(found.slot, b + vec2<i32>(0, 1));
    let g11 = globe_wide_texel_gradient(found.slot, b + vec2<i32>(1, 1));
    let wide = vec2<f32>(tile_cache_bilinear(t.frac, g00.x, g10.x, g01.x, g11.x), tile_cache_bilinear(t.frac, g00.y, g10.y, g01.y, g11.y));
    return mix(narrow, wide * texels_per_map, wide_share);
}

// The terrain's reflectance at `height_m` with `slope` (the tangent of its angle) at latitude
// `latitude_rad`: grass in the lowlands, forest on the hills, alpine meadow above the tree line,
// rock above that and on slopes steeper than about 45 degrees, snow above the snow line where the
// slope holds it. The snow line is 5800 m up to 35 degrees (the dry Tibetan plateau, 4500-5000 m,
// stays bare) and falls by 150 m per degree beyond (the Alps 4150 m, Norway 1900 m, the ice caps
// at sea level from 74 degrees), the tree line 2000 m below it (Taiwan and the Himalaya 3800 m).
// Without land-cover data, deserts are grass: the materials know height, slope and latitude only.
fn globe_terrain_albedo(height_m: f32, slope: f32, latitude_rad: f32) -> vec3<f32> {
    let latitude_deg = abs(latitude_rad) * 57.2957795;
    let snow_line_m = min(5800.0, 5800.0 - 150.0 * (latitude_deg - 35.0));
    let tree_line_m = snow_line_m - 2000.0;
    var c = mix(MATERIAL_GRASS, MATERIAL_FOREST, smoothstep(60.0, 500.0, height_m));
    c = mix(c, MATERIAL_ALPINE, smoothstep(tree_line_m - 300.0, tree_line_m + 200.0, height_m));
    c = mix(c, MATERIAL_ROCK, smoothstep(tree_line_m + 400.0, snow_line_m, height_m));
    c = mix(c, MATERIAL_ROCK, smoothstep(0.9, 1.4, slope));
    let snow = smoothstep(snow_line_m - 300.0, snow_line_m + 300.0, height_m) * (1.0 - smoothstep(0.55, 0.9, slope));
    return mix(c, MATERIAL_SNOW, snow);
}
