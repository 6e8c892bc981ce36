//! The hashed uniform grid over B built on the GPU (shaders/kernel_closest_pairs_build.wgsl)
//! from the armies uploaded once as packed f32 (12 bytes a point): bounds, plan, cells refined
//! from the occupied cells, a table of B's occupied cells (open addressing by cell key), and a
//! counting sort by slot with an exclusive prefix sum, for B and for A (the search reads A in
//! cell order). Only occupied cells are stored, so clustered armies get cells as small as
//! uniform ones. Its CPU twin is [`GpuGridContents::equals_cpu_twin`] (the same cells and keys
//! grouped on the CPU); [`build_grid_gpu`] reads a build back for tests.

use std::collections::BTreeMap;

use wgpu::util::DeviceExt;

use bisector_gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use bisector_gpu::readback::read_buffer;
use bisector_gpu::{profiled_compute_pass, Gpu};

use super::grid::cell_coordinate;
use super::{Armies, ClosestPairsParams, Point};
use crate::SHADERS;

/// The grid as the GPU planned it (dims of the virtual grid, at most 1024 per axis). Keep in sync
/// with GridParams in shaders/shared/closest_pairs.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuGridParams {
    pub dims: [u32; 3],
    pub cells: u32,
    pub origin: [f32; 3],
    pub cell_size_m: f32,
    pub inv_cell_size: f32,
    pub slack: f32,
    pub pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<GpuGridParams>() == 48);

/// Counts each scan workgroup scans. Keep in sync with SCAN_BLOCK in the build shader.
pub const SCAN_BLOCK: u32 = 2048;
/// Rounds of counting B and refining the cells (clusters need more than one: the occupied
/// fraction of a coarse grid overstates B's volume).
const REFINE_ROUNDS: usize = 3;
/// Label of every build pass (their GPU times are summed).
pub const BUILD_LABEL: &str = "kernel.closest_pairs.build";

fn buffer(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(16).next_multiple_of(4),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// One army's sort by cell: its starts per cell, ranks and the sorted points.
pub struct SortedArmy {
    /// Per slot (slots + 2 entries): the first index of its points in `points`.
    pub starts: wgpu::Buffer,
    rank: wgpu::Buffer,
    /// (x, y, z, id) in cell order.
    pub points: wgpu::Buffer,
}

/// Slots of the table of occupied cells for `n` B: a power of two, at least twice `n`.
pub fn table_slots(n: usize) -> u32 {
    (2 * n as u64).next_power_of_two().max(16) as u32
}

/// The table key of grid cell `c` (mirrors cell_key in shaders/shared/closest_pairs.wgsl).
pub fn cell_key(c: [u32; 3]) -> u32 {
    (c[0] | (c[1] << 10) | (c[2] << 20)) + 1
}

/// One step of the build.
enum Step {
    /// Zero these buffers.
    Clear(Vec<usize>),
    Pass(wgpu::ComputePipeline, wgpu::BindGroup, (u32, u32)),
}

/// The build passes' buffers, pipelines and bind groups.
pub struct GpuGrid {
    pub packed_a: wgpu::Buffer,
    pub packed_b: wgpu::Buffer,
    pub grid: wgpu::Buffer,
    /// The table's cell keys (0: free).
    pub keys: wgpu::Buffer,
    pub a: SortedArmy,
    pub b: SortedArmy,
    slots: u32,
    state: wgpu::Buffer,
    state_init: wgpu::Buffer,
    steps: Vec<Step>,
}

impl GpuGrid {
    /// Buffers and passes for armies of `m` and `n` points; `params` is the kernels' uniform
    /// (its `slots` must be `table_slots(n)`).
    pub fn new(device: &wgpu::Device, params: &wgpu::Buffer, m: usize, n: usize) -> GpuGrid {
        let slots = table_slots(n);
        let sorted = |label: &str, count: usize| SortedArmy {
            starts: buffer(device, &format!("{label}.starts"), 4 * (slots as u64 + 2)),
            rank: buffer(device, &format!("{label}.rank"), 4 * count as u64),
            points: buffer(device, &format!("{label}.sorted"), 16 * count as u64),
        };
        let (a, b) = (sorted("kernel.closest_pairs.a", m), sorted("kernel.closest_pairs.b", n));
        let packed_a = buffer(device, "kernel.closest_pairs.packed_a", 12 * m as u64);
        let packed_b = buffer(device, "kernel.closest_pairs.packed_b", 12 * n as u64);
        let grid = buffer(device, "kernel.closest_pairs.grid", std::mem::size_of::<GpuGridParams>() as u64);
        let keys = buffer(device, "kernel.closest_pairs.keys", 4 * slots as u64);
        let state = buffer(device, "kernel.closest_pairs.build_state", 32);
        let state_init = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("kernel.closest_pairs.build_state_init"),
            contents: bytemuck::cast_slice(&[u32::MAX, u32::MAX, u32::MAX, 0, 0, 0, 0, 0]),
            usage: wgpu::BufferUsages::COPY_SRC,
        });
        let blocks = (slots + 2).div_ceil(SCAN_BLOCK);
        let block_sums = buffer(device, "kernel.closest_pairs.block_sums", 4 * blocks as u64);
        let pipeline = |entry: &str, army_b: bool| {
            SHADERS.compute_pipeline(
                device,
                &format!("kernel.closest_pairs.{entry}"),
                "kernel_closest_pairs_build.wgsl",
                entry,
                &[("army_b", if army_b { 1.0 } else { 0.0 })],
            )
        };
        let pass = |entry: &str, army_b: bool, entries: &[(u32, &wgpu::Buffer)], groups: (u32, u32)| {
            let p = pipeline(entry, army_b);
            let entries: Vec<wgpu::BindGroupEntry> =
                entries.iter().map(|&(binding, b)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }).collect();
            let g = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("kernel.closest_pairs.build"),
                layout: &p.get_bind_group_layout(0),
                entries: &entries,
            });
            Step::Pass(p, g, groups)
        };
        let threads = |count: usize| groups_2d((count as u32).div_ceil(WORKGROUP_SIZE));
        // Buffers the Clear steps name: 0 keys, 1 B's starts, 2 A's starts.
        let insert = || {
            pass(
                "insert",
                true,
                &[(0, params), (8, &packed_a), (9, &packed_b), (10, &state), (11, &grid), (12, &b.starts), (13, &b.rank), (16, &keys)],
                threads(n),
            )
        };
        let mut steps = vec![
            Step::Clear(vec![0, 1, 2]),
            pass("bounds", true, &[(0, params), (8, &packed_a), (9, &packed_b), (10, &state)], threads(m.max(n))),
            pass("plan", true, &[(0, params), (10, &state), (11, &grid)], (1, 1)),
        ];
        for _ in 0..REFINE_ROUNDS {
            steps.push(insert());
            steps.push(pass("refine", true, &[(0, params), (10, &state), (11, &grid)], (1, 1)));
            steps.push(Step::Clear(vec![0, 1]));
        }
        steps.push(insert());
        for (army, army_b) in [(&b, true), (&a, false)] {
            let count = if army_b { n } else { m };
            if !army_b {
                steps.push(pass(
                    "count",
                    false,
                    &[(0, params), (8, &packed_a), (9, &packed_b), (11, &grid), (12, &army.starts), (13, &army.rank), (16, &keys)],
                    threads(count),
                ));
            }
            steps.push(pass("scan_blocks", army_b, &[(0, params), (12, &army.starts), (15, &block_sums)], groups_2d(blocks)));
            steps.push(pass("scan_sums", army_b, &[(0, params), (15, &block_sums)], (1, 1)));
            steps.push(pass(
                "scan_add",
                army_b,
                &[(0, params), (12, &army.starts), (15, &block_sums)],
                groups_2d((slots + 2).div_ceil(WORKGROUP_SIZE)),
            ));
            steps.push(pass(
                "scatter",
                army_b,
                &[
                    (0, params),
                    (8, &packed_a),
                    (9, &packed_b),
                    (11, &grid),
                    (12, &army.starts),
                    (13, &army.rank),
                    (14, &army.points),
                    (16, &keys),
                ],
                threads(count),
            ));
        }
        GpuGrid { packed_a, packed_b, grid, keys, a, b, slots, state, state_init, steps }
    }

    /// Uploads the armies as packed f32 (one write each, no conversion).
    pub fn upload(&self, queue: &wgpu::Queue, armies: &Armies) {
        queue.write_buffer(&self.packed_a, 0, bytemuck::cast_slice(&armies.a));
        queue.write_buffer(&self.packed_b, 0, bytemuck::cast_slice(&armies.b));
    }

    /// Records the build: every pass labelled [`BUILD_LABEL`].
    pub fn record(&self, profiler: &wgpu_profiler::GpuProfiler, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(&self.state_init, 0, &self.state, 0, 32);
        for step in &self.steps {
            match step {
                Step::Clear(buffers) => {
                    for &b in buffers {
                        encoder.clear_buffer([&self.keys, &self.b.starts, &self.a.starts][b], 0, None);
                    }
                }
                Step::Pass(pipeline, group, (x, y)) => profiled_compute_pass(profiler, encoder, BUILD_LABEL, |pass| {
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, group, &[]);
                    pass.dispatch_workgroups(*x, *y, 1);
                }),
            }
        }
    }

    /// The build as it stands on the GPU.
    pub fn read(&self, gpu: &Gpu, m: usize, n: usize) -> GpuGridContents {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let words =
            |b: &wgpu::Buffer, count: u64| -> Vec<u32> { bytemuck::cast_slice(&read_buffer(device, queue, b, 0, 4 * count)).to_vec() };
        let points = |b: &wgpu::Buffer, count: usize| -> Vec<[f32; 4]> {
            bytemuck::cast_slice(&read_buffer(device, queue, b, 0, 16 * count as u64)).to_vec()
        };
        let slots = self.slots as u64;
        GpuGridContents {
            params: bytemuck::pod_read_unaligned(&read_buffer(device, queue, &self.grid, 0, 48)),
            keys: words(&self.keys, slots),
            b_starts: words(&self.b.starts, slots + 2),
            b_sorted: points(&self.b.points, n),
            a_starts: words(&self.a.starts, slots + 2),
            a_sorted: points(&self.a.points, m),
        }
    }
}

/// A grid build read back from the GPU.
#[derive(Clone, Debug)]
pub struct GpuGridContents {
    pub params: GpuGridParams,
    /// The table's cell keys (0: a free slot).
    pub keys: Vec<u32>,
    /// Per slot (and the slot `slots` of A outside B's cells, and the end): where its B start.
    pub b_starts: Vec<u32>,
    pub b_sorted: Vec<[f32; 4]>,
    pub a_starts: Vec<u32>,
    pub a_sorted: Vec<[f32; 4]>,
}

/// Point ids grouped by cell key.
type Groups = BTreeMap<u32, Vec<u32>>;

impl GpuGridContents {
    /// The key of `p`'s cell with the GPU's cells (the same f32 arithmetic).
    pub fn key_of(&self, p: Point) -> u32 {
        let g = &self.params;
        cell_key(std::array::from_fn(|k| cell_coordinate(p[k], g.origin[k], g.inv_cell_size, g.dims[k]) as u32))
    }

    /// The GPU's points per cell key (A outside B's cells under key 0), ids sorted.
    fn gpu_groups(&self, starts: &[u32], sorted: &[[f32; 4]]) -> Option<Groups> {
        let mut groups = Groups::new();
        for (slot, w) in starts.windows(2).enumerate() {
            let key = self.keys.get(slot).copied().unwrap_or(0);
            let run = sorted.get(w[0] as usize..w[1] as usize)?;
            if run.is_empty() {
                continue;
            }
            let ids = groups.entry(key).or_default();
            ids.extend(run.iter().map(|p| p[3].to_bits()));
            ids.sort_unstable();
        }
        Some(groups)
    }

    /// Whether the build equals its CPU twin: every B and every A in the slot of its cell's key
    /// (A outside B's cells in the extra slot), with its own coordinates, each cell stored once,
    /// and every stored key found by probing from its hash.
    pub fn equals_cpu_twin(&self, armies: &Armies) -> bool {
        let slots = self.keys.len();
        let mask = slots as u32 - 1;
        let findable = self.keys.iter().enumerate().filter(|(_, &k)| k != 0).all(|(slot, &k)| {
            let mut h = bisector_gpu::hash::fmix32(k) & mask;
            while self.keys[h as usize] != k && self.keys[h as usize] != 0 {
                h = (h + 1) & mask;
            }
            h as usize == slot
        });
        let mut b_cells = Groups::new();
        for (id, p) in armies.b.iter().enumerate() {
            b_cells.entry(self.key_of(*p)).or_default().push(id as u32);
        }
        let mut a_cells = Groups::new();
        for (id, p) in armies.a.iter().enumerate() {
            let key = self.key_of(*p);
            a_cells.entry(if b_cells.contains_key(&key) { key } else { 0 }).or_default().push(id as u32);
        }
        let coordinates_kept = |sorted: &[[f32; 4]], points: &[Point]| {
            sorted
                .iter()
                .all(|q| points.get(q[3].to_bits() as usize).is_some_and(|p| p.map(f32::to_bits) == [q[0], q[1], q[2]].map(f32::to_bits)))
        };
        findable
            && self.keys.iter().filter(|&&k| k != 0).count() == b_cells.len()
            && self.gpu_groups(&self.b_starts, &self.b_sorted) == Some(b_cells)
            && self.gpu_groups(&self.a_starts, &self.a_sorted) == Some(a_cells)
            && coordinates_kept(&self.b_sorted, &armies.b)
            && coordinates_kept(&self.a_sorted, &armies.a)
    }

    /// B points of the fullest cell.
    pub fn longest_cell(&self) -> u32 {
        self.b_starts.windows(2).map(|w| w[1].saturating_sub(w[0])).max().unwrap_or(0)
    }

    /// Cells B occupies.
    pub fn occupied_cells(&self) -> usize {
        self.keys.iter().filter(|&&k| k != 0).count()
    }
}

/// Builds the grid over `armies.b` (and A's cell order) on the GPU and reads it back: for
/// comparing with the CPU twin.
pub fn build_grid_gpu(gpu: &Gpu, armies: &Armies) -> GpuGridContents {
    let (m, n) = (armies.a.len(), armies.b.len());
    let params =
        ClosestPairsParams { a_count: m as u32, b_count: n as u32, candidates: 0, top: 0, zero: 0, slots: table_slots(n), pad: [0; 2] };
    let uniform = gpu.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("kernel.closest_pairs.params"),
        contents: bytemuck::bytes_of(&params),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let build = GpuGrid::new(&gpu.device, &uniform, m, n);
    build.upload(&gpu.queue, armies);
    let mut profiler = bisector_gpu::create_profiler(&gpu.device);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    build.record(&profiler, &mut encoder);
    bisector_gpu::timings::submit_and_time_all(gpu, &mut profiler, encoder);
    build.read(gpu, m, n)
}
