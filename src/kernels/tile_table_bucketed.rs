//! The bucketed tile table, the kernel lab's candidate beside the renderer's Robin Hood table
//! (`globe::cache::tile_table`): the same map from `TileKey` to an atlas slot, owned by the CPU
//! (`BucketedTileTable`, the twin, a `CuckooTable`) and mirrored to the GPU (`GpuBucketedTileTable`)
//! by uploading the buckets an edit changed (`kernels::tile_table_cuckoo`, shared with the packed
//! table). Shaders only read it (shaders/shared/tile_table_bucketed.wgsl).
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

use serde::Serialize;

use crate::globe::cache::tile_feedback::GpuTileFeedback;
use crate::globe::cache::tile_key::{tile_hash, TileKey, EMPTY};
use crate::globe::cache::tile_table::{InvariantViolation, TileTableError, TILE_MISS};
use crate::gpu::hash::fmix32;
use crate::gpu::Gpu;
use crate::kernels::tile_table::{FeedbackReport, Pass, TileLookupReport, TileTableKernel, TileTableOptions, Workload};
use crate::kernels::tile_table_cuckoo::{CuckooChurnReport, CuckooLayout, CuckooTable, GpuCuckooTable, LoadRun};

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
    fn mask(&self) -> u32 {
        self.buckets.len() as u32 - 1
    }

    /// Where `words` is, looking in both buckets (edits; lookups stop early, see `probe`).
    fn locate(&self, words: [u32; 2]) -> Option<(u32, usize)> {
        let (primary, secondary) = buckets_of(words, self.mask());
        [primary, secondary].into_iter().find_map(|b| self.buckets[b as usize].find(words).map(|s| (b, s)))
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
}

impl CuckooTable for BucketedTileTable {
    type Header = BucketedTableHeader;
    type Bucket = TileBucket;
    type InsertError = TileTableError;
    const LAYOUT: CuckooLayout = CuckooLayout::Bucketed;
    const LABEL: &'static str = "kernel.tile_table_bucketed";
    const BUCKET_SLOTS: usize = BUCKET_SLOTS;

    /// An empty table of at least 2^`capacity_log2` slots (at least one bucket of 8).
    fn new(capacity_log2: u32) -> BucketedTileTable {
        assert!(capacity_log2 <= 31, "capacity 2^{capacity_log2} too large");
        let buckets = ((1usize << capacity_log2) / BUCKET_SLOTS).max(1);
        BucketedTileTable { buckets: vec![TileBucket::EMPTY; buckets], len: 0, waiting: HashMap::new(), dirty: Vec::new() }
    }

    /// Slots (buckets x 8).
    fn capacity(&self) -> u32 {
        (self.buckets.len() * BUCKET_SLOTS) as u32
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn header(&self) -> BucketedTableHeader {
        BucketedTableHeader { bucket_mask: self.mask(), len: self.len, _pad: [0; 6] }
    }

    fn buckets(&self) -> &[TileBucket] {
        &self.buckets
    }

    fn insert(&mut self, key: TileKey, value: u32) -> Result<Option<u32>, TileTableError> {
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

    /// Removes `key` (see the module comment: its bucket pulls back a waiting key, and so on);
    /// returns its value if present.
    fn remove(&mut self, key: TileKey) -> Option<u32> {
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

    /// As `tile_bucketed_lookup` reads them: the primary; the secondary only when the primary has
    /// neither the key nor an empty slot.
    fn probe(&self, key: TileKey) -> (Option<u32>, u32) {
        let words = key.pack();
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

    fn iter(&self) -> impl Iterator<Item = (TileKey, u32)> + '_ {
        self.buckets.iter().flat_map(|b| {
            (0..BUCKET_SLOTS).filter(|&s| b.lo[s] != 0).map(|s| (TileKey::unpack(b.key(s)).expect("a valid key"), b.hi_value[s][1]))
        })
    }

    fn dirty_buckets(&self) -> u32 {
        crate::gpu::upload::distinct_count(&self.dirty)
    }

    fn take_dirty(&mut self, merge_gap: u32) -> Vec<(u32, u32)> {
        crate::gpu::upload::changed_runs(std::mem::take(&mut self.dirty), merge_gap)
    }

    /// Checks the invariants (tests): keys valid and distinct, each in one of its two buckets,
    /// empty slots all zero, a key in its secondary bucket only behind a full primary, the
    /// waiting lists exactly the keys in their secondary, `len` exact.
    fn check_invariants(&self) -> Result<(), InvariantViolation> {
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
pub type GpuBucketedTileTable = GpuCuckooTable<BucketedTileTable>;

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
    pub churn: CuckooChurnReport,
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
    let subgroup_skipped = kernel.subgroup_lookup(gpu).err().map(|e| e.to_string());
    let query_sets: [(&'static str, Pass, &[TileKey]); 7] = [
        ("hits", Pass::Lookup, &work.hits),
        ("misses", Pass::Lookup, &work.misses),
        ("hits, whole buckets", Pass::LookupWholeBucket, &work.hits),
        ("misses, whole buckets", Pass::LookupWholeBucket, &work.misses),
        ("hits, subgroup", Pass::LookupSubgroup, &work.hits),
        ("misses, subgroup", Pass::LookupSubgroup, &work.misses),
        ("ancestor + feedback", Pass::LookupAncestor, &work.descendants),
    ];
    let query_sets: Vec<_> =
        query_sets.into_iter().filter(|(_, pass, _)| *pass != Pass::LookupSubgroup || subgroup_skipped.is_none()).collect();
    let mut run = LoadRun::<BucketedTileTable>::new(gpu, profiler, kernel, work, feedback, options, load, &query_sets);
    let (secondary_share, full_bucket_share) = (run.table.secondary_share(), run.table.full_share());
    let churn = run.churn(gpu, profiler, kernel, feedback, work, options.seed);
    BucketedLoadReport {
        load,
        keys: run.table.len(),
        capacity: run.table.capacity(),
        secondary_share,
        full_bucket_share,
        mean_hit_buckets: run.mean_hit_buckets,
        mean_miss_buckets: run.mean_miss_buckets,
        cpu_build_ms: run.cpu_build_ms,
        cpu_inserts_per_s: run.cpu_inserts_per_s,
        verified: run.verified(&churn),
        build_error: run.build_error,
        subgroup_skipped,
        contents_verified: run.contents_verified,
        lookups: run.lookups,
        feedback: run.feedback,
        churn,
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
        out + &self.churn.summary()
    }
}
