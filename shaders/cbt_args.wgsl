// cbt.args: one thread turns the root count into the indirect arguments of the per-leaf passes
// (a 2-D dispatch of 256-thread groups) and of the draw (three vertices per leaf, capped at the
// leaf-id buffer's capacity), and resets the per-frame statistics. No CPU read-back needed.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/frame.wgsl

@group(0) @binding(1) var<storage, read_write> args: FrameArgs;
@group(0) @binding(2) var<storage, read_write> stats: FrameStats;

// Instances of the draw: 1 (one triangle per leaf), or 2^s when every leaf is drawn as 2^s
// sub-triangles (the globe).
override DRAW_INSTANCES: u32 = 1u;

@compute @workgroup_size(1)
fn write_args() {
    let leaves = cbt_node_count();
    let groups = (leaves + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    args.dispatch_x = min(groups, MAX_GROUPS_X);
    args.dispatch_y = (groups + MAX_GROUPS_X - 1u) / MAX_GROUPS_X;
    args.dispatch_z = 1u;
    args.draw_vertex_count = 3u * min(leaves, stats.capacity);
    args.draw_instance_count = DRAW_INSTANCES;
    args.draw_first_vertex = 0u;
    args.draw_first_instance = 0u;
    stats.leaves = leaves;
    atomicStore(&stats.max_depth, 0u);
    stats.overflow = select(0u, 1u, leaves > stats.capacity);
}
