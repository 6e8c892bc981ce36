// The free list (shared/pool_lists.wgsl): the first free slots in slot order, found from the
// reduced CBT (pool.list after an upload and in the bit-exact mode; in the compact mode the
// split frame's classify, from the CBT the last frame reduced: pool.order does not wait for the
// reduction). Needs the includer's `pool` (params of PoolControl's layout), `pool_list` and
// `cbt_load` (shared/cbt_heap_read.wgsl or shared/pool_bindings.wgsl).
//!include shared/workgroup_scan.wgsl

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
// popcounts. The compact mode's free list: the walk is a chain of dependent loads, one a level.
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

// The free list of the compact mode's split frame, by workgroup `g` of `groups` (thread t): each
// takes 256-word blocks of the bitfield with a grid stride. Call from every thread of the
// workgroup, in uniform control flow (a scan a block).
fn list_free_slots_strided(g: u32, groups: u32, t: u32) {
    let words = 1u << (CBT_MAX_DEPTH - 5u);
    let blocks = (words + 255u) / 256u;
    let leaves = pool.params.leaves;
    for (var b = g; b < blocks; b += groups) {
        let used_before = used_slots_before_word_scanned(b, t);
        let w = b * 256u + t;
        if (w < words) {
            list_free_slots(w, used_before, leaves);
        }
    }
}
