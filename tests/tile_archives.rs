//! MBTiles and PMTiles archives built in a tempdir from the test pyramid
//! (heightmaps/taiwan-terrain-rgb) read back byte for byte, sample and render exactly as the
//! folder does (flat terrain and a planet region), and corrupt archives give one error line that
//! names the file, or a counted rejected tile, never a panic.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bisector::terrain::pyramid::{Encoding, TilePyramid};
use bisector::terrain::tile_source::{self, SourceIndex};
use bisector::terrain::{mbtiles, pmtiles};

fn data(relative: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path
}

type Tiles = Vec<(u32, u32, u32, Vec<u8>)>;

/// Every tile of a `{z}/{x}/{y}.png` folder, as (z, x, y, bytes).
fn folder_tiles(dir: &Path) -> Tiles {
    let number = |p: &Path| p.file_stem().unwrap().to_str().unwrap().parse::<u32>().ok();
    let mut tiles = Vec::new();
    for z in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()) {
        for x in std::fs::read_dir(&z).unwrap().map(|e| e.unwrap().path()) {
            for y in std::fs::read_dir(&x).unwrap().map(|e| e.unwrap().path()) {
                tiles.push((number(&z).unwrap(), number(&x).unwrap(), number(&y).unwrap(), std::fs::read(&y).unwrap()));
            }
        }
    }
    tiles.sort();
    tiles
}

fn taiwan() -> (Tiles, SourceIndex) {
    let folder = tile_source::open(&data("taiwan-terrain-rgb")).unwrap();
    (folder_tiles(&data("taiwan-terrain-rgb")), folder.index().clone())
}

/// The three archives of the test pyramid: MBTiles, PMTiles with all entries in the root, and
/// PMTiles with leaf directories of 16 entries.
fn archives(dir: &Path) -> [PathBuf; 3] {
    let (tiles, index) = taiwan();
    let paths = [dir.join("taiwan.mbtiles"), dir.join("taiwan.pmtiles"), dir.join("taiwan-leaves.pmtiles")];
    mbtiles::write(&paths[0], &index, &tiles).unwrap();
    pmtiles::write(&paths[1], &index, &tiles, 0).unwrap();
    pmtiles::write(&paths[2], &index, &tiles, 16).unwrap();
    paths
}

fn bisector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bisector")).args(args).output().expect("run bisector")
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The one line on stderr of a failed run (drivers' noise left out), checked for `expect`.
fn one_error_line(out: &Output, expect: &[&str]) -> String {
    assert!(!out.status.success(), "expected failure, got success");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got {lines:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for e in expect {
        assert!(lines[0].contains(e), "error line {:?} does not mention {e:?}", lines[0]);
    }
    lines[0].to_string()
}

#[test]
fn archives_read_back_every_tile_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (tiles, index) = taiwan();
    assert!(tiles.len() > 150, "{} tiles", tiles.len());
    for path in archives(dir.path()) {
        let source = tile_source::open(&path).unwrap();
        assert_eq!(source.index().min_zoom, index.min_zoom, "{}", path.display());
        assert_eq!(source.index().max_zoom, index.max_zoom);
        assert_eq!(source.index().encoding, Encoding::TerrainRgb);
        let (b, a) = (source.index().bounds.unwrap(), index.bounds.unwrap());
        assert!(b.iter().zip(a).all(|(b, a)| (b - a).abs() < 1e-7), "{b:?} {a:?}");
        for (z, x, y, bytes) in &tiles {
            assert_eq!(source.get(*z, *x, *y).unwrap().as_ref(), Some(bytes), "{} {z}/{x}/{y}", path.display());
        }
        // Tiles that are not there: a neighbour of each, off the grid, past the zooms.
        let missing = tiles.iter().map(|(z, x, y, _)| (*z, *x + 1, *y)).filter(|t| !tiles.iter().any(|u| (u.0, u.1, u.2) == *t));
        for (z, x, y) in missing.chain([(7, 1 << 7, 0), (7, 0, 1 << 7), (25, 0, 0), (2, 1, 1)]) {
            assert_eq!(source.get(z, x, y).unwrap(), None, "{} {z}/{x}/{y}", path.display());
        }
    }
    // A Terrarium archive says so in its metadata.
    let terrarium = SourceIndex { encoding: Encoding::Terrarium, ..index };
    for (i, path) in [dir.path().join("t.mbtiles"), dir.path().join("t.pmtiles")].iter().enumerate() {
        if i == 0 {
            mbtiles::write(path, &terrarium, &tiles[..3]).unwrap();
        } else {
            pmtiles::write(path, &terrarium, &tiles[..3], 0).unwrap();
        }
        assert_eq!(tile_source::open(path).unwrap().index().encoding, Encoding::Terrarium);
    }
}

#[test]
fn archives_sample_and_probe_as_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = TilePyramid::open(&data("taiwan-terrain-rgb")).unwrap();
    for path in archives(dir.path()) {
        let archive = TilePyramid::open(&path).unwrap();
        for (lon, lat) in [(120.9572, 23.47), (121.25, 24.38), (120.3, 22.7), (121.8, 23.5), (119.0, 21.0), (121.0, 25.2)] {
            for zoom in [7, 9, 10, 13] {
                let (f, a) = (folder.sample_up_to_zoom_m(lon, lat, zoom).unwrap(), archive.sample_up_to_zoom_m(lon, lat, zoom).unwrap());
                assert_eq!(f.map(f32::to_bits), a.map(f32::to_bits), "{} at {lon},{lat} zoom {zoom}", path.display());
            }
        }
        let probe = |terrain: &Path| {
            let out = bisector(&["probe", "--terrain", s(terrain), "--at=120.9572,23.47"]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).to_string()
        };
        assert_eq!(probe(&path), probe(&data("taiwan-terrain-rgb")), "{}", path.display());
    }
}

fn shot(terrain: &str, out: &Path, extra: &[&str]) -> image::RgbaImage {
    let mut args = vec!["shot", "--terrain", terrain, "--size", "64x40", "--out", s(out)];
    args.extend_from_slice(extra);
    let result = bisector(&args);
    assert!(result.status.success(), "{terrain}: {}", String::from_utf8_lossy(&result.stderr));
    image::open(out).unwrap().to_rgba8()
}

/// The same shot from the folder and from each archive is the same image, pixel for pixel: on
/// the flat terrain and with the pyramid as a planet region over ETOPO (the Taiwan coast view).
#[test]
fn archives_render_exactly_as_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let paths = archives(dir.path());
    let folder = shot(s(&data("taiwan-terrain-rgb")), &dir.path().join("folder.png"), &["--max-samples", "513"]);
    assert!(folder.pixels().map(|p| p.0).collect::<std::collections::HashSet<_>>().len() > 50, "the folder's shot is blank");
    for path in &paths {
        let image = shot(s(path), &dir.path().join("archive.png"), &["--max-samples", "513"]);
        assert!(image == folder, "{} renders differently from the folder", path.display());
    }
    let camera = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-coast-ship.json");
    let planet = |region: &Path| format!("planet:{},{}", s(&data("etopo20_global.tif")), s(region));
    let folder = shot(&planet(&data("taiwan-terrain-rgb")), &dir.path().join("globe-folder.png"), &["--camera", s(&camera)]);
    let image = shot(&planet(&paths[2]), &dir.path().join("globe-archive.png"), &["--camera", s(&camera)]);
    assert!(image == folder, "the planet with the PMTiles region renders differently from the folder's");
}

/// Writes `bytes` to `name` in `dir` and returns its path.
fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn probe_error(path: &Path, expect: &[&str]) -> String {
    let line = one_error_line(&bisector(&["probe", "--terrain", s(path), "--at=120.9572,23.47"]), expect);
    assert!(line.contains(s(path)), "{line:?} does not name the file");
    line
}

#[test]
fn corrupt_pmtiles_are_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(&archives(dir.path())[2]).unwrap();
    let header = pmtiles::Header::parse(&good).unwrap();
    probe_error(&file(dir.path(), "short.pmtiles", &good[..100]), &["truncated", "127-byte"]);
    probe_error(&file(dir.path(), "cut.pmtiles", &good[..good.len() / 2]), &["past the end", "tile data"]);
    let mut magic = good.clone();
    magic[..7].copy_from_slice(b"MBTiles");
    probe_error(&file(dir.path(), "magic.pmtiles", &magic), &["not a PMTiles archive"]);
    let mut version = good.clone();
    version[7] = 2;
    probe_error(&file(dir.path(), "v2.pmtiles", &version), &["version 2"]);
    // Absurd offsets in the header: the root directory past the end, or wrapping around.
    for (name, root_offset) in [("far.pmtiles", 1u64 << 40), ("wrap.pmtiles", u64::MAX - 3)] {
        let mut bytes = good.clone();
        bytes[8..16].copy_from_slice(&root_offset.to_le_bytes());
        probe_error(&file(dir.path(), name, &bytes), &["root directory", "past the end"]);
    }
    // A root directory that is not gzip.
    let mut garbled = good.clone();
    let root = header.root_offset as usize;
    garbled[root..root + 4].copy_from_slice(b"junk");
    probe_error(&file(dir.path(), "garbled.pmtiles", &garbled), &["decompressed"]);
    // A leaf directory entry pointing past the leaf section: rewrite the root with one.
    let mut root_entries = pmtiles::parse_directory(&gunzip(&good[root..root + header.root_length as usize])).unwrap();
    for e in &mut root_entries {
        e.offset += header.leaf_length;
    }
    let path = dir.path().join("leaf.pmtiles");
    std::fs::write(&path, with_root(&good, &header, &root_entries)).unwrap();
    probe_error(&path, &["leaf directory", "past the leaf section"]);
    // A tile entry pointing past the tile data (an archive without leaves).
    let flat = std::fs::read(archives_flat(dir.path())).unwrap();
    let flat_header = pmtiles::Header::parse(&flat).unwrap();
    let root = flat_header.root_offset as usize;
    let mut entries = pmtiles::parse_directory(&gunzip(&flat[root..root + flat_header.root_length as usize])).unwrap();
    for e in &mut entries {
        e.offset += flat_header.data_length;
    }
    let path = dir.path().join("tile-past.pmtiles");
    std::fs::write(&path, with_root(&flat, &flat_header, &entries)).unwrap();
    probe_error(&path, &["tile 7/", "past the tile data"]);
    // Vector tiles are not elevation.
    let mut mvt = good.clone();
    mvt[99] = 1;
    probe_error(&file(dir.path(), "mvt.pmtiles", &mvt), &["MVT", "must be PNG"]);
}

fn archives_flat(dir: &Path) -> PathBuf {
    let path = dir.join("flat.pmtiles");
    let (tiles, index) = taiwan();
    pmtiles::write(&path, &index, &tiles, 0).unwrap();
    path
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
    out
}

/// `archive` with its root directory replaced by `entries` (written uncompressed at the end,
/// the header pointing there and saying so: a legal layout).
fn with_root(archive: &[u8], header: &pmtiles::Header, entries: &[pmtiles::Entry]) -> Vec<u8> {
    let mut bytes = archive.to_vec();
    let root = pmtiles::serialize_directory(entries);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, &root).unwrap();
        e.finish().unwrap()
    };
    let header = pmtiles::Header { root_offset: bytes.len() as u64, root_length: gz.len() as u64, ..header.clone() };
    bytes[..pmtiles::HEADER_BYTES].copy_from_slice(&header.to_bytes());
    bytes.extend_from_slice(&gz);
    bytes
}

#[test]
fn corrupt_mbtiles_are_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(&archives(dir.path())[0]).unwrap();
    probe_error(&file(dir.path(), "text.mbtiles", b"not a database at all, just some text in a file"), &["not a readable MBTiles"]);
    probe_error(&file(dir.path(), "cut.mbtiles", &good[..good.len() / 3]), &["MBTiles"]);
    // A SQLite database that is not MBTiles.
    let other = dir.path().join("other.mbtiles");
    rusqlite::Connection::open(&other).unwrap().execute_batch("CREATE TABLE notes (body TEXT);").unwrap();
    probe_error(&other, &["not an MBTiles archive", "no `tiles` table"]);
    // Metadata that is not usable.
    for (name, sql, expect) in [
        ("webp.mbtiles", "UPDATE metadata SET value = 'webp' WHERE name = 'format'", "'webp'"),
        ("zoom.mbtiles", "UPDATE metadata SET value = '40' WHERE name = 'maxzoom'", "zoom range"),
        ("bounds.mbtiles", "UPDATE metadata SET value = '1,2,3' WHERE name = 'bounds'", "bounds"),
        ("encoding.mbtiles", "UPDATE metadata SET value = 'lerc' WHERE name = 'encoding'", "encoding 'lerc'"),
    ] {
        let path = file(dir.path(), name, &good);
        rusqlite::Connection::open(&path).unwrap().execute_batch(sql).unwrap();
        probe_error(&path, &[expect]);
    }
    // Opening never writes: the archive is the same bytes after a probe.
    let path = file(dir.path(), "kept.mbtiles", &good);
    assert!(bisector(&["probe", "--terrain", s(&path), "--at=120.9572,23.47"]).status.success());
    assert!(std::fs::read(&path).unwrap() == good, "probe changed the archive");
}

/// A tile that is not PNG names the archive and the tile; a PNG that cannot be Terrain-RGB
/// (greyscale) is a counted rejected tile, read as missing.
#[test]
fn bad_tiles_in_archives_are_named_or_counted() {
    let dir = tempfile::tempdir().unwrap();
    let (mut tiles, index) = taiwan();
    // Yushan's zoom 13 tile, replaced.
    let yushan = tiles.iter().position(|t| (t.0, t.1, t.2) == (13, 6848, 3546)).expect("the Yushan tile");
    let mut grey = Vec::new();
    image::DynamicImage::new_luma8(256, 256).write_to(&mut std::io::Cursor::new(&mut grey), image::ImageFormat::Png).unwrap();
    for (kind, bytes) in [("junk", b"GIF89a, not a png".to_vec()), ("grey", grey)] {
        tiles[yushan].3 = bytes;
        let mb = dir.path().join(format!("{kind}.mbtiles"));
        let pm = dir.path().join(format!("{kind}.pmtiles"));
        mbtiles::write(&mb, &index, &tiles).unwrap();
        pmtiles::write(&pm, &index, &tiles, 16).unwrap();
        for path in [mb, pm] {
            let pyramid = TilePyramid::open(&path).unwrap();
            let result = pyramid.sample_m(120.9572, 23.47);
            if kind == "junk" {
                let line = result.unwrap_err().to_string();
                assert!(line.contains(s(&path)) && line.contains("tile 13/6848/3546") && line.contains("not a readable PNG"), "{line}");
                probe_error(&path, &["tile 13/6848/3546", "not a readable PNG"]);
            } else {
                // Zoom 12 shows through.
                let height = result.unwrap().unwrap();
                assert!((3800.0..3960.0).contains(&height), "{height}");
                assert_eq!(pyramid.rejected_tiles(), 1);
            }
        }
    }
    // Writers never overwrite.
    let existing = file(dir.path(), "existing.pmtiles", b"mine");
    assert!(pmtiles::write(&existing, &index, &tiles, 0).unwrap_err().to_string().contains("already exists"));
    let existing = file(dir.path(), "existing.mbtiles", b"mine");
    assert!(mbtiles::write(&existing, &index, &tiles).unwrap_err().to_string().contains("already exists"));
    assert_eq!(std::fs::read(&existing).unwrap(), b"mine");
}

/// Random damage to a PMTiles archive with leaf directories (bytes overwritten in the header, the
/// directories and the metadata, or the file cut short) opens and samples to a value or an
/// error, never a panic; random bytes as a directory parse or fail the same way.
#[test]
fn damaged_pmtiles_never_panic() {
    use rand::Rng;
    let mut rng = common::rng("damaged_pmtiles_never_panic");
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(&archives(dir.path())[2]).unwrap();
    let header = pmtiles::Header::parse(&good).unwrap();
    let structure = header.data_offset as usize;
    let (mut opened, mut refused) = (0, 0);
    for round in 0..300 {
        let mut bytes = good.clone();
        if round % 10 == 0 {
            bytes.truncate(rng.random_range(0..good.len()));
        } else {
            for _ in 0..rng.random_range(1..6) {
                let at = rng.random_range(0..structure);
                bytes[at] = rng.random();
            }
        }
        let path = dir.path().join(format!("damaged{round}.pmtiles"));
        std::fs::write(&path, &bytes).unwrap();
        match TilePyramid::open(&path) {
            Ok(pyramid) => {
                opened += 1;
                for (lon, lat) in [(120.9572, 23.47), (121.25, 24.38), (120.3, 22.7)] {
                    let _ = pyramid.sample_m(lon, lat);
                }
            }
            Err(e) => {
                refused += 1;
                assert!(e.to_string().contains(path.to_str().unwrap()), "{e} does not name the file");
            }
        }
        std::fs::remove_file(&path).unwrap();
        let random: Vec<u8> = (0..rng.random_range(0..200)).map(|_| rng.random()).collect();
        if let Ok(entries) = pmtiles::parse_directory(&random) {
            let _ = pmtiles::find_entry(&entries, rng.random());
        }
    }
    assert!(opened > 0 && refused > 0, "opened {opened}, refused {refused}: the damage should sometimes matter");
}
