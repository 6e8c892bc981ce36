//! Shared helpers of the tile-table tests (tests/tile_table.rs, tests/tile_table_bucketed.rs,
//! tests/tile_table_packed.rs): the kernel's device, random keys, the checks of a cuckoo table
//! (`kernels::tile_table_cuckoo::CuckooTable`) against a `HashMap` and of its GPU copy against
//! the twin, and `bisector kernel tile-table` run from the command line.
#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};
use std::ops::RangeInclusive;

use bisector::globe::cache::tile_feedback::GpuTileFeedback;
use bisector::globe::cache::tile_key::{TileKey, MAX_SOURCE, MAX_ZOOM};
use bisector::globe::cache::tile_table::TILE_MISS;
use bisector::gpu::readback::read_buffer;
use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::tile_table::{expected_feedback_of, Pass, TileTableKernel};
use bisector::kernels::tile_table_cuckoo::{CuckooTable, GpuCuckooTable};
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

/// Draws a random key at a zoom of the range (`random_key`, `random_key_of_any_source`).
pub type KeyFn = fn(&mut StdRng, RangeInclusive<u8>) -> TileKey;

/// A device for the kernel lab with `optional_features` where the adapter has them.
pub fn kernel_gpu(optional_features: wgpu::Features) -> Gpu {
    let mut requirements = Requirements::kernel(64 << 20, "tests".into());
    requirements.optional_features |= optional_features;
    Gpu::headless(&requirements).unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

fn key_of<R: Rng>(rng: &mut R, sources: RangeInclusive<u8>, zooms: RangeInclusive<u8>) -> TileKey {
    let zoom = rng.random_range(zooms);
    let side = 1u32 << zoom;
    TileKey::new(rng.random_range(sources), zoom, rng.random_range(0..side), rng.random_range(0..side)).unwrap()
}

/// A random key of sources 0 to 3 at a zoom of `zooms`.
pub fn random_key<R: Rng>(rng: &mut R, zooms: RangeInclusive<u8>) -> TileKey {
    key_of(rng, 0..=3, zooms)
}

/// A random key of any source at a zoom of `zooms`.
pub fn random_key_of_any_source<R: Rng>(rng: &mut R, zooms: RangeInclusive<u8>) -> TileKey {
    key_of(rng, 0..=MAX_SOURCE, zooms)
}

/// An insert of new `key` that `table`, holding `len` keys, refused: allowed only past half full in
/// a table of at most 64 slots and past 90 % in a larger one (two choices of bucket: in a table of
/// a few buckets the keys' bucket pairs can split it into parts, one of them full), and only if
/// the table is left as it was.
pub fn assert_refusal_allowed<T: CuckooTable>(table: &T, len: usize, key: TileKey, error: T::InsertError)
where
    T::InsertError: std::fmt::Debug,
{
    let capacity = table.capacity() as usize;
    let least = if capacity <= 64 { capacity / 2 } else { capacity * 9 / 10 };
    assert!(len >= least, "insert {key:?} refused at {len} of {capacity} keys: {error:?}");
    assert_eq!((table.len() as usize, table.lookup(key)), (len, None), "a refused insert changed the table");
}

/// The nearest present ancestor by the map's meaning, as (value, zoom).
pub fn map_ancestor(map: &HashMap<TileKey, u32>, key: TileKey) -> Option<(u32, u8)> {
    key.ancestors().find_map(|k| map.get(&k).map(|&v| (v, k.zoom)))
}

/// A table of 2^`capacity_log2` slots equals a `HashMap` under random edits at loads 0.5 to
/// 0.95 (keys from a pool of `key`'s draws and their ancestors; values count up and wrap past
/// `max_value`): removals and inserts, the invariants, every lookup, ancestor lookup and `iter`.
/// An insert of a new key may be refused before the table is full (`assert_refusal_allowed`); the
/// loads aimed at are then not all reached.
pub fn twin_equals_a_hash_map_under_random_edits<T: CuckooTable>(
    rng: &mut StdRng,
    capacity_log2: u32,
    key: KeyFn,
    max_value: impl Fn(&T) -> u32,
) where
    T::InsertError: std::fmt::Debug,
{
    let mut table = T::new(capacity_log2);
    let capacity = table.capacity() as usize;
    let mut map: HashMap<TileKey, u32> = HashMap::new();
    // A pool of 2x capacity keys, many of them ancestors of others.
    let mut pool: Vec<TileKey> = Vec::new();
    while pool.len() < 2 * capacity {
        let deep = key(rng, 0..=MAX_ZOOM);
        pool.extend(deep.ancestors().filter(|_| rng.random_bool(0.3)).take(2 * capacity - pool.len()));
    }
    let mut value = 0u32;
    for load in [0.5, 0.9, 0.3, 0.95, 0.9] {
        let target = ((load * capacity as f64).round() as usize).max(1);
        // Removals of present and absent keys down to the target, inserts (some repeated, with a
        // new value) up to it.
        while map.len() > target {
            let key = *pool.choose(rng).unwrap();
            assert_eq!(table.remove(key), map.remove(&key), "remove {key:?}");
        }
        let mut refused = 0;
        while map.len() < target && refused < 4 * capacity {
            let key = *pool.choose(rng).unwrap();
            match table.insert(key, value) {
                Ok(old) => assert_eq!(old, map.insert(key, value), "insert {key:?}"),
                Err(e) => {
                    assert!(!map.contains_key(&key), "insert of present {key:?} refused: {e:?}");
                    assert_refusal_allowed(&table, map.len(), key, e);
                    refused += 1;
                }
            }
            value = (value + 1) % (max_value(&table) + 1);
        }
        for _ in 0..capacity / 4 {
            let key = *pool.choose(rng).unwrap();
            assert_eq!(table.remove(key), map.remove(&key), "remove {key:?}");
        }
        table.check_invariants().unwrap_or_else(|e| panic!("2^{capacity_log2}, load {load}: {e}"));
        assert_eq!(table.len() as usize, map.len());
        for &key in &pool {
            assert_eq!(table.lookup(key), map.get(&key).copied(), "lookup {key:?}");
            let child = key.child(rng.random_range(0..4)).unwrap_or(key);
            assert_eq!(table.lookup_ancestor(child), map_ancestor(&map, child), "ancestor of {child:?}");
        }
        let mut listed: Vec<(TileKey, u32)> = table.iter().collect();
        let mut expected: Vec<(TileKey, u32)> = map.iter().map(|(&k, &v)| (k, v)).collect();
        listed.sort_unstable();
        expected.sort_unstable();
        assert_eq!(listed, expected);
    }
}

/// The cache's steady state at load 0.9 in a table of 2^14 slots: `edits` times a random key is
/// evicted and a new one (of zoom 6 to 24, `key`'s) inserted. Returns the mean and the largest
/// number of buckets an eviction plus an insert rewrote; the invariants hold at the end.
pub fn buckets_rewritten_at_load_nine_tenths<T: CuckooTable>(rng: &mut StdRng, key: KeyFn, edits: u32) -> (f64, u32)
where
    T::InsertError: std::fmt::Debug,
{
    let mut table = T::new(14);
    let mut keys: Vec<TileKey> = Vec::new();
    while (keys.len() as f64) < 0.9 * table.capacity() as f64 {
        let new = key(rng, 6..=24);
        if table.insert(new, keys.len() as u32).unwrap().is_none() {
            keys.push(new);
        }
    }
    table.take_dirty(0);
    let (mut rewritten, mut worst) = (0u32, 0u32);
    for i in 0..edits {
        let old = keys.swap_remove(rng.random_range(0..keys.len()));
        table.remove(old).unwrap();
        let new = loop {
            let new = key(rng, 6..=24);
            if table.lookup(new).is_none() {
                break new;
            }
        };
        table.insert(new, i).unwrap();
        keys.push(new);
        let buckets = table.dirty_buckets();
        table.take_dirty(0);
        rewritten += buckets;
        worst = worst.max(buckets);
    }
    table.check_invariants().unwrap();
    (rewritten as f64 / edits as f64, worst)
}

/// The GPU side of a cuckoo table's test: the device, the kernel, a profiler and a feedback set
/// of 2^12 slots.
pub struct KernelRig {
    pub gpu: Gpu,
    pub kernel: TileTableKernel,
    pub profiler: wgpu_profiler::GpuProfiler,
    pub feedback: GpuTileFeedback,
}

impl KernelRig {
    /// A rig on `kernel_gpu(optional_features)`.
    pub fn new(optional_features: wgpu::Features) -> KernelRig {
        let gpu = kernel_gpu(optional_features);
        let kernel = TileTableKernel::new(&gpu.device);
        let profiler = bisector::gpu::create_profiler(&gpu.device);
        let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, 1 << 12);
        KernelRig { gpu, kernel, profiler, feedback }
    }

    /// The uploaded buffer, the lookups of `passes`, ancestor walks and the walk's feedback all
    /// equal the twin's.
    pub fn check_gpu_equals_twin<T: CuckooTable>(
        &mut self,
        table: &T,
        gpu_table: &GpuCuckooTable<T>,
        passes: &[Pass],
        queries: &[TileKey],
        context: &str,
    ) {
        let KernelRig { gpu, kernel, profiler, feedback } = self;
        let bytes = read_buffer(&gpu.device, &gpu.queue, &gpu_table.buffer, 0, gpu_table.buffer.size());
        assert!(bytes == GpuCuckooTable::bytes(table), "{context}: the GPU buffer differs from the twin's");
        for &pass in passes {
            let label = format!("{}.{}", T::LABEL, pass.entry_point());
            let answers = kernel.run_cuckoo(gpu, profiler, &label, pass, gpu_table, feedback, queries, 1);
            for (key, &slot) in queries.iter().zip(&answers.slots) {
                assert_eq!(slot, table.lookup(*key).unwrap_or(TILE_MISS), "{context}: {label} {key:?}");
            }
        }
        let label = format!("{}.lookup_ancestor", T::LABEL);
        let answers = kernel.run_cuckoo(gpu, profiler, &label, Pass::LookupAncestor, gpu_table, feedback, queries, 1);
        for (key, found) in queries.iter().zip(&answers.ancestors) {
            let expected = table.lookup_ancestor(*key).map_or([TILE_MISS, 0], |(slot, zoom)| [slot, zoom as u32]);
            assert_eq!(*found, expected, "{context}: ancestor of {key:?}");
        }
        let (twin, missed) = expected_feedback_of(|k| table.lookup(k).is_some(), queries, feedback.capacity);
        assert!(answers.feedback.equals_twin(&twin, &missed), "{context}: feedback differs from the twin's");
    }

    /// Uploads `table`, which holds `keys`, and checks the GPU against the twin (`passes`) on the
    /// keys, as many random keys of `key`'s (mostly misses) and as many descendants of the keys;
    /// then evicts a third of the keys, inserts as many absent ones `new_entry` draws (given the
    /// evicted keys and the count inserted), uploads the dirty buckets and checks again, the new
    /// keys among the queries.
    #[allow(clippy::too_many_arguments)]
    pub fn check_gpu_before_and_after_churn<T: CuckooTable>(
        &mut self,
        rng: &mut StdRng,
        table: &mut T,
        keys: &[TileKey],
        passes: &[Pass],
        key: KeyFn,
        mut new_entry: impl FnMut(&mut StdRng, &[TileKey], usize) -> (TileKey, u32),
        context: &str,
    ) where
        T::InsertError: std::fmt::Debug,
    {
        let gpu_table = GpuCuckooTable::new(&self.gpu.device, table);
        // Hits, random keys (mostly misses), and descendants of present keys.
        let mut queries = keys.to_vec();
        queries.extend((0..keys.len().max(16)).map(|_| key(rng, 0..=MAX_ZOOM)));
        queries.extend((0..keys.len().max(16)).map(|_| {
            let mut key = *keys.choose(rng).unwrap();
            for _ in 0..rng.random_range(0..4) {
                key = key.child(rng.random_range(0..4)).unwrap_or(key);
            }
            key
        }));
        queries.shuffle(rng);
        self.check_gpu_equals_twin(table, &gpu_table, passes, &queries, context);

        let evicted: Vec<TileKey> = keys.iter().copied().filter(|_| rng.random_bool(1.0 / 3.0)).collect();
        for &key in &evicted {
            assert!(table.remove(key).is_some());
        }
        // New keys until as many went in as went out, or a small table refused some
        // (`assert_refusal_allowed`; a refused key stays among the queries, as a miss).
        let (mut inserted, mut refused) = (0, 0);
        while inserted + refused < evicted.len() {
            let (key, value) = new_entry(rng, &evicted, inserted);
            if table.lookup(key).is_none() {
                match table.insert(key, value) {
                    Ok(_) => inserted += 1,
                    Err(e) => {
                        assert_refusal_allowed(table, table.len() as usize, key, e);
                        refused += 1;
                    }
                }
                queries.push(key);
            }
        }
        table.check_invariants().unwrap();
        gpu_table.sync(&self.gpu.queue, table);
        let context = format!("{context}, after evicting {} keys", evicted.len());
        self.check_gpu_equals_twin(table, &gpu_table, passes, &queries, &context);
    }
}

/// Distinct random keys of `key`'s, `count` of them, in random order.
pub fn distinct_keys(rng: &mut StdRng, count: usize, mut key: impl FnMut(&mut StdRng) -> TileKey) -> Vec<TileKey> {
    let mut keys = BTreeSet::new();
    while keys.len() < count {
        keys.insert(key(rng));
    }
    let mut keys: Vec<TileKey> = keys.into_iter().collect();
    keys.shuffle(rng);
    keys
}

/// Runs `bisector kernel tile-table` with `args` and `--json` into a temporary file; asserts it
/// succeeded and returns what it printed and the JSON report.
pub fn kernel_tile_table_json(args: &[&str]) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tile.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["kernel", "tile-table"])
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), report)
}

/// Runs `bisector kernel tile-table` with `args`, which it must refuse in one line naming
/// `expected`.
pub fn kernel_tile_table_refuses(args: &[&str], expected: &str) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bisector")).args(["kernel", "tile-table"]).args(args).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(expected) && stderr.lines().count() == 1, "{stderr}");
}
