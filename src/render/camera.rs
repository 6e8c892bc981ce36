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

    /// The default view of the part of a terrain with data (`bounds_m`: west, south, east,
    /// north in metres) rising to `height_max_m`: from above its south-west side, looking across.
    pub fn default_for_terrain(bounds_m: [f32; 4], height_max_m: f64) -> Camera {
        let [west, south, east, north] = bounds_m.map(|v| v as f64);
        let extent = (east - west).max(north - south);
        let position = DVec3::new(west + 0.02 * extent, south + 0.1 * (north - south) - 0.05 * extent, height_max_m + 0.12 * extent);
        let target = DVec3::new(west + 0.6 * (east - west), south + 0.55 * (north - south), 0.0);
        Camera::look_at(position, target, 50.0)
    }
}
