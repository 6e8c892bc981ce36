//! Golden-screenshot comparison of rendered images using the NVIDIA FLIP perceptual metric.

use std::path::{Path, PathBuf};

/// Environment variable that controls (re)writing of golden references.
pub const UPDATE_ENV: &str = "BISECTOR_UPDATE_GOLDEN";

/// Per-pixel FLIP error above which a pixel counts towards [`GoldenOutcome::high_error_fraction`].
pub const HIGH_ERROR_FLIP: f32 = 0.1;

/// Outcome of comparing a rendered image against its reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GoldenOutcome {
    /// Mean FLIP error over all pixels (0 = identical, 1 = maximally different).
    pub mean_flip: f32,
    /// Largest per-pixel FLIP error.
    pub max_flip: f32,
    /// Fraction of pixels whose FLIP error exceeds [`HIGH_ERROR_FLIP`] (informational, not used for `passed`).
    pub high_error_fraction: f32,
    /// Threshold the mean was compared against.
    pub threshold_mean_flip: f32,
    /// Whether `mean_flip <= threshold_mean_flip` (always true when the reference was written).
    pub passed: bool,
    /// Whether the reference file was (re)written by this call.
    pub reference_written: bool,
}

impl GoldenOutcome {
    /// Outcome for an image that matches its reference exactly.
    fn identical(threshold_mean_flip: f32) -> Self {
        Self { mean_flip: 0.0, max_flip: 0.0, high_error_fraction: 0.0, threshold_mean_flip, passed: true, reference_written: false }
    }
}

/// How golden references may be (re)written, derived from [`UPDATE_ENV`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateMode {
    /// Never write references; a missing reference is an error (variable unset, empty or `0`).
    Off,
    /// Write references that are missing, compare the others (variable set to any other value).
    Missing,
    /// Overwrite every reference with the rendered image (variable set to `1`).
    All,
}

impl UpdateMode {
    /// Parses the value of [`UPDATE_ENV`] (`None` when unset).
    pub fn parse(value: Option<&str>) -> Self {
        match value.map(str::trim) {
            None | Some("") | Some("0") => Self::Off,
            Some("1") => Self::All,
            Some(_) => Self::Missing,
        }
    }

    /// Reads the mode from the [`UPDATE_ENV`] environment variable.
    pub fn from_env() -> Self {
        Self::parse(std::env::var(UPDATE_ENV).ok().as_deref())
    }
}

/// Errors from [`compare_golden`]; every message names the file involved.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    /// The reference does not exist and updating is disabled.
    #[error(
        "golden reference {path} does not exist; render it once with {UPDATE_ENV}=1 \
         (rewrite all references) or {UPDATE_ENV}=missing (create only missing ones), \
         then review and commit the new file"
    )]
    MissingReference {
        /// Path of the missing reference.
        path: PathBuf,
    },
    /// The reference exists but could not be decoded.
    #[error("cannot read golden reference {path}: {source}")]
    ReadReference {
        /// Path of the reference.
        path: PathBuf,
        /// Underlying decode or I/O error.
        source: image::ImageError,
    },
    /// An output PNG could not be written.
    #[error("cannot write {path}: {source}")]
    WriteImage {
        /// Path that failed to be written.
        path: PathBuf,
        /// Underlying encode or I/O error.
        source: image::ImageError,
    },
    /// A directory or stale output file could not be created or removed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being attempted ("create directory", "remove stale file").
        action: &'static str,
        /// Path involved.
        path: PathBuf,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// The rendered image has a different size than the reference.
    #[error(
        "golden reference {path} is {expected_width}x{expected_height} but the rendered image is \
         {actual_width}x{actual_height} (rendered image written to {actual_path}; \
         rerun with {UPDATE_ENV}=1 if the new size is intended)"
    )]
    SizeMismatch {
        /// Path of the reference.
        path: PathBuf,
        /// Where the rendered image was written for inspection.
        actual_path: PathBuf,
        /// Reference width.
        expected_width: u32,
        /// Reference height.
        expected_height: u32,
        /// Rendered width.
        actual_width: u32,
        /// Rendered height.
        actual_height: u32,
    },
    /// The rendered image has zero width or height.
    #[error("rendered image for golden {path} is empty ({width}x{height})")]
    EmptyImage {
        /// Path of the reference it was to be compared with.
        path: PathBuf,
        /// Rendered width.
        width: u32,
        /// Rendered height.
        height: u32,
    },
}

/// Paths of the files belonging to one golden image.
struct GoldenPaths {
    reference: PathBuf,
    actual: PathBuf,
    diff: PathBuf,
}

impl GoldenPaths {
    fn new(dir: &Path, name: &str) -> Self {
        Self {
            reference: dir.join(format!("{name}.png")),
            actual: dir.join(format!("{name}-actual.png")),
            diff: dir.join(format!("{name}-diff.png")),
        }
    }

    fn remove_stale(&self) -> Result<(), GoldenError> {
        for path in [&self.actual, &self.diff] {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(GoldenError::Io { action: "remove stale file", path: path.clone(), source: e });
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Compare `actual` (RGBA8) with `<dir>/<name>.png`, honouring [`UPDATE_ENV`].
///
/// Alpha is ignored: FLIP compares the RGB channels, interpreted as sRGB.
/// With `BISECTOR_UPDATE_GOLDEN=1` the reference is rewritten; with any other value except empty
/// or `0` (e.g. `missing`) only a missing reference is created; otherwise a missing reference is
/// an error.
/// On a failed comparison `<name>-actual.png` and `<name>-diff.png` (FLIP error map, magma
/// colour map) are written next to the reference and `Ok` with `passed == false` is returned;
/// on success stale copies of those files are removed.
///
/// # Errors
///
/// [`GoldenError`] when the reference is missing (and updating is off), unreadable or of a
/// different size, the image is empty, or a file cannot be written or removed.
/// The mean FLIP (nv_flip, the default pixels per degree) between two images of one size, alpha
/// ignored: what `compare_golden` thresholds, for tests comparing two renders with each other.
pub fn mean_flip(a: &image::RgbaImage, b: &image::RgbaImage) -> f32 {
    let rgb = |i: &image::RgbaImage| image::DynamicImage::ImageRgba8(i.clone()).to_rgb8();
    let (ra, rb) = (rgb(a), rgb(b));
    let map = nv_flip::flip(
        nv_flip::FlipImageRgb8::with_data(a.width(), a.height(), ra.as_raw()),
        nv_flip::FlipImageRgb8::with_data(b.width(), b.height(), rb.as_raw()),
        nv_flip::DEFAULT_PIXELS_PER_DEGREE,
    );
    nv_flip::FlipPool::from_image(&map).mean()
}

pub fn compare_golden(dir: &Path, name: &str, actual: &image::RgbaImage, threshold_mean_flip: f32) -> Result<GoldenOutcome, GoldenError> {
    compare_golden_with_mode(dir, name, actual, threshold_mean_flip, UpdateMode::from_env())
}

/// Compares `actual` with the repository's golden `tests/golden/<name>.png` ([`compare_golden`])
/// and panics, naming the mean and largest FLIP and the files written, when it does not pass.
#[allow(dead_code)]
pub fn assert_golden(name: &str, actual: &image::RgbaImage, threshold_mean_flip: f32) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let outcome = compare_golden(&dir, name, actual, threshold_mean_flip).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        outcome.passed,
        "{name}: mean FLIP {:.4} > {threshold_mean_flip} (max {:.3}); see tests/golden/{name}-actual.png and -diff.png",
        outcome.mean_flip, outcome.max_flip
    );
}

/// Same as [`compare_golden`] with an explicit [`UpdateMode`] instead of the environment.
///
/// # Errors
///
/// As for [`compare_golden`].
pub fn compare_golden_with_mode(
    dir: &Path,
    name: &str,
    actual: &image::RgbaImage,
    threshold_mean_flip: f32,
    mode: UpdateMode,
) -> Result<GoldenOutcome, GoldenError> {
    let paths = GoldenPaths::new(dir, name);
    if actual.width() == 0 || actual.height() == 0 {
        return Err(GoldenError::EmptyImage { path: paths.reference, width: actual.width(), height: actual.height() });
    }

    let exists = paths.reference.is_file();
    if mode == UpdateMode::All || (!exists && mode == UpdateMode::Missing) {
        write_png(&paths.reference, actual)?;
        paths.remove_stale()?;
        return Ok(GoldenOutcome { reference_written: true, ..GoldenOutcome::identical(threshold_mean_flip) });
    }
    if !exists {
        return Err(GoldenError::MissingReference { path: paths.reference });
    }

    let reference =
        image::open(&paths.reference).map_err(|source| GoldenError::ReadReference { path: paths.reference.clone(), source })?.into_rgb8();
    if reference.dimensions() != actual.dimensions() {
        write_png(&paths.actual, actual)?;
        return Err(GoldenError::SizeMismatch {
            path: paths.reference,
            actual_path: paths.actual,
            expected_width: reference.width(),
            expected_height: reference.height(),
            actual_width: actual.width(),
            actual_height: actual.height(),
        });
    }

    let (width, height) = actual.dimensions();
    let actual_rgb = image::DynamicImage::ImageRgba8(actual.clone()).into_rgb8();
    if actual_rgb.as_raw() == reference.as_raw() {
        paths.remove_stale()?;
        return Ok(GoldenOutcome::identical(threshold_mean_flip));
    }
    let error_map = nv_flip::flip(
        nv_flip::FlipImageRgb8::with_data(width, height, reference.as_raw()),
        nv_flip::FlipImageRgb8::with_data(width, height, actual_rgb.as_raw()),
        nv_flip::DEFAULT_PIXELS_PER_DEGREE,
    );
    let pool = nv_flip::FlipPool::from_image(&error_map);
    let mean_flip = pool.mean();
    let passed = mean_flip <= threshold_mean_flip;
    let errors = error_map.to_vec();
    let high = errors.iter().filter(|&&e| e > HIGH_ERROR_FLIP).count();
    let outcome = GoldenOutcome {
        mean_flip,
        max_flip: pool.max_value(),
        high_error_fraction: high as f32 / errors.len() as f32,
        threshold_mean_flip,
        passed,
        reference_written: false,
    };

    if passed {
        paths.remove_stale()?;
    } else {
        write_png(&paths.actual, actual)?;
        let colored = error_map.apply_color_lut(&nv_flip::magma_lut());
        let diff = image::RgbImage::from_raw(width, height, colored.to_vec()).expect("FLIP colour map has the size of the compared images");
        write_png(&paths.diff, &diff)?;
    }
    Ok(outcome)
}

/// Writes `img` as PNG to `path`, creating the parent directory if needed.
fn write_png<P>(path: &Path, img: &image::ImageBuffer<P, Vec<u8>>) -> Result<(), GoldenError>
where
    P: image::PixelWithColorType<Subpixel = u8>,
{
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| GoldenError::Io {
            action: "create directory",
            path: parent.to_path_buf(),
            source,
        })?;
    }
    img.save_with_format(path, image::ImageFormat::Png).map_err(|source| GoldenError::WriteImage { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiny xorshift32 generator so tests need no `rand` dependency.
    struct XorShift(u32);

    impl XorShift {
        fn next(&mut self) -> u32 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            self.0 = x;
            x
        }
    }

    fn gradient(width: u32, height: u32) -> image::RgbaImage {
        image::RgbaImage::from_fn(width, height, |x, y| {
            let r = (x * 255 / (width - 1)) as u8;
            let g = (y * 255 / (height - 1)) as u8;
            let b = ((x + y) * 255 / (width + height - 2)) as u8;
            image::Rgba([r, g, b, 255])
        })
    }

    fn noise(width: u32, height: u32, seed: u32) -> image::RgbaImage {
        let mut rng = XorShift(seed);
        image::RgbaImage::from_fn(width, height, |_, _| {
            let v = rng.next().to_le_bytes();
            image::Rgba([v[0], v[1], v[2], 255])
        })
    }

    fn shifted(img: &image::RgbaImage, dx: u32) -> image::RgbaImage {
        image::RgbaImage::from_fn(img.width(), img.height(), |x, y| *img.get_pixel(x.saturating_sub(dx), y))
    }

    fn jittered(img: &image::RgbaImage, amplitude: i32, seed: u32) -> image::RgbaImage {
        let mut rng = XorShift(seed);
        let mut out = img.clone();
        for p in out.pixels_mut() {
            for c in &mut p.0[..3] {
                let delta = (rng.next() % (2 * amplitude as u32 + 1)) as i32 - amplitude;
                *c = (i32::from(*c) + delta).clamp(0, 255) as u8;
            }
        }
        out
    }

    fn with_block(img: &image::RgbaImage, x0: u32, y0: u32, size: u32, f: impl Fn([u8; 4]) -> [u8; 4]) -> image::RgbaImage {
        let mut out = img.clone();
        for y in y0..y0 + size {
            for x in x0..x0 + size {
                let p = out.get_pixel_mut(x, y);
                p.0 = f(p.0);
            }
        }
        out
    }

    fn flip_against(reference: &image::RgbaImage, actual: &image::RgbaImage) -> GoldenOutcome {
        let dir = tempfile::tempdir().unwrap();
        compare_golden_with_mode(dir.path(), "ref", reference, 0.0, UpdateMode::All).unwrap();
        compare_golden_with_mode(dir.path(), "ref", actual, 1.0, UpdateMode::Off).unwrap()
    }

    #[test]
    fn identical_images_pass_with_zero_error() {
        let dir = tempfile::tempdir().unwrap();
        let img = gradient(64, 48);
        img.save(dir.path().join("g.png")).unwrap();
        let out = compare_golden_with_mode(dir.path(), "g", &img, 0.0, UpdateMode::Off).unwrap();
        assert_eq!(out.mean_flip, 0.0);
        assert_eq!(out.max_flip, 0.0);
        assert!(out.passed);
        assert!(!out.reference_written);
        assert!(!dir.path().join("g-actual.png").exists());
        assert!(!dir.path().join("g-diff.png").exists());
    }

    #[test]
    fn alpha_is_ignored_and_small_changes_pass() {
        let dir = tempfile::tempdir().unwrap();
        let img = gradient(64, 64);
        img.save(dir.path().join("a.png")).unwrap();
        let mut translucent = img.clone();
        translucent.pixels_mut().for_each(|p| p.0[3] = 7);
        let out = compare_golden_with_mode(dir.path(), "a", &translucent, 0.0, UpdateMode::Off).unwrap();
        assert!(out.passed && out.mean_flip == 0.0);

        let mut one_pixel = img.clone();
        one_pixel.get_pixel_mut(10, 10).0[1] ^= 1;
        let out = compare_golden_with_mode(dir.path(), "a", &one_pixel, 0.001, UpdateMode::Off).unwrap();
        assert!(out.passed, "{out:?}");
        assert!(out.mean_flip > 0.0 && out.max_flip > 0.0, "{out:?}");
    }

    #[test]
    fn noise_against_gradient_fails_and_writes_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        let reference = gradient(64, 64);
        reference.save(dir.path().join("n.png")).unwrap();
        let out = compare_golden_with_mode(dir.path(), "n", &noise(64, 64, 7), 0.02, UpdateMode::Off).unwrap();
        assert!(!out.passed);
        assert!(out.mean_flip > 0.3, "mean {}", out.mean_flip);
        assert!(out.max_flip >= out.mean_flip);
        assert_eq!(out.threshold_mean_flip, 0.02);
        let actual = image::open(dir.path().join("n-actual.png")).unwrap();
        let diff = image::open(dir.path().join("n-diff.png")).unwrap();
        assert_eq!((actual.width(), actual.height()), (64, 64));
        assert_eq!((diff.width(), diff.height()), (64, 64));

        let again = compare_golden_with_mode(dir.path(), "n", &reference, 0.02, UpdateMode::Off).unwrap();
        assert!(again.passed);
        assert!(!dir.path().join("n-actual.png").exists());
        assert!(!dir.path().join("n-diff.png").exists());
    }

    #[test]
    fn update_all_rewrites_reference() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("nested");
        let first = gradient(32, 32);
        let out = compare_golden_with_mode(&sub, "u", &first, 0.01, UpdateMode::All).unwrap();
        assert!(out.passed && out.reference_written);
        let second = noise(32, 32, 3);
        let out = compare_golden_with_mode(&sub, "u", &second, 0.01, UpdateMode::All).unwrap();
        assert!(out.passed && out.reference_written);
        assert_eq!(image::open(sub.join("u.png")).unwrap().into_rgba8(), second);
    }

    #[test]
    fn update_missing_creates_only_missing_references() {
        let dir = tempfile::tempdir().unwrap();
        let first = gradient(32, 32);
        let out = compare_golden_with_mode(dir.path(), "m", &first, 0.01, UpdateMode::Missing).unwrap();
        assert!(out.passed && out.reference_written);
        let out = compare_golden_with_mode(dir.path(), "m", &noise(32, 32, 5), 0.01, UpdateMode::Missing).unwrap();
        assert!(!out.passed && !out.reference_written);
        assert_eq!(image::open(dir.path().join("m.png")).unwrap().into_rgba8(), first);
    }

    #[test]
    fn missing_reference_error_names_file_and_variable() {
        let dir = tempfile::tempdir().unwrap();
        let err = compare_golden_with_mode(dir.path(), "absent", &gradient(8, 8), 0.01, UpdateMode::Off).unwrap_err();
        assert!(matches!(err, GoldenError::MissingReference { .. }));
        let msg = err.to_string();
        assert!(msg.contains(UPDATE_ENV), "{msg}");
        assert!(msg.contains("absent.png"), "{msg}");
    }

    #[test]
    fn size_mismatch_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        gradient(16, 16).save(dir.path().join("s.png")).unwrap();
        let err = compare_golden_with_mode(dir.path(), "s", &gradient(16, 8), 0.01, UpdateMode::Off).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, GoldenError::SizeMismatch { .. }), "{msg}");
        assert!(msg.contains("16x16") && msg.contains("16x8") && msg.contains("s.png"), "{msg}");
        assert!(dir.path().join("s-actual.png").exists());
    }

    #[test]
    fn corrupt_reference_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.png"), b"not a png").unwrap();
        let err = compare_golden_with_mode(dir.path(), "c", &gradient(8, 8), 0.01, UpdateMode::Off).unwrap_err();
        assert!(matches!(err, GoldenError::ReadReference { .. }));
        assert!(err.to_string().contains("c.png"));
    }

    #[test]
    fn update_mode_parsing() {
        assert_eq!(UpdateMode::parse(None), UpdateMode::Off);
        assert_eq!(UpdateMode::parse(Some("")), UpdateMode::Off);
        assert_eq!(UpdateMode::parse(Some("0")), UpdateMode::Off);
        assert_eq!(UpdateMode::parse(Some("1")), UpdateMode::All);
        assert_eq!(UpdateMode::parse(Some("missing")), UpdateMode::Missing);
    }

    #[test]
    fn flip_magnitudes_for_reference_perturbations() {
        let base = gradient(256, 256);
        let shift = flip_against(&base, &shifted(&base, 1));
        let jitter = flip_against(&base, &jittered(&base, 2, 11));
        let block = flip_against(&base, &with_block(&base, 112, 112, 32, |p| [255 - p[0], 255 - p[1], 255 - p[2], 255]));
        for (label, o) in [("shift 1px", shift), ("noise +-2", jitter), ("32x32 inverted", block)] {
            eprintln!("{label:16} mean {:.5} max {:.4} >{HIGH_ERROR_FLIP} {:.4}%", o.mean_flip, o.max_flip, o.high_error_fraction * 100.0);
        }
        assert!((0.02..0.04).contains(&shift.mean_flip), "{shift:?}");
        assert!((0.015..0.03).contains(&jitter.mean_flip), "{jitter:?}");
        assert!((0.003..0.01).contains(&block.mean_flip), "{block:?}");
        assert_eq!(shift.high_error_fraction, 0.0);
        assert_eq!(jitter.high_error_fraction, 0.0);
        assert!(block.high_error_fraction > 0.01, "{block:?}");
    }
}
