// What raster.small shares on both scenes (terrain_raster_small.wgsl, globe_raster_small.wgsl):
// the list of leaves left to raster.large and its indirect draw arguments, raster.wide's triangles
// and tile entries and its indirect dispatch arguments (`raster_large_or_wide`), the size histogram, and
// the entry point: one thread per leaf below `raster_leaf_count()`, each `raster_leaf(leaf_index)`
// (both written by the including pass), then the workgroup's histogram added to the buffer's.
//!include shared/vis_raster.wgsl
//!include shared/dispatch.wgsl

// The indirect draw arguments of raster.large, then raster.wide's indirect dispatch arguments (one
// workgroup per tile entry) and its triangle count.
struct RasterArgs {
    vertex_count: atomic<u32>,
    instance_count: u32,
    first_vertex: u32,
    first_instance: u32,
    wide_entries: atomic<u32>,
    wide_y: u32,
    wide_z: u32,
    wide_triangles: atomic<u32>,
}

// Tile entries raster.small hands to raster.wide at most (tests lower it to fill the list).
override RASTER_WIDE_ENTRIES: u32 = RASTER_WIDE_ENTRY_CAPACITY;

@group(2) @binding(2) var<storage, read_write> large_ids: array<u32>;
@group(2) @binding(3) var<storage, read_write> large_args: RasterArgs;
@group(2) @binding(4) var<storage, read_write> histogram: array<atomic<u32>, RASTER_HISTOGRAM_BINS>;
@group(2) @binding(6) var<storage, read_write> wide: WideLists;

// Appends leaf `leaf_index` to the list raster.large draws.
fn raster_large_push(leaf_index: u32) {
    large_ids[atomicAdd(&large_args.vertex_count, 3u) / 3u] = leaf_index;
}

// Hands triangle `leaf_index` with corners `clip`, which `raster_triangle` found too large, to
// raster.wide: one entry per 32x32-px tile its bounding box covers inside the viewport. Outside
// the guard band, or when the triangle or entry lists are full, it goes to raster.large instead.
fn raster_large_or_wide(clip: array<vec4<f32>, 3>, leaf_index: u32) {
    let setup = raster_wide_setup(clip, leaf_index);
    if (!setup.ok) {
        raster_large_push(leaf_index);
        return;
    }
    let t = setup.t;
    if (any(t.lo > t.hi) || raster_wide_area(t) <= 0) {
        // No pixel centre in the viewport, or degenerate once snapped.
        return;
    }
    let tile_lo = t.lo / RASTER_WIDE_TILE_PX;
    let tiles = t.hi / RASTER_WIDE_TILE_PX - tile_lo + 1;
    let count = u32(tiles.x * tiles.y);
    let index = atomicAdd(&large_args.wide_triangles, 1u);
    let capacity = min(RASTER_WIDE_ENTRIES, RASTER_WIDE_ENTRY_CAPACITY);
    if (index >= arrayLength(&wide.triangles) || count > capacity) {
        raster_large_push(leaf_index);
        return;
    }
    // Reserves `count` entries, never past the capacity (the count is the dispatch's size).
    var first = atomicLoad(&large_args.wide_entries);
    loop {
        if (first + count > capacity) {
            raster_large_push(leaf_index);
            return;
        }
        let swapped = atomicCompareExchangeWeak(&large_args.wide_entries, first, first + count);
        if (swapped.exchanged) {
            break;
        }
        first = swapped.old_value;
    }
    wide.triangles[index] = t;
    for (var k = 0u; k < count; k++) {
        let tile = vec2<u32>(tile_lo) + vec2<u32>(k % u32(tiles.x), k / u32(tiles.x));
        wide.entries[first + k] = vec2<u32>(index, tile.x | (tile.y << 16u));
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn raster_small(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index == 0u) {
        large_args.instance_count = 1u;
        large_args.wide_y = 1u;
        large_args.wide_z = 1u;
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
