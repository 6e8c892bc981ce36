// The compact pool's update passes' part of pool.order (shared/pool_order_codes.wgsl): classify
// clears the gains and changed bits and copies the draw list to the last list's entries (as it
// reads each entry), allocate and elect mark changed slots, and the frame's last update pass
// (bisect or merge), once every changed bit is set, sums each workgroup's gains, so that
// pool.order is one pass. Included by shared/pool_bindings.wgsl (PoolControl's atomics,
// pool_list, pool_update).
//!include shared/pool_order_codes.wgsl

// Marks `slot` changed: it split (allocate) or will be freed by the merge (elect).
fn order_changed(slot: u32) {
    atomicOr(&pool.group_sums[order_changed_base() + (slot >> 5u)], 1u << (slot & 31u));
}

// Entry i of the draw list, in `slot`, copied to the last list that pool.order reads (classify,
// as it reads the entry; pool.order then writes the new list over the draw list).
fn order_keep_entry(i: u32, slot: u32) {
    pool_list[last_list_base() + i] = slot;
}

// The gains and changed bits cleared, thread `first` of `stride` (classify, before any is set).
fn order_clear(first: u32, stride: u32) {
    for (var j = first; j < order_words(); j += stride) {
        atomicStore(&pool.group_sums[j], 0u);
    }
}

// Thread `first` of `stride`: for its entries of the draw list (the last frame's: pool.order has
// not run), the gain of each changed one added to its workgroup's: a split
// leaf becomes 1 + its pattern's pieces (`split`), a merged odd leaf none (in a merge frame, whose
// merge frees it in this pass: so the gain comes from the frame's kind, not the CBT's bit).
fn order_gains(first: u32, stride: u32, split: bool) {
    let last = pool.params.leaves;
    if (first == 0u) {
        pool.params.last_leaves = last;
    }
    for (var i = first; i < last; i += stride) {
        let slot = pool_list[i];
        let changed = atomicLoad(&pool.group_sums[order_changed_base() + (slot >> 5u)]);
        if (((changed >> (slot & 31u)) & 1u) != 0u) {
            let gain = select(0xffffffffu, countOneBits(update_load(slot, UPDATE_PATTERN)), split);
            atomicAdd(&pool.group_sums[i >> 8u], gain);
        }
    }
}
