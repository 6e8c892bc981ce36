//! The globe's atmosphere (issue 17 item 1) after Hillaire 2020, "A Scalable and Production Ready
//! Sky and Atmosphere Rendering Technique": four look-up tables built in compute passes, the sky
//! drawn behind the terrain, and the terrain's light and aerial perspective.
//!
//! ```text
//! atmosphere.transmittance        256 x 64: transmittance to the top by (height, view zenith)  \ when the
//! atmosphere.multiple_scattering  32 x 32: Psi_ms by (height, sun zenith), 64 rays a texel    / parameters change
//! atmosphere.sky_view             192 x 108: the sky around the camera, by (sun-relative azimuth, latitude)
//! atmosphere.aerial_perspective   32 x 32 x 32 froxels: light scattered towards the camera and the
//!                                 transmittance, slices spread quadratically from where the ray
//!                                 enters the atmosphere over `viewport.z` km (the horizon's reach);
//!                                 from 40 km up over each column's reach to the ground, densest there
//! atmosphere.sky                  a full-screen pass after the globe's draw where it left the far depth: sky-view table + sun disc
//!                                 (shaders/shared/atmosphere_sky.wgsl; the compute rasteriser's shade calls it instead)
//! globe draw (@group(1))          sunlight through the transmittance table, sky light, aerial perspective;
//!                                 the sea reflects the sky-view table (shaders/shared/globe_sea.wgsl)
//! sea.waves, sea.mips             the sea's wave tiles when the waves' time changes (src/globe/sea/tiles.rs,
//!                                 recorded before the tables, bound at the draw's bindings 5-7)
//! ```
//! Distances are in km, planet-centred; the atmosphere is a sphere whose bottom is the globe's
//! (`EARTH_RADIUS_M`). The camera's height is sent separately (from f64), and ray-sphere distances
//! are formed from heights, so a camera 1 m above the sea is exact enough in f32. The tables hold
//! light for a sun of illuminance 1; `sun_illuminance` and `exposure` scale and tone-map it.
//! CPU twin: `cpu` (f64).

pub mod cpu;

use crate::globe::camera::GlobeCamera;
use crate::globe::sea::tiles::SeaTiles;
use crate::globe::sea::SeaSettings;
use crate::globe::EARTH_RADIUS_M;
use crate::gpu::profiled_compute_pass;
use crate::schedule::FrameTarget;
use crate::shaders::SHADERS;
use glam::{DMat4, DVec3};

/// Sizes of the transmittance table (width: view zenith, height: height).
pub const TRANSMITTANCE_SIZE: (u32, u32) = (256, 64);
/// Side of the multiple-scattering table.
pub const MULTIPLE_SCATTERING_SIZE: u32 = 32;
/// Sizes of the sky-view table (ATMOSPHERE_SKY_VIEW_SIZE in shaders/shared/atmosphere.wgsl).
pub const SKY_VIEW_SIZE: (u32, u32) = (192, 108);
/// Froxels of the aerial-perspective volume (x, y across the view, z slices).
pub const AERIAL_PERSPECTIVE_SIZE: (u32, u32, u32) = (32, 32, 32);
/// Format of every table.
const TABLE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// The highest terrain the aerial-perspective volume must reach beyond the horizon (km).
const HIGHEST_TERRAIN_KM: f64 = 9.0;
/// Camera height (km) from which every column of the aerial-perspective volume ends its slices at
/// the ground (`AtmosphereUniforms::viewport` w): far above the terrain, where the horizon's
/// reach spread the slices tens of km apart at the ground and drew rings on the sea.
pub const GROUND_FITTED_SLICES_FROM_KM: f64 = 40.0;

/// The atmosphere's physical parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AtmosphereParams {
    pub bottom_radius_km: f64,
    pub top_radius_km: f64,
    pub rayleigh_scattering_per_km: [f64; 3],
    pub rayleigh_scale_height_km: f64,
    pub mie_scattering_per_km: [f64; 3],
    pub mie_extinction_per_km: [f64; 3],
    pub mie_scale_height_km: f64,
    /// Asymmetry g of the Mie phase function (Cornette-Shanks).
    pub mie_phase_g: f64,
    /// Ozone absorption where its density peaks (1/km).
    pub ozone_absorption_per_km: [f64; 3],
    /// Height of the ozone's peak (km).
    pub ozone_peak_km: f64,
    /// Ozone density, a tent: linear and constant terms below the peak, then above it.
    pub ozone_density: [f64; 4],
    /// Albedo of the ground in the multiple scattering's bounce.
    pub ground_albedo: [f64; 3],
    pub multiple_scattering_factor: f64,
    pub sun_angular_radius_rad: f64,
    /// The sun's illuminance (the tables hold light for 1).
    pub sun_illuminance: [f64; 3],
    /// Display = 1 - exp(-exposure * luminance).
    pub exposure: f64,
}

impl AtmosphereParams {
    /// Hillaire's Earth (SetupEarthAtmosphere of his reference code), 100 km thick over a bottom
    /// scaled to the globe's radius.
    pub fn earth() -> AtmosphereParams {
        let bottom_radius_km = EARTH_RADIUS_M / 1000.0;
        AtmosphereParams {
            bottom_radius_km,
            top_radius_km: bottom_radius_km + 100.0,
            rayleigh_scattering_per_km: [0.005802, 0.013558, 0.033100],
            rayleigh_scale_height_km: 8.0,
            mie_scattering_per_km: [0.003996; 3],
            mie_extinction_per_km: [0.004440; 3],
            mie_scale_height_km: 1.2,
            mie_phase_g: 0.8,
            ozone_absorption_per_km: [0.000650, 0.001881, 0.000085],
            ozone_peak_km: 25.0,
            ozone_density: [1.0 / 15.0, -2.0 / 3.0, -1.0 / 15.0, 8.0 / 3.0],
            ground_albedo: [0.0; 3],
            multiple_scattering_factor: 1.0,
            sun_angular_radius_rad: 0.004675,
            sun_illuminance: [1.0; 3],
            exposure: 6.0,
        }
    }

    /// The thickness of the atmosphere (km).
    pub fn thickness_km(&self) -> f64 {
        self.top_radius_km - self.bottom_radius_km
    }
}

/// Keep in sync with Atmosphere in shaders/shared/atmosphere.wgsl (which documents the fields).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AtmosphereUniforms {
    pub radii: [f32; 4],
    pub rayleigh: [f32; 4],
    pub mie_scattering: [f32; 4],
    pub mie_extinction: [f32; 4],
    pub ozone: [f32; 4],
    pub ozone_density: [f32; 4],
    pub ground_albedo: [f32; 4],
    pub sun_illuminance: [f32; 4],
    pub camera_km: [f32; 4],
    pub sun_direction: [f32; 4],
    pub relative_from_clip: [[f32; 4]; 4],
    pub viewport: [f32; 4],
    pub sea: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<AtmosphereUniforms>() == 256);

/// What the view-dependent uniforms are made of.
#[derive(Clone, Copy, Debug)]
pub struct AtmosphereView {
    /// The camera, planet-centred, in metres.
    pub camera_m: DVec3,
    /// Camera-relative metres -> clip space (the globe frame's `clip_from_relative`).
    pub clip_from_relative: [[f32; 4]; 4],
    pub size_px: (u32, u32),
    /// Unit vector towards the sun.
    pub sun_direction: DVec3,
    pub enabled: bool,
    /// The true camera, earth-centred metres on the ellipsoid's terms (the origin of
    /// `clip_from_relative`; the sky pass's scissor).
    pub camera_true_m: DVec3,
}

impl AtmosphereView {
    /// The view of `camera` with the globe frame's projection `clip_from_relative`. The
    /// atmosphere is a sphere of radius EARTH_RADIUS_M, the terrain sits on the WGS84 ellipsoid
    /// (up to 14 km inside or 7 km outside that sphere): the camera is placed on the sphere at
    /// its geodetic height along its geodetic vertical, so its height in the air and its
    /// horizon are the ellipsoid's there.
    pub fn of_camera(camera: &GlobeCamera, clip_from_relative: [[f32; 4]; 4], size_px: (u32, u32), sun: DVec3, enabled: bool) -> Self {
        let (up, height_m) = crate::globe::ellipsoid::normal_and_height_m(camera.position_m);
        AtmosphereView {
            camera_m: up * (EARTH_RADIUS_M + height_m),
            clip_from_relative,
            size_px,
            sun_direction: sun,
            enabled,
            camera_true_m: camera.position_m,
        }
    }
}

/// Depth (m) below the ellipsoid's polar radius of the sphere no drawn surface reaches inside
/// (heights are drawn at 0 m or above; the mesh's chords sag below the surface by metres).
const SKY_SPHERE_MARGIN_M: f64 = 5000.0;
/// Pixels the sky pass's scissor reaches beyond the pixels whose rays miss that sphere.
const SKY_SCISSOR_PAD_PX: u32 = 2;

/// The sky pass's scissor (x, y, width, height in pixels; width or height 0: no pixel) for
/// `view`: the bounding box of the pixels whose rays miss the sphere under every drawn surface,
/// the only pixels the terrain can leave to the sky. A row (or column) of pixel centres lies on
/// a line of the image plane, which crosses the convex cone of rays that hit the sphere in one
/// interval: it holds a missing pixel exactly when one of its two end pixels' rays misses.
pub fn sky_scissor_px(view: &AtmosphereView) -> (u32, u32, u32, u32) {
    let (width, height) = view.size_px;
    let relative_from_clip = DMat4::from_cols_array_2d(&view.clip_from_relative.map(|c| c.map(f64::from))).inverse();
    let camera = view.camera_true_m;
    let radius_m = crate::globe::ellipsoid::WGS84_B_M - SKY_SPHERE_MARGIN_M;
    if camera.length() <= radius_m {
        return (0, 0, width, height);
    }
    // Whether the ray through pixel centre (x, y) misses the sphere (as atmosphere_view_direction).
    let misses = |x: u32, y: u32| {
        let ndc = (2.0 * (x as f64 + 0.5) / width as f64 - 1.0, 1.0 - 2.0 * (y as f64 + 0.5) / height as f64);
        let p = relative_from_clip * glam::DVec4::new(ndc.0, ndc.1, 1.0, 1.0);
        let dir = (p.truncate() / p.w).normalize();
        let along = camera.dot(dir);
        along >= 0.0 || camera.length_squared() - along * along > radius_m * radius_m
    };
    let rows: Vec<u32> = (0..height).filter(|&y| misses(0, y) || misses(width - 1, y)).collect();
    let columns: Vec<u32> = (0..width).filter(|&x| misses(x, 0) || misses(x, height - 1)).collect();
    let (Some(&top), Some(&bottom), Some(&left), Some(&right)) = (rows.first(), rows.last(), columns.first(), columns.last()) else {
        return (0, 0, 0, 0);
    };
    let (x0, y0) = (left.saturating_sub(SKY_SCISSOR_PAD_PX), top.saturating_sub(SKY_SCISSOR_PAD_PX));
    let (x1, y1) = ((right + 1 + SKY_SCISSOR_PAD_PX).min(width), (bottom + 1 + SKY_SCISSOR_PAD_PX).min(height));
    (x0, y0, x1 - x0, y1 - y0)
}

/// The depth (km) the aerial-perspective volume spans beyond the ray's entry into the atmosphere:
/// from inside, to the horizon and the highest terrain behind it; from space, the longest chord.
pub fn aerial_perspective_depth_km(params: &AtmosphereParams, camera_height_km: f64) -> f64 {
    let r = params.bottom_radius_km;
    let chord = 2.0 * (params.top_radius_km.powi(2) - r * r).sqrt();
    if camera_height_km >= params.thickness_km() {
        return chord;
    }
    let horizon = |h: f64| (h.max(0.0) * (2.0 * r + h.max(0.0))).sqrt();
    (horizon(camera_height_km) + horizon(HIGHEST_TERRAIN_KM)).clamp(1.0, chord)
}

/// The uniforms of `params` seen from `view`, with the sea of `sea`.
pub fn uniforms(params: &AtmosphereParams, view: &AtmosphereView, sea: &SeaSettings) -> AtmosphereUniforms {
    let p = params;
    let v4 = |a: [f64; 3], w: f64| [a[0] as f32, a[1] as f32, a[2] as f32, w as f32];
    let camera_km = view.camera_m / 1000.0;
    let height_km = (view.camera_m.length() - p.bottom_radius_km * 1000.0) / 1000.0;
    let clip = DMat4::from_cols_array_2d(&view.clip_from_relative.map(|c| c.map(f64::from)));
    AtmosphereUniforms {
        radii: [p.bottom_radius_km as f32, p.top_radius_km as f32, p.mie_phase_g as f32, p.multiple_scattering_factor as f32],
        rayleigh: v4(p.rayleigh_scattering_per_km, -1.0 / p.rayleigh_scale_height_km),
        mie_scattering: v4(p.mie_scattering_per_km, -1.0 / p.mie_scale_height_km),
        mie_extinction: v4(p.mie_extinction_per_km, 0.0),
        ozone: v4(p.ozone_absorption_per_km, p.ozone_peak_km),
        ozone_density: p.ozone_density.map(|x| x as f32),
        ground_albedo: v4(p.ground_albedo, p.sun_angular_radius_rad),
        sun_illuminance: v4(p.sun_illuminance, p.exposure),
        camera_km: v4(camera_km.to_array(), height_km),
        sun_direction: v4(view.sun_direction.normalize().to_array(), if view.enabled { 1.0 } else { 0.0 }),
        relative_from_clip: clip.inverse().as_mat4().to_cols_array_2d(),
        viewport: [
            view.size_px.0 as f32,
            view.size_px.1 as f32,
            aerial_perspective_depth_km(p, height_km) as f32,
            if height_km >= GROUND_FITTED_SLICES_FROM_KM { 1.0 } else { 0.0 },
        ],
        sea: [if sea.enabled { 1.0 } else { 0.0 }, sea.time_s as f32, 0.0, 0.0],
    }
}

/// One of the atmosphere's look-up tables (for read-backs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Transmittance,
    MultipleScattering,
    SkyView,
    AerialPerspective,
}

/// The atmosphere's tables, passes and bindings on the GPU.
pub struct Atmosphere {
    pub params: AtmosphereParams,
    /// Draw the sky and apply the atmosphere (off: space's colour and plain sun light).
    pub enabled: bool,
    /// The sea's waves and their time (src/globe/sea.rs).
    pub sea: SeaSettings,
    /// The sea's wave tiles (bound in the draw's @group(1)).
    pub sea_tiles: SeaTiles,
    uniforms: wgpu::Buffer,
    tables: [wgpu::Texture; 4],
    passes: [(wgpu::ComputePipeline, wgpu::BindGroup); 4],
    sky: (wgpu::RenderPipeline, wgpu::BindGroup),
    draw_layout: wgpu::BindGroupLayout,
    draw_group: wgpu::BindGroup,
    /// Whether the transmittance and multiple-scattering tables were built for `params`.
    tables_current: bool,
    /// The last view's size and the sky pass's scissor for it (`sky_scissor_px`).
    sky_scissor_px: ((u32, u32), (u32, u32, u32, u32)),
    built_for: Option<AtmosphereParams>,
}

/// Labels of the compute pipelines, in the order they run (the last two share the pass
/// `VIEWS_LABEL`).
pub const PASS_LABELS: [&str; 4] =
    ["atmosphere.transmittance", "atmosphere.multiple_scattering", "atmosphere.sky_view", "atmosphere.aerial_perspective"];
/// Label of the one timed pass that holds the sky-view and aerial-perspective dispatches: they
/// do not depend on each other, so in one pass the GPU overlaps them (two small dispatches,
/// each too small to fill an H100, cost 0.019 + 0.021 ms as two passes).
pub const VIEWS_LABEL: &str = "atmosphere.views";
/// Label of the sky's render pass.
pub const SKY_LABEL: &str = "atmosphere.sky";

impl Atmosphere {
    /// The tables and passes of `params`, drawing the sky into targets of `color_format`.
    pub fn new(device: &wgpu::Device, params: AtmosphereParams, color_format: wgpu::TextureFormat) -> Atmosphere {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("atmosphere.uniforms"),
            size: std::mem::size_of::<AtmosphereUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let table = |label: &str, (w, h, d): (u32, u32, u32), dimension| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d { width: w, height: h, depth_or_array_layers: d },
                mip_level_count: 1,
                sample_count: 1,
                dimension,
                format: TABLE_FORMAT,
                usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        };
        let d2 = wgpu::TextureDimension::D2;
        let m = MULTIPLE_SCATTERING_SIZE;
        let tables = [
            table("atmosphere.transmittance", (TRANSMITTANCE_SIZE.0, TRANSMITTANCE_SIZE.1, 1), d2),
            table("atmosphere.multiple_scattering", (m, m, 1), d2),
            table("atmosphere.sky_view", (SKY_VIEW_SIZE.0, SKY_VIEW_SIZE.1, 1), d2),
            table("atmosphere.aerial_perspective", AERIAL_PERSPECTIVE_SIZE, wgpu::TextureDimension::D3),
        ];
        let views: Vec<wgpu::TextureView> = tables.iter().map(|t| t.create_view(&Default::default())).collect();
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("atmosphere.sampler"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        // Every pass binds what it uses of: 0 uniforms, 1 transmittance, 2 multiple scattering
        // (the sky's: sky view), 3 sampler, 4-7 the table it writes (derived layouts).
        let pass = |label: &str, shader: &str, entry: &str, reads: &[usize], writes: usize| {
            let pipeline = SHADERS.compute_pipeline(device, label, shader, entry, &[]);
            let mut entries = vec![
                wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::Sampler(&sampler) },
                wgpu::BindGroupEntry { binding: 4 + writes as u32, resource: wgpu::BindingResource::TextureView(&views[writes]) },
            ];
            for &table in reads {
                entries
                    .push(wgpu::BindGroupEntry { binding: 1 + table as u32, resource: wgpu::BindingResource::TextureView(&views[table]) });
            }
            if reads.is_empty() {
                // The transmittance pass uses neither the sampler nor the uniforms' tables.
                entries.retain(|e| e.binding != 3);
            }
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &entries,
            });
            (pipeline, group)
        };
        let passes = [
            pass(PASS_LABELS[0], "atmosphere_luts.wgsl", "transmittance", &[], 0),
            pass(PASS_LABELS[1], "atmosphere_luts.wgsl", "multiple_scattering", &[0], 1),
            pass(PASS_LABELS[2], "atmosphere_views.wgsl", "sky_view", &[0, 1], 2),
            pass(PASS_LABELS[3], "atmosphere_views.wgsl", "aerial_perspective", &[0, 1], 3),
        ];
        let sky = sky_pipeline(device, color_format, &uniforms, &views, &sampler);
        let draw_layout = draw_layout(device);
        let sea_tiles = SeaTiles::new(device);
        let mut entries = vec![
            wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&views[0]) },
            wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&views[3]) },
            wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::Sampler(&sampler) },
            wgpu::BindGroupEntry { binding: 4, resource: wgpu::BindingResource::TextureView(&views[2]) },
        ];
        entries.extend(sea_tiles.draw_group_entries());
        let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("atmosphere.draw"),
            layout: &draw_layout,
            entries: &entries,
        });
        Atmosphere {
            params,
            enabled: true,
            sea: SeaSettings::default(),
            sea_tiles,
            uniforms,
            tables,
            passes,
            sky,
            draw_layout,
            draw_group,
            tables_current: false,
            sky_scissor_px: ((0, 0), (0, 0, 0, 0)),
            built_for: None,
        }
    }

    /// The layout of the globe draws' @group(1) (shared/atmosphere_apply.wgsl).
    pub fn draw_layout(&self) -> &wgpu::BindGroupLayout {
        &self.draw_layout
    }

    /// The globe draws' @group(1).
    pub fn draw_bind_group(&self) -> &wgpu::BindGroup {
        &self.draw_group
    }

    /// Writes the uniforms of `view` (with `enabled` and `params` as they are now).
    pub fn set_view(&mut self, queue: &wgpu::Queue, view: &AtmosphereView) -> AtmosphereUniforms {
        let view = AtmosphereView { enabled: view.enabled && self.enabled, ..*view };
        let u = uniforms(&self.params, &view, &self.sea);
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&u));
        self.sea_tiles.set_view(queue, view.camera_true_m, &self.sea);
        self.sky_scissor_px = (view.size_px, sky_scissor_px(&view));
        if self.built_for != Some(self.params) {
            self.tables_current = false;
        }
        u
    }

    /// Records the sea's wave tiles when their time changed (with the atmosphere on or off), then
    /// the table passes: transmittance and multiple scattering when the parameters changed since
    /// they were built, then the sky view and the aerial perspective.
    pub fn record_tables(&mut self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler) {
        self.sea_tiles.record(encoder, profiler);
        if !self.enabled {
            return;
        }
        let m = MULTIPLE_SCATTERING_SIZE;
        let (ap_x, ap_y, ap_z) = AERIAL_PERSPECTIVE_SIZE;
        let dispatches = [
            (TRANSMITTANCE_SIZE.0.div_ceil(8), TRANSMITTANCE_SIZE.1.div_ceil(8), 1),
            (m, m, 1),
            (SKY_VIEW_SIZE.0.div_ceil(8), SKY_VIEW_SIZE.1.div_ceil(8), 1),
            (ap_x.div_ceil(4), ap_y.div_ceil(4), ap_z.div_ceil(4)),
        ];
        let first = if self.tables_current { 2 } else { 0 };
        let dispatch = |pass: &mut wgpu::ComputePass<'_>, index: usize| {
            let (pipeline, group) = &self.passes[index];
            let (x, y, z) = dispatches[index];
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, z);
        };
        for (index, label) in PASS_LABELS.iter().enumerate().take(2).skip(first) {
            profiled_compute_pass(profiler, encoder, label, |pass| dispatch(pass, index));
        }
        profiled_compute_pass(profiler, encoder, VIEWS_LABEL, |pass| {
            dispatch(pass, 2);
            dispatch(pass, 3);
        });
        self.tables_current = true;
        self.built_for = Some(self.params);
    }

    /// Records "atmosphere.sky": the sky over the pixels of `target` whose depth is the far
    /// plane's (0, reverse Z: those the draw before it left); false (nothing recorded) with the
    /// atmosphere off.
    pub fn record_sky(&self, encoder: &mut wgpu::CommandEncoder, profiler: &wgpu_profiler::GpuProfiler, target: &FrameTarget) -> bool {
        if !self.enabled {
            return false;
        }
        let query = crate::gpu::pass_query(profiler, SKY_LABEL, encoder);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(SKY_LABEL),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target.color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: target.depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Discard }),
                    stencil_ops: None,
                }),
                timestamp_writes: query.as_ref().and_then(|q| q.render_pass_timestamp_writes()),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_viewport(0.0, 0.0, target.size_px.0 as f32, target.size_px.1 as f32, 0.0, 1.0);
            // Only where the terrain can leave pixels to the sky (the H100 rasterises 1080p slowly).
            let (size_px, (x, y, w, h)) = self.sky_scissor_px;
            let scissor = if size_px == target.size_px { (x, y, w, h) } else { (0, 0, target.size_px.0, target.size_px.1) };
            if scissor.2 > 0 && scissor.3 > 0 {
                pass.set_scissor_rect(scissor.0, scissor.1, scissor.2, scissor.3);
                pass.set_pipeline(&self.sky.0);
                pass.set_bind_group(0, &self.sky.1, &[]);
                pass.draw(0..3, 0..1);
            }
        }
        crate::gpu::end_pass_query(profiler, encoder, query);
        true
    }

    /// The texels of `table` as f32 RGBA, rows of x, then y, then slices (waits for the GPU).
    pub fn read_table(&self, device: &wgpu::Device, queue: &wgpu::Queue, table: Table) -> Vec<[f32; 4]> {
        let texture = &self.tables[table as usize];
        let size = texture.size();
        let mut texels = Vec::new();
        for layer in 0..size.depth_or_array_layers {
            let bytes = crate::gpu::readback::read_texture_layer(device, queue, texture, layer, (size.width, size.height), 8);
            texels.extend(bytes.chunks_exact(8).map(|t| {
                let c = |i: usize| half::f16::from_le_bytes([t[2 * i], t[2 * i + 1]]).to_f32();
                [c(0), c(1), c(2), c(3)]
            }));
        }
        texels
    }
}

/// The explicit layout of the globe draws' @group(1): uniforms, transmittance, aerial perspective,
/// sampler, sky view (the sea's reflection), the sea's wave tiles (SeaTiles::draw_layout_entries);
/// visible to compute too, for the compute rasteriser's shade (globe::pool_raster).
fn draw_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let visibility = wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE;
    let texture = |binding, view_dimension| wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension,
            multisampled: false,
        },
        count: None,
    };
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("atmosphere.draw"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility,
                ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
                count: None,
            },
            texture(1, wgpu::TextureViewDimension::D2),
            texture(2, wgpu::TextureViewDimension::D3),
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            texture(4, wgpu::TextureViewDimension::D2),
        ]
        .into_iter()
        .chain(SeaTiles::draw_layout_entries(visibility))
        .collect::<Vec<_>>(),
    })
}

/// The sky's full-screen pipeline and bind group: its triangle lies on the far plane (depth 0,
/// reverse Z) and passes the depth test only where the draw left it (no writes).
fn sky_pipeline(
    device: &wgpu::Device,
    color_format: wgpu::TextureFormat,
    uniforms: &wgpu::Buffer,
    views: &[wgpu::TextureView],
    sampler: &wgpu::Sampler,
) -> (wgpu::RenderPipeline, wgpu::BindGroup) {
    let module = SHADERS.create_module(device, "atmosphere_sky.wgsl");
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(SKY_LABEL),
        layout: None,
        vertex: wgpu::VertexState { module: &module, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers: &[] },
        primitive: Default::default(),
        depth_stencil: Some(crate::gpu::target::depth_state(false, wgpu::CompareFunction::Equal)),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(SKY_LABEL),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&views[0]) },
            wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&views[2]) },
            wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::Sampler(sampler) },
        ],
    });
    (pipeline, group)
}
