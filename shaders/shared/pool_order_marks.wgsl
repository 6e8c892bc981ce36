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
// Four entries a round, their slots and changed words loaded together: the rounds are
// independent, and each costs the latency of its two dependent loads, so a thread of the pass's
// few hundred workgroups waits for two rounds of loads instead of about seven (the ship path).
fn order_gains(first: u32, stride: u32, split: bool) {
    let last = pool.params.leaves;
    if (first == 0u) {
        pool.params.last_leaves = last;
    }
    if (last == 0u) {
        return;
    }
    for (var i = first; i < last; i += 4u * stride) {
        // Entries past the list read its last one, and are not counted.
        let j = vec3<u32>(i + stride, i + 2u * stride, i + 3u * stride);
        let k = min(j, vec3<u32>(last - 1u));
        let s0 = pool_list[i];
        let s1 = pool_list[k.x];
        let s2 = pool_list[k.y];
        let s3 = pool_list[k.z];
        let c0 = order_changed_word(s0);
        let c1 = order_changed_word(s1);
        let c2 = order_changed_word(s2);
        let c3 = order_changed_word(s3);
        order_gain(i, s0, c0, split);
        if (j.x < last) {
            order_gain(j.x, s1, c1, split);
        }
        if (j.y < last) {
            order_gain(j.y, s2, c2, split);
        }
        if (j.z < last) {
            order_gain(j.z, s3, c3, split);
        }
    }
}

// The word of the changed bits that holds `slot`'s.
fn order_changed_word(slot: u32) -> u32 {
    return atomicLoad(&pool.group_sums[order_changed_base() + (slot >> 5u)]);
}

// Entry i's gain added to its workgroup's where its slot's bit in `changed` (its word) is set.
fn order_gain(i: u32, slot: u32, changed: u32, split: bool) {
    if (((changed >> (slot & 31u)) & 1u) != 0u) {
        let gain = select(0xffffffffu, countOneBits(update_load(slot, UPDATE_PATTERN)), split);
        atomicAdd(&pool.group_sums[i >> 8u], gain);
    }
}
