//! Large GeoTIFFs read lazily: tiled TIFF or BigTIFF files (Cloud-Optimized GeoTIFFs) whose
//! tiles are read on demand, decoded (uncompressed, deflate, LZW or PackBits; predictors 2 and 3)
//! and kept in a least-recently-used cache of a byte budget, level by level (the full
//! resolution and the internal overviews). `super::cog_source` serves them as Web-Mercator tiles.
//!
//! Every size in the header is checked against the file's length before anything is allocated:
//! a truncated file, tiles past its end, absurd tile sizes or an IFD loop are one error naming
//! the file.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::cog_cache::TileKey;
pub use super::cog_cache::{stats, CogStats, TileCache};
use super::raster::{self, Crs, Raster};
use super::TerrainError;

/// The decoded-tile cache's budget unless told otherwise.
pub const DEFAULT_CACHE_BYTES: u64 = 256 << 20;

/// The budget [`CogFile::open`] gives each file's decoded-tile cache (`--cog-cache-mib`).
static FILE_BUDGET_BYTES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(DEFAULT_CACHE_BYTES);

/// Sets the decoded-tile budget of the files [`CogFile::open`] opens from now on (the CLI's
/// `--cog-cache-mib`; the served tiles' is `cog_source::set_served_budget`).
pub fn set_file_budget(budget_bytes: u64) {
    FILE_BUDGET_BYTES.store(budget_bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The decoded-tile budget [`CogFile::open`] uses now.
pub fn file_budget() -> u64 {
    FILE_BUDGET_BYTES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Largest decoded tile, in bytes (a 4096 x 4096 tile of float32).
pub const MAX_TILE_BYTES: u64 = 64 << 20;

/// Largest tile side in pixels.
pub const MAX_TILE_SIDE_PX: u32 = 4096;

/// Most image directories (full resolution, overviews, masks) a file may chain.
const MAX_IFDS: usize = 64;

/// Largest value of one tag (tile offsets and byte counts included: 8 M tiles).
const MAX_TAG_BYTES: u64 = 64 << 20;

/// A tiled GeoTIFF of more samples than this (8192^2) is read lazily even without overviews.
pub const LAZY_MIN_SAMPLES: u64 = 1 << 26;

/// How one level's samples are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SampleKind {
    U16,
    I16,
    I32,
    F32,
}

impl SampleKind {
    fn bytes(self) -> usize {
        match self {
            SampleKind::U16 | SampleKind::I16 => 2,
            SampleKind::I32 | SampleKind::F32 => 4,
        }
    }
}

/// One resolution of the file: the full resolution (level 0) or an internal overview.
#[derive(Clone, Debug)]
pub struct CogLevel {
    pub width: u32,
    pub height: u32,
    pub tile_width: u32,
    pub tile_height: u32,
    /// Position of sample (0, 0) in the CRS.
    pub origin: (f64, f64),
    /// Distance between samples in CRS units, both positive.
    pub step: (f64, f64),
    offsets: Vec<u64>,
    byte_counts: Vec<u64>,
    compression: u16,
    predictor: u16,
    kind: SampleKind,
}

impl CogLevel {
    /// Tiles across and down.
    pub fn tiles(&self) -> (u32, u32) {
        (self.width.div_ceil(self.tile_width), self.height.div_ceil(self.tile_height))
    }

    fn tile_bytes(&self) -> u64 {
        self.tile_width as u64 * self.tile_height as u64 * 4
    }
}

/// An opened tiled GeoTIFF; tiles are read on demand (shared between threads).
pub struct CogFile {
    name: String,
    file: Mutex<std::fs::File>,
    len_bytes: u64,
    /// The file's modification time at open, nanoseconds since 1970 (0 when unknown).
    modified_ns: u64,
    little: bool,
    /// Full resolution first, then the overviews from finer to coarser.
    pub levels: Vec<CogLevel>,
    pub crs: Crs,
    nodata: Option<f64>,
    cache: TileCache,
}

/// What the first image directory says about how to read a TIFF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Not a TIFF, striped, or tiled and small without overviews: read whole (`super::geotiff`).
    Whole,
    /// Tiled with overviews, larger than [`LAZY_MIN_SAMPLES`], or compressed as only this reader
    /// reads (ZSTD): read tile by tile.
    Lazy,
}

/// How the GeoTIFF at `path` is read; a tiled file whose directories cannot be walked is an error.
pub fn layout(path: &Path) -> Result<Layout, TerrainError> {
    let Ok(mut file) = std::fs::File::open(path) else { return Ok(Layout::Whole) };
    let len_bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let name = path.display().to_string();
    let mut reader = Reader { file: &mut file, len_bytes, little: true, big: false, name: &name };
    let Ok(Some(first)) = reader.header() else { return Ok(Layout::Whole) };
    let Ok(ifd) = reader.ifd(first) else { return Ok(Layout::Whole) };
    if !ifd.entries.contains_key(&TAG_TILE_WIDTH) {
        return Ok(Layout::Whole);
    }
    let mut size = |tag| reader.ints(&ifd, tag).ok().flatten().and_then(|v| v.first().copied()).unwrap_or(0);
    let samples = size(256).saturating_mul(size(257));
    // The whole-file reader (the tiff crate) knows no other compression: ZSTD is read, and any
    // other named, tile by tile.
    let whole_reads = matches!(size(259), 0 | 1 | 5 | 8 | 32946 | 32773);
    let ifds = reader.walk(first)?;
    Ok(if ifds.len() > 1 || samples > LAZY_MIN_SAMPLES || !whole_reads { Layout::Lazy } else { Layout::Whole })
}

const TAG_TILE_WIDTH: u16 = 322;

/// An image directory: its entries by tag, and the next directory's offset.
struct Ifd {
    entries: HashMap<u16, Entry>,
    next: u64,
}

#[derive(Clone, Copy)]
struct Entry {
    kind: u16,
    count: u64,
    /// The value's bytes when they fit in the entry, else its offset (raw).
    raw: [u8; 8],
}

/// Reads a TIFF's structure from `file`, every read checked against its length.
struct Reader<'a> {
    file: &'a mut std::fs::File,
    len_bytes: u64,
    little: bool,
    big: bool,
    name: &'a str,
}

impl Reader<'_> {
    fn bad(&self, problem: impl Into<String>) -> TerrainError {
        TerrainError::File { path: self.name.to_string(), problem: problem.into() }
    }

    fn read(&mut self, at: u64, n: u64) -> Result<Vec<u8>, TerrainError> {
        if at.checked_add(n).is_none_or(|end| end > self.len_bytes) {
            return Err(self.bad(format!(
                "{n} bytes at offset {at} lie past the end of the file ({} bytes): it is truncated or corrupt",
                self.len_bytes
            )));
        }
        let mut buf = vec![0; n as usize];
        self.file
            .seek(SeekFrom::Start(at))
            .and_then(|_| self.file.read_exact(&mut buf))
            .map_err(|e| self.bad(format!("cannot read it ({e})")))?;
        Ok(buf)
    }

    fn uint(&self, b: &[u8]) -> u64 {
        let little = self.little;
        b.iter().enumerate().fold(0u64, |v, (i, &x)| if little { v | (x as u64) << (8 * i) } else { v << 8 | x as u64 })
    }

    /// Reads the header: the first directory's offset, None when the file is not a TIFF.
    fn header(&mut self) -> Result<Option<u64>, TerrainError> {
        let head = self.read(0, 8.min(self.len_bytes))?;
        if head.len() < 8 {
            return Ok(None);
        }
        self.little = match &head[..2] {
            b"II" => true,
            b"MM" => false,
            _ => return Ok(None),
        };
        match self.uint(&head[2..4]) {
            42 => Ok(Some(self.uint(&head[4..8]))),
            43 => {
                self.big = true;
                let rest = self.read(8, 8)?;
                if self.uint(&head[4..6]) != 8 {
                    return Err(self.bad("a BigTIFF header whose offsets are not 8 bytes: corrupt"));
                }
                Ok(Some(self.uint(&rest)))
            }
            _ => Ok(None),
        }
    }

    /// Reads the directory at `at`.
    fn ifd(&mut self, at: u64) -> Result<Ifd, TerrainError> {
        let (count_bytes, entry_bytes, offset_bytes) = if self.big { (8, 20, 8) } else { (2, 12, 4) };
        let head = self.read(at, count_bytes)?;
        let count = self.uint(&head);
        if count == 0 || count > 4096 {
            return Err(self.bad(format!("an image directory at offset {at} claims {count} entries: corrupt")));
        }
        let table = self.read(at + count_bytes, count * entry_bytes + offset_bytes)?;
        let mut entries = HashMap::new();
        for entry in table.chunks_exact(entry_bytes as usize) {
            let (tag, kind) = (self.uint(&entry[..2]) as u16, self.uint(&entry[2..4]) as u16);
            let count = if self.big { self.uint(&entry[4..12]) } else { self.uint(&entry[4..8]) };
            let mut raw = [0; 8];
            let value = &entry[entry_bytes as usize - offset_bytes as usize..];
            raw[..value.len()].copy_from_slice(value);
            entries.insert(tag, Entry { kind, count, raw });
        }
        let next = self.uint(&table[table.len() - offset_bytes as usize..]);
        Ok(Ifd { entries, next })
    }

    /// The offsets of every directory of the chain from `first`; a loop or too many is an error.
    fn walk(&mut self, first: u64) -> Result<Vec<(u64, Ifd)>, TerrainError> {
        let (mut at, mut seen, mut ifds) = (first, HashSet::new(), Vec::new());
        while at != 0 {
            if !seen.insert(at) {
                return Err(self.bad(format!("its image directories loop (offset {at} comes back): the file is corrupt")));
            }
            if ifds.len() == MAX_IFDS {
                return Err(self.bad(format!("more than {MAX_IFDS} image directories: corrupt, or not a GeoTIFF of heights")));
            }
            let ifd = self.ifd(at)?;
            let next = ifd.next;
            ifds.push((at, ifd));
            at = next;
        }
        Ok(ifds)
    }

    /// The bytes of an entry's values, read after checking they fit in the file and the limit.
    fn value_bytes(&mut self, e: &Entry, tag: u16) -> Result<Vec<u8>, TerrainError> {
        let size: u64 = match e.kind {
            1 | 2 | 6 | 7 => 1,
            3 | 8 => 2,
            4 | 9 | 11 | 13 => 4,
            5 | 10 | 12 | 16 | 17 | 18 => 8,
            other => return Err(self.bad(format!("tag {tag} has value type {other}, which TIFF does not define: corrupt"))),
        };
        let bytes = e.count.saturating_mul(size);
        if bytes > MAX_TAG_BYTES || bytes > self.len_bytes {
            return Err(self.bad(format!(
                "tag {tag} claims {} values, more than the file's {} bytes hold: it is truncated or corrupt",
                e.count, self.len_bytes
            )));
        }
        let inline = if self.big { 8 } else { 4 };
        if bytes <= inline {
            Ok(e.raw[..bytes as usize].to_vec())
        } else {
            let at = self.uint(&e.raw[..inline as usize]);
            self.read(at, bytes)
        }
    }

    /// The integer values of `tag` (BYTE, SHORT, LONG, LONG8 and signed kinds), None if absent.
    fn ints(&mut self, ifd: &Ifd, tag: u16) -> Result<Option<Vec<u64>>, TerrainError> {
        let Some(e) = ifd.entries.get(&tag).copied() else { return Ok(None) };
        let size = match e.kind {
            1 | 6 | 7 => 1,
            3 | 8 => 2,
            4 | 9 | 13 => 4,
            16..=18 => 8,
            other => return Err(self.bad(format!("tag {tag} has value type {other}, not an integer: corrupt"))),
        };
        let bytes = self.value_bytes(&e, tag)?;
        Ok(Some(bytes.chunks_exact(size).map(|b| self.uint(b)).collect()))
    }

    /// The floating-point values of `tag` (DOUBLE or FLOAT), None if absent.
    fn floats(&mut self, ifd: &Ifd, tag: u16) -> Result<Option<Vec<f64>>, TerrainError> {
        let Some(e) = ifd.entries.get(&tag).copied() else { return Ok(None) };
        let bytes = self.value_bytes(&e, tag)?;
        Ok(Some(match e.kind {
            12 => bytes.chunks_exact(8).map(|b| f64::from_bits(self.uint(b))).collect(),
            11 => bytes.chunks_exact(4).map(|b| f32::from_bits(self.uint(b) as u32) as f64).collect(),
            _ => return Err(self.bad(format!("tag {tag} is not DOUBLE or FLOAT values: corrupt"))),
        }))
    }

    /// One integer of `tag`, `default` if absent.
    fn int(&mut self, ifd: &Ifd, tag: u16, default: u64) -> Result<u64, TerrainError> {
        Ok(self.ints(ifd, tag)?.and_then(|v| v.first().copied()).unwrap_or(default))
    }

    /// Reads one level's layout from its directory.
    fn level(&mut self, ifd: &Ifd, index: usize) -> Result<CogLevel, TerrainError> {
        let what = if index == 0 { "the full resolution".to_string() } else { format!("overview {index}") };
        let (width, height) = (self.int(ifd, 256, 0)?, self.int(ifd, 257, 0)?);
        let (tile_width, tile_height) = (self.int(ifd, TAG_TILE_WIDTH, 0)?, self.int(ifd, 323, 0)?);
        if width == 0 || height == 0 || width > u32::MAX as u64 || height > u32::MAX as u64 {
            return Err(self.bad(format!("{what} is {width} x {height} samples: corrupt")));
        }
        if tile_width == 0 || tile_height == 0 {
            return Err(self.bad(format!(
                "{what} is not tiled (strips): a GeoTIFF read tile by tile must be tiled at every level; convert it to a Cloud-Optimized GeoTIFF (gdal_translate -of COG IN.tif OUT.tif)"
            )));
        }
        if tile_width > MAX_TILE_SIDE_PX as u64 || tile_height > MAX_TILE_SIDE_PX as u64 || tile_width * tile_height * 4 > MAX_TILE_BYTES {
            return Err(self.bad(format!(
                "{what} has tiles of {tile_width} x {tile_height} samples, more than {MAX_TILE_SIDE_PX} a side: corrupt, or not a GeoTIFF bisector reads"
            )));
        }
        let channels = self.int(ifd, 277, 1)?;
        let bits = self.int(ifd, 258, 1)?;
        let format = self.int(ifd, 339, 1)?;
        let kind = match (channels, bits, format) {
            (1, 16, 1) => SampleKind::U16,
            (1, 16, 2) => SampleKind::I16,
            (1, 32, 2) => SampleKind::I32,
            (1, 32, 3) => SampleKind::F32,
            _ => {
                return Err(self.bad(format!(
                    "{what} has {channels} channel(s) of {bits}-bit samples (format {format}): heights must be one channel of int16, uint16, int32 or float32"
                )))
            }
        };
        let compression = self.int(ifd, 259, 1)? as u16;
        if !super::cog_decode::SUPPORTED.contains(&compression) {
            return Err(self.bad(format!(
                "{what} uses compression {}, which bisector does not read (it reads uncompressed, PackBits, LZW, deflate and ZSTD); convert it with gdal_translate -of COG -co COMPRESS=DEFLATE IN.tif OUT.tif",
                super::cog_decode::compression_name(compression)
            )));
        }
        let predictor = self.int(ifd, 317, 1)? as u16;
        if !matches!(predictor, 1..=3) || (predictor == 3) != (kind == SampleKind::F32) && predictor != 1 {
            return Err(self.bad(format!("predictor {predictor} does not fit {what}'s samples")));
        }
        let tiles = width.div_ceil(tile_width) * height.div_ceil(tile_height);
        let mut list = |tag: u16, name: &str| -> Result<Vec<u64>, TerrainError> {
            let e = ifd.entries.get(&tag).copied().ok_or_else(|| self.bad(format!("{what} has no {name}: corrupt")))?;
            if e.count != tiles {
                return Err(self.bad(format!("{what} lists {} {name} for its {tiles} tiles: corrupt", e.count)));
            }
            Ok(self.ints(ifd, tag)?.unwrap_or_default())
        };
        let offsets = list(324, "tile offsets")?;
        let byte_counts = list(325, "tile byte counts")?;
        let tile_bytes = tile_width * tile_height * kind.bytes() as u64;
        for (i, (&at, &n)) in offsets.iter().zip(&byte_counts).enumerate() {
            if at.checked_add(n).is_none_or(|end| end > self.len_bytes) {
                return Err(self.bad(format!(
                    "tile {i} of {what} ({n} bytes at offset {at}) lies past the end of the file ({} bytes): it is truncated or corrupt",
                    self.len_bytes
                )));
            }
            // No compression TIFF uses more than doubles a tile's bytes: a bound on each tile's read.
            if n > 2 * tile_bytes + 4096 {
                return Err(
                    self.bad(format!("tile {i} of {what} claims {n} bytes, more than a tile of {tile_bytes} bytes can take: corrupt"))
                );
            }
            if compression == 1 && n != 0 && n < tile_bytes {
                return Err(self.bad(format!("tile {i} of {what} has {n} bytes, not the {tile_bytes} of an uncompressed tile: corrupt")));
            }
        }
        Ok(CogLevel {
            width: width as u32,
            height: height as u32,
            tile_width: tile_width as u32,
            tile_height: tile_height as u32,
            origin: (0.0, 0.0),
            step: (1.0, 1.0),
            offsets,
            byte_counts,
            compression,
            predictor,
            kind,
        })
    }
}

impl CogFile {
    /// Opens the tiled GeoTIFF at `path` with the process's cache budget ([`file_budget`]).
    pub fn open(path: &Path) -> Result<CogFile, TerrainError> {
        CogFile::open_with_budget(path, file_budget())
    }

    /// Opens the tiled GeoTIFF at `path`, keeping at most `budget_bytes` of decoded tiles (at
    /// least one tile of each level; an error when the budget cannot hold one).
    pub fn open_with_budget(path: &Path, budget_bytes: u64) -> Result<CogFile, TerrainError> {
        let name = path.display().to_string();
        let bad = |problem: String| TerrainError::File { path: name.clone(), problem };
        let mut file = std::fs::File::open(path).map_err(|e| bad(format!("cannot open it ({e})")))?;
        let metadata = file.metadata().map_err(|e| bad(format!("cannot read it ({e})")))?;
        let len_bytes = metadata.len();
        let since_epoch = metadata.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        let modified_ns = since_epoch.map_or(0, |d| d.as_nanos() as u64);
        let mut reader = Reader { file: &mut file, len_bytes, little: true, big: false, name: &name };
        let first = reader.header()?.ok_or_else(|| bad("not a TIFF (no II*/MM* header)".into()))?;
        let ifds = reader.walk(first)?;
        if ifds.is_empty() {
            return Err(bad("its header points to no image directory: corrupt".into()));
        }
        let mut levels: Vec<CogLevel> = Vec::new();
        for (i, (_, ifd)) in ifds.iter().enumerate() {
            let subfile = reader.int(ifd, 254, 0)?;
            // Masks (bit 2) are not heights; later full-resolution pages are other images.
            if i > 0 && (subfile & 4 != 0 || subfile & 1 == 0) {
                continue;
            }
            let level = reader.level(ifd, levels.len())?;
            if let Some(previous) = levels.last() {
                if level.width >= previous.width || level.height > previous.height {
                    return Err(bad(format!(
                        "overview {} ({} x {}) is not smaller than the level before it ({} x {}): corrupt",
                        levels.len(),
                        level.width,
                        level.height,
                        previous.width,
                        previous.height
                    )));
                }
            }
            levels.push(level);
        }
        let first_ifd = &ifds[0].1;
        let geo = |reader: &mut Reader, tag: u16, what: &str| {
            reader.floats(first_ifd, tag)?.ok_or_else(|| {
                bad(format!("no {what} tag: not a GeoTIFF, or one placed by a transformation matrix, which is not supported"))
            })
        };
        let scale = geo(&mut reader, 33550, "ModelPixelScale")?;
        let tiepoint = geo(&mut reader, 33922, "ModelTiepoint")?;
        let keys: Vec<u16> = reader.ints(first_ifd, 34735)?.unwrap_or_default().into_iter().map(|k| k as u16).collect();
        let (origin, crs) = super::geotiff::georeference(&scale, &tiepoint, &keys, &name)?;
        let nodata = match first_ifd.entries.get(&42113).copied() {
            None => None,
            Some(e) => {
                let bytes = reader.value_bytes(&e, 42113)?;
                let text = String::from_utf8_lossy(&bytes).trim_matches(char::from(0)).trim().to_string();
                (!text.is_empty())
                    .then(|| text.parse::<f64>().map_err(|_| bad(format!("GDAL_NODATA {text:?} is not a number"))))
                    .transpose()?
            }
        };
        let little = reader.little;
        // Every level covers level 0's area: the corner half a sample out from sample (0, 0).
        let (w0, h0) = (levels[0].width as f64, levels[0].height as f64);
        let corner = (origin.0 - 0.5 * scale[0], origin.1 + 0.5 * scale[1]);
        for level in &mut levels {
            level.step = (scale[0] * w0 / level.width as f64, scale[1] * h0 / level.height as f64);
            level.origin = (corner.0 + 0.5 * level.step.0, corner.1 - 0.5 * level.step.1);
        }
        let largest_tile = levels.iter().map(CogLevel::tile_bytes).max().unwrap_or(0);
        if budget_bytes < largest_tile {
            return Err(bad(format!(
                "the tile cache's budget of {} cannot hold one of its tiles ({}): raise --cog-cache-mib",
                crate::input::format_bytes(budget_bytes),
                crate::input::format_bytes(largest_tile)
            )));
        }
        Ok(CogFile {
            name,
            file: Mutex::new(file),
            len_bytes,
            modified_ns,
            little,
            levels,
            crs,
            nodata,
            cache: TileCache::new(budget_bytes),
        })
    }

    /// The file's name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's length in bytes and modification time (ns since 1970) at open: what tells a
    /// changed file from the one a resumable build read (its samples are not all read).
    pub fn identity(&self) -> (u64, u64) {
        (self.len_bytes, self.modified_ns)
    }

    /// The cache's figures for this file.
    pub fn stats(&self) -> CogStats {
        self.cache.stats()
    }

    /// Bytes of decoded tiles the cache holds now.
    pub fn cache_in_use_bytes(&self) -> u64 {
        self.cache.in_use_bytes()
    }

    fn bad(&self, problem: String) -> TerrainError {
        TerrainError::File { path: self.name.clone(), problem }
    }

    /// Heights of tile (col, row) of `level` (row-major, tile_width x tile_height, NaN for
    /// nodata), through the cache.
    pub fn tile(&self, level: usize, col: u32, row: u32) -> Result<Arc<Vec<f32>>, TerrainError> {
        let key = (level as u8, col, row);
        if let Some(tile) = self.cache.get(key) {
            return Ok(tile);
        }
        let tile = Arc::new(self.decode_tile(level, col, row)?);
        let l = &self.levels[level];
        Ok(self.cache.insert(key, tile, l.byte_counts[(row * l.tiles().0 + col) as usize]))
    }

    /// Reads and decodes tile (col, row) of `level`, bypassing the cache.
    fn decode_tile(&self, level_index: usize, col: u32, row: u32) -> Result<Vec<f32>, TerrainError> {
        let level = &self.levels[level_index];
        let (across, down) = level.tiles();
        if col >= across || row >= down {
            return Err(self.bad(format!("tile ({col}, {row}) is outside level {level_index}'s {across} x {down} tiles")));
        }
        let index = (row * across + col) as usize;
        let (at, n) = (level.offsets[index], level.byte_counts[index]);
        let samples = level.tile_width as usize * level.tile_height as usize;
        let what = |problem: String| self.bad(format!("tile ({col}, {row}) of level {level_index}: {problem}"));
        if n == 0 {
            // A sparse tile (GDAL's SPARSE_OK): no data.
            return Ok(vec![f32::NAN; samples]);
        }
        if at.checked_add(n).is_none_or(|end| end > self.len_bytes) {
            return Err(what(format!("its bytes lie past the end of the file ({} bytes)", self.len_bytes)));
        }
        let mut raw = vec![0u8; n as usize];
        {
            let mut file = self.file.lock().expect("file lock");
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut raw))
                .map_err(|e| what(format!("cannot read it ({e}); the file is truncated or changed")))?;
        }
        let sample_bytes = level.kind.bytes();
        let want = samples * sample_bytes;
        let mut bytes = super::cog_decode::decompress(level.compression, &raw, want).map_err(|e| what(e.0))?;
        if bytes.len() < want {
            return Err(what(format!("it decodes to {} bytes, not the {want} of a tile: truncated or corrupt", bytes.len())));
        }
        bytes.truncate(want);
        let row_samples = level.tile_width as usize;
        // The samples as words of their width (f32 as its bits), predictors undone.
        let mut words: Vec<u32> = match level.predictor {
            3 => {
                // Floating point: bytes differenced along the row, then stored most significant first.
                let row_bytes = row_samples * 4;
                let mut out = Vec::with_capacity(samples);
                for chunk in bytes.chunks_exact_mut(row_bytes) {
                    for i in 1..row_bytes {
                        chunk[i] = chunk[i].wrapping_add(chunk[i - 1]);
                    }
                    for i in 0..row_samples {
                        out.push(u32::from_be_bytes([
                            chunk[i],
                            chunk[row_samples + i],
                            chunk[2 * row_samples + i],
                            chunk[3 * row_samples + i],
                        ]));
                    }
                }
                out
            }
            _ if sample_bytes == 2 && self.little => bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]]) as u32).collect(),
            _ if sample_bytes == 2 => bytes.chunks_exact(2).map(|b| u16::from_be_bytes([b[0], b[1]]) as u32).collect(),
            _ if self.little => bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            _ => bytes.chunks_exact(4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])).collect(),
        };
        if level.predictor == 2 {
            // Horizontal differencing, wrapping at the sample's width.
            let mask = if sample_bytes == 2 { 0xFFFF } else { u32::MAX };
            for line in words.chunks_exact_mut(row_samples) {
                for i in 1..line.len() {
                    line[i] = line[i].wrapping_add(line[i - 1]) & mask;
                }
            }
        }
        let values = words.into_iter().map(|u| match level.kind {
            SampleKind::U16 => u as u16 as f64,
            SampleKind::I16 => u as u16 as i16 as f64,
            SampleKind::I32 => u as i32 as f64,
            SampleKind::F32 => f32::from_bits(u) as f64,
        });
        let mut heights_m = Vec::with_capacity(samples);
        for (i, v) in values.into_iter().enumerate() {
            let h = if self.nodata == Some(v) || v.is_nan() { f32::NAN } else { v as f32 };
            if !h.is_nan() && !(crate::input::MIN_HEIGHT_M..=crate::input::MAX_HEIGHT_M).contains(&h) {
                return Err(what(format!(
                    "height {h} m at sample ({}, {}) is outside {}..{} m: not a height on Earth; if it marks missing data, declare it in GDAL_NODATA (gdal_edit.py -a_nodata VALUE)",
                    i % row_samples,
                    i / row_samples,
                    crate::input::MIN_HEIGHT_M,
                    crate::input::MAX_HEIGHT_M
                )));
            }
            heights_m.push(h);
        }
        Ok(heights_m)
    }

    /// The height of sample (col, row) of `level` (NaN for nodata), through `memo`.
    pub fn sample_at(&self, memo: &mut LevelMemo, level: usize, col: u32, row: u32) -> Result<f32, TerrainError> {
        let l = &self.levels[level];
        let key = (level as u8, col / l.tile_width, row / l.tile_height);
        let tile = match &memo.last {
            Some((k, tile)) if *k == key => tile.clone(),
            _ => {
                let tile = match memo.tiles.get(&key) {
                    Some(tile) => tile.clone(),
                    None => {
                        let tile = self.tile(level, key.1, key.2)?;
                        memo.tiles.insert(key, tile.clone());
                        tile
                    }
                };
                memo.last = Some((key, tile.clone()));
                tile
            }
        };
        Ok(tile[((row % l.tile_height) * l.tile_width + col % l.tile_width) as usize])
    }

    /// The height at (x, y) in the CRS from `level`, as `Raster::sample_m` reads a raster held
    /// whole (the same rule: `raster::sample_grid_m`); None outside it or where it has no data.
    pub fn sample_m(&self, memo: &mut LevelMemo, level: usize, x: f64, y: f64) -> Result<Option<f32>, TerrainError> {
        let l = &self.levels[level];
        raster::sample_grid_m((l.width, l.height), l.origin, l.step, x, y, |c, r| self.sample_at(memo, level, c, r))
    }

    /// The whole of `level` as a raster (for levels that fit in memory: at most
    /// `crate::input::MAX_RASTER_SAMPLES` samples).
    pub fn read_level(&self, level: usize) -> Result<Raster, TerrainError> {
        let l = &self.levels[level];
        let samples = l.width as u64 * l.height as u64;
        if samples > crate::input::MAX_RASTER_SAMPLES {
            return Err(self.bad(format!("level {level} has {samples} samples, too many to read whole")));
        }
        let mut heights_m = vec![f32::NAN; samples as usize];
        let (across, down) = l.tiles();
        for ty in 0..down {
            for tx in 0..across {
                let tile = self.decode_tile(level, tx, ty)?;
                for r in 0..l.tile_height.min(l.height - ty * l.tile_height) {
                    let w = l.tile_width.min(l.width - tx * l.tile_width) as usize;
                    let from = (r * l.tile_width) as usize;
                    let to = ((ty * l.tile_height + r) * l.width + tx * l.tile_width) as usize;
                    heights_m[to..to + w].copy_from_slice(&tile[from..from + w]);
                }
            }
        }
        Ok(Raster { width: l.width, height: l.height, heights_m, origin: l.origin, step: l.step, crs: self.crs })
    }
}

/// The finest level of the tiled GeoTIFF at `path` of at most `max_samples` samples (the
/// coarsest when none is that small), read whole: for a use that needs a raster in memory (the
/// planet's base).
pub fn read_level_that_fits(path: &Path, max_samples: u64) -> Result<Raster, TerrainError> {
    let file = CogFile::open(path)?;
    let fits = |l: &CogLevel| l.width as u64 * l.height as u64 <= max_samples;
    let level = file.levels.iter().position(fits).unwrap_or(file.levels.len() - 1);
    file.read_level(level)
}

/// A thread's own tiles of a [`CogFile`] (the last one, and the others it used), so that a
/// sample does not lock the shared cache; keep it for one output tile or row band.
#[derive(Default)]
pub struct LevelMemo {
    last: Option<(TileKey, Arc<Vec<f32>>)>,
    tiles: HashMap<TileKey, Arc<Vec<f32>>>,
}
