//! The headless benchmark runner: flies a camera path for N frames and collects per-frame
//! statistics and per-pass GPU times into a report.

use crate::bench::globe_path::GlobePath;
use crate::bench::path::CameraPath;
use crate::bench::report::{BenchMeta, BenchReport, FrameRecord, GlobeFrameRecord, PoolFrameRecord, RasterSummary, SizeBin};
use crate::flat::camera::Camera;
use crate::flat::Renderer;
use crate::globe::pool_scene::GlobePoolRenderer;
use crate::globe::renderer::GlobeRenderer;
use crate::gpu::Gpu;
use crate::schedule::headless::{FrameOutcome, HeadlessView};
use crate::schedule::LebScene;

/// Seconds of frames at the path's first pose, after it has converged, before measuring
/// (unless the warm-up is off): enough for a GPU's clocks to come up from idle.
pub const WARM_UP_S: f64 = 1.0;

/// What to benchmark, for either renderer.
pub struct BenchOptions {
    pub terrain_name: String,
    pub path_name: String,
    pub size_px: (u32, u32),
    pub frames: u32,
    /// Frames rendered at most from the path's first pose before measuring, so the tree starts
    /// converged (it stops early once the tree has converged and the scene has settled: the
    /// globe's tile cache).
    pub warmup_frames: u32,
    /// Frames start no faster than this many per second (0: as fast as the GPU goes), so that
    /// tiles streaming on background threads see the time a real-time viewer would give them.
    pub pace_fps: f64,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Time every pass (true), or only the frame's bounds: `gpu::set_pass_timing`, which the
    /// caller sets for the process.
    pub pass_timing: bool,
}

/// The time along a path `duration_s` long of frame `frame` of `frames` (first and last frames
/// at the ends).
pub fn frame_time_s(duration_s: f64, frame: u32, frames: u32) -> f64 {
    if frames <= 1 {
        0.0
    } else {
        duration_s * frame as f64 / (frames - 1) as f64
    }
}

fn camera_at(path: &CameraPath, time_s: f64) -> Camera {
    let pose = path.sample(time_s);
    Camera { position_m: pose.position_m, forward: pose.forward, fov_y_deg: pose.fov_y_deg }
}

/// Flies `view` along a path `duration_s` long, seen from `camera_at(path_time_s)`, for every
/// measured frame, paced at `options.pace_fps`, with a progress bar; `globe(path_time_s, scene)`
/// adds what only the globe records (and the globe over the bisector pool). Returns the records.
fn fly<S: LebScene>(
    gpu: &Gpu,
    view: &mut HeadlessView<S>,
    options: &BenchOptions,
    duration_s: f64,
    camera_at: impl Fn(f64) -> S::Camera,
    globe: impl Fn(f64, &FrameOutcome, &S) -> (Option<GlobeFrameRecord>, Option<PoolFrameRecord>),
    warmed_up: impl FnOnce(&S),
) -> Vec<FrameRecord> {
    view.converge(gpu, &camera_at(0.0), options.warmup_frames.max(1));
    if options.warmup_frames > 0 {
        // The GPU's clocks: a process whose pipelines the driver compiled first (a binary's first
        // run on a machine) starts after seconds of idle, converges in a few hundred frames still
        // at idle clocks, and its measured frames ran 2-2.5x slow on the H200 (docs/BENCHMARKS.md,
        // nineteenth session). Frames at the first pose, converged (they change nothing), keep the
        // GPU busy for WARM_UP_S before measuring.
        let start = std::time::Instant::now();
        while start.elapsed().as_secs_f64() < WARM_UP_S {
            view.frame(gpu, &camera_at(0.0));
        }
    }
    warmed_up(&view.scene);
    let triangles_per_leaf = view.scene.triangles_per_leaf();
    let bar = if options.progress { indicatif::ProgressBar::new(options.frames as u64) } else { indicatif::ProgressBar::hidden() };
    bar.set_style(indicatif::ProgressStyle::with_template("bench {bar:40} {pos}/{len} frames, {eta} left").expect("valid template"));
    let period = (options.pace_fps > 0.0).then(|| std::time::Duration::from_secs_f64(1.0 / options.pace_fps));
    let start = std::time::Instant::now();
    let mut records = Vec::with_capacity(options.frames as usize);
    for frame in 0..options.frames {
        if let Some(period) = period {
            let due = start + period * frame;
            std::thread::sleep(due.saturating_duration_since(std::time::Instant::now()));
        }
        let time_s = frame_time_s(duration_s, frame, options.frames);
        let outcome = view.frame(gpu, &camera_at(time_s));
        let (globe, pool) = globe(time_s, &outcome, &view.scene);
        records.push(FrameRecord {
            frame,
            time_s,
            leaves: outcome.stats.leaves,
            triangles: outcome.stats.leaves.min(outcome.stats.capacity) as u64 * triangles_per_leaf,
            visible_leaves: outcome.lod.visible_leaves,
            max_error_px: outcome.lod.max_size_px as f64,
            max_depth: outcome.stats.max_depth,
            capped_leaves: pool.as_ref().map_or(outcome.lod.capped_leaves, |p| p.capped_by_depth + p.capped_by_pool),
            cache_hits: globe.as_ref().map_or(0, |g| u64::from(g.cache.hits)),
            cache_misses: globe.as_ref().map_or(0, |g| u64::from(g.cache.misses)),
            pass_gpu_ms: outcome.timings.passes.iter().map(|p| (p.label.clone(), p.gpu_ms)).collect(),
            frame_gpu_ms: outcome.timings.frame_gpu_ms,
            globe,
            pool,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    records
}

/// The report's description of a run.
fn meta(gpu: &Gpu, options: &BenchOptions, max_depth: u32, criterion: &str, pixel_error_px: f64) -> BenchMeta {
    let info = gpu.adapter.get_info();
    BenchMeta {
        terrain: options.terrain_name.clone(),
        path: options.path_name.clone(),
        width_px: options.size_px.0,
        height_px: options.size_px.1,
        frames: options.frames,
        adapter: info.name,
        backend: format!("{:?}", info.backend),
        max_depth,
        criterion: criterion.to_string(),
        pixel_error_px,
        date: today_utc(),
        peak_rss_bytes: crate::bench::memory::peak_rss_bytes(),
        pass_timing: options.pass_timing,
    }
}

/// Benchmarks the flat terrain along `path`: `view` holds its renderer.
pub fn run_bench(gpu: &Gpu, view: &mut HeadlessView<Renderer>, path: &CameraPath, options: &BenchOptions) -> BenchReport {
    // The histogram counts the measured frames only.
    let reset = |scene: &Renderer| {
        if let Some(raster) = scene.vis_raster() {
            raster.reset_histogram_now(&gpu.queue);
        }
    };
    let records = fly(gpu, view, options, path.duration_s(), |time_s| camera_at(path, time_s), |_, _, _| (None, None), reset);
    let settings = &view.scene.settings;
    let meta = meta(gpu, options, settings.max_depth, settings.criterion.name(), settings.threshold_px() as f64);
    let mut report = BenchReport::from_frames(meta, records);
    let histogram = view.scene.vis_raster().map(|raster| raster.read_histogram(gpu));
    report.raster = Some(raster_summary(settings.raster, settings.raster_large_px, histogram, options.frames));
    report
}

/// A scene's rasteriser (`requested`, compute where it drew the `histogram` of triangle sizes
/// over `frames` frames).
fn raster_summary(
    requested: crate::schedule::raster::RasterPath,
    large_px: u32,
    histogram: Option<[u32; crate::schedule::raster::HISTOGRAM_BINS]>,
    frames: u32,
) -> RasterSummary {
    use crate::schedule::raster::{histogram_bin_floor_px, HISTOGRAM_BINS};
    let size_histogram = histogram.map_or_else(Vec::new, |counts| {
        (0..HISTOGRAM_BINS)
            .map(|bin| SizeBin {
                from_px: histogram_bin_floor_px(bin),
                to_px: (bin + 1 < HISTOGRAM_BINS).then(|| histogram_bin_floor_px(bin + 1)),
                triangles_per_frame: f64::from(counts[bin]) / f64::from(frames.max(1)),
            })
            .collect()
    });
    RasterSummary {
        requested: requested.name().to_string(),
        used: if histogram.is_some() { "compute" } else { "hardware" }.to_string(),
        large_px,
        size_histogram,
    }
}

/// Benchmarks the globe along `path`: `view` holds the renderer and its tile cache.
pub fn run_globe_bench(gpu: &Gpu, view: &mut HeadlessView<GlobeRenderer>, path: &GlobePath, options: &BenchOptions) -> BenchReport {
    let globe = |time_s: f64, outcome: &FrameOutcome, scene: &GlobeRenderer| {
        let pose = path.sample(time_s);
        let record = GlobeFrameRecord {
            lon_deg: pose.lon_deg,
            lat_deg: pose.lat_deg,
            altitude_m: pose.altitude_m,
            cpu_submit_ms: outcome.cpu_submit_ms,
            cache: scene.cache.stats(),
        };
        (Some(record), None)
    };
    let records = fly(gpu, view, options, path.duration_s(), |time_s| path.sample(time_s).camera(), globe, |_| ());
    let settings = &view.scene.settings;
    let meta = meta(gpu, options, settings.max_depth, settings.criterion.name(), settings.target_px() as f64);
    BenchReport::from_frames(meta, records)
}

/// The pool benchmark fills the near-edge histogram on every this-many-th frame.
pub const BENCH_NEAR_EDGE_INTERVAL_FRAMES: u32 = 8;

/// Benchmarks the globe drawn from the bisector pool along `path` (`bench --pool-slots`): the
/// same records as `run_globe_bench`, and the pool's figures (`PoolFrameRecord`: the near edges
/// read from the decode's histogram every `BENCH_NEAR_EDGE_INTERVAL_FRAMES`-th frame, as the
/// viewer does, so the timings are those of a frame nobody measures 7 times in 8), and the capped
/// leaves of the last split frame (read after each split frame); max depth is the pool's, the
/// criterion the same edge length on the leaves themselves.
pub fn run_globe_pool_bench(
    gpu: &Gpu,
    view: &mut HeadlessView<GlobePoolRenderer>,
    path: &GlobePath,
    options: &BenchOptions,
) -> BenchReport {
    view.scene.near_edge_interval_frames = BENCH_NEAR_EDGE_INTERVAL_FRAMES;
    // The counters of the last split frame (a merge frame leaves its capped counts at 0).
    let last_split = std::cell::Cell::new(None);
    let globe = |time_s: f64, outcome: &FrameOutcome, scene: &GlobePoolRenderer| {
        if scene.tree.update_kind() == Some(crate::leb::cpu::UpdateKind::Merge) {
            last_split.set(Some(scene.read_pool_counters(gpu)));
        }
        let counters = last_split.get().unwrap_or_default();
        let pose = path.sample(time_s);
        let record = GlobeFrameRecord {
            lon_deg: pose.lon_deg,
            lat_deg: pose.lat_deg,
            altitude_m: pose.altitude_m,
            cpu_submit_ms: outcome.cpu_submit_ms,
            cache: scene.cache.stats(),
        };
        let pool = PoolFrameRecord {
            max_depth_reached: outcome.stats.max_depth.saturating_sub(crate::leb::base_mesh::BaseMesh::octahedron().depth),
            pool_slots: scene.pool_settings.pool_slots,
            pool_used: outcome.stats.leaves,
            capped_by_depth: counters.capped_by_depth,
            capped_by_pool: counters.capped_by_pool,
            pending_split_leaves: outcome.lod.capped_leaves,
            near_edge_m: if scene.near_edges_fresh() { scene.read_near_edges(gpu).stats() } else { None },
        };
        (Some(record), Some(pool))
    };
    // The histogram counts the measured frames only.
    let reset = |scene: &GlobePoolRenderer| {
        if let Some(raster) = scene.vis_raster() {
            raster.reset_histogram_now(&gpu.queue);
        }
    };
    let records = fly(gpu, view, options, path.duration_s(), |time_s| path.sample(time_s).camera(), globe, reset);
    let scene = &view.scene;
    let criterion = format!("{} (bisector pool)", scene.settings.criterion.name());
    let meta = meta(gpu, options, scene.pool_settings.max_depth, &criterion, scene.settings.target_px() as f64);
    let mut report = BenchReport::from_frames(meta, records);
    let histogram = scene.vis_raster().map(|raster| raster.read_histogram(gpu));
    report.raster = Some(raster_summary(scene.settings.raster, scene.settings.raster_large_px, histogram, options.frames));
    report
}

/// Today's date (UTC) as YYYY-MM-DD.
pub fn today_utc() -> String {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86400) as i64;
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// (year, month, day) of the day `days` after 1970-01-01 (Howard Hinnant's civil-from-days).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso() {
        let date = today_utc();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20"));
    }
}
