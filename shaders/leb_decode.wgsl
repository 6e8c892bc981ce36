// leb.decode: one thread per leaf writes the leaf's node id for the draw and the deepest depth,
// and measures the leaf's size on screen under the LOD criterion (the remaining screen-space
// error) for the statistics.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/frame.wgsl
//!include shared/lod.wgsl

@group(0) @binding(1) var<storage, read_write> leaf_ids: array<u32>;
@group(0) @binding(2) var<storage, read_write> stats: FrameStats;
@group(0) @binding(3) var<uniform> lod: LodParams;
@group(0) @binding(4) var<storage, read_write> lod_stats: LodStats;

// Keep in sync with LodStats in src/leb/decode.rs.
struct LodStats {
    // Bits of the largest f32 projected size (non-negative floats order like their bits).
    max_size_px_bits: atomic<u32>,
    // Leaves whose bounding box is inside the frustum.
    visible_leaves: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
}

// false in diagnostics that time the decode alone (kernel cbt).
override MEASURE_LOD: bool = true;

var<workgroup> wg_max_depth: atomic<u32>;
var<workgroup> wg_max_size_bits: atomic<u32>;
var<workgroup> wg_visible: atomic<u32>;

@compute @workgroup_size(256)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index < cbt_node_count() && leaf_index < stats.capacity) {
        let node = cbt_decode_node(leaf_index);
        leaf_ids[leaf_index] = node.id;
        atomicMax(&wg_max_depth, node.depth);
        var size_px = 0.0;
        if (MEASURE_LOD) {
            size_px = lod_projected_size_px(lod, node.id, node.depth);
        }
        if (size_px > 0.0) {
            atomicMax(&wg_max_size_bits, bitcast<u32>(size_px));
            atomicAdd(&wg_visible, 1u);
        }
    }
    workgroupBarrier();
    if (local == 0u) {
        atomicMax(&stats.max_depth, atomicLoad(&wg_max_depth));
        atomicMax(&lod_stats.max_size_px_bits, atomicLoad(&wg_max_size_bits));
        atomicAdd(&lod_stats.visible_leaves, atomicLoad(&wg_visible));
    }
}
