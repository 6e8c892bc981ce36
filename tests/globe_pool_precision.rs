//! The bisector pool's vertices and criterion on the globe (shaders/shared/pool_globe.wgsl, through
//! the test kernel pool_globe_probe.wgsl) against f64: vertices of depth-56 leaves near a camera
//! 1 m above the ground are placed within 0.01 px and follow a 1 mm camera move; the criterion on
//! random triangles from depth 4 to 60 agrees with its CPU twin (src/globe/pool_lod.rs) within the
//! tolerance that file states.
mod common;

use common::ProbeBinding;

use bisector::globe::camera::GlobeCamera;
use bisector::globe::frame::{globe_frame, FrameSettings, GlobeFrame};
use bisector::globe::pool_lod;
use bisector::gpu::Gpu;
use bisector::leb::node64::{twice_area_fixed, BaseMesh64, Node64, MAP_ONE_64};
use bisector::leb::octahedral::from_unit_sphere;
use glam::DVec3;
use rand::Rng;

/// Metres per unit of the 64-bit map (2^-62 of the map, whose side spans about 1.8e7 m on the
/// sphere), roughly.
const METRES_PER_UNIT: f64 = 1.8e7 / MAP_ONE_64 as f64;

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

/// Runs entry `entry` of pool_globe_probe.wgsl on `points` at `heights_m`; `outputs` vec4s back.
fn probe(gpu: &Gpu, frame: &GlobeFrame, entry: &str, points: &[[u64; 2]], heights_m: &[f32], outputs: usize) -> Vec<[f32; 4]> {
    let words: Vec<u32> = points.iter().flat_map(|p| [p[0] as u32, (p[0] >> 32) as u32, p[1] as u32, (p[1] >> 32) as u32]).collect();
    let bindings = [
        ProbeBinding::Storage(bytemuck::cast_slice(&words)),
        ProbeBinding::Uniform(bytemuck::bytes_of(frame)),
        ProbeBinding::Storage(bytemuck::cast_slice(heights_m)),
        ProbeBinding::Output(outputs as u64 * 16),
    ];
    bytemuck::pod_collect_to_vec(&common::run_probe(gpu, "pool_globe_probe.wgsl", entry, &bindings, outputs as u32))
}

/// The camera's 64-bit map point.
fn camera_map_point(camera: &GlobeCamera) -> [u64; 2] {
    from_unit_sphere(camera.up()).to_array().map(|c| (c.clamp(0.0, 1.0) * MAP_ONE_64 as f64) as u64)
}

/// Pixels per metre at distance `distance_m` on a 1080-pixel-high view with a 60° field of view.
fn pixels_per_m(distance_m: f64) -> f64 {
    1080.0 / (2.0 * distance_m * (30f64).to_radians().tan())
}

/// Cameras 1 m above the ground (0 to 8,800 m) at random places and on the octahedron's folds:
/// vertices of depth-56 leaves (map grid 2^-28, about 7 cm) within about 40 m are placed within
/// 0.01 px of f64 (at 1 m, 1 px is about 1 mm), and a 1 mm camera move moves them by 1 mm the
/// other way to within 0.01 px.
#[test]
fn pool_vertices_near_a_camera_1m_above_the_ground_do_not_jitter_at_depth_56() {
    let gpu = common::gpu(10);
    let mut rng = common::rng("pool_vertices_near_a_camera_1m_above_the_ground_do_not_jitter_at_depth_56");
    let mut places: Vec<(f64, f64)> = (0..12).map(|_| (rng.random_range(-180.0..180.0), rng.random_range(-89.0..89.0))).collect();
    places.extend([(0.0, 0.0), (90.0, 0.0), (180.0, 23.5), (-90.0, -45.0), (121.0, 0.0)]);
    // Depth 56 is 53 levels below the base: vertices on the grid of 2^-(1 + 27) of the map.
    let grid_mask = !((1u64 << (62 - 28)) - 1);
    let radius_units = (40.0 / METRES_PER_UNIT) as i64;
    let mut worst_px = 0.0f64;
    for (lon_deg, lat_deg) in places {
        let ground_m = rng.random_range(0.0..8800.0);
        let camera = GlobeCamera::at_lon_lat(lon_deg, lat_deg, ground_m + 1.0, rng.random_range(0.0..360.0), -10.0, 60.0);
        let centre = camera_map_point(&camera);
        let points: Vec<[u64; 2]> = (0..512)
            .map(|_| {
                centre.map(|c| ((c as i64 + rng.random_range(-radius_units..=radius_units)).clamp(0, MAP_ONE_64 as i64) as u64) & grid_mask)
            })
            .collect();
        let heights: Vec<f32> = points.iter().map(|_| (ground_m + rng.random_range(-5.0..5.0)) as f32).collect();
        let before = probe(&gpu, &frame(&camera), "positions", &points, &heights, points.len());
        let step = DVec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)).normalize() * 1e-3;
        let moved = GlobeCamera { position_m: camera.position_m + step, ..camera };
        let after = probe(&gpu, &frame(&moved), "positions", &points, &heights, points.len());
        for i in 0..points.len() {
            let exact = pool_lod::relative_position_m(&camera, points[i], heights[i] as f64);
            let distance_m = exact.length().max(1.0);
            let b = DVec3::new(before[i][0] as f64, before[i][1] as f64, before[i][2] as f64);
            let a = DVec3::new(after[i][0] as f64, after[i][1] as f64, after[i][2] as f64);
            let error_px = (b - exact).length() * pixels_per_m(distance_m);
            worst_px = worst_px.max(error_px);
            assert!(error_px < 0.01, "{lon_deg},{lat_deg} ground {ground_m:.0} m: vertex {:?} off by {error_px:.4} px", points[i]);
            let move_error_px = ((a - b) + step).length() * pixels_per_m(distance_m);
            assert!(
                move_error_px < 0.01,
                "{lon_deg},{lat_deg}: a 1 mm camera move moved vertex {:?} wrongly by {move_error_px:.4} px",
                points[i]
            );
        }
    }
    eprintln!("worst error {worst_px:.5} px");
}

fn contains(v: &[[u64; 2]; 3], p: [u64; 2]) -> bool {
    let sign = twice_area_fixed(*v).signum();
    (0..3).all(|i| twice_area_fixed([v[i], v[(i + 1) % 3], p]) * sign >= 0)
}

/// The node of `depth` that holds map point `p`.
fn node_at(mesh: &BaseMesh64, p: [u64; 2], depth: u32) -> Node64 {
    let mut node = mesh.roots().find(|&r| contains(&mesh.decode_vertices(r), p)).expect("a base triangle holds every map point");
    while node.depth() < depth {
        node =
            [node.child(0), node.child(1)].into_iter().find(|&c| contains(&mesh.decode_vertices(c), p)).expect("a child holds the point");
    }
    node
}

/// Random triangles from depth 4 to 60 near and far from cameras 1 m to 100 km above the ground:
/// the GPU's criterion (f32) equals the f64 twin within the tolerance of `pool_lod` where both see
/// the ball (and so does the data's error criterion's bound on the sine of the line of sight to
/// the vertical, within `pool_lod::VERTICAL_SINE_TOLERANCE`), and disagrees on hidden only for balls within `pool_lod::CULL_TOLERANCE` of a cull
/// boundary.
#[test]
fn the_pool_criterion_equals_its_cpu_twin_on_random_triangles() {
    let gpu = common::gpu(10);
    let mut rng = common::rng("the_pool_criterion_equals_its_cpu_twin_on_random_triangles");
    let mesh = BaseMesh64::octahedron();
    let (mut visible, mut hidden, mut borderline, mut sines_below_one) = (0, 0, 0, 0);
    for _ in 0..12 {
        let ground_m = rng.random_range(0.0..3000.0);
        let altitude_m = ground_m + 10f64.powf(rng.random_range(0.0..5.0));
        let camera = GlobeCamera::at_lon_lat(
            rng.random_range(-180.0..180.0),
            rng.random_range(-89.0..89.0),
            altitude_m,
            rng.random_range(0.0..360.0),
            rng.random_range(-60.0..-5.0),
            60.0,
        );
        let frame = frame(&camera);
        let centre = camera_map_point(&camera);
        let mut triangles = Vec::new();
        for _ in 0..400 {
            let depth = rng.random_range(4..=60u32);
            // Points around the camera at distances of the order of the node's size.
            let reach = (MAP_ONE_64 >> (depth / 2)) as f64 * rng.random_range(0.0..4.0);
            let p = centre.map(|c| (c as f64 + rng.random_range(-reach..=reach)).clamp(0.0, MAP_ONE_64 as f64) as u64);
            triangles.push(mesh.decode_vertices(node_at(&mesh, p, depth)));
        }
        let heights: Vec<f32> = triangles.iter().flat_map(|_| [0; 3]).map(|_: i32| rng.random_range(0.0..3000.0) as f32).collect();
        let points: Vec<[u64; 2]> = triangles.iter().flatten().copied().collect();
        let gpu_errors = probe(&gpu, &frame, "errors", &points, &heights, triangles.len());
        for (i, v) in triangles.iter().enumerate() {
            let h = [0, 1, 2].map(|k| heights[3 * i + k] as f64);
            let cpu = pool_lod::error_sq_px2(&frame, &camera, *v, h);
            let gpu_e2 = gpu_errors[i][0] as f64;
            if cpu > 0.0 && gpu_e2 > 0.0 {
                visible += 1;
                let (c, g) = (cpu.sqrt(), gpu_e2.sqrt());
                let limit = pool_lod::AGREEMENT_LIMIT_PX;
                let agrees = if c > limit || g > limit {
                    c > limit && g > limit
                } else {
                    (g - c).abs() <= pool_lod::ERROR_TOLERANCE * c + pool_lod::ERROR_TOLERANCE_PX
                };
                assert!(agrees, "triangle {v:?}: GPU e {g} px, CPU {c} px");
                // The data's error criterion's bound on the line of sight's sine to the vertical.
                let sine = pool_lod::vertical_sine(&camera, &pool_lod::bound(&camera, *v, h));
                let gpu_sine = gpu_errors[i][1] as f64;
                assert!(
                    (gpu_sine - sine).abs() <= pool_lod::VERTICAL_SINE_TOLERANCE,
                    "triangle {v:?}: GPU vertical sine {gpu_sine}, CPU {sine}"
                );
                sines_below_one += usize::from(sine < 0.9);
            } else if cpu == 0.0 && gpu_e2 == 0.0 {
                hidden += 1;
            } else {
                borderline += 1;
                let b = pool_lod::bound(&camera, *v, h);
                let scaled = |s: f64| pool_lod::is_hidden(&frame, &camera, &pool_lod::PoolBound { radius_m: b.radius_m * s, ..b });
                assert_ne!(
                    scaled(1.0 - pool_lod::CULL_TOLERANCE),
                    scaled(1.0 + pool_lod::CULL_TOLERANCE),
                    "triangle {v:?}: GPU e² {gpu_e2}, CPU {cpu}, not near a cull boundary"
                );
            }
        }
    }
    eprintln!("{visible} visible ({sines_below_one} seen at a vertical sine under 0.9), {hidden} hidden, {borderline} on a cull boundary");
    assert!(visible > 100 && hidden > 100, "too few of each: {visible} visible, {hidden} hidden");
    assert!(sines_below_one > 10, "too few triangles seen steeply: {sines_below_one}");
}
