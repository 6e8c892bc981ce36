//! The bisector pool on the GPU (issue 15, steps 5-7 of docs/design/bisector-pool.md): the slots
//! as a structure of arrays (3.3), uploaded from a `PoolTwin` state (the base mesh, or any other)
//! and read back into one, and the split and merge frames of `gpu_passes.rs`.
//!
//! ```text
//! buffer            per slot                                     written by
//! pool.ids          vec2<u32>: the 64-bit node id (lo, hi); 0 = free      bisect, merge
//! pool.neighbours   3 x u32: (left, right, edge) slots                    bisect, merge
//! pool.snapshot     3 x u32: the links as the frame began (copied;        the copy, or
//!                   compact mode: only those bisect or merge read)        allocate, elect
//! pool.vertices     3 x vec4<u32>: (x lo, x hi, y lo, y hi), 2^62 = 1.0   bisect, merge
//! pool.update       8 x u32: pattern, child slots x3, survivor, flags,    classify, mark,
//!                   bucket, - (compact mode: clean as a frame begins)     allocate, elect, order
//! pool.list         u32: the used slots (the draw list): in slot order,   list
//!                   compact mode: in tree order (depth first by id), then   order
//!                   two more lists of up to one entry per slot (`LIST_*`)  classify, mark, elect
//!                   and the last frame's draw list                        bisect, merge
//! pool.control      PoolParams, PoolCounters, histogram[1024], group sums all
//! pool.args         the indirect dispatch of the passes over the leaves   list, order
//! cbt.heap          the pool-mode CBT: bit s = slot s used                bisect, merge, reduce
//! ```
//! 64-bit values are pairs of u32 words: the passes only add, subtract, shift and compare them,
//! so they need no SHADER_INT64 (the camera-relative drawing of step 9 will). In
//! `PoolMode::Deterministic` allocation goes in slot order (a prefix sum over the draw list), so
//! the GPU pool equals its CPU twin bit for bit: the same slots, links, vertices and CBT heap after
//! every frame. In `PoolMode::Compact` (the renderer's) the passes after classify run over compact
//! lists and allocation takes ranks by atomics, so the pool equals the twin by meaning (the same
//! leaves, links between them and vertices by node id, the same figures) in other slots.

use wgpu::util::DeviceExt;

use crate::cbt::cpu::Cbt;
use crate::cbt::gpu::GpuCbt;
use crate::gpu::readback::read_buffer;
use crate::gpu::{Gpu, Limit, Requirements};
use crate::leb::node64::{BaseMesh64, MAX_DEPTH_64};
use crate::pool::cpu::{PoolState, PoolTwin, EDGE, LEFT, MERGE_RATIO_SQ, NO_SLOT, RIGHT, SPLIT_CENTER, SPLIT_LEFT, SPLIT_RIGHT};
use crate::pool::criterion::{TestCriterion, MAX_FOCI};
use crate::pool::gpu_passes::{PoolPasses, SceneCriterion, ORDER_REDUCE_STORAGE_BUFFERS};
use crate::pool::priority::{BUCKET_COUNT, BUCKET_SHIFT};
use crate::pool::FrameStats;

/// u32 words of `pool.update` per slot.
pub const UPDATE_WORDS: u32 = 8;
/// Word of the split pattern (SPLIT_* bits, atomicOr).
pub const UPDATE_PATTERN: u32 = 0;
/// First of the three words of child slots (in tree order, after the bisector's own).
pub const UPDATE_CHILDREN: u32 = 1;
/// Word of the survivor: the slot that holds this leaf's area after the merge pass.
pub const UPDATE_SURVIVOR: u32 = 4;
/// Word of the FLAG_* bits.
pub const UPDATE_FLAGS: u32 = 5;
/// Word of a split candidate's priority bucket.
pub const UPDATE_BUCKET: u32 = 6;
/// The clean update records of `slots` slots (`reset_update` in shaders/shared/pool_bindings.wgsl):
/// no pattern, no child slots, each slot its own survivor, no flags, bucket 0.
pub fn clean_update_records(slots: u32) -> Vec<u32> {
    (0..slots)
        .flat_map(|slot| {
            let mut record = [0u32; UPDATE_WORDS as usize];
            record[UPDATE_CHILDREN as usize..UPDATE_SURVIVOR as usize].fill(NO_SLOT);
            record[UPDATE_SURVIVOR as usize] = slot;
            record
        })
        .collect()
}

/// Flag: the leaf wants a split below max depth (its bucket is set).
pub const FLAG_CANDIDATE: u32 = 1;
/// Flag: the leaf's parent may merge.
pub const FLAG_MERGE: u32 = 2;
/// Flag: the leaf's diamond merges in this frame.
pub const FLAG_MERGED: u32 = 4;

/// Compact list (index into `PoolCounters::listed`): the split candidates (classify_split).
pub const LIST_CANDIDATES: u32 = 0;
/// Compact list: the slots whose pattern mark set from 0, each once (mark).
pub const LIST_ALLOCATIONS: u32 = 1;
/// Compact list: the even leaves in merge state (classify_merge).
pub const LIST_MERGE: u32 = 2;
/// Compact list: the even leaves of the diamonds elected to merge (elect).
pub const LIST_MERGED: u32 = 3;
/// Workgroups of a compact-mode pass over a list: two per SM of an H100 (132 SMs); its threads
/// loop over the list with a grid stride.
pub const COMPACT_WORKGROUPS: u32 = 264;

/// Byte offset of `PoolCounters` in `pool.control`.
pub const COUNTERS_OFFSET: u64 = 32;
/// Byte offset of the histogram in `pool.control`.
pub const HISTOGRAM_OFFSET: u64 = COUNTERS_OFFSET + 64;
/// Byte offset of the group sums in `pool.control`.
pub const GROUP_SUMS_OFFSET: u64 = HISTOGRAM_OFFSET + 4 * BUCKET_COUNT as u64;

/// Smallest pool: 2^12 slots.
pub const MIN_POOL_SLOTS: u32 = 1 << 12;
/// Largest pool: 2^26 slots (the vertices then take 3 GiB).
pub const MAX_POOL_SLOTS: u32 = 1 << 26;
/// Default pool: 2^20 slots.
pub const DEFAULT_POOL_SLOTS: u32 = 1 << 20;

/// The WGSL constants of the pool (generated shared/pool_constants.wgsl).
pub fn constants_wgsl() -> String {
    use crate::gpu::shader::{const_f32, const_u32};
    [
        "// Generated by pool::gpu::constants_wgsl (src/pool/gpu.rs).\n".to_string(),
        const_u32("NO_SLOT", NO_SLOT),
        const_u32("POOL_LEFT", LEFT as u32),
        const_u32("POOL_RIGHT", RIGHT as u32),
        const_u32("POOL_EDGE", EDGE as u32),
        const_u32("SPLIT_CENTER", SPLIT_CENTER),
        const_u32("SPLIT_LEFT", SPLIT_LEFT),
        const_u32("SPLIT_RIGHT", SPLIT_RIGHT),
        const_u32("UPDATE_WORDS", UPDATE_WORDS),
        const_u32("UPDATE_PATTERN", UPDATE_PATTERN),
        const_u32("UPDATE_CHILDREN", UPDATE_CHILDREN),
        const_u32("UPDATE_SURVIVOR", UPDATE_SURVIVOR),
        const_u32("UPDATE_FLAGS", UPDATE_FLAGS),
        const_u32("UPDATE_BUCKET", UPDATE_BUCKET),
        const_u32("FLAG_CANDIDATE", FLAG_CANDIDATE),
        const_u32("FLAG_MERGE", FLAG_MERGE),
        const_u32("FLAG_MERGED", FLAG_MERGED),
        const_u32("LIST_CANDIDATES", LIST_CANDIDATES),
        const_u32("LIST_ALLOCATIONS", LIST_ALLOCATIONS),
        const_u32("LIST_MERGE", LIST_MERGE),
        const_u32("LIST_MERGED", LIST_MERGED),
        const_u32("BUCKET_COUNT", BUCKET_COUNT as u32),
        const_u32("BUCKET_SHIFT", BUCKET_SHIFT),
        const_f32("MERGE_RATIO_SQ", MERGE_RATIO_SQ),
        const_u32("POOL_MAX_FOCI", MAX_FOCI as u32),
    ]
    .concat()
}

/// The pool's parameters on the GPU (`PoolParams` in shaders/shared/pool_types.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuPoolParams {
    /// T² in px².
    pub target_sq_px2: f32,
    /// T_eff² in px² (written by pool.threshold, or mark's workgroup 0 in the compact mode).
    pub effective_target_sq_px2: f32,
    /// MERGE_RATIO_SQ · T_eff² in px² (written with T_eff²).
    pub merge_target_sq_px2: f32,
    /// No node deeper than this.
    pub max_depth: u32,
    /// The base triangles' depth.
    pub base_depth: u32,
    /// Leaves in the draw list (written by pool.list or pool.order).
    pub leaves: u32,
    /// b* of the last split frame.
    pub threshold_bucket: u32,
    /// Compact mode: the leaves of the last frame's draw list, which pool.order reads (written
    /// by the frame's bisect or merge).
    pub last_leaves: u32,
}

/// The pool's per-frame counters (`PoolCounters` in shaders/shared/pool_types.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuPoolCounters {
    /// Leaves whose error exceeded the target (split frames).
    pub wanted_split: u32,
    /// Leaves admitted to start a split chain.
    pub admitted: u32,
    /// Leaves that wanted to split at max depth.
    pub capped_by_depth: u32,
    /// Leaves that wanted to split below max depth but whose bucket was below b*.
    pub capped_by_pool: u32,
    /// b* of this frame (0 in merge frames).
    pub threshold_bucket: u32,
    /// Slots allocated by the splits.
    pub slots_allocated: u32,
    /// Diamonds merged.
    pub diamonds_merged: u32,
    /// Slots freed by the merges.
    pub slots_freed: u32,
    /// The deepest leaf after the frame.
    pub max_depth_reached: u32,
    /// Leaves (used slots) after the frame.
    pub leaves: u32,
    /// Entries of the compact lists, by `LIST_*` (compact mode; 0 in the deterministic mode).
    pub listed: [u32; 4],
    /// The histogram's sum: the chain costs of every split candidate (split frames).
    pub histogram_total: u32,
    pub _pad: u32,
}

impl GpuPoolCounters {
    /// The counters as the CPU twin's frame figures.
    pub fn frame_stats(&self) -> FrameStats {
        FrameStats {
            wanted_split: self.wanted_split,
            admitted: self.admitted,
            capped_by_depth: self.capped_by_depth,
            capped_by_pool: self.capped_by_pool,
            threshold_bucket: self.threshold_bucket,
            slots_allocated: self.slots_allocated,
            diamonds_merged: self.diamonds_merged,
            slots_freed: self.slots_freed,
        }
    }

    /// Leaves that wanted to split but could not, by depth or by pool.
    pub fn capped_leaves(&self) -> u32 {
        self.capped_by_depth + self.capped_by_pool
    }
}

/// How the passes after classify run and how allocation hands out slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PoolMode {
    /// Every pass over the whole draw list; allocation ranks by a prefix sum in slot order, so
    /// every buffer equals the CPU twin's bit for bit (`POOL_DETERMINISTIC_SLOTS`, for tests).
    #[default]
    Deterministic,
    /// Only classify over the whole draw list; mark, allocate and bisect (elect and merge) over
    /// compact lists of the slots that act, in `workgroups` workgroups looping with a grid stride;
    /// allocation ranks by one atomicAdd per listed slot, so slot numbers depend on thread order.
    Compact {
        /// Workgroups of each pass over a list (`COMPACT_WORKGROUPS`).
        workgroups: u32,
    },
}

impl PoolMode {
    /// The fast mode with its default dispatch.
    pub const COMPACT: PoolMode = PoolMode::Compact { workgroups: COMPACT_WORKGROUPS };
}

/// The pool's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolSettings {
    /// Slots of the pool: a power of two in MIN_POOL_SLOTS..=MAX_POOL_SLOTS (`--pool-slots`).
    pub pool_slots: u32,
    /// No node deeper than this (at most 63: 60 levels below the octahedron's base).
    pub max_depth: u32,
    /// The target error T in px.
    pub target_error_px: f32,
    /// Bit-exact slots or compact lists (the renderer's).
    pub mode: PoolMode,
}

impl Default for PoolSettings {
    fn default() -> PoolSettings {
        PoolSettings { pool_slots: DEFAULT_POOL_SLOTS, max_depth: MAX_DEPTH_64, target_error_px: 1.0, mode: PoolMode::Deterministic }
    }
}

/// Why a pool cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    #[error("--pool-slots {0} is not a power of two in {MIN_POOL_SLOTS}..={MAX_POOL_SLOTS}")]
    Slots(u32),
    #[error("max depth {0} is outside 4..={MAX_DEPTH_64} (64-bit node ids)")]
    Depth(u32),
    #[error("the pool's compact mode needs 1..=65535 workgroups per pass, not {0}")]
    Workgroups(u32),
}

impl PoolSettings {
    /// log2 of the slots, once the settings are checked.
    pub fn pool_depth(&self) -> Result<u32, PoolError> {
        if !self.pool_slots.is_power_of_two() || !(MIN_POOL_SLOTS..=MAX_POOL_SLOTS).contains(&self.pool_slots) {
            return Err(PoolError::Slots(self.pool_slots));
        }
        if !(4..=MAX_DEPTH_64).contains(&self.max_depth) {
            return Err(PoolError::Depth(self.max_depth));
        }
        if let PoolMode::Compact { workgroups } = self.mode {
            if !(1..=65535).contains(&workgroups) {
                return Err(PoolError::Workgroups(workgroups));
            }
        }
        Ok(self.pool_slots.trailing_zeros())
    }

    /// What a pool of these settings needs from the adapter: storage buffers as large as its
    /// vertices (48 bytes per slot); too few, and the error line names `--pool-slots`.
    pub fn requirements(&self) -> Requirements {
        let bytes = vertex_bytes(self.pool_slots);
        let why = format!("for the bisector pool's vertices ({} MiB); lower --pool-slots", bytes >> 20);
        let mut requirements = crate::cbt::requirements(self.pool_slots.trailing_zeros().max(5), 1 << 16);
        // Where the device has them, the storage buffers of pool.order with the reduction in its
        // dispatch (else the two stay separate passes).
        requirements.wanted_limits.push((Limit::MaxStorageBuffersPerShaderStage, ORDER_REDUCE_STORAGE_BUFFERS.into()));
        requirements.with_limit(Limit::MaxStorageBufferBindingSize, bytes, why.clone()).with_limit(Limit::MaxBufferSize, bytes, why)
    }
}

fn vertex_bytes(slots: u32) -> u64 {
    u64::from(slots) * 48
}

/// The pool's buffers and passes on the GPU.
pub struct GpuPool {
    pub(crate) mesh: BaseMesh64,
    pub(crate) max_depth: u32,
    pub(crate) slots: u32,
    pub(crate) mode: PoolMode,
    /// The allocator (change tracking off: the reduction runs whole).
    pub cbt: GpuCbt,
    pub ids: wgpu::Buffer,
    pub neighbours: wgpu::Buffer,
    pub snapshot: wgpu::Buffer,
    pub vertices: wgpu::Buffer,
    pub update: wgpu::Buffer,
    pub list: wgpu::Buffer,
    pub control: wgpu::Buffer,
    pub criterion: wgpu::Buffer,
    pub args: wgpu::Buffer,
    pub(crate) passes: PoolPasses,
}

fn storage(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn words_u64(values: &[u64]) -> Vec<u32> {
    values.iter().flat_map(|&v| [v as u32, (v >> 32) as u32]).collect()
}

impl GpuPool {
    /// A pool of `settings` over the globe's octahedron, holding its 8 base triangles (triangle i
    /// in slot i), with the test criterion until another is set.
    pub fn new(gpu: &Gpu, settings: &PoolSettings) -> Result<GpuPool, PoolError> {
        let pool_depth = settings.pool_depth()?;
        let twin = PoolTwin::new(BaseMesh64::octahedron(), pool_depth, settings.max_depth, settings.target_error_px);
        Ok(GpuPool::build(gpu, &twin, settings.mode, None))
    }

    /// A pool of `settings` over the octahedron whose passes evaluate `scene`'s criterion (frames
    /// are then recorded with `record_scene_frame`).
    pub fn with_scene_criterion(gpu: &Gpu, settings: &PoolSettings, scene: &SceneCriterion) -> Result<GpuPool, PoolError> {
        let pool_depth = settings.pool_depth()?;
        let twin = PoolTwin::new(BaseMesh64::octahedron(), pool_depth, settings.max_depth, settings.target_error_px);
        Ok(GpuPool::build(gpu, &twin, settings.mode, Some(scene)))
    }

    /// A pool holding `twin`'s state (its size, mesh, max depth and targets), bit-exact mode.
    pub fn from_twin(gpu: &Gpu, twin: &PoolTwin) -> GpuPool {
        GpuPool::build(gpu, twin, PoolMode::Deterministic, None)
    }

    /// A pool holding `twin`'s state whose passes run in `mode` (a compact mode's workgroups are
    /// clamped to 1..=65535).
    pub fn from_twin_in(gpu: &Gpu, twin: &PoolTwin, mode: PoolMode) -> GpuPool {
        GpuPool::build(gpu, twin, mode, None)
    }

    fn build(gpu: &Gpu, twin: &PoolTwin, mode: PoolMode, scene: Option<&SceneCriterion>) -> GpuPool {
        let device = &gpu.device;
        let slots = twin.slot_count();
        let cbt = GpuCbt::new(device, &Cbt::new_pool(twin.cbt().max_depth()), 1 << 10).with_change_tracking(false);
        let groups = u64::from(slots.div_ceil(crate::gpu::dispatch::WORKGROUP_SIZE)).max(1);
        let criterion = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("pool.criterion"),
            contents: bytemuck::bytes_of(&TestCriterion::default().to_gpu()),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pool.args"),
            size: 12,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let slots64 = u64::from(slots);
        let ids = storage(device, "pool.ids", 8 * slots64);
        let neighbours = storage(device, "pool.neighbours", 12 * slots64);
        let snapshot = storage(device, "pool.snapshot", 12 * slots64);
        let vertices = storage(device, "pool.vertices", vertex_bytes(slots));
        let update = storage(device, "pool.update", 4 * u64::from(UPDATE_WORDS) * slots64);
        // The draw list, then in compact mode two lists of at most one entry per slot (each slot
        // is listed at most once per list: a leaf is a candidate once, its pattern leaves 0 once)
        // and the last frame's draw list, which pool.order reads.
        let lists = if mode == PoolMode::Deterministic { 1 } else { 4 };
        let list = storage(device, "pool.list", 4 * lists * slots64);
        // The group sums, then (compact mode) a bit per slot for pool.order (shared/pool_order_codes.wgsl).
        let control = storage(device, "pool.control", GROUP_SUMS_OFFSET + 4 * (groups + slots64.div_ceil(32)));
        let passes = PoolPasses::new(
            device,
            &cbt,
            &[&cbt.heap, &ids, &neighbours, &snapshot, &vertices, &update, &list, &control, scene.map_or(&criterion, |s| s.uniform)],
            &args,
            mode,
            scene,
        );
        let pool = GpuPool {
            mesh: twin.mesh().clone(),
            max_depth: twin.max_depth(),
            slots,
            mode,
            cbt,
            ids,
            neighbours,
            snapshot,
            vertices,
            update,
            list,
            control,
            criterion,
            args,
            passes,
        };
        pool.upload(gpu, twin);
        pool
    }

    /// Slots of the pool.
    pub fn slot_count(&self) -> u32 {
        self.slots
    }

    /// How its passes run.
    pub fn mode(&self) -> PoolMode {
        self.mode
    }

    /// Whether the frame's CBT reduction runs in pool.order's dispatch (the compact mode, on trees
    /// the one-pass reduction takes: pool_order_reduce.wgsl) rather than as cbt.reduce before it.
    pub fn reduces_in_order(&self) -> bool {
        self.passes.reduces_in_order()
    }

    /// Dispatches the pipeline bound in `pass` over every leaf of the last list, as the pool's
    /// own passes over the leaves are: one thread per leaf at least, those past the leaf count
    /// (pool.control's `leaves`) to do nothing.
    pub fn dispatch_over_leaves(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.passes.dispatch_over_leaves(pass);
    }

    /// Replaces the pool's state with `twin`'s (same size), then lists the used slots.
    pub fn upload(&self, gpu: &Gpu, twin: &PoolTwin) {
        assert_eq!(twin.slot_count(), self.slots, "a twin of {} slots for a pool of {}", twin.slot_count(), self.slots);
        let queue = &gpu.queue;
        let state = twin.state();
        queue.write_buffer(&self.ids, 0, bytemuck::cast_slice(&words_u64(&state.ids)));
        queue.write_buffer(&self.neighbours, 0, bytemuck::cast_slice(&state.neighbours));
        let vertices: Vec<u64> = state.vertices.iter().flatten().flatten().copied().collect();
        queue.write_buffer(&self.vertices, 0, bytemuck::cast_slice(&words_u64(&vertices)));
        self.cbt.upload(queue, &state.cbt);
        // Every slot's update record clean, as every frame begins (the compact mode's classify
        // does not clear them; its pool.order clears the words the frame wrote).
        queue.write_buffer(&self.update, 0, bytemuck::cast_slice(&clean_update_records(self.slots)));
        let params = GpuPoolParams {
            target_sq_px2: twin.target_sq_px2(),
            effective_target_sq_px2: twin.effective_target_sq_px2(),
            merge_target_sq_px2: twin.merge_target_sq_px2(),
            max_depth: twin.max_depth(),
            base_depth: twin.mesh().depth,
            leaves: 0,
            threshold_bucket: twin.last_split_stats().threshold_bucket,
            last_leaves: 0,
        };
        queue.write_buffer(&self.control, 0, bytemuck::bytes_of(&params));
        if self.mode != PoolMode::Deterministic {
            // The compact mode keeps the draw list in tree order from frame to frame
            // (shaders/pool_order.wgsl); pool.list writes the count and the free list after it.
            queue.write_buffer(&self.list, 0, bytemuck::cast_slice(&state.tree_order()));
        }
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("pool.upload") });
        encoder.clear_buffer(&self.control, COUNTERS_OFFSET, Some(GROUP_SUMS_OFFSET - COUNTERS_OFFSET));
        self.passes.record_list(&mut encoder, &self.passes.quiet);
        queue.submit([encoder.finish()]);
    }

    /// Sets the criterion the next frames evaluate.
    pub fn set_criterion(&self, gpu: &Gpu, criterion: &TestCriterion) {
        gpu.queue.write_buffer(&self.criterion, 0, bytemuck::bytes_of(&criterion.to_gpu()));
    }

    /// Reads the parameters back (the effective target, the leaves).
    pub fn read_params(&self, gpu: &Gpu) -> GpuPoolParams {
        bytemuck::pod_read_unaligned(&read_buffer(&gpu.device, &gpu.queue, &self.control, 0, 32))
    }

    /// Reads the last frame's counters back.
    pub fn read_counters(&self, gpu: &Gpu) -> GpuPoolCounters {
        bytemuck::pod_read_unaligned(&read_buffer(&gpu.device, &gpu.queue, &self.control, COUNTERS_OFFSET, 64))
    }

    /// Reads the pool's arrays back.
    pub fn read_state(&self, gpu: &Gpu) -> PoolState {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let slots = u64::from(self.slots);
        let pairs = |bytes: Vec<u8>| -> Vec<u64> {
            bytemuck::cast_slice::<u8, u32>(&bytes).chunks_exact(2).map(|w| u64::from(w[0]) | u64::from(w[1]) << 32).collect()
        };
        let ids = pairs(read_buffer(device, queue, &self.ids, 0, 8 * slots));
        let neighbours: Vec<[u32; 3]> = bytemuck::pod_collect_to_vec(&read_buffer(device, queue, &self.neighbours, 0, 12 * slots));
        let coordinates = pairs(read_buffer(device, queue, &self.vertices, 0, vertex_bytes(self.slots)));
        let vertices = coordinates.chunks_exact(6).map(|c| [[c[0], c[1]], [c[2], c[3]], [c[4], c[5]]]).collect();
        let params = self.read_params(gpu);
        let list: Vec<u32> = bytemuck::pod_collect_to_vec(&read_buffer(device, queue, &self.list, 0, 4 * slots));
        PoolState {
            ids,
            neighbours,
            vertices,
            cbt: self.cbt.read_heap(device, queue),
            list: list[..params.leaves as usize].to_vec(),
            effective_target_sq_px2: params.effective_target_sq_px2,
        }
    }

    /// The pool read back as a CPU twin (to `validate` it, compare it or run it on).
    pub fn read_twin(&self, gpu: &Gpu) -> PoolTwin {
        let params = self.read_params(gpu);
        let mut shape = PoolTwin::new(self.mesh.clone(), self.slots.trailing_zeros(), self.max_depth, 1.0);
        shape.target_sq_px2 = params.target_sq_px2;
        shape.with_state(self.read_state(gpu))
    }
}
