//! The packed tile table, the kernel lab's one-sector-per-lookup candidate beside the renderer's
//! Robin Hood table and the bucketed one (`kernels::tile_table_bucketed`): the same map from
//! `TileKey` to an atlas slot, owned by the CPU (`PackedTileTable`, the twin, a `CuckooTable`) and
//! mirrored to the GPU (`GpuPackedTileTable`) by uploading the buckets an edit changed
//! (`kernels::tile_table_cuckoo`, shared with the bucketed table). Shaders only read it
//! (shaders/shared/tile_table_packed.wgsl).
//!
//! **Quotienting.** A valid key holds 60 bits of information: source (5 bits) above the quadtree
//! node as 1 << 2 zoom | x << zoom | y (2 zoom + 1 <= 55 bits): `encode`. A 4-round Feistel
//! network on its two 30-bit halves (`permute`, u32 arithmetic only) maps it to h, a bijection of
//! 60 bits. With 2^k buckets the primary bucket is the low k bits of h and the remainder r = h >>
//! k (60 - k bits) is all a slot needs to store: (bucket, r) gives h back, h the key, exactly.
//!
//! **Partial-key cuckoo.** A key's alternate bucket is primary xor an odd offset that depends on
//! r alone (`offset_of`), so from either bucket and r the other follows. A slot is 64 bits:
//!
//! ```text
//! bits 0          flag: 1 when the key sits in its alternate bucket
//! bits 1..62-k    r (60 - k bits)
//! bits 62-k..64   atlas slot + 1 (k + 3 bits; 0 in an empty slot, which is all zero)
//! ```
//!
//! so values up to 2^(k+3) - 2 fit: at least twice the slots of the table (an atlas holds at most
//! one tile per slot, so any atlas slot of a table at load <= 1 fits). A bucket is 4 slots, 32
//! bytes: one aligned sector, its 4 lo words then its 4 hi words (two 16-byte loads). A lookup
//! compares the 4 tags at once; a hit in the primary bucket reads one sector.
//!
//! As in the bucketed table, a key sits in its alternate bucket only while its primary is full
//! (a miss stops at a primary with an empty slot), inserts move a shortest chain of keys each to
//! its other bucket (breadth-first search; a move flips the flag and keeps r, no key needed), and
//! removal pulls a waiting key back home. No tombstones, no rebuilds.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::globe::cache::tile_feedback::GpuTileFeedback;
use crate::globe::cache::tile_key::{TileKey, MAX_SOURCE};
use crate::globe::cache::tile_table::InvariantViolation;
use crate::gpu::Gpu;
use crate::hash::fmix32;
use crate::kernels::tile_table::{FeedbackReport, Pass, TileLookupReport, TileTableKernel, TileTableOptions, Workload};
use crate::kernels::tile_table_cuckoo::{CuckooChurnReport, CuckooLayout, CuckooTable, GpuCuckooTable, LoadRun};

/// Slots per bucket (4 x 8 bytes: one 32-byte sector).
pub const BUCKET_SLOTS: usize = 4;
/// Bits of an encoded key (`encode`): the Feistel network permutes two halves of 30.
pub const KEY_BITS: u32 = 60;
const HALF_BITS: u32 = KEY_BITS / 2;
const HALF_MASK: u32 = (1 << HALF_BITS) - 1;
/// The Feistel network's round keys. Keep in sync with TILE_PACKED_ROUND_KEYS in
/// shaders/shared/tile_table_packed.wgsl.
pub const ROUND_KEYS: [u32; 4] = [0x9e37_79b9, 0x7f4a_7c15, 0xf39c_c060, 0x5ced_c834];
/// Mixed into the remainder's hash for the alternate bucket's offset. Keep in sync with
/// TILE_PACKED_SALT in shaders/shared/tile_table_packed.wgsl.
pub const OFFSET_SALT: u32 = 0x1656_67b1;
/// The largest table: 2^30 slots (2^28 buckets; the value field then has 31 bits).
pub const MAX_CAPACITY_LOG2: u32 = 30;
/// The breadth-first search of an insert gives up (the table is then reported full) after this
/// many buckets.
const MAX_SEARCH_BUCKETS: usize = 1 << 14;

/// Why the packed table refused an insert.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PackedTableError {
    #[error("the packed tile table is full ({capacity} slots); give it a larger capacity")]
    Full { capacity: u32 },
    #[error("atlas slot {value} does not fit the packed table's {bits}-bit values (at most {max} at {capacity} slots); give it a larger capacity")]
    ValueTooLarge { value: u32, max: u32, bits: u32, capacity: u32 },
}

/// `key` as 60 bits: source << 55 | 1 << 2 zoom | x << zoom | y. Mirrors tile_packed_encode.
pub fn encode(key: TileKey) -> u64 {
    let z = key.zoom as u32;
    (key.source as u64) << 55 | 1u64 << (2 * z) | (key.x as u64) << z | key.y as u64
}

/// The key `encode` made `e` from, None when `e` encodes no key.
pub fn decode(e: u64) -> Option<TileKey> {
    let (source, node) = (e >> 55, e & ((1u64 << 55) - 1));
    if node == 0 || source > MAX_SOURCE as u64 {
        return None;
    }
    let top = 63 - node.leading_zeros();
    if top % 2 == 1 {
        return None;
    }
    let z = top / 2;
    let coord = |v: u64| (v & ((1u64 << z) - 1)) as u32;
    TileKey::new(source as u8, z as u8, coord(node >> z), coord(node))
}

fn round(half: u32, i: usize) -> u32 {
    fmix32(half ^ ROUND_KEYS[i]) & HALF_MASK
}

/// The Feistel network: a bijection of 60-bit values. Mirrors tile_packed_permute.
pub fn permute(e: u64) -> u64 {
    let (mut l, mut r) = ((e >> HALF_BITS) as u32 & HALF_MASK, e as u32 & HALF_MASK);
    for i in 0..ROUND_KEYS.len() {
        (l, r) = (r, l ^ round(r, i));
    }
    (l as u64) << HALF_BITS | r as u64
}

/// The inverse of `permute`.
pub fn unpermute(h: u64) -> u64 {
    let (mut l, mut r) = ((h >> HALF_BITS) as u32 & HALF_MASK, h as u32 & HALF_MASK);
    for i in (0..ROUND_KEYS.len()).rev() {
        (l, r) = (r ^ round(l, i), l);
    }
    (l as u64) << HALF_BITS | r as u64
}

/// The alternate bucket's offset from the primary for remainder `r` (odd, so the two differ
/// whenever there are two buckets or more). Mirrors tile_packed_offset.
pub fn offset_of(r: u64, bucket_mask: u32) -> u32 {
    (fmix32(r as u32 ^ fmix32((r >> 32) as u32 ^ OFFSET_SALT)) | 1) & bucket_mask
}

/// The table's header on the GPU (32 bytes, so buckets start on 32-byte sectors). Keep in sync
/// with TilePackedTable in shaders/shared/tile_table_packed.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PackedTableHeader {
    /// Buckets - 1 (a power of two minus one).
    pub bucket_mask: u32,
    /// k: log2 of the buckets.
    pub bucket_bits: u32,
    /// Keys present.
    pub len: u32,
    pub _pad: [u32; 5],
}
const _: () = assert!(std::mem::size_of::<PackedTableHeader>() == 32);

/// One bucket as the GPU holds it: slot s is the 64-bit word hi[s] << 32 | lo[s]. Keep in sync
/// with TilePackedBucket in shaders/shared/tile_table_packed.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PackedBucket {
    pub lo: [u32; BUCKET_SLOTS],
    pub hi: [u32; BUCKET_SLOTS],
}
const _: () = assert!(std::mem::size_of::<PackedBucket>() == 32);

impl PackedBucket {
    const EMPTY: PackedBucket = PackedBucket { lo: [0; BUCKET_SLOTS], hi: [0; BUCKET_SLOTS] };

    fn slot(&self, s: usize) -> u64 {
        (self.hi[s] as u64) << 32 | self.lo[s] as u64
    }

    fn set(&mut self, s: usize, word: u64) {
        (self.lo[s], self.hi[s]) = (word as u32, (word >> 32) as u32);
    }
}

/// Where a key goes: its primary and alternate bucket and its remainder.
#[derive(Clone, Copy, Debug)]
struct Placement {
    primary: u32,
    alternate: u32,
    r: u64,
}

/// The CPU twin and owner of the packed table: the buckets exactly as the GPU holds them.
#[derive(Clone, Debug)]
pub struct PackedTileTable {
    buckets: Vec<PackedBucket>,
    /// k: log2 of the buckets.
    bucket_bits: u32,
    len: u32,
    /// Remainders of the keys stored in their alternate bucket, by primary bucket.
    waiting: HashMap<u32, Vec<u64>>,
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

impl PackedTileTable {
    /// Bits of an atlas slot + 1 in a slot (k + 3).
    pub fn value_bits(&self) -> u32 {
        self.bucket_bits + 3
    }

    /// The largest atlas slot the table holds: 2^(k+3) - 2, at least 2 x capacity - 2.
    pub fn max_value(&self) -> u32 {
        ((1u64 << self.value_bits()) - 2) as u32
    }

    fn mask(&self) -> u32 {
        self.buckets.len() as u32 - 1
    }

    /// Bits below the value field (flag and remainder): 61 - k.
    fn tag_bits(&self) -> u32 {
        KEY_BITS + 1 - self.bucket_bits
    }

    fn place(&self, key: TileKey) -> Placement {
        let h = permute(encode(key));
        let primary = h as u32 & self.mask();
        let r = h >> self.bucket_bits;
        Placement { primary, alternate: primary ^ offset_of(r, self.mask()), r }
    }

    /// The slot word's tag (flag and remainder) for `r` in its primary (flag 0) or alternate.
    fn tag(r: u64, alternate: bool) -> u64 {
        r << 1 | alternate as u64
    }

    /// (tag, atlas slot) of an occupied slot word, None for an empty one.
    fn split(&self, word: u64) -> Option<(u64, u32)> {
        let value = word >> self.tag_bits();
        (value != 0).then(|| (word & ((1u64 << self.tag_bits()) - 1), value as u32 - 1))
    }

    /// The slot of bucket `b` holding `tag`.
    fn find(&self, b: u32, tag: u64) -> Option<usize> {
        let bucket = &self.buckets[b as usize];
        (0..BUCKET_SLOTS).find(|&s| self.split(bucket.slot(s)).is_some_and(|(t, _)| t == tag))
    }

    fn free_slot(&self, b: u32) -> Option<usize> {
        let bucket = &self.buckets[b as usize];
        (0..BUCKET_SLOTS).find(|&s| bucket.slot(s) == 0)
    }

    /// Where `key` is, looking in both buckets (edits; lookups stop early, see `probe`).
    fn locate(&self, key: TileKey) -> Option<(u32, usize)> {
        let p = self.place(key);
        let at = |b: u32, alternate: bool| self.find(b, Self::tag(p.r, alternate)).map(|s| (b, s));
        at(p.primary, false).or_else(|| at(p.alternate, true))
    }

    /// Keys in their alternate bucket / keys (statistics).
    pub fn alternate_share(&self) -> f64 {
        self.waiting.values().map(Vec::len).sum::<usize>() as f64 / self.len.max(1) as f64
    }

    /// Full buckets / buckets (statistics: a miss reads a second bucket only behind a full one).
    pub fn full_share(&self) -> f64 {
        (0..self.buckets.len() as u32).filter(|&b| self.free_slot(b).is_none()).count() as f64 / self.buckets.len() as f64
    }

    /// Writes (r, flag, value) into an empty slot, listing it as waiting when `alternate`.
    fn put(&mut self, bucket: u32, slot: usize, r: u64, alternate: bool, value: u32) {
        debug_assert_eq!(self.buckets[bucket as usize].slot(slot), 0, "slot taken");
        let word = Self::tag(r, alternate) | ((value as u64 + 1) << self.tag_bits());
        self.buckets[bucket as usize].set(slot, word);
        if alternate {
            let primary = bucket ^ offset_of(r, self.mask());
            self.waiting.entry(primary).or_default().push(r);
        }
        self.dirty.push(bucket);
    }

    /// Empties a slot and returns its (r, flag, value).
    fn take(&mut self, bucket: u32, slot: usize) -> (u64, bool, u32) {
        let (tag, value) = self.split(self.buckets[bucket as usize].slot(slot)).expect("an occupied slot");
        self.buckets[bucket as usize].set(slot, 0);
        let (r, alternate) = (tag >> 1, tag & 1 == 1);
        if alternate {
            let primary = bucket ^ offset_of(r, self.mask());
            let list = self.waiting.get_mut(&primary).expect("a waiting key is listed");
            list.swap_remove(list.iter().position(|&w| w == r).expect("a waiting key is listed"));
            if list.is_empty() {
                self.waiting.remove(&primary);
            }
        }
        self.dirty.push(bucket);
        (r, alternate, value)
    }

    /// The key in `slot` of `bucket` (None when empty).
    fn key_at(&self, bucket: u32, slot: usize) -> Option<TileKey> {
        let (tag, _) = self.split(self.buckets[bucket as usize].slot(slot))?;
        let r = tag >> 1;
        let primary = if tag & 1 == 1 { bucket ^ offset_of(r, self.mask()) } else { bucket };
        decode(unpermute(r << self.bucket_bits | primary as u64))
    }

    /// Both buckets are full: finds the shortest chain of keys, each moved to its other bucket,
    /// from one of them to a bucket with an empty slot, moves them and returns the bucket (of the
    /// two) that now has an empty slot. None when the search gives up.
    fn make_room(&mut self, primary: u32, alternate: u32) -> Option<u32> {
        let mut nodes = vec![SearchNode { bucket: primary, parent: usize::MAX, slot: 0 }];
        let mut seen = HashSet::from([primary]);
        if seen.insert(alternate) {
            nodes.push(SearchNode { bucket: alternate, parent: usize::MAX, slot: 0 });
        }
        let mut next = 0;
        while next < nodes.len() && nodes.len() < MAX_SEARCH_BUCKETS {
            let bucket = nodes[next].bucket;
            for slot in 0..BUCKET_SLOTS {
                let (tag, _) = self.split(self.buckets[bucket as usize].slot(slot)).expect("a full bucket");
                let other = bucket ^ offset_of(tag >> 1, self.mask());
                if !seen.insert(other) {
                    continue;
                }
                nodes.push(SearchNode { bucket: other, parent: next, slot });
                if self.free_slot(other).is_some() {
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
            let (r, alternate, value) = self.take(from, nodes[node].slot);
            let to = nodes[node].bucket;
            let s = self.free_slot(to).expect("the chain's next bucket has room");
            self.put(to, s, r, !alternate, value);
            node = nodes[node].parent;
        }
        nodes[node].bucket
    }
}

impl CuckooTable for PackedTileTable {
    type Header = PackedTableHeader;
    type Bucket = PackedBucket;
    type InsertError = PackedTableError;
    const LAYOUT: CuckooLayout = CuckooLayout::Packed;
    const LABEL: &'static str = "kernel.tile_table_packed";
    const BUCKET_SLOTS: usize = BUCKET_SLOTS;

    /// An empty table of at least 2^`capacity_log2` slots (at least one bucket of 4).
    fn new(capacity_log2: u32) -> PackedTileTable {
        assert!(capacity_log2 <= MAX_CAPACITY_LOG2, "capacity 2^{capacity_log2} too large (at most 2^{MAX_CAPACITY_LOG2})");
        let bucket_bits = capacity_log2.saturating_sub(BUCKET_SLOTS.trailing_zeros());
        PackedTileTable {
            buckets: vec![PackedBucket::EMPTY; 1 << bucket_bits],
            bucket_bits,
            len: 0,
            waiting: HashMap::new(),
            dirty: Vec::new(),
        }
    }

    /// Slots (buckets x 4).
    fn capacity(&self) -> u32 {
        (self.buckets.len() * BUCKET_SLOTS) as u32
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn header(&self) -> PackedTableHeader {
        PackedTableHeader { bucket_mask: self.mask(), bucket_bits: self.bucket_bits, len: self.len, _pad: [0; 5] }
    }

    fn buckets(&self) -> &[PackedBucket] {
        &self.buckets
    }

    fn insert(&mut self, key: TileKey, value: u32) -> Result<Option<u32>, PackedTableError> {
        if value > self.max_value() {
            let (max, bits, capacity) = (self.max_value(), self.value_bits(), self.capacity());
            return Err(PackedTableError::ValueTooLarge { value, max, bits, capacity });
        }
        if let Some((b, s)) = self.locate(key) {
            let (r, alternate, old) = self.take(b, s);
            self.put(b, s, r, alternate, value);
            return Ok(Some(old));
        }
        let p = self.place(key);
        for (b, alternate) in [(p.primary, false), (p.alternate, true)] {
            if let Some(s) = self.free_slot(b) {
                self.put(b, s, p.r, alternate, value);
                self.len += 1;
                return Ok(None);
            }
        }
        let root = self.make_room(p.primary, p.alternate).ok_or(PackedTableError::Full { capacity: self.capacity() })?;
        let s = self.free_slot(root).expect("room was made");
        self.put(root, s, p.r, root != p.primary, value);
        self.len += 1;
        Ok(None)
    }

    /// Removes `key` (its bucket pulls back a waiting key, and so on); returns its value if
    /// present.
    fn remove(&mut self, key: TileKey) -> Option<u32> {
        let (mut bucket, slot) = self.locate(key)?;
        let (_, _, value) = self.take(bucket, slot);
        self.len -= 1;
        // `bucket` has an empty slot: a key waiting for it comes home, emptying a slot in its
        // alternate bucket, which does the same. Each step moves a key home, so this ends.
        while let Some(&r) = self.waiting.get(&bucket).and_then(|list| list.last()) {
            let from = bucket ^ offset_of(r, self.mask());
            let s = self.find(from, Self::tag(r, true)).expect("a waiting key is in its alternate bucket");
            let (_, _, v) = self.take(from, s);
            let free = self.free_slot(bucket).expect("the bucket lost a key");
            self.put(bucket, free, r, false, v);
            bucket = from;
        }
        Some(value)
    }

    /// As `tile_packed_lookup` reads them: the primary; the alternate only when the primary has
    /// neither the key nor an empty slot.
    fn probe(&self, key: TileKey) -> (Option<u32>, u32) {
        let p = self.place(key);
        let value = |b: u32, s: usize| self.split(self.buckets[b as usize].slot(s)).map(|(_, v)| v);
        if let Some(s) = self.find(p.primary, Self::tag(p.r, false)) {
            return (value(p.primary, s), 1);
        }
        if self.free_slot(p.primary).is_some() {
            return (None, 1);
        }
        (self.find(p.alternate, Self::tag(p.r, true)).and_then(|s| value(p.alternate, s)), 2)
    }

    fn iter(&self) -> impl Iterator<Item = (TileKey, u32)> + '_ {
        (0..self.buckets.len() as u32).flat_map(move |b| {
            (0..BUCKET_SLOTS).filter_map(move |s| {
                let (_, value) = self.split(self.buckets[b as usize].slot(s))?;
                Some((self.key_at(b, s).expect("a valid key"), value))
            })
        })
    }

    fn dirty_buckets(&self) -> u32 {
        crate::gpu::upload::distinct_count(&self.dirty)
    }

    fn take_dirty(&mut self, merge_gap: u32) -> Vec<(u32, u32)> {
        crate::gpu::upload::changed_runs(std::mem::take(&mut self.dirty), merge_gap)
    }

    /// Checks the invariants (tests): every occupied slot decodes to a valid key that places
    /// back to this bucket with this flag, keys distinct, empty slots all zero, a key in its
    /// alternate bucket only behind a full primary, the waiting lists exact, `len` exact.
    fn check_invariants(&self) -> Result<(), InvariantViolation> {
        let fail = |m: String| Err(InvariantViolation(m));
        let mut seen = HashSet::new();
        let mut waiting = HashSet::new();
        for b in 0..self.buckets.len() as u32 {
            for s in 0..BUCKET_SLOTS {
                let word = self.buckets[b as usize].slot(s);
                let Some((tag, _)) = self.split(word) else {
                    if word != 0 {
                        return fail(format!("bucket {b} slot {s}: empty with {word:#x}"));
                    }
                    continue;
                };
                let Some(key) = self.key_at(b, s) else { return fail(format!("bucket {b} slot {s}: {word:#x} is not a key")) };
                if !seen.insert(key) {
                    return fail(format!("{key:?} twice"));
                }
                let p = self.place(key);
                let alternate = tag & 1 == 1;
                if p.r != tag >> 1 || b != if alternate { p.alternate } else { p.primary } {
                    return fail(format!("{key:?} in bucket {b} (alternate: {alternate}), placed in {p:?}"));
                }
                if alternate {
                    if self.free_slot(p.primary).is_some() {
                        return fail(format!("{key:?} in its alternate bucket {b} while its primary {} has room", p.primary));
                    }
                    waiting.insert((p.primary, p.r));
                }
            }
        }
        let listed: Vec<(u32, u64)> = self.waiting.iter().flat_map(|(&b, rs)| rs.iter().map(move |&r| (b, r))).collect();
        if listed.len() != waiting.len() || listed.iter().any(|w| !waiting.contains(w)) {
            return fail(format!("{} keys listed as waiting, {} in their alternate bucket", listed.len(), waiting.len()));
        }
        if seen.len() as u32 != self.len {
            return fail(format!("len {} / {} keys", self.len, seen.len()));
        }
        Ok(())
    }
}

/// The table on the GPU: one storage buffer, the header then the buckets (label
/// "kernel.tile_table_packed").
pub type GpuPackedTileTable = GpuCuckooTable<PackedTileTable>;

/// One load factor's outcome for the packed table (`kernel tile-table`, beside the others).
#[derive(Clone, Debug, Serialize)]
pub struct PackedLoadReport {
    pub load: f64,
    pub keys: u32,
    /// Slots (buckets x 4).
    pub capacity: u32,
    /// Keys in their alternate bucket, and full buckets (shares).
    pub alternate_share: f64,
    pub full_bucket_share: f64,
    /// Mean buckets (sectors) read by a hit and by a miss (1 or 2 each).
    pub mean_hit_buckets: f64,
    pub mean_miss_buckets: f64,
    /// Filling the table on the CPU (one thread), and keys per second.
    pub cpu_build_ms: f64,
    pub cpu_inserts_per_s: f64,
    /// An insert the CPU could not place (full, or a value too large); nothing else ran then.
    pub build_error: Option<String>,
    /// The uploaded buffer equals the twin byte for byte.
    pub contents_verified: bool,
    pub lookups: Vec<TileLookupReport>,
    pub feedback: FeedbackReport,
    pub churn: CuckooChurnReport,
    pub verified: bool,
}

/// Builds the packed table from `work`'s keys (atlas slot = index, as the other tables) and runs
/// the same query sets through it on the GPU, each answer checked against the twin.
pub fn run_load(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    kernel: &TileTableKernel,
    work: &Workload,
    feedback: &GpuTileFeedback,
    options: &TileTableOptions,
    load: f64,
) -> PackedLoadReport {
    let query_sets: [(&'static str, Pass, &[TileKey]); 7] = [
        ("hits", Pass::Lookup, &work.hits),
        ("misses", Pass::Lookup, &work.misses),
        ("hits, both buckets", Pass::LookupBothBuckets, &work.hits),
        ("misses, both buckets", Pass::LookupBothBuckets, &work.misses),
        ("hits, no branch", Pass::LookupFlat, &work.hits),
        ("misses, no branch", Pass::LookupFlat, &work.misses),
        ("ancestor + feedback", Pass::LookupAncestor, &work.descendants),
    ];
    let mut run = LoadRun::<PackedTileTable>::new(gpu, profiler, kernel, work, feedback, options, load, &query_sets);
    let (alternate_share, full_bucket_share) = (run.table.alternate_share(), run.table.full_share());
    let churn = run.churn(gpu, profiler, kernel, feedback, work, options.seed);
    PackedLoadReport {
        load,
        keys: run.table.len(),
        capacity: run.table.capacity(),
        alternate_share,
        full_bucket_share,
        mean_hit_buckets: run.mean_hit_buckets,
        mean_miss_buckets: run.mean_miss_buckets,
        cpu_build_ms: run.cpu_build_ms,
        cpu_inserts_per_s: run.cpu_inserts_per_s,
        verified: run.verified(&churn),
        build_error: run.build_error,
        contents_verified: run.contents_verified,
        lookups: run.lookups,
        feedback: run.feedback,
        churn,
    }
}

impl PackedLoadReport {
    /// The lines of `TileTableReport::summary` for this load.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "  packed cuckoo, buckets of 4 x 8 bytes, load {:.2}: {} keys in {} slots, {:.1}% in their alternate bucket, {:.1}% of buckets full; sectors read by a hit: mean {:.3}, by a miss: mean {:.3}; CPU build {:.1} ms ({:.1} M inserts/s), upload verified: {}\n",
            self.load,
            self.keys,
            self.capacity,
            100.0 * self.alternate_share,
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
        out += &crate::kernels::tile_table::lookup_lines(&self.lookups, &self.feedback);
        out + &self.churn.summary()
    }
}
