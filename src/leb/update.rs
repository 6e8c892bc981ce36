//! leb.split / leb.merge: the per-leaf update pass, dispatched indirectly over every leaf
//! (shaders/leb_update.wgsl). Mirrors leb::cpu::update. Reads the leaves that the previous
//! leb.decode wrote, so a leb.decode must have run since the tree last changed, and the
//! criterion ("leb.lod") that `LebDecode::set_lod` writes.

use crate::cbt::gpu::GpuCbt;
use crate::gpu::profiled_compute_pass;
use crate::leb::bounds::GpuNodeBounds;
use crate::leb::cpu::UpdateKind;
use crate::leb::decode::LebDecode;
use crate::shaders::SHADERS;

/// The split and merge pipelines with their bindings.
pub struct LebUpdate {
    split: (wgpu::ComputePipeline, wgpu::BindGroup, wgpu::BindGroup),
    merge: (wgpu::ComputePipeline, wgpu::BindGroup, wgpu::BindGroup),
}

impl LebUpdate {
    /// Builds both pipelines for `cbt`, reading the leaves and the criterion of `decode` and the node `bounds`.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt, decode: &LebDecode, bounds: &GpuNodeBounds) -> LebUpdate {
        let make = |label: &str, entry: &str| {
            let pipeline = SHADERS.compute_pipeline(device, label, "leb_update.wgsl", entry, &cbt.writer_constants());
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: decode.lod.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: decode.leaf_ids.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 3, resource: cbt.stats.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 7, resource: cbt.changed.as_entire_binding() },
                ],
            });
            let bounds_group = bounds.bind_group(device, &pipeline, &format!("{label}.bounds"));
            (pipeline, bind_group, bounds_group)
        };
        LebUpdate { split: make("leb.split", "split_pass"), merge: make("leb.merge", "merge_pass") }
    }

    /// Records one update pass ("leb.split" or "leb.merge") over every leaf of `cbt`.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, kind: UpdateKind, cbt: &GpuCbt) {
        let (label, (pipeline, bind_group, bounds_group)) = match kind {
            UpdateKind::Split => ("leb.split", &self.split),
            UpdateKind::Merge => ("leb.merge", &self.merge),
        };
        profiled_compute_pass(profiler, encoder, label, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.set_bind_group(1, bounds_group, &[]);
            pass.dispatch_workgroups_indirect(&cbt.args, 0);
        });
    }
}
