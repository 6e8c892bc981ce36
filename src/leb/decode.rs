//! leb.decode: writes every leaf's node id into "leb.leaf_ids" for the draw, records the deepest
//! leaf, and measures the largest size on screen of any visible leaf under the LOD criterion
//! (the estimated remaining screen-space error) into "leb.lod_stats" (shaders/leb_decode.wgsl).

use crate::cbt::gpu::GpuCbt;
use crate::gpu::profiled_compute_pass;
use crate::leb::bounds::GpuNodeBounds;
use crate::leb::lod::LodParams;
use crate::shaders::SHADERS;

/// What leb.decode measured in the last frame. Keep in sync with LodStats in shaders/shared/decode.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LodStats {
    /// Largest projected size (error or edge, by criterion) of a visible leaf, in pixels.
    pub max_size_px: f32,
    /// Leaves whose bounding box is inside the view frustum.
    pub visible_leaves: u32,
    /// Visible leaves that want to split but cannot: they are at the tree's max depth.
    pub capped_leaves: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<LodStats>() == 16);

/// The decode pass and the leaf-id buffer it fills.
pub struct LebDecode {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    bounds_group: wgpu::BindGroup,
    /// One u32 node id per leaf, `cbt.leaf_capacity` of them.
    pub leaf_ids: wgpu::Buffer,
    /// The criterion, shared with leb.split / leb.merge ("leb.lod").
    pub lod: wgpu::Buffer,
    /// `LodStats` of the last frame.
    pub lod_stats: wgpu::Buffer,
}

impl LebDecode {
    /// Builds the pass and its buffers for `cbt`, measuring leaves against `bounds` when
    /// `measure_lod` (diagnostics that time the decode alone pass false).
    pub fn new(device: &wgpu::Device, cbt: &GpuCbt, bounds: &GpuNodeBounds, measure_lod: bool) -> LebDecode {
        let leaf_ids = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("leb.leaf_ids"),
            size: cbt.leaf_capacity as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let lod = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("leb.lod"),
            size: std::mem::size_of::<LodParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let lod_stats = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("leb.lod_stats"),
            size: std::mem::size_of::<LodStats>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let [depth] = cbt.pipeline_constants();
        let constants = [depth, ("MEASURE_LOD", if measure_lod { 1.0 } else { 0.0 })];
        let pipeline = SHADERS.compute_pipeline(device, "leb.decode", "leb_decode.wgsl", "decode", &constants);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("leb.decode"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: cbt.heap.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: leaf_ids.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: cbt.stats.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: lod.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: lod_stats.as_entire_binding() },
            ],
        });
        let bounds_group = bounds.bind_group(device, &pipeline, "leb.decode.bounds");
        LebDecode { pipeline, bind_group, bounds_group, leaf_ids, lod, lod_stats }
    }

    /// Sets the criterion used by the next recorded passes (decode and update).
    pub fn set_lod(&self, queue: &wgpu::Queue, lod: &LodParams) {
        queue.write_buffer(&self.lod, 0, bytemuck::bytes_of(lod));
    }

    /// Records "leb.decode" over every leaf of `cbt`.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, cbt: &GpuCbt) {
        encoder.clear_buffer(&self.lod_stats, 0, None);
        profiled_compute_pass(profiler, encoder, "leb.decode", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_bind_group(1, &self.bounds_group, &[]);
            pass.dispatch_workgroups_indirect(&cbt.args, 0);
        });
    }
}
