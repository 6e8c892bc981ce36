// The changed slots of a compact pool's frame (pool_order.wgsl): a bit per slot, set by the
// passes that change a leaf (allocate: it split; merge: the odd leaf of a merged pair, now free),
// kept in pool.group_sums after the 2^D / 256 workgroup sums, so that pool.order reads it from a
// small array (2^D / 8 bytes) the caches hold. pool.list clears both. Needs `pool` (PoolControl)
// bound and shared/cbt.wgsl (CBT_MAX_DEPTH; the pool has 2^D slots, D >= 8).

// Index in pool.group_sums of the changed bits' first word.
fn order_changed_base() -> u32 {
    return 1u << (CBT_MAX_DEPTH - 8u);
}
