//! The hash tables beside their CPU twins on all cores: the chained hash (the twin's parallel
//! build, lookups with rayon), the compact hash (the twin's CAS table filled with rayon) and the
//! tile table, linear, bucketed and packed (the twins' lookups with rayon over the same table and
//! queries; the inserts into one twin per thread, the keys split by hash).

use rayon::prelude::*;

use bisector::globe::cache::tile_feedback::GpuTileFeedback;
use bisector::globe::cache::tile_key::{tile_hash, TileKey};
use bisector::globe::cache::tile_table::{GpuTileTable, TileTable, TILE_MISS};
use bisector::gpu::{Gpu, Requirements};
use bisector::kernels::tile_table::{self as tt, Pass, TileTableKernel};
use bisector::kernels::tile_table_bucketed::BucketedTileTable;
use bisector::kernels::tile_table_cuckoo::{CuckooTable, GpuCuckooTable};
use bisector::kernels::tile_table_packed::PackedTileTable;
use bisector_kernels::chained_hash::{self as ch, ChainedHash, ChainedHashOptions, CpuChainedHash};
use bisector_kernels::compact_hash::{self as cph, CompactHash, CompactHashOptions, CompactTable};
use bisector_kernels::Kernel;

use super::{cpu_threads, timed, Options, PeersError, Row};

/// The chained hash's rows: each build and the three lookup sets (on the last build's table).
pub fn chained_hash_rows(options: &Options) -> Result<Vec<Row>, PeersError> {
    let s = &options.sizes;
    let ch_options = ChainedHashOptions {
        element_log2: s.ch_elements_log2,
        bucket_log2: s.ch_buckets_log2,
        keys: ch::KeyDistribution::Uniform,
        variant: if subgroups()? { ch::BuildVariant::Both } else { ch::BuildVariant::Global },
        iterations: options.iterations,
        seed: options.seed,
    };
    let gpu = Gpu::headless(&ChainedHash::requirements(&ch_options))?;
    let report = ChainedHash::run(&gpu, &ch_options)?;
    let (keys, values, misses) = ch::make_inputs(&ch_options);
    let threads = cpu_threads();
    let (peer, build_ms) = timed(options.peer_repeats, || CpuChainedHash::build_parallel(&keys, &values, ch_options.bucket_log2, threads));
    // The one-thread build is the reference the GPU's table was checked against.
    let reference = CpuChainedHash::build(&keys, &values, ch_options.bucket_log2);
    let same_table = ch::bucket_contents(&peer.heads, &peer.nodes) == ch::bucket_contents(&reference.heads, &reference.nodes);
    let input = format!("2^{} -> 2^{} buckets, uniform", s.ch_elements_log2, s.ch_buckets_log2);
    let peer_name = format!("CPU twin build_parallel, {threads} thr");
    // Each GPU build (global counter, and subgroup counter where the adapter has subgroups).
    let mut rows: Vec<Row> = report
        .builds
        .iter()
        .map(|b| {
            Row::new("chained-hash", format!("build ({}) {input}", b.variant), (Some(b.gpu.median_ms), None), &peer_name, Some(build_ms))
                .checked(same_table && b.verified, "every bucket's (key, value) multiset: GPU and peer each equal the one-thread twin")
        })
        .collect();
    let half: Vec<u32> = keys[..keys.len() / 2].iter().chain(&misses[keys.len() / 2..]).copied().collect();
    for (name, queries) in [("all hits", &keys), ("half hits", &half), ("all misses", &misses)] {
        let (found, ms) = timed(options.peer_repeats, || queries.par_iter().map(|&k| peer.lookup(k)).collect::<Vec<u32>>());
        let expected: Vec<u32> = queries.par_iter().map(|&k| reference.lookup(k)).collect();
        let gpu_lookup = report.lookups.iter().find(|l| l.queries == name);
        let peer = format!("CPU twin lookup, rayon {threads} thr");
        rows.push(
            Row::new("chained-hash", format!("lookups {name}, {input}"), (gpu_lookup.map(|l| l.gpu.median_ms), None), &peer, Some(ms))
                .checked(
                    found == expected && gpu_lookup.is_some_and(|l| l.verified),
                    "every answer: GPU and peer each equal the one-thread twin's",
                ),
        );
    }
    Ok(rows)
}

/// The compact hash's rows: findOrPut of every vector into the empty compressed table, then again
/// into the filled one.
pub fn compact_hash_rows(options: &Options) -> Result<Vec<Row>, PeersError> {
    let s = &options.sizes;
    let ch_options = CompactHashOptions {
        length: s.compact_length,
        bucket_size: s.compact_bucket_size,
        table_log2: s.compact_table_log2,
        vectors: None,
        fill: 0.5,
        distribution: cph::VectorDistribution::Uniform,
        iterations: options.iterations,
        seed: options.seed,
        subgroup: false,
    };
    let gpu = Gpu::headless(&CompactHash::requirements(&ch_options))?;
    let report = CompactHash::run(&gpu, &ch_options)?;
    let length = ch_options.length as usize;
    let words = cph::make_vectors(length, ch_options.vector_count() as usize, ch_options.distribution, ch_options.seed);
    let vectors: Vec<&[u32]> = words.chunks_exact(length).collect();
    let ((table, results), ms) = timed(options.peer_repeats, || {
        let table = CompactTable::new(ch_options.geometry());
        let results: Vec<u32> = vectors.par_iter().map(|v| table.find_or_put(v)).collect();
        (table, results)
    });
    // Every vector again into the filled table: all seen, each at the reference it got first.
    let (again, again_ms) = timed(options.peer_repeats, || vectors.par_iter().map(|v| table.find_or_put(v)).collect::<Vec<u32>>());
    let failed = results.iter().chain(&again).filter(|&&r| r == cph::FAILED).count() as u32;
    let copy = table.snapshot();
    let nodes = copy.nodes.iter().filter(|&&n| n != 0).count() as u64 + copy.zero as u64;
    let check = cph::check_compact_table(&copy, &vectors, &results, Some(&again), report.distinct_vectors as usize, failed);
    let new = report.compressed.new_vectors;
    let (agree, note) = match check {
        Ok(peer_new) if peer_new == new && nodes == report.nodes && failed == 0 && report.verified => {
            (true, format!("{new} new vectors in {nodes} nodes, each table checked by meaning"))
        }
        Ok(peer_new) => {
            (false, format!("GPU {new} new in {} nodes (verified {}), peer {peer_new} new in {nodes}", report.nodes, report.verified))
        }
        Err(e) => (false, format!("the peer's table: {e}")),
    };
    let input = format!("{} vectors x {} words, 2^{} slots, bucket {}", vectors.len(), length, s.compact_table_log2, s.compact_bucket_size);
    let peer = format!("CPU twin (CAS), rayon {} thr", cpu_threads());
    let again_row = Row::new(
        "compact-hash",
        format!("again (all seen), {input}"),
        (Some(report.compressed.again.median_ms), None),
        &peer,
        Some(again_ms),
    )
    .checked(agree, "every vector found at the reference it got first (GPU and peer)");
    let insert_row =
        Row::new("compact-hash", format!("findOrPut, {input}"), (Some(report.compressed.insert.median_ms), None), &peer, Some(ms));
    Ok(vec![insert_row.checked(agree, note), again_row])
}

/// The tile table's rows: hits and misses at load 0.5 and 0.9, linear, bucketed and packed layouts.
pub fn tile_table_rows(options: &Options) -> Result<Vec<Row>, PeersError> {
    let capacity_log2 = options.sizes.tt_capacity_log2;
    let requirements =
        Requirements::kernel(tt::largest_buffer_bytes(capacity_log2), format!("for a tile table of 2^{capacity_log2} slots"));
    let gpu = Gpu::headless(&requirements)?;
    let mut lab = Lab {
        kernel: TileTableKernel::new(&gpu.device),
        profiler: bisector::gpu::create_profiler(&gpu.device),
        feedback: GpuTileFeedback::new(&gpu.device, &gpu.queue, 4096),
        gpu,
    };
    let threads = cpu_threads();
    let mut rows = Vec::new();
    for (index, load) in tt::LOADS.into_iter().enumerate() {
        // The same workload as `bisector kernel tile-table` (its seed per load).
        let mut work = tt::make_workload(capacity_log2, load, options.seed.wrapping_add(index as u64));
        let linear = GpuTileTable::new(&lab.gpu.device, &mut work.table);
        let input = format!("2^{capacity_log2} load {load} inserts ({} keys)", work.keys.len());
        let (linear_new, linear_insert) = (TileTable::new, |t: &mut TileTable, k: TileKey, v: u32| t.insert(k, v).is_ok());
        let linear_lookup = |t: &TileTable, k: TileKey| t.lookup(k);
        rows.push(sharded_row(format!("linear {input}"), &work.keys, capacity_log2, options, linear_new, linear_insert, linear_lookup));
        for (name, queries) in [("hits", &work.hits), ("misses", &work.misses)] {
            let input = format!("2^{capacity_log2} load {load} {name}");
            let label = format!("peers.tile_table.lookup ({input})");
            let answers =
                lab.kernel.run(&lab.gpu, &mut lab.profiler, &label, Pass::Lookup, &linear, &lab.feedback, queries, options.iterations);
            let peer = |k: &TileKey| work.table.lookup(*k).unwrap_or(TILE_MISS);
            rows.push(lookup_row(format!("linear {input}"), &answers, queries, peer, options, threads));
        }
        rows.extend(cuckoo_rows::<BucketedTileTable>("bucketed", &work, load, &mut lab, options));
        rows.extend(cuckoo_rows::<PackedTileTable>("packed", &work, load, &mut lab, options));
    }
    Ok(rows)
}

/// What the tile table's GPU rows run on.
struct Lab {
    gpu: Gpu,
    kernel: TileTableKernel,
    profiler: wgpu_profiler::GpuProfiler,
    feedback: GpuTileFeedback,
}

/// The rows of a cuckoo layout (`name`: bucketed or packed) holding `work`'s keys at `load`: its
/// inserts sharded over the cores, then per query set its GPU lookups beside the twin's on all cores.
fn cuckoo_rows<T: CuckooTable + Send + Sync>(name: &str, work: &tt::Workload, load: f64, lab: &mut Lab, options: &Options) -> Vec<Row> {
    let capacity_log2 = options.sizes.tt_capacity_log2;
    let threads = cpu_threads();
    let mut table = T::new(capacity_log2);
    let built = work.keys.iter().enumerate().try_for_each(|(i, &k)| table.insert(k, i as u32).map(|_| ()));
    let input = format!("{name} 2^{capacity_log2} load {load} inserts ({} keys)", work.keys.len());
    let insert = |t: &mut T, k: TileKey, v: u32| t.insert(k, v).is_ok();
    let mut rows = vec![sharded_row(input, &work.keys, capacity_log2, options, T::new, insert, |t: &T, k: TileKey| t.lookup(k))];
    let gpu_table = built.is_ok().then(|| GpuCuckooTable::new(&lab.gpu.device, &mut table));
    for (set, queries) in [("hits", &work.hits), ("misses", &work.misses)] {
        let input = format!("2^{capacity_log2} load {load} {set}");
        let Some(gpu_table) = &gpu_table else {
            let row = Row::new("tile-table", format!("{name} {input}"), (None, None), "-", None);
            rows.push(row.checked(false, format!("the {name} twin could not hold the keys: {:?}", built)));
            continue;
        };
        let label = format!("peers.tile_table_{name}.lookup ({input})");
        let answers =
            lab.kernel.run_cuckoo(&lab.gpu, &mut lab.profiler, &label, Pass::Lookup, gpu_table, &lab.feedback, queries, options.iterations);
        let peer = |k: &TileKey| table.lookup(*k).unwrap_or(TILE_MISS);
        rows.push(lookup_row(format!("{name} {input}"), &answers, queries, peer, options, threads));
    }
    rows
}

/// One lookup set's row: the GPU's answers beside the twin's, run on all cores.
fn lookup_row(
    input: String,
    answers: &tt::GpuAnswers,
    queries: &[TileKey],
    lookup: impl Fn(&TileKey) -> u32 + Sync,
    options: &Options,
    threads: usize,
) -> Row {
    let (found, ms) = timed(options.peer_repeats, || queries.par_iter().map(&lookup).collect::<Vec<u32>>());
    let gpu_ms = bisector::gpu::timings::TimingMs::of(answers.times_ms.clone()).median_ms;
    let agree = found == answers.slots[..queries.len()];
    Row::new("tile-table", input, (Some(gpu_ms), None), &format!("CPU twin lookup, rayon {threads} thr"), Some(ms))
        .checked(agree, "every atlas slot (or miss) equal")
}

/// The inserts of one table layout beside the twin sharded over the cores: the keys split by the
/// top bits of their hash into one twin per thread (a power of two; together the table's slots),
/// each filled in insertion order on its own core, each key's value its rank in its shard (the
/// packed layout holds values below twice a table's capacity: a shard's, not the whole key count). The GPU has no insert pass (the cache inserts
/// on the CPU and mirrors the table), so the note gives the one-thread twin's fill of the same keys.
fn sharded_row<T: Send + Sync>(
    input: String,
    keys: &[TileKey],
    capacity_log2: u32,
    options: &Options,
    new: impl Fn(u32) -> T + Sync,
    insert: impl Fn(&mut T, TileKey, u32) -> bool + Sync,
    lookup: impl Fn(&T, TileKey) -> Option<u32> + Sync,
) -> Row {
    let shard_log2 = cpu_threads().next_power_of_two().ilog2().min(capacity_log2);
    let shard_of = |k: &TileKey| if shard_log2 == 0 { 0 } else { (tile_hash(k.pack()) >> (32 - shard_log2)) as u8 };
    let build = |extra_log2: u32| -> Option<Vec<T>> {
        let owners: Vec<u8> = keys.par_iter().map(shard_of).collect();
        (0..1u8 << shard_log2)
            .into_par_iter()
            .map(|shard| {
                let mut table = new(capacity_log2 - shard_log2 + extra_log2);
                let mut mine = keys.iter().zip(&owners).filter(|(_, &o)| o == shard).enumerate();
                mine.all(|(rank, (&k, _))| insert(&mut table, k, rank as u32)).then_some(table)
            })
            .collect()
    };
    // Each key's rank in its shard: the value it was inserted with.
    let mut next_rank = vec![0u32; 1 << shard_log2];
    let ranks: Vec<u32> = keys
        .iter()
        .map(|k| {
            let rank = &mut next_rank[shard_of(k) as usize];
            *rank += 1;
            *rank - 1
        })
        .collect();
    let (_, fill_ms) = timed(1, || {
        let mut table = new(capacity_log2);
        keys.iter().enumerate().all(|(i, &k)| insert(&mut table, k, i as u32))
    });
    let (mut tables, mut ms) = timed(options.peer_repeats, || build(0));
    let mut note = String::new();
    if tables.is_none() {
        // Shards fill unevenly: one that overflowed is retried, every shard with twice the slots.
        (tables, ms) = timed(options.peer_repeats, || build(1));
        note = "; a shard overflowed, so the shards took twice the slots".into();
    }
    let peer = format!("CPU twin sharded x{}, rayon", 1 << shard_log2);
    let row = Row::new("tile-table", input, (None, None), &peer, Some(ms));
    let Some(tables) = tables else { return row.checked(false, "the sharded twins could not hold the keys") };
    let agree = keys.par_iter().zip(&ranks).all(|(k, &rank)| lookup(&tables[shard_of(k) as usize], *k) == Some(rank));
    row.checked(agree, format!("every key finds its value; one-thread twin fill {fill_ms:.1} ms (no GPU insert pass){note}"))
}

/// Whether the adapter has subgroups (the chained hash's subgroup build then runs too).
fn subgroups() -> Result<bool, PeersError> {
    let adapter = bisector::gpu::request_adapter(&bisector::gpu::create_instance(), None)?;
    Ok(adapter.features().contains(wgpu::Features::SUBGROUP))
}
