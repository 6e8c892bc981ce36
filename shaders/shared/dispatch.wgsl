// Linear thread index of a 2-D dispatch of 256-thread workgroups (x at most 32768 groups wide).
// Keep MAX_GROUPS_X in sync with gpu::dispatch::MAX_GROUPS_X.

const WORKGROUP_SIZE: u32 = 256u;
const MAX_GROUPS_X: u32 = 32768u;

fn dispatch_group_index(group: vec3<u32>) -> u32 {
    return group.y * MAX_GROUPS_X + group.x;
}
