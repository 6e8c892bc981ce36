//! The globe viewer's camera: a Google-Earth-like orbit around a point on the ellipsoid (drag moves
//! the planet under the camera, scroll zooms, heading and tilt turn around the point), or free
//! flight along the local horizon; both switch into each other without a jump. Positions are
//! earth-centred f64 metres (`GlobeCamera`); angles are degrees, heading clockwise from north.

use glam::{DQuat, DVec3};

use super::flight::Move;
use super::rig::CameraMode;
use crate::globe::camera::{local_east_north, GlobeCamera};
use crate::globe::{ellipsoid, EARTH_RADIUS_M};
use crate::leb::octahedral::{from_lon_lat_deg, lon_lat_deg};

/// The camera stays at least this high above the ellipsoid, in metres.
pub const MIN_ALTITUDE_M: f64 = 2.0;
/// Farthest orbit: a little beyond `GlobeCamera::default_orbit` (4 Earth radii up).
pub const MAX_RANGE_M: f64 = 4.5 * EARTH_RADIUS_M;
/// Free flight stays below this altitude, in metres.
pub const MAX_FLIGHT_ALTITUDE_M: f64 = 10.0 * EARTH_RADIUS_M;
/// Orbit tilt from straight down: the least (a camera looking exactly down has no heading on
/// screen) and the most.
pub const MIN_TILT_DEG: f64 = 0.01;
pub const MAX_TILT_DEG: f64 = 80.0;
/// Flight pitch, up or down, at most.
pub const MAX_PITCH_DEG: f64 = 89.0;
/// Heading keys turn this fast, in degrees per second (tilt keys half as fast).
pub const TURN_DEG_PER_S: f64 = 60.0;

/// Unit vectors ahead (along `heading_deg`) and to the right, tangent to the ellipsoid at unit normal `up`.
fn ahead_right(up: DVec3, heading_deg: f64) -> (DVec3, DVec3) {
    let (east, north) = local_east_north(up);
    let (s, c) = heading_deg.to_radians().sin_cos();
    (c * north + s * east, c * east - s * north)
}

/// The heading in degrees (0..360) of tangent direction `ahead` at unit `up`.
fn heading_of(up: DVec3, ahead: DVec3) -> f64 {
    let (east, north) = local_east_north(up);
    ahead.dot(east).atan2(ahead.dot(north)).to_degrees().rem_euclid(360.0)
}

/// An orbit: the camera looks at `target` on the ellipsoid from `range_m` away.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobeOrbit {
    /// The ellipsoid's unit normal at the point looked at (on the ellipsoid).
    pub target: DVec3,
    /// Distance from the target to the camera.
    pub range_m: f64,
    /// Direction of view, clockwise from north at the target.
    pub heading_deg: f64,
    /// Angle of the view from straight down, MIN_TILT_DEG..=MAX_TILT_DEG.
    pub tilt_deg: f64,
    pub fov_y_deg: f64,
}

impl GlobeOrbit {
    /// Looking straight down at (`lon_deg`, `lat_deg`) from `altitude_m`.
    pub fn above(lon_deg: f64, lat_deg: f64, altitude_m: f64, fov_y_deg: f64) -> GlobeOrbit {
        let mut orbit = GlobeOrbit {
            target: from_lon_lat_deg(lon_deg, lat_deg),
            range_m: altitude_m,
            heading_deg: 0.0,
            tilt_deg: MIN_TILT_DEG,
            fov_y_deg,
        };
        orbit.clamp();
        orbit
    }

    /// The view of `GlobeCamera::default_orbit`: the whole Earth, north up.
    pub fn home() -> GlobeOrbit {
        GlobeOrbit::looking_at(&GlobeCamera::default_orbit())
    }

    /// Longitude and latitude of the target in degrees.
    pub fn target_lon_lat_deg(&self) -> (f64, f64) {
        lon_lat_deg(self.target)
    }

    /// The shortest range at this tilt that keeps the camera `MIN_ALTITUDE_M` above the ellipsoid
    /// (the surface falls away from the target, so the altitude is at least range * cos(tilt)).
    pub fn min_range_m(&self) -> f64 {
        MIN_ALTITUDE_M / self.tilt_deg.to_radians().cos()
    }

    /// Keeps every field in range.
    fn clamp(&mut self) {
        self.target = self.target.normalize_or(DVec3::X);
        self.heading_deg = self.heading_deg.rem_euclid(360.0);
        self.tilt_deg = self.tilt_deg.clamp(MIN_TILT_DEG, MAX_TILT_DEG);
        self.range_m = self.range_m.clamp(self.min_range_m(), MAX_RANGE_M);
    }

    /// The camera of this orbit.
    pub fn camera(&self) -> GlobeCamera {
        let (ahead, _) = ahead_right(self.target, self.heading_deg);
        let (s, c) = self.tilt_deg.to_radians().sin_cos();
        let back = c * self.target - s * ahead;
        GlobeCamera { position_m: ellipsoid::position_m(self.target, 0.0) + back * self.range_m, forward: -back, fov_y_deg: self.fov_y_deg }
    }

    /// Multiplies the range by `factor` (scroll: exponential zoom), within MIN_ALTITUDE_M of the
    /// sphere and MAX_RANGE_M.
    pub fn zoom(&mut self, factor: f64) {
        if factor.is_finite() && factor > 0.0 {
            self.range_m *= factor;
        }
        self.clamp();
    }

    /// Turns the heading by `heading_deg` and the tilt by `tilt_deg` (positive: towards the horizon).
    pub fn turn(&mut self, heading_deg: f64, tilt_deg: f64) {
        if heading_deg.is_finite() && tilt_deg.is_finite() {
            self.heading_deg += heading_deg;
            self.tilt_deg += tilt_deg;
        }
        self.clamp();
    }

    /// Ground metres per screen pixel at the target, on a viewport `height_px` tall.
    pub fn metres_per_px(&self, height_px: u32) -> f64 {
        self.range_m * 2.0 * (0.5 * self.fov_y_deg.to_radians()).tan() / height_px.max(1) as f64
    }

    /// A mouse drag of (`dx_px`, `dy_px`) on a viewport `height_px` tall: the ground under the
    /// target follows the pointer, so the speed is proportional to the range.
    pub fn drag(&mut self, dx_px: f64, dy_px: f64, height_px: u32) {
        let scale = self.metres_per_px(height_px);
        self.pan(dy_px * scale, -dx_px * scale);
    }

    /// Moves the target `forward_m` along the heading and `right_m` to its right, along great
    /// circles; the heading is carried along (parallel transport), so it stays the same along a
    /// meridian or the equator.
    pub fn pan(&mut self, forward_m: f64, right_m: f64) {
        let (ahead, right) = ahead_right(self.target, self.heading_deg);
        let step = ahead * forward_m + right * right_m;
        let distance_m = step.length();
        if !distance_m.is_finite() || distance_m <= 0.0 {
            return;
        }
        // At most a quarter turn per call (a huge drag at 4 Earth radii stays well defined).
        let angle = (distance_m / EARTH_RADIUS_M).min(std::f64::consts::FRAC_PI_2);
        let rotation = DQuat::from_axis_angle(self.target.cross(step / distance_m).normalize(), angle);
        let target = (rotation * self.target).normalize();
        self.heading_deg = heading_of(target, rotation * ahead);
        self.target = target;
        self.clamp();
    }

    /// The orbit that sees what `camera` sees: around the point its view meets the ellipsoid (or,
    /// looking past the planet, straight down from where it is, keeping its heading).
    pub fn looking_at(camera: &GlobeCamera) -> GlobeOrbit {
        let f = camera.forward.normalize();
        let t = ellipsoid::ray_hit_m(camera.position_m, f).filter(|&t| t > 0.0);
        let mut orbit = match t {
            Some(t) => {
                let target = ellipsoid::normal_and_height_m(camera.position_m + f * t).0;
                let back = -f;
                let tilt_deg = back.dot(target).clamp(-1.0, 1.0).acos().to_degrees();
                let horizontal = f - target * f.dot(target);
                let heading_deg = if horizontal.length_squared() > 1e-24 { heading_of(target, horizontal.normalize()) } else { 0.0 };
                GlobeOrbit { target, range_m: t, heading_deg, tilt_deg, fov_y_deg: camera.fov_y_deg }
            }
            None => {
                let flight = GlobeFlight::from_camera(camera);
                GlobeOrbit {
                    target: camera.up(),
                    range_m: camera.altitude_m(),
                    heading_deg: flight.heading_deg,
                    tilt_deg: MIN_TILT_DEG,
                    fov_y_deg: camera.fov_y_deg,
                }
            }
        };
        orbit.clamp();
        orbit
    }
}

/// Free flight: a position and a view heading and pitch relative to the local horizon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobeFlight {
    pub position_m: DVec3,
    /// Clockwise from north.
    pub heading_deg: f64,
    /// Above the horizon (negative: down), within ±MAX_PITCH_DEG.
    pub pitch_deg: f64,
    pub fov_y_deg: f64,
}

/// Flight speed in metres per second at `altitude_m` above the ellipsoid: one altitude per second
/// (at least 10 m/s), times `speed_scale`.
pub fn flight_speed_m_per_s(altitude_m: f64, speed_scale: f64) -> f64 {
    speed_scale * altitude_m.max(10.0)
}

impl GlobeFlight {
    /// The flight that sees what `camera` sees (pitch clamped to ±MAX_PITCH_DEG).
    pub fn from_camera(camera: &GlobeCamera) -> GlobeFlight {
        let up = camera.up();
        let f = camera.forward.normalize();
        let pitch_deg = f.dot(up).clamp(-1.0, 1.0).asin().to_degrees().clamp(-MAX_PITCH_DEG, MAX_PITCH_DEG);
        let horizontal = f - up * f.dot(up);
        let heading_deg = if horizontal.length_squared() > 1e-24 { heading_of(up, horizontal.normalize()) } else { 0.0 };
        GlobeFlight { position_m: camera.position_m, heading_deg, pitch_deg, fov_y_deg: camera.fov_y_deg }
    }

    /// Height above the ellipsoid in metres.
    pub fn altitude_m(&self) -> f64 {
        ellipsoid::normal_and_height_m(self.position_m).1
    }

    /// The camera of this flight.
    pub fn camera(&self) -> GlobeCamera {
        let up = ellipsoid::normal_and_height_m(self.position_m).0;
        let (ahead, _) = ahead_right(up, self.heading_deg);
        let (s, c) = self.pitch_deg.to_radians().sin_cos();
        GlobeCamera { position_m: self.position_m, forward: (c * ahead + s * up).normalize(), fov_y_deg: self.fov_y_deg }
    }

    /// Mouse look: turns right by `right_deg` and up by `up_deg`.
    pub fn look(&mut self, right_deg: f64, up_deg: f64) {
        if right_deg.is_finite() && up_deg.is_finite() {
            self.heading_deg = (self.heading_deg + right_deg).rem_euclid(360.0);
            self.pitch_deg = (self.pitch_deg + up_deg).clamp(-MAX_PITCH_DEG, MAX_PITCH_DEG);
        }
    }

    /// Moves for `dt_s` seconds: forward/right along the local horizon (at constant height above
    /// the ellipsoid, the heading carried along), up/down along the vertical, at
    /// `flight_speed_m_per_s`. Returns the speed used.
    pub fn step(&mut self, input: Move, dt_s: f64, speed_scale: f64) -> f64 {
        let speed = flight_speed_m_per_s(self.altitude_m(), speed_scale) * if input.fast { 4.0 } else { 1.0 };
        if input.is_idle() || !dt_s.is_finite() || dt_s <= 0.0 {
            return speed;
        }
        let norm = (input.forward * input.forward + input.right * input.right + input.up * input.up).sqrt();
        let distance_m = speed * dt_s / norm;
        let (up, height_m) = ellipsoid::normal_and_height_m(self.position_m);
        let (ahead, right) = ahead_right(up, self.heading_deg);
        let horizontal = ahead * input.forward + right * input.right;
        let (mut new_up, mut new_ahead) = (up, ahead);
        if horizontal.length_squared() > 0.0 {
            let along_m = distance_m * horizontal.length();
            let metres_per_radian = ellipsoid::metres_per_radian(up, horizontal.normalize()) + height_m;
            let rotation = DQuat::from_axis_angle(
                up.cross(horizontal.normalize()).normalize(),
                (along_m / metres_per_radian).min(std::f64::consts::FRAC_PI_2),
            );
            new_up = (rotation * up).normalize();
            new_ahead = rotation * ahead;
        }
        let new_height_m = (height_m + distance_m * input.up).clamp(MIN_ALTITUDE_M, MAX_FLIGHT_ALTITUDE_M);
        self.heading_deg = heading_of(new_up, new_ahead);
        self.position_m = ellipsoid::position_m(new_up, new_height_m);
        speed
    }
}

/// A ship's bridge height above the sea, in metres: the least, the most, and where a ship starts
/// when the camera it takes over is higher.
pub const MIN_BRIDGE_M: f64 = 1.0;
pub const MAX_BRIDGE_M: f64 = 100.0;
pub const DEFAULT_BRIDGE_M: f64 = 20.0;
/// A ship's speed in metres per second, astern to full ahead.
pub const SHIP_SPEED_RANGE_M_PER_S: (f64, f64) = (-5.0, 30.0);

/// The view from a ship's bridge: a point on the sea at a held height above sea level (the
/// ellipsoid), moving along its heading at its speed whether or not a key is held. W/S change the
/// speed, A/D turn the ship, Q/E lower and raise the bridge, dragging looks around.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobeShip {
    /// The ellipsoid's unit normal under the ship.
    pub up: DVec3,
    pub heading_deg: f64,
    pub speed_m_per_s: f64,
    /// Height of the eye above the sea, MIN_BRIDGE_M..=MAX_BRIDGE_M.
    pub bridge_m: f64,
    /// The view above the horizon (negative: down) and to the right of the heading.
    pub pitch_deg: f64,
    pub look_deg: f64,
    pub fov_y_deg: f64,
}

impl GlobeShip {
    /// A ship, stopped, under `camera` and heading where it looks; at the camera's height when
    /// that is a bridge's, else at DEFAULT_BRIDGE_M.
    pub fn from_camera(camera: &GlobeCamera) -> GlobeShip {
        let flight = GlobeFlight::from_camera(camera);
        let altitude_m = camera.altitude_m();
        let bridge_m = if (MIN_BRIDGE_M..=MAX_BRIDGE_M).contains(&altitude_m) { altitude_m } else { DEFAULT_BRIDGE_M };
        GlobeShip {
            up: camera.up(),
            heading_deg: flight.heading_deg,
            speed_m_per_s: 0.0,
            bridge_m,
            pitch_deg: flight.pitch_deg.clamp(-30.0, 30.0),
            look_deg: 0.0,
            fov_y_deg: camera.fov_y_deg,
        }
    }

    /// The camera on the bridge.
    pub fn camera(&self) -> GlobeCamera {
        let flight = GlobeFlight {
            position_m: ellipsoid::position_m(self.up, self.bridge_m),
            heading_deg: (self.heading_deg + self.look_deg).rem_euclid(360.0),
            pitch_deg: self.pitch_deg,
            fov_y_deg: self.fov_y_deg,
        };
        flight.camera()
    }

    /// Mouse look from the bridge: turns the view (not the ship) right and up.
    pub fn look(&mut self, right_deg: f64, up_deg: f64) {
        if right_deg.is_finite() && up_deg.is_finite() {
            self.look_deg = (self.look_deg + right_deg + 180.0).rem_euclid(360.0) - 180.0;
            self.pitch_deg = (self.pitch_deg + up_deg).clamp(-MAX_PITCH_DEG, MAX_PITCH_DEG);
        }
    }

    /// Scroll: the speed by one knot (0.514 m/s) a line.
    pub fn change_speed(&mut self, lines: f64) {
        if lines.is_finite() {
            let (astern, ahead) = SHIP_SPEED_RANGE_M_PER_S;
            self.speed_m_per_s = (self.speed_m_per_s + 0.514 * lines).clamp(astern, ahead);
        }
    }

    /// Steers for `dt_s` seconds by the keys held (W/S: 2 m/s per second faster or slower, A/D:
    /// 6 degrees per second, Q/E: the bridge 2 m per second down or up; Shift: four times), then
    /// sails `speed * dt_s` along the great circle of the heading, the heading carried along.
    pub fn step(&mut self, input: Move, dt_s: f64) {
        if !dt_s.is_finite() || dt_s <= 0.0 {
            return;
        }
        let rate = if input.fast { 4.0 } else { 1.0 } * dt_s;
        let (astern, ahead) = SHIP_SPEED_RANGE_M_PER_S;
        self.speed_m_per_s = (self.speed_m_per_s + 2.0 * input.forward * rate).clamp(astern, ahead);
        self.heading_deg = (self.heading_deg + 6.0 * input.right * rate).rem_euclid(360.0);
        self.bridge_m = (self.bridge_m + 2.0 * input.up * rate).clamp(MIN_BRIDGE_M, MAX_BRIDGE_M);
        let along_m = self.speed_m_per_s * dt_s;
        if along_m != 0.0 {
            let (ahead_dir, _) = ahead_right(self.up, self.heading_deg);
            let turn = along_m / ellipsoid::metres_per_radian(self.up, ahead_dir);
            let rotation = DQuat::from_axis_angle(self.up.cross(ahead_dir).normalize(), turn);
            let (new_up, new_ahead) = ((rotation * self.up).normalize(), rotation * ahead_dir);
            self.heading_deg = heading_of(new_up, new_ahead);
            self.up = new_up;
        }
    }
}

/// The globe's cameras; `mode` says which one is shown.
#[derive(Clone, Debug)]
pub struct GlobeRig {
    pub mode: CameraMode,
    pub orbit: GlobeOrbit,
    pub flight: GlobeFlight,
    pub ship: GlobeShip,
    /// Multiplies the flight speed (scroll in fly mode).
    pub speed_scale: f64,
    home: GlobeOrbit,
}

/// What the orbit's extra keys ask for this frame, each in -1..=1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Turn {
    /// Heading: E +, Q -.
    pub heading: f64,
    /// Tilt: T + (towards the horizon), G -.
    pub tilt: f64,
}

impl GlobeRig {
    /// The orbit `home`, with the flight at the same view.
    pub fn new(home: GlobeOrbit) -> GlobeRig {
        let camera = home.camera();
        GlobeRig {
            mode: CameraMode::Orbit,
            orbit: home,
            flight: GlobeFlight::from_camera(&camera),
            ship: GlobeShip::from_camera(&camera),
            speed_scale: 1.0,
            home,
        }
    }

    /// The view of `camera` (`view --camera`): on a ship's bridge where it is one (`over_sea` and
    /// MIN_BRIDGE_M..=MAX_BRIDGE_M above the ellipsoid), else flying; the orbit looks where it
    /// looks, and `home` stays the reset's view.
    pub fn starting_at(home: GlobeOrbit, camera: &GlobeCamera, over_sea: bool) -> GlobeRig {
        let bridge = over_sea && (MIN_BRIDGE_M..=MAX_BRIDGE_M).contains(&camera.altitude_m());
        GlobeRig {
            mode: if bridge { CameraMode::Ship } else { CameraMode::Fly },
            orbit: GlobeOrbit::looking_at(camera),
            flight: GlobeFlight::from_camera(camera),
            ship: GlobeShip::from_camera(camera),
            ..GlobeRig::new(home)
        }
    }

    /// The camera shown.
    pub fn camera(&self) -> GlobeCamera {
        match self.mode {
            CameraMode::Orbit => self.orbit.camera(),
            CameraMode::Fly => self.flight.camera(),
            CameraMode::Ship => self.ship.camera(),
        }
    }

    /// Back to the home view, in orbit mode.
    pub fn reset(&mut self) {
        *self = GlobeRig { speed_scale: self.speed_scale, ..GlobeRig::new(self.home) };
    }

    /// Switches to `mode`, the new camera starting where the old one is.
    pub fn set_mode(&mut self, mode: CameraMode) {
        if mode == self.mode {
            return;
        }
        let shown = self.camera();
        match mode {
            CameraMode::Fly => self.flight = GlobeFlight::from_camera(&shown),
            CameraMode::Orbit => self.orbit = GlobeOrbit::looking_at(&shown),
            CameraMode::Ship => self.ship = GlobeShip::from_camera(&shown),
        }
        self.mode = mode;
    }

    /// Raises the camera shown to at least `altitude_m` above the ellipsoid where it is lower: the
    /// flight straight up, the ship's bridge (over land a ship cannot be, but the view must not
    /// go under the ground), the orbit by lengthening its range.
    pub fn keep_above(&mut self, altitude_m: f64) {
        let deficit_m = altitude_m - self.camera().altitude_m();
        if deficit_m.is_nan() || deficit_m <= 0.0 {
            return;
        }
        match self.mode {
            CameraMode::Fly => self.flight.position_m = ellipsoid::position_m(self.flight.camera().up(), altitude_m),
            CameraMode::Ship => self.ship.bridge_m += deficit_m,
            CameraMode::Orbit => {
                // The camera rises about cos(tilt) per metre of range near the target.
                self.orbit.range_m += deficit_m / self.orbit.tilt_deg.to_radians().cos().max(0.1);
                self.orbit.clamp();
            }
        }
    }

    /// Goes to (`lon_deg`, `lat_deg`) at `altitude_m` above the ellipsoid, keeping the heading: the
    /// flight moves there; the orbit turns around that point from that altitude.
    pub fn go_to(&mut self, lon_deg: f64, lat_deg: f64, altitude_m: f64) {
        if ![lon_deg, lat_deg, altitude_m].iter().all(|v| v.is_finite()) {
            return;
        }
        let up = from_lon_lat_deg(lon_deg, lat_deg.clamp(-90.0, 90.0));
        let altitude_m = altitude_m.clamp(MIN_ALTITUDE_M, MAX_RANGE_M);
        match self.mode {
            CameraMode::Fly => self.flight.position_m = ellipsoid::position_m(up, altitude_m),
            CameraMode::Ship => {
                self.ship.up = up;
                self.ship.bridge_m = altitude_m.clamp(MIN_BRIDGE_M, MAX_BRIDGE_M);
            }
            CameraMode::Orbit => {
                self.orbit.target = up;
                self.orbit.range_m = altitude_m / self.orbit.tilt_deg.to_radians().cos();
                self.orbit.clamp();
            }
        }
    }

    /// Advances the camera shown by the keys held for `dt_s` seconds: the orbit pans (W/A/S/D, at
    /// 0.8 ranges per second) and turns (`turn`); the flight moves (`GlobeFlight::step`).
    pub fn step(&mut self, input: Move, turn: Turn, dt_s: f64) {
        if !dt_s.is_finite() || dt_s <= 0.0 {
            return;
        }
        match self.mode {
            CameraMode::Fly => {
                self.flight.step(input, dt_s, self.speed_scale);
            }
            CameraMode::Ship => self.ship.step(input, dt_s),
            CameraMode::Orbit => {
                let step_m = 0.8 * self.orbit.range_m * dt_s * if input.fast { 4.0 } else { 1.0 };
                self.orbit.pan(input.forward * step_m, input.right * step_m);
                let degrees = TURN_DEG_PER_S * dt_s;
                self.orbit.turn(turn.heading * degrees, turn.tilt * 0.5 * degrees);
            }
        }
    }

    /// A drag of (`dx_px`, `dy_px`) with the left button (`turning` false) or the right one, on
    /// a viewport `height_px` tall: the orbit moves the planet (left) or turns and tilts (right,
    /// 0.25° per pixel); the flight looks around (0.17° per pixel).
    pub fn drag(&mut self, dx_px: f64, dy_px: f64, height_px: u32, turning: bool) {
        match self.mode {
            CameraMode::Orbit if turning => self.orbit.turn(0.25 * dx_px, -0.25 * dy_px),
            CameraMode::Orbit => self.orbit.drag(dx_px, dy_px, height_px),
            CameraMode::Fly => self.flight.look(0.17 * dx_px, -0.17 * dy_px),
            CameraMode::Ship => self.ship.look(0.17 * dx_px, -0.17 * dy_px),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn home_is_the_default_orbit() {
        let home = GlobeOrbit::home().camera();
        let default = GlobeCamera::default_orbit();
        assert!((home.position_m - default.position_m).length() < 1.0, "{home:?} vs {default:?}");
        assert!((home.forward - default.forward).length() < 1e-3);
        assert_eq!(home.fov_y_deg, default.fov_y_deg);
    }

    #[test]
    fn zoom_is_exponential_and_clamped() {
        let mut orbit = GlobeOrbit::home();
        assert!(close(orbit.camera().altitude_m(), 4.0 * EARTH_RADIUS_M, 1.0));
        orbit.zoom(10.0);
        assert!(close(orbit.range_m, MAX_RANGE_M, 1e-3), "no farther than 4.5 Earth radii");
        orbit.zoom(0.5);
        assert!(close(orbit.range_m, 0.5 * MAX_RANGE_M, 1e-3));
        for tilt_deg in [0.0, 45.0, MAX_TILT_DEG] {
            orbit.tilt_deg = tilt_deg;
            for _ in 0..1000 {
                orbit.zoom(0.9);
                assert!(orbit.camera().altitude_m() >= MIN_ALTITUDE_M - 1e-6, "tilt {tilt_deg}: {}", orbit.camera().altitude_m());
            }
            assert!(orbit.camera().altitude_m() < 2.0 * MIN_ALTITUDE_M + 0.1, "zooms all the way in: {}", orbit.camera().altitude_m());
            // Tilting after zooming in keeps the camera above the minimum too.
            orbit.turn(0.0, 90.0);
            assert!(orbit.camera().altitude_m() >= MIN_ALTITUDE_M - 1e-6);
            orbit.zoom(f64::NAN);
            orbit.zoom(-1.0);
            assert!(orbit.range_m.is_finite() && orbit.range_m > 0.0);
        }
    }

    #[test]
    fn the_orbit_camera_looks_at_its_target() {
        let mut orbit = GlobeOrbit::above(120.0, 23.5, 5000.0, 50.0);
        orbit.turn(30.0, 60.0);
        let camera = orbit.camera();
        let target_m = ellipsoid::position_m(orbit.target, 0.0);
        assert!(close((camera.position_m - target_m).length(), orbit.range_m, 1e-6));
        assert!(((target_m - camera.position_m).normalize() - camera.forward).length() < 1e-9);
        // The view points north-east-ish (heading 30) and down at 90 - 60 = 30 degrees.
        let flight = GlobeFlight::from_camera(&camera);
        assert!(close(flight.pitch_deg, -30.0, 0.1), "{flight:?}");
        assert!(close(flight.heading_deg, 30.0, 0.1), "{flight:?}");
    }

    #[test]
    fn drag_at_the_equator_moves_east_and_west() {
        let mut orbit = GlobeOrbit::above(0.0, 0.0, 1000.0, 50.0);
        // Dragging right pulls the planet right: the view moves west.
        orbit.drag(100.0, 0.0, 500);
        let (lon, lat) = orbit.target_lon_lat_deg();
        let expected_m = 100.0 * orbit.metres_per_px(500);
        assert!(close(lon.to_radians() * EARTH_RADIUS_M, -expected_m, 1e-6), "lon {lon}");
        assert!(close(lat, 0.0, 1e-9) && close(orbit.heading_deg, 0.0, 1e-9), "{lat} {}", orbit.heading_deg);
        // Dragging left moves it back east; dragging down (north up) moves the view north.
        orbit.drag(-100.0, 0.0, 500);
        assert!(close(orbit.target_lon_lat_deg().0, 0.0, 1e-9));
        orbit.drag(0.0, 50.0, 500);
        let (lon, lat) = orbit.target_lon_lat_deg();
        assert!(close(lon, 0.0, 1e-9) && lat > 0.0, "{lon} {lat}");
        // Heading east: dragging right moves the view north (to the left of the heading).
        let mut east = GlobeOrbit { heading_deg: 90.0, ..GlobeOrbit::above(10.0, 0.0, 1000.0, 50.0) };
        east.drag(100.0, 0.0, 500);
        let (lon, lat) = east.target_lon_lat_deg();
        assert!(close(lon, 10.0, 1e-9) && lat > 0.0, "{lon} {lat}");
        // The speed is proportional to the range.
        let drag_lon_deg = |altitude_m: f64| {
            let mut orbit = GlobeOrbit::above(0.0, 0.0, altitude_m, 50.0);
            orbit.drag(10.0, 0.0, 500);
            orbit.target_lon_lat_deg().0
        };
        assert!(close(drag_lon_deg(100_000.0) / drag_lon_deg(1000.0), 100.0, 1e-6));
    }

    #[test]
    fn heading_stays_consistent() {
        let mut orbit = GlobeOrbit::above(30.0, 10.0, 2000.0, 50.0);
        orbit.turn(370.0, 0.0);
        assert!(close(orbit.heading_deg, 10.0, 1e-9));
        orbit.turn(-20.0, 0.0);
        assert!(close(orbit.heading_deg, 350.0, 1e-9));
        // Along the equator (heading east) the heading is carried unchanged.
        let mut east = GlobeOrbit { heading_deg: 90.0, ..GlobeOrbit::above(0.0, 0.0, 2000.0, 50.0) };
        for _ in 0..100 {
            east.pan(50_000.0, 0.0);
        }
        assert!(close(east.heading_deg, 90.0, 1e-6) && close(east.target_lon_lat_deg().1, 0.0, 1e-6), "{east:?}");
        // Over the north pole, heading north, the view comes down the other side heading south.
        let mut north = GlobeOrbit::above(0.0, 80.0, 2000.0, 50.0);
        north.pan(20f64.to_radians() * EARTH_RADIUS_M, 0.0);
        let (lon, lat) = north.target_lon_lat_deg();
        assert!(
            close(lat, 80.0, 1e-6) && close(lon.abs(), 180.0, 1e-6) && close(north.heading_deg, 180.0, 1e-6),
            "{lon} {lat} {}",
            north.heading_deg
        );
        // The camera's view follows the heading: heading 90 at the equator looks east (+y at 0E).
        let camera = GlobeOrbit { heading_deg: 90.0, tilt_deg: 45.0, ..GlobeOrbit::above(0.0, 0.0, 2000.0, 50.0) }.camera();
        assert!(camera.forward.y > 0.5 && camera.forward.z.abs() < 1e-9, "{:?}", camera.forward);
    }

    #[test]
    fn a_given_camera_starts_on_the_bridge_over_the_sea_else_flying() {
        // `view --camera`: the ship path's first pose (20 m up, heading 290, pitch 2) over the sea.
        let pose = |altitude_m: f64| {
            let up = from_lon_lat_deg(121.675, 24.17);
            GlobeFlight { position_m: ellipsoid::position_m(up, altitude_m), heading_deg: 290.0, pitch_deg: 2.0, fov_y_deg: 60.0 }.camera()
        };
        let same = |a: &GlobeCamera, b: &GlobeCamera| {
            (a.position_m - b.position_m).length() < 1e-6 && (a.forward - b.forward).length() < 1e-9 && a.fov_y_deg == b.fov_y_deg
        };
        let bridge = pose(20.0);
        let rig = GlobeRig::starting_at(GlobeOrbit::home(), &bridge, true);
        assert_eq!(rig.mode, CameraMode::Ship);
        assert!(same(&rig.camera(), &bridge), "{:?} vs {bridge:?}", rig.camera());
        assert!(close(rig.ship.bridge_m, 20.0, 1e-6) && close(rig.ship.heading_deg, 290.0, 1e-6) && rig.ship.speed_m_per_s == 0.0);
        // The same pose over land, and one above a bridge's height: flying, at the pose.
        for (camera, over_sea) in [(pose(20.0), false), (pose(30_000.0), true)] {
            let rig = GlobeRig::starting_at(GlobeOrbit::home(), &camera, over_sea);
            assert_eq!(rig.mode, CameraMode::Fly);
            assert!(same(&rig.camera(), &camera), "{:?} vs {camera:?}", rig.camera());
        }
        // Reset goes home, in orbit mode.
        let mut rig = GlobeRig::starting_at(GlobeOrbit::home(), &bridge, true);
        rig.reset();
        assert_eq!((rig.mode, rig.camera()), (CameraMode::Orbit, GlobeOrbit::home().camera()));
    }

    #[test]
    fn switching_modes_keeps_the_view() {
        let mut rig = GlobeRig::new(GlobeOrbit::home());
        rig.orbit = GlobeOrbit { heading_deg: 40.0, tilt_deg: 50.0, ..GlobeOrbit::above(121.0, 24.0, 3000.0, 50.0) };
        let before = rig.camera();
        rig.set_mode(CameraMode::Fly);
        let flying = rig.camera();
        assert!((flying.position_m - before.position_m).length() < 1e-6);
        assert!((flying.forward - before.forward).length() < 1e-9);
        rig.flight.look(10.0, 5.0);
        let turned = rig.camera();
        rig.set_mode(CameraMode::Orbit);
        let orbiting = rig.camera();
        assert!((orbiting.position_m - turned.position_m).length() < 1e-3, "{orbiting:?} vs {turned:?}");
        assert!((orbiting.forward - turned.forward).length() < 1e-6);
        // Turned 10 degrees right of 40 (the flight's heading differs by the meridians' convergence).
        assert!(close(rig.orbit.heading_deg, 50.0, 0.05), "{:?}", rig.orbit);
        // Looking at the sky, the orbit starts straight below the flight, keeping its heading.
        rig.set_mode(CameraMode::Fly);
        rig.flight.pitch_deg = 30.0;
        rig.set_mode(CameraMode::Orbit);
        assert!(
            close(rig.camera().altitude_m(), rig.flight.altitude_m(), 1e-3) && close(rig.orbit.heading_deg, rig.flight.heading_deg, 1e-6)
        );
        rig.speed_scale = 3.0;
        rig.reset();
        assert_eq!((rig.mode, rig.speed_scale), (CameraMode::Orbit, 3.0));
        assert_eq!(rig.camera(), GlobeOrbit::home().camera());
    }

    #[test]
    fn flight_moves_along_the_horizon_at_a_speed_that_follows_the_altitude() {
        let mut low = GlobeFlight {
            position_m: ellipsoid::position_m(from_lon_lat_deg(0.0, 0.0), 100.0),
            heading_deg: 90.0,
            pitch_deg: -30.0,
            fov_y_deg: 50.0,
        };
        let mut high = GlobeFlight { position_m: ellipsoid::position_m(from_lon_lat_deg(0.0, 0.0), 10_000.0), ..low };
        let go = Move { forward: 1.0, ..Default::default() };
        low.step(go, 1.0, 1.0);
        high.step(go, 1.0, 1.0);
        // W moves east along the horizon (not down the view), keeping altitude and heading.
        let (lon, lat) = lon_lat_deg(low.position_m.normalize());
        assert!(close(lon.to_radians() * (ellipsoid::WGS84_A_M + 100.0), 100.0, 1e-6) && close(lat, 0.0, 1e-9), "{lon} {lat}");
        assert!(close(low.altitude_m(), 100.0, 1e-6) && close(low.heading_deg, 90.0, 1e-9));
        let (lon_high, _) = lon_lat_deg(high.position_m.normalize());
        assert!(close(lon_high.to_radians() * (ellipsoid::WGS84_A_M + 10_000.0), 10_000.0, 1e-4));
        // Q (down) stops MIN_ALTITUDE_M above the sphere.
        for _ in 0..100 {
            low.step(Move { up: -1.0, fast: true, ..Default::default() }, 1.0, 1.0);
        }
        assert!(close(low.altitude_m(), MIN_ALTITUDE_M, 1e-6), "{}", low.altitude_m());
        low.look(0.0, 200.0);
        assert_eq!(low.pitch_deg, MAX_PITCH_DEG);
        low.look(-100.0, f64::NAN);
        assert!(close(low.heading_deg, 90.0, 1e-9));
    }

    #[test]
    fn go_to_and_rig_steps() {
        let mut rig = GlobeRig::new(GlobeOrbit::home());
        rig.go_to(121.5, 25.0, 8000.0);
        let camera = rig.camera();
        let (lon, lat) = rig.orbit.target_lon_lat_deg();
        assert!(
            close(lon, 121.5, 1e-9) && close(lat, 25.0, 1e-9) && close(camera.altitude_m(), 8000.0, 1e-3),
            "{lon} {lat} {}",
            camera.altitude_m()
        );
        rig.go_to(f64::NAN, 0.0, 1.0);
        assert_eq!(rig.camera(), camera);
        // Q/E turn the heading, T/G the tilt.
        let (heading_deg, tilt_deg) = (rig.orbit.heading_deg, rig.orbit.tilt_deg);
        rig.step(Move::default(), Turn { heading: 1.0, tilt: 1.0 }, 0.5);
        assert!(
            close(rig.orbit.heading_deg, heading_deg + 30.0, 1e-9) && close(rig.orbit.tilt_deg, tilt_deg + 15.0, 1e-9),
            "{:?}",
            rig.orbit
        );
        rig.set_mode(CameraMode::Fly);
        rig.go_to(0.0, 0.0, 1.0);
        assert!(close(rig.camera().altitude_m(), MIN_ALTITUDE_M, 1e-6));
    }

    #[test]
    fn a_ship_sails_its_speed_along_its_heading_at_its_bridge_height() {
        let mut rng = crate::test_rng::XorShift::fresh("a_ship_sails_its_speed_along_its_heading_at_its_bridge_height");
        let (lon, lat, heading) = (rng.range(-180.0, 180.0), rng.range(-60.0, 60.0), rng.range(0.0, 360.0));
        let camera = GlobeCamera::at_lon_lat(lon, lat, 20.0, heading, 2.0, 60.0);
        let mut rig = GlobeRig::new(GlobeOrbit::home());
        rig.flight = GlobeFlight::from_camera(&camera);
        rig.mode = CameraMode::Fly;
        rig.set_mode(CameraMode::Ship);
        assert_eq!(rig.mode, CameraMode::Ship);
        assert!(close(rig.ship.bridge_m, 20.0, 1e-6) && close(rig.ship.heading_deg, heading, 1e-6), "{:?}", rig.ship);
        assert!((rig.camera().position_m - camera.position_m).length() < 1e-6, "switching to the ship moved the camera");
        rig.ship.speed_m_per_s = 10.0;
        let start = rig.ship.up;
        // 60 s at 10 m/s in frames of 1/60 s, no key held: 600 m along a great circle.
        for _ in 0..3600 {
            rig.step(Move::default(), Turn::default(), 1.0 / 60.0);
        }
        // Along the surface (a 600 m chord is 0.2 mm shorter than its arc).
        let travelled_m = (ellipsoid::position_m(rig.ship.up, 0.0) - ellipsoid::position_m(start, 0.0)).length();
        assert!(close(travelled_m, 600.0, 1e-3), "sailed {travelled_m} m");
        assert!(close(rig.camera().altitude_m(), 20.0, 1e-6), "the bridge height was not held: {}", rig.camera().altitude_m());
        // Along the heading: the start lies straight astern.
        let (ahead, _) = ahead_right(rig.ship.up, rig.ship.heading_deg);
        let back = (start - rig.ship.up).normalize();
        assert!(back.dot(-ahead) > 0.999_999, "the ship left its heading: {}", back.dot(-ahead));
        // W for 2 s: 4 m/s faster; E for 100 s: the bridge stops at its highest; scroll: knots.
        rig.step(Move { forward: 1.0, ..Default::default() }, Turn::default(), 2.0);
        assert!(close(rig.ship.speed_m_per_s, 14.0, 1e-9), "{}", rig.ship.speed_m_per_s);
        rig.step(Move { up: 1.0, ..Default::default() }, Turn::default(), 100.0);
        assert_eq!(rig.ship.bridge_m, MAX_BRIDGE_M);
        rig.ship.change_speed(1000.0);
        assert_eq!(rig.ship.speed_m_per_s, SHIP_SPEED_RANGE_M_PER_S.1);
        // From a high orbit the ship starts on the sea at the default bridge height.
        let mut high = GlobeRig::new(GlobeOrbit::home());
        high.set_mode(CameraMode::Ship);
        assert!(close(high.camera().altitude_m(), DEFAULT_BRIDGE_M, 1e-6));
    }

    #[test]
    fn every_camera_is_kept_above_the_surface() {
        let mut rng = crate::test_rng::XorShift::fresh("every_camera_is_kept_above_the_surface");
        for mode in [CameraMode::Orbit, CameraMode::Fly, CameraMode::Ship] {
            let (lon, lat) = (rng.range(-180.0, 180.0), rng.range(-70.0, 70.0));
            let mut rig = GlobeRig::new(GlobeOrbit::home());
            rig.flight = GlobeFlight::from_camera(&GlobeCamera::at_lon_lat(lon, lat, 30.0, 45.0, -5.0, 60.0));
            rig.mode = CameraMode::Fly;
            rig.set_mode(mode);
            if mode == CameraMode::Orbit {
                rig.orbit.range_m = 50.0;
            }
            // A cliff of 500-1500 m under the camera: it rises to 1 m above it.
            let surface_m = rng.range(500.0, 1500.0);
            rig.keep_above(surface_m + 1.0);
            let altitude_m = rig.camera().altitude_m();
            assert!(altitude_m >= surface_m + 1.0 - 1e-6, "{mode:?}: {altitude_m} m over a {surface_m} m surface");
            // Above it already: nothing moves.
            let before = rig.camera();
            rig.keep_above(surface_m - 100.0);
            assert_eq!(rig.camera().position_m, before.position_m, "{mode:?}");
        }
    }
}
