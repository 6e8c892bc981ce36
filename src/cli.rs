//! Command-line parsing helpers shared by the subcommands: sizes, cameras and output paths.

use std::path::Path;

use anyhow::{bail, Context};
use crate::globe::camera::GlobeCamera;
use glam::DVec3;

use crate::render::camera::Camera;

/// Parses `WxH` (e.g. `1920x1080`) into pixels.
pub fn parse_size(text: &str) -> anyhow::Result<(u32, u32)> {
    let (w, h) = text.split_once(['x', 'X']).with_context(|| format!("--size '{text}': expected WIDTHxHEIGHT, e.g. 1920x1080"))?;
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|v| (1..=16384).contains(v));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => bail!("--size '{text}': width and height must be whole numbers from 1 to 16384"),
    }
}

/// Parses `--camera`: either `PX,PY,PZ,TX,TY,TZ[,FOV]` (position and look-at target in metres,
/// vertical field of view in degrees) or a camera-path file, whose pose at time 0 is used.
pub fn parse_camera(text: &str) -> anyhow::Result<Camera> {
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
        .with_context(|| format!("--camera '{text}': expected PX,PY,PZ,TX,TY,TZ[,FOV_DEG] in metres or an existing camera-path file"))?;
    let (position, target) = (DVec3::new(values[0], values[1], values[2]), DVec3::new(values[3], values[4], values[5]));
    let fov = values.get(6).copied().unwrap_or(55.0);
    if position == target {
        bail!("--camera '{text}': the position and the look-at target are the same point");
    }
    if !(1.0..179.0).contains(&fov) {
        bail!("--camera '{text}': the field of view must be between 1 and 179 degrees");
    }
    Ok(Camera::look_at(position, target, fov))
}

/// Parses a globe camera: `LON,LAT,ALT_M[,HEADING_DEG,PITCH_DEG[,FOV_DEG]]` (degrees; altitude
/// above the sphere in metres; heading clockwise from north, pitch negative looking down).
pub fn parse_globe_camera(text: &str) -> anyhow::Result<GlobeCamera> {
    let values: Vec<f64> = text
        .split(',')
        .map(|v| v.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|v: &Vec<f64>| matches!(v.len(), 3 | 5 | 6) && v.iter().all(|x| x.is_finite()))
        .with_context(|| format!("--camera '{text}': expected LON,LAT,ALT_M[,HEADING_DEG,PITCH_DEG[,FOV_DEG]] for a globe"))?;
    let (lon, lat, altitude) = (values[0], values[1], values[2]);
    let (heading, pitch) = if values.len() >= 5 { (values[3], values[4]) } else { (0.0, -90.0) };
    let fov = values.get(5).copied().unwrap_or(50.0);
    if !(-90.0..=90.0).contains(&lat) || !(-90.0..=90.0).contains(&pitch) {
        bail!("--camera '{text}': latitude and pitch must lie between -90 and 90 degrees");
    }
    if altitude <= 0.0 {
        bail!("--camera '{text}': the altitude must be above the sphere (positive metres)");
    }
    if !(1.0..179.0).contains(&fov) {
        bail!("--camera '{text}': the field of view must be between 1 and 179 degrees");
    }
    Ok(GlobeCamera::at_lon_lat(lon, lat, altitude, heading, pitch, fov))
}

/// Checks before any work that `path` can be written: its folder exists and it is not a folder.
pub fn check_output_path(path: &Path, flag: &str) -> anyhow::Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        bail!("{flag} {}: the folder {} does not exist", path.display(), parent.display());
    }
    if path.is_dir() {
        bail!("{flag} {}: is a folder, expected a file name", path.display());
    }
    let probe = parent.join(format!(".bisector-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").with_context(|| format!("{flag} {}: cannot write in {}", path.display(), parent.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `image` as PNG to `path`.
pub fn write_png(image: &image::RgbaImage, path: &Path) -> anyhow::Result<()> {
    image.save_with_format(path, image::ImageFormat::Png).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
