// What the decode passes (leb.decode, globe.decode) share: one thread per leaf writes the leaf's
// node id for the draw and counts its depth; visible leaves add to the LOD statistics; each
// workgroup reduces its counts in workgroup memory and adds them to the frame's. Bindings 1, 2
// and 4 of @group(0); the pass binds its uniforms at 3.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/frame.wgsl
//!include shared/lod_stats.wgsl

@group(0) @binding(1) var<storage, read_write> leaf_ids: array<u32>;
@group(0) @binding(2) var<storage, read_write> stats: FrameStats;
@group(0) @binding(4) var<storage, read_write> lod_stats: LodStats;

var<workgroup> wg_max_depth: atomic<u32>;
var<workgroup> wg_max_size_bits: atomic<u32>;
var<workgroup> wg_visible: atomic<u32>;
var<workgroup> wg_capped: atomic<u32>;

// The index of the leaf this thread decodes.
fn decode_leaf_index(group: vec3<u32>, local: u32) -> u32 {
    return dispatch_group_index(group) * WORKGROUP_SIZE + local;
}

// Whether leaf `leaf_index` exists and fits the leaf-id buffer (only `capacity` are drawn).
fn decode_has_leaf(leaf_index: u32) -> bool {
    return leaf_index < cbt_node_count() && leaf_index < stats.capacity;
}

// Decodes leaf `leaf_index`, writes its node id for the draw and counts its depth.
fn decode_leaf(leaf_index: u32) -> CbtNode {
    let node = cbt_decode_node(leaf_index);
    leaf_ids[leaf_index] = node.id;
    atomicMax(&wg_max_depth, node.depth);
    return node;
}

// Counts a visible leaf whose projected size is `size_px` (non-negative).
fn decode_count_visible(size_px: f32) {
    atomicMax(&wg_max_size_bits, bitcast<u32>(size_px));
    atomicAdd(&wg_visible, 1u);
}

// Counts a visible leaf that wants to split but is at the max depth.
fn decode_count_capped() {
    atomicAdd(&wg_capped, 1u);
}

// Adds the workgroup's counts to the frame's statistics; every thread calls it, last.
fn decode_flush_stats(local: u32) {
    workgroupBarrier();
    if (local == 0u) {
        atomicMax(&stats.max_depth, atomicLoad(&wg_max_depth));
        atomicMax(&lod_stats.max_size_px_bits, atomicLoad(&wg_max_size_bits));
        atomicAdd(&lod_stats.visible_leaves, atomicLoad(&wg_visible));
        atomicAdd(&lod_stats.capped_leaves, atomicLoad(&wg_capped));
    }
}
