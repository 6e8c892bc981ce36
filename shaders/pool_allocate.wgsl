// The pool's allocation, in slot order (the bit-exact mode of docs/design/bisector-pool.md 3.7,
// which the CPU twin's `allocate` is): leaf i of pool_list takes popcount(pattern) slots at
// ranks prefix(i) .. prefix(i) + popcount, the i-th exclusive prefix sum over the list, each
// rank turned into the rank-th free slot of the CBT as last reduced (`pool_free_slot`: from
// the free list after the draw list, or by a walk down the CBT past its end).
//   pool.alloc_sum   per workgroup of 256 leaves: the sum of their popcounts -> group_sums
//   pool.alloc_scan  one workgroup: group_sums -> their exclusive prefix; the total allocated
//   pool.allocate    per leaf: group prefix + workgroup prefix; child slots by decode
// Compact mode (`allocate_listed`, no alloc_sum or alloc_scan): each slot of LIST_ALLOCATIONS
// takes its ranks with one atomicAdd of popcount(pattern) on the slots-allocated counter, so the
// ranks (0 .. total, each once) and the set of slots allocated are the twin's, but which slot gets
// which depends on the threads' order.
//!include shared/pool_bindings.wgsl
//!include shared/workgroup_scan.wgsl


// Slots leaf i allocates (0 past the last leaf).
fn new_slots(i: u32) -> u32 {
    if (i >= pool.params.leaves) {
        return 0u;
    }
    return countOneBits(update_load(pool_list[i], UPDATE_PATTERN));
}

fn group_count() -> u32 {
    return (pool.params.leaves + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn alloc_sum(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = dispatch_group_index(group);
    let count = new_slots(g * WORKGROUP_SIZE + t);
    let prefix = workgroup_exclusive_scan(t, count);
    if (t == WORKGROUP_SIZE - 1u && g < group_count()) {
        atomicStore(&pool.group_sums[g], prefix + count);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn alloc_scan(@builtin(local_invocation_index) t: u32) {
    let groups = group_count();
    let per_thread = (groups + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    let first = min(t * per_thread, groups);
    let end = min(first + per_thread, groups);
    var sum = 0u;
    for (var g = first; g < end; g += 1u) {
        sum += atomicLoad(&pool.group_sums[g]);
    }
    var running = workgroup_exclusive_scan(t, sum);
    if (t == WORKGROUP_SIZE - 1u) {
        atomicStore(&pool.counters.slots_allocated, running + sum);
    }
    for (var g = first; g < end; g += 1u) {
        let value = atomicLoad(&pool.group_sums[g]);
        atomicStore(&pool.group_sums[g], running);
        running += value;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn allocate(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = dispatch_group_index(group);
    let i = g * WORKGROUP_SIZE + t;
    let count = new_slots(i);
    let prefix = workgroup_exclusive_scan(t, count);
    if (count == 0u) {
        return;
    }
    allocate_children(pool_list[i], atomicLoad(&pool.group_sums[g]) + prefix, count);
}

// The free slot of rank `rank` (in slot order) of the CBT as last reduced: from the free
// list where it holds the rank, else by a walk down the CBT.
fn pool_free_slot(rank: u32) -> u32 {
    if (rank < POOL_FREE_SLOTS_LISTED) {
        return pool_list[pool.params.leaves + rank];
    }
    return cbt_decode_pool_slot(rank, true);
}

// The children of a slot whose pattern allocates `count` slots from rank `rank` on.
fn allocate_children(slot: u32, rank: u32, count: u32) {
    for (var j = 0u; j < count; j += 1u) {
        update_store(slot, UPDATE_CHILDREN + j, pool_free_slot(rank + j));
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn allocate_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let count = listed_count(LIST_ALLOCATIONS);
    for (var j = grid_first(group, local); j < count; j += grid_stride(groups)) {
        let slot = listed_slot(LIST_ALLOCATIONS, j);
        let pieces = countOneBits(update_load(slot, UPDATE_PATTERN));
        allocate_children(slot, atomicAdd(&pool.counters.slots_allocated, pieces), pieces);
        // Its entry in the list becomes its 1 + pieces pieces (pool_order.wgsl).
        order_changed(slot);
        // The links bisect reads from the snapshot: the slot's and its three neighbours' (nothing
        // before bisect writes a link, so they are the frame's first; a slot copied by several
        // threads gets the same words). Here, not in mark, whose chain walks are serial.
        snapshot_links(slot);
        for (var field = 0u; field < 3u; field += 1u) {
            let other = pool_neighbours[3u * slot + field];
            if (other != NO_SLOT) {
                snapshot_links(other);
            }
        }
    }
}
