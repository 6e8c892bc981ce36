//! The compute rasteriser of the flat terrain (`--raster compute`, src/flat/raster.rs) on
//! lavapipe: its triangle passes against the CPU twins on random triangles (raster.small; raster.bin
//! and raster.wide with triangles crossing the near plane and the guard band), its pictures
//! against the hardware path's goldens, and no cracks where the paths meet or where triangles
//! clipped at the near plane meet.
//!
//! Thresholds against the hardware goldens of tests/screenshots.rs at 256x256: mean FLIP <= 0.007
//! shaded, <= 0.008 in wireframe (for scale: 1-level noise on 10 % of the pixels gives about
//! 0.004). Measured (2026-11-24, lavapipe; each check prints its figure with --nocapture): shaded
//! 0.0050-0.0056, wireframe 0.0045-0.0065. With the fragment shade the shaded figures were
//! 0.00035-0.00052: the compute shade encodes sRGB by the exact curve (checked against its CPU
//! twin below, byte for byte), while llvmpipe's sRGB render targets use an approximation, so about
//! a sixth of the terrain's pixels differ by one level (compute_shade_equals_the_fragment_shade
//! bounds that: at most 1 level anywhere). The shading itself is checked there, the coverage by
//! the crack test and the triangle pass's CPU twin.

mod common;
#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use std::path::Path;

use bisector::flat::camera::Camera;
use bisector::flat::raster::{
    clip_pieces_cpu, in_front_of_near_plane, rasterise_any_cpu, rasterise_cpu, srgb_encoded_u8, wide_area, wide_inputs_size,
    wide_lists_size, wide_setup_cpu, wide_tiles_cpu, RasterPath, RasterUniforms, TriangleOutcome, WideInput, WideTriangle, LARGE_ARGS_SIZE,
    WIDE_ARGS_OFFSET, WIDE_ENTRY_CAPACITY, WIDE_INPUTS_HEADER, WIDE_PIECES,
};
use bisector::flat::{render_shot, RenderSettings, Renderer};
use bisector::gpu::Gpu;
use bisector::schedule::headless::{convergence_frame_limit, HeadlessView};
use bisector::shaders::SHADERS;
use bisector::terrain::{procedural, HeightField, TerrainSpec};
use glam::DVec3;
use rand::Rng;
use wgpu::util::DeviceExt;

/// Shaded: the pictures differ where an edge pixel went to the other triangle, and by one level
/// of sRGB rounding on about a sixth of the terrain (see the header).
const THRESHOLD_MEAN_FLIP_SHADED: f32 = 0.007;
/// In wireframe: the line width comes from analytic derivatives instead of the hardware's 2x2
/// quads, so line pixels differ by 1-2 levels (about 6 % of the pixels at 256x256).
const THRESHOLD_MEAN_FLIP_WIREFRAME: f32 = 0.008;

fn compute_settings(max_depth: u32) -> RenderSettings {
    RenderSettings { max_depth, raster: RasterPath::Compute, ..Default::default() }
}

/// A headless GPU with the compute rasteriser's features, or a panic that says what is missing.
fn gpu(field: &HeightField) -> Gpu {
    Gpu::headless(&bisector::flat::requirements(&compute_settings(24), field.samples_per_side).with_image_size((256, 256)))
        .unwrap_or_else(|e| panic!("{e}\n(lavapipe has 64-bit storage-buffer atomics)"))
}

fn procedural_field() -> HeightField {
    procedural::generate(procedural::DEFAULT_SEED, procedural::DEFAULT_SAMPLES, procedural::DEFAULT_SIZE_M)
}

/// The camera of tests/screenshots.rs's procedural goldens.
fn procedural_camera() -> Camera {
    Camera::look_at(DVec3::new(1500.0, 2500.0, 4200.0), DVec3::new(12000.0, 11000.0, 500.0), 50.0)
}

/// A height file of heightmaps/ loaded as tests/screenshots.rs loads it.
fn file_field(relative: &str, max_samples: u32) -> HeightField {
    let spec = TerrainSpec::parse(common::heightmap(relative).to_str().unwrap()).unwrap();
    spec.load(max_samples).unwrap_or_else(|e| panic!("{e}")).field
}

fn default_camera(field: &HeightField) -> Camera {
    Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64)
}

/// Renders the golden `name` of tests/screenshots.rs with the compute rasteriser and compares it
/// with the hardware path's reference.
fn check_against_golden(name: &str, field: &HeightField, camera: &Camera, wireframe: bool) {
    let gpu = gpu(field);
    let settings = RenderSettings { wireframe, ..compute_settings(24) };
    let shot = render_shot(&gpu, field, settings, camera, (256, 256));
    assert!(shot.last.stats.leaves > 1000, "{name}: only {} leaves", shot.last.stats.leaves);
    let timed: Vec<_> = shot.last.timings.passes.iter().map(|p| p.label.as_str()).collect();
    if !timed.is_empty() {
        for pass in ["raster.small", "raster.bin", "raster.wide", "raster.large", "shade"] {
            assert!(timed.contains(&pass), "{name}: no timing for {pass} in {timed:?}");
        }
        assert!(!timed.contains(&"render.draw"), "{name}: the hardware draw ran too: {timed:?}");
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let threshold = if wireframe { THRESHOLD_MEAN_FLIP_WIREFRAME } else { THRESHOLD_MEAN_FLIP_SHADED };
    let outcome =
        golden::compare_golden_with_mode(&dir, name, &shot.image, threshold, golden::UpdateMode::Off).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{name}: compute vs hardware golden: mean FLIP {:.5} (max {:.3})", outcome.mean_flip, outcome.max_flip);
    assert!(
        outcome.passed,
        "{name} with --raster compute: mean FLIP {:.4} > {threshold} (max {:.3}) against the hardware golden; see tests/golden/{name}-actual.png and -diff.png",
        outcome.mean_flip, outcome.max_flip
    );
}

#[test]
fn compute_path_matches_the_hardware_goldens_of_the_procedural_terrain() {
    let field = procedural_field();
    check_against_golden("procedural-shaded", &field, &procedural_camera(), false);
    check_against_golden("procedural-wireframe", &field, &procedural_camera(), true);
}

#[test]
fn compute_path_matches_the_hardware_goldens_of_big_tujunga() {
    // A GeoTIFF with samples without data: those triangles are dropped by both paths.
    let field = file_field("bigtujunga.tif", 1025);
    check_against_golden("bigtujunga-shaded", &field, &default_camera(&field), false);
    check_against_golden("bigtujunga-wireframe", &field, &default_camera(&field), true);
}

#[test]
fn compute_path_matches_the_hardware_goldens_of_taiwan() {
    let field = file_field("taiwan-terrain-rgb", 4097);
    check_against_golden("taiwan-z10-shaded", &field, &default_camera(&field), false);
    check_against_golden("taiwan-z10-wireframe", &field, &default_camera(&field), true);
}

/// Renders `field` from `camera` at `size_px` with `settings` after the LOD converged; returns
/// the image and, with the compute rasteriser, the triangles left to the hardware and those sent
/// to raster.wide in the last frame, and the size histogram of every frame.
fn render(
    gpu: &Gpu,
    field: &HeightField,
    settings: RenderSettings,
    camera: &Camera,
    size_px: (u32, u32),
) -> (image::RgbaImage, (u32, u32), Vec<u32>) {
    let max_frames = convergence_frame_limit(settings.max_depth);
    let renderer = Renderer::new(gpu, field, settings, bisector::gpu::target::COLOR_FORMAT);
    let mut view = HeadlessView::new(gpu, renderer, size_px.0, size_px.1);
    let shot = view.shot(gpu, camera, max_frames);
    let (large, histogram) = match view.scene.vis_raster() {
        Some(raster) => ((raster.read_large_triangles(gpu), raster.read_wide_counts(gpu).1), raster.read_histogram(gpu).to_vec()),
        None => ((0, 0), Vec::new()),
    };
    (shot.image, large, histogram)
}

/// Renders `camera` at `size` with `settings` in compute and with the hardware, and checks that
/// no pixel inside the terrain of the hardware picture (it and its 8 neighbours not sky) is sky
/// in the compute one; returns what `render` read back of the compute run.
fn assert_no_cracks(gpu: &Gpu, field: &HeightField, camera: &Camera, size: (u32, u32), settings: RenderSettings) -> ((u32, u32), Vec<u32>) {
    let (compute, counts, histogram) = render(gpu, field, settings.clone(), camera, size);
    let (hardware, _, _) = render(gpu, field, RenderSettings { raster: RasterPath::Hardware, ..settings }, camera, size);
    // The sky's colour: the clear colour in both pictures (top-left corner is sky here).
    let sky = *hardware.get_pixel(0, 0);
    assert_eq!(*compute.get_pixel(0, 0), sky, "the top-left corner must be sky");
    let is_sky = |image: &image::RgbaImage, x: u32, y: u32| *image.get_pixel(x, y) == sky;
    let mut inside = 0;
    let mut cracks = Vec::new();
    for y in 1..size.1 - 1 {
        for x in 1..size.0 - 1 {
            // Inside the terrain: this pixel and its 8 neighbours are terrain in the hardware picture.
            let terrain = (-1i32..=1).all(|dy| (-1i32..=1).all(|dx| !is_sky(&hardware, (x as i32 + dx) as u32, (y as i32 + dy) as u32)));
            if terrain {
                inside += 1;
                if is_sky(&compute, x, y) {
                    cracks.push((x, y));
                }
            }
        }
    }
    assert!(inside > size.0 * size.1 / 3, "the terrain must fill much of the view: {inside} pixels");
    assert!(
        cracks.is_empty(),
        "{} background pixels inside the terrain with --raster compute, e.g. {:?}",
        cracks.len(),
        &cracks[..cracks.len().min(8)]
    );
    (counts, histogram)
}

#[test]
fn no_cracks_where_compute_and_hardware_triangles_meet() {
    let field = procedural_field();
    let gpu = gpu(&field);
    // Low over the terrain: near triangles are large on screen, far ones small; a 3 px threshold
    // sends many each way: to raster.small, and to raster.bin and raster.wide with those crossing
    // the near plane (the hardware draws only those beyond raster.wide's guard band).
    let camera = Camera::look_at(DVec3::new(4000.0, 3000.0, 1800.0), DVec3::new(12000.0, 11000.0, 300.0), 60.0);
    let settings = RenderSettings { raster_large_px: 3, ..compute_settings(20) };
    let ((large, wide), histogram) = assert_no_cracks(&gpu, &field, &camera, (192, 128), settings);
    let small: u32 = histogram[..3].iter().sum();
    eprintln!("{large} triangles to raster.large, {wide} to raster.bin, histogram {histogram:?}");
    assert!(wide > 100 && small > 100, "both compute paths must draw: {wide} wide, histogram {histogram:?}");
    assert!(large * 50 < wide, "the hardware must draw only what leaves the guard band: {large} large, {wide} wide");
}

#[test]
fn no_cracks_where_triangles_clipped_at_the_near_plane_meet() {
    // Gently rolling ground (1 m waves, 60-90 m long), the camera 0.4 m over it looking 20
    // degrees down (the near plane is 0.5 m away): the leaves around the camera cross the near
    // plane, and the ground seen at the bottom of the view is theirs, clipped against it in
    // compute and by the hardware; farther leaves go to raster.small and raster.bin.
    let n = 129u32;
    let spacing_m = 1000.0 / (n - 1) as f32;
    let heights_m = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32 * spacing_m, (i / n) as f32 * spacing_m);
            (x / 10.0).sin() * (y / 14.0).cos()
        })
        .collect();
    let field =
        HeightField { samples_per_side: n, heights_m, size_m: 1000.0, data_bounds_m: [0.0, 0.0, 1000.0, 1000.0], nodata: Vec::new() };
    let gpu = gpu(&field);
    let position = DVec3::new(500.0, 480.0, f64::from(field.height_at_m(500.0, 480.0)) + 0.4);
    let camera = Camera::look_at(position, position + DVec3::new(1.0, 0.3, -0.38), 60.0);
    let ((large, wide), histogram) = assert_no_cracks(&gpu, &field, &camera, (160, 96), compute_settings(16));
    eprintln!("{large} triangles to raster.large, {wide} to raster.bin, histogram {histogram:?}");
    assert!(wide > 10, "too few triangles for raster.bin: {wide}");
}

/// Largest difference in any channel between the compute shade and the fragment shade: the same
/// WGSL shades both, so they differ only in the sRGB encoding (by hand in the compute pass, by the
/// target's format in the fragment pass) and its rounding.
const SHADE_MAX_LEVEL_DIFFERENCE: u8 = 1;
/// Smallest share of the pixels that must be identical between the two shades. Measured
/// (2026-11-24, lavapipe, wireframe at 160x112): 89.2 % identical, the rest 1 level apart, all on
/// the terrain (the sky is identical): llvmpipe's own linear-to-sRGB conversion is a polynomial
/// approximation, not the exact curve the compute pass evaluates.
const SHADE_MIN_IDENTICAL_SHARE: f64 = 0.8;

#[test]
fn compute_shade_equals_the_fragment_shade() {
    // shade runs in compute into an offscreen target (a storage texture) and as a full-screen
    // fragment pass into a target that cannot be one (the viewer's window surface): both must
    // give the same picture of the same visibility buffer.
    let field = procedural_field();
    let gpu = gpu(&field);
    let size = (160u32, 112u32);
    let settings = RenderSettings { wireframe: true, ..compute_settings(20) };
    let camera = Camera::look_at(DVec3::new(4000.0, 3000.0, 1800.0), DVec3::new(12000.0, 11000.0, 300.0), 60.0);
    let renderer = Renderer::new(&gpu, &field, settings.clone(), bisector::gpu::target::COLOR_FORMAT);
    let mut view = HeadlessView::new(&gpu, renderer, size.0, size.1);
    view.converge(&gpu, &camera, convergence_frame_limit(settings.max_depth));
    let surface = common::srgb_surface(&gpu, size);
    let surface_view = surface.create_view(&Default::default());
    let raster = view.scene.vis_raster().expect("the compute path");
    assert!(raster.shades_in_compute(&view.target.color_view), "the offscreen target must be shaded in compute");
    assert!(!raster.shades_in_compute(&surface_view), "an sRGB render target must be shaded by the fragment pass");
    // The tree has converged: the next frames draw the same leaves, once into each target.
    let (fragment, compute) = common::fragment_then_compute_frames(&gpu, &mut view, &camera, &surface);
    let sky = *fragment.get_pixel(0, 0);
    let terrain = fragment.pixels().filter(|&&p| p != sky).count();
    assert!(terrain > (size.0 * size.1 / 3) as usize, "the terrain must fill much of the view: {terrain} pixels");
    let mut identical = 0;
    let mut worst = (0u8, 0, 0);
    for (x, y, a) in compute.enumerate_pixels() {
        let b = fragment.get_pixel(x, y);
        let difference = (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap();
        identical += usize::from(difference == 0);
        if difference > worst.0 {
            worst = (difference, x, y);
        }
    }
    let share = identical as f64 / (size.0 * size.1) as f64;
    eprintln!(
        "compute vs fragment shade: {:.2} % identical, largest difference {} levels at {:?}",
        share * 100.0,
        worst.0,
        (worst.1, worst.2)
    );
    assert!(
        worst.0 <= SHADE_MAX_LEVEL_DIFFERENCE,
        "the compute shade differs from the fragment shade by {} levels at ({}, {}): {:?} against {:?}",
        worst.0,
        worst.1,
        worst.2,
        compute.get_pixel(worst.1, worst.2),
        fragment.get_pixel(worst.1, worst.2)
    );
    assert!(share >= SHADE_MIN_IDENTICAL_SHARE, "only {:.2} % of the pixels are identical", share * 100.0);
}

/// A random triangle with corners on the 1/256-px grid of a `size` x `size` viewport (exact in
/// f32 on both sides), with w = 1 and depths in (0.01, 1).
fn random_triangle(rng: &mut impl Rng, size: u32, extent_px: f32) -> [[f32; 4]; 3] {
    let centre = [rng.random_range(-4.0..size as f32 + 4.0), rng.random_range(-4.0..size as f32 + 4.0)];
    std::array::from_fn(|_| {
        let p = [0, 1].map(|i| ((centre[i] + rng.random_range(-extent_px..extent_px)) * 256.0).round() / 256.0);
        let ndc = [p[0] / size as f32 * 2.0 - 1.0, 1.0 - p[1] / size as f32 * 2.0];
        [ndc[0], ndc[1], rng.random_range(0.01..1.0f32), 1.0]
    })
}

#[test]
fn triangle_pass_matches_its_cpu_twin_on_random_triangles() {
    let mut rng = common::rng("triangle_pass_matches_its_cpu_twin_on_random_triangles");
    let field = procedural::generate(1, 65, 1000.0);
    let gpu = gpu(&field);
    let (size, large_px) = (48u32, 12u32);
    let triangles: Vec<[[f32; 4]; 3]> = (0..600)
        .map(|_| {
            let extent_px = rng.random_range(1.0..14.0);
            random_triangle(&mut rng, size, extent_px)
        })
        .collect();
    // The CPU twin, and every triangle covering each pixel (to know where the winner is clear).
    let mut expected = vec![0u64; (size * size) as usize];
    let mut outcomes = Vec::new();
    let mut covering: Vec<Vec<u64>> = vec![Vec::new(); expected.len()];
    for (i, triangle) in triangles.iter().enumerate() {
        let mut alone = vec![0u64; expected.len()];
        outcomes.push(rasterise_cpu(&mut alone, (size, size), large_px, triangle, i as u32 + 1) as u32);
        for (pixel, &word) in alone.iter().enumerate().filter(|(_, &w)| w != 0) {
            covering[pixel].push(word);
            expected[pixel] = expected[pixel].max(word);
        }
    }
    for kind in [TriangleOutcome::Dropped, TriangleOutcome::Drawn, TriangleOutcome::Large] {
        assert!(outcomes.iter().filter(|&&o| o == kind as u32).count() > 10, "too few {kind:?} triangles: {outcomes:?}");
    }
    // The GPU's.
    let device = &gpu.device;
    let pipeline = SHADERS.compute_pipeline(device, "vis_raster_probe", "vis_raster_probe.wgsl", "probe", &[]);
    use wgpu::BufferUsages as U;
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&triangles),
        usage: U::STORAGE,
    });
    let results = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: triangles.len() as u64 * 4,
        usage: U::STORAGE | U::COPY_SRC,
        mapped_at_creation: false,
    });
    let vis = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: expected.len() as u64 * 8,
        usage: U::STORAGE | U::COPY_SRC,
        mapped_at_creation: false,
    });
    let uniforms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::bytes_of(&RasterUniforms { size_px: [size, size], large_px, _pad: 0 }),
        usage: U::UNIFORM,
    });
    let group = |index, entries: &[wgpu::BindGroupEntry]| {
        device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &pipeline.get_bind_group_layout(index), entries })
    };
    let io = group(
        0,
        &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: results.as_entire_binding() },
        ],
    );
    let target = group(
        2,
        &[
            wgpu::BindGroupEntry { binding: 0, resource: vis.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: uniforms.as_entire_binding() },
        ],
    );
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &io, &[]);
        pass.set_bind_group(2, &target, &[]);
        pass.dispatch_workgroups((triangles.len() as u32).div_ceil(64), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let read = |buffer: &wgpu::Buffer| bisector::gpu::readback::read_buffer(device, &gpu.queue, buffer, 0, buffer.size());
    let gpu_outcomes: Vec<u32> = bytemuck::pod_collect_to_vec(&read(&results));
    let gpu_vis: Vec<u64> = bytemuck::pod_collect_to_vec(&read(&vis));
    assert_eq!(gpu_outcomes, outcomes, "what each triangle went to");
    // Coverage exactly; the winner's id exactly where no other triangle is within 1e-5 in depth.
    let depth = |word: u64| f32::from_bits((word >> 32) as u32);
    let mut clear = 0;
    for (pixel, (&got, want)) in gpu_vis.iter().zip(&expected).enumerate() {
        let (x, y) = (pixel as u32 % size, pixel as u32 / size);
        assert_eq!(got == 0, *want == 0, "pixel {x},{y}: GPU {got:#x}, CPU {want:#x} (coverage)");
        if *want == 0 {
            continue;
        }
        assert!((depth(got) - depth(*want)).abs() <= 1e-5, "pixel {x},{y}: depth {} on the GPU, {} on the CPU", depth(got), depth(*want));
        let close = covering[pixel].iter().filter(|&&w| depth(*want) - depth(w) <= 1e-5).count();
        if close == 1 {
            clear += 1;
            assert_eq!(got as u32, *want as u32, "pixel {x},{y}: triangle {} on the GPU, {} on the CPU", got as u32, *want as u32);
        }
    }
    assert!(clear > (size * size) as usize / 4, "too few pixels with a clear winner: {clear}");
}

/// What raster.small's hand-over (vis_raster_wide_probe.wgsl), raster.bin (raster_bin.wgsl) and
/// raster.wide (raster_wide.wgsl) did with `triangles` (id = index) on a `size` x `size` viewport:
/// the visibility buffer, the ids left to raster.large (sorted), raster.wide's entry count and the
/// triangles listed for raster.bin, and what raster.bin set up for each listed id (its WIDE_PIECES
/// slots).
struct WideRun {
    vis: Vec<u64>,
    large_ids: Vec<u32>,
    wide_counts: (u32, u32),
    setups: Vec<(u32, Vec<WideTriangle>)>,
    /// The tiles raster.bin binned for each slot (WIDE_PIECES per listed triangle), row by row.
    tiles: Vec<Vec<[u32; 2]>>,
}

/// Runs the probe with room for `triangle_capacity` listed triangles and `entry_capacity` tile entries.
fn run_wide_probe(
    gpu: &Gpu,
    triangles: &[[[f32; 4]; 3]],
    size: u32,
    large_px: u32,
    triangle_capacity: u64,
    entry_capacity: u64,
) -> WideRun {
    let device = &gpu.device;
    let small = SHADERS.compute_pipeline(device, "raster.small", "vis_raster_wide_probe.wgsl", "raster_small", &[]);
    let bin =
        SHADERS.compute_pipeline(device, "raster.bin", "raster_bin.wgsl", "raster_bin", &[("RASTER_WIDE_ENTRIES", entry_capacity as f64)]);
    let wide = SHADERS.compute_pipeline(device, "raster.wide", "raster_wide.wgsl", "raster_wide", &[]);
    use wgpu::BufferUsages as U;
    let init = |contents: &[u8], usage| device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents, usage });
    let empty = |size: u64, usage| device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage, mapped_at_creation: false });
    let input = init(bytemuck::cast_slice(triangles), U::STORAGE);
    let uniforms = init(bytemuck::bytes_of(&RasterUniforms { size_px: [size, size], large_px, _pad: 0 }), U::UNIFORM);
    let vis = empty(u64::from(size * size) * 8, U::STORAGE | U::COPY_SRC);
    let large_ids = empty(triangles.len() as u64 * 4, U::STORAGE | U::COPY_SRC);
    let large_args = empty(LARGE_ARGS_SIZE, U::STORAGE | U::INDIRECT | U::COPY_SRC);
    let histogram = empty(64, U::STORAGE);
    let wide_inputs = empty(wide_inputs_size(triangle_capacity), U::STORAGE | U::INDIRECT | U::COPY_SRC);
    let wide_lists = empty(wide_lists_size(triangle_capacity), U::STORAGE | U::COPY_SRC);
    let group = |pipeline: &wgpu::ComputePipeline, index, entries: &[(u32, &wgpu::Buffer)]| {
        let entries: Vec<_> =
            entries.iter().map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }).collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(index),
            entries: &entries,
        })
    };
    let small_input = group(&small, 0, &[(0, &input)]);
    let small_vis = group(&small, 2, &[(0, &vis), (1, &uniforms), (2, &large_ids), (3, &large_args), (4, &histogram), (7, &wide_inputs)]);
    let bin_lists = group(&bin, 2, &[(1, &uniforms), (2, &large_ids), (3, &large_args), (6, &wide_lists), (7, &wide_inputs)]);
    let wide_vis = group(&wide, 2, &[(0, &vis), (1, &uniforms), (6, &wide_lists)]);
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&small);
        pass.set_bind_group(0, &small_input, &[]);
        pass.set_bind_group(2, &small_vis, &[]);
        pass.dispatch_workgroups((triangles.len() as u32).div_ceil(256), 1, 1);
    }
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&bin);
        pass.set_bind_group(2, &bin_lists, &[]);
        pass.dispatch_workgroups_indirect(&wide_inputs, 0);
    }
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&wide);
        pass.set_bind_group(2, &wide_vis, &[]);
        pass.dispatch_workgroups_indirect(&large_args, WIDE_ARGS_OFFSET);
    }
    gpu.queue.submit([encoder.finish()]);
    let read = |buffer: &wgpu::Buffer| bisector::gpu::readback::read_buffer(device, &gpu.queue, buffer, 0, buffer.size());
    let args: Vec<u32> = bytemuck::pod_collect_to_vec(&read(&large_args));
    let mut large: Vec<u32> = bytemuck::pod_collect_to_vec(&read(&large_ids));
    large.truncate(args[0] as usize / 3);
    large.sort_unstable();
    let inputs_bytes = read(&wide_inputs);
    let header: [u32; 4] = bytemuck::pod_read_unaligned(&inputs_bytes[..WIDE_INPUTS_HEADER as usize]);
    let inputs: Vec<WideInput> = bytemuck::pod_collect_to_vec(&inputs_bytes[WIDE_INPUTS_HEADER as usize..]);
    let lists = read(&wide_lists);
    let slots: Vec<WideTriangle> = bytemuck::pod_collect_to_vec(&lists[wide_lists_size(0) as usize..]);
    let pieces = WIDE_PIECES as usize;
    let setups = (0..header[0] as usize).map(|i| (inputs[i].id, slots[pieces * i..pieces * (i + 1)].to_vec())).collect();
    let entries: Vec<[u32; 2]> = bytemuck::pod_collect_to_vec(&lists[..args[4] as usize * 8]);
    let mut tiles = vec![Vec::new(); header[0] as usize * pieces];
    for [slot, tile] in entries {
        tiles[slot as usize].push([tile & 0xffff, tile >> 16]);
    }
    for slot in &mut tiles {
        slot.sort_unstable_by_key(|&[x, y]| (y, x));
    }
    WideRun { vis: bytemuck::pod_collect_to_vec(&read(&vis)), large_ids: large, wide_counts: (args[4], header[0]), setups, tiles }
}

/// The CPU twins of raster.small, raster.bin and raster.wide on `triangle` `id`.
fn rasterise_twin(vis: &mut [u64], size: u32, large_px: u32, triangle: &[[f32; 4]; 3], id: u32) -> TriangleOutcome {
    rasterise_any_cpu(vis, (size, size), large_px, triangle, id)
}

/// Checks the GPU's visibility buffer `got` against the twin's `want`: coverage exactly, depth
/// within 1e-5, the winner's id exactly where no other triangle (of `covering`) is that close.
fn assert_vis_matches(got: &[u64], want: &[u64], covering: &[Vec<u64>], size: u32) {
    let depth = |word: u64| f32::from_bits((word >> 32) as u32);
    let mut clear = 0;
    for (pixel, (&got, &want)) in got.iter().zip(want).enumerate() {
        let (x, y) = (pixel as u32 % size, pixel as u32 / size);
        assert_eq!(got == 0, want == 0, "pixel {x},{y}: GPU {got:#x}, CPU {want:#x} (coverage)");
        if want == 0 {
            continue;
        }
        assert!((depth(got) - depth(want)).abs() <= 1e-5, "pixel {x},{y}: depth {} on the GPU, {} on the CPU", depth(got), depth(want));
        if covering[pixel].iter().filter(|&&w| depth(want) - depth(w) <= 1e-5).count() == 1 {
            clear += 1;
            assert_eq!(got as u32, want as u32, "pixel {x},{y}: triangle {} on the GPU, {} on the CPU", got as u32, want as u32);
        }
    }
    assert!(clear > (size * size) as usize / 8, "too few pixels with a clear winner: {clear}");
}

#[test]
fn wide_pass_matches_its_cpu_twin_on_random_large_triangles() {
    let mut rng = common::rng("wide_pass_matches_its_cpu_twin_on_random_large_triangles");
    let field = procedural::generate(1, 65, 1000.0);
    let gpu = gpu(&field);
    let (size, large_px) = (72u32, 12u32);
    let mut triangles: Vec<[[f32; 4]; 3]> = (0..300)
        .map(|_| {
            let extent_px = if rng.random_bool(0.3) { rng.random_range(1.0..14.0) } else { rng.random_range(14.0..300.0) };
            random_triangle(&mut rng, size, extent_px)
        })
        .collect();
    // Beyond raster.wide's guard band (2^22 px), and within it: clipped to raster.bin's (256 w)
    // and drawn in compute.
    let ndc = |x: f32, y: f32| [x / size as f32 * 2.0 - 1.0, 1.0 - y / size as f32 * 2.0, 0.5, 1.0];
    triangles.push([ndc(10.0, 10.0), ndc(10.0, 6.0e6), ndc(6.0e6, 10.0)]);
    triangles.push([ndc(-5.0e6, -5.0e6), ndc(-5.0e6, 40.0), ndc(40.0, 40.0)]);
    triangles.push([ndc(-4.0e6, -4.0e6), ndc(-4.0e6, 50.0), ndc(50.0, 50.0)]);
    let mut expected = vec![0u64; (size * size) as usize];
    let mut covering: Vec<Vec<u64>> = vec![Vec::new(); expected.len()];
    let (mut wide, mut hardware) = (0, Vec::new());
    for (i, triangle) in triangles.iter().enumerate() {
        let mut alone = vec![0u64; expected.len()];
        let outcome = rasterise_twin(&mut alone, size, large_px, triangle, i as u32);
        if outcome == TriangleOutcome::Large {
            hardware.push(i as u32);
            continue;
        }
        let mut small = vec![0u64; expected.len()];
        wide += usize::from(rasterise_cpu(&mut small, (size, size), large_px, triangle, 0) == TriangleOutcome::Large && alone != small);
        for (pixel, &word) in alone.iter().enumerate().filter(|(_, &w)| w != 0) {
            covering[pixel].push(word);
            expected[pixel] = expected[pixel].max(word);
        }
    }
    eprintln!("{wide} large triangles drawn");
    assert!(wide > 40, "too few large triangles drawn: {wide}");
    assert_eq!(hardware, [0u32; 0], "with room in the lists, nothing is left to the hardware");
    let run = run_wide_probe(&gpu, &triangles, size, large_px, triangles.len() as u64, WIDE_ENTRY_CAPACITY);
    assert_eq!(run.large_ids, hardware, "the triangles left to raster.large");
    assert!(run.wide_counts.0 as usize > wide && run.wide_counts.1 as usize >= wide, "{:?}", run.wide_counts);
    assert_vis_matches(&run.vis, &expected, &covering, size);
    // With room for only 20 tile entries, or for only 10 listed triangles, the triangles that
    // find the list full go to raster.large: none lost (drawn here by the twin, as the hardware
    // would), none drawn twice.
    let triangles = &triangles[..300];
    for (triangle_capacity, entry_capacity) in [(triangles.len() as u64, 20), (10, WIDE_ENTRY_CAPACITY)] {
        let mut run = run_wide_probe(&gpu, triangles, size, large_px, triangle_capacity, entry_capacity);
        let counts = run.wide_counts;
        assert!(counts.0 as u64 <= entry_capacity && counts.1 as u64 <= triangle_capacity, "{counts:?}");
        // The listed count, raster.bin's workgroup count, ends at the capacity when it overflows.
        assert!(triangle_capacity > 10 || counts.1 == 10, "{counts:?}");
        assert!(run.large_ids.len() > 10, "{counts:?}, {} to raster.large", run.large_ids.len());
        draw_as_the_hardware(&mut run, triangles, size);
        assert_vis_matches(&run.vis, &expected, &covering, size);
    }
}

/// Adds to `run`'s visibility buffer what the hardware would draw of the triangles it left to
/// raster.large (by the twin: every pixel centre inside), each drawn.
fn draw_as_the_hardware(run: &mut WideRun, triangles: &[[[f32; 4]; 3]], size: u32) {
    for &id in &run.large_ids {
        let mut alone = vec![0u64; run.vis.len()];
        assert_eq!(rasterise_twin(&mut alone, size, 0, &triangles[id as usize], id), TriangleOutcome::Drawn, "triangle {id}");
        for (pixel, &word) in alone.iter().enumerate().filter(|(_, &w)| w != 0) {
            run.vis[pixel] = run.vis[pixel].max(word);
        }
    }
}

/// A random triangle of which one or two corners lie behind the near plane (clip z = 0.1, as the
/// reverse-Z projection's near distance; w from -1 to 2), the others anywhere on a viewport of
/// `size` or beyond.
fn random_crossing_triangle(rng: &mut impl Rng) -> [[f32; 4]; 3] {
    loop {
        let triangle: [[f32; 4]; 3] = std::array::from_fn(|_| {
            let w = rng.random_range(-1.0..2.0f32);
            [rng.random_range(-1.5..1.5f32) * w, rng.random_range(-1.5..1.5f32) * w, 0.1, w]
        });
        let in_front = triangle.iter().filter(|p| in_front_of_near_plane(p)).count();
        if in_front == 1 || in_front == 2 {
            return triangle;
        }
    }
}

/// A random triangle in front of the near plane with one or two corners beyond the clip-space
/// guard band (|x| or |y| up to 2000 w, the band being 256 w), the others near the viewport.
fn random_far_triangle(rng: &mut impl Rng) -> [[f32; 4]; 3] {
    let far = rng.random_range(1..3);
    std::array::from_fn(|k| {
        let w = rng.random_range(0.2..2.0f32);
        let reach = if k < far { 2000.0 } else { 1.5 };
        [rng.random_range(-reach..reach) * w, rng.random_range(-reach..reach) * w, 0.1, w]
    })
}

#[test]
fn wide_pass_clips_triangles_crossing_the_near_plane_as_its_cpu_twin() {
    let mut rng = common::rng("wide_pass_clips_triangles_crossing_the_near_plane_as_its_cpu_twin");
    let field = procedural::generate(1, 65, 1000.0);
    let gpu = gpu(&field);
    let (size, large_px) = (72u32, 12u32);
    // Crossing triangles, triangles beyond the guard band, and large ones in front between them
    // (2, 2 and 1 in 5).
    let triangles: Vec<[[f32; 4]; 3]> = (0..200)
        .map(|i| match i % 5 {
            0 => {
                let extent_px = rng.random_range(14.0..100.0);
                random_triangle(&mut rng, size, extent_px)
            }
            1 | 2 => random_far_triangle(&mut rng),
            _ => random_crossing_triangle(&mut rng),
        })
        .collect();
    let mut expected = vec![0u64; (size * size) as usize];
    let mut covering: Vec<Vec<u64>> = vec![Vec::new(); expected.len()];
    let mut hardware = Vec::new();
    for (i, triangle) in triangles.iter().enumerate() {
        let mut alone = vec![0u64; expected.len()];
        if rasterise_twin(&mut alone, size, large_px, triangle, i as u32) == TriangleOutcome::Large {
            hardware.push(i as u32);
        }
        for (pixel, &word) in alone.iter().enumerate().filter(|(_, &w)| w != 0) {
            covering[pixel].push(word);
            expected[pixel] = expected[pixel].max(word);
        }
    }
    let run = run_wide_probe(&gpu, &triangles, size, large_px, triangles.len() as u64, WIDE_ENTRY_CAPACITY);
    assert_eq!(run.large_ids, hardware, "the triangles left to raster.large");
    assert!(hardware.is_empty(), "with room in the lists, nothing is left to the hardware: {hardware:?}");
    // What raster.bin set up for each piece it binned, exactly (integers and depths), and the
    // tiles it binned it in.
    let (mut pieces, mut split, mut guard, mut binned) = (0, 0, 0, 0);
    for (i, (id, slots)) in run.setups.iter().enumerate() {
        let triangle = &triangles[*id as usize];
        let twin = clip_pieces_cpu(triangle);
        split += usize::from(twin.len() > 1);
        // Split while wholly in front: by the guard band's planes.
        guard += usize::from(twin.len() > 1 && triangle.iter().all(in_front_of_near_plane));
        for (p, piece) in twin.iter().enumerate() {
            let Some(t) = wide_setup_cpu((size, size), piece, *id) else { continue };
            if t.lo_px[0] > t.hi_px[0] || t.lo_px[1] > t.hi_px[1] || wide_area(&t) <= 0 {
                continue;
            }
            pieces += 1;
            assert_eq!(slots[p], t, "triangle {id} {triangle:?}, piece {p} {piece:?}");
            let tiles = wide_tiles_cpu(&t);
            assert_eq!(run.tiles[i * WIDE_PIECES as usize + p], tiles, "triangle {id}, piece {p}: tiles");
            binned += tiles.len();
        }
    }
    assert_eq!(binned, run.wide_counts.0 as usize, "tile entries: the twin's pieces' tiles and no others");
    eprintln!(
        "{pieces} pieces binned, {split} triangles clipped into several ({guard} by the guard band alone), {} listed",
        run.setups.len()
    );
    assert!(
        pieces > 60 && split > 20 && guard > 5,
        "too few clipped pieces drawn: {pieces} ({split} triangles split, {guard} by the guard band)"
    );
    assert_vis_matches(&run.vis, &expected, &covering, size);
}

#[test]
fn srgb_encoding_of_the_compute_shade_matches_its_cpu_twin() {
    // shared/srgb.wgsl through an rgba8unorm storage texture, as the compute shade stores it,
    // against the exact curve: equal, except within 1 level where the exact value lies within
    // 0.02 level of a rounding tie (f32 pow against f64).
    let mut rng = common::rng("srgb_encoding_of_the_compute_shade_matches_its_cpu_twin");
    let field = procedural::generate(1, 65, 1000.0);
    let gpu = gpu(&field);
    let device = &gpu.device;
    let (width, height) = (256u32, 16u32);
    // Every level's neighbourhood and the linear segment near 0, then random values, and some
    // outside [0, 1] (clamped).
    let colours: Vec<[f32; 4]> = (0..width * height)
        .map(|i| match i {
            0..=1023 => [i as f32 / 1023.0, (i as f32 / 1023.0).powi(3), i as f32 * 4e-6, 0.0],
            _ => [rng.random_range(-0.1..1.1f32), rng.random_range(0.0..0.01f32), rng.random_range(0.0..1.0f32), 0.0],
        })
        .collect();
    let pipeline = SHADERS.compute_pipeline(device, "srgb_probe", "srgb_probe.wgsl", "probe", &[]);
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&colours),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&view) },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((width * height).div_ceil(64), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let bytes = bisector::gpu::readback::read_texture_rgba8(device, &gpu.queue, &texture, width, height);
    let mut near_ties = 0;
    for (i, (colour, got)) in colours.iter().zip(bytes.chunks(4)).enumerate() {
        for c in 0..3 {
            let want = srgb_encoded_u8(colour[c]);
            let linear = f64::from(colour[c]).clamp(0.0, 1.0);
            let exact = 255.0 * if linear <= 0.0031308 { 12.92 * linear } else { 1.055 * linear.powf(1.0 / 2.4) - 0.055 };
            let near_tie = (exact.fract() - 0.5).abs() < 0.02;
            near_ties += usize::from(near_tie && got[c] != want);
            let allowed = if near_tie { 1 } else { 0 };
            assert!(
                got[c].abs_diff(want) <= allowed,
                "value {i} channel {c}: linear {} gave {} on the GPU, {want} exactly",
                colour[c],
                got[c]
            );
        }
        assert_eq!(got[3], 255, "value {i}: alpha");
    }
    eprintln!("sRGB encoding: {near_ties} of {} channels off by one at a rounding tie", colours.len() * 3);
}
