//! The CPU twin, in f64, of the globe's criterion on the bisector pool's triangles
//! (`pool_globe_error_sq_px2_at` in shaders/shared/pool_globe.wgsl, which the pool's passes
//! evaluate under `globe::pool_scene`): a ball around the triangle's patch relative to the camera,
//! hidden outside the frustum or behind the horizon (error 0), else the squared projected
//! hypotenuse in px².
//!
//! ```text
//! p_i    = (R + h_i) q_i/|q_i| - camera            q_i the exact octahedron point of vertex i
//! centre = (p0 + p1 + p2) / 3,  hyp = |p2 - p0|,  angle = hyp / R
//! radius = max_i |p_i - centre| + R angle² / 8 + hyp / 4
//! e²     = 0 if hidden, else (hyp * projection_scale_px / max(|centre| - radius, 1 m))²
//! ```
//! The GPU computes the same in f32 from exact i64 differences (shared/pool_globe.wgsl), so its
//! positions err by about 1e-7 of their distance to the camera at any depth. Stated tolerance,
//! checked on random triangles from depth 4 to 60 around cameras 1 m to 100 km up
//! (tests/globe_pool_precision.rs): where both see the ball, e agrees within
//! `ERROR_TOLERANCE` · e + `ERROR_TOLERANCE_PX` below `AGREEMENT_LIMIT_PX`, and above it both
//! exceed it (a ball reaching within metres of the camera: |centre| - radius cancels in f32);
//! the hidden decision may differ only for a ball that changes side when its radius moves by
//! `CULL_TOLERANCE` (relative). The absolute term comes from small triangles far away, whose
//! hypotenuse is a difference of two positions each good to about 1e-7 of the distance.

use crate::globe::camera::GlobeCamera;
use crate::globe::ellipsoid;
use crate::globe::frame::{GlobeFrame, OCCLUDER_RADIUS_M, VERTICAL_SLACK_RAD};
use crate::leb::node64::octahedron_point_fixed;
use glam::DVec3;

/// Relative tolerance on the projected error e between the GPU (f32) and this twin.
pub const ERROR_TOLERANCE: f64 = 1e-4;

/// Absolute tolerance on the projected error e in pixels.
pub const ERROR_TOLERANCE_PX: f64 = 1e-3;

/// Projected error in pixels above which the GPU and this twin only agree that it is exceeded
/// (more than any pixel target).
pub const AGREEMENT_LIMIT_PX: f64 = 1000.0;

/// Relative change of a ball's radius within which the GPU and this twin may disagree on hidden.
pub const CULL_TOLERANCE: f64 = 1e-3;

/// A ball around a triangle's patch of terrain, camera-relative metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolBound {
    pub centre: DVec3,
    pub radius_m: f64,
    /// Length of the triangle's hypotenuse (v0-v2) in metres.
    pub hypotenuse_m: f64,
}

/// The point at 64-bit fixed-point map point `p` (MAP_ONE_64 = 1.0) and `height_m` above the
/// WGS84 ellipsoid, relative to `camera`, in metres.
pub fn relative_position_m(camera: &GlobeCamera, p: [u64; 2], height_m: f64) -> DVec3 {
    let q = octahedron_point_fixed(p);
    ellipsoid::position_m(DVec3::new(q[0] as f64, q[1] as f64, q[2] as f64).normalize(), height_m) - camera.position_m
}

/// The ball around triangle `v` whose vertices lie at `heights_m`.
pub fn bound(camera: &GlobeCamera, v: [[u64; 2]; 3], heights_m: [f64; 3]) -> PoolBound {
    let p = [0, 1, 2].map(|i| relative_position_m(camera, v[i], heights_m[i]));
    let centre = (p[0] + p[1] + p[2]) / 3.0;
    let hypotenuse_m = (p[2] - p[0]).length();
    // The frame's radius (GlobeFrame::radius_m): the prime vertical radius under the camera.
    let radius_m = ellipsoid::prime_vertical_radius_m(camera.up().z);
    let angle = hypotenuse_m / radius_m;
    let slack = radius_m * angle * angle / 8.0 + 0.25 * hypotenuse_m;
    let radius_m = p.iter().map(|q| (*q - centre).length()).fold(0.0, f64::max) + slack;
    PoolBound { centre, radius_m, hypotenuse_m }
}

/// Whether the ball is certainly invisible from `camera` under `frame`'s frustum: outside a
/// frustum plane, or inside the occluder sphere's shadow cone beyond its horizon plane.
pub fn is_hidden(frame: &GlobeFrame, camera: &GlobeCamera, b: &PoolBound) -> bool {
    for plane in frame.frustum {
        let normal = DVec3::new(plane[0] as f64, plane[1] as f64, plane[2] as f64);
        if normal.dot(b.centre) + f64::from(plane[3]) < -b.radius_m {
            return true;
        }
    }
    let to_centre = -camera.position_m;
    let d = to_centre.length();
    let r_o = OCCLUDER_RADIUS_M;
    if d <= r_o {
        return false;
    }
    let axis = to_centre / d;
    if (b.centre - to_centre).dot(-axis) + b.radius_m >= r_o * r_o / d {
        return false;
    }
    let c_len = b.centre.length();
    if c_len <= b.radius_m {
        return false;
    }
    let angle = (b.centre.dot(axis) / c_len).clamp(-1.0, 1.0).acos();
    angle + (b.radius_m / c_len).asin() < (r_o / d).asin()
}

/// The hypotenuse's projected length in pixels, seen from the ball's nearest point (at least 1 m).
pub fn projected_px(frame: &GlobeFrame, b: &PoolBound) -> f64 {
    b.hypotenuse_m * frame.projection_scale_px as f64 / (b.centre.length() - b.radius_m).max(1.0)
}

/// Absolute tolerance between the GPU's (f32) `globe_vertical_sine` and `vertical_sine`: f32's
/// acos of a cosine near 1 errs by up to about 3.5e-4 rad, which GLOBE_VERTICAL_SLACK_RAD covers.
pub const VERTICAL_SINE_TOLERANCE: f64 = 1e-3;

/// The data's error criterion's bound, over the ball, on the sine of the angle between a line of
/// sight and the vertical (shared/globe_cull.wgsl `globe_vertical_sine`): a vertical error e at
/// distance d projects to at most e · this / d pixels per unit of projection scale. The angle at
/// the centre (the vertical taken as the direction from the Earth's centre) widens by the ball's
/// angular radius seen from the camera, by the vertical's turn across the ball (radius over the
/// ellipsoid's smallest radius of curvature) and by `VERTICAL_SLACK_RAD`; 1 when the camera is
/// inside the ball.
pub fn vertical_sine(camera: &GlobeCamera, b: &PoolBound) -> f64 {
    let c_len = b.centre.length();
    if c_len <= b.radius_m {
        return 1.0;
    }
    let up = (b.centre + camera.position_m).normalize();
    let angle = (b.centre.dot(up).abs() / c_len).clamp(0.0, 1.0).acos();
    let spread = (b.radius_m / c_len).asin() + b.radius_m / ellipsoid::WGS84_MIN_CURVATURE_RADIUS_M + f64::from(VERTICAL_SLACK_RAD);
    (angle + spread).min(std::f64::consts::FRAC_PI_2).sin()
}

/// The criterion: 0 when hidden, else the squared projected hypotenuse in px².
pub fn error_sq_px2(frame: &GlobeFrame, camera: &GlobeCamera, v: [[u64; 2]; 3], heights_m: [f64; 3]) -> f64 {
    let b = bound(camera, v, heights_m);
    if is_hidden(frame, camera, &b) {
        return 0.0;
    }
    projected_px(frame, &b).powi(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// The sine bound holds: at random points inside random balls around random cameras, the
    /// line of sight's angle to the ellipsoid's normal there has a sine at most `vertical_sine`.
    #[test]
    fn the_vertical_sine_bounds_every_line_of_sight_in_the_ball() {
        let mut rng = XorShift::fresh("the_vertical_sine_bounds_every_line_of_sight_in_the_ball");
        let mut below_one = 0;
        for _ in 0..2000 {
            let camera = GlobeCamera::at_lon_lat(
                rng.range(-180.0, 180.0),
                rng.range(-89.0, 89.0),
                10f64.powf(rng.range(0.0, 7.0)),
                rng.range(0.0, 360.0),
                rng.range(-90.0, 10.0),
                60.0,
            );
            // A ball on the ellipsoid at a random place within the camera's horizon, of a random size.
            let target = ellipsoid::surface_m(
                (camera.up() + DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * rng.range(0.0, 0.3))
                    .normalize(),
            );
            let centre = target - camera.position_m;
            let radius_m = centre.length() * 10f64.powf(rng.range(-4.0, 0.5));
            let b = PoolBound { centre, radius_m, hypotenuse_m: radius_m };
            let bound = vertical_sine(&camera, &b);
            below_one += usize::from(bound < 1.0);
            for _ in 0..20 {
                let offset = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                let p = centre + offset.normalize_or_zero() * radius_m * rng.range(0.0, 1.0);
                let (normal, _) = ellipsoid::normal_and_height_m(p + camera.position_m);
                let sine = p.normalize().cross(normal).length();
                assert!(
                    sine <= bound + 1e-12,
                    "camera {:?}, ball {b:?}: a line of sight at sine {sine} over the bound {bound}",
                    camera.position_m
                );
            }
        }
        assert!(below_one > 500, "too few balls whose bound is under 1: {below_one}");
    }
}
