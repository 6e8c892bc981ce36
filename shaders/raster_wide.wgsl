// raster.wide: the compute rasteriser's pass over the large and near-plane-clipped triangles
// raster.bin binned per 32x32-px screen tile (raster_bin.wgsl), on both scenes. One
// workgroup per tile entry, 256 threads of 4 pixels each; every pixel centre of the tile inside or
// on the triangle's edges gets depth << 32 | id by the 64-bit atomic max (`raster_wide_pixel`:
// `raster_triangle`'s snapping and edge test in i64). CPU twin: src/flat/raster.rs's
// `rasterise_wide_cpu`. Dispatched indirectly by raster.bin's count of entries.
//!include shared/vis_raster.wgsl

@group(2) @binding(6) var<storage, read> wide: WideLists;

@compute @workgroup_size(256)
fn raster_wide(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let entry = wide.entries[group.x];
    let t = wide.triangles[entry.x];
    let inv_area = 1.0 / f32(raster_wide_area(t));
    let tile = vec2<i32>(vec2<u32>(entry.y & 0xffffu, entry.y >> 16u)) * RASTER_WIDE_TILE_PX;
    for (var k = 0u; k < 4u; k++) {
        let i = local + 256u * k;
        raster_wide_pixel(t, inv_area, tile + vec2<i32>(i32(i % 32u), i32(i / 32u)));
    }
}
