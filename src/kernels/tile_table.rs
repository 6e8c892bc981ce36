//! `bisector kernel tile-table`: the tile cache's hash table in isolation. For each load factor
//! (0.5 and 0.9) the CPU builds a table of 2^N slots from distinct random tile keys and mirrors
//! it to the GPU; the GPU then runs one lookup per thread over all hits, all misses, and the
//! ancestor walk (queries a few levels below resident tiles, plus strays) that inserts every key
//! it missed into the feedback set. Every answer is checked against the CPU twins
//! (`globe::cache::tile_table::TileTable`, `globe::cache::tile_feedback::TileFeedbackSet`); the throughput is
//! queries / median GPU time of the pass. `shaders/kernel_tile_table.wgsl`.

use std::collections::BTreeSet;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wgpu::util::DeviceExt;

use crate::globe::cache::tile_feedback::{GpuTileFeedback, TileFeedbackSet};
use crate::globe::cache::tile_key::{TileKey, MAX_ZOOM};
use crate::globe::cache::tile_table::{GpuTileTable, TileTable, TILE_MISS};
use crate::gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use crate::gpu::readback::read_buffer;
use crate::gpu::timings::percentile;
use crate::gpu::timings::{submit_and_time, TimingMs};
use crate::gpu::{profiled_compute_pass, Gpu};
pub use crate::kernels::tile_table_bucketed::BucketedLoadReport;
use crate::kernels::tile_table_bucketed::GpuBucketedTileTable;
use crate::kernels::tile_table_cuckoo::{CuckooLayout, CuckooTable, GpuCuckooTable};
use crate::kernels::tile_table_packed::GpuPackedTileTable;
pub use crate::kernels::tile_table_packed::PackedLoadReport;
use crate::shaders::SHADERS;

/// The load factors every run measures.
pub const LOADS: [f64; 2] = [0.5, 0.9];
/// Timed runs of a query set of at least WARM_UP_MIN_QUERIES follow at least this much wall time
/// of untimed ones (the GPU's clocks ramp up after the CPU's table builds; BENCHMARKS.md, run
/// 29), and at most MAX_WARM_UP_RUNS of them. Smaller sets (the tests') warm up with one run.
const WARM_UP_MS: f64 = 300.0;
const WARM_UP_MIN_QUERIES: usize = 1 << 20;
const MAX_WARM_UP_RUNS: u32 = 1000;

/// Which table layouts a run measures, on the same keys and queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TableVariant {
    /// The renderer's table: linear probing in Robin Hood order (`globe::cache::tile_table`).
    Linear,
    /// Bucketed cuckoo hashing, buckets of 8 (`kernels::tile_table_bucketed`).
    Bucketed,
    /// Linear and bucketed, reported side by side.
    Both,
    /// Partial-key cuckoo hashing, one 32-byte bucket of 4 slots (`kernels::tile_table_packed`).
    Packed,
    /// All three, reported side by side.
    #[default]
    All,
}

impl TableVariant {
    /// Runs the linear table.
    pub fn linear(self) -> bool {
        matches!(self, TableVariant::Linear | TableVariant::Both | TableVariant::All)
    }

    /// Runs the bucketed table.
    pub fn bucketed(self) -> bool {
        matches!(self, TableVariant::Bucketed | TableVariant::Both | TableVariant::All)
    }

    /// Runs the packed table.
    pub fn packed(self) -> bool {
        matches!(self, TableVariant::Packed | TableVariant::All)
    }
}

/// What to run (also a possible panel's persisted parameters).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TileTableOptions {
    /// The table has 2^capacity_log2 slots; each lookup set has as many queries.
    pub capacity_log2: u32,
    /// Slots of the feedback set (a power of two).
    pub feedback_capacity: u32,
    pub iterations: u32,
    pub seed: u64,
    /// The layouts to measure.
    pub variant: TableVariant,
}

impl Default for TileTableOptions {
    fn default() -> Self {
        TileTableOptions { capacity_log2: 16, feedback_capacity: 4096, iterations: 10, seed: 1, variant: TableVariant::All }
    }
}

/// One lookup set's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct TileLookupReport {
    pub queries: &'static str,
    pub count: u32,
    pub gpu: TimingMs,
    /// Queries per second (median time).
    pub lookups_per_s: f64,
    /// Every answer equals the CPU twin's.
    pub verified: bool,
}

/// The feedback set after the ancestor walk.
#[derive(Clone, Debug, Serialize)]
pub struct FeedbackReport {
    pub capacity: u32,
    /// Distinct keys the walk missed (the twin's count, before the capacity).
    pub distinct_missed: usize,
    pub stored: u32,
    pub overflow: bool,
    /// Equals the CPU twin (the same keys, or with overflow `capacity` of the missed keys).
    pub verified: bool,
}

/// The summary's lines of each lookup and of the feedback set (one per line, indented).
pub(crate) fn lookup_lines(lookups: &[TileLookupReport], f: &FeedbackReport) -> String {
    let mut out = String::new();
    for q in lookups {
        out += &format!(
            "    {:20} median {:.4} ms, min {:.4} ms, {:.3} G lookups/s, verified: {}\n",
            q.queries,
            q.gpu.median_ms,
            q.gpu.min_ms,
            q.lookups_per_s / 1e9,
            q.verified
        );
    }
    out + &format!(
        "    feedback: {} distinct missed, {} stored of {}, overflow {}, verified: {}\n",
        f.distinct_missed, f.stored, f.capacity, f.overflow, f.verified
    )
}

/// One load factor's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    pub load: f64,
    pub keys: u32,
    /// Largest displacement (a lookup examines at most this + 1 slots).
    pub max_probe: u32,
    /// Mean slots a hit examines (displacement + 1), and its 99th percentile.
    pub mean_hit_probes: f64,
    pub p99_hit_probes: f64,
    /// The same for the miss queries.
    pub mean_miss_probes: f64,
    pub p99_miss_probes: f64,
    /// The whole workload (table and query sets) on the CPU.
    pub cpu_build_ms: f64,
    /// Keys per second the CPU twin took while filling the table (one thread; a lookup, to skip
    /// duplicate random keys, and an insert each).
    pub cpu_inserts_per_s: f64,
    pub lookups: Vec<TileLookupReport>,
    pub feedback: FeedbackReport,
    pub churn: ChurnReport,
    pub verified: bool,
}

/// A cache's steady state at this load: evict some tiles, insert as many new ones, upload.
#[derive(Clone, Debug, Serialize)]
pub struct ChurnReport {
    /// Keys removed, and as many new keys inserted.
    pub evictions: u32,
    /// Slots the edits changed (removals shift entries back, inserts displace others).
    pub dirty_slots: u32,
    /// `write_buffer` calls of the sync (runs of dirty slots, plus the header).
    pub writes: usize,
    /// CPU time of the edits, and of the sync (staging the writes).
    pub edit_ms: f64,
    pub sync_ms: f64,
    /// The GPU table equals the twin byte for byte afterwards, and GPU lookups of the evicted
    /// and inserted keys give the twin's answers.
    pub verified: bool,
}

/// One row of the side-by-side table: a query set at a load, in both layouts.
#[derive(Clone, Debug, Serialize)]
pub struct SideBySide {
    pub load: f64,
    pub queries: &'static str,
    /// Queries per second (median time) of each layout that ran.
    pub linear_lookups_per_s: Option<f64>,
    pub bucketed_lookups_per_s: Option<f64>,
    /// The bucketed table read a whole bucket at a time (`lookup_whole`).
    pub bucketed_whole_lookups_per_s: Option<f64>,
    /// The bucketed table read by 8 lanes of a subgroup per query (`lookup_subgroup`).
    pub bucketed_subgroup_lookups_per_s: Option<f64>,
    /// The packed table (`lookup`: the alternate bucket only behind a full primary).
    pub packed_lookups_per_s: Option<f64>,
    /// The packed table with both buckets loaded before any compare (`lookup_both`).
    pub packed_both_lookups_per_s: Option<f64>,
    /// The packed table without a branch (`lookup_flat`).
    pub packed_flat_lookups_per_s: Option<f64>,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct TileTableReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub variant: TableVariant,
    pub capacity: u32,
    /// Bytes of the linear table, of the bucketed one and of the packed one.
    pub table_bytes: u64,
    pub bucketed_table_bytes: u64,
    pub packed_table_bytes: u64,
    pub seed: u64,
    pub verified: bool,
    /// The linear table's loads (empty when it did not run).
    pub loads: Vec<LoadReport>,
    /// The bucketed table's loads on the same keys and queries (empty when it did not run).
    pub bucketed: Vec<BucketedLoadReport>,
    /// The packed table's loads on the same keys and queries (empty when it did not run).
    pub packed: Vec<PackedLoadReport>,
    /// Hits and misses of every layout that ran, at each load.
    pub side_by_side: Vec<SideBySide>,
    /// GPU threads inserting keys into the feedback set, each key many times (the frame's misses
    /// are mostly the same few tiles): capacity / 2 distinct keys over 2^N inserts.
    pub feedback_inserts: TileLookupReport,
}

/// Storage bytes the largest buffer of a run with 2^`capacity_log2` slots needs.
pub fn largest_buffer_bytes(capacity_log2: u32) -> u64 {
    GpuTileTable::buffer_bytes(1 << capacity_log2).max(8 << capacity_log2)
}

/// xorshift64*, the run's only randomness (reproducible from the seed).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random key of 4 sources at zoom `zoom_low..=zoom_high`.
pub(crate) fn random_key(rng: &mut Rng, zoom_low: u8, zoom_high: u8) -> TileKey {
    let zoom = zoom_low + rng.below((zoom_high - zoom_low) as u64 + 1) as u8;
    let side = 1u64 << zoom;
    TileKey::new(rng.below(4) as u8, zoom, rng.below(side) as u32, rng.below(side) as u32).expect("in range")
}

/// Whether `check` holds for every pair of `a` and `b` (zipped), on all the CPU's threads: the
/// answers of 2^24 queries are checked in a fraction of the time.
pub fn all_pairs<A: Sync, B: Sync>(a: &[A], b: &[B], check: impl Fn(&A, &B) -> bool + Sync) -> bool {
    let n = a.len().min(b.len());
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.div_ceil(1 << 14)).max(1);
    let chunk = n.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let check = &check;
        let workers: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|start| {
                let end = (start + chunk).min(n);
                scope.spawn(move || a[start..end].iter().zip(&b[start..end]).all(|(x, y)| check(x, y)))
            })
            .collect();
        workers.into_iter().all(|w| w.join().expect("a checking thread panicked"))
    })
}

/// Table contents and query sets of one load factor.
pub struct Workload {
    pub table: TileTable,
    /// CPU time of filling the table.
    pub fill_ms: f64,
    pub keys: Vec<TileKey>,
    pub hits: Vec<TileKey>,
    pub misses: Vec<TileKey>,
    /// Keys 0-4 levels below resident tiles, and a few unrelated keys.
    pub descendants: Vec<TileKey>,
    /// The feedback set the ancestor walk over `descendants` fills, and the keys it missed (the
    /// same for every layout holding `keys`; computed once, `Workload::expected_feedback`).
    feedback_twin: std::sync::OnceLock<(u32, (TileFeedbackSet, BTreeSet<TileKey>))>,
}

impl Workload {
    /// `expected_feedback` for `descendants` over the workload's keys (the same for every layout
    /// holding them): computed once, on all threads, so that 2^24 walks are checked in seconds.
    /// Equal to `expected_feedback_of`: the set takes the missed keys in query order up to its
    /// capacity (later ones only raise the overflow flag), `missed` holds every missed key.
    /// Must run before the linear table's churn edits `table`.
    pub fn expected_feedback(&self, capacity: u32) -> &(TileFeedbackSet, BTreeSet<TileKey>) {
        let (cached_capacity, twin) = self.feedback_twin.get_or_init(|| {
            let resident = par_map(&self.descendants, |&k| self.table.lookup(k).is_some());
            let mut set = TileFeedbackSet::new(capacity);
            for (&key, _) in self.descendants.iter().zip(&resident).filter(|(_, &r)| !r) {
                set.insert(key);
                if set.overflow {
                    break;
                }
            }
            let mut missed: Vec<TileKey> = self.descendants.iter().zip(&resident).filter(|(_, &r)| !r).map(|(&k, _)| k).collect();
            missed.sort_unstable();
            missed.dedup();
            (capacity, (set, missed.into_iter().collect()))
        });
        assert_eq!(*cached_capacity, capacity, "one feedback capacity per workload");
        twin
    }
}

/// `f` of every item, on all the CPU's threads, in order.
pub fn par_map<A: Sync, B: Send>(items: &[A], f: impl Fn(&A) -> B + Sync) -> Vec<B> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(items.len().div_ceil(1 << 14)).max(1);
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let f = &f;
        let workers: Vec<_> = items.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<B>>())).collect();
        workers.into_iter().flat_map(|w| w.join().expect("a worker thread panicked")).collect()
    })
}

/// Fills a table of 2^`capacity_log2` slots to `load` with distinct random keys (atlas slot =
/// insertion index) and draws the query sets, `2^capacity_log2` queries each.
pub fn make_workload(capacity_log2: u32, load: f64, seed: u64) -> Workload {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut table = TileTable::new(capacity_log2);
    let target = ((load * table.capacity() as f64).round() as u32).min(table.capacity());
    let mut keys = Vec::with_capacity(target as usize);
    let fill_start = Instant::now();
    // Zooms from 6 up: plenty of distinct keys, some with resident ancestors.
    while table.len() < target {
        let key = random_key(&mut rng, 6, 24);
        if table.lookup(key).is_none() {
            table.insert(key, keys.len() as u32).expect("room left");
            keys.push(key);
        }
    }
    let fill_ms = fill_start.elapsed().as_secs_f64() * 1e3;
    let n = 1usize << capacity_log2;
    let hits: Vec<TileKey> =
        if keys.is_empty() { Vec::new() } else { (0..n).map(|_| keys[rng.below(keys.len() as u64) as usize]).collect() };
    let mut misses = Vec::with_capacity(n);
    while misses.len() < n {
        let key = random_key(&mut rng, 6, 24);
        if table.lookup(key).is_none() {
            misses.push(key);
        }
    }
    let descendants = (0..n)
        .map(|_| {
            if keys.is_empty() || rng.below(8) == 0 {
                return random_key(&mut rng, 0, MAX_ZOOM);
            }
            let mut key = keys[rng.below(keys.len() as u64) as usize];
            for _ in 0..rng.below(5) {
                key = key.child(rng.below(4) as u32).unwrap_or(key);
            }
            key
        })
        .collect();
    Workload { table, fill_ms, keys, hits, misses, descendants, feedback_twin: std::sync::OnceLock::new() }
}

fn storage(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    })
}

fn packed(keys: &[TileKey]) -> Vec<[u32; 2]> {
    keys.iter().map(|k| k.pack()).collect()
}

/// The GPU side of the kernel: pipelines, and buffers for one table.
pub struct TileTableKernel {
    lookup: wgpu::ComputePipeline,
    lookup_ancestor: wgpu::ComputePipeline,
    feedback_insert: wgpu::ComputePipeline,
    bucketed_lookup: wgpu::ComputePipeline,
    bucketed_lookup_whole: wgpu::ComputePipeline,
    bucketed_lookup_ancestor: wgpu::ComputePipeline,
    /// Present when the device has subgroups.
    bucketed_lookup_subgroup: Option<wgpu::ComputePipeline>,
    packed_lookup: wgpu::ComputePipeline,
    packed_lookup_both: wgpu::ComputePipeline,
    packed_lookup_flat: wgpu::ComputePipeline,
    packed_lookup_ancestor: wgpu::ComputePipeline,
}

/// Why `Pass::LookupSubgroup` cannot run on a device.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SubgroupLookupError {
    #[error("the device has no subgroups")]
    NoSubgroups,
    #[error("subgroups of {min} to {max} lanes; the subgroup lookup needs 8 to {WORKGROUP_SIZE} lanes, powers of two")]
    Size { min: u32, max: u32 },
}

/// GPU answers of one query set.
pub struct GpuAnswers {
    pub slots: Vec<u32>,
    pub ancestors: Vec<[u32; 2]>,
    pub feedback: crate::globe::cache::tile_feedback::FeedbackReadback,
    pub times_ms: Vec<f64>,
}

/// Which entry point to run over a query set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Lookup,
    /// The bucketed table's lookup reading each bucket whole (the linear table runs `Lookup`).
    LookupWholeBucket,
    /// The bucketed table's lookup by 8 lanes of a subgroup per query (needs
    /// `TileTableKernel::subgroup_lookup`; the linear table runs `Lookup`).
    LookupSubgroup,
    /// The packed table's lookup loading both buckets before any compare (the others run
    /// `Lookup`).
    LookupBothBuckets,
    /// The packed table's lookup without a branch (a second load for every query).
    LookupFlat,
    LookupAncestor,
    FeedbackInsert,
}

impl Pass {
    /// Writes one atlas slot per query (`GpuAnswers::slots`).
    pub fn is_lookup(self) -> bool {
        matches!(self, Pass::Lookup | Pass::LookupWholeBucket | Pass::LookupSubgroup | Pass::LookupBothBuckets | Pass::LookupFlat)
    }

    /// The name of its entry point (in the layout's kernel that has it), as the pass labels say.
    pub fn entry_point(self) -> &'static str {
        match self {
            Pass::Lookup => "lookup",
            Pass::LookupWholeBucket => "lookup_whole",
            Pass::LookupSubgroup => "lookup_subgroup",
            Pass::LookupBothBuckets => "lookup_both",
            Pass::LookupFlat => "lookup_flat",
            Pass::LookupAncestor => "lookup_ancestor",
            Pass::FeedbackInsert => "feedback_insert",
        }
    }
}

impl TileTableKernel {
    pub fn new(device: &wgpu::Device) -> TileTableKernel {
        let pipeline =
            |entry: &str| SHADERS.compute_pipeline(device, &format!("kernel.tile_table.{entry}"), "kernel_tile_table.wgsl", entry, &[]);
        let bucketed = |entry: &str| {
            SHADERS.compute_pipeline(device, &format!("kernel.tile_table_bucketed.{entry}"), "kernel_tile_table_bucketed.wgsl", entry, &[])
        };
        let packed = |entry: &str| {
            SHADERS.compute_pipeline(device, &format!("kernel.tile_table_packed.{entry}"), "kernel_tile_table_packed.wgsl", entry, &[])
        };
        TileTableKernel {
            lookup: pipeline("lookup"),
            lookup_ancestor: pipeline("lookup_ancestor"),
            feedback_insert: pipeline("feedback_insert"),
            bucketed_lookup: bucketed("lookup"),
            bucketed_lookup_whole: bucketed("lookup_whole"),
            bucketed_lookup_ancestor: bucketed("lookup_ancestor"),
            bucketed_lookup_subgroup: device.features().contains(wgpu::Features::SUBGROUP).then(|| {
                let (file, entry) = ("kernel_tile_table_bucketed_subgroup.wgsl", "lookup_subgroup");
                SHADERS.compute_pipeline(device, "kernel.tile_table_bucketed.lookup_subgroup", file, entry, &[])
            }),
            packed_lookup: packed("lookup"),
            packed_lookup_both: packed("lookup_both"),
            packed_lookup_flat: packed("lookup_flat"),
            packed_lookup_ancestor: packed("lookup_ancestor"),
        }
    }

    /// Whether `Pass::LookupSubgroup` can run on `gpu`, or why not: subgroups of a multiple of
    /// 8 lanes that divide a workgroup.
    pub fn subgroup_lookup(&self, gpu: &Gpu) -> Result<(), SubgroupLookupError> {
        let info = gpu.adapter.get_info();
        let (min, max) = (info.subgroup_min_size, info.subgroup_max_size);
        if self.bucketed_lookup_subgroup.is_none() {
            Err(SubgroupLookupError::NoSubgroups)
        } else if min < 8 || max > WORKGROUP_SIZE || !min.is_power_of_two() || !max.is_power_of_two() {
            Err(SubgroupLookupError::Size { min, max })
        } else {
            Ok(())
        }
    }

    /// `run` over a cuckoo table, bucketed or packed (its layout's own entry points, the same
    /// bindings).
    #[allow(clippy::too_many_arguments)]
    pub fn run_cuckoo<T: CuckooTable>(
        &self,
        gpu: &Gpu,
        profiler: &mut wgpu_profiler::GpuProfiler,
        label: &str,
        pass: Pass,
        table: &GpuCuckooTable<T>,
        feedback: &GpuTileFeedback,
        queries: &[TileKey],
        iterations: u32,
    ) -> GpuAnswers {
        let pipeline = match T::LAYOUT {
            CuckooLayout::Bucketed => match pass {
                Pass::Lookup | Pass::LookupBothBuckets | Pass::LookupFlat => &self.bucketed_lookup,
                Pass::LookupWholeBucket => &self.bucketed_lookup_whole,
                Pass::LookupSubgroup => self.bucketed_lookup_subgroup.as_ref().expect("checked by subgroup_lookup"),
                Pass::LookupAncestor => &self.bucketed_lookup_ancestor,
                Pass::FeedbackInsert => &self.feedback_insert,
            },
            CuckooLayout::Packed => match pass {
                Pass::Lookup | Pass::LookupWholeBucket | Pass::LookupSubgroup => &self.packed_lookup,
                Pass::LookupBothBuckets => &self.packed_lookup_both,
                Pass::LookupFlat => &self.packed_lookup_flat,
                Pass::LookupAncestor => &self.packed_lookup_ancestor,
                Pass::FeedbackInsert => &self.feedback_insert,
            },
        };
        self.run_pipeline(gpu, profiler, label, pass, pipeline, &table.buffer, feedback, queries, iterations)
    }

    /// Runs `pass` over `queries` `iterations` times after one untimed run (the feedback set
    /// cleared before each, in the same encoder, untimed) and reads back the answers of the last.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        gpu: &Gpu,
        profiler: &mut wgpu_profiler::GpuProfiler,
        label: &str,
        pass: Pass,
        table: &GpuTileTable,
        feedback: &GpuTileFeedback,
        queries: &[TileKey],
        iterations: u32,
    ) -> GpuAnswers {
        let pipeline = match pass {
            Pass::Lookup | Pass::LookupWholeBucket | Pass::LookupSubgroup | Pass::LookupBothBuckets | Pass::LookupFlat => &self.lookup,
            Pass::LookupAncestor => &self.lookup_ancestor,
            Pass::FeedbackInsert => &self.feedback_insert,
        };
        self.run_pipeline(gpu, profiler, label, pass, pipeline, &table.buffer, feedback, queries, iterations)
    }

    /// Runs `pipeline` (an entry point of `pass`) with the table in `table_buffer`.
    #[allow(clippy::too_many_arguments)]
    fn run_pipeline(
        &self,
        gpu: &Gpu,
        profiler: &mut wgpu_profiler::GpuProfiler,
        label: &str,
        pass: Pass,
        pipeline: &wgpu::ComputePipeline,
        table_buffer: &wgpu::Buffer,
        feedback: &GpuTileFeedback,
        queries: &[TileKey],
        iterations: u32,
    ) -> GpuAnswers {
        let device = &gpu.device;
        let n = queries.len().max(1) as u64;
        // Zero-length bindings are invalid: a lone empty query past the end stands in.
        let words = if queries.is_empty() { vec![[0u32; 2]] } else { packed(queries) };
        let query_buffer = storage(device, "kernel.tile_table.queries", bytemuck::cast_slice(&words));
        let slots_found = storage(device, "kernel.tile_table.slots_found", &vec![0u8; 4 * n as usize]);
        let ancestors_found = storage(device, "kernel.tile_table.ancestors_found", &vec![0u8; 8 * n as usize]);
        // The layouts come from the shader, which binds only what each entry point uses.
        let mut entries = vec![wgpu::BindGroupEntry { binding: 2, resource: query_buffer.as_entire_binding() }];
        if pass != Pass::FeedbackInsert {
            entries.push(wgpu::BindGroupEntry { binding: 0, resource: table_buffer.as_entire_binding() });
        }
        match pass {
            Pass::Lookup | Pass::LookupWholeBucket | Pass::LookupSubgroup | Pass::LookupBothBuckets | Pass::LookupFlat => {
                entries.push(wgpu::BindGroupEntry { binding: 3, resource: slots_found.as_entire_binding() })
            }
            Pass::LookupAncestor => entries.push(wgpu::BindGroupEntry { binding: 4, resource: ancestors_found.as_entire_binding() }),
            Pass::FeedbackInsert => {}
        }
        if !pass.is_lookup() {
            entries.push(wgpu::BindGroupEntry { binding: 1, resource: feedback.buffer.as_entire_binding() });
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let mut times_ms = Vec::new();
        // Untimed runs first: some drivers (lavapipe) compile the pipeline at its first dispatch,
        // and a GPU idle during the CPU's table builds starts at low clocks (BENCHMARKS.md, run 29),
        // so timed runs of large sets (iterations > 1) follow at least WARM_UP_MS of untimed ones.
        let warm_up = iterations > 1 && queries.len() >= WARM_UP_MIN_QUERIES;
        let warm_up_start = Instant::now();
        let mut warm_up_runs = 1;
        let mut iteration = 0;
        while iteration <= iterations.max(1) {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
            feedback.clear(&mut encoder);
            profiled_compute_pass(profiler, &mut encoder, label, |p| {
                p.set_pipeline(pipeline);
                p.set_bind_group(0, &bind_group, &[]);
                if !queries.is_empty() {
                    // The subgroup lookup takes 8 threads per query.
                    let threads = queries.len() as u32 * if pass == Pass::LookupSubgroup { 8 } else { 1 };
                    let (x, y) = groups_2d(threads.div_ceil(WORKGROUP_SIZE));
                    p.dispatch_workgroups(x, y, 1);
                }
            });
            let times = submit_and_time(gpu, profiler, encoder, label);
            if iteration > 0 {
                times_ms.extend(times);
            } else if warm_up && warm_up_start.elapsed().as_secs_f64() * 1e3 < WARM_UP_MS && warm_up_runs < MAX_WARM_UP_RUNS {
                warm_up_runs += 1;
                continue;
            }
            iteration += 1;
        }
        let slots = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &slots_found, 0, 4 * n)).to_vec();
        let ancestors = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &ancestors_found, 0, 8 * n)).to_vec();
        GpuAnswers { slots, ancestors, feedback: feedback.read(device, &gpu.queue), times_ms }
    }
}

/// The CPU twin's answer to `lookup_ancestor` for `key`, as the GPU writes it: (slot, zoom),
/// (TILE_MISS, 0) when no ancestor is resident.
pub fn expected_ancestor(table: &TileTable, key: TileKey) -> [u32; 2] {
    table.lookup_ancestor(key).map_or([TILE_MISS, 0], |(slot, zoom)| [slot, zoom as u32])
}

/// The feedback set the CPU twin builds from the ancestor walk over `queries`: every key whose
/// own tile is not resident.
pub fn expected_feedback(table: &TileTable, queries: &[TileKey], capacity: u32) -> (TileFeedbackSet, BTreeSet<TileKey>) {
    expected_feedback_of(|key| table.lookup(key).is_some(), queries, capacity)
}

/// `expected_feedback` for any table, given whether a key is resident.
pub fn expected_feedback_of(
    resident: impl Fn(TileKey) -> bool,
    queries: &[TileKey],
    capacity: u32,
) -> (TileFeedbackSet, BTreeSet<TileKey>) {
    let mut set = TileFeedbackSet::new(capacity);
    let mut missed = BTreeSet::new();
    for &key in queries {
        if !resident(key) {
            set.insert(key);
            missed.insert(key);
        }
    }
    (set, missed)
}

/// Runs the kernel at load 0.5 and 0.9.
pub fn run(gpu: &Gpu, options: &TileTableOptions) -> TileTableReport {
    let kernel = TileTableKernel::new(&gpu.device);
    let mut profiler = crate::gpu::create_profiler(&gpu.device);
    let feedback = GpuTileFeedback::new(&gpu.device, &gpu.queue, options.feedback_capacity);
    let mut loads = Vec::new();
    let mut bucketed = Vec::new();
    let mut packed = Vec::new();
    for (index, load) in LOADS.into_iter().enumerate() {
        let cpu_start = Instant::now();
        let mut work = make_workload(options.capacity_log2, load, options.seed.wrapping_add(index as u64));
        let cpu_build_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
        // The bucketed table first: the linear table's churn below changes the workload.
        if options.variant.bucketed() {
            bucketed.push(crate::kernels::tile_table_bucketed::run_load(gpu, &mut profiler, &kernel, &work, &feedback, options, load));
        }
        if options.variant.packed() {
            packed.push(crate::kernels::tile_table_packed::run_load(gpu, &mut profiler, &kernel, &work, &feedback, options, load));
        }
        if !options.variant.linear() {
            continue;
        }
        let table = GpuTileTable::new(&gpu.device, &mut work.table);
        let probe_stats = |keys: &[TileKey]| {
            let mut probes: Vec<f64> = keys.iter().map(|&k| work.table.probes(k) as f64).collect();
            probes.sort_by(f64::total_cmp);
            (probes.iter().sum::<f64>() / probes.len().max(1) as f64, percentile(&probes, 99.0))
        };
        let (mean_hit_probes, p99_hit_probes) = probe_stats(&work.keys);
        let (mean_miss_probes, p99_miss_probes) = probe_stats(&work.misses);
        let mut lookups = Vec::new();
        let mut feedback_report = None;
        for (name, pass, queries) in [
            ("hits", Pass::Lookup, &work.hits),
            ("misses", Pass::Lookup, &work.misses),
            ("ancestor + feedback", Pass::LookupAncestor, &work.descendants),
        ] {
            let label =
                format!("kernel.tile_table.{} (load {load}, {name})", if pass == Pass::Lookup { "lookup" } else { "lookup_ancestor" });
            let answers = kernel.run(gpu, &mut profiler, &label, pass, &table, &feedback, queries, options.iterations);
            let verified = match pass {
                Pass::Lookup => all_pairs(queries, &answers.slots, |k, &s| work.table.lookup(*k).unwrap_or(TILE_MISS) == s),
                _ => {
                    let (twin, missed) = work.expected_feedback(options.feedback_capacity);
                    let feedback_ok = answers.feedback.equals_twin(twin, missed);
                    feedback_report = Some(FeedbackReport {
                        capacity: options.feedback_capacity,
                        distinct_missed: missed.len(),
                        stored: answers.feedback.count,
                        overflow: answers.feedback.overflow,
                        verified: feedback_ok,
                    });
                    all_pairs(queries, &answers.ancestors, |k, a| expected_ancestor(&work.table, *k) == *a)
                }
            };
            let timing = TimingMs::of(answers.times_ms);
            lookups.push(TileLookupReport {
                queries: name,
                count: queries.len() as u32,
                lookups_per_s: queries.len() as f64 / (timing.median_ms * 1e-3),
                gpu: timing,
                verified,
            });
        }
        let feedback_report = feedback_report.expect("the ancestor pass ran");
        let churn = churn(gpu, &mut profiler, &kernel, &mut work, &table, &feedback, options.seed);
        let verified = lookups.iter().all(|l| l.verified) && feedback_report.verified && churn.verified;
        loads.push(LoadReport {
            load,
            keys: work.table.len(),
            max_probe: work.table.max_probe(),
            mean_hit_probes,
            p99_hit_probes,
            mean_miss_probes,
            p99_miss_probes,
            cpu_build_ms,
            cpu_inserts_per_s: work.keys.len() as f64 / (work.fill_ms * 1e-3),
            lookups,
            feedback: feedback_report,
            churn,
            verified,
        });
    }
    let feedback_inserts = feedback_inserts(gpu, &mut profiler, &kernel, &feedback, options);
    let side_by_side = side_by_side(&loads, &bucketed, &packed);
    TileTableReport {
        kernel: "tile-table",
        adapter: gpu.describe(),
        variant: options.variant,
        capacity: 1 << options.capacity_log2,
        table_bytes: GpuTileTable::buffer_bytes(1 << options.capacity_log2),
        bucketed_table_bytes: GpuBucketedTileTable::buffer_bytes(options.capacity_log2),
        packed_table_bytes: GpuPackedTileTable::buffer_bytes(options.capacity_log2),
        seed: options.seed,
        verified: loads.iter().all(|l| l.verified)
            && bucketed.iter().all(|l| l.verified)
            && packed.iter().all(|l| l.verified)
            && feedback_inserts.verified,
        loads,
        bucketed,
        packed,
        side_by_side,
        feedback_inserts,
    }
}

/// Hits and misses at each load, in every layout that ran.
fn side_by_side(linear: &[LoadReport], bucketed: &[BucketedLoadReport], packed: &[PackedLoadReport]) -> Vec<SideBySide> {
    let rate = |lookups: &[TileLookupReport], queries: &str| lookups.iter().find(|q| q.queries == queries).map(|q| q.lookups_per_s);
    let mut rows = Vec::new();
    for load in LOADS {
        for queries in ["hits", "misses"] {
            rows.push(SideBySide {
                load,
                queries,
                linear_lookups_per_s: linear.iter().find(|l| l.load == load).and_then(|l| rate(&l.lookups, queries)),
                bucketed_lookups_per_s: bucketed.iter().find(|l| l.load == load).and_then(|l| rate(&l.lookups, queries)),
                bucketed_whole_lookups_per_s: bucketed
                    .iter()
                    .find(|l| l.load == load)
                    .and_then(|l| rate(&l.lookups, &format!("{queries}, whole buckets"))),
                bucketed_subgroup_lookups_per_s: bucketed
                    .iter()
                    .find(|l| l.load == load)
                    .and_then(|l| rate(&l.lookups, &format!("{queries}, subgroup"))),
                packed_lookups_per_s: packed.iter().find(|l| l.load == load).and_then(|l| rate(&l.lookups, queries)),
                packed_both_lookups_per_s: packed
                    .iter()
                    .find(|l| l.load == load)
                    .and_then(|l| rate(&l.lookups, &format!("{queries}, both buckets"))),
                packed_flat_lookups_per_s: packed
                    .iter()
                    .find(|l| l.load == load)
                    .and_then(|l| rate(&l.lookups, &format!("{queries}, no branch"))),
            });
        }
    }
    rows
}

/// Evicts a quarter of the keys (at most 1024), inserts as many new ones, syncs and checks.
fn churn(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    work: &mut Workload,
    table: &GpuTileTable,
    feedback: &GpuTileFeedback,
    seed: u64,
) -> ChurnReport {
    let mut rng = Rng(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) | 1);
    let evictions = (work.keys.len() / 4).min(1024);
    let mut touched = Vec::with_capacity(2 * evictions);
    for _ in 0..evictions {
        touched.push(work.keys.swap_remove(rng.below(work.keys.len() as u64) as usize));
    }
    let mut new_keys = Vec::with_capacity(evictions);
    while new_keys.len() < evictions {
        let key = random_key(&mut rng, 6, 24);
        if work.table.lookup(key).is_none() && !touched.contains(&key) && !new_keys.contains(&key) {
            new_keys.push(key);
        }
    }
    let start = Instant::now();
    for (i, (&old, &new)) in touched.iter().zip(&new_keys).enumerate() {
        work.table.remove(old).expect("present");
        work.table.insert(new, i as u32).expect("room left");
    }
    let edit_ms = start.elapsed().as_secs_f64() * 1e3;
    let dirty_slots = work.table.dirty_slots();
    let start = Instant::now();
    let writes = table.sync(&gpu.queue, &mut work.table) + 1;
    let sync_ms = start.elapsed().as_secs_f64() * 1e3;
    touched.extend(new_keys);
    let bytes = read_buffer(&gpu.device, &gpu.queue, &table.buffer, 0, table.buffer.size());
    let mut expected = bytemuck::bytes_of(&work.table.header()).to_vec();
    expected.extend_from_slice(bytemuck::cast_slice(work.table.slots()));
    let answers = kernel.run(gpu, profiler, "kernel.tile_table.lookup (churn)", Pass::Lookup, table, feedback, &touched, 1);
    let lookups_ok = touched.iter().zip(&answers.slots).all(|(k, &s)| work.table.lookup(*k).unwrap_or(TILE_MISS) == s);
    ChurnReport { evictions: evictions as u32, dirty_slots, writes, edit_ms, sync_ms, verified: bytes == expected && lookups_ok }
}

/// Times GPU inserts into the feedback set: capacity / 2 distinct keys, 2^N inserts in random
/// order; checks the set equals the twin's.
fn feedback_inserts(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    feedback: &GpuTileFeedback,
    options: &TileTableOptions,
) -> TileLookupReport {
    let mut rng = Rng(options.seed.wrapping_mul(0x94d0_49bb_1331_11eb) | 1);
    let mut distinct = BTreeSet::new();
    while distinct.len() < (feedback.capacity as usize / 2).max(1) {
        distinct.insert(random_key(&mut rng, 0, MAX_ZOOM));
    }
    let distinct_keys: Vec<TileKey> = distinct.iter().copied().collect();
    let inserts: Vec<TileKey> =
        (0..1usize << options.capacity_log2).map(|_| distinct_keys[rng.below(distinct_keys.len() as u64) as usize]).collect();
    let mut twin = TileFeedbackSet::new(feedback.capacity);
    for &k in &inserts {
        twin.insert(k);
    }
    let inserted: BTreeSet<TileKey> = inserts.iter().copied().collect();
    let answers = kernel.run(
        gpu,
        profiler,
        "kernel.tile_table.feedback_insert",
        Pass::FeedbackInsert,
        &empty_table(gpu),
        feedback,
        &inserts,
        options.iterations,
    );
    let timing = TimingMs::of(answers.times_ms);
    TileLookupReport {
        queries: "feedback inserts",
        count: inserts.len() as u32,
        lookups_per_s: inserts.len() as f64 / (timing.median_ms * 1e-3),
        gpu: timing,
        verified: answers.feedback.equals_twin(&twin, &inserted),
    }
}

/// A table of one empty slot (for passes that do not read the table).
fn empty_table(gpu: &Gpu) -> GpuTileTable {
    GpuTileTable::new(&gpu.device, &mut TileTable::new(0))
}

impl TileTableReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "tile-table on {}: 2^{} slots (linear {} KiB, bucketed {} KiB, packed {} KiB), verified: {}\n",
            self.adapter,
            self.capacity.trailing_zeros(),
            self.table_bytes >> 10,
            self.bucketed_table_bytes >> 10,
            self.packed_table_bytes >> 10,
            self.verified
        );
        if !self.loads.is_empty() {
            out += "  linear probing, Robin Hood order (the renderer's table):\n";
        }
        for l in &self.loads {
            out += &format!(
                "  load {:.2}: {} keys, max probe {}, slots examined by a hit: mean {:.2} p99 {:.0}, by a miss: mean {:.2} p99 {:.0}; CPU build {:.1} ms\n",
                l.load, l.keys, l.max_probe, l.mean_hit_probes, l.p99_hit_probes, l.mean_miss_probes, l.p99_miss_probes, l.cpu_build_ms
            );
            out += &lookup_lines(&l.lookups, &l.feedback);
            let c = &l.churn;
            out += &format!(
                "    CPU twin: {:.1} M inserts/s; churn: {} evictions + {} inserts changed {} slots in {:.2} ms, synced in {} writes in {:.2} ms, verified: {}\n",
                l.cpu_inserts_per_s / 1e6, c.evictions, c.evictions, c.dirty_slots, c.edit_ms, c.writes, c.sync_ms, c.verified
            );
        }
        for l in &self.bucketed {
            out += &l.summary();
        }
        for l in &self.packed {
            out += &l.summary();
        }
        let f = &self.feedback_inserts;
        out += &format!(
            "  {} ({} over {} slots): median {:.4} ms, {:.3} G inserts/s, verified: {}",
            f.queries,
            f.count,
            self.loads
                .first()
                .map(|l| l.feedback.capacity)
                .or(self.bucketed.first().map(|l| l.feedback.capacity))
                .or(self.packed.first().map(|l| l.feedback.capacity))
                .unwrap_or(0),
            f.gpu.median_ms,
            f.lookups_per_s / 1e9,
            f.verified
        );
        out += &format!(
            "\n  side by side, G lookups/s (median): {:>16} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  (bucketed: lo words first; whole: each bucket read whole; subgroup: 8 lanes per query; packed: one sector, the alternate behind a full primary; both: both buckets loaded; flat: a second load for every query, no branch; ratio: best bucketed or packed / linear)",
            "linear", "bucketed", "whole", "subgroup", "packed", "both", "flat", "ratio"
        );
        let giga = |rate: Option<f64>| rate.map_or("-".to_string(), |r| format!("{:.3}", r / 1e9));
        for row in &self.side_by_side {
            let best = [
                row.bucketed_lookups_per_s,
                row.bucketed_whole_lookups_per_s,
                row.bucketed_subgroup_lookups_per_s,
                row.packed_lookups_per_s,
                row.packed_both_lookups_per_s,
                row.packed_flat_lookups_per_s,
            ]
            .into_iter()
            .flatten()
            .reduce(f64::max);
            let ratio = match (row.linear_lookups_per_s, best) {
                (Some(l), Some(b)) => format!("{:.2}x", b / l),
                _ => "-".to_string(),
            };
            out += &format!(
                "\n    load {:.2} {:28} {:>16} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
                row.load,
                row.queries,
                giga(row.linear_lookups_per_s),
                giga(row.bucketed_lookups_per_s),
                giga(row.bucketed_whole_lookups_per_s),
                giga(row.bucketed_subgroup_lookups_per_s),
                giga(row.packed_lookups_per_s),
                giga(row.packed_both_lookups_per_s),
                giga(row.packed_flat_lookups_per_s),
                ratio
            );
        }
        out
    }
}
