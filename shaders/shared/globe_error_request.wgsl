// The decode passes' request for the tile whose error summary bounds a triangle (--lod error),
// so that tile becomes resident. Needs shared/tile_cache_record.wgsl and shared/globe_heights.wgsl.

// Records the tile whose summary bounds the triangle with map vertices `m` seen from
// `distance_m` (decode passes under --lod error, so that tile becomes resident).
fn globe_request_error_tile(m: array<vec2<u32>, 3>, distance_m: f32) {
    let lo = min(min(m[0], m[1]), m[2]);
    let zoom = tile_error_zoom(lo, max(max(m[0], m[1]), m[2]), globe_wanted_zoom(distance_m));
    tile_cache_record(lo, zoom, tile_cache_find(lo, zoom));
}
