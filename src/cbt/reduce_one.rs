//! cbt.reduce's one-pass path (shaders/cbt_reduce_one.wgsl): the same heap as the other paths in
//! one dispatch, for trees of max depth `MIN_DEPTH..=MAX_DEPTH`, on any device (no subgroups).
//! Each thread reads 8 bitfield words and writes the whole heap words of depths D-1..D-7 it
//! owns with plain stores; a workgroup sums 9 more levels in workgroup memory (3 barriers) and
//! writes them as whole words (atomics only at the edges shared with a neighbour); each
//! workgroup publishes its sum and counts itself done without a fence, and the last to do so
//! sums the 2^(D-16) workgroup sums up to the root and writes those levels a word a thread (or,
//! on `ReducePath::OnePassSplit`, a second dispatch of one workgroup does).
//! `CbtReduce` records it.

/// Shallowest tree of the one-pass path: one workgroup reads 2^16 bitfield bits.
pub const MIN_DEPTH: u32 = 16;
/// Deepest tree: the last workgroup sums at most 512 workgroup sums in workgroup memory (the
/// workgroup array holds 2047 values), and deeper trees track changed blocks (`GpuCbt::tracks_changes`).
pub const MAX_DEPTH: u32 = 25;
/// Workgroup memory of the one-pass path, in bytes (values, the pairs' shared words, D-6's
/// chunks, the tail flag; tests/shaders.rs checks it against the shader).
pub const WORKGROUP_STORAGE_BYTES: u64 = (2048 + 3 * 128 + 256 + 1) * 4;

/// Workgroups of the single dispatch: one per 2^16 bitfield bits.
pub fn groups(max_depth: u32) -> u32 {
    assert!((MIN_DEPTH..=MAX_DEPTH).contains(&max_depth), "the one-pass reduction needs D in {MIN_DEPTH}..={MAX_DEPTH}");
    1 << (max_depth - 16)
}

/// Whether the one-pass path reduces a tree of max depth `max_depth`.
pub fn runs(max_depth: u32) -> bool {
    (MIN_DEPTH..=MAX_DEPTH).contains(&max_depth)
}

/// The reduction's sums buffer: [0] its finished workgroups (zero between reductions: the last
/// resets it), then one sum a workgroup (each taken back to zero by the tail).
pub fn sync_buffer(device: &wgpu::Device, max_depth: u32) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("cbt.reduce.sync"),
        contents: bytemuck::cast_slice(&vec![0u32; (1 + groups(max_depth) as usize).next_multiple_of(4)]),
        usage: wgpu::BufferUsages::STORAGE,
    })
}
