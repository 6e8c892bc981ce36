//! render.draw: draws one triangle per LEB leaf, displaced by the height texture and shaded
//! (shaders/terrain_draw.wgsl). The draw is indirect: its vertex count comes from cbt.args.

use crate::cbt::gpu::{GpuCbt, DRAW_ARGS_OFFSET};
use crate::shaders::SHADERS;

/// Uniforms of the draw. Keep in sync with DrawUniforms in shaders/terrain_draw.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawUniforms {
    pub clip_from_world: [[f32; 4]; 4],
    pub camera_position_m: [f32; 4],
    pub sun_direction: [f32; 4],
    pub terrain_size_m: f32,
    /// 1 to overlay triangle edges.
    pub wireframe: u32,
    pub haze_distance_m: f32,
    /// Pixels per metre at 1 m distance: viewport height / (2 tan(fov_y / 2)).
    pub projection_scale: f32,
    /// Pixel target of the LOD criterion (morphing starts there).
    pub morph_target_px: f32,
    /// 0 = no morphing, 1 = by screen-space error, 2 = by edge length.
    pub morph_mode: u32,
    /// WGSL rounds the struct's size up to its 16-byte alignment.
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<DrawUniforms>() == 128);

/// Sky colour behind the terrain (linear RGB).
pub const SKY_COLOR: wgpu::Color = wgpu::Color { r: 0.36, g: 0.48, b: 0.66, a: 1.0 };

/// The terrain pipeline and its bindings.
pub struct TerrainDraw {
    pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    leaf_group: wgpu::BindGroup,
    height_group: wgpu::BindGroup,
}

impl TerrainDraw {
    /// Builds the pipeline for targets of `color_format`, reading leaf ids and heights.
    pub fn new(
        device: &wgpu::Device,
        color_format: wgpu::TextureFormat,
        leaf_ids: &wgpu::Buffer,
        heights: &wgpu::Texture,
        gradients: &wgpu::Texture,
    ) -> TerrainDraw {
        let module = SHADERS.create_module(device, "terrain_draw.wgsl");
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("render.draw"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            // Every triangle is wound counter-clockwise seen from above (the shader reverses the
            // even depths): the undersides of slopes, always hidden from a camera above the
            // terrain, are culled before rasterisation.
            primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
            depth_stencil: Some(crate::gpu::target::depth_state(true, wgpu::CompareFunction::Greater)),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(color_format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.draw.uniforms"),
            size: std::mem::size_of::<DrawUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let leaf_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.draw.leaves"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: leaf_ids.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: uniforms.as_entire_binding() },
            ],
        });
        let height_view = heights.create_view(&Default::default());
        let gradient_view = gradients.create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("render.draw.gradients"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let height_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.draw.heights"),
            layout: &pipeline.get_bind_group_layout(1),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&height_view) },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&gradient_view) },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::Sampler(&sampler) },
            ],
        });
        TerrainDraw { pipeline, uniforms, leaf_group, height_group }
    }

    /// The uniform buffer (the compute rasteriser's passes read it too).
    pub fn uniforms(&self) -> &wgpu::Buffer {
        &self.uniforms
    }

    /// Sets the uniforms used by the next recorded draw.
    pub fn set_uniforms(&self, queue: &wgpu::Queue, uniforms: &DrawUniforms) {
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(uniforms));
    }

    /// Draws every leaf of `cbt` into `pass` (whose depth attachment is `DEPTH_FORMAT`, reverse Z).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, cbt: &GpuCbt) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.leaf_group, &[]);
        pass.set_bind_group(1, &self.height_group, &[]);
        pass.draw_indirect(&cbt.args, DRAW_ARGS_OFFSET);
    }
}
