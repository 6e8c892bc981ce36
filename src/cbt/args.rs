//! cbt.args: writes the indirect dispatch and draw arguments from the root count on the GPU
//! (shaders/cbt_args.wgsl).

use crate::cbt::gpu::GpuCbt;
use crate::gpu::profiled_compute_pass;
use crate::shaders::SHADERS;

/// The one-thread pass that turns the leaf count into indirect arguments.
pub struct CbtArgs {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
}

impl CbtArgs {
    /// Builds the pass for `cbt`: one triangle per leaf.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> CbtArgs {
        CbtArgs::with_draw_instances(device, cbt, 1)
    }

    /// Builds the pass for `cbt`, drawing `instances` instances of every leaf's vertices.
    pub fn with_draw_instances(device: &wgpu::Device, cbt: &GpuCbt, instances: u32) -> CbtArgs {
        let [depth] = cbt.pipeline_constants();
        let constants = [depth, ("DRAW_INSTANCES", instances as f64)];
        let pipeline = SHADERS.compute_pipeline(device, "cbt.args", "cbt_args.wgsl", "write_args", &constants);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cbt.args"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: cbt.args.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: cbt.stats.as_entire_binding() },
            ],
        });
        CbtArgs { pipeline, bind_group }
    }

    /// Records the pass "cbt.args".
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        profiled_compute_pass(profiler, encoder, "cbt.args", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        });
    }
}
