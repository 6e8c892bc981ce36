// pool.order with the CBT's reduction in its dispatch (compact mode, on trees the one-pass
// reduction takes, D = 16..=25; src/pool/gpu_passes.rs): workgroups 0..2^(D-16) reduce the heap
// (shared/cbt_reduce_one.wgsl), the others are pool.order's (shared/pool_order_pass.wgsl).
// pool.order reads no count the reduction writes: its leaf count comes from the frame's counters,
// and the free list is the next split frame's classify's, from the CBT this pass reduced. So the
// two need no barrier between them, and the frame one pass fewer (docs/BENCHMARKS.md run 101).
// The reduction's plain views of the heap and its sums are group 1's: group 0 is pool.order's.
//!include shared/pool_types.wgsl
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/cbt_pack_word.wgsl
//!include shared/cbt_reduce_one.wgsl
//!include shared/pool_order_pass.wgsl

@group(1) @binding(0) var<storage, read_write> heap_words: array<u32>;
@group(1) @binding(1) var<storage, read_write> heap_vec4: array<vec4<u32>>;
@group(1) @binding(2) var<storage, read_write> heap_vec2: array<vec2<u32>>;
// [0]: reduction workgroups that have finished; [1 + wid]: workgroup wid's sum (as
// cbt_reduce_one.wgsl's).
@group(1) @binding(3) var<storage, read_write> reduce_sync: array<atomic<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn order_reduce(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32, @builtin(num_workgroups) groups: vec3<u32>) {
    let g = dispatch_group_index(group);
    let reduce_groups = 1u << (CBT_MAX_DEPTH - 16u);
    if (g < reduce_groups) {
        reduce_one_group(g, t);
        return;
    }
    order_group(g - reduce_groups, t, groups.x * groups.y - reduce_groups);
}
