//! Sizes of the 2-D dispatches that cover more than 65535 workgroups.
//! Keep MAX_GROUPS_X in sync with shaders/shared/dispatch.wgsl.

/// Threads per workgroup of every 1-D compute pass.
pub const WORKGROUP_SIZE: u32 = 256;
/// Widest x extent of a dispatch; larger ones wrap into y.
pub const MAX_GROUPS_X: u32 = 32768;

/// (x, y) workgroup counts that cover `groups` workgroups.
pub fn groups_2d(groups: u32) -> (u32, u32) {
    (groups.clamp(1, MAX_GROUPS_X), groups.div_ceil(MAX_GROUPS_X).max(1))
}
