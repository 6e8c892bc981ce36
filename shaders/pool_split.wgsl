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
// run over: exactly the slots with a pattern, the only ones those passes act for. allocate copies
// the links bisect reads into the snapshot (shaders/pool_allocate.wgsl). classify does not reset every
// leaf's update record: every record is clean when a frame begins (upload writes them so, and
// pool.order's dispatch clears what the frame wrote, in the slots of both lists:
// shared/pool_lists.wgsl `clean_entry`). Nor has it a pool.threshold pass: classify also sums the
// histogram (PoolCounters::histogram_total), and each workgroup of mark_listed takes b* = 0 where
// that sum fits the free slots (the pool not full: every frame of the ship path), else scans the
// histogram itself (`listed_threshold`).
//!include shared/pool_bindings.wgsl
//!include shared/pool_free_list.wgsl

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

// The workgroup's share of the counters and of the histogram's first WORKGROUP_SIZE buckets (where
// almost every candidate falls: 16 buckets per octave of e² over T²) that classify_split adds to
// the pool's: one atomic per workgroup and bucket (classify_split_flush) instead of one per leaf
// that wants a split.
var<workgroup> wg_wanted_split: atomic<u32>;
var<workgroup> wg_capped_by_depth: atomic<u32>;
var<workgroup> wg_cost: atomic<u32>;
var<workgroup> wg_histogram: array<atomic<u32>, WORKGROUP_SIZE>;

// Classifies listed leaf i in `slot`: true when it is a split candidate. `reset`: clear its
// update record first (the bit-exact mode; the compact mode's records are clean already).
fn classify_split_leaf(i: u32, slot: u32, reset: bool) -> bool {
    if (reset) {
        reset_update(slot);
    }
    let id = pool_ids[slot];
    let error_sq = pool_leaf_error_sq_px2(i, slot);
    let target_sq = pool.params.target_sq_px2;
    // A NaN error never wants a split.
    if (!(error_sq > target_sq)) {
        return false;
    }
    atomicAdd(&wg_wanted_split, 1u);
    if (id_depth(id) >= pool.params.max_depth) {
        atomicAdd(&wg_capped_by_depth, 1u);
        return false;
    }
    let bucket = priority_bucket(error_sq, target_sq);
    let cost = chain_cost(slot);
    atomicAdd(&wg_cost, cost);
    if (bucket < WORKGROUP_SIZE) {
        atomicAdd(&wg_histogram[bucket], cost);
    } else {
        atomicAdd(&pool.histogram[bucket], cost);
    }
    update_store(slot, UPDATE_FLAGS, FLAG_CANDIDATE);
    update_store(slot, UPDATE_BUCKET, bucket);
    return true;
}

// Adds the workgroup's counts and histogram to the pool's, once every thread has classified its
// leaf. Call from every thread, in uniform control flow.
fn classify_split_flush(local: u32) {
    workgroupBarrier();
    let wanted = atomicLoad(&wg_wanted_split);
    // Most workgroups have no leaf that wants a split.
    if (wanted != 0u) {
        let cost = atomicLoad(&wg_histogram[local]);
        if (cost != 0u) {
            atomicAdd(&pool.histogram[local], cost);
        }
        if (local == 0u) {
            atomicAdd(&pool.counters.wanted_split, wanted);
            let total = atomicLoad(&wg_cost);
            if (total != 0u) {
                atomicAdd(&pool.counters.histogram_total, total);
            }
            let capped = atomicLoad(&wg_capped_by_depth);
            if (capped != 0u) {
                atomicAdd(&pool.counters.capped_by_depth, capped);
            }
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn classify_split(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i < pool.params.leaves) {
        _ = classify_split_leaf(i, pool_list[i], true);
    }
    classify_split_flush(local);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn classify_split_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let i = pool_thread_index(group, local);
    // The free list this frame's allocate reads, from the CBT the last frame reduced (pool.order
    // does not wait for the reduction, so it cannot list them).
    list_free_slots_strided(dispatch_group_index(group), groups.x * groups.y, local);
    order_clear(i, groups.x * groups.y * WORKGROUP_SIZE);
    var slot = NO_SLOT;
    var candidate = false;
    if (i < pool.params.leaves) {
        slot = pool_list[i];
        order_keep_entry(i, slot);
        candidate = classify_split_leaf(i, slot, false);
    }
    classify_split_flush(local);
    group_list_push(LIST_CANDIDATES, candidate, slot, local);
}

var<workgroup> wg_suffix: array<u32, 256>;
var<workgroup> wg_over: atomic<u32>;
var<workgroup> wg_threshold: u32;
var<workgroup> wg_must_scan: u32;

// The bit-exact mode's pool.threshold: one workgroup finds b* for mark.
@compute @workgroup_size(256)
fn threshold(@builtin(local_invocation_index) t: u32) {
    _ = threshold_scan(t, true);
}

// b* = the number of buckets whose suffix sum exceeds the free slots (the suffix sums fall
// with the bucket, so those are buckets 0..b*), for every thread of a workgroup of 256: thread t
// holds buckets 4t..4t+3. With `write`, thread 0 stores b* and the targets from it
// (`write_threshold`). Call from every thread, in uniform control flow.
fn threshold_scan(t: u32, write: bool) -> u32 {
    let free = pool_free_slots();
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
        wg_threshold = atomicLoad(&wg_over);
        if (write) {
            write_threshold(wg_threshold);
        }
    }
    return workgroupUniformLoad(&wg_threshold);
}

fn pool_free_slots() -> u32 {
    return (1u << CBT_MAX_DEPTH) - cbt_node_count();
}

// b* and the targets it gives, for mark and for the next merge frame.
fn write_threshold(b: u32) {
    pool.params.threshold_bucket = b;
    atomicStore(&pool.counters.threshold_bucket, b);
    let bits = min(bitcast<u32>(pool.params.target_sq_px2) + (b << BUCKET_SHIFT), 0x7f7fffffu);
    pool.params.effective_target_sq_px2 = bitcast<f32>(bits);
    pool.params.merge_target_sq_px2 = MERGE_RATIO_SQ * bitcast<f32>(bits);
}

// The compact mode's b*, found by each workgroup of mark_listed (no pass of its own: each costs
// its launch and barrier): 0 where every candidate's chain fits the free slots (the pool not
// full: the histogram's sum at most the free slots, so no suffix exceeds them), else the scan of
// the whole histogram (pool.threshold's). The sum is trusted while fewer than 2^24 leaves want a
// split (each chain costs at most 129 slots, so it cannot wrap). Workgroup 0 (`write`) stores b*.
// Call from every thread, in uniform control flow.
fn listed_threshold(t: u32, write: bool) -> u32 {
    if (t == 0u) {
        let fits = atomicLoad(&pool.counters.histogram_total) <= pool_free_slots();
        wg_must_scan = u32(!fits || atomicLoad(&pool.counters.wanted_split) >= (1u << 24u));
    }
    if (workgroupUniformLoad(&wg_must_scan) != 0u) {
        return threshold_scan(t, write);
    }
    if (write && t == 0u) {
        write_threshold(0u);
    }
    return 0u;
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

// A split candidate in `slot`: admitted (its chain marked, true) when its bucket is at least b*
// (`threshold`), else capped by the pool.
fn mark_candidate(slot: u32, listed: bool, threshold: u32) -> bool {
    if (update_load(slot, UPDATE_BUCKET) >= threshold) {
        mark_chain(slot, listed);
        return true;
    }
    return false;
}

var<workgroup> wg_admitted: atomic<u32>;
var<workgroup> wg_capped_by_pool: atomic<u32>;

// Adds a thread's admitted and capped candidates to the pool's counters, one atomic per workgroup
// (the pool full, 100 k candidates a frame are capped). Call from every thread, in uniform control
// flow.
fn mark_flush(local: u32, admitted: u32, capped: u32) {
    if (admitted != 0u) {
        atomicAdd(&wg_admitted, admitted);
    }
    if (capped != 0u) {
        atomicAdd(&wg_capped_by_pool, capped);
    }
    workgroupBarrier();
    if (local == 0u) {
        let a = atomicLoad(&wg_admitted);
        if (a != 0u) {
            atomicAdd(&pool.counters.admitted, a);
        }
        let c = atomicLoad(&wg_capped_by_pool);
        if (c != 0u) {
            atomicAdd(&pool.counters.capped_by_pool, c);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn mark(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    var admitted = 0u;
    var capped = 0u;
    if (i < pool.params.leaves) {
        let slot = pool_list[i];
        if ((update_load(slot, UPDATE_FLAGS) & FLAG_CANDIDATE) != 0u) {
            if (mark_candidate(slot, false, pool.params.threshold_bucket)) {
                admitted = 1u;
            } else {
                capped = 1u;
            }
        }
    }
    mark_flush(local, admitted, capped);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn mark_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let threshold = listed_threshold(local, group.x == 0u);
    let count = listed_count(LIST_CANDIDATES);
    var admitted = 0u;
    var capped = 0u;
    for (var j = grid_first(group, local); j < count; j += grid_stride(groups)) {
        if (mark_candidate(listed_slot(LIST_CANDIDATES, j), true, threshold)) {
            admitted += 1u;
        } else {
            capped += 1u;
        }
    }
    mark_flush(local, admitted, capped);
}
