//! cbt.ops: applies a batch of split/merge operations on the GPU with atomics (shaders/cbt_ops.wgsl);
//! used to check the GPU heap against the CPU twin.

use crate::cbt::cpu::Node;
use crate::cbt::gpu::GpuCbt;
use crate::gpu::dispatch::run_over_list;
use crate::shaders::SHADERS;

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
        CbtOps { pipeline: SHADERS.compute_pipeline(device, "cbt.ops", "cbt_ops.wgsl", "apply_ops", &cbt.writer_constants()) }
    }

    /// Applies `ops` to `cbt`'s heap, all in parallel, in the profiled pass "cbt.ops", and submits.
    pub fn apply(&self, gpu: &crate::gpu::Gpu, profiler: &mut wgpu_profiler::GpuProfiler, cbt: &GpuCbt, ops: &[CbtOp]) {
        run_over_list(
            gpu,
            profiler,
            &self.pipeline,
            "cbt.ops",
            &[(0, &cbt.heap), (7, &cbt.changed)],
            bytemuck::cast_slice(ops),
            ops.len() as u32,
        );
    }
}
