//! The file format that flat and globe camera paths share, `{"keyframes": [ ... ]}`, read with
//! serde_json: every keyframe is kept as a `RawValue` slice of the file's text, so an error names
//! the line where its keyframe (or top-level field) starts, or serde_json's own line and column.

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;
use std::path::Path;

/// Vertical field of view in degrees used when no keyframe gives one.
pub(super) const DEFAULT_FOV_Y_DEG: f64 = 60.0;

/// Largest angle between the view direction and the horizontal plane, in degrees.
pub(super) const MAX_PITCH_DEG: f64 = 89.9;

/// Errors from loading or parsing a camera path file.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// The file could not be read.
    #[error("camera path {file}: cannot read the file ({source}); check that it exists and is readable")]
    Read {
        /// File name as given by the caller.
        file: String,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// The file is too large or not text (see `crate::input` for the limits).
    #[error(transparent)]
    Input(crate::input::InputError),
    /// The file is not valid JSON.
    #[error("camera path {file}:{line}: invalid JSON at column {column}: {message}; fix the syntax there")]
    Syntax {
        /// File name as given by the caller.
        file: String,
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column of the syntax error.
        column: usize,
        /// serde_json's description of the problem.
        message: String,
    },
    /// The file is valid JSON but not a valid camera path.
    #[error("camera path {file}:{line}: {problem}")]
    Invalid {
        /// File name as given by the caller.
        file: String,
        /// 1-based line of the offending keyframe (or field).
        line: usize,
        /// What is wrong and how to fix it.
        problem: String,
    },
}

impl PathError {
    /// Reads a camera path file's text within `crate::input::CAMERA_PATH_BYTES`.
    pub(super) fn read_text(path: &Path) -> Result<String, PathError> {
        use crate::input::{read_limited_text, InputError, CAMERA_PATH_BYTES};
        read_limited_text(path, CAMERA_PATH_BYTES, "camera path").map_err(|err| match err {
            InputError::Read { path, source, .. } => PathError::Read { file: path, source },
            other => PathError::Input(other),
        })
    }

    /// The 1-based line the error refers to, if it refers to one.
    pub fn line(&self) -> Option<usize> {
        match self {
            PathError::Read { .. } | PathError::Input(_) => None,
            PathError::Syntax { line, .. } | PathError::Invalid { line, .. } => Some(*line),
        }
    }
}

/// Problems that flat and globe keyframes can both have.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub(super) enum CommonKeyframeError {
    /// The keyframe's time is not after the previous keyframe's.
    #[error("time_s {time_s} is not after the previous keyframe's time_s {previous_time_s}; keyframe times must strictly increase")]
    NotAfterPrevious {
        /// This keyframe's time.
        time_s: f64,
        /// The previous keyframe's time.
        previous_time_s: f64,
    },
    /// The field of view (given or inherited) is not in (0, 180) degrees.
    #[error("fov_y_deg {fov_y_deg} is outside (0, 180); give the vertical field of view in degrees, e.g. 60")]
    FovOutOfRange {
        /// The field of view in degrees.
        fov_y_deg: f64,
    },
}

/// Checks that a keyframe's time comes strictly after the previous keyframe's (if any).
pub(super) fn check_time_increases(time_s: f64, previous_time_s: Option<f64>) -> Result<(), CommonKeyframeError> {
    match previous_time_s {
        Some(previous_time_s) if time_s <= previous_time_s => Err(CommonKeyframeError::NotAfterPrevious { time_s, previous_time_s }),
        _ => Ok(()),
    }
}

/// A keyframe's field of view: the one given, else the previous keyframe's, else 60; in (0, 180).
pub(super) fn resolve_fov_y_deg(fov_y_deg: Option<f64>, previous_fov_y_deg: Option<f64>) -> Result<f64, CommonKeyframeError> {
    let fov_y_deg = fov_y_deg.unwrap_or(previous_fov_y_deg.unwrap_or(DEFAULT_FOV_Y_DEG));
    if fov_y_deg > 0.0 && fov_y_deg < 180.0 {
        Ok(fov_y_deg)
    } else {
        Err(CommonKeyframeError::FovOutOfRange { fov_y_deg })
    }
}

/// Parses the keyframes of a camera path file's text, `{"keyframes": [ ... ]}` (non-empty).
///
/// Each keyframe object is deserialised as `R` (`fields` lists its fields for error messages)
/// and turned into a `K` by `validate`, given the keyframe's JSON text (a slice of `text`) and
/// the previous keyframe. Every error names `source_name` and the line of the problem.
pub(super) fn parse_keyframes<'t, R, K, E>(
    text: &'t str,
    source_name: &str,
    fields: &str,
    mut validate: impl FnMut(&'t str, R, Option<&K>) -> Result<K, E>,
) -> Result<Vec<K>, PathError>
where
    R: serde::de::DeserializeOwned,
    E: fmt::Display,
{
    let source = Source { text, name: source_name };
    // IgnoredAny checks the syntax without building the document in memory.
    serde_json::from_str::<IgnoredAny>(text).map_err(|err| source.syntax(err, text))?;
    let array = source.keyframes_array()?;

    let mut keyframes: Vec<K> = Vec::new();
    let count = for_each_element(array, |index, element| {
        let raw: R = serde_json::from_str(element).map_err(|err| {
            if err.classify() == serde_json::error::Category::Syntax {
                // One the check above let through (a number out of range).
                return source.syntax(err, element);
            }
            let problem = if element.starts_with('{') {
                format!("keyframes[{index}]: {}; a keyframe has {fields}", serde_message(&err))
            } else {
                format!("keyframes[{index}] must be an object with {fields}")
            };
            source.invalid(element, problem)
        })?;
        let keyframe = validate(element, raw, keyframes.last())
            .map_err(|problem| source.invalid(element, format!("keyframes[{index}]: {problem}")))?;
        keyframes.push(keyframe);
        Ok(())
    })
    .map_err(|stopped| stopped.unwrap_or_else(|| source.not_an_array(array)))?;
    if count == 0 {
        return Err(source.invalid(array, "\"keyframes\" is empty; add at least one keyframe".to_string()));
    }
    Ok(keyframes)
}

/// A camera path file's text and name, for finding its parts and naming them in errors.
#[derive(Clone, Copy)]
struct Source<'t, 'n> {
    text: &'t str,
    name: &'n str,
}

impl<'t> Source<'t, '_> {
    /// The text of the `keyframes` array, checking the top level of syntactically valid JSON.
    fn keyframes_array(&self) -> Result<&'t str, PathError> {
        let root: &RawValue = serde_json::from_str(self.text).map_err(|err| self.syntax(err, self.text))?;
        let root = root.get();
        let not_object =
            || self.invalid(root, "the top level must be an object like {\"keyframes\": [ ... ]}; wrap the keyframes in it".to_string());
        if !root.starts_with('{') {
            return Err(not_object());
        }
        let Members(members) = serde_json::from_str(root).map_err(|_| not_object())?;

        let mut keyframes_value: Option<&RawValue> = None;
        for (key, value) in members {
            let name = serde_json::from_str::<String>(key.get()).unwrap_or_default();
            if name != "keyframes" {
                return Err(
                    self.invalid(key.get(), format!("unknown top-level field \"{name}\"; the only top-level field is \"keyframes\""))
                );
            }
            if keyframes_value.is_some() {
                return Err(self.invalid(key.get(), "\"keyframes\" appears more than once; keep a single keyframes array".to_string()));
            }
            keyframes_value = Some(value);
        }
        let array = keyframes_value
            .ok_or_else(|| {
                self.invalid(root, "missing \"keyframes\"; the top level must be an object like {\"keyframes\": [ ... ]}".to_string())
            })?
            .get();
        if !array.starts_with('[') {
            return Err(self.not_an_array(array));
        }
        Ok(array)
    }

    /// A problem at the line where `at`, a slice of the text, starts.
    fn invalid(&self, at: &str, problem: String) -> PathError {
        PathError::Invalid { file: self.name.to_string(), line: line_of(self.text, offset_in(self.text, at)), problem }
    }

    /// The error for a `keyframes` value (`at`) that is not an array.
    fn not_an_array(&self, at: &str) -> PathError {
        self.invalid(at, "\"keyframes\" must be an array of keyframe objects".to_string())
    }

    /// serde_json's syntax error `err` in `part` (a slice of the text, or all of it), at its
    /// line and column in the file.
    fn syntax(&self, err: serde_json::Error, part: &str) -> PathError {
        let start = offset_in(self.text, part);
        let line_start = self.text[..start].rfind('\n').map_or(0, |newline| newline + 1);
        PathError::Syntax {
            file: self.name.to_string(),
            line: line_of(self.text, start) + err.line().max(1) - 1,
            column: if err.line() <= 1 { start - line_start + err.column() } else { err.column() },
            message: serde_message(&err),
        }
    }
}

/// Calls `each` with the index and text (a slice of `array`) of every element of the JSON array
/// `array`, in order and without collecting them, and returns how many there are.
///
/// Stops at the first error `each` returns and gives it back; `Err(None)` means `array` is not
/// an array.
fn for_each_element<'t>(array: &'t str, mut each: impl FnMut(usize, &'t str) -> Result<(), PathError>) -> Result<usize, Option<PathError>> {
    /// Hands each element to `each`; keeps the error that stopped it in `stopped`.
    struct EachElement<'f, F> {
        each: &'f mut F,
        stopped: &'f mut Option<PathError>,
    }

    impl<'de, F: FnMut(usize, &'de str) -> Result<(), PathError>> Visitor<'de> for EachElement<'_, F> {
        type Value = usize;

        fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
            formatter.write_str("a JSON array")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut count = 0;
            while let Some(element) = seq.next_element::<&RawValue>()? {
                if let Err(err) = (self.each)(count, element.get()) {
                    *self.stopped = Some(err);
                    return Err(serde::de::Error::custom("stopped at an invalid element"));
                }
                count += 1;
            }
            Ok(count)
        }
    }

    let mut stopped = None;
    let mut deserializer = serde_json::Deserializer::from_str(array);
    let visitor = EachElement { each: &mut each, stopped: &mut stopped };
    match (deserializer.deserialize_seq(visitor), stopped) {
        (_, Some(err)) => Err(Some(err)),
        (Ok(count), None) => Ok(count),
        (Err(_), None) => Err(None),
    }
}

/// The members of a JSON object in file order, keys (with their quotes) and values as slices of
/// the text, duplicates kept.
struct Members<'t>(Vec<(&'t RawValue, &'t RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Collects an object's members.
        struct MembersVisitor;

        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<&RawValue, &RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }

        deserializer.deserialize_map(MembersVisitor)
    }
}

/// Byte offset of `part`, a slice of `text`, within `text` (0 if it is not such a slice).
fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize).filter(|&offset| offset <= text.len()).unwrap_or(0)
}

/// The 1-based line of a byte offset in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset].iter().filter(|&&byte| byte == b'\n').count()
}

/// serde_json's message without its " at line L column C" suffix.
fn serde_message(err: &serde_json::Error) -> String {
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_of_the_text_know_their_line() {
        let text = "{\n  \"keyframes\":\n  [1,\n   2]\n}";
        let root: &RawValue = serde_json::from_str(text).unwrap();
        let Members(members) = serde_json::from_str(root.get()).unwrap();
        let (key, value) = members[0];
        assert_eq!(key.get(), "\"keyframes\"");
        assert_eq!(line_of(text, offset_in(text, key.get())), 2);
        assert_eq!(line_of(text, offset_in(text, value.get())), 3);
        let mut lines = Vec::new();
        let count = for_each_element(value.get(), |index, element| {
            lines.push((index, line_of(text, offset_in(text, element))));
            Ok(())
        });
        assert_eq!(count.ok(), Some(2));
        assert_eq!(lines, [(0, 3), (1, 4)]);
        assert!(matches!(for_each_element("{}", |_, _| Ok(())), Err(None)));
        assert_eq!(offset_in(text, "elsewhere"), 0);
    }

    #[test]
    fn common_checks() {
        assert!(check_time_increases(1.0, None).is_ok());
        assert!(check_time_increases(1.0, Some(0.5)).is_ok());
        let err = check_time_increases(1.0, Some(1.0)).unwrap_err();
        assert!(err.to_string().contains("strictly increase"), "{err}");
        assert_eq!(resolve_fov_y_deg(None, None), Ok(DEFAULT_FOV_Y_DEG));
        assert_eq!(resolve_fov_y_deg(None, Some(30.0)), Ok(30.0));
        assert_eq!(resolve_fov_y_deg(Some(90.0), Some(30.0)), Ok(90.0));
        let err = resolve_fov_y_deg(Some(180.0), None).unwrap_err();
        assert!(err.to_string().starts_with("fov_y_deg 180 is outside (0, 180)"), "{err}");
    }
}
