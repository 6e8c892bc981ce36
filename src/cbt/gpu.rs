//! The CBT heap on the GPU ("cbt.heap") with its per-frame indirect arguments ("cbt.args") and
//! statistics ("cbt.stats"), upload and read-back.

use wgpu::util::DeviceExt;

use crate::cbt::cpu::{Cbt, MAX_MAX_DEPTH, MIN_MAX_DEPTH};
use crate::gpu::readback::read_buffer;

/// Indirect arguments written by the cbt.args pass: a dispatch over every leaf, then a draw.
/// Keep in sync with FrameArgs in shaders/shared/frame.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FrameArgs {
    pub dispatch: [u32; 3],
    pub _pad: u32,
    pub draw: [u32; 4],
}
const _: () = assert!(std::mem::size_of::<FrameArgs>() == 32);
/// Byte offset of the draw arguments inside FrameArgs.
pub const DRAW_ARGS_OFFSET: u64 = 16;

/// Per-frame statistics written on the GPU. Keep in sync with FrameStats in shaders/shared/frame.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FrameStats {
    /// Leaves in the tree.
    pub leaves: u32,
    /// Deepest leaf (written by leb.decode).
    pub max_depth: u32,
    /// 1 when there were more leaves than `capacity` (only `capacity` are drawn).
    pub overflow: u32,
    /// Leaves the leaf-id buffer holds.
    pub capacity: u32,
}
const _: () = assert!(std::mem::size_of::<FrameStats>() == 16);

/// Why a tree cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum CbtError {
    #[error("max depth {0} is outside the supported range {MIN_MAX_DEPTH}..={MAX_MAX_DEPTH} (bit offsets must fit in 32 bits)")]
    DepthOutOfRange(u32),
}

/// Checks that `max_depth` is supported.
pub fn check_max_depth(max_depth: u32) -> Result<(), CbtError> {
    if (MIN_MAX_DEPTH..=MAX_MAX_DEPTH).contains(&max_depth) {
        Ok(())
    } else {
        Err(CbtError::DepthOutOfRange(max_depth))
    }
}

/// The GPU tree and its per-frame buffers.
///
/// Every pipeline that includes shaders/shared/cbt.wgsl is compiled for one max depth, through
/// the override constant CBT_MAX_DEPTH (`pipeline_constants`).
#[derive(Clone)]
pub struct GpuCbt {
    pub max_depth: u32,
    pub heap: wgpu::Buffer,
    /// The bitfield blocks split and merge changed since the last reduction (cbt::changed).
    pub changed: wgpu::Buffer,
    pub args: wgpu::Buffer,
    pub stats: wgpu::Buffer,
    pub leaf_capacity: u32,
    /// Whether split and merge list the blocks they change, for `CbtReduce::record_changed`.
    pub tracks_changes: bool,
}

/// Trees from this max depth on track their changed blocks. Measured on the H100 (BENCHMARKS.md):
/// the whole reduction costs 0.03 ms up to D = 25, about as much as reducing the changed blocks
/// plus listing them in split (+7-10 microseconds), but 0.5 ms at D = 29, where the globe's
/// changed blocks take 0.04 ms.
pub const TRACK_CHANGES_FROM_DEPTH: u32 = 26;

impl GpuCbt {
    /// Uploads `cpu` (which must be reduced) as the initial tree; `leaf_capacity` leaves can be drawn.
    pub fn new(device: &wgpu::Device, cpu: &Cbt, leaf_capacity: u32) -> GpuCbt {
        let heap = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cbt.heap"),
            contents: bytemuck::cast_slice(cpu.heap()),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        });
        let args = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cbt.args"),
            contents: bytemuck::bytes_of(&FrameArgs::default()),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_SRC,
        });
        let stats = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cbt.stats"),
            contents: bytemuck::bytes_of(&FrameStats { capacity: leaf_capacity, ..Default::default() }),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        });
        let changed = crate::cbt::changed::create_buffer(device, cpu.max_depth());
        let tracks_changes = cpu.max_depth() >= TRACK_CHANGES_FROM_DEPTH;
        GpuCbt { max_depth: cpu.max_depth(), heap, changed, args, stats, leaf_capacity, tracks_changes }
    }

    /// Turns the listing of changed blocks on or off (before any pipeline is built for this tree).
    pub fn with_change_tracking(mut self, on: bool) -> GpuCbt {
        self.tracks_changes = on;
        self
    }

    /// The override constants of pipelines that work on this tree.
    pub fn pipeline_constants(&self) -> [(&'static str, f64); 1] {
        [("CBT_MAX_DEPTH", self.max_depth as f64)]
    }

    /// The override constants of pipelines that write the heap (shaders/shared/cbt_heap_atomic.wgsl).
    pub fn writer_constants(&self) -> [(&'static str, f64); 3] {
        [
            ("CBT_MAX_DEPTH", self.max_depth as f64),
            ("CBT_TRACK_CHANGES", if self.tracks_changes { 1.0 } else { 0.0 }),
            ("CBT_BLOCK_BITS_LOG2", crate::cbt::changed::block_bits_log2(self.max_depth) as f64),
        ]
    }

    /// Replaces the GPU heap with `cpu`'s (same max depth).
    pub fn upload(&self, queue: &wgpu::Queue, cpu: &Cbt) {
        assert_eq!(cpu.max_depth(), self.max_depth);
        queue.write_buffer(&self.heap, 0, bytemuck::cast_slice(cpu.heap()));
    }

    /// Reads the whole heap back into a CPU tree.
    pub fn read_heap(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Cbt {
        let bytes = read_buffer(device, queue, &self.heap, 0, self.heap.size());
        Cbt::from_heap(bytemuck::cast_slice(&bytes).to_vec())
    }

    /// Reads the statistics of the last frame.
    pub fn read_stats(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> FrameStats {
        bytemuck::pod_read_unaligned(&read_buffer(device, queue, &self.stats, 0, 16))
    }

    /// Reads the node ids a decode pass wrote into `leaf_ids` in the last frame: one per leaf, as
    /// many as the statistics count and the buffer holds.
    pub fn read_leaf_ids(&self, device: &wgpu::Device, queue: &wgpu::Queue, leaf_ids: &wgpu::Buffer) -> Vec<u32> {
        let stats = self.read_stats(device, queue);
        let count = stats.leaves.min(stats.capacity) as u64;
        if count == 0 {
            return Vec::new();
        }
        bytemuck::pod_collect_to_vec(&read_buffer(device, queue, leaf_ids, 0, count * 4))
    }
}
