//! Camera paths for benchmarks: JSON keyframes sampled along a smooth spline.
//!
//! # File format
//!
//! A camera path is a JSON object with one field, `keyframes`, a non-empty
//! array of keyframe objects. Coordinates are world metres with x east,
//! y north and z up.
//!
//! ```json
//! {
//!   "keyframes": [
//!     { "time_s": 0.0, "position_m": [1000.0, 1000.0, 900.0], "look_at_m": [10000.0, 10000.0, 300.0], "fov_y_deg": 60.0 },
//!     { "time_s": 10.0, "position_m": [8000.0, 3000.0, 700.0], "yaw_deg": 45.0, "pitch_deg": -10.0 }
//!   ]
//! }
//! ```
//!
//! Keyframe fields:
//!
//! * `time_s` (required): time of the keyframe in seconds; strictly increasing
//!   from one keyframe to the next.
//! * `position_m` (required): camera position `[x, y, z]` in metres.
//! * Orientation, exactly one of:
//!   * `look_at_m`: a world point `[x, y, z]` the camera looks at (must differ
//!     from `position_m`), or
//!   * `yaw_deg` and `pitch_deg` (both): yaw 0 looks along +x, 90 along +y;
//!     pitch is positive upwards.
//!
//!   The view direction must stay within ±89.9° of horizontal, because a camera
//!   looking straight up or down has no defined heading.
//! * `fov_y_deg` (optional): vertical field of view in degrees, in (0, 180);
//!   defaults to the previous keyframe's value, or 60 for the first keyframe.
//!
//! Unknown fields are rejected so that typos do not go unnoticed. A single
//! keyframe is a valid, static path. Sampling before the first or after the
//! last keyframe returns that keyframe.
//!
//! # Interpolation
//!
//! * Position: Catmull-Rom spline parameterised by keyframe time, in cubic
//!   Hermite form. The tangent at keyframe i is
//!   `(p[i+1] - p[i-1]) / (t[i+1] - t[i-1])`, which is uniform Catmull-Rom when
//!   keyframes are evenly spaced and keeps the velocity continuous when they
//!   are not. The end keyframes are duplicated, with the phantom keyframe
//!   mirrored in time (one keyframe interval before the first and after the
//!   last one).
//! * Orientation: every keyframe is converted to yaw and pitch (a look-at point
//!   gives the direction towards it), yaw is unwrapped so that consecutive
//!   keyframes turn the short way round, and yaw and pitch follow the same
//!   Catmull-Rom spline as the position. The camera never rolls (z stays up)
//!   and the angular velocity is continuous. Between two look-at keyframes the
//!   camera therefore turns smoothly but does not track the look-at points
//!   exactly.
//! * Field of view: smoothstep between consecutive keyframes, which never
//!   overshoots.
//!
//! Sampling at a keyframe's time returns that keyframe exactly. Numbers are read
//! with correctly rounded parsing, so `to_json` followed by `parse` reproduces a
//! path bit for bit.
//!
//! # Errors
//!
//! Every problem is reported as `camera path <file>:<line>: <problem>`. JSON
//! syntax errors give serde_json's line and column; problems with a keyframe
//! give the line where that keyframe object starts.

mod file;

use super::keyframes::{DEFAULT_FOV_Y_DEG, MAX_PITCH_DEG};
use super::spline::{hermite, tangent, Timed};
use file::{validate_keyframe, RawKeyframe};
use glam::{DVec2, DVec3};

/// Errors from reading a camera path (flat or globe), with the file and line.
pub use super::keyframes::PathError;

/// A camera state sampled from a path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraPose {
    /// Camera position in world metres (x east, y north, z up).
    pub position_m: DVec3,
    /// Unit view direction.
    pub forward: DVec3,
    /// Vertical field of view in degrees.
    pub fov_y_deg: f64,
}

/// A camera path: keyframes with strictly increasing times, sampled along a smooth spline.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraPath {
    keyframes: Vec<Keyframe>,
}

/// How a keyframe's orientation was given, kept so that `to_json` writes it back unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Orientation {
    LookAt { look_at_m: DVec3 },
    YawPitch { yaw_deg: f64, pitch_deg: f64 },
}

/// A validated keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Keyframe {
    time_s: f64,
    position_m: DVec3,
    orientation: Orientation,
    fov_y_deg: f64,
    /// Yaw (unwrapped relative to the previous keyframe) and pitch, in radians.
    angles_rad: DVec2,
}

impl CameraPath {
    /// Builds a path from recorded poses, one keyframe per pose, for the viewer's path recorder.
    ///
    /// Poses are paired with `times_s` by index (extra entries in the longer slice are
    /// ignored). A pose is dropped when its time is not after the previous kept pose's,
    /// when any value is non-finite, when `forward` is zero, or when `fov_y_deg` is outside
    /// (0, 180). The view direction is clamped to ±89.9° from horizontal. If no pose
    /// remains, the path is empty: `sample` returns a default pose and `to_json` produces a
    /// file that `parse` rejects with "keyframes is empty".
    pub fn from_poses(times_s: &[f64], poses: &[CameraPose]) -> CameraPath {
        let mut keyframes: Vec<Keyframe> = Vec::with_capacity(poses.len());
        for (&time_s, pose) in times_s.iter().zip(poses) {
            let forward = pose.forward;
            if !forward.is_finite() || forward.length_squared() == 0.0 {
                continue;
            }
            let (yaw_rad, pitch_rad) = yaw_pitch_rad(forward);
            let raw = RawKeyframe {
                time_s,
                position_m: pose.position_m.to_array(),
                look_at_m: None,
                yaw_deg: Some(yaw_rad.to_degrees()),
                pitch_deg: Some(pitch_rad.to_degrees().clamp(-MAX_PITCH_DEG, MAX_PITCH_DEG)),
                fov_y_deg: Some(pose.fov_y_deg),
            };
            if let Ok(keyframe) = validate_keyframe(&raw, keyframes.last()) {
                keyframes.push(keyframe);
            }
        }
        CameraPath { keyframes }
    }

    /// Number of keyframes in the path.
    pub fn keyframe_count(&self) -> usize {
        self.keyframes.len()
    }

    /// Time from the first to the last keyframe in seconds (0 for a static or empty path).
    pub fn duration_s(&self) -> f64 {
        match (self.keyframes.first(), self.keyframes.last()) {
            (Some(first), Some(last)) => last.time_s - first.time_s,
            _ => 0.0,
        }
    }

    /// Camera pose at `time_s`, clamped to the first and last keyframes' times.
    ///
    /// Keyframe times are absolute (the first keyframe need not be at 0). A NaN time
    /// gives the first keyframe; an empty path gives a camera at the origin looking along
    /// +x with a 60° field of view.
    pub fn sample(&self, time_s: f64) -> CameraPose {
        let keyframes = &self.keyframes;
        let (Some(first), Some(last)) = (keyframes.first(), keyframes.last()) else {
            return CameraPose { position_m: DVec3::ZERO, forward: DVec3::X, fov_y_deg: DEFAULT_FOV_Y_DEG };
        };
        if time_s.is_nan() || time_s <= first.time_s {
            return keyframe_pose(first);
        }
        if time_s >= last.time_s {
            return keyframe_pose(last);
        }
        let next = keyframes.partition_point(|k| k.time_s <= time_s);
        let (i, j) = (next - 1, next);
        let (a, b) = (&keyframes[i], &keyframes[j]);
        let interval_s = b.time_s - a.time_s;
        let s = (time_s - a.time_s) / interval_s;

        let position_m = hermite(
            a.position_m,
            tangent(keyframes, i, |k| k.position_m),
            b.position_m,
            tangent(keyframes, j, |k| k.position_m),
            interval_s,
            s,
        );
        let angles_rad = hermite(
            a.angles_rad,
            tangent(keyframes, i, |k| k.angles_rad),
            b.angles_rad,
            tangent(keyframes, j, |k| k.angles_rad),
            interval_s,
            s,
        );
        let max_pitch_rad = MAX_PITCH_DEG.to_radians();
        let pitch_rad = angles_rad.y.clamp(-max_pitch_rad, max_pitch_rad);
        let smooth = s * s * (3.0 - 2.0 * s);
        CameraPose {
            position_m,
            forward: forward_from_angles(angles_rad.x, pitch_rad),
            fov_y_deg: a.fov_y_deg + (b.fov_y_deg - a.fov_y_deg) * smooth,
        }
    }
}

/// The pose exactly at a keyframe.
fn keyframe_pose(keyframe: &Keyframe) -> CameraPose {
    CameraPose {
        position_m: keyframe.position_m,
        forward: forward_from_angles(keyframe.angles_rad.x, keyframe.angles_rad.y),
        fov_y_deg: keyframe.fov_y_deg,
    }
}

/// Unit view direction for a yaw (0 = +x, pi/2 = +y) and a pitch (positive up), in radians.
fn forward_from_angles(yaw_rad: f64, pitch_rad: f64) -> DVec3 {
    let (sin_yaw, cos_yaw) = yaw_rad.sin_cos();
    let (sin_pitch, cos_pitch) = pitch_rad.sin_cos();
    DVec3::new(cos_pitch * cos_yaw, cos_pitch * sin_yaw, sin_pitch).normalize()
}

/// Yaw and pitch in radians of a non-zero direction.
fn yaw_pitch_rad(direction: DVec3) -> (f64, f64) {
    (direction.y.atan2(direction.x), direction.z.atan2(direction.x.hypot(direction.y)))
}

impl Timed for Keyframe {
    fn time_s(&self) -> f64 {
        self.time_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file format example of the module documentation.
    pub(super) const EXAMPLE: &str = r#"{
  "keyframes": [
    { "time_s": 0.0, "position_m": [1000.0, 1000.0, 900.0], "look_at_m": [10000.0, 10000.0, 300.0], "fov_y_deg": 60.0 },
    { "time_s": 10.0, "position_m": [8000.0, 3000.0, 700.0], "yaw_deg": 45.0, "pitch_deg": -10.0 }
  ]
}"#;

    use crate::test_rng::XorShift;

    /// Expected pose of a keyframe as written in a test file.
    pub(super) struct Expected {
        time_s: f64,
        position_m: DVec3,
        forward: DVec3,
        fov_y_deg: f64,
    }

    /// A random path as JSON text, with the pose each keyframe should produce.
    pub(super) fn random_path_json(rng: &mut XorShift) -> (String, Vec<Expected>) {
        let count = 1 + (rng.next_u64() % 8) as usize;
        let mut time_s = rng.range(-5.0, 5.0);
        let mut fov_y_deg = DEFAULT_FOV_Y_DEG;
        let mut objects = Vec::new();
        let mut expected = Vec::new();
        for _ in 0..count {
            time_s += rng.range(0.05, 10.0);
            let position_m = DVec3::new(rng.range(0.0, 10000.0), rng.range(0.0, 10000.0), rng.range(100.0, 1500.0));
            let mut fields =
                vec![format!("\"time_s\": {time_s}"), format!("\"position_m\": [{}, {}, {}]", position_m.x, position_m.y, position_m.z)];
            let forward = if rng.unit() < 0.5 {
                let look_at_m = DVec3::new(rng.range(0.0, 10000.0), rng.range(0.0, 10000.0), rng.range(0.0, 500.0));
                fields.push(format!("\"look_at_m\": [{}, {}, {}]", look_at_m.x, look_at_m.y, look_at_m.z));
                (look_at_m - position_m).normalize()
            } else {
                let yaw_deg = rng.range(-400.0, 400.0);
                let pitch_deg = rng.range(-80.0, 80.0);
                fields.push(format!("\"yaw_deg\": {yaw_deg}, \"pitch_deg\": {pitch_deg}"));
                forward_from_angles(yaw_deg.to_radians(), pitch_deg.to_radians())
            };
            if rng.unit() < 0.5 {
                fov_y_deg = rng.range(20.0, 120.0);
                fields.push(format!("\"fov_y_deg\": {fov_y_deg}"));
            }
            objects.push(format!("    {{ {} }}", fields.join(", ")));
            expected.push(Expected { time_s, position_m, forward, fov_y_deg });
        }
        let text = format!("{{\n  \"keyframes\": [\n{}\n  ]\n}}\n", objects.join(",\n"));
        (text, expected)
    }

    #[test]
    fn parses_the_example() {
        let path = CameraPath::parse(EXAMPLE, "example.json").unwrap();
        assert_eq!(path.keyframe_count(), 2);
        assert_eq!(path.duration_s(), 10.0);

        let start = path.sample(0.0);
        assert_eq!(start.position_m, DVec3::new(1000.0, 1000.0, 900.0));
        let towards = (DVec3::new(10000.0, 10000.0, 300.0) - start.position_m).normalize();
        assert!((start.forward - towards).length() < 1e-12);
        assert_eq!(start.fov_y_deg, 60.0);

        let end = path.sample(10.0);
        assert_eq!(end.position_m, DVec3::new(8000.0, 3000.0, 700.0));
        let pitch = (-10.0f64).to_radians();
        let expected = DVec3::new(pitch.cos() * 45f64.to_radians().cos(), pitch.cos() * 45f64.to_radians().sin(), pitch.sin());
        assert!((end.forward - expected).length() < 1e-12);
        assert_eq!(end.fov_y_deg, 60.0);

        assert_eq!(path.sample(-3.0), start);
        assert_eq!(path.sample(25.0), end);
        assert_eq!(path.sample(f64::NAN), start);
        let middle = path.sample(5.0);
        assert!((middle.forward.length() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fov_defaults_to_previous_keyframe() {
        let text = r#"{"keyframes": [
            {"time_s": 0, "position_m": [0, 0, 10], "yaw_deg": 0, "pitch_deg": 0},
            {"time_s": 1, "position_m": [1, 0, 10], "yaw_deg": 0, "pitch_deg": 0, "fov_y_deg": 90},
            {"time_s": 2, "position_m": [2, 0, 10], "yaw_deg": 0, "pitch_deg": 0}
        ]}"#;
        let path = CameraPath::parse(text, "fov.json").unwrap();
        assert_eq!(path.sample(0.0).fov_y_deg, 60.0);
        assert_eq!(path.sample(1.0).fov_y_deg, 90.0);
        assert_eq!(path.sample(2.0).fov_y_deg, 90.0);
        let halfway = path.sample(0.5).fov_y_deg;
        assert!((halfway - 75.0).abs() < 1e-12);
    }

    #[test]
    fn single_keyframe_is_static() {
        let text = r#"{"keyframes": [{"time_s": 3, "position_m": [5, 6, 7], "look_at_m": [6, 6, 7]}]}"#;
        let path = CameraPath::parse(text, "static.json").unwrap();
        assert_eq!(path.duration_s(), 0.0);
        for time_s in [-1.0, 3.0, 100.0] {
            let pose = path.sample(time_s);
            assert_eq!(pose.position_m, DVec3::new(5.0, 6.0, 7.0));
            assert!((pose.forward - DVec3::X).length() < 1e-12);
            assert_eq!(pose.fov_y_deg, 60.0);
        }
    }

    #[test]
    fn samples_at_keyframe_times_are_exact() {
        let mut rng = XorShift::fresh("path");
        for _ in 0..200 {
            let (text, expected) = random_path_json(&mut rng);
            let path = CameraPath::parse(&text, "random.json").unwrap();
            for keyframe in &expected {
                let pose = path.sample(keyframe.time_s);
                assert!((pose.position_m - keyframe.position_m).length() < 1e-9, "{text}");
                assert!((pose.forward - keyframe.forward).length() < 1e-9, "{text}");
                assert!((pose.fov_y_deg - keyframe.fov_y_deg).abs() < 1e-9, "{text}");
            }
        }
    }

    #[test]
    fn interpolation_is_continuous() {
        let mut rng = XorShift::fresh("path");
        for _ in 0..100 {
            let (text, expected) = random_path_json(&mut rng);
            if expected.len() < 2 {
                continue;
            }
            let path = CameraPath::parse(&text, "random.json").unwrap();
            let keyframes = &path.keyframes;
            let mut speed_m_per_s: f64 = 0.0;
            let mut turn_rad_per_s: f64 = 0.0;
            let mut fov_rate_deg_per_s: f64 = 0.0;
            for pair in keyframes.windows(2) {
                let interval_s = pair[1].time_s - pair[0].time_s;
                speed_m_per_s = speed_m_per_s.max((pair[1].position_m - pair[0].position_m).length() / interval_s);
                let turn = pair[1].angles_rad - pair[0].angles_rad;
                turn_rad_per_s = turn_rad_per_s.max((turn.x.abs() + turn.y.abs()) / interval_s);
                fov_rate_deg_per_s = fov_rate_deg_per_s.max((pair[1].fov_y_deg - pair[0].fov_y_deg).abs() / interval_s);
            }
            let start_s = keyframes[0].time_s - 1.0;
            let end_s = keyframes[keyframes.len() - 1].time_s + 1.0;
            let dt_s = 1e-4;
            let mut times_s: Vec<f64> = (0..20_000).map(|i| start_s + (end_s - start_s) * i as f64 / 20_000.0).collect();
            for keyframe in keyframes {
                times_s.push(keyframe.time_s - dt_s);
                times_s.push(keyframe.time_s - dt_s * 0.5);
            }
            for time_s in times_s {
                let a = path.sample(time_s);
                let b = path.sample(time_s + dt_s);
                let moved_m = (b.position_m - a.position_m).length();
                let turned = (b.forward - a.forward).length();
                let zoomed_deg = (b.fov_y_deg - a.fov_y_deg).abs();
                assert!(moved_m <= 4.0 * speed_m_per_s * dt_s + 1e-9, "{moved_m} at {time_s}\n{text}");
                assert!(turned <= 4.0 * turn_rad_per_s * dt_s + 1e-9, "{turned} at {time_s}\n{text}");
                assert!(zoomed_deg <= 1.5 * fov_rate_deg_per_s * dt_s + 1e-9, "{zoomed_deg} at {time_s}\n{text}");
                assert!((a.forward.length() - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn yaw_turns_the_short_way() {
        let text = r#"{"keyframes": [
            {"time_s": 0, "position_m": [0, 0, 10], "yaw_deg": 170, "pitch_deg": 0},
            {"time_s": 1, "position_m": [0, 0, 10], "yaw_deg": -170, "pitch_deg": 0}
        ]}"#;
        let path = CameraPath::parse(text, "wrap.json").unwrap();
        let middle = path.sample(0.5).forward;
        assert!((middle - DVec3::NEG_X).length() < 1e-9, "{middle}");
    }

    #[test]
    fn recorder_poses_round_trip() {
        let mut rng = XorShift::fresh("path");
        let mut times_s = Vec::new();
        let mut poses = Vec::new();
        for i in 0..50 {
            times_s.push(i as f64 * 0.1);
            let forward = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-0.5, 0.5)).normalize();
            poses.push(CameraPose {
                position_m: DVec3::new(rng.range(0.0, 1e4), rng.range(0.0, 1e4), rng.range(0.0, 1e3)),
                forward,
                fov_y_deg: rng.range(30.0, 90.0),
            });
        }
        let path = CameraPath::from_poses(&times_s, &poses);
        assert_eq!(path.keyframe_count(), 50);
        for (time_s, pose) in times_s.iter().zip(&poses) {
            let sampled = path.sample(*time_s);
            assert!((sampled.position_m - pose.position_m).length() < 1e-9);
            assert!((sampled.forward - pose.forward).length() < 1e-9);
            assert!((sampled.fov_y_deg - pose.fov_y_deg).abs() < 1e-9);
        }
        let reparsed = CameraPath::parse(&path.to_json(), "recorded.json").unwrap();
        assert_eq!(reparsed, path);
    }

    #[test]
    fn recorder_drops_unusable_poses() {
        let good = CameraPose { position_m: DVec3::new(1.0, 2.0, 3.0), forward: DVec3::Y, fov_y_deg: 60.0 };
        let poses = [
            good,
            good,
            CameraPose { forward: DVec3::ZERO, ..good },
            CameraPose { fov_y_deg: 200.0, ..good },
            CameraPose { position_m: DVec3::new(f64::NAN, 0.0, 0.0), ..good },
            CameraPose { forward: DVec3::NEG_Z, ..good },
        ];
        let times_s = [0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let path = CameraPath::from_poses(&times_s, &poses);
        assert_eq!(path.keyframe_count(), 2);
        let down = path.sample(4.0).forward;
        assert!(down.z < -0.99 && down.z > -1.0);
        CameraPath::parse(&path.to_json(), "recorded.json").unwrap();

        let empty = CameraPath::from_poses(&[], &[]);
        assert_eq!(empty.keyframe_count(), 0);
        assert_eq!(empty.duration_s(), 0.0);
        assert_eq!(empty.sample(1.0).forward, DVec3::X);
        let err = CameraPath::parse(&empty.to_json(), "empty.json").unwrap_err();
        assert!(err.to_string().contains("is empty"), "{err}");
    }
}
