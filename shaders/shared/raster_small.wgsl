// What raster.small shares on both scenes (terrain_raster_small.wgsl, globe_raster_small.wgsl):
// the list of leaves left to raster.large and its indirect draw arguments, raster.wide's triangles
// and tile entries and its indirect dispatch arguments (`raster_large_or_wide`), the size histogram, and
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

// raster.wide's indirect dispatch arguments (one workgroup per tile entry) and its triangle count.
struct WideArgs {
    entries: atomic<u32>,
    y: u32,
    z: u32,
    triangles: atomic<u32>,
}

@group(2) @binding(6) var<storage, read_write> wide_triangles: array<WideTriangle>;
// Per entry: the index into wide_triangles, and the tile's x | y << 16.
@group(2) @binding(7) var<storage, read_write> wide_entries: array<vec2<u32>>;
@group(2) @binding(8) var<storage, read_write> wide_args: WideArgs;

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
    let index = atomicAdd(&wide_args.triangles, 1u);
    let capacity = arrayLength(&wide_entries);
    if (index >= arrayLength(&wide_triangles) || count > capacity) {
        raster_large_push(leaf_index);
        return;
    }
    // Reserves `count` entries, never past the capacity (the count is the dispatch's size).
    var first = atomicLoad(&wide_args.entries);
    loop {
        if (first + count > capacity) {
            raster_large_push(leaf_index);
            return;
        }
        let swapped = atomicCompareExchangeWeak(&wide_args.entries, first, first + count);
        if (swapped.exchanged) {
            break;
        }
        first = swapped.old_value;
    }
    wide_triangles[index] = t;
    for (var k = 0u; k < count; k++) {
        let tile = vec2<u32>(tile_lo) + vec2<u32>(k % u32(tiles.x), k / u32(tiles.x));
        wide_entries[first + k] = vec2<u32>(index, tile.x | (tile.y << 16u));
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn raster_small(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index == 0u) {
        large_args.instance_count = 1u;
        wide_args.y = 1u;
        wide_args.z = 1u;
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
