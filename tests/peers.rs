//! The peers harness (examples/peers, `scripts/peers`) at lavapipe sizes: every kernel's GPU
//! answer equals its CPU peer's on fresh random inputs, and the harness's own peers (the parallel
//! CBT reduction, the regex translation of shift-and patterns, the pairs comparison) against the
//! twins they stand beside.

#[allow(dead_code)]
#[path = "../examples/peers/harness/mod.rs"]
mod harness;

use bisector::cbt::cpu::{heap_word_count, Cbt};
use bisector_kernels::closest_pairs as cp;
use bisector_kernels::shift_and as sa;
use rand::{Rng, SeedableRng};

fn fresh_seed() -> u64 {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(7, |d| d.as_nanos() as u64);
    println!("seed {seed}");
    seed
}

#[test]
fn every_kernel_agrees_with_its_peer() {
    let options = harness::Options {
        sizes: harness::Sizes::quick(),
        seed: fresh_seed(),
        iterations: 1,
        peer_repeats: 1,
        kernels: harness::KERNELS.iter().map(|k| k.to_string()).collect(),
        // The scipy row checks the answer where Python has scipy, and says it is absent elsewhere.
        python: Some("python3".into()),
    };
    let rows = harness::run(&options, |_| {});
    print!("{}", harness::table(&rows));
    for kernel in harness::KERNELS {
        assert!(rows.iter().any(|r| r.kernel == kernel && r.agree == Some(true)), "no agreeing row for {kernel}");
    }
    for row in &rows {
        if row.peer.starts_with("scipy") && row.agree.is_none() {
            assert!(row.note.starts_with("scipy absent"), "{row:?}");
            continue;
        }
        assert_eq!(row.agree, Some(true), "{row:?}");
        assert!(row.peer_ms.is_some_and(|ms| ms > 0.0), "{row:?}");
        // The tile table's inserts have no GPU pass (the cache inserts on the CPU and mirrors).
        if !(row.kernel == "tile-table" && row.input.contains("inserts")) {
            assert!(row.gpu_ms.is_some_and(|ms| ms > 0.0) && row.ratio.is_some(), "{row:?}");
        }
    }
    // Two rows per distribution; a build per variant (the subgroup one where the adapter has
    // subgroups) and three lookup sets; findOrPut and again; 3 insert and 6 lookup rows per load
    // (linear, bucketed, packed); 2 per tree.
    let count = |kernel: &str| rows.iter().filter(|r| r.kernel == kernel).count();
    assert!((4..=5).contains(&count("chained-hash")), "{}", count("chained-hash"));
    assert_eq!((count("closest-pairs"), count("compact-hash"), count("tile-table"), count("cbt")), (4, 2, 18, 6));
    assert!(rows.iter().filter(|r| r.kernel == "closest-pairs").all(|r| r.gpu_end_to_end_ms.is_some()));
}

/// The tile tables' inserts sharded over 16 threads (as on the benchmark machine), each shard a
/// table of 2^12 slots: the packed one holds values below twice a table's capacity, so each
/// key's value is its rank in its shard (the key's index overflowed it: run peers-r3).
#[test]
fn sixteen_shards_hold_every_layout() {
    let options = harness::Options {
        sizes: harness::Sizes { tt_capacity_log2: 16, ..harness::Sizes::quick() },
        seed: fresh_seed(),
        iterations: 1,
        peer_repeats: 1,
        kernels: vec!["tile-table".to_string()],
        python: None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(16).build().unwrap();
    let rows = pool.install(|| harness::run(&options, |_| {}));
    let inserts: Vec<_> = rows.iter().filter(|r| r.input.contains("inserts")).collect();
    assert_eq!(inserts.len(), 6);
    for row in inserts {
        assert!(row.peer.contains("sharded x16") && row.agree == Some(true), "{row:?}");
    }
}

#[test]
fn a_wrong_answer_is_seen() {
    let armies = cp::make_armies(500, 300, cp::Distribution::Uniform, fresh_seed());
    let (pairs, _) = harness::closest_pairs::kiddo_top_pairs(&armies.a, &armies.b).unwrap();
    let grid = cp::Grid::build(&armies.b, &armies.a);
    let reference = cp::top_pairs(&cp::nearest_grid_cpu(&armies.a, &grid, 2), cp::TOP_PAIRS);
    assert_eq!(harness::closest_pairs::compare_pairs(&reference, &pairs), (true, "equal (A, B, f32 distance)".to_string()));
    let mut wrong = pairs.clone();
    wrong[57].b ^= 1;
    let (agree, note) = harness::closest_pairs::compare_pairs(&reference, &wrong);
    assert!(!agree && note.starts_with("differ at #58"), "{note}");
    assert!(!harness::closest_pairs::compare_pairs(&reference, &pairs[..99]).0);
}

#[test]
fn parallel_reduction_equals_the_twin_on_random_trees() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(fresh_seed());
    for max_depth in [5, 6, 9, 12, 14] {
        let mut tree = Cbt::new(max_depth, rng.random_range(0..=max_depth));
        // Rounds of random splits, each followed by the twin's own reduction.
        for _ in 0..rng.random_range(0..6) {
            for leaf in tree.leaves() {
                if rng.random_bool(0.3) {
                    tree.split(leaf);
                }
            }
            tree.reduce();
        }
        // Every count above the bitfield replaced by garbage: the peer must rewrite them all.
        let mut heap = tree.heap().to_vec();
        heap[1..heap_word_count(max_depth) / 4 * 3].iter_mut().for_each(|w| *w = rng.random());
        harness::cbt::reduce_parallel(&mut heap, max_depth);
        assert_eq!(heap, tree.heap(), "D = {max_depth}");
    }
}

#[test]
fn regex_translation_counts_what_shift_and_counts() {
    let seed = fresh_seed();
    let work = sa::make_workload(200, 32, 3000, b"abcd", seed);
    for pattern in work.patterns.iter().map(|p| p.as_slice()).chain([&b"a?b?"[..], b"[ab]*", b"x", b".{0,3}d", b"a{2,}b"]) {
        let items = sa::parse(pattern).unwrap();
        let compiled = sa::compile(&items).unwrap();
        let expected = sa::match_ends(&compiled, &work.text).len() as u64;
        let regex = harness::shift_and::regex_of(&items);
        let name = String::from_utf8_lossy(pattern);
        assert_eq!(harness::shift_and::count_matches(&regex, &work.text), Ok(expected), "{name} as {regex}");
        assert_eq!(harness::shift_and::count_matches_lazy(&regex, &work.text), Ok(expected), "{name} as {regex} (lazy DFA)");
    }
}

#[test]
fn the_script_runs_the_binary_it_is_given_and_refuses_a_missing_one() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/peers");
    let dir = tempfile::tempdir().unwrap();
    // coreutils' printf stands in for the binary (an executable written here could be busy while
    // another test forks): the arguments arrive in order, one piece each.
    let out =
        std::process::Command::new(script).args(["--bin", "/usr/bin/printf", "%s|", "--quick", "--json", "a b.json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "--quick|--json|a b.json|");
    let missing = dir.path().join("absent");
    let out = std::process::Command::new(script).arg("--bin").arg(&missing).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.lines().count() == 1 && stderr.contains("absent: no such file"), "{stderr}");
}
