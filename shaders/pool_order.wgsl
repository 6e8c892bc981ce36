// pool.order_gains, pool.order (compact mode; src/pool/gpu_passes.rs): the draw list in tree
// order, the leaves depth first by node id, kept from frame to frame, so that the leaves a
// workgroup takes lie side by side on the ground and share most of their vertices
// (globe.pool_decode samples each vertex once per workgroup) and their tiles. pool_order holds
// the last frame's list (pool.list copies it there). The passes that change a leaf set its slot's
// bit (shared/pool_order_codes.wgsl: allocate for a split, merge for the odd leaf of a merged
// pair). Entry i of the last list becomes:
//   its slot, where the leaf is unchanged (or kept its slot as the even leaf of a merge: the
//   survivor, whose parent's place in the order is its own);
//   nothing, where the slot was freed (changed, and no longer used in the CBT);
//   its pieces in tree order, where it split: its own slot (the first piece) and the slots it
//   allocated (child_slot 0.., in tree order: pool_bisect.wgsl `bisect_slot`).
// Both halves of a merged pair are adjacent in tree order, as are a leaf's pieces, so the list
// stays in tree order. Two passes of one thread per entry of the last list (the arguments
// pool.list wrote with it):
//   pool.order_gains  per workgroup of 256 entries: the entries they gain (wrapping: a freed one
//                     loses one) -> pool.group_sums
//   pool.order        each workgroup's first new entry is 256 per earlier workgroup plus their
//                     gains, each entry's the workgroup's plus the gains of the changed entries
//                     before it (a scan of the workgroup where more than SPARSE_CHANGES changed);
//                     with POOL_DEEPEST also the deepest leaf (reading every listed id; the
//                     globe's decode finds it instead)
// Both run after cbt.reduce and before pool.list, which clears the child slots, the gains and
// the changed bits.
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/workgroup_scan.wgsl
//!include shared/pool_order_codes.wgsl

@group(0) @binding(1) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read> pool_update: array<u32>;
@group(0) @binding(6) var<storage, read_write> pool_list: array<u32>;
// pool.control read with plain loads (PoolControl's layout; counters word 8 is max_depth_reached).
struct OrderControl {
    params: PoolParams,
    counters: array<atomic<u32>, 16>,
    histogram: array<u32, BUCKET_COUNT>,
    group_sums: array<u32>,
}
@group(0) @binding(7) var<storage, read_write> pool: OrderControl;
// The last frame's draw list (in tree order).
@group(0) @binding(10) var<storage, read> pool_order: array<u32>;

// Whether this pass finds the deepest leaf (pool.counters.max_depth_reached).
override POOL_DEEPEST: bool = true;

// At most this many changed entries in a workgroup: each thread adds theirs up; more: a scan.
const SPARSE_CHANGES: u32 = 32u;

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
    return 1u + countOneBits(pool_update[slot * UPDATE_WORDS + UPDATE_PATTERN]);
}

var<workgroup> wg_gained: atomic<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn order_gains(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = dispatch_group_index(group);
    let i = g * WORKGROUP_SIZE + t;
    let last = pool.params.leaves;
    if (i < last) {
        let gained = order_entries(pool_order[i]) - 1u;
        if (gained != 0u) {
            atomicAdd(&wg_gained, gained);
        }
    }
    workgroupBarrier();
    if (t == 0u && i < last) {
        pool.group_sums[g] = atomicLoad(&wg_gained);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn order(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = dispatch_group_index(group);
    let i = g * WORKGROUP_SIZE + t;
    let last = pool.params.leaves;
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
        slot = pool_order[i];
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
            let piece = pool_update[slot * UPDATE_WORDS + UPDATE_CHILDREN + j - 1u];
            pool_list[at + j] = piece;
            if (POOL_DEEPEST) {
                deepest = max(deepest, id_depth(pool_ids[piece]));
            }
        }
    }
    if (POOL_DEEPEST) {
        atomicMax(&wg_deepest, deepest);
        workgroupBarrier();
        if (t == 0u) {
            atomicMax(&pool.counters[8], atomicLoad(&wg_deepest));
        }
    }
}
