//! The GPU longest-edge bisection equals its CPU twin frame by frame, and what it converges to is
//! a conforming triangulation.

mod common;

use bisector::cbt::args::CbtArgs;
use bisector::cbt::cpu::Cbt;
use bisector::cbt::gpu::GpuCbt;
use bisector::cbt::reduce::CbtReduce;
use bisector::gpu::create_profiler;
use bisector::leb::conformity::check_conforming;
use bisector::leb::cpu::{decode_vertices, split_conforming, update, UpdateKind, BASE_DEPTH};
use bisector::leb::decode::LebDecode;
use bisector::leb::lod::LodParams;
use bisector::leb::split_nodes::LebSplitNodes;
use bisector::leb::update::LebUpdate;
use glam::Vec3;
use rand::Rng;

const SIZE_M: f32 = 20480.0;

fn random_lod(rng: &mut impl Rng, max_depth: u32) -> LodParams {
    let camera = Vec3::new(
        rng.random_range(-0.2..1.2) * SIZE_M,
        rng.random_range(-0.2..1.2) * SIZE_M,
        // Log-uniform height: low cameras make steep LOD gradients and long split chains.
        10f32.powf(rng.random_range(0.0..3.5)),
    );
    let fov = rng.random_range(30.0f32..90.0).to_radians();
    LodParams::new(camera, fov, rng.random_range(128..1080), rng.random_range(6.0..40.0), SIZE_M, (0.0, rng.random_range(0.0..2500.0)), max_depth)
}

#[test]
fn gpu_leaves_equal_cpu_leaves_and_conform() {
    let mut rng = common::rng("gpu_leaves_equal_cpu_leaves_and_conform");
    let gpu = common::gpu(18);
    let mut profiler = create_profiler(&gpu.device);
    for case in 0..6 {
        let max_depth = rng.random_range(12..=18);
        let lod = random_lod(&mut rng, max_depth);
        // Half the cases start from deep spikes next to coarse regions, which the camera's
        // criterion then coarsens and refines elsewhere: long split chains and many merges.
        let mut cpu = if case % 2 == 0 {
            Cbt::new(max_depth, BASE_DEPTH)
        } else {
            let points: Vec<[f32; 2]> = (0..rng.random_range(1..8)).map(|_| [rng.random(), rng.random()]).collect();
            common::refine_around_points(max_depth, &points)
        };
        let tree = GpuCbt::new(&gpu.device, &cpu, 1 << 12);
        let (reduce, args, decode) = (CbtReduce::new(&gpu.device, &tree), CbtArgs::new(&gpu.device, &tree), LebDecode::new(&gpu.device, &tree));
        let leb = LebUpdate::new(&gpu.device, &tree, &decode);
        leb.set_lod(&gpu.queue, &lod);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        args.record(&mut encoder, &profiler);
        decode.record(&mut encoder, &profiler, &tree);
        profiler.resolve_queries(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        let mut quiet = 0;
        let mut frame = 0u64;
        while quiet < 2 {
            assert!(frame < 4 * max_depth as u64 + 16, "case {case}: no convergence");
            let kind = UpdateKind::for_frame(frame);
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            leb.record(&mut encoder, &profiler, kind, &tree);
            reduce.record(&mut encoder, &profiler);
            args.record(&mut encoder, &profiler);
            decode.record(&mut encoder, &profiler, &tree);
            profiler.resolve_queries(&mut encoder);
            gpu.queue.submit([encoder.finish()]);
            let changed = update(&mut cpu, kind, &lod);
            quiet = if changed { 0 } else { quiet + 1 };
            let gpu_tree = tree.read_heap(&gpu.device, &gpu.queue);
            if gpu_tree != cpu {
                let (g, c) = (gpu_tree.leaves(), cpu.leaves());
                let only_gpu: Vec<_> = g.iter().filter(|n| !c.contains(n)).take(5).collect();
                let only_cpu: Vec<_> = c.iter().filter(|n| !g.contains(n)).take(5).collect();
                panic!("case {case} D={max_depth} frame {frame} ({kind:?}): {} GPU vs {} CPU leaves; only GPU {only_gpu:?}, only CPU {only_cpu:?}; lod {lod:?}", g.len(), c.len());
            }
            frame += 1;
        }
        let leaves = cpu.leaves();
        eprintln!("case {case}: D={max_depth}, {} leaves after {frame} frames", leaves.len());
        assert!(leaves.len() > 2, "case {case}: the criterion refined nothing");
        check_conforming(&leaves).unwrap_or_else(|e| panic!("case {case}: {e:?}"));
    }
}

#[test]
fn gpu_split_chains_equal_cpu_split_chains() {
    // Refining around random points splits deep leaves next to coarse regions: every split walks
    // a long edge-neighbour chain. All the splits of a round run in parallel on the GPU.
    let mut rng = common::rng("gpu_split_chains_equal_cpu_split_chains");
    let gpu = common::gpu(20);
    let mut profiler = create_profiler(&gpu.device);
    for case in 0..3 {
        let max_depth = rng.random_range(12..=20);
        let points: Vec<[f32; 2]> = (0..rng.random_range(1..6)).map(|_| [rng.random(), rng.random()]).collect();
        let mut cpu = Cbt::new(max_depth, BASE_DEPTH);
        let tree = GpuCbt::new(&gpu.device, &cpu, 1 << 12);
        let (reduce, splitter) = (CbtReduce::new(&gpu.device, &tree), LebSplitNodes::new(&gpu.device, &tree));
        // Leaves one conforming split added: more than 2 means its chain went past the edge neighbour.
        let mut most_new_leaves = 0;
        loop {
            let targets: Vec<_> = cpu.leaves().into_iter().filter(|&n| n.depth < max_depth && points.iter().any(|p| common::triangle_contains(decode_vertices(n), *p))).collect();
            if targets.is_empty() {
                break;
            }
            for &node in &targets {
                let before = cpu.bitfield_popcount();
                split_conforming(&mut cpu, node);
                most_new_leaves = most_new_leaves.max(cpu.bitfield_popcount() - before);
            }
            cpu.reduce();
            splitter.apply(&gpu, &mut profiler, &tree, &targets);
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            reduce.record(&mut encoder, &profiler);
            profiler.resolve_queries(&mut encoder);
            gpu.queue.submit([encoder.finish()]);
            assert_eq!(tree.read_heap(&gpu.device, &gpu.queue), cpu, "case {case}: D={max_depth} points {points:?}");
        }
        check_conforming(&cpu.leaves()).unwrap_or_else(|e| panic!("case {case}: {e:?}"));
        assert!(most_new_leaves > 2, "case {case}: no split went past its edge neighbour: the chains were not exercised");
    }
}
