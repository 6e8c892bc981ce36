//! The choice between the hardware draw and the compute rasteriser (`--raster`), and what the
//! scenes' compute rasterisers share: the flat terrain's (`flat::raster`) and the globe's over the
//! bisector pool (`globe::pool_raster`) both rasterise small triangles in compute into a 64-bit
//! visibility buffer (shaders/shared/vis_buffer.wgsl); large ones and those crossing the near plane
//! (clipped against it) in compute too, listed by raster.small, binned per screen tile by raster.bin
//! and drawn per tile by raster.wide, with the hardware (raster.large) for what overflows the lists;
//! then shade every pixel in compute.

use super::FrameTarget;

/// Which rasteriser draws the terrain (the flat terrain's, and the globe's over the bisector pool).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RasterPath {
    /// The hardware draw of every leaf (render.draw).
    #[default]
    Hardware,
    /// Triangles in compute into a visibility buffer, the hardware drawing only what overflows its lists.
    Compute,
    /// Compute where the adapter has the features and is a GPU (not a CPU rasteriser such as
    /// lavapipe), hardware elsewhere.
    Auto,
}

/// The device features the compute path needs.
pub const COMPUTE_FEATURES: wgpu::Features = wgpu::Features::SHADER_INT64.union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX);

/// Largest `large_px` (keeps the 1/256-px edge functions within i32).
pub const MAX_LARGE_PX: u32 = 64;
/// Default threshold in pixels above which a triangle goes to raster.bin and raster.wide (binned per tile).
pub const DEFAULT_LARGE_PX: u32 = 32;
/// Tile entries raster.wide holds at most (one workgroup each, within one dispatch dimension);
/// a triangle finding them full goes to raster.large.
pub const WIDE_ENTRY_CAPACITY: u64 = 65535;
/// Triangles raster.small lists for raster.bin at most per frame (one workgroup each, within one
/// dispatch dimension; shared/vis_raster.wgsl's RASTER_WIDE_TRIANGLE_CAPACITY); more go to raster.large.
pub const WIDE_TRIANGLE_CAPACITY: u64 = 65535;
/// Byte offset of raster.wide's indirect dispatch arguments in `VisBuffers::large_args`
/// (shared/raster_lists.wgsl's RasterArgs).
pub const WIDE_ARGS_OFFSET: u64 = 16;
/// Bytes of `VisBuffers::large_args`: raster.large's draw arguments, raster.wide's dispatch
/// arguments and the tile entries reserved.
pub const LARGE_ARGS_SIZE: u64 = 32;
/// Bytes of the header of `VisBuffers::wide_inputs` (raster.bin's dispatch arguments, padded)
/// before its WideInputs.
pub const WIDE_INPUTS_HEADER: u64 = 16;
/// Side in pixels of raster.wide's square screen tiles (shared/vis_raster.wgsl's RASTER_WIDE_TILE_PX).
pub const WIDE_TILE_PX: u32 = 32;
/// Snapped corners of a triangle raster.wide draws lie below this many pixels in absolute value
/// (shared/vis_raster.wgsl's RASTER_WIDE_GUARD_PX); beyond, the hardware draws it.
pub const WIDE_GUARD_PX: f32 = 4_194_304.0;
/// Bins of the triangle-size histogram (shared/vis_buffer.wgsl's RASTER_HISTOGRAM_BINS).
pub const HISTOGRAM_BINS: usize = 16;
/// Side in pixels of the square of pixels one workgroup of the compute shade covers
/// (terrain_shade_compute.wgsl's SHADE_TILE_PX).
pub const SHADE_TILE_PX: u32 = 8;

impl RasterPath {
    /// Whether this path draws in compute on a device with `features` of type `device_type`.
    pub fn uses_compute(self, features: wgpu::Features, device_type: wgpu::DeviceType) -> bool {
        match self {
            RasterPath::Hardware => false,
            RasterPath::Compute => features.contains(COMPUTE_FEATURES),
            RasterPath::Auto => features.contains(COMPUTE_FEATURES) && device_type != wgpu::DeviceType::Cpu,
        }
    }

    /// The path's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RasterPath::Hardware => "hardware",
            RasterPath::Compute => "compute",
            RasterPath::Auto => "auto",
        }
    }
}

/// The lower bound in pixels of histogram bin `bin` (bin 0 is under 1 px, bin k from 2^(k-1)).
pub fn histogram_bin_floor_px(bin: usize) -> u32 {
    if bin == 0 {
        0
    } else {
        1 << (bin - 1)
    }
}

/// Uniforms of the raster passes. Keep in sync with RasterUniforms in shaders/shared/vis_buffer.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RasterUniforms {
    pub size_px: [u32; 2],
    pub large_px: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<RasterUniforms>() == 16);

/// A piece of a listed triangle raster.bin set up for raster.wide. Keep in sync with WideTriangle in
/// shaders/shared/vis_raster.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WideTriangle {
    /// Corners in 1/256 px relative to `base_px`, in the edge test's order.
    pub a: [i32; 2],
    pub b: [i32; 2],
    pub c: [i32; 2],
    /// floor of the bounding box's minimum corner.
    pub base_px: [i32; 2],
    /// The pixels whose centres lie in the bounding box, inside the viewport (inclusive).
    pub lo_px: [i32; 2],
    pub hi_px: [i32; 2],
    /// Reverse-Z depths at a, b and c.
    pub z: [f32; 3],
    /// The id written into the visibility buffer.
    pub id: u32,
}
const _: () = assert!(std::mem::size_of::<WideTriangle>() == 64);

/// A triangle raster.small lists for raster.bin: its clip-space corners in drawing order and the id
/// it writes. Keep in sync with WideInput in shaders/shared/vis_raster.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WideInput {
    pub clip: [[f32; 4]; 3],
    pub id: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<WideInput>() == 64);

/// Pieces a triangle raster.bin clips (against the near plane and the guard band) is split into
/// at most: its slots in raster.wide's lists (shared/vis_raster.wgsl's RASTER_WIDE_PIECES).
pub const WIDE_PIECES: u64 = 6;
/// The clip-space guard band raster.bin clips against: x and y within +-CLIP_GUARD * w
/// (shared/vis_raster.wgsl's RASTER_CLIP_GUARD).
pub const CLIP_GUARD: f32 = 256.0;

/// Bytes of raster.wide's lists (shared/vis_raster.wgsl's WideLists) for `triangles` listed
/// triangles: WIDE_ENTRY_CAPACITY entries of 8 bytes (padded to the triangles' 16-byte alignment),
/// then WIDE_PIECES WideTriangles per listed triangle (the pieces of its clipping).
pub fn wide_lists_size(triangles: u64) -> u64 {
    (WIDE_ENTRY_CAPACITY * 8).next_multiple_of(16) + WIDE_PIECES * triangles * std::mem::size_of::<WideTriangle>() as u64
}

/// Bytes of raster.small's list for raster.bin (shared/raster_small.wgsl's WideInputs) holding
/// `triangles` triangles: the header, then one WideInput each.
pub fn wide_inputs_size(triangles: u64) -> u64 {
    WIDE_INPUTS_HEADER + triangles * std::mem::size_of::<WideInput>() as u64
}

/// raster.bin (shaders/raster_bin.wgsl) and raster.wide (shaders/raster_wide.wgsl), the same on
/// both scenes, built by the scene (schedule knows no shader files).
pub struct WidePipelines {
    pub bin: wgpu::ComputePipeline,
    pub wide: wgpu::ComputePipeline,
}

/// The format of the storage view through which the compute shade writes a target whose render
/// view has `color_format`, if it has one.
pub fn storage_format_for(color_format: wgpu::TextureFormat) -> Option<wgpu::TextureFormat> {
    (color_format.remove_srgb_suffix() == wgpu::TextureFormat::Rgba8Unorm).then_some(wgpu::TextureFormat::Rgba8Unorm)
}

/// The `Rgba8Unorm` storage view of the texture behind `color`, when it can be written by a
/// compute pass (`STORAGE_BINDING`, not the viewer's window surface); None otherwise.
pub fn storage_view_of(color: &wgpu::TextureView) -> Option<wgpu::TextureView> {
    let texture = color.texture();
    (texture.usage().contains(wgpu::TextureUsages::STORAGE_BINDING) && texture.format() == wgpu::TextureFormat::Rgba8Unorm).then(|| {
        texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("shade.target"),
            format: Some(texture.format()),
            usage: Some(wgpu::TextureUsages::STORAGE_BINDING),
            ..Default::default()
        })
    })
}

/// Adds to `requirements` what `path` needs: the compute rasteriser's features where present
/// (optional), and required under `--raster compute`, with an error that says so.
pub fn with_raster(mut requirements: crate::gpu::Requirements, path: RasterPath) -> crate::gpu::Requirements {
    requirements.optional_features |= COMPUTE_FEATURES;
    if path == RasterPath::Compute {
        for feature in COMPUTE_FEATURES.iter() {
            requirements =
                requirements.with_feature(feature, "--raster compute needs 64-bit storage-buffer atomics; use --raster hardware");
        }
    }
    requirements
}

/// A bind group entry binding `resource` at `binding`.
pub fn entry(binding: u32, resource: wgpu::BindingResource<'_>) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource }
}

/// A bind group layout entry for a buffer of type `ty` at `binding`, seen by `visibility`.
pub fn buffer_entry(binding: u32, visibility: wgpu::ShaderStages, ty: wgpu::BufferBindingType) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

/// The raster.large render pipeline from `module`'s `vs_large` and `fs_large`: back faces culled
/// (as the hardware draw), no colour target, a depth attachment only to make a pass.
pub fn large_pipeline(device: &wgpu::Device, module: &wgpu::ShaderModule) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("raster.large"),
        layout: None,
        vertex: wgpu::VertexState { module, entry_point: Some("vs_large"), compilation_options: Default::default(), buffers: &[] },
        // As the hardware draw: the triangles facing away are culled.
        primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
        // The depth attachment is only there to make a pass: the atomic max decides.
        depth_stencil: Some(crate::gpu::target::depth_state(false, wgpu::CompareFunction::Always)),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_large"),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The shade as a full-screen fragment pass (`module`'s `vs_full_screen` and `fs_shade`) into
/// targets of `color_format`, for targets without a storage view; `layout` None: derived.
pub fn shade_fragment_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: Option<&wgpu::PipelineLayout>,
    options: wgpu::PipelineCompilationOptions,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("shade"),
        layout,
        vertex: wgpu::VertexState { module, entry_point: Some("vs_full_screen"), compilation_options: options.clone(), buffers: &[] },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_shade"),
            compilation_options: options,
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// What both scenes' compute rasterisers own: the visibility buffer (one u64 per viewport pixel,
/// remade when the viewport changes), the raster uniforms, the triangle-size histogram,
/// raster.large's list and indirect arguments, raster.bin's and raster.wide's lists and passes; the
/// read-backs, the bind groups over them and the passes recorded the same way in both scenes.
pub struct VisBuffers {
    device: wgpu::Device,
    /// The RasterUniforms of the current viewport.
    pub uniforms: wgpu::Buffer,
    /// The leaves raster.small and raster.bin leave to raster.large (u32 each).
    pub large_ids: wgpu::Buffer,
    /// raster.large's indirect draw arguments (the first word: three vertices per listed leaf),
    /// then at byte 16 raster.wide's indirect dispatch arguments (one workgroup per tile entry)
    /// and the tile entries reserved (shared/raster_lists.wgsl's RasterArgs).
    pub large_args: wgpu::Buffer,
    /// raster.small's list for raster.bin (shared/raster_small.wgsl's WideInputs): raster.bin's
    /// indirect dispatch arguments (one workgroup per listed triangle), then the WideInputs.
    pub wide_inputs: wgpu::Buffer,
    /// raster.wide's lists (shared/vis_raster.wgsl's WideLists), written by raster.bin:
    /// WIDE_ENTRY_CAPACITY tile entries (the piece's slot, the tile's x | y << 16), then the
    /// WideTriangles, WIDE_PIECES slots per listed triangle.
    pub wide_lists: wgpu::Buffer,
    /// Triangles counted per size bin since the last `reset_histogram_now` (u32 each).
    pub histogram: wgpu::Buffer,
    /// Threshold in pixels above which a triangle goes to raster.large.
    pub large_px: u32,
    /// raster.bin and raster.wide.
    pipelines: WidePipelines,
    /// The visibility buffer and the viewport it was made for, with raster.bin's and raster.wide's
    /// bind groups over it.
    vis: Option<((u32, u32), wgpu::Buffer, [wgpu::BindGroup; 2])>,
}

impl VisBuffers {
    /// The buffers for at most `large_leaves` leaves sent to raster.bin or raster.large, triangles
    /// over `large_px` (clamped to 1..=MAX_LARGE_PX) going there; raster.bin and raster.wide are
    /// `pipelines`; no visibility buffer before `set_view`.
    pub fn new(device: &wgpu::Device, large_leaves: u64, large_px: u32, pipelines: WidePipelines) -> VisBuffers {
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        use wgpu::BufferUsages as U;
        VisBuffers {
            device: device.clone(),
            uniforms: buffer("raster.uniforms", std::mem::size_of::<RasterUniforms>() as u64, U::UNIFORM | U::COPY_DST),
            large_ids: buffer("raster.large_ids", large_leaves * 4, U::STORAGE),
            large_args: buffer("raster.large_args", LARGE_ARGS_SIZE, U::STORAGE | U::INDIRECT | U::COPY_DST | U::COPY_SRC),
            wide_inputs: buffer(
                "raster.wide_inputs",
                wide_inputs_size(large_leaves.clamp(1, WIDE_TRIANGLE_CAPACITY)),
                U::STORAGE | U::INDIRECT | U::COPY_DST | U::COPY_SRC,
            ),
            wide_lists: buffer("raster.wide_lists", wide_lists_size(large_leaves.clamp(1, WIDE_TRIANGLE_CAPACITY)), U::STORAGE),
            histogram: buffer("raster.histogram", HISTOGRAM_BINS as u64 * 4, U::STORAGE | U::COPY_SRC | U::COPY_DST),
            large_px: large_px.clamp(1, MAX_LARGE_PX),
            pipelines,
            vis: None,
        }
    }

    /// Sets the viewport of the next recorded frame; true when the visibility buffer was remade
    /// (the viewport changed), so that the bind groups over it must be remade too.
    pub fn set_view(&mut self, queue: &wgpu::Queue, size_px: (u32, u32)) -> bool {
        let remade = self.vis.as_ref().is_none_or(|(size, _, _)| *size != size_px);
        if remade {
            let vis = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("raster.vis"),
                size: u64::from(size_px.0.max(1)) * u64::from(size_px.1.max(1)) * 8,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let group = |label, pipeline: &wgpu::ComputePipeline, entries: &[wgpu::BindGroupEntry]| {
                let layout = pipeline.get_bind_group_layout(2);
                self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout: &layout, entries })
            };
            let bin = group(
                "raster.bin.lists",
                &self.pipelines.bin,
                &[
                    entry(1, self.uniforms.as_entire_binding()),
                    entry(2, self.large_ids.as_entire_binding()),
                    entry(3, self.large_args.as_entire_binding()),
                    entry(6, self.wide_lists.as_entire_binding()),
                    entry(7, self.wide_inputs.as_entire_binding()),
                ],
            );
            let wide = group(
                "raster.wide.vis",
                &self.pipelines.wide,
                &[
                    entry(0, vis.as_entire_binding()),
                    entry(1, self.uniforms.as_entire_binding()),
                    entry(6, self.wide_lists.as_entire_binding()),
                ],
            );
            self.vis = Some((size_px, vis, [bin, wide]));
        }
        let uniforms = RasterUniforms { size_px: [size_px.0, size_px.1], large_px: self.large_px, _pad: 0 };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
        remade
    }

    /// The visibility buffer of the last `set_view`'s viewport.
    pub fn vis_buffer(&self) -> Option<&wgpu::Buffer> {
        self.vis.as_ref().map(|(_, vis, _)| vis)
    }

    /// The device the buffers live on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    fn vis(&self) -> &wgpu::Buffer {
        self.vis_buffer().expect("set_view before the raster passes")
    }

    /// raster.small's group over the visibility buffer (group 2): the buffer (0), the uniforms
    /// (1), the large list (2), its and raster.wide's arguments (3), the histogram (4), raster.bin's
    /// list (7), then the scene's `more`.
    pub fn small_group(&self, layout: &wgpu::BindGroupLayout, more: &[wgpu::BindGroupEntry]) -> wgpu::BindGroup {
        let mut entries = vec![
            entry(0, self.vis().as_entire_binding()),
            entry(1, self.uniforms.as_entire_binding()),
            entry(2, self.large_ids.as_entire_binding()),
            entry(3, self.large_args.as_entire_binding()),
            entry(4, self.histogram.as_entire_binding()),
            entry(7, self.wide_inputs.as_entire_binding()),
        ];
        entries.extend_from_slice(more);
        self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some("raster.small.vis"), layout, entries: &entries })
    }

    /// A group named `label` over the visibility buffer (0) and the uniforms (1), as raster.large
    /// and shade read them, then the scene's `more`.
    pub fn vis_group(&self, label: &str, layout: &wgpu::BindGroupLayout, more: &[wgpu::BindGroupEntry]) -> wgpu::BindGroup {
        let mut entries = vec![entry(0, self.vis().as_entire_binding()), entry(1, self.uniforms.as_entire_binding())];
        entries.extend_from_slice(more);
        self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
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

    /// The tile entries raster.bin sent to raster.wide and the triangles raster.small listed for
    /// raster.bin in the last submitted frame (blocks on the GPU).
    pub fn read_wide_counts(&self, gpu: &crate::gpu::Gpu) -> (u32, u32) {
        let read = |buffer, offset| {
            let bytes = crate::gpu::readback::read_buffer(&gpu.device, &gpu.queue, buffer, offset, 4);
            bytemuck::pod_read_unaligned::<u32>(&bytes)
        };
        (read(&self.large_args, WIDE_ARGS_OFFSET), read(&self.wide_inputs, 0))
    }

    /// Zeroes the triangle-size histogram before the next submission.
    pub fn reset_histogram_now(&self, queue: &wgpu::Queue) {
        queue.write_buffer(&self.histogram, 0, &[0; HISTOGRAM_BINS * 4]);
    }

    /// Records the clearing of the visibility buffer, of raster.large's and raster.wide's
    /// arguments and of raster.bin's, then raster.small: `pipeline` with `groups` bound in order,
    /// dispatched by the indirect `args`; raster.bin, dispatched by the triangles raster.small
    /// listed; raster.wide, dispatched by the tile entries raster.bin wrote.
    pub fn record_small(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        pipeline: &wgpu::ComputePipeline,
        groups: &[&wgpu::BindGroup],
        args: &wgpu::Buffer,
    ) {
        let (_, vis, [bin_group, wide_group]) = self.vis.as_ref().expect("set_view before the raster passes");
        encoder.clear_buffer(vis, 0, None);
        encoder.clear_buffer(&self.large_args, 0, None);
        encoder.clear_buffer(&self.wide_inputs, 0, Some(WIDE_INPUTS_HEADER));
        crate::gpu::profiled_compute_pass(profiler, encoder, "raster.small", |pass| {
            set_compute_pipeline(pass, pipeline, groups);
            pass.dispatch_workgroups_indirect(args, 0);
        });
        crate::gpu::profiled_compute_pass(profiler, encoder, "raster.bin", |pass| {
            pass.set_pipeline(&self.pipelines.bin);
            pass.set_bind_group(2, bin_group, &[]);
            pass.dispatch_workgroups_indirect(&self.wide_inputs, 0);
        });
        crate::gpu::profiled_compute_pass(profiler, encoder, "raster.wide", |pass| {
            pass.set_pipeline(&self.pipelines.wide);
            pass.set_bind_group(2, wide_group, &[]);
            pass.dispatch_workgroups_indirect(&self.large_args, WIDE_ARGS_OFFSET);
        });
    }

    /// Records raster.large into `target`'s viewport: `pipeline` (from `large_pipeline`) with
    /// `groups` bound in order, drawn by the arguments raster.small and raster.bin wrote.
    pub fn record_large(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        target: &FrameTarget,
        pipeline: &wgpu::RenderPipeline,
        groups: &[&wgpu::BindGroup],
    ) {
        // Loaded, not cleared: its pipeline neither tests nor writes depth (the atomic max decides),
        // and on the H100 clearing a 1080p depth attachment cost 0.155 ms a frame even when the
        // draw drew nothing (its few ROPs clear it).
        let depth = wgpu::RenderPassDepthStencilAttachment {
            view: target.depth,
            depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Discard }),
            stencil_ops: None,
        };
        record_render_pass(encoder, profiler, "raster.large", target, &[], Some(depth), |pass| {
            set_render_pipeline(pass, pipeline, groups);
            pass.draw_indirect(&self.large_args, 0);
        });
    }
}

/// Records shade as a compute pass over `target`'s viewport (one thread per pixel): `pipeline`
/// with `groups` bound in order.
pub fn record_shade_compute(
    encoder: &mut wgpu::CommandEncoder,
    profiler: &wgpu_profiler::GpuProfiler,
    target: &FrameTarget,
    pipeline: &wgpu::ComputePipeline,
    groups: &[&wgpu::BindGroup],
) {
    crate::gpu::profiled_compute_pass(profiler, encoder, "shade", |pass| {
        set_compute_pipeline(pass, pipeline, groups);
        pass.dispatch_workgroups(target.size_px.0.div_ceil(SHADE_TILE_PX), target.size_px.1.div_ceil(SHADE_TILE_PX), 1);
    });
}

/// Records shade as a full-screen fragment pass into `target` (cleared to `clear`, for pixels
/// outside the viewport): `pipeline` (from `shade_fragment_pipeline`) with `groups` bound in order.
pub fn record_shade_fragment(
    encoder: &mut wgpu::CommandEncoder,
    profiler: &wgpu_profiler::GpuProfiler,
    target: &FrameTarget,
    pipeline: &wgpu::RenderPipeline,
    clear: wgpu::Color,
    groups: &[&wgpu::BindGroup],
) {
    let color = wgpu::RenderPassColorAttachment {
        view: target.color,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations { load: wgpu::LoadOp::Clear(clear), store: wgpu::StoreOp::Store },
    };
    record_render_pass(encoder, profiler, "shade", target, &[Some(color)], None, |pass| {
        set_render_pipeline(pass, pipeline, groups);
        pass.draw(0..3, 0..1);
    });
}

/// Sets `pipeline` on `pass` with `groups` bound in order.
fn set_compute_pipeline(pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline, groups: &[&wgpu::BindGroup]) {
    pass.set_pipeline(pipeline);
    for (index, group) in groups.iter().enumerate() {
        pass.set_bind_group(index as u32, *group, &[]);
    }
}

/// Sets `pipeline` on `pass` with `groups` bound in order.
fn set_render_pipeline(pass: &mut wgpu::RenderPass, pipeline: &wgpu::RenderPipeline, groups: &[&wgpu::BindGroup]) {
    pass.set_pipeline(pipeline);
    for (index, group) in groups.iter().enumerate() {
        pass.set_bind_group(index as u32, *group, &[]);
    }
}

/// Records the profiled render pass `label` into the attachments over `target`'s viewport, drawn
/// by `draw`.
fn record_render_pass(
    encoder: &mut wgpu::CommandEncoder,
    profiler: &wgpu_profiler::GpuProfiler,
    label: &str,
    target: &FrameTarget,
    color_attachments: &[Option<wgpu::RenderPassColorAttachment>],
    depth_stencil_attachment: Option<wgpu::RenderPassDepthStencilAttachment>,
    draw: impl FnOnce(&mut wgpu::RenderPass),
) {
    let query = crate::gpu::pass_query(profiler, label, encoder);
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments,
            depth_stencil_attachment,
            timestamp_writes: query.as_ref().and_then(|q| q.render_pass_timestamp_writes()),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_viewport(0.0, 0.0, target.size_px.0 as f32, target.size_px.1 as f32, 0.0, 1.0);
        draw(&mut pass);
    }
    crate::gpu::end_pass_query(profiler, encoder, query);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_the_features_and_the_adapter() {
        let (gpu, cpu) = (wgpu::DeviceType::DiscreteGpu, wgpu::DeviceType::Cpu);
        let none = wgpu::Features::empty();
        assert!(!RasterPath::Hardware.uses_compute(COMPUTE_FEATURES, gpu));
        assert!(RasterPath::Compute.uses_compute(COMPUTE_FEATURES, cpu));
        assert!(!RasterPath::Compute.uses_compute(wgpu::Features::SHADER_INT64, gpu), "needs the atomics too");
        assert!(RasterPath::Auto.uses_compute(COMPUTE_FEATURES, gpu));
        assert!(!RasterPath::Auto.uses_compute(COMPUTE_FEATURES, cpu), "a CPU adapter rasterises faster in its own pipeline");
        assert!(!RasterPath::Auto.uses_compute(none, gpu));
    }

    fn none() -> crate::gpu::Requirements {
        crate::gpu::Requirements {
            features: Vec::new(),
            optional_features: wgpu::Features::empty(),
            limits: Vec::new(),
            wanted_limits: Vec::new(),
        }
    }

    #[test]
    fn with_raster_requires_the_features_only_under_compute() {
        let limits = wgpu::Limits::default();
        let adapter = wgpu::Features::TIMESTAMP_QUERY;
        for path in [RasterPath::Hardware, RasterPath::Auto] {
            let requirements = with_raster(none(), path);
            assert!(requirements.check("old GPU", adapter, &limits).is_ok(), "{path:?} runs without 64-bit atomics");
            assert!(requirements.optional_features.contains(COMPUTE_FEATURES), "{path:?} asks for them where present");
        }
        let error = with_raster(none(), RasterPath::Compute).check("old GPU", adapter, &limits).unwrap_err().to_string();
        assert!(error.contains("SHADER_INT64") && error.contains("--raster compute") && !error.contains('\n'), "{error}");
    }

    #[test]
    fn histogram_bins_start_at_powers_of_two() {
        assert_eq!((0..5).map(histogram_bin_floor_px).collect::<Vec<_>>(), [0, 1, 2, 4, 8]);
    }
}
