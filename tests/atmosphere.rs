//! The globe's atmosphere (src/globe/atmosphere): its transmittance table and sky-view texels
//! against the CPU twin (f64), the sky at noon (brighter and paler at the horizon than at the
//! zenith), and goldens of the Earth's limb from orbit, mountains at noon and the night side,
//! with the checks that need no human (the limb glows above the solid planet; the terrain under
//! a camera at night is dark).

mod common;
#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use bisector::globe::atmosphere::cpu::{self, Table2, Tables};
use bisector::globe::atmosphere::{
    sky_scissor_px, uniforms, Atmosphere, AtmosphereParams, AtmosphereView, Table, AERIAL_PERSPECTIVE_SIZE, MULTIPLE_SCATTERING_SIZE,
    SKY_VIEW_SIZE, TRANSMITTANCE_SIZE,
};
use bisector::globe::cache::tile_cache::{TileCache, TileCacheConfig};
use bisector::globe::camera::GlobeCamera;
use bisector::globe::ground::Ground;
use bisector::globe::renderer::{GlobeRenderer, GlobeSettings};
use bisector::globe::sea::SeaSettings;
use bisector::globe::spec::GlobeSpec;
use bisector::globe::sun;
use bisector::gpu::target::{OffscreenTarget, COLOR_FORMAT};
use bisector::gpu::Gpu;
use bisector::schedule::headless::HeadlessView;
use bisector::schedule::FrameTarget;
use glam::DVec3;
use rand::Rng;

/// The atmosphere with its tables built for `camera` on `size_px` under `sun` (and, with
/// `target`, its sky drawn there).
fn atmosphere_for(gpu: &Gpu, camera: &GlobeCamera, sun: DVec3, size_px: (u32, u32), target: Option<&OffscreenTarget>) -> Atmosphere {
    let mut atmosphere = Atmosphere::new(&gpu.device, AtmosphereParams::earth(), COLOR_FORMAT);
    atmosphere
        .set_view(&gpu.queue, &AtmosphereView::of_camera(camera, common::globe_clip_from_relative(camera, size_px), size_px, sun, true));
    let mut profiler = bisector::gpu::create_profiler(&gpu.device);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    atmosphere.record_tables(&mut encoder, &profiler);
    if let Some(target) = target {
        let frame = FrameTarget { size_px, color: &target.color_view, depth: &target.depth_view };
        assert!(atmosphere.record_sky(&mut encoder, &profiler, &frame));
    }
    profiler.resolve_queries(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    profiler.end_frame().unwrap();
    gpu.wait_idle();
    atmosphere
}

fn table2(atmosphere: &Atmosphere, gpu: &Gpu, table: Table, (width, height): (u32, u32)) -> Table2 {
    Table2 { width, height, texels: atmosphere.read_table(&gpu.device, &gpu.queue, table) }
}

/// Transmittance: 300 random texels of the GPU's table (f32 march, f16 storage) equal the f64
/// twin within 1e-3 + 1e-3 x the value (f16 keeps 11 bits: 5e-4 relative).
#[test]
fn the_transmittance_table_equals_the_cpu_twin() {
    let gpu = common::gpu(16);
    let mut rng = common::rng("the_transmittance_table_equals_the_cpu_twin");
    let camera = GlobeCamera::at_lon_lat(0.0, 0.0, 1000.0, 0.0, 0.0, 60.0);
    let atmosphere = atmosphere_for(&gpu, &camera, DVec3::Z, (64, 64), None);
    let table = table2(&atmosphere, &gpu, Table::Transmittance, TRANSMITTANCE_SIZE);
    let params = AtmosphereParams::earth();
    let mut worst = 0.0f64;
    for _ in 0..300 {
        let (x, y) = (rng.random_range(0..TRANSMITTANCE_SIZE.0), rng.random_range(0..TRANSMITTANCE_SIZE.1));
        let want = cpu::transmittance_texel(&params, (x, y), TRANSMITTANCE_SIZE);
        let got = table.texels[(y * TRANSMITTANCE_SIZE.0 + x) as usize];
        for c in 0..3 {
            let error = (got[c] as f64 - want[c]).abs();
            worst = worst.max(error);
            assert!(error <= 1e-3 + 1e-3 * want[c], "texel ({x}, {y}) channel {c}: GPU {} CPU {}", got[c], want[c]);
        }
    }
    eprintln!("transmittance: largest difference {worst:.2e}");
    // Physical sense: straight up from the ground, blue is dimmed most (Rayleigh), and a ray
    // along the ground loses nearly everything.
    let up = cpu::transmittance_texel(&params, (0, 0), TRANSMITTANCE_SIZE);
    assert!(up[2] < up[0] && up[0] < 1.0 && up[2] > 0.5, "vertical transmittance {up:?}");
}

/// Sky view: 200 random texels of the GPU's table for a random camera (1 m to 50 km up, or
/// from space) and sun equal the f64 twin, which reads the GPU's transmittance and
/// multiple-scattering tables, within 3 % + 2e-4 (f16 storage, f32 against f64), and 15 % in
/// the three rows each side of the horizon, whose rays graze the ground: there the march's
/// length changes fastest with the angle (from space, measured up to 6 %). From space the rows
/// at the horizon are skipped: whether a ray there touches the ground flips between f32 and f64.
#[test]
fn sky_view_texels_equal_the_cpu_twin() {
    let gpu = common::gpu(16);
    let mut rng = common::rng("sky_view_texels_equal_the_cpu_twin");
    let params = AtmosphereParams::earth();
    for round in 0..3 {
        let altitude_m = match round {
            0 => 1.0,
            1 => 10f64.powf(rng.random_range(1.0..4.7)),
            _ => rng.random_range(200e3..20_000e3),
        };
        let camera = GlobeCamera::at_lon_lat(rng.random_range(-180.0..180.0), rng.random_range(-80.0..80.0), altitude_m, 0.0, 0.0, 60.0);
        let sun = sun::sun_from_angles(camera.up(), rng.random_range(0.0..360.0), rng.random_range(-5.0..90.0));
        let atmosphere = atmosphere_for(&gpu, &camera, sun, (64, 64), None);
        let transmittance = table2(&atmosphere, &gpu, Table::Transmittance, TRANSMITTANCE_SIZE);
        let m = MULTIPLE_SCATTERING_SIZE;
        let multiple_scattering = table2(&atmosphere, &gpu, Table::MultipleScattering, (m, m));
        let sky = table2(&atmosphere, &gpu, Table::SkyView, SKY_VIEW_SIZE);
        let tables = Tables { transmittance: &transmittance, multiple_scattering: &multiple_scattering };
        let height_km = bisector::globe::ellipsoid::normal_and_height_m(camera.position_m).1 / 1000.0;
        let cos_sun = camera.up().dot(sun);
        let mut worst = 0.0f64;
        for _ in 0..200 {
            let (x, y) = (rng.random_range(0..SKY_VIEW_SIZE.0), rng.random_range(0..SKY_VIEW_SIZE.1));
            let want = cpu::sky_view_texel(&params, &tables, height_km, cos_sun, (x, y));
            let got = sky.texels[(y * SKY_VIEW_SIZE.0 + x) as usize];
            for c in 0..3 {
                let error = (got[c] as f64 - want[c]).abs();
                worst = worst.max(error / (want[c] + 1e-3));
                let from_horizon = (y as f64 + 0.5 - SKY_VIEW_SIZE.1 as f64 / 2.0).abs();
                if round == 2 && from_horizon <= 1.0 {
                    continue;
                }
                let grazing = from_horizon <= 3.0;
                assert!(
                    error <= 2e-4 + if grazing { 0.15 } else { 0.03 } * want[c],
                    "{altitude_m} m, sun zenith cosine {cos_sun}: texel ({x}, {y}) channel {c}: GPU {} CPU {}",
                    got[c],
                    want[c]
                );
            }
        }
        eprintln!("sky view at {altitude_m:.0} m: largest relative difference {worst:.2e}");
    }
}

/// Aerial perspective: 300 random froxels of the GPU's volume for a random camera 1 m to 32 km up
/// (slices over the horizon's reach), 40-100 km up, 2000 km up looking down and 400 km up at the
/// limb (from 40 km up each column's slices end at the ground), and a random sun, equal the f64 twin (reading
/// the GPU's transmittance and multiple-scattering tables) within 1 % + 2e-4 (in-scatter; measured
/// 9e-4 relative) and 2e-3 (transmittance): f16 storage, f32 against f64. Columns passing within
/// 5 km of the ground are skipped: whether their ray touches it flips between f32 and f64.
#[test]
fn aerial_perspective_froxels_equal_the_cpu_twin() {
    let gpu = common::gpu(16);
    let mut rng = common::rng("aerial_perspective_froxels_equal_the_cpu_twin");
    let params = AtmosphereParams::earth();
    let size = (64, 64);
    let (w, h, d) = AERIAL_PERSPECTIVE_SIZE;
    for round in 0..4 {
        let (altitude_m, pitch_deg) = match round {
            0 => (10f64.powf(rng.random_range(0.0..4.5)), rng.random_range(-30.0..10.0)),
            1 => (rng.random_range(40e3..100e3), rng.random_range(-40.0..-10.0)),
            2 => (2000e3, -90.0),
            _ => (400e3, -12.0),
        };
        let camera =
            GlobeCamera::at_lon_lat(rng.random_range(-180.0..180.0), rng.random_range(-80.0..80.0), altitude_m, 0.0, pitch_deg, 60.0);
        let sun = sun::sun_from_angles(camera.up(), rng.random_range(0.0..360.0), rng.random_range(-5.0..90.0));
        let atmosphere = atmosphere_for(&gpu, &camera, sun, size, None);
        let view = AtmosphereView::of_camera(&camera, common::globe_clip_from_relative(&camera, size), size, sun, true);
        let u = uniforms(&params, &view, &SeaSettings::default());
        assert_eq!(u.viewport[3], if round == 0 { 0.0 } else { 1.0 }, "the slices end at the ground from 40 km up only");
        let transmittance = table2(&atmosphere, &gpu, Table::Transmittance, TRANSMITTANCE_SIZE);
        let m = MULTIPLE_SCATTERING_SIZE;
        let multiple_scattering = table2(&atmosphere, &gpu, Table::MultipleScattering, (m, m));
        let tables = Tables { transmittance: &transmittance, multiple_scattering: &multiple_scattering };
        let volume = atmosphere.read_table(&gpu.device, &gpu.queue, Table::AerialPerspective);
        let camera_km = DVec3::from_array(u.camera_km.map(f64::from)[..3].try_into().unwrap());
        let height_km = u.camera_km[3] as f64;
        let (mut worst, mut checked) = (0.0f64, 0);
        while checked < 300 {
            let (x, y, z) = (rng.random_range(0..w), rng.random_range(0..h), rng.random_range(0..d));
            let mu = camera_km.normalize().dot(cpu::froxel_direction(&u, AERIAL_PERSPECTIVE_SIZE, (x, y)));
            let closest_km = (params.bottom_radius_km + height_km) * (1.0 - mu * mu).sqrt() - params.bottom_radius_km;
            if mu < 0.0 && closest_km.abs() < 5.0 {
                continue;
            }
            checked += 1;
            let want = cpu::aerial_perspective_froxel(&params, &tables, &u, AERIAL_PERSPECTIVE_SIZE, (x, y, z));
            let got = volume[((z * h + y) * w + x) as usize];
            for c in 0..4 {
                let error = (got[c] as f64 - want[c]).abs();
                worst = worst.max(error / (want[c] + 1e-3));
                let bound = if c == 3 { 2e-3 } else { 2e-4 + 0.01 * want[c] };
                assert!(
                    error <= bound,
                    "{altitude_m} m, pitch {pitch_deg}: froxel ({x}, {y}, {z}) channel {c}: GPU {} CPU {}",
                    got[c],
                    want[c]
                );
            }
        }
        eprintln!("aerial perspective at {altitude_m:.0} m: largest relative difference {worst:.2e}");
    }
}

/// Linear luminance and saturation ((max - min) / max) of an sRGB pixel.
fn luminance_saturation(p: &image::Rgba<u8>) -> (f64, f64) {
    let linear = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let [r, g, b] = [linear(p[0]), linear(p[1]), linear(p[2])];
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    (0.2126 * r + 0.7152 * g + 0.0722 * b, if max > 0.0 { (max - min) / max } else { 0.0 })
}

/// The mean luminance and saturation of `rows` x `columns` of `image`.
fn mean_of(image: &image::RgbaImage, rows: std::ops::Range<u32>, columns: std::ops::Range<u32>) -> (f64, f64) {
    let pixels: Vec<_> =
        rows.flat_map(|y| columns.clone().map(move |x| (x, y))).map(|(x, y)| luminance_saturation(image.get_pixel(x, y))).collect();
    let n = pixels.len() as f64;
    (pixels.iter().map(|p| p.0).sum::<f64>() / n, pixels.iter().map(|p| p.1).sum::<f64>() / n)
}

/// At noon (the sun 70 degrees up, behind the camera) 100 m above Taiwan, looking north from the
/// horizon (bottom row) to the zenith (top row): the sky near the horizon is brighter and less
/// saturated than at the zenith.
#[test]
fn at_noon_the_horizon_is_brighter_and_paler_than_the_zenith() {
    let gpu = common::gpu(16);
    let size = (64, 64);
    let camera = GlobeCamera::at_lon_lat(121.0, 23.5, 100.0, 0.0, 45.0, 90.0);
    let sun = sun::sun_from_angles(camera.up(), 180.0, 70.0);
    let target = OffscreenTarget::new(&gpu.device, size.0, size.1);
    atmosphere_for(&gpu, &camera, sun, size, Some(&target));
    let image = target.read_image(&gpu.device, &gpu.queue);
    let zenith = mean_of(&image, 0..4, 24..40);
    let horizon = mean_of(&image, 58..62, 24..40);
    eprintln!("zenith (luminance, saturation) {zenith:?}, horizon {horizon:?}");
    assert!(horizon.0 > zenith.0 * 1.1, "the horizon {horizon:?} is not brighter than the zenith {zenith:?}");
    assert!(horizon.1 < zenith.1 - 0.05, "the horizon {horizon:?} is not paler than the zenith {zenith:?}");
    let top = image.get_pixel(32, 2);
    assert!(top[2] > top[0] + 40, "the zenith is not blue: {top:?}");
}

/// A file of the repository's elevation data (heightmaps/).
fn data(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative)
}

/// Renders ETOPO20 + the Taiwan pyramid from `camera` under `sun` at 256 x 144 until settled and
/// compares it with golden `name`; returns the image and one more frame without the atmosphere.
fn earth_golden(camera: &GlobeCamera, sun: DVec3, max_depth: u32, name: &str) -> (image::RgbaImage, image::RgbaImage) {
    let start = std::time::Instant::now();
    let spec = GlobeSpec::Earth { base: data("etopo20_global.tif"), regions: vec![data("taiwan-terrain-rgb")] };
    let ground = Ground::open(&spec).unwrap_or_else(|e| panic!("{e}"));
    let gpu = common::gpu(max_depth);
    let cache =
        TileCache::new(&gpu, TileCacheConfig { tiles: 256, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
    let settings = GlobeSettings { max_depth, leaf_capacity: 1 << 18, sun_direction: sun, ..Default::default() };
    let renderer = GlobeRenderer::new(&gpu, settings, COLOR_FORMAT, cache);
    let mut view = HeadlessView::new(&gpu, renderer, 256, 144);
    let (frames, _) = view.converge(&gpu, camera, 1000);
    assert!(view.scene.cache.is_settled(), "{name}: the tile cache did not settle in {frames} frames");
    let image = view.image(&gpu);
    eprintln!("{name}: {frames} frames, {:.1} s", start.elapsed().as_secs_f64());
    golden::assert_golden(name, &image, 0.01);
    view.scene.settings.atmosphere = false;
    view.frame(&gpu, camera);
    (image, view.image(&gpu))
}

fn time(text: &str) -> DVec3 {
    sun::sun_at_time(sun::parse_time(text).unwrap())
}

/// Golden: the Earth's limb from 400 km over the South China Sea, looking north, in the
/// morning. Above the solid planet's edge (where the frame without the atmosphere shows space),
/// the limb glows: brighter than the space beside it, in most columns.
#[test]
fn the_limb_from_orbit() {
    let camera = GlobeCamera::at_lon_lat(121.0, 10.0, 400e3, 0.0, -12.0, 60.0);
    let (image, bare) = earth_golden(&camera, time("2026-03-20T03:00Z"), 20, "atmosphere_limb");
    let space = luminance_saturation(bare.get_pixel(128, 2)).0;
    let mut glowing = 0;
    for x in 0..256 {
        // The first row down the column where the bare frame shows the planet.
        let Some(edge) = (0..144).find(|&y| luminance_saturation(bare.get_pixel(x, y)).0 > space + 0.01) else { continue };
        let glow = (edge.saturating_sub(3)..edge).map(|y| luminance_saturation(image.get_pixel(x, y)).0).fold(0.0, f64::max);
        glowing += (glow > space + 0.02) as u32;
    }
    assert!(glowing > 200, "the limb glows above the planet's edge in only {glowing} of 256 columns");
}

/// Golden: Taiwan's Central Range near Yushan from 5 km up, looking north-east, the sun at noon
/// (70 degrees up, in the south).
#[test]
fn mountains_at_noon() {
    let camera = GlobeCamera::at_lon_lat(120.75, 23.2, 5000.0, 45.0, -8.0, 60.0);
    let sun = sun::sun_from_angles(camera.up(), 180.0, 70.0);
    let (image, _) = earth_golden(&camera, sun, 26, "atmosphere_mountains_noon");
    let top = image.get_pixel(128, 2);
    assert!(top[2] > top[0] + 30, "the sky above the mountains is not blue: {top:?}");
}

/// Golden: the night side from 2000 km over Taiwan at 10:30 UTC (dusk there, the terminator to
/// the west). The terrain under the camera is dark: under 1/20 of the same view's at 04:00 UTC.
#[test]
fn the_night_side() {
    let camera = GlobeCamera::at_lon_lat(121.0, 23.0, 2000e3, 0.0, -90.0, 60.0);
    let (night, _) = earth_golden(&camera, time("2026-03-20T10:30Z"), 16, "atmosphere_night");
    let (day, _) = earth_golden(&camera, time("2026-03-20T04:00Z"), 16, "atmosphere_day");
    let (dark, lit) = (mean_of(&night, 62..82, 118..138).0, mean_of(&day, 62..82, 118..138).0);
    eprintln!("luminance under the camera: night {dark:.4}, day {lit:.4}");
    assert!(dark < lit / 20.0, "the terrain under the camera at night ({dark}) is not dark beside the day's ({lit})");
}

/// The total fall of the mean luminance of `rows` of `image` from column `from` outwards to
/// column `to` (where it should only rise), and its total rise.
fn falls_and_rises(image: &image::RgbaImage, rows: std::ops::Range<u32>, from: u32, to: u32) -> (f64, f64) {
    let step: i64 = if to > from { 1 } else { -1 };
    let profile: Vec<f64> = (0..=(to as i64 - from as i64).abs())
        .map(|i| {
            mean_of(image, rows.clone(), {
                let x = (from as i64 + step * i) as u32;
                x..x + 1
            })
            .0
        })
        .collect();
    let falls = profile.windows(2).map(|w| (w[0] - w[1]).max(0.0)).sum();
    let rises = profile.windows(2).map(|w| (w[1] - w[0]).max(0.0)).sum();
    (falls, rises)
}

/// Golden: the open Pacific from 2000 km straight down, the sun 50 degrees up in the east. Away
/// from the sun, the sea's luminance rises from under the camera towards the limb (more air, more
/// Fresnel) without the rings the aerial-perspective volume's depth slices drew from space: along
/// the middle rows westwards, the luminance's falls add up to under 10 % of its rise (measured
/// 3.8 % with the sea's wave tiles, 3.6 % before, the glint's halo near the centre; the rings of slices spread over the longest chord,
/// 30 km apart at the sea, made 44 %).
#[test]
fn the_sea_from_space_has_no_rings() {
    let camera = GlobeCamera::at_lon_lat(-130.0, 8.0, 2000e3, 0.0, -90.0, 60.0);
    let sun = sun::sun_from_angles(camera.up(), 90.0, 50.0);
    let (image, _) = earth_golden(&camera, sun, 16, "atmosphere_open_sea");
    let (falls, rises) = falls_and_rises(&image, 68..77, 124, 4);
    eprintln!("westwards from under the camera: luminance falls {falls:.5}, rises {rises:.5}");
    assert!(rises > 0.0 && falls < 0.1 * rises, "rings: the sea's luminance falls by {falls:.5} against a rise of {rises:.5}");
}

/// The sky pass's scissor (`sky_scissor_px`) holds every pixel whose ray misses the sphere of the
/// ellipsoid's polar radius less 5 km (under every drawn surface: the only pixels the terrain can
/// leave to the sky), by brute force over the pixels of 300 random cameras 1 m to 20,000 km up at
/// 64 x 36; and 1 km up looking 10 degrees down it leaves out the lower half of the frame.
#[test]
fn the_sky_scissor_holds_every_pixel_that_can_show_sky() {
    let mut rng = common::rng("the_sky_scissor_holds_every_pixel_that_can_show_sky");
    let size = (64u32, 36u32);
    let radius_m = bisector::globe::ellipsoid::WGS84_B_M - 5000.0;
    let view_of =
        |camera: &GlobeCamera| AtmosphereView::of_camera(camera, common::globe_clip_from_relative(camera, size), size, DVec3::Z, true);
    for _ in 0..300 {
        let camera = GlobeCamera::at_lon_lat(
            rng.random_range(-180.0..180.0),
            rng.random_range(-89.0..89.0),
            10f64.powf(rng.random_range(0.0..7.3)),
            rng.random_range(0.0..360.0),
            rng.random_range(-90.0..30.0),
            rng.random_range(30.0..90.0),
        );
        let view = view_of(&camera);
        let (x0, y0, w, h) = sky_scissor_px(&view);
        let relative_from_clip = glam::DMat4::from_cols_array_2d(&view.clip_from_relative.map(|c| c.map(f64::from))).inverse();
        for y in 0..size.1 {
            for x in 0..size.0 {
                let ndc = (2.0 * (x as f64 + 0.5) / size.0 as f64 - 1.0, 1.0 - 2.0 * (y as f64 + 0.5) / size.1 as f64);
                let p = relative_from_clip * glam::DVec4::new(ndc.0, ndc.1, 1.0, 1.0);
                let dir = (p.truncate() / p.w).normalize();
                let along = camera.position_m.dot(dir);
                let misses = along >= 0.0 || camera.position_m.length_squared() - along * along > radius_m * radius_m;
                let inside = x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
                assert!(!misses || inside, "{camera:?}: pixel ({x}, {y}) can show sky but lies outside the scissor {:?}", (x0, y0, w, h));
            }
        }
    }
    let low = GlobeCamera::at_lon_lat(121.0, 23.5, 1000.0, 0.0, -10.0, 60.0);
    let (_, y0, _, h) = sky_scissor_px(&view_of(&low));
    assert!(y0 + h <= size.1 / 2, "1 km up looking down, the scissor reaches row {} of {}", y0 + h, size.1);
}
