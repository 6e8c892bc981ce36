//! A test kernel's pipeline beside the globe's tile cache: storage buffers at @group(0) and the
//! cache's bind group layout at @group(2), with the cache's pipeline constants (tests/tile_cache.rs,
//! tests/globe_data_error.rs); or beside other groups (tests/globe_occlusion.rs).

use bisector::globe::cache::tile_cache::TileCache;
use bisector::gpu::Gpu;

/// The pipeline of `entry` in `shader`, whose @group(0) holds storage buffers (binding, read
/// only), and its @group(0) layout.
#[allow(dead_code)]
pub fn cache_probe_pipeline(
    gpu: &Gpu,
    cache: &TileCache,
    shader: &str,
    entry: &str,
    buffers: &[(u32, bool)],
) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
    probe_pipeline(gpu, (shader, entry), buffers, [None, Some(cache.bind_group_layout())], &cache.pipeline_constants())
}

/// The pipeline of `entry` in `shader` whose @group(0) holds storage buffers (binding, read only)
/// and whose @group(1) and @group(2) have the layouts given, with override `constants`; and its
/// @group(0) layout.
pub fn probe_pipeline(
    gpu: &Gpu,
    (shader, entry): (&str, &str),
    buffers: &[(u32, bool)],
    [group1, group2]: [Option<&wgpu::BindGroupLayout>; 2],
    constants: &[(&str, f64)],
) -> (wgpu::ComputePipeline, wgpu::BindGroupLayout) {
    let device = &gpu.device;
    let entries: Vec<wgpu::BindGroupLayoutEntry> = buffers
        .iter()
        .map(|&(binding, read_only)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("probe"), entries: &entries });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("probe"),
        bind_group_layouts: &[Some(&layout), group1, group2],
        immediate_size: 0,
    });
    let module = bisector::shaders::SHADERS.create_module(device, shader);
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(shader),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
        cache: None,
    });
    (pipeline, layout)
}

/// The buffers of a probe over `queries` (4 words each) bound at @group(0) of `layout`: binding 0
/// the queries, 1 a vec4<f32> result each, 2 a u32 slot each; (bind group, results, slots).
#[allow(dead_code)]
pub fn query_buffers(gpu: &Gpu, layout: &wgpu::BindGroupLayout, queries: &[[u32; 4]]) -> (wgpu::BindGroup, wgpu::Buffer, wgpu::Buffer) {
    use wgpu::util::DeviceExt;
    let device = &gpu.device;
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.queries"),
        contents: bytemuck::cast_slice(queries),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let make = |size: u64| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("probe.out"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let (results, slots) = (make(16 * queries.len() as u64), make(4 * queries.len() as u64));
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("probe"),
        layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: results.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: slots.as_entire_binding() },
        ],
    });
    (bind_group, results, slots)
}
