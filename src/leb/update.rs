//! leb.split / leb.merge: the per-leaf update pass, dispatched indirectly over every leaf
//! (shaders/leb_update.wgsl). Mirrors leb::cpu::update. Reads the leaves that the previous
//! leb.decode wrote, so a leb.decode must have run since the tree last changed.

use crate::cbt::gpu::GpuCbt;
use crate::gpu::{profiled_compute_pass, shader};
use crate::leb::cpu::UpdateKind;
use crate::leb::decode::LebDecode;
use crate::leb::lod::LodParams;

/// The split and merge pipelines with the LOD parameters they read.
pub struct LebUpdate {
    split: (wgpu::ComputePipeline, wgpu::BindGroup),
    merge: (wgpu::ComputePipeline, wgpu::BindGroup),
    lod: wgpu::Buffer,
}

impl LebUpdate {
    /// Builds both pipelines for `cbt`, reading the leaves `decode` writes.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt, decode: &LebDecode) -> LebUpdate {
        let lod = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("leb.lod"),
            size: std::mem::size_of::<LodParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let make = |label: &str, entry: &str| {
            let pipeline = shader::compute_pipeline(device, label, "leb_update.wgsl", entry, &cbt.pipeline_constants());
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: lod.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: decode.leaf_ids.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 3, resource: cbt.stats.as_entire_binding() },
                ],
            });
            (pipeline, bind_group)
        };
        LebUpdate { split: make("leb.split", "split_pass"), merge: make("leb.merge", "merge_pass"), lod }
    }

    /// Sets the criterion used by the next recorded updates.
    pub fn set_lod(&self, queue: &wgpu::Queue, lod: &LodParams) {
        queue.write_buffer(&self.lod, 0, bytemuck::bytes_of(lod));
    }

    /// Records one update pass ("leb.split" or "leb.merge") over every leaf of `cbt`.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, kind: UpdateKind, cbt: &GpuCbt) {
        let (label, (pipeline, bind_group)) = match kind {
            UpdateKind::Split => ("leb.split", &self.split),
            UpdateKind::Merge => ("leb.merge", &self.merge),
        };
        profiled_compute_pass(profiler, encoder, label, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups_indirect(&cbt.args, 0);
        });
    }
}
