//! The seed papers' kernels: every GPU result equals the CPU reference on fresh random inputs of
//! several sizes and distributions (run through `Kernel::run`, as the CLI and the viewer's kernel
//! lab run them). `bisector kernel NAME` is tested beside the binary (tests/kernels.rs of the
//! workspace's root).

mod common;

use bisector_kernels::chained_hash::{BuildVariant, ChainedHash, ChainedHashOptions, KeyDistribution};
use bisector_kernels::closest_pairs::{self as cp, ClosestPairs, ClosestPairsInput, ClosestPairsOptions, Distribution};
use bisector_kernels::compact_hash::{self as ch, CompactHash, CompactHashOptions, VectorDistribution};
use bisector_kernels::shift_and::{self as sa, ShiftAnd, ShiftAndInput};
use bisector_kernels::Kernel;
use common::{compact_hash_gpu, kernel_gpu};
use rand::Rng;

#[test]
fn chained_hash_gpu_equals_cpu() {
    let mut rng = common::rng("chained_hash_gpu_equals_cpu");
    let gpu = kernel_gpu();
    // (elements, buckets) as log2: one bucket, more buckets than elements, long chains.
    for (element_log2, bucket_log2) in [(1, 0), (10, 12), (14, 6), (16, 15)] {
        for keys in [KeyDistribution::Uniform, KeyDistribution::Duplicates, KeyDistribution::Sequential] {
            let options =
                ChainedHashOptions { element_log2, bucket_log2, keys, variant: BuildVariant::Both, iterations: 1, seed: rng.random() };
            let report = ChainedHash::run(&gpu, &options).unwrap();
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
                subgroup: true,
            };
            let report = CompactHash::run(&gpu, &options).unwrap();
            assert!(report.verified && !report.overflow, "{options:?}: {}", report.summary());
            // Exactly one findOrPut reported each distinct vector new, in every table (the
            // compressed one also with a subgroup per bucket).
            assert_eq!(report.compressed.new_vectors, report.distinct_vectors, "{options:?}");
            let by_subgroup = report.compressed_subgroup.as_ref().expect("the subgroup variant ran");
            assert!(by_subgroup.verified, "{options:?}: {}", report.summary());
            assert_eq!(by_subgroup.new_vectors, report.distinct_vectors, "{options:?}");
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
        subgroup: true,
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
    assert_eq!(report.compressed_subgroup.as_ref().map(|t| t.new_vectors), Some(3), "{}", report.summary());
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
        subgroup: true,
    };
    let report = CompactHash::run(&gpu, &options).unwrap();
    assert!(report.overflow && report.compressed.failed > 0 && report.uncompressed.failed == 0, "{}", report.summary());
    // What was stored is consistent: the vectors that found room decode, none is new twice.
    assert!(report.compressed.verified, "{}", report.summary());
    assert!(report.compressed.new_vectors + report.compressed.failed <= 1000);
    let by_subgroup = report.compressed_subgroup.as_ref().expect("the subgroup variant ran");
    assert!(by_subgroup.failed > 0 && by_subgroup.verified, "{}", report.summary());
    assert!(by_subgroup.new_vectors + by_subgroup.failed <= 1000);
    assert!(report.overflow_message().unwrap().contains("compressed table (2^8 slots) found no free slot"));
}

#[test]
fn closest_pairs_gpu_grid_equals_its_cpu_twin() {
    let mut rng = common::rng("closest_pairs_gpu_grid_equals_its_cpu_twin");
    let gpu = kernel_gpu();
    for (m, n) in [(1, 1), (300, 7), (3000, 5000), (40_000, 30_000)] {
        for distribution in [Distribution::Uniform, Distribution::Clustered, Distribution::Equal] {
            let armies = cp::make_armies(m, n, distribution, rng.random());
            let built = cp::build_grid_gpu(&gpu, &armies);
            assert!(built.equals_cpu_twin(&armies), "{m} x {n} {}: {:?}", armies.source, built.params);
            assert!(built.params.dims.iter().all(|&d| (1..=1024).contains(&d)), "{:?}", built.params);
            if distribution != Distribution::Equal && n >= 5000 {
                // Cells sized from the occupied cells, clustered or not: about 2 B per occupied
                // cell (refined from the coarse plan for clusters), never more than 4 on average.
                let occupied = built.occupied_cells();
                assert!(n <= 4 * occupied && occupied < n, "{}: {n} B in {occupied} occupied cells", armies.source);
            }
        }
    }
    // The twin catches a point in the wrong cell.
    let armies = cp::make_armies(200, 300, Distribution::Uniform, 9);
    let mut built = cp::build_grid_gpu(&gpu, &armies);
    assert!(built.equals_cpu_twin(&armies));
    built.b_sorted.swap(0, 299);
    assert!(built.b_sorted[0] == built.b_sorted[299] || !built.equals_cpu_twin(&armies));
}

#[test]
fn closest_pairs_gpu_equals_cpu() {
    let mut rng = common::rng("closest_pairs_gpu_equals_cpu");
    let gpu = kernel_gpu();
    let options = ClosestPairsOptions { variant: cp::Variant::Both, iterations: 1 };
    // One point each, fewer A than 100, two top-100 rounds (more than 2048 A), B much larger than A.
    for (m, n) in [(1, 1), (1, 300), (60, 1), (5000, 200), (700, 2500), (20_000, 9000)] {
        for distribution in [Distribution::Uniform, Distribution::Clustered, Distribution::Equal] {
            let armies = cp::make_armies(m, n, distribution, rng.random());
            let report = ClosestPairs::run(&gpu, &ClosestPairsInput { armies: armies.clone(), options: options.clone() }).unwrap();
            assert!(report.verified, "{m} x {n} {}: {}", armies.source, report.summary());
            // The grid built on the GPU equals its CPU twin; the end-to-end and GPU times are there.
            assert_eq!(report.grid_verified, Some(true), "{}", report.summary());
            assert!(report.end_to_end_ms.is_some_and(|e| e > 0.0) && report.gpu_ms.is_some(), "{}", report.summary());
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
    let report = ClosestPairs::run(&gpu, &ClosestPairsInput { armies: cp::Armies { a, b, source: "lattice".into() }, options }).unwrap();
    assert!(report.verified, "{}", report.summary());
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
    patterns.extend([&b"a.*b"[..], b"a*", b"a?b?c?", b"[^c]+c", b"c{3,}", b"x.*a", b"ab{0,31}c"].map(|p| p.to_vec()));
    patterns.push(b"ab?c*.".repeat(20));
    patterns.push(b"[ab]{1,3}c?".repeat(20));
    patterns.push(b"a.{30}b.{30}c.{30}a".to_vec());
    patterns.push(b"b.*c.*".repeat(12));
    // Twelve c's open the text: from there on this pattern's `.*` state stays set, a run from it
    // never agrees with the run from empty, and every chunk after the first has long runs.
    patterns.push(b"c{12}.*a".to_vec());
    let text: Vec<u8> = (0..3000).map(|i| if i < 12 { b'c' } else { alphabet[rng.random_range(0..3)] }).collect();
    let work = sa::Workload { patterns, text, source: "random".into() };
    // The parallel scan of transfer functions (the default) and the sequential fix-up; chunk
    // lengths from 1 byte (3000 chunks, 12 levels) to the whole text (one chunk).
    // (counts, match positions) of the first run.
    type Matches = (Vec<u32>, Vec<(u32, u32)>);
    let mut first: Option<Matches> = None;
    // Chunks longer than sa::SHORT_BYTES hand their long runs to the long passes; a list of 3
    // entries leaves the rest to their own threads. (The sequential fix-up of 1-2 byte chunks
    // passes lavapipe's loop limit: its one thread per unit loops over every chunk.)
    for (carry, long_capacity) in [(sa::Carry::Scan, 0), (sa::Carry::Scan, 3), (sa::Carry::Sequential, 0)] {
        let shortest = if carry == sa::Carry::Sequential { 5 } else { 1 };
        for chunk_len in [shortest, 7, 64, 333, 1000, 3000] {
            let options = sa::ShiftAndOptions { chunk_len, iterations: 1, capacity: 1 << 20, carry, long_capacity };
            let report = ShiftAnd::run(&gpu, &ShiftAndInput { work: work.clone(), options }).unwrap();
            assert!(report.verified && !report.positions_overflowed, "chunk {chunk_len}, {carry:?}: {}", report.summary());
            assert_eq!(report.carry_levels, if carry == sa::Carry::Scan { report.chunks.next_power_of_two().trailing_zeros() } else { 0 });
            if carry == sa::Carry::Scan && report.chunks > 4 && chunk_len > sa::SHORT_BYTES {
                assert!(report.long_runs.iter().all(|&n| n > 3), "chunk {chunk_len}: long runs {:?}", report.long_runs);
            }
            assert!(report.units < report.patterns / 2, "{} patterns in {} units", report.patterns, report.units);
            // The result is independent of the chunk length.
            let result = (report.counts.clone(), report.matches.clone());
            assert!(result.0.iter().any(|&c| c > 0));
            match &first {
                None => first = Some(result),
                Some(f) => assert!(*f == result, "chunk {chunk_len}, {carry:?}: other matches than the first run"),
            }
        }
    }
    assert!(sa::compile(&sa::parse(&b"ab?c*.".repeat(20)).unwrap()).unwrap().words.len() >= 3);
}

#[test]
fn shift_and_gpu_equals_cpu_on_random_workloads() {
    let mut rng = common::rng("shift_and_gpu_equals_cpu_on_random_workloads");
    let gpu = kernel_gpu();
    // (patterns, max states, text bytes, alphabet): one to three modules, alphabets of 2 to 26
    // bytes, texts of one byte to 40 KB (the default about 1024 chunks, or a random length).
    let cases: [(usize, usize, usize, &[u8]); 6] = [
        (1, 8, 1, b"ab"),
        (30, 32, 5000, b"ab"),
        (70, 32, 40_000, b"abcdefghijklmnopqrstuvwxyz"),
        (12, 64, 9000, b"abcd"),
        (9, 96, 6000, b"abc"),
        (100, 20, 20_000, b"acgt"),
    ];
    for (patterns, max_states, text_bytes, alphabet) in cases {
        let work = sa::make_workload(patterns, max_states, text_bytes, alphabet, rng.random());
        // At least text_bytes / 2048 bytes a chunk: a transfer function per pattern and chunk must
        // fit lavapipe's 128 MiB binding (40,000 one-byte chunks of 70 patterns took 370 MB).
        let shortest = (text_bytes as u32).div_ceil(2048).max(1);
        for chunk_len in [0, rng.random_range(shortest..=(text_bytes as u32).clamp(shortest, 600))] {
            let options = sa::ShiftAndOptions { chunk_len, iterations: 1, capacity: 1 << 20, carry: sa::Carry::Scan, long_capacity: 0 };
            let report = ShiftAnd::run(&gpu, &ShiftAndInput { work: work.clone(), options }).unwrap();
            assert!(report.verified && !report.lavapipe_loop_limit_exceeded, "{}, chunk {chunk_len}: {}", work.source, report.summary());
        }
    }
}

#[test]
fn shift_and_counts_stay_exact_without_positions_or_beyond_the_capacity() {
    let mut rng = common::rng("shift_and_counts_stay_exact_without_positions_or_beyond_the_capacity");
    let gpu = kernel_gpu();
    let work = sa::make_workload(20, 40, 8000, b"ab", rng.random());
    let run = |capacity| {
        let options = sa::ShiftAndOptions { chunk_len: 100, iterations: 1, capacity, carry: sa::Carry::Scan, long_capacity: 0 };
        ShiftAnd::run(&gpu, &ShiftAndInput { work: work.clone(), options }).unwrap()
    };
    let all = run(1 << 20);
    assert!(all.verified && !all.positions_overflowed && all.total_matches > 100, "{}", all.summary());
    let count_only = run(0);
    assert!(count_only.verified && count_only.count_only && count_only.matches.is_empty(), "{}", count_only.summary());
    assert_eq!(count_only.counts, all.counts);
    let bounded = run(37);
    assert!(bounded.verified && bounded.positions_overflowed && !bounded.count_only, "{}", bounded.summary());
    assert_eq!(bounded.counts, all.counts);
}
