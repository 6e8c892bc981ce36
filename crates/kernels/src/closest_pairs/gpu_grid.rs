//! The uniform grid over B built on the GPU (shaders/kernel_closest_pairs_build.wgsl) from the
//! armies uploaded once as packed f32 (12 bytes a point): bounds, plan, counting sort by cell
//! with an exclusive prefix sum, for B and for A (the search reads A in cell order). Its CPU
//! twin is [`Grid::sort_by_cell`] with the same cells ([`build_grid_gpu`] reads it back for tests).

use wgpu::util::DeviceExt;

use bisector_gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use bisector_gpu::readback::read_buffer;
use bisector_gpu::{profiled_compute_pass, Gpu};

use super::{Armies, ClosestPairsParams, Grid, MAX_CELLS};
use crate::SHADERS;

/// The grid as the GPU planned it. Keep in sync with GridParams in shaders/shared/closest_pairs.wgsl.
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
    /// Per cell (MAX_CELLS + 1 entries): the first index of its points in `points`.
    pub starts: wgpu::Buffer,
    rank: wgpu::Buffer,
    /// (x, y, z, id) in cell order.
    pub points: wgpu::Buffer,
}

/// The build passes' buffers, pipelines and bind groups.
pub struct GpuGrid {
    pub packed_a: wgpu::Buffer,
    pub packed_b: wgpu::Buffer,
    pub grid: wgpu::Buffer,
    pub a: SortedArmy,
    pub b: SortedArmy,
    state: wgpu::Buffer,
    state_init: wgpu::Buffer,
    passes: Vec<(wgpu::ComputePipeline, wgpu::BindGroup, (u32, u32))>,
    /// Indices in `passes` of the refines (after which the counts are cleared and counted again).
    refine_after: Vec<usize>,
}

impl GpuGrid {
    /// Buffers and passes for armies of `m` and `n` points; `params` is the kernels' uniform.
    pub fn new(device: &wgpu::Device, params: &wgpu::Buffer, m: usize, n: usize) -> GpuGrid {
        let sorted = |label: &str, count: usize| SortedArmy {
            starts: buffer(device, &format!("{label}.starts"), 4 * (MAX_CELLS + 1)),
            rank: buffer(device, &format!("{label}.rank"), 4 * count as u64),
            points: buffer(device, &format!("{label}.sorted"), 16 * count as u64),
        };
        let (a, b) = (sorted("kernel.closest_pairs.a", m), sorted("kernel.closest_pairs.b", n));
        let packed_a = buffer(device, "kernel.closest_pairs.packed_a", 12 * m as u64);
        let packed_b = buffer(device, "kernel.closest_pairs.packed_b", 12 * n as u64);
        let grid = buffer(device, "kernel.closest_pairs.grid", std::mem::size_of::<GpuGridParams>() as u64);
        let state = buffer(device, "kernel.closest_pairs.build_state", 32);
        let state_init = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("kernel.closest_pairs.build_state_init"),
            contents: bytemuck::cast_slice(&[u32::MAX, u32::MAX, u32::MAX, 0, 0, 0, 0, 0]),
            usage: wgpu::BufferUsages::COPY_SRC,
        });
        let block_sums = buffer(device, "kernel.closest_pairs.block_sums", 4 * 4096);
        let pipeline = |entry: &str, army_b: bool| {
            SHADERS.compute_pipeline(
                device,
                &format!("kernel.closest_pairs.{entry}"),
                "kernel_closest_pairs_build.wgsl",
                entry,
                &[("army_b", if army_b { 1.0 } else { 0.0 })],
            )
        };
        let bind = |pipeline: &wgpu::ComputePipeline, entries: &[(u32, &wgpu::Buffer)]| {
            let entries: Vec<wgpu::BindGroupEntry> =
                entries.iter().map(|&(binding, b)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }).collect();
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("kernel.closest_pairs.build"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        };
        let threads = |count: usize| groups_2d((count as u32).div_ceil(WORKGROUP_SIZE));
        let mut passes = Vec::new();
        let p = pipeline("bounds", true);
        let g = bind(&p, &[(0, params), (8, &packed_a), (9, &packed_b), (10, &state)]);
        passes.push((p, g, threads(m.max(n))));
        let p = pipeline("plan", true);
        let g = bind(&p, &[(0, params), (10, &state), (11, &grid)]);
        passes.push((p, g, (1, 1)));
        let count = |army: &SortedArmy, army_b: bool| {
            let p = pipeline("count", army_b);
            let g =
                bind(&p, &[(0, params), (8, &packed_a), (9, &packed_b), (10, &state), (11, &grid), (12, &army.starts), (13, &army.rank)]);
            (p, g, threads(if army_b { n } else { m }))
        };
        let mut refine_after = Vec::new();
        for _ in 0..REFINE_ROUNDS {
            passes.push(count(&b, true));
            refine_after.push(passes.len());
            let p = pipeline("refine", true);
            let g = bind(&p, &[(0, params), (10, &state), (11, &grid)]);
            passes.push((p, g, (1, 1)));
        }
        let cells_groups = groups_2d(((MAX_CELLS + 1) as u32).div_ceil(WORKGROUP_SIZE));
        let blocks = groups_2d(((MAX_CELLS + 1) as u32).div_ceil(SCAN_BLOCK));
        for (army, army_b) in [(&b, true), (&a, false)] {
            passes.push(count(army, army_b));
            let p = pipeline("scan_blocks", army_b);
            let g = bind(&p, &[(11, &grid), (12, &army.starts), (15, &block_sums)]);
            passes.push((p, g, blocks));
            let p = pipeline("scan_sums", army_b);
            let g = bind(&p, &[(11, &grid), (15, &block_sums)]);
            passes.push((p, g, (1, 1)));
            let p = pipeline("scan_add", army_b);
            let g = bind(&p, &[(11, &grid), (12, &army.starts), (15, &block_sums)]);
            passes.push((p, g, cells_groups));
            let p = pipeline("scatter", army_b);
            let g = bind(
                &p,
                &[(0, params), (8, &packed_a), (9, &packed_b), (11, &grid), (12, &army.starts), (13, &army.rank), (14, &army.points)],
            );
            passes.push((p, g, threads(if army_b { n } else { m })));
        }
        GpuGrid { packed_a, packed_b, grid, a, b, state, state_init, passes, refine_after }
    }

    /// Uploads the armies as packed f32 (one write each, no conversion).
    pub fn upload(&self, queue: &wgpu::Queue, armies: &Armies) {
        queue.write_buffer(&self.packed_a, 0, bytemuck::cast_slice(&armies.a));
        queue.write_buffer(&self.packed_b, 0, bytemuck::cast_slice(&armies.b));
    }

    /// Records the build: every pass labelled [`BUILD_LABEL`].
    pub fn record(&self, profiler: &wgpu_profiler::GpuProfiler, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(&self.state_init, 0, &self.state, 0, 32);
        encoder.clear_buffer(&self.b.starts, 0, None);
        encoder.clear_buffer(&self.a.starts, 0, None);
        for (i, (pipeline, group, (x, y))) in self.passes.iter().enumerate() {
            if i > 0 && self.refine_after.contains(&(i - 1)) {
                // Count again over the refined cells.
                encoder.clear_buffer(&self.b.starts, 0, None);
            }
            profiled_compute_pass(profiler, encoder, BUILD_LABEL, |pass| {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(*x, *y, 1);
            });
        }
    }

    /// The grid over B as built (cells, starts, B in cell order) and A in cell order.
    pub fn read(&self, gpu: &Gpu, m: usize, n: usize) -> (Grid, Vec<u32>, Vec<[f32; 4]>) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let params: GpuGridParams = bytemuck::pod_read_unaligned(&read_buffer(device, queue, &self.grid, 0, 48));
        let cells = params.cells as u64 + 1;
        let words = |b: &wgpu::Buffer| -> Vec<u32> { bytemuck::cast_slice(&read_buffer(device, queue, b, 0, 4 * cells)).to_vec() };
        let points = |b: &wgpu::Buffer, count: usize| -> Vec<[f32; 4]> {
            bytemuck::cast_slice(&read_buffer(device, queue, b, 0, 16 * count as u64)).to_vec()
        };
        let grid = Grid {
            dims: params.dims,
            origin: params.origin,
            cell_size_m: params.cell_size_m,
            inv_cell_size: params.inv_cell_size,
            slack: params.slack,
            cell_start: words(&self.b.starts),
            points: points(&self.b.points, n),
        };
        (grid, words(&self.a.starts), points(&self.a.points, m))
    }
}

/// Builds the grid over `armies.b` on the GPU and reads it back with A's cell order (A's starts
/// per cell and A sorted): for comparing with the CPU twin.
pub fn build_grid_gpu(gpu: &Gpu, armies: &Armies) -> (Grid, Vec<u32>, Vec<[f32; 4]>) {
    let (m, n) = (armies.a.len(), armies.b.len());
    let params = ClosestPairsParams { a_count: m as u32, b_count: n as u32, candidates: 0, top: 0, zero: 0, pad: [0; 3] };
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
