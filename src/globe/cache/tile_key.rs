//! `TileKey`: a tile of the globe's quadtrees (source, zoom, x, y) packed into 64 bits, two u32
//! words on the GPU (`vec2<u32>`, WGSL has no portable u64). Mirrors shaders/shared/tile_key.wgsl.
//!
//! ```text
//! lo word:  bits  0..27  x            (27 bits)
//!           bits 27..32  zoom + 1     (5 bits: 1..=28, zoom 0..=27)
//! hi word:  bits  0..27  y            (27 bits)
//!           bits 27..32  source + 1   (5 bits: 1..=31, source 0..=30)
//! as a u64: hi << 32 | lo
//! ```
//!
//! x and y are below 2^zoom. Zoom 27 on a globe face about 10,000 km across (one of the 8
//! octahedral faces, or a cube face) is a 7.5 cm tile; with 256 samples per tile that is well
//! under a centimetre, so 27 levels cover the "centimetre detail" the globe needs. `source` names
//! the data set, and may also fold in the face (e.g. 3 data sets x 8 faces = 24 sources).
//!
//! Reserved encodings: because zoom + 1 and source + 1 are never 0, **both words of a valid key
//! are non-zero**. The all-zero pair is EMPTY: a cleared buffer (`clear_buffer`) is an empty
//! table or feedback set, and the feedback set's lock-free insert claims a slot word by word
//! (compare-exchange from 0), which needs each word to be non-zero on its own. A zoom field of
//! 29..=31 is never a key either; `TOMBSTONE` (all ones) is reserved in that space, although the
//! tile table deletes by backward shift and never writes one (see tile_table.rs).

use serde::{Deserialize, Serialize};

/// Bits of x and of y.
pub const COORD_BITS: u32 = 27;
/// Mask of x (in the lo word) and y (in the hi word).
pub const COORD_MASK: u32 = (1 << COORD_BITS) - 1;
/// The deepest zoom a key holds.
pub const MAX_ZOOM: u8 = 27;
/// The largest source index.
pub const MAX_SOURCE: u8 = 30;

/// A tile: data set `source`, quadtree level `zoom`, column `x` and row `y` (both < 2^zoom).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TileKey {
    pub source: u8,
    pub zoom: u8,
    pub x: u32,
    pub y: u32,
}

/// The packed words of the empty slot (not a key).
pub const EMPTY: [u32; 2] = [0, 0];
/// Reserved for a deleted slot (not a key: zoom field 31); unused by the backward-shift table.
pub const TOMBSTONE: [u32; 2] = [u32::MAX, u32::MAX];

impl TileKey {
    /// A key, or None when source, zoom, x or y is out of range.
    pub fn new(source: u8, zoom: u8, x: u32, y: u32) -> Option<TileKey> {
        let side = 1u64 << zoom.min(63);
        (source <= MAX_SOURCE && zoom <= MAX_ZOOM && (x as u64) < side && (y as u64) < side).then_some(TileKey { source, zoom, x, y })
    }

    /// The two GPU words [lo, hi] (see the module comment).
    pub fn pack(self) -> [u32; 2] {
        debug_assert!(TileKey::new(self.source, self.zoom, self.x, self.y).is_some(), "{self:?} out of range");
        [self.x | ((self.zoom as u32 + 1) << COORD_BITS), self.y | ((self.source as u32 + 1) << COORD_BITS)]
    }

    /// The key as one u64 (hi << 32 | lo).
    pub fn to_u64(self) -> u64 {
        let [lo, hi] = self.pack();
        (hi as u64) << 32 | lo as u64
    }

    /// The key packed as `words`, or None for EMPTY, TOMBSTONE or any other non-key.
    pub fn unpack(words: [u32; 2]) -> Option<TileKey> {
        let [lo, hi] = words;
        let (zoom1, source1) = (lo >> COORD_BITS, hi >> COORD_BITS);
        if zoom1 == 0 || source1 == 0 {
            return None;
        }
        TileKey::new(source1 as u8 - 1, zoom1 as u8 - 1, lo & COORD_MASK, hi & COORD_MASK)
    }

    /// The tile one level up that contains this one, None at zoom 0.
    pub fn parent(self) -> Option<TileKey> {
        (self.zoom > 0).then(|| TileKey { source: self.source, zoom: self.zoom - 1, x: self.x >> 1, y: self.y >> 1 })
    }

    /// This tile, then its parent, grandparent, ... up to zoom 0.
    pub fn ancestors(self) -> impl Iterator<Item = TileKey> {
        std::iter::successors(Some(self), |k| k.parent())
    }

    /// Child `quadrant` (bit 0: x + 1, bit 1: y + 1), None beyond MAX_ZOOM.
    pub fn child(self, quadrant: u32) -> Option<TileKey> {
        (self.zoom < MAX_ZOOM).then(|| TileKey {
            source: self.source,
            zoom: self.zoom + 1,
            x: self.x << 1 | (quadrant & 1),
            y: self.y << 1 | (quadrant >> 1 & 1),
        })
    }
}

/// The table's and the feedback set's hash of packed words: murmur3's 32-bit finaliser over
/// lo ^ fmix32(hi), so neighbouring tiles (a step in x or y) land far apart. Keep in sync with
/// tile_hash in shaders/shared/tile_key.wgsl.
pub fn tile_hash(words: [u32; 2]) -> u32 {
    use crate::hash::fmix32;
    fmix32(words[0] ^ fmix32(words[1]))
}

/// Parent of packed words, computed on the words as the shader does (tile_key_parent); for
/// tests of the WGSL arithmetic. `words` must be a key of zoom >= 1.
pub fn parent_words(words: [u32; 2]) -> [u32; 2] {
    let [lo, hi] = words;
    [((lo & COORD_MASK) >> 1) | ((lo & !COORD_MASK) - (1 << COORD_BITS)), ((hi & COORD_MASK) >> 1) | (hi & !COORD_MASK)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    /// A random valid key.
    fn random_key(rng: &mut XorShift) -> TileKey {
        let zoom = (rng.next_u64() % (MAX_ZOOM as u64 + 1)) as u8;
        let side = 1u64 << zoom;
        TileKey::new((rng.next_u64() % (MAX_SOURCE as u64 + 1)) as u8, zoom, (rng.next_u64() % side) as u32, (rng.next_u64() % side) as u32)
            .unwrap()
    }

    #[test]
    fn tile_key_round_trips_and_both_words_are_non_zero() {
        let mut rng = XorShift::fresh("tile_key_round_trips_and_both_words_are_non_zero");
        let extremes = [TileKey::new(0, 0, 0, 0).unwrap(), TileKey::new(MAX_SOURCE, MAX_ZOOM, COORD_MASK, COORD_MASK).unwrap()];
        for key in extremes.into_iter().chain((0..10_000).map(|_| random_key(&mut rng))) {
            let words = key.pack();
            assert!(words[0] != 0 && words[1] != 0, "{key:?}");
            assert_ne!(words, TOMBSTONE);
            assert_eq!(TileKey::unpack(words), Some(key));
            assert_eq!(key.to_u64(), (words[1] as u64) << 32 | words[0] as u64);
            if let Some(parent) = key.parent() {
                assert_eq!(parent_words(words), parent.pack());
                assert!((0..4).any(|q| parent.child(q) == Some(key)));
            }
            assert_eq!(key.ancestors().count(), key.zoom as usize + 1);
            assert_eq!(key.ancestors().last().map(|k| (k.zoom, k.x, k.y, k.source)), Some((0, 0, 0, key.source)));
        }
        assert_eq!(TileKey::unpack(EMPTY), None);
        assert_eq!(TileKey::unpack(TOMBSTONE), None);
    }

    #[test]
    fn tile_key_rejects_out_of_range_fields() {
        assert!(TileKey::new(0, 0, 1, 0).is_none());
        assert!(TileKey::new(0, 3, 8, 0).is_none());
        assert!(TileKey::new(0, 3, 7, 7).is_some());
        assert!(TileKey::new(MAX_SOURCE + 1, 0, 0, 0).is_none());
        assert!(TileKey::new(0, MAX_ZOOM + 1, 0, 0).is_none());
        assert!(TileKey::new(0, MAX_ZOOM, 0, 0).unwrap().child(0).is_none());
        // A word pair with x beyond 2^zoom is not a key.
        assert_eq!(TileKey::unpack([5 | 1 << COORD_BITS, 1 << COORD_BITS]), None);
    }

    #[test]
    fn tile_hash_spreads_neighbouring_tiles() {
        // Home slots of a 64 x 64 block of neighbours in a table of 4096 slots: no slot should
        // hold more than a handful (a weak hash puts whole rows on one slot).
        let mut counts = vec![0u32; 4096];
        for y in 0..64 {
            for x in 0..64 {
                counts[(tile_hash(TileKey::new(2, 12, 1000 + x, 2000 + y).unwrap().pack()) & 4095) as usize] += 1;
            }
        }
        assert!(counts.iter().all(|&c| c <= 8), "max {}", counts.iter().max().unwrap());
        assert!(counts.iter().filter(|&&c| c == 0).count() < 2000);
    }
}
