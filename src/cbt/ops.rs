//! cbt.ops: applies a batch of split/merge operations on the GPU with atomics (shaders/cbt_ops.wgsl);
//! used to check the GPU heap against the CPU twin.

use wgpu::util::DeviceExt;

use crate::cbt::cpu::Node;
use crate::cbt::gpu::GpuCbt;
use crate::gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use crate::gpu::shader;

/// One operation. Keep in sync with CbtOp in shaders/cbt_ops.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CbtOp {
    pub id: u32,
    pub depth: u32,
    /// 0 = split, 1 = merge.
    pub merge: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<CbtOp>() == 16);

impl CbtOp {
    /// Split `node`.
    pub fn split(node: Node) -> CbtOp {
        CbtOp { id: node.id, depth: node.depth, merge: 0, _pad: 0 }
    }
    /// Merge `node`'s children into it.
    pub fn merge(node: Node) -> CbtOp {
        CbtOp { id: node.id, depth: node.depth, merge: 1, _pad: 0 }
    }
}

/// The operation pipeline.
pub struct CbtOps {
    pipeline: wgpu::ComputePipeline,
}

impl CbtOps {
    /// Builds the pipeline for `cbt`.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> CbtOps {
        CbtOps { pipeline: shader::compute_pipeline(device, "cbt.ops", "cbt_ops.wgsl", "apply_ops", &cbt.pipeline_constants()) }
    }

    /// Applies `ops` to `cbt`'s heap, all in parallel, and submits.
    pub fn apply(&self, device: &wgpu::Device, queue: &wgpu::Queue, cbt: &GpuCbt, ops: &[CbtOp]) {
        if ops.is_empty() {
            return;
        }
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cbt.ops.list"),
            contents: bytemuck::cast_slice(ops),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cbt.ops"),
            layout: &self.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: buffer.as_entire_binding() },
            ],
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("cbt.ops") });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("cbt.ops"), timestamp_writes: None });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let (x, y) = groups_2d((ops.len() as u32).div_ceil(WORKGROUP_SIZE));
            pass.dispatch_workgroups(x, y, 1);
        }
        queue.submit([encoder.finish()]);
    }
}
