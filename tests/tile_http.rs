//! Tile pyramids over HTTP from an in-process server (tiny_http) that serves the test pyramid
//! (heightmaps/taiwan-terrain-rgb) and misbehaves on purpose: 404, 204, 500 then success, responses
//! slower than the timeout, truncated PNGs, a wrong content type, dropped connections. Each ends
//! as nodata or a retried success, counted, without a panic or a stall; the flat terrain renders
//! (flat, and the globe with the server as a region) from the server as from the folder, and a second run with `--offline` from the disk cache alone.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bisector::terrain::http_source::{self, HttpOptions, HttpSource};
use bisector::terrain::pyramid::TilePyramid;

fn data(relative: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path
}

/// A server on 127.0.0.1 in threads of its own; `/MODE/...` serves heightmaps/taiwan-terrain-rgb/...
/// as MODE says. Requests are counted by path.
struct Server {
    port: u16,
    requests: Arc<Mutex<HashMap<String, u32>>>,
}

impl Server {
    fn start() -> Server {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").unwrap());
        let port = server.server_addr().to_ip().unwrap().port();
        let requests = Arc::new(Mutex::new(HashMap::new()));
        let counts = requests.clone();
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let counts = counts.clone();
                std::thread::spawn(move || answer(request, &counts));
            }
        });
        Server { port, requests }
    }

    fn url(&self, mode: &str, rest: &str) -> String {
        format!("http://127.0.0.1:{}/{mode}/{rest}", self.port)
    }

    fn count(&self, prefix: &str) -> u32 {
        self.requests.lock().unwrap().iter().filter(|(k, _)| k.starts_with(prefix)).map(|(_, v)| v).sum()
    }
}

fn answer(request: tiny_http::Request, counts: &Mutex<HashMap<String, u32>>) {
    let url = request.url().to_string();
    let seen = {
        let mut counts = counts.lock().unwrap();
        let n = counts.entry(url.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let (mode, rest) = url.trim_start_matches('/').split_once('/').unwrap_or(("", ""));
    let mut file = data("taiwan-terrain-rgb").join(rest);
    // TMS rows (y grows northwards): the XYZ file of the flipped row.
    if let ("tms", [z, x, y]) = (mode, rest.trim_end_matches(".png").split('/').collect::<Vec<_>>().as_slice()) {
        if let (Ok(z), Ok(y)) = (z.parse::<u32>(), y.parse::<u32>()) {
            file = data("taiwan-terrain-rgb").join(format!("{z}/{x}/{}.png", ((1u64 << z) - 1).saturating_sub(y as u64)));
        }
    }
    let png =
        |bytes: Vec<u8>| tiny_http::Response::from_data(bytes).with_header("Content-Type: image/png".parse::<tiny_http::Header>().unwrap());
    let Ok(bytes) = std::fs::read(&file) else {
        let _ = request.respond(tiny_http::Response::empty(404));
        return;
    };
    let is_tile = rest.ends_with(".png");
    let _ = match mode {
        "ok" => request.respond(png(bytes)),
        // Each tile: 500 the first time, then the tile.
        "flaky" if is_tile && seen == 1 => request.respond(tiny_http::Response::empty(500)),
        "flaky" => request.respond(png(bytes)),
        // Each tile: later than the client waits.
        "slow" if is_tile => {
            std::thread::sleep(Duration::from_millis(1500));
            request.respond(png(bytes))
        }
        // Each tile: half a PNG, every time.
        "cut" if is_tile => request.respond(png(bytes[..bytes.len() / 2].to_vec())),
        // Each tile: 204 No Content (no tile here).
        "empty" if is_tile => request.respond(tiny_http::Response::empty(204)),
        // Each tile: a web page's content type.
        "html" if is_tile => request
            .respond(tiny_http::Response::from_data(bytes).with_header("Content-Type: text/html".parse::<tiny_http::Header>().unwrap())),
        // Each tile: the connection dropped mid-body the first time, then the tile.
        "drop" if is_tile && seen == 1 => {
            let mut writer = request.into_writer();
            let _ = writer.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n\x89PNG");
            let _ = writer.flush();
            Ok(())
        }
        _ => request.respond(png(bytes)),
    };
}

fn options(cache: &Path) -> HttpOptions {
    HttpOptions {
        cache_dir: Some(cache.to_path_buf()),
        timeout: Duration::from_millis(500),
        retries: 2,
        backoff: Duration::from_millis(20),
        ..HttpOptions::default()
    }
}

const POINTS: [(f64, f64); 5] = [(120.9572, 23.47), (121.25, 24.38), (120.3, 22.7), (121.8, 23.5), (121.0, 25.2)];

fn heights(pyramid: &TilePyramid) -> Vec<Option<u32>> {
    POINTS.iter().map(|&(lon, lat)| pyramid.sample_m(lon, lat).unwrap().map(f32::to_bits)).collect()
}

fn open(url: &str, options: HttpOptions) -> TilePyramid {
    TilePyramid::from_source(Box::new(HttpSource::open_with(url, options).unwrap())).unwrap()
}

#[test]
fn a_server_samples_as_the_folder_and_offline_from_the_cache() {
    let server = Server::start();
    let cache = tempfile::tempdir().unwrap();
    let folder = heights(&TilePyramid::open(&data("taiwan-terrain-rgb")).unwrap());
    assert!(folder.iter().filter(|h| h.is_some()).count() >= 4, "{folder:?}");
    let tilejson = open(&server.url("ok", "tiles.json"), options(cache.path()));
    assert_eq!(heights(&tilejson), folder, "from the TileJSON URL");
    let template = open(&server.url("ok", "{z}/{x}/{y}.png"), options(cache.path()));
    assert_eq!(heights(&template), folder, "from the URL template");
    let tms = open(&server.url("tms", "{z}/{x}/{-y}.png"), options(cache.path()));
    assert_eq!(heights(&tms), folder, "from a TMS template with {{-y}}");
    assert!(server.count("/tms/") > 0);
    let before = server.count("/ok/");
    let offline = HttpOptions { offline: true, ..options(cache.path()) };
    let cached = open(&server.url("ok", "tiles.json"), offline.clone());
    assert_eq!(heights(&cached), folder, "offline, from the disk cache");
    assert_eq!(server.count("/ok/"), before, "offline sent requests");
    // Offline with an empty cache: the TileJSON is one error line; a template reads nothing.
    let empty = tempfile::tempdir().unwrap();
    let error = HttpSource::open_with(&server.url("ok", "tiles.json"), HttpOptions { offline: true, ..options(empty.path()) })
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("tiles.json") && error.contains("--offline"), "{error}");
    let misses = http_source::stats().offline_misses;
    let nothing = open(&server.url("ok", "{z}/{x}/{y}.png"), HttpOptions { offline: true, ..options(empty.path()) });
    assert_eq!(nothing.sample_m(120.9572, 23.47).unwrap(), None);
    assert!(http_source::stats().offline_misses > misses);
}

#[test]
fn misbehaving_servers_end_as_nodata_or_retried_successes() {
    let server = Server::start();
    let folder = heights(&TilePyramid::open(&data("taiwan-terrain-rgb")).unwrap());
    // 500 then success, and a dropped connection then success: retried, the same heights.
    for mode in ["flaky", "drop"] {
        let cache = tempfile::tempdir().unwrap();
        let retries = http_source::stats().retries;
        let pyramid = open(&server.url(mode, "tiles.json"), options(cache.path()));
        assert_eq!(heights(&pyramid), folder, "{mode}");
        assert!(http_source::stats().retries > retries, "{mode}: no retry counted");
    }
    // Slower than the timeout, half a PNG, a web page: given up, counted, read as missing;
    // never a stall: each tile costs at most (retries + 1) timeouts plus the back-offs.
    for mode in ["slow", "cut", "html"] {
        let cache = tempfile::tempdir().unwrap();
        let start = Instant::now();
        let pyramid = open(&server.url(mode, "tiles.json"), options(cache.path()));
        let height = pyramid.sample_m(120.9572, 23.47).unwrap();
        assert_eq!(height, None, "{mode}");
        // Not kept as missing: asked again, and given up again.
        let requests = server.count(&format!("/{mode}/"));
        assert_eq!(pyramid.sample_m(120.9572, 23.47).unwrap(), None, "{mode}");
        assert!(server.count(&format!("/{mode}/")) > requests, "{mode}: the failed tile was not asked for again");
        assert!(start.elapsed() < Duration::from_secs(60), "{mode} took {:?}", start.elapsed());
        // What failed is not cached: a later run asks again.
        assert_eq!(cached_tiles(cache.path()), 0, "{mode}");
    }
    // 404 everywhere, and 204 everywhere: no tiles is all nodata, not an error nor a failure.
    for (mode, rest) in [("ok", "nothing/{z}/{x}/{y}.png"), ("empty", "{z}/{x}/{y}.png")] {
        let cache = tempfile::tempdir().unwrap();
        let source = HttpSource::open_with(&server.url(mode, rest), options(cache.path())).unwrap();
        let no_tile = http_source::stats().no_tile;
        assert_eq!(bisector::terrain::tile_source::TileSource::get(&source, 7, 106, 55).unwrap(), None, "{mode}");
        assert_eq!(source.failure_count(), 0, "{mode}");
        assert!(http_source::stats().no_tile > no_tile, "{mode}");
        let pyramid = TilePyramid::from_source(Box::new(source)).unwrap();
        assert_eq!(pyramid.sample_m(120.9572, 23.47).unwrap(), None, "{mode}");
    }
}

/// Tiles in a disk cache folder.
fn cached_tiles(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        n += if path.is_dir() { cached_tiles(&path) } else { usize::from(path.extension().is_some_and(|e| e == "tile")) };
    }
    n
}

#[test]
fn failures_are_counted_per_source_and_tried_three_times() {
    use bisector::terrain::tile_source::TileSource;
    let server = Server::start();
    let cache = tempfile::tempdir().unwrap();
    let source = HttpSource::open_with(&server.url("cut", "tiles.json"), options(cache.path())).unwrap();
    let error = source.get(7, 106, 55).unwrap_err().to_string();
    assert!(error.contains("/cut/7/106/55.png") && error.contains("3 tries"), "{error}");
    assert_eq!(source.failure_count(), 1);
    assert_eq!(server.count("/cut/7/106/55.png"), 3, "retries 2: three tries of a cut PNG");
    // A good tile, then the same from the disk cache without a request.
    let source = HttpSource::open_with(&server.url("ok", "tiles.json"), options(cache.path())).unwrap();
    let tile = source.get(7, 106, 55).unwrap().expect("a tile");
    assert_eq!(tile, std::fs::read(data("taiwan-terrain-rgb/7/106/55.png")).unwrap());
    assert_eq!(source.get(7, 106, 55).unwrap(), Some(tile));
    assert_eq!(server.count("/ok/7/106/55.png"), 1);
    assert_eq!(cached_tiles(cache.path()), 1);
}

fn bisector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bisector")).args(args).output().expect("run bisector")
}

fn shot(terrain: &str, out: &Path, extra: &[&str]) -> image::RgbaImage {
    let mut args = vec!["shot", "--terrain", terrain, "--size", "64x40", "--max-samples", "513", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let result = bisector(&args);
    assert!(result.status.success(), "{terrain}: {}", String::from_utf8_lossy(&result.stderr));
    image::open(out).unwrap().to_rgba8()
}

#[test]
fn the_cli_renders_from_a_server_then_offline_as_from_the_folder() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let folder = shot(data("taiwan-terrain-rgb").to_str().unwrap(), &dir.path().join("folder.png"), &[]);
    let url = server.url("ok", "tiles.json");
    let cache_flag = ["--tile-cache-dir", cache.to_str().unwrap()];
    let online = shot(&url, &dir.path().join("online.png"), &cache_flag);
    assert!(online == folder, "the server's render differs from the folder's");
    let requests = server.count("/ok/");
    let mut offline_flags = cache_flag.to_vec();
    offline_flags.push("--offline");
    let offline = shot(&url, &dir.path().join("offline.png"), &offline_flags);
    assert!(offline == folder, "the offline render differs from the folder's");
    assert_eq!(server.count("/ok/"), requests, "--offline sent requests");
    // The globe with the server as a planet region, as with the folder (the Taiwan coast view).
    let camera = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-coast-ship.json");
    let planet = |region: &str| format!("planet:{},{region}", data("etopo20_global.tif").display());
    let camera_flag = ["--camera", camera.to_str().unwrap(), "--tile-cache-dir", cache.to_str().unwrap()];
    let folder = shot(&planet(data("taiwan-terrain-rgb").to_str().unwrap()), &dir.path().join("globe-folder.png"), &camera_flag);
    let online = shot(&planet(&url), &dir.path().join("globe-online.png"), &camera_flag);
    assert!(online == folder, "the planet with the server as a region renders differently from the folder's");
    // A server that never gives a good tile: nodata, a warning naming the first tile and a note
    // with the counts, exit 0.
    let out = bisector(&[
        "probe",
        "--terrain",
        &server.url("cut", "tiles.json"),
        "--at=120.9572,23.47",
        "--tile-cache-dir",
        cache.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "nodata");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("warning: ") && lines[0].contains("/cut/") && lines[0].contains("4 tries"), "{lines:?}");
    assert!(lines[1].starts_with("note: tiles over HTTP: ") && !lines[1].contains(" 0 given up"), "{lines:?}");
    // A template without {z}, and a bad timeout: one line each.
    for (args, expect) in [
        (vec!["probe", "--terrain", "http://127.0.0.1:1/{x}/{y}.png", "--at=121,23"], "needs {z}, {x} and {y}"),
        (vec!["probe", "--terrain", "procedural", "--at=1,2", "--tile-timeout-s", "0"], "--tile-timeout-s"),
    ] {
        let out = bisector(&args);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains(expect) && !stderr.contains("panicked"), "{lines:?}");
    }
}

/// Every tile file of the pyramid folder `root` as (z, x, y, bytes).
fn folder_tiles(root: &Path) -> Vec<(u32, u32, u32, Vec<u8>)> {
    let mut tiles = Vec::new();
    for z in std::fs::read_dir(root).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for x in std::fs::read_dir(z.path()).unwrap().flatten() {
            for y in std::fs::read_dir(x.path()).unwrap().flatten() {
                let n = |p: &Path| p.file_stem().unwrap().to_str().unwrap().parse::<u32>().unwrap();
                tiles.push((n(&z.path()), n(&x.path()), n(&y.path()), std::fs::read(y.path()).unwrap()));
            }
        }
    }
    tiles
}

/// Tiles per second read as bytes (no decoding) from each kind of source, one thread, every tile
/// of the test pyramid: `cargo test --test tile_http tile_rates -- --ignored --nocapture`.
#[test]
#[ignore]
fn tile_rates() {
    use bisector::terrain::tile_source::{self, TileSource};
    use bisector::terrain::{mbtiles, pmtiles};
    let root = data("taiwan-terrain-rgb");
    let tiles = folder_tiles(&root);
    let dir = tempfile::tempdir().unwrap();
    let folder = tile_source::open(&root).unwrap();
    let index = folder.index().clone();
    mbtiles::write(&dir.path().join("t.mbtiles"), &index, &tiles).unwrap();
    pmtiles::write(&dir.path().join("t.pmtiles"), &index, &tiles, 64).unwrap();
    let server = Server::start();
    let cache = dir.path().join("cache");
    let http = HttpSource::open_with(&server.url("ok", "tiles.json"), options(&cache)).unwrap();
    let sources: Vec<(&str, Box<dyn TileSource>)> = vec![
        ("folder", folder),
        ("mbtiles", tile_source::open(&dir.path().join("t.mbtiles")).unwrap()),
        ("pmtiles", tile_source::open(&dir.path().join("t.pmtiles")).unwrap()),
        ("http (local server, cold cache)", Box::new(http)),
        ("http (disk cache)", Box::new(HttpSource::open_with(&server.url("ok", "tiles.json"), options(&cache)).unwrap())),
    ];
    let bytes: usize = tiles.iter().map(|t| t.3.len()).sum();
    for (name, source) in &sources {
        let start = Instant::now();
        for (z, x, y, expected) in &tiles {
            assert_eq!(source.get(*z, *x, *y).unwrap().as_ref(), Some(expected), "{name}");
        }
        let s = start.elapsed().as_secs_f64();
        println!("{name}: {} tiles ({:.1} MB) in {:.3} s = {:.0} tiles/s", tiles.len(), bytes as f64 / 1e6, s, tiles.len() as f64 / s);
    }
}

/// Tiles per second into the globe's GPU tile cache during the Taiwan descent (`bisector bench`,
/// the test pyramid as a planet region over ETOPO) from each kind of source: the folder, MBTiles,
/// PMTiles, the local server with a cold disk cache, and the disk cache alone (`--offline`); a
/// run without the region is the baseline (ETOPO's own tiles, the GPU's start-up). The rate is the
/// JSON's `cache.tiles_streamed` over the command's wall time. On the device, with a release build:
/// `cargo test --release --test tile_http globe_descent_tile_rates -- --ignored --nocapture`
/// (BISECTOR_RATE_FRAMES, default 240, and BISECTOR_RATE_SIZE, default 1280x720).
#[test]
#[ignore]
fn globe_descent_tile_rates() {
    use bisector::terrain::{mbtiles, pmtiles, tile_source};
    let frames = std::env::var("BISECTOR_RATE_FRAMES").unwrap_or_else(|_| "240".into());
    let size = std::env::var("BISECTOR_RATE_SIZE").unwrap_or_else(|_| "1280x720".into());
    let root = data("taiwan-terrain-rgb");
    let index = tile_source::open(&root).unwrap().index().clone();
    let tiles = folder_tiles(&root);
    let dir = tempfile::tempdir().unwrap();
    let (mbtiles_path, pmtiles_path) = (dir.path().join("taiwan.mbtiles"), dir.path().join("taiwan.pmtiles"));
    mbtiles::write(&mbtiles_path, &index, &tiles).unwrap();
    pmtiles::write(&pmtiles_path, &index, &tiles, 64).unwrap();
    let server = Server::start();
    let url = server.url("ok", "tiles.json");
    let cache = dir.path().join("cache");
    let etopo = data("etopo20_global.tif");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-descent.json");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let runs: [(&str, Option<String>, Vec<String>); 6] = [
        ("ETOPO alone (baseline)", None, vec![]),
        ("folder", Some(s(&root)), vec![]),
        ("mbtiles", Some(s(&mbtiles_path)), vec![]),
        ("pmtiles", Some(s(&pmtiles_path)), vec![]),
        ("http (local server, cold disk cache)", Some(url.clone()), vec!["--tile-cache-dir".into(), s(&cache)]),
        ("http (disk cache alone, --offline)", Some(url), vec!["--tile-cache-dir".into(), s(&cache), "--offline".into()]),
    ];
    println!("{} tiles in the region; {frames} frames of {size} along {}", tiles.len(), path.display());
    for (name, region, extra) in runs {
        let terrain = match region {
            Some(region) => format!("planet:{},{region}", s(&etopo)),
            None => format!("planet:{}", s(&etopo)),
        };
        let json = dir.path().join("bench.json");
        let mut args: Vec<String> =
            ["bench", "--terrain", &terrain, "--path", &s(&path), "--size", &size, "--frames", &frames, "--json", &s(&json)]
                .map(String::from)
                .to_vec();
        args.extend(extra);
        let start = Instant::now();
        let out = bisector(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let wall_s = start.elapsed().as_secs_f64();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let streamed = report["cache"]["tiles_streamed"].as_u64().unwrap_or(0);
        let http = &report["http"];
        println!(
            "{name}: {streamed} tiles streamed into the GPU cache in {wall_s:.2} s = {:.0} tiles/s (command wall time){}",
            streamed as f64 / wall_s,
            if http.is_null() { String::new() } else { format!("; http: {http}") }
        );
    }
}
