//! An orbit camera: a centre on the terrain, a distance, a heading and an elevation angle.

use glam::DVec3;

use crate::flat::camera::Camera;

/// Orbit state, in metres and radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    pub centre_m: DVec3,
    pub distance_m: f64,
    /// Heading of the camera around the centre (0 = camera on the -y side looking north).
    pub yaw_rad: f64,
    /// Angle above the horizon, kept in (2 deg, 89 deg).
    pub pitch_rad: f64,
}

impl Orbit {
    /// A view of the part of a terrain with data (`bounds_m`: west, south, east, north in metres)
    /// rising to `height_max_m`.
    pub fn framing(bounds_m: [f32; 4], height_max_m: f64) -> Orbit {
        let [west, south, east, north] = bounds_m.map(|v| v as f64);
        let extent = (east - west).max(north - south);
        let centre_m = DVec3::new(0.5 * (west + east), 0.5 * (south + north), 0.3 * height_max_m);
        Orbit { centre_m, distance_m: 0.8 * extent, yaw_rad: -0.6, pitch_rad: 0.45 }
    }

    /// The camera for this orbit.
    pub fn camera(&self) -> Camera {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let (sp, cp) = self.pitch_rad.sin_cos();
        let offset = DVec3::new(sy * cp, -cy * cp, sp) * self.distance_m;
        Camera::look_at(self.centre_m + offset, self.centre_m, 55.0)
    }

    /// Turns by `yaw` and tilts by `pitch` radians.
    pub fn rotate(&mut self, yaw: f64, pitch: f64) {
        self.yaw_rad -= yaw;
        self.pitch_rad = (self.pitch_rad + pitch).clamp(2f64.to_radians(), 89f64.to_radians());
    }

    /// Multiplies the distance by `factor` (kept between 10 m and 1000 km).
    pub fn zoom(&mut self, factor: f64) {
        self.distance_m = (self.distance_m * factor).clamp(10.0, 1.0e6);
    }

    /// Moves the centre `forward_m` along the view heading and `left_m` to its left.
    pub fn pan(&mut self, forward_m: f64, left_m: f64) {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let forward = DVec3::new(-sy, cy, 0.0);
        let left = DVec3::new(-cy, -sy, 0.0);
        self.centre_m += forward * forward_m + left * left_m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_looks_at_the_centre_from_the_given_distance() {
        let orbit = Orbit::framing([0.0, 0.0, 20480.0, 20480.0], 2500.0);
        let camera = orbit.camera();
        assert!((camera.position_m.distance(orbit.centre_m) - orbit.distance_m).abs() < 1e-6);
        assert!((camera.forward - (orbit.centre_m - camera.position_m).normalize()).length() < 1e-9);
    }

    #[test]
    fn controls_stay_in_range() {
        let mut orbit = Orbit::framing([0.0, 0.0, 1000.0, 1000.0], 100.0);
        orbit.rotate(0.0, 10.0);
        assert!(orbit.pitch_rad <= 89f64.to_radians());
        orbit.zoom(1e-9);
        assert_eq!(orbit.distance_m, 10.0);
        let before = orbit.camera().forward;
        orbit.pan(100.0, 0.0);
        // Panning forward moves the centre along the view's horizontal heading.
        let moved = orbit.camera().forward;
        assert!((before - moved).length() < 1e-9);
    }
}
