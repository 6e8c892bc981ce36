//! The caches of a large GeoTIFF (`super::cog`): decoded tiles kept least-recently-used within a
//! byte budget, and their figures, per cache and summed over the process.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The decoded-tile cache's figures, of one file or summed over the process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CogStats {
    /// Budget of the decoded-tile cache(s), in bytes.
    pub cache_budget_bytes: u64,
    /// Most bytes of decoded tiles the cache(s) held at once.
    pub cache_peak_bytes: u64,
    /// Tiles read from the file and decoded (and Web-Mercator tiles computed from them, in
    /// the process's sum).
    pub tiles_decoded: u64,
    /// Tiles found in the cache.
    pub cache_hits: u64,
    /// Compressed bytes read from the file(s).
    pub bytes_read: u64,
}

#[derive(Default)]
struct Totals {
    budget: AtomicU64,
    in_use: AtomicU64,
    peak: AtomicU64,
    decoded: AtomicU64,
    hits: AtomicU64,
    bytes_read: AtomicU64,
}

static TOTALS: Totals = Totals {
    budget: AtomicU64::new(0),
    in_use: AtomicU64::new(0),
    peak: AtomicU64::new(0),
    decoded: AtomicU64::new(0),
    hits: AtomicU64::new(0),
    bytes_read: AtomicU64::new(0),
};

/// The lazy GeoTIFFs of this process, summed (for reports: the bench JSON's `cog`).
pub fn stats() -> CogStats {
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    CogStats {
        cache_budget_bytes: get(&TOTALS.budget),
        cache_peak_bytes: get(&TOTALS.peak),
        tiles_decoded: get(&TOTALS.decoded),
        cache_hits: get(&TOTALS.hits),
        bytes_read: get(&TOTALS.bytes_read),
    }
}

/// (level or zoom, column, row).
pub(crate) type TileKey = (u8, u32, u32);

/// The bytes a kept tile counts for: its heights, and at least 64 (an empty tile's key).
fn cost(tile: &[f32]) -> u64 {
    (tile.len() as u64 * 4).max(64)
}

/// Decoded tiles by (level, column, row), least recently used first out.
#[derive(Default)]
struct TileLru {
    tiles: HashMap<TileKey, (Arc<Vec<f32>>, u64)>,
    order: BTreeMap<u64, TileKey>,
    clock: u64,
    in_use: u64,
    stats: CogStats,
}

impl TileLru {
    fn get(&mut self, key: TileKey) -> Option<Arc<Vec<f32>>> {
        self.clock += 1;
        let clock = self.clock;
        let (tile, used) = self.tiles.get_mut(&key)?;
        self.order.remove(used);
        *used = clock;
        self.order.insert(clock, key);
        Some(tile.clone())
    }

    /// Keeps `tile`, first dropping the least recently used tiles until it fits the budget.
    fn insert(&mut self, key: TileKey, tile: Arc<Vec<f32>>) -> Arc<Vec<f32>> {
        if let Some(kept) = self.get(key) {
            return kept;
        }
        let bytes = cost(&tile);
        while self.in_use + bytes > self.stats.cache_budget_bytes {
            let Some((_, old)) = self.order.pop_first() else { break };
            if let Some((dropped, _)) = self.tiles.remove(&old) {
                self.in_use -= cost(&dropped);
                TOTALS.in_use.fetch_sub(cost(&dropped), Ordering::Relaxed);
            }
        }
        self.clock += 1;
        self.tiles.insert(key, (tile.clone(), self.clock));
        self.order.insert(self.clock, key);
        self.in_use += bytes;
        self.stats.cache_peak_bytes = self.stats.cache_peak_bytes.max(self.in_use);
        let total = TOTALS.in_use.fetch_add(bytes, Ordering::Relaxed) + bytes;
        TOTALS.peak.fetch_max(total, Ordering::Relaxed);
        tile
    }
}

/// A least-recently-used cache of decoded tiles within a byte budget, shared between threads;
/// its figures count in [`stats`].
pub struct TileCache {
    lru: Mutex<TileLru>,
}

impl TileCache {
    /// An empty cache that keeps at most `budget_bytes` of tiles.
    pub fn new(budget_bytes: u64) -> TileCache {
        TOTALS.budget.fetch_add(budget_bytes, Ordering::Relaxed);
        let lru = TileLru { stats: CogStats { cache_budget_bytes: budget_bytes, ..CogStats::default() }, ..TileLru::default() };
        TileCache { lru: Mutex::new(lru) }
    }

    /// The tile under `key`, if kept (counted as a hit).
    pub fn get(&self, key: (u8, u32, u32)) -> Option<Arc<Vec<f32>>> {
        let mut lru = self.lru.lock().expect("tile cache lock");
        let tile = lru.get(key)?;
        lru.stats.cache_hits += 1;
        TOTALS.hits.fetch_add(1, Ordering::Relaxed);
        Some(tile)
    }

    /// Keeps `tile` under `key`, made from `bytes_read` bytes of a file, dropping the least
    /// recently used tiles to stay within the budget; the tile kept (another thread's if it was first).
    pub fn insert(&self, key: (u8, u32, u32), tile: Arc<Vec<f32>>, bytes_read: u64) -> Arc<Vec<f32>> {
        let mut lru = self.lru.lock().expect("tile cache lock");
        lru.stats.tiles_decoded += 1;
        lru.stats.bytes_read += bytes_read;
        TOTALS.decoded.fetch_add(1, Ordering::Relaxed);
        TOTALS.bytes_read.fetch_add(bytes_read, Ordering::Relaxed);
        lru.insert(key, tile)
    }

    /// The cache's figures.
    pub fn stats(&self) -> CogStats {
        self.lru.lock().expect("tile cache lock").stats
    }

    /// Bytes of tiles kept now.
    pub fn in_use_bytes(&self) -> u64 {
        self.lru.lock().expect("tile cache lock").in_use
    }
}

impl Drop for TileCache {
    fn drop(&mut self) {
        let (in_use, budget) = self.lru.get_mut().map(|c| (c.in_use, c.stats.cache_budget_bytes)).unwrap_or((0, 0));
        TOTALS.in_use.fetch_sub(in_use, Ordering::Relaxed);
        TOTALS.budget.fetch_sub(budget, Ordering::Relaxed);
    }
}
