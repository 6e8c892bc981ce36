//! The pool's passes on the GPU (docs/design/bisector-pool.md 3.5), each the twin of one
//! function of split.rs or merge.rs, and the frames that record them.
//!
//! ```text
//! PoolMode::Deterministic (bit-exact: every buffer equals the twin's)
//! split frame  clear counters and histogram; copy neighbours -> snapshot;
//!              pool.classify_split, pool.threshold, pool.mark,                 (pool_split.wgsl)
//!              pool.alloc_sum, pool.alloc_scan, pool.allocate,                 (pool_allocate.wgsl)
//!              pool.bisect (fix-ups included),                                 (pool_bisect.wgsl)
//!              cbt.reduce, pool.list                                           (pool_list.wgsl)
//! merge frame  clear counters; copy neighbours -> snapshot;
//!              pool.classify_merge, pool.elect, pool.merge (fix-ups included), (pool_merge.wgsl)
//!              cbt.reduce, pool.list
//!
//! PoolMode::Compact (the renderer's: equal to the twin by meaning; clear counters, no copy)
//! split frame  pool.classify_split  over the draw list; candidates -> LIST_CANDIDATES; the
//!                                   histogram and its sum; clears pool.order's gains and changed
//!                                   bits; the free list, from the CBT the last frame reduced
//!              pool.mark            over LIST_CANDIDATES, each workgroup first finding b*: 0 where
//!                                   the histogram's sum fits the free slots, else by a scan of the
//!                                   histogram (no pool.threshold pass: BENCHMARKS.md run 83);
//!                                   slots whose pattern leaves 0 -> LIST_ALLOCATIONS
//!              pool.allocate        over LIST_ALLOCATIONS; ranks by atomicAdd(popcount(pattern)); the
//!                                   links of each slot and of its 3 neighbours -> snapshot; the
//!                                   slot's changed bit
//!              pool.bisect          over LIST_ALLOCATIONS; and over the draw list (copied to the last
//!                                   list by classify): each workgroup's gains (shared/pool_order_marks.wgsl)
//!              cbt.reduce           (in pool.order's dispatch from D = 17: pool_order_reduce.wgsl)
//!              pool.order           the draw list kept in tree order (pool_order.wgsl), the leaf
//!                                   count (from the frame's counters) and arguments, the update
//!                                   words the frame wrote cleared: pool.list's work but the free
//!                                   list, in the same pass
//! merge frame  pool.classify_merge  over the draw list; even leaves in merge state -> LIST_MERGE;
//!                                   clears pool.order's gains and changed bits
//!              pool.elect           over LIST_MERGE; the elected diamonds' even leaves -> LIST_MERGED,
//!                                   the links of e, its odd sibling o, o's edge neighbour -> snapshot;
//!                                   o's changed bit
//!              pool.merge           over LIST_MERGED; the draw list's gains (as bisect)
//!              cbt.reduce, pool.order (one pass from D = 17)
//! ```
//! Every pass over the leaves is an indirect dispatch of one thread per draw-list entry, on the
//! arguments the last pool.list or pool.order wrote. A pass over a compact list is a fixed dispatch of
//! `workgroups` (`COMPACT_WORKGROUPS` = 264, two per H100 SM) whose threads loop over the list's
//! entries with a grid stride, the count read from `PoolCounters::listed`: no pass writes indirect
//! arguments between them (each would cost a pass, a few µs on the H100), and with the few hundred
//! entries of a steady frame each pass costs about its launch; a frame that lists more (the first
//! frames of a descent) loops. The lists live in pool.list after the draw list (no new binding:
//! the globe's criterion already binds 12 storage buffers), N entries each, and a slot enters a
//! list at most once per frame, so they never overflow. alloc_sum and alloc_scan are not needed,
//! and neither is a snapshot pass (allocate and elect copy the links bisect and merge read;
//! nothing writes a link before bisect or merge): each pass costs at least its launch and a
//! barrier, 5-10 µs on the H100. Nor is pool.threshold: each of mark's workgroups scanning the
//! histogram for b* itself took longer than the pass (BENCHMARKS.md run 47), but while the pool
//! is not full b* is 0, which the histogram's sum (one more atomic per classify workgroup with
//! candidates) shows without a scan; mark scans only when the pool is full.
//! The compact mode's classify passes do not clear every leaf's update record (7 atomic stores a
//! leaf): every record is clean as a frame begins (`GpuPool::upload` writes them so), and
//! pool.order's threads clear the few words the frame wrote, all in slots on its lists
//! (shaders/shared/pool_lists.wgsl `clean_entry`). A frame's passes after the last update are
//! one (pool.order, with the reduction in its dispatch; each pass costs its launch and a barrier),
//! so the work pool.order_gains did in a pass of its own rides on bisect or merge (after the last
//! changed bit is set), and pool.order's dispatch is fixed (one thread per slot), as it writes the
//! arguments. pool.order reads none of the reduction's counts: its leaf count is the last list's
//! plus the frame's `slots_allocated` less its `slots_freed`, and the free list moved to the next
//! split frame's classify (BENCHMARKS.md run 101: 0.010 ms off the ship path's span).
//!
//! All of them share one explicit layout (the pool's eight storage buffers and the criterion's
//! uniform); pool.list and pool.order have their own, as they write the arguments buffer that the
//! others dispatch from. The compact mode records pool.list only after an upload.

use crate::cbt::gpu::GpuCbt;
use crate::cbt::reduce::{CbtReduce, ReducePath};
use crate::gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use crate::gpu::Gpu;
use crate::pool::gpu::{GpuPool, PoolMode, COUNTERS_OFFSET, GROUP_SUMS_OFFSET, HISTOGRAM_OFFSET};
use crate::shaders::SHADERS;

/// Storage buffers pool_order_reduce.wgsl binds: pool.order's 7 and the reduction's 4 (three views
/// of the heap and its sums). On a device with fewer a stage, the two stay separate passes.
pub(crate) const ORDER_REDUCE_STORAGE_BUFFERS: u32 = 11;

/// pool.order with the CBT's one-pass reduction in its dispatch (pool_order_reduce.wgsl): the
/// pipeline, pool.order's bind group, the reduction's (the heap's plain views and its sums), and
/// the workgroups (the reduction's first).
struct OrderReduce {
    pipeline: wgpu::ComputePipeline,
    group0: wgpu::BindGroup,
    group1: wgpu::BindGroup,
    groups: (u32, u32),
}

/// How the passes over every leaf are dispatched: the classify passes, and a scene's decode
/// (`GpuPool::dispatch_over_leaves`).
#[derive(Clone, Copy)]
enum LeafDispatch {
    /// From the arguments pool.list or pool.order wrote, one thread per leaf.
    Indirect,
    /// One thread per slot (`slot_groups`), the threads past the leaf count idle (every pass over
    /// the leaves bounds its threads by the count): the dispatch need not wait for the arguments
    /// (docs/BENCHMARKS.md run 106: 0.003 ms off the ship path's span). The compact mode's pools
    /// of up to `FIXED_LEAF_DISPATCH_MAX_SLOTS` slots, whose idle workgroups cost nothing
    /// measurable (run 96: 4,096 workgroups against 1,900).
    Fixed,
}

/// The largest pool whose passes over the leaves take `LeafDispatch::Fixed`: 8,192 workgroups.
const FIXED_LEAF_DISPATCH_MAX_SLOTS: u32 = 1 << 21;

/// What a frame records after its last update pass (`PoolPasses::end_frame`).
enum FrameEnd {
    /// The bit-exact mode: cbt.reduce, then pool.list.
    List(CbtReduce),
    /// The compact mode: cbt.reduce, then pool.order (the draw list kept in tree order,
    /// pool_order.wgsl; a fixed dispatch of one thread per slot, `slot_groups`) and its bind group.
    Order(CbtReduce, (wgpu::ComputePipeline, wgpu::BindGroup)),
    /// The compact mode on trees of the one-pass reduction: both in pool.order's dispatch.
    OrderReduce(OrderReduce),
}

/// The pipelines and bind groups of the pool's passes.
pub(crate) struct PoolPasses {
    classify_split: wgpu::ComputePipeline,
    threshold: wgpu::ComputePipeline,
    mark: wgpu::ComputePipeline,
    alloc_sum: wgpu::ComputePipeline,
    alloc_scan: wgpu::ComputePipeline,
    allocate: wgpu::ComputePipeline,
    bisect: wgpu::ComputePipeline,
    classify_merge: wgpu::ComputePipeline,
    elect: wgpu::ComputePipeline,
    merge: wgpu::ComputePipeline,
    list: wgpu::ComputePipeline,
    /// Compact mode: the workgroups of each pass over a list (None: bit-exact mode).
    compact_workgroups: Option<u32>,
    leaf_dispatch: LeafDispatch,
    bind_group: wgpu::BindGroup,
    /// Whether the passes bind a scene's group at @group(2) (a `SceneCriterion`).
    has_scene_group: bool,
    list_bind_group: wgpu::BindGroup,
    list_groups: (u32, u32),
    /// One thread per slot (pool.order).
    slot_groups: (u32, u32),
    /// What the frame records after its last update pass.
    end: FrameEnd,
    /// A profiler without timer queries, for frames recorded without one.
    pub(crate) quiet: Profiler,
    neighbours: wgpu::Buffer,
    snapshot: wgpu::Buffer,
    control: wgpu::Buffer,
    args: wgpu::Buffer,
}

type Profiler = wgpu_profiler::GpuProfiler;

/// A criterion of a scene instead of the test criterion: its WGSL file replaces
/// shared/pool_criterion.wgsl and defines `pool_leaf_error_sq_px2(i, slot)` and
/// `pool_parent_error_sq_px2(i, slot)` (the squared error of listed leaf i in `slot`, and of its
/// parent; the latter is asked of even leaves only); its uniform is bound at binding 8, its
/// per-leaf data (when given) at binding 9, and the bind groups of `group1_layout` (when given)
/// and `group2_layout` at @group(1) and @group(2) (recorded with every frame).
pub struct SceneCriterion<'a> {
    /// The WGSL file (in `SHADERS`) defining the criterion.
    pub shader: &'static str,
    /// The uniform at @group(0) @binding(8).
    pub uniform: &'a wgpu::Buffer,
    /// What the scene keeps per listed leaf, read-only at @group(0) @binding(9), if anything (the
    /// globe: the vertices its last decode placed).
    pub leaf_data: Option<&'a wgpu::Buffer>,
    /// The layout of what the criterion reads at @group(1), if anything (the globe: occlusion).
    pub group1_layout: Option<&'a wgpu::BindGroupLayout>,
    /// The layout of what the criterion reads at @group(2).
    pub group2_layout: &'a wgpu::BindGroupLayout,
    /// Its override constants.
    pub constants: Vec<(&'static str, f64)>,
}

/// The free slots pool.list lists for allocate (shaders/shared/pool_lists.wgsl): 65536, enough for
/// every frame of the benchmarks' paths but the first frames of a descent; a quarter of a smaller
/// pool's `slots`, so that the tests' small pools allocate past the list too (by a walk down the CBT).
pub fn free_slots_listed(slots: u32) -> u32 {
    (slots / 4).min(1 << 16)
}

/// Records one compute pass in a profiler scope of the same name.
fn pass(encoder: &mut wgpu::CommandEncoder, profiler: &Profiler, label: &str, record: impl FnOnce(&mut wgpu::ComputePass<'_>)) {
    crate::gpu::profiled_compute_pass(profiler, encoder, label, record);
}

impl PoolPasses {
    /// The passes over the pool's buffers: `bindings` are bindings 0..=8 of the shared layout
    /// (heap, ids, neighbours, snapshot, vertices, update, list, control, criterion).
    /// With `scene`, the passes evaluate the scene's criterion (binding 8 is then its uniform).
    /// In `PoolMode::Compact` the list binding holds four lists of N entries.
    pub(crate) fn new(
        device: &wgpu::Device,
        cbt: &GpuCbt,
        bindings: &[&wgpu::Buffer; 9],
        args: &wgpu::Buffer,
        mode: PoolMode,
        scene: Option<&SceneCriterion>,
    ) -> PoolPasses {
        let tree_order = mode != PoolMode::Deterministic;
        let leaf_data = scene.and_then(|s| s.leaf_data);
        let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..9u32 + u32::from(leaf_data.is_some()))
            .map(|binding| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match binding {
                        8 => wgpu::BufferBindingType::Uniform,
                        9 => wgpu::BufferBindingType::Storage { read_only: true },
                        _ => wgpu::BufferBindingType::Storage { read_only: false },
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("pool"), entries: &entries });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("pool"),
            bind_group_layouts: &[Some(&group_layout), scene.and_then(|s| s.group1_layout), scene.map(|s| s.group2_layout)],
            immediate_size: 0,
        });
        let free_slots = ("POOL_FREE_SLOTS_LISTED", f64::from(free_slots_listed(1 << cbt.max_depth)));
        let mut constants = cbt.pipeline_constants().to_vec();
        constants.push(free_slots);
        let mut substitutions = Vec::new();
        if let Some(scene) = scene {
            constants.extend_from_slice(&scene.constants);
            substitutions.push(("shared/pool_criterion.wgsl", scene.shader));
        }
        let pipeline = |shader: &str, entry: &str| {
            let module = SHADERS.create_module_with(device, shader, &substitutions);
            SHADERS.dump_compute_pipeline(&format!("pool.{entry}"), (shader, &substitutions), entry, &constants, true);
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&format!("pool.{entry}")),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() },
                cache: None,
            })
        };
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("pool"),
            layout: &group_layout,
            entries: &bindings
                .iter()
                .copied()
                .chain(leaf_data)
                .enumerate()
                .map(|(binding, buffer)| wgpu::BindGroupEntry { binding: binding as u32, resource: buffer.as_entire_binding() })
                .collect::<Vec<_>>(),
        });
        // A pass of its own layout (derived from its shader) and the bind group of `used` bindings
        // (binding 9 the arguments).
        let own_pass = |label: &str, file: &str, entry: &str, constants: &[(&str, f64)], used: &[u32]| {
            let pipeline = SHADERS.compute_pipeline(device, label, file, entry, constants);
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &used
                    .iter()
                    .map(|&binding| wgpu::BindGroupEntry {
                        binding,
                        resource: match binding {
                            9 => args.as_entire_binding(),
                            _ => bindings[binding as usize].as_entire_binding(),
                        },
                    })
                    .collect::<Vec<_>>(),
            });
            (pipeline, bind_group)
        };
        let list_constants = [cbt.pipeline_constants().as_slice(), &[free_slots, ("TREE_ORDER", f64::from(u8::from(tree_order)))]].concat();
        let (list, list_bind_group) = own_pass("pool.list", "pool_list.wgsl", "list", &list_constants, &[0, 1, 6, 7, 9]);
        // On trees the one-pass reduction takes, the compact mode runs it in pool.order's dispatch
        // (pool_order_reduce.wgsl): pool.order reads none of the counts it writes.
        let fits = device.limits().max_storage_buffers_per_shader_stage >= ORDER_REDUCE_STORAGE_BUFFERS;
        let fused = tree_order && fits && ReducePath::choose_for(device, cbt) == ReducePath::OnePass;
        // pool.order's constants, with those of the CBT's writers where it reduces too.
        let deepest = ("POOL_DEEPEST", f64::from(u8::from(scene.is_none())));
        let order_constants = |cbt_constants: &[(&'static str, f64)]| [cbt_constants, &[free_slots, deepest]].concat();
        let end = if fused {
            let (pipeline, group0) = own_pass(
                "pool.order",
                "pool_order_reduce.wgsl",
                "order_reduce",
                &order_constants(&cbt.writer_constants()),
                &[0, 1, 3, 5, 6, 7, 9],
            );
            let sync = crate::cbt::reduce_one::sync_buffer(device, cbt.max_depth);
            let heap = bindings[0].as_entire_binding();
            let group1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("pool.order.reduce"),
                layout: &pipeline.get_bind_group_layout(1),
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: heap.clone() },
                    wgpu::BindGroupEntry { binding: 1, resource: heap.clone() },
                    wgpu::BindGroupEntry { binding: 2, resource: heap },
                    wgpu::BindGroupEntry { binding: 3, resource: sync.as_entire_binding() },
                ],
            });
            let slots = (1u32 << cbt.max_depth).div_ceil(WORKGROUP_SIZE);
            let groups = groups_2d(crate::cbt::reduce_one::groups(cbt.max_depth) + slots);
            FrameEnd::OrderReduce(OrderReduce { pipeline, group0, group1, groups })
        } else if tree_order {
            // pool.order alone, after cbt.reduce: the deepest leaf found there unless a scene's
            // decode finds it.
            let order =
                own_pass("pool.order", "pool_order.wgsl", "order", &order_constants(&cbt.pipeline_constants()), &[0, 1, 3, 5, 6, 7, 9]);
            FrameEnd::Order(CbtReduce::new(device, cbt), order)
        } else {
            FrameEnd::List(CbtReduce::new(device, cbt))
        };
        let compact_workgroups = match mode {
            PoolMode::Deterministic => None,
            PoolMode::Compact { workgroups } => Some(workgroups.clamp(1, 65535)),
        };
        // The compact mode's entry point of a pass, where it has one.
        let listed = |entry: &str| if compact_workgroups.is_some() { format!("{entry}_listed") } else { entry.to_string() };
        PoolPasses {
            classify_split: pipeline("pool_split.wgsl", &listed("classify_split")),
            threshold: pipeline("pool_split.wgsl", "threshold"),
            mark: pipeline("pool_split.wgsl", &listed("mark")),
            alloc_sum: pipeline("pool_allocate.wgsl", "alloc_sum"),
            alloc_scan: pipeline("pool_allocate.wgsl", "alloc_scan"),
            allocate: pipeline("pool_allocate.wgsl", &listed("allocate")),
            bisect: pipeline("pool_bisect.wgsl", &listed("bisect")),
            classify_merge: pipeline("pool_merge.wgsl", &listed("classify_merge")),
            elect: pipeline("pool_merge.wgsl", &listed("elect")),
            merge: pipeline("pool_merge.wgsl", &listed("merge")),
            list,
            compact_workgroups,
            leaf_dispatch: match compact_workgroups {
                Some(_) if 1u32 << cbt.max_depth <= FIXED_LEAF_DISPATCH_MAX_SLOTS => LeafDispatch::Fixed,
                _ => LeafDispatch::Indirect,
            },
            bind_group,
            has_scene_group: scene.is_some(),
            list_bind_group,
            list_groups: groups_2d(((1u32 << cbt.max_depth) / 32).div_ceil(WORKGROUP_SIZE)),
            slot_groups: groups_2d((1u32 << cbt.max_depth).div_ceil(WORKGROUP_SIZE)),
            end,
            quiet: Profiler::new(
                device,
                wgpu_profiler::GpuProfilerSettings { enable_timer_queries: false, enable_debug_groups: false, ..Default::default() },
            )
            .expect("valid profiler settings"),
            neighbours: bindings[2].clone(),
            snapshot: bindings[3].clone(),
            control: bindings[7].clone(),
            args: args.clone(),
        }
    }

    /// Whether pool.order runs the CBT's reduction in its dispatch (`FrameEnd::OrderReduce`).
    pub(crate) fn reduces_in_order(&self) -> bool {
        matches!(self.end, FrameEnd::OrderReduce(_))
    }

    /// Records pool.list: the draw list, the leaf count and the arguments of the next passes.
    pub(crate) fn record_list(&self, encoder: &mut wgpu::CommandEncoder, profiler: &Profiler) {
        pass(encoder, profiler, "pool.list", |pass| {
            pass.set_pipeline(&self.list);
            pass.set_bind_group(0, &self.list_bind_group, &[]);
            pass.dispatch_workgroups(self.list_groups.0, self.list_groups.1, 1);
        });
    }

    /// Records a pass over the leaves (an indirect dispatch).
    fn over_leaves(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameContext, label: &str, pipeline: &wgpu::ComputePipeline) {
        pass(encoder, frame.profiler, label, |pass| {
            self.bind(pass, pipeline, frame);
            self.dispatch_over_leaves(pass);
        });
    }

    /// Dispatches the bound pipeline over every leaf (`LeafDispatch`).
    pub(crate) fn dispatch_over_leaves(&self, pass: &mut wgpu::ComputePass<'_>) {
        match self.leaf_dispatch {
            LeafDispatch::Indirect => pass.dispatch_workgroups_indirect(&self.args, 0),
            LeafDispatch::Fixed => pass.dispatch_workgroups(self.slot_groups.0, self.slot_groups.1, 1),
        }
    }

    /// Records a pass over the leaves in the bit-exact mode, or over a compact list (a fixed
    /// dispatch looping over it) in the compact mode.
    fn over_list(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameContext, label: &str, pipeline: &wgpu::ComputePipeline) {
        let Some(workgroups) = self.compact_workgroups else {
            return self.over_leaves(encoder, frame, label, pipeline);
        };
        pass(encoder, frame.profiler, label, |pass| {
            self.bind(pass, pipeline, frame);
            pass.dispatch_workgroups(workgroups, 1, 1);
        });
    }

    /// Records a pass of one workgroup.
    fn single(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameContext, label: &str, pipeline: &wgpu::ComputePipeline) {
        pass(encoder, frame.profiler, label, |pass| {
            self.bind(pass, pipeline, frame);
            pass.dispatch_workgroups(1, 1, 1);
        });
    }

    fn bind(&self, pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, frame: &FrameContext) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        assert_eq!(
            self.has_scene_group,
            frame.group2.is_some(),
            "the scene's @group(2) must be given exactly when the passes have a scene criterion"
        );
        if let Some(group1) = frame.group1 {
            pass.set_bind_group(1, group1, &[]);
        }
        if let Some(group2) = frame.group2 {
            pass.set_bind_group(2, group2, &[]);
        }
    }

    /// The start of every frame: the counters cleared, and a split frame's histogram with them
    /// (one command: each costs a barrier); in the bit-exact mode the links copied to the
    /// snapshot (the compact mode's allocate and elect copy only those bisect or merge reads).
    fn begin_frame(&self, encoder: &mut wgpu::CommandEncoder, split: bool) {
        let end = if split { GROUP_SUMS_OFFSET } else { HISTOGRAM_OFFSET };
        encoder.clear_buffer(&self.control, COUNTERS_OFFSET, Some(end - COUNTERS_OFFSET));
        if self.compact_workgroups.is_none() {
            encoder.copy_buffer_to_buffer(&self.neighbours, 0, &self.snapshot, 0, None);
        }
    }

    /// The end of every frame: the reduction, then the draw list: pool.list in slot order, or in
    /// the compact mode pool.order (the last list turned into this frame's, in tree order).
    fn end_frame(&self, encoder: &mut wgpu::CommandEncoder, profiler: &Profiler) {
        match &self.end {
            FrameEnd::List(reduce) => {
                reduce.record(encoder, profiler);
                self.record_list(encoder, profiler);
            }
            FrameEnd::Order(reduce, (pipeline, bind_group)) => {
                reduce.record(encoder, profiler);
                pass(encoder, profiler, "pool.order", |pass| {
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, bind_group, &[]);
                    pass.dispatch_workgroups(self.slot_groups.0, self.slot_groups.1, 1);
                });
            }
            FrameEnd::OrderReduce(fused) => pass(encoder, profiler, "pool.order", |pass| {
                pass.set_pipeline(&fused.pipeline);
                pass.set_bind_group(0, &fused.group0, &[]);
                pass.set_bind_group(1, &fused.group1, &[]);
                pass.dispatch_workgroups(fused.groups.0, fused.groups.1, 1);
            }),
        }
    }

    /// Records one split frame.
    pub(crate) fn record_split_frame(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameContext) {
        let profiler = frame.profiler;
        self.begin_frame(encoder, true);
        self.over_leaves(encoder, frame, "pool.classify_split", &self.classify_split);
        if self.compact_workgroups.is_none() {
            self.single(encoder, frame, "pool.threshold", &self.threshold);
        }
        self.over_list(encoder, frame, "pool.mark", &self.mark);
        if self.compact_workgroups.is_none() {
            self.over_leaves(encoder, frame, "pool.alloc_sum", &self.alloc_sum);
            self.single(encoder, frame, "pool.alloc_scan", &self.alloc_scan);
        }
        self.over_list(encoder, frame, "pool.allocate", &self.allocate);
        self.over_list(encoder, frame, "pool.bisect", &self.bisect);
        self.end_frame(encoder, profiler);
    }

    /// Records one merge frame.
    pub(crate) fn record_merge_frame(&self, encoder: &mut wgpu::CommandEncoder, frame: &FrameContext) {
        let profiler = frame.profiler;
        self.begin_frame(encoder, false);
        self.over_leaves(encoder, frame, "pool.classify_merge", &self.classify_merge);
        self.over_list(encoder, frame, "pool.elect", &self.elect);
        self.over_list(encoder, frame, "pool.merge", &self.merge);
        self.end_frame(encoder, profiler);
    }
}

/// What a frame's passes are recorded with: the profiler, and the scene's @group(1) (when its
/// criterion has one) and @group(2) when the passes evaluate a `SceneCriterion`.
pub(crate) struct FrameContext<'a> {
    pub(crate) profiler: &'a Profiler,
    pub(crate) group1: Option<&'a wgpu::BindGroup>,
    pub(crate) group2: Option<&'a wgpu::BindGroup>,
}

impl GpuPool {
    /// Records one split frame (the criterion set last) into `encoder`, each pass profiled.
    pub fn record_split_frame(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        self.passes.record_split_frame(encoder, &FrameContext { profiler, group1: None, group2: None });
    }

    /// Records one merge frame into `encoder`, each pass profiled.
    pub fn record_merge_frame(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        self.passes.record_merge_frame(encoder, &FrameContext { profiler, group1: None, group2: None });
    }

    /// Records one split (`split`) or merge frame of a pool built with a `SceneCriterion`, whose
    /// passes bind `group1` (when its criterion has a @group(1)) and `group2`.
    pub fn record_scene_frame(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        split: bool,
        group1: Option<&wgpu::BindGroup>,
        group2: &wgpu::BindGroup,
    ) {
        let frame = FrameContext { profiler, group1, group2: Some(group2) };
        if split {
            self.passes.record_split_frame(encoder, &frame);
        } else {
            self.passes.record_merge_frame(encoder, &frame);
        }
    }

    /// Runs one split frame now (submitted, not waited for).
    pub fn split_frame(&self, gpu: &Gpu) {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("pool.split_frame") });
        self.passes.record_split_frame(&mut encoder, &FrameContext { profiler: &self.passes.quiet, group1: None, group2: None });
        gpu.queue.submit([encoder.finish()]);
    }

    /// Runs one merge frame now (submitted, not waited for).
    pub fn merge_frame(&self, gpu: &Gpu) {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("pool.merge_frame") });
        self.passes.record_merge_frame(&mut encoder, &FrameContext { profiler: &self.passes.quiet, group1: None, group2: None });
        gpu.queue.submit([encoder.finish()]);
    }
}
