//! The bitfield blocks changed since the last reduction ("cbt.changed"). Split and merge list
//! every block of the bitfield whose bits they flip (shaders/shared/cbt_heap_atomic.wgsl), so that
//! cbt.reduce can rebuild the counts of those blocks alone (`CbtReduce::record_changed`): a tree
//! of max depth 29 holds 2^29 bitfield bits, while the globe changes a few thousand leaves a
//! frame. A block is what one workgroup of the reduction's first dispatch reads.
//!
//! Layout, in u32 words: [0] the number of listed blocks, then one bit per block (is it listed?),
//! then the list. The bit makes every block listed once, so the list never overflows; the
//! changed-only reduction clears the bits of the blocks it visits and the count.

use crate::cbt::reduce::word_log2;
use crate::gpu::dispatch::WORKGROUP_SIZE;

/// log2 of the bitfield bits in one block: 256 threads of 2^word_log2 32-bit words. The shaders
/// get it as the override constant CBT_BLOCK_BITS_LOG2 (`GpuCbt::writer_constants`).
pub fn block_bits_log2(max_depth: u32) -> u32 {
    (WORKGROUP_SIZE * 32).trailing_zeros() + word_log2(max_depth)
}

/// Blocks in the bitfield of a tree of max depth `max_depth`.
pub fn block_count(max_depth: u32) -> u32 {
    1 << max_depth.saturating_sub(block_bits_log2(max_depth))
}

/// Words of the block bitmap (at least one).
pub fn bitmap_words(max_depth: u32) -> u32 {
    (block_count(max_depth) >> 5).max(1)
}

/// The zeroed buffer: nothing changed yet (the uploaded heap is reduced).
pub fn create_buffer(device: &wgpu::Device, max_depth: u32) -> wgpu::Buffer {
    let words = 1 + bitmap_words(max_depth) + block_count(max_depth);
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("cbt.changed"),
        size: words as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::reduce::reduce_plan;
    use crate::gpu::dispatch::WORKGROUP_SIZE;

    #[test]
    fn one_block_per_workgroup_of_the_first_reduction_dispatch() {
        for d in 5..=29 {
            let first = reduce_plan(d)[0];
            let groups = ((1u32 << first.in_depth) / WORKGROUP_SIZE).max(1);
            assert_eq!(block_count(d), groups, "D={d}");
            assert_eq!(block_count(d) << block_bits_log2(d), (1u32 << d).max(1 << block_bits_log2(d)), "D={d}");
        }
        assert_eq!(block_count(29), 1 << 14);
        assert_eq!(bitmap_words(29), 512);
        assert_eq!(bitmap_words(13), 1);
    }
}
