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

    /// A one-line warning when the camera is below the ground of `field` (the view would be
    /// see-through or black); None above it, or outside the part with data.
    pub fn below_ground_warning(&self, field: &crate::terrain::HeightField) -> Option<String> {
        let p = self.position_m;
        let ground_m = f64::from(field.ground_m(p.x, p.y)?);
        (p.z < ground_m).then(|| {
            format!(
                "warning: the camera at {:.1},{:.1},{:.1} is {:.1} m below the ground ({ground_m:.1} m there): the view shows the terrain from beneath",
                p.x,
                p.y,
                p.z,
                ground_m - p.z
            )
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::procedural;

    #[test]
    fn a_camera_below_the_ground_is_warned_about() {
        let field = procedural::generate(procedural::DEFAULT_SEED, 129, procedural::DEFAULT_SIZE_M);
        let (x, y) = (7300.0, 12100.0);
        let ground = f64::from(field.ground_m(x, y).unwrap());
        let camera = |z: f64| Camera::look_at(DVec3::new(x, y, z), DVec3::new(x + 100.0, y, z), 50.0);
        let warning = camera(ground - 20.0).below_ground_warning(&field).expect("20 m below the ground");
        assert!(warning.starts_with("warning:") && warning.contains("20.0 m below the ground") && !warning.contains('\n'), "{warning}");
        assert_eq!(camera(ground + 1.0).below_ground_warning(&field), None);
        let outside = Camera::look_at(DVec3::new(-500.0, y, -1e4), DVec3::new(0.0, y, 0.0), 50.0);
        assert_eq!(outside.below_ground_warning(&field), None, "outside the data nothing is known");
    }
}
