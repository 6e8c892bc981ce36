// The bindings of the pool's update passes (one layout for all of them, src/pool/gpu_passes.rs)
// and their accessors. Every pass over the leaves runs one thread per entry of pool_list, the used
// slots in slot order, dispatched indirectly on the args pool.list wrote. In the compact mode the
// passes after classify run over compact lists instead (`*_listed` entry points): a fixed number
// of workgroups whose threads loop over the list's entries with a grid stride.
//!include shared/pool_types.wgsl
//!include shared/hash.wgsl
//!include shared/pool_criterion.wgsl
//!include shared/cbt.wgsl
//!include shared/dispatch.wgsl
//!include shared/pool_lists.wgsl
//!include shared/pool_order_marks.wgsl

// The pool-mode CBT heap: bit s of the bitfield = slot s used.
@group(0) @binding(0) var<storage, read_write> cbt_heap: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> pool_ids: array<vec2<u32>>;
// (left, right, edge) per slot: the links, rewritten by bisect and merge.
@group(0) @binding(2) var<storage, read_write> pool_neighbours: array<u32>;
// The links as the frame began (copied before the first pass): what bisect and merge read.
@group(0) @binding(3) var<storage, read_write> pool_snapshot: array<u32>;
@group(0) @binding(4) var<storage, read_write> pool_vertices: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> pool_update: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pool_list: array<u32>;
@group(0) @binding(7) var<storage, read_write> pool: PoolControl;

fn cbt_load(word: u32) -> u32 {
    return atomicLoad(&cbt_heap[word]);
}

// The leaf index of a thread of a pass over the leaves (may be past the last leaf).
fn pool_thread_index(group: vec3<u32>, local: u32) -> u32 {
    return dispatch_group_index(group) * WORKGROUP_SIZE + local;
}

// Appends `slot` to compact list k (one atomicAdd; the order depends on the threads).
fn list_push(k: u32, slot: u32) {
    let at = atomicAdd(&pool.counters.listed[k], 1u);
    pool_list[list_base(k) + at] = slot;
}

var<workgroup> wg_push_count: atomic<u32>;
var<workgroup> wg_push_base: u32;

// Appends `slot` to compact list k for each thread of the workgroup whose `push` is true, with one
// atomicAdd on the list's count per workgroup (a pass over every leaf that lists 100 k of them
// would otherwise queue 100 k atomics on one word). Call from every thread of the workgroup, in
// uniform control flow: it holds two barriers.
fn group_list_push(k: u32, push: bool, slot: u32, local: u32) {
    var at = 0u;
    if (push) {
        at = atomicAdd(&wg_push_count, 1u);
    }
    workgroupBarrier();
    if (local == 0u) {
        let count = atomicLoad(&wg_push_count);
        if (count != 0u) {
            wg_push_base = atomicAdd(&pool.counters.listed[k], count);
        }
    }
    workgroupBarrier();
    if (push) {
        pool_list[list_base(k) + wg_push_base + at] = slot;
    }
}

// The first list entry of a thread of a compact pass (a 1D dispatch) and the stride between its
// entries: all the dispatch's threads.
fn grid_first(group: vec3<u32>, local: u32) -> u32 {
    return group.x * WORKGROUP_SIZE + local;
}

fn grid_stride(groups: vec3<u32>) -> u32 {
    return groups.x * WORKGROUP_SIZE;
}

// The slots allocated for the pieces after the first, in tree order.
fn child_slot(slot: u32, j: u32) -> u32 {
    return update_load(slot, UPDATE_CHILDREN + j);
}

fn slot_depth(slot: u32) -> u32 {
    return id_depth(pool_ids[slot]);
}

fn load_vertices(slot: u32) -> array<vec4<u32>, 3> {
    return array<vec4<u32>, 3>(pool_vertices[3u * slot], pool_vertices[3u * slot + 1u], pool_vertices[3u * slot + 2u]);
}

fn store_vertices(slot: u32, v: array<vec4<u32>, 3>) {
    pool_vertices[3u * slot] = v[0];
    pool_vertices[3u * slot + 1u] = v[1];
    pool_vertices[3u * slot + 2u] = v[2];
}

// Marks `slot` used or free in the CBT's bitfield (the counts follow at the next cbt.reduce).
fn set_slot_used(slot: u32, used: bool) {
    let bit = cbt_bitfield_bit(cbt_slot_node(slot));
    let mask = 1u << (bit & 31u);
    if (used) {
        atomicOr(&cbt_heap[bit >> 5u], mask);
    } else {
        atomicAnd(&cbt_heap[bit >> 5u], ~mask);
    }
}

// Copies the links of `slot` to the snapshot (compact mode's pool.snapshot). Several threads may
// copy one slot (a neighbour of two listed slots): they write the same words, read from links that
// no thread of that pass writes.
fn snapshot_links(slot: u32) {
    for (var field = 0u; field < 3u; field += 1u) {
        pool_snapshot[3u * slot + field] = pool_neighbours[3u * slot + field];
    }
}

// Which of `slot`'s fields, in the snapshot, names `other` (the first one).
fn snapshot_field(slot: u32, other: u32) -> u32 {
    for (var field = 0u; field < 3u; field += 1u) {
        if (pool_snapshot[3u * slot + field] == other) {
            return field;
        }
    }
    return 3u;
}

fn reset_update(slot: u32) {
    update_store(slot, UPDATE_PATTERN, 0u);
    update_store(slot, UPDATE_CHILDREN, NO_SLOT);
    update_store(slot, UPDATE_CHILDREN + 1u, NO_SLOT);
    update_store(slot, UPDATE_CHILDREN + 2u, NO_SLOT);
    update_store(slot, UPDATE_SURVIVOR, slot);
    update_store(slot, UPDATE_FLAGS, 0u);
    update_store(slot, UPDATE_BUCKET, 0u);
}
