//! The globe drawn from the bisector pool (issue 15 step 9; docs/design/bisector-pool.md): the
//! same frame uniforms, tile cache and shading as `GlobeRenderer`, but the leaves are the pool's
//! slots, 64-bit node ids refined to 60 levels below the octahedron's base (the heap stops at depth 29).
//!
//! ```text
//! schedule   begin (tile cache) -> uniforms -> pool split | merge frame -> globe.pool_decode
//!            -> globe.pool_draw -> end (tile cache)
//! pool frame the pool's passes (src/pool/gpu_passes.rs) under the globe's criterion
//!            (shaders/shared/pool_criterion_globe.wgsl: projected hypotenuse against the pixel
//!            target, 0 when hidden), their own reduction and pool.order (the draw list)
//! decode     one thread per listed slot: tile requests, LOD statistics, the draw's arguments,
//!            the leaf count and deepest leaf into the tree's FrameStats; the near edges'
//!            histogram (globe::near_edges) into globe.near_edges
//! draw       3 vertices per listed slot, placed from the 64-bit vertices (shared/pool_globe.wgsl);
//!            or with `--raster compute` the compute rasteriser (globe::pool_raster): raster.small,
//!            raster.bin, raster.wide, raster.large (what overflows), globe.hzb from its visibility
//!            buffer, shade
//! ```
//! `LebTree` holds the pool's allocator CBT (the same heap buffer), its profiler and the frame
//! index that alternates split and merge frames; its own cbt.reduce and cbt.args are not recorded
//! (the pool's frame reduces and lists itself), so `record_rebuild` is the decode alone.

use crate::globe::atmosphere::{Atmosphere, AtmosphereParams, AtmosphereView};
use crate::globe::cache::tile_cache::TileCache;
use crate::globe::camera::GlobeCamera;
use crate::globe::frame::{globe_frame, FrameSettings, GlobeFrame};
use crate::globe::near_edges::{GpuNearEdges, NearEdgeHistogram};
use crate::globe::occlusion::{DrawnView, GpuOcclusion};
use crate::globe::pool_raster::{GlobeVisRaster, PoolRasterInputs, ShadeGroups};
use crate::globe::renderer::{compute_pipeline, draw_pipeline, layout, Binding, GlobeSettings, SPACE_COLOR};
use crate::gpu::{profiled_compute_pass, Gpu, Requirements};
use crate::leb::cpu::UpdateKind;
use crate::leb::lod::{Criterion, MERGE_HYSTERESIS};
use crate::pool::gpu::GpuPoolParams;
use crate::pool::{GpuPool, PoolSettings, SceneCriterion};
use crate::schedule::raster::RasterPath;
use crate::schedule::{record_hardware_draw, FrameTarget, LebScene, LebTree};
use glam::DVec3;

// globe_pool_decode.wgsl reads the leaf count as word 5 of pool.control (its PoolParams).
const _: () = assert!(std::mem::offset_of!(GpuPoolParams, leaves) == 5 * 4);

/// Storage buffers of a compute pass under the globe's criterion: globe.pool_decode's 9 (the near
/// edges' and the draw's positions among them) and the tile cache's 3 (the pool's passes have 9: their
/// 8 and the decode's positions).
const POOL_PASS_STORAGE_BUFFERS: u64 = 12;

/// What the globe over the pool needs from the device: the pool's buffers, the tile cache's
/// texture array of `cache_tiles` layers and 12 storage buffers per compute pass; the compute
/// rasteriser's 64-bit atomics where the adapter has them (required with `requirements_for`
/// under `--raster compute`).
pub fn requirements(pool: &PoolSettings, cache_tiles: u32) -> Requirements {
    requirements_for(pool, cache_tiles, RasterPath::Auto)
}

/// `requirements` with the rasteriser `raster`: `RasterPath::Compute` requires its features.
pub fn requirements_for(pool: &PoolSettings, cache_tiles: u32, raster: RasterPath) -> Requirements {
    let requirements = pool.requirements().with_cache_tiles(cache_tiles).with_limit(
        crate::gpu::Limit::MaxStorageBuffersPerShaderStage,
        POOL_PASS_STORAGE_BUFFERS,
        "for the bisector pool's passes, which read heights from the tile cache",
    );
    crate::schedule::raster::with_raster(requirements, raster)
}

/// The globe's scene over the bisector pool.
pub struct GlobePoolRenderer {
    /// The globe's settings: the pixel target (the pool's T, on the leaves themselves: no
    /// sub-triangles), wireframe and sun; `max_depth`, `sub_levels` and `leaf_capacity` are the
    /// heap's and unused.
    pub settings: GlobeSettings,
    pub pool_settings: PoolSettings,
    pub tree: LebTree,
    /// The tiles every pass samples heights from (bound at @group(2)).
    pub cache: TileCache,
    /// The sky, and the light and aerial perspective of the draw (bound at @group(1)).
    pub atmosphere: Atmosphere,
    pub pool: GpuPool,
    /// The depth pyramid of the last drawn frame and the criterion's test against it
    /// (`settings.occlusion`).
    pub occlusion: GpuOcclusion,
    frame: wgpu::Buffer,
    /// globe.pool_decode without and with the near-edge histogram (its NEAR_EDGES override).
    decode: (wgpu::ComputePipeline, wgpu::BindGroup),
    decode_near_edges: wgpu::ComputePipeline,
    /// globe.pool_decode without the data's error bound (ERROR_SAMPLE false): a split frame's,
    /// under the error criterion (`record_decode_for`).
    decode_no_error: wgpu::ComputePipeline,
    /// Fill the near-edge histogram on every this-many-th frame (0: never; frames interval - 1,
    /// 2 interval - 1, ...: merge frames where it is even). It adds to the
    /// decode's cost (on the H100 up to 0.05 ms at a million leaves low over mountains, nothing
    /// measurable on the ship path: docs/BENCHMARKS.md run 52), so only readers ask: bench, the
    /// viewer's pool panel, tests. The frames between leave the last figures.
    pub near_edge_interval_frames: u32,
    /// Whether the last recorded decode filled the histogram.
    near_edges_fresh: std::cell::Cell<bool>,
    draw: (wgpu::RenderPipeline, wgpu::BindGroup),
    draw_args: wgpu::Buffer,
    lod_stats: wgpu::Buffer,
    /// `GpuNearEdges`: the near edges' histogram, count and minimum of the last decode.
    near_edges: wgpu::Buffer,
    /// The compute rasteriser, when `settings.raster` and the device choose it.
    raster: Option<GlobeVisRaster>,
    /// Whether the pool's criterion moves the last decode's vertices rather than placing them from
    /// the tile cache again (`camera_moved_m`; on by default, off to compare).
    pub reuse_decoded_vertices: bool,
    /// The camera of the last `set_view`, and of the view the last recorded decode placed the
    /// vertices for (None: none yet), for `GlobeFrame::camera_moved_m`.
    view_camera_m: Option<DVec3>,
    decoded_camera_m: std::cell::Cell<Option<DVec3>>,
    /// Whether this frame's update needs the decode first (`record_update`): the last decode's
    /// vertices cannot be moved to this camera (`camera_moved_m` w = 0).
    decode_before_update: bool,
}

/// The pool's criterion moves the last decode's vertices by the camera's motion when it is at
/// most this, or at most `REUSED_MOTION_ALTITUDE_SHARE` of the camera's altitude where that is more
/// (shared/pool_criterion_globe.wgsl). The moved vertices err by about 2^-24 of the larger of the
/// motion and their distance to the last camera: 0.1 mm for a kilometre.
pub const MAX_REUSED_MOTION_M: f64 = 1000.0;

/// The share of the camera's altitude above the ellipsoid it may move in a frame with the last
/// decode's vertices still reused: no leaf is nearer the camera than about its altitude, so the
/// motion's f32 error stays under 1e-7 of every leaf's distance (a descent from orbit moves tens
/// of kilometres a frame, and placing every vertex again from the tile cache doubled its classify
/// passes: docs/BENCHMARKS.md run 35).
pub const REUSED_MOTION_ALTITUDE_SHARE: f64 = 0.25;

/// The largest motion of a camera at `camera_m` for which its frame reuses the last decode's vertices.
pub fn max_reused_motion_m(camera_m: DVec3) -> f64 {
    MAX_REUSED_MOTION_M.max(REUSED_MOTION_ALTITUDE_SHARE * crate::globe::ellipsoid::normal_and_height_m(camera_m).1)
}

/// `GlobeFrame::camera_moved_m` for a camera at `camera_m` whose last decode saw `decoded_m`.
pub fn camera_moved_m(camera_m: DVec3, decoded_m: Option<DVec3>) -> [f32; 4] {
    match decoded_m.map(|d| camera_m - d) {
        Some(moved) if moved.length() <= max_reused_motion_m(camera_m) => moved.as_vec3().extend(1.0).to_array(),
        _ => [0.0; 4],
    }
}

impl GlobePoolRenderer {
    /// A pool of `pool_settings` (its `target_error_px` is replaced by `settings.target_px()`)
    /// holding the octahedron's 8 triangles, sampling heights from `cache`.
    pub fn new(
        gpu: &Gpu,
        settings: GlobeSettings,
        pool_settings: PoolSettings,
        color_format: wgpu::TextureFormat,
        cache: TileCache,
    ) -> Result<GlobePoolRenderer, crate::pool::gpu::PoolError> {
        let device = &gpu.device;
        let pool_settings = PoolSettings { target_error_px: settings.target_px(), mode: crate::pool::PoolMode::COMPACT, ..pool_settings };
        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
        };
        // Three camera-relative vertices (vec4<f32>) per slot: as large as pool.vertices. The
        // draw reads them, and the next frame's pool criterion.
        let draw_positions = buffer("globe.pool_draw_positions", 48 * u64::from(pool_settings.pool_slots), wgpu::BufferUsages::STORAGE);
        let frame =
            buffer("globe.frame", std::mem::size_of::<GlobeFrame>() as u64, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
        let cache_constants = cache.pipeline_constants();
        let occlusion = GpuOcclusion::new(device);
        let criterion = SceneCriterion {
            shader: "shared/pool_criterion_globe.wgsl",
            uniform: &frame,
            leaf_data: Some(&draw_positions),
            group1_layout: Some(occlusion.layout()),
            group2_layout: cache.bind_group_layout(),
            constants: cache_constants.to_vec(),
        };
        let pool = GpuPool::with_scene_criterion(gpu, &pool_settings, &criterion)?;
        let storage_usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let draw_args = buffer("globe.pool_draw_args", 16, storage_usage | wgpu::BufferUsages::INDIRECT);
        let lod_stats = buffer("globe.lod_stats", 16, storage_usage);
        let near_edges = buffer("globe.near_edges", std::mem::size_of::<GpuNearEdges>() as u64, storage_usage);
        let tree = LebTree::new(device, pool.cbt.clone(), 1);
        let group = |label: &str, layout: &wgpu::BindGroupLayout, buffers: &[&wgpu::Buffer]| {
            let entries: Vec<wgpu::BindGroupEntry> = buffers
                .iter()
                .enumerate()
                .map(|(binding, b)| wgpu::BindGroupEntry { binding: binding as u32, resource: b.as_entire_binding() })
                .collect();
            device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
        };
        use Binding::{StorageRead, StorageWrite, Uniform};
        let decode_layout = layout(
            device,
            "globe.pool_decode",
            &[
                (0, StorageRead),
                (1, StorageRead),
                (2, StorageRead),
                (3, Uniform),
                (4, StorageWrite),
                (5, StorageWrite),
                (6, StorageWrite),
                (7, StorageRead),
                (8, StorageWrite),
                (9, StorageWrite),
            ],
            wgpu::ShaderStages::COMPUTE,
        );
        let cache_layout = cache.bind_group_layout();
        let decode_variant = |near_edges: bool, error_sample: bool| {
            let mut constants = cache_constants.to_vec();
            constants.push(("NEAR_EDGES", f64::from(u8::from(near_edges))));
            constants.push(("ERROR_SAMPLE", f64::from(u8::from(error_sample))));
            compute_pipeline(
                device,
                "globe.pool_decode",
                ("globe_pool_decode.wgsl", "decode"),
                &constants,
                [Some(&decode_layout), Some(occlusion.layout()), Some(cache_layout)],
            )
        };
        let (decode_pipeline, decode_near_edges, decode_no_error) =
            (decode_variant(false, true), decode_variant(true, true), decode_variant(false, false));
        let control_params = wgpu::BufferBinding { buffer: &pool.control, offset: 0, size: std::num::NonZeroU64::new(32) };
        let decode_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globe.pool_decode"),
            layout: &decode_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: pool.list.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: pool.ids.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: pool.vertices.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: frame.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: lod_stats.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 5, resource: draw_args.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 6, resource: tree.cbt.stats.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 7, resource: wgpu::BindingResource::Buffer(control_params) },
                wgpu::BindGroupEntry { binding: 8, resource: near_edges.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 9, resource: draw_positions.as_entire_binding() },
            ],
        });
        let draw_layout = layout(
            device,
            "globe.pool_draw",
            &[(0, StorageRead), (1, Uniform), (2, StorageRead), (3, StorageRead), (4, StorageRead)],
            wgpu::ShaderStages::VERTEX_FRAGMENT,
        );
        let atmosphere = Atmosphere::new(device, AtmosphereParams::earth(), color_format);
        let draw_pipeline = draw_pipeline(
            device,
            "globe_pool_draw.wgsl",
            color_format,
            0,
            &cache_constants,
            [&draw_layout, atmosphere.draw_layout(), cache_layout],
        );
        let draw_group = group("globe.pool_draw", &draw_layout, &[&pool.list, &frame, &pool.ids, &pool.vertices, &draw_positions]);
        let device_type = gpu.adapter.get_info().device_type;
        let raster = settings.raster.uses_compute(device.features(), device_type).then(|| {
            let inputs = PoolRasterInputs {
                pool_list: &pool.list,
                pool_ids: &pool.ids,
                pool_vertices: &pool.vertices,
                pool_control: &pool.control,
                draw_positions: &draw_positions,
                frame: &frame,
                atmosphere_layout: atmosphere.draw_layout(),
                cache_layout,
                cache_constants: &cache_constants,
                pool_slots: pool_settings.pool_slots,
            };
            GlobeVisRaster::new(device, color_format, &inputs, settings.raster_large_px)
        });
        let mut renderer = GlobePoolRenderer {
            settings,
            pool_settings,
            tree,
            cache,
            atmosphere,
            pool,
            occlusion,
            frame,
            decode: (decode_pipeline, decode_group),
            decode_near_edges,
            decode_no_error,
            near_edge_interval_frames: 0,
            near_edges_fresh: std::cell::Cell::new(false),
            draw: (draw_pipeline, draw_group),
            draw_args,
            lod_stats,
            near_edges,
            raster,
            reuse_decoded_vertices: true,
            view_camera_m: None,
            decoded_camera_m: std::cell::Cell::new(None),
            decode_before_update: true,
        };
        renderer.record_init(gpu);
        Ok(renderer)
    }

    /// The uniforms of a frame seen by `camera` on a viewport of `size_px`: the pixel target on
    /// the leaves themselves.
    pub fn frame_uniforms(&self, camera: &GlobeCamera, size_px: (u32, u32)) -> GlobeFrame {
        let s = &self.settings;
        let settings = FrameSettings {
            split_threshold_px: s.target_px(),
            merge_threshold_px: s.target_px() * MERGE_HYSTERESIS,
            wireframe: s.wireframe,
            sun_direction: s.sun_direction,
            criterion: s.criterion,
            detail: s.detail,
        };
        globe_frame(camera, size_px, &settings)
    }

    /// The last frame's pool counters (blocks on the GPU): after a split frame, the leaves capped
    /// by depth and by the pool.
    pub fn read_pool_counters(&self, gpu: &Gpu) -> crate::pool::gpu::GpuPoolCounters {
        self.pool.read_counters(gpu)
    }

    /// The `GpuNearEdges` the decode pass writes each frame (for non-blocking read-backs).
    pub fn near_edges_buffer(&self) -> &wgpu::Buffer {
        &self.near_edges
    }

    /// Whether the last recorded decode filled the near-edge histogram.
    pub fn near_edges_fresh(&self) -> bool {
        self.near_edges_fresh.get()
    }

    /// The compute rasteriser, when this renderer draws with it.
    pub fn vis_raster(&self) -> Option<&GlobeVisRaster> {
        self.raster.as_ref()
    }

    /// The near-edge histogram of the last frame that filled it (blocks on the GPU); empty
    /// when none has (see `near_edge_interval_frames`).
    pub fn read_near_edges(&self, gpu: &Gpu) -> NearEdgeHistogram {
        let bytes = crate::gpu::readback::read_buffer(&gpu.device, &gpu.queue, &self.near_edges, 0, self.near_edges.size());
        NearEdgeHistogram::from_bytes(&bytes)
    }

    /// globe.pool_decode. `error_needed`: whether a split frame's classify reads the data's error
    /// bound it leaves (the next pass over the leaves is classify_split); where not, under the
    /// error criterion, the pipeline without the error sample runs (0.009 ms of the decode on the
    /// ship path, BENCHMARKS.md run 102), and LodStats' capped_leaves keeps the last decode's count.
    fn record_decode_for(&self, encoder: &mut wgpu::CommandEncoder, error_needed: bool) {
        let interval = self.near_edge_interval_frames;
        // Counted from frame interval - 1: with an even interval (bench's and the viewer's 8) the
        // histogram's frames are merge frames, so its cost (0.006 ms on the ship path) does not
        // land on the split frames, the longest (docs/BENCHMARKS.md run 84).
        let near_edges = interval > 0 && (self.tree.frame_index() + 1).is_multiple_of(u64::from(interval));
        self.near_edges_fresh.set(near_edges);
        let error_sample = error_needed || near_edges || self.settings.criterion != Criterion::ScreenSpaceError;
        // LodStats: the largest projected size and the visible leaves, then capped_leaves, which
        // only a decode with the error sample counts.
        encoder.clear_buffer(&self.lod_stats, 0, if error_sample { None } else { Some(8) });
        if near_edges {
            encoder.clear_buffer(&self.near_edges, 0, None);
        }
        encoder.clear_buffer(&self.tree.cbt.stats, 0, Some(16));
        self.decoded_camera_m.set(self.view_camera_m);
        let pipeline = match (near_edges, error_sample) {
            (true, _) => &self.decode_near_edges,
            (false, true) => &self.decode.0,
            (false, false) => &self.decode_no_error,
        };
        let bind_group = &self.decode.1;
        profiled_compute_pass(&self.tree.profiler, encoder, "globe.pool_decode", |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.set_bind_group(1, self.occlusion.bind_group(), &[]);
            pass.set_bind_group(2, self.cache.bind_group(), &[]);
            self.pool.dispatch_over_leaves(pass);
        });
    }
}

impl LebScene for GlobePoolRenderer {
    type Camera = GlobeCamera;

    fn tree(&self) -> &LebTree {
        &self.tree
    }
    fn tree_mut(&mut self) -> &mut LebTree {
        &mut self.tree
    }

    /// Writes the frame's uniforms and the pool's target T² (`settings.target_px()`, so a
    /// changed target applies from the next frame; pool.threshold or mark derives T_eff² from it).
    fn set_view(&mut self, queue: &wgpu::Queue, camera: &GlobeCamera, size_px: (u32, u32)) {
        let mut frame = self.frame_uniforms(camera, size_px);
        if self.reuse_decoded_vertices {
            frame.camera_moved_m = camera_moved_m(camera.position_m, self.decoded_camera_m.get());
        }
        self.decode_before_update = frame.camera_moved_m[3] == 0.0;
        self.view_camera_m = Some(camera.position_m);
        queue.write_buffer(&self.frame, 0, bytemuck::bytes_of(&frame));
        let drawn = DrawnView {
            view_from_relative: crate::globe::frame::view_from_relative(camera),
            camera_m: camera.position_m,
            scale: {
                let scale_y = 1.0 / (0.5 * camera.fov_y_rad()).tan();
                [scale_y * size_px.1 as f32 / size_px.0 as f32, scale_y]
            },
            near_m: crate::globe::frame::NEAR_M,
            viewport_px: size_px,
        };
        self.occlusion.set_view(queue, drawn, self.settings.occlusion);
        if let Some(raster) = &mut self.raster {
            raster.set_view(queue, size_px);
        }
        let s = &self.settings;
        let view = AtmosphereView::of_camera(camera, frame.clip_from_relative, size_px, s.sun_direction, s.atmosphere);
        self.atmosphere.sea = s.sea;
        self.atmosphere.set_view(queue, &view);
        let target_sq_px2 = self.settings.target_px() * self.settings.target_px();
        queue.write_buffer(
            &self.pool.control,
            std::mem::offset_of!(GpuPoolParams, target_sq_px2) as u64,
            bytemuck::bytes_of(&target_sq_px2),
        );
    }

    /// The atmosphere's tables of this view.
    fn record_view(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.atmosphere.enabled = self.settings.atmosphere;
        self.atmosphere.record_tables(encoder, &self.tree.profiler);
    }

    /// The sky ("atmosphere.sky").
    fn record_sky(&self, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
        self.atmosphere.record_sky(encoder, &self.tree.profiler, target);
    }

    /// Records the pool's split or merge frame (its passes, reduction and list). The pool's
    /// criterion reads the last decode's vertices moved to this camera
    /// (shared/pool_criterion_globe.wgsl); where they cannot be (the first frame, a jump, or
    /// `reuse_decoded_vertices` off), the decode runs first and places them at this camera.
    fn record_update(&self, encoder: &mut wgpu::CommandEncoder, kind: UpdateKind) {
        if self.decode_before_update {
            self.record_decode_for(encoder, kind == UpdateKind::Split);
        }
        let split = kind == UpdateKind::Split;
        self.pool.record_scene_frame(encoder, &self.tree.profiler, split, Some(self.occlusion.bind_group()), self.cache.bind_group());
    }

    /// The pool's frame reduced and listed its slots: only the decode is left. The data's error
    /// bound it leaves is read by the next frame only if that frame splits.
    fn record_rebuild(&self, encoder: &mut wgpu::CommandEncoder) {
        self.record_decode_for(encoder, UpdateKind::for_frame(self.tree.frame_index() + 1) == UpdateKind::Split);
    }

    fn record_decode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.record_decode_for(encoder, true);
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.draw.0);
        pass.set_bind_group(0, &self.draw.1, &[]);
        pass.set_bind_group(1, self.atmosphere.draw_bind_group(), &[]);
        pass.set_bind_group(2, self.cache.bind_group(), &[]);
        pass.draw_indirect(&self.draw_args, 0);
    }

    fn draw_label(&self) -> &'static str {
        "globe.pool_draw"
    }

    /// The hardware draw, or the compute rasteriser's passes: raster.small, raster.bin, raster.wide,
    /// raster.large (what overflows their lists), globe.hzb from the visibility buffer, then shade (which paints the sky where no triangle is).
    fn record_draw(&self, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
        let Some(raster) = &self.raster else {
            return record_hardware_draw(self, encoder, target);
        };
        let profiler = &self.tree.profiler;
        raster.record_raster(encoder, profiler, &self.pool.args, target);
        if let (true, Some(vis)) = (self.settings.occlusion, raster.vis_buffer()) {
            self.occlusion.record_build_from_vis(encoder, profiler, vis);
        }
        let groups = ShadeGroups { atmosphere: self.atmosphere.draw_bind_group(), cache: self.cache.bind_group() };
        raster.record_shade(encoder, profiler, &groups, target);
    }

    /// globe.hzb: the depth pyramid the next frame's occlusion test reads.
    fn record_after_draw(&self, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
        if self.settings.occlusion {
            self.occlusion.record_build(encoder, &self.tree.profiler, target.depth);
        }
    }

    fn clear_color(&self) -> wgpu::Color {
        SPACE_COLOR
    }

    /// The used slots in slot order (pool.list), not node ids: the pool's ids are 64-bit; read
    /// them with `pool.read_state`.
    fn leaf_ids(&self) -> &wgpu::Buffer {
        &self.pool.list
    }

    fn lod_stats(&self) -> &wgpu::Buffer {
        &self.lod_stats
    }

    /// The tile cache's frame: residency, uploads, clearing the feedback set.
    fn record_begin(&mut self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder) {
        let frame_index = self.tree.frame_index() + 1;
        self.cache.begin_timed_frame(gpu, encoder, Some(&self.tree.profiler), frame_index);
    }

    /// The tile cache's read-backs of its feedback set and used bits.
    fn record_end(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.cache.end_frame(encoder);
    }

    fn submitted(&mut self) {
        self.cache.after_submit();
    }

    fn is_settled(&self) -> bool {
        self.cache.is_settled()
    }

    fn is_loading(&self) -> bool {
        self.cache.stats().in_flight > 0
    }
}
