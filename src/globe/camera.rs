//! A camera anywhere around the globe: position in earth-centred, earth-fixed metres (f64; +z
//! north pole, +x 0N 0E, +y 0N 90E), a view direction and an up hint.

use crate::globe::{ellipsoid, EARTH_RADIUS_M};
use crate::leb::octahedral::from_lon_lat_deg;
use glam::DVec3;

/// Where the camera is and where it looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobeCamera {
    pub position_m: DVec3,
    /// Unit view direction.
    pub forward: DVec3,
    pub fov_y_deg: f64,
}

impl GlobeCamera {
    /// A camera `altitude_m` above the WGS84 ellipsoid at geodetic (`lon_deg`, `lat_deg`), looking towards
    /// `heading_deg` (clockwise from north) and `pitch_deg` above the horizontal (negative: down).
    pub fn at_lon_lat(lon_deg: f64, lat_deg: f64, altitude_m: f64, heading_deg: f64, pitch_deg: f64, fov_y_deg: f64) -> GlobeCamera {
        let up = from_lon_lat_deg(lon_deg, lat_deg);
        let (east, north) = local_east_north(up);
        let (heading, pitch) = (
            heading_deg.to_radians(),
            pitch_deg.to_radians().clamp(-0.9999 * std::f64::consts::FRAC_PI_2, 0.9999 * std::f64::consts::FRAC_PI_2),
        );
        let forward = pitch.cos() * (heading.cos() * north + heading.sin() * east) + pitch.sin() * up;
        GlobeCamera { position_m: ellipsoid::position_m(up, altitude_m), forward: forward.normalize(), fov_y_deg }
    }

    /// The whole Earth from 4 Earth radii up, above 20N 100E (Asia and Taiwan on the day side).
    pub fn default_orbit() -> GlobeCamera {
        GlobeCamera::at_lon_lat(100.0, 20.0, 4.0 * EARTH_RADIUS_M, 0.0, -90.0, 35.0)
    }

    /// Height above the WGS84 ellipsoid in metres.
    pub fn altitude_m(&self) -> f64 {
        ellipsoid::normal_and_height_m(self.position_m).1
    }

    /// Longitude and latitude in degrees of the point under the camera.
    pub fn lon_lat_deg(&self) -> (f64, f64) {
        crate::leb::octahedral::lon_lat_deg(self.up())
    }

    /// The ellipsoid's unit normal through the camera (the local vertical; its geodetic
    /// longitude and latitude).
    pub fn up(&self) -> DVec3 {
        ellipsoid::normal_and_height_m(self.position_m).0
    }

    /// Vertical field of view in radians.
    pub fn fov_y_rad(&self) -> f32 {
        (self.fov_y_deg as f32).to_radians()
    }
}

/// Unit east and north vectors at unit vector `up` (at the poles, east is +y).
pub fn local_east_north(up: DVec3) -> (DVec3, DVec3) {
    let east = DVec3::Z.cross(up);
    let east = if east.length_squared() < 1e-24 { DVec3::Y } else { east.normalize() };
    (east, up.cross(east))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_and_pitch_follow_the_local_horizon() {
        let c = GlobeCamera::at_lon_lat(0.0, 0.0, 100.0, 0.0, 0.0, 50.0);
        assert!((c.forward - DVec3::Z).length() < 1e-12, "north at 0N 0E is +z: {}", c.forward);
        let c = GlobeCamera::at_lon_lat(0.0, 0.0, 100.0, 90.0, 0.0, 50.0);
        assert!((c.forward - DVec3::Y).length() < 1e-12, "east at 0N 0E is +y: {}", c.forward);
        let c = GlobeCamera::at_lon_lat(120.0, 23.0, 2.0, 0.0, -90.0, 50.0);
        // Pitch is kept 0.01% short of straight down (a defined heading).
        assert!((c.forward + c.up()).length() < 1e-3);
        assert!((c.altitude_m() - 2.0).abs() < 1e-6);
    }
}
