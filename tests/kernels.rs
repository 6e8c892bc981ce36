//! Diagnostic kernels: every GPU result equals the CPU reference on fresh random inputs of several
//! sizes and distributions, and the CLI reports it.

mod common;

use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::chained_hash::{run, BuildVariant, ChainedHashOptions, KeyDistribution};
use bisector::kernels::closest_pairs::{self as cp, ClosestPairsOptions, Distribution};
use rand::Rng;

fn kernel_gpu() -> Gpu {
    Gpu::headless(&Requirements::kernel(64 << 20, "tests".into()).with_feature(wgpu::Features::SUBGROUP, "subgroup build"))
        .unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

#[test]
fn chained_hash_gpu_equals_cpu() {
    let mut rng = common::rng("chained_hash_gpu_equals_cpu");
    let gpu = kernel_gpu();
    // (elements, buckets) as log2: one bucket, more buckets than elements, long chains.
    for (element_log2, bucket_log2) in [(1, 0), (10, 12), (14, 6), (16, 15)] {
        for keys in [KeyDistribution::Uniform, KeyDistribution::Duplicates, KeyDistribution::Sequential] {
            let options = ChainedHashOptions { element_log2, bucket_log2, keys, variant: BuildVariant::Both, iterations: 1, seed: rng.random() };
            let report = run(&gpu, &options);
            assert!(report.verified, "2^{element_log2} elements, 2^{bucket_log2} buckets, {keys:?} keys, seed {}: {}", options.seed, report.summary());
            assert_eq!(report.builds.len(), 2);
            assert_eq!(report.lookups.len(), 3);
        }
    }
}

#[test]
fn closest_pairs_gpu_equals_cpu() {
    let mut rng = common::rng("closest_pairs_gpu_equals_cpu");
    let gpu = kernel_gpu();
    let options = ClosestPairsOptions { variant: cp::Variant::Both, iterations: 1 };
    // One point each, fewer A than 100, two top-100 rounds (more than 2048 A), B much larger than A.
    for (m, n) in [(1, 1), (1, 300), (60, 1), (5000, 200), (700, 2500)] {
        for distribution in [Distribution::Uniform, Distribution::Clustered, Distribution::Equal] {
            let armies = cp::make_armies(m, n, distribution, rng.random());
            let report = cp::run(&gpu, &options, &armies);
            assert!(report.verified, "{m} x {n} {}: {}", armies.source, report.summary());
            assert_eq!(report.pairs.len(), m.min(100));
            // The CPU reference itself equals the brute force.
            if m * n <= 1 << 20 {
                let brute = cp::nearest_brute_cpu(&armies.a, &armies.b);
                assert_eq!(cp::top_pairs(&brute, 100), report.pairs, "{}", armies.source);
            }
        }
    }
    // Near ties at large coordinates: B on a lattice, A at lattice midpoints, shifted by an ulp.
    let b: Vec<cp::Point> = (0..512).map(|i| [1.0e6 + (i % 8) as f32 * 4.0, 2.0e6 + (i / 8 % 8) as f32 * 4.0, (i / 64) as f32 * 4.0]).collect();
    let a: Vec<cp::Point> = (0..512).map(|i| [1.0e6 + 2.0 + (i % 8) as f32 * 4.0, 2.0e6 + 2.0 + (i / 8 % 8) as f32 * 4.0 + (i % 3) as f32 * 0.125, (i / 64) as f32 * 4.0 + 2.0]).collect();
    let report = cp::run(&gpu, &options, &cp::Armies { a, b, source: "lattice".into() });
    assert!(report.verified, "{}", report.summary());
}

#[test]
fn kernels_run_from_the_cli_and_write_json() {
    let dir = tempfile::tempdir().unwrap();
    for (args, name) in [
        (vec!["kernel", "chained-hash", "--elements-log2", "12", "--buckets-log2", "9", "--iterations", "2"], "chained.json"),
        (vec!["kernel", "cbt", "--max-depth", "12", "--fill", "0.5", "--iterations", "2"], "cbt.json"),
        (vec!["kernel", "closest-pairs", "--m", "300", "--n", "200", "--distribution", "clustered", "--iterations", "2"], "closest.json"),
    ] {
        let json = dir.path().join(name);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector")).args(&args).arg("--json").arg(&json).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["verified"], true, "{report}");
    }
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_bisector")).args(["kernel", "chained-hash", "--elements-log2", "40"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--elements-log2 40"));
}

#[test]
fn closest_pairs_cli_reads_armies_and_writes_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, pairs, json) = (dir.path().join("a.csv"), dir.path().join("b.csv"), dir.path().join("pairs.csv"), dir.path().join("r.json"));
    std::fs::write(&a, "0,0,0\n10,0,0\n5,5,5\n").unwrap();
    std::fs::write(&b, "1,0,0\n9,0,0\n100,100,100\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_bisector");
    let out = std::process::Command::new(bin).args(["kernel", "closest-pairs", "--iterations", "1", "--a"]).arg(&a).arg("--b").arg(&b).arg("--pairs").arg(&pairs).arg("--json").arg(&json).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A 0 and A 1 are 1 from B 0 and B 1 (equal distances: A id orders them); A 2 is sqrt(66)
    // from both B 0 and B 1: the smaller B id wins.
    assert_eq!(std::fs::read_to_string(&pairs).unwrap(), format!("a,b,distance\n0,0,1\n1,1,1\n2,0,{}\n", 66f64.sqrt()));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["verified"], true);
    for (args, expected) in [
        (vec!["--m", "0"], "--m 0: the army is empty"),
        (vec!["--n", "0"], "--n 0: the army is empty"),
    ] {
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
