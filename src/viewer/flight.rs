//! A free-flight camera: a position and a heading (yaw, pitch) in the camera-path convention
//! (yaw 0 looks along +x, 90 along +y; pitch positive upwards), with a speed that grows with the
//! height above the ground.

use glam::DVec3;

use crate::flat::camera::Camera;

/// Largest pitch, up or down, in degrees (a camera looking straight down has no heading).
pub const MAX_PITCH_DEG: f64 = 89.0;
/// The camera stays at least this high above the ground, in metres.
pub const MIN_CLEARANCE_M: f64 = 2.0;

/// Free-flight state in metres and radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flight {
    pub position_m: DVec3,
    pub yaw_rad: f64,
    pub pitch_rad: f64,
    pub fov_y_deg: f64,
}

/// Movement asked for by the keys held this frame, each in -1..=1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Move {
    /// Along the view direction (W +, S -).
    pub forward: f64,
    /// To the right of the view (D +, A -).
    pub right: f64,
    /// Straight up (E +, Q -).
    pub up: f64,
    /// Shift: four times faster.
    pub fast: bool,
}

impl Move {
    /// True when no movement key is held.
    pub fn is_idle(&self) -> bool {
        self.forward == 0.0 && self.right == 0.0 && self.up == 0.0
    }
}

/// Yaw and pitch in radians of a view direction (camera-path convention).
pub fn yaw_pitch_rad(forward: DVec3) -> (f64, f64) {
    let f = forward.normalize();
    (f.y.atan2(f.x), f.z.clamp(-1.0, 1.0).asin())
}

/// Flight speed in metres per second at `height_above_ground_m`: one "height" per second (so the
/// ground seems to move at the same rate at any altitude), at least 10 m/s, times `speed_scale`.
pub fn speed_m_per_s(height_above_ground_m: f64, speed_scale: f64) -> f64 {
    speed_scale * height_above_ground_m.max(10.0)
}

impl Flight {
    /// The flight that sees exactly what `camera` sees (pitch clamped to ±89°).
    pub fn from_camera(camera: &Camera) -> Flight {
        let (yaw_rad, pitch_rad) = yaw_pitch_rad(camera.forward);
        let max = MAX_PITCH_DEG.to_radians();
        Flight { position_m: camera.position_m, yaw_rad, pitch_rad: pitch_rad.clamp(-max, max), fov_y_deg: camera.fov_y_deg }
    }

    /// Unit view direction.
    pub fn forward(&self) -> DVec3 {
        let (sy, cy) = self.yaw_rad.sin_cos();
        let (sp, cp) = self.pitch_rad.sin_cos();
        DVec3::new(cy * cp, sy * cp, sp)
    }

    /// The camera for this flight.
    pub fn camera(&self) -> Camera {
        Camera { position_m: self.position_m, forward: self.forward(), fov_y_deg: self.fov_y_deg }
    }

    /// Mouse look: turns right by `right_rad` and up by `up_rad`.
    pub fn look(&mut self, right_rad: f64, up_rad: f64) {
        let max = MAX_PITCH_DEG.to_radians();
        self.yaw_rad = (self.yaw_rad - right_rad).rem_euclid(std::f64::consts::TAU);
        self.pitch_rad = (self.pitch_rad + up_rad).clamp(-max, max);
    }

    /// Moves for `dt_s` seconds; `ground_m(x, y)` is the terrain height. Returns the speed used.
    pub fn step(&mut self, input: Move, dt_s: f64, speed_scale: f64, ground_m: impl Fn(f64, f64) -> f64) -> f64 {
        let ground = ground_m(self.position_m.x, self.position_m.y);
        let speed = speed_m_per_s(self.position_m.z - ground, speed_scale) * if input.fast { 4.0 } else { 1.0 };
        if input.is_idle() || dt_s.is_nan() || dt_s <= 0.0 {
            return speed;
        }
        let forward = self.forward();
        let right = forward.cross(DVec3::Z).normalize_or_zero();
        let direction = forward * input.forward + right * input.right + DVec3::Z * input.up;
        self.position_m += direction.normalize_or_zero() * speed * dt_s;
        self.keep_above_ground(ground_m);
        speed
    }

    /// Lifts the camera to at least `MIN_CLEARANCE_M` above the ground.
    pub fn keep_above_ground(&mut self, ground_m: impl Fn(f64, f64) -> f64) {
        let floor = ground_m(self.position_m.x, self.position_m.y) + MIN_CLEARANCE_M;
        self.position_m.z = self.position_m.z.max(floor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_camera_keeps_the_view() {
        let camera = Camera::look_at(DVec3::new(100.0, 200.0, 300.0), DVec3::new(500.0, 900.0, 0.0), 50.0);
        let flight = Flight::from_camera(&camera);
        let back = flight.camera();
        assert!((back.forward - camera.forward).length() < 1e-12);
        assert_eq!(back.position_m, camera.position_m);
        assert_eq!(back.fov_y_deg, 50.0);
    }

    #[test]
    fn speed_scales_with_height_and_the_ground_stops_the_camera() {
        let flat = |_: f64, _: f64| 100.0;
        let mut low = Flight { position_m: DVec3::new(0.0, 0.0, 150.0), yaw_rad: 0.0, pitch_rad: 0.0, fov_y_deg: 60.0 };
        let mut high = Flight { position_m: DVec3::new(0.0, 0.0, 5100.0), ..low };
        let go = Move { forward: 1.0, ..Default::default() };
        low.step(go, 1.0, 1.0, flat);
        high.step(go, 1.0, 1.0, flat);
        assert!((low.position_m.x - 50.0).abs() < 1e-9, "{:?}", low.position_m);
        assert!((high.position_m.x - 5000.0).abs() < 1e-9, "{:?}", high.position_m);
        // Diving into the ground stops 2 m above it.
        low.pitch_rad = -80f64.to_radians();
        for _ in 0..100 {
            low.step(go, 1.0, 1.0, flat);
        }
        assert_eq!(low.position_m.z, 100.0 + MIN_CLEARANCE_M);
    }

    #[test]
    fn look_keeps_the_pitch_in_range_and_moves_follow_the_heading() {
        let mut flight = Flight { position_m: DVec3::new(0.0, 0.0, 1000.0), yaw_rad: 0.0, pitch_rad: 0.0, fov_y_deg: 60.0 };
        flight.look(0.0, 10.0);
        assert!((flight.pitch_rad - MAX_PITCH_DEG.to_radians()).abs() < 1e-12);
        flight.look(0.0, -10.0);
        flight.pitch_rad = 0.0;
        // Turning left by 90 degrees from +x looks along +y; D then moves towards +x.
        flight.look(-std::f64::consts::FRAC_PI_2, 0.0);
        assert!((flight.forward() - DVec3::Y).length() < 1e-12);
        flight.step(Move { right: 1.0, ..Default::default() }, 0.5, 1.0, |_, _| 0.0);
        assert!(flight.position_m.x > 499.0 && flight.position_m.y.abs() < 1e-6, "{:?}", flight.position_m);
    }
}
