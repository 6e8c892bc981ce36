//! Command-line parsing helpers shared by the subcommands: sizes, cameras and output paths.

use std::path::Path;

use crate::bench::path::PathError;
use crate::globe::camera::GlobeCamera;
use glam::DVec3;

use crate::flat::camera::Camera;

/// A command-line value refused: one line that names the option, what was given and why.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    /// The value of `option` (`text`) is not what it must be (`reason`).
    #[error("{option} '{text}': {reason}")]
    Value { option: &'static str, text: String, reason: String },
    /// An output path that cannot be written (`reason`).
    #[error("{option} {}: {reason}", path.display())]
    Output { option: String, path: std::path::PathBuf, reason: String },
    /// A camera-path file given as a camera.
    #[error(transparent)]
    CameraPath(#[from] PathError),
    /// An image that could not be encoded.
    #[error("cannot encode {}: {source}", path.display())]
    Encode { path: std::path::PathBuf, source: image::ImageError },
    #[error(transparent)]
    Write(#[from] OutputError),
}

/// `ArgError::Value` for `option` given `text`.
fn bad(option: &'static str, text: &str, reason: impl Into<String>) -> ArgError {
    ArgError::Value { option, text: text.to_string(), reason: reason.into() }
}

/// Parses `WxH` (e.g. `1920x1080`) into pixels.
pub fn parse_size(text: &str) -> Result<(u32, u32), ArgError> {
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(|| bad("--size", text, "expected WIDTHxHEIGHT, e.g. 1920x1080"))?;
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|v| (1..=16384).contains(v));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(bad("--size", text, "width and height must be whole numbers from 1 to 16384")),
    }
}

/// Parses `--camera`: either `PX,PY,PZ,TX,TY,TZ[,FOV]` (position and look-at target in metres,
/// vertical field of view in degrees) or a camera-path file, whose pose at time 0 is used.
pub fn parse_camera(text: &str) -> Result<Camera, ArgError> {
    if Path::new(text).is_file() {
        let path = crate::bench::path::CameraPath::load(Path::new(text))?;
        let pose = path.sample(0.0);
        return Ok(Camera { position_m: pose.position_m, forward: pose.forward, fov_y_deg: pose.fov_y_deg });
    }
    let values: Vec<f64> = text
        .split(',')
        .map(|v| v.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|v: &Vec<f64>| (v.len() == 6 || v.len() == 7) && v.iter().all(|x| x.is_finite()))
        .ok_or_else(|| bad("--camera", text, "expected PX,PY,PZ,TX,TY,TZ[,FOV_DEG] in metres or an existing camera-path file"))?;
    let (position, target) = (DVec3::new(values[0], values[1], values[2]), DVec3::new(values[3], values[4], values[5]));
    let fov = values.get(6).copied().unwrap_or(55.0);
    if position == target {
        return Err(bad("--camera", text, "the position and the look-at target are the same point"));
    }
    if !(1.0..179.0).contains(&fov) {
        return Err(bad("--camera", text, "the field of view must be between 1 and 179 degrees"));
    }
    Ok(Camera::look_at(position, target, fov))
}

/// How high a globe camera is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GlobeAltitude {
    /// Metres above the WGS84 ellipsoid.
    AboveEllipsoidM(f64),
    /// Metres above the ground under the camera (`100agl`).
    AboveGroundM(f64),
}

/// A parsed globe `--camera`, before the ground under it is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobeCameraSpec {
    pub lon_deg: f64,
    pub lat_deg: f64,
    pub altitude: GlobeAltitude,
    pub heading_deg: f64,
    pub pitch_deg: f64,
    pub fov_y_deg: f64,
}

impl GlobeCameraSpec {
    /// The camera; `ground_m(lon, lat)` gives the ground height in metres for an altitude above
    /// the ground (it is not called otherwise).
    pub fn resolve<E>(&self, ground_m: impl FnOnce(f64, f64) -> Result<f64, E>) -> Result<GlobeCamera, E> {
        let altitude_m = match self.altitude {
            GlobeAltitude::AboveEllipsoidM(m) => m,
            GlobeAltitude::AboveGroundM(m) => ground_m(self.lon_deg, self.lat_deg)? + m,
        };
        Ok(GlobeCamera::at_lon_lat(self.lon_deg, self.lat_deg, altitude_m, self.heading_deg, self.pitch_deg, self.fov_y_deg))
    }
}

/// Parses a globe camera: `LON,LAT,ALT[,HEADING_DEG,PITCH_DEG[,FOV_DEG]]` (degrees; ALT in
/// metres above the WGS84 ellipsoid, e.g. `30000`, or above the ground with `agl`, e.g. `100agl`; heading
/// clockwise from north, pitch negative looking down), or a globe camera-path file (its first pose).
pub fn parse_globe_camera(text: &str) -> Result<GlobeCameraSpec, ArgError> {
    const SYNTAX: &str = "expected LON,LAT,ALT[,HEADING_DEG,PITCH_DEG[,FOV_DEG]] for a globe, ALT in metres above the WGS84 ellipsoid (30000) or above the ground (100agl), or a globe camera-path file";
    if Path::new(text).is_file() {
        let pose = crate::bench::globe_path::GlobePath::load(Path::new(text))?.sample(0.0);
        return Ok(GlobeCameraSpec {
            lon_deg: pose.lon_deg,
            lat_deg: pose.lat_deg,
            altitude: GlobeAltitude::AboveEllipsoidM(pose.altitude_m),
            heading_deg: pose.heading_deg,
            pitch_deg: pose.pitch_deg,
            fov_y_deg: pose.fov_y_deg,
        });
    }
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if !matches!(fields.len(), 3 | 5 | 6) {
        return Err(bad("--camera", text, SYNTAX));
    }
    let number = |field: &str| field.parse::<f64>().ok().filter(|x| x.is_finite());
    let (altitude_text, above_ground) = match fields[2].strip_suffix("agl") {
        Some(metres) => (metres.trim(), true),
        None => (fields[2], false),
    };
    let mut values = Vec::new();
    for (k, field) in fields.iter().enumerate() {
        let value = if k == 2 { number(altitude_text) } else { number(field) };
        values.push(value.ok_or_else(|| bad("--camera", text, format!("'{field}' is not a number; {SYNTAX}")))?);
    }
    let (lon, lat, altitude) = (values[0], values[1], values[2]);
    let (heading, pitch) = if values.len() >= 5 { (values[3], values[4]) } else { (0.0, -90.0) };
    let fov = values.get(5).copied().unwrap_or(50.0);
    if !(-180.0..=180.0).contains(&lon) {
        return Err(bad("--camera", text, "longitude must lie between -180 and 180 degrees"));
    }
    if !(-90.0..=90.0).contains(&lat) || !(-90.0..=90.0).contains(&pitch) {
        return Err(bad("--camera", text, "latitude and pitch must lie between -90 and 90 degrees"));
    }
    if altitude <= 0.0 {
        let what = if above_ground { "above the ground" } else { "above the ellipsoid" };
        return Err(bad("--camera", text, format!("the altitude must be {what} (positive metres)")));
    }
    if !(1.0..179.0).contains(&fov) {
        return Err(bad("--camera", text, "the field of view must be between 1 and 179 degrees"));
    }
    let altitude = if above_ground { GlobeAltitude::AboveGroundM(altitude) } else { GlobeAltitude::AboveEllipsoidM(altitude) };
    Ok(GlobeCameraSpec { lon_deg: lon, lat_deg: lat, altitude, heading_deg: heading, pitch_deg: pitch, fov_y_deg: fov })
}

/// Parses `--at LON,LAT` on the globe (degrees).
pub fn parse_lon_lat(text: &str) -> Result<(f64, f64), ArgError> {
    let (lon, lat) = text
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?)))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .ok_or_else(|| bad("--at", text, "expected LON,LAT in degrees on the globe, e.g. 120.9572,23.47"))?;
    if !(-180.0..=180.0).contains(&lon) || !(-90.0..=90.0).contains(&lat) {
        return Err(bad("--at", text, "longitude must lie between -180 and 180 degrees and latitude between -90 and 90"));
    }
    Ok((lon, lat))
}

/// Checks before any work that `path` can be written: its folder exists and it is not a folder.
pub fn check_output_path(path: &Path, flag: &str) -> Result<(), ArgError> {
    let refuse = |reason: String| ArgError::Output { option: flag.to_string(), path: path.to_path_buf(), reason };
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(refuse(format!("the folder {} does not exist", parent.display())));
    }
    if path.is_dir() {
        return Err(refuse("is a folder, expected a file name".into()));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly()) {
        return Err(refuse("the file is read-only; choose another name or make it writable".into()));
    }
    let probe = tempfile::Builder::new().prefix(".bisector-write-test-").tempfile_in(parent);
    probe.map_err(|e| refuse(format!("cannot write in {}: {e}", parent.display())))?;
    Ok(())
}

/// Why an output file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output names a file the command reads.
    #[error("{flag} {path}: is the same file as {input_flag} {input}; choose another output name (bisector never writes over its inputs)")]
    SameAsInput { flag: String, path: String, input_flag: String, input: String },
    /// The output lies inside a folder the command reads.
    #[error("{flag} {path}: lies inside the folder {input_flag} {input} reads; choose another output name (bisector never writes over its inputs)")]
    InsideInput { flag: String, path: String, input_flag: String, input: String },
    /// Two outputs of one command name the same file.
    #[error("{flag} {path}: is the same file as {other_flag} {other}; give each output its own name")]
    SameAsOutput { flag: String, path: String, other_flag: String, other: String },
    /// Writing or replacing the file failed (the old file, if any, is untouched).
    #[error("cannot write {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// The file `path` names, links resolved: the canonical path of an existing file, or the
/// canonical folder joined with the name of one that does not exist yet.
fn resolved(path: &Path) -> std::path::PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match (parent.canonicalize(), path.file_name()) {
        (Ok(folder), Some(name)) => folder.join(name),
        _ => path.to_path_buf(),
    }
}

/// Refuses, before any work, an output (option name, path) that names an existing input file or
/// an existing file inside an input folder, or the same file as another output (links resolved).
/// A new file is never an input; inputs that do not exist are skipped (their readers report them).
pub fn check_outputs(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), OutputError> {
    let inputs: Vec<(&str, &Path, std::path::PathBuf)> =
        inputs.iter().filter_map(|&(flag, path)| Some((flag, path, path.canonicalize().ok()?))).collect();
    let outputs: Vec<(&str, &Path, std::path::PathBuf)> = outputs.iter().map(|&(flag, path)| (flag, path, resolved(path))).collect();
    for (k, (flag, path, target)) in outputs.iter().enumerate() {
        let (flag, path_text) = (flag.to_string(), path.display().to_string());
        for (input_flag, input, canonical) in &inputs {
            let (input_flag, input_text) = (input_flag.to_string(), input.display().to_string());
            if target == canonical {
                return Err(OutputError::SameAsInput { flag, path: path_text, input_flag, input: input_text });
            }
            if canonical.is_dir() && target.starts_with(canonical) && target.exists() {
                return Err(OutputError::InsideInput { flag, path: path_text, input_flag, input: input_text });
            }
        }
        if let Some((other_flag, other, _)) = outputs[..k].iter().find(|(_, _, other)| other == target) {
            return Err(OutputError::SameAsOutput {
                flag,
                path: path_text,
                other_flag: other_flag.to_string(),
                other: other.display().to_string(),
            });
        }
    }
    Ok(())
}

/// Replaces `path` atomically: `write` fills a temporary file in the same folder (given open and
/// by its path), which is then renamed over `path`. On any error `path` keeps its old content
/// (or stays absent) and the temporary file is removed. A link is followed: its target is replaced.
pub fn write_atomic(path: &Path, write: impl FnOnce(&mut std::fs::File, &Path) -> std::io::Result<()>) -> Result<(), OutputError> {
    let error = |source: std::io::Error| OutputError::Write { path: path.display().to_string(), source };
    let target = resolved(path);
    if std::fs::metadata(&target).is_ok_and(|m| m.permissions().readonly()) {
        return Err(error(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "the file is read-only")));
    }
    let folder = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new().prefix(".bisector-").suffix(".tmp").tempfile_in(folder).map_err(error)?;
    // The new file gets the old one's permissions, or the usual ones of a new file.
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions()).or_else(default_permissions);
    let temp_path = temp.path().to_path_buf();
    write(temp.as_file_mut(), &temp_path).map_err(error)?;
    temp.as_file().sync_all().map_err(error)?;
    if let Some(permissions) = permissions {
        std::fs::set_permissions(&temp_path, permissions).map_err(error)?;
    }
    temp.persist(&target).map_err(|e| error(e.error))?;
    Ok(())
}

/// Permissions of a new output file: rw-r--r-- on unix (a temporary file starts private).
#[cfg(unix)]
fn default_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// Permissions of a new output file: those the temporary file has.
#[cfg(not(unix))]
fn default_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Replaces `path` atomically with `bytes` (see `write_atomic`).
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_atomic(path, |file, _| std::io::Write::write_all(file, bytes))
}

/// Writes `image` as PNG to `path`, replacing it atomically.
pub fn write_png(image: &image::RgbaImage, path: &Path) -> Result<(), ArgError> {
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).map_err(|source| ArgError::Encode { path: path.to_path_buf(), source })?;
    Ok(write_bytes_atomic(path, png.get_ref())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, b"old").unwrap();
        let result = write_atomic(&path, |file, _| {
            std::io::Write::write_all(file, b"half of the new")?;
            Err(std::io::Error::other("the run failed"))
        });
        assert!(matches!(result, Err(OutputError::Write { .. })), "{result:?}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A new file that fails is never created.
        let new = dir.path().join("new.json");
        assert!(write_atomic(&new, |_, _| Err(std::io::Error::other("no"))).is_err());
        assert!(!new.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions_and_links() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.csv");
        std::fs::write(&target, b"old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_bytes_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced by a file");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640);
        let fresh = dir.path().join("fresh.csv");
        write_bytes_atomic(&fresh, b"x").unwrap();
        assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o644);
        // A read-only file is not replaced.
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(write_bytes_atomic(&target, b"newer").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[cfg(unix)]
    #[test]
    fn outputs_never_name_inputs_or_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.tif");
        std::fs::write(&input, b"data").unwrap();
        let folder = dir.path().join("pyramid");
        std::fs::create_dir(&folder).unwrap();
        let link = dir.path().join("link.png");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let inputs = [("--terrain", input.as_path()), ("--path", folder.as_path()), ("--camera", Path::new("/no/such/file"))];
        let dotted = dir.path().join(".").join("in.tif");
        for (output, expect) in [(&input, "--out"), (&link, "--out"), (&dotted, "--out")] {
            let error = check_outputs(&inputs, &[("--out", output)]).unwrap_err().to_string();
            assert!(error.starts_with(expect) && error.contains("--terrain"), "{error}");
        }
        let inside = folder.join("tiles.json");
        check_outputs(&inputs, &[("--out", &inside)]).unwrap();
        std::fs::write(&inside, b"{}").unwrap();
        assert!(matches!(check_outputs(&inputs, &[("--out", &inside)]), Err(OutputError::InsideInput { .. })));
        let fresh = dir.path().join("fresh.json");
        let same = dir.path().join(".").join("fresh.json");
        assert!(matches!(check_outputs(&inputs, &[("--json", &fresh), ("--plot", &same)]), Err(OutputError::SameAsOutput { .. })));
        check_outputs(&inputs, &[("--json", &fresh), ("--plot", &dir.path().join("plot.png"))]).unwrap();
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256x128").unwrap(), (256, 128));
        assert!(parse_size("256").is_err());
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("axb").is_err());
    }

    #[test]
    fn inline_cameras() {
        let camera = parse_camera("0,0,100,10,0,100,40").unwrap();
        assert_eq!(camera.forward, DVec3::X);
        assert_eq!(camera.fov_y_deg, 40.0);
        assert!(parse_camera("1,2,3").is_err());
        assert!(parse_camera("1,1,1,1,1,1").is_err());
    }

    #[test]
    fn globe_cameras_above_the_ellipsoid_or_the_ground() {
        let spec = parse_globe_camera("121.5,24.1,100agl,90,-5").unwrap();
        assert_eq!(spec.altitude, GlobeAltitude::AboveGroundM(100.0));
        let camera = spec.resolve(|lon, lat| {
            assert_eq!((lon, lat), (121.5, 24.1));
            Ok::<f64, ArgError>(250.0)
        });
        assert!((camera.unwrap().altitude_m() - 350.0).abs() < 1e-6);
        let spec = parse_globe_camera("121.5,24.1,30000").unwrap();
        assert_eq!(spec.altitude, GlobeAltitude::AboveEllipsoidM(30000.0));
        assert!(
            (spec.resolve(|_, _| -> Result<f64, ArgError> { panic!("no ground needed") }).unwrap().altitude_m() - 30000.0).abs() < 1e-6
        );
        for bad in ["121,24", "121,24,100m", "121,24,agl", "121,24,-5agl", "121,24,0", "200,24,100", "121,24,100,0", "121,24,100agl,0,-100"]
        {
            let error = parse_globe_camera(bad).unwrap_err().to_string();
            assert!(error.starts_with(&format!("--camera '{bad}': ")) && !error.contains('\n'), "{error}");
        }
        assert_eq!(parse_lon_lat(" 120.9572, 23.47").unwrap(), (120.9572, 23.47));
        assert!(parse_lon_lat("120.9572").is_err() && parse_lon_lat("121,95").is_err() && parse_lon_lat("x,1").is_err());
    }
}
