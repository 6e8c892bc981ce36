//! What the kernel lab's two cuckoo tile tables share (`kernels::tile_table_bucketed`,
//! `kernels::tile_table_packed`): the `CuckooTable` trait their CPU twins implement, the GPU
//! mirror `GpuCuckooTable` (one storage buffer, the header then the buckets, kept current by
//! uploading the buckets an edit changed), and the steps of a load's measurement that do not
//! depend on the layout: `LoadRun` (build, upload, the query sets timed and checked against the
//! twin) and its churn (`CuckooChurnReport`).

use std::marker::PhantomData;
use std::time::Instant;

use serde::Serialize;
use wgpu::util::DeviceExt;

use crate::globe::cache::tile_feedback::GpuTileFeedback;
use crate::globe::cache::tile_key::TileKey;
use crate::globe::cache::tile_table::{InvariantViolation, TILE_MISS};
use crate::gpu::readback::read_buffer;
use crate::gpu::timings::TimingMs;
use crate::gpu::Gpu;
use crate::kernels::tile_table::{
    all_pairs, par_map, random_key, FeedbackReport, Pass, Rng, TileLookupReport, TileTableKernel, TileTableOptions, Workload,
};

/// Runs of dirty buckets closer than this many bytes go out as one write (16 KiB, about the cost
/// of a `write_buffer` call; see the linear table's MERGE_GAP_SLOTS).
const MERGE_GAP_BYTES: usize = 16 << 10;

/// Which cuckoo layout a table is (`TileTableKernel::run_cuckoo` picks its entry points).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CuckooLayout {
    /// Buckets of 8 slots, lo words first (`kernels::tile_table_bucketed`).
    Bucketed,
    /// One 32-byte bucket of 4 packed slots (`kernels::tile_table_packed`).
    Packed,
}

/// A cuckoo tile table's CPU twin and owner: the map from `TileKey` to an atlas slot, its buckets
/// exactly as the GPU holds them. A key lives in its primary bucket or its other one, there only
/// while its primary is full, so a lookup reads 1 bucket, or 2 behind a full primary.
pub trait CuckooTable: Sized + Sync {
    /// The table's header on the GPU (32 bytes, so buckets start on 32-byte sectors).
    type Header: bytemuck::Pod;
    /// One bucket as the GPU holds it.
    type Bucket: bytemuck::Pod;
    /// Why an insert was refused.
    type InsertError: std::error::Error;
    const LAYOUT: CuckooLayout;
    /// The GPU buffer's label, and the prefix of its passes' labels ("kernel.tile_table_bucketed").
    const LABEL: &'static str;
    /// Slots per bucket.
    const BUCKET_SLOTS: usize;

    /// An empty table of at least 2^`capacity_log2` slots (at least one bucket).
    fn new(capacity_log2: u32) -> Self;

    /// Slots (buckets x `BUCKET_SLOTS`).
    fn capacity(&self) -> u32;

    fn len(&self) -> u32;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The header as the GPU holds it.
    fn header(&self) -> Self::Header;

    /// Every bucket, as the GPU holds them.
    fn buckets(&self) -> &[Self::Bucket];

    /// Maps `key` to atlas slot `value`; returns the value it replaces when `key` was present.
    fn insert(&mut self, key: TileKey, value: u32) -> Result<Option<u32>, Self::InsertError>;

    /// Removes `key` (its bucket pulls back a key waiting in its other bucket, and so on);
    /// returns its value if present.
    fn remove(&mut self, key: TileKey) -> Option<u32>;

    /// The value of `key` (or None) and the buckets examined, as the layout's WGSL lookup reads
    /// them: the primary; the other only when the primary has neither the key nor an empty slot.
    fn probe(&self, key: TileKey) -> (Option<u32>, u32);

    /// The atlas slot of `key`, or None. Mirrors the layout's WGSL lookup exactly.
    fn lookup(&self, key: TileKey) -> Option<u32> {
        self.probe(key).0
    }

    /// Buckets a lookup of `key` reads (1 or 2; statistics).
    fn buckets_read(&self, key: TileKey) -> u32 {
        self.probe(key).1
    }

    /// The nearest resident tile among `key` and its ancestors, with that tile's zoom. Mirrors
    /// the layout's WGSL ancestor walk exactly.
    fn lookup_ancestor(&self, key: TileKey) -> Option<(u32, u8)> {
        key.ancestors().find_map(|k| self.lookup(k).map(|v| (v, k.zoom)))
    }

    /// Every (key, value) present, in bucket order.
    fn iter(&self) -> impl Iterator<Item = (TileKey, u32)> + '_;

    /// Distinct buckets changed since the last `take_dirty`.
    fn dirty_buckets(&self) -> u32;

    /// The bucket ranges [start, end) changed since the last call, sorted and merged (runs
    /// closer than `merge_gap` buckets are joined).
    fn take_dirty(&mut self, merge_gap: u32) -> Vec<(u32, u32)>;

    /// Checks the layout's invariants (tests).
    fn check_invariants(&self) -> Result<(), InvariantViolation>;
}

/// A cuckoo table on the GPU: one storage buffer, the header then the buckets (label
/// `T::LABEL`).
pub struct GpuCuckooTable<T> {
    pub buffer: wgpu::Buffer,
    pub buckets: u32,
    table: PhantomData<fn() -> T>,
}

impl<T: CuckooTable> GpuCuckooTable<T> {
    /// Runs of dirty buckets closer than this go out as one write (MERGE_GAP_BYTES of buckets).
    const MERGE_GAP_BUCKETS: u32 = (MERGE_GAP_BYTES / std::mem::size_of::<T::Bucket>()) as u32;

    /// Storage bytes of a table of 2^`capacity_log2` slots.
    pub fn buffer_bytes(capacity_log2: u32) -> u64 {
        let buckets = ((1u64 << capacity_log2) / T::BUCKET_SLOTS as u64).max(1);
        std::mem::size_of::<T::Header>() as u64 + buckets * std::mem::size_of::<T::Bucket>() as u64
    }

    /// The header and buckets as the GPU buffer holds them.
    pub fn bytes(table: &T) -> Vec<u8> {
        let mut bytes = bytemuck::bytes_of(&table.header()).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(table.buckets()));
        bytes
    }

    /// The GPU copy of `table` (which then has nothing dirty).
    pub fn new(device: &wgpu::Device, table: &mut T) -> GpuCuckooTable<T> {
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(T::LABEL),
            contents: &Self::bytes(table),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        });
        table.take_dirty(0);
        GpuCuckooTable { buffer, buckets: table.buckets().len() as u32, table: PhantomData }
    }

    /// Uploads the header and the buckets `table` changed since the last sync; returns the
    /// number of bucket writes. Later submissions see the new table.
    pub fn sync(&self, queue: &wgpu::Queue, table: &mut T) -> usize {
        assert_eq!(table.buckets().len() as u32, self.buckets, "a table of another capacity");
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&table.header()));
        let runs = table.take_dirty(Self::MERGE_GAP_BUCKETS);
        crate::gpu::upload::write_runs(queue, &self.buffer, std::mem::size_of::<T::Header>() as u64, table.buckets(), &runs);
        runs.len()
    }

    /// The buffer read back equals `table` byte for byte.
    fn equals(&self, gpu: &Gpu, table: &T) -> bool {
        read_buffer(&gpu.device, &gpu.queue, &self.buffer, 0, self.buffer.size()) == Self::bytes(table)
    }
}

/// A cuckoo table's churn at one load: evictions and as many inserts, upload, check.
#[derive(Clone, Debug, Serialize)]
pub struct CuckooChurnReport {
    /// Keys removed, and as many new keys inserted.
    pub evictions: u32,
    /// Buckets the edits changed (a removal rewrites its bucket and one per pulled-back key, an
    /// insert its bucket and those of the keys it moved).
    pub dirty_buckets: u32,
    /// `write_buffer` calls of the sync (runs of dirty buckets, plus the header).
    pub writes: usize,
    /// CPU time of the edits, and of the sync (staging the writes).
    pub edit_ms: f64,
    pub sync_ms: f64,
    /// The GPU table equals the twin byte for byte afterwards, and GPU lookups of the evicted
    /// and inserted keys give the twin's answers.
    pub verified: bool,
}

impl CuckooChurnReport {
    /// The line of `TileTableReport::summary` for this churn.
    pub fn summary(&self) -> String {
        format!(
            "    churn: {} evictions + {} inserts changed {} buckets in {:.2} ms, synced in {} writes in {:.2} ms, verified: {}\n",
            self.evictions, self.evictions, self.dirty_buckets, self.edit_ms, self.writes, self.sync_ms, self.verified
        )
    }
}

/// One load's measurement of a cuckoo table, but for its layout's own statistics: the table built
/// from the workload's keys (atlas slot = index, as the linear table), uploaded, and the query
/// sets run through it on the GPU, each answer checked against the twin.
pub(crate) struct LoadRun<T: CuckooTable> {
    pub table: T,
    pub gpu_table: GpuCuckooTable<T>,
    /// Filling the table on the CPU (one thread), and keys per second.
    pub cpu_build_ms: f64,
    pub cpu_inserts_per_s: f64,
    /// An insert the CPU could not place; no query set ran then.
    pub build_error: Option<String>,
    /// Mean buckets read by a hit and by a miss (1 or 2 each).
    pub mean_hit_buckets: f64,
    pub mean_miss_buckets: f64,
    /// The uploaded buffer equals the twin byte for byte.
    pub contents_verified: bool,
    pub lookups: Vec<TileLookupReport>,
    pub feedback: FeedbackReport,
}

impl<T: CuckooTable> LoadRun<T> {
    /// Builds and uploads the table, then runs `query_sets` (name, pass, queries) through it
    /// unless the build failed.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: &Gpu,
        profiler: &mut wgpu_profiler::GpuProfiler,
        kernel: &TileTableKernel,
        work: &Workload,
        feedback: &GpuTileFeedback,
        options: &TileTableOptions,
        load: f64,
        query_sets: &[(&'static str, Pass, &[TileKey])],
    ) -> LoadRun<T> {
        let start = Instant::now();
        let mut table = T::new(options.capacity_log2);
        let build_error = work.keys.iter().enumerate().find_map(|(i, &key)| table.insert(key, i as u32).err().map(|e| e.to_string()));
        let cpu_build_ms = start.elapsed().as_secs_f64() * 1e3;
        let mean_buckets =
            |keys: &[TileKey]| par_map(keys, |&k| table.buckets_read(k) as f64).iter().sum::<f64>() / keys.len().max(1) as f64;
        let (mean_hit_buckets, mean_miss_buckets) = (mean_buckets(&work.keys), mean_buckets(&work.misses));
        let gpu_table = GpuCuckooTable::new(&gpu.device, &mut table);
        let contents_verified = gpu_table.equals(gpu, &table);
        let mut lookups = Vec::new();
        let mut feedback_report =
            FeedbackReport { capacity: options.feedback_capacity, distinct_missed: 0, stored: 0, overflow: false, verified: false };
        for &(name, pass, queries) in query_sets.iter().filter(|_| build_error.is_none()) {
            let label = format!("{}.{} (load {load}, {name})", T::LABEL, pass.entry_point());
            let answers = kernel.run_cuckoo(gpu, profiler, &label, pass, &gpu_table, feedback, queries, options.iterations);
            let verified = if pass.is_lookup() {
                all_pairs(queries, &answers.slots, |k, &s| table.lookup(*k).unwrap_or(TILE_MISS) == s)
            } else {
                // The walk's queries are the workload's descendants, over the workload's keys.
                let (twin, missed) = work.expected_feedback(options.feedback_capacity);
                feedback_report = FeedbackReport {
                    capacity: options.feedback_capacity,
                    distinct_missed: missed.len(),
                    stored: answers.feedback.count,
                    overflow: answers.feedback.overflow,
                    verified: answers.feedback.equals_twin(twin, missed),
                };
                let expected = |k: TileKey| table.lookup_ancestor(k).map_or([TILE_MISS, 0], |(slot, zoom)| [slot, zoom as u32]);
                all_pairs(queries, &answers.ancestors, |k, a| expected(*k) == *a)
            };
            let timing = TimingMs::of(answers.times_ms);
            let lookups_per_s = queries.len() as f64 / (timing.median_ms * 1e-3);
            lookups.push(TileLookupReport { queries: name, count: queries.len() as u32, gpu: timing, lookups_per_s, verified });
        }
        LoadRun {
            table,
            gpu_table,
            cpu_build_ms,
            cpu_inserts_per_s: work.keys.len() as f64 / (cpu_build_ms * 1e-3),
            build_error,
            mean_hit_buckets,
            mean_miss_buckets,
            contents_verified,
            lookups,
            feedback: feedback_report,
        }
    }

    /// Evicts a quarter of the keys (at most 1024), inserts as many new ones, syncs and checks.
    pub fn churn(
        &mut self,
        gpu: &Gpu,
        profiler: &mut wgpu_profiler::GpuProfiler,
        kernel: &TileTableKernel,
        feedback: &GpuTileFeedback,
        work: &Workload,
        seed: u64,
    ) -> CuckooChurnReport {
        let (table, gpu_table) = (&mut self.table, &self.gpu_table);
        let mut rng = Rng(seed.wrapping_mul(0xbf58_476d_1ce4_e5b9) | 1);
        // The workload's keys in their order (the table's when its build succeeded).
        let mut keys: Vec<TileKey> = work.keys.iter().copied().filter(|&k| table.lookup(k).is_some()).collect();
        let evictions = (keys.len() / 4).min(1024);
        let mut touched = Vec::with_capacity(2 * evictions);
        for _ in 0..evictions {
            touched.push(keys.swap_remove(rng.below(keys.len() as u64) as usize));
        }
        let mut new_keys = Vec::with_capacity(evictions);
        while new_keys.len() < evictions {
            let key = random_key(&mut rng, 6, 24);
            if table.lookup(key).is_none() && !touched.contains(&key) && !new_keys.contains(&key) {
                new_keys.push(key);
            }
        }
        let start = Instant::now();
        let mut edits_ok = true;
        for (i, (&old, &new)) in touched.iter().zip(&new_keys).enumerate() {
            edits_ok &= table.remove(old).is_some();
            edits_ok &= table.insert(new, i as u32).is_ok();
        }
        let edit_ms = start.elapsed().as_secs_f64() * 1e3;
        let dirty_buckets = table.dirty_buckets();
        let start = Instant::now();
        let writes = gpu_table.sync(&gpu.queue, table) + 1;
        let sync_ms = start.elapsed().as_secs_f64() * 1e3;
        touched.extend(new_keys);
        let bytes_ok = gpu_table.equals(gpu, table);
        let label = format!("{}.lookup (churn)", T::LABEL);
        let answers = kernel.run_cuckoo(gpu, profiler, &label, Pass::Lookup, gpu_table, feedback, &touched, 1);
        let lookups_ok = touched.iter().zip(&answers.slots).all(|(k, &s)| table.lookup(*k).unwrap_or(TILE_MISS) == s);
        CuckooChurnReport {
            evictions: evictions as u32,
            dirty_buckets,
            writes,
            edit_ms,
            sync_ms,
            verified: edits_ok && bytes_ok && lookups_ok,
        }
    }

    /// The build, the upload, every query set and `churn` verified.
    pub fn verified(&self, churn: &CuckooChurnReport) -> bool {
        self.build_error.is_none()
            && self.contents_verified
            && self.lookups.iter().all(|l| l.verified)
            && self.feedback.verified
            && churn.verified
    }
}
