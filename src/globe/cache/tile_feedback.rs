//! The feedback set: a bounded GPU hash set of the tile keys shaders missed this frame
//! (shaders/shared/tile_feedback.wgsl, `tile_feedback_insert`), deduplicated on the GPU, with an
//! overflow flag when more distinct keys arrive than it holds; the CPU clears it before a frame
//! and reads it back after (`GpuTileFeedback::read` blocking; the tile cache a few frames late,
//! without stalling, through `gpu::readback::ReadbackRing`). `TileFeedbackSet` is its CPU twin.
//!
//! ```text
//! words[0] count     keys stored (one atomicAdd per slot claimed)
//! words[1] overflow  1 when a key found no free slot (the set then holds `capacity` keys)
//! words[2] capacity  slots (a power of two), written once by the CPU
//! words[3] 0
//! words[4 + 2i], words[5 + 2i]   slot i: key lo, key hi; (0, 0) = empty
//! ```
//!
//! Insert without a lock and without waiting (a GPU thread must not spin on another's write):
//! linear probing from the key's home slot over at most `capacity` slots; at each slot,
//! compare-exchange the lo word from 0 to the key's lo (or read what is there), and only if the
//! lo word then equals the key's, compare-exchange the hi word from 0 to the key's hi (or read
//! it). Equal hi: the key is there (stored by this thread or another), done. Otherwise the slot
//! holds another key: next slot. Each word goes from 0 to its final value once, so every thread
//! that inserts a key walks the same slots and sees the same final words: the first slot whose
//! two words end up equal to the key is the same for all of them, and no key is stored twice.
//! This needs both words of a key to be non-zero, which the key packing guarantees
//! (tile_key.rs). A slot whose lo word was claimed by a key that then lost the hi word to another
//! key with the same lo still ends complete (the winner's key). Hence, exactly: without overflow
//! the set holds every distinct key inserted, each once; overflow is set iff more distinct keys
//! were inserted than `capacity` (then it holds `capacity` of them, and later inserts return at
//! once).

use std::collections::BTreeSet;

use super::tile_key::TileKey;

/// Header words before the slots of TileFeedback in tile_feedback.wgsl (tests/shaders.rs checks it).
pub const HEADER_WORDS: u32 = 4;

/// The CPU twin: the same set built one key at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TileFeedbackSet {
    pub capacity: u32,
    pub keys: BTreeSet<TileKey>,
    pub overflow: bool,
}

impl TileFeedbackSet {
    pub fn new(capacity: u32) -> TileFeedbackSet {
        TileFeedbackSet { capacity, keys: BTreeSet::new(), overflow: false }
    }

    /// Inserts `key` as tile_feedback_insert does: a new key when the set is full sets overflow.
    pub fn insert(&mut self, key: TileKey) {
        if !self.keys.contains(&key) {
            if self.keys.len() < self.capacity as usize {
                self.keys.insert(key);
            } else {
                self.overflow = true;
            }
        }
    }
}

/// What the GPU set held, read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedbackReadback {
    /// The set's count word.
    pub count: u32,
    pub overflow: bool,
    /// The keys of the non-empty slots, sorted.
    pub keys: Vec<TileKey>,
    /// Non-empty slots that did not hold a valid key, or held one twice (always 0 unless broken).
    pub bad_slots: u32,
}

impl FeedbackReadback {
    /// The set as the twin holds it (keys deduplicated).
    pub fn as_set(&self, capacity: u32) -> TileFeedbackSet {
        TileFeedbackSet { capacity, keys: self.keys.iter().copied().collect(), overflow: self.overflow }
    }

    /// True when the GPU set is exactly `twin`: same keys, count and overflow, no bad slot. When
    /// both overflowed, the GPU holds some `capacity` of the inserted keys (which ones depends on
    /// thread timing), so only that is checked, against `inserted`.
    pub fn equals_twin(&self, twin: &TileFeedbackSet, inserted: &BTreeSet<TileKey>) -> bool {
        let consistent = self.bad_slots == 0 && self.count as usize == self.keys.len() && self.overflow == twin.overflow;
        if twin.overflow {
            consistent && self.keys.len() == twin.capacity as usize && self.keys.iter().all(|k| inserted.contains(k))
        } else {
            consistent && self.keys.iter().copied().eq(twin.keys.iter().copied())
        }
    }
}

/// The set on the GPU: one storage buffer of u32 words (label "cache.tile_feedback").
pub struct GpuTileFeedback {
    pub buffer: wgpu::Buffer,
    pub capacity: u32,
}

impl GpuTileFeedback {
    /// Storage bytes of a set of `capacity` slots.
    pub fn buffer_bytes(capacity: u32) -> u64 {
        4 * (HEADER_WORDS as u64 + 2 * capacity as u64)
    }

    /// An empty set of `capacity` slots (a power of two).
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, capacity: u32) -> GpuTileFeedback {
        assert!(capacity.is_power_of_two(), "feedback capacity {capacity} is not a power of two");
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cache.tile_feedback"),
            size: Self::buffer_bytes(capacity),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&[0u32, 0, capacity, 0]));
        GpuTileFeedback { buffer, capacity }
    }

    /// Records emptying the set (count, overflow and every slot; the capacity word stays).
    pub fn clear(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.buffer, 0, Some(8));
        encoder.clear_buffer(&self.buffer, 4 * HEADER_WORDS as u64, None);
    }

    /// Decodes the buffer's words (as read back).
    pub fn decode(words: &[u32]) -> FeedbackReadback {
        let mut keys = Vec::new();
        let mut bad_slots = 0;
        for slot in words[HEADER_WORDS as usize..].chunks_exact(2) {
            if slot == [0, 0] {
                continue;
            }
            match TileKey::unpack([slot[0], slot[1]]) {
                Some(key) => keys.push(key),
                None => bad_slots += 1,
            }
        }
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        bad_slots += (before - keys.len()) as u32;
        FeedbackReadback { count: words[0], overflow: words[1] != 0, keys, bad_slots }
    }

    /// Reads the set back, waiting for the GPU (after the frame; never inside it).
    pub fn read(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> FeedbackReadback {
        let bytes = crate::gpu::readback::read_buffer(device, queue, &self.buffer, 0, self.buffer.size());
        Self::decode(bytemuck::cast_slice(&bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_twin_deduplicates_and_flags_overflow() {
        let keys: Vec<TileKey> = (0..5).map(|x| TileKey::new(0, 3, x, 1).unwrap()).collect();
        let mut set = TileFeedbackSet::new(4);
        for &k in keys[..4].iter().chain(&keys[..4]) {
            set.insert(k);
        }
        assert_eq!((set.keys.len(), set.overflow), (4, false));
        set.insert(keys[4]);
        assert_eq!((set.keys.len(), set.overflow), (4, true));
    }

    #[test]
    fn feedback_decode_reads_slots_and_sees_bad_ones() {
        let a = TileKey::new(1, 2, 3, 0).unwrap().pack();
        let b = TileKey::new(0, 0, 0, 0).unwrap().pack();
        let words = [2, 0, 4, 0, 0, 0, a[0], a[1], 0, 0, b[0], b[1]];
        let read = GpuTileFeedback::decode(&words);
        assert_eq!((read.count, read.overflow, read.bad_slots), (2, false, 0));
        assert_eq!(read.keys, vec![TileKey::new(0, 0, 0, 0).unwrap(), TileKey::new(1, 2, 3, 0).unwrap()]);
        // A half-written slot and a duplicate are bad.
        let words = [2, 1, 4, 0, a[0], 0, a[0], a[1], a[0], a[1], 0, 0];
        let read = GpuTileFeedback::decode(&words);
        assert_eq!((read.overflow, read.bad_slots, read.keys.len()), (true, 2, 1));
    }
}
