// What raster.small shares on both scenes (terrain_raster_small.wgsl, globe_raster_small.wgsl):
// `raster_any_triangle`, which rasterises a small triangle in front of the near plane and lists
// the larger ones and those crossing the near plane for raster.bin (`raster_wide_push`; the list
// full: raster.large's, shared/raster_lists.wgsl), the size histogram, and the entry point: one
// thread per leaf below `raster_leaf_count()`, each `raster_leaf(leaf_index)` (both written by the
// including pass), then the workgroup's histogram added to the buffer's.
//!include shared/vis_raster.wgsl
//!include shared/raster_lists.wgsl
//!include shared/dispatch.wgsl

// raster.bin's indirect dispatch arguments (one workgroup per listed triangle) and the triangles
// it reads. Keep in sync with src/schedule/raster.rs's wide_inputs.
struct WideInputs {
    // The listed triangles (at most the capacity once raster.small is done).
    bin_x: atomic<u32>,
    bin_y: u32,
    bin_z: u32,
    _pad: u32,
    inputs: array<WideInput>,
}

@group(2) @binding(4) var<storage, read_write> histogram: array<atomic<u32>, RASTER_HISTOGRAM_BINS>;
@group(2) @binding(7) var<storage, read_write> wide_in: WideInputs;

// Lists triangle `leaf_index` with corners `clip` for raster.bin: one atomicAdd reserves its slot.
// When the list is full it goes to raster.large instead, and the add is undone, so that the count
// ends at the capacity (raster.bin's workgroup count). No slot is handed out twice: the count
// first reaches the capacity when every slot is taken, and stays at or above it while any
// overflowing thread has yet to undo its add.
fn raster_wide_push(clip: array<vec4<f32>, 3>, leaf_index: u32) {
    let index = atomicAdd(&wide_in.bin_x, 1u);
    if (index >= min(arrayLength(&wide_in.inputs), RASTER_WIDE_TRIANGLE_CAPACITY)) {
        atomicSub(&wide_in.bin_x, 1u);
        raster_large_push(leaf_index);
        return;
    }
    wide_in.inputs[index] = WideInput(clip, leaf_index, 0u, 0u, 0u);
}

// Draws triangle `leaf_index` with clip-space corners `clip` (in drawing order): wholly behind the
// near plane, nothing; crossing it or larger than RasterUniforms.large_px, listed for raster.bin;
// else rasterised here by `raster_triangle`.
fn raster_any_triangle(clip: array<vec4<f32>, 3>, leaf_index: u32) {
    let in_front = u32(raster_in_front(clip[0])) + u32(raster_in_front(clip[1])) + u32(raster_in_front(clip[2]));
    if (in_front == 0u) {
        return;
    }
    if (in_front < 3u || raster_triangle(clip, leaf_index) == RASTER_LARGE) {
        raster_wide_push(clip, leaf_index);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn raster_small(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index == 0u) {
        large_args.instance_count = 1u;
        large_args.wide_y = 1u;
        large_args.wide_z = 1u;
        wide_in.bin_y = 1u;
        wide_in.bin_z = 1u;
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
