//! A small tiled GeoTIFF writer for tests: classic TIFF or BigTIFF, int16 (predictor 2) or
//! float32 (predictor 3), uncompressed, deflate or ZSTD, with internal overviews, and the file
//! positions of the fields the bad-input tests damage.
#![allow(dead_code)]

use std::io::Write;

/// One level of heights (row-major, NaN for nodata).
#[derive(Clone, Debug)]
pub struct Level {
    pub width: u32,
    pub height: u32,
    pub heights: Vec<f32>,
}

/// How to write.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub big: bool,
    pub deflate: bool,
    /// ZSTD (compression 50000, as GDAL writes it) instead of deflate or none.
    pub zstd: bool,
    /// int16 with horizontal differencing (nodata -32768), else float32 with the floating-point predictor.
    pub int16: bool,
    pub tile_px: u32,
}

/// Where the georeference puts the raster: the corner of pixel (0, 0), the pixel size, and an
/// EPSG code (4326: geographic).
#[derive(Clone, Copy, Debug)]
pub struct Georef {
    pub corner: (f64, f64),
    pub pixel: (f64, f64),
    pub epsg: u16,
}

/// A written file and the positions of its fields.
pub struct Written {
    pub bytes: Vec<u8>,
    /// Per level (in file order): the position of its IFD.
    pub ifd_at: Vec<u64>,
    /// Per level: the position of its next-IFD pointer.
    pub next_at: Vec<u64>,
    /// Per level: the position of its first tile offset's value.
    pub tile_offsets_at: Vec<u64>,
    /// Per level: the position of its TileWidth value.
    pub tile_width_at: Vec<u64>,
}

/// The 2 x 2 mean of `level` (NaN samples left out), half its size rounded up.
pub fn overview(level: &Level) -> Level {
    let (width, height) = (level.width.div_ceil(2), level.height.div_ceil(2));
    let mut heights = Vec::with_capacity((width * height) as usize);
    for r in 0..height {
        for c in 0..width {
            let (mut sum, mut n) = (0.0f64, 0);
            for (dc, dr) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (cc, rr) = ((2 * c + dc).min(level.width - 1), (2 * r + dr).min(level.height - 1));
                let h = level.heights[(rr * level.width + cc) as usize];
                if !h.is_nan() {
                    sum += h as f64;
                    n += 1;
                }
            }
            heights.push(if n == 0 { f32::NAN } else { (sum / n as f64).round() as f32 });
        }
    }
    Level { width, height, heights }
}

/// The level and `count` overviews below it.
pub fn with_overviews(level: Level, count: usize) -> Vec<Level> {
    let mut levels = vec![level];
    for _ in 0..count {
        let next = overview(levels.last().unwrap());
        levels.push(next);
    }
    levels
}

/// The bytes of one tile (col, row) of `level`, padded with nodata, predicted and compressed.
fn tile_bytes(level: &Level, options: Options, col: u32, row: u32) -> Vec<u8> {
    let t = options.tile_px;
    let at = |c: u32, r: u32| {
        let (c, r) = (col * t + c, row * t + r);
        if c < level.width && r < level.height {
            level.heights[(r * level.width + c) as usize]
        } else {
            f32::NAN
        }
    };
    let mut raw = Vec::new();
    for r in 0..t {
        if options.int16 {
            let mut previous = 0i16;
            for c in 0..t {
                let h = at(c, r);
                let v = if h.is_nan() { -32768i16 } else { h as i16 };
                raw.extend_from_slice(&v.wrapping_sub(previous).to_le_bytes());
                previous = v;
            }
        } else {
            let row: Vec<[u8; 4]> = (0..t).map(|c| at(c, r).to_be_bytes()).collect();
            let mut shuffled: Vec<u8> = (0..4).flat_map(|b| row.iter().map(move |v| v[b])).collect();
            for i in (1..shuffled.len()).rev() {
                shuffled[i] = shuffled[i].wrapping_sub(shuffled[i - 1]);
            }
            raw.extend_from_slice(&shuffled);
        }
    }
    if options.zstd {
        ruzstd::encoding::compress_to_vec(raw.as_slice(), ruzstd::encoding::CompressionLevel::Fastest)
    } else if options.deflate {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&raw).unwrap();
        z.finish().unwrap()
    } else {
        raw
    }
}

struct Tag {
    tag: u16,
    kind: u16,
    count: u64,
    bytes: Vec<u8>,
}

fn shorts(tag: u16, v: &[u16]) -> Tag {
    Tag { tag, kind: 3, count: v.len() as u64, bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
}

fn doubles(tag: u16, v: &[f64]) -> Tag {
    Tag { tag, kind: 12, count: v.len() as u64, bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
}

fn offsets(tag: u16, v: &[u64], big: bool) -> Tag {
    if big {
        Tag { tag, kind: 16, count: v.len() as u64, bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect() }
    } else {
        Tag { tag, kind: 4, count: v.len() as u64, bytes: v.iter().flat_map(|&x| (x as u32).to_le_bytes()).collect() }
    }
}

/// The header of a file, its first-IFD pointer zero (at 4 or 8).
fn header(big: bool) -> Vec<u8> {
    let mut out: Vec<u8> = if big { b"II\x2b\x00\x08\x00\x00\x00".to_vec() } else { b"II\x2a\x00".to_vec() };
    out.extend_from_slice(if big { &[0u8; 8][..] } else { &[0u8; 4][..] });
    out
}

/// Writes `levels` (full resolution first) as a tiled GeoTIFF: tile data first, then the
/// directories, chained from finest to coarsest.
pub fn write(levels: &[Level], georef: Georef, options: Options) -> Written {
    let mut out = header(options.big);
    let mut tiles = Vec::new();
    for level in levels {
        let (across, down) = (level.width.div_ceil(options.tile_px), level.height.div_ceil(options.tile_px));
        let (mut at, mut counts) = (Vec::new(), Vec::new());
        for row in 0..down {
            for col in 0..across {
                let bytes = tile_bytes(level, options, col, row);
                at.push(out.len() as u64);
                counts.push(bytes.len() as u64);
                out.extend_from_slice(&bytes);
            }
        }
        tiles.push((at, counts));
    }
    let dims: Vec<(u32, u32)> = levels.iter().map(|l| (l.width, l.height)).collect();
    let mut written = directories(&dims, &tiles, georef, options, 0, &mut out);
    written.bytes = out;
    written
}

/// Writes a file of `width` x `height` samples of `height_at(col, row)` and `overviews`
/// overviews (every 2^k-th sample) to `path` tile by tile, never holding a level in memory.
pub fn write_streamed(
    path: &std::path::Path,
    width: u32,
    height: u32,
    overviews: usize,
    options: Options,
    georef: Georef,
    height_at: impl Fn(u32, u32) -> f32,
) {
    use std::io::{Seek, SeekFrom};
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let head = header(options.big);
    file.write_all(&head).unwrap();
    let (mut len, mut tiles, mut dims) = (head.len() as u64, Vec::new(), Vec::new());
    let t = options.tile_px;
    for k in 0..=overviews {
        let (w, h) = (width.div_ceil(1 << k), height.div_ceil(1 << k));
        let (mut at, mut counts) = (Vec::new(), Vec::new());
        for row in 0..h.div_ceil(t) {
            for col in 0..w.div_ceil(t) {
                let mut heights = Vec::with_capacity((t * t) as usize);
                for r in 0..t {
                    for c in 0..t {
                        let (x, y) = (col * t + c, row * t + r);
                        heights.push(if x < w && y < h { height_at(x << k, y << k) } else { f32::NAN });
                    }
                }
                let bytes = tile_bytes(&Level { width: t, height: t, heights }, options, 0, 0);
                at.push(len);
                counts.push(bytes.len() as u64);
                len += bytes.len() as u64;
                file.write_all(&bytes).unwrap();
            }
        }
        tiles.push((at, counts));
        dims.push((w, h));
    }
    let mut ifds = Vec::new();
    let written = directories(&dims, &tiles, georef, options, len, &mut ifds);
    file.write_all(&ifds).unwrap();
    let mut file = file.into_inner().unwrap();
    file.seek(SeekFrom::Start(4)).unwrap();
    let first = written.ifd_at[0];
    file.write_all(&if options.big {
        [8u8, 0, 0, 0].iter().copied().chain(first.to_le_bytes()).collect::<Vec<u8>>()
    } else {
        (first as u32).to_le_bytes().to_vec()
    })
    .unwrap();
}

/// Appends the directories of levels of `dims` whose tiles are at `tiles` to `out`, which
/// starts at file position `base`; with `base` 0, `out` holds the header and its first-IFD
/// pointer is set.
fn directories(
    dims: &[(u32, u32)],
    tiles: &[(Vec<u64>, Vec<u64>)],
    georef: Georef,
    options: Options,
    base: u64,
    out: &mut Vec<u8>,
) -> Written {
    let big = options.big;
    let first_ptr: usize = if big { 8 } else { 4 };
    let mut written = Written { bytes: Vec::new(), ifd_at: vec![], next_at: vec![], tile_offsets_at: vec![], tile_width_at: vec![] };
    let mut previous_next: Option<usize> = None;
    for (i, (&(width, height), (at, counts))) in dims.iter().zip(tiles).enumerate() {
        if (base as usize + out.len()) % 2 == 1 {
            out.push(0);
        }
        let ifd = base + out.len() as u64;
        match previous_next {
            None if base > 0 => {}
            None => out[first_ptr..first_ptr + if big { 8 } else { 4 }].copy_from_slice(&if big {
                ifd.to_le_bytes().to_vec()
            } else {
                (ifd as u32).to_le_bytes().to_vec()
            }),
            Some(p) => out[p - base as usize..p - base as usize + if big { 8 } else { 4 }].copy_from_slice(&if big {
                ifd.to_le_bytes().to_vec()
            } else {
                (ifd as u32).to_le_bytes().to_vec()
            }),
        }
        let mut tags = vec![
            shorts(254, &[if i == 0 { 0 } else { 1 }]),
            Tag { tag: 256, kind: 4, count: 1, bytes: width.to_le_bytes().to_vec() },
            Tag { tag: 257, kind: 4, count: 1, bytes: height.to_le_bytes().to_vec() },
            shorts(258, &[if options.int16 { 16 } else { 32 }]),
            shorts(
                259,
                &[if options.zstd {
                    50000
                } else if options.deflate {
                    8
                } else {
                    1
                }],
            ),
            shorts(262, &[1]),
            shorts(277, &[1]),
            shorts(284, &[1]),
            shorts(317, &[if options.int16 { 2 } else { 3 }]),
            shorts(322, &[options.tile_px as u16]),
            shorts(323, &[options.tile_px as u16]),
            offsets(324, at, big),
            offsets(325, counts, big),
            shorts(339, &[if options.int16 { 2 } else { 3 }]),
        ];
        if i == 0 {
            tags.push(doubles(33550, &[georef.pixel.0, georef.pixel.1, 0.0]));
            tags.push(doubles(33922, &[0.0, 0.0, 0.0, georef.corner.0, georef.corner.1, 0.0]));
            let keys: Vec<u16> = if georef.epsg == 4326 {
                vec![1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326]
            } else {
                vec![1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, georef.epsg]
            };
            tags.push(shorts(34735, &keys));
            if options.int16 {
                tags.push(Tag { tag: 42113, kind: 2, count: 7, bytes: b"-32768\0".to_vec() });
            }
        }
        tags.sort_by_key(|t| t.tag);
        let (count_bytes, entry_bytes, inline) = if big { (8usize, 20usize, 8usize) } else { (2, 12, 4) };
        let mut data_at = ifd as usize + count_bytes + tags.len() * entry_bytes + inline;
        let mut table = Vec::new();
        let mut data = Vec::new();
        table.extend_from_slice(&if big { (tags.len() as u64).to_le_bytes().to_vec() } else { (tags.len() as u16).to_le_bytes().to_vec() });
        for t in &tags {
            let value_at = ifd as usize + table.len() + 4 + if big { 8 } else { 4 };
            table.extend_from_slice(&t.tag.to_le_bytes());
            table.extend_from_slice(&t.kind.to_le_bytes());
            table.extend_from_slice(&if big { t.count.to_le_bytes().to_vec() } else { (t.count as u32).to_le_bytes().to_vec() });
            let first_value = if t.bytes.len() <= inline {
                let mut v = t.bytes.clone();
                v.resize(inline, 0);
                table.extend_from_slice(&v);
                value_at
            } else {
                let at = data_at;
                table.extend_from_slice(&if big { (at as u64).to_le_bytes().to_vec() } else { (at as u32).to_le_bytes().to_vec() });
                data.extend_from_slice(&t.bytes);
                if data.len() % 2 == 1 {
                    data.push(0);
                }
                data_at = ifd as usize + count_bytes + tags.len() * entry_bytes + inline + data.len();
                at
            };
            if t.tag == 324 {
                written.tile_offsets_at.push(first_value as u64);
            }
            if t.tag == 322 {
                written.tile_width_at.push(value_at as u64);
            }
        }
        let next_at = ifd as usize + table.len();
        table.extend_from_slice(&vec![0u8; inline]);
        out.extend_from_slice(&table);
        out.extend_from_slice(&data);
        written.ifd_at.push(ifd);
        written.next_at.push(next_at as u64);
        previous_next = Some(next_at);
    }
    written
}
