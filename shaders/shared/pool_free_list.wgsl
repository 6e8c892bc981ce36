// What the pass that lists the leaves writes besides the draw list (pool.list in slot order,
// pool.order in the compact mode's tree order): the leaf count with the indirect arguments of the
// next passes over the leaves, and the free list (shared/pool_lists.wgsl). Needs the includer's
// `pool` (params and counters of PoolControl's layout), `pool_list`, `pool_args` and the CBT heap
// read through shared/cbt_heap_read.wgsl, after cbt.reduce.
//!include shared/workgroup_scan.wgsl

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

// The used slots before node `index` of depth `depth` of the CBT: the reduced counts walked from
// the root, adding each left sibling's count where the path goes right.
fn used_slots_before(index: u32, depth: u32) -> u32 {
    var node = CbtNode(1u, 0u);
    var rank = 0u;
    for (var d = 0u; d < depth; d += 1u) {
        let left = cbt_left_child(node);
        if (((index >> (depth - 1u - d)) & 1u) != 0u) {
            rank += cbt_heap_read(left);
            node = cbt_right_child(node);
        } else {
            node = left;
        }
    }
    return rank;
}

// The used slots before bitfield word w (one thread's walk of D - 5 levels).
fn used_slots_before_word(w: u32) -> u32 {
    return used_slots_before(w, CBT_MAX_DEPTH - 5u);
}

// The used slots before bitfield word 256 g + t, for thread t of workgroup g of 256 (call from
// every thread of a workgroup whose words exist, in uniform control flow): the walk to the
// workgroup's 256 words, 8 levels shorter than used_slots_before_word's, plus a scan of their
// popcounts. pool.order's free list: the walk is a chain of dependent loads, one a level.
fn used_slots_before_word_scanned(g: u32, t: u32) -> u32 {
    let word_depth = CBT_MAX_DEPTH - 5u;
    let w = g * 256u + t;
    var used = 0u;
    if (w < (1u << word_depth)) {
        used = countOneBits(slot_word(w));
    }
    let before = workgroup_exclusive_scan(t, used);
    return used_slots_before(g, max(word_depth, 8u) - 8u) + before;
}

// The bitfield word w (32 slots, bit s = slot 32 w + s used).
fn slot_word(w: u32) -> u32 {
    return cbt_load((3u << (CBT_MAX_DEPTH - 5u)) + w);
}

// The free list's entries of word w's free slots, `used_before` of the slots before it used (of
// `leaves` in all): the first POOL_FREE_SLOTS_LISTED free slots go after the draw list.
fn list_free_slots(w: u32, used_before: u32, leaves: u32) {
    var free_rank = 32u * w - used_before;
    if (free_rank >= POOL_FREE_SLOTS_LISTED) {
        return;
    }
    var free_bits = ~slot_word(w);
    while (free_bits != 0u && free_rank < POOL_FREE_SLOTS_LISTED) {
        pool_list[leaves + free_rank] = 32u * w + firstTrailingBit(free_bits);
        free_rank += 1u;
        free_bits &= free_bits - 1u;
    }
}
