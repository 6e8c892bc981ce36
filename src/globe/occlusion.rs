//! Occlusion culling for the globe over the bisector pool: terrain hidden behind nearer terrain
//! in the last drawn frame neither splits nor stays split, as terrain outside the frustum.
//!
//! ```text
//! globe.hzb      after the draw: the hierarchical depth buffer (HZB) of the frame, level 0 at
//!                half the viewport (2 x 2 pixels per texel, a power of two on each side), each
//!                texel the farthest depth (reverse Z: the minimum) of its pixels, each level the
//!                minimum of 2 x 2 of the one below (shaders/globe_hzb.wgsl; twin `hzb_levels`);
//!                level 0 from the draw's depth texture, or on the compute rasteriser's path
//!                (`--raster compute`) from its visibility buffer's depth bits (twin `vis_depths`)
//! the criterion  the pool's classify passes (shaders/shared/pool_criterion_globe.wgsl): a ball
//!                seen by the HZB's camera (this frame's ball shifted by the camera's move) whose
//!                nearest point, less a margin, lies behind the farthest depth of every texel
//!                its bounding rectangle touches is occluded: error 0 (twin `is_occluded`)
//! ```
//! Why it is safe: a ball holds its patch of terrain, and the last frame drew that patch
//! (at its own or a neighbouring level, or morphing) within `MARGIN_HYPOTENUSES` hypotenuses
//! plus the data's error bound of it, so a visible patch always finds its own drawn pixels no
//! farther than its nearest point less the margin, and is never occluded by itself. What is
//! outside the HZB frame's viewport is unknown: a ball reaching it is never occluded. A patch
//! that comes into view from behind a ridge is coarse for the frames its refinement takes (one
//! level per split frame), as one that comes into view at the frustum's edge.
//! The view from a ship's bridge at a mountainous coast is mostly hidden terrain: 1080p at 1 px
//! error wanted more than the pool's 2^20 slots without it (docs/BENCHMARKS.md).

use crate::gpu::profiled_compute_pass;
use crate::shaders::SHADERS;
use glam::{DVec3, Mat4, Vec3};

/// The margin in hypotenuses of the ball's triangle that the drawn surface may stray from the
/// ball (a neighbour one level coarser, a morphing vertex, rounding), plus the data's error bound.
pub const MARGIN_HYPOTENUSES: f32 = 8.0;

/// Keep in sync with Occlusion in shaders/shared/globe_occlusion.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OcclusionFrame {
    pub view_from_relative: [[f32; 4]; 4],
    pub camera_shift_m: [f32; 4],
    pub projection: [f32; 4],
    pub viewport: [u32; 4],
}
const _: () = assert!(std::mem::size_of::<OcclusionFrame>() == 112);

/// The view of a drawn frame, as the HZB built from its depth needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawnView {
    /// The rotation from camera-relative metres to view space (looking down -z).
    pub view_from_relative: Mat4,
    /// The camera's earth-centred position in metres.
    pub camera_m: DVec3,
    /// The projection's x and y scales (1 / (aspect tan(fov_y / 2)), 1 / tan(fov_y / 2)).
    pub scale: [f32; 2],
    /// The near plane in metres (reverse Z: depth = near / distance along the view).
    pub near_m: f32,
    pub viewport_px: (u32, u32),
}

impl OcclusionFrame {
    /// Nothing occluded (no frame drawn yet, or culling off).
    pub fn off() -> OcclusionFrame {
        bytemuck::Zeroable::zeroed()
    }

    /// The uniforms that test this frame's balls (seen from `camera_m`) against the HZB of the
    /// frame `drawn`, whose HZB has `levels` mip levels.
    pub fn of(drawn: &DrawnView, camera_m: DVec3, levels: u32) -> OcclusionFrame {
        let shift = (camera_m - drawn.camera_m).as_vec3();
        OcclusionFrame {
            view_from_relative: drawn.view_from_relative.to_cols_array_2d(),
            camera_shift_m: shift.extend(0.0).to_array(),
            projection: [drawn.scale[0], drawn.scale[1], drawn.near_m, MARGIN_HYPOTENUSES],
            viewport: [drawn.viewport_px.0, drawn.viewport_px.1, levels, 1],
        }
    }
}

/// One level of the HZB: `size` texels, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct HzbLevel {
    pub size: (u32, u32),
    pub texels: Vec<f32>,
}

/// The HZB's level-0 size for a viewport: half of each side rounded up to a power of two.
pub fn hzb_size(viewport_px: (u32, u32)) -> (u32, u32) {
    let half = |n: u32| (n.max(1).next_power_of_two() / 2).max(1);
    (half(viewport_px.0), half(viewport_px.1))
}

/// Levels one globe.hzb dispatch writes (shaders/globe_hzb.wgsl: a 16 x 16 block and three
/// levels above it in workgroup memory).
const HZB_CHUNK_LEVELS: u32 = 4;

/// Workgroups of the globe.hzb dispatch whose first level is `first`: one per 16 x 16 block.
fn hzb_chunk_groups(size: (u32, u32), first: u32) -> (u32, u32) {
    ((size.0 >> first).max(1).div_ceil(16), (size.1 >> first).max(1).div_ceil(16))
}

/// The number of mip levels down to 1 x 1.
pub fn hzb_level_count(size: (u32, u32)) -> u32 {
    32 - size.0.max(size.1).leading_zeros()
}

/// The CPU twin of globe.hzb: the levels built from `depth` (row-major, `depth_width` pixels a
/// row) of which the first `viewport_px` pixels are the frame's.
pub fn hzb_levels(depth: &[f32], depth_width: usize, viewport_px: (u32, u32)) -> Vec<HzbLevel> {
    let size = hzb_size(viewport_px);
    let base = HzbLevel {
        size,
        texels: (0..size.0 * size.1)
            .map(|i| {
                let (x, y) = (i % size.0, i / size.0);
                let mut farthest = 1.0f32;
                for k in 0..4 {
                    let (px, py) = (2 * x + (k & 1), 2 * y + (k >> 1));
                    let d = if px < viewport_px.0 && py < viewport_px.1 { depth[py as usize * depth_width + px as usize] } else { 0.0 };
                    farthest = farthest.min(d);
                }
                farthest
            })
            .collect(),
    };
    let mut levels = vec![base];
    for level in 1..hzb_level_count(size) {
        let source = &levels[level as usize - 1];
        let size = ((size.0 >> level).max(1), (size.1 >> level).max(1));
        let texels = (0..size.0 * size.1)
            .map(|i| {
                let (x, y) = (i % size.0, i / size.0);
                (0..4)
                    .map(|k| {
                        let (sx, sy) = ((2 * x + (k & 1)).min(source.size.0 - 1), (2 * y + (k >> 1)).min(source.size.1 - 1));
                        source.texels[(sy * source.size.0 + sx) as usize]
                    })
                    .fold(1.0f32, f32::min)
            })
            .collect();
        levels.push(HzbLevel { size, texels });
    }
    levels
}

/// The depths in a visibility buffer's words (shared/vis_buffer.wgsl: reverse-Z depth bits << 32 |
/// id, 0 where no triangle is), as `hzb_levels` reads a depth texture's: the CPU twin of
/// globe.hzb's level 0 on the compute rasteriser's path.
pub fn vis_depths(words: &[u64]) -> Vec<f32> {
    words.iter().map(|&w| f32::from_bits((w >> 32) as u32)).collect()
}

/// The tangents bounding a circle of radius `r` around (c, z) seen from the origin (z > r).
fn tangent_range(c: f64, z: f64, r: f64) -> (f64, f64) {
    let t = (c * c + z * z - r * r).max(0.0).sqrt();
    let (lo_den, hi_den) = (z * t + c * r, z * t - c * r);
    let lo = if lo_den > 0.0 { (c * t - r * z) / lo_den } else { f64::NEG_INFINITY };
    let hi = if hi_den > 0.0 { (c * t + r * z) / hi_den } else { f64::INFINITY };
    (lo, hi)
}

/// The CPU twin (f64) of `globe_is_occluded`: whether the ball at `centre` (this frame's
/// camera-relative metres) of `radius_m`, with `margin_m`, lay behind what the HZB's frame drew.
/// `widen_px` widens its rectangle (the GPU: 1 px) and `depth_scale` scales the farthest depth it
/// is compared with (1: the GPU's test); tests move both to find decisions that rounding may flip.
pub fn is_occluded(
    levels: &[HzbLevel],
    frame: &OcclusionFrame,
    centre: Vec3,
    radius_m: f32,
    margin_m: f32,
    widen_px: f64,
    depth_scale: f64,
) -> bool {
    if frame.viewport[3] == 0 {
        return false;
    }
    let view = Mat4::from_cols_array_2d(&frame.view_from_relative).as_dmat4();
    let shift = DVec3::new(frame.camera_shift_m[0].into(), frame.camera_shift_m[1].into(), frame.camera_shift_m[2].into());
    let c = view.transform_point3(centre.as_dvec3() + shift);
    let (z, r) = (-c.z, f64::from(radius_m));
    let near = f64::from(frame.projection[2]);
    let nearest = z - r - f64::from(margin_m);
    if nearest <= near {
        return false;
    }
    let (x0, x1) = tangent_range(c.x, z, r);
    let (y0, y1) = tangent_range(c.y, z, r);
    let (x0, x1) = (x0 * f64::from(frame.projection[0]), x1 * f64::from(frame.projection[0]));
    let (y0, y1) = (y0 * f64::from(frame.projection[1]), y1 * f64::from(frame.projection[1]));
    if x0 < -1.0 || x1 > 1.0 || y0 < -1.0 || y1 > 1.0 {
        return false;
    }
    let size = (f64::from(frame.viewport[0]), f64::from(frame.viewport[1]));
    let pixel = |v: f64, last: u32| (v.max(0.0) as u32).min(last);
    let last = (frame.viewport[0] - 1, frame.viewport[1] - 1);
    let lo = (pixel((x0 * 0.5 + 0.5) * size.0 - widen_px, last.0), pixel((0.5 - 0.5 * y1) * size.1 - widen_px, last.1));
    let hi = (pixel((x1 * 0.5 + 0.5) * size.0 + widen_px, last.0), pixel((0.5 - 0.5 * y0) * size.1 + widen_px, last.1));
    // The finest level whose texels cover the rectangle with at most 2 x 2 (a level-l texel
    // covers 2^(l+1) pixels on a side), as the GPU chooses it.
    let mut level = 0;
    while level + 1 < frame.viewport[2]
        && ((hi.0 >> (level + 1)) - (lo.0 >> (level + 1)) > 1 || (hi.1 >> (level + 1)) - (lo.1 >> (level + 1)) > 1)
    {
        level += 1;
    }
    let texels = &levels[level as usize];
    let at = |v: u32, side: u32| (v >> (level + 1)).min(side - 1);
    let mut farthest = 1.0f32;
    for y in [at(lo.1, texels.size.1), at(hi.1, texels.size.1)] {
        for x in [at(lo.0, texels.size.0), at(hi.0, texels.size.0)] {
            farthest = farthest.min(texels.texels[(y * texels.size.0 + x) as usize]);
        }
    }
    near / nearest < f64::from(farthest) * depth_scale
}

/// The HZB on the GPU, its build pass and what the pool's passes bind at @group(1) to test it.
pub struct GpuOcclusion {
    device: wgpu::Device,
    from_depth: wgpu::ComputePipeline,
    /// Level 0 from the compute rasteriser's visibility buffer.
    from_vis: wgpu::ComputePipeline,
    from_level: wgpu::ComputePipeline,
    viewport: wgpu::Buffer,
    frame: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    sized: Option<SizedHzb>,
    /// The view of the frame whose depth the HZB holds, once one was built.
    drawn: std::cell::Cell<Option<DrawnView>>,
    /// The view of the frame being recorded (its draw builds the next HZB).
    recording: Option<DrawnView>,
}

/// The HZB's texture for one viewport size, and the bind groups over it.
struct SizedHzb {
    viewport_px: (u32, u32),
    texture: wgpu::Texture,
    /// The first chunk's storage views (levels 0..4, a placeholder past the last) and its
    /// uniform: its bind group is made when the source is known (`record_levels`).
    first_chunk: ([wgpu::TextureView; 4], wgpu::Buffer),
    /// from_level's bind group and workgroup counts of every later chunk of four levels.
    chunk_groups: Vec<(wgpu::BindGroup, (u32, u32))>,
    /// The pool passes' @group(1).
    group: wgpu::BindGroup,
}

impl GpuOcclusion {
    /// The build pipelines and the @group(1) layout; the texture comes with the first viewport.
    pub fn new(device: &wgpu::Device) -> GpuOcclusion {
        let uniform = |label: &str, size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globe.occlusion"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let mut occlusion = GpuOcclusion {
            device: device.clone(),
            from_depth: SHADERS.compute_pipeline(device, "globe.hzb", "globe_hzb.wgsl", "from_depth", &[]),
            from_vis: SHADERS.compute_pipeline(device, "globe.hzb", "globe_hzb.wgsl", "from_vis", &[]),
            from_level: SHADERS.compute_pipeline(device, "globe.hzb", "globe_hzb.wgsl", "from_level", &[]),
            viewport: wgpu::util::DeviceExt::create_buffer_init(
                device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("globe.hzb_viewport"),
                    contents: bytemuck::cast_slice(&[1u32, 1, 0, 0]),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                },
            ),
            frame: uniform("globe.occlusion", std::mem::size_of::<OcclusionFrame>() as u64),
            layout,
            sized: None,
            drawn: std::cell::Cell::new(None),
            recording: None,
        };
        // A 1 x 1 pyramid until the first view, so that passes recorded before it can bind it
        // (the uniforms are zero: nothing occluded).
        occlusion.sized = Some(occlusion.sized_for((1, 1)));
        occlusion
    }

    /// The layout of what the pool's passes bind at @group(1).
    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// The pool passes' @group(1).
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.sized().group
    }

    /// The HZB's texture, R32Float with mips (sized for the last `set_view`): tests read it back.
    pub fn texture(&self) -> &wgpu::Texture {
        &self.sized().texture
    }

    fn sized(&self) -> &SizedHzb {
        self.sized.as_ref().expect("GpuOcclusion::new sizes the pyramid")
    }

    /// Writes the uniforms that test this frame's balls, seen by `view` (culling when `enabled`)
    /// against the HZB of the last drawn frame, and sizes the HZB for `view`'s viewport (a new size
    /// starts an empty HZB: nothing occluded until a frame is drawn).
    pub fn set_view(&mut self, queue: &wgpu::Queue, view: DrawnView, enabled: bool) {
        if self.sized.as_ref().map(|s| s.viewport_px) != Some(view.viewport_px) {
            self.sized = Some(self.sized_for(view.viewport_px));
            self.drawn.set(None);
            let size = [view.viewport_px.0, view.viewport_px.1, 0, 0];
            queue.write_buffer(&self.viewport, 0, bytemuck::bytes_of(&size));
        }
        let levels = hzb_level_count(hzb_size(view.viewport_px));
        let frame = match self.drawn.get() {
            Some(drawn) if enabled => OcclusionFrame::of(&drawn, view.camera_m, levels),
            _ => OcclusionFrame::off(),
        };
        queue.write_buffer(&self.frame, 0, bytemuck::bytes_of(&frame));
        self.recording = Some(view);
    }

    fn sized_for(&self, viewport_px: (u32, u32)) -> SizedHzb {
        let device = &self.device;
        let size = hzb_size(viewport_px);
        let levels = hzb_level_count(size);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("globe.hzb"),
            size: wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
            mip_level_count: levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let mip = |level: u32| {
            texture.create_view(&wgpu::TextureViewDescriptor { base_mip_level: level, mip_level_count: Some(1), ..Default::default() })
        };
        // Levels past the last go to a 1 x 1 placeholder the shader never writes.
        let placeholder = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("globe.hzb_placeholder"),
            size: wgpu::Extent3d { width: 1, height: 1, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::STORAGE_BINDING,
            view_formats: &[],
        });
        let outputs = |first: u32| -> [wgpu::TextureView; 4] {
            std::array::from_fn(|k| {
                if first + (k as u32) < levels {
                    mip(first + k as u32)
                } else {
                    placeholder.create_view(&Default::default())
                }
            })
        };
        let chunk_uniform = |first: u32| {
            wgpu::util::DeviceExt::create_buffer_init(
                device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("globe.hzb_chunk"),
                    contents: bytemuck::cast_slice(&[(levels - first).min(HZB_CHUNK_LEVELS), 0, 0, 0]),
                    usage: wgpu::BufferUsages::UNIFORM,
                },
            )
        };
        let chunk_groups = (HZB_CHUNK_LEVELS..levels)
            .step_by(HZB_CHUNK_LEVELS as usize)
            .map(|first| {
                let views = outputs(first);
                let uniform = chunk_uniform(first);
                let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("globe.hzb"),
                    layout: &self.from_level.get_bind_group_layout(0),
                    entries: &[
                        wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&mip(first - 1)) },
                        wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&views[0]) },
                        wgpu::BindGroupEntry { binding: 5, resource: wgpu::BindingResource::TextureView(&views[1]) },
                        wgpu::BindGroupEntry { binding: 6, resource: wgpu::BindingResource::TextureView(&views[2]) },
                        wgpu::BindGroupEntry { binding: 7, resource: wgpu::BindingResource::TextureView(&views[3]) },
                        wgpu::BindGroupEntry { binding: 8, resource: uniform.as_entire_binding() },
                    ],
                });
                (group, hzb_chunk_groups(size, first))
            })
            .collect();
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globe.occlusion"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&texture.create_view(&Default::default())),
                },
                wgpu::BindGroupEntry { binding: 1, resource: self.frame.as_entire_binding() },
            ],
        });
        SizedHzb { viewport_px, first_chunk: (outputs(0), chunk_uniform(0)), texture, chunk_groups, group }
    }

    /// Records globe.hzb from `depth` (the draw's depth attachment, TEXTURE_BINDING, at least the
    /// viewport's size): the frame `set_view` last saw becomes the one the next frame tests against.
    pub fn record_build(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, depth: &wgpu::TextureView) {
        self.record_levels(encoder, profiler, &self.from_depth, (0, wgpu::BindingResource::TextureView(depth)));
    }

    /// Records globe.hzb from `vis`, the compute rasteriser's visibility buffer of the viewport
    /// `set_view` last saw (one u64 per pixel, row by row), as `record_build` does from a depth
    /// texture.
    pub fn record_build_from_vis(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, vis: &wgpu::Buffer) {
        self.record_levels(encoder, profiler, &self.from_vis, (4, vis.as_entire_binding()));
    }

    /// globe.hzb: level 0 by `base` reading `source` (binding, resource), then every level above.
    fn record_levels(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        profiler: &wgpu_profiler::GpuProfiler,
        base: &wgpu::ComputePipeline,
        source: (u32, wgpu::BindingResource),
    ) {
        let Some(view) = self.recording else { return };
        let sized = self.sized();
        let (views, uniform) = &sized.first_chunk;
        let base_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globe.hzb"),
            layout: &base.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry { binding: source.0, resource: source.1 },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&views[0]) },
                wgpu::BindGroupEntry { binding: 3, resource: self.viewport.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 5, resource: wgpu::BindingResource::TextureView(&views[1]) },
                wgpu::BindGroupEntry { binding: 6, resource: wgpu::BindingResource::TextureView(&views[2]) },
                wgpu::BindGroupEntry { binding: 7, resource: wgpu::BindingResource::TextureView(&views[3]) },
                wgpu::BindGroupEntry { binding: 8, resource: uniform.as_entire_binding() },
            ],
        });
        let size = hzb_size(sized.viewport_px);
        profiled_compute_pass(profiler, encoder, "globe.hzb", |pass| {
            pass.set_pipeline(base);
            pass.set_bind_group(0, &base_group, &[]);
            let (x, y) = hzb_chunk_groups(size, 0);
            pass.dispatch_workgroups(x, y, 1);
            pass.set_pipeline(&self.from_level);
            for (group, (x, y)) in &sized.chunk_groups {
                pass.set_bind_group(0, group, &[]);
                pass.dispatch_workgroups(*x, *y, 1);
            }
        });
        self.drawn.set(Some(view));
    }
}
