//! The flat terrain: its passes in the shared schedule (`crate::schedule`):
//! update (leb.split | leb.merge) -> cbt.reduce -> cbt.args -> leb.decode -> render.draw, or
//! with `RasterPath::Compute` raster.small -> raster.bin -> raster.wide -> raster.large (what
//! overflows) -> shade instead of render.draw
//! (`raster`).

pub mod camera;
pub mod morph;
pub mod raster;
pub mod terrain_draw;
pub mod terrain_gradients;

use crate::cbt::cpu::Cbt;
use crate::cbt::gpu::GpuCbt;
use crate::gpu::{Gpu, Requirements};
use crate::leb::bounds::{BoundsDepths, GpuNodeBounds, NodeBounds};
use crate::leb::cpu::{UpdateKind, BASE_DEPTH};
use crate::leb::decode::LebDecode;
use crate::leb::lod::{Criterion, LodParams, LodView};
use crate::leb::update::LebUpdate;
use crate::schedule::headless::{convergence_frame_limit, HeadlessView, Shot};
use crate::schedule::{record_hardware_draw, FrameTarget, LebScene, LebTree};
use crate::terrain::HeightField;
use camera::Camera;
use raster::{RasterInputs, RasterPath, VisRaster};
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
    /// Which rasteriser draws the leaves.
    pub raster: RasterPath,
    /// With the compute rasteriser: triangles wider or taller than this on screen (pixels, at
    /// most `raster::MAX_LARGE_PX`) are drawn by the hardware.
    pub raster_large_px: u32,
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
            raster: RasterPath::Hardware,
            raster_large_px: raster::DEFAULT_LARGE_PX,
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
/// allows (down to the data's depth, at most MAX_BOUNDS_DEPTH); the compute rasteriser's 64-bit
/// atomics where the adapter has them, and required with `RasterPath::Compute`.
pub fn requirements(settings: &RenderSettings, samples_per_side: u32) -> Requirements {
    let data_depth = 2 * (samples_per_side.max(3) - 1).ilog2() + 1;
    let node_bounds_bytes = NodeBounds::array_bytes(data_depth.min(MAX_BOUNDS_DEPTH));
    let mut requirements = crate::cbt::requirements(settings.max_depth, settings.effective_leaf_capacity() as u64)
        .with_height_grid(samples_per_side, node_bounds_bytes);
    requirements.optional_features |= raster::COMPUTE_FEATURES;
    if settings.raster == RasterPath::Compute {
        for feature in raster::COMPUTE_FEATURES.iter() {
            requirements =
                requirements.with_feature(feature, "--raster compute needs 64-bit storage-buffer atomics; use --raster hardware");
        }
    }
    requirements
}

/// The flat terrain's passes and data on the GPU, over its `LebTree`.
pub struct Renderer {
    pub settings: RenderSettings,
    pub tree: LebTree,
    update: LebUpdate,
    decode: LebDecode,
    draw: TerrainDraw,
    /// The compute rasteriser, when the settings and the device choose it.
    raster: Option<VisRaster>,
    /// Kept alive for the bind groups of leb.split/merge and leb.decode.
    _bounds: GpuNodeBounds,
    terrain_size_m: f32,
    data_bounds_m: [f32; 4],
    height_range_m: (f32, f32),
    bounds_depths: BoundsDepths,
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
        let decode = LebDecode::new(device, &cbt, &gpu_bounds, true);
        let update = LebUpdate::new(device, &cbt, &decode, &gpu_bounds);
        let heights = field.create_texture(device, &gpu.queue);
        let gradients = terrain_gradients::compute(device, &gpu.queue, &heights);
        let draw = TerrainDraw::new(device, color_format, &decode.leaf_ids, &heights, &gradients);
        let device_type = gpu.adapter.get_info().device_type;
        let raster = settings.raster.uses_compute(device.features(), device_type).then(|| {
            let inputs = RasterInputs {
                leaf_ids: &decode.leaf_ids,
                cbt: &cbt,
                draw_uniforms: draw.uniforms(),
                heights: &heights,
                gradients: &gradients,
            };
            VisRaster::new(device, color_format, terrain_draw::SKY_COLOR, &inputs, settings.raster_large_px)
        });
        let mut renderer = Renderer {
            settings,
            tree: LebTree::new(device, cbt, 1),
            update,
            decode,
            draw,
            raster,
            _bounds: gpu_bounds,
            terrain_size_m: field.size_m,
            data_bounds_m: field.data_bounds_m,
            height_range_m: field.height_range_m(),
            bounds_depths,
        };
        renderer.record_init(gpu);
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

    /// The compute rasteriser, when this renderer draws with it.
    pub fn vis_raster(&self) -> Option<&VisRaster> {
        self.raster.as_ref()
    }

    fn draw_uniforms(&self, camera: &Camera, size_px: (u32, u32)) -> DrawUniforms {
        // Hillshade convention: sun from the north-west, 40 degrees up.
        let sun = glam::Vec3::new(-0.54, 0.54, 0.64).normalize();
        DrawUniforms {
            clip_from_world: camera.clip_from_world(size_px.0 as f32 / size_px.1 as f32).to_cols_array_2d(),
            camera_position_m: camera.position_m.as_vec3().extend(1.0).to_array(),
            sun_direction: sun.extend(0.0).to_array(),
            terrain_size_m: self.terrain_size_m,
            wireframe: self.settings.wireframe as u32,
            haze_distance_m: 4.0 * self.terrain_size_m,
            projection_scale: size_px.1 as f32 / (2.0 * (camera.fov_y_rad() * 0.5).tan()),
            morph_target_px: self.settings.threshold_px(),
            morph_mode: match (self.settings.morph, self.settings.criterion) {
                (false, _) => 0,
                (true, Criterion::ScreenSpaceError) => 1,
                (true, Criterion::EdgeLength) => 2,
            },
            _pad: [0; 2],
        }
    }
}

impl LebScene for Renderer {
    type Camera = Camera;

    fn tree(&self) -> &LebTree {
        &self.tree
    }
    fn tree_mut(&mut self) -> &mut LebTree {
        &mut self.tree
    }

    fn set_view(&mut self, queue: &wgpu::Queue, camera: &Camera, size_px: (u32, u32)) {
        self.decode.set_lod(queue, &self.lod_params(camera, size_px));
        self.draw.set_uniforms(queue, &self.draw_uniforms(camera, size_px));
        if let Some(raster) = &mut self.raster {
            raster.set_view(queue, size_px);
        }
    }

    fn record_update(&self, encoder: &mut wgpu::CommandEncoder, kind: UpdateKind) {
        self.update.record(encoder, &self.tree.profiler, kind, &self.tree.cbt);
    }

    fn record_decode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.decode.record(encoder, &self.tree.profiler, &self.tree.cbt);
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.draw.draw(pass, &self.tree.cbt);
    }

    fn draw_label(&self) -> &'static str {
        "render.draw"
    }

    fn record_draw(&self, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
        match &self.raster {
            Some(raster) => raster.record(encoder, &self.tree.profiler, &self.tree.cbt, target),
            None => record_hardware_draw(self, encoder, target),
        }
    }

    fn clear_color(&self) -> wgpu::Color {
        terrain_draw::SKY_COLOR
    }

    fn leaf_ids(&self) -> &wgpu::Buffer {
        &self.decode.leaf_ids
    }

    fn lod_stats(&self) -> &wgpu::Buffer {
        &self.decode.lod_stats
    }
}

/// Renders `field` from `camera` at `size_px` after the LOD has converged: what `bisector shot`
/// and the screenshot tests call.
pub fn render_shot(gpu: &Gpu, field: &HeightField, settings: RenderSettings, camera: &Camera, size_px: (u32, u32)) -> Shot {
    let max_frames = convergence_frame_limit(settings.max_depth);
    let renderer = Renderer::new(gpu, field, settings, crate::gpu::target::COLOR_FORMAT);
    HeadlessView::new(gpu, renderer, size_px.0, size_px.1).shot(gpu, camera, max_frames)
}
