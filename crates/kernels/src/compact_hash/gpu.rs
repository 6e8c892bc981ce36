//! The run on the GPU: both tables' buffers and pipelines, the timed passes, the read-back and
//! the report.

use std::collections::HashSet;
use std::time::Instant;

use wgpu::util::DeviceExt;

use bisector_gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use bisector_gpu::profiled_compute_pass;
use bisector_gpu::readback::read_buffer;
use bisector_gpu::timings::submit_and_time_all;

use super::check::check_results;
use super::*;
use crate::SHADERS;

fn storage(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

fn uniform(device: &wgpu::Device, label: &str, params: &CompactHashParams) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::bytes_of(params),
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// One table's GPU buffers and pipeline.
struct GpuTable {
    name: &'static str,
    pipeline: wgpu::ComputePipeline,
    table: wgpu::Buffer,
    status: wgpu::Buffer,
    results: [wgpu::Buffer; 2],
    /// The compressed table's root bitmap.
    root_bits: Option<wgpu::Buffer>,
    groups: [wgpu::BindGroup; 2],
}

impl GpuTable {
    #[allow(clippy::too_many_arguments)]
    fn new(
        device: &wgpu::Device,
        name: &'static str,
        file: &str,
        entry: &str,
        params: &CompactHashParams,
        table_bytes: u64,
        root_bitmap_bytes: Option<u64>,
        words: &wgpu::Buffer,
    ) -> GpuTable {
        let label = format!("kernel.compact_hash.{name}");
        let pipeline = SHADERS.compute_pipeline(device, &label, file, entry, &[("VECTOR_LENGTH", params.length as f64)]);
        let params_buffer = uniform(device, &format!("{label}.params"), params);
        let table = storage(device, &format!("{label}.table"), table_bytes);
        let status = storage(device, &format!("{label}.status"), 16);
        let results = ["insert", "again"].map(|pass| storage(device, &format!("{label}.results_{pass}"), 4 * params.vectors as u64));
        let root_bits = root_bitmap_bytes.map(|bytes| storage(device, &format!("{label}.root_bits"), bytes));
        let groups = [0, 1].map(|r| {
            let mut entries = vec![
                wgpu::BindGroupEntry { binding: 0, resource: params_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: table.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: words.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: results[r].as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: status.as_entire_binding() },
            ];
            if let Some(bits) = &root_bits {
                entries.push(wgpu::BindGroupEntry { binding: 5, resource: bits.as_entire_binding() });
            }
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&label),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            })
        });
        GpuTable { name, pipeline, table, status, results, root_bits, groups }
    }
}

/// A table's passes on the GPU, read back.
struct Outcome {
    table: Vec<u8>,
    status: Vec<u32>,
    insert: Vec<u32>,
    again: Vec<u32>,
}

/// The run (`CompactHash::measure`) on given vectors (`options.length` words each;
/// `options.vectors` and `distribution` are ignored). Needs Features::SHADER_INT64 |
/// SHADER_INT64_ATOMIC_ALL_OPS and TIMESTAMP_QUERY.
pub fn run_on_vectors(gpu: &Gpu, options: &CompactHashOptions, words: &[u32]) -> CompactHashReport {
    let device = &gpu.device;
    let length = options.length as usize;
    let count = (words.len() / length) as u32;
    let vectors: Vec<&[u32]> = words.chunks_exact(length).collect();
    let geometry = options.geometry();
    let uncompressed_geometry = options.uncompressed_geometry();

    let cpu_start = Instant::now();
    let cpu = CompactTable::new(geometry);
    let cpu_results: Vec<u32> = vectors.iter().map(|v| cpu.find_or_put(v)).collect();
    let cpu_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
    let cpu_threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let parallel = CompactTable::new(geometry);
    let mut parallel_results = vec![0u32; vectors.len()];
    let chunk = vectors.len().div_ceil(cpu_threads).max(1);
    let parallel_start = Instant::now();
    std::thread::scope(|scope| {
        for (vs, out) in vectors.chunks(chunk).zip(parallel_results.chunks_mut(chunk)) {
            let table = &parallel;
            scope.spawn(move || vs.iter().zip(out).for_each(|(v, r)| *r = table.find_or_put(v)));
        }
    });
    let cpu_parallel_ms = parallel_start.elapsed().as_secs_f64() * 1e3;
    let cpu_copy = cpu.snapshot();
    let cpu_nodes = cpu_copy.nodes.iter().filter(|&&n| n != 0).count() as u64 + cpu_copy.zero as u64;
    // The distinct vectors: those the one-thread CPU reference reports new (the unit tests check
    // it against a set); counted directly when it overflowed.
    let distinct = if cpu_results.contains(&FAILED) {
        vectors.iter().copied().collect::<HashSet<&[u32]>>().len()
    } else {
        cpu_results.iter().filter(|&&r| r & NEW_BIT != 0).count()
    };
    let failed_in_parallel = parallel_results.iter().filter(|&&r| r == FAILED).count() as u32;
    let parallel_check = check_compact_table(&parallel.snapshot(), &vectors, &parallel_results, None, distinct, failed_in_parallel);

    let upload_start = Instant::now();
    let words_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("kernel.compact_hash.words"),
        contents: bytemuck::cast_slice(words),
        usage: wgpu::BufferUsages::STORAGE,
    });
    gpu.wait_idle();
    let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3;
    let params =
        CompactHashParams { vectors: count, length: options.length, slot_log2: geometry.slot_log2, bucket_log2: geometry.bucket_log2 };
    let uncompressed_params = CompactHashParams { slot_log2: uncompressed_geometry.slot_log2, ..params };
    let uncompressed_bytes = uncompressed_geometry.slots() as u64 * (length as u64 + 1) * 4;
    let compressed_table = |name: &'static str, file: &str, entry: &str| {
        GpuTable::new(
            device,
            name,
            file,
            entry,
            &params,
            8 << geometry.slot_log2,
            Some(4 * root_bitmap_words(geometry.slot_log2) as u64),
            &words_buffer,
        )
    };
    // The compressed table, its subgroup variant where asked for, the uncompressed table (last).
    let mut tables = vec![compressed_table("compressed", "kernel_compact_hash.wgsl", "find_or_put")];
    if options.subgroup {
        tables.push(compressed_table("compressed-subgroup", "kernel_compact_hash_subgroup.wgsl", "find_or_put_subgroup"));
    }
    tables.push(GpuTable::new(
        device,
        "uncompressed",
        "kernel_compact_hash_uncompressed.wgsl",
        "find_or_put_uncompressed",
        &uncompressed_params,
        uncompressed_bytes,
        None,
        &words_buffer,
    ));
    let labels: Vec<[String; 2]> =
        tables.iter().map(|t| ["insert", "again"].map(|pass| format!("kernel.compact_hash.{}.{pass}", t.name))).collect();
    let mut samples = vec![[Vec::new(), Vec::new()]; tables.len()];
    let mut profiler = bisector_gpu::create_profiler(device);
    let (x, y) = groups_2d(count.div_ceil(WORKGROUP_SIZE));
    for _ in 0..options.iterations {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("kernel.compact_hash") });
        for (table, labels) in tables.iter().zip(&labels) {
            encoder.clear_buffer(&table.table, 0, None);
            encoder.clear_buffer(&table.status, 0, None);
            if let Some(bits) = &table.root_bits {
                encoder.clear_buffer(bits, 0, None);
            }
            for (group, label) in table.groups.iter().zip(labels) {
                profiled_compute_pass(&profiler, &mut encoder, label, |pass| {
                    pass.set_pipeline(&table.pipeline);
                    pass.set_bind_group(0, group, &[]);
                    pass.dispatch_workgroups(x, y, 1);
                });
            }
        }
        for (label, ms) in submit_and_time_all(gpu, &mut profiler, encoder) {
            for (t, labels) in labels.iter().enumerate() {
                if let Some(pass) = labels.iter().position(|l| *l == label) {
                    samples[t][pass].push(ms);
                }
            }
        }
    }

    let read_start = Instant::now();
    let read = |buffer: &wgpu::Buffer, bytes: u64| read_buffer(device, &gpu.queue, buffer, 0, bytes);
    let outcomes: Vec<Outcome> = tables
        .iter()
        .map(|t| Outcome {
            table: read(&t.table, t.table.size()),
            status: bytemuck::pod_collect_to_vec(&read(&t.status, 16)),
            insert: bytemuck::pod_collect_to_vec(&read(&t.results[0], 4 * count as u64)),
            again: bytemuck::pod_collect_to_vec(&read(&t.results[1], 4 * count as u64)),
        })
        .collect();
    let readback_ms = read_start.elapsed().as_secs_f64() * 1e3;

    // The compressed tables: their references decode, and they hold exactly the trees of the vectors.
    let check_compressed = |t: usize| {
        let outcome = &outcomes[t];
        let copy = TableCopy {
            nodes: bytemuck::pod_collect_to_vec(&outcome.table),
            zero: outcome.status[0] != 0,
            root_bits: bytemuck::pod_collect_to_vec(&read_buffer(
                device,
                &gpu.queue,
                tables[t].root_bits.as_ref().expect("the compressed table's root bitmap"),
                0,
                4 * root_bitmap_words(geometry.slot_log2) as u64,
            )),
            zero_root: outcome.status[2] != 0,
        };
        let nodes = copy.nodes.iter().filter(|&&n| n != 0).count() as u64;
        let check = check_compact_table(&copy, &vectors, &outcome.insert, Some(&outcome.again), distinct, outcome.status[1]);
        (nodes, copy.zero, check)
    };
    let (gpu_nodes, gpu_zero, compressed_check) = check_compressed(0);
    let subgroup_check = options.subgroup.then(|| check_compressed(1));
    let nodes = gpu_nodes + gpu_zero as u64;

    // The uncompressed table: every slot in use holds a distinct vector under its hash.
    let plain_index = tables.len() - 1;
    let plain = &outcomes[plain_index];
    let cells: Vec<u32> = bytemuck::pod_collect_to_vec(&plain.table);
    let stride = length + 1;
    let contents = uncompressed_contents(&cells, length);
    let stored_vectors = contents.as_ref().map_or(0, |c| c.len() as u64);
    let uncompressed_check = contents.and_then(|mut stored| {
        let new = check_results(&vectors, &plain.insert, Some(&plain.again), distinct, plain.status[1], |slot| {
            cells.get(slot as usize * stride + 1..(slot as usize + 1) * stride).map(|w| w.to_vec())
        })?;
        let all = stored.len();
        stored.sort_unstable();
        stored.dedup();
        if stored.len() != all {
            return Err(CheckError::VectorTwice);
        }
        if stored.len() as u64 != new {
            return Err(CheckError::StoredCount { stored: stored.len(), new });
        }
        Ok(new)
    });

    let table_report = |name: &'static str, t: usize, slots: u64, bytes: u64, used: u64, check: Result<u64, CheckError>| {
        let [insert, again] = samples[t].clone().map(TimingMs::of);
        TableReport {
            table: name,
            slots,
            table_bytes: bytes,
            insert_per_s: count as f64 / (insert.median_ms * 1e-3),
            again_per_s: count as f64 / (again.median_ms * 1e-3),
            insert,
            again,
            fill: used as f64 / slots as f64,
            new_vectors: *check.as_ref().unwrap_or(&0),
            failed: outcomes[t].insert.iter().filter(|&&r| r == FAILED).count() as u64,
            verified: check.is_ok(),
            problem: check.err().map(|e| e.to_string()),
        }
    };
    let compressed = table_report("compressed", 0, geometry.slots() as u64, 8 << geometry.slot_log2, gpu_nodes, compressed_check);
    let compressed_subgroup = subgroup_check
        .map(|(nodes, _, check)| table_report("compressed-subgroup", 1, geometry.slots() as u64, 8 << geometry.slot_log2, nodes, check));
    let uncompressed = table_report(
        "uncompressed",
        plain_index,
        uncompressed_geometry.slots() as u64,
        uncompressed_bytes,
        stored_vectors,
        uncompressed_check,
    );
    let stored = if compressed.failed == 0 { distinct as u64 } else { compressed.new_vectors };
    let cpu_per_s = count as f64 / (cpu_parallel_ms * 1e-3);
    CompactHashReport {
        kernel: "compact-hash",
        adapter: gpu.describe(),
        length: options.length,
        bucket_size: options.bucket_size,
        vectors: count,
        distribution: options.distribution,
        seed: options.seed,
        iterations: options.iterations,
        verified: parallel_check.is_ok()
            && compressed.verified
            && compressed_subgroup.as_ref().is_none_or(|t| t.verified)
            && uncompressed.verified,
        cpu_problem: parallel_check.err().map(|e| e.to_string()),
        cpu_nodes,
        overflow: compressed.failed > 0 || compressed_subgroup.as_ref().is_some_and(|t| t.failed > 0) || uncompressed.failed > 0,
        distinct_vectors: distinct as u64,
        nodes,
        compression_ratio: (stored * length as u64 * 4) as f64 / (nodes.max(1) * 8) as f64,
        gpu_over_cpu: compressed.insert_per_s / cpu_per_s,
        compressed,
        compressed_subgroup,
        uncompressed,
        upload_ms,
        readback_ms,
        cpu_ms,
        cpu_parallel_ms,
        cpu_threads,
    }
}
