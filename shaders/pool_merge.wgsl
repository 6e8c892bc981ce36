// The pool's merge frame (src/pool/merge.rs has the CPU twin, pass for pass):
//   pool.classify_merge  every leaf: reset its update; an even leaf below the base depth whose
//                        sibling is a leaf too (its right neighbour) is in merge state when the
//                        criterion on their parent is at most the merge target; the odd sibling
//                        takes no criterion (its parent is the same: the even one decides for both)
//   pool.elect           even leaf c0 in merge state: its sibling c1 = c0's right neighbour, the
//                        facing pair q1 = c0's left and q0 = c1's right neighbour, all four of one
//                        depth, c0 and q0 in merge state; the smaller id of c0 and q0 elects and
//                        marks the four merged, each odd child's survivor its even sibling's slot
//   pool.merge           each merged even leaf e (odd sibling o = its right neighbour in the
//                        snapshot) becomes the parent: id / 2, vertices from child 0, links
//                        (survivor(e's hypotenuse neighbour), survivor(o's), survivor(e's left));
//                        o's slot is freed, and an unmerged leaf across o's hypotenuse names e
// Compact mode (`*_listed`): classify appends the even leaves in merge state (the only ones elect
// acts for) to LIST_MERGE, elect runs over them and appends the even leaves of each elected
// diamond (c0, and q0 when there is one; each once, by the one electing thread) to LIST_MERGED,
// which merge runs over: exactly the slots it acts for. merge reads the snapshot of e, of o and
// of the leaf across o's hypotenuse only, so elect copies the links of those slots alone as it
// lists e (`mark_merged`; nothing before merge writes a link). classify does not reset every
// leaf's update record there (see pool_split.wgsl; pool.order's dispatch clears the words
// classify and elect wrote, in LIST_MERGE's slots and each of LIST_MERGED's odd siblings).
//!include shared/pool_bindings.wgsl

const NO_ID: vec2<u32> = vec2<u32>(0u, 0u);

// Classifies listed leaf i in `slot`: true when it is in merge state. `reset`: clear its update
// record first (the bit-exact mode; the compact mode's records are clean already).
fn classify_merge_leaf(i: u32, slot: u32, reset: bool) -> bool {
    if (reset) {
        reset_update(slot);
    }
    let id = pool_ids[slot];
    if ((id.x & 1u) != 0u || id_depth(id) <= pool.params.base_depth) {
        return false;
    }
    // Only a pair of leaves merges: the even child decides when its sibling is its right neighbour.
    let sibling = pool_neighbours[3u * slot + POOL_RIGHT];
    if (sibling == NO_SLOT || !id_equal(pool_ids[sibling], vec2<u32>(id.x | 1u, id.y))) {
        return false;
    }
    if (pool_parent_error_sq_px2(i, slot) <= pool.params.merge_target_sq_px2) {
        update_store(slot, UPDATE_FLAGS, FLAG_MERGE);
        return true;
    }
    return false;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn classify_merge(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i < pool.params.leaves) {
        _ = classify_merge_leaf(i, pool_list[i], true);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn classify_merge_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = pool_thread_index(group, local);
    order_clear(i, groups.x * groups.y * WORKGROUP_SIZE);
    var slot = NO_SLOT;
    var merge = false;
    if (i < pool.params.leaves) {
        slot = pool_list[i];
        order_keep_entry(i, slot);
        merge = classify_merge_leaf(i, slot, false);
    }
    group_list_push(LIST_MERGE, merge, slot, local);
}

fn in_merge_state(slot: u32) -> bool {
    return (update_load(slot, UPDATE_FLAGS) & FLAG_MERGE) != 0u;
}

// Marks a pair merged (the odd child survives in the even one's slot); when `listed`, appends the
// even one to LIST_MERGED and copies the links merge will read from the snapshot: the even leaf's,
// the odd one's and those of the leaf across the odd one's hypotenuse (nothing before merge writes
// a link, so these are the frame's first links; a slot copied twice gets the same words).
fn mark_merged(even: u32, odd: u32, listed: bool) {
    atomicOr(&pool_update[even * UPDATE_WORDS + UPDATE_FLAGS], FLAG_MERGED);
    atomicOr(&pool_update[odd * UPDATE_WORDS + UPDATE_FLAGS], FLAG_MERGED);
    update_store(odd, UPDATE_SURVIVOR, even);
    if (listed) {
        // The odd leaf's entry leaves the draw list (the even one's now holds their parent).
        order_changed(odd);
        list_push(LIST_MERGED, even);
        snapshot_links(even);
        snapshot_links(odd);
        let outside = pool_neighbours[3u * odd + POOL_EDGE];
        if (outside != NO_SLOT) {
            snapshot_links(outside);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn elect(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i < pool.params.leaves) {
        elect_from(pool_list[i], false);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn elect_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let count = listed_count(LIST_MERGE);
    for (var j = grid_first(group, local); j < count; j += grid_stride(groups)) {
        elect_from(listed_slot(LIST_MERGE, j), true);
    }
}

// The election of the diamond of even leaf c0 (nothing for an odd leaf or one not in merge state).
fn elect_from(c0: u32, listed: bool) {
    let id = pool_ids[c0];
    if ((id.x & 1u) != 0u || !in_merge_state(c0)) {
        return;
    }
    let c1 = pool_neighbours[3u * c0 + POOL_RIGHT];
    // c1's merge state is c0's: classify decided for the pair (and only with c1 a leaf).
    if (c1 == NO_SLOT || !id_equal(pool_ids[c1], vec2<u32>(id.x | 1u, id.y))) {
        return;
    }
    let q1 = pool_neighbours[3u * c0 + POOL_LEFT];
    let q0 = pool_neighbours[3u * c1 + POOL_RIGHT];
    if (q1 == NO_SLOT && q0 == NO_SLOT) {
        mark_merged(c0, c1, listed);
        atomicAdd(&pool.counters.diamonds_merged, 1u);
        return;
    }
    if (q1 == NO_SLOT || q0 == NO_SLOT) {
        return;
    }
    let q0_id = pool_ids[q0];
    let q1_id = pool_ids[q1];
    let facing_pair = (q0_id.x & 1u) == 0u && id_equal(q1_id, vec2<u32>(q0_id.x | 1u, q0_id.y)) && id_depth(q0_id) == id_depth(id);
    if (facing_pair && in_merge_state(q0) && id_less(id, q0_id)) {
        mark_merged(c0, c1, listed);
        mark_merged(q0, q1, listed);
        atomicAdd(&pool.counters.diamonds_merged, 1u);
    }
}

fn survivor_of(slot: u32) -> u32 {
    if (slot == NO_SLOT) {
        return NO_SLOT;
    }
    return update_load(slot, UPDATE_SURVIVOR);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i >= pool.params.leaves) {
        return;
    }
    let e = pool_list[i];
    if ((update_load(e, UPDATE_FLAGS) & FLAG_MERGED) != 0u && update_load(e, UPDATE_SURVIVOR) == e) {
        merge_into(e);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn merge_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let count = listed_count(LIST_MERGED);
    for (var j = grid_first(group, local); j < count; j += grid_stride(groups)) {
        merge_into(listed_slot(LIST_MERGED, j));
    }
    order_gains(grid_first(group, local), grid_stride(groups), false);
}

// Merged even leaf e becomes its parent; its odd sibling's slot is freed.
fn merge_into(e: u32) {
    let o = pool_snapshot[3u * e + POOL_RIGHT];
    store_vertices(e, parent_of_child0_vertices(load_vertices(e)));
    pool_ids[e] = id_parent(pool_ids[e]);
    pool_ids[o] = NO_ID;
    set_slot_used(o, false);
    pool_neighbours[3u * e + POOL_LEFT] = survivor_of(pool_snapshot[3u * e + POOL_EDGE]);
    pool_neighbours[3u * e + POOL_RIGHT] = survivor_of(pool_snapshot[3u * o + POOL_EDGE]);
    pool_neighbours[3u * e + POOL_EDGE] = survivor_of(pool_snapshot[3u * e + POOL_LEFT]);
    let outside = pool_snapshot[3u * o + POOL_EDGE];
    if (outside != NO_SLOT && (update_load(outside, UPDATE_FLAGS) & FLAG_MERGED) == 0u) {
        pool_neighbours[3u * outside + snapshot_field(outside, o)] = e;
    }
    atomicAdd(&pool.counters.slots_freed, 1u);
}
