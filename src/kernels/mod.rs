//! Diagnostic GPU kernels, each verified against its CPU reference and timed on its own.

pub mod cbt;
pub mod chained_hash;
pub mod closest_pairs;
pub mod compact_hash;
pub mod shift_and;
pub mod tile_table;

use serde::Serialize;

/// Most timed repetitions a kernel runs (`--iterations`; more would run for hours).
pub const MAX_ITERATIONS: u32 = 10_000;

use crate::bench::report::percentile;
use crate::gpu::Gpu;

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
