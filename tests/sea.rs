//! The globe's sea (src/globe/sea, shaders/shared/globe_sea.wgsl): its wave tiles on the GPU
//! against the CPU twin, the golden "the sea at dawn looking at a coast from 20 m", and a
//! check that needs no human: the glint's brightest pixels lie on the sun's reflection.

mod common;

#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use bisector::globe::cache::tile_cache::{TileCache, TileCacheConfig};
use bisector::globe::camera::GlobeCamera;
use bisector::globe::ground::Ground;
use bisector::globe::renderer::{GlobeRenderer, GlobeSettings};
use bisector::globe::sea;
use bisector::globe::sea::tiles::SeaTiles;
use bisector::globe::spec::GlobeSpec;
use bisector::globe::sun;
use bisector::gpu::target::COLOR_FORMAT;
use bisector::schedule::headless::HeadlessView;
use glam::{DVec3, DVec4};
use rand::Rng;

/// The wave tiles the GPU computes ("sea.waves", "sea.mips") equal the CPU twin's sums at the
/// texel centres and 2 x 2 means, for fresh random waves (wave vectors up to 50 whole cycles a
/// tile, steepness a |k| up to 0.1) at a random time up to 10^4 s: per texel and channel, at every
/// mip level, within 1e-3 of the value (the tiles are f16, half an ulp 4.9e-4 of the value, and
/// each level rounds its means again) plus 2e-3 of the channel's largest magnitude in the tile at
/// mip 0: Vulkan allows sin and cos an absolute error of 2^-11 (lavapipe's come near it: 64 such
/// errors reach 8e-4 of that magnitude here; the H100's are about 2^-21).
#[test]
fn the_gpu_wave_tiles_equal_the_cpu_twin() {
    let gpu = common::gpu(10);
    let mut rng = common::rng("the_gpu_wave_tiles_equal_the_cpu_twin");
    let waves: Vec<sea::Wave> = (0..sea::LAYERS * sea::WAVES_PER_LAYER)
        .map(|i| {
            let (m, n) = loop {
                let (m, n) = (rng.random_range(-50..=50), rng.random_range(-50..=50));
                if m * m + n * n > 0 && m * m + n * n <= 2500 {
                    break (m, n);
                }
            };
            let k = std::f64::consts::TAU * ((m * m + n * n) as f64).sqrt() / sea::TILE_M[i / sea::WAVES_PER_LAYER];
            let amplitude_m = rng.random_range(0.0..0.1) / k;
            sea::Wave { m, n, amplitude_m, phase_rad: rng.random_range(0.0..std::f64::consts::TAU) }
        })
        .collect();
    let time_s = rng.random_range(0.0..1e4);
    let mut tiles = SeaTiles::with_waves(&gpu.device, waves.clone());
    let camera = DVec3::new(rng.random_range(-7e6..7e6), rng.random_range(-7e6..7e6), rng.random_range(-7e6..7e6));
    tiles.set_view(&gpu.queue, camera, &sea::SeaSettings { enabled: true, time_s });
    let profiler = bisector::gpu::create_profiler(&gpu.device);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    tiles.record(&mut encoder, &profiler);
    gpu.queue.submit([encoder.finish()]);
    let mut cpu = sea::tile_texels(&sea::wave_records(&waves, time_s));
    let texels = (sea::TILE_SIDE * sea::TILE_SIDE) as usize;
    // The largest magnitude of each channel in each tile at mip 0.
    let scale: Vec<[f64; 4]> =
        cpu.chunks_exact(texels).map(|t| std::array::from_fn(|c| t.iter().map(|v| v[c].abs()).fold(0.0, f64::max))).collect();
    let mut side = sea::TILE_SIDE;
    let mut worst = 0.0f64;
    for mip in 0..sea::MIP_LEVELS {
        let gpu_texels = tiles.read_level(&gpu.device, &gpu.queue, mip);
        assert_eq!(gpu_texels.len(), cpu.len());
        let per_layer = (side * side) as usize;
        for (index, (g, c)) in gpu_texels.iter().zip(&cpu).enumerate() {
            let layer = index / per_layer;
            for channel in 0..4 {
                let error = (g[channel] as f64 - c[channel]).abs();
                let tolerance = 1e-3 * c[channel].abs() + 2e-3 * scale[layer][channel];
                worst = worst.max(error / tolerance);
                assert!(
                    error <= tolerance,
                    "mip {mip} tile {layer} texel {} channel {channel}: GPU {} CPU {} (tolerance {tolerance:e})",
                    index % per_layer,
                    g[channel],
                    c[channel]
                );
            }
        }
        eprintln!("mip {mip}: largest error {worst:.2} of the tolerance");
        cpu = sea::next_mip(&cpu, side);
        side /= 2;
    }
    // The comparison means something: the tiles have slopes.
    assert!(scale.iter().all(|s| s[0] > 0.05 && s[3] > 0.01), "flat tiles: {scale:?}");
}

/// A file of the repository's elevation data (heightmaps/).
fn data(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative)
}

/// ETOPO20 + the Taiwan pyramid rendered from `camera` under `sun` at `size_px` until settled.
fn render(camera: &GlobeCamera, sun: DVec3, size_px: (u32, u32)) -> image::RgbaImage {
    let spec = GlobeSpec::Earth { base: data("etopo20_global.tif"), regions: vec![data("taiwan-terrain-rgb")] };
    let ground = Ground::open(&spec).unwrap_or_else(|e| panic!("{e}"));
    let max_depth = 28;
    let gpu = common::gpu(max_depth);
    let cache =
        TileCache::new(&gpu, TileCacheConfig { tiles: 256, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
    let settings = GlobeSettings { max_depth, leaf_capacity: 1 << 18, sun_direction: sun, ..Default::default() };
    let renderer = GlobeRenderer::new(&gpu, settings, COLOR_FORMAT, cache);
    let mut view = HeadlessView::new(&gpu, renderer, size_px.0, size_px.1);
    let (frames, _) = view.converge(&gpu, camera, 1000);
    assert!(view.scene.cache.is_settled(), "the tile cache did not settle in {frames} frames");
    view.image(&gpu)
}

/// The sea at dawn: 20 m above the sea off Taiwan's east coast below the Qingshui cliffs (the
/// bridge view's place), looking north-north-east along the coast, the sun 6 degrees up in the
/// north-east (azimuth 50).
fn dawn_camera_and_sun() -> (GlobeCamera, DVec3) {
    let camera = GlobeCamera::at_lon_lat(121.695, 24.17, 20.0, 20.0, 2.0, 60.0);
    let sun = sun::sun_from_angles(camera.up(), 50.0, 6.0);
    (camera, sun)
}

/// Where unit direction `dir` (earth-fixed) from `camera` lands on an image of `size_px`
/// (pixels, y down), by the globe frame's projection.
fn project(camera: &GlobeCamera, dir: DVec3, size_px: (u32, u32)) -> (f64, f64) {
    let clip_from_relative = glam::DMat4::from_cols_array_2d(&common::globe_clip_from_relative(camera, size_px).map(|c| c.map(f64::from)));
    // A direction: the point at infinity along it (x, y and w do not depend on the distance).
    let clip = clip_from_relative * DVec4::new(dir.x, dir.y, dir.z, 0.0);
    let (x, y) = (clip.x / clip.w, clip.y / clip.w);
    ((x * 0.5 + 0.5) * size_px.0 as f64, (0.5 - y * 0.5) * size_px.1 as f64)
}

/// Linear luminance of an sRGB pixel.
fn luminance(p: &image::Rgba<u8>) -> f64 {
    let linear = |c: u8| ((c as f64 / 255.0 + 0.055) / 1.055).powf(2.4);
    0.2126 * linear(p[0]) + 0.7152 * linear(p[1]) + 0.0722 * linear(p[2])
}

/// Golden: the sea at dawn looking at a coast from 20 m (dawn_camera_and_sun), 256 x 144. The
/// check that needs no human: below the horizon, the brightest pixels (within 5 % of the
/// brightest's luminance) centre within 4 pixels across and 16 down of where the sun's mirror
/// direction (the sun's reflected in the level sea) projects (the glitter path of the wave
/// spectrum's slopes runs from the horizon to the frame's bottom: its centre lies 12.4 pixels
/// below), and the glint is over 4 times as bright as the sea 80 pixels left of it.
#[test]
fn the_sea_at_dawn_looking_at_a_coast_from_20_m() {
    let size = (256, 144);
    let (camera, sun) = dawn_camera_and_sun();
    let image = render(&camera, sun, size);
    golden::assert_golden("sea_dawn_coast", &image, 0.01);
    let up = camera.up();
    let mirror = sun - 2.0 * sun.dot(up) * up;
    let (mx, my) = project(&camera, mirror, size);
    let level = (sun - sun.dot(up) * up).normalize();
    let (_, horizon_y) = project(&camera, level, size);
    eprintln!("mirror at ({mx:.1}, {my:.1}), horizon row {horizon_y:.1}");
    let below: Vec<(u32, u32, f64)> = (horizon_y.ceil() as u32 + 1..size.1)
        .flat_map(|y| (0..size.0).map(move |x| (x, y)))
        .map(|(x, y)| (x, y, luminance(image.get_pixel(x, y))))
        .collect();
    let brightest = below.iter().map(|p| p.2).fold(0.0, f64::max);
    let bright: Vec<_> = below.iter().filter(|p| p.2 >= 0.95 * brightest).collect();
    let n = bright.len() as f64;
    let (cx, cy) = (bright.iter().map(|p| p.0 as f64 + 0.5).sum::<f64>() / n, bright.iter().map(|p| p.1 as f64 + 0.5).sum::<f64>() / n);
    eprintln!("brightest {brightest:.3}: {n} pixels centred at ({cx:.1}, {cy:.1})");
    assert!(
        (cx - mx).abs() <= 4.0 && (cy - my).abs() <= 16.0,
        "the glint centres at ({cx:.1}, {cy:.1}), the sun's reflection at ({mx:.1}, {my:.1})"
    );
    let aside = luminance(image.get_pixel(mx as u32 - 80, my as u32));
    assert!(brightest > 4.0 * aside, "the glint ({brightest:.3}) is not bright beside the sea 80 pixels left of it ({aside:.3})");
}
