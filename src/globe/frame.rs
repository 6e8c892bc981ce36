//! The globe's per-frame uniforms (shaders/shared/globe_frame.wgsl), and how vertices are placed
//! relative to the camera without jitter.
//!
//! ```text
//! f32 holds an Earth-centred coordinate (6.4e6 m) to about 0.5 m, so no shader works in
//! Earth-centred f32. Vertices are LEB vertices with exact fixed-point map coordinates; their
//! octahedron points q (|x| + |y| + |z| = 1, units of 2^-29) are exact integers too. The unit
//! vector u = q/|q| is the WGS84 ellipsoid's normal there (src/globe/ellipsoid.rs), and a point
//! at height h lies at P(u, h) = N(u_z) D u + h u, with D = diag(1, 1, 1 - e²) and N the prime
//! vertical radius. The CPU picks an anchor A: the octahedron point of the camera's normal,
//! rounded to integers, and sends A, |A| (f64 -> f32), N(a_z) with a = A/|A|, the camera's height
//! h_c above the ellipsoid (f32) and the small residual c = camera - P(a, h_c) (f64 -> f32: a
//! centimetre or so). A vertex at height h is then, relative to the camera,
//!   (N(a_z) D + h) δ + (N(u_z) - N(a_z)) D u + (h - h_c) a - c,    δ = u - a,
//! where d = q - A is exact and δ = d/|q| - A (2 A.d + d.d) / (|q| |A| (|q| + |A|)), and
//!   N(u_z) - N(a_z) = a_eq e² δ_z (u_z + a_z) / (s_u s_a (s_u + s_a)),   s = sqrt(1 - e² z²):
//! every rounding error is relative to d, so it shrinks with the distance to the camera; and
//! h - h_c is exact for nearby vertices (two f32 within a factor of 2), so the large heights
//! (up to 8.8 km) cancel exactly rather than to an f32 ulp. At 2 m above the ground the nearby
//! vertices are placed to a few micrometres (tests/globe_precision.rs).
//! ```

use crate::globe::camera::GlobeCamera;
use crate::globe::ellipsoid;
use crate::leb::lod::Criterion;
use crate::leb::octahedral::{from_unit_sphere, to_fixed};
use glam::{DVec3, Mat4, Vec4};

/// 1.0 on the octahedron in the fixed point of `octahedron_fixed`.
pub const FIXED_ONE: i32 = 1 << 29;

/// Closest distance the camera renders, in metres (reverse-Z float depth keeps its precision
/// relative to distance, so a small near plane costs nothing far away).
pub const NEAR_M: f32 = 0.1;

/// The lowest terrain anywhere lies above this sphere (the ellipsoid's polar radius less the
/// deepest trench, 11 km): the occluder of horizon culling.
pub const OCCLUDER_RADIUS_M: f64 = ellipsoid::WGS84_B_M - 11_000.0;

/// Keep in sync with GlobeFrame in shaders/shared/globe_frame.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GlobeFrame {
    pub clip_from_relative: [[f32; 4]; 4],
    pub anchor_fixed: [i32; 4],
    pub anchor: [f32; 4],
    pub camera_from_anchor_m: [f32; 4],
    pub centre_from_camera_m: [f32; 4],
    pub frustum: [[f32; 4]; 6],
    pub sun_direction: [f32; 4],
    /// xyz = this frame's camera minus the camera of the last globe.pool_decode, in metres
    /// (earth-fixed axes, computed in f64); w = 1 when the pool's criterion may take that decode's
    /// camera-relative vertices moved by xyz, else 0 and xyz = 0 (the heap; the first frame or a
    /// jump, where the pool's scene decodes again at this camera before its update). Set by
    /// `globe::pool_scene`.
    pub camera_moved_m: [f32; 4],
    pub radius_m: f32,
    pub occluder_radius_m: f32,
    pub projection_scale_px: f32,
    pub split_threshold_px: f32,
    pub merge_threshold_px: f32,
    pub wireframe: u32,
    /// 0 = the edge-length criterion, 1 = the test criterion (a hash of the node id; tests set
    /// it), `CRITERION_ERROR` = the data's screen-space error.
    pub criterion: u32,
    /// 1 = the detail below the data (src/globe/detail.rs), 0 = off.
    pub detail: u32,
}
const _: () = assert!(std::mem::size_of::<GlobeFrame>() == 288);

/// The octahedron point (units of 2^-29) of fixed-point map point `map` (MAP_ONE = 2^30), as the
/// shaders compute it: exact.
pub fn octahedron_fixed(map: [u32; 2]) -> [i32; 3] {
    let q = [map[0] as i32 - FIXED_ONE, map[1] as i32 - FIXED_ONE];
    let z = FIXED_ONE - q[0].abs() - q[1].abs();
    if z >= 0 {
        return [q[0], q[1], z];
    }
    let sign = |v: i32| if v >= 0 { 1 } else { -1 };
    [sign(q[0]) * (FIXED_ONE - q[1].abs()), sign(q[1]) * (FIXED_ONE - q[0].abs()), z]
}

/// What the frame needs besides the camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSettings {
    pub split_threshold_px: f32,
    pub merge_threshold_px: f32,
    pub wireframe: bool,
    /// Unit vector towards the sun, earth-fixed.
    pub sun_direction: DVec3,
    /// The edge-length or the data's screen-space error criterion.
    pub criterion: Criterion,
    /// Add the detail below the data (src/globe/detail.rs).
    pub detail: bool,
}

/// GlobeFrame::criterion of the data's screen-space error (GLOBE_CRITERION_ERROR in WGSL).
pub const CRITERION_ERROR: u32 = 2;

/// Under the data's error criterion, a triangle whose hypotenuse projects to less than this many
/// pixels does not split, whatever its error: it covers about a pixel, so finer triangles could
/// not show their error, and at 1 px error rough land (cliffs, 20 m data with detail below it)
/// otherwise refines into several triangles per pixel. On the bridge view at 1080p that filled
/// the 2^20-slot pool with sub-pixel triangles (docs/BENCHMARKS.md, sixth session).
pub const MIN_SPLIT_PX: f32 = 2.0;

/// Under the data's error criterion, the slack in radians on the angle between a line of sight
/// and the vertical (shared/globe_cull.wgsl `globe_vertical_sine`): the vertical is taken as the
/// direction from the Earth's centre, which differs from the ellipsoid's normal by at most
/// 0.0034 rad (geocentric and geodetic latitude), and f32's acos near 1 errs by up to about 5e-4.
pub const VERTICAL_SLACK_RAD: f32 = 0.004;

/// The uniforms of a frame seen by `camera` on a viewport of `size_px`.
pub fn globe_frame(camera: &GlobeCamera, size_px: (u32, u32), settings: &FrameSettings) -> GlobeFrame {
    let aspect = size_px.0 as f32 / size_px.1 as f32;
    let (up, camera_height_m) = ellipsoid::normal_and_height_m(camera.position_m);
    let camera_height_m = camera_height_m as f32;
    let view = view_from_relative(camera);
    let clip_from_relative = Mat4::perspective_infinite_reverse_rh(camera.fov_y_rad(), aspect, NEAR_M) * view;
    let anchor_fixed = octahedron_fixed(to_fixed(from_unit_sphere(up)));
    let anchor = DVec3::new(anchor_fixed[0] as f64, anchor_fixed[1] as f64, anchor_fixed[2] as f64);
    let anchor_unit = anchor / anchor.length();
    let camera_from_anchor = camera.position_m - ellipsoid::position_m(anchor_unit, camera_height_m as f64);
    GlobeFrame {
        clip_from_relative: clip_from_relative.to_cols_array_2d(),
        anchor_fixed: [anchor_fixed[0], anchor_fixed[1], anchor_fixed[2], 0],
        anchor: [anchor.x as f32, anchor.y as f32, anchor.z as f32, anchor.length() as f32],
        camera_from_anchor_m: camera_from_anchor.as_vec3().extend(camera_height_m).to_array(),
        centre_from_camera_m: (-camera.position_m).as_vec3().extend(camera.position_m.length() as f32).to_array(),
        frustum: frustum_planes(clip_from_relative),
        sun_direction: settings.sun_direction.normalize().as_vec3().extend(0.0).to_array(),
        camera_moved_m: [0.0; 4],
        radius_m: ellipsoid::prime_vertical_radius_m(anchor_unit.z) as f32,
        occluder_radius_m: OCCLUDER_RADIUS_M as f32,
        projection_scale_px: size_px.1 as f32 / (2.0 * (camera.fov_y_rad() * 0.5).tan()),
        split_threshold_px: settings.split_threshold_px,
        merge_threshold_px: settings.merge_threshold_px,
        wireframe: settings.wireframe as u32,
        criterion: match settings.criterion {
            Criterion::EdgeLength => 0,
            Criterion::ScreenSpaceError => CRITERION_ERROR,
        },
        detail: settings.detail as u32,
    }
}

/// The rotation from camera-relative metres to view space (looking down -z, the local up above).
pub fn view_from_relative(camera: &GlobeCamera) -> Mat4 {
    let up = ellipsoid::normal_and_height_m(camera.position_m).0;
    let up_hint = if camera.forward.cross(up).length_squared() < 1e-12 { DVec3::Z.cross(up).normalize_or(DVec3::Y).cross(up) } else { up };
    Mat4::look_to_rh(glam::Vec3::ZERO, camera.forward.as_vec3(), up_hint.as_vec3())
}

/// The planes of a reverse-Z infinite frustum (left, right, bottom, top, near, and near again
/// for the missing far plane): dot(xyz, p) + w >= 0 inside, xyz unit.
pub fn frustum_planes(clip_from_relative: Mat4) -> [[f32; 4]; 6] {
    let m = clip_from_relative.transpose();
    let (r0, r1, r2, r3) = (m.x_axis, m.y_axis, m.z_axis, m.w_axis);
    let near = r3 - r2;
    let planes: [Vec4; 6] = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, near, near];
    planes.map(|p| (p / p.truncate().length()).to_array())
}
