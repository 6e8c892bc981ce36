// leb.decode: one thread per leaf writes the leaf's node id for the draw and the deepest depth.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/frame.wgsl

@group(0) @binding(1) var<storage, read_write> leaf_ids: array<u32>;
@group(0) @binding(2) var<storage, read_write> stats: FrameStats;

var<workgroup> wg_max_depth: atomic<u32>;

@compute @workgroup_size(256)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index < cbt_node_count() && leaf_index < stats.capacity) {
        let node = cbt_decode_node(leaf_index);
        leaf_ids[leaf_index] = node.id;
        atomicMax(&wg_max_depth, node.depth);
    }
    workgroupBarrier();
    if (local == 0u) {
        atomicMax(&stats.max_depth, atomicLoad(&wg_max_depth));
    }
}
