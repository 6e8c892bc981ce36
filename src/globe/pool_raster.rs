//! Hybrid rasterisation of the globe drawn from the bisector pool into a visibility buffer
//! (`--raster compute`), as the flat terrain's (`flat::raster`):
//!
//! ```text
//! globe.pool_decode -> clear vis -> raster.small (compute, per listed leaf)
//!   -> raster.large (hardware, the leaves left to it) -> globe.hzb (from the buffer's depths)
//!   -> shade (compute, per pixel: the terrain, or the sky where no triangle is)
//! ```
//!
//! The visibility buffer holds one u64 per viewport pixel: reverse-Z depth << 32 | the leaf's
//! index in pool.list (its drawing order), kept by a 64-bit atomic max (nearest wins; 0 is
//! empty). `raster.small` (shaders/globe_raster_small.wgsl) projects the three camera-relative
//! vertices globe.pool_decode placed for the draw (`globe.pool_draw_positions`) and rasterises a
//! triangle at most `large_px` wide and tall with shared/vis_raster.wgsl's `raster_triangle` (CPU
//! twin `flat::raster::rasterise_cpu`); larger ones and those crossing the near plane go to
//! `raster.large` (globe_raster_large.wgsl), an indirect hardware draw whose fragments write the
//! same buffer by the same atomic max, so the paths meet per pixel under one depth order. `shade`
//! (globe_shade_compute.wgsl) re-derives each pixel's triangle from its leaf (slot, vertices, map
//! points), its perspective-correct barycentric coordinates from the vertices' clip positions, and
//! shades it with the draw's own function (`globe_shaded` in shared/globe_shade.wgsl) under the
//! atmosphere's light evaluated at the pixel; pixels without a triangle get the sky of
//! atmosphere.sky (shared/atmosphere_sky.wgsl), or space's colour with the atmosphere off. It is a
//! compute pass writing the target's `Rgba8Unorm` storage view, or the same as a full-screen
//! fragment pass for targets without one (the viewer's window surface). There is no hardware
//! depth: globe.hzb builds the occlusion pyramid from the buffer's depth bits
//! (`GpuOcclusion::record_build_from_vis`).

use crate::gpu::profiled_compute_pass;
use crate::schedule::raster::{storage_format_for, storage_view_of, RasterUniforms, HISTOGRAM_BINS, MAX_LARGE_PX, SHADE_TILE_PX};
use crate::schedule::FrameTarget;
use crate::shaders::SHADERS;

/// What the raster passes read from the globe over the pool.
pub struct PoolRasterInputs<'a> {
    /// pool.list: the used slots in drawing order.
    pub pool_list: &'a wgpu::Buffer,
    /// pool.ids and pool.vertices, by slot.
    pub pool_ids: &'a wgpu::Buffer,
    pub pool_vertices: &'a wgpu::Buffer,
    /// pool.control, whose first 32 bytes are the PoolParams (word 5: the listed leaves).
    pub pool_control: &'a wgpu::Buffer,
    /// globe.pool_draw_positions: three camera-relative vec4 per listed leaf.
    pub draw_positions: &'a wgpu::Buffer,
    /// globe.frame, the frame's uniforms.
    pub frame: &'a wgpu::Buffer,
    /// The layouts of the atmosphere's draw group and the tile cache's group.
    pub atmosphere_layout: &'a wgpu::BindGroupLayout,
    pub cache_layout: &'a wgpu::BindGroupLayout,
    /// The tile cache's pipeline constants.
    pub cache_constants: &'a [(&'static str, f64)],
    /// Slots of the pool: the most leaves a frame lists.
    pub pool_slots: u32,
}

/// The bind groups the shade reads besides its own: the atmosphere's and the tile cache's.
pub struct ShadeGroups<'a> {
    pub atmosphere: &'a wgpu::BindGroup,
    pub cache: &'a wgpu::BindGroup,
}

/// The globe's raster passes, their buffers and bind groups.
pub struct GlobeVisRaster {
    device: wgpu::Device,
    small: wgpu::ComputePipeline,
    large: wgpu::RenderPipeline,
    /// shade as a compute pass writing the target's storage view (None: the colour format has none).
    shade_compute: Option<wgpu::ComputePipeline>,
    /// shade as a full-screen fragment pass.
    shade_fragment: wgpu::RenderPipeline,
    small_groups: [wgpu::BindGroup; 2],
    large_group: wgpu::BindGroup,
    shade_group: wgpu::BindGroup,
    vis_layout_compute: wgpu::BindGroupLayout,
    vis_layout_fragment: wgpu::BindGroupLayout,
    vis_groups: Option<VisGroups>,
    uniforms: wgpu::Buffer,
    large_ids: wgpu::Buffer,
    large_args: wgpu::Buffer,
    /// Triangles counted per size bin since the last `reset_histogram_now` (u32 each).
    pub histogram: wgpu::Buffer,
    /// Threshold in pixels above which a triangle goes to raster.large.
    pub large_px: u32,
}

/// The visibility buffer of one viewport size and the bind groups over it.
struct VisGroups {
    size_px: (u32, u32),
    vis: wgpu::Buffer,
    small: wgpu::BindGroup,
    large: wgpu::BindGroup,
    shade_fragment: wgpu::BindGroup,
}

fn entry(binding: u32, resource: wgpu::BindingResource<'_>) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource }
}

fn buffer_entry(binding: u32, visibility: wgpu::ShaderStages, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

impl GlobeVisRaster {
    /// Builds the passes for colour targets of `color_format` over `inputs`, sending triangles
    /// over `large_px` (at most MAX_LARGE_PX) to the hardware.
    pub fn new(device: &wgpu::Device, color_format: wgpu::TextureFormat, inputs: &PoolRasterInputs, large_px: u32) -> GlobeVisRaster {
        let small = SHADERS.compute_pipeline(device, "raster.small", "globe_raster_small.wgsl", "raster_small", &[]);
        let large_module = SHADERS.create_module(device, "globe_raster_large.wgsl");
        let large = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("raster.large"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &large_module,
                entry_point: Some("vs_large"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            // As globe.pool_draw: every triangle faces out, the backs are culled.
            primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
            // The depth attachment is only there to make a pass: the atomic max decides.
            depth_stencil: Some(crate::gpu::target::depth_state(false, wgpu::CompareFunction::Always)),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &large_module,
                entry_point: Some("fs_large"),
                compilation_options: Default::default(),
                targets: &[],
            }),
            multiview_mask: None,
            cache: None,
        });
        use wgpu::BufferBindingType::{Storage, Uniform};
        let stages = wgpu::ShaderStages::COMPUTE | wgpu::ShaderStages::FRAGMENT;
        let read = Storage { read_only: true };
        let shade_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shade.pool"),
            entries: &[
                buffer_entry(0, stages, read),
                buffer_entry(1, stages, Uniform),
                buffer_entry(2, stages, read),
                buffer_entry(3, stages, read),
                buffer_entry(4, stages, read),
            ],
        });
        let vis_layout_fragment = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shade.vis"),
            entries: &[buffer_entry(0, wgpu::ShaderStages::FRAGMENT, read), buffer_entry(1, wgpu::ShaderStages::FRAGMENT, Uniform)],
        });
        let vis_layout_compute = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shade.vis"),
            entries: &[
                buffer_entry(0, wgpu::ShaderStages::COMPUTE, read),
                buffer_entry(1, wgpu::ShaderStages::COMPUTE, Uniform),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::StorageTexture {
                        access: wgpu::StorageTextureAccess::WriteOnly,
                        format: wgpu::TextureFormat::Rgba8Unorm,
                        view_dimension: wgpu::TextureViewDimension::D2,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = |vis: &wgpu::BindGroupLayout| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("shade"),
                bind_group_layouts: &[Some(&shade_layout), Some(inputs.atmosphere_layout), Some(inputs.cache_layout), Some(vis)],
                immediate_size: 0,
            })
        };
        let shade_module = SHADERS.create_module(device, "globe_shade_compute.wgsl");
        let mut constants = inputs.cache_constants.to_vec();
        constants.push(("SHADE_SRGB", if color_format.is_srgb() { 1.0 } else { 0.0 }));
        let options = wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
        let shade_compute = storage_format_for(color_format).map(|_| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("shade"),
                layout: Some(&pipeline_layout(&vis_layout_compute)),
                module: &shade_module,
                entry_point: Some("cs_shade"),
                compilation_options: options.clone(),
                cache: None,
            })
        });
        let shade_fragment = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("shade"),
            layout: Some(&pipeline_layout(&vis_layout_fragment)),
            vertex: wgpu::VertexState {
                module: &shade_module,
                entry_point: Some("vs_full_screen"),
                compilation_options: options.clone(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shade_module,
                entry_point: Some("fs_shade"),
                compilation_options: options,
                targets: &[Some(color_format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        use wgpu::BufferUsages as U;
        let uniforms = buffer("raster.uniforms", std::mem::size_of::<RasterUniforms>() as u64, U::UNIFORM | U::COPY_DST);
        let large_ids = buffer("raster.large_ids", u64::from(inputs.pool_slots.max(1)) * 4, U::STORAGE);
        let large_args = buffer("raster.large_args", 16, U::STORAGE | U::INDIRECT | U::COPY_DST | U::COPY_SRC);
        let histogram = buffer("raster.histogram", HISTOGRAM_BINS as u64 * 4, U::STORAGE | U::COPY_SRC | U::COPY_DST);
        let group = |label, layout: &wgpu::BindGroupLayout, entries: &[wgpu::BindGroupEntry]| {
            device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries })
        };
        let params = wgpu::BufferBinding { buffer: inputs.pool_control, offset: 0, size: std::num::NonZeroU64::new(32) };
        let small_groups = [
            group(
                "raster.small.leaves",
                &small.get_bind_group_layout(0),
                &[entry(0, inputs.draw_positions.as_entire_binding()), entry(2, wgpu::BindingResource::Buffer(params))],
            ),
            group("raster.small.frame", &small.get_bind_group_layout(1), &[entry(0, inputs.frame.as_entire_binding())]),
        ];
        let large_group = group(
            "raster.large.leaves",
            &large.get_bind_group_layout(0),
            &[
                entry(0, large_ids.as_entire_binding()),
                entry(1, inputs.frame.as_entire_binding()),
                entry(2, inputs.draw_positions.as_entire_binding()),
            ],
        );
        let shade_group = group(
            "shade.pool",
            &shade_layout,
            &[
                entry(0, inputs.pool_list.as_entire_binding()),
                entry(1, inputs.frame.as_entire_binding()),
                entry(2, inputs.pool_ids.as_entire_binding()),
                entry(3, inputs.pool_vertices.as_entire_binding()),
                entry(4, inputs.draw_positions.as_entire_binding()),
            ],
        );
        GlobeVisRaster {
            device: device.clone(),
            small,
            large,
            shade_compute,
            shade_fragment,
            small_groups,
            large_group,
            shade_group,
            vis_layout_compute,
            vis_layout_fragment,
            vis_groups: None,
            uniforms,
            large_ids,
            large_args,
            histogram,
            large_px: large_px.clamp(1, MAX_LARGE_PX),
        }
    }

    /// Sets the viewport of the next recorded frame (remaking the visibility buffer when it changed).
    pub fn set_view(&mut self, queue: &wgpu::Queue, size_px: (u32, u32)) {
        if self.vis_groups.as_ref().is_none_or(|g| g.size_px != size_px) {
            self.vis_groups = Some(self.vis_groups_for(size_px));
        }
        let uniforms = RasterUniforms { size_px: [size_px.0, size_px.1], large_px: self.large_px, _pad: 0 };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
    }

    fn vis_groups_for(&self, size_px: (u32, u32)) -> VisGroups {
        let device = &self.device;
        let vis = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("raster.vis"),
            size: u64::from(size_px.0.max(1)) * u64::from(size_px.1.max(1)) * 8,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let group = |label, layout: &wgpu::BindGroupLayout, entries: &[wgpu::BindGroupEntry]| {
            device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries })
        };
        let small = group(
            "raster.small.vis",
            &self.small.get_bind_group_layout(2),
            &[
                entry(0, vis.as_entire_binding()),
                entry(1, self.uniforms.as_entire_binding()),
                entry(2, self.large_ids.as_entire_binding()),
                entry(3, self.large_args.as_entire_binding()),
                entry(4, self.histogram.as_entire_binding()),
            ],
        );
        let vis_and_uniforms = [entry(0, vis.as_entire_binding()), entry(1, self.uniforms.as_entire_binding())];
        let large = group("raster.large.vis", &self.large.get_bind_group_layout(1), &vis_and_uniforms);
        let shade_fragment = group("shade.vis", &self.vis_layout_fragment, &vis_and_uniforms);
        VisGroups { size_px, vis, small, large, shade_fragment }
    }

    /// The visibility buffer of the last `set_view`'s viewport.
    pub fn vis_buffer(&self) -> Option<&wgpu::Buffer> {
        self.vis_groups.as_ref().map(|g| &g.vis)
    }

    /// Triangles per size bin counted since the last `reset_histogram_now` (blocks on the GPU).
    pub fn read_histogram(&self, gpu: &crate::gpu::Gpu) -> [u32; HISTOGRAM_BINS] {
        let bytes = crate::gpu::readback::read_buffer(&gpu.device, &gpu.queue, &self.histogram, 0, HISTOGRAM_BINS as u64 * 4);
        bytemuck::pod_read_unaligned(&bytes)
    }

    /// Triangles the last submitted frame left to raster.large (blocks on the GPU).
    pub fn read_large_triangles(&self, gpu: &crate::gpu::Gpu) -> u32 {
        let bytes = crate::gpu::readback::read_buffer(&gpu.device, &gpu.queue, &self.large_args, 0, 4);
        bytemuck::pod_read_unaligned::<u32>(&bytes) / 3
    }

    /// Zeroes the triangle-size histogram before the next submission.
    pub fn reset_histogram_now(&self, queue: &wgpu::Queue) {
        queue.write_buffer(&self.histogram, 0, &[0; HISTOGRAM_BINS * 4]);
    }

    /// Records the rasterisation after globe.pool_decode: clear, raster.small (dispatched by
    /// `pool_args`, the pool's arguments over its listed leaves), raster.large.
    pub fn record_raster(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        pool_args: &wgpu::Buffer,
        target: &FrameTarget,
    ) {
        let groups = self.vis_groups.as_ref().expect("set_view before record_raster");
        encoder.clear_buffer(&groups.vis, 0, None);
        encoder.clear_buffer(&self.large_args, 0, None);
        profiled_compute_pass(profiler, encoder, "raster.small", |pass| {
            pass.set_pipeline(&self.small);
            pass.set_bind_group(0, &self.small_groups[0], &[]);
            pass.set_bind_group(1, &self.small_groups[1], &[]);
            pass.set_bind_group(2, &groups.small, &[]);
            pass.dispatch_workgroups_indirect(pool_args, 0);
        });
        let query = profiler.begin_pass_query("raster.large", encoder);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("raster.large"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: target.depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Discard }),
                    stencil_ops: None,
                }),
                timestamp_writes: query.render_pass_timestamp_writes(),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_viewport(0.0, 0.0, target.size_px.0 as f32, target.size_px.1 as f32, 0.0, 1.0);
            pass.set_pipeline(&self.large);
            pass.set_bind_group(0, &self.large_group, &[]);
            pass.set_bind_group(1, &groups.large, &[]);
            pass.draw_indirect(&self.large_args, 0);
        }
        profiler.end_query(encoder, query);
    }

    /// Records `shade` into `target` from the visibility buffer `record_raster` filled: a compute
    /// pass into the target's storage view where it has one, else a full-screen fragment pass.
    pub fn record_shade(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        groups: &ShadeGroups,
        target: &FrameTarget,
    ) {
        let vis = self.vis_groups.as_ref().expect("set_view before record_shade");
        if let (Some(pipeline), Some(view)) = (&self.shade_compute, storage_view_of(target.color)) {
            let output = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("shade.vis"),
                layout: &self.vis_layout_compute,
                entries: &[
                    entry(0, vis.vis.as_entire_binding()),
                    entry(1, self.uniforms.as_entire_binding()),
                    entry(2, wgpu::BindingResource::TextureView(&view)),
                ],
            });
            profiled_compute_pass(profiler, encoder, "shade", |pass| {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, &self.shade_group, &[]);
                pass.set_bind_group(1, groups.atmosphere, &[]);
                pass.set_bind_group(2, groups.cache, &[]);
                pass.set_bind_group(3, &output, &[]);
                pass.dispatch_workgroups(target.size_px.0.div_ceil(SHADE_TILE_PX), target.size_px.1.div_ceil(SHADE_TILE_PX), 1);
            });
            return;
        }
        let query = profiler.begin_pass_query("shade", encoder);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shade"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target.color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Clear(crate::globe::renderer::SPACE_COLOR), store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: query.render_pass_timestamp_writes(),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_viewport(0.0, 0.0, target.size_px.0 as f32, target.size_px.1 as f32, 0.0, 1.0);
            pass.set_pipeline(&self.shade_fragment);
            pass.set_bind_group(0, &self.shade_group, &[]);
            pass.set_bind_group(1, groups.atmosphere, &[]);
            pass.set_bind_group(2, groups.cache, &[]);
            pass.set_bind_group(3, &vis.shade_fragment, &[]);
            pass.draw(0..3, 0..1);
        }
        profiler.end_query(encoder, query);
    }
}
