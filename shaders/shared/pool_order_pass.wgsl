// pool.order's workgroup (pool_order.wgsl describes the pass): `order_group`, for
// pool_order.wgsl's dispatch and for pool_order_reduce.wgsl, which runs it beside the CBT's
// reduction. Its bindings are group 0's; the includer chooses how the CBT heap is bound (`cbt_load`:
// shared/cbt_heap_read.wgsl or shared/cbt_heap_atomic.wgsl).
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/dispatch.wgsl
//!include shared/workgroup_scan.wgsl
//!include shared/pool_lists.wgsl
//!include shared/pool_order_codes.wgsl
//!include shared/pool_leaf_count.wgsl

@group(0) @binding(1) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> pool_snapshot: array<u32>;
@group(0) @binding(5) var<storage, read_write> pool_update: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pool_list: array<u32>;
// pool.control with the gains and changed bits read by plain loads (PoolControl's layout).
struct OrderControl {
    params: PoolParams,
    counters: PoolCounters,
    histogram: array<u32, BUCKET_COUNT>,
    group_sums: array<u32>,
}
@group(0) @binding(7) var<storage, read_write> pool: OrderControl;
// Dispatch arguments (x, y, z) of the passes over the leaves.
@group(0) @binding(9) var<storage, read_write> pool_args: array<u32>;

// Whether this pass finds the deepest leaf (pool.counters.max_depth_reached).
override POOL_DEEPEST: bool = true;

// At most this many changed entries in a workgroup: each thread adds theirs up; more: a scan.
const SPARSE_CHANGES: u32 = 32u;

var<workgroup> wg_counts: vec4<u32>;
var<workgroup> wg_listing: u32;
var<workgroup> wg_gained_before: atomic<u32>;
var<workgroup> wg_changes: atomic<u32>;
var<workgroup> wg_change_count: u32;
var<workgroup> wg_change_thread: array<u32, WORKGROUP_SIZE>;
var<workgroup> wg_change_gain: array<u32, WORKGROUP_SIZE>;
var<workgroup> wg_deepest: atomic<u32>;

// The entries the leaf that was in `slot` makes this frame.
fn order_entries(slot: u32) -> u32 {
    let changed = pool.group_sums[order_changed_base() + (slot >> 5u)];
    if (((changed >> (slot & 31u)) & 1u) == 0u) {
        return 1u;
    }
    if (!cbt_is_slot_used(slot)) {
        return 0u;
    }
    return 1u + countOneBits(update_load(slot, UPDATE_PATTERN));
}

// Workgroup `g` of the pass's `groups` (thread t). Call from every thread of the workgroup, in
// uniform control flow.
fn order_group(g: u32, t: u32, groups: u32) {
    let i = g * WORKGROUP_SIZE + t;
    // The leaf count and arguments: the last list's leaves, plus the slots the frame allocated,
    // less those it freed (the CBT's root once reduced; this pass does not wait for the reduction).
    if (i == 0u) {
        set_leaf_count(pool.params.last_leaves + atomicLoad(&pool.counters.slots_allocated) - atomicLoad(&pool.counters.slots_freed));
    }
    let last = pool.params.last_leaves;
    if (t == 0u) {
        wg_counts = listed_counts();
        wg_listing = u32(g * WORKGROUP_SIZE < last);
    }
    let counts = workgroupUniformLoad(&wg_counts);
    let threads = groups * WORKGROUP_SIZE;
    for (var j = i; j < counts.x + counts.y + counts.z + counts.w; j += threads) {
        clean_entry(j, counts);
    }
    if (workgroupUniformLoad(&wg_listing) == 0u) {
        return;
    }
    var gained = 0u;
    for (var h = t; h < g; h += WORKGROUP_SIZE) {
        gained += pool.group_sums[h];
    }
    if (gained != 0u) {
        atomicAdd(&wg_gained_before, gained);
    }
    var slot = 0u;
    var count = 0u;
    if (i < last) {
        slot = pool_list[last_list_base() + i];
        count = order_entries(slot);
        if (count != 1u) {
            let k = atomicAdd(&wg_changes, 1u);
            wg_change_thread[k] = t;
            wg_change_gain[k] = count - 1u;
        }
    }
    workgroupBarrier();
    if (t == 0u) {
        wg_change_count = atomicLoad(&wg_changes);
    }
    let changes = workgroupUniformLoad(&wg_change_count);
    var prefix = t;
    if (changes <= SPARSE_CHANGES) {
        for (var k = 0u; k < changes; k += 1u) {
            if (wg_change_thread[k] < t) {
                prefix += wg_change_gain[k];
            }
        }
    } else {
        prefix = workgroup_exclusive_scan(t, count);
    }
    let at = g * WORKGROUP_SIZE + atomicLoad(&wg_gained_before) + prefix;
    var deepest = 0u;
    if (count != 0u) {
        pool_list[at] = slot;
        if (POOL_DEEPEST) {
            deepest = id_depth(pool_ids[slot]);
        }
        for (var j = 1u; j < count; j += 1u) {
            let piece = update_load(slot, UPDATE_CHILDREN + j - 1u);
            pool_list[at + j] = piece;
            if (POOL_DEEPEST) {
                deepest = max(deepest, id_depth(pool_ids[piece]));
            }
        }
        if (count > 1u) {
            clean_split(slot);
        }
    }
    if (POOL_DEEPEST) {
        atomicMax(&wg_deepest, deepest);
        workgroupBarrier();
        if (t == 0u) {
            atomicMax(&pool.counters.max_depth_reached, atomicLoad(&wg_deepest));
        }
    }
}
