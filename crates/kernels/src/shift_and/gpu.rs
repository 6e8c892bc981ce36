//! The GPU run of shift-and: buffers, the passes of shaders/kernel_shift_and.wgsl, timing and
//! verification against the CPU reference.

use std::time::Instant;

use wgpu::util::DeviceExt;

use bisector_gpu::dispatch::groups_2d;
use bisector_gpu::readback::read_buffer;
use bisector_gpu::timings::{submit_and_time_all, TimingMs};
use bisector_gpu::{profiled_compute_pass, Gpu};

use super::transfer::scan_levels;
use super::{compile, match_ends, parse, Carry, Compiled, ShiftAndOptions, ShiftAndParams, ShiftAndReport, Word, Workload};
use super::{pack, GROUPS_Y};
use crate::SHADERS;

fn storage(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    })
}

/// A zeroed storage buffer of `bytes` bytes (at least 4).
fn zeroed(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4).next_multiple_of(4),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// (y, z) workgroup counts covering `items` workgroups along y and z.
fn groups_yz(items: u32) -> (u32, u32) {
    (items.clamp(1, GROUPS_Y), items.div_ceil(GROUPS_Y).max(1))
}

/// The CPU reference: every pattern's match ends, patterns spread over threads.
fn cpu_reference(compiled: &[Compiled], text: &[u8], threads: usize) -> Vec<Vec<u32>> {
    let mut expected: Vec<Vec<u32>> = vec![Vec::new(); compiled.len()];
    let per = compiled.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (cs, out) in compiled.chunks(per).zip(expected.chunks_mut(per)) {
            scope.spawn(move || {
                for (c, o) in cs.iter().zip(out) {
                    *o = match_ends(c, text);
                }
            });
        }
    });
    expected
}

/// The scan carry's pipelines and bind groups (per level for the carry scan).
struct ScanPasses {
    transfer: (wgpu::ComputePipeline, wgpu::BindGroup),
    transfer_long: (wgpu::ComputePipeline, wgpu::BindGroup),
    up: wgpu::ComputePipeline,
    up_groups: Vec<wgpu::BindGroup>,
    down: wgpu::ComputePipeline,
    down_groups: Vec<wgpu::BindGroup>,
    extra: (wgpu::ComputePipeline, wgpu::BindGroup),
    extra_long: (wgpu::ComputePipeline, wgpu::BindGroup),
}

/// Runs the passes on `work` (at least one pattern, each of which compiles, and a non-empty
/// text; `ShiftAnd::measure`).
pub(super) fn measure(gpu: &Gpu, options: &ShiftAndOptions, work: &Workload) -> ShiftAndReport {
    let device = &gpu.device;
    let compiled: Vec<Compiled> =
        work.patterns.iter().map(|p| compile(&parse(p).expect("pattern parses")).expect("pattern compiles")).collect();
    let n = work.text.len();
    assert!(n > 0 && !compiled.is_empty() && n < u32::MAX as usize);
    let cpu_threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let cpu_start = Instant::now();
    let expected = cpu_reference(&compiled, &work.text, cpu_threads);
    let cpu_reference_ms = cpu_start.elapsed().as_secs_f64() * 1e3;

    let chunk_len = super::chunk_len_of(work, options);
    let chunks = (n as u32).div_ceil(chunk_len);
    assert!(chunks <= 65535, "at most 65535 chunks");
    let scan_carry = options.carry == Carry::Scan;
    let upload_start = Instant::now();
    let units = pack(&compiled);
    let mut info: Vec<[u32; 4]> = Vec::new();
    let mut tally: Vec<[u32; 4]> = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut word_unit: Vec<u32> = Vec::new();
    let mut function_words = 0u64;
    for (u, unit) in units.iter().enumerate() {
        let c = &unit.compiled;
        let w = c.words.len() as u64;
        info.push([words.len() as u32, w as u32, unit.finals, function_words as u32]);
        let fields = |k: usize| u32::from_le_bytes(unit.fields[k..k + 4].try_into().expect("four fields"));
        tally.push([unit.first_pattern, unit.patterns | unit.shift << 16, fields(0), fields(4)]);
        words.extend_from_slice(&c.words);
        word_unit.extend(std::iter::repeat_n(u as u32, c.words.len()));
        if scan_carry {
            function_words += (w + 32 * w * w) * chunks as u64;
        }
    }
    assert!(function_words <= u32::MAX as u64, "the transfer functions fit a u32 index (the buffer limits are smaller)");
    let total_words = words.len() as u32;
    // Ch transposed, [byte * total_words + word] (the shader's `mask`).
    let mut ch = vec![0u32; 256 * words.len()];
    let mut word = 0;
    for c in units.iter().map(|u| &u.compiled) {
        for w in 0..c.words.len() {
            for b in 0..256 {
                ch[b * words.len() + word] = c.ch[w * 256 + b];
            }
            word += 1;
        }
    }
    let long_capacity = super::long_capacity_of(options, total_words as u64, chunks as u64);
    let module_units: Vec<u32> = (0..units.len() as u32).filter(|&u| units[u as usize].compiled.words.len() > 1).collect();
    let params = ShiftAndParams {
        units: units.len() as u32,
        text_len: n as u32,
        chunk_len,
        chunks,
        capacity: options.capacity,
        total_words,
        module_unit_count: module_units.len() as u32,
        long_capacity,
    };
    let mut text = work.text.clone();
    text.resize(n.div_ceil(4) * 4, 0);
    let uniform = |label: &str, contents: &[u8]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage: wgpu::BufferUsages::UNIFORM })
    };
    let params_buffer = uniform("kernel.shift_and.params", bytemuck::bytes_of(&params));
    let info_buffer = storage(device, "kernel.shift_and.units", bytemuck::cast_slice(&info));
    let tally_buffer = storage(device, "kernel.shift_and.tally", bytemuck::cast_slice(&tally));
    let words_buffer = storage(device, "kernel.shift_and.words", bytemuck::cast_slice(&words));
    let ch_buffer = storage(device, "kernel.shift_and.ch", bytemuck::cast_slice(&ch));
    let text_buffer = storage(device, "kernel.shift_and.text", &text);
    let state_bytes = 4 * chunks as u64 * total_words as u64;
    let end_states = zeroed(device, "kernel.shift_and.end_states", state_bytes);
    let counts = zeroed(device, "kernel.shift_and.counts", 4 * compiled.len() as u64);
    let matches = zeroed(device, "kernel.shift_and.matches", 8 * options.capacity.max(1) as u64);
    let counter = zeroed(device, "kernel.shift_and.counter", 8);
    gpu.wait_idle();
    let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3;

    let starts = zeroed(device, "kernel.shift_and.starts", state_bytes);
    let functions = zeroed(device, "kernel.shift_and.functions", 4 * function_words);
    let module_list = storage(
        device,
        "kernel.shift_and.module_units",
        bytemuck::cast_slice(&module_units.iter().copied().chain([0]).collect::<Vec<u32>>()),
    );
    let word_unit_buffer = storage(device, "kernel.shift_and.word_unit", bytemuck::cast_slice(&word_unit));
    let long_runs = zeroed(device, "kernel.shift_and.long_runs", super::long_runs_bytes(long_capacity));
    let long_count = zeroed(device, "kernel.shift_and.long_count", 8);
    let levels = scan_levels(chunks);
    let level_buffers: Vec<wgpu::Buffer> =
        (0..levels).map(|k| uniform("kernel.shift_and.level", bytemuck::bytes_of(&[k, 0u32, 0, 0]))).collect();
    let pipeline =
        |entry: &str| SHADERS.compute_pipeline(device, &format!("kernel.shift_and.{entry}"), "kernel_shift_and.wgsl", entry, &[]);
    // The layouts come from the shaders, which bind only what each entry point uses.
    let all: [(u32, &wgpu::Buffer); 16] = [
        (0, &params_buffer),
        (1, &info_buffer),
        (2, &words_buffer),
        (3, &ch_buffer),
        (4, &text_buffer),
        (5, &end_states),
        (6, &counts),
        (7, &matches),
        (8, &counter),
        (9, &starts),
        (10, &functions),
        (11, &module_list),
        (12, &word_unit_buffer),
        (14, &long_runs),
        (15, &long_count),
        (16, &tally_buffer),
    ];
    let bind = |pipeline: &wgpu::ComputePipeline, used: &[u32], level: Option<&wgpu::Buffer>| {
        let entries: Vec<wgpu::BindGroupEntry> = all
            .iter()
            .filter(|(b, _)| used.contains(b))
            .map(|&(b, buf)| (b, buf))
            .chain(level.map(|l| (13, l)))
            .map(|(b, buf)| wgpu::BindGroupEntry { binding: b, resource: buf.as_entire_binding() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kernel.shift_and"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    };
    const MATCHING: [u32; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 16];
    let scan = pipeline("scan");
    let scan_group = bind(&scan, &MATCHING, None);
    let scan_modules = pipeline("scan_modules");
    let scan_modules_group = bind(&scan_modules, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 16], None);
    let mut profiler = bisector_gpu::create_profiler(device);
    let (mut scan_ms, mut transfer_ms, mut carry_ms, mut extra_ms, mut total_ms) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut transfer_long_ms, mut extra_long_ms) = (vec![], vec![]);
    let unit_groups = (units.len() as u32).div_ceil(64);
    // Workgroups of 64 over (unit, chunk) pairs from chunk `from` on (the shader's `pair_index`).
    let pair_groups = |from: u32| {
        let (x, y) = groups_2d((units.len() as u32 * (chunks - from)).div_ceil(64));
        (x, y, 1)
    };
    let (unit_y, unit_z) = groups_yz(units.len() as u32);
    let (word_y, word_z) = groups_yz(total_words);
    let dispatch = |encoder: &mut wgpu::CommandEncoder,
                    profiler: &wgpu_profiler::GpuProfiler,
                    label: &str,
                    pipeline: &wgpu::ComputePipeline,
                    group: &wgpu::BindGroup,
                    (x, y, z): (u32, u32, u32)| {
        profiled_compute_pass(profiler, encoder, label, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, z);
        });
    };
    // The carry's pipelines and bind groups (per level for the scan).
    let fixup = (!scan_carry).then(|| {
        let p = pipeline("fixup");
        let g = bind(&p, &MATCHING, None);
        (p, g)
    });
    let scan_passes = scan_carry.then(|| {
        let transfer = pipeline("transfer");
        let transfer_group = bind(&transfer, &[0, 1, 2, 3, 4, 5, 7, 8, 10, 12, 14, 15, 16], None);
        let transfer_long = pipeline("transfer_long");
        let transfer_long_group = bind(&transfer_long, &[0, 1, 2, 3, 4, 7, 8, 10, 12, 14, 15, 16], None);
        let up = pipeline("carry_up");
        let down = pipeline("carry_down");
        let up_groups: Vec<wgpu::BindGroup> = level_buffers.iter().map(|l| bind(&up, &[0, 1, 10], Some(l))).collect();
        let down_groups: Vec<wgpu::BindGroup> = level_buffers.iter().map(|l| bind(&down, &[0, 1, 9, 10], Some(l))).collect();
        let extra = pipeline("extra");
        let extra_group = bind(&extra, &[0, 1, 2, 3, 4, 6, 7, 8, 9, 14, 15, 16], None);
        let extra_long = pipeline("extra_long");
        let extra_long_group = bind(&extra_long, &[0, 1, 2, 3, 4, 6, 7, 8, 14, 15, 16], None);
        ScanPasses {
            transfer: (transfer, transfer_group),
            transfer_long: (transfer_long, transfer_long_group),
            up,
            up_groups,
            down,
            down_groups,
            extra: (extra, extra_group),
            extra_long: (extra_long, extra_long_group),
        }
    });
    for _ in 0..options.iterations {
        let mut encoder = device.create_command_encoder(&Default::default());
        for buffer in [&counts, &counter, &long_count] {
            encoder.clear_buffer(buffer, 0, None);
        }
        dispatch(&mut encoder, &profiler, "scan", &scan, &scan_group, pair_groups(0));
        if !module_units.is_empty() {
            let x = (module_units.len() as u32).div_ceil(8);
            dispatch(&mut encoder, &profiler, "scan", &scan_modules, &scan_modules_group, (x, chunks, 1));
        }
        if let Some((fixup, fixup_group)) = &fixup {
            dispatch(&mut encoder, &profiler, "carry", fixup, fixup_group, (unit_groups, 1, 1));
        }
        if let (Some(passes), true) = (&scan_passes, chunks > 1) {
            // The last chunk's function is never applied.
            let long_groups = (long_capacity.div_ceil(64), 1, 1);
            dispatch(&mut encoder, &profiler, "transfer", &passes.transfer.0, &passes.transfer.1, (chunks - 1, word_y, word_z));
            dispatch(&mut encoder, &profiler, "transfer_long", &passes.transfer_long.0, &passes.transfer_long.1, long_groups);
            let (up, down) = (&passes.up, &passes.down);
            for (k, group) in passes.up_groups.iter().enumerate() {
                let half = 1u32 << k;
                let nodes = (chunks - half).div_ceil(2 * half);
                dispatch(&mut encoder, &profiler, "carry", up, group, (nodes, unit_y, unit_z));
            }
            encoder.clear_buffer(&starts, 0, None);
            for (k, group) in passes.down_groups.iter().enumerate().rev() {
                let half = 1u32 << k;
                let nodes = (chunks - half).div_ceil(2 * half);
                dispatch(&mut encoder, &profiler, "carry", down, group, (nodes.div_ceil(64), unit_y, unit_z));
            }
            dispatch(&mut encoder, &profiler, "extra", &passes.extra.0, &passes.extra.1, pair_groups(1));
            dispatch(&mut encoder, &profiler, "extra_long", &passes.extra_long.0, &passes.extra_long.1, long_groups);
        }
        let times = submit_and_time_all(gpu, &mut profiler, encoder);
        let sum = |label: &str| times.iter().filter(|(l, _)| l == label).map(|(_, t)| t).sum::<f64>();
        scan_ms.push(sum("scan"));
        transfer_ms.push(sum("transfer") + sum("transfer_long"));
        transfer_long_ms.push(sum("transfer_long"));
        carry_ms.push(sum("carry"));
        extra_ms.push(sum("extra") + sum("extra_long"));
        extra_long_ms.push(sum("extra_long"));
        total_ms.push(times.iter().map(|(_, t)| t).sum());
    }
    let read_start = Instant::now();
    let got_counts: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &counts, 0, 4 * compiled.len() as u64)).to_vec();
    let counter_value: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &counter, 0, 8)).to_vec();
    let long_runs_value: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &long_count, 0, 8)).to_vec();
    let gpu_total: u64 = got_counts.iter().map(|&c| c as u64).sum();
    let kept = counter_value[0].min(options.capacity);
    let mut got: Vec<(u32, u32)> = if kept == 0 {
        Vec::new()
    } else {
        bytemuck::cast_slice::<u8, [u32; 2]>(&read_buffer(device, &gpu.queue, &matches, 0, 8 * kept as u64))
            .iter()
            .map(|&[p, i]| (p, i))
            .collect()
    };
    let readback_ms = read_start.elapsed().as_secs_f64() * 1e3;
    got.sort_unstable();
    let expected_counts: Vec<u32> = expected.iter().map(|e| e.len() as u32).collect();
    let total_matches: u64 = expected_counts.iter().map(|&c| c as u64).sum();
    let overflowed = gpu_total > kept as u64;
    let expected_list: Vec<(u32, u32)> = expected.iter().enumerate().flat_map(|(p, e)| e.iter().map(move |&i| (p as u32, i))).collect();
    // Kept positions must be true matches, all of them when they fit.
    let kept_are_matches = got.windows(2).all(|w| w[0] != w[1]) && got.iter().all(|m| expected_list.binary_search(m).is_ok());
    let verified = got_counts == expected_counts && kept_are_matches && (overflowed || got == expected_list);
    let words_max = compiled.iter().map(|c| c.words.len()).max().unwrap_or(1) as u64;
    // The fix-up's loops per byte: the step (and its words), the match emission's, and the
    // tally's flush of MAX_PACKED fields every 15 bytes.
    let (scan_per_byte, fixup_per_byte) = if words_max == 1 { (2, 3) } else { (1 + words_max, 3 + 2 * words_max) };
    let loop_iterations = match options.carry {
        Carry::Scan => chunk_len as u64 * scan_per_byte.max(fixup_per_byte),
        Carry::Sequential => (chunk_len as u64 * scan_per_byte).max(n as u64 * fixup_per_byte + chunks as u64 * (2 + 2 * words_max)),
    };
    let total = TimingMs::of(total_ms);
    ShiftAndReport {
        kernel: "shift-and",
        adapter: gpu.describe(),
        source: work.source.clone(),
        patterns: compiled.len(),
        units: units.len(),
        text_bytes: n,
        chunk_len,
        chunks,
        max_states: compiled.iter().map(|c| c.states).max().unwrap_or(0),
        verified,
        carry: options.carry,
        carry_levels: if scan_carry { levels } else { 0 },
        count_only: options.capacity == 0,
        scan_gpu: TimingMs::of(scan_ms),
        transfer_gpu: TimingMs::of(transfer_ms),
        carry_gpu: TimingMs::of(carry_ms),
        extra_gpu: TimingMs::of(extra_ms),
        transfer_long_gpu: TimingMs::of(transfer_long_ms),
        extra_long_gpu: TimingMs::of(extra_long_ms),
        byte_patterns_per_s: n as f64 * compiled.len() as f64 / (total.median_ms * 1e-3),
        total_gpu: total,
        upload_ms,
        readback_ms,
        cpu_reference_ms,
        cpu_threads,
        total_matches,
        long_runs: [long_runs_value[1], long_runs_value[0]],
        long_capacity,
        positions_overflowed: overflowed,
        counts: got_counts,
        lavapipe_loop_limit_exceeded: gpu.adapter.get_info().name.contains("llvmpipe") && loop_iterations > 65535,
        matches: if overflowed { Vec::new() } else { got },
    }
}
