// The draw list in tree order (compact mode; src/pool/gpu_passes.rs): the leaves depth first by
// node id, kept from frame to frame, so that the leaves a workgroup takes lie side by side on the
// ground and share most of their vertices (globe.pool_decode samples each vertex once per
// workgroup) and their tiles. pool_order holds the last frame's list (pool.list copies it there);
// after a split or merge frame, entry i of it becomes:
//   its slot, where the leaf is unchanged (or kept its slot as the even leaf of a merge: the
//   survivor, whose parent's place in the order is its own);
//   nothing, where the slot was freed (the odd leaf of a merge: its parent is the even one's);
//   its pieces in tree order, where it split: its own slot (the first piece) and the slots it
//   allocated (child_slot 0.., in tree order: pool_bisect.wgsl `bisect_slot`).
// Both halves of a merged pair are adjacent in tree order, as are a leaf's pieces, so the list
// stays in tree order. Three passes over the last list (the arguments pool.list wrote with it):
//   pool.order_sum      per workgroup of 256 entries: the entries they become -> group_sums
//   pool.order_scan     one workgroup: group_sums -> their exclusive prefixes
//   pool.order_scatter  per entry: its new entries at group prefix + workgroup prefix, and the
//                       deepest leaf (pool.counters.max_depth_reached)
// They run after cbt.reduce and before pool.list, which clears the child slots.
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/workgroup_scan.wgsl
//!include shared/pool_group_sums.wgsl

@group(0) @binding(1) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read> pool_update: array<u32>;
@group(0) @binding(6) var<storage, read_write> pool_list: array<u32>;
@group(0) @binding(7) var<storage, read_write> pool: PoolControl;
// The last frame's draw list (in tree order).
@group(0) @binding(10) var<storage, read> pool_order: array<u32>;

var<workgroup> wg_deepest: atomic<u32>;

// Whether `slot` is used in the CBT's bitfield (as pool.list reads it).
fn slot_used(slot: u32) -> bool {
    let word = cbt_load((3u << (CBT_MAX_DEPTH - 5u)) + (slot >> 5u));
    return ((word >> (slot & 31u)) & 1u) == 1u;
}

// The entries the last list's entry i becomes (0 past its end).
fn order_entries(i: u32) -> u32 {
    if (i >= pool.params.leaves) {
        return 0u;
    }
    let slot = pool_order[i];
    if (!slot_used(slot)) {
        return 0u;
    }
    return 1u + countOneBits(pool_update[slot * UPDATE_WORDS + UPDATE_PATTERN]);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn order_sum(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = dispatch_group_index(group);
    let count = order_entries(g * WORKGROUP_SIZE + t);
    let prefix = workgroup_exclusive_scan(t, count);
    if (t == WORKGROUP_SIZE - 1u && g < pool_leaf_groups()) {
        atomicStore(&pool.group_sums[g], prefix + count);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn order_scan(@builtin(local_invocation_index) t: u32) {
    pool_scan_group_sums(t, pool_leaf_groups());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn order_scatter(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = dispatch_group_index(group);
    let i = g * WORKGROUP_SIZE + t;
    let count = order_entries(i);
    let prefix = workgroup_exclusive_scan(t, count);
    if (count != 0u) {
        let at = atomicLoad(&pool.group_sums[g]) + prefix;
        let slot = pool_order[i];
        pool_list[at] = slot;
        var deepest = id_depth(pool_ids[slot]);
        for (var j = 1u; j < count; j += 1u) {
            let piece = pool_update[slot * UPDATE_WORDS + UPDATE_CHILDREN + j - 1u];
            pool_list[at + j] = piece;
            deepest = max(deepest, id_depth(pool_ids[piece]));
        }
        atomicMax(&wg_deepest, deepest);
    }
    workgroupBarrier();
    if (t == 0u) {
        atomicMax(&pool.counters.max_depth_reached, atomicLoad(&wg_deepest));
    }
}
