//! Offscreen colour + depth targets for headless rendering, and their read-back to an image.

use super::readback::read_texture_rgba8;

/// Colour format of every target the terrain and the globe are drawn into.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format (reverse Z: cleared to 0, nearer is greater).
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// A pipeline's test against the `DEPTH_FORMAT` buffer: `compare` (reverse Z: `Greater` keeps
/// the nearer), writing the depth or not.
pub fn depth_state(write: bool, compare: wgpu::CompareFunction) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        depth_compare: Some(compare),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// Format of an `OffscreenTarget`'s colour texture: the bytes of `COLOR_FORMAT` (sRGB-encoded),
/// stored as `Rgba8Unorm` so that compute passes can write it as a storage texture (an sRGB
/// format cannot be one); render passes draw into it through a `COLOR_FORMAT` view.
pub const OFFSCREEN_STORAGE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// A colour texture that can be read back and its depth buffer.
pub struct OffscreenTarget {
    pub width_px: u32,
    pub height_px: u32,
    /// `OFFSCREEN_STORAGE_FORMAT`, holding `COLOR_FORMAT`'s bytes.
    pub color: wgpu::Texture,
    /// The `COLOR_FORMAT` view render passes draw into.
    pub color_view: wgpu::TextureView,
    pub depth_view: wgpu::TextureView,
}

impl OffscreenTarget {
    /// Creates targets of `width_px` x `height_px`.
    pub fn new(device: &wgpu::Device, width_px: u32, height_px: u32) -> OffscreenTarget {
        let size = wgpu::Extent3d { width: width_px, height: height_px, depth_or_array_layers: 1 };
        use wgpu::TextureUsages as U;
        let color = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("target.color"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_STORAGE_FORMAT,
            usage: U::RENDER_ATTACHMENT | U::COPY_SRC | U::STORAGE_BINDING,
            view_formats: &[COLOR_FORMAT],
        });
        OffscreenTarget {
            width_px,
            height_px,
            color_view: color.create_view(&wgpu::TextureViewDescriptor {
                format: Some(COLOR_FORMAT),
                usage: Some(U::RENDER_ATTACHMENT),
                ..Default::default()
            }),
            depth_view: depth_view(device, width_px, height_px),
            color,
        }
    }

    /// The colour target as an image (blocks on the GPU).
    pub fn read_image(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> image::RgbaImage {
        let pixels = read_texture_rgba8(device, queue, &self.color, self.width_px, self.height_px);
        image::RgbaImage::from_raw(self.width_px, self.height_px, pixels).expect("read-back size matches")
    }
}

/// A `DEPTH_FORMAT` depth buffer of `width_px` x `height_px` for the draw pass (also for
/// applications that draw the terrain into their own pass).
pub fn depth_view(device: &wgpu::Device, width_px: u32, height_px: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("target.depth"),
            size: wgpu::Extent3d { width: width_px, height: height_px, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            // Read after the draw: the globe's depth pyramid for occlusion culling.
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// Begins the pass that draws terrain into `color` and `depth`: colour loaded as `load` says
/// and kept, depth cleared to 0 (reverse Z: far) and kept for the sky drawn after it.
pub fn begin_draw_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    color: &wgpu::TextureView,
    depth: &wgpu::TextureView,
    load: wgpu::LoadOp<wgpu::Color>,
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Store }),
            stencil_ops: None,
        }),
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}
