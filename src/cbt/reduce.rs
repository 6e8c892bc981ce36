//! cbt.reduce: the sum reduction of the heap in at most 3 dispatches (shaders/cbt_reduce.wgsl),
//! over the whole bitfield (`record`) or over the blocks changed since the last reduction
//! (`record_changed`, see cbt::changed).

use wgpu::util::DeviceExt;

use crate::cbt::gpu::GpuCbt;
use crate::gpu::dispatch::groups_2d;
use crate::gpu::{profiled_compute_pass, shader};

/// Parameters of one reduction dispatch. Keep in sync with ReduceParams in shaders/cbt_reduce.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ReduceParams {
    /// Depth of the per-thread input counts (D - 5 for the bitfield dispatch).
    pub in_depth: u32,
    /// Levels summed in workgroup memory above `in_depth`.
    pub levels: u32,
    /// 1 for the dispatch that reads the bitfield.
    pub bitfield: u32,
    /// log2 of the items (bitfield words, or counts below in_depth) each thread sums in registers.
    pub items_log2: u32,
    /// 1: the bitfield dispatch visits the changed blocks alone (an indirect dispatch).
    pub changed_only: u32,
    pub _pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<ReduceParams>() == 32);

/// Levels one 256-thread workgroup sums in shared memory.
const LEVELS_PER_GROUP: u32 = 8;
/// Most items one thread reads, as log2 (keep in sync with MAX_ITEMS_PER_THREAD in
/// shaders/cbt_reduce.wgsl).
const MAX_WORD_LOG2: u32 = 2;
/// Workgroup memory the reduction uses, in bytes (shared areas + ping-pong counts).
pub const WORKGROUP_STORAGE_BYTES: u64 = (2304 + 512) * 4 + 16 * 12;

/// Words per thread (log2) of the first dispatch: one word per thread while the tree is small
/// (each workgroup then finishes soonest), more once there are over 512 workgroups to amortise
/// each thread's fixed work over more of the bitfield (measured on the H100: D = 25 went from
/// 138 to 72 microseconds with 4 words per thread; 8 words per thread was slower again once the
/// area table moved to shared memory, as their strided loads compete for L1).
pub fn word_log2(max_depth: u32) -> u32 {
    max_depth.saturating_sub(22).min(MAX_WORD_LOG2)
}

/// The dispatches that reduce a heap of max depth `max_depth`: 1 up to D = 13, 2 up to 25, 3 up to 29.
pub fn reduce_plan(max_depth: u32) -> Vec<ReduceParams> {
    let items_log2 = word_log2(max_depth);
    let thread_depth = max_depth - 5 - items_log2;
    let first_levels = thread_depth.min(LEVELS_PER_GROUP);
    let mut plan = vec![ReduceParams { in_depth: thread_depth, levels: first_levels, bitfield: 1, items_log2, changed_only: 0, _pad: [0; 3] }];
    // Counts at `depth` are the deepest not yet summed; each later dispatch sums up to
    // MAX_WORD_LOG2 levels in registers and LEVELS_PER_GROUP in shared memory.
    let mut depth = thread_depth - first_levels;
    while depth > 0 {
        let items_log2 = depth.saturating_sub(LEVELS_PER_GROUP).min(MAX_WORD_LOG2);
        let in_depth = depth - items_log2;
        let levels = in_depth.min(LEVELS_PER_GROUP);
        plan.push(ReduceParams { in_depth, levels, bitfield: 0, items_log2, changed_only: 0, _pad: [0; 3] });
        depth = in_depth - levels;
    }
    plan
}

/// The reduction pipeline with one bind group per dispatch.
pub struct CbtReduce {
    pipeline: wgpu::ComputePipeline,
    dispatches: Vec<(wgpu::BindGroup, (u32, u32))>,
    /// The bind group of the changed-only bitfield dispatch.
    changed_dispatch: wgpu::BindGroup,
    /// Its indirect arguments: the changed-block count is copied into x before it runs.
    changed_args: wgpu::Buffer,
}

impl CbtReduce {
    /// Builds the pipeline and bind groups for `cbt`.
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt) -> CbtReduce {
        let pipeline = shader::compute_pipeline(device, "cbt.reduce", "cbt_reduce.wgsl", "reduce", &cbt.writer_constants());
        let layout = pipeline.get_bind_group_layout(0);
        let bind_group = |params: &ReduceParams| {
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("cbt.reduce.params"),
                contents: bytemuck::bytes_of(params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("cbt.reduce"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: uniform.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: cbt.heap.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 7, resource: cbt.changed.as_entire_binding() },
                ],
            })
        };
        let plan = reduce_plan(cbt.max_depth);
        let changed_dispatch = bind_group(&ReduceParams { changed_only: 1, ..plan[0] });
        let dispatches = plan
            .iter()
            .map(|params| {
                let groups = ((1u32 << params.in_depth) / crate::gpu::dispatch::WORKGROUP_SIZE).max(1);
                (bind_group(params), groups_2d(groups))
            })
            .collect();
        let changed_args = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cbt.reduce.changed_args"),
            contents: bytemuck::cast_slice(&[0u32, 1, 1]),
            usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        });
        CbtReduce { pipeline, dispatches, changed_dispatch, changed_args }
    }

    /// Number of dispatches one reduction takes.
    pub fn dispatch_count(&self) -> usize {
        self.dispatches.len()
    }

    /// Records each dispatch as its own profiled pass "cbt.reduce.N" (for `kernel cbt`, which
    /// reports where the reduction's time goes).
    pub fn record_per_dispatch(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        for (index, (bind_group, (x, y))) in self.dispatches.iter().enumerate() {
            profiled_compute_pass(profiler, encoder, &format!("cbt.reduce.{index}"), |pass| {
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(*x, *y, 1);
            });
        }
    }

    /// Records the whole reduction as one profiled compute pass "cbt.reduce".
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        profiled_compute_pass(profiler, encoder, "cbt.reduce", |pass| {
            pass.set_pipeline(&self.pipeline);
            Self::dispatch(pass, &self.dispatches);
        });
    }

    /// Records the reduction of the blocks changed since the last reduction, as one profiled
    /// compute pass "cbt.reduce": the bitfield dispatch visits the changed blocks alone; the later
    /// dispatches (at most 2^12 threads at D = 29) stay whole. Leaves the same heap as `record`
    /// wherever the counts were right before the changes (any reduction leaves them right).
    /// A tree that does not track its changes (`GpuCbt::tracks_changes`) is reduced whole.
    pub fn record_changed(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, cbt: &GpuCbt) {
        if !cbt.tracks_changes {
            return self.record(encoder, profiler);
        }
        encoder.copy_buffer_to_buffer(&cbt.changed, 0, &self.changed_args, 0, Some(4));
        profiled_compute_pass(profiler, encoder, "cbt.reduce", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.changed_dispatch, &[]);
            pass.dispatch_workgroups_indirect(&self.changed_args, 0);
            Self::dispatch(pass, &self.dispatches[1..]);
        });
    }

    /// Records `dispatches` in order into `pass` (the pipeline already set).
    fn dispatch(pass: &mut wgpu::ComputePass, dispatches: &[(wgpu::BindGroup, (u32, u32))]) {
        for (bind_group, (x, y)) in dispatches {
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*x, *y, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_needs_at_most_three_dispatches() {
        for d in 5..=29 {
            let plan = reduce_plan(d);
            assert!(plan.len() <= 3, "D={d}: {plan:?}");
            // The levels cover D-1 .. 0 exactly once: 5 per word, the rest in registers or shared memory.
            let covered: u32 = plan.iter().map(|p| p.levels + p.items_log2).sum::<u32>();
            assert_eq!(covered + 5, d);
        }
        assert_eq!(reduce_plan(13).len(), 1);
        assert_eq!(reduce_plan(21).len(), 2);
        assert_eq!(reduce_plan(26).len(), 3);
        assert_eq!(reduce_plan(25).len(), 2);
        assert_eq!(reduce_plan(29).len(), 3);
    }
}
