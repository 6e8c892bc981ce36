//! The frame schedule shared by `shot`, `bench` and the viewer:
//! update (leb.split | leb.merge) -> cbt.reduce -> cbt.args -> leb.decode -> render.draw.

pub mod camera;
pub mod headless;
pub mod target;
pub mod terrain_draw;

use crate::cbt::args::CbtArgs;
use crate::cbt::cpu::Cbt;
use crate::cbt::gpu::{FrameStats, GpuCbt};
use crate::cbt::reduce::CbtReduce;
use crate::gpu::Gpu;
use crate::leb::cpu::{UpdateKind, BASE_DEPTH};
use crate::leb::decode::LebDecode;
use crate::leb::lod::LodParams;
use crate::leb::update::LebUpdate;
use crate::terrain::HeightField;
use camera::Camera;
use terrain_draw::{DrawUniforms, TerrainDraw};

/// What the renderer is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSettings {
    /// Max depth D of the CBT.
    pub max_depth: u32,
    /// Longest-edge length, in pixels, above which a triangle splits.
    pub pixel_target_px: f32,
    /// Overlay triangle edges.
    pub wireframe: bool,
    /// Leaves the leaf-id buffer (and so the draw) holds at most.
    pub leaf_capacity: u32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings { max_depth: 24, pixel_target_px: 12.0, wireframe: false, leaf_capacity: 1 << 22 }
    }
}

impl RenderSettings {
    /// Leaf capacity actually used: no more than a tree of max depth D can have.
    pub fn effective_leaf_capacity(&self) -> u32 {
        self.leaf_capacity.min(1u32 << self.max_depth.min(31))
    }
}

/// GPU time of one pass in one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTiming {
    pub label: String,
    pub gpu_ms: f64,
}

/// GPU times of one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameTimings {
    pub passes: Vec<PassTiming>,
    /// From the start of the first pass to the end of the last, in milliseconds.
    pub frame_gpu_ms: f64,
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
    pub profiler: wgpu_profiler::GpuProfiler,
    /// Run leb.split on split frames (the viewer's split switch and freeze; true by default).
    pub split_enabled: bool,
    /// Run leb.merge on merge frames (the viewer's merge switch and freeze; true by default).
    pub merge_enabled: bool,
    terrain_size_m: f32,
    data_bounds_m: [f32; 4],
    height_range_m: (f32, f32),
    frame_index: u64,
}

impl Renderer {
    /// Uploads the terrain and a tree made of the two base triangles.
    pub fn new(gpu: &Gpu, field: &HeightField, settings: RenderSettings, color_format: wgpu::TextureFormat) -> Renderer {
        let device = &gpu.device;
        let cbt = GpuCbt::new(device, &Cbt::new(settings.max_depth, BASE_DEPTH), settings.effective_leaf_capacity());
        let reduce = CbtReduce::new(device, &cbt);
        let args = CbtArgs::new(device, &cbt);
        let decode = LebDecode::new(device, &cbt);
        let update = LebUpdate::new(device, &cbt, &decode);
        let heights = field.create_texture(device, &gpu.queue);
        let draw = TerrainDraw::new(device, color_format, &decode.leaf_ids, &heights);
        let profiler = crate::gpu::create_profiler(device);
        let mut renderer = Renderer {
            settings,
            cbt,
            reduce,
            args,
            update,
            decode,
            draw,
            profiler,
            split_enabled: true,
            merge_enabled: true,
            terrain_size_m: field.size_m,
            data_bounds_m: field.data_bounds_m,
            height_range_m: field.height_range_m(),
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

    /// The LOD criterion for `camera` on a viewport `height_px` pixels high.
    pub fn lod_params(&self, camera: &Camera, height_px: u32) -> LodParams {
        LodParams::new(
            camera.position_m.as_vec3(),
            camera.fov_y_rad(),
            height_px,
            self.settings.pixel_target_px,
            self.terrain_size_m,
            self.height_range_m,
            self.settings.max_depth,
        )
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
        self.update.set_lod(queue, &self.lod_params(camera, size_px.1));
        self.draw.set_uniforms(queue, &self.draw_uniforms(camera, size_px));
        if match kind {
            UpdateKind::Split => self.split_enabled,
            UpdateKind::Merge => self.merge_enabled,
        } {
            self.update.record(encoder, &self.profiler, kind, &self.cbt);
        }
        self.reduce.record(encoder, &self.profiler);
        self.args.record(encoder, &self.profiler);
        self.decode.record(encoder, &self.profiler, &self.cbt);
        self.draw.record(encoder, &self.profiler, &self.cbt, color, depth);
        self.profiler.resolve_queries(encoder);
        self.frame_index += 1;
    }

    fn draw_uniforms(&self, camera: &Camera, size_px: (u32, u32)) -> DrawUniforms {
        let sun = glam::Vec3::new(-0.55, -0.35, 0.6).normalize();
        DrawUniforms {
            clip_from_world: camera.clip_from_world(size_px.0 as f32 / size_px.1 as f32).to_cols_array_2d(),
            camera_position_m: camera.position_m.as_vec3().extend(1.0).to_array(),
            sun_direction: sun.extend(0.0).to_array(),
            terrain_size_m: self.terrain_size_m,
            height_min_m: self.height_range_m.0,
            height_max_m: self.height_range_m.1,
            wireframe: self.settings.wireframe as u32,
            haze_distance_m: 4.0 * self.terrain_size_m,
            _pad: [0.0; 3],
        }
    }

    /// Closes the profiler frame after the frame's encoder was submitted.
    pub fn end_frame(&mut self) {
        self.profiler.end_frame().expect("profiler frame bookkeeping");
    }

    /// GPU times of the oldest finished frame, if its timestamps are available: every pass, and
    /// the whole frame from the first pass's start to the last pass's end.
    pub fn take_timings(&mut self, queue: &wgpu::Queue) -> Option<FrameTimings> {
        let results = self.profiler.process_finished_frame(queue.get_timestamp_period())?;
        let timed: Vec<(String, std::ops::Range<f64>)> = results.into_iter().filter_map(|r| r.time.map(|t| (r.label, t))).collect();
        let start = timed.iter().map(|(_, t)| t.start).fold(f64::INFINITY, f64::min);
        let end = timed.iter().map(|(_, t)| t.end).fold(f64::NEG_INFINITY, f64::max);
        Some(FrameTimings {
            frame_gpu_ms: if timed.is_empty() { 0.0 } else { (end - start) * 1e3 },
            passes: timed.into_iter().map(|(label, t)| PassTiming { label, gpu_ms: (t.end - t.start) * 1e3 }).collect(),
        })
    }

    /// Statistics of the last submitted frame (blocks on the GPU).
    pub fn read_stats(&self, gpu: &Gpu) -> FrameStats {
        self.cbt.read_stats(&gpu.device, &gpu.queue)
    }
}
