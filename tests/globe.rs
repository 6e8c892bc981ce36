//! The globe on the GPU against its CPU twins (src/globe): the octahedral map.
mod common;

use bisector::globe::octahedral;
use glam::{DVec2, Vec2};
use rand::Rng;
use wgpu::util::DeviceExt;

#[test]
fn the_wgsl_octahedral_map_equals_the_cpu_twin() {
    let gpu = common::gpu(10);
    let mut rng = common::rng("the_wgsl_octahedral_map_equals_the_cpu_twin");
    // Inside the square, and up to a quarter outside it (tile borders cross the folds).
    let points: Vec<Vec2> = (0..4096).map(|_| Vec2::new(rng.random_range(-0.25..1.25), rng.random_range(-0.25..1.25))).collect();
    let device = &gpu.device;
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("map points"),
        contents: bytemuck::cast_slice(&points),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let output_bytes = points.len() as u64 * 16;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sphere points"),
        size: output_bytes,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let pipeline = bisector::gpu::shader::compute_pipeline(device, "octahedral probe", "globe_octahedral_probe.wgsl", "main", &[]);
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: output.as_entire_binding() },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups((points.len() as u32).div_ceil(64), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let gpu_points: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bisector::gpu::readback::read_buffer(device, &gpu.queue, &output, 0, output_bytes));
    for (p, g) in points.iter().zip(&gpu_points) {
        let cpu = octahedral::to_unit_sphere(DVec2::new(p.x as f64, p.y as f64));
        let error = (cpu - glam::DVec3::new(g[0] as f64, g[1] as f64, g[2] as f64)).length();
        // f32 arithmetic on unit vectors: a few ulps.
        assert!(error < 1e-6, "map point {p}: GPU {g:?}, CPU {cpu} (error {error:e})");
    }
}

/// The GPU's split and merge passes over the octahedron equal the CPU twin (BaseMesh::update)
/// bit for bit, frame after frame, under the test criterion (a hash of each node id against a
/// share that changes every frame, so the tree grows and shrinks across base triangles and
/// folds); the final leaves are watertight on the octahedron.
#[test]
fn gpu_globe_updates_equal_the_cpu_twin_and_stay_watertight() {
    use bisector::cbt::cpu::{Cbt, Node};
    use bisector::globe::camera::GlobeCamera;
    use bisector::globe::renderer::{GlobeRenderer, GlobeSettings};
    use bisector::hash::fmix32;
    use bisector::leb::base_mesh::{octahedron_point, BaseMesh};
    use bisector::leb::cpu::UpdateKind;

    let mut rng = common::rng("gpu_globe_updates_equal_the_cpu_twin_and_stay_watertight");
    let max_depth = rng.random_range(10..=15u32);
    let gpu = common::gpu(max_depth);
    let settings = GlobeSettings { max_depth, leaf_capacity: 1 << max_depth, ..Default::default() };
    let mut renderer = GlobeRenderer::new(&gpu, settings, bisector::render::terrain_draw::COLOR_FORMAT);
    renderer.test_criterion = true;
    let mesh = BaseMesh::octahedron();
    let mut cpu = Cbt::new(max_depth, mesh.depth);
    cpu.reduce();
    let camera = GlobeCamera::default_orbit();
    for frame in 0..24u64 {
        let kind = UpdateKind::for_frame(frame);
        // Grow for most of the run, then shrink: shares out of 1000.
        let split_share = if frame < 16 { rng.random_range(300..900) } else { rng.random_range(0..100) } as f32;
        let merge_share = if frame < 16 { split_share * rng.random_range(0.3..1.0) } else { rng.random_range(0..50) as f32 };
        let mut uniforms = renderer.frame_uniforms(&camera, (64, 64));
        uniforms.split_threshold_px = split_share;
        uniforms.merge_threshold_px = merge_share;
        renderer.set_frame(&gpu.queue, &uniforms);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        renderer.record_update(&mut encoder, kind);
        renderer.record_rebuild(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
        let share = |n: Node| (fmix32(n.id) % 1000) as f32;
        mesh.update(&mut cpu, kind, |n| share(n) < split_share, |n| share(n) < merge_share);
        let gpu_tree = renderer.cbt.read_heap(&gpu.device, &gpu.queue);
        assert_eq!(gpu_tree.heap(), cpu.heap(), "frame {frame} ({kind:?}, shares {split_share}/{merge_share}): GPU and CPU trees differ");
    }
    let leaves = cpu.leaves();
    assert!(leaves.len() > 8, "the test criterion refined nothing");
    assert!(leaves.iter().any(|l| l.depth >= 7), "the test criterion stayed shallow");
    let mut ids = renderer.read_leaf_ids(&gpu);
    ids.sort_unstable();
    let mut expected: Vec<u32> = leaves.iter().map(|l| l.id).collect();
    expected.sort_unstable();
    assert_eq!(ids, expected, "globe.decode's leaf list");
    let mut edges: std::collections::HashMap<[[u64; 3]; 2], u32> = std::collections::HashMap::new();
    for &leaf in &leaves {
        let v = mesh.decode_vertices(leaf).map(|p| octahedron_point(p).map(f64::to_bits));
        for (a, b) in [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])] {
            *edges.entry(if a < b { [a, b] } else { [b, a] }).or_default() += 1;
        }
    }
    assert!(edges.values().all(|&n| n == 2), "an edge of the GPU's leaves is not shared by exactly two leaves");
}
