//! cbt.decode_words: every leaf's node id in leaf order, one thread per bitfield word
//! (shaders/cbt_decode_words.wgsl): a workgroup scan of the words' popcounts and one parallel read
//! of the counts along its subtree's path give each word's first leaf index, instead of one walk
//! down the counts per leaf (leb.decode). The same ids as `Cbt::decode_node` of each leaf index;
//! `bisector kernel cbt` times it beside leb.decode.

use crate::cbt::gpu::GpuCbt;
use crate::gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use crate::gpu::profiled_compute_pass;
use crate::shaders::SHADERS;

/// The pass and the buffer it fills.
pub struct DecodeWords {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
    /// One u32 node id per leaf, `cbt.leaf_capacity` of them.
    pub leaf_ids: wgpu::Buffer,
}

impl DecodeWords {
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> DecodeWords {
        let leaf_ids = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cbt.decode_words.leaf_ids"),
            size: cbt.leaf_capacity as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let pipeline =
            SHADERS.compute_pipeline(device, "cbt.decode_words", "cbt_decode_words.wgsl", "decode_words", &cbt.pipeline_constants());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cbt.decode_words"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: leaf_ids.as_entire_binding() },
            ],
        });
        let words = 1u32 << (cbt.max_depth - 5);
        DecodeWords { pipeline, bind_group, groups: groups_2d(words.div_ceil(WORKGROUP_SIZE)), leaf_ids }
    }

    /// Records the pass (after the reduction: it reads the counts and the bitfield).
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        profiled_compute_pass(profiler, encoder, "cbt.decode_words", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        });
    }
}
