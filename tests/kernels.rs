//! `bisector kernel NAME` for the seed papers' kernels (and the renderer's cbt and pool) (crates/kernels, whose own tests compare
//! every GPU result with the CPU reference): the CLI runs them, writes `verified: true` and their
//! outputs, and refuses bad options and bad input files in one line.

#[test]
fn compact_hash_cli_runs_and_refuses_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_bisector");
    let json = dir.path().join("compact.json");
    // The default size, then vectors of one word with racing duplicates.
    for args in [vec![], vec!["--length", "1", "--distribution", "duplicates", "--table-log2", "10", "--iterations", "1"]] {
        let out = std::process::Command::new(bin).args(["kernel", "compact-hash"]).args(&args).arg("--json").arg(&json).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["verified"], true, "{report}");
        for key in ["length", "bucket_size", "vectors", "compression_ratio"] {
            assert!(report[key].is_number(), "{key}: {report}");
        }
        assert!(report["compressed"]["insert"]["median_ms"].is_number() && report["compressed"]["insert_per_s"].is_number(), "{report}");
        assert!(report["compressed"]["slots"].is_number() && report["compressed"]["fill"].is_number(), "{report}");
    }
    for (args, expected) in [
        (vec!["--length", "9"], "--length 9: must be 1..=8"),
        (vec!["--length", "0"], "--length 0"),
        (vec!["--bucket-size", "3"], "--bucket-size 3: must be 2, 4, 8, 16 or 32"),
        (vec!["--bucket-size", "32", "--table-log2", "4"], "--table-log2 4"),
        (vec!["--table-log2", "28"], "--table-log2 28"),
        (vec!["--fill", "0"], "--fill 0"),
        (vec!["--vectors", "0"], "--vectors 0"),
        (vec!["--iterations", "0"], "--iterations 0"),
    ] {
        let out = std::process::Command::new(bin).args(["kernel", "compact-hash"]).args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
    // A full table: one clear line and a failure, no hang.
    let out = std::process::Command::new(bin)
        .args(["kernel", "compact-hash", "--table-log2", "6", "--vectors", "500", "--iterations", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("compact-hash")).collect();
    assert!(lines.len() == 1 && lines[0].contains("the table is full") && lines[0].contains("raise --table-log2"), "{stderr}");
}

#[test]
fn kernels_run_from_the_cli_and_write_json() {
    let dir = tempfile::tempdir().unwrap();
    for (args, name) in [
        (vec!["kernel", "chained-hash", "--elements-log2", "12", "--buckets-log2", "9", "--iterations", "2"], "chained.json"),
        (vec!["kernel", "chained-hash", "--elements-log2", "0", "--buckets-log2", "0", "--iterations", "1"], "chained-one.json"),
        (vec!["kernel", "cbt", "--max-depth", "12", "--fill", "0.5", "--iterations", "2"], "cbt.json"),
        (vec!["kernel", "pool", "--pool-slots", "4096", "--random-depth", "12", "--frames", "6"], "pool.json"),
        (vec!["kernel", "closest-pairs", "--m", "300", "--n", "200", "--distribution", "clustered", "--iterations", "2"], "closest.json"),
    ] {
        let json = dir.path().join(name);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector")).args(&args).arg("--json").arg(&json).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["verified"], true, "{report}");
    }
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["kernel", "chained-hash", "--elements-log2", "40"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--elements-log2 40"));
    // The pool: a tiny pool caps (the random criterion wants more than 4096 leaves); bad
    // options are one line each.
    let pool: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("pool.json")).unwrap()).unwrap();
    assert!(pool["capped_leaves_max"].as_u64().unwrap() > 0 && pool["leaves_max"].as_u64().unwrap() <= 4096, "{pool}");
    for (args, expected) in [
        (vec!["--pool-slots", "1000"], "--pool-slots 1000"),
        (vec!["--foci", "9"], "--foci 9"),
        (vec!["--random-depth", "70"], "--random-depth 70"),
        (vec!["--max-depth", "64"], "max depth 64"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector")).args(["kernel", "pool"]).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(expected) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
}

/// `kernel cbt` names the reduction's path that ran, and runs any on request (lavapipe has
/// subgroups, and `one-split` needs D >= 17 for its second dispatch); a tree too small for the
/// subgroup path is one clear error line.
#[test]
fn cbt_kernel_reports_its_reduce_path() {
    let dir = tempfile::tempdir().unwrap();
    for path in ["subgroup", "shared", "auto", "one"] {
        let json = dir.path().join(format!("cbt-{path}.json"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
            .args(["kernel", "cbt", "--max-depth", "16", "--iterations", "2", "--reduce-path", path, "--json"])
            .arg(&json)
            .output()
            .unwrap();
        assert!(out.status.success(), "{path}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["verified"], true, "{report}");
        // D = 16: auto takes the subgroup path (the one-pass path from D = 17).
        let expected = match path {
            "shared" | "one" => path,
            _ => "subgroup",
        };
        assert_eq!(report["reduce_path"], expected, "{report}");
        assert_eq!(report["reduce_dispatches"], if expected == "shared" { 2 } else { 1 }, "{report}");
        assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{expected} path")), "{path}");
    }
    // The split one-pass path: two dispatches from D = 17 (D = 16 has no tail: the one-pass path).
    let json = dir.path().join("cbt-one-split.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["kernel", "cbt", "--max-depth", "17", "--iterations", "2", "--reduce-path", "one-split", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "one-split: {}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        (&report["verified"], &report["reduce_path"], &report["reduce_dispatches"]),
        (&true.into(), &"one-split".into(), &2.into()),
        "{report}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["kernel", "cbt", "--max-depth", "12", "--iterations", "1", "--reduce-path", "subgroup"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("--reduce-path subgroup") && stderr.lines().count() == 1, "{stderr}");
}

/// The subgroup reduction is exact whatever the subgroups: lavapipe's vector width sets them
/// (128 bits: 4 lanes, 512: 16, 1024: 16 active lanes of a subgroup_size of 32); other drivers
/// ignore the variable.
#[test]
fn cbt_subgroup_reduction_is_exact_for_several_subgroup_sizes() {
    for width in ["128", "512", "1024"] {
        for max_depth in ["14", "17"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
                .args(["kernel", "cbt", "--max-depth", max_depth, "--fill", "0.5", "--iterations", "1", "--reduce-path", "subgroup"])
                .env("LP_NATIVE_VECTOR_WIDTH", width)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && stdout.contains("verified: true"),
                "{width} bits, D={max_depth}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// compact-hash's subgroup variant (a bucket read by a subgroup) is exact with subgroups of 4
/// and of 16 active lanes of 32 (lavapipe's vector width; other drivers ignore the variable),
/// for buckets smaller and larger than the subgroup.
#[test]
fn compact_hash_subgroup_variant_is_exact_for_several_subgroup_sizes() {
    for width in ["128", "1024"] {
        for bucket_size in ["2", "8", "32"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
                .args(["kernel", "compact-hash", "--bucket-size", bucket_size, "--table-log2", "12", "--distribution", "duplicates"])
                .args(["--iterations", "1", "--seed", "3", "--subgroup"])
                .env("LP_NATIVE_VECTOR_WIDTH", width)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && stdout.contains("compressed-subgroup") && stdout.contains("verified: true"),
                "{width} bits, bucket {bucket_size}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn closest_pairs_cli_reads_armies_and_writes_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, pairs, json) = (dir.path().join("a.csv"), dir.path().join("b.csv"), dir.path().join("pairs.csv"), dir.path().join("r.json"));
    std::fs::write(&a, "0,0,0\n10,0,0\n5,5,5\n").unwrap();
    std::fs::write(&b, "1,0,0\n9,0,0\n100,100,100\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_bisector");
    let out = std::process::Command::new(bin)
        .args(["kernel", "closest-pairs", "--iterations", "1", "--a"])
        .arg(&a)
        .arg("--b")
        .arg(&b)
        .arg("--pairs")
        .arg(&pairs)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A 0 and A 1 are 1 from B 0 and B 1 (equal distances: A id orders them); A 2 is sqrt(66)
    // from both B 0 and B 1: the smaller B id wins.
    assert_eq!(std::fs::read_to_string(&pairs).unwrap(), format!("a,b,distance\n0,0,1\n1,1,1\n2,0,{}\n", 66f64.sqrt()));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["verified"], true);
    // The grid version's end-to-end and GPU times, and its grid equal to the CPU twin.
    assert!(report["end_to_end_ms"].as_f64().is_some_and(|t| t > 0.0) && report["gpu_ms"].is_number(), "{report}");
    assert_eq!(report["grid_verified"], true);
    for (args, expected) in [(vec!["--m", "0"], "--m 0: the army is empty"), (vec!["--n", "0"], "--n 0: the army is empty")] {
        let out = std::process::Command::new(bin).args(["kernel", "closest-pairs"]).args(&args).output().unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected) && stderr.lines().count() == 1, "{stderr}");
    }
    std::fs::write(&b, "1,0,0\n9,0\n").unwrap();
    let out = std::process::Command::new(bin).args(["kernel", "closest-pairs", "--a"]).arg(&a).arg("--b").arg(&b).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("b.csv:2:"), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&b, "").unwrap();
    let out = std::process::Command::new(bin).args(["kernel", "closest-pairs", "--a"]).arg(&a).arg("--b").arg(&b).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no points"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn shift_and_cli_reads_files_and_writes_matches() {
    let dir = tempfile::tempdir().unwrap();
    let (patterns, text, matches, json) =
        (dir.path().join("p.txt"), dir.path().join("t.txt"), dir.path().join("m.txt"), dir.path().join("r.json"));
    std::fs::write(&patterns, "ab+\n[xy].?z\r\n").unwrap();
    std::fs::write(&text, "abbxzab").unwrap();
    let bin = env!("CARGO_BIN_EXE_bisector");
    let out = std::process::Command::new(bin)
        .args(["kernel", "shift-and", "--chunk", "2", "--iterations", "1", "--patterns"])
        .arg(&patterns)
        .arg("--text")
        .arg(&text)
        .arg("--matches")
        .arg(&matches)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&matches).unwrap(), "0 1\n0 2\n0 6\n1 4\n");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["verified"], true);
    let out = std::process::Command::new(bin)
        .args(["kernel", "shift-and", "--iterations", "1", "--count", "8", "--text-bytes", "5000", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Counts only, and the sequential carry, on the same files.
    let out = std::process::Command::new(bin)
        .args(["kernel", "shift-and", "--chunk", "3", "--iterations", "1", "--count-only", "--carry", "sequential", "--patterns"])
        .arg(&patterns)
        .arg("--text")
        .arg(&text)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!((&report["verified"], &report["count_only"], &report["carry"]), (&true.into(), &true.into(), &"sequential".into()));
    assert_eq!(report["counts"], serde_json::json!([3, 1]));
    std::fs::write(&patterns, "ab\na{3,1}\n").unwrap();
    let out = std::process::Command::new(bin)
        .args(["kernel", "shift-and", "--patterns"])
        .arg(&patterns)
        .arg("--text")
        .arg(&text)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("p.txt:2:"), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&text, "").unwrap();
    std::fs::write(&patterns, "ab\n").unwrap();
    let out = std::process::Command::new(bin)
        .args(["kernel", "shift-and", "--patterns"])
        .arg(&patterns)
        .arg("--text")
        .arg(&text)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("the text is empty"), "{}", String::from_utf8_lossy(&out.stderr));
}
