// pool.list: the used slots in slot order, by bitfield word (docs/design/bisector-pool.md 3.2):
// one thread per 32-bit word finds the used slots before its word by walking the reduced counts
// from the root, then writes the slot of each set bit, and the first free slots after the list
// (the free list, shared/pool_free_list.wgsl). It equals decode_used_slot(i) for every i. Thread 0
// stores the leaf count and the indirect arguments of the next frame's passes over the leaves.
// The bit-exact mode lists every frame so; the compact mode (TREE_ORDER) only after an upload
// (which wrote the draw list in tree order), and then writes the count and the free list alone:
// its frames list in pool.order (pool_order.wgsl). (One thread per slot, a warp writing a run of
// the list, took twice as long: BENCHMARKS.md run 47.)
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/pool_lists.wgsl
//!include shared/pool_free_list.wgsl
//!include shared/pool_leaf_count.wgsl

@group(0) @binding(1) var<storage, read> pool_ids: array<vec2<u32>>;
// Declared for shared/pool_lists.wgsl; not read here.
@group(0) @binding(3) var<storage, read> pool_snapshot: array<u32>;
@group(0) @binding(5) var<storage, read_write> pool_update: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pool_list: array<u32>;
@group(0) @binding(7) var<storage, read_write> pool: PoolControl;
// Dispatch arguments (x, y, z) of the passes over the leaves.
@group(0) @binding(9) var<storage, read_write> pool_args: array<u32>;

// Whether the draw list is kept in tree order (pool_order.wgsl) rather than listed in slot order.
override TREE_ORDER: bool = false;

@compute @workgroup_size(WORKGROUP_SIZE)
fn list(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let w = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (w >= (1u << (CBT_MAX_DEPTH - 5u))) {
        return;
    }
    let leaves = cbt_node_count();
    if (w == 0u) {
        set_leaf_count(leaves);
    }
    var rank = used_slots_before_word(w);
    list_free_slots(w, rank, leaves);
    if (TREE_ORDER) {
        return;
    }
    var bits = slot_word(w);
    var deepest = 0u;
    while (bits != 0u) {
        let slot = 32u * w + firstTrailingBit(bits);
        pool_list[rank] = slot;
        rank += 1u;
        deepest = max(deepest, id_depth(pool_ids[slot]));
        bits &= bits - 1u;
    }
    if (deepest > 0u) {
        atomicMax(&pool.counters.max_depth_reached, deepest);
    }
}
