//! The sea's wave tiles on the GPU: "sea.waves" sums each tile's waves at its texel centres into
//! mip 0, "sea.mips" averages them down to 1 texel (shaders/sea_tiles.wgsl), once per change of
//! the waves' time; and the bindings through which the globe's draws sample them, @group(1)
//! bindings 5-7 beside the atmosphere's (shaders/shared/globe_sea.wgsl). CPU twin: the parent
//! module (`tile_texels`, `next_mip`).

use super::{wave_records, SeaSettings, SeaUniforms, Wave, LAYERS, MIP_LEVELS, TILE_SIDE, WAVES_PER_LAYER};
use crate::gpu::profiled_compute_pass;
use crate::shaders::SHADERS;
use glam::DVec3;

/// Format of the tiles: (slope.x, slope.y, |slope|^2, height).
pub const TILE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// The first of the globe draws' @group(1) bindings that the sea's tiles take (uniforms, the
/// tiles, their sampler; shared/globe_sea.wgsl).
pub const FIRST_DRAW_BINDING: u32 = 5;
/// Labels of the passes, in the order they run.
pub const PASS_LABELS: [&str; 2] = ["sea.waves", "sea.mips"];

/// The tiles, their passes and the draw's bindings.
pub struct SeaTiles {
    waves: Vec<Wave>,
    uniforms: wgpu::Buffer,
    wave_buffer: wgpu::Buffer,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    sampler: wgpu::Sampler,
    waves_pass: (wgpu::ComputePipeline, wgpu::BindGroup),
    mips_pass: (wgpu::ComputePipeline, Vec<wgpu::BindGroup>),
    /// The waves' time of the records in `wave_buffer`, and whether the tiles hold it.
    time_s: Option<f64>,
    current: bool,
}

impl SeaTiles {
    /// The tiles of the sea's spectrum (`super::spectrum`).
    pub fn new(device: &wgpu::Device) -> SeaTiles {
        SeaTiles::with_waves(device, super::spectrum())
    }

    /// The tiles of `waves` (LAYERS x WAVES_PER_LAYER, tile after tile).
    pub fn with_waves(device: &wgpu::Device, waves: Vec<Wave>) -> SeaTiles {
        assert_eq!(waves.len(), LAYERS * WAVES_PER_LAYER, "the sea's tiles take {WAVES_PER_LAYER} waves a tile");
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sea.uniforms"),
            size: std::mem::size_of::<SeaUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let wave_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sea.waves"),
            size: (LAYERS * WAVES_PER_LAYER * 16) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("sea.tiles"),
            size: wgpu::Extent3d { width: TILE_SIDE, height: TILE_SIDE, depth_or_array_layers: LAYERS as u32 },
            mip_level_count: MIP_LEVELS,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: TILE_FORMAT,
            usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let level = |mip: u32| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("sea.tiles"),
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                base_mip_level: mip,
                mip_level_count: Some(1),
                ..Default::default()
            })
        };
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("sea.tiles"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        // Repeating and trilinear: distant water averages its slopes (the draw spreads taps along
        // a footprint's long axis itself: lavapipe filters anisotropy over the whole ellipse, far
        // too slowly).
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("sea.tiles"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let pipeline = |label: &str, entry: &str| SHADERS.compute_pipeline(device, label, "sea_tiles.wgsl", entry, &[]);
        let waves_pipeline = pipeline(PASS_LABELS[0], "waves");
        let waves_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(PASS_LABELS[0]),
            layout: &waves_pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wave_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&level(0)) },
            ],
        });
        let mips_pipeline = pipeline(PASS_LABELS[1], "mips");
        let mips_groups = (1..MIP_LEVELS)
            .map(|mip| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(PASS_LABELS[1]),
                    layout: &mips_pipeline.get_bind_group_layout(0),
                    entries: &[
                        wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::TextureView(&level(mip - 1)) },
                        wgpu::BindGroupEntry { binding: 4, resource: wgpu::BindingResource::TextureView(&level(mip)) },
                    ],
                })
            })
            .collect();
        SeaTiles {
            waves,
            uniforms,
            wave_buffer,
            texture,
            view,
            sampler,
            waves_pass: (waves_pipeline, waves_group),
            mips_pass: (mips_pipeline, mips_groups),
            time_s: None,
            current: false,
        }
    }

    /// The layout entries of the draw's bindings FIRST_DRAW_BINDING.. seen by `visibility`.
    pub fn draw_layout_entries(visibility: wgpu::ShaderStages) -> [wgpu::BindGroupLayoutEntry; 3] {
        let b = FIRST_DRAW_BINDING;
        [
            wgpu::BindGroupLayoutEntry {
                binding: b,
                visibility,
                ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: b + 1,
                visibility,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2Array,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: b + 2,
                visibility,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ]
    }

    /// The entries of the draw's bindings FIRST_DRAW_BINDING.. (draw_layout_entries).
    pub fn draw_group_entries(&self) -> [wgpu::BindGroupEntry<'_>; 3] {
        let b = FIRST_DRAW_BINDING;
        [
            wgpu::BindGroupEntry { binding: b, resource: self.uniforms.as_entire_binding() },
            wgpu::BindGroupEntry { binding: b + 1, resource: wgpu::BindingResource::TextureView(&self.view) },
            wgpu::BindGroupEntry { binding: b + 2, resource: wgpu::BindingResource::Sampler(&self.sampler) },
        ]
    }

    /// Writes the uniforms for a camera at earth-fixed `camera_m` and, with the sea on and its
    /// time changed, the waves' phases at `settings.time_s` (the tiles follow at `record`).
    pub fn set_view(&mut self, queue: &wgpu::Queue, camera_m: DVec3, settings: &SeaSettings) {
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&super::uniforms(camera_m)));
        if settings.enabled && self.time_s != Some(settings.time_s) {
            queue.write_buffer(&self.wave_buffer, 0, bytemuck::cast_slice(&wave_records(&self.waves, settings.time_s)));
            self.time_s = Some(settings.time_s);
            self.current = false;
        }
    }

    /// Records "sea.waves" and "sea.mips" when the tiles do not hold the time set last.
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        if self.current || self.time_s.is_none() {
            return;
        }
        let groups = TILE_SIDE.div_ceil(8);
        profiled_compute_pass(profiler, encoder, PASS_LABELS[0], |pass| {
            pass.set_pipeline(&self.waves_pass.0);
            pass.set_bind_group(0, &self.waves_pass.1, &[]);
            pass.dispatch_workgroups(groups, groups, LAYERS as u32);
        });
        profiled_compute_pass(profiler, encoder, PASS_LABELS[1], |pass| {
            pass.set_pipeline(&self.mips_pass.0);
            for (mip, group) in (1..).zip(&self.mips_pass.1) {
                pass.set_bind_group(0, group, &[]);
                let side = (TILE_SIDE >> mip).max(1);
                pass.dispatch_workgroups(side.div_ceil(8), side.div_ceil(8), LAYERS as u32);
            }
        });
        self.current = true;
    }

    /// The texels of mip level `mip` as f32 (rows of x, then y, then layers; waits for the GPU).
    pub fn read_level(&self, device: &wgpu::Device, queue: &wgpu::Queue, mip: u32) -> Vec<[f32; 4]> {
        let side = (TILE_SIDE >> mip).max(1);
        let row_bytes = side * 8;
        let padded = row_bytes.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sea.tiles.readback"),
            size: (padded * side) as u64 * LAYERS as u64,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sea.tiles.readback") });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo { texture: &self.texture, mip_level: mip, origin: Default::default(), aspect: Default::default() },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded), rows_per_image: Some(side) },
            },
            wgpu::Extent3d { width: side, height: side, depth_or_array_layers: LAYERS as u32 },
        );
        queue.submit([encoder.finish()]);
        let bytes = crate::gpu::readback::read_buffer(device, queue, &buffer, 0, buffer.size());
        bytes
            .chunks_exact(padded as usize)
            .flat_map(|row| row[..row_bytes as usize].chunks_exact(8))
            .map(|t| std::array::from_fn(|c| half::f16::from_le_bytes([t[2 * c], t[2 * c + 1]]).to_f32()))
            .collect()
    }
}
