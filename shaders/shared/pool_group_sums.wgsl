// Prefix sums over the draw list by workgroups of 256 leaves (pool.alloc_sum/alloc_scan in
// pool_allocate.wgsl, pool.order_sum/order_scan in pool_order.wgsl): each workgroup's sum goes to
// pool.group_sums, one workgroup turns them into exclusive prefixes. Needs `pool` (PoolControl)
// bound and shared/workgroup_scan.wgsl.

// The workgroups of 256 over the listed leaves (pool.params.leaves, as the last pool.list wrote it).
fn pool_leaf_groups() -> u32 {
    return (pool.params.leaves + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
}

// Turns pool.group_sums[0, groups) into their exclusive prefixes (one workgroup; call in uniform
// control flow) and returns their total to thread WORKGROUP_SIZE - 1 (the others get a prefix).
fn pool_scan_group_sums(t: u32, groups: u32) -> u32 {
    let per_thread = (groups + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    let first = min(t * per_thread, groups);
    let end = min(first + per_thread, groups);
    var sum = 0u;
    for (var g = first; g < end; g += 1u) {
        sum += atomicLoad(&pool.group_sums[g]);
    }
    var running = workgroup_exclusive_scan(t, sum);
    let total = running + sum;
    for (var g = first; g < end; g += 1u) {
        let value = atomicLoad(&pool.group_sums[g]);
        atomicStore(&pool.group_sums[g], running);
        running += value;
    }
    return total;
}
