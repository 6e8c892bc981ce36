//! A perspective camera in world metres (x east, y north, z up) with reverse-Z infinite projection.

use glam::{DVec3, Mat4, Vec3};

/// Where the camera is and where it looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub position_m: DVec3,
    /// Unit view direction.
    pub forward: DVec3,
    pub fov_y_deg: f64,
}

/// Closest distance the camera renders, in metres.
pub const NEAR_M: f32 = 0.5;

impl Camera {
    /// A camera at `position_m` looking at `target_m`.
    pub fn look_at(position_m: DVec3, target_m: DVec3, fov_y_deg: f64) -> Camera {
        Camera { position_m, forward: (target_m - position_m).normalize(), fov_y_deg }
    }

    /// Vertical field of view in radians.
    pub fn fov_y_rad(&self) -> f32 {
        (self.fov_y_deg as f32).to_radians()
    }

    /// World -> clip transform for a viewport of aspect ratio `aspect` (width / height), reverse Z.
    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        let up = if self.forward.z.abs() > 0.999 { Vec3::Y } else { Vec3::Z };
        let view = Mat4::look_to_rh(self.position_m.as_vec3(), self.forward.as_vec3(), up);
        Mat4::perspective_infinite_reverse_rh(self.fov_y_rad(), aspect, NEAR_M) * view
    }

    /// The default view of a terrain square of `size_m`: from above one corner, looking across it.
    pub fn default_for_terrain(size_m: f64, height_max_m: f64) -> Camera {
        let position = DVec3::new(0.02 * size_m, 0.1 * size_m, height_max_m + 0.12 * size_m);
        let target = DVec3::new(0.6 * size_m, 0.55 * size_m, 0.0);
        Camera::look_at(position, target, 50.0)
    }
}
