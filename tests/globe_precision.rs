//! No jitter at 2 m above the ground: the camera-relative vertex positions the globe's shaders
//! compute (globe_relative_position_m, f32) against f64, for cameras 2 m above the ground
//! anywhere on Earth, and under 1 mm camera moves.
mod common;

use common::ProbeBinding;

use bisector::globe::camera::GlobeCamera;
use bisector::globe::ellipsoid;
use bisector::globe::frame::{globe_frame, octahedron_fixed, FrameSettings, GlobeFrame};
use bisector::gpu::Gpu;
use bisector::leb::octahedral::{from_unit_sphere, to_fixed, MAP_ONE};
use glam::DVec3;
use rand::Rng;

/// A vertex: fixed-point map point and height above the WGS84 ellipsoid in metres.
#[derive(Clone, Copy)]
struct Vertex {
    map: [u32; 2],
    height_m: f32,
}

/// The vertex relative to the camera, in f64 from its exact octahedron point.
fn exact_relative_m(v: Vertex, camera: &GlobeCamera) -> DVec3 {
    let q = octahedron_fixed(v.map);
    let unit = DVec3::new(q[0] as f64, q[1] as f64, q[2] as f64).normalize();
    ellipsoid::position_m(unit, v.height_m as f64) - camera.position_m
}

/// The frame uniforms a renderer would use for `camera`.
fn frame(camera: &GlobeCamera) -> GlobeFrame {
    let settings = FrameSettings {
        split_threshold_px: 12.0,
        merge_threshold_px: 9.0,
        wireframe: false,
        sun_direction: DVec3::X,
        criterion: bisector::leb::lod::Criterion::EdgeLength,
        detail: false,
    };
    globe_frame(camera, (1920, 1080), &settings)
}

/// The shaders' camera-relative positions of `vertices` under `frame`.
fn gpu_relative_m(gpu: &Gpu, frame: &GlobeFrame, vertices: &[Vertex]) -> Vec<DVec3> {
    let points: Vec<[u32; 4]> = vertices.iter().map(|v| [v.map[0], v.map[1], v.height_m.to_bits(), 0]).collect();
    let bindings = [
        ProbeBinding::Storage(bytemuck::cast_slice(&points)),
        ProbeBinding::Uniform(bytemuck::bytes_of(frame)),
        ProbeBinding::Output(points.len() as u64 * 16),
    ];
    let out: Vec<[f32; 4]> =
        bytemuck::pod_collect_to_vec(&common::run_probe(gpu, "globe_relative_probe.wgsl", "main", &bindings, points.len() as u32));
    out.iter().map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)).collect()
}

/// Random vertices within about `radius_units` map units (1 unit is about 1.7 cm) of the
/// camera's map point, at heights within 5 m of `ground_m`.
fn vertices_around(rng: &mut impl Rng, camera: &GlobeCamera, ground_m: f64, radius_units: i64, count: usize) -> Vec<Vertex> {
    let centre = to_fixed(from_unit_sphere(camera.up()));
    (0..count)
        .map(|_| {
            let mut offset = |c: u32| (c as i64 + rng.random_range(-radius_units..=radius_units)).clamp(0, MAP_ONE as i64) as u32;
            let map = [offset(centre[0]), offset(centre[1])];
            Vertex { map, height_m: (ground_m + rng.random_range(-5.0..5.0)) as f32 }
        })
        .collect()
}

/// Pixels per metre at distance `distance_m` on a 1080-pixel-high view with a 60° field of view.
fn pixels_per_m(distance_m: f64) -> f64 {
    1080.0 / (2.0 * distance_m * (30f64).to_radians().tan())
}

/// Cameras 2 m above the ground (ground from 0 to 8,800 m) at random places, including the
/// octahedron's folds (the equator and the meridians 0, 90, 180 and 270): every vertex within
/// about 50 m is placed within 0.01 px of where f64 puts it (at 2 m, 1 px is about 2 mm), and
/// moving the camera by 1 mm moves every vertex by 1 mm the other way, to within 0.01 px. An
/// Earth-centred f32 scheme misses both by metres.
#[test]
fn vertices_near_a_camera_2m_above_the_ground_do_not_jitter() {
    let gpu = common::gpu(10);
    let mut rng = common::rng("vertices_near_a_camera_2m_above_the_ground_do_not_jitter");
    let mut places: Vec<(f64, f64)> = (0..12).map(|_| (rng.random_range(-180.0..180.0), rng.random_range(-89.0..89.0))).collect();
    places.extend([(0.0, 0.0), (90.0, 0.0), (180.0, 23.5), (-90.0, -45.0), (121.0, 0.0)]);
    let mut worst_px = 0.0f64;
    let mut worst_move_px = 0.0f64;
    let mut naive_worst_m = 0.0f64;
    for (lon_deg, lat_deg) in places {
        let ground_m = rng.random_range(0.0..8800.0);
        let camera = GlobeCamera::at_lon_lat(lon_deg, lat_deg, ground_m + 2.0, rng.random_range(0.0..360.0), -10.0, 60.0);
        let vertices = vertices_around(&mut rng, &camera, ground_m, 3000, 512);
        let before = gpu_relative_m(&gpu, &frame(&camera), &vertices);
        // The same camera moved by 1 mm in a random direction.
        let step = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)).normalize() * 1e-3;
        let moved = GlobeCamera { position_m: camera.position_m + step, ..camera };
        let after = gpu_relative_m(&gpu, &frame(&moved), &vertices);
        for ((v, b), a) in vertices.iter().zip(&before).zip(&after) {
            let exact = exact_relative_m(*v, &camera);
            let distance_m = exact.length().max(2.0);
            let error_px = (*b - exact).length() * pixels_per_m(distance_m);
            worst_px = worst_px.max(error_px);
            let move_error_px = ((*a - *b) + step).length() * pixels_per_m(distance_m);
            worst_move_px = worst_move_px.max(move_error_px);
            assert!(
                error_px < 0.01,
                "{lon_deg},{lat_deg} ground {ground_m:.0} m: vertex {:?} off by {error_px:.3} px ({:.2e} m at {distance_m:.1} m)",
                v.map,
                (*b - exact).length()
            );
            assert!(
                move_error_px < 0.01,
                "{lon_deg},{lat_deg}: a 1 mm camera move moved vertex {:?} wrongly by {move_error_px:.3} px",
                v.map
            );
            // What f32 Earth-centred coordinates would give: the vertex and camera rounded to f32.
            let exact_world = exact + camera.position_m;
            let naive = exact_world.as_vec3().as_dvec3() - camera.position_m.as_vec3().as_dvec3();
            naive_worst_m = naive_worst_m.max((naive - exact).length());
        }
    }
    eprintln!("worst error {worst_px:.4} px, worst 1 mm move error {worst_move_px:.4} px; Earth-centred f32 would be off by up to {naive_worst_m:.2} m");
    assert!(naive_worst_m > 0.1, "the test must be able to tell an Earth-centred f32 scheme apart ({naive_worst_m} m)");
}
