//! terrain.gradients: computes once, on the GPU, the height gradient of every sample into the
//! texture "terrain.gradients" (Rgba16Float: metres per sample step in x and y, the height in z)
//! that render.draw filters for its normals and colours (shaders/terrain_gradients.wgsl).

use crate::shaders::SHADERS;

/// Builds "terrain.gradients" from the height texture `heights` and records its computation.
pub fn compute(device: &wgpu::Device, queue: &wgpu::Queue, heights: &wgpu::Texture) -> wgpu::Texture {
    let size = heights.size();
    let gradients = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("terrain.gradients"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba16Float,
        usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let pipeline = SHADERS.compute_pipeline(device, "terrain.gradients", "terrain_gradients.wgsl", "main", &[]);
    let output_view = gradients.create_view(&Default::default());
    let heights_view = heights.create_view(&Default::default());
    let output = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("terrain.gradients.output"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&output_view) }],
    });
    let input = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("terrain.gradients.heights"),
        layout: &pipeline.get_bind_group_layout(1),
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&heights_view) }],
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("terrain.gradients") });
    {
        let mut pass =
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("terrain.gradients"), timestamp_writes: None });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &output, &[]);
        pass.set_bind_group(1, &input, &[]);
        pass.dispatch_workgroups(size.width.div_ceil(8), size.height.div_ceil(8), 1);
    }
    queue.submit([encoder.finish()]);
    gradients
}
