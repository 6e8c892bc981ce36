//! Bounded reads of input files: every file the program reads goes through [`read_limited`] (or,
//! for GeoTIFFs, which are streamed, a check of the header against a limit before anything is
//! allocated), so a wrong file, a device like /dev/zero or a corrupt header costs an error line,
//! never the machine's memory.
//!
//! | Input | Limit on the file | Limit on what it decodes to |
//! |---|---|---|
//! | camera path, flat or globe (JSON) | [`CAMERA_PATH_BYTES`] = 16 MiB | parse memory about 16 bytes per input byte |
//! | TileJSON `tiles.json` | [`TILEJSON_BYTES`] = 1 MiB | |
//! | Terrain-RGB/Terrarium tile (PNG) | [`TILE_BYTES`] = 64 MiB | square, at most 4096 px a side (`tile_files::MAX_TILE_SIZE`), the pyramid's tile size; pixel bytes at most [`PNG_MAX_EXPANSION`] x the file's |
//! | 16-bit PNG height map | [`PNG16_BYTES`] = 2 GiB | at most [`MAX_RASTER_SAMPLES`] samples; pixel bytes at most [`PNG_MAX_EXPANSION`] x the file's |
//! | GeoTIFF | streamed, not read whole | every tag's values within the file, GDAL_NODATA at most 1 MiB; at most [`MAX_RASTER_SAMPLES`] samples, and no more decoded bytes than the file's compression can expand to ([`max_expansion`]); memory: those bytes and 4 bytes of heights a sample |
//! | large GeoTIFF read tile by tile (`terrain::cog`) | read tile by tile | every tag's values within the file and at most 64 MiB; every tile within the file; tiles at most 4096 px a side and 64 MiB decoded; decoded tiles in an LRU of a byte budget (256 MiB by default) |
//! | closest-pairs army (CSV) | [`ARMY_BYTES`] = 512 MiB | points fit f32 |
//! | shift-and patterns | [`PATTERNS_BYTES`] = 16 MiB | |
//! | shift-and text | [`TEXT_BYTES`] = 1 GiB (the random text's limit too) | |
//!
//! Heights every reader returns lie in [`MIN_HEIGHT_M`]..=[`MAX_HEIGHT_M`] once nodata is removed.

use std::io::Read;
use std::path::Path;

/// Largest camera path file, flat or globe (a path of 100,000 keyframes is about 15 MB).
pub const CAMERA_PATH_BYTES: u64 = 16 << 20;
/// Largest TileJSON index.
pub const TILEJSON_BYTES: u64 = 1 << 20;
/// Largest Terrain-RGB/Terrarium tile file (a 4096 px tile of noise is about 50 MB).
pub const TILE_BYTES: u64 = 64 << 20;
/// Largest 16-bit PNG height map file.
pub const PNG16_BYTES: u64 = 2 << 30;
/// Largest closest-pairs army file.
pub const ARMY_BYTES: u64 = 512 << 20;
/// Largest shift-and pattern file.
pub const PATTERNS_BYTES: u64 = 16 << 20;
/// Largest shift-and text (the same bound as `--text-bytes`).
pub const TEXT_BYTES: u64 = 1 << 30;
/// Largest viewer state or bookmarks file (the viewer's own files, a few KiB when it writes them).
pub const VIEWER_FILE_BYTES: u64 = 4 << 20;
/// Largest height raster, in samples (a 32768 x 32768 grid), GeoTIFF or PNG.
pub const MAX_RASTER_SAMPLES: u64 = 1 << 30;

/// Lowest height in metres a reader accepts (the deepest ocean is about -10,935 m).
pub const MIN_HEIGHT_M: f32 = -12_000.0;
/// Highest height in metres a reader accepts (Everest is about 8,849 m).
pub const MAX_HEIGHT_M: f32 = 10_000.0;

/// Why an input file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file could not be opened or read.
    #[error("{what} {path}: cannot read it ({source}); check that it exists and is a readable file")]
    Read {
        /// The kind of file, e.g. "camera path".
        what: &'static str,
        /// The file as given.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is larger than its kind's limit.
    #[error("{what} {path}: {size} more than the {limit} a {what} may have; is it the right file?", size = describe_size(*size_bytes), limit = format_bytes(*limit_bytes))]
    TooLarge {
        /// The kind of file.
        what: &'static str,
        /// The file as given.
        path: String,
        /// Its size in bytes, when it has one (None for a pipe or a device that never ends).
        size_bytes: Option<u64>,
        /// The limit in bytes.
        limit_bytes: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{what} {path}: not UTF-8 text (invalid byte at offset {offset}); is it the right file?")]
    NotText {
        /// The kind of file.
        what: &'static str,
        /// The file as given.
        path: String,
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
}

fn describe_size(size_bytes: Option<u64>) -> String {
    match size_bytes {
        Some(n) => format!("it is {},", format_bytes(n)),
        None => "it holds".to_string(),
    }
}

/// `bytes` in the largest binary unit that keeps one decimal, e.g. "16 MiB", "1.5 GiB", "12 bytes".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            let value = bytes as f64 / size as f64;
            return if value.fract() == 0.0 { format!("{value} {unit}") } else { format!("{value:.1} {unit}") };
        }
    }
    format!("{bytes} bytes")
}

/// Reads the whole file at `path`, refusing it past `limit_bytes` (also for a file with no known
/// length, such as /dev/zero or a pipe: reading stops one byte past the limit). `what` names
/// the kind of file in errors ("camera path", "tile").
pub fn read_limited(path: &Path, limit_bytes: u64, what: &'static str) -> Result<Vec<u8>, InputError> {
    let name = || path.display().to_string();
    let read_error = |source| InputError::Read { what, path: name(), source };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let known_len = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    let too_large = |size_bytes| InputError::TooLarge { what, path: name(), size_bytes, limit_bytes };
    if let Some(len) = known_len.filter(|&len| len > limit_bytes) {
        return Err(too_large(Some(len)));
    }
    let mut bytes = Vec::with_capacity(known_len.unwrap_or(0).min(limit_bytes) as usize);
    file.take(limit_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(read_error)?;
    if bytes.len() as u64 > limit_bytes {
        return Err(too_large(known_len));
    }
    Ok(bytes)
}

/// As [`read_limited`], for a text file: refuses bytes that are not UTF-8.
pub fn read_limited_text(path: &Path, limit_bytes: u64, what: &'static str) -> Result<String, InputError> {
    let bytes = read_limited(path, limit_bytes, what)?;
    String::from_utf8(bytes).map_err(|e| InputError::NotText {
        what,
        path: path.display().to_string(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The most bytes one byte of a PNG can decode to (deflate's best ratio): a PNG whose header
/// claims more pixel bytes than its length times this is corrupt, refused before decoding.
pub const PNG_MAX_EXPANSION: u64 = 1032;

/// The most bytes one byte of data compressed with TIFF compression `code` can expand to
/// (uncompressed 1, PackBits 64, LZW 4096, deflate 1032; None for other compressions, which
/// the reader does not decode): a corrupt header cannot make the reader allocate more than the
/// file could hold.
pub fn max_expansion(code: u16) -> Option<u64> {
    match code {
        1 => Some(1),
        32773 => Some(64),
        5 => Some(4096),
        8 | 32946 => Some(1032),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_limited(&file, 10, "camera path").unwrap(), b"0123456789");
        let err = read_limited(&file, 9, "camera path").unwrap_err();
        assert!(matches!(err, InputError::TooLarge { size_bytes: Some(10), limit_bytes: 9, .. }), "{err}");
        assert!(
            err.to_string().starts_with(&format!("camera path {}: ", file.display()))
                && err.to_string().contains("it is 10 bytes, more than the 9 bytes a camera path may have"),
            "{err}"
        );
        #[cfg(unix)]
        {
            let err = read_limited(Path::new("/dev/zero"), 1 << 20, "camera path").unwrap_err();
            assert!(matches!(err, InputError::TooLarge { size_bytes: None, .. }), "{err}");
            assert!(err.to_string().contains("/dev/zero: it holds more than the 1 MiB"), "{err}");
        }
        let err = read_limited(&dir.path().join("missing"), 10, "tile").unwrap_err();
        assert!(err.to_string().starts_with("tile ") && err.to_string().contains("missing"), "{err}");
        std::fs::write(&file, [b'{', 0xff]).unwrap();
        assert!(matches!(read_limited_text(&file, 10, "camera path"), Err(InputError::NotText { offset: 1, .. })));
        assert_eq!(format_bytes(16 << 20), "16 MiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
    }
}
