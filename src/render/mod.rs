//! The frame schedule shared by `shot`, `bench` and the viewer:
//! update (leb.split | leb.merge) -> cbt.reduce -> cbt.args -> leb.decode -> render.draw.

pub mod camera;
pub mod headless;
pub mod morph;
pub mod terrain_draw;
pub mod terrain_gradients;

use crate::cbt::args::CbtArgs;
use crate::cbt::cpu::Cbt;
use crate::cbt::gpu::{FrameStats, GpuCbt};
use crate::cbt::reduce::CbtReduce;
use crate::gpu::timings::{take_timings, FrameTimings};
use crate::gpu::{Gpu, Requirements};
use crate::leb::bounds::{BoundsDepths, GpuNodeBounds, NodeBounds};
use crate::leb::cpu::{UpdateKind, BASE_DEPTH};
use crate::leb::decode::{LebDecode, LodStats};
use crate::leb::lod::{Criterion, LodParams, LodView};
use crate::leb::update::LebUpdate;
use crate::terrain::HeightField;
use camera::Camera;
use terrain_draw::{DrawUniforms, TerrainDraw};

/// What the renderer is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSettings {
    /// Max depth D of the CBT.
    pub max_depth: u32,
    /// What decides whether a triangle splits.
    pub criterion: Criterion,
    /// Screen-space error, in pixels, above which a triangle splits (criterion ScreenSpaceError).
    pub pixel_error_px: f32,
    /// Longest-edge length, in pixels, above which a triangle splits (criterion EdgeLength).
    pub pixel_target_px: f32,
    /// New vertices morph from the midpoint of their split edge to their height (no popping).
    pub morph: bool,
    /// Overlay triangle edges.
    pub wireframe: bool,
    /// Leaves the leaf-id buffer (and so the draw) holds at most.
    pub leaf_capacity: u32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            max_depth: 24,
            criterion: Criterion::ScreenSpaceError,
            pixel_error_px: 1.0,
            pixel_target_px: 12.0,
            morph: true,
            wireframe: false,
            leaf_capacity: 1 << 22,
        }
    }
}

impl RenderSettings {
    /// Leaf capacity actually used: no more than a tree of max depth D can have.
    pub fn effective_leaf_capacity(&self) -> u32 {
        self.leaf_capacity.min(1u32 << self.max_depth.min(31))
    }

    /// The split threshold in pixels of the chosen criterion.
    pub fn threshold_px(&self) -> f32 {
        match self.criterion {
            Criterion::ScreenSpaceError => self.pixel_error_px,
            Criterion::EdgeLength => self.pixel_target_px,
        }
    }
}

/// Deepest node-bounds depth stored (3 arrays of 256 MiB); deeper nodes share their ancestor's.
pub const MAX_BOUNDS_DEPTH: u32 = 25;

/// The deepest node-bounds depth whose arrays the device can bind, at most MAX_BOUNDS_DEPTH
/// (23 within WebGPU's default 128 MiB binding; 25 on GPUs that allow 256 MiB).
pub fn bounds_depth_for(limits: &wgpu::Limits) -> u32 {
    let bytes = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    (1..=MAX_BOUNDS_DEPTH).rev().find(|&d| NodeBounds::array_bytes(d) <= bytes).unwrap_or(1)
}

/// What the flat terrain needs from the device: the CBT's needs with `settings`, 2-D textures for
/// a height grid of `samples_per_side`, and storage buffers for its node bounds where the adapter
/// allows (down to the data's depth, at most MAX_BOUNDS_DEPTH).
pub fn requirements(settings: &RenderSettings, samples_per_side: u32) -> Requirements {
    let data_depth = 2 * (samples_per_side.max(3) - 1).ilog2() + 1;
    let node_bounds_bytes = NodeBounds::array_bytes(data_depth.min(MAX_BOUNDS_DEPTH));
    crate::cbt::requirements(settings.max_depth, settings.effective_leaf_capacity() as u64)
        .with_height_grid(samples_per_side, node_bounds_bytes)
}

/// Everything the frame schedule needs on the GPU.
pub struct Renderer {
    pub settings: RenderSettings,
    pub cbt: GpuCbt,
    reduce: CbtReduce,
    args: CbtArgs,
    update: LebUpdate,
    decode: LebDecode,
    draw: TerrainDraw,
    /// Kept alive for the bind groups of leb.split/merge and leb.decode.
    _bounds: GpuNodeBounds,
    pub profiler: wgpu_profiler::GpuProfiler,
    /// Run leb.split on split frames (the viewer's split switch and freeze; true by default).
    pub split_enabled: bool,
    /// Run leb.merge on merge frames (the viewer's merge switch and freeze; true by default).
    pub merge_enabled: bool,
    terrain_size_m: f32,
    data_bounds_m: [f32; 4],
    height_range_m: (f32, f32),
    bounds_depths: BoundsDepths,
    frame_index: u64,
}

impl Renderer {
    /// Uploads the terrain, its node bounds (built here from the heights) and a tree made of the
    /// two base triangles.
    pub fn new(gpu: &Gpu, field: &HeightField, settings: RenderSettings, color_format: wgpu::TextureFormat) -> Renderer {
        let bounds = crate::terrain::node_bounds::build(field, bounds_depth_for(&gpu.device.limits()));
        let depths = bounds.depths();
        // The CPU copy (up to 4 x 128 MiB on lavapipe) is freed as it uploads, before the height
        // textures are made.
        let gpu_bounds = crate::leb::bounds::upload_node_bounds_from(&gpu.device, &gpu.queue, bounds);
        Renderer::with_gpu_bounds(gpu, field, gpu_bounds, depths, settings, color_format)
    }

    /// As `new`, with node bounds built by the caller (tests compare with the CPU twin on them).
    pub fn with_bounds(
        gpu: &Gpu,
        field: &HeightField,
        bounds: &NodeBounds,
        settings: RenderSettings,
        color_format: wgpu::TextureFormat,
    ) -> Renderer {
        let gpu_bounds = crate::leb::bounds::upload_node_bounds(&gpu.device, &gpu.queue, bounds);
        Renderer::with_gpu_bounds(gpu, field, gpu_bounds, bounds.depths(), settings, color_format)
    }

    /// As `new`, with the node bounds already on the GPU.
    fn with_gpu_bounds(
        gpu: &Gpu,
        field: &HeightField,
        gpu_bounds: GpuNodeBounds,
        bounds_depths: BoundsDepths,
        settings: RenderSettings,
        color_format: wgpu::TextureFormat,
    ) -> Renderer {
        let device = &gpu.device;
        let cbt = GpuCbt::new(device, &Cbt::new(settings.max_depth, BASE_DEPTH), settings.effective_leaf_capacity());
        let reduce = CbtReduce::new(device, &cbt);
        let args = CbtArgs::new(device, &cbt);
        let decode = LebDecode::new(device, &cbt, &gpu_bounds, true);
        let update = LebUpdate::new(device, &cbt, &decode, &gpu_bounds);
        let heights = field.create_texture(device, &gpu.queue);
        let gradients = terrain_gradients::compute(device, &gpu.queue, &heights);
        let draw = TerrainDraw::new(device, color_format, &decode.leaf_ids, &heights, &gradients);
        let profiler = crate::gpu::create_profiler(device);
        let mut renderer = Renderer {
            settings,
            cbt,
            reduce,
            args,
            update,
            decode,
            draw,
            _bounds: gpu_bounds,
            profiler,
            split_enabled: true,
            merge_enabled: true,
            terrain_size_m: field.size_m,
            data_bounds_m: field.data_bounds_m,
            height_range_m: field.height_range_m(),
            bounds_depths,
            frame_index: 0,
        };
        // The first update dispatches over the leaves counted by cbt.args and decoded by leb.decode.
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("render.init") });
        renderer.args.record(&mut encoder, &renderer.profiler);
        renderer.decode.record(&mut encoder, &renderer.profiler, &renderer.cbt);
        renderer.profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        renderer
    }

    /// Side of the terrain square in metres.
    pub fn terrain_size_m(&self) -> f32 {
        self.terrain_size_m
    }
    /// West, south, east, north edges in metres of the part of the terrain with data.
    pub fn data_bounds_m(&self) -> [f32; 4] {
        self.data_bounds_m
    }
    /// Lowest and highest terrain height in metres.
    pub fn height_range_m(&self) -> (f32, f32) {
        self.height_range_m
    }
    /// One u32 node id per leaf, written by leb.decode (the viewer reads it back for its depth histogram).
    pub fn leaf_ids(&self) -> &wgpu::Buffer {
        &self.decode.leaf_ids
    }
    /// Frames recorded so far.
    pub fn frame_index(&self) -> u64 {
        self.frame_index
    }

    /// The LOD criterion for `camera` on a viewport of `size_px`, culling outside its frustum.
    pub fn lod_params(&self, camera: &Camera, size_px: (u32, u32)) -> LodParams {
        let view = LodView {
            position_m: camera.position_m.as_vec3(),
            clip_from_world: Some(camera.clip_from_world(size_px.0 as f32 / size_px.1 as f32)),
            fov_y_rad: camera.fov_y_rad(),
            viewport_height_px: size_px.1,
        };
        let s = &self.settings;
        LodParams::new(&view, s.criterion, s.threshold_px(), self.terrain_size_m, s.max_depth, self.bounds_depths)
    }

    /// Records one frame into `encoder` and advances the split/merge alternation. After submitting
    /// the encoder, call `end_frame`.
    pub fn record_frame(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        camera: &Camera,
        size_px: (u32, u32),
        color: &wgpu::TextureView,
        depth: &wgpu::TextureView,
    ) {
        let kind = UpdateKind::for_frame(self.frame_index);
        self.decode.set_lod(queue, &self.lod_params(camera, size_px));
        self.draw.set_uniforms(queue, &self.draw_uniforms(camera, size_px));
        if match kind {
            UpdateKind::Split => self.split_enabled,
            UpdateKind::Merge => self.merge_enabled,
        } {
            self.update.record(encoder, &self.profiler, kind, &self.cbt);
        }
        self.reduce.record_changed(encoder, &self.profiler, &self.cbt);
        self.args.record(encoder, &self.profiler);
        self.decode.record(encoder, &self.profiler, &self.cbt);
        self.draw.record(encoder, &self.profiler, &self.cbt, color, depth);
        self.profiler.resolve_queries(encoder);
        self.frame_index += 1;
    }

    fn draw_uniforms(&self, camera: &Camera, size_px: (u32, u32)) -> DrawUniforms {
        // Hillshade convention: sun from the north-west, 40 degrees up.
        let sun = glam::Vec3::new(-0.54, 0.54, 0.64).normalize();
        DrawUniforms {
            clip_from_world: camera.clip_from_world(size_px.0 as f32 / size_px.1 as f32).to_cols_array_2d(),
            camera_position_m: camera.position_m.as_vec3().extend(1.0).to_array(),
            sun_direction: sun.extend(0.0).to_array(),
            terrain_size_m: self.terrain_size_m,
            height_min_m: self.height_range_m.0,
            height_max_m: self.height_range_m.1,
            wireframe: self.settings.wireframe as u32,
            haze_distance_m: 4.0 * self.terrain_size_m,
            projection_scale: size_px.1 as f32 / (2.0 * (camera.fov_y_rad() * 0.5).tan()),
            morph_target_px: self.settings.threshold_px(),
            morph_mode: match (self.settings.morph, self.settings.criterion) {
                (false, _) => 0,
                (true, Criterion::ScreenSpaceError) => 1,
                (true, Criterion::EdgeLength) => 2,
            },
        }
    }

    /// Closes the profiler frame after the frame's encoder was submitted.
    pub fn end_frame(&mut self) {
        self.profiler.end_frame().expect("profiler frame bookkeeping");
    }

    /// GPU times of the oldest finished frame, if its timestamps are available: every pass, and
    /// the whole frame from the first pass's start to the last pass's end.
    pub fn take_timings(&mut self, queue: &wgpu::Queue) -> Option<FrameTimings> {
        take_timings(&mut self.profiler, queue)
    }

    /// Statistics of the last submitted frame (blocks on the GPU).
    pub fn read_stats(&self, gpu: &Gpu) -> FrameStats {
        self.cbt.read_stats(&gpu.device, &gpu.queue)
    }

    /// The node ids of the leaves leb.decode wrote in the last submitted frame (blocks on the GPU).
    pub fn read_leaf_ids(&self, gpu: &Gpu) -> Vec<u32> {
        self.cbt.read_leaf_ids(&gpu.device, &gpu.queue, &self.decode.leaf_ids)
    }

    /// What leb.decode measured in the last submitted frame: the largest remaining size on screen
    /// of a visible leaf under the criterion, and the visible leaves (blocks on the GPU).
    pub fn read_lod_stats(&self, gpu: &Gpu) -> LodStats {
        self.decode.read_lod_stats(&gpu.device, &gpu.queue)
    }
}
