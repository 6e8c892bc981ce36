// kernel.chained_hash (subgroup variant): one atomicAdd per subgroup instead of per element;
// each lane takes its slot from the subgroup's block by an exclusive prefix count. Every lane
// of a 256-thread workgroup is is_element, so lane 0 does the add.
//!include shared/dispatch.wgsl
//!include shared/chained_hash.wgsl

@compute @workgroup_size(WORKGROUP_SIZE)
fn build_subgroup(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    let is_element = u32(i < params.elements);
    let total = subgroupAdd(is_element);
    let before = subgroupExclusiveAdd(is_element);
    var base = 0u;
    if (lane == 0u) {
        base = atomicAdd(&counter[0], total);
    }
    base = subgroupBroadcastFirst(base);
    if (is_element == 1u) {
        insert_at(i, base + before);
    }
}
