//! GPU times of a frame, per pass and whole, from wgpu-profiler's finished frames.

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

/// GPU times of `profiler`'s oldest finished frame, if its timestamps are available: every pass,
/// and the whole frame from the first pass's start to the last pass's end.
pub fn take_timings(profiler: &mut wgpu_profiler::GpuProfiler, queue: &wgpu::Queue) -> Option<FrameTimings> {
    let results = profiler.process_finished_frame(queue.get_timestamp_period())?;
    let timed: Vec<(String, std::ops::Range<f64>)> = results.into_iter().filter_map(|r| r.time.map(|t| (r.label, t))).collect();
    let start = timed.iter().map(|(_, t)| t.start).fold(f64::INFINITY, f64::min);
    let end = timed.iter().map(|(_, t)| t.end).fold(f64::NEG_INFINITY, f64::max);
    Some(FrameTimings {
        frame_gpu_ms: if timed.is_empty() { 0.0 } else { (end - start) * 1e3 },
        passes: timed.into_iter().map(|(label, t)| PassTiming { label, gpu_ms: (t.end - t.start) * 1e3 }).collect(),
    })
}
