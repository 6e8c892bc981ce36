//! Sizes of the 2-D dispatches that cover more than 65535 workgroups.
//! Keep MAX_GROUPS_X in sync with shaders/shared/dispatch.wgsl.

/// Threads per workgroup of every 1-D compute pass.
pub const WORKGROUP_SIZE: u32 = 256;
/// Widest x extent of a dispatch; larger ones wrap into y.
pub const MAX_GROUPS_X: u32 = 32768;

/// (x, y) workgroup counts that cover `groups` workgroups.
pub fn groups_2d(groups: u32) -> (u32, u32) {
    (groups.clamp(1, MAX_GROUPS_X), groups.div_ceil(MAX_GROUPS_X).max(1))
}

/// Runs `pipeline` over a list of `items` items, one thread per item: binds `list` at binding 1
/// and each of `buffers` at its binding, records one profiled pass labelled `label` and submits.
/// For the diagnostic passes that apply a list of operations to the CBT heap.
pub fn run_over_list(
    gpu: &super::Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    pipeline: &wgpu::ComputePipeline,
    label: &str,
    buffers: &[(u32, &wgpu::Buffer)],
    list: &[u8],
    items: u32,
) {
    use wgpu::util::DeviceExt;
    let (device, queue) = (&gpu.device, &gpu.queue);
    if items == 0 {
        return;
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: list, usage: wgpu::BufferUsages::STORAGE });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &std::iter::once(wgpu::BindGroupEntry { binding: 1, resource: buffer.as_entire_binding() })
            .chain(buffers.iter().map(|&(binding, b)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }))
            .collect::<Vec<_>>(),
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
    super::profiled_compute_pass(profiler, &mut encoder, label, |pass| {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        let (x, y) = groups_2d(items.div_ceil(WORKGROUP_SIZE));
        pass.dispatch_workgroups(x, y, 1);
    });
    profiler.resolve_queries(&mut encoder);
    queue.submit([encoder.finish()]);
}
