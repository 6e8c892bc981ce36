//! The globe's sea (src/globe/sea.rs, shaders/shared/globe_sea.wgsl): its wave normals on the
//! GPU against the CPU twin, the golden "the sea at dawn looking at a coast from 20 m", and a
//! check that needs no human: the glint's brightest pixels lie on the sun's reflection.

mod common;

use common::ProbeBinding;
#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use bisector::globe::cache::tile_cache::{TileCache, TileCacheConfig};
use bisector::globe::camera::GlobeCamera;
use bisector::globe::ground::Ground;
use bisector::globe::renderer::{GlobeRenderer, GlobeSettings};
use bisector::globe::sea;
use bisector::globe::spec::GlobeSpec;
use bisector::globe::sun;
use bisector::gpu::target::COLOR_FORMAT;
use bisector::schedule::headless::HeadlessView;
use glam::{DVec3, DVec4};
use rand::Rng;

/// The wave normal of 4096 random points (within a period of the origin, a random vertical,
/// time 0..100 s, 1 cm to 20 m per pixel) equals the f64 twin within 2e-4 per component and
/// the faded variance within 1e-6: the phases reach 900 rad, where f32 keeps about 6e-5.
#[test]
fn the_wgsl_wave_normal_equals_the_cpu_twin() {
    let gpu = common::gpu(10);
    let mut rng = common::rng("the_wgsl_wave_normal_equals_the_cpu_twin");
    let probes: Vec<[f32; 8]> = (0..4096)
        .map(|_| {
            let up = loop {
                let v = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                if v.length() > 0.1 && v.length() < 1.0 {
                    break v.normalize();
                }
            };
            let p = [0; 3].map(|_| rng.random_range(0.0..sea::PERIOD_M as f32));
            let time_s = rng.random_range(0.0..100.0f32);
            let pixel_m = 10f32.powf(rng.random_range(-2.0..1.3));
            [p[0], p[1], p[2], time_s, up.x as f32, up.y as f32, up.z as f32, pixel_m]
        })
        .collect();
    let bindings = [ProbeBinding::Storage(bytemuck::cast_slice(&probes)), ProbeBinding::Output(probes.len() as u64 * 16)];
    let normals: Vec<[f32; 4]> =
        bytemuck::pod_collect_to_vec(&common::run_probe(&gpu, "sea_waves_probe.wgsl", "main", &bindings, probes.len() as u32));
    let mut worst = 0.0f64;
    let mut tilted = 0;
    for (p, g) in probes.iter().zip(&normals) {
        let f = p.map(f64::from);
        let up = DVec3::new(f[4], f[5], f[6]);
        let (normal, variance) = sea::wave_normal(DVec3::new(f[0], f[1], f[2]), up, f[3], f[7]);
        let error = (normal - DVec3::new(g[0] as f64, g[1] as f64, g[2] as f64)).abs().max_element();
        worst = worst.max(error);
        tilted += (normal.dot(up) < 0.9999) as u32;
        assert!(error < 2e-4, "probe {p:?}: GPU {g:?}, CPU {normal} {variance} (error {error:e})");
        assert!((variance - g[3] as f64).abs() < 1e-6, "probe {p:?}: variance GPU {} CPU {variance}", g[3]);
    }
    eprintln!("wave normals: largest difference {worst:.2e}");
    // The comparison means something: most probes have waves.
    assert!(tilted > 2048, "only {tilted} of 4096 probes have a tilted normal");
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
/// brightest's luminance) centre within 4 pixels across and 12 down of where the sun's mirror
/// direction (the sun's reflected in the level sea) projects, and the glint is over 4 times as bright as
/// the sea 80 pixels left of it.
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
        (cx - mx).abs() <= 4.0 && (cy - my).abs() <= 12.0,
        "the glint centres at ({cx:.1}, {cy:.1}), the sun's reflection at ({mx:.1}, {my:.1})"
    );
    let aside = luminance(image.get_pixel(mx as u32 - 80, my as u32));
    assert!(brightest > 4.0 * aside, "the glint ({brightest:.3}) is not bright beside the sea 80 pixels left of it ({aside:.3})");
}
