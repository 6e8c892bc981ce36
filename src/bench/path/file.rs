//! The camera path file format: reading a file into keyframes (with exact numbers and typed
//! problems) and writing a path back as JSON. The format is described in `bench::path`.

use super::{forward_from_angles, yaw_pitch_rad, CameraPath, Keyframe, Orientation};
use crate::bench::keyframes::{check_time_increases, parse_keyframes, resolve_fov_y_deg, CommonKeyframeError, PathError, MAX_PITCH_DEG};
use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::path::Path;

/// Fields a keyframe object may contain, for error messages.
const KEYFRAME_FIELDS: &str = "time_s, position_m, look_at_m or yaw_deg + pitch_deg, and optionally fov_y_deg";

/// A keyframe exactly as it appears in the file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawKeyframe {
    /// Time in seconds.
    pub(super) time_s: f64,
    /// Camera position in metres.
    pub(super) position_m: [f64; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) look_at_m: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) yaw_deg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) pitch_deg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) fov_y_deg: Option<f64>,
}

impl CameraPath {
    /// Reads and parses a camera path file.
    pub fn load(path: &Path) -> Result<CameraPath, PathError> {
        let text = PathError::read_text(path)?;
        CameraPath::parse(&text, &path.display().to_string())
    }

    /// Parses a camera path from JSON text; `source_name` names the file in error messages.
    pub fn parse(text: &str, source_name: &str) -> Result<CameraPath, PathError> {
        let keyframes = parse_keyframes(text, source_name, KEYFRAME_FIELDS, |element, mut raw: RawKeyframe, previous| {
            reread_numbers_exactly(element, &mut raw);
            validate_keyframe(&raw, previous)
        })?;
        Ok(CameraPath { keyframes })
    }

    /// The path as JSON in the file format, one keyframe per line; `parse` reads it back unchanged.
    pub fn to_json(&self) -> String {
        let lines: Vec<String> = self
            .keyframes
            .iter()
            .map(|keyframe| {
                let (look_at_m, yaw_deg, pitch_deg) = match keyframe.orientation {
                    Orientation::LookAt { look_at_m } => (Some(look_at_m.to_array()), None, None),
                    Orientation::YawPitch { yaw_deg, pitch_deg } => (None, Some(yaw_deg), Some(pitch_deg)),
                };
                let raw = RawKeyframe {
                    time_s: keyframe.time_s,
                    position_m: keyframe.position_m.to_array(),
                    look_at_m,
                    yaw_deg,
                    pitch_deg,
                    fov_y_deg: Some(keyframe.fov_y_deg),
                };
                let json = serde_json::to_string(&raw).unwrap_or_else(|err| serde_json::Value::String(err.to_string()).to_string());
                format!("    {json}")
            })
            .collect();
        format!("{{\n  \"keyframes\": [\n{}\n  ]\n}}\n", lines.join(",\n"))
    }
}

/// Why a keyframe read from a file is not valid.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub(super) enum KeyframeError {
    /// A problem flat and globe keyframes share.
    #[error(transparent)]
    Common(#[from] CommonKeyframeError),
    /// `time_s` is infinite or NaN.
    #[error("time_s must be a finite number of seconds")]
    TimeNotFinite,
    /// `position_m` has an infinite or NaN coordinate.
    #[error("position_m must be three finite numbers [x, y, z] in metres")]
    PositionNotFinite,
    /// Both orientation forms are given.
    #[error("gives both look_at_m and yaw_deg/pitch_deg; keep exactly one orientation form")]
    TwoOrientations,
    /// No orientation is given.
    #[error("has no orientation; add look_at_m, or yaw_deg and pitch_deg")]
    NoOrientation,
    /// `yaw_deg` is given alone.
    #[error("gives yaw_deg without pitch_deg; add pitch_deg (or use look_at_m instead)")]
    YawWithoutPitch,
    /// `pitch_deg` is given alone.
    #[error("gives pitch_deg without yaw_deg; add yaw_deg (or use look_at_m instead)")]
    PitchWithoutYaw,
    /// `look_at_m` has an infinite or NaN coordinate.
    #[error("look_at_m must be three finite numbers [x, y, z] in metres")]
    LookAtNotFinite,
    /// `look_at_m` is the camera position, so there is no view direction.
    #[error("look_at_m equals position_m, so the view direction is undefined; move look_at_m away from the camera")]
    LookAtIsPosition,
    /// `yaw_deg` or `pitch_deg` is infinite or NaN.
    #[error("yaw_deg and pitch_deg must be finite numbers of degrees")]
    AnglesNotFinite,
    /// The view direction is too close to straight up or down.
    #[error("the view direction is {pitch_deg:.3}° from horizontal; keep it within ±{max}° (straight up or down leaves the heading undefined)", max = MAX_PITCH_DEG)]
    TooSteep {
        /// Angle of the view direction above the horizontal, in degrees.
        pitch_deg: f64,
    },
}

/// Checks one keyframe read from a file and resolves its defaults against the previous one.
pub(super) fn validate_keyframe(raw: &RawKeyframe, previous: Option<&Keyframe>) -> Result<Keyframe, KeyframeError> {
    if !raw.time_s.is_finite() {
        return Err(KeyframeError::TimeNotFinite);
    }
    check_time_increases(raw.time_s, previous.map(|p| p.time_s))?;
    let position_m = DVec3::from_array(raw.position_m);
    if !position_m.is_finite() {
        return Err(KeyframeError::PositionNotFinite);
    }

    let (orientation, direction) = match (raw.look_at_m, raw.yaw_deg, raw.pitch_deg) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(KeyframeError::TwoOrientations);
        }
        (None, None, None) => return Err(KeyframeError::NoOrientation),
        (None, Some(_), None) => return Err(KeyframeError::YawWithoutPitch),
        (None, None, Some(_)) => return Err(KeyframeError::PitchWithoutYaw),
        (Some(look_at), None, None) => {
            let look_at_m = DVec3::from_array(look_at);
            if !look_at_m.is_finite() {
                return Err(KeyframeError::LookAtNotFinite);
            }
            let direction = look_at_m - position_m;
            if direction.length_squared() == 0.0 || !direction.is_finite() {
                return Err(KeyframeError::LookAtIsPosition);
            }
            (Orientation::LookAt { look_at_m }, direction)
        }
        (None, Some(yaw_deg), Some(pitch_deg)) => {
            if !yaw_deg.is_finite() || !pitch_deg.is_finite() {
                return Err(KeyframeError::AnglesNotFinite);
            }
            let orientation = Orientation::YawPitch { yaw_deg, pitch_deg };
            (orientation, forward_from_angles(yaw_deg.to_radians(), pitch_deg.to_radians()))
        }
    };

    let (mut yaw_rad, pitch_rad, pitch_deg) = match orientation {
        Orientation::YawPitch { yaw_deg, pitch_deg } => (yaw_deg.to_radians(), pitch_deg.to_radians(), pitch_deg),
        Orientation::LookAt { .. } => {
            let (yaw_rad, pitch_rad) = yaw_pitch_rad(direction);
            (yaw_rad, pitch_rad, pitch_rad.to_degrees())
        }
    };
    if pitch_deg.abs() > MAX_PITCH_DEG {
        return Err(KeyframeError::TooSteep { pitch_deg });
    }
    let fov_y_deg = resolve_fov_y_deg(raw.fov_y_deg, previous.map(|p| p.fov_y_deg))?;

    if let Some(previous) = previous {
        let turn_rad = yaw_rad - previous.angles_rad.x;
        yaw_rad -= std::f64::consts::TAU * (turn_rad / std::f64::consts::TAU).round();
    }

    Ok(Keyframe { time_s: raw.time_s, position_m, orientation, fov_y_deg, angles_rad: DVec2::new(yaw_rad, pitch_rad) })
}

/// A keyframe's numbers exactly as written in the file.
#[derive(Deserialize)]
struct KeyframeNumbers<'a> {
    #[serde(borrow)]
    time_s: &'a RawValue,
    #[serde(borrow)]
    position_m: [&'a RawValue; 3],
    #[serde(borrow, default)]
    look_at_m: Option<[&'a RawValue; 3]>,
    #[serde(borrow, default)]
    yaw_deg: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pitch_deg: Option<&'a RawValue>,
    #[serde(borrow, default)]
    fov_y_deg: Option<&'a RawValue>,
}

/// Re-reads a keyframe's numbers from its JSON text with std's correctly rounded float parser.
///
/// serde_json (without its `float_roundtrip` feature) may be one unit in the last place off,
/// which would break the bit-exact `to_json`/`parse` round trip.
fn reread_numbers_exactly(element: &str, raw: &mut RawKeyframe) {
    fn number(text: &RawValue, target: &mut f64) {
        if let Ok(value) = text.get().parse::<f64>() {
            *target = value;
        }
    }
    fn triple(texts: &[&RawValue; 3], target: &mut [f64; 3]) {
        for (text, value) in texts.iter().zip(target.iter_mut()) {
            number(text, value);
        }
    }
    let Ok(numbers) = serde_json::from_str::<KeyframeNumbers>(element) else {
        return;
    };
    number(numbers.time_s, &mut raw.time_s);
    triple(&numbers.position_m, &mut raw.position_m);
    if let (Some(texts), Some(look_at_m)) = (&numbers.look_at_m, raw.look_at_m.as_mut()) {
        triple(texts, look_at_m);
    }
    let optional =
        [(numbers.yaw_deg, raw.yaw_deg.as_mut()), (numbers.pitch_deg, raw.pitch_deg.as_mut()), (numbers.fov_y_deg, raw.fov_y_deg.as_mut())];
    for (text, target) in optional {
        if let (Some(text), Some(target)) = (text, target) {
            number(text, target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::path::tests::{random_path_json, EXAMPLE};
    use crate::test_rng::XorShift;

    fn parse_err(text: &str) -> PathError {
        match CameraPath::parse(text, "test.json") {
            Ok(path) => panic!("expected an error, got {path:?} for\n{text}"),
            Err(err) => err,
        }
    }

    #[test]
    fn errors_report_file_and_line() {
        let keyframe_ok = r#"{"time_s": 0, "position_m": [0, 0, 10], "yaw_deg": 0, "pitch_deg": 0}"#;
        let cases: Vec<(String, usize, &str)> = vec![
            (
                format!("{{\n  \"keyframes\": [\n    {keyframe_ok},\n    {{\"time_s\": 0, \"position_m\": [1, 0, 10], \"yaw_deg\": 0, \"pitch_deg\": 0}}\n  ]\n}}"),
                4,
                "strictly increase",
            ),
            (
                format!("{{\n  \"keyframes\": [\n    {keyframe_ok},\n\n    {{\"time_s\": 1, \"position_m\": [1, 0, 10], \"look_at_m\": [5, 5, 5], \"yaw_deg\": 0, \"pitch_deg\": 0}}\n  ]\n}}"),
                5,
                "exactly one orientation",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0, 10]}\n]}".to_string(),
                2,
                "no orientation",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0, 10], \"yaw_deg\": 3}\n]}".to_string(),
                2,
                "without pitch_deg",
            ),
            (
                format!("{{\"keyframes\": [\n  {keyframe_ok},\n  {{\n    \"time_s\": 1,\n    \"position_m\": [1, 0, 10],\n    \"yaw_deg\": 0,\n    \"pitch_deg\": 0,\n    \"fov_y_deg\": 180\n  }}\n]}}"),
                3,
                "fov_y_deg 180 is outside (0, 180)",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0, 10], \"yaw_deg\": 0, \"pitch_deg\": 0, \"fov_y_deg\": 0}\n]}".to_string(),
                2,
                "outside (0, 180)",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1,\n   \"position_m\": [1, 0, 10], \"look_at_m\": [1, 0, 10]}\n]}".to_string(),
                2,
                "look_at_m equals position_m",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0, 10], \"look_at_m\": [1, 0, 0]}\n]}".to_string(),
                2,
                "from horizontal",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0, 10], \"yaw_deg\": 0, \"pitch_deg\": 90}\n]}".to_string(),
                2,
                "from horizontal",
            ),
            ("{\n  \"keyframes\": [\n  ]\n}".to_string(), 2, "is empty"),
            ("\n\n{\n}".to_string(), 3, "missing \"keyframes\""),
            ("\n[1, 2]".to_string(), 2, "top level must be an object"),
            (
                "{\n  \"keyframes\": [],\n  \"speed\": 3\n}".to_string(),
                3,
                "unknown top-level field \"speed\"",
            ),
            (
                format!("{{\n  \"keyframes\": [{keyframe_ok}],\n  \"keyframes\": []\n}}"),
                3,
                "more than once",
            ),
            ("{\n  \"keyframes\": 3\n}".to_string(), 2, "must be an array"),
            (
                format!("{{\"keyframes\": [\n  {keyframe_ok},\n  17\n]}}"),
                3,
                "keyframes[1] must be an object",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0, 10], \"yaw_deg\": 0, \"pitch_deg\": 0, \"fov\": 50}\n]}".to_string(),
                2,
                "unknown field `fov`",
            ),
            (
                "{\"keyframes\": [\n  {\"position_m\": [1, 0, 10],\n   \"yaw_deg\": 0, \"pitch_deg\": 0}\n]}".to_string(),
                2,
                "missing field `time_s`",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": \"soon\", \"position_m\": [1, 0, 10], \"yaw_deg\": 0, \"pitch_deg\": 0}\n]}".to_string(),
                2,
                "invalid type",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"position_m\": [1, 0], \"yaw_deg\": 0, \"pitch_deg\": 0}\n]}".to_string(),
                2,
                "keyframes[0]",
            ),
            (
                "{\"keyframes\": [\n  {\"time_s\": 1, \"time_s\": 2, \"position_m\": [1, 0, 1], \"yaw_deg\": 0, \"pitch_deg\": 0}\n]}".to_string(),
                2,
                "duplicate field `time_s`",
            ),
        ];
        for (text, line, needle) in cases {
            let err = parse_err(&text);
            let message = err.to_string();
            assert!(matches!(err, PathError::Invalid { .. }), "expected a semantic error: {message}\n{text}");
            assert_eq!(err.line(), Some(line), "{message}\n{text}");
            assert!(message.starts_with(&format!("camera path test.json:{line}: ")), "{message}");
            assert!(message.contains(needle), "{message} lacks {needle:?}");
        }
    }

    #[test]
    fn syntax_and_number_errors_carry_serde_position() {
        let cases = [
            ("{\n  \"keyframes\": [\n    {\"time_s\": 1,,}\n  ]\n}", 3, 18),
            ("", 1, 0),
            ("{\"keyframes\": [\n  {\"time_s\": 1e999, \"position_m\": [0, 0, 0], \"yaw_deg\": 0, \"pitch_deg\": 0}\n]}", 2, 0),
            ("{\"keyframes\": [\n  {\"time_s\": NaN}\n]}", 2, 0),
        ];
        for (text, line, column) in cases {
            let err = parse_err(text);
            let message = err.to_string();
            let PathError::Syntax { line: got_line, column: got_column, .. } = &err else {
                panic!("expected a syntax error, got {message}");
            };
            assert_eq!(*got_line, line, "{message}");
            if column > 0 {
                assert_eq!(*got_column, column, "{message}");
            }
            assert!(message.starts_with(&format!("camera path test.json:{line}: invalid JSON")), "{message}");
            assert!(!message.contains(" at line "), "{message}");
        }
    }

    #[test]
    fn json_round_trips() {
        let mut rng = XorShift::fresh("path");
        for _ in 0..100 {
            let (text, _) = random_path_json(&mut rng);
            let path = CameraPath::parse(&text, "random.json").unwrap();
            let json = path.to_json();
            let reparsed = CameraPath::parse(&json, "round_trip.json").unwrap();
            assert_eq!(reparsed, path, "{json}");
            assert_eq!(reparsed.to_json(), json);
        }
        let example = CameraPath::parse(EXAMPLE, "example.json").unwrap();
        assert_eq!(CameraPath::parse(&example.to_json(), "again.json").unwrap(), example);
    }

    #[test]
    fn load_reads_files_and_names_them_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("flight.json");
        std::fs::write(&file, EXAMPLE).unwrap();
        let path = CameraPath::load(&file).unwrap();
        assert_eq!(path.keyframe_count(), 2);

        let missing = dir.path().join("missing.json");
        let err = CameraPath::load(&missing).unwrap_err();
        assert!(matches!(err, PathError::Read { .. }));
        assert!(err.to_string().contains("missing.json"), "{err}");

        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{\"keyframes\": []}").unwrap();
        let err = CameraPath::load(&bad).unwrap_err();
        assert!(err.to_string().starts_with(&format!("camera path {}:1: ", bad.display())), "{err}");
    }
}
