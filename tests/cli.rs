//! The command line end to end on small sizes: outputs are checked, bad input gives one clear
//! error line, a non-zero exit and no panic, and nothing the user had is overwritten.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn bisector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bisector")).args(args).output().expect("run bisector")
}

/// Runs `shot ARGS --out DIR/NAME.png --json DIR/NAME.json`, which must succeed: its stdout and
/// the figures it wrote.
fn shot_figures(dir: &Path, name: &str, args: &[&str]) -> (String, serde_json::Value) {
    let (png, json) = (dir.join(format!("{name}.png")), dir.join(format!("{name}.json")));
    let out = bisector(&[&["shot"], args, &["--out", png.to_str().unwrap(), "--json", json.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let figures = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), figures)
}

/// The stderr lines of `out` that come from bisector (drivers may print their own noise).
fn own_error_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn assert_clean_failure(out: &Output, expect: &str) {
    assert!(!out.status.success(), "expected failure, got success");
    let lines = own_error_lines(out);
    assert_eq!(lines.len(), 1, "expected one error line, got {lines:?}");
    assert!(lines[0].contains(expect), "error line {:?} does not mention {expect:?}", lines[0]);
    assert!(!lines[0].contains("panicked"), "panic: {lines:?}");
}

#[test]
fn shot_writes_a_terrain_png() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("shot.png");
    let out = bisector(&["shot", "--size", "160x96", "--max-depth", "18", "--out", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let image = image::open(&out_path).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (160, 96));
    // Not blank: many distinct colours, and the lower half (terrain) differs from the sky.
    let distinct = common::distinct_colours(&image);
    assert!(distinct > 200, "only {} distinct colours", distinct);
    let sky = image.get_pixel(80, 2).0;
    let terrain_pixels = (48..96).flat_map(|y| (0..160).map(move |x| (x, y))).filter(|&(x, y)| image.get_pixel(x, y).0 != sky).count();
    assert!(terrain_pixels > 160 * 40, "the lower half is mostly sky");
}

#[test]
fn bench_writes_json_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let (json, plot) = (dir.path().join("bench.json"), dir.path().join("bench.png"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/high-pan.json");
    let out = bisector(&[
        "bench",
        "--path",
        path,
        "--size",
        "96x64",
        "--frames",
        "6",
        "--warmup",
        "20",
        "--max-depth",
        "16",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("leb.split") && stdout.contains("cbt.reduce") && stdout.contains("render.draw"), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["meta"]["frames"], 6);
    assert_eq!(report["frames"].as_array().unwrap().len(), 6);
    let names: Vec<&str> = report["passes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    for pass in ["leb.split", "leb.merge", "cbt.reduce", "cbt.args", "leb.decode", "render.draw"] {
        assert!(names.contains(&pass), "pass {pass} missing from {names:?}");
    }
    for pass in report["passes"].as_array().unwrap() {
        let (median, max) = (pass["median_ms"].as_f64().unwrap(), pass["max_ms"].as_f64().unwrap());
        assert!(median > 0.0 && median <= max && max < 10_000.0, "implausible {pass}");
    }
    for frame in report["frames"].as_array().unwrap() {
        let leaves = frame["leaves"].as_u64().unwrap();
        assert!((2..=1 << 16).contains(&leaves), "{frame}");
        assert!(frame["max_depth"].as_u64().unwrap() <= 16);
        assert!(frame["frame_gpu_ms"].as_f64().unwrap() > 0.0);
    }
    let chart = image::open(&plot).unwrap();
    assert!(chart.width() > 600 && chart.height() > 300);
}

/// `--pass-timing off`: only the frame's bounds and the bounds of its update, reduction and decode
/// are timed; the frame's GPU time is theirs, and the span "nondraw" lies within it.
#[test]
fn bench_without_pass_timing_times_the_frame_alone() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/high-pan.json");
    let args = ["bench", "--path", path, "--size", "96x64", "--frames", "4", "--warmup", "10", "--max-depth", "16", "--fps", "0"];
    let out = bisector(&[&args[..], &["--pass-timing", "off", "--json", json.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["meta"]["pass_timing"], false);
    let names: Vec<&str> = report["passes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["frame.start", "nondraw.start", "nondraw.end", "frame.end", "nondraw"]);
    for frame in report["frames"].as_array().unwrap() {
        let frame_ms = frame["frame_gpu_ms"].as_f64().unwrap();
        let nondraw_ms = frame["gpu_ms"]["nondraw"].as_f64().unwrap();
        assert!(frame_ms > 0.0 && nondraw_ms > 0.0 && nondraw_ms <= frame_ms, "{frame}");
    }
    assert_clean_failure(
        &bisector(&[&args[..], &["--pass-timing", "sometimes", "--json", json.to_str().unwrap()]].concat()),
        "--pass-timing",
    );
}

/// `--raster compute`: the bench times the compute rasteriser's passes instead of render.draw and
/// writes the path and the triangle-size histogram; bad raster options are one line each.
#[test]
fn raster_compute_bench_reports_its_passes_and_the_histogram() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/low-flyover.json");
    let args = ["bench", "--path", path, "--size", "96x64", "--frames", "4", "--warmup", "20", "--max-depth", "16", "--raster", "compute"];
    let out = bisector(&[&args[..], &["--json", json.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("raster: compute"), "{}", String::from_utf8_lossy(&out.stdout));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names: Vec<&str> = report["passes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    for pass in ["leb.decode", "raster.small", "raster.large", "shade"] {
        assert!(names.contains(&pass), "pass {pass} missing from {names:?}");
    }
    assert!(!names.contains(&"render.draw"), "{names:?}");
    let raster = &report["raster"];
    assert_eq!((raster["requested"].as_str(), raster["used"].as_str()), (Some("compute"), Some("compute")), "{raster}");
    let per_frame: f64 = raster["size_histogram"].as_array().unwrap().iter().map(|b| b["triangles_per_frame"].as_f64().unwrap()).sum();
    // The histogram counts the front faces on screen: a part of the leaves the LOD finds in the
    // view (whose bounds are conservative, and back faces count there; about 40 % here).
    let frames = report["frames"].as_array().unwrap();
    let visible = frames.iter().map(|f| f["visible_leaves"].as_f64().unwrap()).sum::<f64>() / frames.len() as f64;
    assert!(
        per_frame > 0.2 * visible && per_frame <= visible,
        "{per_frame} triangles per frame in the histogram, {visible} visible leaves per frame"
    );

    let out_png = dir.path().join("x.png");
    let out_png = out_png.to_str().unwrap();
    let heap_globe = ["shot", "--terrain", "planet", "--pool-slots", "0", "--raster", "compute", "--out", out_png];
    assert_clean_failure(&bisector(&heap_globe), "--raster compute");
    assert_clean_failure(&bisector(&["shot", "--raster-large-px", "65", "--out", out_png]), "--raster-large-px 65");
    assert_clean_failure(&bisector(&["shot", "--raster", "gpu", "--out", out_png]), "--raster");
    let info = bisector(&["info"]);
    assert!(String::from_utf8_lossy(&info.stdout).contains("compute:  yes"), "lavapipe has 64-bit storage-buffer atomics");
}

/// `--raster compute` on the globe over the bisector pool: the bench times raster.small,
/// raster.large and shade instead of globe.pool_draw, and writes the path and the histogram.
#[test]
fn raster_compute_globe_bench_reports_its_passes() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("globe.json");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/globe-taiwan-descent.json");
    let args = ["bench", "--terrain", "planet", "--path", path, "--size", "96x64", "--frames", "4", "--warmup", "30"];
    let out =
        bisector(&[&args[..], &["--pool-slots", "65536", "--raster", "compute", "--fps", "0", "--json", json.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("raster: compute"), "{}", String::from_utf8_lossy(&out.stdout));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names: Vec<&str> = report["passes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    for pass in ["globe.pool_decode", "raster.small", "raster.large", "shade", "globe.hzb"] {
        assert!(names.contains(&pass), "pass {pass} missing from {names:?}");
    }
    assert!(!names.contains(&"globe.pool_draw") && !names.contains(&"atmosphere.sky"), "{names:?}");
    let raster = &report["raster"];
    assert_eq!((raster["requested"].as_str(), raster["used"].as_str()), (Some("compute"), Some("compute")), "{raster}");
    let per_frame: f64 = raster["size_histogram"].as_array().unwrap().iter().map(|b| b["triangles_per_frame"].as_f64().unwrap()).sum();
    assert!(per_frame > 10.0, "{per_frame} triangles per frame in the histogram");
}

/// The globe's bench flies the shipped descent (lon/lat keyframes) and reports per-pass GPU times
/// and the tile cache: every frame's camera and cache counters, and the run's summary.
#[test]
fn globe_bench_reports_passes_and_the_tile_cache() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("globe.json");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/globe-taiwan-descent.json");
    let out = bisector(&[
        "bench",
        "--terrain",
        "planet",
        "--path",
        path,
        "--size",
        "96x64",
        "--frames",
        "6",
        "--warmup",
        "40",
        "--max-depth",
        "20",
        "--pool-slots",
        "0",
        "--fps",
        "0",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("tile cache:") && stdout.contains("globe.draw"), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let names: Vec<&str> = report["passes"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    // The atmosphere's transmittance and multiple scattering run once, before the measured frames.
    for pass in ["globe.split", "globe.merge", "cbt.reduce", "cbt.args", "globe.decode", "globe.draw", "atmosphere.views", "atmosphere.sky"]
    {
        assert!(names.contains(&pass), "pass {pass} missing from {names:?}");
    }
    assert_eq!(report["meta"]["criterion"], "edge-length");
    let cache = &report["cache"];
    assert!(cache["tiles_streamed"].as_u64().unwrap() > 0, "{cache}");
    assert!((0.0..=1.0).contains(&cache["hit_rate"].as_f64().unwrap()), "{cache}");
    assert_eq!(cache["capacity_tiles"], 1024);
    let frames = report["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 6);
    // The path descends from 20,000 km to 150 m: the first and last frames are at its ends.
    let altitude = |f: &serde_json::Value| f["globe"]["altitude_m"].as_f64().unwrap();
    assert!((altitude(&frames[0]) - 2e7).abs() < 1.0 && (altitude(&frames[5]) - 150.0).abs() < 1e-6, "{}", frames[5]["globe"]);
    for frame in frames {
        let c = &frame["globe"]["cache"];
        assert!(c["resident_tiles"].as_u64().unwrap() >= 5, "the pinned tiles are always resident: {c}");
        assert!(c["feedback_capacity"].as_u64().unwrap() > 0 && frame["globe"]["cpu_submit_ms"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn a_flat_path_on_the_globe_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("globe.json");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/high-pan.json");
    let out = bisector(&["bench", "--terrain", "planet", "--path", path, "--size", "64x64", "--json", json.to_str().unwrap()]);
    assert_clean_failure(&out, "high-pan.json:3: keyframes[0]: unknown field `position_m`");
    assert!(!json.exists());
}

#[test]
fn probe_reads_the_procedural_height() {
    let out = bisector(&["probe", "--at", "10240,10240"]);
    assert!(out.status.success());
    let height: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!((100.0..4000.0).contains(&height), "{height}");
    let outside = bisector(&["probe", "--at=-5,10"]);
    assert_eq!(String::from_utf8_lossy(&outside.stdout).trim(), "nodata");
}

/// A file of the repository's elevation data (heightmaps/), named when absent.
fn data(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path.to_str().unwrap().to_string()
}

fn probe_height_m(terrain: &str, at: &str) -> f64 {
    let out = bisector(&["probe", "--terrain", terrain, &format!("--at={at}")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or_else(|_| panic!("not a height: {:?}", out.stdout))
}

#[test]
fn probe_reads_the_globes_ground() {
    let earth = format!("planet:{},{}", data("etopo20_global.tif"), data("taiwan-terrain-rgb"));
    // Yushan from the Taiwan pyramid's zoom 13 (the summit pixel reads 3947 m).
    let yushan = probe_height_m(&earth, "120.9572,23.47");
    assert!((3930.0..3950.0).contains(&yushan), "Yushan {yushan} m");
    // Off Taiwan's east coast, where the pyramid stores 0 m: ETOPO's sea floor.
    let sea = probe_height_m(&earth, "121.8,23.5");
    assert!(sea < -2000.0, "sea {sea} m");
    // The Pacific from ETOPO alone (about -4181 m).
    let pacific = probe_height_m(&format!("planet:{}", data("etopo20_global.tif")), "-150,0");
    assert!((pacific + 4181.0).abs() < 100.0, "Pacific {pacific} m");
    // The procedural planet: the generator's CPU twin, somewhere in its range.
    let procedural = probe_height_m("planet:7", "10,45");
    assert!((-6000.0..8000.0).contains(&procedural), "{procedural}");
    assert_eq!(probe_height_m("planet", "10,45"), probe_height_m("planet:1", "10,45"));
    // A bad --at is one line naming it.
    for bad in ["120.9", "121,95", "x,23", "200,10"] {
        assert_clean_failure(&bisector(&["probe", "--terrain", "planet", "--at", bad]), &format!("--at '{bad}'"));
    }
    assert_clean_failure(&bisector(&["probe", "--terrain", "planet:/no/such.tif", "--at", "1,2"]), "/no/such.tif");
}

/// `probe --detail on` (the default) adds the globe's detail below the data: a fraction of a
/// metre to a few metres on steep ground (at most 0.15 x the gradient x the data's spacing),
/// nothing at sea; `--detail off` gives the data alone. Its octaves start at the data's own
/// spacing: on the Andes, where only ETOPO's 20' (37 km) has data, it moves the ground by metres
/// (octaves one below the zoom-13 cells there moved it by under 0.01 m).
#[test]
fn probe_reports_the_detail_below_the_data() {
    let earth = format!("planet:{},{}", data("etopo20_global.tif"), data("taiwan-terrain-rgb"));
    let probe = |at: &str, detail: &str| -> f64 {
        let out = bisector(&["probe", "--terrain", &earth, &format!("--at={at}"), "--detail", detail]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    };
    let mut moved = 0;
    for at in ["121.55,24.15", "121.55,24.18", "121.6,24.15", "121.6,24.21", "121.62,24.18", "121.62,24.21"] {
        let (with, without) = (probe(at, "on"), probe(at, "off"));
        assert!((with - without).abs() < 5.0, "{at}: {with} m with detail, {without} m without");
        moved += (with != without) as usize;
    }
    assert!(moved >= 4, "the detail moved only {moved} of 6 mountain points");
    assert_eq!(probe("121.8,23.5", "on"), probe("121.8,23.5", "off"), "detail at sea");
    let mut andes = 0.0f64;
    for at in ["-70,-33", "-70.1,-33.05", "-69.3,-32.7"] {
        let (with, without) = (probe(at, "on"), probe(at, "off"));
        assert!((with - without).abs() < 100.0, "{at}: {with} m with detail, {without} m without");
        andes = andes.max((with - without).abs());
    }
    assert!(andes > 1.0, "the detail below ETOPO's 37 km moved the Andes by only {andes} m");
}

/// `--time` puts the sun where it is at that moment: Taiwan from 30 km is lit at 04:00Z (noon
/// there) and dark at 16:00Z (midnight); `--sun` takes azimuth and elevation at the camera's
/// place; bad values, and either on the flat terrain, are one line naming the option.
#[test]
fn time_and_sun_light_the_globe() {
    let dir = tempfile::tempdir().unwrap();
    let earth = format!("planet:{},{}", data("etopo20_global.tif"), data("taiwan-terrain-rgb"));
    let brightness = |extra: &[&str], name: &str| -> f64 {
        let out_png = dir.path().join(name);
        let mut args = vec!["shot", "--terrain", &earth, "--camera", "121.6,24.0,30000,300,-30", "--size", "160x90", "--max-depth", "20"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out_png.to_str().unwrap()]);
        let out = bisector(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let image = image::open(&out_png).unwrap().to_rgb8();
        // The lower half: terrain, no sky.
        let pixels: Vec<f64> = image
            .enumerate_pixels()
            .filter(|(_, y, _)| *y >= 45)
            .map(|(_, _, p)| p.0.iter().map(|&c| c as f64).sum::<f64>() / 3.0)
            .collect();
        pixels.iter().sum::<f64>() / pixels.len() as f64
    };
    let noon = brightness(&["--time", "2026-03-20T04:00Z"], "noon.png");
    let night = brightness(&["--time", "2026-03-20T16:00Z"], "night.png");
    let high_sun = brightness(&["--sun", "180,60"], "high.png");
    let sun_below = brightness(&["--sun", "180,-30"], "below.png");
    assert!(night < 0.5 * noon, "night {night} against noon {noon}");
    assert!(sun_below < 0.5 * high_sun, "sun below the horizon {sun_below} against high {high_sun}");
    for (args, expect) in [
        (vec!["shot", "--terrain", "planet", "--time", "2026-03-20", "--out", "x.png"], "--time '2026-03-20'"),
        (vec!["shot", "--terrain", "planet", "--sun", "10,95", "--out", "x.png"], "--sun '10,95'"),
        (vec!["shot", "--sun", "10,45", "--out", "x.png"], "--sun: only the globe"),
        (vec!["shot", "--terrain", "planet", "--time", "2026-03-20T04:00Z", "--sun", "1,2", "--out", "x.png"], "--sun"),
        (vec!["shot", "--terrain", "planet", "--sea-time-s", "inf", "--out", "x.png"], "--sea-time-s inf"),
        (vec!["shot", "--terrain", "planet", "--sea", "maybe", "--out", "x.png"], "--sea"),
    ] {
        assert_clean_failure(&bisector(&args), expect);
    }
}

#[test]
fn info_names_adapter_and_limits() {
    let out = bisector(&["info"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in ["adapter:", "backend:", "driver:", "TIMESTAMP_QUERY", "max_storage_buffer_binding_size", "deepest CBT"] {
        assert!(text.contains(needle), "missing {needle} in {text}");
    }
}

#[test]
fn bad_input_gives_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let out_png = dir.path().join("x.png");
    let out_png = out_png.to_str().unwrap();
    assert_clean_failure(&bisector(&["shot", "--frobnicate"]), "--frobnicate");
    assert_clean_failure(&bisector(&["shot", "--size", "12", "--out", out_png]), "--size");
    assert_clean_failure(&bisector(&["shot", "--max-depth", "40", "--out", out_png]), "max depth 40");
    assert_clean_failure(&bisector(&["shot", "--camera", "1,2", "--out", out_png]), "--camera");
    assert_clean_failure(
        &bisector(&["shot", "--terrain", "planet", "--camera", "121,24,100ft", "--out", out_png]),
        "--camera '121,24,100ft': '100ft' is not a number",
    );
    assert_clean_failure(&bisector(&["shot", "--terrain", "planet", "--camera", "121,24,-3agl", "--out", out_png]), "above the ground");
    assert_clean_failure(&bisector(&["shot", "--terrain", "mars", "--out", out_png]), "--terrain 'mars'");
    assert_clean_failure(&bisector(&["shot", "--out", "/nonexistent-folder/x.png"]), "/nonexistent-folder");
    // A camera path with a semantic error on its third line: the file and the line are named.
    let bad_path = dir.path().join("bad.json");
    std::fs::write(&bad_path, "{\n  \"keyframes\": [\n    { \"time_s\": 0.0, \"position_m\": [0, 0, 10], \"fov_y_deg\": 60 }\n  ]\n}\n")
        .unwrap();
    let json = dir.path().join("out.json");
    let out = bisector(&["bench", "--path", bad_path.to_str().unwrap(), "--json", json.to_str().unwrap(), "--size", "64x64"]);
    assert_clean_failure(&out, &format!("{}:3", bad_path.display()));
    assert!(!json.exists(), "a failed bench must not write its report");
    assert!(!Path::new(out_png).exists());
}

#[test]
fn depth_beyond_the_adapter_limit_names_the_limit() {
    // D = 29 needs a 256 MiB heap; lavapipe binds at most 128 MiB (an H100 holds it).
    let dir = tempfile::tempdir().unwrap();
    let out_png = dir.path().join("x.png");
    let out = bisector(&["shot", "--max-depth", "29", "--size", "32x32", "--out", out_png.to_str().unwrap()]);
    if !out.status.success() {
        assert_clean_failure(&out, "max_storage_buffer_binding_size");
    }
}

#[test]
fn an_existing_file_is_only_replaced_when_named() {
    // The user names --out, so it is replaced; nothing else in the folder is touched.
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep.png");
    std::fs::write(&keep, b"precious").unwrap();
    let out_png = dir.path().join("shot.png");
    let out = bisector(&["shot", "--size", "32x32", "--max-depth", "10", "--out", out_png.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(std::fs::read(&keep).unwrap(), b"precious");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn shot_json_writes_the_view_figures() {
    // `shot --json` on the flat terrain and on the procedural globe from the heap (the pool's:
    // shot_json_with_a_tiny_pool_reports_the_pool): the figures of issue 15, named as the issue
    // names them, consistent with the line `shot` prints.
    let dir = tempfile::tempdir().unwrap();
    for (terrain, depth, base, heap) in [("procedural", "16", 1, &[][..]), ("planet", "18", 3, &["--pool-slots", "0"][..])] {
        let args = [&["--terrain", terrain, "--max-depth", depth, "--size", "96x64"][..], heap].concat();
        let (stdout, figures) = shot_figures(dir.path(), terrain, &args);
        let number = |key: &str| figures[key].as_u64().unwrap_or_else(|| panic!("{terrain}: no {key} in {figures}"));
        assert!(
            stdout.contains(&format!(" {} leaves, max depth {} ", number("leaves"), number("max_depth_reached") + base)),
            "{stdout} vs {figures}"
        );
        assert!(number("max_depth_reached") + base <= depth.parse().unwrap(), "{figures}");
        assert!(number("capped_leaves") <= number("leaves"), "{figures}");
        assert!(figures["pool_slots"].is_null() && figures["pool_used"].is_null(), "{figures}");
    }
}

#[test]
fn the_globe_draws_from_a_pool_of_2_20_slots_by_default() {
    // Without --pool-slots the globe is drawn from the bisector pool (issue 15: "default: at
    // least 2^20") under --lod error; --pool-slots 0 draws it from the heap.
    let dir = tempfile::tempdir().unwrap();
    let shot = |extra: &[&str]| shot_figures(dir.path(), "default", &[&["--terrain", "planet", "--size", "64x36"], extra].concat());
    let (stdout, figures) = shot(&[]);
    assert_eq!(figures["pool_slots"].as_u64(), Some(1 << 20), "{figures}");
    assert!(stdout.contains("bisector pool of 1048576 slots"), "{stdout}");
    let (_, figures) = shot(&["--pool-slots", "0"]);
    assert!(figures["pool_slots"].is_null(), "{figures}");
}

#[test]
fn shot_json_with_a_tiny_pool_reports_the_pool() {
    // `shot --pool-slots` on the bridge view (assets/paths/globe-taiwan-coast-ship.json, 20 m
    // above the sea): a 4096-slot pool goes deeper than the heap's 29 levels near the camera and
    // is too small for the view, so leaves are capped; the figures name the pool.
    let dir = tempfile::tempdir().unwrap();
    let earth = format!("planet:{},{}", data("etopo20_global.tif"), data("taiwan-terrain-rgb"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-coast-ship.json");
    let args = ["--terrain", &earth, "--pool-slots", "4096", "--size", "160x90", "--camera", path.to_str().unwrap()];
    let (_, figures) = shot_figures(dir.path(), "pool", &args);
    let number = |key: &str| figures[key].as_u64().unwrap_or_else(|| panic!("no {key} in {figures}"));
    assert_eq!(number("pool_slots"), 4096, "{figures}");
    assert!(number("pool_used") == number("leaves") && number("leaves") <= 4096, "{figures}");
    assert!(number("max_depth_reached") > 29, "{figures}");
    assert!(number("capped_leaves") > 0, "{figures}");
    assert!(figures["near_edge_m"]["median"].as_f64().is_some(), "{figures}");
    // Bad pools, in one line each.
    let bad = |args: &[&str], expect: &str| {
        let mut all = vec!["shot", "--size", "32x32", "--out"];
        let out_png = dir.path().join("bad.png");
        all.push(out_png.to_str().unwrap());
        all.extend_from_slice(args);
        assert_clean_failure(&bisector(&all), expect);
    };
    bad(&["--terrain", "planet", "--pool-slots", "1000"], "--pool-slots 1000");
    bad(&["--pool-slots", "4096"], "--pool-slots");
    bad(&["--terrain", "planet", "--pool-slots", "4096", "--max-depth", "64"], "--max-depth 64");
    assert_clean_failure(&bisector(&["view", "--terrain", "planet", "--pool-slots", "1000"]), "--pool-slots 1000");
    // A first camera under the sea or unreadable: one line, before any window.
    assert_clean_failure(&bisector(&["view", "--terrain", "planet", "--camera", "121.675,24.17,-5"]), "--camera");
    assert_clean_failure(&bisector(&["view", "--terrain", "planet", "--camera", "121.675,north,20"]), "--camera");
    assert_clean_failure(&bisector(&["view", "--camera", "no-such-path.json"]), "no-such-path.json");
}

#[test]
fn view_runs_in_a_window_under_xvfb() {
    // The windowed path shares the renderer with `shot`: open a window on a virtual display,
    // render a few frames and read the last one back, with egui's panel drawn over the terrain.
    let screen = common::VirtualDisplay::start(640, 480);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::create_dir(&config).unwrap();
    // A malformed bookmarks file: a warning, and the file stays as it was.
    let bookmarks = config.join("bookmarks.json");
    std::fs::write(&bookmarks, "{\"bookmarks\": [").unwrap();
    let shot = dir.path().join("view.png");
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["view", "--max-depth", "16", "--frames", "30", "--screenshot"])
        .arg(&shot)
        .env("DISPLAY", &screen.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("BISECTOR_CONFIG_DIR", &config)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("bookmarks.json: malformed"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&bookmarks).unwrap(), "{\"bookmarks\": [");
    assert!(config.join("viewer.ron").exists(), "panel state was not saved");

    let image = image::open(&shot).unwrap().to_rgba8();
    let (width, height) = image.dimensions();
    let distinct = common::distinct_colours(&image);
    assert!(distinct > 200, "the window shows only {} colours", distinct);
    // egui's side panel on the right: mostly its dark panel fill, with light text on it.
    let panel_fill = |p: &image::Rgba<u8>| p[0].abs_diff(27) <= 3 && p[1].abs_diff(27) <= 3 && p[2].abs_diff(27) <= 3;
    let region = |x0: u32, x1: u32, y0: u32, y1: u32| (x0..x1).flat_map(move |x| (y0..y1).map(move |y| (x, y)));
    let panel: Vec<_> = region(width - 250, width - 10, 0, height).map(|(x, y)| *image.get_pixel(x, y)).collect();
    let fill = panel.iter().filter(|p| panel_fill(p)).count() as f64 / panel.len() as f64;
    assert!(fill > 0.5, "the panel region is only {:.0}% panel colour", fill * 100.0);
    let text = panel.iter().filter(|p| p[0] > 150 && p[1] > 150 && p[2] > 150).count();
    assert!(text > 500, "the panel shows little text ({text} light pixels)");
    // The terrain on the left half: many colours, no panel.
    let terrain: Vec<_> = region(0, width / 2, height / 2, height).map(|(x, y)| *image.get_pixel(x, y)).collect();
    let terrain_colours: std::collections::HashSet<_> = terrain.iter().map(|p| p.0).collect();
    assert!(terrain_colours.len() > 200, "the terrain region shows only {} colours", terrain_colours.len());
    assert!(terrain.iter().filter(|p| panel_fill(p)).count() < terrain.len() / 100, "panel colour over the terrain");
}

/// `bisector view ARGS --screenshot SHOT` on a virtual display of its own (640 x 480), its panel
/// state in `config`, given 300 s.
fn view_under_xvfb(args: &[&str], config: &std::path::Path, shot: &std::path::Path) -> std::process::Output {
    let screen = common::VirtualDisplay::start(640, 480);
    Command::new("timeout")
        .args(["300", env!("CARGO_BIN_EXE_bisector"), "view"])
        .args(args)
        .arg("--screenshot")
        .arg(shot)
        .env("DISPLAY", &screen.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("BISECTOR_CONFIG_DIR", config)
        .output()
        .unwrap()
}

#[test]
fn view_shows_the_globe_under_xvfb() {
    // `view --terrain planet`: the globe renderer and its tile cache in the window, at the
    // default orbit (the whole planet in the middle of the window), the panel beside it.
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("globe.png");
    let out = view_under_xvfb(&["--terrain", "planet", "--max-depth", "16", "--cache-tiles", "64", "--frames", "40"], dir.path(), &shot);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let image = image::open(&shot).unwrap().to_rgba8();
    let (width, height) = image.dimensions();
    let region = |x0: u32, x1: u32, y0: u32, y1: u32| (x0..x1).flat_map(move |x| (y0..y1).map(move |y| (x, y)));
    // Space in the corner: dark and blue-black.
    let space = *image.get_pixel(4, 4);
    assert!(space[0] < 40 && space[1] < 40 && space[2] < 60, "the corner is not space: {space:?}");
    // The planet in the middle of the view left of the panel (the 3-D view uses only that part):
    // lit terrain, not space, many colours, some sea (blue over red) and some land (green or red
    // over blue). Its centre: halfway between the first and last lit pixels of the middle row.
    let cy = height / 2;
    let lit_at = |x: u32| image.get_pixel(x, cy).0.iter().take(3).map(|&c| c as u32).sum::<u32>() > 90;
    let first = (0..width - 250).find(|&x| lit_at(x)).expect("no lit pixel in the middle row");
    let last = (first..width - 250).take_while(|&x| lit_at(x)).last().unwrap();
    let cx = (first + last) / 2;
    assert!(last - first > 150, "the planet is only {} px across", last - first);
    assert!(cx + 100 < width / 2, "the planet is centred in the window, partly under the panel (centre {cx} of {width})");
    let planet: Vec<image::Rgba<u8>> = region(cx - 60, cx + 60, cy - 60, cy + 60).map(|(x, y)| *image.get_pixel(x, y)).collect();
    let lit = planet.iter().filter(|p| p.0.iter().take(3).map(|&c| c as u32).sum::<u32>() > 90).count();
    assert!(lit > planet.len() * 9 / 10, "the middle of the window is mostly dark: {lit} of {} lit", planet.len());
    let colours: std::collections::HashSet<_> = planet.iter().map(|p| p.0).collect();
    assert!(colours.len() > 100, "the planet shows only {} colours", colours.len());
    let sea = planet.iter().filter(|p| p[2] as i32 > p[0] as i32 + 20).count();
    let land = planet.iter().filter(|p| p[1].max(p[0]) as i32 > p[2] as i32 + 10).count();
    assert!(sea + land > planet.len() / 2, "few terrain colours in the middle: {sea} sea, {land} land");
    // The panel on the right, with its Tile cache section (light text on the dark fill).
    let panel: Vec<_> = region(width - 250, width - 10, 0, height).map(|(x, y)| *image.get_pixel(x, y)).collect();
    let fill = panel.iter().filter(|p| p[0].abs_diff(27) <= 3 && p[1].abs_diff(27) <= 3 && p[2].abs_diff(27) <= 3).count() as f64
        / panel.len() as f64;
    assert!(fill > 0.5, "the panel region is only {:.0}% panel colour", fill * 100.0);
    assert!(panel.iter().filter(|p| p[0] > 150 && p[1] > 150 && p[2] > 150).count() > 500, "the panel shows little text");
}

#[test]
fn view_draws_the_globe_from_the_bisector_pool_under_xvfb() {
    // `view --pool-slots`: the globe drawn from a small pool at the default orbit, the Bisector
    // pool section read back without stalling; `--frames` prints its figures when it stops.
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("pool.png");
    let out = view_under_xvfb(&["--terrain", "planet", "--pool-slots", "4096", "--cache-tiles", "64", "--frames", "30"], dir.path(), &shot);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = stderr.lines().find(|l| l.starts_with("bisector: pool_slots 4096")).unwrap_or_else(|| panic!("no pool line in {stderr}"));
    let number = |key: &str| -> u32 {
        let rest = &line[line.find(&format!("{key} ")).unwrap_or_else(|| panic!("no {key} in {line}")) + key.len() + 1..];
        rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    assert!(number("pool_used") > 8 && number("pool_used") <= 4096, "{line}");
    assert!(number("max_depth_reached") > 0, "{line}");
    // The orbit sees the whole planet: no land within 3 km, but the histogram was read back.
    assert!(line.contains("near_edge_m no land within 3 km") && line.contains("read back from frame"), "{line}");
    let image = image::open(&shot).unwrap().to_rgba8();
    let (width, height) = image.dimensions();
    let lit = (0..width - 250).filter(|&x| image.get_pixel(x, height / 2).0.iter().take(3).map(|&c| c as u32).sum::<u32>() > 90).count();
    assert!(lit > 150, "the planet is only {lit} px across");
}

#[test]
fn view_starts_on_the_bridge_from_the_ship_path_under_xvfb() {
    // `view --camera` with the ship path: the viewer starts on the bridge 20 m above the sea (ship
    // mode, saved with the panel state when it stops), the sea below the horizon and the sky above
    // it (from the default orbit the corners show space).
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("bridge.png");
    let terrain =
        format!("planet:{},{}", common::heightmap("etopo20_global.tif").display(), common::heightmap("taiwan-terrain-rgb").display());
    let camera = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/globe-taiwan-coast-ship.json");
    let args = ["--terrain", &terrain, "--pool-slots", "65536", "--camera", camera, "--cache-tiles", "256", "--frames", "20"];
    let out = view_under_xvfb(&args, dir.path(), &shot);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let state = std::fs::read_to_string(dir.path().join("viewer.ron")).expect("the panel state was saved");
    assert!(state.contains("camera_mode: Ship"), "not in ship mode: {state}");
    let image = image::open(&shot).unwrap().to_rgba8();
    let (width, height) = image.dimensions();
    // Left of the panel: the sea at the bottom (blue over red), the sky at the top (bright blue).
    let mean = |y0: u32, y1: u32| {
        let pixels: Vec<_> = (0..width / 4).flat_map(|x| (y0..y1).map(move |y| (x, y))).map(|(x, y)| image.get_pixel(x, y).0).collect();
        [0, 1, 2].map(|c| pixels.iter().map(|p| p[c] as f64).sum::<f64>() / pixels.len() as f64)
    };
    let sea = mean(height - 60, height - 10);
    let sky = mean(10, 60);
    assert!(sea[2] > sea[0] + 20.0, "no sea at the bottom: {sea:?}");
    assert!(sky[2] > sky[0] + 20.0 && sky.iter().sum::<f64>() > 150.0, "no sky at the top: {sky:?}");
}

#[test]
fn view_reports_a_lost_device_and_exits() {
    // The viewer destroys its own device after 2 frames (fault injection): one clear line, a
    // non-zero exit, no hang.
    let dir = tempfile::tempdir().unwrap();
    let screen = common::VirtualDisplay::start(640, 480);
    let out = Command::new("timeout")
        .args(["120", env!("CARGO_BIN_EXE_bisector"), "view", "--max-depth", "12", "--frames", "20"])
        .env("DISPLAY", &screen.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("BISECTOR_CONFIG_DIR", dir.path())
        .env(bisector::viewer::FAULT_DESTROY_DEVICE_ENV, "2")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(124), "the viewer hung after losing its device");
    assert_clean_failure(&out, "the device was lost");
}

#[test]
fn view_shows_a_gpu_error_saves_its_state_and_goes_on() {
    // The viewer causes one GPU validation error after 3 frames (fault injection): it is printed
    // on one line, the panel state is saved, and the viewer runs to the end with exit code 0.
    let dir = tempfile::tempdir().unwrap();
    let screen = common::VirtualDisplay::start(640, 480);
    let out = Command::new("timeout")
        .args(["120", env!("CARGO_BIN_EXE_bisector"), "view", "--max-depth", "12", "--frames", "12"])
        .env("DISPLAY", &screen.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("BISECTOR_CONFIG_DIR", dir.path())
        .env(bisector::viewer::FAULT_GPU_ERROR_ENV, "3")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the viewer ended after a GPU error: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("bisector: GPU validation error: ")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(dir.path().join("viewer.ron").exists(), "the panel state was not saved");
}

#[test]
fn view_without_a_display_suggests_shot() {
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["view", "--frames", "1"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_clean_failure(&out, "bisector shot");
}

#[test]
fn no_adapter_gives_one_clear_line() {
    // Point the Vulkan loader at no driver at all.
    let dir = tempfile::tempdir().unwrap();
    let out_png = dir.path().join("x.png");
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["shot", "--out", out_png.to_str().unwrap()])
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    assert_clean_failure(&out, "no GPU adapter found");
    assert!(!out_png.exists());
}
