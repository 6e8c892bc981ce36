//! leb.split_nodes: conforming splits of a list of nodes on the GPU, all in parallel
//! (shaders/leb_split_nodes.wgsl). A diagnostic pass: tests use it to build deep spikes next to
//! coarse regions, where split chains are long.

use crate::cbt::cpu::Node;
use crate::cbt::gpu::GpuCbt;
use crate::gpu::dispatch::run_over_list;
use crate::shaders::SHADERS;

/// The split-list pipeline.
pub struct LebSplitNodes {
    pipeline: wgpu::ComputePipeline,
}

impl LebSplitNodes {
    /// Builds the pipeline for `cbt`.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> LebSplitNodes {
        LebSplitNodes {
            pipeline: SHADERS.compute_pipeline(device, "leb.split_nodes", "leb_split_nodes.wgsl", "split_nodes", &cbt.writer_constants()),
        }
    }

    /// Splits every node of `nodes` (and what conformity requires) in `cbt`'s heap, in the
    /// profiled pass "leb.split_nodes", and submits.
    pub fn apply(&self, gpu: &crate::gpu::Gpu, profiler: &mut wgpu_profiler::GpuProfiler, cbt: &GpuCbt, nodes: &[Node]) {
        let ids: Vec<u32> = nodes.iter().map(|n| n.id).collect();
        run_over_list(
            gpu,
            profiler,
            &self.pipeline,
            "leb.split_nodes",
            &[(0, &cbt.heap), (7, &cbt.changed)],
            bytemuck::cast_slice(&ids),
            ids.len() as u32,
        );
    }
}
