//! The one frame schedule of every scene, flat terrain and globe alike:
//!
//! ```text
//! frame.start (an empty timed pass) -> begin (scene: e.g. the tile cache's frame) -> uniforms -> view passes (scene: the globe's
//!   atmosphere tables) -> [nondraw.start] split | merge -> cbt.reduce -> cbt.args -> decode [nondraw.end]
//!   -> background (scene: the globe's sky) -> draw -> end (scene) -> resolve the timestamps
//! ```
//! (the passes in brackets, empty, only when pass timing is off: `NONDRAW_START_LABEL`.)
//!
//! `LebTree` owns what every scene shares: the GPU CBT, its reduction and arguments passes, the
//! profiler and the frame index (which decides split or merge frames). A scene implements
//! `LebScene`: its uniforms, update, decode and draw passes, and its own begin and end of frame.
//! `LebScene::record_frame` is the schedule; headless shots, benches, `quality` and the viewer all
//! record frames through it (`headless::HeadlessView` off screen, the viewer on its surface).

pub mod headless;
pub mod raster;

use crate::cbt::args::CbtArgs;
use crate::cbt::gpu::{FrameStats, GpuCbt};
use crate::cbt::reduce::CbtReduce;
use crate::gpu::readback::read_buffer;
use crate::gpu::timings::{take_timings, FrameTimings};
use crate::gpu::Gpu;
use crate::leb::cpu::UpdateKind;
use crate::leb::decode::LodStats;

/// The label of the empty timed pass that opens every frame, so that the frame's GPU time starts
/// before the untimed copies and clears of its beginning.
pub const FRAME_START_LABEL: &str = crate::gpu::FRAME_BOUND_LABELS[0];
/// The empty timed pass after the draw when pass timing is off (`gpu::set_pass_timing`): with
/// frame.start it bounds the frame's GPU time.
pub const FRAME_END_LABEL: &str = crate::gpu::FRAME_BOUND_LABELS[1];
/// The empty timed passes before the update and after the decode when pass timing is off: the
/// span "nondraw" between them is the frame's update, reduction and decode timed by their bounds
/// alone (`gpu::timings::take_timings`).
pub const NONDRAW_START_LABEL: &str = crate::gpu::FRAME_BOUND_LABELS[2];
/// See `NONDRAW_START_LABEL`.
pub const NONDRAW_END_LABEL: &str = crate::gpu::FRAME_BOUND_LABELS[3];

/// The GPU CBT and the passes, profiler and frame count every scene's schedule shares.
pub struct LebTree {
    pub cbt: GpuCbt,
    reduce: CbtReduce,
    args: CbtArgs,
    pub profiler: wgpu_profiler::GpuProfiler,
    /// Run the split pass on split frames (the viewer's split switch and freeze; true by default).
    pub split_enabled: bool,
    /// Run the merge pass on merge frames (the viewer's merge switch and freeze; true by default).
    pub merge_enabled: bool,
    frame_index: u64,
}

impl LebTree {
    /// The passes over `cbt`; the draw arguments ask for `draw_instances` instances of every
    /// leaf's 3 vertices.
    pub fn new(device: &wgpu::Device, cbt: GpuCbt, draw_instances: u32) -> LebTree {
        let reduce = CbtReduce::new(device, &cbt);
        let args = CbtArgs::with_draw_instances(device, &cbt, draw_instances);
        let profiler = crate::gpu::create_profiler(device);
        LebTree { cbt, reduce, args, profiler, split_enabled: true, merge_enabled: true, frame_index: 0 }
    }

    /// Frames recorded so far.
    pub fn frame_index(&self) -> u64 {
        self.frame_index
    }

    /// The update this frame runs: split and merge frames alternate; None when the viewer
    /// switched this frame's pass off.
    pub fn update_kind(&self) -> Option<UpdateKind> {
        let kind = UpdateKind::for_frame(self.frame_index);
        match kind {
            UpdateKind::Split => self.split_enabled,
            UpdateKind::Merge => self.merge_enabled,
        }
        .then_some(kind)
    }

    /// Records "cbt.args" alone (the first frame's arguments, before any update).
    pub fn record_args(&self, encoder: &mut wgpu::CommandEncoder) {
        self.args.record(encoder, &self.profiler);
    }

    /// Records "cbt.reduce" (the changed blocks where the tree tracks them) and "cbt.args".
    pub fn record_counts(&self, encoder: &mut wgpu::CommandEncoder) {
        self.reduce.record_changed(encoder, &self.profiler, &self.cbt);
        self.args.record(encoder, &self.profiler);
    }

    /// Resolves the frame's timestamps into `encoder` and counts the frame.
    fn close_recording(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.profiler.resolve_queries(encoder);
        self.frame_index += 1;
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
}

/// Where the draw pass of one frame draws.
pub struct FrameTarget<'a> {
    /// The viewport: the part of the attachments from their top-left corner that the view fills
    /// (all of them off screen; left of the viewer's panel on screen).
    pub size_px: (u32, u32),
    pub color: &'a wgpu::TextureView,
    pub depth: &'a wgpu::TextureView,
}

/// What a scene adds to the shared schedule: its uniforms, its update, decode and draw passes,
/// and what it does at the begin and end of a frame.
pub trait LebScene {
    /// The camera a frame is seen from (metres over the flat terrain, earth-centred on the globe).
    type Camera;

    fn tree(&self) -> &LebTree;
    fn tree_mut(&mut self) -> &mut LebTree;

    /// Writes the uniforms of the next recorded passes for `camera` on a viewport of `size_px`.
    fn set_view(&mut self, queue: &wgpu::Queue, camera: &Self::Camera, size_px: (u32, u32));
    /// Records the split or merge pass over every leaf.
    fn record_update(&self, encoder: &mut wgpu::CommandEncoder, kind: UpdateKind);
    /// Records the decode pass: every leaf's node id into `leaf_ids`, the frame's LOD statistics
    /// into `lod_stats`.
    fn record_decode(&self, encoder: &mut wgpu::CommandEncoder);
    /// Draws every leaf into `pass`, whose colour attachment has the format the scene was built
    /// for and whose depth attachment is `gpu::target::DEPTH_FORMAT`, cleared to 0 (reverse Z:
    /// nearer is greater). An application that owns its render pass calls this between
    /// `record_compute` and `record_finish`.
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>);
    /// The draw pass's label in the profiler's timings.
    fn draw_label(&self) -> &'static str;
    /// The colour behind the terrain (sky, or space behind the globe) where the scene paints no
    /// background.
    fn clear_color(&self) -> wgpu::Color;
    /// One u32 node id per leaf, written by the decode pass.
    fn leaf_ids(&self) -> &wgpu::Buffer;
    /// The 16-byte `LodStats` the decode pass writes each frame.
    fn lod_stats(&self) -> &wgpu::Buffer;

    /// Triangles drawn for every leaf.
    fn triangles_per_leaf(&self) -> u64 {
        1
    }
    /// Records what the scene does before the frame's passes (the globe: its tile cache's frame).
    fn record_begin(&mut self, _gpu: &Gpu, _encoder: &mut wgpu::CommandEncoder) {}
    /// Records the passes that depend on the view alone, after `set_view` (the globe: its
    /// atmosphere's look-up tables).
    fn record_view(&mut self, _encoder: &mut wgpu::CommandEncoder) {}
    /// Records a pass after the draw that paints the pixels the draw left at the far depth (the
    /// globe: its sky; `target`'s depth is the draw's, which `begin_draw_pass` keeps). Drawn
    /// after the terrain rather than under it, the sky's fragments behind the terrain fail the
    /// depth test early: on a GPU with few ROPs (the H100: 8) a full-screen pass costs 0.67 ms.
    fn record_sky(&self, _encoder: &mut wgpu::CommandEncoder, _target: &FrameTarget) {}
    /// Records what reads the draw's depth before the sky (whose pass discards it): the globe
    /// over the pool builds its depth pyramid for the next frame's occlusion culling.
    fn record_after_draw(&self, _encoder: &mut wgpu::CommandEncoder, _target: &FrameTarget) {}
    /// Records what the scene does after the frame's passes (the globe: its cache's read-backs).
    fn record_end(&mut self, _encoder: &mut wgpu::CommandEncoder) {}
    /// After the frame's encoder was submitted (the globe: its cache maps its read-back).
    fn submitted(&mut self) {}
    /// Whether the scene waits for nothing more than the tree (the globe: tiles still loading).
    fn is_settled(&self) -> bool {
        true
    }
    /// Whether work the scene waits for runs off the GPU (the globe: tiles on loader threads).
    fn is_loading(&self) -> bool {
        false
    }

    /// Records the counts, arguments and leaf list after an update: cbt.reduce, cbt.args, decode.
    fn record_rebuild(&self, encoder: &mut wgpu::CommandEncoder) {
        self.tree().record_counts(encoder);
        self.record_decode(encoder);
    }

    /// The schedule: records one frame into `encoder` and advances the split/merge alternation.
    /// Submit the encoder, then call `after_submit`.
    fn record_frame(&mut self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder, camera: &Self::Camera, target: &FrameTarget) {
        self.record_compute(gpu, encoder, camera, target.size_px);
        self.record_draw(encoder, target);
        if !crate::gpu::pass_timing() {
            crate::gpu::profiled_compute_pass(&self.tree().profiler, encoder, FRAME_END_LABEL, |_| {});
        }
        self.record_finish(encoder);
    }

    /// The frame's passes before the draw: the scene's begin, its uniforms for `camera` on a
    /// viewport of `size_px`, the update (split or merge), cbt.reduce, cbt.args and decode.
    fn record_compute(&mut self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder, camera: &Self::Camera, size_px: (u32, u32)) {
        // An empty timed pass first, so that the frame's GPU time (first pass's start to last
        // pass's end) holds the untimed copies and clears before the first real pass (tile
        // uploads, the pool's snapshot) whichever pass comes first.
        crate::gpu::profiled_compute_pass(&self.tree().profiler, encoder, FRAME_START_LABEL, |_| {});
        self.record_begin(gpu, encoder);
        self.set_view(&gpu.queue, camera, size_px);
        self.record_view(encoder);
        let bounds = !crate::gpu::pass_timing();
        if bounds {
            crate::gpu::profiled_compute_pass(&self.tree().profiler, encoder, NONDRAW_START_LABEL, |_| {});
        }
        if let Some(kind) = self.tree().update_kind() {
            self.record_update(encoder, kind);
        }
        self.record_rebuild(encoder);
        if bounds {
            crate::gpu::profiled_compute_pass(&self.tree().profiler, encoder, NONDRAW_END_LABEL, |_| {});
        }
    }

    /// The draw pass (clears `target` to `clear_color` and the far depth, and draws every leaf),
    /// then the sky over what it left at the far depth (`record_sky`). A scene that rasterises
    /// otherwise (the flat terrain's compute path) overrides it.
    fn record_draw(&self, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
        record_hardware_draw(self, encoder, target);
    }

    /// The frame's end after the draw: the scene's end (the globe's cache read-backs), the
    /// timestamps resolved, the frame counted.
    fn record_finish(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.record_end(encoder);
        self.tree_mut().close_recording(encoder);
    }

    /// After the frame's encoder was submitted: the scene's hook, then the profiler frame closes.
    fn after_submit(&mut self) {
        self.submitted();
        self.tree_mut().end_frame();
    }

    /// Records and submits the first frame's arguments and leaf list, so that the first update
    /// dispatches over the base mesh's leaves. Scenes call it once they are built.
    fn record_init(&mut self, gpu: &Gpu) {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("schedule.init") });
        self.tree().record_args(&mut encoder);
        self.record_decode(&mut encoder);
        self.tree_mut().profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
    }

    /// What the decode pass measured in the last submitted frame (blocks on the GPU).
    fn read_lod_stats(&self, gpu: &Gpu) -> LodStats {
        bytemuck::pod_read_unaligned(&read_buffer(&gpu.device, &gpu.queue, self.lod_stats(), 0, 16))
    }

    /// The node ids of the leaves the decode pass wrote in the last submitted frame (blocks on the GPU).
    fn read_leaf_ids(&self, gpu: &Gpu) -> Vec<u32> {
        self.tree().cbt.read_leaf_ids(&gpu.device, &gpu.queue, self.leaf_ids())
    }
}

/// `LebScene::record_draw`'s default: the draw pass (clears `target` to `clear_color` and the far
/// depth, draws every leaf with `LebScene::draw`), then `LebScene::record_after_draw` and
/// `LebScene::record_sky`.
pub fn record_hardware_draw<S: LebScene + ?Sized>(scene: &S, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
    let load = wgpu::LoadOp::Clear(scene.clear_color());
    let profiler = &scene.tree().profiler;
    let query = crate::gpu::pass_query(profiler, scene.draw_label(), encoder);
    {
        let mut pass = crate::gpu::target::begin_draw_pass(
            encoder,
            scene.draw_label(),
            target.color,
            target.depth,
            load,
            query.as_ref().and_then(|q| q.render_pass_timestamp_writes()),
        );
        pass.set_viewport(0.0, 0.0, target.size_px.0 as f32, target.size_px.1 as f32, 0.0, 1.0);
        scene.draw(&mut pass);
    }
    crate::gpu::end_pass_query(profiler, encoder, query);
    scene.record_after_draw(encoder, target);
    scene.record_sky(encoder, target);
}
