// The leaf count (pool.list, pool.order). Needs the includer's `pool` (params and counters of
// PoolControl's layout) and `pool_args`.

// The leaf count into pool.params and pool.counters, and the dispatch arguments (x, y, z) of the
// next passes over the leaves. One thread.
fn set_leaf_count(leaves: u32) {
    pool.params.leaves = leaves;
    atomicStore(&pool.counters.leaves, leaves);
    let leaf_groups = (leaves + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    pool_args[0] = clamp(leaf_groups, 1u, MAX_GROUPS_X);
    pool_args[1] = max((leaf_groups + MAX_GROUPS_X - 1u) / MAX_GROUPS_X, 1u);
    pool_args[2] = 1u;
}
