// pool.order (compact mode; src/pool/gpu_passes.rs): the draw list in tree order, the leaves depth
// first by node id, kept from frame to frame, so that the leaves a workgroup takes lie side by
// side on the ground and share most of their vertices (globe.pool_decode samples each vertex once
// per workgroup) and their tiles. The frame's classify copied the last frame's list to
// pool_list's entries [3N, 4N), and its bisect or merge summed each workgroup's gains into
// pool.group_sums (shared/pool_order_marks.wgsl), from the bits of the slots whose leaf changed
// (allocate: a split; elect: the odd leaf of a merged pair). Entry i of the last list becomes:
//   its slot, where the leaf is unchanged (or kept its slot as the even leaf of a merge: the
//   survivor, whose parent's place in the order is its own);
//   nothing, where the slot was freed (changed, and no longer used in the CBT);
//   its pieces in tree order, where it split: its own slot (the first piece) and the slots it
//   allocated (child_slot 0.., in tree order: pool_bisect.wgsl `bisect_slot`).
// Both halves of a merged pair are adjacent in tree order, as are a leaf's pieces, so the list
// stays in tree order. Workgroup g takes the last list's entries 256 g.. (a fixed dispatch of one
// thread per slot: the pass writes the arguments the passes over the leaves are dispatched
// with): its first new entry is 256 per earlier workgroup plus their gains, each entry's the
// workgroup's plus the gains of the changed entries before it (a scan of the workgroup where more
// than SPARSE_CHANGES changed). With POOL_DEEPEST also the deepest leaf (reading every listed id;
// the globe's decode finds it instead). Runs after cbt.reduce, and does what pool.list does in
// the bit-exact mode, so that the frame has one pass after the reduction: the leaf count and the
// arguments, the free list (shared/pool_free_list.wgsl), and the update words the frame wrote
// cleared (shared/pool_lists.wgsl `clean_entry`; a slot that split by the thread that reads it).
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/workgroup_scan.wgsl
//!include shared/pool_lists.wgsl
//!include shared/pool_order_codes.wgsl
//!include shared/pool_free_list.wgsl

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

@compute @workgroup_size(WORKGROUP_SIZE)
fn order(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) groups: vec3<u32>) {
    let g = dispatch_group_index(group);
    let i = g * WORKGROUP_SIZE + t;
    // The first 2^(D-5) threads, one per bitfield word, list its free slots; thread 0 also the
    // count and arguments.
    let words = 1u << (CBT_MAX_DEPTH - 5u);
    if (g * WORKGROUP_SIZE < words) {
        let leaves = cbt_node_count();
        if (i == 0u) {
            set_leaf_count(leaves);
        }
        let used_before = used_slots_before_word_scanned(g, t);
        if (i < words) {
            list_free_slots(i, used_before, leaves);
        }
    }
    let last = pool.params.last_leaves;
    if (t == 0u) {
        wg_counts = listed_counts();
        wg_listing = u32(g * WORKGROUP_SIZE < last);
    }
    let counts = workgroupUniformLoad(&wg_counts);
    let threads = groups.x * groups.y * WORKGROUP_SIZE;
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
