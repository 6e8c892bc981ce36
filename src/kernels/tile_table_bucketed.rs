//! The bucketed tile table, the kernel lab's candidate beside the renderer's Robin Hood table
//! (`globe::cache::tile_table`): the same map from `TileKey` to an atlas slot, owned by the CPU
//! (`BucketedTileTable`, the twin) and mirrored to the GPU (`GpuBucketedTileTable`) by uploading
//! the buckets an edit changed. Shaders only read it (shaders/shared/tile_table_bucketed.wgsl).
//!
//! Layout: buckets of 8 slots, 96 bytes each after a 32-byte header, so every bucket starts on a
//! 32-byte sector. A bucket holds the 8 keys' lo words first (one sector, read as two 16-byte
//! loads), then 8 (key hi, atlas slot) pairs. A lookup compares the 8 lo words at once and reads
//! a pair only where lo matched: a hit reads 2 sectors of a bucket, a miss usually 1.
//!
//! Bucketed cuckoo hashing with two choices (as BCHT in Awad et al. 2023, "Analyzing and
//! Implementing GPU Hash Tables"): a key lives in its primary bucket (hash & mask) or its
//! secondary (primary xor an odd offset from a second hash, so the two differ whenever there
//! are two buckets or more). A lookup reads at most 2 buckets whatever the load.
//!
//! **Primary-full invariant**: a key sits in its secondary bucket only while its primary is
//! full. A lookup that misses in the primary bucket and sees an empty slot there stops: most
//! misses then read one bucket (at load 0.5 nearly all; at 0.9 the share of full buckets). Inserts
//! keep it by filling the primary first, then the secondary, then by a breadth-first search for
//! a chain of keys each moved to its other bucket (every bucket on the chain stays full). Removal
//! keeps it by pulling back: the bucket that lost a key takes back one of the keys whose primary
//! it is and that wait in their secondary, whose bucket then does the same, and so on (each step
//! moves a key home, so it ends; the CPU keeps the waiting keys per primary bucket). No
//! tombstones, no rebuilds: an eviction rewrites its bucket plus one per pulled-back key.
//!
//! Empty slots have lo word 0, which no key has (its zoom field is zoom + 1).

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use serde::Serialize;
use wgpu::util::DeviceExt;

use crate::globe::cache::tile_feedback::GpuTileFeedback;
use crate::globe::cache::tile_key::{tile_hash, TileKey, EMPTY};
use crate::globe::cache::tile_table::{InvariantViolation, TileTableError, TILE_MISS};
use crate::gpu::hash::fmix32;
use crate::gpu::readback::read_buffer;
use crate::gpu::timings::TimingMs;
use crate::gpu::Gpu;
use crate::kernels::tile_table::{
    all_pairs, par_map, random_key, FeedbackReport, Pass, Rng, TileLookupReport, TileTableKernel, TileTableOptions, Workload,
};

/// Slots per bucket.
pub const BUCKET_SLOTS: usize = 8;
/// Mixed into the key's hash for its secondary bucket; keep in sync with TILE_BUCKET_SALT in
/// shaders/shared/tile_table_bucketed.wgsl.
pub const SECONDARY_SALT: u32 = 0x9e37_79b9;
/// The breadth-first search of an insert gives up (the table is then reported full) after this
/// many buckets; at load 0.9 with buckets of 8 it needs a handful.
const MAX_SEARCH_BUCKETS: usize = 1 << 14;

/// The table's header on the GPU (32 bytes, so buckets start on 32-byte sectors). Keep in sync
/// with TileBuckets in shaders/shared/tile_table_bucketed.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BucketedTableHeader {
    /// Buckets - 1 (a power of two minus one).
    pub bucket_mask: u32,
    /// Keys present.
    pub len: u32,
    pub _pad: [u32; 6],
}
const _: () = assert!(std::mem::size_of::<BucketedTableHeader>() == 32);

/// One bucket as the GPU holds it. Keep in sync with TileBucket in
/// shaders/shared/tile_table_bucketed.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TileBucket {
    /// Key lo words, 0 for an empty slot.
    pub lo: [u32; BUCKET_SLOTS],
    /// (key hi, atlas slot) per slot, (0, 0) when empty.
    pub hi_value: [[u32; 2]; BUCKET_SLOTS],
}
const _: () = assert!(std::mem::size_of::<TileBucket>() == 96);

impl TileBucket {
    const EMPTY: TileBucket = TileBucket { lo: [0; BUCKET_SLOTS], hi_value: [[0; 2]; BUCKET_SLOTS] };

    fn key(&self, slot: usize) -> [u32; 2] {
        [self.lo[slot], self.hi_value[slot][0]]
    }

    /// The slot holding `words`, as `tile_bucket_probe` finds it.
    fn find(&self, words: [u32; 2]) -> Option<usize> {
        (0..BUCKET_SLOTS).find(|&s| self.lo[s] == words[0] && self.hi_value[s][0] == words[1])
    }

    fn free_slot(&self) -> Option<usize> {
        self.lo.iter().position(|&lo| lo == EMPTY[0])
    }
}

/// The primary and secondary bucket of `words` in a table of `bucket_mask + 1` buckets. Mirrors
/// `tile_buckets_of`.
pub fn buckets_of(words: [u32; 2], bucket_mask: u32) -> (u32, u32) {
    let h = tile_hash(words);
    let primary = h & bucket_mask;
    (primary, primary ^ ((fmix32(h ^ SECONDARY_SALT) | 1) & bucket_mask))
}

/// The CPU twin and owner of the bucketed table: the buckets exactly as the GPU holds them.
#[derive(Clone, Debug)]
pub struct BucketedTileTable {
    buckets: Vec<TileBucket>,
    len: u32,
    /// Keys stored in their secondary bucket, by primary bucket (removal pulls one back).
    waiting: HashMap<u32, Vec<[u32; 2]>>,
    /// Buckets changed since the last `take_dirty` (unsorted, may repeat).
    dirty: Vec<u32>,
}

/// A node of an insert's breadth-first search: a full bucket, reached from `parent` by moving
/// that bucket's key in `slot` here.
struct SearchNode {
    bucket: u32,
    parent: usize,
    slot: usize,
}

impl BucketedTileTable {
    /// An empty table of at least 2^`capacity_log2` slots (at least one bucket of 8).
    pub fn new(capacity_log2: u32) -> BucketedTileTable {
        assert!(capacity_log2 <= 31, "capacity 2^{capacity_log2} too large");
        let buckets = ((1usize << capacity_log2) / BUCKET_SLOTS).max(1);
        BucketedTileTable { buckets: vec![TileBucket::EMPTY; buckets], len: 0, waiting: HashMap::new(), dirty: Vec::new() }
    }

    /// Slots (buckets x 8).
    pub fn capacity(&self) -> u32 {
        (self.buckets.len() * BUCKET_SLOTS) as u32
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn mask(&self) -> u32 {
        self.buckets.len() as u32 - 1
    }

    /// The header as the GPU holds it.
    pub fn header(&self) -> BucketedTableHeader {
        BucketedTableHeader { bucket_mask: self.mask(), len: self.len, _pad: [0; 6] }
    }

    /// Every bucket, as the GPU holds them.
    pub fn buckets(&self) -> &[TileBucket] {
        &self.buckets
    }

    /// Where `words` is, looking in both buckets (edits; lookups stop early, see `probe`).
    fn locate(&self, words: [u32; 2]) -> Option<(u32, usize)> {
        let (primary, secondary) = buckets_of(words, self.mask());
        [primary, secondary].into_iter().find_map(|b| self.buckets[b as usize].find(words).map(|s| (b, s)))
    }

    /// The value of `words` (or None) and the buckets examined, as `tile_bucketed_lookup` reads
    /// them: the primary; the secondary only when the primary has neither the key nor an empty slot.
    fn probe(&self, words: [u32; 2]) -> (Option<u32>, u32) {
        let (primary, secondary) = buckets_of(words, self.mask());
        let first = &self.buckets[primary as usize];
        if let Some(s) = first.find(words) {
            return (Some(first.hi_value[s][1]), 1);
        }
        if first.free_slot().is_some() {
            return (None, 1);
        }
        let second = &self.buckets[secondary as usize];
        (second.find(words).map(|s| second.hi_value[s][1]), 2)
    }

    /// The atlas slot of `key`, or None. Mirrors tile_bucketed_lookup exactly.
    pub fn lookup(&self, key: TileKey) -> Option<u32> {
        self.probe(key.pack()).0
    }

    /// Buckets a lookup of `key` reads (1 or 2; statistics).
    pub fn buckets_read(&self, key: TileKey) -> u32 {
        self.probe(key.pack()).1
    }

    /// The nearest resident tile among `key` and its ancestors, with that tile's zoom. Mirrors
    /// tile_bucketed_lookup_ancestor exactly.
    pub fn lookup_ancestor(&self, key: TileKey) -> Option<(u32, u8)> {
        key.ancestors().find_map(|k| self.lookup(k).map(|v| (v, k.zoom)))
    }

    /// Keys in their secondary bucket / keys (statistics).
    pub fn secondary_share(&self) -> f64 {
        self.waiting.values().map(Vec::len).sum::<usize>() as f64 / self.len.max(1) as f64
    }

    /// Full buckets / buckets (statistics: a miss reads a second bucket only behind a full one).
    pub fn full_share(&self) -> f64 {
        self.buckets.iter().filter(|b| b.free_slot().is_none()).count() as f64 / self.buckets.len() as f64
    }

    /// Writes an entry into an empty slot, noting it among the waiting keys when `bucket` is
    /// not its primary.
    fn put(&mut self, bucket: u32, slot: usize, words: [u32; 2], value: u32) {
        let b = &mut self.buckets[bucket as usize];
        debug_assert_eq!(b.lo[slot], 0, "slot taken");
        b.lo[slot] = words[0];
        b.hi_value[slot] = [words[1], value];
        let primary = buckets_of(words, self.mask()).0;
        if primary != bucket {
            self.waiting.entry(primary).or_default().push(words);
        }
        self.dirty.push(bucket);
    }

    /// Empties a slot and returns its (key words, value).
    fn take(&mut self, bucket: u32, slot: usize) -> ([u32; 2], u32) {
        let b = &mut self.buckets[bucket as usize];
        let (words, value) = (b.key(slot), b.hi_value[slot][1]);
        b.lo[slot] = 0;
        b.hi_value[slot] = [0, 0];
        let primary = buckets_of(words, self.mask()).0;
        if primary != bucket {
            let list = self.waiting.get_mut(&primary).expect("a waiting key is listed");
            list.swap_remove(list.iter().position(|&w| w == words).expect("a waiting key is listed"));
            if list.is_empty() {
                self.waiting.remove(&primary);
            }
        }
        self.dirty.push(bucket);
        (words, value)
    }

    /// Maps `key` to atlas slot `value`; returns the value it replaces when `key` was present.
    pub fn insert(&mut self, key: TileKey, value: u32) -> Result<Option<u32>, TileTableError> {
        if value == TILE_MISS {
            return Err(TileTableError::ReservedValue(value));
        }
        let words = key.pack();
        if let Some((b, s)) = self.locate(words) {
            let old = std::mem::replace(&mut self.buckets[b as usize].hi_value[s][1], value);
            self.dirty.push(b);
            return Ok(Some(old));
        }
        let (primary, secondary) = buckets_of(words, self.mask());
        for b in [primary, secondary] {
            if let Some(s) = self.buckets[b as usize].free_slot() {
                self.put(b, s, words, value);
                self.len += 1;
                return Ok(None);
            }
        }
        let root = self.make_room(primary, secondary).ok_or(TileTableError::Full { capacity: self.capacity() })?;
        let s = self.buckets[root as usize].free_slot().expect("room was made");
        self.put(root, s, words, value);
        self.len += 1;
        Ok(None)
    }

    /// Both buckets are full: finds the shortest chain of keys, each moved to its other bucket,
    /// from one of them to a bucket with an empty slot, moves them and returns the bucket (of the
    /// two) that now has an empty slot. None when the search gives up.
    fn make_room(&mut self, primary: u32, secondary: u32) -> Option<u32> {
        let mut nodes = vec![SearchNode { bucket: primary, parent: usize::MAX, slot: 0 }];
        let mut seen = HashSet::from([primary]);
        if seen.insert(secondary) {
            nodes.push(SearchNode { bucket: secondary, parent: usize::MAX, slot: 0 });
        }
        let mut next = 0;
        while next < nodes.len() && nodes.len() < MAX_SEARCH_BUCKETS {
            let bucket = nodes[next].bucket;
            for slot in 0..BUCKET_SLOTS {
                let words = self.buckets[bucket as usize].key(slot);
                let (a, b) = buckets_of(words, self.mask());
                let other = if a == bucket { b } else { a };
                if !seen.insert(other) {
                    continue;
                }
                nodes.push(SearchNode { bucket: other, parent: next, slot });
                if self.buckets[other as usize].free_slot().is_some() {
                    return Some(self.move_chain(&nodes, nodes.len() - 1));
                }
            }
            next += 1;
        }
        None
    }

    /// Moves the keys of the chain ending at node `end` (a bucket with an empty slot) one step
    /// each, from the end back to its root; returns the root bucket.
    fn move_chain(&mut self, nodes: &[SearchNode], end: usize) -> u32 {
        let mut node = end;
        while nodes[node].parent != usize::MAX {
            let from = nodes[nodes[node].parent].bucket;
            let (words, value) = self.take(from, nodes[node].slot);
            let to = nodes[node].bucket;
            let s = self.buckets[to as usize].free_slot().expect("the chain's next bucket has room");
            self.put(to, s, words, value);
            node = nodes[node].parent;
        }
        nodes[node].bucket
    }

    /// Removes `key` (see the module comment: its bucket pulls back a waiting key, and so on);
    /// returns its value if present.
    pub fn remove(&mut self, key: TileKey) -> Option<u32> {
        let (mut bucket, slot) = self.locate(key.pack())?;
        let (_, value) = self.take(bucket, slot);
        self.len -= 1;
        // `bucket` has an empty slot: a key waiting for it comes home, emptying a slot in its
        // secondary bucket, which does the same. Each step moves a key home, so this ends.
        while let Some(&words) = self.waiting.get(&bucket).and_then(|list| list.last()) {
            let from = buckets_of(words, self.mask()).1;
            let s = self.buckets[from as usize].find(words).expect("a waiting key is in its secondary bucket");
            let (_, v) = self.take(from, s);
            let free = self.buckets[bucket as usize].free_slot().expect("the bucket lost a key");
            self.put(bucket, free, words, v);
            bucket = from;
        }
        Some(value)
    }

    /// Every (key, value) present, in bucket order.
    pub fn iter(&self) -> impl Iterator<Item = (TileKey, u32)> + '_ {
        self.buckets.iter().flat_map(|b| {
            (0..BUCKET_SLOTS).filter(|&s| b.lo[s] != 0).map(|s| (TileKey::unpack(b.key(s)).expect("a valid key"), b.hi_value[s][1]))
        })
    }

    /// Distinct buckets changed since the last `take_dirty`.
    pub fn dirty_buckets(&self) -> u32 {
        crate::gpu::upload::distinct_count(&self.dirty)
    }

    /// The bucket ranges [start, end) changed since the last call, sorted and merged (runs
    /// closer than `merge_gap` buckets are joined).
    pub fn take_dirty(&mut self, merge_gap: u32) -> Vec<(u32, u32)> {
        crate::gpu::upload::changed_runs(std::mem::take(&mut self.dirty), merge_gap)
    }

    /// Checks the invariants (tests): keys valid and distinct, each in one of its two buckets,
    /// empty slots all zero, a key in its secondary bucket only behind a full primary, the
    /// waiting lists exactly the keys in their secondary, `len` exact.
    pub fn check_invariants(&self) -> Result<(), InvariantViolation> {
        let fail = |m: String| Err(InvariantViolation(m));
        let mut seen = HashSet::new();
        let mut waiting = HashSet::new();
        for (i, bucket) in self.buckets.iter().enumerate() {
            for s in 0..BUCKET_SLOTS {
                let words = bucket.key(s);
                if words[0] == 0 {
                    if bucket.hi_value[s] != [0, 0] {
                        return fail(format!("bucket {i} slot {s}: empty with {:?}", bucket.hi_value[s]));
                    }
                    continue;
                }
                let Some(key) = TileKey::unpack(words) else { return fail(format!("bucket {i} slot {s}: {words:?} is not a key")) };
                if !seen.insert(words) {
                    return fail(format!("{key:?} twice"));
                }
                let (primary, secondary) = buckets_of(words, self.mask());
                if i as u32 == primary {
                    continue;
                }
                if i as u32 != secondary {
                    return fail(format!("{key:?} in bucket {i}, not in {primary} or {secondary}"));
                }
                if self.buckets[primary as usize].free_slot().is_some() {
                    return fail(format!("{key:?} in its secondary bucket {i} while its primary {primary} has room"));
                }
                waiting.insert(words);
            }
        }
        let listed: Vec<[u32; 2]> = self.waiting.values().flatten().copied().collect();
        if listed.len() != waiting.len() || listed.iter().any(|w| !waiting.contains(w)) {
            return fail(format!("{} keys listed as waiting, {} in their secondary bucket", listed.len(), waiting.len()));
        }
        if seen.len() as u32 != self.len {
            return fail(format!("len {} / {} keys", self.len, seen.len()));
        }
        Ok(())
    }
}

/// The table on the GPU: one storage buffer, the header then the buckets (label
/// "kernel.tile_table_bucketed").
pub struct GpuBucketedTileTable {
    pub buffer: wgpu::Buffer,
    pub buckets: u32,
}

/// Runs of dirty buckets closer than this go out as one write (170 buckets = 16 KiB, about the
/// cost of a `write_buffer` call; see the linear table's MERGE_GAP_SLOTS).
const MERGE_GAP_BUCKETS: u32 = 170;

impl GpuBucketedTileTable {
    /// Storage bytes of a table of 2^`capacity_log2` slots.
    pub fn buffer_bytes(capacity_log2: u32) -> u64 {
        let buckets = ((1u64 << capacity_log2) / BUCKET_SLOTS as u64).max(1);
        std::mem::size_of::<BucketedTableHeader>() as u64 + buckets * std::mem::size_of::<TileBucket>() as u64
    }

    /// The header and buckets as the GPU buffer holds them.
    pub fn bytes(table: &BucketedTileTable) -> Vec<u8> {
        let mut bytes = bytemuck::bytes_of(&table.header()).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(table.buckets()));
        bytes
    }

    /// The GPU copy of `table` (which then has nothing dirty).
    pub fn new(device: &wgpu::Device, table: &mut BucketedTileTable) -> GpuBucketedTileTable {
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("kernel.tile_table_bucketed"),
            contents: &Self::bytes(table),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        });
        table.take_dirty(0);
        GpuBucketedTileTable { buffer, buckets: table.buckets().len() as u32 }
    }

    /// Uploads the header and the buckets `table` changed since the last sync; returns the
    /// number of bucket writes. Later submissions see the new table.
    pub fn sync(&self, queue: &wgpu::Queue, table: &mut BucketedTileTable) -> usize {
        assert_eq!(table.buckets().len() as u32, self.buckets, "a table of another capacity");
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&table.header()));
        let runs = table.take_dirty(MERGE_GAP_BUCKETS);
        crate::gpu::upload::write_runs(queue, &self.buffer, std::mem::size_of::<BucketedTableHeader>() as u64, table.buckets(), &runs);
        runs.len()
    }
}

/// The bucketed table's churn at one load: evictions and as many inserts, upload, check.
#[derive(Clone, Debug, Serialize)]
pub struct BucketedChurnReport {
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

/// One load factor's outcome for the bucketed table (`kernel tile-table`, beside the linear one).
#[derive(Clone, Debug, Serialize)]
pub struct BucketedLoadReport {
    pub load: f64,
    pub keys: u32,
    /// Slots (buckets x 8).
    pub capacity: u32,
    /// Keys in their secondary bucket, and full buckets (shares).
    pub secondary_share: f64,
    pub full_bucket_share: f64,
    /// Mean buckets read by a hit and by a miss (1 or 2 each).
    pub mean_hit_buckets: f64,
    pub mean_miss_buckets: f64,
    /// Filling the table on the CPU (one thread), and keys per second.
    pub cpu_build_ms: f64,
    pub cpu_inserts_per_s: f64,
    /// An insert the CPU could not place (the table reported full); nothing else ran then.
    pub build_error: Option<String>,
    /// Why the subgroup lookup did not run (no subgroups, or of unsuitable sizes).
    pub subgroup_skipped: Option<String>,
    /// The uploaded buffer equals the twin byte for byte.
    pub contents_verified: bool,
    pub lookups: Vec<TileLookupReport>,
    pub feedback: FeedbackReport,
    pub churn: BucketedChurnReport,
    pub verified: bool,
}

/// Builds the bucketed table from `work`'s keys (atlas slot = index, as the linear table) and
/// runs the same query sets through it on the GPU, each answer checked against the twin.
pub fn run_load(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    work: &Workload,
    feedback: &GpuTileFeedback,
    options: &TileTableOptions,
    load: f64,
) -> BucketedLoadReport {
    let start = Instant::now();
    let mut table = BucketedTileTable::new(options.capacity_log2);
    let build_error = work.keys.iter().enumerate().find_map(|(i, &key)| table.insert(key, i as u32).err().map(|e| e.to_string()));
    let cpu_build_ms = start.elapsed().as_secs_f64() * 1e3;
    let mean_buckets = |keys: &[TileKey]| par_map(keys, |&k| table.buckets_read(k) as f64).iter().sum::<f64>() / keys.len().max(1) as f64;
    let (mean_hit_buckets, mean_miss_buckets) = (mean_buckets(&work.keys), mean_buckets(&work.misses));
    let gpu_table = GpuBucketedTileTable::new(&gpu.device, &mut table);
    let contents_verified =
        read_buffer(&gpu.device, &gpu.queue, &gpu_table.buffer, 0, gpu_table.buffer.size()) == GpuBucketedTileTable::bytes(&table);
    let mut lookups = Vec::new();
    let mut feedback_report =
        FeedbackReport { capacity: options.feedback_capacity, distinct_missed: 0, stored: 0, overflow: false, verified: false };
    let query_sets = [
        ("hits", Pass::Lookup, &work.hits),
        ("misses", Pass::Lookup, &work.misses),
        ("hits, whole buckets", Pass::LookupWholeBucket, &work.hits),
        ("misses, whole buckets", Pass::LookupWholeBucket, &work.misses),
        ("hits, subgroup", Pass::LookupSubgroup, &work.hits),
        ("misses, subgroup", Pass::LookupSubgroup, &work.misses),
        ("ancestor + feedback", Pass::LookupAncestor, &work.descendants),
    ];
    let subgroup_skipped = kernel.subgroup_lookup(gpu).err().map(|e| e.to_string());
    let runs = |pass: &Pass| build_error.is_none() && (*pass != Pass::LookupSubgroup || subgroup_skipped.is_none());
    for (name, pass, queries) in query_sets.into_iter().filter(|(_, pass, _)| runs(pass)) {
        let entry = match pass {
            Pass::LookupWholeBucket => "lookup_whole",
            Pass::LookupSubgroup => "lookup_subgroup",
            Pass::LookupAncestor => "lookup_ancestor",
            _ => "lookup",
        };
        let label = format!("kernel.tile_table_bucketed.{entry} (load {load}, {name})");
        let answers = kernel.run_bucketed(gpu, profiler, &label, pass, &gpu_table, feedback, queries, options.iterations);
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
    let (secondary_share, full_bucket_share) = (table.secondary_share(), table.full_share());
    let churn = churn(gpu, profiler, kernel, &mut table, &gpu_table, feedback, work, options.seed);
    let verified =
        build_error.is_none() && contents_verified && lookups.iter().all(|l| l.verified) && feedback_report.verified && churn.verified;
    BucketedLoadReport {
        load,
        keys: table.len(),
        capacity: table.capacity(),
        secondary_share,
        full_bucket_share,
        mean_hit_buckets,
        mean_miss_buckets,
        cpu_build_ms,
        cpu_inserts_per_s: work.keys.len() as f64 / (cpu_build_ms * 1e-3),
        build_error,
        subgroup_skipped,
        contents_verified,
        lookups,
        feedback: feedback_report,
        churn,
        verified,
    }
}

/// Evicts a quarter of the keys (at most 1024), inserts as many new ones, syncs and checks.
#[allow(clippy::too_many_arguments)]
fn churn(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    table: &mut BucketedTileTable,
    gpu_table: &GpuBucketedTileTable,
    feedback: &GpuTileFeedback,
    work: &Workload,
    seed: u64,
) -> BucketedChurnReport {
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
    let bytes_ok =
        read_buffer(&gpu.device, &gpu.queue, &gpu_table.buffer, 0, gpu_table.buffer.size()) == GpuBucketedTileTable::bytes(table);
    let label = "kernel.tile_table_bucketed.lookup (churn)";
    let answers = kernel.run_bucketed(gpu, profiler, label, Pass::Lookup, gpu_table, feedback, &touched, 1);
    let lookups_ok = touched.iter().zip(&answers.slots).all(|(k, &s)| table.lookup(*k).unwrap_or(TILE_MISS) == s);
    BucketedChurnReport {
        evictions: evictions as u32,
        dirty_buckets,
        writes,
        edit_ms,
        sync_ms,
        verified: edits_ok && bytes_ok && lookups_ok,
    }
}

impl BucketedLoadReport {
    /// The lines of `TileTableReport::summary` for this load.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "  bucketed cuckoo, buckets of 8, load {:.2}: {} keys in {} slots, {:.1}% in their secondary bucket, {:.1}% of buckets full; buckets read by a hit: mean {:.3}, by a miss: mean {:.3}; CPU build {:.1} ms ({:.1} M inserts/s), upload verified: {}\n",
            self.load,
            self.keys,
            self.capacity,
            100.0 * self.secondary_share,
            100.0 * self.full_bucket_share,
            self.mean_hit_buckets,
            self.mean_miss_buckets,
            self.cpu_build_ms,
            self.cpu_inserts_per_s / 1e6,
            self.contents_verified
        );
        if let Some(e) = &self.build_error {
            out += &format!("    build failed: {e}\n");
        }
        if let Some(why) = &self.subgroup_skipped {
            out += &format!("    subgroup lookup skipped: {why}\n");
        }
        out += &crate::kernels::tile_table::lookup_lines(&self.lookups, &self.feedback);
        let c = &self.churn;
        out += &format!(
            "    churn: {} evictions + {} inserts changed {} buckets in {:.2} ms, synced in {} writes in {:.2} ms, verified: {}\n",
            c.evictions, c.evictions, c.dirty_buckets, c.edit_ms, c.writes, c.sync_ms, c.verified
        );
        out
    }
}
