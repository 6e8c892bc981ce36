// Where the compact pool's frame keeps what pool.order reads (pool_order.wgsl), in pool.group_sums:
// the entries each workgroup of 256 entries of the last draw list gains (wrapping: a freed entry
// loses one; words [0, 2^D / 256)), then a bit per slot, set by the passes that change a leaf
// (allocate: it split; elect: the odd leaf of a pair it merges, freed by merge), so that pool.order
// reads it from a small array (2^D / 8 bytes) the caches hold. The frame's classify clears both,
// its bisect or merge sums the gains (shared/pool_order_marks.wgsl). Needs shared/cbt.wgsl
// (CBT_MAX_DEPTH; the pool has 2^D slots, D >= 8).

// Index in pool.group_sums of the changed bits' first word.
fn order_changed_base() -> u32 {
    return 1u << (CBT_MAX_DEPTH - 8u);
}

// The words of the gains and the changed bits.
fn order_words() -> u32 {
    return order_changed_base() + (1u << (CBT_MAX_DEPTH - 5u));
}
