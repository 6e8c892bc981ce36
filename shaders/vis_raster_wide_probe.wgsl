// Test probe of raster.small's binning for raster.wide (tests/raster.rs): raster.small's entry
// point over triangles of clip-space corners (one thread each, id = the index), each drawn by
// `raster_triangle` or, when too large, handed to raster.wide or raster.large by
// `raster_large_or_wide`; raster_wide.wgsl then draws the entries.
//!include shared/raster_small.wgsl

@group(0) @binding(0) var<storage, read> triangles: array<array<vec4<f32>, 3>>;

fn raster_leaf(leaf_index: u32) {
    let clip = triangles[leaf_index];
    if (raster_triangle(clip, leaf_index) == RASTER_LARGE) {
        raster_large_or_wide(clip, leaf_index);
    }
}

fn raster_leaf_count() -> u32 {
    return arrayLength(&triangles);
}
