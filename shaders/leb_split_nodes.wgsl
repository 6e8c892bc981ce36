// leb.split_nodes: conforming splits of a given list of nodes, one per thread (a diagnostic
// pass: the tests use it to make deep spikes next to coarse regions, which need long split chains).
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/leb.wgsl
//!include shared/leb_split.wgsl

@group(0) @binding(1) var<storage, read> node_ids: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn split_nodes(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i < arrayLength(&node_ids)) {
        leb_split_conforming(cbt_node_from_id(node_ids[i]));
    }
}
