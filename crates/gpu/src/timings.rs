//! GPU times from wgpu-profiler's finished frames: of a frame, per pass and whole; and of one
//! pass over a kernel's timed repetitions (`TimingMs`).

use serde::Serialize;

use crate::Gpu;

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
    Some(frame_timings(timed))
}

/// The frame of timed passes `timed` (label, seconds), in recording order: each pass, then a span
/// `X` for every pair of passes `X.start` and `X.end` (the first's start to the second's end: the
/// frame's compute before the draw timed by its bounds alone, `FRAME_BOUND_LABELS`).
fn frame_timings(timed: Vec<(String, std::ops::Range<f64>)>) -> FrameTimings {
    let start = timed.iter().map(|(_, t)| t.start).fold(f64::INFINITY, f64::min);
    let end = timed.iter().map(|(_, t)| t.end).fold(f64::NEG_INFINITY, f64::max);
    let spans: Vec<PassTiming> = timed
        .iter()
        .filter_map(|(label, opened)| {
            let name = label.strip_suffix(".start")?;
            let closed = timed.iter().find(|(other, _)| other.strip_suffix(".end") == Some(name))?;
            Some(PassTiming { label: name.to_string(), gpu_ms: (closed.1.end - opened.start) * 1e3 })
        })
        .filter(|span| span.label != "frame")
        .collect();
    FrameTimings {
        frame_gpu_ms: if timed.is_empty() { 0.0 } else { (end - start) * 1e3 },
        passes: timed.into_iter().map(|(label, t)| PassTiming { label, gpu_ms: (t.end - t.start) * 1e3 }).chain(spans).collect(),
    }
}

/// Percentile `p` (in percent, 0 to 100) of ascending `sorted` data, by linear interpolation.
///
/// Uses the "linear" definition (numpy's default): the value at fractional rank
/// `p / 100 * (n - 1)`, interpolated between its neighbours, so p = 0 is the minimum,
/// p = 100 the maximum and p = 50 the usual median. `p` is clamped to [0, 100]. Returns NaN
/// for empty data or a NaN `p`.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() || p.is_nan() {
        return f64::NAN;
    }
    let rank = p.clamp(0.0, 100.0) / 100.0 * (sorted.len() - 1) as f64;
    let below = rank.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let fraction = rank - below as f64;
    sorted[below] + (sorted[above] - sorted[below]) * fraction
}

/// GPU time statistics of one pass over a kernel's iterations, in milliseconds.
#[derive(Clone, Debug, Serialize)]
pub struct TimingMs {
    pub median_ms: f64,
    pub p95_ms: f64,
    pub min_ms: f64,
}

impl TimingMs {
    /// Statistics of `samples` (NaN when there are none).
    pub fn of(mut samples: Vec<f64>) -> TimingMs {
        samples.sort_by(f64::total_cmp);
        TimingMs {
            median_ms: percentile(&samples, 50.0),
            p95_ms: percentile(&samples, 95.0),
            min_ms: samples.first().copied().unwrap_or(f64::NAN),
        }
    }
}

/// Submits `encoder` as one profiler frame, waits for the GPU, and returns the GPU milliseconds
/// of every pass labelled `label` in it.
pub fn submit_and_time(gpu: &Gpu, profiler: &mut wgpu_profiler::GpuProfiler, encoder: wgpu::CommandEncoder, label: &str) -> Vec<f64> {
    submit_and_time_all(gpu, profiler, encoder).into_iter().filter(|(l, _)| l == label).map(|(_, ms)| ms).collect()
}

/// Submits `encoder` as one profiler frame, waits for the GPU, and returns (label, GPU
/// milliseconds) of every timed pass in it, in recording order.
pub fn submit_and_time_all(gpu: &Gpu, profiler: &mut wgpu_profiler::GpuProfiler, mut encoder: wgpu::CommandEncoder) -> Vec<(String, f64)> {
    profiler.resolve_queries(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    profiler.end_frame().expect("profiler frame");
    gpu.wait_idle();
    profiler
        .process_finished_frame(gpu.queue.get_timestamp_period())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|r| r.time.map(|t| (r.label, (t.end - t.start) * 1e3)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_and_end_pair_makes_a_span() {
        let pass = |label: &str, start: f64, end: f64| (label.to_string(), start..end);
        let frame = frame_timings(vec![
            pass("frame.start", 1.0, 1.001),
            pass("nondraw.start", 1.002, 1.003),
            pass("pool.classify", 1.003, 1.010),
            pass("nondraw.end", 1.011, 1.012),
            pass("frame.end", 1.020, 1.021),
        ]);
        assert!((frame.frame_gpu_ms - 21.0).abs() < 1e-9);
        let labels: Vec<&str> = frame.passes.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["frame.start", "nondraw.start", "pool.classify", "nondraw.end", "frame.end", "nondraw"]);
        assert!((frame.passes[5].gpu_ms - 10.0).abs() < 1e-9, "nondraw.start's start to nondraw.end's end");
        assert!(frame_timings(vec![pass("nondraw.start", 0.0, 1.0)]).passes.len() == 1, "no end: no span");
    }

    #[test]
    fn percentiles_of_known_data() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile(&data, 0.0), 1.0);
        assert_eq!(percentile(&data, 100.0), 10.0);
        assert_eq!(percentile(&data, 50.0), 5.5);
        assert!((percentile(&data, 95.0) - 9.55).abs() < 1e-12);
        assert!((percentile(&data, 25.0) - 3.25).abs() < 1e-12);
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 50.0), 2.0);
        assert_eq!(percentile(&[4.0], 95.0), 4.0);
        assert_eq!(percentile(&data, 150.0), 10.0);
        assert_eq!(percentile(&data, -5.0), 1.0);
        assert!(percentile(&[], 50.0).is_nan());
        assert!(percentile(&data, f64::NAN).is_nan());
    }
}
