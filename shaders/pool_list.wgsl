// pool.list: the used slots in slot order, by bitfield word (docs/design/bisector-pool.md 3.2):
// one thread per 32-bit word finds the used slots before its word by walking the reduced counts
// from the root (adding each left sibling's count where the path goes right), then writes the
// slot of each set bit, and the first free slots after the list (the free list,
// shared/pool_lists.wgsl). It equals decode_used_slot(i) for every i. Thread 0 stores the leaf
// count and the indirect arguments of the next frame's passes over the leaves. The same threads
// clear the update words the frame's compact passes wrote (shared/pool_lists.wgsl `clean_entry`:
// a pass of its own costs its launch and a barrier). (One thread per slot, a warp writing a run
// of the list, took twice as long: BENCHMARKS.md run 47.)
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/pool_lists.wgsl

@group(0) @binding(1) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> pool_snapshot: array<u32>;
@group(0) @binding(5) var<storage, read_write> pool_update: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> pool_list: array<u32>;
@group(0) @binding(7) var<storage, read_write> pool: PoolControl;
// Dispatch arguments (x, y, z) of the passes over the leaves.
@group(0) @binding(9) var<storage, read_write> pool_args: array<u32>;
// The draw list's copy for the next frame's pool.order passes (TREE_ORDER).
@group(0) @binding(10) var<storage, read_write> pool_order: array<u32>;

// Whether the draw list is kept in tree order (pool_order.wgsl) rather than listed in slot order.
override TREE_ORDER: bool = false;

var<workgroup> wg_counts: vec4<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn list(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32, @builtin(num_workgroups) groups: vec3<u32>) {
    let w = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (w == 0u) {
        let leaves = cbt_node_count();
        pool.params.leaves = leaves;
        atomicStore(&pool.counters.leaves, leaves);
        let leaf_groups = (leaves + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
        pool_args[0] = clamp(leaf_groups, 1u, MAX_GROUPS_X);
        pool_args[1] = max((leaf_groups + MAX_GROUPS_X - 1u) / MAX_GROUPS_X, 1u);
        pool_args[2] = 1u;
    }
    if (local == 0u) {
        wg_counts = listed_counts();
    }
    let counts = workgroupUniformLoad(&wg_counts);
    let threads = groups.x * groups.y * WORKGROUP_SIZE;
    for (var j = w; j < counts.x + counts.y + counts.z + counts.w; j += threads) {
        clean_entry(j, counts);
    }
    if (TREE_ORDER) {
        let leaves = cbt_node_count();
        for (var j = w; j < leaves; j += threads) {
            pool_order[j] = pool_list[j];
        }
        // The gains and changed bits pool.order read (shared/pool_order_codes.wgsl), clean for the
        // next frame.
        for (var j = w; j < arrayLength(&pool.group_sums); j += threads) {
            atomicStore(&pool.group_sums[j], 0u);
        }
    }
    let word_depth = CBT_MAX_DEPTH - 5u;
    if (w >= (1u << word_depth)) {
        return;
    }
    var node = CbtNode(1u, 0u);
    var rank = 0u;
    for (var d = 0u; d < word_depth; d += 1u) {
        let left = cbt_left_child(node);
        if (((w >> (word_depth - 1u - d)) & 1u) != 0u) {
            rank += cbt_heap_read(left);
            node = cbt_right_child(node);
        } else {
            node = left;
        }
    }
    var bits = cbt_load((3u << word_depth) + w);
    // The free list's entries of this word's free slots (shared/pool_lists.wgsl).
    var free_rank = 32u * w - rank;
    if (free_rank < POOL_FREE_SLOTS_LISTED) {
        let leaves = cbt_node_count();
        var free_bits = ~bits;
        while (free_bits != 0u && free_rank < POOL_FREE_SLOTS_LISTED) {
            pool_list[leaves + free_rank] = 32u * w + firstTrailingBit(free_bits);
            free_rank += 1u;
            free_bits &= free_bits - 1u;
        }
    }
    if (TREE_ORDER) {
        return;
    }
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
