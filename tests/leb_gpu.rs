//! The GPU longest-edge bisection equals its CPU twin frame by frame, and what it converges to is
//! a conforming triangulation.

mod common;

use bisector::cbt::args::CbtArgs;
use bisector::cbt::cpu::Cbt;
use bisector::cbt::gpu::GpuCbt;
use bisector::cbt::reduce::CbtReduce;
use bisector::gpu::create_profiler;
use bisector::leb::bounds::NodeBounds;
use bisector::leb::conformity::check_conforming;
use bisector::leb::cpu::{decode_vertices, split_conforming, update, UpdateKind, BASE_DEPTH};
use bisector::leb::decode::LebDecode;
use bisector::leb::lod::{Criterion, Lod, LodParams};
use bisector::leb::split_nodes::LebSplitNodes;
use bisector::leb::update::LebUpdate;
use bisector::terrain::node_bounds;
use rand::Rng;

const SIZE_M: f32 = 20480.0;

/// A random criterion over random terrain: screen-space error or edge length, node bounds
/// stored to a random depth (deeper nodes read their ancestor's), a random view and frustum.
fn random_lod(rng: &mut impl Rng, max_depth: u32) -> (LodParams, NodeBounds) {
    let k = rng.random_range(4..=8);
    let field = common::random_field(rng, k, SIZE_M);
    let bounds = node_bounds::build(&field, rng.random_range(5..=17));
    let criterion = if rng.random_bool(0.7) { Criterion::ScreenSpaceError } else { Criterion::EdgeLength };
    let target_px = match criterion {
        Criterion::ScreenSpaceError => rng.random_range(0.3..4.0),
        Criterion::EdgeLength => rng.random_range(6.0..40.0),
    };
    let view = common::random_view(rng, SIZE_M);
    (LodParams::new(&view, criterion, target_px, SIZE_M, max_depth, bounds.depths()), bounds)
}

#[test]
fn gpu_leaves_equal_cpu_leaves_and_conform() {
    let mut rng = common::rng("gpu_leaves_equal_cpu_leaves_and_conform");
    let gpu = common::gpu(18);
    let mut profiler = create_profiler(&gpu.device);
    let mut refined_cases = 0;
    for case in 0..6 {
        let max_depth = rng.random_range(12..=18);
        let (lod, bounds) = random_lod(&mut rng, max_depth);
        // Half the cases start from deep spikes next to coarse regions, which the camera's
        // criterion then coarsens and refines elsewhere: long split chains and many merges.
        let mut cpu = if case % 2 == 0 {
            Cbt::new(max_depth, BASE_DEPTH)
        } else {
            let points: Vec<[f32; 2]> = (0..rng.random_range(1..8)).map(|_| [rng.random(), rng.random()]).collect();
            common::refine_around_points(max_depth, &points)
        };
        let tree = GpuCbt::new(&gpu.device, &cpu, 1 << 12);
        let gpu_bounds = bounds.create_buffers(&gpu.device);
        let (reduce, args) = (CbtReduce::new(&gpu.device, &tree), CbtArgs::new(&gpu.device, &tree));
        let decode = LebDecode::new(&gpu.device, &tree, &gpu_bounds, true);
        let leb = LebUpdate::new(&gpu.device, &tree, &decode, &gpu_bounds);
        decode.set_lod(&gpu.queue, &lod);
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
            let changed = update(&mut cpu, kind, &Lod { params: &lod, bounds: &bounds });
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
        refined_cases += usize::from(leaves.len() > 2);
        check_conforming(&leaves).unwrap_or_else(|e| panic!("case {case}: {e:?}"));
    }
    // A view may look away from the terrain (all culled) or at flat sea; most refine.
    assert!(refined_cases >= 3, "only {refined_cases} of 6 random views refined anything");
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
            let targets: Vec<_> = cpu
                .leaves()
                .into_iter()
                .filter(|&n| n.depth < max_depth && points.iter().any(|p| common::triangle_contains(decode_vertices(n), *p)))
                .collect();
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
