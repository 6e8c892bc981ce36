// Heights of the globe from the tile cache (shared/tile_cache.wgsl, @group(2)). Needs
// shared/globe_frame.wgsl with `globe` bound.
//!include shared/tile_cache.wgsl
//!include shared/globe_constants.wgsl
//!include shared/globe_detail.wgsl
//!include shared/tile_error.wgsl

// The tile zoom whose samples are one to two pixels apart at `distance_m` from the camera (a
// quarter of the tiles that one sample per pixel would need).
fn globe_wanted_zoom(distance_m: f32) -> u32 {
    let pixel_m = max(distance_m, 0.1) / globe.projection_scale_px;
    let zoom = floor(log2(GLOBE_MAP_SIDE_M / (GLOBE_TILE_INTERVALS * pixel_m)));
    return u32(clamp(zoom, 0.0, f32(TILE_CACHE_MAX_ZOOM)));
}

// The zoom a vertex at fixed-point map point `map` samples: a function of the vertex and the
// camera alone (its distance at sea level), so every triangle sharing the vertex agrees.
fn globe_vertex_zoom(map: vec2<u32>) -> u32 {
    return globe_wanted_zoom(length(globe_relative_position_m(map, 0.0)));
}

// The height in metres above the sphere of the vertex at fixed-point map point `map`, from the
// finest resident tile up to the zoom it wants (no cracks: the same for every triangle). Over the
// sea it is the water's surface, sea level, not the sea floor (whose depth still colours it).
// With globe.detail, the detail below the data is added (shared/globe_detail.wgsl), faded by the
// vertex's pixel size at its distance.
fn globe_vertex_height_m(map: vec2<u32>) -> f32 {
    return globe_vertex_sample(map).height_m;
}

// A vertex's height and the tile it sampled: the tile it wanted (`wanted_zoom`) or the nearest
// resident ancestor (`found`), for a decode to record (shared/tile_cache_record.wgsl) without
// looking the tile up again.
struct VertexSample {
    height_m: f32,
    wanted_zoom: u32,
    found: TileFound,
}

// `globe_vertex_height_m` with the tile it sampled.
fn globe_vertex_sample(map: vec2<u32>) -> VertexSample {
    let distance_m = length(globe_relative_position_m(map, 0.0));
    let wanted_zoom = globe_wanted_zoom(distance_m);
    let found = tile_cache_find(map, wanted_zoom);
    return VertexSample(globe_found_height_m(map, distance_m, found), wanted_zoom, found);
}

// The height at vertex `map`, `distance_m` from the camera at sea level, from tile `found`; with
// the detail, its octaves start below the spacing of the data in that tile (the tile's native
// shift, read from its error layer: shared/tile_error.wgsl tile_detail_sample).
fn globe_found_height_m(map: vec2<u32>, distance_m: f32, found: TileFound) -> f32 {
    if (globe.detail == 0u || found.slot == TILE_MISS) {
        return max(tile_cache_height(found, map), 0.0);
    }
    let pixel_m = max(distance_m, 0.1) / globe.projection_scale_px;
    let s = tile_detail_sample(found, map, pixel_m);
    return max(s.x + s.y, 0.0);
}

// The gradient of the detail below the data in metres per map unit at `map` in tile `found`,
// whose height and cell slope are `s` (tile_cache_height_slope), for a pixel spanning `pixel_m`
// metres: from the same slope, height and data level as globe_found_height_m's detail
// (tile_detail_sample), so the light and the geometry agree; none with the detail off.
fn globe_found_detail_gradient(found: TileFound, map: vec2<u32>, s: vec3<f32>, pixel_m: f32) -> vec2<f32> {
    if (globe.detail == 0u || found.slot == TILE_MISS) {
        return vec2<f32>(0.0);
    }
    let d = tile_detail_inputs(found, s);
    return globe_detail_gradient(map, d.slope_m, s.x, pixel_m, d.level, d.first);
}

// The data's error bound in metres of the triangle with map vertices `m` drawn flat, from the
// tiles a triangle seen from `distance_m` samples (--lod error; shared/tile_error.wgsl).
fn globe_data_error_m(m: array<vec2<u32>, 3>, distance_m: f32) -> f32 {
    return globe_data_error_found_m(m, tile_lookup_ancestor(globe_data_error_key(m, distance_m)));
}

// The tile whose summary bounds that triangle, as wanted (tile_cache_wanted_key at the box's
// lower corner): `globe_data_error_m` reads the nearest resident one, tile_lookup_ancestor of it.
fn globe_data_error_key(m: array<vec2<u32>, 3>, distance_m: f32) -> vec2<u32> {
    let lo = min(min(m[0], m[1]), m[2]);
    let hi = max(max(m[0], m[1]), m[2]);
    return tile_cache_wanted_key(lo, tile_error_zoom(lo, hi, globe_wanted_zoom(distance_m)));
}

// `globe_data_error_m` from the tile found for globe_data_error_key (for a decode that found it
// already, or that records it).
fn globe_data_error_found_m(m: array<vec2<u32>, 3>, found: TileFound) -> f32 {
    let lo = min(min(m[0], m[1]), m[2]);
    let hi = max(max(m[0], m[1]), m[2]);
    return tile_error_found_box_m(found, lo, hi, globe.detail != 0u);
}

// The fixed-point map point of `map_f` ([0, 1]^2, floats).
fn globe_map_fixed(map_f: vec2<f32>) -> vec2<u32> {
    return vec2<u32>(clamp(map_f, vec2<f32>(0.0), vec2<f32>(1.0)) * GLOBE_MAP_ONE_F);
}
