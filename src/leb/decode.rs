//! leb.decode: writes every leaf's node id into "leb.leaf_ids" for the draw and records the
//! deepest leaf (shaders/leb_decode.wgsl).

use crate::cbt::gpu::GpuCbt;
use crate::gpu::{profiled_compute_pass, shader};

/// The decode pass and the leaf-id buffer it fills.
pub struct LebDecode {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    /// One u32 node id per leaf, `cbt.leaf_capacity` of them.
    pub leaf_ids: wgpu::Buffer,
}

impl LebDecode {
    /// Builds the pass and its buffer for `cbt`.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> LebDecode {
        let leaf_ids = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("leb.leaf_ids"),
            size: cbt.leaf_capacity as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let pipeline = shader::compute_pipeline(device, "leb.decode", "leb_decode.wgsl", "decode", &cbt.pipeline_constants());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("leb.decode"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: leaf_ids.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: cbt.stats.as_entire_binding() },
            ],
        });
        LebDecode { pipeline, bind_group, leaf_ids }
    }

    /// Records "leb.decode" over every leaf of `cbt`.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, cbt: &GpuCbt) {
        profiled_compute_pass(profiler, encoder, "leb.decode", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups_indirect(&cbt.args, 0);
        });
    }
}
