//! PMTiles v3 archives (protomaps' single-file tile format), local files only: a 127-byte header,
//! a root directory, JSON metadata, leaf directories and tile data. Directories list entries
//! (tile id, offset, length, run length) as varint columns, usually gzip-compressed; tile ids
//! number the tiles of all zooms along a Hilbert curve per zoom. Every offset and length read
//! from the file is checked against the file before use. [`write`] builds an archive from tiles
//! (the tests, and later `bisector tiles`).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::tile_source::{self, SourceIndex, TileSource};
use super::TerrainError;

/// Size of the fixed header at the start of every archive.
pub const HEADER_BYTES: usize = 127;
/// Largest directory or metadata block bisector reads (compressed or not).
pub const MAX_DIRECTORY_BYTES: u64 = 64 << 20;
/// Directory levels below the root that a tile lookup follows before calling the archive corrupt.
const MAX_LEAF_DEPTH: usize = 4;
/// Leaf directories kept decoded (the least recently added are dropped past this).
const LEAF_CACHE_ENTRIES: usize = 256;

/// Compression of directories, metadata or tiles (the header's enums).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// 0: unknown; read as none.
    Unknown,
    /// 1.
    None,
    /// 2.
    Gzip,
    /// 3 (brotli), 4 (zstd) or another value: not read by bisector.
    Other(u8),
}

impl Compression {
    fn from_byte(b: u8) -> Compression {
        match b {
            0 => Compression::Unknown,
            1 => Compression::None,
            2 => Compression::Gzip,
            other => Compression::Other(other),
        }
    }
}

/// The fixed-size header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub root_offset: u64,
    pub root_length: u64,
    pub metadata_offset: u64,
    pub metadata_length: u64,
    pub leaf_offset: u64,
    pub leaf_length: u64,
    pub data_offset: u64,
    pub data_length: u64,
    pub addressed_tiles: u64,
    pub tile_entries: u64,
    pub tile_contents: u64,
    pub clustered: bool,
    pub internal_compression: Compression,
    pub tile_compression: Compression,
    /// 0 unknown, 1 MVT, 2 PNG, 3 JPEG, 4 WebP, 5 AVIF.
    pub tile_type: u8,
    pub min_zoom: u8,
    pub max_zoom: u8,
    /// West, south, east, north in degrees times 10^7.
    pub bounds_e7: [i32; 4],
    pub center_zoom: u8,
    /// Longitude, latitude in degrees times 10^7.
    pub center_e7: [i32; 2],
}

impl Header {
    /// Parses the first 127 bytes of an archive; the problem in words on failure.
    pub fn parse(bytes: &[u8]) -> Result<Header, Corrupt> {
        if bytes.len() < 7 || &bytes[0..7] != b"PMTiles" {
            return Err("not a PMTiles archive (it does not start with \"PMTiles\")".into());
        }
        if bytes.len() < HEADER_BYTES {
            return Err(Corrupt(format!("truncated: {} bytes, shorter than the {HEADER_BYTES}-byte PMTiles header", bytes.len())));
        }
        if bytes[7] != 3 {
            return Err(Corrupt(format!("PMTiles version {}; bisector reads version 3", bytes[7])));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let i32_at = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        Ok(Header {
            root_offset: u64_at(8),
            root_length: u64_at(16),
            metadata_offset: u64_at(24),
            metadata_length: u64_at(32),
            leaf_offset: u64_at(40),
            leaf_length: u64_at(48),
            data_offset: u64_at(56),
            data_length: u64_at(64),
            addressed_tiles: u64_at(72),
            tile_entries: u64_at(80),
            tile_contents: u64_at(88),
            clustered: bytes[96] == 1,
            internal_compression: Compression::from_byte(bytes[97]),
            tile_compression: Compression::from_byte(bytes[98]),
            tile_type: bytes[99],
            min_zoom: bytes[100],
            max_zoom: bytes[101],
            bounds_e7: [i32_at(102), i32_at(106), i32_at(110), i32_at(114)],
            center_zoom: bytes[118],
            center_e7: [i32_at(119), i32_at(123)],
        })
    }

    /// The 127 bytes of this header.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        out[0..7].copy_from_slice(b"PMTiles");
        out[7] = 3;
        let words = [
            self.root_offset,
            self.root_length,
            self.metadata_offset,
            self.metadata_length,
            self.leaf_offset,
            self.leaf_length,
            self.data_offset,
            self.data_length,
            self.addressed_tiles,
            self.tile_entries,
            self.tile_contents,
        ];
        for (i, w) in words.iter().enumerate() {
            out[8 + 8 * i..16 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        let byte = |c: Compression| match c {
            Compression::Unknown => 0,
            Compression::None => 1,
            Compression::Gzip => 2,
            Compression::Other(b) => b,
        };
        out[96] = self.clustered as u8;
        out[97] = byte(self.internal_compression);
        out[98] = byte(self.tile_compression);
        out[99] = self.tile_type;
        out[100] = self.min_zoom;
        out[101] = self.max_zoom;
        for (i, v) in self.bounds_e7.iter().enumerate() {
            out[102 + 4 * i..106 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        out[118] = self.center_zoom;
        out[119..123].copy_from_slice(&self.center_e7[0].to_le_bytes());
        out[123..127].copy_from_slice(&self.center_e7[1].to_le_bytes());
        out
    }
}

/// The tile id of (z, x, y): the tiles of all coarser zooms, then the Hilbert index of (x, y)
/// on zoom z's 2^z x 2^z grid. z is at most 26 (ids fit 53 bits).
pub fn tile_id(z: u32, x: u32, y: u32) -> u64 {
    let before = ((1u64 << (2 * z)) - 1) / 3;
    let (mut x, mut y) = (x as u64, y as u64);
    let mut d = 0u64;
    let mut s = if z == 0 { 0 } else { 1u64 << (z - 1) };
    while s > 0 {
        let rx = u64::from(x & s > 0);
        let ry = u64::from(y & s > 0);
        d += s * s * ((3 * rx) ^ ry);
        // Rotate the quadrant so the curve's sub-square starts where the last one ended.
        if ry == 0 {
            if rx == 1 {
                x = s - 1 - (x & (s - 1));
                y = s - 1 - (y & (s - 1));
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    before + d
}

/// The (z, x, y) of a tile id (the inverse of [`tile_id`]).
pub fn tile_zxy(id: u64) -> (u32, u32, u32) {
    let mut z = 0;
    let mut before = 0u64;
    while before + (1u64 << (2 * z)) <= id {
        before += 1u64 << (2 * z);
        z += 1;
    }
    let mut d = id - before;
    let (mut x, mut y) = (0u64, 0u64);
    let mut s = 1u64;
    while s < 1u64 << z {
        let rx = 1 & (d / 2);
        let ry = 1 & (d ^ rx);
        if ry == 0 {
            if rx == 1 {
                x = s - 1 - x;
                y = s - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        x += s * rx;
        y += s * ry;
        d /= 4;
        s *= 2;
    }
    (z, x as u32, y as u32)
}

/// Reads one unsigned LEB128 varint at `*at`, advancing it; None when the bytes end first or
/// the value does not fit 64 bits.
pub fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        let bits = (b & 0x7f) as u64;
        if shift == 63 && bits > 1 {
            return None;
        }
        value |= bits << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Appends `value` as an unsigned LEB128 varint.
pub fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// One directory entry: a run of `run_length` tiles from `tile_id` sharing the bytes at
/// `offset` (within the tile data), or with `run_length` 0 a leaf directory at `offset` (within
/// the leaf directories).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub tile_id: u64,
    pub offset: u64,
    pub length: u64,
    pub run_length: u64,
}

/// Decodes an uncompressed directory; the problem in words on failure.
pub fn parse_directory(bytes: &[u8]) -> Result<Vec<Entry>, Corrupt> {
    let mut at = 0;
    let truncated = || "a directory ends in the middle of an entry".to_string();
    let count = read_varint(bytes, &mut at).ok_or_else(truncated)?;
    // Each entry takes at least 4 bytes (one varint per column).
    if count > (bytes.len() as u64) / 4 + 1 {
        return Err(Corrupt(format!("a directory claims {count} entries in {} bytes", bytes.len())));
    }
    let count = count as usize;
    let mut entries = vec![Entry { tile_id: 0, offset: 0, length: 0, run_length: 0 }; count];
    let mut last_id = 0u64;
    for entry in entries.iter_mut() {
        last_id = last_id.checked_add(read_varint(bytes, &mut at).ok_or_else(truncated)?).ok_or("a tile id overflows")?;
        entry.tile_id = last_id;
    }
    for entry in entries.iter_mut() {
        entry.run_length = read_varint(bytes, &mut at).ok_or_else(truncated)?;
    }
    for entry in entries.iter_mut() {
        entry.length = read_varint(bytes, &mut at).ok_or_else(truncated)?;
    }
    for i in 0..count {
        let value = read_varint(bytes, &mut at).ok_or_else(truncated)?;
        entries[i].offset = if value == 0 && i > 0 {
            entries[i - 1].offset.checked_add(entries[i - 1].length).ok_or("an offset overflows")?
        } else {
            value.checked_sub(1).ok_or("the first entry's offset is 0 (reserved)")?
        };
    }
    Ok(entries)
}

/// Encodes a directory (uncompressed), entries in tile-id order.
pub fn serialize_directory(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    write_varint(&mut out, entries.len() as u64);
    let mut last_id = 0;
    for e in entries {
        write_varint(&mut out, e.tile_id - last_id);
        last_id = e.tile_id;
    }
    for e in entries {
        write_varint(&mut out, e.run_length);
    }
    for e in entries {
        write_varint(&mut out, e.length);
    }
    for (i, e) in entries.iter().enumerate() {
        let contiguous = i > 0 && e.offset == entries[i - 1].offset + entries[i - 1].length;
        write_varint(&mut out, if contiguous { 0 } else { e.offset + 1 });
    }
    out
}

/// The entry holding `id`: a tile run that contains it, or the leaf directory that may.
pub fn find_entry(entries: &[Entry], id: u64) -> Option<Entry> {
    let after = entries.partition_point(|e| e.tile_id <= id);
    let entry = *entries.get(after.checked_sub(1)?)?;
    if entry.run_length == 0 || id - entry.tile_id < entry.run_length {
        Some(entry)
    } else {
        None
    }
}

/// What is wrong with an archive, in words (the caller names the file).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Corrupt(pub String);

impl From<String> for Corrupt {
    fn from(problem: String) -> Corrupt {
        Corrupt(problem)
    }
}

impl From<&str> for Corrupt {
    fn from(problem: &str) -> Corrupt {
        Corrupt(problem.to_string())
    }
}

fn gunzip(bytes: &[u8], limit: u64) -> Result<Vec<u8>, Corrupt> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).take(limit + 1).read_to_end(&mut out).map_err(|e| format!("cannot be decompressed (gzip: {e})"))?;
    if out.len() as u64 > limit {
        return Err(Corrupt(format!("decompresses to more than {}", crate::input::format_bytes(limit))));
    }
    Ok(out)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

/// An opened PMTiles archive.
pub struct PmTiles {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    header: Header,
    root: Vec<Entry>,
    /// Decoded leaf directories by offset within the leaf section.
    leaves: Mutex<HashMap<u64, Arc<Vec<Entry>>>>,
    index: SourceIndex,
}

impl PmTiles {
    /// Opens `path`: reads and checks the header (every section within the file), the root
    /// directory and the metadata (for `encoding`).
    pub fn open(path: &Path) -> Result<PmTiles, TerrainError> {
        let name = path.display().to_string();
        let bad = |problem: String| TerrainError::File { path: name.clone(), problem };
        let read_error = |source| crate::input::InputError::Read { what: "PMTiles archive", path: name.clone(), source };
        let mut file = std::fs::File::open(path).map_err(read_error)?;
        let file_bytes = file.metadata().map_err(read_error)?.len();
        let mut head = vec![0u8; HEADER_BYTES.min(file_bytes as usize)];
        file.read_exact(&mut head).map_err(read_error)?;
        let header = Header::parse(&head).map_err(|c| bad(c.0))?;
        let sections = [
            ("root directory", header.root_offset, header.root_length),
            ("metadata", header.metadata_offset, header.metadata_length),
            ("leaf directories", header.leaf_offset, header.leaf_length),
            ("tile data", header.data_offset, header.data_length),
        ];
        for (what, offset, length) in sections {
            if offset.checked_add(length).is_none_or(|end| end > file_bytes) {
                return Err(bad(format!(
                    "the header puts the {what} at bytes {offset}..+{length}, past the end of the {file_bytes}-byte file; the archive is truncated or corrupt"
                )));
            }
        }
        if !matches!(header.internal_compression, Compression::None | Compression::Gzip) {
            return Err(bad(format!("its directories use compression {:?}; bisector reads none or gzip", header.internal_compression)));
        }
        if matches!(header.tile_compression, Compression::Other(_)) {
            return Err(bad(format!("its tiles use compression {:?}; bisector reads none or gzip", header.tile_compression)));
        }
        if !matches!(header.tile_type, 0 | 2) {
            let kind = ["unknown", "MVT vector", "PNG", "JPEG", "WebP", "AVIF"].get(header.tile_type as usize).unwrap_or(&"unknown");
            return Err(bad(format!("its tiles are {kind} (type {}); elevation tiles must be PNG", header.tile_type)));
        }
        let mut archive = PmTiles {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            root: Vec::new(),
            leaves: Mutex::new(HashMap::new()),
            index: SourceIndex {
                min_zoom: header.min_zoom as u32,
                max_zoom: header.max_zoom as u32,
                bounds: Some(header.bounds_e7.map(|v| v as f64 / 1e7)),
                encoding: super::pyramid::Encoding::TerrainRgb,
            },
            header,
        };
        archive.root = archive.directory(archive.header.root_offset, archive.header.root_length).map_err(|c| bad(c.0))?;
        let metadata = archive.section(archive.header.metadata_offset, archive.header.metadata_length, true).map_err(|c| bad(c.0))?;
        let metadata: serde_json::Value = if metadata.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&metadata).map_err(|e| bad(format!("its metadata is not JSON ({e})")))?
        };
        archive.index.encoding = tile_source::parse_encoding(metadata.get("encoding").and_then(|e| e.as_str()), &name)?;
        let bounds = archive.index.bounds.filter(|b| b.iter().any(|&v| v != 0.0));
        archive.index = tile_source::check_index(SourceIndex { bounds, ..archive.index.clone() }, &name)?;
        Ok(archive)
    }

    /// The header as read.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// `length` bytes at `offset` (checked against the file at open or here), decompressed
    /// with the internal compression when `internal`.
    fn section(&self, offset: u64, length: u64, internal: bool) -> Result<Vec<u8>, Corrupt> {
        if length > MAX_DIRECTORY_BYTES {
            return Err(Corrupt(format!(
                "a directory or metadata block of {length} bytes is more than the {MAX_DIRECTORY_BYTES} bisector reads"
            )));
        }
        let bytes = self.read_at(offset, length)?;
        if internal && self.header.internal_compression == Compression::Gzip && !bytes.is_empty() {
            gunzip(&bytes, MAX_DIRECTORY_BYTES).map_err(|e| Corrupt(format!("a directory or the metadata {e}")))
        } else {
            Ok(bytes)
        }
    }

    fn read_at(&self, offset: u64, length: u64) -> Result<Vec<u8>, Corrupt> {
        let mut file = self.file.lock().expect("PMTiles file lock");
        let file_bytes = file.metadata().map_err(|e| e.to_string())?.len();
        if offset.checked_add(length).is_none_or(|end| end > file_bytes) {
            return Err(Corrupt(format!(
                "bytes {offset}..+{length} are past the end of the {file_bytes}-byte file; the archive is truncated or corrupt"
            )));
        }
        let mut out = vec![0u8; length as usize];
        file.seek(SeekFrom::Start(offset)).and_then(|_| file.read_exact(&mut out)).map_err(|e| format!("cannot read it ({e})"))?;
        Ok(out)
    }

    fn directory(&self, offset: u64, length: u64) -> Result<Vec<Entry>, Corrupt> {
        parse_directory(&self.section(offset, length, true)?)
    }

    /// The entry of the tile with id `id`, through the leaf directories.
    fn entry(&self, id: u64) -> Result<Option<Entry>, Corrupt> {
        let mut entry = find_entry(&self.root, id);
        for _ in 0..MAX_LEAF_DEPTH {
            let Some(e) = entry else { return Ok(None) };
            if e.run_length > 0 {
                return Ok(Some(e));
            }
            if e.offset.checked_add(e.length).is_none_or(|end| end > self.header.leaf_length) {
                return Err(Corrupt(format!(
                    "a leaf directory at {}..+{} lies past the leaf section's {} bytes",
                    e.offset, e.length, self.header.leaf_length
                )));
            }
            let cached = self.leaves.lock().expect("PMTiles leaf cache lock").get(&e.offset).cloned();
            let leaf = match cached {
                Some(leaf) => leaf,
                None => {
                    let leaf = Arc::new(self.directory(self.header.leaf_offset + e.offset, e.length)?);
                    let mut leaves = self.leaves.lock().expect("PMTiles leaf cache lock");
                    if leaves.len() >= LEAF_CACHE_ENTRIES {
                        leaves.clear();
                    }
                    leaves.insert(e.offset, leaf.clone());
                    leaf
                }
            };
            entry = find_entry(&leaf, id);
        }
        Err(Corrupt(format!("leaf directories nest deeper than {MAX_LEAF_DEPTH} levels")))
    }
}

impl TileSource for PmTiles {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn index(&self) -> &SourceIndex {
        &self.index
    }

    fn tile_name(&self, z: u32, x: u32, y: u32) -> String {
        format!("{} (tile {z}/{x}/{y})", self.path.display())
    }

    fn get(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<u8>>, TerrainError> {
        if z > tile_source::MAX_SOURCE_ZOOM || x >= 1 << z || y >= 1 << z {
            return Ok(None);
        }
        let bad = |problem: String| TerrainError::File { path: self.tile_name(z, x, y), problem };
        let Some(entry) = self.entry(tile_id(z, x, y)).map_err(|c| bad(c.0))? else { return Ok(None) };
        if entry.length > crate::input::TILE_BYTES {
            return Err(crate::input::InputError::TooLarge {
                what: "tile",
                path: self.tile_name(z, x, y),
                size_bytes: Some(entry.length),
                limit_bytes: crate::input::TILE_BYTES,
            }
            .into());
        }
        if entry.offset.checked_add(entry.length).is_none_or(|end| end > self.header.data_length) {
            return Err(bad(format!(
                "its entry (bytes {}..+{}) lies past the tile data's {} bytes; the archive is corrupt",
                entry.offset, entry.length, self.header.data_length
            )));
        }
        let bytes = self.read_at(self.header.data_offset + entry.offset, entry.length).map_err(|c| bad(c.0))?;
        match self.header.tile_compression {
            Compression::Gzip => gunzip(&bytes, crate::input::TILE_BYTES).map(Some).map_err(|e| bad(format!("the tile {e}"))),
            _ => Ok(Some(bytes)),
        }
    }
}

/// Writes the tiles `(z, x, y, png bytes)` (XYZ rows) to a new PMTiles v3 file at `path`, with
/// `index` in the header and its encoding in the metadata; gzip-compressed directories, tiles
/// stored as given. With `leaf_entries` > 0 the entries go to leaf directories of that many
/// (the root then lists the leaves); 0 puts them all in the root. An existing file is an
/// error, never overwritten.
pub fn write(path: &Path, index: &SourceIndex, tiles: &[(u32, u32, u32, Vec<u8>)], leaf_entries: usize) -> Result<(), TerrainError> {
    write_with_metadata(path, index, tiles, leaf_entries, &[])
}

/// As [`write`], with `extra` name/value pairs added to the JSON metadata (attribution, description).
pub fn write_with_metadata(
    path: &Path,
    index: &SourceIndex,
    tiles: &[(u32, u32, u32, Vec<u8>)],
    leaf_entries: usize,
    extra: &[(&str, &str)],
) -> Result<(), TerrainError> {
    let by_key: HashMap<(u32, u32, u32), &[u8]> = tiles.iter().map(|(z, x, y, bytes)| ((*z, *x, *y), bytes.as_slice())).collect();
    let lengths: Vec<(u32, u32, u32, u64)> = tiles.iter().map(|(z, x, y, bytes)| (*z, *x, *y, bytes.len() as u64)).collect();
    write_streamed(path, index, &lengths, |z, x, y| Ok(by_key[&(z, x, y)].to_vec()), leaf_entries, extra)
}

/// As [`write_with_metadata`] for tiles listed as `(z, x, y, length in bytes)` whose bytes
/// `bytes_of` hands over one at a time, in the archive's order, so no more than one tile is held
/// in memory (the directories are: about 20 bytes a tile). A tile whose bytes are not the
/// length listed is an error.
pub fn write_streamed(
    path: &Path,
    index: &SourceIndex,
    tiles: &[(u32, u32, u32, u64)],
    mut bytes_of: impl FnMut(u32, u32, u32) -> Result<Vec<u8>, TerrainError>,
    leaf_entries: usize,
    extra: &[(&str, &str)],
) -> Result<(), TerrainError> {
    if path.exists() {
        return Err(TerrainError::File {
            path: path.display().to_string(),
            problem: "already exists; bisector does not overwrite it".into(),
        });
    }
    let mut sorted: Vec<(u64, (u32, u32, u32), u64)> =
        tiles.iter().map(|&(z, x, y, length)| (tile_id(z, x, y), (z, x, y), length)).collect();
    sorted.sort_by_key(|(id, _, _)| *id);
    let (mut entries, mut data_length) = (Vec::with_capacity(sorted.len()), 0u64);
    for &(id, _, length) in &sorted {
        entries.push(Entry { tile_id: id, offset: data_length, length, run_length: 1 });
        data_length += length;
    }
    let (root, leaves) = if leaf_entries == 0 {
        (gzip(&serialize_directory(&entries)), Vec::new())
    } else {
        let (mut root, mut leaves) = (Vec::new(), Vec::new());
        for chunk in entries.chunks(leaf_entries) {
            let leaf = gzip(&serialize_directory(chunk));
            root.push(Entry { tile_id: chunk[0].tile_id, offset: leaves.len() as u64, length: leaf.len() as u64, run_length: 0 });
            leaves.extend_from_slice(&leaf);
        }
        (gzip(&serialize_directory(&root)), leaves)
    };
    let mut metadata = serde_json::json!({ "encoding": tile_source::encoding_name(index.encoding), "type": "baselayer" });
    for &(name, value) in extra {
        metadata[name] = value.into();
    }
    let metadata = gzip(metadata.to_string().as_bytes());
    let bounds = index.bounds.unwrap_or([-180.0, -85.051129, 180.0, 85.051129]);
    let e7 = |v: f64| (v * 1e7).round() as i32;
    let root_offset = HEADER_BYTES as u64;
    let metadata_offset = root_offset + root.len() as u64;
    let leaf_offset = metadata_offset + metadata.len() as u64;
    let data_offset = leaf_offset + leaves.len() as u64;
    let header = Header {
        root_offset,
        root_length: root.len() as u64,
        metadata_offset,
        metadata_length: metadata.len() as u64,
        leaf_offset,
        leaf_length: leaves.len() as u64,
        data_offset,
        data_length,
        addressed_tiles: entries.len() as u64,
        tile_entries: entries.len() as u64,
        tile_contents: entries.len() as u64,
        clustered: true,
        internal_compression: Compression::Gzip,
        tile_compression: Compression::None,
        tile_type: 2,
        min_zoom: index.min_zoom as u8,
        max_zoom: index.max_zoom as u8,
        bounds_e7: bounds.map(e7),
        center_zoom: index.min_zoom as u8,
        center_e7: [e7((bounds[0] + bounds[2]) / 2.0), e7((bounds[1] + bounds[3]) / 2.0)],
    };
    let fail = |e: std::io::Error| TerrainError::File { path: path.display().to_string(), problem: format!("cannot write it ({e})") };
    let mut file = std::io::BufWriter::new(std::fs::File::create_new(path).map_err(fail)?);
    for part in [&header.to_bytes()[..], &root, &metadata, &leaves] {
        file.write_all(part).map_err(fail)?;
    }
    for &(_, (z, x, y), length) in &sorted {
        let bytes = bytes_of(z, x, y)?;
        if bytes.len() as u64 != length {
            return Err(TerrainError::File {
                path: path.display().to_string(),
                problem: format!("tile {z}/{x}/{y} changed while it was written ({} bytes, {length} listed)", bytes.len()),
            });
        }
        file.write_all(&bytes).map_err(fail)?;
    }
    file.into_inner().map_err(|e| fail(e.into_error()))?.sync_all().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tile ids of the PMTiles v3 reference implementations' tests.
    #[test]
    fn tile_ids_match_the_reference_implementations() {
        let known = [
            ((0, 0, 0), 0),
            ((1, 0, 0), 1),
            ((1, 0, 1), 2),
            ((1, 1, 1), 3),
            ((1, 1, 0), 4),
            ((2, 0, 0), 5),
            ((12, 3423, 1763), 19_078_479),
            ((20, 1234, 5678), 366_563_052_717),
            ((25, 1234, 5678), 375_299_988_763_469),
            ((26, 67_108_863, 0), 6_004_799_503_160_660),
        ];
        for ((z, x, y), id) in known {
            assert_eq!(tile_id(z, x, y), id, "({z}, {x}, {y})");
            assert_eq!(tile_zxy(id), (z, x, y), "id {id}");
        }
        // Every tile of zoom 4 has its own id, in the zoom's range, and round trips.
        let mut ids: Vec<u64> = (0..16).flat_map(|x| (0..16).map(move |y| tile_id(4, x, y))).collect();
        ids.sort();
        assert_eq!(ids, (85..85 + 256).collect::<Vec<u64>>());
    }

    /// Varints as in the reference implementations' tests (624485 = e5 8e 26).
    #[test]
    fn varints() {
        let bytes = [0u8, 1, 127, 0xe5, 0x8e, 0x26];
        let mut at = 0;
        let values: Vec<u64> = std::iter::from_fn(|| read_varint(&bytes, &mut at)).collect();
        assert_eq!(values, [0, 1, 127, 624_485]);
        let mut out = Vec::new();
        for v in [0, 1, 127, 624_485, u64::MAX] {
            write_varint(&mut out, v);
        }
        let mut at = 0;
        assert_eq!(std::iter::from_fn(|| read_varint(&out, &mut at)).collect::<Vec<_>>(), [0, 1, 127, 624_485, u64::MAX]);
        // Truncated and too long.
        assert_eq!(read_varint(&[0x80], &mut 0), None);
        assert_eq!(read_varint(&[0xff; 11], &mut 0), None);
    }

    #[test]
    fn directories_round_trip_and_find_runs() {
        let entries = [
            Entry { tile_id: 5, offset: 0, length: 10, run_length: 1 },
            Entry { tile_id: 6, offset: 10, length: 7, run_length: 3 },
            Entry { tile_id: 20, offset: 0, length: 10, run_length: 1 },
            Entry { tile_id: 30, offset: 100, length: 50, run_length: 0 },
        ];
        let bytes = serialize_directory(&entries);
        assert_eq!(parse_directory(&bytes).unwrap(), entries);
        assert_eq!(find_entry(&entries, 4), None);
        assert_eq!(find_entry(&entries, 8), Some(entries[1]));
        assert_eq!(find_entry(&entries, 9), None);
        assert_eq!(find_entry(&entries, 1000), Some(entries[3]));
        // A count larger than the bytes can hold, and a truncated directory.
        assert!(parse_directory(&[0xff, 0xff, 0x03]).unwrap_err().0.contains("claims"));
        assert!(parse_directory(&bytes[..bytes.len() - 1]).unwrap_err().0.contains("ends in the middle"));
    }

    #[test]
    fn headers_round_trip() {
        let header = Header {
            root_offset: 127,
            root_length: 30,
            metadata_offset: 157,
            metadata_length: 20,
            leaf_offset: 177,
            leaf_length: 0,
            data_offset: 177,
            data_length: 1000,
            addressed_tiles: 3,
            tile_entries: 3,
            tile_contents: 3,
            clustered: true,
            internal_compression: Compression::Gzip,
            tile_compression: Compression::None,
            tile_type: 2,
            min_zoom: 7,
            max_zoom: 13,
            bounds_e7: [1_190_000_000, 218_000_000, 1_221_000_000, 254_000_000],
            center_zoom: 7,
            center_e7: [1_205_000_000, -236_000_000],
        };
        assert_eq!(Header::parse(&header.to_bytes()).unwrap(), header);
        let mut bytes = header.to_bytes();
        bytes[0] = b'Q';
        assert!(Header::parse(&bytes).unwrap_err().0.contains("not a PMTiles archive"));
        assert!(Header::parse(&header.to_bytes()[..100]).unwrap_err().0.contains("truncated"));
    }
}
