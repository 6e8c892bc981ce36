// What raster.small (shared/raster_small.wgsl) and raster.bin (raster_bin.wgsl) both write: the
// list of leaves left to raster.large with its indirect draw arguments, and raster.wide's
// indirect dispatch arguments. Binds @group(2) @binding(2) and (3).

// The indirect draw arguments of raster.large, then raster.wide's indirect dispatch arguments
// (one workgroup per tile entry) and the entries reserved. Keep in sync with
// src/schedule/raster.rs's WIDE_ARGS_OFFSET.
struct RasterArgs {
    vertex_count: atomic<u32>,
    instance_count: u32,
    first_vertex: u32,
    first_instance: u32,
    // The end of the last reservation of tile entries that fit (a high-water mark by atomicMax):
    // every entry below it is written, and it never exceeds the capacity.
    wide_entries: atomic<u32>,
    wide_y: u32,
    wide_z: u32,
    // Tile entries reserved by atomicAdd, those that did not fit included.
    wide_requested: atomic<u32>,
}

@group(2) @binding(2) var<storage, read_write> large_ids: array<u32>;
@group(2) @binding(3) var<storage, read_write> large_args: RasterArgs;

// Appends leaf `leaf_index` to the list raster.large draws.
fn raster_large_push(leaf_index: u32) {
    large_ids[atomicAdd(&large_args.vertex_count, 3u) / 3u] = leaf_index;
}
