// raster.small: the compute rasteriser's pass over every leaf (one thread per leaf). A triangle
// whose screen bounding box is at most RasterUniforms.large_px wide and tall, wholly in front of
// the near plane, is rasterised here: its corners snapped to 1/256 px as the hardware does, every
// pixel centre inside or on its edges gets depth << 32 | id by a 64-bit atomic max. Larger ones
// (and those crossing the near plane) are appended to the list raster.large draws. Back faces,
// triangles outside the viewport and those touching samples without data are dropped, as the
// hardware draw drops them. Every triangle on screen counts in the size histogram. The buffer's
// ids are leaf indices (into leaf_ids); every drawn leaf's three morphed corner heights are stored
// by leaf index, for raster.large and shade to read instead of sampling and morphing again.
//!include shared/terrain_surface.wgsl
//!include shared/vis_raster.wgsl
//!include shared/dispatch.wgsl

// cbt.stats, read-only (FrameStats in shared/frame.wgsl).
struct LeafCount {
    leaves: u32,
    max_depth: u32,
    overflow: u32,
    capacity: u32,
}

// The indirect draw arguments of raster.large.
struct LargeArgs {
    vertex_count: atomic<u32>,
    instance_count: u32,
    first_vertex: u32,
    first_instance: u32,
}

@group(0) @binding(0) var<storage, read> leaf_ids: array<u32>;
@group(0) @binding(2) var<storage, read> leaf_count: LeafCount;
@group(2) @binding(2) var<storage, read_write> large_ids: array<u32>;
@group(2) @binding(3) var<storage, read_write> large_args: LargeArgs;
@group(2) @binding(4) var<storage, read_write> histogram: array<atomic<u32>, RASTER_HISTOGRAM_BINS>;
@group(2) @binding(5) var<storage, read_write> corner_heights: array<f32>;

fn raster_leaf(leaf_index: u32) {
    let uv = terrain_corners_uv(leaf_ids[leaf_index]);
    let s = array<HeightSample, 3>(height_sample_at_uv(uv[0]), height_sample_at_uv(uv[1]), height_sample_at_uv(uv[2]));
    if (s[0].nodata || s[1].nodata || s[2].nodata) {
        return;
    }
    var clip: array<vec4<f32>, 3>;
    var behind = 0u;
    for (var k = 0u; k < 3u; k++) {
        let world = vec3<f32>(uv[k] * u.terrain_size_m, morphed_height_m(uv[k], s[k].height_m));
        corner_heights[3u * leaf_index + k] = world.z;
        clip[k] = u.clip_from_world * vec4<f32>(world, 1.0);
        // Reverse Z with an infinite far plane: clip z is the near distance, so w < z is before
        // the near plane.
        behind += u32(clip[k].w <= clip[k].z);
    }
    if (behind == 3u && clip[0].w <= 0.0 && clip[1].w <= 0.0 && clip[2].w <= 0.0) {
        return;
    }
    if (behind > 0u) {
        // The hardware clips it against the near plane.
        large_ids[atomicAdd(&large_args.vertex_count, 3u) / 3u] = leaf_index;
        return;
    }
    if (raster_triangle(clip, leaf_index) == RASTER_LARGE) {
        large_ids[atomicAdd(&large_args.vertex_count, 3u) / 3u] = leaf_index;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn raster_small(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index == 0u) {
        large_args.instance_count = 1u;
    }
    if (leaf_index < min(leaf_count.leaves, leaf_count.capacity)) {
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
