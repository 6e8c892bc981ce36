// What raster.small shares on both scenes (terrain_raster_small.wgsl, globe_raster_small.wgsl):
// the list of leaves left to raster.large and its indirect draw arguments, the size histogram, and
// the entry point: one thread per leaf below `raster_leaf_count()`, each `raster_leaf(leaf_index)`
// (both written by the including pass), then the workgroup's histogram added to the buffer's.
//!include shared/vis_raster.wgsl
//!include shared/dispatch.wgsl

// The indirect draw arguments of raster.large.
struct LargeArgs {
    vertex_count: atomic<u32>,
    instance_count: u32,
    first_vertex: u32,
    first_instance: u32,
}

@group(2) @binding(2) var<storage, read_write> large_ids: array<u32>;
@group(2) @binding(3) var<storage, read_write> large_args: LargeArgs;
@group(2) @binding(4) var<storage, read_write> histogram: array<atomic<u32>, RASTER_HISTOGRAM_BINS>;

// Appends leaf `leaf_index` to the list raster.large draws.
fn raster_large_push(leaf_index: u32) {
    large_ids[atomicAdd(&large_args.vertex_count, 3u) / 3u] = leaf_index;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn raster_small(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index == 0u) {
        large_args.instance_count = 1u;
    }
    if (leaf_index < raster_leaf_count()) {
        raster_leaf(leaf_index);
    }
    workgroupBarrier();
    if (local < RASTER_HISTOGRAM_BINS) {
        let count = atomicLoad(&wg_histogram[local]);
        if (count > 0u) {
            atomicAdd(&histogram[local], count);
        }
    }
}
