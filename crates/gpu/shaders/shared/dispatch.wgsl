// Linear thread index of a 2-D dispatch of 256-thread workgroups (x at most 32768 groups wide).
// WORKGROUP_SIZE and MAX_GROUPS_X come from gpu::dispatch.
//!include shared/dispatch_constants.wgsl

fn dispatch_group_index(group: vec3<u32>) -> u32 {
    return group.y * MAX_GROUPS_X + group.x;
}
