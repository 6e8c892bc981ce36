//! Hybrid rasterisation of the flat terrain into a visibility buffer (`--raster compute`):
//!
//! ```text
//! clear vis -> raster.small (compute, per leaf) -> raster.bin (compute, per large or near-plane-
//!   crossing triangle: clipped, binned per 32x32-px tile) -> raster.wide (compute, per tile entry)
//!   -> raster.large (hardware, what overflowed the lists) -> shade (compute, per pixel)
//! ```
//!
//! The visibility buffer holds one u64 per viewport pixel: reverse-Z depth << 32 | leaf index, kept
//! by a 64-bit atomic max (nearest wins; 0 is empty). `raster.small` (shaders/
//! terrain_raster_small.wgsl) rasterises every triangle in front of the near plane whose screen
//! bounding box is at most `large_px` wide and tall with integer edge functions at 1/256 px; it
//! lists the larger ones and those crossing the near plane for `raster.bin` (shaders/
//! raster_bin.wgsl: one workgroup per triangle clips it against the near plane and the guard band
//! and reserves the tile entries of its pieces at once), which `raster.wide` (shaders/
//! raster_wide.wgsl: one workgroup per entry, the same snapping and edge test in i64) draws. What
//! finds a list full goes to `raster.large` (terrain_raster_large.wgsl): an indirect hardware draw
//! whose fragments write the same buffer by the same atomic max, so the paths meet per pixel under
//! one depth order with no depth buffer to merge. raster.small also stores
//! every leaf's three morphed corner heights (12 bytes per leaf), so that raster.large and `shade`
//! sample and morph nothing again: shade re-derives each pixel's triangle from its leaf's node id
//! and those heights and shades it with the draw's own WGSL (shared/vis_shade.wgsl over
//! shared/terrain_surface.wgsl). shade is a compute pass (terrain_shade_compute.wgsl, one thread
//! per pixel) that stores the colour, sRGB-encoded by hand, through an `Rgba8Unorm` storage view
//! of the target (`gpu::target::OffscreenTarget`'s texture is `Rgba8Unorm` with an sRGB render
//! view for that); a target without `STORAGE_BINDING` (the viewer's window surface) gets the same
//! shading as a full-screen fragment pass (terrain_shade.wgsl). The CPU twins of the triangle
//! passes are `rasterise_cpu` (raster.small), `clip_pieces_cpu` and `wide_setup_cpu` (raster.bin),
//! `wide_draw_cpu` (raster.wide), `rasterise_wide_cpu` (the three) and `rasterise_any_cpu` (all).
//!
//! Needs `SHADER_INT64` and `SHADER_INT64_ATOMIC_MIN_MAX` (storage-buffer u64 atomic max); the
//! hardware path (`terrain_draw`) needs neither.

use crate::cbt::gpu::GpuCbt;
use crate::schedule::FrameTarget;
use crate::shaders::SHADERS;

use crate::schedule::raster::{
    entry, large_pipeline, record_shade_compute, record_shade_fragment, shade_fragment_pipeline, storage_view_of, VisBuffers, WidePipelines,
};

pub use crate::schedule::raster::{
    histogram_bin_floor_px, storage_format_for, wide_inputs_size, wide_lists_size, RasterPath, RasterUniforms, WideInput, WideTriangle,
    CLIP_GUARD, COMPUTE_FEATURES, DEFAULT_LARGE_PX, HISTOGRAM_BINS, LARGE_ARGS_SIZE, MAX_LARGE_PX, SHADE_TILE_PX, WIDE_ARGS_OFFSET,
    WIDE_ENTRY_CAPACITY, WIDE_GUARD_PX, WIDE_INPUTS_HEADER, WIDE_PIECES, WIDE_TILE_PX, WIDE_TRIANGLE_CAPACITY,
};

/// What the raster passes read from the flat renderer.
pub struct RasterInputs<'a> {
    pub leaf_ids: &'a wgpu::Buffer,
    pub cbt: &'a GpuCbt,
    pub draw_uniforms: &'a wgpu::Buffer,
    pub heights: &'a wgpu::Texture,
    pub gradients: &'a wgpu::Texture,
}

/// The raster passes, their buffers and bind groups.
pub struct VisRaster {
    small: wgpu::ComputePipeline,
    large: wgpu::RenderPipeline,
    /// shade as a full-screen fragment pass, for targets that are not storage textures.
    shade: wgpu::RenderPipeline,
    /// shade as a compute pass writing the target as a storage texture (`None` when the colour
    /// format has no storage view: the fragment pass always shades).
    shade_compute: Option<wgpu::ComputePipeline>,
    clear_color: wgpu::Color,
    small_groups: [wgpu::BindGroup; 2],
    large_groups: [wgpu::BindGroup; 2],
    shade_groups: [wgpu::BindGroup; 2],
    shade_compute_groups: Option<[wgpu::BindGroup; 2]>,
    /// Bind groups over the visibility buffer (group 2), remade when the viewport changes.
    vis_groups: Option<VisGroups>,
    /// Three morphed corner heights per leaf, written by raster.small.
    corner_heights: wgpu::Buffer,
    /// The visibility buffer, the uniforms, the histogram and raster.large's arguments.
    buffers: VisBuffers,
}

/// The read-backs and the visibility buffer are the shared `VisBuffers`'.
impl std::ops::Deref for VisRaster {
    type Target = VisBuffers;
    fn deref(&self) -> &VisBuffers {
        &self.buffers
    }
}

/// The bind groups over the visibility buffer of one viewport size.
struct VisGroups {
    small: wgpu::BindGroup,
    large: wgpu::BindGroup,
    shade: wgpu::BindGroup,
    shade_compute: Option<wgpu::BindGroup>,
}

impl VisRaster {
    /// Builds the passes for colour targets of `color_format` over the renderer's `inputs`,
    /// sending triangles over `large_px` (at most MAX_LARGE_PX) to raster.bin; pixels without
    /// terrain get `clear_color`.
    pub fn new(
        device: &wgpu::Device,
        color_format: wgpu::TextureFormat,
        clear_color: wgpu::Color,
        inputs: &RasterInputs,
        large_px: u32,
    ) -> VisRaster {
        let small = SHADERS.compute_pipeline(device, "raster.small", "terrain_raster_small.wgsl", "raster_small", &[]);
        let large_module = SHADERS.create_module(device, "terrain_raster_large.wgsl");
        let large = large_pipeline(device, &large_module);
        let shade_module = SHADERS.create_module(device, "terrain_shade.wgsl");
        let shade = shade_fragment_pipeline(device, &shade_module, None, Default::default(), color_format);
        let shade_compute = storage_format_for(color_format).map(|_| {
            let constants = [
                ("SHADE_SRGB", if color_format.is_srgb() { 1.0 } else { 0.0 }),
                ("CLEAR_RED", clear_color.r),
                ("CLEAR_GREEN", clear_color.g),
                ("CLEAR_BLUE", clear_color.b),
            ];
            SHADERS.compute_pipeline(device, "shade", "terrain_shade_compute.wgsl", "cs_shade", &constants)
        });
        let buffers = VisBuffers::new(device, inputs.cbt.leaf_capacity as u64, large_px, wide_pipelines(device));
        let corner_heights = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("raster.corner_heights"),
            size: inputs.cbt.leaf_capacity as u64 * 12,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let height_view = inputs.heights.create_view(&Default::default());
        let gradient_view = inputs.gradients.create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shade.gradients"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let group = |label, layout: wgpu::BindGroupLayout, entries: &[wgpu::BindGroupEntry]| {
            device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout: &layout, entries })
        };
        let heights = wgpu::BindingResource::TextureView(&height_view);
        let small_groups = [
            group(
                "raster.small.leaves",
                small.get_bind_group_layout(0),
                &[
                    entry(0, inputs.leaf_ids.as_entire_binding()),
                    entry(1, inputs.draw_uniforms.as_entire_binding()),
                    entry(2, inputs.cbt.stats.as_entire_binding()),
                ],
            ),
            group("raster.small.heights", small.get_bind_group_layout(1), &[entry(0, heights)]),
        ];
        let large_groups = [
            group(
                "raster.large.leaves",
                large.get_bind_group_layout(0),
                &[
                    entry(0, buffers.large_ids.as_entire_binding()),
                    entry(1, inputs.draw_uniforms.as_entire_binding()),
                    entry(3, inputs.leaf_ids.as_entire_binding()),
                ],
            ),
            group("raster.large.heights", large.get_bind_group_layout(1), &[entry(3, corner_heights.as_entire_binding())]),
        ];
        let shade_groups_for = |layouts: [wgpu::BindGroupLayout; 2]| {
            let [uniforms, heights] = layouts;
            [
                group(
                    "shade.uniforms",
                    uniforms,
                    &[entry(1, inputs.draw_uniforms.as_entire_binding()), entry(3, inputs.leaf_ids.as_entire_binding())],
                ),
                group(
                    "shade.heights",
                    heights,
                    &[
                        entry(1, wgpu::BindingResource::TextureView(&gradient_view)),
                        entry(2, wgpu::BindingResource::Sampler(&sampler)),
                        entry(3, corner_heights.as_entire_binding()),
                    ],
                ),
            ]
        };
        let shade_groups = shade_groups_for([0, 1].map(|i| shade.get_bind_group_layout(i)));
        let shade_compute_groups = shade_compute.as_ref().map(|p| shade_groups_for([0, 1].map(|i| p.get_bind_group_layout(i))));
        VisRaster {
            small,
            large,
            shade,
            shade_compute,
            clear_color,
            small_groups,
            large_groups,
            shade_groups,
            shade_compute_groups,
            vis_groups: None,
            corner_heights,
            buffers,
        }
    }

    /// Sets the viewport of the next recorded frame (remaking the visibility buffer when it changed).
    pub fn set_view(&mut self, queue: &wgpu::Queue, size_px: (u32, u32)) {
        if self.buffers.set_view(queue, size_px) || self.vis_groups.is_none() {
            let buffers = &self.buffers;
            self.vis_groups = Some(VisGroups {
                small: buffers.small_group(&self.small.get_bind_group_layout(2), &[entry(5, self.corner_heights.as_entire_binding())]),
                large: buffers.vis_group("raster.large.vis", &self.large.get_bind_group_layout(2), &[]),
                shade: buffers.vis_group("shade.vis", &self.shade.get_bind_group_layout(2), &[]),
                shade_compute: self.shade_compute.as_ref().map(|p| buffers.vis_group("shade.vis", &p.get_bind_group_layout(2), &[])),
            });
        }
    }

    /// Whether `shade` runs as a compute pass into `color` (a view of a texture with
    /// `STORAGE_BINDING` and a storage format), rather than as the full-screen fragment pass.
    pub fn shades_in_compute(&self, color: &wgpu::TextureView) -> bool {
        let texture = color.texture();
        self.shade_compute.is_some()
            && texture.usage().contains(wgpu::TextureUsages::STORAGE_BINDING)
            && texture.format() == wgpu::TextureFormat::Rgba8Unorm
    }

    /// Records the frame's raster passes into `target` (after the decode): clear, raster.small,
    /// raster.bin, raster.wide, raster.large, shade; pixels without terrain get the clear colour.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, cbt: &GpuCbt, target: &FrameTarget) {
        let groups = self.vis_groups.as_ref().expect("set_view before record");
        let small_groups = [&self.small_groups[0], &self.small_groups[1], &groups.small];
        self.buffers.record_small(encoder, profiler, &self.small, &small_groups, &cbt.args);
        self.buffers.record_large(encoder, profiler, target, &self.large, &[&self.large_groups[0], &self.large_groups[1], &groups.large]);
        let compute = (self.shade_compute.as_ref(), self.shade_compute_groups.as_ref(), groups.shade_compute.as_ref());
        if let ((Some(pipeline), Some(shade_groups), Some(vis_group)), Some(view)) = (compute, storage_view_of(target.color)) {
            let output = pipeline.get_bind_group_layout(3);
            let output = self.buffers.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("shade.target"),
                layout: &output,
                entries: &[entry(0, wgpu::BindingResource::TextureView(&view))],
            });
            record_shade_compute(encoder, profiler, target, pipeline, &[&shade_groups[0], &shade_groups[1], vis_group, &output]);
            return;
        }
        let groups = [&self.shade_groups[0], &self.shade_groups[1], &groups.shade];
        record_shade_fragment(encoder, profiler, target, &self.shade, self.clear_color, &groups);
    }
}

/// raster.bin and raster.wide (shaders/raster_bin.wgsl, shaders/raster_wide.wgsl), as both scenes use them.
pub fn wide_pipelines(device: &wgpu::Device) -> WidePipelines {
    WidePipelines {
        bin: SHADERS.compute_pipeline(device, "raster.bin", "raster_bin.wgsl", "raster_bin", &[]),
        wide: SHADERS.compute_pipeline(device, "raster.wide", "raster_wide.wgsl", "raster_wide", &[]),
    }
}

/// CPU twin of shared/srgb.wgsl's `srgb_encoded` stored into an 8-bit unorm channel: the byte an
/// sRGB target holds for the linear value `linear` (clamped to [0, 1]), by the exact curve.
pub fn srgb_encoded_u8(linear: f32) -> u8 {
    let c = f64::from(linear).clamp(0.0, 1.0);
    let encoded = if c <= 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (encoded * 255.0).round() as u8
}

/// What `raster_triangle` (shaders/shared/vis_raster.wgsl) did with a triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriangleOutcome {
    /// A back face, degenerate, or outside the viewport.
    Dropped = 0,
    /// Rasterised into the visibility buffer.
    Drawn = 1,
    /// Larger than `large_px` (`rasterise_cpu`: listed for raster.bin), or outside raster.wide's guard band (`rasterise_wide_cpu`: left to the hardware).
    Large = 2,
}

/// The visibility buffer's word for node `id` at reverse-Z depth `depth` (shared/vis_buffer.wgsl).
pub fn vis_pack(depth: f32, id: u32) -> u64 {
    (u64::from(depth.to_bits()) << 32) | u64::from(id)
}

fn edge_function(a: [i32; 2], b: [i32; 2], p: [i32; 2]) -> i32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// A triangle's corners in pixels, and their box's lowest and highest corner.
type ScreenCorners = ([[f32; 2]; 3], [f32; 2], [f32; 2]);

/// The pixel positions of the corners of `clip` (in front of the near plane) on a viewport of
/// `size_px`, and their box; None for a back face or a triangle wholly off screen, which both
/// rasterisers drop.
fn screen_corners(size_px: (u32, u32), clip: &[[f32; 4]; 3]) -> Option<ScreenCorners> {
    let size = [size_px.0 as f32, size_px.1 as f32];
    let pixel = |c: &[f32; 4]| [(0.5 + 0.5 * (c[0] / c[3])) * size[0], (0.5 - 0.5 * (c[1] / c[3])) * size[1]];
    let (p0, p1, p2) = (pixel(&clip[0]), pixel(&clip[1]), pixel(&clip[2]));
    let (d1, d2) = ([p1[0] - p0[0], p1[1] - p0[1]], [p2[0] - p0[0], p2[1] - p0[1]]);
    if d1[0] * d2[1] - d1[1] * d2[0] >= 0.0 {
        return None;
    }
    let p_min = [0, 1].map(|i| p0[i].min(p1[i].min(p2[i])));
    let p_max = [0, 1].map(|i| p0[i].max(p1[i].max(p2[i])));
    if p_max[0] < 0.0 || p_max[1] < 0.0 || p_min[0] > size[0] || p_min[1] > size[1] {
        return None;
    }
    Some(([p0, p1, p2], p_min, p_max))
}

/// CPU twin of `raster_triangle`: rasterises triangle `id` with clip-space corners `clip` (in
/// front of the near plane) into `vis` (`size_px.0` x `size_px.1` words, row by row) unless its
/// screen bounding box exceeds `large_px`.
pub fn rasterise_cpu(vis: &mut [u64], size_px: (u32, u32), large_px: u32, clip: &[[f32; 4]; 3], id: u32) -> TriangleOutcome {
    let Some(([p0, p1, p2], p_min, p_max)) = screen_corners(size_px, clip) else {
        return TriangleOutcome::Dropped;
    };
    if (p_max[0] - p_min[0]).max(p_max[1] - p_min[1]) > large_px as f32 {
        return TriangleOutcome::Large;
    }
    let lo = [0, 1].map(|i| ((p_min[i] - 0.5).ceil() as i32).max(0));
    let hi = [0, 1].map(|i| ((p_max[i] - 0.5).floor() as i32).min([size_px.0, size_px.1][i] as i32 - 1));
    let base = [p_min[0].floor(), p_min[1].floor()];
    let snap = |p: [f32; 2]| [0, 1].map(|i| ((p[i] - base[i]) * 256.0).round_ties_even() as i32);
    let (a, b, c) = (snap(p0), snap(p2), snap(p1));
    let area = edge_function(a, b, c);
    if area <= 0 {
        return TriangleOutcome::Dropped;
    }
    let z = |c: &[f32; 4]| c[2] / c[3];
    let (za, zb, zc) = (z(&clip[0]), z(&clip[2]), z(&clip[1]));
    let inv_area = 1.0 / area as f32;
    let origin = [base[0] as i32 * 256 - 128, base[1] as i32 * 256 - 128];
    // Scanlines, as the shader: each row's covered span solved for exactly.
    let step_x = [-256 * (c[1] - b[1]), -256 * (a[1] - c[1]), -256 * (b[1] - a[1])];
    let step_y = [256 * (c[0] - b[0]), 256 * (a[0] - c[0]), 256 * (b[0] - a[0])];
    let p_lo = [lo[0] * 256 - origin[0], lo[1] * 256 - origin[1]];
    let mut row = [edge_function(b, c, p_lo), edge_function(c, a, p_lo), edge_function(a, b, p_lo)];
    for y in lo[1]..=hi[1] {
        let (mut first, mut last) = (0, hi[0] - lo[0]);
        for e in 0..3 {
            match step_x[e].cmp(&0) {
                std::cmp::Ordering::Greater => first = first.max(-row[e].div_euclid(step_x[e])),
                std::cmp::Ordering::Less => last = last.min(row[e].div_euclid(-step_x[e])),
                std::cmp::Ordering::Equal if row[e] < 0 => last = -1,
                std::cmp::Ordering::Equal => {}
            }
        }
        for k in first..=last {
            let w = [0, 1, 2].map(|e| row[e] + step_x[e] * k);
            let depth = (w[0] as f32 * za + w[1] as f32 * zb + w[2] as f32 * zc) * inv_area;
            let word = &mut vis[y as usize * size_px.0 as usize + (lo[0] + k) as usize];
            *word = (*word).max(vis_pack(depth, id));
        }
        row = [0, 1, 2].map(|e| row[e] + step_y[e]);
    }
    TriangleOutcome::Drawn
}

/// Whether clip-space point `p` lies in front of the near plane (reverse Z, infinite far plane:
/// clip z is the near distance); CPU twin of shared/vis_raster.wgsl's `raster_in_front`.
pub fn in_front_of_near_plane(p: &[f32; 4]) -> bool {
    p[3] > p[2]
}

/// Distance of clip-space point `p` to raster.bin's clipping plane `plane` (> 0 inside): 0 the
/// near plane, 1-4 the guard band's (CLIP_GUARD); CPU twin of `raster_plane_distance`.
pub fn plane_distance(p: &[f32; 4], plane: usize) -> f32 {
    match plane {
        0 => p[3] - p[2],
        1 => CLIP_GUARD * p[3] - p[0],
        2 => CLIP_GUARD * p[3] + p[0],
        3 => CLIP_GUARD * p[3] - p[1],
        _ => CLIP_GUARD * p[3] + p[1],
    }
}

/// Where edge p-q (one end inside `plane`) meets it, interpolated from the endpoint that orders
/// first (lexicographically), so that both directions give the same bits; CPU twin of
/// `raster_plane_crossing`.
pub fn plane_crossing_cpu(p: &[f32; 4], q: &[f32; 4], plane: usize) -> [f32; 4] {
    let before = |p: &[f32; 4], q: &[f32; 4]| p.iter().zip(q).find(|(a, b)| a != b).is_some_and(|(a, b)| a < b);
    let (a, b) = if before(q, p) { (q, p) } else { (p, q) };
    let (da, db) = (plane_distance(a, plane), plane_distance(b, plane));
    let t = da / (da - db);
    [0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * t)
}

/// The pieces of triangle `clip` inside the near plane and the guard band, in its drawing order:
/// the fan from the first corner of the clipped polygon (none, itself when wholly inside, or up to
/// WIDE_PIECES); CPU twin of `raster_clip` and raster.bin's fan.
pub fn clip_pieces_cpu(clip: &[[f32; 4]; 3]) -> Vec<[[f32; 4]; 3]> {
    let mut polygon = clip.to_vec();
    for plane in 0..5 {
        let mut out = Vec::with_capacity(polygon.len() + 1);
        for k in 0..polygon.len() {
            let (p, q) = (&polygon[k], &polygon[(k + 1) % polygon.len()]);
            let p_inside = plane_distance(p, plane) > 0.0;
            if p_inside {
                out.push(*p);
            }
            if p_inside != (plane_distance(q, plane) > 0.0) {
                out.push(plane_crossing_cpu(p, q, plane));
            }
        }
        polygon = out;
        if polygon.len() < 3 {
            return Vec::new();
        }
    }
    (2..polygon.len()).map(|k| [polygon[0], polygon[k - 1], polygon[k]]).collect()
}

fn edge_function_i64(a: [i32; 2], b: [i32; 2], p: [i32; 2]) -> i64 {
    let d = |u: i32, v: i32| i64::from(u) - i64::from(v);
    d(b[0], a[0]) * d(p[1], a[1]) - d(b[1], a[1]) * d(p[0], a[0])
}

/// CPU twin of `raster_wide_setup`: triangle `id` with clip-space corners `clip` (in front of the
/// near plane) set up for raster.wide on a viewport of `size_px`; None when a corner lies outside
/// the guard band (WIDE_GUARD_PX: the hardware draws it).
pub fn wide_setup_cpu(size_px: (u32, u32), clip: &[[f32; 4]; 3], id: u32) -> Option<WideTriangle> {
    let size = [size_px.0 as f32, size_px.1 as f32];
    let pixel = |c: &[f32; 4]| [(0.5 + 0.5 * (c[0] / c[3])) * size[0], (0.5 - 0.5 * (c[1] / c[3])) * size[1]];
    let (p0, p1, p2) = (pixel(&clip[0]), pixel(&clip[1]), pixel(&clip[2]));
    let p_min = [0, 1].map(|i| p0[i].min(p1[i].min(p2[i])));
    let p_max = [0, 1].map(|i| p0[i].max(p1[i].max(p2[i])));
    if !(p_min.iter().chain(&p_max).all(|v| v.abs() < WIDE_GUARD_PX)) {
        return None;
    }
    let base = [p_min[0].floor() as i32, p_min[1].floor() as i32];
    // Snapped where they are, then made relative: the same point for every triangle sharing a corner.
    let snap = |p: [f32; 2]| [0, 1].map(|i| (p[i] * 256.0).round_ties_even() as i32 - base[i] * 256);
    let z = |c: &[f32; 4]| c[2] / c[3];
    Some(WideTriangle {
        a: snap(p0),
        // Clockwise on screen (y down): b and c swapped to make the area positive.
        b: snap(p2),
        c: snap(p1),
        base_px: base,
        lo_px: [0, 1].map(|i| ((p_min[i] - 0.5).ceil() as i32).max(0)),
        hi_px: [0, 1].map(|i| ((p_max[i] - 0.5).floor() as i32).min([size_px.0, size_px.1][i] as i32 - 1)),
        z: [z(&clip[0]), z(&clip[2]), z(&clip[1])],
        id,
    })
}

/// Twice the area of `t` in 1/256-px units squared (<= 0: a back face or degenerate, nothing to draw).
pub fn wide_area(t: &WideTriangle) -> i64 {
    edge_function_i64(t.a, t.b, t.c)
}

/// CPU twin of raster.bin's binning of piece `t` (`raster_wide_tile_touched` over the tiles of its
/// pixel box): the WIDE_TILE_PX-square screen tiles (x, y) in which some pixel centre of the box
/// lies on the inner side of each edge, row by row.
pub fn wide_tiles_cpu(t: &WideTriangle) -> Vec<[u32; 2]> {
    let side = WIDE_TILE_PX as i32;
    let mut tiles = Vec::new();
    for tile_y in t.lo_px[1] / side..=t.hi_px[1] / side {
        for tile_x in t.lo_px[0] / side..=t.hi_px[0] / side {
            let lo = [(tile_x * side).max(t.lo_px[0]), (tile_y * side).max(t.lo_px[1])];
            let hi = [(tile_x * side + side - 1).min(t.hi_px[0]), (tile_y * side + side - 1).min(t.hi_px[1])];
            let centre = |v: [i32; 2]| [0, 1].map(|i| (v[i] - t.base_px[i]) * 256 + 128);
            let (p_lo, p_hi) = (centre(lo), centre(hi));
            let corners = [t.a, t.b, t.c];
            let touched = (0..3).all(|e| {
                let (a, b) = (corners[(e + 1) % 3], corners[(e + 2) % 3]);
                let p = [if b[1] < a[1] { p_hi[0] } else { p_lo[0] }, if b[0] > a[0] { p_hi[1] } else { p_lo[1] }];
                edge_function_i64(a, b, p) >= 0
            });
            if touched {
                tiles.push([tile_x as u32, tile_y as u32]);
            }
        }
    }
    tiles
}

/// CPU twin of raster.wide (`raster_wide_pixel` over the tiles raster.bin binned, `wide_tiles_cpu`):
/// draws `t` into `vis` (`size_px.0` wide); false when its area is not positive (nothing drawn).
pub fn wide_draw_cpu(vis: &mut [u64], size_px: (u32, u32), t: &WideTriangle) -> bool {
    let area = wide_area(t);
    if area <= 0 {
        return false;
    }
    let inv_area = 1.0 / area as f32;
    let side = WIDE_TILE_PX as i32;
    for [tile_x, tile_y] in wide_tiles_cpu(t) {
        let (x0, y0) = (tile_x as i32 * side, tile_y as i32 * side);
        let pixels = (y0.max(t.lo_px[1])..=(y0 + side - 1).min(t.hi_px[1]))
            .flat_map(|y| (x0.max(t.lo_px[0])..=(x0 + side - 1).min(t.hi_px[0])).map(move |x| (x, y)));
        for (x, y) in pixels {
            let p = [(x - t.base_px[0]) * 256 + 128, (y - t.base_px[1]) * 256 + 128];
            let w = [edge_function_i64(t.b, t.c, p), edge_function_i64(t.c, t.a, p), edge_function_i64(t.a, t.b, p)];
            if w.iter().any(|&w| w < 0) {
                continue;
            }
            let depth = (w[0] as f32 * t.z[0] + w[1] as f32 * t.z[1] + w[2] as f32 * t.z[2]) * inv_area;
            let word = &mut vis[y as usize * size_px.0 as usize + x as usize];
            *word = (*word).max(vis_pack(depth, t.id));
        }
    }
    true
}

/// CPU twin of raster.bin and raster.wide (with raster.small's tests before them): rasterises
/// triangle `id` with clip-space corners `clip` of any size into `vis` with `rasterise_cpu`'s
/// snapping and edge test in i64. Wholly in front of the near plane, back faces and triangles off
/// the viewport are dropped as `rasterise_cpu` drops them; the triangle is clipped against the
/// near plane and the guard band (`clip_pieces_cpu`) and each piece drawn. `Large` when a piece's
/// corner lies outside raster.wide's guard band (WIDE_GUARD_PX; only NaN or viewports over 2^15
/// px): nothing drawn, the hardware draws the whole triangle.
pub fn rasterise_wide_cpu(vis: &mut [u64], size_px: (u32, u32), clip: &[[f32; 4]; 3], id: u32) -> TriangleOutcome {
    if clip.iter().all(in_front_of_near_plane) && screen_corners(size_px, clip).is_none() {
        return TriangleOutcome::Dropped;
    }
    let pieces: Option<Vec<WideTriangle>> = clip_pieces_cpu(clip).iter().map(|piece| wide_setup_cpu(size_px, piece, id)).collect();
    let Some(pieces) = pieces else {
        return TriangleOutcome::Large;
    };
    let mut drawn = false;
    for t in &pieces {
        drawn |= wide_draw_cpu(vis, size_px, t);
    }
    if drawn {
        TriangleOutcome::Drawn
    } else {
        TriangleOutcome::Dropped
    }
}

/// CPU twin of the compute rasteriser on one triangle (shared/raster_small.wgsl's
/// `raster_any_triangle`, then raster.bin and raster.wide): wholly behind the near plane, dropped;
/// wholly in front and at most `large_px`, `rasterise_cpu`; else `rasterise_wide_cpu` (`Large`:
/// left to the hardware, nothing drawn).
pub fn rasterise_any_cpu(vis: &mut [u64], size_px: (u32, u32), large_px: u32, clip: &[[f32; 4]; 3], id: u32) -> TriangleOutcome {
    let in_front = clip.iter().filter(|p| in_front_of_near_plane(p)).count();
    if in_front == 0 {
        return TriangleOutcome::Dropped;
    }
    if in_front == 3 {
        let outcome = rasterise_cpu(vis, size_px, large_px, clip, id);
        if outcome != TriangleOutcome::Large {
            return outcome;
        }
    }
    rasterise_wide_cpu(vis, size_px, clip, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_is_required_only_when_asked_for() {
        let settings = |raster| crate::flat::RenderSettings { raster, max_depth: 16, ..Default::default() };
        let limits = wgpu::Limits { max_texture_dimension_2d: 8192, ..wgpu::Limits::default() };
        let adapter = wgpu::Features::TIMESTAMP_QUERY;
        for path in [RasterPath::Hardware, RasterPath::Auto] {
            let requirements = crate::flat::requirements(&settings(path), 129);
            assert!(requirements.check("old GPU", adapter, &limits).is_ok(), "{path:?} runs without 64-bit atomics");
            assert!(requirements.optional_features.contains(COMPUTE_FEATURES), "{path:?} asks for them where present");
        }
        let error =
            crate::flat::requirements(&settings(RasterPath::Compute), 129).check("old GPU", adapter, &limits).unwrap_err().to_string();
        assert!(
            error.contains("old GPU") && error.contains("SHADER_INT64") && error.contains("--raster compute") && !error.contains('\n'),
            "{error}"
        );
    }

    /// Pixels whose centre is inside or on the edges of the snapped triangle, by testing every
    /// pixel of the viewport (what the scanlines must visit).
    fn brute_force_coverage(size_px: (u32, u32), clip: &[[f32; 4]; 3]) -> Vec<bool> {
        let pixel = |c: &[f32; 4]| [(0.5 + 0.5 * (c[0] / c[3])) * size_px.0 as f32, (0.5 - 0.5 * (c[1] / c[3])) * size_px.1 as f32];
        let p = [pixel(&clip[0]), pixel(&clip[2]), pixel(&clip[1])];
        let base = [0, 1].map(|i| p[0][i].min(p[1][i].min(p[2][i])).floor());
        let q = p.map(|v| [0, 1].map(|i| ((v[i] - base[i]) * 256.0).round_ties_even() as i64));
        let edge = |a: [i64; 2], b: [i64; 2], p: [i64; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
        (0..size_px.0 * size_px.1)
            .map(|i| {
                let centre = [0, 1].map(|k| [i % size_px.0, i / size_px.0][k] as i64 * 256 + 128 - base[k] as i64 * 256);
                edge(q[1], q[2], centre) >= 0 && edge(q[2], q[0], centre) >= 0 && edge(q[0], q[1], centre) >= 0
            })
            .collect()
    }

    #[test]
    fn the_scanlines_cover_what_testing_every_pixel_covers() {
        use rand::{Rng, SeedableRng};
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let size = (40, 30);
        let mut drawn = 0;
        for _ in 0..400 {
            let centre = [rng.random_range(-5.0..45.0f32), rng.random_range(-5.0..35.0f32)];
            let extent = rng.random_range(0.5..20.0f32);
            let clip: [[f32; 4]; 3] = std::array::from_fn(|_| {
                let p = [centre[0] + rng.random_range(-extent..extent), centre[1] + rng.random_range(-extent..extent)];
                [p[0] / 20.0 - 1.0, 1.0 - p[1] / 15.0, 0.5, 1.0]
            });
            let mut vis = vec![0u64; 1200];
            if rasterise_cpu(&mut vis, size, MAX_LARGE_PX, &clip, 7) != TriangleOutcome::Drawn {
                continue;
            }
            drawn += 1;
            let covered: Vec<bool> = vis.iter().map(|&w| w != 0).collect();
            assert_eq!(covered, brute_force_coverage(size, &clip), "seed {seed}, triangle {clip:?}");
        }
        assert!(drawn > 100, "seed {seed}: only {drawn} triangles drawn");
    }

    #[test]
    fn the_wide_twin_draws_what_the_scanlines_draw_and_covers_large_triangles_exactly() {
        use rand::{Rng, SeedableRng};
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let size = (40, 30);
        let (mut small, mut large) = (0, 0);
        for _ in 0..1000 {
            let centre = [rng.random_range(-5.0..45.0f32), rng.random_range(-5.0..35.0f32)];
            let extent = if rng.random_bool(0.5) { rng.random_range(0.5..20.0f32) } else { rng.random_range(20.0..400.0f32) };
            let clip: [[f32; 4]; 3] = std::array::from_fn(|_| {
                let p = [centre[0] + rng.random_range(-extent..extent), centre[1] + rng.random_range(-extent..extent)];
                [p[0] / 20.0 - 1.0, 1.0 - p[1] / 15.0, rng.random_range(0.01..1.0f32), 1.0]
            });
            let mut wide = vec![0u64; 1200];
            let outcome = rasterise_wide_cpu(&mut wide, size, &clip, 7);
            let mut scan = vec![0u64; 1200];
            match rasterise_cpu(&mut scan, size, MAX_LARGE_PX, &clip, 7) {
                TriangleOutcome::Large => {
                    assert_eq!(outcome, TriangleOutcome::Drawn, "seed {seed}, triangle {clip:?}");
                    large += 1;
                    let covered: Vec<bool> = wide.iter().map(|&w| w != 0).collect();
                    assert_eq!(covered, brute_force_coverage(size, &clip), "seed {seed}, triangle {clip:?}");
                }
                other => {
                    small += usize::from(other == TriangleOutcome::Drawn);
                    assert_eq!((outcome, &wide), (other, &scan), "seed {seed}, triangle {clip:?}");
                }
            }
        }
        assert!(small > 100 && large > 60, "seed {seed}: {small} small and {large} large triangles drawn");
        // Beyond the guard band: clipped to it and drawn (over the whole viewport), or on a
        // viewport over 2^15 px wide, where the band's edge lies beyond raster.wide's, the hardware's.
        let far = [[-1.0, 1.0, 0.5, 1.0], [-1.0, -1.0e6, 0.5, 1.0], [1.0e6, -1.0, 0.5, 1.0]];
        let mut vis = vec![0u64; 1200];
        assert_eq!(rasterise_wide_cpu(&mut vis, size, &far, 7), TriangleOutcome::Drawn);
        assert!(vis.iter().all(|&w| w != 0), "the whole viewport covered");
        assert_eq!(clip_pieces_cpu(&far).len(), 2, "cut by the guard band's planes x <= 256 w and -y <= 256 w");
        assert_eq!(rasterise_wide_cpu(&mut vec![0u64; 40_000 * 2], (40_000, 2), &far, 7), TriangleOutcome::Large);
    }

    /// Twice the signed area of triangle `c` projected, times the signs of its w: det(x, y, w).
    fn homogeneous_orientation(c: &[[f32; 4]; 3]) -> f64 {
        let v = c.map(|p| [p[0], p[1], p[3]].map(f64::from));
        v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0])
            + v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0])
    }

    #[test]
    fn clipping_gives_an_edge_one_crossing_either_way_and_keeps_the_winding() {
        use rand::{Rng, SeedableRng};
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (mut crossings, mut split) = (0, 0);
        for _ in 0..2000 {
            let reach = if rng.random_bool(0.5) { 2.0 } else { 1000.0 };
            let clip: [[f32; 4]; 3] = std::array::from_fn(|_| {
                let w = rng.random_range(-1.0..2.0f32);
                [rng.random_range(-reach..reach) * w.abs(), rng.random_range(-reach..reach) * w.abs(), 0.1, w]
            });
            for k in 0..3 {
                let (p, q) = (&clip[k], &clip[(k + 1) % 3]);
                for plane in 0..5 {
                    if (plane_distance(p, plane) > 0.0) != (plane_distance(q, plane) > 0.0) {
                        crossings += 1;
                        let (a, b) = (plane_crossing_cpu(p, q, plane), plane_crossing_cpu(q, p, plane));
                        assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "seed {seed}: edge {p:?} {q:?}, plane {plane}");
                        let scale = p.iter().chain(q).fold(0.0f32, |m, v| m.max(v.abs()));
                        assert!(plane_distance(&a, plane).abs() <= 1e-5 * scale * CLIP_GUARD, "seed {seed}: {a:?} off plane {plane}");
                    }
                }
            }
            let pieces = clip_pieces_cpu(&clip);
            assert!(pieces.len() <= WIDE_PIECES as usize);
            split += usize::from(pieces.len() > 2);
            let orientation = homogeneous_orientation(&clip);
            for piece in &pieces {
                assert!(piece.iter().all(|p| p[3] > 0.0), "seed {seed}: a piece behind the camera {piece:?}");
                let o = homogeneous_orientation(piece);
                // Pieces too thin to have a sign in f32 are dropped by the snapped area anyway.
                if o.abs() > 1e-6 * orientation.abs() {
                    assert_eq!(o > 0.0, orientation > 0.0, "seed {seed}: piece {piece:?} of {clip:?} turned over");
                }
            }
        }
        assert!(crossings > 1000 && split > 50, "seed {seed}: {crossings} crossings, {split} triangles in over two pieces");
    }

    #[test]
    fn the_wide_twin_bins_the_tiles_its_edges_touch_and_loses_no_pixel() {
        use rand::{Rng, SeedableRng};
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let size = (160, 128);
        let (mut boxes, mut binned) = (0, 0);
        for _ in 0..300 {
            // Long thin triangles cross many tiles of their box that they do not touch.
            let (a, b) = (
                [rng.random_range(-50.0..210.0f32), rng.random_range(-50.0..180.0f32)],
                [rng.random_range(-50.0..210.0f32), rng.random_range(-50.0..180.0f32)],
            );
            let c = [a[0] + rng.random_range(-12.0..12.0), a[1] + rng.random_range(-12.0..12.0)];
            let mut ndc = |p: [f32; 2]| [p[0] / 80.0 - 1.0, 1.0 - p[1] / 64.0, rng.random_range(0.01..1.0f32), 1.0];
            let mut clip = [ndc(a), ndc(b), ndc(c)];
            let Some(mut t) = wide_setup_cpu(size, &clip, 7) else { unreachable!("within the guard band") };
            if wide_area(&t) < 0 {
                clip.swap(1, 2);
                t = wide_setup_cpu(size, &clip, 7).unwrap();
            }
            if wide_area(&t) <= 0 || t.lo_px[0] > t.hi_px[0] || t.lo_px[1] > t.hi_px[1] {
                continue;
            }
            let side = WIDE_TILE_PX as i32;
            boxes += (t.hi_px[0] / side - t.lo_px[0] / side + 1) * (t.hi_px[1] / side - t.lo_px[1] / side + 1);
            binned += wide_tiles_cpu(&t).len() as i32;
            let mut vis = vec![0u64; 160 * 128];
            assert!(wide_draw_cpu(&mut vis, size, &t));
            let covered: Vec<bool> = vis.iter().map(|&w| w != 0).collect();
            assert_eq!(covered, brute_force_coverage(size, &clip), "seed {seed}, triangle {clip:?}");
        }
        assert!(binned * 3 < boxes * 2, "seed {seed}: {binned} of {boxes} tiles binned");
    }

    #[test]
    fn the_cpu_twin_covers_pixel_centres_on_edges_and_keeps_the_nearest() {
        // A right triangle over pixel centres (0.5, 0.5) .. (3.5, 3.5) in an 8x8 viewport, w = 1;
        // drawing order counter-clockwise in y-up coordinates.
        let ndc = |x: f32, y: f32, z: f32| [x / 4.0 - 1.0, 1.0 - y / 4.0, z, 1.0];
        let far = [ndc(0.5, 0.5, 0.2), ndc(0.5, 3.5, 0.2), ndc(3.5, 3.5, 0.2)];
        let near = [ndc(0.5, 0.5, 0.5), ndc(0.5, 3.5, 0.5), ndc(3.5, 3.5, 0.5)];
        let mut vis = vec![0u64; 64];
        assert_eq!(rasterise_cpu(&mut vis, (8, 8), 8, &far, 1), TriangleOutcome::Drawn);
        assert_eq!(rasterise_cpu(&mut vis, (8, 8), 8, &near, 2), TriangleOutcome::Drawn);
        let covered: Vec<(usize, usize)> = (0..64).filter(|&i| vis[i] != 0).map(|i| (i % 8, i / 8)).collect();
        // Lower-left half including the diagonal: 1 + 2 + 3 + 4 pixels.
        assert_eq!(covered.len(), 10, "{covered:?}");
        assert!(covered.iter().all(|&(x, y)| x <= y && y < 4));
        assert!(vis.iter().filter(|&&w| w != 0).all(|&w| w as u32 == 2), "the nearer triangle wins");
        let mut back = [far[0], far[2], far[1]];
        assert_eq!(rasterise_cpu(&mut vis, (8, 8), 8, &back, 3), TriangleOutcome::Dropped, "back face");
        back = [ndc(0.5, 0.5, 0.2), ndc(0.5, 9.5, 0.2), ndc(9.5, 9.5, 0.2)];
        assert_eq!(rasterise_cpu(&mut vis, (8, 8), 8, &back, 4), TriangleOutcome::Large);
    }
}
