//! Where the viewer keeps its files, and the panel state it persists between runs (its own
//! settings plus egui's `Memory`: collapsed headers, panel width, plot zoom).
//!
//! The folder is `$BISECTOR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/bisector`, else
//! `$HOME/.config/bisector`. A file that cannot be parsed is reported on stderr and left as it
//! is: the viewer starts with defaults and does not save over it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::kernel_lab::KernelLabSettings;
use super::rig::CameraMode;

/// Environment variable that overrides the config folder (tests use it).
pub const CONFIG_DIR_ENV: &str = "BISECTOR_CONFIG_DIR";
/// The panel state file inside the config folder.
pub const STATE_FILE: &str = "viewer.ron";

/// The config folder, or None when neither the override, XDG_CONFIG_HOME nor HOME is set.
pub fn config_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var(CONFIG_DIR_ENV)
        .or_else(|| var("XDG_CONFIG_HOME").map(|d| d.join("bisector")))
        .or_else(|| var("HOME").map(|d| d.join(".config").join("bisector")))
}

/// The viewer's own panel settings (what egui's Memory does not hold).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PanelState {
    /// The side panel is shown (F1 toggles it).
    pub show_panel: bool,
    /// Camera mode at start.
    pub camera_mode: CameraMode,
    /// Flight speed multiplier.
    pub speed_scale: f64,
    /// GPU-time plot: frames of history shown.
    pub plot_frames: usize,
    /// GPU-time plot: draw the per-pass lines (else only the frame total).
    pub plot_passes: bool,
    /// Parameters of the Kernel lab's kernels.
    pub kernel_lab: KernelLabSettings,
}

impl Default for PanelState {
    fn default() -> Self {
        PanelState {
            show_panel: true,
            camera_mode: CameraMode::Orbit,
            speed_scale: 1.0,
            plot_frames: 240,
            plot_passes: true,
            kernel_lab: KernelLabSettings::default(),
        }
    }
}

/// Everything written to `viewer.ron`.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedState {
    pub panels: PanelState,
    /// egui's Memory, serialized by egui's own persistence (None: egui's defaults).
    pub egui: Option<egui::Memory>,
}

/// The state file and whether the viewer may write it.
pub struct StateFile {
    pub path: Option<PathBuf>,
    /// False when the file existed but could not be parsed: it is left untouched.
    pub writable: bool,
}

/// Reads `path`: missing means defaults (and writable); malformed means defaults, a warning on
/// stderr, and not writable.
pub fn load_state(path: Option<PathBuf>) -> (SavedState, StateFile) {
    let Some(path) = path else {
        return (SavedState::default(), StateFile { path: None, writable: false });
    };
    match crate::input::read_limited_text(&path, crate::input::VIEWER_FILE_BYTES, "viewer state") {
        Err(crate::input::InputError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            (SavedState::default(), StateFile { path: Some(path), writable: true })
        }
        Err(e) => {
            eprintln!("warning: {e}; starting with defaults and not saving over it");
            (SavedState::default(), StateFile { path: Some(path), writable: false })
        }
        Ok(text) => match ron::from_str::<SavedState>(&text) {
            Ok(state) => (state, StateFile { path: Some(path), writable: true }),
            Err(e) => {
                eprintln!(
                    "warning: viewer state {}: malformed ({e}); starting with defaults and leaving the file as it is (delete it to save panel state again)",
                    path.display()
                );
                (SavedState::default(), StateFile { path: Some(path), writable: false })
            }
        },
    }
}

/// Why the viewer could not save a file (panel state, bookmarks, a recorded path): one line that
/// names the file.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("no config folder (set HOME or BISECTOR_CONFIG_DIR)")]
    NoConfigFolder,
    #[error("nothing recorded yet: press Record and move the camera")]
    NothingRecorded,
    #[error("{} exists; choose another name (recordings never overwrite a file)", .0.display())]
    Exists(PathBuf),
    #[error("{what} {}: {action} ({source})", path.display())]
    Io { what: &'static str, path: PathBuf, action: &'static str, source: std::io::Error },
    #[error("viewer state: cannot write it as RON ({0})")]
    Ron(#[from] ron::Error),
}

/// Writes `state` (to a temporary file, then renamed, so a crash never leaves half a file).
pub fn save_state(file: &StateFile, state: &SavedState) -> Result<(), SaveError> {
    let Some(path) = file.path.as_ref().filter(|_| file.writable) else { return Ok(()) };
    let text = ron::ser::to_string_pretty(state, ron::ser::PrettyConfig::default())?;
    write_atomically(path, text.as_bytes()).map_err(|source| SaveError::Io {
        what: "viewer state",
        path: path.clone(),
        action: "cannot write it",
        source,
    })
}

/// Writes `bytes` to `path` in its folder (created if needed), replacing it atomically as every
/// output is (`cli::write_bytes_atomic`).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    crate::cli::write_bytes_atomic(path, bytes).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_with_egui_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(STATE_FILE);
        let (state, file) = load_state(Some(path.clone()));
        assert!(file.writable);
        assert_eq!(state.panels, PanelState::default());

        // egui keeps a collapsing header's open state in its persisted Memory.
        let ctx = egui::Context::default();
        let id = egui::Id::unique("bisector.lod");
        ctx.data_mut(|d| d.insert_persisted(id, 42u32));
        let mut kernel_lab = KernelLabSettings::default();
        kernel_lab.cbt.max_depth = 12;
        kernel_lab.chained_hash.keys = bisector_kernels::chained_hash::KeyDistribution::Sequential;
        kernel_lab.closest_pairs.variant = bisector_kernels::closest_pairs::Variant::Grid;
        kernel_lab.shift_and.text_bytes = 4096;
        let panels = PanelState {
            show_panel: false,
            camera_mode: CameraMode::Fly,
            speed_scale: 2.5,
            plot_frames: 100,
            plot_passes: false,
            kernel_lab,
        };
        save_state(&file, &SavedState { panels: panels.clone(), egui: Some(ctx.memory(|m| m.clone())) }).unwrap();

        let (loaded, file) = load_state(Some(path));
        assert!(file.writable);
        assert_eq!(loaded.panels, panels);
        let restored = egui::Context::default();
        restored.memory_mut(|m| *m = loaded.egui.unwrap());
        assert_eq!(restored.data_mut(|d| d.get_persisted::<u32>(id)), Some(42));
    }

    #[test]
    fn a_malformed_file_gives_defaults_and_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STATE_FILE);
        std::fs::write(&path, "(panels: (show_panel: maybe").unwrap();
        let (state, file) = load_state(Some(path.clone()));
        assert!(!file.writable);
        assert_eq!(state.panels, PanelState::default());
        save_state(&file, &SavedState::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "(panels: (show_panel: maybe");
    }

    #[test]
    fn an_oversized_file_is_not_read_whole_nor_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STATE_FILE);
        let big = vec![b' '; crate::input::VIEWER_FILE_BYTES as usize + 1];
        std::fs::write(&path, &big).unwrap();
        let (state, file) = load_state(Some(path.clone()));
        assert!(!file.writable);
        assert_eq!(state.panels, PanelState::default());
        save_state(&file, &SavedState::default()).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), big.len() as u64);
    }

    #[test]
    fn unknown_or_missing_fields_take_defaults() {
        let state: SavedState = ron::from_str("(panels: (speed_scale: 4.0, kernel_lab: (shift_and: (patterns: 8))))").unwrap();
        assert_eq!(state.panels.speed_scale, 4.0);
        assert!(state.panels.show_panel);
        assert_eq!(state.panels.kernel_lab.shift_and.patterns, 8);
        assert_eq!(state.panels.kernel_lab.shift_and.text_bytes, KernelLabSettings::default().shift_and.text_bytes);
        assert_eq!(state.panels.kernel_lab.cbt, KernelLabSettings::default().cbt);
    }
}
