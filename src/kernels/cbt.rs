//! `bisector kernel cbt`: times the CBT sum reduction (cbt.reduce) and the decode of every leaf
//! (leb.decode) on a tree of max depth D filled to a given fraction, verified against the CPU twin.

use serde::Serialize;

use crate::cbt::args::CbtArgs;
use crate::cbt::cpu::{heap_word_count, Cbt};
use crate::cbt::decode_words::DecodeWords;
use crate::cbt::gpu::GpuCbt;
use crate::cbt::reduce::{CbtReduce, ReducePath};
use crate::gpu::readback::read_buffer;
use crate::gpu::timings::{submit_and_time, TimingMs};
use crate::gpu::Gpu;
use crate::leb::bounds::NodeBounds;
use crate::leb::decode::LebDecode;

/// What to run.
#[derive(Clone, Debug)]
pub struct CbtKernelOptions {
    pub max_depth: u32,
    /// Leaves as a fraction of 2^D: 1 (full), 0.5, 0.25, ... (a power of two).
    pub fill: f64,
    pub iterations: u32,
    /// The reduction's path; `None`: the one `ReducePath::choose` picks (subgroups where present).
    pub path: Option<ReducePath>,
}

/// The outcome.
#[derive(Clone, Debug, Serialize)]
pub struct CbtKernelReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub max_depth: u32,
    pub fill: f64,
    pub leaves: u32,
    pub heap_bytes: u64,
    pub reduce_dispatches: usize,
    /// The reduction's path that ran: "subgroup" (shaders/cbt_reduce_subgroup.wgsl), "shared" or "one".
    pub reduce_path: &'static str,
    /// The adapter's subgroup sizes (min, max), where it has Features::SUBGROUP.
    pub subgroup_sizes: Option<(u32, u32)>,
    pub iterations: u32,
    /// GPU heap equals the CPU heap bit for bit and every decoded leaf matches.
    pub verified: bool,
    pub reduce: TimingMs,
    pub decode: TimingMs,
    /// Each reduction dispatch timed in its own pass (median ms), measured after the others.
    pub reduce_per_dispatch_ms: Vec<f64>,
    /// Leaves decoded per second by leb.decode (median).
    pub decode_leaves_per_s: f64,
    /// cbt.decode_words: the same leaf ids, one thread per bitfield word (no LOD statistics).
    pub decode_words: TimingMs,
    pub decode_words_leaves_per_s: f64,
}

/// Depth whose full level has `fill * 2^D` nodes.
pub fn fill_depth(max_depth: u32, fill: f64) -> Option<u32> {
    let levels_up = (-fill.log2()).round();
    ((0.0..=max_depth as f64).contains(&levels_up) && (fill.log2() + levels_up).abs() < 1e-9).then(|| max_depth - levels_up as u32)
}

/// How long `run` reduces and decodes untimed before the timed iterations (at least once).
const WARM_UP: std::time::Duration = std::time::Duration::from_millis(200);

/// Runs the kernel: upload a tree whose counts are zeroed, reduce and decode it untimed for
/// `WARM_UP`, then `iterations` times timed, then check the heap and ids against the twin.
pub fn run(gpu: &Gpu, options: &CbtKernelOptions) -> CbtKernelReport {
    let init_depth = fill_depth(options.max_depth, options.fill).expect("fill validated by the caller");
    let cpu = Cbt::new(options.max_depth, init_depth);
    let leaves = cpu.node_count();
    let tree = GpuCbt::new(&gpu.device, &cpu, leaves);
    // The GPU starts from the bitfield alone: every count above it is zero.
    let mut bitfield_only = cpu.heap().to_vec();
    let bitfield_start = heap_word_count(options.max_depth) / 4 * 3;
    bitfield_only[1..bitfield_start].iter_mut().for_each(|w| *w = 0);
    bitfield_only[0] = 1 << options.max_depth;
    tree.upload(&gpu.queue, &Cbt::from_heap(bitfield_only));
    let reduce = match options.path {
        Some(path) => CbtReduce::with_path(&gpu.device, &tree, path),
        None => CbtReduce::new(&gpu.device, &tree),
    };
    let info = gpu.device.adapter_info();
    let subgroup_sizes =
        gpu.device.features().contains(wgpu::Features::SUBGROUP).then_some((info.subgroup_min_size, info.subgroup_max_size));
    let args = CbtArgs::new(&gpu.device, &tree);
    let decode = LebDecode::new(&gpu.device, &tree, &NodeBounds::flat(1, (0.0, 0.0)).create_buffers(&gpu.device), false);
    let decode_words = DecodeWords::new(&gpu.device, &tree);
    let mut profiler = crate::gpu::create_profiler(&gpu.device);
    let iteration = |profiler: &mut wgpu_profiler::GpuProfiler| {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kernel.cbt") });
        reduce.record(&mut encoder, profiler);
        args.record(&mut encoder, profiler);
        decode.record(&mut encoder, profiler, &tree);
        decode_words.record(&mut encoder, profiler);
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        profiler.end_frame().expect("profiler frame");
        gpu.wait_idle();
        profiler.process_finished_frame(gpu.queue.get_timestamp_period())
    };
    // Untimed iterations first: a GPU that idled (a fresh process, or the CPU-only work before it
    // in scripts/peers) runs its first milliseconds at idle clocks (docs/BENCHMARKS.md, run 97).
    let warm_up = std::time::Instant::now();
    while warm_up.elapsed() < WARM_UP {
        iteration(&mut profiler);
    }
    let (mut reduce_ms, mut decode_ms, mut decode_words_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..options.iterations {
        for result in iteration(&mut profiler).into_iter().flatten() {
            let Some(time) = result.time else { continue };
            let ms = (time.end - time.start) * 1e3;
            match result.label.as_str() {
                "cbt.reduce" => reduce_ms.push(ms),
                "leb.decode" => decode_ms.push(ms),
                "cbt.decode_words" => decode_words_ms.push(ms),
                _ => {}
            }
        }
    }
    let reduce_per_dispatch_ms = (0..reduce.dispatch_count())
        .map(|index| {
            let label = format!("cbt.reduce.{index}");
            // Every sample in one submission, back to back: a submission and a wait for each left
            // the GPU idle most of the time, and at D = 25 its clocks dropped (run 97).
            let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kernel.cbt.split") });
            for _ in 0..options.iterations.min(50) {
                reduce.record_per_dispatch(&mut encoder, &profiler);
            }
            TimingMs::of(submit_and_time(gpu, &mut profiler, encoder, &label)).median_ms
        })
        .collect();
    // Checked after every timed pass (each leaves the same heap and ids), so that the read-backs'
    // idle time does not drop the clocks the timed passes run at.
    let expected: Vec<u32> = (0..cpu.node_count()).map(|i| cpu.decode_node(i).id).collect();
    let verified = tree.read_heap(&gpu.device, &gpu.queue) == cpu
        && leaf_ids_equal(gpu, &decode.leaf_ids, &expected)
        && leaf_ids_equal(gpu, &decode_words.leaf_ids, &expected);
    let decode = TimingMs::of(decode_ms);
    let decode_words = TimingMs::of(decode_words_ms);
    CbtKernelReport {
        kernel: "cbt",
        adapter: gpu.describe(),
        max_depth: options.max_depth,
        fill: options.fill,
        leaves,
        heap_bytes: crate::cbt::cpu::heap_size_bytes(options.max_depth),
        reduce_dispatches: reduce.dispatch_count(),
        reduce_path: reduce.path().name(),
        subgroup_sizes,
        iterations: options.iterations,
        verified,
        reduce: TimingMs::of(reduce_ms),
        decode_leaves_per_s: leaves as f64 / (decode.median_ms * 1e-3),
        reduce_per_dispatch_ms,
        decode,
        decode_words_leaves_per_s: leaves as f64 / (decode_words.median_ms * 1e-3),
        decode_words,
    }
}

/// Whether the first `expected.len()` ids of `leaf_ids` are `expected`.
fn leaf_ids_equal(gpu: &Gpu, leaf_ids: &wgpu::Buffer, expected: &[u32]) -> bool {
    let bytes = read_buffer(&gpu.device, &gpu.queue, leaf_ids, 0, expected.len() as u64 * 4);
    bytemuck::cast_slice::<u8, u32>(&bytes) == expected
}

impl CbtKernelReport {
    /// One summary line per pass.
    pub fn summary(&self) -> String {
        format!(
            "cbt kernel on {}: D={} fill {} ({} leaves, {} KiB heap), verified: {}\n  cbt.reduce ({} path{}, {} dispatches): median {:.4} ms, p95 {:.4} ms, min {:.4} ms (each dispatch alone: {:?} ms)\n  leb.decode (every leaf):  median {:.4} ms, p95 {:.4} ms, min {:.4} ms ({:.2} G leaves/s)\n  cbt.decode_words (every leaf, one thread per bitfield word): median {:.4} ms, p95 {:.4} ms, min {:.4} ms ({:.2} G leaves/s)",
            self.adapter,
            self.max_depth,
            self.fill,
            self.leaves,
            self.heap_bytes >> 10,
            self.verified,
            self.reduce_path,
            self.subgroup_sizes.map_or_else(String::new, |(min, max)| format!(", subgroups of {min}..={max} lanes")),
            self.reduce_dispatches,
            self.reduce.median_ms,
            self.reduce.p95_ms,
            self.reduce.min_ms,
            self.reduce_per_dispatch_ms.iter().map(|ms| (ms * 1e4).round() / 1e4).collect::<Vec<_>>(),
            self.decode.median_ms,
            self.decode.p95_ms,
            self.decode.min_ms,
            self.decode_leaves_per_s / 1e9,
            self.decode_words.median_ms,
            self.decode_words.p95_ms,
            self.decode_words.min_ms,
            self.decode_words_leaves_per_s / 1e9
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_depths() {
        assert_eq!(fill_depth(20, 1.0), Some(20));
        assert_eq!(fill_depth(20, 0.25), Some(18));
        assert_eq!(fill_depth(20, 0.3), None);
        assert_eq!(fill_depth(5, 1.0 / 64.0), None);
    }
}
