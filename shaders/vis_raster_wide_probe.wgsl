// Test probe of raster.small's hand-over to raster.bin (tests/raster.rs): raster.small's entry
// point over triangles of clip-space corners (one thread each, id = the index), each drawn by
// `raster_any_triangle`: rasterised by `raster_triangle` or, when too large or crossing the near
// plane, listed for raster.bin (or raster.large); raster_bin.wgsl and raster_wide.wgsl then draw
// the list.
//!include shared/raster_small.wgsl

@group(0) @binding(0) var<storage, read> triangles: array<array<vec4<f32>, 3>>;

fn raster_leaf(leaf_index: u32) {
    raster_any_triangle(triangles[leaf_index], leaf_index);
}

fn raster_leaf_count() -> u32 {
    return arrayLength(&triangles);
}
