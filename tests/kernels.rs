//! Diagnostic kernels: every GPU result equals the CPU reference on fresh random inputs of several
//! sizes and distributions, and the CLI reports it.

mod common;

use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::chained_hash::{run, BuildVariant, ChainedHashOptions, KeyDistribution};
use bisector::kernels::closest_pairs::{self as cp, ClosestPairsOptions, Distribution};
use bisector::kernels::compact_hash::{self as ch, CompactHashOptions, VectorDistribution};
use bisector::kernels::shift_and as sa;
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
            let options =
                ChainedHashOptions { element_log2, bucket_log2, keys, variant: BuildVariant::Both, iterations: 1, seed: rng.random() };
            let report = run(&gpu, &options);
            assert!(
                report.verified,
                "2^{element_log2} elements, 2^{bucket_log2} buckets, {keys:?} keys, seed {}: {}",
                options.seed,
                report.summary()
            );
            assert_eq!(report.builds.len(), 2);
            assert_eq!(report.lookups.len(), 3);
        }
    }
}

fn compact_hash_gpu() -> Gpu {
    Gpu::headless(
        &Requirements::kernel(64 << 20, "tests".into())
            .with_feature(wgpu::Features::SHADER_INT64, "64-bit nodes")
            .with_feature(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS, "64-bit compare-and-swap"),
    )
    .unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

#[test]
fn compact_hash_gpu_equals_cpu() {
    let mut rng = common::rng("compact_hash_gpu_equals_cpu");
    let gpu = compact_hash_gpu();
    // (length, bucket size, log2 slots, vectors): every length and bucket size, fills 0.05 to 0.7,
    // one vector, and three copies of one vector racing in one batch (duplicates of 3 vectors).
    for (length, bucket_size, table_log2, vectors) in [
        (1, 2, 10, 400),
        (2, 4, 12, 2000),
        (3, 8, 12, 1000),
        (4, 2, 14, 3000),
        (5, 16, 12, 700),
        (6, 4, 13, 900),
        (7, 32, 12, 500),
        (8, 2, 14, 1100),
        (4, 4, 6, 1),
        (8, 8, 6, 3),
    ] {
        for distribution in [VectorDistribution::Uniform, VectorDistribution::Shared, VectorDistribution::Duplicates] {
            let options = CompactHashOptions {
                length,
                bucket_size,
                table_log2,
                vectors: Some(vectors),
                fill: 0.5,
                distribution,
                iterations: 1,
                seed: rng.random(),
            };
            let report = ch::run(&gpu, &options);
            assert!(report.verified && !report.overflow, "{options:?}: {}", report.summary());
            // Exactly one findOrPut reported each distinct vector new, in both tables.
            assert_eq!(report.compressed.new_vectors, report.distinct_vectors, "{options:?}");
            assert_eq!(report.uncompressed.new_vectors, report.distinct_vectors, "{options:?}");
        }
    }
}

#[test]
fn compact_hash_root_equal_to_a_word_pair_is_a_new_vector() {
    // [s, 9, 1] stores the word pair (s, 9), where s is the slot that node (5, 6) takes in an
    // empty table; the root of [5, 6, 9] is (reference s, word 9): bit for bit the same node.
    // All vectors must still be new once, whichever order the threads take.
    let gpu = compact_hash_gpu();
    let options = CompactHashOptions {
        length: 3,
        bucket_size: 2,
        table_log2: 12,
        vectors: None,
        fill: 0.5,
        distribution: VectorDistribution::Uniform,
        iterations: 1,
        seed: 1,
    };
    let s = options.geometry().probe(ch::hash_node(5, 6)).next().unwrap();
    let cpu = ch::CompactTable::new(options.geometry());
    let words = [5, 6, 7, s, 9, 1, 5, 6, 9, 5, 6, 9, s, 9, 1];
    for v in words.chunks(3) {
        cpu.find_or_put(v);
    }
    assert_eq!(cpu.snapshot().nodes.iter().filter(|&&n| n != 0).count(), 4, "the root of [5, 6, 9] is the pair (s, 9)");
    let report = ch::run_on_vectors(&gpu, &options, &words);
    assert!(report.verified && !report.overflow, "{}", report.summary());
    assert_eq!((report.distinct_vectors, report.compressed.new_vectors), (3, 3), "{}", report.summary());
}

#[test]
fn compact_hash_reports_a_full_table() {
    let gpu = compact_hash_gpu();
    // 1000 distinct vectors of 4 words need about 3000 nodes; the table has 256 slots.
    let options = CompactHashOptions {
        length: 4,
        bucket_size: 4,
        table_log2: 8,
        vectors: Some(1000),
        fill: 0.5,
        distribution: VectorDistribution::Uniform,
        iterations: 1,
        seed: 5,
    };
    let report = ch::run(&gpu, &options);
    assert!(report.overflow && report.compressed.failed > 0 && report.uncompressed.failed == 0, "{}", report.summary());
    // What was stored is consistent: the vectors that found room decode, none is new twice.
    assert!(report.compressed.verified, "{}", report.summary());
    assert!(report.compressed.new_vectors + report.compressed.failed <= 1000);
    assert!(report.overflow_message().unwrap().contains("compressed table (2^8 slots) found no free slot"));
}

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
    let b: Vec<cp::Point> =
        (0..512).map(|i| [1.0e6 + (i % 8) as f32 * 4.0, 2.0e6 + (i / 8 % 8) as f32 * 4.0, (i / 64) as f32 * 4.0]).collect();
    let a: Vec<cp::Point> = (0..512)
        .map(|i| {
            [
                1.0e6 + 2.0 + (i % 8) as f32 * 4.0,
                2.0e6 + 2.0 + (i / 8 % 8) as f32 * 4.0 + (i % 3) as f32 * 0.125,
                (i / 64) as f32 * 4.0 + 2.0,
            ]
        })
        .collect();
    let report = cp::run(&gpu, &options, &cp::Armies { a, b, source: "lattice".into() });
    assert!(report.verified, "{}", report.summary());
}

#[test]
fn kernels_run_from_the_cli_and_write_json() {
    let dir = tempfile::tempdir().unwrap();
    for (args, name) in [
        (vec!["kernel", "chained-hash", "--elements-log2", "12", "--buckets-log2", "9", "--iterations", "2"], "chained.json"),
        (vec!["kernel", "chained-hash", "--elements-log2", "0", "--buckets-log2", "0", "--iterations", "1"], "chained-one.json"),
        (vec!["kernel", "cbt", "--max-depth", "12", "--fill", "0.5", "--iterations", "2"], "cbt.json"),
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

/// A random pattern of up to `items` items over `alphabet`, using every syntax element.
fn random_pattern(rng: &mut impl Rng, alphabet: &[u8], items: usize) -> Vec<u8> {
    let mut p = Vec::new();
    for _ in 0..rng.random_range(1..=items) {
        let pick = |rng: &mut dyn rand::RngCore| alphabet[(rng.next_u32() as usize) % alphabet.len()];
        match rng.random_range(0..8) {
            0 => p.push(b'.'),
            1 => {
                let (a, b) = (pick(rng), pick(rng));
                p.extend_from_slice(&[b'[', a.min(b), b'-', a.max(b), b']']);
            }
            2 => p.extend_from_slice(&[b'[', pick(rng), pick(rng), b']']),
            3 => p.extend_from_slice(&[b'[', b'^', pick(rng), b']']),
            _ => p.push(pick(rng)),
        }
        match rng.random_range(0..10) {
            0 => p.push(b'?'),
            1 => p.push(b'*'),
            2 => p.push(b'+'),
            3 => {
                let x = rng.random_range(0..3);
                p.extend_from_slice(format!("{{{x},{}}}", x + rng.random_range(1..4)).as_bytes());
            }
            4 => p.extend_from_slice(format!("{{{}}}", rng.random_range(1..3)).as_bytes()),
            _ => {}
        }
    }
    p
}

#[test]
fn shift_and_cpu_equals_naive_matcher() {
    let mut rng = common::rng("shift_and_cpu_equals_naive_matcher");
    for round in 0..300 {
        let alphabet: &[u8] = if round % 2 == 0 { b"ab" } else { b"abcd" };
        let pattern = random_pattern(&mut rng, alphabet, 5);
        let items = sa::parse(&pattern).unwrap();
        let Ok(compiled) = sa::compile(&items) else { continue };
        let text: Vec<u8> = (0..rng.random_range(1..60)).map(|_| alphabet[rng.random_range(0..alphabet.len())]).collect();
        assert_eq!(
            sa::match_ends(&compiled, &text),
            sa::naive_match_ends(&items, &text),
            "pattern {} text {}",
            String::from_utf8_lossy(&pattern),
            String::from_utf8_lossy(&text)
        );
    }
}

#[test]
fn shift_and_gpu_equals_cpu_for_any_chunking() {
    let mut rng = common::rng("shift_and_gpu_equals_cpu_for_any_chunking");
    let gpu = kernel_gpu();
    let alphabet = b"abc";
    let mut patterns: Vec<Vec<u8>> =
        (0..40).map(|_| random_pattern(&mut rng, alphabet, 6)).filter(|p| sa::compile(&sa::parse(p).unwrap()).is_ok()).collect();
    // Unbounded repeats across chunks, the empty-matching ones, and patterns of 2 to 5 modules.
    patterns.extend([&b"a.*b"[..], b"a*", b"a?b?c?", b"[^c]+c", b"c{3,}"].map(|p| p.to_vec()));
    patterns.push(b"ab?c*.".repeat(20));
    patterns.push(b"[ab]{1,3}c?".repeat(20));
    patterns.push(b"a.{30}b.{30}c.{30}a".to_vec());
    let text: Vec<u8> = (0..3000).map(|_| alphabet[rng.random_range(0..3)]).collect();
    let work = sa::Workload { patterns, text, source: "random".into() };
    // Carry rounds (the default) and the sequential fall-back (forced by 0 rounds).
    for max_carry_rounds in [sa::MAX_CARRY_ROUNDS, 0] {
        for chunk_len in [1, 7, 64, 1000, 3000] {
            let report = sa::run(&gpu, &sa::ShiftAndOptions { chunk_len, iterations: 1, capacity: 1 << 20, max_carry_rounds }, &work);
            assert!(report.verified && !report.positions_overflowed, "chunk {chunk_len}, {max_carry_rounds} rounds: {}", report.summary());
            assert_eq!(report.sequential_fixup, max_carry_rounds == 0 && chunk_len < 3000);
        }
    }
    assert!(sa::compile(&sa::parse(&b"ab?c*.".repeat(20)).unwrap()).unwrap().words.len() >= 3);
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
