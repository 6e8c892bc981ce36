// cbt.ops: applies a batch of split/merge operations, one per thread, with 32-bit atomics.
// Used to check the GPU heap against the CPU twin after random operation sequences.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl

// Keep in sync with CbtOp in src/cbt/gpu.rs.
struct CbtOp {
    id: u32,
    depth: u32,
    // 0 = split, 1 = merge.
    merge: u32,
    _pad: u32,
}

@group(0) @binding(1) var<storage, read> ops: array<CbtOp>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_ops(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i >= arrayLength(&ops)) {
        return;
    }
    let op = ops[i];
    if (op.merge == 1u) {
        cbt_merge(CbtNode(op.id, op.depth));
    } else {
        cbt_split(CbtNode(op.id, op.depth));
    }
}
