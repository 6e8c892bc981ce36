//! `bisector tiles` (src/terrain/build_tiles.rs): a pyramid built from heightmaps/etopo20_global.tif
//! reads back through the pyramid reader with the source raster's own heights (within the
//! encoding's step), ocean depths survive both encodings, the folder, MBTiles and PMTiles outputs
//! hold the same tiles, an interrupted folder build resumes to identical files, tiles without
//! data are absent, and each bad input gives one error line naming the file or option.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bisector::terrain::build_tiles::{self, BuildOptions, BuildSource, TilesOutput};
use bisector::terrain::geotiff;
use bisector::terrain::pyramid::{Encoding, TilePyramid};
use bisector::terrain::raster::{Crs, Raster};
use bisector::terrain::tile_source;
use rand::Rng;

fn data(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(name);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path
}

fn etopo() -> BuildSource {
    let path = data("etopo20_global.tif");
    BuildSource::whole(path.display().to_string(), geotiff::read(&path).unwrap())
}

fn options(encoding: Encoding, max_zoom: Option<u32>) -> BuildOptions {
    BuildOptions { encoding, min_zoom: None, max_zoom, attribution: Some("ETOPO (NOAA), public domain".into()), threads: 2 }
}

fn build(sources: &[BuildSource], out: &TilesOutput, options: &BuildOptions) -> build_tiles::BuildReport {
    build_tiles::build(sources, out, options, &indicatif::ProgressBar::hidden()).unwrap()
}

/// Latitude of the Web-Mercator row at `t` (0 north, 1 south).
fn mercator_lat(t: f64) -> f64 {
    (std::f64::consts::PI * (1.0 - 2.0 * t)).sinh().atan().to_degrees()
}

/// The encoding's quantisation: half its step.
fn half_step_m(encoding: Encoding) -> f64 {
    match encoding {
        Encoding::TerrainRgb => 0.05,
        Encoding::Terrarium => 0.5 / 256.0,
    }
}

/// Lowest and highest sample with data within `reach` samples of (lon, lat) in `raster`.
fn local_range(raster: &Raster, lon: f64, lat: f64, reach: i64) -> (f64, f64) {
    let col = ((lon - raster.origin.0) / raster.step.0).floor() as i64;
    let row = ((raster.origin.1 - lat) / raster.step.1).floor() as i64;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for r in (row - reach + 1).max(0)..=(row + reach).min(raster.height as i64 - 1) {
        for c in (col - reach + 1).max(0)..=(col + reach).min(raster.width as i64 - 1) {
            let h = raster.heights_m[(r * raster.width as i64 + c) as usize] as f64;
            if !h.is_nan() {
                (lo, hi) = (lo.min(h), hi.max(h));
            }
        }
    }
    (lo, hi)
}

#[test]
fn etopo_pyramid_reads_back_the_source_heights_in_both_encodings() {
    let mut rng = common::rng("etopo_pyramid_reads_back_the_source_heights_in_both_encodings");
    let source = etopo();
    assert_eq!(
        build_tiles::default_max_zoom(&build_tiles::place_all(std::slice::from_ref(&source)).unwrap()),
        3,
        "1/3 degree samples: zoom 3 (0.18 degree pixels)"
    );
    let dir = tempfile::tempdir().unwrap();
    for encoding in [Encoding::TerrainRgb, Encoding::Terrarium] {
        let out = dir.path().join(format!("{encoding:?}"));
        let report = build(std::slice::from_ref(&source), &TilesOutput::Folder(out.clone()), &options(encoding, None));
        assert_eq!((report.min_zoom, report.max_zoom, report.tiles_written, report.tiles_empty), (0, 3, 85, 0));
        let pyramid = TilePyramid::open(&out).unwrap();
        assert_eq!(pyramid.encoding, encoding);
        let raster = &source.raster;
        let (mut negative, n) = (0, 256.0 * 8.0);
        // Pixel centres of the finest zoom: exactly the source's bilinear sample there.
        for _ in 0..400 {
            let (px, py) = (rng.random_range(0..2048u32), rng.random_range(0..2048u32));
            let (lon, lat) = ((px as f64 + 0.5) / n * 360.0 - 180.0, mercator_lat((py as f64 + 0.5) / n));
            let want = raster.sample_m(lon, lat).unwrap() as f64;
            let got = pyramid.sample_m(lon, lat).unwrap().unwrap() as f64;
            assert!((got - want).abs() <= half_step_m(encoding) + 1e-3, "{encoding:?} at {lon}, {lat}: {got} m, source {want} m");
            negative += (want < 0.0) as u32;
        }
        assert!(negative > 100, "most of the Earth is ocean: only {negative} of 400 points below sea level");
        // Anywhere: between the pyramid's pixels the heights stay within the source samples
        // around the point (bilinear of bilinear samples), plus the step.
        for _ in 0..400 {
            let (lon, lat) = (rng.random_range(-179.0..179.0), rng.random_range(-84.0..84.0));
            let got = pyramid.sample_m(lon, lat).unwrap().unwrap() as f64;
            let (lo, hi) = local_range(raster, lon, lat, 2);
            let slack = half_step_m(encoding) + 1e-3;
            assert!(got >= lo - slack && got <= hi + slack, "{encoding:?} at {lon}, {lat}: {got} m outside the source's {lo}..{hi} m");
        }
        // The Pacific at 0N 150W (about -4181 m) and the Mariana Trench's sample keep their depth.
        let pacific = pyramid.sample_m(-150.0, 0.0).unwrap().unwrap();
        assert!((-4300.0..-4000.0).contains(&pacific), "{encoding:?}: Pacific {pacific} m");
    }
}

#[test]
fn utm_pyramid_reads_back_the_source_heights() {
    let mut rng = common::rng("utm_pyramid_reads_back_the_source_heights");
    let path = data("bigtujunga.tif");
    let source = BuildSource::whole(path.display().to_string(), geotiff::read(&path).unwrap());
    assert_eq!(source.raster.crs, Crs::Projected { epsg: 32611 });
    let placed = build_tiles::place_all(std::slice::from_ref(&source)).unwrap();
    // The catchment, in the San Gabriel Mountains north of Los Angeles.
    let [west, south, east, north] = placed[0].bounds;
    assert!(west > -118.5 && east < -117.9 && south > 34.1 && north < 34.5 && east - west > 0.3, "{:?}", placed[0].bounds);
    // 30 m posts at 34.3 N are 0.00033 degrees of longitude; zoom 13's pixels are 0.00017.
    assert_eq!(build_tiles::default_max_zoom(&placed), 13);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tujunga.pmtiles");
    let report = build(std::slice::from_ref(&source), &TilesOutput::PmTiles(out.clone()), &options(Encoding::TerrainRgb, None));
    assert_eq!(report.max_zoom, 13);
    let pyramid = TilePyramid::open(&out).unwrap();
    let utm = bisector::terrain::projection::Projection::for_epsg(32611).unwrap();
    let n = 256.0 * 8192.0;
    let (mut checked, mut lo, mut hi) = (0, f64::INFINITY, f64::NEG_INFINITY);
    while checked < 300 {
        let (lon, lat) = (rng.random_range(west..east), rng.random_range(south..north));
        let (tx, ty) = bisector::terrain::pyramid::tile_xy(13, lon, lat);
        // The centre of the zoom-13 pixel there.
        let (px, py) = ((tx * 256.0).floor(), (ty * 256.0).floor());
        let (lon, lat) = ((px + 0.5) / n * 360.0 - 180.0, mercator_lat((py + 0.5) / n));
        let (x, y) = utm.to_crs(lon, lat).unwrap();
        let Some(want) = source.raster.sample_m(x, y) else { continue };
        let got = pyramid.sample_m(lon, lat).unwrap().unwrap() as f64;
        assert!((got - want as f64).abs() <= 0.05 + 1e-3, "at {lon}, {lat} (UTM {x}, {y}): {got} m, source {want} m");
        (lo, hi, checked) = (lo.min(got), hi.max(got), checked + 1);
    }
    // The README's known range: 315 to 2295 m.
    assert!(lo >= 314.0 && hi <= 2296.0 && hi - lo > 800.0, "{lo}..{hi} m");
}

/// Every file under `dir` by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn folder_mbtiles_and_pmtiles_hold_the_same_tiles_and_the_attribution() {
    let source = [etopo()];
    let dir = tempfile::tempdir().unwrap();
    let outputs = [
        TilesOutput::Folder(dir.path().join("etopo")),
        TilesOutput::MbTiles(dir.path().join("etopo.mbtiles")),
        TilesOutput::PmTiles(dir.path().join("etopo.pmtiles")),
    ];
    for out in &outputs {
        let report = build(&source, out, &options(Encoding::Terrarium, Some(2)));
        assert_eq!(report.tiles_written, 21);
    }
    let opened: Vec<_> = outputs.iter().map(|o| tile_source::open(o.path()).unwrap()).collect();
    for z in 0..=2 {
        for x in 0..1 << z {
            for y in 0..1 << z {
                let folder = opened[0].get(z, x, y).unwrap().expect("every tile of a global source is present");
                for archive in &opened[1..] {
                    assert_eq!(archive.get(z, x, y).unwrap().as_ref(), Some(&folder), "{} tile {z}/{x}/{y}", archive.name());
                }
            }
        }
    }
    for source in &opened {
        assert_eq!(source.index().encoding, Encoding::Terrarium, "{}", source.name());
        assert_eq!((source.index().min_zoom, source.index().max_zoom), (0, 2), "{}", source.name());
    }
    let tilejson = std::fs::read_to_string(outputs[0].path().join("tiles.json")).unwrap();
    let mbtiles = rusqlite::Connection::open(outputs[1].path()).unwrap();
    let attribution: String = mbtiles.query_row("SELECT value FROM metadata WHERE name = 'attribution'", [], |row| row.get(0)).unwrap();
    let description: String = mbtiles.query_row("SELECT value FROM metadata WHERE name = 'description'", [], |row| row.get(0)).unwrap();
    let pmtiles = std::fs::read(outputs[2].path()).unwrap();
    let header = bisector::terrain::pmtiles::Header::parse(&pmtiles).unwrap();
    let gz = &pmtiles[header.metadata_offset as usize..(header.metadata_offset + header.metadata_length) as usize];
    let mut metadata = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(gz), &mut metadata).unwrap();
    for text in [&tilejson, &attribution, &metadata] {
        assert!(text.contains("ETOPO (NOAA), public domain"), "attribution missing from {text}");
    }
    for text in [&tilejson, &description, &metadata] {
        assert!(text.contains("etopo20_global.tif"), "source missing from {text}");
    }
}

#[test]
fn an_interrupted_folder_build_resumes_to_identical_files() {
    let source = [etopo()];
    let dir = tempfile::tempdir().unwrap();
    let out = TilesOutput::Folder(dir.path().join("etopo"));
    let opts = options(Encoding::TerrainRgb, Some(2));
    build(&source, &out, &opts);
    let whole = files(out.path());
    assert_eq!(whole.len(), 22, "21 tiles and tiles.json");
    // An interruption: tiles never written, one cut short (a file copied by something else).
    std::fs::remove_file(out.path().join("2/1/3.png")).unwrap();
    std::fs::remove_file(out.path().join("2/3/0.png")).unwrap();
    std::fs::remove_dir_all(out.path().join("1")).unwrap();
    let cut = out.path().join("0/0/0.png");
    std::fs::write(&cut, &whole[Path::new("0/0/0.png")][..500]).unwrap();
    // And the temporary file of a tile being written when the process was killed.
    std::fs::write(out.path().join("2/3/.bisector-AbC123.tmp"), &whole[Path::new("2/3/0.png")][..700]).unwrap();
    let report = build(&source, &out, &opts);
    assert_eq!((report.tiles_written, report.tiles_kept), (7, 14), "2 + 4 missing tiles and 1 broken one written again");
    assert!(files(out.path()) == whole, "the resumed folder differs from the whole build");
    // Another command's output is not resumed over, and is left as it was.
    let other = build_tiles::build(&source, &out, &options(Encoding::Terrarium, Some(2)), &indicatif::ProgressBar::hidden());
    let message = other.unwrap_err().to_string();
    assert!(message.contains("not a previous run"), "{message}");
    assert!(files(out.path()) == whole);
}

#[test]
fn tiles_without_data_are_absent_and_the_finest_source_wins() {
    // 0..10 E, 0..10 N at 0.01 degrees; no data west of 5 E. Zoom 7 tiles are 2.8125 degrees wide:
    // x = 64 (0..2.8 E) has no data, x = 65 (2.8..5.6 E) some.
    let (width, height) = (1001u32, 1001u32);
    let mut heights_m = Vec::with_capacity((width * height) as usize);
    for _row in 0..height {
        for col in 0..width {
            heights_m.push(if col < 500 { f32::NAN } else { -20.0 + col as f32 * 0.01 });
        }
    }
    let coarse = Raster { width, height, heights_m, origin: (0.0, 10.0), step: (0.01, 0.01), crs: Crs::Geographic };
    // A finer source over part of it, 1000 m everywhere.
    let fine = Raster {
        width: 101,
        height: 101,
        heights_m: vec![1000.0; 101 * 101],
        origin: (8.0, 9.0),
        step: (0.005, 0.005),
        crs: Crs::Geographic,
    };
    let sources = [BuildSource::whole("fine.tif", fine), BuildSource::whole("coarse.tif", coarse)];
    assert_eq!(
        build_tiles::default_max_zoom(&build_tiles::place_all(&sources).unwrap()),
        9,
        "0.005 degree samples: zoom 9 (0.0027 degree pixels)"
    );
    let dir = tempfile::tempdir().unwrap();
    for encoding in [Encoding::TerrainRgb, Encoding::Terrarium] {
        let out = TilesOutput::MbTiles(dir.path().join(format!("{encoding:?}.mbtiles")));
        let report = build(&sources, &out, &options(encoding, Some(7)));
        assert!(report.tiles_empty >= 4, "{report:?}");
        let archive = tile_source::open(out.path()).unwrap();
        let (x, y) = bisector::terrain::pyramid::tile_xy(7, 1.0, 5.0);
        assert_eq!(archive.get(7, x as u32, y as u32).unwrap(), None, "{encoding:?}: a tile without data is absent");
        let (x, y) = bisector::terrain::pyramid::tile_xy(7, 4.0, 5.0);
        assert!(archive.get(7, x as u32, y as u32).unwrap().is_some(), "{encoding:?}: a tile with some data is present");
        let pyramid = TilePyramid::open(out.path()).unwrap();
        let nodata = pyramid.sample_up_to_zoom_m(3.5, 5.0, 7).unwrap();
        match encoding {
            Encoding::TerrainRgb => assert_eq!(nodata, None, "Terrain-RGB's nodata pixel"),
            Encoding::Terrarium => assert_eq!(nodata, Some(0.0), "Terrarium has no nodata: 0 m"),
        }
        let at = |lon: f64, lat: f64| pyramid.sample_up_to_zoom_m(lon, lat, 7).unwrap().unwrap() as f64;
        // The coarse source's -20 + col * 0.01 m, negative, at 6.5 E: -13.5 m.
        assert!((at(6.5, 5.0) + 13.5).abs() <= 0.01 + half_step_m(encoding), "{encoding:?}: {}", at(6.5, 5.0));
        assert!((at(8.2, 8.8) - 1000.0).abs() <= half_step_m(encoding), "{encoding:?}: the finer source wins: {}", at(8.2, 8.8));
    }
}

#[test]
fn a_raster_in_longitudes_0_to_360_covers_the_western_hemisphere() {
    // One-degree samples from 0.5 E eastwards to 359.5 E, each as high as its longitude.
    let (width, height) = (360u32, 170u32);
    let heights_m = (0..height).flat_map(|_| (0..width).map(|col| col as f32 + 0.5)).collect();
    let raster = Raster { width, height, heights_m, origin: (0.5, 84.5), step: (1.0, 1.0), crs: Crs::Geographic };
    let sources = [BuildSource::whole("east.tif", raster)];
    let dir = tempfile::tempdir().unwrap();
    let out = TilesOutput::Folder(dir.path().join("east"));
    let report = build(&sources, &out, &options(Encoding::Terrarium, Some(2)));
    assert_eq!(report.tiles_written, 21, "the whole world: {report:?}");
    let pyramid = TilePyramid::open(out.path()).unwrap();
    for (lon, want) in [(90.0, 90.0), (-90.0, 270.0), (-150.25, 209.75)] {
        let got = pyramid.sample_m(lon, 10.0).unwrap().unwrap() as f64;
        assert!((got - want).abs() < 0.01, "at {lon} E: {got} m, want {want} m");
    }
}

fn bisector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bisector")).args(args).output().expect("run bisector")
}

/// Runs `bisector tiles` with `args`; asserts it failed with one line naming `names`.
fn refused(args: &[&str], names: &[&str]) {
    let out = bisector(&[&["tiles"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: not one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for name in names {
        assert!(stderr.contains(name), "{args:?}: '{stderr}' does not name {name}");
    }
}

#[test]
fn bad_input_gives_one_line_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let etopo = s(&data("etopo20_global.tif"));
    let out = s(&dir.path().join("out"));
    refused(&["--from", "no-such.tif", "--out", &out], &["no-such.tif", "no such file"]);
    refused(&["--from", &s(&data("README.md")), "--out", &out], &["README.md", "TIFF"]);
    // Big Tujunga with its EPSG code (32611, UTM 11N) changed to 32767 ("user-defined"): no projection.
    let bytes = std::fs::read(data("bigtujunga.tif")).unwrap();
    let key = [0x00, 0x0c, 0x00, 0x00, 0x01, 0x00, 0x63, 0x7f];
    let at = bytes.windows(8).position(|w| w == key).expect("the ProjectedCSTypeGeoKey of EPSG:32611");
    let mut unknown = bytes.clone();
    unknown[at + 6..at + 8].copy_from_slice(&32767u16.to_le_bytes());
    let unknown_path = dir.path().join("unknown-crs.tif");
    std::fs::write(&unknown_path, unknown).unwrap();
    refused(&["--from", &s(&unknown_path), "--out", &out], &["unknown-crs.tif", "EPSG:32767", "reproject"]);
    refused(&["--from", &etopo, "--out", &out, "--max-zoom", "23"], &["--max-zoom 23"]);
    refused(&["--from", &etopo, "--out", &out, "--max-zoom", "2", "--min-zoom", "3"], &["--min-zoom 3", "--max-zoom 2"]);
    refused(&["--from", &etopo, "--out", &etopo], &["--out", "etopo20_global.tif", "input"]);
    refused(&["--from", &etopo, "--out", &out, "--encoding", "png"], &["--encoding", "png"]);
    assert!(!dir.path().join("out").exists(), "a refused build left an output");
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("keep.txt"), "mine").unwrap();
    refused(&["--from", &etopo, "--out", &s(&full), "--max-zoom", "1"], &["full", "not empty"]);
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1);
    let archive = dir.path().join("old.pmtiles");
    std::fs::write(&archive, "mine").unwrap();
    refused(&["--from", &etopo, "--out", &s(&archive), "--max-zoom", "1"], &["old.pmtiles", "already exists"]);
    assert_eq!(std::fs::read_to_string(&archive).unwrap(), "mine");
    // And a good run: `probe` on the built archive equals `probe` on the geographic GeoTIFF at
    // pixel centres of the finest zoom (3) within Terrarium's half step and probe's 2 decimals,
    // the Pacific's depth included.
    let built = dir.path().join("etopo.pmtiles");
    let run = bisector(&["tiles", "--from", &etopo, "--out", &s(&built), "--encoding", "terrarium"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let probe = |terrain: &str, at: &str| {
        let out = bisector(&["probe", "--terrain", terrain, &format!("--at={at}")]);
        String::from_utf8_lossy(&out.stdout).trim().parse::<f64>().unwrap_or_else(|_| panic!("probe {terrain} {at}: {out:?}"))
    };
    let mut rng = common::rng("bad_input_gives_one_line_and_changes_nothing");
    let n = 256.0 * 8.0;
    let pacific = (((-150.0 + 180.0) / 360.0 * n) as u32, (n / 2.0) as u32);
    let mut negative = 0;
    for (px, py) in std::iter::once(pacific).chain((0..5).map(|_| (rng.random_range(0..2048u32), rng.random_range(300..1748u32)))) {
        let (lon, lat) = ((px as f64 + 0.5) / n * 360.0 - 180.0, mercator_lat((py as f64 + 0.5) / n));
        let at = format!("{lon},{lat}");
        let (pyramid_m, source_m) = (probe(&s(&built), &at), probe(&etopo, &at));
        assert!(
            (pyramid_m - source_m).abs() <= half_step_m(Encoding::Terrarium) + 0.01,
            "at {at}: pyramid {pyramid_m} m, source {source_m} m"
        );
        negative += (source_m < 0.0) as u32;
    }
    assert!(negative >= 1, "no point below sea level");
}

#[test]
fn a_killed_command_resumes_to_the_files_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let tujunga = data("bigtujunga.tif");
    // The same folder name (tiles.json's name) in two places.
    let (killed, whole) = (dir.path().join("killed/tujunga"), dir.path().join("whole/tujunga"));
    let args = |out: &Path| -> Vec<String> {
        ["tiles", "--from", tujunga.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "2"].map(String::from).to_vec()
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_bisector")).args(args(&killed)).spawn().unwrap();
    // Killed (SIGKILL: no clean-up) once it has written some tiles.
    let start = std::time::Instant::now();
    // Counted while the command writes: files come and go (temporary ones), errors are skipped.
    let tiles_in = |dir: &Path| -> usize {
        let list = |p: &Path| std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| e.path()).collect::<Vec<_>>();
        list(dir).iter().flat_map(|z| list(z)).flat_map(|x| list(&x)).filter(|p| p.extension().is_some_and(|e| e == "png")).count()
    };
    while tiles_in(&killed) < 20 {
        assert!(start.elapsed().as_secs() < 120, "no tiles after two minutes");
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    let interrupted = child.wait().unwrap();
    let resumed = bisector(&args(&killed).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let summary = String::from_utf8_lossy(&resumed.stdout);
    if !interrupted.success() {
        assert!(!summary.contains(" 0 kept"), "the resumed run kept no tiles: {summary}");
    }
    assert!(bisector(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>()).status.success());
    assert!(files(&killed) == files(&whole), "the resumed build differs from an uninterrupted one ({summary})");
    // `probe` on the pyramid at a zoom-13 pixel centre equals `probe` on the UTM GeoTIFF at the
    // same place (its UTM coordinates) within Terrain-RGB's half step and probe's 2 decimals.
    let utm = bisector::terrain::projection::Projection::for_epsg(32611).unwrap();
    let n = 256.0 * 8192.0;
    let probe = |terrain: &Path, at: String| {
        let out = bisector(&["probe", "--terrain", terrain.to_str().unwrap(), &format!("--at={at}")]);
        String::from_utf8_lossy(&out.stdout).trim().parse::<f64>().unwrap_or_else(|_| panic!("probe {at}: {out:?}"))
    };
    for (px, py) in [(360_011.0, 835_634.0), (360_593.0, 835_986.0)] {
        let (lon, lat) = ((px + 0.5) / n * 360.0 - 180.0, mercator_lat((py + 0.5) / n));
        let (x, y) = utm.to_crs(lon, lat).unwrap();
        let (pyramid_m, source_m) = (probe(&whole, format!("{lon},{lat}")), probe(&tujunga, format!("{x},{y}")));
        assert!((pyramid_m - source_m).abs() <= 0.05 + 0.01, "at {lon}, {lat}: pyramid {pyramid_m} m, source {source_m} m");
    }
}

/// Tiles in the partial file of an archive being built (0 while it cannot be read).
fn partial_tiles(partial: &Path) -> u64 {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    rusqlite::Connection::open_with_flags(partial, flags)
        .and_then(|c| c.query_row("SELECT count(*) FROM tiles", [], |row| row.get::<_, i64>(0)))
        .map_or(0, |n| n as u64)
}

#[test]
fn a_killed_archive_build_resumes_to_the_archive_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let tujunga = data("bigtujunga.tif");
    let args = |out: &Path, encoding: &str| -> Vec<String> {
        ["tiles", "--from", tujunga.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "2", "--encoding", encoding]
            .map(String::from)
            .to_vec()
    };
    let run = |args: &[String]| bisector(&args.iter().map(String::as_str).collect::<Vec<_>>());
    for name in ["tujunga.pmtiles", "tujunga.mbtiles"] {
        // The same file name in two places (the archive's metadata names it).
        let (killed, whole) = (dir.path().join("killed").join(name), dir.path().join("whole").join(name));
        std::fs::create_dir_all(killed.parent().unwrap()).unwrap();
        std::fs::create_dir_all(whole.parent().unwrap()).unwrap();
        let partial = bisector::terrain::partial_archive::partial_path(&killed);
        let mut child = Command::new(env!("CARGO_BIN_EXE_bisector")).args(args(&killed, "terrain-rgb")).spawn().unwrap();
        let start = std::time::Instant::now();
        while partial_tiles(&partial) < 20 {
            assert!(start.elapsed().as_secs() < 120, "{name}: no tiles after two minutes");
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child.kill().unwrap();
        let interrupted = !child.wait().unwrap().success();
        if interrupted {
            assert!(!killed.exists(), "{name}: a killed build left an archive");
            assert!(partial.exists(), "{name}: a killed build left no partial file");
            // Another command is refused and leaves the partial build as it was.
            let before = partial_tiles(&partial);
            let out = run(&args(&killed, "terrarium"));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success() && stderr.trim_end().lines().count() == 1, "{stderr}");
            assert!(stderr.contains(&format!("{name}.partial")) && stderr.contains("not the interrupted build"), "{stderr}");
            assert_eq!(partial_tiles(&partial), before);
            // A tile spoilt in the partial file is built again.
            let connection = rusqlite::Connection::open(&partial).unwrap();
            let spoilt = connection
                .execute("UPDATE tiles SET png = x'89504e47' WHERE rowid = (SELECT min(rowid) FROM tiles WHERE png IS NOT NULL)", []);
            assert_eq!(spoilt.unwrap(), 1);
            drop(connection);
        }
        let resumed = run(&args(&killed, "terrain-rgb"));
        assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
        let summary = String::from_utf8_lossy(&resumed.stdout);
        if interrupted {
            assert!(!summary.contains(" 0 kept"), "{name}: the resumed run kept no tiles: {summary}");
        }
        assert!(!partial.exists(), "{name}: the partial file outlived the build");
        assert!(run(&args(&whole, "terrain-rgb")).status.success());
        let (a, b) = (tile_source::open(&killed).unwrap(), tile_source::open(&whole).unwrap());
        assert_eq!(a.index(), b.index());
        let mut compared = 0;
        for z in a.index().min_zoom..=a.index().max_zoom.min(11) {
            let (x0, y0) = bisector::terrain::pyramid::tile_xy(z, -118.5, 34.5);
            let (x1, y1) = bisector::terrain::pyramid::tile_xy(z, -117.9, 34.1);
            for x in x0 as u32..=x1 as u32 {
                for y in y0 as u32..=y1 as u32 {
                    assert_eq!(a.get(z, x, y).unwrap(), b.get(z, x, y).unwrap(), "{name} tile {z}/{x}/{y}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 30, "{compared}");
        if name.ends_with(".pmtiles") {
            assert!(
                std::fs::read(&killed).unwrap() == std::fs::read(&whole).unwrap(),
                "the resumed PMTiles differs from an uninterrupted one"
            );
        }
    }
}
