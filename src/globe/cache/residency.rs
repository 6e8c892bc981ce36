//! Residency: which tile sits in which atlas slot, when each slot was last used, which tiles are
//! pinned, and which missed tiles to load next. CPU only; it owns the `TileTable` (key -> slot)
//! that `GpuTileTable::sync` mirrors to the GPU.
//!
//! ```text
//! feedback read back (frame f)   -> set_requests: the missed keys, minus resident, in-flight
//!                                   and failed ones, sorted coarse-first, capped
//! used bits read back (frame f)  -> mark_used: last_used[slot] = f for every slot sampled in f
//! a tile is ready (loaded/made)  -> place: a free slot, else the least recently used unpinned
//!                                   slot not seen used in the latest read-back (when all are
//!                                   in use: the LRU tile finer than the new one); the evicted
//!                                   key leaves the table
//! ```
//!
//! **Why used bits for LRU.** Shaders set one bit per atlas slot they sample (`atomicOr` into a
//! bitset of slots/32 words, cleared each frame): a fixed, tiny read-back (a 1024-tile cache is
//! 128 bytes) that cannot overflow, however many pixels sample a tile, and needs no GPU-side
//! list. The CPU turns the bits into a last-used frame per slot. Eviction scans the slots for the
//! smallest last-used frame: O(slots) per eviction, a few microseconds for thousands of slots and
//! a handful of evictions per frame, simpler than keeping an ordered structure in step.
//!
//! **Why coarse first.** A miss falls back to the nearest resident ancestor. Loading the coarser
//! missed tiles first improves the fallback of every descendant at once (one zoom-3 tile serves
//! all its zoom-10 misses), so the picture converges from coarse to fine without holes; the queue
//! is capped, dropping the finest requests, which come back next frame if still missed.
//!
//! **Why the table deletes by backward shift.** Every frame of a moving camera evicts and inserts
//! tiles. Tombstones would accumulate under that constant churn, lengthen every miss (a probe
//! cannot stop at a tombstone), and need periodic rebuilds (a spike and a full upload);
//! backward-shift deletion leaves exactly the table of the remaining keys, so lookups stay bounded
//! by the table's `max_probe` at its load (kept at most 1/2 here) and only the shifted slots are
//! uploaded (see tile_table.rs).
//!
//! **Pins.** Zoom 0 and 1 of the source (5 tiles) are placed first and never evicted: every
//! lookup finds at least the root, so there are never holes.
//!
//! **Requests are replaced, not accumulated.** The feedback set holds every key missed in its
//! frame (unless it overflowed), so each read-back replaces the queue: tiles the camera no longer
//! needs are not loaded late.

use std::collections::{BTreeSet, HashSet};

use super::tile_key::TileKey;
use super::tile_table::{TileTable, TileTableError};

/// One atlas slot's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotState {
    /// The tile in the slot, None when free.
    pub key: Option<TileKey>,
    /// The last frame the slot was seen sampled (or was filled).
    pub last_used_frame: u64,
    /// Never evicted.
    pub pinned: bool,
}

/// Where a tile went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The atlas slot (layer) to write the tile into.
    pub slot: u32,
    /// The tile that slot held, now evicted.
    pub evicted: Option<TileKey>,
}

/// Residency of the tiles of one atlas (see the module comment).
#[derive(Clone, Debug)]
pub struct Residency {
    slots: Vec<SlotState>,
    table: TileTable,
    in_flight: HashSet<TileKey>,
    failed: HashSet<TileKey>,
    /// Requested keys, ordered by (zoom, key): coarse first.
    queue: BTreeSet<(u8, TileKey)>,
    max_queue: usize,
    /// The latest frame whose used bits were read back.
    latest_used_frame: u64,
    evictions_total: u64,
}

/// The pinned keys of `source`: zoom 0 and zoom 1 (5 tiles).
pub fn pinned_keys(source: u8) -> Vec<TileKey> {
    let root = TileKey::new(source, 0, 0, 0).expect("source in range");
    std::iter::once(root).chain((0..4).map(|q| root.child(q).expect("zoom 1"))).collect()
}

impl Residency {
    /// `slots` atlas slots, nothing resident, at most `max_queue` queued requests. The table is
    /// sized for load at most 1/2.
    pub fn new(slots: u32, max_queue: usize) -> Residency {
        Residency {
            slots: vec![SlotState { key: None, last_used_frame: 0, pinned: false }; slots as usize],
            table: TileTable::with_room_for(slots, 0.5),
            in_flight: HashSet::new(),
            failed: HashSet::new(),
            queue: BTreeSet::new(),
            max_queue,
            latest_used_frame: 0,
            evictions_total: 0,
        }
    }

    pub fn slots(&self) -> &[SlotState] {
        &self.slots
    }

    /// The key -> slot table (mirrored to the GPU).
    pub fn table(&self) -> &TileTable {
        &self.table
    }

    pub fn table_mut(&mut self) -> &mut TileTable {
        &mut self.table
    }

    /// Tiles resident.
    pub fn resident(&self) -> u32 {
        self.table.len()
    }

    pub fn is_resident(&self, key: TileKey) -> bool {
        self.table.lookup(key).is_some()
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// The queued requests, coarse first.
    pub fn queued(&self) -> impl Iterator<Item = TileKey> + '_ {
        self.queue.iter().map(|&(_, k)| k)
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn failed(&self) -> usize {
        self.failed.len()
    }

    pub fn evictions_total(&self) -> u64 {
        self.evictions_total
    }

    /// Records the used bits read back for `frame` (bit s of word s / 32 = slot s was sampled).
    pub fn mark_used(&mut self, frame: u64, used_bits: &[u32]) {
        for (s, state) in self.slots.iter_mut().enumerate() {
            if used_bits.get(s / 32).is_some_and(|w| w >> (s % 32) & 1 == 1) {
                state.last_used_frame = state.last_used_frame.max(frame);
            }
        }
        self.latest_used_frame = self.latest_used_frame.max(frame);
    }

    /// Replaces the queue with `missed` minus resident, in-flight and failed keys, coarse first,
    /// capped at `max_queue` (the finest dropped).
    pub fn set_requests(&mut self, missed: impl IntoIterator<Item = TileKey>) {
        self.queue.clear();
        for key in missed {
            if !self.is_resident(key) && !self.in_flight.contains(&key) && !self.failed.contains(&key) {
                self.queue.insert((key.zoom, key));
                if self.queue.len() > self.max_queue {
                    self.queue.pop_last();
                }
            }
        }
    }

    /// Takes up to `n` requests, coarsest first, and marks them in flight. Requests no slot
    /// could take now (see `victim`) stay queued: loading them would be wasted work.
    pub fn take_requests(&mut self, n: usize) -> Vec<TileKey> {
        let mut out = Vec::with_capacity(n.min(self.queue.len()));
        let placeable: Vec<(u8, TileKey)> = self.queue.iter().copied().filter(|&(zoom, _)| self.victim(zoom).is_some()).take(n).collect();
        for entry in placeable {
            self.queue.remove(&entry);
            self.in_flight.insert(entry.1);
            out.push(entry.1);
        }
        out
    }

    /// Marks `key` in flight without a request (the pinned tiles, loaded at creation).
    pub fn start(&mut self, key: TileKey) {
        self.queue.retain(|&(_, k)| k != key);
        self.in_flight.insert(key);
    }

    /// A load of `key` failed: it is no longer in flight and is never requested again.
    pub fn fail(&mut self, key: TileKey) {
        self.in_flight.remove(&key);
        self.failed.insert(key);
    }

    /// A load of `key` is abandoned (no slot could take it): it may be requested again.
    pub fn cancel(&mut self, key: TileKey) {
        self.in_flight.remove(&key);
    }

    /// The slot a tile of zoom `zoom` takes now: a free one; else the least recently used
    /// unpinned slot not seen used in the latest read-back (ties: the finer tile); else, when every
    /// slot is in use, the least recently used unpinned tile finer than `zoom` (a coarser tile
    /// serves more of the screen, and this only ever trades fine for coarse, so an overfull
    /// cache still improves its fallback and cannot thrash); else None.
    fn victim(&self, zoom: u8) -> Option<u32> {
        if let Some(free) = self.slots.iter().position(|s| s.key.is_none()) {
            return Some(free as u32);
        }
        let lru = |allowed: &dyn Fn(&SlotState) -> bool| {
            self.slots
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.pinned && allowed(s))
                .min_by_key(|(_, s)| (s.last_used_frame, std::cmp::Reverse(s.key.map_or(0, |k| k.zoom))))
                .map(|(i, _)| i as u32)
        };
        lru(&|s| s.last_used_frame < self.latest_used_frame).or_else(|| lru(&|s| s.key.is_some_and(|k| k.zoom > zoom)))
    }

    /// Places the ready tile `key` (filled in `frame`), evicting if needed (see `victim`); None
    /// when no slot may take it (the load is then cancelled and may be requested again).
    pub fn place(&mut self, key: TileKey, frame: u64, pinned: bool) -> Result<Option<Placement>, TileTableError> {
        self.in_flight.remove(&key);
        if let Some(slot) = self.table.lookup(key) {
            return Ok(Some(Placement { slot, evicted: None }));
        }
        let Some(slot) = self.victim(key.zoom) else { return Ok(None) };
        let state = &mut self.slots[slot as usize];
        let evicted = state.key.take();
        if let Some(old) = evicted {
            self.table.remove(old);
            self.evictions_total += 1;
        }
        *state = SlotState { key: Some(key), last_used_frame: frame, pinned };
        self.table.insert(key, slot)?;
        Ok(Some(Placement { slot, evicted }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    fn key(zoom: u8, x: u32, y: u32) -> TileKey {
        TileKey::new(3, zoom, x, y).unwrap()
    }

    fn bits(slots: &[u32], n: usize) -> Vec<u32> {
        let mut words = vec![0u32; n.div_ceil(32)];
        for &s in slots {
            words[s as usize / 32] |= 1 << (s % 32);
        }
        words
    }

    #[test]
    fn residency_evicts_the_least_recently_used_unpinned_slot() {
        let mut r = Residency::new(8, 64);
        for k in pinned_keys(3) {
            r.start(k);
            r.place(k, 0, true).unwrap().unwrap();
        }
        let a: Vec<TileKey> = (0..3).map(|x| key(4, x, 0)).collect();
        for (f, &k) in a.iter().enumerate() {
            assert_eq!(r.place(k, 1 + f as u64, false).unwrap().unwrap().evicted, None);
        }
        assert_eq!(r.resident(), 8);
        // Frames 10: slots of a[0] and a[2] used; a[1] is the LRU one.
        let slot = |r: &Residency, k| r.table().lookup(k).unwrap();
        r.mark_used(10, &bits(&[slot(&r, a[0]), slot(&r, a[2])], 8));
        let p = r.place(key(5, 0, 0), 11, false).unwrap().unwrap();
        assert_eq!(p.evicted, Some(a[1]));
        assert!(!r.is_resident(a[1]));
        // Everything unpinned was used (or filled) at or after the latest read-back: nothing to evict.
        r.mark_used(11, &bits(&[slot(&r, a[0]), slot(&r, a[2])], 8));
        assert_eq!(r.place(key(5, 1, 0), 12, false).unwrap(), None);
        r.mark_used(12, &bits(&[slot(&r, a[0])], 8));
        // a[2] (last used 11) and key(5, 0, 0) (filled 11): equal age, the finer goes.
        assert_eq!(r.place(key(5, 1, 0), 13, false).unwrap().unwrap().evicted, Some(key(5, 0, 0)));
        // Every slot in use: a coarser tile still gets in, in place of the finer one.
        r.mark_used(20, &bits(&(0..8).collect::<Vec<_>>(), 8));
        assert_eq!(r.place(key(6, 0, 0), 21, false).unwrap(), None);
        assert_eq!(r.place(key(2, 1, 1), 21, false).unwrap().unwrap().evicted, Some(key(5, 1, 0)));
        r.table().check_invariants().unwrap();
    }

    #[test]
    fn residency_requests_are_deduplicated_coarse_first_and_capped() {
        let mut r = Residency::new(16, 4);
        r.place(key(2, 0, 0), 0, false).unwrap();
        let inflight = key(3, 1, 1);
        r.start(inflight);
        r.fail(key(1, 0, 0));
        r.set_requests([key(9, 5, 5), key(2, 0, 0), inflight, key(1, 0, 0), key(6, 1, 1), key(4, 0, 0), key(7, 2, 2), key(5, 3, 3)]);
        assert_eq!(r.queued().collect::<Vec<_>>(), [key(4, 0, 0), key(5, 3, 3), key(6, 1, 1), key(7, 2, 2)]);
        assert_eq!(r.take_requests(2), [key(4, 0, 0), key(5, 3, 3)]);
        assert_eq!(r.in_flight(), 3);
        // In flight now: not queued again.
        r.set_requests([key(4, 0, 0), key(8, 0, 0)]);
        assert_eq!(r.queued().collect::<Vec<_>>(), [key(8, 0, 0)]);
        assert_eq!(r.failed(), 1);
    }

    #[test]
    fn residency_under_random_churn_keeps_pins_budget_and_table() {
        let mut rng = XorShift::fresh("residency_under_random_churn_keeps_pins_budget_and_table");
        let slots = 8 + (rng.next_u64() % 40) as u32;
        let mut r = Residency::new(slots, 32);
        let pins = pinned_keys(3);
        for &k in &pins {
            r.place(k, 0, true).unwrap().unwrap();
        }
        let mut evicted_ever = 0u64;
        for frame in 1..400u64 {
            // Random used bits for a frame two back, random missed keys all over.
            let used: Vec<u32> = (0..slots).filter(|_| rng.next_u64().is_multiple_of(3)).collect();
            r.mark_used(frame.saturating_sub(2), &bits(&used, slots as usize));
            let missed: Vec<TileKey> = (0..rng.next_u64() % 50)
                .map(|_| {
                    let z = 2 + (rng.next_u64() % 10) as u8;
                    key(z, (rng.next_u64() % (1 << z)) as u32, (rng.next_u64() % (1 << z)) as u32)
                })
                .collect();
            r.set_requests(missed.iter().copied());
            assert!(r.queue_len() <= 32);
            let zooms: Vec<u8> = r.queued().map(|k| k.zoom).collect();
            assert!(zooms.windows(2).all(|w| w[0] <= w[1]), "coarse first");
            for k in r.take_requests(4) {
                let before: Vec<SlotState> = r.slots().to_vec();
                match r.place(k, frame, false).unwrap() {
                    Some(p) => {
                        let old = before[p.slot as usize];
                        assert!(!old.pinned);
                        if let Some(e) = p.evicted {
                            evicted_ever += 1;
                            let latest = frame.saturating_sub(2);
                            if old.last_used_frame < latest {
                                // The least recently used unpinned slot.
                                assert!(before.iter().filter(|s| !s.pinned).all(|s| s.last_used_frame >= old.last_used_frame));
                            } else {
                                // Everything was in use: a finer tile, the LRU of those.
                                assert!(before.iter().all(|s| s.pinned || s.last_used_frame >= latest));
                                assert!(e.zoom > k.zoom, "evicted {e:?} in use for the coarser-or-equal {k:?}");
                                assert!(before
                                    .iter()
                                    .filter(|s| !s.pinned && s.key.unwrap().zoom > k.zoom)
                                    .all(|s| s.last_used_frame >= old.last_used_frame));
                            }
                            assert!(r.table().lookup(e).is_none(), "evicted key still in the table");
                        }
                    }
                    None => {
                        r.cancel(k);
                        assert!(r.slots().iter().all(|s| s.key.is_some()
                            && (s.pinned || (s.last_used_frame >= frame.saturating_sub(2) && s.key.unwrap().zoom <= k.zoom))));
                    }
                }
            }
            assert!(r.resident() <= slots);
            assert!(pins.iter().all(|&p| r.is_resident(p)), "a pinned tile was evicted");
            assert!(r.table().load() <= 0.5);
            r.table().check_invariants().unwrap();
            // The table and the slots agree.
            for (s, state) in r.slots().iter().enumerate() {
                if let Some(k) = state.key {
                    assert_eq!(r.table().lookup(k), Some(s as u32));
                }
            }
            assert_eq!(r.resident() as usize, r.slots().iter().filter(|s| s.key.is_some()).count());
        }
        assert_eq!(r.evictions_total(), evicted_ever);
        assert!(evicted_ever > 0, "the churn never evicted: the test tested nothing");
    }
}
