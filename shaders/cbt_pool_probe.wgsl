// cbt.pool_probe: a test kernel for the CBT's pool mode (tests/cbt_gpu.rs). Thread i writes the
// slot of the i-th used slot for i below the used count, and after them the free slots in order,
// so the output is every slot once: used ones first.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl

@group(0) @binding(1) var<storage, read_write> pool_slots: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= (1u << CBT_MAX_DEPTH)) {
        return;
    }
    let used = cbt_node_count();
    if (i < used) {
        pool_slots[i] = cbt_decode_pool_slot(i, false);
    } else {
        pool_slots[i] = cbt_decode_pool_slot(i - used, true);
    }
}
