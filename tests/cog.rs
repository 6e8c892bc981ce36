//! Large GeoTIFFs read tile by tile (src/terrain/cog.rs, src/terrain/cog_source.rs): tiled
//! files with overviews written by the test (classic TIFF and BigTIFF, int16 and float32,
//! deflate and uncompressed) from heightmaps/ read back exactly as the whole-file reader reads
//! them, overviews as written; the source's Web-Mercator tiles equal `bisector tiles`' tiles of
//! the same level held whole; the tile cache stays within its budget; bad files are one line
//! naming the file; the CLI draws a COG on the flat terrain and as a planet region.

#[path = "support/cog_writer.rs"]
mod cog_writer;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use bisector::terrain::build_tiles::{self, BuildSource};
use bisector::terrain::cog::{self, CogFile, LevelMemo};
use bisector::terrain::cog_source::CogSource;
use bisector::terrain::geotiff;
use bisector::terrain::pyramid::Encoding;
use bisector::terrain::raster::{Crs, Raster};
use bisector::terrain::tile_source::TileSource;
use bisector::terrain::TerrainSpec;
use cog_writer::{Georef, Level, Options};
use rand::Rng;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(name)
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Big Tujunga (UTM 11N, int16 heights) as a level and its georeference.
fn tujunga() -> (Raster, Level, Georef) {
    let raster = geotiff::read(&data("bigtujunga.tif")).unwrap();
    let Crs::Projected { epsg } = raster.crs else { panic!("Big Tujunga is in UTM") };
    let georef =
        Georef { corner: (raster.origin.0 - 0.5 * raster.step.0, raster.origin.1 + 0.5 * raster.step.1), pixel: raster.step, epsg };
    let level = Level { width: raster.width, height: raster.height, heights: raster.heights_m.clone() };
    (raster, level, georef)
}

/// A window of ETOPO (geographic) around Taiwan, as a level and its georeference.
fn etopo_taiwan() -> (Level, Georef) {
    let raster = geotiff::read(&data("etopo20_global.tif")).unwrap();
    let (c0, r0) = (((115.0 - raster.origin.0) / raster.step.0) as u32, ((raster.origin.1 - 30.0) / raster.step.1) as u32);
    let (width, height) = (60, 48);
    let heights = (0..height)
        .flat_map(|r| (0..width).map(move |c| (r, c)))
        .map(|(r, c)| raster.heights_m[((r0 + r) * raster.width + c0 + c) as usize]);
    let (x, y) = raster.position(c0, r0);
    let georef = Georef { corner: (x - 0.5 * raster.step.0, y + 0.5 * raster.step.1), pixel: raster.step, epsg: 4326 };
    (Level { width, height, heights: heights.collect() }, georef)
}

fn write(dir: &Path, name: &str, levels: &[Level], georef: Georef, options: Options) -> (PathBuf, cog_writer::Written) {
    let written = cog_writer::write(levels, georef, options);
    let path = dir.join(name);
    std::fs::write(&path, &written.bytes).unwrap();
    (path, written)
}

fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

const VARIANTS: [Options; 5] = [
    Options { big: false, deflate: true, zstd: false, int16: true, tile_px: 64 },
    Options { big: true, deflate: true, zstd: false, int16: false, tile_px: 32 },
    Options { big: true, deflate: false, zstd: false, int16: true, tile_px: 128 },
    Options { big: false, deflate: false, zstd: true, int16: false, tile_px: 64 },
    Options { big: true, deflate: false, zstd: true, int16: true, tile_px: 32 },
];

/// Every level-0 sample read tile by tile equals the whole-file reader's (the tiff crate) and
/// the source's; every overview equals what was written; the georeference is the source's.
#[test]
fn lazy_reads_equal_the_whole_file_and_the_overviews_written() {
    let dir = tempfile::tempdir().unwrap();
    let (raster, level, georef) = tujunga();
    let levels = cog_writer::with_overviews(level, 3);
    for (i, options) in VARIANTS.into_iter().enumerate() {
        let (path, _) = write(dir.path(), &format!("tujunga-{i}.tif"), &levels, georef, options);
        assert_eq!(cog::layout(&path).unwrap(), cog::Layout::Lazy, "{options:?}");
        let lazy = CogFile::open_with_budget(&path, 1 << 20).unwrap();
        assert_eq!(lazy.levels.len(), 4);
        let level0 = lazy.read_level(0).unwrap();
        // The whole-file reader (the tiff crate, built without ZSTD) reads the others.
        if !options.zstd {
            let whole = geotiff::read(&path).unwrap();
            assert!(same(&level0.heights_m, &whole.heights_m), "{options:?}: level 0 differs from the whole-file reader");
        }
        assert!(same(&level0.heights_m, &raster.heights_m), "{options:?}: level 0 differs from the source");
        assert_eq!((level0.origin, level0.step, level0.crs), (raster.origin, raster.step, raster.crs));
        // Sample by sample through the cache, in random order.
        let mut memo = LevelMemo::default();
        let mut rng = rand::rng();
        for _ in 0..20_000 {
            let (c, r) = (rng.random_range(0..raster.width), rng.random_range(0..raster.height));
            let h = lazy.sample_at(&mut memo, 0, c, r).unwrap();
            let want = raster.heights_m[(r * raster.width + c) as usize];
            assert!(same(&[h], &[want]), "{options:?}: sample ({c}, {r}) is {h}, not {want}");
            let (x, y) = raster.position(c, r);
            let (dx, dy) = (rng.random_range(-0.7..0.7) * raster.step.0, rng.random_range(-0.7..0.7) * raster.step.1);
            let (lazy_m, whole_m) = (lazy.sample_m(&mut memo, 0, x + dx, y + dy).unwrap(), raster.sample_m(x + dx, y + dy));
            assert_eq!(lazy_m.map(f32::to_bits), whole_m.map(f32::to_bits), "bilinear at ({}, {})", x + dx, y + dy);
        }
        for (k, written) in levels.iter().enumerate().skip(1) {
            let read = lazy.read_level(k).unwrap();
            assert_eq!((read.width, read.height), (written.width, written.height));
            assert!(same(&read.heights_m, &written.heights), "{options:?}: overview {k} differs from the one written");
            assert!((read.step.0 - raster.step.0 * raster.width as f64 / written.width as f64).abs() < 1e-9);
        }
    }
}

/// Tiles served from a COG equal `bisector tiles`' tiles from the level they read held whole:
/// the heights bit for bit, the Terrarium PNG byte for byte; coarser zooms read overviews.
#[test]
fn served_tiles_equal_the_pyramid_path() {
    let dir = tempfile::tempdir().unwrap();
    for (name, (level, georef)) in [
        ("tujunga.tif", {
            let (_, l, g) = tujunga();
            (l, g)
        }),
        ("taiwan.tif", etopo_taiwan()),
    ] {
        let levels = cog_writer::with_overviews(level, 2);
        let (path, _) = write(dir.path(), name, &levels, georef, VARIANTS[0]);
        let file = Arc::new(CogFile::open(&path).unwrap());
        let source = CogSource::new(file.clone()).unwrap();
        let index = source.index().clone();
        let mut levels_seen = std::collections::BTreeSet::new();
        let mut tiles_compared = 0;
        for z in (0..=index.max_zoom).rev().take(6) {
            let level = source.level_for_zoom(z);
            levels_seen.insert(level);
            let raster = file.read_level(level).unwrap();
            let whole = BuildSource::whole(name, raster);
            let placed = build_tiles::place(&whole).unwrap();
            let [west, south, east, north] = index.bounds.unwrap();
            let (x0, y0) = bisector::terrain::pyramid::tile_xy(z, west, north);
            let (x1, y1) = bisector::terrain::pyramid::tile_xy(z, east, south);
            for (x, y) in (x0 as u32..=x1 as u32).flat_map(|x| (y0 as u32..=y1 as u32).map(move |y| (x, y))).take(6) {
                let want = build_tiles::tile_png(&[&placed], z, x, y, Encoding::Terrarium).unwrap();
                assert_eq!(source.get(z, x, y).unwrap(), want, "{name} tile {z}/{x}/{y} (level {level})");
                let heights = source.tile_heights_m(z, x, y).unwrap();
                let expect = build_tiles::tile_heights_m(z, x, y, |lon, lat| placed.sample_m(lon, lat));
                match heights {
                    Some(h) => assert!(same(&h, &expect), "{name} {z}/{x}/{y}"),
                    None => assert!(expect.iter().all(|h| h.is_nan())),
                }
                tiles_compared += 1;
            }
        }
        assert!(levels_seen.len() >= 2, "{name}: only levels {levels_seen:?} served");
        assert!(tiles_compared >= 4, "{name}: {tiles_compared} tiles");
    }
}

/// Reading every tile of a file three times over through a cache of a few tiles: the cache
/// never holds more than its budget, and evicts (decodes more tiles than the file has).
#[test]
fn the_tile_cache_stays_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (raster, level, georef) = tujunga();
    let options = Options { big: false, deflate: true, zstd: false, int16: false, tile_px: 32 };
    let (path, _) = write(dir.path(), "budget.tif", &[level], georef, options);
    let budget = 5 * 32 * 32 * 4;
    let file = CogFile::open_with_budget(&path, budget).unwrap();
    let (across, down) = file.levels[0].tiles();
    let mut rng = rand::rng();
    for _ in 0..3 * across * down {
        file.tile(0, rng.random_range(0..across), rng.random_range(0..down)).unwrap();
        assert!(file.cache_in_use_bytes() <= budget);
    }
    let decoded_bytes = raster.width as u64 * raster.height as u64 * 4;
    let stats = file.stats();
    assert!(decoded_bytes > 10 * budget, "the file must be larger than the budget");
    assert_eq!(stats.cache_budget_bytes, budget);
    assert!(stats.cache_peak_bytes <= budget && stats.cache_peak_bytes >= budget - 32 * 32 * 4, "{stats:?}");
    assert!(stats.tiles_decoded > (across * down) as u64, "{stats:?}");
    assert!(cog::stats().cache_budget_bytes >= budget);
    // A pyramid over the source keeps none of its tiles: the source's own cache bounds them.
    let source = CogSource::new(Arc::new(CogFile::open_with_budget(&path, budget).unwrap())).unwrap();
    let z = source.index().max_zoom;
    let [west, south, east, north] = source.index().bounds.unwrap();
    let (x0, y0) = bisector::terrain::pyramid::tile_xy(z, west, north);
    let (x1, y1) = bisector::terrain::pyramid::tile_xy(z, east, south);
    let tiles: Vec<(u32, u32)> = (x0 as u32..=x1 as u32).flat_map(|x| (y0 as u32..=y1 as u32).map(move |y| (x, y))).collect();
    for &(x, y) in tiles.iter().chain(&tiles) {
        source.heights_m(z, x, y).unwrap().unwrap();
        assert!(source.file().cache_in_use_bytes() <= budget);
    }
    let served = source.served_stats();
    assert_eq!(served.cache_budget_bytes, bisector::terrain::cog_source::SERVED_CACHE_BYTES);
    assert!(served.cache_peak_bytes <= served.cache_budget_bytes);
    assert_eq!((served.tiles_decoded, served.cache_hits), (tiles.len() as u64, tiles.len() as u64), "{served:?}");
    // A budget below one tile is refused.
    let err = CogFile::open_with_budget(&path, 100).err().unwrap().to_string();
    assert!(err.contains("budget.tif") && err.contains("budget"), "{err}");
}

fn error_of(path: &Path) -> String {
    let error = match CogFile::open(path) {
        Err(e) => e.to_string(),
        Ok(file) => match file.read_level(0) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{} read without error", path.display()),
        },
    };
    assert!(error.contains(path.file_name().unwrap().to_str().unwrap()) && !error.contains('\n'), "{error}");
    error
}

/// A truncated file, tile offsets past the end, absurd tile sizes, an IFD loop, corrupt tile
/// data: one line each, naming the file, at open (or at the tile's read), through the CLI too.
#[test]
fn bad_files_are_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (level, georef) = etopo_taiwan();
    let levels = cog_writer::with_overviews(level, 2);
    for options in
        [Options { big: false, deflate: true, zstd: false, int16: true, tile_px: 16 }, Options { big: true, ..VARIANTS[1] }, VARIANTS[4]]
    {
        let (_, w) = write(dir.path(), "good.tif", &levels, georef, options);
        let put = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let word = |bytes: &mut Vec<u8>, at: u64, value: u64| {
            let n = if options.big { 8 } else { 4 };
            bytes[at as usize..at as usize + n].copy_from_slice(&value.to_le_bytes()[..n]);
        };
        let truncated = put("truncated.tif", &w.bytes[..w.bytes.len() * 2 / 3]);
        assert!(error_of(&truncated).contains("past the end"));
        let mut past = w.bytes.clone();
        word(&mut past, w.tile_offsets_at[0] + if options.big { 8 } else { 4 }, w.bytes.len() as u64 + 10);
        assert!(error_of(&put("past.tif", &past)).contains("past the end of the file"));
        let mut absurd = w.bytes.clone();
        absurd[w.tile_width_at[0] as usize..w.tile_width_at[0] as usize + 2].copy_from_slice(&60000u16.to_le_bytes());
        assert!(error_of(&put("absurd.tif", &absurd)).contains("tiles of 60000"));
        let mut looped = w.bytes.clone();
        word(&mut looped, *w.next_at.last().unwrap(), w.ifd_at[0]);
        assert!(error_of(&put("loop.tif", &looped)).contains("loop"));
        if options.deflate || options.zstd {
            // The first tile's bytes: garbage that is not deflate or ZSTD.
            let mut garbage = w.bytes.clone();
            let start = if options.big { 16 } else { 8 };
            garbage[start..start + 8].copy_from_slice(b"notzlib!");
            assert!(error_of(&put("garbage.tif", &garbage)).contains("decompressed"));
        }
    }
    // Random damage never panics: bytes set at random places (headers, directories, tiles).
    let written: Vec<_> = VARIANTS.iter().map(|&options| cog_writer::write(&levels, georef, options)).collect();
    let mut rng = rand::rng();
    let mut failures = 0;
    for round in 0..300 {
        let w = &written[round % written.len()];
        let mut bytes = w.bytes.clone();
        for _ in 0..rng.random_range(1..8) {
            let at = if round % 2 == 0 {
                rng.random_range(*w.ifd_at.first().unwrap() as usize..bytes.len())
            } else {
                rng.random_range(0..bytes.len())
            };
            bytes[at] = rng.random();
        }
        let path = dir.path().join("damaged.tif");
        std::fs::write(&path, &bytes).unwrap();
        let result = CogFile::open(&path).and_then(|file| {
            (0..file.levels.len()).try_for_each(|k| file.read_level(k).map(|_| ()))?;
            let source = CogSource::new(Arc::new(file))?;
            (0..=source.index().max_zoom).try_for_each(|z| {
                let [west, _, _, north] = source.index().bounds.unwrap();
                let (x, y) = bisector::terrain::pyramid::tile_xy(z, west, north);
                source.get(z, x as u32, y as u32).map(|_| ())
            })
        });
        if let Err(e) = result {
            let line = e.to_string();
            assert!(line.contains("damaged.tif") && !line.contains('\n'), "{line}");
            failures += 1;
        }
    }
    assert!(failures > 30, "only {failures} of 300 damaged files were refused");
    // Through the CLI: probe on the truncated file and on a striped file too large to read whole.
    let out = bisector(&["probe", "--terrain", s(&dir.path().join("loop.tif")), "--at", "121,24"]);
    one_error_line(&out, &["loop.tif", "loop"]);
    let striped = dir.path().join("striped.tif");
    std::fs::write(&striped, striped_header(40_000, 40_000)).unwrap();
    let out = bisector(&["probe", "--terrain", s(&striped), "--at", "121,24"]);
    one_error_line(&out, &["striped.tif", "Cloud-Optimized GeoTIFF"]);
}

/// A classic TIFF header and one IFD claiming a striped int16 raster of `width` x `height`.
fn striped_header(width: u32, height: u32) -> Vec<u8> {
    let entries: [(u16, u16, u32); 9] = [
        (256, 4, width),
        (257, 4, height),
        (258, 3, 16),
        (259, 3, 1),
        (262, 3, 1),
        (273, 4, 200),
        (277, 3, 1),
        (278, 4, height),
        (279, 4, 8),
    ];
    let mut out = b"II\x2a\x00\x08\x00\x00\x00".to_vec();
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    for (tag, kind, value) in entries {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&[0; 4]);
    out.resize(256, 0);
    out
}

fn bisector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bisector")).args(args).output().expect("run bisector")
}

fn one_error_line(out: &Output, expect: &[&str]) {
    assert!(!out.status.success(), "expected failure");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got {lines:?}");
    for e in expect {
        assert!(lines[0].contains(e), "{:?} does not mention {e:?}", lines[0]);
    }
}

/// `shot` draws a COG as the flat terrain (from the overview that fits `--max-samples`) and as
/// a planet region over ETOPO; `probe` reads it; `TerrainSpec` picks the lazy path for it.
#[test]
fn the_cli_draws_a_cog_flat_and_as_a_planet_region() {
    let dir = tempfile::tempdir().unwrap();
    let (_, level, georef) = tujunga();
    let (flat, _) = write(dir.path(), "tujunga.tif", &cog_writer::with_overviews(level, 3), georef, VARIANTS[0]);
    assert!(matches!(TerrainSpec::parse(s(&flat)).unwrap(), TerrainSpec::Pyramid(_)));
    let (level, georef) = etopo_taiwan();
    let (region, _) = write(dir.path(), "taiwan.tif", &cog_writer::with_overviews(level, 2), georef, VARIANTS[1]);
    let out = dir.path().join("flat.png");
    let run = bisector(&["shot", "--terrain", s(&flat), "--size", "64x40", "--max-samples", "129", "--out", s(&out)]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let image = image::open(&out).unwrap().to_rgba8();
    assert!(image.pixels().map(|p| p.0).collect::<std::collections::HashSet<_>>().len() > 20, "the flat shot is blank");
    let planet = format!("planet:{},{}", s(&data("etopo20_global.tif")), s(&region));
    let out = dir.path().join("globe.png");
    let camera = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-coast-ship.json");
    let run = bisector(&["shot", "--terrain", &planet, "--size", "64x40", "--camera", s(&camera), "--out", s(&out)]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let run = bisector(&["probe", "--terrain", s(&region), "--at", "121,24"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // ETOPO as a COG is the same planet's base as ETOPO read whole: the same picture.
    let etopo = geotiff::read(&data("etopo20_global.tif")).unwrap();
    let level = Level { width: etopo.width, height: etopo.height, heights: etopo.heights_m.clone() };
    let georef =
        Georef { corner: (etopo.origin.0 - 0.5 * etopo.step.0, etopo.origin.1 + 0.5 * etopo.step.1), pixel: etopo.step, epsg: 4326 };
    let (etopo_cog, _) = write(dir.path(), "etopo.tif", &cog_writer::with_overviews(level, 2), georef, VARIANTS[1]);
    let globe = |base: &Path, name: &str| {
        let out = dir.path().join(name);
        let terrain = format!("planet:{}", s(base));
        let run = bisector(&["shot", "--terrain", &terrain, "--size", "64x40", "--camera", s(&camera), "--out", s(&out)]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        image::open(&out).unwrap().to_rgba8()
    };
    assert!(globe(&etopo_cog, "base-cog.png") == globe(&data("etopo20_global.tif"), "base-whole.png"), "the COG base renders differently");
    // The bench JSON reports the decoded-tile caches: budget, peak within it, tiles decoded.
    let json = dir.path().join("bench.json");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-descent.json");
    // --cog-cache-mib and --cog-tiles-mib set the budgets of the region's file and served tiles.
    let args = [
        "bench",
        "--terrain",
        &planet,
        "--path",
        s(&path),
        "--size",
        "64x64",
        "--frames",
        "3",
        "--warmup",
        "1",
        "--json",
        s(&json),
        "--cog-cache-mib",
        "8",
        "--cog-tiles-mib",
        "4",
    ];
    let run = bisector(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let cog = &report["cog"];
    let (budget, peak) = (cog["cache_budget_bytes"].as_u64().unwrap(), cog["cache_peak_bytes"].as_u64().unwrap());
    assert_eq!(budget, 12 << 20, "{cog}");
    assert!(peak > 0 && peak <= budget && cog["tiles_decoded"].as_u64().unwrap() > 0, "{cog}");
}

/// ZSTD tiles (GDAL's COMPRESS=ZSTD, read with ruzstd) read as the same file's deflate tiles,
/// a small tiled ZSTD file without overviews too (read tile by tile: the whole-file reader has
/// no ZSTD); LERC, which bisector does not read, is one line naming the file and the compression
/// through `probe` and `tiles`, which leaves nothing.
#[test]
fn zstd_reads_as_deflate_and_lerc_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (level, georef) = etopo_taiwan();
    let deflate_options = Options { big: false, ..VARIANTS[1] };
    let zstd_options = Options { deflate: false, zstd: true, ..deflate_options };
    let (deflate, written) = write(dir.path(), "deflate.tif", &cog_writer::with_overviews(level.clone(), 2), georef, deflate_options);
    let (zstd, _) = write(dir.path(), "zstd.tif", &cog_writer::with_overviews(level.clone(), 2), georef, zstd_options);
    let (single, _) = write(dir.path(), "zstd-single.tif", std::slice::from_ref(&level), georef, zstd_options);
    assert_eq!(cog::layout(&single).unwrap(), cog::Layout::Lazy, "a ZSTD file is read tile by tile");
    assert!(matches!(TerrainSpec::parse(s(&single)).unwrap(), TerrainSpec::Pyramid(_)));
    let mut rng = rand::rng();
    for _ in 0..3 {
        let (lon, lat) = (rng.random_range(120.2..121.8), rng.random_range(22.2..25.2));
        let at = format!("--at={lon},{lat}");
        let probe = |path: &Path| {
            let out = bisector(&["probe", "--terrain", s(path), &at]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let want = probe(&deflate);
        assert!(want.parse::<f64>().is_ok(), "{want}");
        assert_eq!(probe(&zstd), want, "ZSTD at {lon}, {lat}");
        assert_eq!(probe(&single), want, "ZSTD without overviews at {lon}, {lat}");
    }
    // LERC: the deflate file with every directory's compression (tag 259, one SHORT) set to 34887.
    let entry = [0x03, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00];
    let mut lerc = written.bytes.clone();
    let at: Vec<usize> = lerc.windows(entry.len()).enumerate().filter(|(_, w)| *w == entry).map(|(i, _)| i).collect();
    assert_eq!(at.len(), 3, "one compression entry per directory");
    for i in at {
        lerc[i + 8..i + 10].copy_from_slice(&34887u16.to_le_bytes());
    }
    let lerc_path = dir.path().join("lerc.tif");
    std::fs::write(&lerc_path, &lerc).unwrap();
    assert!(error_of(&lerc_path).contains("34887 (LERC)"));
    let out = bisector(&["probe", "--terrain", s(&lerc_path), "--at", "121,24"]);
    one_error_line(&out, &["lerc.tif", "34887 (LERC)", "COMPRESS=DEFLATE"]);
    let pyramid = dir.path().join("pyramid");
    let out = bisector(&["tiles", "--from", s(&lerc_path), "--out", s(&pyramid)]);
    one_error_line(&out, &["lerc.tif", "34887 (LERC)"]);
    assert!(!pyramid.exists(), "a refused build left an output");
}

/// The memory of large GeoTIFFs: `tiles` reports the caches' peak within the budgets
/// `--cog-cache-mib` and `--cog-tiles-mib` set; a budget too small for one of a file's tiles, or
/// 0, is one line naming the flag.
#[test]
fn cog_budget_flags_bound_the_caches_and_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (level, georef) = etopo_taiwan();
    let (path, _) = write(dir.path(), "taiwan.tif", &cog_writer::with_overviews(level, 2), georef, VARIANTS[1]);
    let out = dir.path().join("pyramid");
    let run = bisector(&["tiles", "--from", s(&path), "--out", s(&out), "--max-zoom", "5", "--cog-cache-mib", "1", "--cog-tiles-mib", "2"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].contains("input Mpx/s") && lines[0].contains("tiles/s"), "{stdout}");
    assert!(lines[1].starts_with("large GeoTIFFs read tile by tile: at most ") && lines[1].contains("(budget 3 MiB"), "{stdout}");
    // One 1024 x 1024 tile of float32 is 4 MiB: more than a budget of 1 MiB holds.
    let big = Level { width: 1024, height: 1024, heights: vec![100.0; 1 << 20] };
    let big_georef = Georef { corner: (120.0, 25.0), pixel: (0.001, 0.001), epsg: 4326 };
    let options = Options { big: false, deflate: true, zstd: false, int16: false, tile_px: 1024 };
    let (big_path, _) = write(dir.path(), "big-tiles.tif", &cog_writer::with_overviews(big, 1), big_georef, options);
    let out = bisector(&["probe", "--terrain", s(&big_path), "--at", "120.5,24.5", "--cog-cache-mib", "1"]);
    one_error_line(&out, &["big-tiles.tif", "4 MiB", "--cog-cache-mib"]);
    let out = bisector(&["probe", "--terrain", s(&big_path), "--at", "120.5,24.5"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim().parse::<f64>().unwrap(), 100.0);
    for flag in ["--cog-cache-mib", "--cog-tiles-mib"] {
        let out = bisector(&["probe", "--terrain", s(&big_path), "--at", "120.5,24.5", flag, "0"]);
        one_error_line(&out, &[&format!("{flag} 0"), "1 to 1048576"]);
    }
}

/// `bisector tiles --from BIG.tif` reads a tiled file with overviews tile by tile
/// (`BuildSource::open`): its finest zoom's tiles equal those built from the file read whole,
/// each coarser zoom's those built from the overview it samples (read whole); a re-run resumes,
/// and the same name with changed contents is refused (the lazy source's hash is the file's
/// length and modification time).
#[test]
fn tiles_builds_a_cog_lazily_as_from_its_levels_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (level, georef) = etopo_taiwan();
    let (path, _) = write(dir.path(), "taiwan.tif", &cog_writer::with_overviews(level, 2), georef, VARIANTS[1]);
    let lazy = BuildSource::open(&path).unwrap();
    let cog_source = lazy.lazy.clone().expect("a tiled file with overviews is read lazily");
    assert!(lazy.raster.heights_m.is_empty(), "a lazy source holds no heights");
    // Four zooms past the file's own (3): those sample its full resolution.
    let options =
        build_tiles::BuildOptions { encoding: Encoding::TerrainRgb, min_zoom: Some(0), max_zoom: Some(7), attribution: None, threads: 2 };
    let out = dir.path().join("lazy");
    let report = build_tiles::build(
        std::slice::from_ref(&lazy),
        &build_tiles::TilesOutput::Folder(out.clone()),
        &options,
        &indicatif::ProgressBar::hidden(),
    )
    .unwrap();
    assert!(report.tiles_written > 10, "{report:?}");
    let file = CogFile::open(&path).unwrap();
    let mut compared = 0;
    for z in report.min_zoom..=report.max_zoom {
        let level = cog_source.level_for_zoom(z);
        let whole = BuildSource::whole("taiwan.tif", file.read_level(level).unwrap());
        let placed = build_tiles::place(&whole).unwrap();
        for entry in std::fs::read_dir(out.join(z.to_string())).unwrap() {
            let x_dir = entry.unwrap().path();
            let x: u32 = x_dir.file_name().unwrap().to_str().unwrap().parse().unwrap();
            for tile in std::fs::read_dir(&x_dir).unwrap() {
                let tile = tile.unwrap().path();
                let y: u32 = tile.file_stem().unwrap().to_str().unwrap().parse().unwrap();
                let want = build_tiles::tile_png(&[&placed], z, x, y, Encoding::TerrainRgb).unwrap().expect("a tile with data");
                assert!(std::fs::read(&tile).unwrap() == want, "tile {z}/{x}/{y} (level {level}) differs from the level read whole");
                compared += 1;
            }
        }
    }
    assert_eq!(compared as u64, report.tiles_written);
    // A re-run keeps every tile; the same file rewritten (another modification time) is refused.
    let again = build_tiles::build(
        std::slice::from_ref(&lazy),
        &build_tiles::TilesOutput::Folder(out.clone()),
        &options,
        &indicatif::ProgressBar::hidden(),
    )
    .unwrap();
    assert_eq!((again.tiles_kept, again.tiles_written), (report.tiles_written, 0), "{again:?}");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let changed = BuildSource::open(&path).unwrap();
    let refused = build_tiles::build(
        std::slice::from_ref(&changed),
        &build_tiles::TilesOutput::Folder(out),
        &options,
        &indicatif::ProgressBar::hidden(),
    );
    assert!(refused.is_err(), "a changed source resumed another build");
}

/// Measures the reader on a large generated file (`cargo test --test cog -- --ignored`):
/// BISECTOR_COG_MEASURE=DIR writes DIR/large.tif (30000^2 int16 samples, 512 px tiles, 4
/// overviews, BigTIFF, uncompressed (about 2.5 GB) or with BISECTOR_COG_DEFLATE set deflate) if
/// absent and keeps it; it prints the tile rates, and with BISECTOR_COG_TILES set the
/// throughput of `bisector tiles` on the file (input Mpx/s, tiles/s, cache peak).
#[test]
#[ignore]
fn measure_a_large_file() {
    let dir = std::env::var("BISECTOR_COG_MEASURE").map(PathBuf::from).unwrap_or_else(|_| std::env::temp_dir());
    let path = dir.join("large.tif");
    let options = Options { big: true, deflate: std::env::var("BISECTOR_COG_DEFLATE").is_ok(), zstd: false, int16: true, tile_px: 512 };
    let georef = Georef { corner: (120.0, 25.0), pixel: (1.0 / 3600.0, 1.0 / 3600.0), epsg: 4326 };
    if !path.exists() {
        let start = std::time::Instant::now();
        cog_writer::write_streamed(&path, 30_000, 30_000, 4, options, georef, |x, y| {
            // Smooth relief plus 4 m of hashed noise, so deflate compresses about as it does a real DEM.
            let (fx, fy) = (x as f32, y as f32);
            let noise = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)).rotate_left(13) % 5;
            (1200.0 * (fx / 900.0).sin() * (fy / 1300.0).cos() + 400.0 * (fx / 170.0 + fy / 230.0).sin()).round() + noise as f32
        });
        println!("wrote {} ({} bytes) in {:.1} s", path.display(), std::fs::metadata(&path).unwrap().len(), start.elapsed().as_secs_f64());
    }
    let budget = 64 << 20;
    let file = Arc::new(CogFile::open_with_budget(&path, budget).unwrap());
    let (across, down) = file.levels[0].tiles();
    let start = std::time::Instant::now();
    for row in 0..down {
        for col in 0..across {
            file.tile(0, col, row).unwrap();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let stats = file.stats();
    println!(
        "level 0: {} tiles of 512^2 in {seconds:.2} s: {:.0} tiles/s, {:.0} MB/s read; cache peak {} of {} bytes",
        across * down,
        (across * down) as f64 / seconds,
        stats.bytes_read as f64 / seconds / 1e6,
        stats.cache_peak_bytes,
        stats.cache_budget_bytes
    );
    let source = CogSource::new(file.clone()).unwrap();
    let max_zoom = source.index().max_zoom;
    for z in [max_zoom, max_zoom - 2, max_zoom - 5] {
        let (x0, y0) = bisector::terrain::pyramid::tile_xy(z, 121.0, 24.0);
        let start = std::time::Instant::now();
        let mut served = 0;
        for (x, y) in (0..8).flat_map(|i| (0..4).map(move |j| (x0 as u32 + i, y0 as u32 + j))) {
            served += source.tile_heights_m(z, x, y).unwrap().is_some() as u32;
        }
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "zoom {z} (level {}): {served} Web-Mercator tiles in {seconds:.2} s: {:.1} tiles/s",
            source.level_for_zoom(z),
            served as f64 / seconds
        );
    }
    println!("cache after: peak {} of {} bytes", file.stats().cache_peak_bytes, budget);
    assert!(file.stats().cache_peak_bytes <= budget);
    // With BISECTOR_COG_TILES set: `bisector tiles` on the file into a PMTiles archive, on all
    // cores; its summary gives input Mpx/s and tiles/s, and the caches' peak.
    if std::env::var("BISECTOR_COG_TILES").is_ok() {
        let out = tempfile::tempdir_in(&dir).unwrap();
        let archive = out.path().join("large.pmtiles");
        let run = bisector(&["tiles", "--from", s(&path), "--out", s(&archive), "--cog-cache-mib", "64"]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        print!("bisector tiles: {}", String::from_utf8_lossy(&run.stdout));
    }
}
