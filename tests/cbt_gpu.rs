//! The GPU concurrent binary tree equals its CPU twin bit for bit after random split/merge batches,
//! reduced whole or over the changed blocks alone.

mod common;

use std::collections::HashSet;

use bisector::cbt::args::CbtArgs;
use bisector::cbt::cpu::{Cbt, Node};
use bisector::cbt::decode_words::DecodeWords;
use bisector::cbt::gpu::GpuCbt;
use bisector::cbt::ops::{CbtOp, CbtOps};
use bisector::cbt::reduce::{CbtReduce, ReducePath};
use bisector::gpu::readback::read_buffer;
use bisector::gpu::{create_profiler, Gpu};
use bisector::leb::bounds::NodeBounds;
use bisector::leb::decode::LebDecode;
use rand::{seq::SliceRandom, Rng};

/// A batch of operations on distinct leaves (so their order cannot matter), applied to `cpu`.
fn random_batch(cpu: &mut Cbt, rng: &mut impl Rng, max_ops: usize) -> Vec<CbtOp> {
    let mut leaves = cpu.leaves();
    leaves.shuffle(rng);
    let leaf_set: HashSet<Node> = leaves.iter().copied().collect();
    let mut touched = HashSet::new();
    let mut ops = Vec::new();
    let split_bias = rng.random_range(0.2..0.8);
    for leaf in leaves {
        if ops.len() == max_ops || touched.contains(&leaf) {
            continue;
        }
        if rng.random_bool(split_bias) {
            if !cpu.is_ceil_node(leaf) {
                touched.insert(leaf);
                ops.push(CbtOp::split(leaf));
            }
        } else if leaf.depth > 1 && leaf_set.contains(&leaf.sibling()) && !touched.contains(&leaf.sibling()) {
            touched.insert(leaf);
            touched.insert(leaf.sibling());
            ops.push(CbtOp::merge(leaf.parent()));
        }
    }
    for op in &ops {
        let node = Node { id: op.id, depth: op.depth };
        if op.merge == 1 {
            cpu.merge(node)
        } else {
            cpu.split(node)
        }
    }
    cpu.reduce();
    ops
}

/// How each round reduces the heap.
#[derive(Clone, Copy, Debug)]
enum Reduction {
    Whole,
    ChangedBlocks,
}

/// Random split/merge rounds at `max_depth`, each reduced on `path` (`None`: the path
/// `CbtReduce::new` picks: on lavapipe the subgroup path from D = 13 on, the one-pass path from
/// `ONE_PASS_CHOSEN_MIN_DEPTH` for trees that do not track changes) and checked against the twin.
fn check_depth(gpu: &Gpu, max_depth: u32, rounds: usize, reduction: Reduction, rng: &mut impl Rng) {
    check_depth_on(gpu, max_depth, rounds, reduction, None, rng)
}

fn check_depth_on(gpu: &Gpu, max_depth: u32, rounds: usize, reduction: Reduction, path: Option<ReducePath>, rng: &mut impl Rng) {
    let init_depth = rng.random_range(1..=max_depth.min(14));
    let mut cpu = Cbt::new(max_depth, init_depth);
    let capacity = 1u32 << max_depth.min(18);
    let tree = GpuCbt::new(&gpu.device, &cpu, capacity).with_change_tracking(matches!(reduction, Reduction::ChangedBlocks));
    let ops = CbtOps::new(&gpu.device, &tree);
    let reduce = match path {
        Some(path) => CbtReduce::with_path(&gpu.device, &tree, path),
        None => CbtReduce::new(&gpu.device, &tree),
    };
    assert!(reduce.dispatch_count() <= 3);
    let path = reduce.path();
    let args = CbtArgs::new(&gpu.device, &tree);
    let decode = LebDecode::new(&gpu.device, &tree, &NodeBounds::flat(1, (0.0, 0.0)).create_buffers(&gpu.device), false);
    let decode_words = DecodeWords::new(&gpu.device, &tree);
    let mut profiler = create_profiler(&gpu.device);
    for round in 0..rounds {
        // Small batches too, so that most blocks stay unchanged.
        let max_ops = if rng.random_bool(0.5) { rng.random_range(1..40) } else { rng.random_range(1..4000) };
        let batch = random_batch(&mut cpu, rng, max_ops);
        ops.apply(gpu, &mut profiler, &tree, &batch);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        match reduction {
            Reduction::Whole => reduce.record(&mut encoder, &profiler),
            Reduction::ChangedBlocks => reduce.record_changed(&mut encoder, &profiler, &tree),
        }
        args.record(&mut encoder, &profiler);
        decode.record(&mut encoder, &profiler, &tree);
        decode_words.record(&mut encoder, &profiler);
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        let gpu_tree = tree.read_heap(&gpu.device, &gpu.queue);
        if gpu_tree != cpu {
            let first = gpu_tree.heap().iter().zip(cpu.heap()).position(|(a, b)| a != b).unwrap();
            panic!(
                "D={max_depth} {reduction:?} {path:?} round {round}: heaps differ first at word {first}: gpu {:#010x} cpu {:#010x}",
                gpu_tree.heap()[first],
                cpu.heap()[first]
            );
        }
        assert_eq!(gpu_tree.node_count(), gpu_tree.bitfield_popcount(), "D={max_depth}: root count != popcount");
        let leaves = cpu.leaves();
        let shown = leaves.len().min(capacity as usize);
        let ids: Vec<u32> = bytemuck::cast_slice(&read_buffer(&gpu.device, &gpu.queue, &decode.leaf_ids, 0, shown as u64 * 4)).to_vec();
        let expected: Vec<u32> = leaves[..shown].iter().map(|n| n.id).collect();
        assert_eq!(ids, expected, "D={max_depth} round {round}: decoded leaves differ");
        // The same ids from cbt.decode_words (one thread per bitfield word).
        let by_words: Vec<u32> =
            bytemuck::cast_slice(&read_buffer(&gpu.device, &gpu.queue, &decode_words.leaf_ids, 0, shown as u64 * 4)).to_vec();
        assert_eq!(by_words, expected, "D={max_depth} round {round}: cbt.decode_words differs");
        let stats = tree.read_stats(&gpu.device, &gpu.queue);
        assert_eq!(stats.leaves, cpu.node_count());
        assert_eq!(stats.max_depth, leaves[..shown].iter().map(|n| n.depth).max().unwrap());
    }
}

#[test]
fn gpu_heap_equals_cpu_heap() {
    let mut rng = common::rng("gpu_heap_equals_cpu_heap");
    let gpu = common::gpu(20);
    for max_depth in [5, 8, 12, 16, 20] {
        check_depth(&gpu, max_depth, 6, Reduction::Whole, &mut rng);
        check_depth(&gpu, max_depth, 6, Reduction::ChangedBlocks, &mut rng);
    }
}

/// The shared-memory fallback (devices without subgroups, and every tree below D = 13) on the
/// trees the subgroup path takes on lavapipe.
#[test]
fn shared_memory_fallback_equals_cpu_heap() {
    let mut rng = common::rng("shared_memory_fallback_equals_cpu_heap");
    let gpu = common::gpu(23);
    for max_depth in [13, 16, 23] {
        check_depth_on(&gpu, max_depth, 3, Reduction::Whole, Some(ReducePath::Shared), &mut rng);
        check_depth_on(&gpu, max_depth, 3, Reduction::ChangedBlocks, Some(ReducePath::Shared), &mut rng);
    }
}

/// A heap of max depth `max_depth` whose bitfield is random (drawn from one of several
/// distributions) and whose counts are garbage, and the twin's reduction of it.
fn random_bitfield(max_depth: u32, rng: &mut impl Rng) -> (Cbt, Cbt) {
    let words = bisector::cbt::cpu::heap_word_count(max_depth);
    let bitfield_start = 3 << (max_depth - 5);
    let mut heap: Vec<u32> = (0..words).map(|_| rng.random()).collect();
    heap[0] = (1 << max_depth) | (rng.random::<u32>() & !((8u32 << max_depth) - 1));
    let kind = rng.random_range(0..5);
    let density = rng.random_range(0.0..1.0);
    let mut run_bit = false;
    for w in heap[bitfield_start..].iter_mut() {
        *w = match kind {
            // Uniform bits (the garbage already drawn), every bit, none, sparse words, long runs.
            0 => *w,
            1 => u32::MAX,
            2 => 0,
            3 => (0..32).filter(|_| rng.random_bool(density * 0.1)).fold(0, |acc, b| acc | (1 << b)),
            _ => {
                if rng.random_bool(0.01) {
                    run_bit = !run_bit;
                }
                if run_bit {
                    u32::MAX
                } else {
                    0
                }
            }
        };
    }
    let garbage = Cbt::from_heap(heap);
    let mut reduced = garbage.clone();
    reduced.reduce();
    (garbage, reduced)
}

/// Runs `reduce` on `tree` (uploaded from `garbage`: a bitfield under wrong counts) twice, the
/// second from whatever state the first left behind (counters, published sums), and checks the
/// heap equals `expected` after each; `context` names the case.
fn reduce_twice_equals(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    tree: &GpuCbt,
    reduce: &CbtReduce,
    garbage: &Cbt,
    expected: &Cbt,
    context: &str,
) {
    for run in 0..2 {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        reduce.record(&mut encoder, profiler);
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        let got = tree.read_heap(&gpu.device, &gpu.queue);
        if &got != expected {
            let first = got.heap().iter().zip(expected.heap()).position(|(a, b)| a != b).unwrap();
            panic!(
                "{context} run {run}: heaps differ first at word {first} of {}: gpu {:#010x} cpu {:#010x}",
                got.heap().len(),
                got.heap()[first],
                expected.heap()[first]
            );
        }
        tree.upload(&gpu.queue, garbage);
    }
    profiler.end_frame().expect("profiler frame");
}

/// The subgroup path (which lavapipe runs, with its own subgroup size) rebuilds every count of
/// fresh random bitfields exactly as the twin does, at depths with 1, 2 and 4 words per thread,
/// a chained last stage or none, and two dispatches.
#[test]
fn subgroup_reduction_equals_cpu_heap_on_random_bitfields() {
    let mut rng = common::rng("subgroup_reduction_equals_cpu_heap_on_random_bitfields");
    let gpu = common::gpu(26);
    let info = gpu.device.adapter_info();
    assert!(
        ReducePath::subgroup_runs(&gpu.device, 13),
        "the test device ({}, subgroups of {}..={} lanes) must run the subgroup reduction",
        info.name,
        info.subgroup_min_size,
        info.subgroup_max_size
    );
    let mut profiler = create_profiler(&gpu.device);
    for max_depth in [13, 14, 15, 17, 21, 22, 23, 24, 25, 26] {
        for _ in 0..2 {
            let (garbage, expected) = random_bitfield(max_depth, &mut rng);
            let tree = GpuCbt::new(&gpu.device, &garbage, 1 << 10);
            let reduce = CbtReduce::with_path(&gpu.device, &tree, ReducePath::Subgroup);
            assert_eq!(reduce.dispatch_count(), if max_depth <= 25 { 1 } else { 2 }, "D={max_depth}");
            // Twice: the second run starts from the chained stage's counter the first left behind.
            reduce_twice_equals(&gpu, &mut profiler, &tree, &reduce, &garbage, &expected, &format!("D={max_depth}"));
        }
    }
}

/// The one-pass path (any device, D = 16..=25) rebuilds every count of fresh random bitfields
/// exactly as the twin does: one workgroup (D = 16, no tail), two and more (a tail of 1..9
/// levels), twice each (the second run starts from the counter and the published sums, zeroed
/// by the tail, that the first left behind); so does its split form (the tail in a second
/// dispatch of one workgroup).
#[test]
fn one_pass_reduction_equals_cpu_heap_on_random_bitfields() {
    let mut rng = common::rng("one_pass_reduction_equals_cpu_heap_on_random_bitfields");
    let gpu = common::gpu(25);
    let mut profiler = create_profiler(&gpu.device);
    for max_depth in [16, 17, 18, 19, 20, 21, 24, 25] {
        for _ in 0..if max_depth >= 24 { 1 } else { 3 } {
            let (garbage, expected) = random_bitfield(max_depth, &mut rng);
            let tree = GpuCbt::new(&gpu.device, &garbage, 1 << 10);
            for path in [ReducePath::OnePass, ReducePath::OnePassSplit] {
                let reduce = CbtReduce::with_path(&gpu.device, &tree, path);
                let dispatches = if path == ReducePath::OnePassSplit && max_depth > 16 { 2 } else { 1 };
                assert_eq!(reduce.dispatch_count(), dispatches, "D={max_depth} {path:?}");
                reduce_twice_equals(&gpu, &mut profiler, &tree, &reduce, &garbage, &expected, &format!("D={max_depth} {path:?}"));
            }
        }
    }
}

/// The one-pass path under random split/merge rounds, reduced whole and through
/// `record_changed` on a tree that tracks changes (reduced whole, its list emptied).
#[test]
fn one_pass_reduction_after_split_and_merge() {
    let mut rng = common::rng("one_pass_reduction_after_split_and_merge");
    let gpu = common::gpu(18);
    for max_depth in [16, 18] {
        check_depth_on(&gpu, max_depth, 3, Reduction::Whole, Some(ReducePath::OnePass), &mut rng);
        check_depth_on(&gpu, max_depth, 3, Reduction::ChangedBlocks, Some(ReducePath::OnePass), &mut rng);
        check_depth_on(&gpu, max_depth, 2, Reduction::Whole, Some(ReducePath::OnePassSplit), &mut rng);
    }
}

#[test]
fn full_and_empty_extremes() {
    let gpu = common::gpu(17);
    let mut rng = common::rng("full_and_empty_extremes");
    // A full tree (every leaf at max depth) and the minimal one.
    // (17, 17) and (17, 0) take the one-pass path.
    for (max_depth, init_depth) in [(14, 14), (13, 0), (6, 6), (17, 17), (17, 0)] {
        let cpu = Cbt::new(max_depth, init_depth);
        // Start the GPU from a heap whose counts are garbage: the reduction must rebuild them all.
        let tree = GpuCbt::new(&gpu.device, &cpu, 1 << 17);
        let mut garbage = cpu.heap().to_vec();
        let bitfield_start = 3 << (max_depth - 5);
        for w in garbage[1..bitfield_start].iter_mut() {
            *w = rng.random();
        }
        // Word 0 keeps the max-depth marker 2^D; bits from D+3 up belong to the root's count.
        garbage[0] = (1 << max_depth) | (rng.random::<u32>() & !((8u32 << max_depth) - 1));
        tree.upload(&gpu.queue, &Cbt::from_heap(garbage));
        let reduce = CbtReduce::new(&gpu.device, &tree);
        let mut profiler = create_profiler(&gpu.device);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        reduce.record(&mut encoder, &profiler);
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        assert_eq!(tree.read_heap(&gpu.device, &gpu.queue), cpu, "D={max_depth} init {init_depth}");
    }
}

#[test]
fn gpu_heap_equals_cpu_heap_with_several_words_per_thread() {
    // From D = 23 on, each thread of the first reduction dispatch reads 2, 4, then 8 words.
    let mut rng = common::rng("gpu_heap_equals_cpu_heap_with_several_words_per_thread");
    let gpu = common::gpu(25);
    for max_depth in [23, 24, 25] {
        check_depth(&gpu, max_depth, 2, Reduction::Whole, &mut rng);
        check_depth(&gpu, max_depth, 3, Reduction::ChangedBlocks, &mut rng);
    }
}

#[test]
#[ignore = "large: D = 24 and 28 need 8 and 128 MiB heaps; run with --ignored"]
fn gpu_heap_equals_cpu_heap_deep() {
    let mut rng = common::rng("gpu_heap_equals_cpu_heap_deep");
    let gpu = common::gpu(28);
    for max_depth in [24, 28] {
        check_depth(&gpu, max_depth, 2, Reduction::Whole, &mut rng);
        check_depth(&gpu, max_depth, 2, Reduction::ChangedBlocks, &mut rng);
    }
}

/// Pool mode (the bisector pool's allocator, issue 15): on random bitfields of 2^D slots whose
/// counts start as garbage, the GPU reduction gives the CPU twin's heap, and the GPU walk
/// (`cbt_decode_pool_slot`, shaders/cbt_pool_probe.wgsl) finds every used slot and then every free
/// one in slot order, as `Cbt::decode_used_slot` and `decode_free_slot` do.
#[test]
fn gpu_pool_mode_finds_used_and_free_slots_like_the_twin() {
    let mut rng = common::rng("gpu_pool_mode_finds_used_and_free_slots_like_the_twin");
    let gpu = common::gpu(16);
    for max_depth in [5, 8, 12, 16] {
        let mut cpu = Cbt::new_pool(max_depth);
        let fill = [0.0, 1.0, rng.random_range(0.0..1.0)][rng.random_range(0..3)];
        for slot in 0..cpu.slot_count() {
            cpu.set_slot_used(slot, rng.random_bool(fill));
        }
        let mut garbage = cpu.heap().to_vec();
        cpu.reduce();
        let bitfield_start = 3 << (max_depth - 5);
        for w in garbage[1..bitfield_start].iter_mut() {
            *w = rng.random();
        }
        garbage[0] = (1 << max_depth) | (rng.random::<u32>() & !((8u32 << max_depth) - 1));
        let tree = GpuCbt::new(&gpu.device, &Cbt::from_heap(garbage), 1 << 10);
        let reduce = CbtReduce::new(&gpu.device, &tree);
        let pipeline = bisector::shaders::SHADERS.compute_pipeline(
            &gpu.device,
            "cbt.pool_probe",
            "cbt_pool_probe.wgsl",
            "probe",
            &tree.pipeline_constants(),
        );
        let slots = cpu.slot_count() as u64;
        let out = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cbt.pool_probe.slots"),
            size: 4 * slots,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cbt.pool_probe"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: tree.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: out.as_entire_binding() },
            ],
        });
        let mut profiler = create_profiler(&gpu.device);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        reduce.record(&mut encoder, &profiler);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups((slots as u32).div_ceil(64), 1, 1);
        }
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        assert_eq!(tree.read_heap(&gpu.device, &gpu.queue), cpu, "D={max_depth}: the reduced heap");
        let got: Vec<u32> = bytemuck::cast_slice(&read_buffer(&gpu.device, &gpu.queue, &out, 0, 4 * slots)).to_vec();
        let used = cpu.node_count();
        let expected: Vec<u32> =
            (0..used).map(|i| cpu.decode_used_slot(i)).chain((0..cpu.slot_count() - used).map(|i| cpu.decode_free_slot(i))).collect();
        assert_eq!(got, expected, "D={max_depth}, {used} of {slots} slots used");
    }
}
