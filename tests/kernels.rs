//! Diagnostic kernels: every GPU result equals the CPU reference on fresh random inputs of several
//! sizes and distributions, and the CLI reports it.

mod common;

use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::chained_hash::{run, BuildVariant, ChainedHashOptions, KeyDistribution};
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
fn kernels_run_from_the_cli_and_write_json() {
    let dir = tempfile::tempdir().unwrap();
    for (args, name) in [
        (vec!["kernel", "chained-hash", "--elements-log2", "12", "--buckets-log2", "9", "--iterations", "2"], "chained.json"),
        (vec!["kernel", "cbt", "--max-depth", "12", "--fill", "0.5", "--iterations", "2"], "cbt.json"),
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
