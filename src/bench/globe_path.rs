//! Camera paths around the globe: JSON keyframes in longitude, latitude and altitude, sampled
//! along a smooth spline, for `bench --terrain planet...`.
//!
//! # File format
//!
//! The same top level as the flat camera paths (`{"keyframes": [ ... ]}`, see `bench::path`),
//! with keyframes of these fields:
//!
//! ```json
//! { "time_s": 0.0, "lon_deg": 121.0, "lat_deg": 23.5, "altitude_m": 20000000.0,
//!   "heading_deg": 0.0, "pitch_deg": -90.0, "fov_y_deg": 40.0 }
//! ```
//!
//! * `time_s` (required): strictly increasing.
//! * `lon_deg`, `lat_deg` (required): where the camera is; latitude within ±90.
//! * `altitude_m` (required): height above the WGS84 ellipsoid in metres, positive.
//! * `heading_deg` (required): view direction clockwise from north.
//! * `pitch_deg` (required): view direction above the local horizontal, within ±89.9
//!   (negative looks down).
//! * `fov_y_deg` (optional): vertical field of view in (0, 180); defaults to the previous
//!   keyframe's, or 60.
//!
//! # Interpolation
//!
//! Longitude, latitude, the logarithm of the altitude, heading and pitch follow the same
//! Catmull-Rom spline in time as flat paths (longitude and heading unwrapped, so consecutive
//! keyframes turn the short way round). Interpolating the logarithm makes a descent from orbit
//! to the ground take equal time per factor of altitude, as a user zooming in would. The field of
//! view follows a smoothstep. Sampling at a keyframe's time returns that keyframe.

use super::keyframes::{check_time_increases, parse_keyframes, resolve_fov_y_deg, CommonKeyframeError, PathError, MAX_PITCH_DEG};
use super::spline::{hermite, tangent, Timed};
use crate::globe::camera::GlobeCamera;
use serde::Deserialize;
use std::path::Path;

/// The fields of a keyframe, for error messages.
const FIELDS: &str = "time_s, lon_deg, lat_deg, altitude_m, heading_deg, pitch_deg and optionally fov_y_deg";

/// A keyframe as it appears in the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGlobeKeyframe {
    time_s: f64,
    lon_deg: f64,
    lat_deg: f64,
    altitude_m: f64,
    heading_deg: f64,
    pitch_deg: f64,
    #[serde(default)]
    fov_y_deg: Option<f64>,
}

/// A validated keyframe: longitude and heading unwrapped against the previous keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
struct GlobeKeyframe {
    time_s: f64,
    /// (longitude, latitude, ln altitude in metres, heading, pitch), angles in degrees.
    state: State,
    fov_y_deg: f64,
}

impl Timed for GlobeKeyframe {
    fn time_s(&self) -> f64 {
        self.time_s
    }
}

/// The interpolated quantities of a globe keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
struct State {
    lon_deg: f64,
    lat_deg: f64,
    ln_altitude_m: f64,
    heading_deg: f64,
    pitch_deg: f64,
}

impl std::ops::Add for State {
    type Output = State;
    fn add(self, o: State) -> State {
        State {
            lon_deg: self.lon_deg + o.lon_deg,
            lat_deg: self.lat_deg + o.lat_deg,
            ln_altitude_m: self.ln_altitude_m + o.ln_altitude_m,
            heading_deg: self.heading_deg + o.heading_deg,
            pitch_deg: self.pitch_deg + o.pitch_deg,
        }
    }
}

impl std::ops::Sub for State {
    type Output = State;
    fn sub(self, o: State) -> State {
        self + o * -1.0
    }
}

impl std::ops::Mul<f64> for State {
    type Output = State;
    fn mul(self, k: f64) -> State {
        State {
            lon_deg: self.lon_deg * k,
            lat_deg: self.lat_deg * k,
            ln_altitude_m: self.ln_altitude_m * k,
            heading_deg: self.heading_deg * k,
            pitch_deg: self.pitch_deg * k,
        }
    }
}

/// A camera path around the globe.
#[derive(Debug, Clone, PartialEq)]
pub struct GlobePath {
    keyframes: Vec<GlobeKeyframe>,
}

/// Where the camera is along a globe path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlobePose {
    /// Longitude in degrees (unwrapped along the path, so it may leave [-180, 180]).
    pub lon_deg: f64,
    /// Latitude in degrees, within ±90.
    pub lat_deg: f64,
    /// Height above the WGS84 ellipsoid in metres.
    pub altitude_m: f64,
    /// View direction clockwise from north, in degrees (unwrapped along the path).
    pub heading_deg: f64,
    /// View direction above the local horizontal, in degrees, within ±89.9.
    pub pitch_deg: f64,
    /// Vertical field of view in degrees.
    pub fov_y_deg: f64,
}

impl GlobePose {
    /// The camera at this pose.
    pub fn camera(&self) -> GlobeCamera {
        GlobeCamera::at_lon_lat(self.lon_deg, self.lat_deg, self.altitude_m, self.heading_deg, self.pitch_deg, self.fov_y_deg)
    }
}

impl GlobePath {
    /// Reads and parses a globe camera path file.
    pub fn load(path: &Path) -> Result<GlobePath, PathError> {
        let text = PathError::read_text(path)?;
        GlobePath::parse(&text, &path.display().to_string())
    }

    /// Parses a globe camera path from JSON text; `source_name` names the file in errors.
    pub fn parse(text: &str, source_name: &str) -> Result<GlobePath, PathError> {
        let keyframes = parse_keyframes(text, source_name, FIELDS, |_, raw: RawGlobeKeyframe, previous: Option<&GlobeKeyframe>| {
            validate(&raw, previous)
        })?;
        Ok(GlobePath { keyframes })
    }

    /// Time from the first to the last keyframe in seconds.
    pub fn duration_s(&self) -> f64 {
        match (self.keyframes.first(), self.keyframes.last()) {
            (Some(first), Some(last)) => last.time_s - first.time_s,
            _ => 0.0,
        }
    }

    /// The pose at `time_s`, clamped to the first and last keyframes' times.
    pub fn sample(&self, time_s: f64) -> GlobePose {
        let keyframes = &self.keyframes;
        let first = &keyframes[0];
        let last = &keyframes[keyframes.len() - 1];
        if time_s.is_nan() || time_s <= first.time_s {
            return pose(first.state, first.fov_y_deg);
        }
        if time_s >= last.time_s {
            return pose(last.state, last.fov_y_deg);
        }
        let j = keyframes.partition_point(|k| k.time_s <= time_s);
        let i = j - 1;
        let (a, b) = (&keyframes[i], &keyframes[j]);
        let interval_s = b.time_s - a.time_s;
        let s = (time_s - a.time_s) / interval_s;
        let state = hermite(a.state, tangent(keyframes, i, |k| k.state), b.state, tangent(keyframes, j, |k| k.state), interval_s, s);
        let smooth = s * s * (3.0 - 2.0 * s);
        pose(state, a.fov_y_deg + (b.fov_y_deg - a.fov_y_deg) * smooth)
    }
}

/// The pose of an interpolated state (latitude and pitch clamped to their ranges).
fn pose(state: State, fov_y_deg: f64) -> GlobePose {
    GlobePose {
        lon_deg: state.lon_deg,
        lat_deg: state.lat_deg.clamp(-90.0, 90.0),
        altitude_m: state.ln_altitude_m.exp(),
        heading_deg: state.heading_deg,
        pitch_deg: state.pitch_deg.clamp(-MAX_PITCH_DEG, MAX_PITCH_DEG),
        fov_y_deg,
    }
}

/// Why a globe keyframe read from a file is not valid.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
enum GlobeKeyframeError {
    /// A problem flat and globe keyframes share.
    #[error(transparent)]
    Common(#[from] CommonKeyframeError),
    /// A field is infinite or NaN.
    #[error("every field must be a finite number")]
    NotFinite,
    /// The latitude is beyond a pole.
    #[error("lat_deg {lat_deg} is outside [-90, 90]")]
    LatitudeOutOfRange {
        /// The latitude in degrees.
        lat_deg: f64,
    },
    /// The camera is not above the ellipsoid.
    #[error("altitude_m {altitude_m} must be above the ellipsoid (positive metres)")]
    AltitudeNotPositive {
        /// The altitude in metres.
        altitude_m: f64,
    },
    /// The view direction is too close to straight up or down.
    #[error("pitch_deg {pitch_deg} is outside ±{max} (straight up or down leaves the heading undefined)", max = MAX_PITCH_DEG)]
    PitchOutOfRange {
        /// The pitch in degrees.
        pitch_deg: f64,
    },
}

/// Checks one keyframe and unwraps its longitude and heading against the previous keyframe.
fn validate(raw: &RawGlobeKeyframe, previous: Option<&GlobeKeyframe>) -> Result<GlobeKeyframe, GlobeKeyframeError> {
    let numbers = [raw.time_s, raw.lon_deg, raw.lat_deg, raw.altitude_m, raw.heading_deg, raw.pitch_deg];
    if numbers.iter().any(|v| !v.is_finite()) {
        return Err(GlobeKeyframeError::NotFinite);
    }
    check_time_increases(raw.time_s, previous.map(|p| p.time_s))?;
    if raw.lat_deg.abs() > 90.0 {
        return Err(GlobeKeyframeError::LatitudeOutOfRange { lat_deg: raw.lat_deg });
    }
    if raw.altitude_m <= 0.0 {
        return Err(GlobeKeyframeError::AltitudeNotPositive { altitude_m: raw.altitude_m });
    }
    if raw.pitch_deg.abs() > MAX_PITCH_DEG {
        return Err(GlobeKeyframeError::PitchOutOfRange { pitch_deg: raw.pitch_deg });
    }
    let fov_y_deg = resolve_fov_y_deg(raw.fov_y_deg, previous.map(|p| p.fov_y_deg))?;
    let unwrap = |value_deg: f64, previous_deg: Option<f64>| match previous_deg {
        Some(p) => value_deg - 360.0 * ((value_deg - p) / 360.0).round(),
        None => value_deg,
    };
    let state = State {
        lon_deg: unwrap(raw.lon_deg, previous.map(|p| p.state.lon_deg)),
        lat_deg: raw.lat_deg,
        ln_altitude_m: raw.altitude_m.ln(),
        heading_deg: unwrap(raw.heading_deg, previous.map(|p| p.state.heading_deg)),
        pitch_deg: raw.pitch_deg,
    };
    Ok(GlobeKeyframe { time_s: raw.time_s, state, fov_y_deg })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    fn keyframe(time_s: f64, lon_deg: f64, altitude_m: f64, heading_deg: f64) -> String {
        format!(
            r#"{{"time_s": {time_s}, "lon_deg": {lon_deg}, "lat_deg": 23.5, "altitude_m": {altitude_m}, "heading_deg": {heading_deg}, "pitch_deg": -30}}"#
        )
    }

    fn path(keyframes: &[String]) -> String {
        format!("{{\"keyframes\": [\n{}\n]}}", keyframes.join(",\n"))
    }

    #[test]
    fn keyframes_are_hit_exactly_and_altitude_is_interpolated_in_log() {
        let mut rng = XorShift::fresh("globe_path");
        let times = [0.0, 3.0, 4.5, 10.0];
        let altitudes: Vec<f64> = times.iter().map(|_| 10f64.powf(2.0 + 5.0 * rng.unit())).collect();
        let text = path(&times.iter().zip(&altitudes).map(|(&t, &a)| keyframe(t, 120.0 + t, a, 10.0 * t)).collect::<Vec<_>>());
        let p = GlobePath::parse(&text, "p.json").unwrap();
        assert_eq!(p.duration_s(), 10.0);
        for (&t, &a) in times.iter().zip(&altitudes) {
            let pose = p.sample(t);
            assert!((pose.altitude_m - a).abs() <= 1e-9 * a, "{t}: {} vs {a}", pose.altitude_m);
            assert!((pose.lon_deg - (120.0 + t)).abs() < 1e-12);
        }
        // Two keyframes: halfway in time is the geometric mean of the altitudes.
        let p = GlobePath::parse(&path(&[keyframe(0.0, 121.0, 1e7, 0.0), keyframe(1.0, 121.0, 1e3, 0.0)]), "p").unwrap();
        assert!((p.sample(0.5).altitude_m - 1e5).abs() < 1e-6);
        assert!(p.sample(0.25).altitude_m > p.sample(0.5).altitude_m);
    }

    #[test]
    fn longitude_and_heading_turn_the_short_way() {
        let p = GlobePath::parse(&path(&[keyframe(0.0, 179.0, 1e4, 350.0), keyframe(1.0, -179.0, 1e4, 10.0)]), "p").unwrap();
        let mid = p.sample(0.5);
        assert!((mid.lon_deg - 180.0).abs() < 1e-9, "{}", mid.lon_deg);
        assert!((mid.heading_deg - 360.0).abs() < 1e-9, "{}", mid.heading_deg);
    }

    #[test]
    fn bad_keyframes_name_the_line_and_problem() {
        let cases = [
            (keyframe(0.0, 0.0, -5.0, 0.0), "altitude_m -5"),
            (r#"{"time_s": 0, "lon_deg": 0, "lat_deg": 95, "altitude_m": 10, "heading_deg": 0, "pitch_deg": 0}"#.to_string(), "lat_deg 95"),
            (
                r#"{"time_s": 0, "lon_deg": 0, "lat_deg": 0, "altitude_m": 10, "heading_deg": 0, "pitch_deg": -90}"#.to_string(),
                "pitch_deg -90",
            ),
            (r#"{"time_s": 0, "position_m": [0, 0, 0]}"#.to_string(), "unknown field"),
        ];
        for (bad, expected) in cases {
            let text = path(&[keyframe(0.0, 0.0, 10.0, 0.0).replace("\"time_s\": 0", "\"time_s\": -1"), bad]);
            let error = GlobePath::parse(&text, "p.json").unwrap_err().to_string();
            assert!(error.starts_with("camera path p.json:3: keyframes[1]: "), "{error}");
            assert!(error.contains(expected), "{error}");
        }
    }
}
