//! Headless globe frames: `shot --terrain planet...`, the globe tests and goldens.

use crate::cache::tile_cache::{TileCache, TileCacheStats};
use crate::cbt::gpu::FrameStats;
use crate::globe::camera::GlobeCamera;
use crate::globe::renderer::GlobeRenderer;
use crate::gpu::target::OffscreenTarget;
use crate::gpu::timings::FrameTimings;
use crate::gpu::Gpu;
use crate::leb::decode::LodStats;

/// A globe renderer, its tile cache and an offscreen target of a fixed size.
pub struct GlobeView {
    pub renderer: GlobeRenderer,
    pub cache: TileCache,
    pub target: OffscreenTarget,
}

/// What one frame did.
#[derive(Clone, Debug)]
pub struct GlobeFrameOutcome {
    pub stats: FrameStats,
    pub lod: LodStats,
    pub cache: TileCacheStats,
    pub timings: FrameTimings,
    /// CPU wall time of the cache's frame work, recording and submission, in milliseconds.
    pub cpu_submit_ms: f64,
}

impl GlobeView {
    /// Wraps `renderer` and the `cache` it samples with a `width_px` x `height_px` target.
    pub fn new(gpu: &Gpu, renderer: GlobeRenderer, cache: TileCache, width_px: u32, height_px: u32) -> GlobeView {
        GlobeView { target: OffscreenTarget::new(&gpu.device, width_px, height_px), renderer, cache }
    }

    /// Renders one frame, waits for it and returns its statistics and timings.
    pub fn frame(&mut self, gpu: &Gpu, camera: &GlobeCamera) -> GlobeFrameOutcome {
        let start = std::time::Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("globe.frame") });
        let size = (self.target.width_px, self.target.height_px);
        self.cache.begin_frame(gpu, &mut encoder, self.renderer.frame_index() + 1);
        self.renderer.record_frame(&gpu.queue, &mut encoder, &self.cache, camera, size, &self.target.color_view, &self.target.depth_view);
        self.cache.end_frame(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        self.cache.after_submit();
        self.renderer.end_frame();
        let cpu_submit_ms = start.elapsed().as_secs_f64() * 1e3;
        let stats = self.renderer.read_stats(gpu);
        let lod = self.renderer.read_lod_stats(gpu);
        gpu.wait_idle();
        let timings = self.renderer.take_timings(&gpu.queue).unwrap_or_default();
        GlobeFrameOutcome { stats, lod, cache: self.cache.stats(), timings, cpu_submit_ms }
    }

    /// Renders frames until the leaf count stays the same for two consecutive frames and the
    /// tile cache has settled (nothing missed, nothing loading), or `max_frames` is reached;
    /// returns the frames run and the last outcome. While tiles load on background threads it
    /// waits a little between frames rather than spinning.
    pub fn converge(&mut self, gpu: &Gpu, camera: &GlobeCamera, max_frames: u32) -> (u32, GlobeFrameOutcome) {
        let mut last = self.frame(gpu, camera);
        let mut quiet = 0;
        for frame in 1..max_frames {
            let outcome = self.frame(gpu, camera);
            quiet = if outcome.stats.leaves == last.stats.leaves && self.cache.is_settled() { quiet + 1 } else { 0 };
            let loading = outcome.cache.in_flight > 0;
            last = outcome;
            if quiet == 2 {
                return (frame + 1, last);
            }
            if loading {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
        (max_frames, last)
    }

    /// The last frame's image.
    pub fn image(&self, gpu: &Gpu) -> image::RgbaImage {
        self.target.read_image(&gpu.device, &gpu.queue)
    }
}
