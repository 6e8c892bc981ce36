// The block a workgroup of cbt.reduce's bitfield dispatch reduces, shared by the shared-memory
// path (cbt_reduce.wgsl) and the subgroup path (cbt_reduce_subgroup.wgsl): its dispatch index, or
// in a changed-only dispatch (params.changed_only == 1) the group.x-th block of the changed list,
// whose bit it clears (workgroup 0 also empties the list: the dispatch's size was copied out
// before it began). Needs shared/cbt_heap_atomic.wgsl, shared/dispatch.wgsl and the includer's
// `params` uniform with a `changed_only` field.

var<workgroup> wg_block: u32;

fn cbt_reduce_block(group: vec3<u32>, t: u32) -> u32 {
    if (params.changed_only != 1u) {
        return dispatch_group_index(group);
    }
    if (t == 0u) {
        let block = atomicLoad(&cbt_changed[1u + cbt_changed_bitmap_words() + group.x]);
        atomicAnd(&cbt_changed[1u + (block >> 5u)], ~(1u << (block & 31u)));
        if (group.x == 0u) {
            atomicStore(&cbt_changed[0], 0u);
        }
        wg_block = block;
    }
    return workgroupUniformLoad(&wg_block);
}
