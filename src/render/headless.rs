//! Headless frames: the function `shot`, the golden tests and `bench` render through.

use crate::cbt::gpu::FrameStats;
use crate::gpu::target::OffscreenTarget;
use crate::gpu::timings::FrameTimings;
use crate::gpu::Gpu;
use crate::leb::decode::LodStats;
use crate::render::camera::Camera;
use crate::render::{RenderSettings, Renderer};
use crate::terrain::HeightField;

/// A renderer with an offscreen target of a fixed size.
pub struct HeadlessView {
    pub renderer: Renderer,
    pub target: OffscreenTarget,
}

/// What one frame did.
#[derive(Clone, Debug)]
pub struct FrameOutcome {
    pub stats: FrameStats,
    /// The largest remaining size on screen of a visible leaf, and the visible leaves.
    pub lod: LodStats,
    /// GPU times of the frame's passes (empty when the device has no timestamps).
    pub timings: FrameTimings,
}

impl HeadlessView {
    /// Wraps `renderer` with a `width_px` x `height_px` target.
    pub fn new(gpu: &Gpu, renderer: Renderer, width_px: u32, height_px: u32) -> HeadlessView {
        HeadlessView { target: OffscreenTarget::new(&gpu.device, width_px, height_px), renderer }
    }

    /// Renders one frame, waits for it and returns its statistics and timings.
    pub fn frame(&mut self, gpu: &Gpu, camera: &Camera) -> FrameOutcome {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        let size = (self.target.width_px, self.target.height_px);
        self.renderer.record_frame(&gpu.queue, &mut encoder, camera, size, &self.target.color_view, &self.target.depth_view);
        gpu.queue.submit([encoder.finish()]);
        self.renderer.end_frame();
        let stats = self.renderer.read_stats(gpu);
        let lod = self.renderer.read_lod_stats(gpu);
        gpu.wait_idle();
        let timings = self.renderer.take_timings(&gpu.queue).unwrap_or_default();
        FrameOutcome { stats, lod, timings }
    }

    /// Renders frames until the leaf count stays the same for two consecutive frames (one split
    /// and one merge frame changed nothing) or `max_frames` is reached. Returns the frames run
    /// and the last frame's outcome.
    pub fn converge(&mut self, gpu: &Gpu, camera: &Camera, max_frames: u32) -> (u32, FrameOutcome) {
        let mut last = self.frame(gpu, camera);
        let mut quiet = 0;
        for frame in 1..max_frames {
            let outcome = self.frame(gpu, camera);
            quiet = if outcome.stats.leaves == last.stats.leaves { quiet + 1 } else { 0 };
            last = outcome;
            if quiet == 2 {
                return (frame + 1, last);
            }
        }
        (max_frames, last)
    }

    /// The last frame's image.
    pub fn image(&self, gpu: &Gpu) -> image::RgbaImage {
        self.target.read_image(&gpu.device, &gpu.queue)
    }
}

/// A converged headless frame: the image and how it was reached.
pub struct Shot {
    pub image: image::RgbaImage,
    /// Frames rendered until the leaf count settled.
    pub frames: u32,
    pub last: FrameOutcome,
}

/// Renders `field` from `camera` at `size_px` after the LOD has converged: what `bisector shot`
/// and the screenshot tests call.
pub fn render_shot(gpu: &Gpu, field: &HeightField, settings: RenderSettings, camera: &Camera, size_px: (u32, u32)) -> Shot {
    let max_depth = settings.max_depth;
    let renderer = Renderer::new(gpu, field, settings, crate::gpu::target::COLOR_FORMAT);
    let mut view = HeadlessView::new(gpu, renderer, size_px.0, size_px.1);
    let (frames, last) = view.converge(gpu, camera, convergence_frame_limit(max_depth));
    Shot { image: view.image(gpu), frames, last }
}

/// Frames `converge` allows for a tree of max depth `max_depth`: every split frame deepens the
/// finest leaves by at least one level.
pub fn convergence_frame_limit(max_depth: u32) -> u32 {
    4 * max_depth + 16
}
