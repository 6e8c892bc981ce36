// The pool's split frame, first half (src/pool/split.rs has the CPU twin, pass for pass):
//   pool.classify_split  every leaf: reset its update; e² > T² wants a split; at max depth it is
//                        capped, else it is a candidate with bucket b and chain cost c, and
//                        histogram[b] += c
//   pool.threshold       one workgroup: b* = the lowest bucket whose suffix of the histogram fits
//                        the free slots; T_eff² and the merge target from b*
//   pool.mark            each candidate with b >= b* walks its chain of hypotenuse neighbours,
//                        ORing pattern bits; a walk stops where the pattern was already set
// Compact mode (`*_listed`): classify appends each candidate to LIST_CANDIDATES, mark runs over
// that list and appends every slot whose pattern it set from 0 (the candidate and the chain's
// members, each once: only the first OR sees 0) to LIST_ALLOCATIONS, which allocate and bisect
// run over: exactly the slots with a pattern, the only ones those passes act for.
//!include shared/pool_bindings.wgsl

// priority::bucket: the float-bit difference of e² and T², 16 buckets per octave.
fn priority_bucket(error_sq: f32, target_sq: f32) -> u32 {
    let difference = (bitcast<i32>(error_sq) - bitcast<i32>(target_sq)) >> BUCKET_SHIFT;
    return u32(clamp(difference, 0i, i32(BUCKET_COUNT) - 1i));
}

// The upper bound on the slots a chain from `slot` takes: 1, +1 for a same-depth hypotenuse
// neighbour (the chain ends), +2 per coarser one.
fn chain_cost(slot: u32) -> u32 {
    var cost = 1u;
    var current = slot;
    for (var step = 0u; step < 64u; step += 1u) {
        let twin = pool_neighbours[3u * current + POOL_EDGE];
        if (twin == NO_SLOT) {
            break;
        }
        if (slot_depth(twin) == slot_depth(current)) {
            cost += 1u;
            break;
        }
        cost += 2u;
        current = twin;
    }
    return cost;
}

// Classifies listed leaf i in `slot`: true when it is a split candidate.
fn classify_split_leaf(i: u32, slot: u32) -> bool {
    reset_update(slot);
    let id = pool_ids[slot];
    let error_sq = pool_leaf_error_sq_px2(i, slot);
    let target_sq = pool.params.target_sq_px2;
    // A NaN error never wants a split.
    if (!(error_sq > target_sq)) {
        return false;
    }
    atomicAdd(&pool.counters.wanted_split, 1u);
    if (id_depth(id) >= pool.params.max_depth) {
        atomicAdd(&pool.counters.capped_by_depth, 1u);
        return false;
    }
    let bucket = priority_bucket(error_sq, target_sq);
    atomicAdd(&pool.histogram[bucket], chain_cost(slot));
    update_store(slot, UPDATE_FLAGS, FLAG_CANDIDATE);
    update_store(slot, UPDATE_BUCKET, bucket);
    return true;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn classify_split(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i < pool.params.leaves) {
        _ = classify_split_leaf(i, pool_list[i]);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn classify_split_listed(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i >= pool.params.leaves) {
        return;
    }
    let slot = pool_list[i];
    if (classify_split_leaf(i, slot)) {
        list_push(LIST_CANDIDATES, slot);
    }
}

var<workgroup> wg_suffix: array<u32, 256>;
var<workgroup> wg_over: atomic<u32>;

// b* = the number of buckets whose suffix sum exceeds the free slots (the suffix sums fall
// with the bucket, so those are buckets 0..b*). Thread t holds buckets 4t..4t+3.
@compute @workgroup_size(256)
fn threshold(@builtin(local_invocation_index) t: u32) {
    let free = (1u << CBT_MAX_DEPTH) - cbt_node_count();
    var counts: array<u32, 4>;
    var sum = 0u;
    for (var k = 0u; k < 4u; k += 1u) {
        counts[k] = atomicLoad(&pool.histogram[4u * t + k]);
        sum += counts[k];
    }
    wg_suffix[t] = sum;
    workgroupBarrier();
    for (var offset = 1u; offset < 256u; offset <<= 1u) {
        var other = 0u;
        if (t + offset < 256u) {
            other = wg_suffix[t + offset];
        }
        workgroupBarrier();
        wg_suffix[t] += other;
        workgroupBarrier();
    }
    var suffix = wg_suffix[t];
    var over = 0u;
    for (var k = 0u; k < 4u; k += 1u) {
        if (suffix > free) {
            over += 1u;
        }
        suffix -= counts[k];
    }
    atomicAdd(&wg_over, over);
    workgroupBarrier();
    if (t == 0u) {
        let b = atomicLoad(&wg_over);
        pool.params.threshold_bucket = b;
        atomicStore(&pool.counters.threshold_bucket, b);
        let bits = min(bitcast<u32>(pool.params.target_sq_px2) + (b << BUCKET_SHIFT), 0x7f7fffffu);
        pool.params.effective_target_sq_px2 = bitcast<f32>(bits);
        pool.params.merge_target_sq_px2 = MERGE_RATIO_SQ * bitcast<f32>(bits);
    }
}

// ORs `bits` into the pattern of `slot`: true when it was 0 (this thread is the first setter),
// which then appends the slot to LIST_ALLOCATIONS when `listed`.
fn or_pattern(slot: u32, bits: u32, listed: bool) -> bool {
    let first = atomicOr(&pool_update[slot * UPDATE_WORDS + UPDATE_PATTERN], bits) == 0u;
    if (first && listed) {
        list_push(LIST_ALLOCATIONS, slot);
    }
    return first;
}

// The chain from `slot`: itself CENTER; a same-depth hypotenuse neighbour CENTER (the end); a
// coarser one CENTER | the side of its child along the requester, and on from it.
fn mark_chain(slot: u32, listed: bool) {
    if (!or_pattern(slot, SPLIT_CENTER, listed)) {
        return;
    }
    var current = slot;
    for (var step = 0u; step < 64u; step += 1u) {
        let twin = pool_neighbours[3u * current + POOL_EDGE];
        if (twin == NO_SLOT) {
            return;
        }
        if (slot_depth(twin) == slot_depth(current)) {
            _ = or_pattern(twin, SPLIT_CENTER, listed);
            return;
        }
        let side = select(SPLIT_RIGHT, SPLIT_LEFT, pool_neighbours[3u * twin + POOL_LEFT] == current);
        if (!or_pattern(twin, SPLIT_CENTER | side, listed)) {
            return;
        }
        current = twin;
    }
}

// A split candidate in `slot`: admitted (its chain marked) when its bucket is at least b*.
fn mark_candidate(slot: u32, listed: bool) {
    if (update_load(slot, UPDATE_BUCKET) >= pool.params.threshold_bucket) {
        atomicAdd(&pool.counters.admitted, 1u);
        mark_chain(slot, listed);
    } else {
        atomicAdd(&pool.counters.capped_by_pool, 1u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn mark(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i >= pool.params.leaves) {
        return;
    }
    let slot = pool_list[i];
    if ((update_load(slot, UPDATE_FLAGS) & FLAG_CANDIDATE) != 0u) {
        mark_candidate(slot, false);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn mark_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let count = listed_count(LIST_CANDIDATES);
    for (var j = grid_first(group, local); j < count; j += grid_stride(groups)) {
        mark_candidate(listed_slot(LIST_CANDIDATES, j), true);
    }
}
