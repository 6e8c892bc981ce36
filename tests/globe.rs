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
