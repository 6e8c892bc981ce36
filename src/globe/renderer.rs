//! The globe's passes in the shared schedule (`crate::schedule`):
//! globe.split | globe.merge -> cbt.reduce -> cbt.args -> globe.decode -> globe.draw,
//! over a CBT whose base is the octahedron's 8 triangles (depth 3), between its tile cache's
//! begin and end of frame.

use crate::cbt::cpu::Cbt;
use crate::cbt::gpu::{GpuCbt, DRAW_ARGS_OFFSET};
use crate::globe::atmosphere::{Atmosphere, AtmosphereParams, AtmosphereView};
use crate::globe::cache::tile_cache::TileCache;
use crate::globe::camera::GlobeCamera;
use crate::globe::frame::{globe_frame, FrameSettings, GlobeFrame};
use crate::gpu::{profiled_compute_pass, Gpu, Requirements};
use crate::leb::base_mesh::BaseMesh;
use crate::leb::cpu::UpdateKind;
use crate::leb::lod::{Criterion, MERGE_HYSTERESIS};
use crate::schedule::{FrameTarget, LebScene, LebTree};
use crate::shaders::SHADERS;
use glam::DVec3;

/// What the globe needs from the device: the CBT's needs with `settings` and texture arrays of
/// `cache_tiles` layers for the tile cache's atlas.
pub fn requirements(settings: &GlobeSettings, cache_tiles: u32) -> Requirements {
    crate::cbt::requirements(settings.max_depth, settings.leaf_capacity as u64).with_cache_tiles(cache_tiles)
}

/// Colour of space behind the globe.
pub const SPACE_COLOR: wgpu::Color = wgpu::Color { r: 0.005, g: 0.007, b: 0.018, a: 1.0 };

/// What the globe renderer is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobeSettings {
    /// Max depth D of the CBT (the octahedron's triangles are depth 3).
    pub max_depth: u32,
    /// What splits a triangle: its projected hypotenuse (`EdgeLength`, above `pixel_target_px`)
    /// or the projected error bound of drawing it flat (`ScreenSpaceError`, above
    /// `pixel_error_px`: the data's error from the tile cache's summaries plus the sphere's bulge).
    pub criterion: Criterion,
    /// Projected hypotenuse length in pixels above which a triangle splits (edge criterion).
    pub pixel_target_px: f32,
    /// Projected error in pixels above which a triangle splits (error criterion).
    pub pixel_error_px: f32,
    /// Add deterministic detail below the finest data's samples (src/globe/detail.rs; `--detail`).
    pub detail: bool,
    pub wireframe: bool,
    /// Every leaf is drawn as 2^sub_levels sub-triangles, its bisections continued in the
    /// vertex shader (even, so every edge is cut into 2^(sub_levels/2) equal parts and
    /// neighbouring leaves still meet vertex to vertex): finer geometry from the same tree.
    pub sub_levels: u32,
    /// Leaves the leaf-id buffer (and so the draw) holds at most.
    pub leaf_capacity: u32,
    /// Unit vector towards the sun, earth-fixed.
    pub sun_direction: DVec3,
    /// The moment the sun is placed for (seconds after the Unix epoch, `--time`), when it is;
    /// the viewer's time slider moves it.
    pub sun_time_unix_s: Option<f64>,
    /// Draw the sky and light the terrain through the atmosphere (src/globe/atmosphere); off:
    /// space's colour behind the globe and plain sun light.
    pub atmosphere: bool,
    /// The sea's waves, sky reflection and glint, and the waves' time (src/globe/sea.rs; `--sea`,
    /// `--sea-time-s`).
    pub sea: crate::globe::sea::SeaSettings,
    /// Occlusion culling (the globe over the pool): terrain hidden behind nearer terrain in the
    /// last drawn frame does not refine (src/globe/occlusion.rs; `--occlusion`).
    pub occlusion: bool,
    /// Which rasteriser draws the globe over the bisector pool (`--raster`; the heap's globe
    /// draws with the hardware).
    pub raster: crate::schedule::raster::RasterPath,
    /// With the compute rasteriser: triangles wider or taller than this on screen (pixels, at
    /// most `raster::MAX_LARGE_PX`) are drawn by the hardware.
    pub raster_large_px: u32,
}

impl GlobeSettings {
    /// The target the criterion compares with: `pixel_target_px` or `pixel_error_px`.
    pub fn target_px(&self) -> f32 {
        match self.criterion {
            Criterion::EdgeLength => self.pixel_target_px,
            Criterion::ScreenSpaceError => self.pixel_error_px,
        }
    }
}

impl Default for GlobeSettings {
    fn default() -> Self {
        GlobeSettings {
            // The deepest tree within WebGPU's default 128 MiB storage binding.
            max_depth: 28,
            criterion: Criterion::EdgeLength,
            pixel_target_px: 12.0,
            pixel_error_px: 1.0,
            detail: true,
            wireframe: false,
            sub_levels: 4,
            leaf_capacity: 1 << 22,
            // Overhead at 10N 125E: Asia lit from the south-east.
            sun_direction: crate::leb::octahedral::from_lon_lat_deg(125.0, 10.0),
            sun_time_unix_s: None,
            atmosphere: true,
            sea: Default::default(),
            occlusion: true,
            raster: crate::schedule::raster::RasterPath::Hardware,
            raster_large_px: crate::schedule::raster::DEFAULT_LARGE_PX,
        }
    }
}

/// The globe's passes and its tile cache on the GPU, over its `LebTree`.
pub struct GlobeRenderer {
    pub settings: GlobeSettings,
    pub tree: LebTree,
    /// The tiles every pass samples heights from (bound at @group(2)).
    pub cache: TileCache,
    /// The sky, and the light and aerial perspective of the draw (bound at @group(1)).
    pub atmosphere: Atmosphere,
    passes: GlobePasses,
    color_format: wgpu::TextureFormat,
}

/// The globe's own passes and buffers, built for one tree.
struct GlobePasses {
    frame: wgpu::Buffer,
    split: (wgpu::ComputePipeline, wgpu::BindGroup),
    merge: (wgpu::ComputePipeline, wgpu::BindGroup),
    decode: (wgpu::ComputePipeline, wgpu::BindGroup),
    draw: (wgpu::RenderPipeline, wgpu::BindGroup),
    /// One u32 node id per leaf, written by globe.decode.
    leaf_ids: wgpu::Buffer,
    lod_stats: wgpu::Buffer,
}

impl GlobeRenderer {
    /// Builds the passes, sampling heights from `cache` (bound at @group(2) by every pass), and a
    /// tree made of the octahedron's 8 triangles.
    pub fn new(gpu: &Gpu, settings: GlobeSettings, color_format: wgpu::TextureFormat, cache: TileCache) -> GlobeRenderer {
        let atmosphere = Atmosphere::new(&gpu.device, AtmosphereParams::earth(), color_format);
        let (tree, passes) = build(gpu, &settings, color_format, &cache, atmosphere.draw_layout());
        let mut renderer = GlobeRenderer { settings, tree, cache, atmosphere, passes, color_format };
        renderer.record_init(gpu);
        renderer
    }

    /// Starts over with `settings` (a new tree made of the octahedron's 8 triangles), keeping the
    /// tile cache.
    pub fn rebuild(&mut self, gpu: &Gpu, settings: GlobeSettings) {
        (self.tree, self.passes) = build(gpu, &settings, self.color_format, &self.cache, self.atmosphere.draw_layout());
        self.settings = settings;
        self.record_init(gpu);
    }
}

/// The globe's tree and passes for `settings`, sampling `cache`.
fn build(
    gpu: &Gpu,
    settings: &GlobeSettings,
    color_format: wgpu::TextureFormat,
    cache: &TileCache,
    atmosphere_layout: &wgpu::BindGroupLayout,
) -> (LebTree, GlobePasses) {
    let device = &gpu.device;
    let mesh = BaseMesh::octahedron();
    // The globe's tree is sparse at every depth (some 10^4 leaves; most blocks never change),
    // so it always reduces the changed blocks alone.
    let cbt =
        GpuCbt::new(device, &Cbt::new(settings.max_depth, mesh.depth), settings.leaf_capacity.min(1u32 << settings.max_depth.min(31)))
            .with_change_tracking(true);
    assert!(settings.sub_levels.is_multiple_of(2) && settings.sub_levels <= 8, "sub_levels must be even and at most 8");
    let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
    };
    let frame = buffer("globe.frame", std::mem::size_of::<GlobeFrame>() as u64, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
    let leaf_ids = buffer("globe.leaf_ids", cbt.leaf_capacity as u64 * 4, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC);
    let lod_stats =
        buffer("globe.lod_stats", 16, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
    let group = |label: &str, layout: &wgpu::BindGroupLayout, buffers: &[(u32, &wgpu::Buffer)]| {
        let entries: Vec<wgpu::BindGroupEntry> =
            buffers.iter().map(|&(binding, b)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }).collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
    };
    let [depth, track_changes, block_bits] = cbt.writer_constants();
    let [source, max_zoom] = cache.pipeline_constants();
    let constants = [depth, source, max_zoom];
    let update_constants = [depth, track_changes, block_bits, source, max_zoom];
    let cache_layout = cache.bind_group_layout();
    let update_layout = layout(
        device,
        "globe.update",
        &[
            (0, Binding::StorageWrite),
            (1, Binding::Uniform),
            (2, Binding::StorageRead),
            (3, Binding::StorageRead),
            (7, Binding::StorageWrite),
        ],
        wgpu::ShaderStages::COMPUTE,
    );
    let update = |label: &str, entry: &str| {
        let pipeline = compute_pipeline(
            device,
            label,
            ("globe_update.wgsl", entry),
            &update_constants,
            [Some(&update_layout), None, Some(cache_layout)],
        );
        let bind_group = group(label, &update_layout, &[(0, &cbt.heap), (1, &frame), (2, &leaf_ids), (3, &cbt.stats), (7, &cbt.changed)]);
        (pipeline, bind_group)
    };
    let split = update("globe.split", "split_pass");
    let merge = update("globe.merge", "merge_pass");
    let decode_layout = layout(
        device,
        "globe.decode",
        &[
            (0, Binding::StorageRead),
            (1, Binding::StorageWrite),
            (2, Binding::StorageWrite),
            (3, Binding::Uniform),
            (4, Binding::StorageWrite),
        ],
        wgpu::ShaderStages::COMPUTE,
    );
    let decode_pipeline = compute_pipeline(
        device,
        "globe.decode",
        ("globe_decode.wgsl", "decode"),
        &constants,
        [Some(&decode_layout), None, Some(cache_layout)],
    );
    let decode_group =
        group("globe.decode", &decode_layout, &[(0, &cbt.heap), (1, &leaf_ids), (2, &cbt.stats), (3, &frame), (4, &lod_stats)]);
    let draw_layout =
        layout(device, "globe.draw", &[(0, Binding::StorageRead), (1, Binding::Uniform)], wgpu::ShaderStages::VERTEX_FRAGMENT);
    let draw_pipeline = draw_pipeline(
        device,
        "globe_draw.wgsl",
        color_format,
        settings.sub_levels,
        &[source, max_zoom],
        [&draw_layout, atmosphere_layout, cache_layout],
    );
    let draw_group = group("globe.draw", &draw_layout, &[(0, &leaf_ids), (1, &frame)]);
    let tree = LebTree::new(device, cbt, 1 << settings.sub_levels);
    let passes = GlobePasses {
        frame,
        split,
        merge,
        decode: (decode_pipeline, decode_group),
        draw: (draw_pipeline, draw_group),
        leaf_ids,
        lod_stats,
    };
    (tree, passes)
}

impl GlobeRenderer {
    /// The uniforms of a frame seen by `camera` on a viewport of `size_px`.
    pub fn frame_uniforms(&self, camera: &GlobeCamera, size_px: (u32, u32)) -> GlobeFrame {
        let s = &self.settings;
        // A leaf's sub-triangles are 2^(sub_levels/2) times smaller than it across; its error
        // bound holds for them as it is.
        let leaf_target_px = match s.criterion {
            Criterion::EdgeLength => s.pixel_target_px * self.sub_triangle_scale(),
            Criterion::ScreenSpaceError => s.pixel_error_px,
        };
        let settings = FrameSettings {
            split_threshold_px: leaf_target_px,
            merge_threshold_px: leaf_target_px * MERGE_HYSTERESIS,
            wireframe: s.wireframe,
            sun_direction: s.sun_direction,
            criterion: s.criterion,
            detail: s.detail,
        };
        globe_frame(camera, size_px, &settings)
    }

    /// How many times longer a leaf's hypotenuse is than its drawn sub-triangles'.
    pub fn sub_triangle_scale(&self) -> f32 {
        (1u32 << (self.settings.sub_levels / 2)) as f32
    }

    /// Sets the uniforms of the next recorded passes (tests set the test criterion's shares here).
    pub fn set_frame(&self, queue: &wgpu::Queue, frame: &GlobeFrame) {
        queue.write_buffer(&self.passes.frame, 0, bytemuck::bytes_of(frame));
    }
}

impl LebScene for GlobeRenderer {
    type Camera = GlobeCamera;

    fn tree(&self) -> &LebTree {
        &self.tree
    }
    fn tree_mut(&mut self) -> &mut LebTree {
        &mut self.tree
    }

    fn set_view(&mut self, queue: &wgpu::Queue, camera: &GlobeCamera, size_px: (u32, u32)) {
        let frame = self.frame_uniforms(camera, size_px);
        self.set_frame(queue, &frame);
        let s = &self.settings;
        let view = AtmosphereView::of_camera(camera, frame.clip_from_relative, size_px, s.sun_direction, s.atmosphere);
        self.atmosphere.sea = s.sea;
        self.atmosphere.set_view(queue, &view);
    }

    /// The atmosphere's tables of this view.
    fn record_view(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.atmosphere.enabled = self.settings.atmosphere;
        self.atmosphere.record_tables(encoder, &self.tree.profiler);
    }

    /// The sky ("atmosphere.sky").
    fn record_sky(&self, encoder: &mut wgpu::CommandEncoder, target: &FrameTarget) {
        self.atmosphere.record_sky(encoder, &self.tree.profiler, target);
    }

    /// Records "globe.split" or "globe.merge" over every leaf.
    fn record_update(&self, encoder: &mut wgpu::CommandEncoder, kind: UpdateKind) {
        let (label, (pipeline, bind_group)) = match kind {
            UpdateKind::Split => ("globe.split", &self.passes.split),
            UpdateKind::Merge => ("globe.merge", &self.passes.merge),
        };
        profiled_compute_pass(&self.tree.profiler, encoder, label, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.set_bind_group(2, self.cache.bind_group(), &[]);
            pass.dispatch_workgroups_indirect(&self.tree.cbt.args, 0);
        });
    }

    fn record_decode(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.passes.lod_stats, 0, None);
        let (pipeline, bind_group) = &self.passes.decode;
        profiled_compute_pass(&self.tree.profiler, encoder, "globe.decode", |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.set_bind_group(2, self.cache.bind_group(), &[]);
            pass.dispatch_workgroups_indirect(&self.tree.cbt.args, 0);
        });
    }

    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.passes.draw.0);
        pass.set_bind_group(0, &self.passes.draw.1, &[]);
        pass.set_bind_group(1, self.atmosphere.draw_bind_group(), &[]);
        pass.set_bind_group(2, self.cache.bind_group(), &[]);
        pass.draw_indirect(&self.tree.cbt.args, DRAW_ARGS_OFFSET);
    }

    fn draw_label(&self) -> &'static str {
        "globe.draw"
    }

    fn clear_color(&self) -> wgpu::Color {
        SPACE_COLOR
    }

    fn leaf_ids(&self) -> &wgpu::Buffer {
        &self.passes.leaf_ids
    }

    fn lod_stats(&self) -> &wgpu::Buffer {
        &self.passes.lod_stats
    }

    fn triangles_per_leaf(&self) -> u64 {
        1 << self.settings.sub_levels
    }

    /// The tile cache's frame: residency, uploads, clearing the feedback set.
    fn record_begin(&mut self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder) {
        let frame_index = self.tree.frame_index() + 1;
        self.cache.begin_timed_frame(gpu, encoder, Some(&self.tree.profiler), frame_index);
    }

    /// The tile cache's read-backs of its feedback set and used bits.
    fn record_end(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.cache.end_frame(encoder);
    }

    fn submitted(&mut self) {
        self.cache.after_submit();
    }

    fn is_settled(&self) -> bool {
        self.cache.is_settled()
    }

    fn is_loading(&self) -> bool {
        self.cache.stats().in_flight > 0
    }
}

/// What a binding of @group(0) holds.
#[derive(Clone, Copy)]
pub(crate) enum Binding {
    Uniform,
    StorageRead,
    StorageWrite,
}

/// An explicit @group(0) layout (the passes share @group(2) with the tile cache, whose bind
/// group has its own explicit layout, so no pass can use a derived layout).
pub(crate) fn layout(
    device: &wgpu::Device,
    label: &str,
    bindings: &[(u32, Binding)],
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .map(|&(binding, kind)| wgpu::BindGroupLayoutEntry {
            binding,
            // Storage written by the draw would need VERTEX_WRITABLE_STORAGE: the draw only reads.
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: match kind {
                    Binding::Uniform => wgpu::BufferBindingType::Uniform,
                    Binding::StorageRead => wgpu::BufferBindingType::Storage { read_only: true },
                    Binding::StorageWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries })
}

fn pipeline_layout(
    device: &wgpu::Device,
    group0: &wgpu::BindGroupLayout,
    group1: Option<&wgpu::BindGroupLayout>,
    cache: &wgpu::BindGroupLayout,
) -> wgpu::PipelineLayout {
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(group0), group1, Some(cache)],
        immediate_size: 0,
    })
}

/// The compute pipeline of `entry` in `shader_name` over bind groups `[group0, group1, the tile
/// cache's]` (group1: the pool's occlusion test, or none).
pub(crate) fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    (shader_name, entry): (&str, &str),
    constants: &[(&str, f64)],
    [group0, group1, cache]: [Option<&wgpu::BindGroupLayout>; 3],
) -> wgpu::ComputePipeline {
    let module = SHADERS.create_module(device, shader_name);
    SHADERS.dump_compute_pipeline(label, (shader_name, &[]), entry, constants, true);
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout(device, group0.expect("group 0"), group1, cache.expect("the tile cache's group"))),
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
        cache: None,
    })
}

/// The draw pipeline of shader `shader_name` (globe_draw.wgsl with `sub_levels`; the pool's
/// draw ignores it) over bind groups `[group0, the atmosphere's, the tile cache's]`.
pub(crate) fn draw_pipeline(
    device: &wgpu::Device,
    shader_name: &str,
    color_format: wgpu::TextureFormat,
    sub_levels: u32,
    cache_constants: &[(&str, f64)],
    [group0, atmosphere, cache]: [&wgpu::BindGroupLayout; 3],
) -> wgpu::RenderPipeline {
    let module = SHADERS.create_module(device, shader_name);
    let mut constants = if shader_name == "globe_draw.wgsl" { vec![("SUB_LEVELS", sub_levels as f64)] } else { Vec::new() };
    constants.extend_from_slice(cache_constants);
    let compilation_options = wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(shader_name),
        layout: Some(&pipeline_layout(device, group0, Some(atmosphere), cache)),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: compilation_options.clone(),
            buffers: &[],
        },
        // Every triangle faces out (the shader reverses odd levels): the far side of the globe
        // and the backs of slopes are culled before rasterisation.
        primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
        depth_stencil: Some(crate::gpu::target::depth_state(true, wgpu::CompareFunction::Greater)),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options,
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}
