//! Bad input on the command line (issue 13): an output that names an input is refused before
//! anything runs and the input stays byte-identical; outputs are replaced atomically; numeric
//! options are bounded with one line naming the option; negative numbers need no `=`; a missing
//! option is named; a closed stdout, no arguments and a missing XDG_RUNTIME_DIR end cleanly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bisector(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bisector")).args(args).output().expect("run bisector")
}

/// The non-empty stderr lines of `out`.
fn error_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr).lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

/// A failure with one stderr line that mentions every one of `expect`, no panic, exit 1 or 2.
fn assert_clean_failure(out: &Output, expect: &[&str]) {
    let lines = error_lines(out);
    assert!(matches!(out.status.code(), Some(1 | 2)), "expected exit 1 or 2, got {:?}: {lines:?}", out.status);
    assert_eq!(lines.len(), 1, "expected one error line, got {lines:?}");
    for needle in expect {
        assert!(lines[0].contains(needle), "error line {:?} does not mention {needle:?}", lines[0]);
    }
    assert!(!lines[0].contains("panicked"), "panic: {lines:?}");
}

/// A repository file, copied into `dir` (tests never risk the repository's own files).
fn copy_in(dir: &Path, relative: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let to = dir.join(from.file_name().unwrap());
    std::fs::copy(&from, &to).unwrap();
    to
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Runs `args`, expects a refusal naming `expect`, and checks that `input` is unchanged.
fn assert_refused_and_kept(args: &[&str], expect: &[&str], input: &Path) {
    let before = std::fs::read(input).unwrap();
    assert_clean_failure(&bisector(args), expect);
    assert_eq!(std::fs::read(input).unwrap(), before, "{} was changed", input.display());
}

#[test]
fn shot_out_equal_to_the_input_geotiff_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tif = copy_in(dir.path(), "heightmaps/bigtujunga.tif");
    assert_refused_and_kept(
        &["shot", "--terrain", s(&tif), "--size", "16x16", "--max-depth", "10", "--out", s(&tif)],
        &["--out", "--terrain"],
        &tif,
    );
    // Through a link, and as the base of a globe.
    let link = dir.path().join("link.png");
    std::os::unix::fs::symlink(&tif, &link).unwrap();
    assert_refused_and_kept(
        &["shot", "--terrain", s(&tif), "--size", "16x16", "--max-depth", "10", "--out", s(&link)],
        &["--out", "--terrain"],
        &tif,
    );
    let planet = format!("planet:{}", s(&tif));
    assert_refused_and_kept(
        &["shot", "--terrain", &planet, "--size", "16x16", "--max-depth", "10", "--out", s(&tif)],
        &["--out", "--terrain"],
        &tif,
    );
    // The viewer's screenshot, refused before any window opens.
    assert_refused_and_kept(
        &["view", "--terrain", s(&tif), "--frames", "1", "--screenshot", s(&tif)],
        &["--screenshot", "--terrain"],
        &tif,
    );
}

#[test]
fn an_output_inside_a_pyramid_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pyramid = dir.path().join("pyramid");
    std::fs::create_dir(&pyramid).unwrap();
    let tiles = pyramid.join("tiles.json");
    std::fs::write(&tiles, b"{\"tiles\": [\"{z}/{x}/{y}.png\"]}").unwrap();
    assert_refused_and_kept(&["shot", "--terrain", s(&pyramid), "--size", "16x16", "--out", s(&tiles)], &["--out", "--terrain"], &tiles);
}

#[test]
fn bench_json_equal_to_the_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_in(dir.path(), "assets/paths/high-pan.json");
    assert_refused_and_kept(
        &["bench", "--path", s(&path), "--size", "16x16", "--frames", "1", "--max-depth", "10", "--json", s(&path)],
        &["--json", "--path"],
        &path,
    );
    assert_refused_and_kept(
        &[
            "bench",
            "--path",
            s(&path),
            "--size",
            "16x16",
            "--frames",
            "1",
            "--max-depth",
            "10",
            "--json",
            s(&dir.path().join("b.json")),
            "--plot",
            s(&path),
        ],
        &["--plot", "--path"],
        &path,
    );
}

#[test]
fn bench_json_equal_to_plot_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_in(dir.path(), "assets/paths/high-pan.json");
    let out = dir.path().join("out.json");
    assert_clean_failure(
        &bisector(&[
            "bench",
            "--path",
            s(&path),
            "--size",
            "16x16",
            "--frames",
            "1",
            "--max-depth",
            "10",
            "--json",
            s(&out),
            "--plot",
            s(&out),
        ]),
        &["--plot", "--json"],
    );
    assert!(!out.exists(), "a refused bench wrote {}", out.display());
}

#[test]
fn quality_json_equal_to_the_camera_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let camera = copy_in(dir.path(), "assets/paths/high-pan.json");
    assert_refused_and_kept(
        &["quality", "--camera", s(&camera), "--size", "16x16", "--max-depth", "10", "--json", s(&camera)],
        &["--json", "--camera"],
        &camera,
    );
}

#[test]
fn kernel_outputs_equal_to_their_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    std::fs::write(&a, "1,2,3\n4,5,6\n").unwrap();
    std::fs::write(&b, "7,8,9\n").unwrap();
    assert_refused_and_kept(
        &["kernel", "closest-pairs", "--a", s(&a), "--b", s(&b), "--iterations", "1", "--pairs", s(&a)],
        &["--pairs", "--a"],
        &a,
    );
    assert_refused_and_kept(
        &["kernel", "closest-pairs", "--a", s(&a), "--b", s(&b), "--iterations", "1", "--json", s(&b)],
        &["--json", "--b"],
        &b,
    );
    let (patterns, text) = (dir.path().join("patterns.txt"), dir.path().join("text.txt"));
    std::fs::write(&patterns, "abc\nb.d\n").unwrap();
    std::fs::write(&text, "abcdabcd").unwrap();
    assert_refused_and_kept(
        &["kernel", "shift-and", "--patterns", s(&patterns), "--text", s(&text), "--iterations", "1", "--matches", s(&patterns)],
        &["--matches", "--patterns"],
        &patterns,
    );
    assert_refused_and_kept(
        &["kernel", "shift-and", "--patterns", s(&patterns), "--text", s(&text), "--iterations", "1", "--json", s(&text)],
        &["--json", "--text"],
        &text,
    );
    let both = dir.path().join("both.txt");
    assert_clean_failure(
        &bisector(&[
            "kernel",
            "shift-and",
            "--patterns",
            s(&patterns),
            "--text",
            s(&text),
            "--iterations",
            "1",
            "--json",
            s(&both),
            "--matches",
            s(&both),
        ]),
        &["--matches", "--json"],
    );
    assert!(!both.exists());
}

/// An existing output is replaced by a new file renamed over it, never rewritten in place: a
/// reader that opened the old file still reads it whole, and no temporary file is left behind.
#[test]
fn an_existing_output_is_replaced_atomically() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    std::fs::write(&png, b"the old picture").unwrap();
    let mut old = std::fs::File::open(&png).unwrap();
    let out = bisector(&["shot", "--size", "16x16", "--max-depth", "10", "--out", s(&png)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut seen = Vec::new();
    old.read_to_end(&mut seen).unwrap();
    assert_eq!(seen, b"the old picture", "the old file was rewritten in place");
    assert_eq!(image::open(&png).unwrap().to_rgba8().dimensions(), (16, 16));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "files left beside the output: {names:?}");
}

#[test]
fn numeric_options_are_bounded_before_the_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_in(dir.path(), "assets/paths/high-pan.json");
    let json = dir.path().join("b.json");
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "--path", s(&path), "--size", "16x16", "--max-depth", "10", "--json", s(&json)];
        args.extend_from_slice(extra);
        bisector(&args)
    };
    assert_clean_failure(&bench(&["--warmup", "4000000000"]), &["--warmup"]);
    assert_clean_failure(&bench(&["--frames", "4000000000"]), &["--frames"]);
    assert_clean_failure(&bench(&["--fps", "0.001"]), &["--fps"]);
    assert_clean_failure(&bench(&["--fps", "1e9"]), &["--fps"]);
    assert_clean_failure(&bisector(&["view", "--frames", "4000000000"]), &["--frames"]);
    assert!(!json.exists());
    for kernel in ["cbt", "chained-hash", "compact-hash", "closest-pairs", "shift-and", "tile-table"] {
        assert_clean_failure(&bisector(&["kernel", kernel, "--iterations", "4000000000"]), &["--iterations"]);
    }
    let png = dir.path().join("x.png");
    let max_samples = bisector(&["shot", "--max-samples", "0", "--size", "16x16", "--out", s(&png)]);
    assert_clean_failure(&max_samples, &["--max-samples 0"]);
    assert!(!error_lines(&max_samples)[0].contains("--terrain"), "{:?}", error_lines(&max_samples));
    assert_clean_failure(
        &bisector(&["shot", "--terrain", "planet:9999999999999", "--size", "16x16", "--out", s(&png)]),
        &["seed", "out of range"],
    );
    assert_clean_failure(
        &bisector(&["shot", "--cache-tiles", "0", "--terrain", "planet", "--size", "16x16", "--out", s(&png)]),
        &["--cache-tiles"],
    );
    assert!(!png.exists());
}

#[test]
fn kernel_sizes_past_the_binding_limits_name_the_option() {
    // 100,000 patterns keep 4 bytes per pattern and chunk: past lavapipe's 128 MiB binding.
    let out = bisector(&["kernel", "shift-and", "--count", "100000", "--iterations", "1"]);
    if !out.status.success() {
        assert_clean_failure(&out, &["--count"]);
    }
    assert_clean_failure(&bisector(&["kernel", "shift-and", "--count", "10000000", "--iterations", "1"]), &["--count 10000000"]);
    // 2^28 bucket heads are 1 GiB.
    let out = bisector(&["kernel", "chained-hash", "--elements-log2", "4", "--buckets-log2", "28", "--iterations", "1"]);
    if !out.status.success() {
        assert_clean_failure(&out, &["--buckets-log2"]);
    }
}

/// Past the device's default 8192 but within the adapter's limit: the limit is raised, not
/// crashed into.
#[test]
fn a_size_past_the_default_texture_limit_renders() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("wide.png");
    let out = bisector(&["shot", "--size", "9000x8", "--max-depth", "10", "--out", s(&png)]);
    if out.status.success() {
        assert_eq!(image::open(&png).unwrap().to_rgba8().dimensions(), (9000, 8));
    } else {
        assert_clean_failure(&out, &["--size", "max_texture_dimension_2d"]);
    }
}

#[test]
fn negative_numbers_need_no_equals_sign() {
    let out = bisector(&["probe", "--at", "-5,10"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "nodata");
    // The globe's camera, west and south.
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("globe.png");
    let out = bisector(&[
        "shot",
        "--terrain",
        "planet",
        "--camera",
        "-150,-20,30000,-90,-10",
        "--size",
        "8x8",
        "--max-depth",
        "8",
        "--cache-tiles",
        "16",
        "--out",
        s(&png),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("camera 30000.0 m above the ellipsoid"));
    let out = bisector(&["quality", "--camera", "-100,-100,3000,10240,10240,0", "--max-depth", "40"]);
    assert_clean_failure(&out, &["max depth 40"]);
}

#[test]
fn a_missing_required_option_is_named() {
    let out = bisector(&["shot"]);
    assert_eq!(out.status.code(), Some(2));
    assert_clean_failure(&out, &["--out"]);
    let out = bisector(&["bench", "--json", "x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_clean_failure(&out, &["--path"]);
}

#[test]
fn no_arguments_print_the_help() {
    for (args, expect) in [(&[][..], "Commands:"), (&["kernel"][..], "chained-hash")] {
        let out = bisector(args);
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(matches!(out.status.code(), Some(0 | 2)), "{args:?}: {:?}", out.status);
        assert!(text.contains("Usage:") && text.contains(expect), "{args:?} printed no help: {text}");
    }
}

/// `bisector kernel cbt | head -0`: stdout closed before anything is printed.
#[test]
fn a_closed_stdout_ends_quietly_with_success() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["kernel", "cbt", "--max-depth", "10", "--iterations", "1"])
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
}

/// `bisector bench ... | head -0`: the table is not printed, the report is still written.
#[test]
fn a_closed_stdout_does_not_stop_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/paths/high-pan.json");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args([
            "bench",
            "--path",
            path,
            "--size",
            "16x16",
            "--frames",
            "2",
            "--warmup",
            "0",
            "--max-depth",
            "10",
            "--fps",
            "0",
            "--json",
            s(&json),
        ])
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["meta"]["frames"], 2);
}

#[test]
fn headless_commands_are_quiet_without_xdg_runtime_dir() {
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["kernel", "cbt", "--max-depth", "10", "--iterations", "1"])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(error_lines(&out), Vec::<String>::new());
}

/// A globe camera-path file gives the globe's `--camera` its first pose (the descent starts
/// 20,000 km up); a flat path file is named as the wrong kind.
#[test]
fn the_globe_camera_takes_a_path_file() {
    let dir = tempfile::tempdir().unwrap();
    let globe_path = copy_in(dir.path(), "assets/paths/globe-taiwan-descent.json");
    let png = dir.path().join("x.png");
    let shot = |camera: &Path| {
        bisector(&[
            "shot",
            "--terrain",
            "planet",
            "--size",
            "16x16",
            "--max-depth",
            "10",
            "--cache-tiles",
            "16",
            "--camera",
            s(camera),
            "--out",
            s(&png),
        ])
    };
    let out = shot(&globe_path);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("camera 20000000.0 m above the ellipsoid"), "{stdout}");
    assert_eq!(image::open(&png).unwrap().to_rgba8().dimensions(), (16, 16));
    std::fs::remove_file(&png).unwrap();
    let flat = copy_in(dir.path(), "assets/paths/high-pan.json");
    assert_clean_failure(&shot(&flat), &["high-pan.json"]);
    assert!(!png.exists());
}

/// `kernel all` on whatever adapter runs the tests (lavapipe in CI): every kernel has its rows
/// or one line saying why it was skipped, and it succeeds. --shrink-log2 keeps it quick.
#[test]
fn kernel_all_runs_on_this_adapter() {
    let out = bisector(&["kernel", "all", "--shrink-log2", "10"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for kernel in ["chained-hash", "compact-hash", "closest-pairs", "shift-and", "tile-table", "cbt D="] {
        assert!(stdout.lines().any(|l| l.starts_with(kernel)), "no row for {kernel}:\n{stdout}");
    }
}

/// One bucket makes a chain of 2^16 elements: past lavapipe's loop limit, which the report names.
#[test]
fn a_chain_past_lavapipes_loop_limit_is_warned_about() {
    let out = bisector(&["kernel", "chained-hash", "--elements-log2", "16", "--buckets-log2", "0", "--iterations", "1", "--seed", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.contains("llvmpipe") {
        assert!(stdout.contains("warning: lavapipe stops a shader loop"), "{stdout}");
    }
    if !out.status.success() {
        assert_clean_failure(&out, &["chained-hash"]);
    }
}

/// On the globe a camera below the surface, or less than 1 m above it, is one error line for
/// `shot` and for `bench` (every frame's pose is checked before any GPU work), with a non-zero
/// exit and no output written.
#[test]
fn a_globe_camera_below_the_surface_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let terrain = "planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb";
    let out = dir.path().join("under.png");
    // Yushan, about 3,950 m high, with the camera at 1,000 m.
    let shot = bisector(&["shot", "--terrain", terrain, "--size", "32x24", "--camera", "120.9572,23.47,1000", "--out", s(&out)]);
    assert_clean_failure(&shot, &["--camera", "m below the surface", "20agl"]);
    assert!(!out.exists(), "shot wrote an image from below the surface");
    let path = dir.path().join("under.json");
    std::fs::write(
        &path,
        r#"{"keyframes": [
  {"time_s": 0.0, "lon_deg": 120.9572, "lat_deg": 23.0, "altitude_m": 5000.0, "heading_deg": 0.0, "pitch_deg": -10.0},
  {"time_s": 2.0, "lon_deg": 120.9572, "lat_deg": 23.47, "altitude_m": 1000.0, "heading_deg": 0.0, "pitch_deg": -10.0}
]}"#,
    )
    .unwrap();
    let json = dir.path().join("bench.json");
    let bench = bisector(&["bench", "--terrain", terrain, "--path", s(&path), "--size", "32x24", "--frames", "5", "--json", s(&json)]);
    assert_clean_failure(&bench, &["under.json", "(frame ", "m below the surface"]);
    assert!(!json.exists(), "bench wrote a report");
}

/// A camera below the ground renders (the user may mean it) with one warning line naming the
/// depth below the ground; above the ground there is no warning.
#[test]
fn a_camera_below_the_ground_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("under.png");
    let under =
        bisector(&["shot", "--size", "32x24", "--max-depth", "12", "--camera", "10240,10240,-500,12000,12000,-500", "--out", s(&out)]);
    assert!(under.status.success(), "{}", String::from_utf8_lossy(&under.stderr));
    let stderr = String::from_utf8_lossy(&under.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("m below the ground"), "{stderr}");
    let above =
        bisector(&["shot", "--size", "32x24", "--max-depth", "12", "--camera", "10240,10240,9000,12000,12000,500", "--out", s(&out)]);
    assert!(
        above.status.success() && !String::from_utf8_lossy(&above.stderr).contains("below the ground"),
        "{}",
        String::from_utf8_lossy(&above.stderr)
    );
}

/// A tile source as the planet's base (it must be a global GeoTIFF) is one line, before anything
/// is fetched: no warning about the address comes first.
#[test]
fn a_tile_source_as_the_planets_base_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("out.png");
    let archive = dir.path().join("base.mbtiles");
    std::fs::write(&archive, b"not opened").unwrap();
    for base in ["http://127.0.0.1:9/{z}/{x}/{y}.png", s(&archive)] {
        let out = bisector(&["shot", "--terrain", &format!("planet:{base}"), "--size", "16x16", "--out", s(&png)]);
        assert_clean_failure(&out, &["base must be a global GeoTIFF"]);
        assert!(!png.exists());
    }
}
