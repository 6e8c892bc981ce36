//! The tile table: an open-addressing hash table (linear probing with Robin Hood ordering, a
//! power-of-two capacity) from `TileKey` to an atlas slot. The CPU owns it (`TileTable`, the twin) and mirrors it to the GPU
//! (`GpuTileTable`) by uploading only the slots an edit changed; shaders only read it
//! (shaders/shared/tile_table.wgsl: `tile_table_lookup`, `tile_lookup_ancestor`).
//!
//! Why the CPU owns it: residency is decided on the CPU anyway (it loads a tile, picks its atlas
//! slot, evicts the least recently used), so every insert and removal is already known there,
//! a frame changes tens of slots, and a CPU edit + `write_buffer` of the changed slots keeps the
//! GPU table bit-identical to the twin (tested) with no GPU insert, lock or retry. Shaders never
//! write the table; what they missed goes to the feedback set (tile_feedback.rs), which is the
//! GPU-side insert path.
//!
//! Robin Hood ordering (Celis 1986): along a cluster, entries are sorted by home slot, and
//! entries of one home by key (`TileKey::to_u64`); an insert walks from its home and takes the
//! place of the first entry that sorts after it, which moves on the same way. Each slot stores
//! its entry's displacement (distance from its home slot), so a lookup stops as soon as it meets
//! an entry displaced less than the probe distance: the key would have been placed before it.
//! Misses then cost about what hits do, instead of running to the end of the cluster: at load
//! 0.9, 5-6 slots on average instead of ~50 with plain linear probing (`kernel tile-table`
//! prints both means), and the ancestor walk is mostly misses. The layout depends only on the set
//! of keys, not on the order of inserts and removals (tested), which makes the twin easy to check.
//!
//! Removal: **backward-shift deletion**, not tombstones. The removed key's slot is emptied and
//! the following entries of its cluster move back one slot each (their displacement drops by
//! one) until an empty slot or an entry at its home. The table never holds tombstones, so it is
//! exactly the table of the keys that remain: under an LRU cache's steady churn (every frame
//! evicts and inserts) tombstones would pile up, lengthen misses (which cannot stop at a
//! tombstone) and need periodic rebuilds (a frame-time spike and a full upload). The cost is that
//! a removal may move a few entries; their slots are marked dirty and uploaded with the rest.
//! Moving entries is safe because the GPU reads the table only in passes submitted after the
//! upload (`write_buffer` is ordered before them), never while it changes.
//!
//! Bounded probes: the header carries `max_probe`, the largest displacement of any key present,
//! kept exact by a histogram of displacements. A lookup examines at most max_probe + 1 slots, so
//! it ends even in a full table.
//!
//! Duplicate keys: inserting a present key replaces its value in place (a map, not a multiset).

use wgpu::util::DeviceExt;

use super::tile_key::{tile_hash, TileKey, EMPTY};

/// A lookup's answer for an absent key; reaches WGSL as TILE_MISS through `cache::constants_wgsl`.
pub const TILE_MISS: u32 = u32::MAX;

/// The table's header on the GPU. Keep in sync with TileTable in shaders/shared/tile_table.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TileTableHeader {
    /// Slots (a power of two).
    pub capacity: u32,
    /// Largest displacement of a present key: lookups examine at most max_probe + 1 slots.
    pub max_probe: u32,
    /// Keys present.
    pub len: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<TileTableHeader>() == 16);

/// One slot: key words (both 0 when empty), the atlas slot and the entry's displacement. Keep in
/// sync with the vec4<u32> slots of TileTable in shaders/shared/tile_table.wgsl (x = key lo,
/// y = key hi, z = value, w = displacement): 16 bytes, so a probe is one aligned 16-byte load.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TileSlot {
    pub key: [u32; 2],
    pub value: u32,
    /// Distance from the key's home slot (0 when empty).
    pub displacement: u32,
}
const _: () = assert!(std::mem::size_of::<TileSlot>() == 16);

impl TileSlot {
    const EMPTY: TileSlot = TileSlot { key: EMPTY, value: 0, displacement: 0 };

    fn is_empty(&self) -> bool {
        self.key == EMPTY
    }
}

/// Why an edit was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TileTableError {
    #[error("the tile table is full ({capacity} slots); give it a larger capacity")]
    Full { capacity: u32 },
    #[error("atlas slot {0} is reserved for a miss")]
    ReservedValue(u32),
}

/// A broken invariant of a `TileTable`, in words (`check_invariants`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InvariantViolation(pub String);

/// The CPU twin and owner of the tile table: the slots exactly as the GPU holds them.
#[derive(Clone, Debug)]
pub struct TileTable {
    slots: Vec<TileSlot>,
    len: u32,
    /// displacement_counts[d]: keys at distance d from their home slot.
    displacement_counts: Vec<u32>,
    max_probe: u32,
    /// Slots changed since the last `take_dirty` (unsorted, may repeat).
    dirty: Vec<u32>,
}

impl TileTable {
    /// An empty table of 2^`capacity_log2` slots (at most 2^31).
    pub fn new(capacity_log2: u32) -> TileTable {
        assert!(capacity_log2 <= 31, "capacity 2^{capacity_log2} too large");
        let capacity = 1usize << capacity_log2;
        TileTable {
            slots: vec![TileSlot::EMPTY; capacity],
            len: 0,
            displacement_counts: vec![0; capacity],
            max_probe: 0,
            dirty: Vec::new(),
        }
    }

    /// The smallest table that holds `keys` keys at load factor at most `max_load` (0 < max_load <= 1).
    pub fn with_room_for(keys: u32, max_load: f64) -> TileTable {
        let slots = ((keys as f64 / max_load).ceil() as u64).max(1);
        TileTable::new(slots.next_power_of_two().trailing_zeros())
    }

    pub fn capacity(&self) -> u32 {
        self.slots.len() as u32
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keys present / capacity.
    pub fn load(&self) -> f64 {
        self.len as f64 / self.slots.len() as f64
    }

    /// Largest displacement of a present key (lookups examine at most this + 1 slots).
    pub fn max_probe(&self) -> u32 {
        self.max_probe
    }

    /// The header as the GPU holds it.
    pub fn header(&self) -> TileTableHeader {
        TileTableHeader { capacity: self.capacity(), max_probe: self.max_probe, len: self.len, _pad: 0 }
    }

    /// Every slot, as the GPU holds them.
    pub fn slots(&self) -> &[TileSlot] {
        &self.slots
    }

    fn mask(&self) -> u32 {
        self.capacity() - 1
    }

    fn home(&self, words: [u32; 2]) -> u32 {
        tile_hash(words) & self.mask()
    }

    fn displacement(&self, home: u32, at: u32) -> u32 {
        at.wrapping_sub(home) & self.mask()
    }

    fn count_displacement(&mut self, d: u32, add: bool) {
        if add {
            self.displacement_counts[d as usize] += 1;
            self.max_probe = self.max_probe.max(d);
        } else {
            self.displacement_counts[d as usize] -= 1;
            while self.max_probe > 0 && self.displacement_counts[self.max_probe as usize] == 0 {
                self.max_probe -= 1;
            }
        }
    }

    /// The slot holding `key` (Ok) or the slots examined to learn it is absent (Err), as
    /// `tile_table_lookup` probes: from the home slot, at most max_probe + 1 slots, stopping at
    /// an empty slot or an entry displaced less than the probe distance.
    fn probe(&self, words: [u32; 2]) -> Result<u32, u32> {
        let mut i = self.home(words);
        for n in 0..=self.max_probe {
            let slot = &self.slots[i as usize];
            if slot.key == words {
                return Ok(i);
            }
            if slot.is_empty() || slot.displacement < n {
                return Err(n + 1);
            }
            i = (i + 1) & self.mask();
        }
        Err(self.max_probe + 1)
    }

    fn find(&self, words: [u32; 2]) -> Option<u32> {
        self.probe(words).ok()
    }

    /// Slots a lookup of `key` examines (statistics).
    pub fn probes(&self, key: TileKey) -> u32 {
        let words = key.pack();
        match self.probe(words) {
            Ok(i) => self.displacement(self.home(words), i) + 1,
            Err(n) => n,
        }
    }

    /// The atlas slot of `key`, or None. Mirrors tile_table_lookup exactly.
    pub fn lookup(&self, key: TileKey) -> Option<u32> {
        self.find(key.pack()).map(|i| self.slots[i as usize].value)
    }

    /// The nearest resident tile among `key` and its ancestors, with that tile's zoom, or None
    /// when none is resident. Mirrors tile_lookup_ancestor exactly.
    pub fn lookup_ancestor(&self, key: TileKey) -> Option<(u32, u8)> {
        key.ancestors().find_map(|k| self.lookup(k).map(|v| (v, k.zoom)))
    }

    /// Maps `key` to atlas slot `value`; returns the value it replaces when `key` was present.
    pub fn insert(&mut self, key: TileKey, value: u32) -> Result<Option<u32>, TileTableError> {
        if value == TILE_MISS {
            return Err(TileTableError::ReservedValue(value));
        }
        let words = key.pack();
        if let Some(i) = self.find(words) {
            let old = std::mem::replace(&mut self.slots[i as usize].value, value);
            self.dirty.push(i);
            return Ok(Some(old));
        }
        if self.len == self.capacity() {
            return Err(TileTableError::Full { capacity: self.capacity() });
        }
        // Robin Hood: the entry in hand takes the place of the first entry that sorts after it
        // (displaced less, or as much with a larger key), which is then carried on.
        let mut entry = TileSlot { key: words, value, displacement: 0 };
        let mut i = self.home(words);
        loop {
            let slot = self.slots[i as usize];
            let sorts_after = slot.displacement < entry.displacement
                || (slot.displacement == entry.displacement && key_order(slot.key) > key_order(entry.key));
            if slot.is_empty() || sorts_after {
                self.slots[i as usize] = entry;
                self.count_displacement(entry.displacement, true);
                self.dirty.push(i);
                if slot.is_empty() {
                    self.len += 1;
                    return Ok(None);
                }
                self.count_displacement(slot.displacement, false);
                entry = slot;
            }
            i = (i + 1) & self.mask();
            entry.displacement += 1;
        }
    }

    /// Removes `key` by backward shift (see the module comment); returns its value if present.
    pub fn remove(&mut self, key: TileKey) -> Option<u32> {
        let mut gap = self.find(key.pack())?;
        let removed = self.slots[gap as usize];
        self.count_displacement(removed.displacement, false);
        self.len -= 1;
        // The entry after an empty slot is at its home, so this ends within a lap.
        for _ in 0..self.capacity() {
            let next = (gap + 1) & self.mask();
            let mut slot = self.slots[next as usize];
            if slot.is_empty() || slot.displacement == 0 {
                break;
            }
            self.count_displacement(slot.displacement, false);
            slot.displacement -= 1;
            self.count_displacement(slot.displacement, true);
            self.slots[gap as usize] = slot;
            self.dirty.push(gap);
            gap = next;
        }
        self.slots[gap as usize] = TileSlot::EMPTY;
        self.dirty.push(gap);
        Some(removed.value)
    }

    /// Every (key, value) present, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (TileKey, u32)> + '_ {
        self.slots.iter().filter(|s| !s.is_empty()).map(|s| (TileKey::unpack(s.key).expect("a valid key"), s.value))
    }

    /// Distinct slots changed since the last `take_dirty`.
    pub fn dirty_slots(&self) -> u32 {
        crate::gpu::upload::distinct_count(&self.dirty)
    }

    /// The slot ranges [start, end) changed since the last call, sorted and merged (runs closer
    /// than `merge_gap` slots are joined: one larger write beats many tiny ones).
    pub fn take_dirty(&mut self, merge_gap: u32) -> Vec<(u32, u32)> {
        crate::gpu::upload::changed_runs(std::mem::take(&mut self.dirty), merge_gap)
    }

    /// Checks the invariants (tests): keys are distinct, stored displacements are exact, every
    /// cluster is in Robin Hood order (by home, then key), len, max_probe and the displacement
    /// histogram are exact.
    pub fn check_invariants(&self) -> Result<(), InvariantViolation> {
        let mut seen = std::collections::HashSet::new();
        let mut counts = vec![0u32; self.slots.len()];
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.is_empty() {
                continue;
            }
            let key = TileKey::unpack(slot.key).ok_or_else(|| InvariantViolation(format!("slot {i}: {:?} is not a key", slot.key)))?;
            if !seen.insert(key) {
                return Err(InvariantViolation(format!("{key:?} twice")));
            }
            let home = self.home(slot.key);
            let d = self.displacement(home, i as u32);
            if d != slot.displacement {
                return Err(InvariantViolation(format!("{key:?} at slot {i}: displacement {} stored, {d} true", slot.displacement)));
            }
            counts[d as usize] += 1;
            // Robin Hood order: the next entry is displaced at most one more, and by exactly one
            // more (same home) only with a larger key.
            let next = &self.slots[(i + 1) & self.mask() as usize];
            if !next.is_empty() && (next.displacement, key_order(slot.key)) > (d + 1, key_order(next.key)) {
                return Err(InvariantViolation(format!("slots {i} and {}: out of Robin Hood order", i + 1)));
            }
        }
        let max = counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
        if seen.len() as u32 != self.len || counts != self.displacement_counts || max != self.max_probe {
            return Err(InvariantViolation(format!("len {} / {}, max_probe {} / {max}", self.len, seen.len(), self.max_probe)));
        }
        Ok(())
    }
}

/// The order of keys of one home slot along a cluster.
fn key_order(words: [u32; 2]) -> u64 {
    (words[1] as u64) << 32 | words[0] as u64
}

/// The table on the GPU: one storage buffer, the header then the slots (label "cache.tile_table").
pub struct GpuTileTable {
    pub buffer: wgpu::Buffer,
    pub capacity: u32,
}

/// Runs of dirty slots closer than this are uploaded as one write: a `write_buffer` call costs
/// about as much as copying 16 KiB more (measured: ~26 us per call on lavapipe's host).
const MERGE_GAP_SLOTS: u32 = 1024;

impl GpuTileTable {
    /// Storage bytes of a table of `capacity` slots.
    pub fn buffer_bytes(capacity: u32) -> u64 {
        (std::mem::size_of::<TileTableHeader>() + std::mem::size_of::<TileSlot>() * capacity as usize) as u64
    }

    /// The GPU copy of `table` (which then has nothing dirty).
    pub fn new(device: &wgpu::Device, table: &mut TileTable) -> GpuTileTable {
        let mut bytes = bytemuck::bytes_of(&table.header()).to_vec();
        bytes.extend_from_slice(bytemuck::cast_slice(table.slots()));
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cache.tile_table"),
            contents: &bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        });
        table.take_dirty(0);
        GpuTileTable { buffer, capacity: table.capacity() }
    }

    /// Uploads the header and the slots `table` changed since the last sync; returns the number
    /// of slot writes. Later submissions see the new table.
    pub fn sync(&self, queue: &wgpu::Queue, table: &mut TileTable) -> usize {
        assert_eq!(table.capacity(), self.capacity, "a table of another capacity");
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&table.header()));
        let runs = table.take_dirty(MERGE_GAP_SLOTS);
        crate::gpu::upload::write_runs(queue, &self.buffer, std::mem::size_of::<TileTableHeader>() as u64, table.slots(), &runs);
        runs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;
    use std::collections::HashMap;

    fn random_key(rng: &mut XorShift, max_zoom: u8) -> TileKey {
        let zoom = (rng.next_u64() % (max_zoom as u64 + 1)) as u8;
        let side = 1u64 << zoom;
        TileKey::new((rng.next_u64() % 4) as u8, zoom, (rng.next_u64() % side) as u32, (rng.next_u64() % side) as u32).unwrap()
    }

    #[test]
    fn tile_table_equals_a_map_under_random_edits() {
        let mut rng = XorShift::fresh("tile_table_equals_a_map_under_random_edits");
        for capacity_log2 in [0, 1, 3, 6, 10] {
            let mut table = TileTable::new(capacity_log2);
            let mut map: HashMap<TileKey, u32> = HashMap::new();
            let capacity = table.capacity() as usize;
            // Small zooms: many duplicate keys. Edits hover around a full table.
            for step in 0..4000u32 {
                let key = random_key(&mut rng, if capacity_log2 < 4 { 2 } else { 5 });
                if rng.next_u64().is_multiple_of(3) {
                    assert_eq!(table.remove(key), map.remove(&key), "remove {key:?}");
                } else {
                    let result = table.insert(key, step);
                    if map.len() == capacity && !map.contains_key(&key) {
                        assert_eq!(result, Err(TileTableError::Full { capacity: capacity as u32 }));
                    } else {
                        assert_eq!(result, Ok(map.insert(key, step)), "insert {key:?}");
                    }
                }
                if step % 97 == 0 || capacity_log2 < 4 {
                    table.check_invariants().unwrap_or_else(|e| panic!("2^{capacity_log2}, step {step}: {e}"));
                    for k in (0..20).map(|_| random_key(&mut rng, 5)).chain(map.keys().copied()) {
                        assert_eq!(table.lookup(k), map.get(&k).copied(), "{k:?}");
                    }
                }
            }
            assert_eq!(table.len() as usize, map.len());
            // History independence: the map's pairs inserted in its (arbitrary) order give the
            // same slots as these thousands of edits.
            let mut fresh = TileTable::new(capacity_log2);
            for (&k, &v) in &map {
                fresh.insert(k, v).unwrap();
            }
            assert_eq!(fresh.slots(), table.slots());
            let mut pairs: Vec<_> = table.iter().collect();
            pairs.sort_unstable();
            let mut expected: Vec<_> = map.into_iter().collect();
            expected.sort_unstable();
            assert_eq!(pairs, expected);
        }
    }

    #[test]
    fn tile_table_removal_leaves_the_table_as_if_never_inserted() {
        // Backward shift and Robin Hood order: after removals, the slots equal those of a table
        // that only ever saw the remaining keys, inserted in any order.
        let mut rng = XorShift::fresh("tile_table_removal_leaves_the_table_as_if_never_inserted");
        for capacity_log2 in [4, 10] {
            let capacity = 1usize << capacity_log2;
            let keys: Vec<TileKey> = (0..capacity * 9 / 10).map(|_| random_key(&mut rng, 20)).collect();
            let mut table = TileTable::new(capacity_log2);
            for (i, &k) in keys.iter().enumerate() {
                table.insert(k, i as u32).unwrap();
            }
            let full_probe = table.max_probe();
            let removed: std::collections::HashSet<TileKey> = keys.iter().copied().filter(|_| rng.next_u64().is_multiple_of(2)).collect();
            for &k in &removed {
                assert!(table.remove(k).is_some());
                assert_eq!(table.remove(k), None);
            }
            table.check_invariants().unwrap();
            assert!(table.max_probe() <= full_probe);
            // The same keys and values inserted in reverse order: the layout is the same.
            let mut fresh = TileTable::new(capacity_log2);
            for (k, v) in table.iter().collect::<Vec<_>>().into_iter().rev() {
                fresh.insert(k, v).unwrap();
            }
            assert_eq!(fresh.slots(), table.slots());
            assert!(removed.iter().all(|&k| table.lookup(k).is_none()));
        }
    }

    #[test]
    fn tile_table_ancestor_walk_finds_the_nearest_resident_tile() {
        let mut table = TileTable::new(6);
        let deep = TileKey::new(1, 9, 300, 17).unwrap();
        let chain: Vec<TileKey> = deep.ancestors().collect();
        table.insert(chain[9], 90).unwrap(); // the root
        table.insert(chain[4], 40).unwrap(); // zoom 5
        assert_eq!(table.lookup_ancestor(deep), Some((40, 5)));
        assert_eq!(table.lookup_ancestor(chain[5]), Some((90, 0)));
        assert_eq!(table.lookup_ancestor(TileKey::new(2, 9, 300, 17).unwrap()), None, "another source");
        table.insert(deep, 7).unwrap();
        assert_eq!(table.lookup_ancestor(deep), Some((7, 9)));
        assert_eq!(table.insert(deep, TILE_MISS), Err(TileTableError::ReservedValue(TILE_MISS)));
    }

    #[test]
    fn tile_table_dirty_runs_cover_every_change() {
        let mut rng = XorShift::fresh("tile_table_dirty_runs_cover_every_change");
        let mut table = TileTable::new(8);
        let mut mirror = table.slots().to_vec();
        table.take_dirty(0);
        for round in 0..50 {
            for _ in 0..(rng.next_u64() % 40) {
                let key = random_key(&mut rng, 6);
                if rng.next_u64().is_multiple_of(2) {
                    let _ = table.insert(key, round);
                } else {
                    table.remove(key);
                }
            }
            let gap = (round % 3) * 4;
            let runs = table.take_dirty(gap);
            assert!(runs.windows(2).all(|w| w[0].1 + gap < w[1].0), "{runs:?}");
            for (start, end) in runs {
                mirror[start as usize..end as usize].copy_from_slice(&table.slots()[start as usize..end as usize]);
            }
            assert_eq!(mirror, table.slots(), "round {round}");
        }
        assert_eq!(TileTable::with_room_for(900, 0.9).capacity(), 1024);
        assert_eq!(TileTable::with_room_for(1000, 0.5).capacity(), 2048);
        assert_eq!(TileTable::with_room_for(0, 0.5).capacity(), 1);
    }
}
