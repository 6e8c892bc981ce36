//! The atlas: one R32Float `texture_2d_array` of TILE_SIDE x TILE_SIDE texels, one layer per
//! cache slot (label "cache.atlas"). Shaders read it with `textureLoad` (R32Float is not
//! filterable; bilinear filtering is done by hand from exact texel addresses, see
//! shaders/shared/tile_cache.wgsl); CPU tiles arrive by `queue.write_texture` of one layer, and
//! the procedural generator writes layers in compute through a write-only storage view.

use super::tile_layout::{TILE_SIDE, TILE_TEXELS};

/// Fewest layers an atlas may have: the 5 pinned tiles and room to stream.
pub const MIN_ATLAS_TILES: u32 = 8;

/// Why an atlas could not be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AtlasError {
    #[error("--cache-tiles {tiles} is fewer than {MIN_ATLAS_TILES}; give at least {MIN_ATLAS_TILES}")]
    TooFew { tiles: u32 },
    #[error("--cache-tiles {tiles} exceeds this device's max_texture_array_layers ({max}); give at most {max}")]
    TooMany { tiles: u32, max: u32 },
}

/// The atlas texture and its views.
pub struct Atlas {
    pub texture: wgpu::Texture,
    /// All layers as `texture_2d_array<f32>` (bindable as a texture or a storage texture).
    pub view: wgpu::TextureView,
    pub tiles: u32,
}

impl Atlas {
    /// Bytes of one layer.
    pub const LAYER_BYTES: u64 = TILE_TEXELS as u64 * 4;

    /// An atlas of `tiles` layers (contents undefined until written).
    pub fn new(device: &wgpu::Device, tiles: u32) -> Result<Atlas, AtlasError> {
        if tiles < MIN_ATLAS_TILES {
            return Err(AtlasError::TooFew { tiles });
        }
        let max = device.limits().max_texture_array_layers;
        if tiles > max {
            return Err(AtlasError::TooMany { tiles, max });
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("cache.atlas"),
            size: wgpu::Extent3d { width: TILE_SIDE, height: TILE_SIDE, depth_or_array_layers: tiles },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("cache.atlas"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        Ok(Atlas { texture, view, tiles })
    }

    /// Writes `heights_m` (TILE_TEXELS values, row-major as tile_layout says) into `layer`;
    /// ordered before the next submission.
    pub fn upload(&self, queue: &wgpu::Queue, layer: u32, heights_m: &[f32]) {
        assert_eq!(heights_m.len(), TILE_TEXELS, "a tile has TILE_TEXELS heights");
        assert!(layer < self.tiles, "layer {layer} of {}", self.tiles);
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x: 0, y: 0, z: layer },
                aspect: wgpu::TextureAspect::All,
            },
            bytemuck::cast_slice(heights_m),
            wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(TILE_SIDE * 4), rows_per_image: Some(TILE_SIDE) },
            wgpu::Extent3d { width: TILE_SIDE, height: TILE_SIDE, depth_or_array_layers: 1 },
        );
    }

    /// Reads `layer` back (tests and diagnostics; waits for the GPU).
    pub fn read_layer(&self, device: &wgpu::Device, queue: &wgpu::Queue, layer: u32) -> Vec<f32> {
        let bytes = crate::gpu::readback::read_texture_layer(device, queue, &self.texture, layer, (TILE_SIDE, TILE_SIDE), 4);
        bytemuck::pod_collect_to_vec(&bytes)
    }
}
