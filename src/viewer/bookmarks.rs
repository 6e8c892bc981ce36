//! Camera bookmarks, saved as JSON in the config folder (`bookmarks.json`).
//!
//! A bookmark is a pose in the camera-path convention (position, yaw and pitch in degrees, field
//! of view). A file that cannot be parsed is reported and left as it is; when the user later
//! saves, the old file is first kept beside it as `bookmarks.json.malformed` (or `.malformed-N`)
//! and the viewer says so.

use std::path::{Path, PathBuf};

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::config::SaveError;
use super::flight::Flight;
use crate::flat::camera::Camera;

/// The bookmarks file inside the config folder.
pub const BOOKMARKS_FILE: &str = "bookmarks.json";

/// One saved view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bookmark {
    pub name: String,
    pub position_m: [f64; 3],
    /// 0 looks along +x, 90 along +y.
    pub yaw_deg: f64,
    /// Positive upwards.
    pub pitch_deg: f64,
    pub fov_y_deg: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BookmarksFile {
    bookmarks: Vec<Bookmark>,
}

impl Bookmark {
    /// A bookmark of what `camera` shows.
    pub fn of_camera(name: &str, camera: &Camera) -> Bookmark {
        let flight = Flight::from_camera(camera);
        Bookmark {
            name: name.to_string(),
            position_m: camera.position_m.to_array(),
            yaw_deg: flight.yaw_rad.to_degrees(),
            pitch_deg: flight.pitch_rad.to_degrees(),
            fov_y_deg: camera.fov_y_deg,
        }
    }

    /// The camera this bookmark shows.
    pub fn camera(&self) -> Camera {
        Flight {
            position_m: DVec3::from_array(self.position_m),
            yaw_rad: self.yaw_deg.to_radians(),
            pitch_rad: self.pitch_deg.to_radians(),
            fov_y_deg: self.fov_y_deg,
        }
        .camera()
    }

    fn is_valid(&self) -> bool {
        self.position_m.iter().all(|v| v.is_finite())
            && self.yaw_deg.is_finite()
            && self.pitch_deg.abs() < 90.0
            && self.fov_y_deg > 0.0
            && self.fov_y_deg < 180.0
    }
}

/// The bookmarks and the file they live in.
#[derive(Debug)]
pub struct Bookmarks {
    pub list: Vec<Bookmark>,
    pub path: Option<PathBuf>,
    /// The file existed but was malformed: it is kept (renamed aside) before the first save.
    malformed: bool,
}

impl Bookmarks {
    /// Reads `path`: missing gives none; malformed gives none and a warning on stderr.
    pub fn load(path: Option<PathBuf>) -> Bookmarks {
        let Some(path) = path else { return Bookmarks { list: Vec::new(), path: None, malformed: false } };
        // Ok(bookmarks), or the problem as "bookmarks PATH: what is wrong".
        let parsed = match crate::input::read_limited_text(&path, crate::input::VIEWER_FILE_BYTES, "bookmarks") {
            Err(crate::input::InputError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Bookmarks { list: Vec::new(), path: Some(path), malformed: false };
            }
            Err(e) => Err(e.to_string()),
            Ok(text) => serde_json::from_str::<BookmarksFile>(&text)
                .map_err(|e| format!("malformed ({e})"))
                .and_then(|file| match file.bookmarks.iter().position(|b| !b.is_valid()) {
                    Some(i) => Err(format!("malformed (bookmark {i}: a value is out of range)")),
                    None => Ok(file.bookmarks),
                })
                .map_err(|problem| format!("bookmarks {}: {problem}", path.display())),
        };
        match parsed {
            Ok(list) => Bookmarks { list, path: Some(path), malformed: false },
            Err(problem) => {
                eprintln!("warning: {problem}; starting with none and leaving the file as it is until you save bookmarks");
                Bookmarks { list: Vec::new(), path: Some(path), malformed: true }
            }
        }
    }

    /// Writes the bookmarks; a malformed file found at start is first renamed aside. Returns a
    /// line for the user.
    pub fn save(&mut self) -> Result<String, SaveError> {
        let Some(path) = self.path.clone() else { return Err(SaveError::NoConfigFolder) };
        let mut message = format!("saved {} bookmarks to {}", self.list.len(), path.display());
        if self.malformed && path.exists() {
            let aside = free_name_beside(&path, "malformed");
            std::fs::rename(&path, &aside).map_err(|source| SaveError::Io {
                what: "bookmarks",
                path: path.clone(),
                action: "cannot move the malformed file aside, so nothing was saved",
                source,
            })?;
            message += &format!(" (the malformed file is kept as {})", aside.display());
            eprintln!("bisector: bookmarks: kept the malformed {} as {}", path.display(), aside.display());
        }
        let text = serde_json::to_string_pretty(&BookmarksFile { bookmarks: self.list.clone() }).expect("bookmarks serialize");
        super::config::write_atomically(&path, text.as_bytes()).map_err(|source| SaveError::Io {
            what: "bookmarks",
            path: path.clone(),
            action: "cannot write",
            source,
        })?;
        self.malformed = false;
        Ok(message)
    }
}

/// `path` with `.suffix` appended, or `.suffix-N` for the first N that does not exist.
fn free_name_beside(path: &Path, suffix: &str) -> PathBuf {
    let base = path.as_os_str().to_owned();
    let named = |extra: String| {
        let mut s = base.clone();
        s.push(extra);
        PathBuf::from(s)
    };
    let first = named(format!(".{suffix}"));
    if !first.exists() {
        return first;
    }
    (1..).map(|n| named(format!(".{suffix}-{n}"))).find(|p| !p.exists()).expect("a free name")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bookmarks_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(BOOKMARKS_FILE);
        let mut marks = Bookmarks::load(Some(path.clone()));
        assert!(marks.list.is_empty());
        let camera = Camera::look_at(DVec3::new(1.0, 2.0, 300.0), DVec3::new(1000.0, 500.0, 0.0), 55.0);
        marks.list.push(Bookmark::of_camera("peak", &camera));
        marks.save().unwrap();
        let again = Bookmarks::load(Some(path));
        assert_eq!(again.list, marks.list);
        let back = again.list[0].camera();
        assert!((back.forward - camera.forward).length() < 1e-12);
        assert_eq!(back.position_m, camera.position_m);
    }

    #[test]
    fn a_malformed_file_is_kept_until_saving_and_then_moved_aside() {
        for bad in [
            "{\"bookmarks\": [",
            "{\"bookmarks\": [{\"name\": \"x\"}]}",
            "[1, 2]",
            "{\"bookmarks\": [{\"name\": \"x\", \"position_m\": [0,0,0], \"yaw_deg\": 0, \"pitch_deg\": 95, \"fov_y_deg\": 60}]}",
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(BOOKMARKS_FILE);
            std::fs::write(&path, bad).unwrap();
            std::fs::write(dir.path().join("bookmarks.json.malformed"), "older").unwrap();
            let mut marks = Bookmarks::load(Some(path.clone()));
            assert!(marks.list.is_empty(), "{bad}");
            // Loading never touches the file.
            assert_eq!(std::fs::read_to_string(&path).unwrap(), bad);
            marks.list.push(Bookmark::of_camera("a", &Camera::look_at(DVec3::Z * 100.0, DVec3::X * 100.0, 60.0)));
            let message = marks.save().unwrap();
            assert!(message.contains("bookmarks.json.malformed-1"), "{message}");
            assert_eq!(std::fs::read_to_string(dir.path().join("bookmarks.json.malformed-1")).unwrap(), bad);
            assert_eq!(std::fs::read_to_string(dir.path().join("bookmarks.json.malformed")).unwrap(), "older");
            assert_eq!(Bookmarks::load(Some(path)).list, marks.list);
        }
    }
}
