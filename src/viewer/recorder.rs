//! Records the flight as a camera path in the format `bench --path` reads
//! (`bench::path::CameraPath`), so any flight can become a benchmark.

use std::path::Path;

use super::config::SaveError;
use crate::bench::path::{CameraPath, CameraPose};
use crate::flat::camera::Camera;

/// Poses are kept at most this often (10 per second); the bench spline fills in between.
pub const MIN_INTERVAL_S: f64 = 0.1;

/// A recording in progress (or stopped, waiting to be saved).
#[derive(Debug, Default)]
pub struct PathRecorder {
    pub recording: bool,
    times_s: Vec<f64>,
    poses: Vec<CameraPose>,
}

impl PathRecorder {
    /// Starts a new recording, dropping any previous one.
    pub fn start(&mut self) {
        *self = PathRecorder { recording: true, ..Default::default() };
    }

    /// Stops recording (the poses stay until the next start).
    pub fn stop(&mut self) {
        self.recording = false;
    }

    /// Adds the camera at `time_s` (seconds since any fixed origin) while recording, at most every
    /// `MIN_INTERVAL_S`.
    pub fn push(&mut self, time_s: f64, camera: &Camera) {
        if !self.recording || self.times_s.last().is_some_and(|&last| time_s - last < MIN_INTERVAL_S - 1e-9) {
            return;
        }
        self.times_s.push(time_s);
        self.poses.push(CameraPose { position_m: camera.position_m, forward: camera.forward, fov_y_deg: camera.fov_y_deg });
    }

    /// Poses recorded.
    pub fn len(&self) -> usize {
        self.poses.len()
    }

    /// True before the first pose.
    pub fn is_empty(&self) -> bool {
        self.poses.is_empty()
    }

    /// Seconds from the first to the last pose.
    pub fn duration_s(&self) -> f64 {
        match (self.times_s.first(), self.times_s.last()) {
            (Some(a), Some(b)) => b - a,
            _ => 0.0,
        }
    }

    /// The recording as a camera path, times starting at 0.
    pub fn path(&self) -> CameraPath {
        let start = self.times_s.first().copied().unwrap_or(0.0);
        let times: Vec<f64> = self.times_s.iter().map(|t| t - start).collect();
        CameraPath::from_poses(&times, &self.poses)
    }

    /// Writes the path as JSON to `file`, which must not exist yet (nothing is overwritten).
    pub fn save(&self, file: &Path) -> Result<String, SaveError> {
        let path = self.path();
        if path.keyframe_count() == 0 {
            return Err(SaveError::NothingRecorded);
        }
        if file.exists() {
            return Err(SaveError::Exists(file.to_path_buf()));
        }
        let io =
            |action: &'static str, source: std::io::Error| SaveError::Io { what: "camera path", path: file.to_path_buf(), action, source };
        if let Some(folder) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| io("cannot create its folder", e))?;
        }
        crate::cli::write_bytes_atomic(file, path.to_json().as_bytes()).map_err(|e| io("cannot write", std::io::Error::other(e)))?;
        Ok(format!(
            "saved {} keyframes ({:.1} s) to {}; run it with `bisector bench --path {}`",
            path.keyframe_count(),
            path.duration_s(),
            file.display(),
            file.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn a_recorded_flight_is_a_bench_path() {
        let mut recorder = PathRecorder::default();
        let camera_at =
            |i: usize| Camera::look_at(DVec3::new(100.0 * i as f64, 50.0, 800.0), DVec3::new(100.0 * i as f64 + 1000.0, 2000.0, 0.0), 55.0);
        recorder.push(0.0, &camera_at(0)); // not recording yet
        recorder.start();
        // 60 frames at 60 Hz starting at t = 5 s: kept every 0.1 s.
        for i in 0..60 {
            recorder.push(5.0 + i as f64 / 60.0, &camera_at(i));
        }
        recorder.stop();
        recorder.push(7.0, &camera_at(99));
        assert_eq!(recorder.len(), 10);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("flight.json");
        let message = recorder.save(&file).unwrap();
        assert!(message.contains("bench --path"), "{message}");
        // bench reads exactly this file.
        let path = CameraPath::load(&file).unwrap();
        assert_eq!(path, recorder.path());
        assert_eq!(path.keyframe_count(), 10);
        assert!((path.duration_s() - recorder.duration_s()).abs() < 1e-12);
        let first = path.sample(0.0);
        let expected = camera_at(0);
        assert!((first.position_m - expected.position_m).length() < 1e-9);
        assert!((first.forward - expected.forward).length() < 1e-9);
        assert_eq!(first.fov_y_deg, 55.0);
        // Never overwrites.
        let err = recorder.save(&file).unwrap_err();
        assert!(err.to_string().contains("exists"), "{err}");
        assert!(PathRecorder::default().save(&dir.path().join("empty.json")).is_err());
    }
}
