//! The choice between the hardware draw and the compute rasteriser (`--raster`), and what the
//! scenes' compute rasterisers share: the flat terrain's (`flat::raster`) and the globe's over the
//! bisector pool (`globe::pool_raster`) both rasterise small triangles in compute into a 64-bit
//! visibility buffer (shaders/shared/vis_buffer.wgsl), large ones by the hardware into it, then
//! shade every pixel in compute.

/// Which rasteriser draws the terrain (the flat terrain's, and the globe's over the bisector pool).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RasterPath {
    /// The hardware draw of every leaf (render.draw).
    #[default]
    Hardware,
    /// Small triangles in compute into a visibility buffer, large ones by the hardware into it.
    Compute,
    /// Compute where the adapter has the features and is a GPU (not a CPU rasteriser such as
    /// lavapipe), hardware elsewhere.
    Auto,
}

/// The device features the compute path needs.
pub const COMPUTE_FEATURES: wgpu::Features = wgpu::Features::SHADER_INT64.union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX);

/// Largest `large_px` (keeps the 1/256-px edge functions within i32).
pub const MAX_LARGE_PX: u32 = 64;
/// Default threshold in pixels above which a triangle goes to the hardware pass.
pub const DEFAULT_LARGE_PX: u32 = 32;
/// Bins of the triangle-size histogram (shared/vis_buffer.wgsl's RASTER_HISTOGRAM_BINS).
pub const HISTOGRAM_BINS: usize = 16;
/// Side in pixels of the square of pixels one workgroup of the compute shade covers
/// (terrain_shade_compute.wgsl's SHADE_TILE_PX).
pub const SHADE_TILE_PX: u32 = 8;

impl RasterPath {
    /// Whether this path draws in compute on a device with `features` of type `device_type`.
    pub fn uses_compute(self, features: wgpu::Features, device_type: wgpu::DeviceType) -> bool {
        match self {
            RasterPath::Hardware => false,
            RasterPath::Compute => features.contains(COMPUTE_FEATURES),
            RasterPath::Auto => features.contains(COMPUTE_FEATURES) && device_type != wgpu::DeviceType::Cpu,
        }
    }

    /// The path's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RasterPath::Hardware => "hardware",
            RasterPath::Compute => "compute",
            RasterPath::Auto => "auto",
        }
    }
}

/// The lower bound in pixels of histogram bin `bin` (bin 0 is under 1 px, bin k from 2^(k-1)).
pub fn histogram_bin_floor_px(bin: usize) -> u32 {
    if bin == 0 {
        0
    } else {
        1 << (bin - 1)
    }
}

/// Uniforms of the raster passes. Keep in sync with RasterUniforms in shaders/shared/vis_buffer.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RasterUniforms {
    pub size_px: [u32; 2],
    pub large_px: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<RasterUniforms>() == 16);

/// The format of the storage view through which the compute shade writes a target whose render
/// view has `color_format`, if it has one.
pub fn storage_format_for(color_format: wgpu::TextureFormat) -> Option<wgpu::TextureFormat> {
    (color_format.remove_srgb_suffix() == wgpu::TextureFormat::Rgba8Unorm).then_some(wgpu::TextureFormat::Rgba8Unorm)
}

/// The `Rgba8Unorm` storage view of the texture behind `color`, when it can be written by a
/// compute pass (`STORAGE_BINDING`, not the viewer's window surface); None otherwise.
pub fn storage_view_of(color: &wgpu::TextureView) -> Option<wgpu::TextureView> {
    let texture = color.texture();
    (texture.usage().contains(wgpu::TextureUsages::STORAGE_BINDING) && texture.format() == wgpu::TextureFormat::Rgba8Unorm).then(|| {
        texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("shade.target"),
            format: Some(texture.format()),
            usage: Some(wgpu::TextureUsages::STORAGE_BINDING),
            ..Default::default()
        })
    })
}

/// Adds to `requirements` what `path` needs: the compute rasteriser's features where present
/// (optional), and required under `--raster compute`, with an error that says so.
pub fn with_raster(mut requirements: crate::gpu::Requirements, path: RasterPath) -> crate::gpu::Requirements {
    requirements.optional_features |= COMPUTE_FEATURES;
    if path == RasterPath::Compute {
        for feature in COMPUTE_FEATURES.iter() {
            requirements =
                requirements.with_feature(feature, "--raster compute needs 64-bit storage-buffer atomics; use --raster hardware");
        }
    }
    requirements
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_the_features_and_the_adapter() {
        let (gpu, cpu) = (wgpu::DeviceType::DiscreteGpu, wgpu::DeviceType::Cpu);
        let none = wgpu::Features::empty();
        assert!(!RasterPath::Hardware.uses_compute(COMPUTE_FEATURES, gpu));
        assert!(RasterPath::Compute.uses_compute(COMPUTE_FEATURES, cpu));
        assert!(!RasterPath::Compute.uses_compute(wgpu::Features::SHADER_INT64, gpu), "needs the atomics too");
        assert!(RasterPath::Auto.uses_compute(COMPUTE_FEATURES, gpu));
        assert!(!RasterPath::Auto.uses_compute(COMPUTE_FEATURES, cpu), "a CPU adapter rasterises faster in its own pipeline");
        assert!(!RasterPath::Auto.uses_compute(none, gpu));
    }

    fn none() -> crate::gpu::Requirements {
        crate::gpu::Requirements {
            features: Vec::new(),
            optional_features: wgpu::Features::empty(),
            limits: Vec::new(),
            wanted_limits: Vec::new(),
        }
    }

    #[test]
    fn with_raster_requires_the_features_only_under_compute() {
        let limits = wgpu::Limits::default();
        let adapter = wgpu::Features::TIMESTAMP_QUERY;
        for path in [RasterPath::Hardware, RasterPath::Auto] {
            let requirements = with_raster(none(), path);
            assert!(requirements.check("old GPU", adapter, &limits).is_ok(), "{path:?} runs without 64-bit atomics");
            assert!(requirements.optional_features.contains(COMPUTE_FEATURES), "{path:?} asks for them where present");
        }
        let error = with_raster(none(), RasterPath::Compute).check("old GPU", adapter, &limits).unwrap_err().to_string();
        assert!(error.contains("SHADER_INT64") && error.contains("--raster compute") && !error.contains('\n'), "{error}");
    }

    #[test]
    fn histogram_bins_start_at_powers_of_two() {
        assert_eq!((0..5).map(histogram_bin_floor_px).collect::<Vec<_>>(), [0, 1, 2, 4, 8]);
    }
}
