//! One run of closest-pairs: the CPU reference, the brute force and the grid version (grid built
//! on the GPU, timed end to end), verification.

use std::time::Instant;

use wgpu::util::DeviceExt;

use bisector_gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use bisector_gpu::readback::read_buffer;
use bisector_gpu::timings::{submit_and_time_all, TimingMs};
use bisector_gpu::{profiled_compute_pass, Gpu};

use super::gpu_grid::{GpuGrid, BUILD_LABEL};
use super::{nearest_grid_cpu, top_pairs, Armies, ClosestPairsOptions, ClosestPairsParams, ClosestPairsReport, Grid, Nearest, Pair};
use super::{Variant, VariantReport, TOP_CHUNK, TOP_PAIRS};
use crate::SHADERS;

fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }
}

fn storage(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    })
}

const TOP_LABEL: &str = "kernel.closest_pairs.top100";

/// Runs the kernel on `armies` (both non-empty; `ClosestPairs::measure`).
pub(super) fn measure(gpu: &Gpu, options: &ClosestPairsOptions, armies: &Armies) -> ClosestPairsReport {
    let device = &gpu.device;
    let (m, n) = (armies.a.len(), armies.b.len());
    assert!(m > 0 && n > 0, "closest pairs need two non-empty armies");
    let cpu_threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let cpu_start = Instant::now();
    let cpu_grid = Grid::build(&armies.b, &armies.a);
    let grid_build_cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
    let expected = nearest_grid_cpu(&armies.a, &cpu_grid, cpu_threads);
    let expected_pairs = top_pairs(&expected, TOP_PAIRS);
    let cpu_reference_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
    drop(cpu_grid);

    let upload_start = Instant::now();
    let top = TOP_PAIRS.min(m) as u32;
    let params = ClosestPairsParams {
        a_count: m as u32,
        b_count: n as u32,
        candidates: m as u32,
        top,
        zero: 0,
        slots: super::table_slots(n),
        pad: [0; 2],
    };
    let run_grid = options.variant != Variant::Brute;
    let run_brute = options.variant != Variant::Grid;
    let brute_points = run_brute.then(|| {
        let with_ids = |points: &[super::Point]| -> Vec<[f32; 4]> {
            points.iter().enumerate().map(|(i, p)| [p[0], p[1], p[2], f32::from_bits(i as u32)]).collect()
        };
        (
            storage(device, "kernel.closest_pairs.a", bytemuck::cast_slice(&with_ids(&armies.a))),
            storage(device, "kernel.closest_pairs.b", bytemuck::cast_slice(&with_ids(&armies.b))),
        )
    });
    let nearest = storage(device, "kernel.closest_pairs.nearest", &vec![0u8; 8 * m]);
    let kept_len = (m as u32).div_ceil(TOP_CHUNK) as usize * top as usize;
    let kept = [
        storage(device, "kernel.closest_pairs.kept0", &vec![0u8; 4 * kept_len]),
        storage(device, "kernel.closest_pairs.kept1", &vec![0u8; 4 * kept_len]),
    ];
    let kept_pairs = storage(device, "kernel.closest_pairs.kept_pairs", &vec![0u8; 16 * kept_len]);
    // One uniform per top-100 round (its candidate count).
    let mut rounds = Vec::new();
    let mut candidates = m as u32;
    loop {
        let groups = candidates.div_ceil(TOP_CHUNK);
        rounds.push((
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("kernel.closest_pairs.params"),
                contents: bytemuck::bytes_of(&ClosestPairsParams { candidates, ..params }),
                usage: wgpu::BufferUsages::UNIFORM,
            }),
            groups,
        ));
        if groups == 1 {
            break;
        }
        candidates = groups * top;
    }
    let uniform = &rounds[0].0;
    let build = run_grid.then(|| GpuGrid::new(device, uniform, m, n));
    gpu.wait_idle();
    let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3;

    let top_first = SHADERS.compute_pipeline(device, TOP_LABEL, "kernel_closest_pairs_top.wgsl", "top", &[("identity", 1.0)]);
    let top_next = SHADERS.compute_pipeline(device, TOP_LABEL, "kernel_closest_pairs_top.wgsl", "top", &[("identity", 0.0)]);
    let top_groups: Vec<(wgpu::BindGroup, u32, &wgpu::ComputePipeline)> = rounds
        .iter()
        .enumerate()
        .map(|(r, (uniform, groups))| {
            let pipeline = if r == 0 { &top_first } else { &top_next };
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(TOP_LABEL),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    entry(0, uniform),
                    entry(3, &nearest),
                    entry(5, &kept[(r + 1) % 2]),
                    entry(6, &kept[r % 2]),
                    entry(7, &kept_pairs),
                ],
            });
            (group, *groups, pipeline)
        })
        .collect();
    let mut profiler = bisector_gpu::create_profiler(device);
    let mut versions: Vec<(&'static str, &str, &str)> = Vec::new();
    if run_brute {
        versions.push(("brute", "kernel_closest_pairs_brute.wgsl", "nearest_brute"));
    }
    if run_grid {
        versions.push(("grid", "kernel_closest_pairs_grid.wgsl", "nearest_grid"));
    }
    let mut variants = Vec::new();
    let mut readback_ms = 0.0;
    let mut pairs = Vec::new();
    let read_pairs = || -> Vec<Pair> {
        let got: Vec<[u32; 4]> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &kept_pairs, 0, 16 * top as u64)).to_vec();
        got.iter().map(|&[bits, a, b, _]| Pair { a, b, distance: (f32::from_bits(bits) as f64).sqrt(), d2_bits: bits }).collect()
    };
    for &(variant, file, entry_point) in &versions {
        let label = format!("kernel.closest_pairs.nearest_{variant}");
        let pipeline = SHADERS.compute_pipeline(device, &label, file, entry_point, &[]);
        let mut entries = vec![entry(0, uniform), entry(3, &nearest)];
        match (&build, &brute_points) {
            (Some(build), _) if variant == "grid" => {
                entries.extend([
                    entry(1, &build.a.points),
                    entry(2, &build.b.points),
                    entry(4, &build.b.starts),
                    entry(11, &build.grid),
                    entry(16, &build.keys),
                ]);
            }
            (_, Some((a, b))) => entries.extend([entry(1, a), entry(2, b)]),
            _ => unreachable!("the brute force's points exist when it runs"),
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let (mut build_ms, mut near_ms, mut top_ms, mut total_ms, mut e2e_ms) = (vec![], vec![], vec![], vec![], vec![]);
        for _ in 0..options.iterations {
            let start = Instant::now();
            let mut encoder = device.create_command_encoder(&Default::default());
            if let (Some(build), "grid") = (&build, variant) {
                build.upload(&gpu.queue, armies);
                build.record(&profiler, &mut encoder);
            }
            encoder.clear_buffer(&nearest, 0, None);
            profiled_compute_pass(&profiler, &mut encoder, &label, |pass| {
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                let (x, y) = groups_2d((m as u32).div_ceil(WORKGROUP_SIZE));
                pass.dispatch_workgroups(x, y, 1);
            });
            for (group, groups, pipeline) in &top_groups {
                profiled_compute_pass(&profiler, &mut encoder, TOP_LABEL, |pass| {
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, group, &[]);
                    let (x, y) = groups_2d(*groups);
                    pass.dispatch_workgroups(x, y, 1);
                });
            }
            let times = submit_and_time_all(gpu, &mut profiler, encoder);
            // The 100 pairs on the host end the end-to-end time (checked after the last iteration).
            let _pairs_on_host = read_pairs();
            e2e_ms.push(start.elapsed().as_secs_f64() * 1e3);
            let sum = |l: &str| -> f64 { times.iter().filter(|(t, _)| t == l).map(|(_, t)| t).sum() };
            if !times.is_empty() {
                let (b, near, topt) = (sum(BUILD_LABEL), sum(&label), sum(TOP_LABEL));
                build_ms.push(b);
                near_ms.push(near);
                top_ms.push(topt);
                total_ms.push(b + near + topt);
            }
        }
        let read_start = Instant::now();
        let got: Vec<Nearest> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &nearest, 0, 8 * m as u64)).to_vec();
        pairs = read_pairs();
        readback_ms = read_start.elapsed().as_secs_f64() * 1e3;
        let verified = got == expected && pairs == expected_pairs;
        let total = TimingMs::of(total_ms);
        variants.push(VariantReport {
            variant,
            build_gpu: TimingMs::of(build_ms),
            nearest_gpu: TimingMs::of(near_ms),
            top_gpu: TimingMs::of(top_ms),
            queries_per_s: m as f64 / (total.median_ms * 1e-3),
            total_gpu: total,
            end_to_end: (variant == "grid").then(|| TimingMs::of(e2e_ms)),
            verified,
        });
    }
    let built = build.as_ref().map(|b| b.read(gpu, m, n));
    let grid_verified = built.as_ref().map(|g| g.equals_cpu_twin(armies));
    let grid_variant = variants.iter().find(|v| v.variant == "grid");
    let longest_cell = built.as_ref().map_or(0, |g| g.longest_cell());
    ClosestPairsReport {
        kernel: "closest-pairs",
        adapter: gpu.describe(),
        a_points: m,
        b_points: n,
        source: armies.source.clone(),
        verified: variants.iter().all(|v| v.verified) && grid_verified != Some(false),
        end_to_end_ms: grid_variant.and_then(|v| v.end_to_end.as_ref()).map(|t| t.median_ms),
        gpu_ms: grid_variant.map(|v| v.total_gpu.median_ms),
        variants,
        upload_ms,
        readback_ms,
        grid_build_cpu_ms,
        grid_dims: built.as_ref().map_or([0; 3], |g| g.params.dims),
        grid_cell_size: built.as_ref().map_or(0.0, |g| g.params.cell_size_m),
        grid_occupied_cells: built.as_ref().map_or(0, |g| g.occupied_cells()),
        grid_longest_cell: longest_cell,
        grid_verified,
        cpu_reference_ms,
        cpu_threads,
        pairs,
        lavapipe_loop_limit_exceeded: gpu.adapter.get_info().name.contains("llvmpipe")
            && ((run_brute && n as u64 + n as u64 / 256 > 65535) || longest_cell > 65535),
    }
}
