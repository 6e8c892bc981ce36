//! leb.split_nodes: conforming splits of a list of nodes on the GPU, all in parallel
//! (shaders/leb_split_nodes.wgsl). A diagnostic pass: tests use it to build deep spikes next to
//! coarse regions, where split chains are long.

use wgpu::util::DeviceExt;

use crate::cbt::cpu::Node;
use crate::cbt::gpu::GpuCbt;
use crate::gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use crate::gpu::shader;

/// The split-list pipeline.
pub struct LebSplitNodes {
    pipeline: wgpu::ComputePipeline,
}

impl LebSplitNodes {
    /// Builds the pipeline for `cbt`.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> LebSplitNodes {
        LebSplitNodes { pipeline: shader::compute_pipeline(device, "leb.split_nodes", "leb_split_nodes.wgsl", "split_nodes", &cbt.pipeline_constants()) }
    }

    /// Splits every node of `nodes` (and what conformity requires) in `cbt`'s heap, and submits.
    pub fn apply(&self, device: &wgpu::Device, queue: &wgpu::Queue, cbt: &GpuCbt, nodes: &[Node]) {
        if nodes.is_empty() {
            return;
        }
        let ids: Vec<u32> = nodes.iter().map(|n| n.id).collect();
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("leb.split_nodes.list"),
            contents: bytemuck::cast_slice(&ids),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("leb.split_nodes"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: buffer.as_entire_binding() },
            ],
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("leb.split_nodes") });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("leb.split_nodes"), timestamp_writes: None });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = groups_2d((ids.len() as u32).div_ceil(WORKGROUP_SIZE));
            pass.dispatch_workgroups(x, y, 1);
        }
        queue.submit([encoder.finish()]);
    }
}
