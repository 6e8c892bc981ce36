//! The viewer's camera: orbit or free flight, switching between them without a jump, go-to,
//! reset, and the terrain's height for both (sampled on the CPU from the same height field).

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::flight::{Flight, Move};
use super::orbit::Orbit;
use crate::flat::camera::Camera;
use crate::terrain::HeightField;

/// Which camera the mouse and keys drive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CameraMode {
    #[default]
    Orbit,
    Fly,
    /// The globe's ship: on the sea at a held bridge height, moving along its heading (the flat
    /// terrain flies instead).
    Ship,
}

/// Both cameras; `mode` says which one is shown.
#[derive(Clone, Debug)]
pub struct CameraRig {
    pub mode: CameraMode,
    pub orbit: Orbit,
    pub flight: Flight,
    /// Multiplies the flight speed (scroll in fly mode).
    pub speed_scale: f64,
    home: Orbit,
}

/// The terrain height at (x, y) in metres, as the shaders sample it.
pub fn ground_m(field: &HeightField, x_m: f64, y_m: f64) -> f64 {
    field.height_at_m(x_m as f32, y_m as f32) as f64
}

/// Where the ray from `origin` along `direction` first meets the terrain, marching up to
/// `max_distance_m` (None if it does not within that distance).
pub fn ground_hit(field: &HeightField, origin: DVec3, direction: DVec3, max_distance_m: f64) -> Option<DVec3> {
    let step = (field.size_m as f64 / field.samples_per_side as f64).max(1.0);
    let below = |t: f64| {
        let p = origin + direction * t;
        p.z <= ground_m(field, p.x, p.y)
    };
    let (mut before, mut t) = (0.0, 0.0);
    while t < max_distance_m {
        if below(t) {
            // Bisect between the last point above the ground and this one.
            for _ in 0..30 {
                let mid = 0.5 * (before + t);
                if below(mid) {
                    t = mid;
                } else {
                    before = mid;
                }
            }
            return Some(origin + direction * t);
        }
        before = t;
        t += step.max(0.01 * t);
    }
    None
}

impl CameraRig {
    /// An orbit framing the terrain's data (`home`), with the flight at the same view.
    pub fn new(home: Orbit) -> CameraRig {
        CameraRig { mode: CameraMode::Orbit, orbit: home, flight: Flight::from_camera(&home.camera()), speed_scale: 1.0, home }
    }

    /// Flying at `camera` (`view --camera`); switching to orbit starts it where the flight looks
    /// (`set_mode`), and `home` stays the reset's view.
    pub fn starting_at(home: Orbit, camera: &Camera) -> CameraRig {
        let mut rig = CameraRig::new(home);
        rig.flight = Flight::from_camera(camera);
        rig.mode = CameraMode::Fly;
        rig
    }

    /// The camera shown.
    pub fn camera(&self) -> Camera {
        match self.mode {
            CameraMode::Orbit => self.orbit.camera(),
            CameraMode::Fly | CameraMode::Ship => self.flight.camera(),
        }
    }

    /// Back to the framing view, in orbit mode.
    pub fn reset(&mut self) {
        *self = CameraRig { speed_scale: self.speed_scale, ..CameraRig::new(self.home) };
    }

    /// Switches to `mode`, starting the new camera where the old one is (an orbit turns around the
    /// ground point the flight looks at).
    pub fn set_mode(&mut self, mode: CameraMode, field: &HeightField) {
        // No sea to sail on: the flat terrain flies.
        let mode = if mode == CameraMode::Ship { CameraMode::Fly } else { mode };
        if mode == self.mode {
            return;
        }
        match mode {
            CameraMode::Fly | CameraMode::Ship => self.flight = Flight::from_camera(&self.orbit.camera()),
            CameraMode::Orbit => self.orbit = orbit_looking_at(&self.flight, field),
        }
        self.mode = mode;
    }

    /// Shows `camera` exactly, in fly mode (bookmarks).
    pub fn fly_to(&mut self, camera: &Camera) {
        self.flight = Flight::from_camera(camera);
        self.mode = CameraMode::Fly;
    }

    /// Goes to (x, y), `height_m` above the ground, keeping the heading: in fly mode the camera
    /// moves there; in orbit mode the orbit turns around that ground point from that height.
    pub fn go_to(&mut self, x_m: f64, y_m: f64, height_m: f64, field: &HeightField) {
        let ground = ground_m(field, x_m, y_m);
        let height_m = height_m.max(super::flight::MIN_CLEARANCE_M);
        match self.mode {
            CameraMode::Fly | CameraMode::Ship => self.flight.position_m = DVec3::new(x_m, y_m, ground + height_m),
            CameraMode::Orbit => {
                self.orbit.centre_m = DVec3::new(x_m, y_m, ground);
                self.orbit.distance_m = (height_m / self.orbit.pitch_rad.sin()).clamp(10.0, 1.0e6);
            }
        }
    }

    /// Advances the flight by the keys held for `dt_s` seconds (no effect in orbit mode).
    pub fn fly(&mut self, input: Move, dt_s: f64, field: &HeightField) -> f64 {
        let scale = self.speed_scale;
        self.flight.step(input, dt_s, scale, |x, y| ground_m(field, x, y))
    }
}

/// An orbit that shows what `flight` shows, turning around the ground point it looks at (or a
/// point 1 km ahead when it looks at the sky).
fn orbit_looking_at(flight: &Flight, field: &HeightField) -> Orbit {
    let forward = flight.forward();
    let centre = ground_hit(field, flight.position_m, forward, 4.0 * field.size_m as f64).unwrap_or(flight.position_m + forward * 1000.0);
    let offset = flight.position_m - centre;
    let distance_m = offset.length().clamp(10.0, 1.0e6);
    let pitch_rad = (offset.z / offset.length().max(1e-9)).clamp(-1.0, 1.0).asin().clamp(2f64.to_radians(), 89f64.to_radians());
    let yaw_rad = offset.x.atan2(-offset.y);
    Orbit { centre_m: centre, distance_m, yaw_rad, pitch_rad }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(height_m: f32) -> HeightField {
        HeightField {
            samples_per_side: 3,
            heights_m: vec![height_m; 9],
            size_m: 10000.0,
            data_bounds_m: [0.0, 0.0, 10000.0, 10000.0],
            nodata: Vec::new(),
        }
    }

    #[test]
    fn a_given_camera_starts_flying_there_and_reset_goes_home() {
        let home = Orbit::framing([0.0, 0.0, 10000.0, 10000.0], 500.0);
        let camera = Camera::look_at(DVec3::new(1000.0, 2000.0, 300.0), DVec3::new(5000.0, 5000.0, 0.0), 50.0);
        let mut rig = CameraRig::starting_at(home, &camera);
        assert_eq!(rig.mode, CameraMode::Fly);
        let shown = rig.camera();
        assert!((shown.position_m - camera.position_m).length() < 1e-9, "{shown:?} vs {camera:?}");
        assert!((shown.forward - camera.forward).length() < 1e-9, "{shown:?} vs {camera:?}");
        rig.reset();
        assert_eq!(rig.mode, CameraMode::Orbit);
        assert_eq!(rig.camera().position_m, home.camera().position_m);
    }

    #[test]
    fn switching_modes_keeps_the_view() {
        let field = flat(100.0);
        let mut rig = CameraRig::new(Orbit::framing(field.data_bounds_m, 100.0));
        let before = rig.camera();
        rig.set_mode(CameraMode::Fly, &field);
        let flying = rig.camera();
        assert!((flying.position_m - before.position_m).length() < 1e-6);
        assert!((flying.forward - before.forward).length() < 1e-9);
        rig.flight.look(0.3, -0.1);
        let turned = rig.camera();
        rig.set_mode(CameraMode::Orbit, &field);
        let orbiting = rig.camera();
        assert!((orbiting.position_m - turned.position_m).length() < 1.0, "{orbiting:?} vs {turned:?}");
        assert!((orbiting.forward - turned.forward).length() < 1e-3);
        // The orbit centre is on the ground.
        assert!((rig.orbit.centre_m.z - 100.0).abs() < 1e-3, "{:?}", rig.orbit.centre_m);
    }

    #[test]
    fn go_to_and_reset() {
        let field = flat(250.0);
        let mut rig = CameraRig::new(Orbit::framing(field.data_bounds_m, 250.0));
        let home = rig.camera();
        rig.go_to(1000.0, 2000.0, 500.0, &field);
        let camera = rig.camera();
        assert!((camera.position_m.z - 750.0).abs() < 1e-6, "{camera:?}");
        assert_eq!(rig.orbit.centre_m, DVec3::new(1000.0, 2000.0, 250.0));
        rig.set_mode(CameraMode::Fly, &field);
        rig.go_to(3000.0, 4000.0, 50.0, &field);
        assert_eq!(rig.camera().position_m, DVec3::new(3000.0, 4000.0, 300.0));
        rig.speed_scale = 3.0;
        rig.reset();
        assert_eq!(rig.mode, CameraMode::Orbit);
        assert_eq!(rig.camera(), home);
        assert_eq!(rig.speed_scale, 3.0);
    }
}
