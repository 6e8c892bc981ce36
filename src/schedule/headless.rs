//! Headless frames of any scene: what `shot`, `bench`, `quality` and the tests render through.

use super::{FrameTarget, LebScene};
use crate::cbt::gpu::FrameStats;
use crate::gpu::target::OffscreenTarget;
use crate::gpu::timings::FrameTimings;
use crate::gpu::Gpu;
use crate::leb::decode::LodStats;

/// A scene with an offscreen target of a fixed size.
pub struct HeadlessView<S> {
    pub scene: S,
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
    /// CPU wall time of the frame's recording and submission, in milliseconds.
    pub cpu_submit_ms: f64,
}

/// A converged headless frame: the image and how it was reached.
pub struct Shot {
    pub image: image::RgbaImage,
    /// Frames rendered until the leaf count settled.
    pub frames: u32,
    pub last: FrameOutcome,
}

impl<S: LebScene> HeadlessView<S> {
    /// Wraps `scene` with a `width_px` x `height_px` target.
    pub fn new(gpu: &Gpu, scene: S, width_px: u32, height_px: u32) -> HeadlessView<S> {
        HeadlessView { target: OffscreenTarget::new(&gpu.device, width_px, height_px), scene }
    }

    /// Renders one frame, waits for it and returns its statistics and timings.
    pub fn frame(&mut self, gpu: &Gpu, camera: &S::Camera) -> FrameOutcome {
        let start = std::time::Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        let target = FrameTarget {
            size_px: (self.target.width_px, self.target.height_px),
            color: &self.target.color_view,
            depth: &self.target.depth_view,
        };
        self.scene.record_frame(gpu, &mut encoder, camera, &target);
        gpu.queue.submit([encoder.finish()]);
        self.scene.after_submit();
        let cpu_submit_ms = start.elapsed().as_secs_f64() * 1e3;
        let stats = self.scene.tree().read_stats(gpu);
        let lod = self.scene.read_lod_stats(gpu);
        gpu.wait_idle();
        let timings = self.scene.tree_mut().take_timings(&gpu.queue).unwrap_or_default();
        FrameOutcome { stats, lod, timings, cpu_submit_ms }
    }

    /// Renders frames until the leaf count stays the same for two consecutive frames (one split
    /// and one merge frame changed nothing) and the scene has settled (the globe: nothing missed,
    /// nothing loading), or `max_frames` is reached; returns the frames run and the last outcome.
    /// While the scene waits (tiles loading on background threads) it sleeps a little between
    /// frames rather than spinning.
    pub fn converge(&mut self, gpu: &Gpu, camera: &S::Camera, max_frames: u32) -> (u32, FrameOutcome) {
        let mut last = self.frame(gpu, camera);
        let mut quiet = 0;
        for frame in 1..max_frames {
            let outcome = self.frame(gpu, camera);
            let settled = self.scene.is_settled();
            quiet = if outcome.stats.leaves == last.stats.leaves && settled { quiet + 1 } else { 0 };
            last = outcome;
            if quiet == 2 {
                return (frame + 1, last);
            }
            if self.scene.is_loading() {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        (max_frames, last)
    }

    /// Converges (at most `max_frames`) and returns the image.
    pub fn shot(&mut self, gpu: &Gpu, camera: &S::Camera, max_frames: u32) -> Shot {
        let (frames, last) = self.converge(gpu, camera, max_frames);
        Shot { image: self.image(gpu), frames, last }
    }

    /// The last frame's image.
    pub fn image(&self, gpu: &Gpu) -> image::RgbaImage {
        self.target.read_image(&gpu.device, &gpu.queue)
    }
}

/// Frames `converge` allows for a tree of max depth `max_depth`: every split frame deepens the
/// finest leaves by at least one level.
pub fn convergence_frame_limit(max_depth: u32) -> u32 {
    4 * max_depth + 16
}
