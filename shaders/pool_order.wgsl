// pool.order (compact mode; src/pool/gpu_passes.rs): the draw list in tree order, the leaves depth
// first by node id, kept from frame to frame, so that the leaves a workgroup takes lie side by
// side on the ground and share most of their vertices (globe.pool_decode samples each vertex once
// per workgroup) and their tiles. The frame's classify copied the last frame's list to
// pool_list's entries [3N, 4N), and its bisect or merge summed each workgroup's gains into
// pool.group_sums (shared/pool_order_marks.wgsl), from the bits of the slots whose leaf changed
// (allocate: a split; elect: the odd leaf of a merged pair). Entry i of the last list becomes:
//   its slot, where the leaf is unchanged (or kept its slot as the even leaf of a merge: the
//   survivor, whose parent's place in the order is its own);
//   nothing, where the slot was freed (changed, and no longer used in the CBT);
//   its pieces in tree order, where it split: its own slot (the first piece) and the slots it
//   allocated (child_slot 0.., in tree order: pool_bisect.wgsl `bisect_slot`).
// Both halves of a merged pair are adjacent in tree order, as are a leaf's pieces, so the list
// stays in tree order. Workgroup g takes the last list's entries 256 g.. (a fixed dispatch of one
// thread per slot: the pass writes the arguments the passes over the leaves of larger pools and
// the raster passes are dispatched with; src/pool/gpu_passes.rs `LeafDispatch`): its first new
// entry is 256 per earlier workgroup plus their gains, each entry's the workgroup's plus the
// gains of the changed entries before it (a scan of the workgroup where more than SPARSE_CHANGES
// changed). With POOL_DEEPEST also the deepest leaf (reading every listed id;
// the globe's decode finds it instead). It also does what pool.list does in the bit-exact mode:
// the leaf count (the last list's, plus the slots the frame allocated, less those it freed) and
// the arguments, and the update words the frame wrote cleared (shared/pool_lists.wgsl
// `clean_entry`; a slot that split by the thread that reads it). It reads no count of the CBT,
// only its bitfield, so it need not wait for cbt.reduce: on trees of the one-pass reduction the
// two share a dispatch (pool_order_reduce.wgsl); the free list is the next split frame's
// classify's (shared/pool_free_list.wgsl). This file is the pass alone (cbt.reduce before it).
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/pool_order_pass.wgsl

@compute @workgroup_size(WORKGROUP_SIZE)
fn order(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) groups: vec3<u32>) {
    order_group(dispatch_group_index(group), t, groups.x * groups.y);
}
