//! `bisector kernel pool`: times the bisector pool's split and merge frames on the GPU (issue 15)
//! under the test criterion, and checks the pool read back at the end (`PoolTwin::validate`).
//!
//! The workload: random splits down to `random_depth` levels (a new hash salt every frame, so
//! that a share of the leaves changes every frame: far more churn than a moving camera causes),
//! plus `foci` random points refined to the pool's max depth (chains of conforming splits across
//! base triangles and folds). The tree first grows for a few frames, then split and merge frames
//! alternate, each timed pass by pass.

use serde::Serialize;

use crate::gpu::timings::{submit_and_time_all, TimingMs};
use crate::gpu::Gpu;
use crate::leb::node64::{BaseMesh64, Node64};
use crate::pool::{GpuPool, PoolSettings, TestCriterion};

/// What to run.
#[derive(Clone, Debug)]
pub struct PoolKernelOptions {
    pub settings: PoolSettings,
    /// Random splits only above this depth (the leaves then number up to about 2^random_depth).
    pub random_depth: u32,
    /// Points refined to the max depth.
    pub foci: u32,
    /// Timed frames (split and merge alternate).
    pub frames: u32,
    pub seed: u64,
}

/// The outcome.
#[derive(Clone, Debug, Serialize)]
pub struct PoolKernelReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub pool_slots: u32,
    pub random_depth: u32,
    pub foci: u32,
    pub frames: u32,
    /// Leaves (used slots) over the timed frames: median and most.
    pub leaves_median: u32,
    pub leaves_max: u32,
    /// Deepest leaf, in levels below the octahedron's base.
    pub max_depth_reached: u32,
    /// Leaves that wanted to split and could not (depth or pool), most in one frame.
    pub capped_leaves_max: u32,
    /// GPU time of a whole split frame and a whole merge frame (every pass summed).
    pub split_frame: TimingMs,
    pub merge_frame: TimingMs,
    /// The 99th percentile of either frame, in milliseconds.
    pub p99_frame_ms: f64,
    /// Median GPU ms of each pass, in recording order.
    pub passes: Vec<(String, f64)>,
    /// The pool read back after the last frame passes `PoolTwin::validate`.
    pub verified: bool,
}

/// A node of `depth` on a random path from a random base triangle.
fn random_node(mesh: &BaseMesh64, depth: u32, next: &mut impl FnMut() -> u64) -> Node64 {
    let roots: Vec<Node64> = mesh.roots().collect();
    let mut node = roots[(next() % roots.len() as u64) as usize];
    while node.depth() < depth {
        node = node.child(next() & 1);
    }
    node
}

/// Runs the kernel.
pub fn run(gpu: &Gpu, options: &PoolKernelOptions) -> Result<PoolKernelReport, crate::pool::gpu::PoolError> {
    let pool = GpuPool::new(gpu, &options.settings)?;
    let mesh = BaseMesh64::octahedron();
    let mut state = options.seed.max(1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let foci: Vec<Node64> = (0..options.foci).map(|_| random_node(&mesh, options.settings.max_depth, &mut next)).collect();
    let criterion = |salt: u32, split_share: u32| TestCriterion {
        salt,
        split_share,
        keep_share: 1 << 13,
        random_max_depth: options.random_depth,
        foci: foci.clone(),
    };
    // Growth: split frames with most nodes wanting a split until the depth is reached.
    let growth_frames = options.settings.max_depth + 8;
    for frame in 0..growth_frames {
        pool.set_criterion(gpu, &criterion(frame, 3 << 14));
        pool.split_frame(gpu);
    }
    gpu.wait_idle();
    let mut profiler = crate::gpu::create_profiler(&gpu.device);
    let (mut split_ms, mut merge_ms) = (Vec::new(), Vec::new());
    let mut pass_ms: Vec<(String, Vec<f64>)> = Vec::new();
    let (mut leaves, mut max_depth_reached, mut capped_max) = (Vec::new(), 0, 0);
    for frame in 0..options.frames {
        let split = frame % 2 == 0;
        pool.set_criterion(gpu, &criterion(growth_frames + frame, 3 << 14));
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kernel.pool") });
        if split {
            pool.record_split_frame(&mut encoder, &profiler);
        } else {
            pool.record_merge_frame(&mut encoder, &profiler);
        }
        let timed = submit_and_time_all(gpu, &mut profiler, encoder);
        let total: f64 = timed.iter().map(|(_, ms)| ms).sum();
        if split { &mut split_ms } else { &mut merge_ms }.push(total);
        for (label, ms) in timed {
            match pass_ms.iter_mut().find(|(l, _)| *l == label) {
                Some((_, samples)) => samples.push(ms),
                None => pass_ms.push((label, vec![ms])),
            }
        }
        let counters = pool.read_counters(gpu);
        leaves.push(counters.leaves);
        max_depth_reached = max_depth_reached.max(counters.max_depth_reached);
        capped_max = capped_max.max(counters.capped_leaves());
    }
    let verified = pool.read_twin(gpu).validate().is_empty();
    leaves.sort_unstable();
    let mut all: Vec<f64> = split_ms.iter().chain(&merge_ms).copied().collect();
    all.sort_by(f64::total_cmp);
    Ok(PoolKernelReport {
        kernel: "pool",
        adapter: gpu.adapter.get_info().name,
        pool_slots: options.settings.pool_slots,
        random_depth: options.random_depth,
        foci: options.foci,
        frames: options.frames,
        leaves_median: leaves.get(leaves.len() / 2).copied().unwrap_or(0),
        leaves_max: leaves.last().copied().unwrap_or(0),
        max_depth_reached: max_depth_reached.saturating_sub(mesh.depth),
        capped_leaves_max: capped_max,
        split_frame: TimingMs::of(split_ms),
        merge_frame: TimingMs::of(merge_ms),
        p99_frame_ms: crate::gpu::timings::percentile(&all, 99.0),
        passes: pass_ms.into_iter().map(|(label, samples)| (label, TimingMs::of(samples).median_ms)).collect(),
        verified,
    })
}

impl PoolKernelReport {
    /// A few lines for the terminal.
    pub fn summary(&self) -> String {
        let passes: Vec<String> = self.passes.iter().map(|(label, ms)| format!("{label} {ms:.3}")).collect();
        format!(
            "pool kernel on {}: {} slots, leaves median {} (max {}), max depth reached {} below the octahedron, capped up to {}\n\
             split frame median {:.3} ms (p95 {:.3}), merge frame median {:.3} ms (p95 {:.3}), p99 of either {:.3} ms over {} frames\n\
             passes (median ms): {}\nverified: {}",
            self.adapter,
            self.pool_slots,
            self.leaves_median,
            self.leaves_max,
            self.max_depth_reached,
            self.capped_leaves_max,
            self.split_frame.median_ms,
            self.split_frame.p95_ms,
            self.merge_frame.median_ms,
            self.merge_frame.p95_ms,
            self.p99_frame_ms,
            self.frames,
            passes.join(", "),
            self.verified
        )
    }
}
