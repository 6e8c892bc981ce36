//! Hybrid rasterisation of the globe drawn from the bisector pool into a visibility buffer
//! (`--raster compute`), as the flat terrain's (`flat::raster`):
//!
//! ```text
//! globe.pool_decode -> clear vis -> raster.small (compute, per listed leaf)
//!   -> raster.bin (compute, per large or near-plane-crossing triangle: clipped, binned per tile)
//!   -> raster.wide (compute, per 32x32-px tile entry)
//!   -> raster.large (hardware, the leaves that overflowed the lists) -> globe.hzb (from the buffer's depths)
//!   -> shade (compute, per pixel: the terrain, or the sky where no triangle is)
//! ```
//!
//! The visibility buffer holds one u64 per viewport pixel: reverse-Z depth << 32 | the leaf's
//! index in pool.list (its drawing order), kept by a 64-bit atomic max (nearest wins; 0 is
//! empty). `raster.small` (shaders/globe_raster_small.wgsl) projects the three camera-relative
//! vertices globe.pool_decode placed for the draw (`globe.pool_draw_positions`) and rasterises a
//! triangle at most `large_px` wide and tall with shared/vis_raster.wgsl's `raster_triangle` (CPU
//! twin `flat::raster::rasterise_cpu`); larger ones and those crossing the near plane go to
//! `raster.bin` and `raster.wide` (shaders/raster_bin.wgsl, shaders/raster_wide.wgsl, the flat
//! terrain's passes: clipped against the near plane and the guard band, binned per screen tile,
//! edge functions in i64, CPU twin `flat::raster::rasterise_wide_cpu`), and what overflows their
//! lists to `raster.large` (globe_raster_large.wgsl), an indirect hardware draw whose fragments
//! write the same buffer by the same atomic max, so the paths meet per pixel under one depth
//! order. `shade`
//! (globe_shade_compute.wgsl) re-derives each pixel's triangle from its leaf (slot, vertices, map
//! points), its perspective-correct barycentric coordinates from the vertices' clip positions, and
//! shades it with the draw's own function (`globe_shaded` in shared/globe_shade.wgsl) under the
//! atmosphere's light evaluated at the pixel; pixels without a triangle get the sky of
//! atmosphere.sky (shared/atmosphere_sky.wgsl), or space's colour with the atmosphere off. It is a
//! compute pass writing the target's `Rgba8Unorm` storage view, or the same as a full-screen
//! fragment pass for targets without one (the viewer's window surface). There is no hardware
//! depth: globe.hzb builds the occlusion pyramid from the buffer's depth bits
//! (`GpuOcclusion::record_build_from_vis`).

use crate::schedule::raster::{
    buffer_entry, entry, large_pipeline, record_shade_compute, record_shade_fragment, shade_fragment_pipeline, storage_format_for,
    storage_view_of, VisBuffers, WidePipelines,
};
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
    /// Bind groups over the visibility buffer, remade when the viewport changes.
    vis_groups: Option<VisGroups>,
    /// The visibility buffer, the uniforms, the histogram and raster.large's arguments.
    buffers: VisBuffers,
}

/// The read-backs and the visibility buffer are the shared `VisBuffers`'.
impl std::ops::Deref for GlobeVisRaster {
    type Target = VisBuffers;
    fn deref(&self) -> &VisBuffers {
        &self.buffers
    }
}

/// The bind groups over the visibility buffer of one viewport size.
struct VisGroups {
    small: wgpu::BindGroup,
    large: wgpu::BindGroup,
    shade_fragment: wgpu::BindGroup,
}

impl GlobeVisRaster {
    /// Builds the passes for colour targets of `color_format` over `inputs`, sending triangles
    /// over `large_px` (at most MAX_LARGE_PX) to raster.bin.
    pub fn new(device: &wgpu::Device, color_format: wgpu::TextureFormat, inputs: &PoolRasterInputs, large_px: u32) -> GlobeVisRaster {
        let small = SHADERS.compute_pipeline(device, "raster.small", "globe_raster_small.wgsl", "raster_small", &[]);
        let large_module = SHADERS.create_module(device, "globe_raster_large.wgsl");
        let large = large_pipeline(device, &large_module);
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
            SHADERS.dump_compute_pipeline("shade", ("globe_shade_compute.wgsl", &[]), "cs_shade", &constants, true);
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("shade"),
                layout: Some(&pipeline_layout(&vis_layout_compute)),
                module: &shade_module,
                entry_point: Some("cs_shade"),
                compilation_options: options.clone(),
                cache: None,
            })
        });
        let shade_fragment =
            shade_fragment_pipeline(device, &shade_module, Some(&pipeline_layout(&vis_layout_fragment)), options, color_format);
        let pipelines = WidePipelines {
            bin: SHADERS.compute_pipeline(device, "raster.bin", "raster_bin.wgsl", "raster_bin", &[]),
            wide: SHADERS.compute_pipeline(device, "raster.wide", "raster_wide.wgsl", "raster_wide", &[]),
        };
        let buffers = VisBuffers::new(device, u64::from(inputs.pool_slots.max(1)), large_px, pipelines);
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
                entry(0, buffers.large_ids.as_entire_binding()),
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
            buffers,
        }
    }

    /// Sets the viewport of the next recorded frame (remaking the visibility buffer when it changed).
    pub fn set_view(&mut self, queue: &wgpu::Queue, size_px: (u32, u32)) {
        if self.buffers.set_view(queue, size_px) || self.vis_groups.is_none() {
            self.vis_groups = Some(VisGroups {
                small: self.buffers.small_group(&self.small.get_bind_group_layout(2), &[]),
                large: self.buffers.vis_group("raster.large.vis", &self.large.get_bind_group_layout(1), &[]),
                shade_fragment: self.buffers.vis_group("shade.vis", &self.vis_layout_fragment, &[]),
            });
        }
    }

    /// Records the rasterisation after globe.pool_decode: clear, raster.small (dispatched by
    /// `pool_args`, the pool's arguments over its listed leaves), raster.bin, raster.wide,
    /// raster.large.
    pub fn record_raster(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        pool_args: &wgpu::Buffer,
        target: &FrameTarget,
    ) {
        let groups = self.vis_groups.as_ref().expect("set_view before record_raster");
        let small_groups = [&self.small_groups[0], &self.small_groups[1], &groups.small];
        self.buffers.record_small(encoder, profiler, &self.small, &small_groups, pool_args);
        self.buffers.record_large(encoder, profiler, target, &self.large, &[&self.large_group, &groups.large]);
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
            let output =
                self.buffers.vis_group("shade.vis", &self.vis_layout_compute, &[entry(2, wgpu::BindingResource::TextureView(&view))]);
            let groups = [&self.shade_group, groups.atmosphere, groups.cache, &output];
            record_shade_compute(encoder, profiler, target, pipeline, &groups);
            return;
        }
        let groups = [&self.shade_group, groups.atmosphere, groups.cache, &vis.shade_fragment];
        record_shade_fragment(encoder, profiler, target, &self.shade_fragment, crate::globe::renderer::SPACE_COLOR, &groups);
    }
}
