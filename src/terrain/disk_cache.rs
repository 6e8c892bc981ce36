//! The on-disk cache of tiles fetched over HTTP: one file per tile under
//! `DIR/SOURCE/z/x/y.tile` (an empty `y.none` records "no tile here"), bounded in bytes, the
//! least recently used files evicted first (a hit refreshes the file's modification time).
//! Files are written to a temporary name and renamed, so a reader never sees half a tile.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// What the cache holds for one tile.
#[derive(Clone, Debug, PartialEq)]
pub enum Cached {
    /// The tile's bytes.
    Tile(Vec<u8>),
    /// The server said there is no tile here (404 or 204).
    NoTile,
    /// Nothing cached.
    Miss,
}

/// A size-bounded cache folder shared by the sources that use it.
pub struct DiskCache {
    dir: PathBuf,
    limit_bytes: u64,
    /// Bytes in the folder as far as this process knows (scanned at open, then counted).
    used_bytes: Mutex<u64>,
}

/// The default cache folder: `$XDG_CACHE_HOME/bisector/tiles`, else `$HOME/.cache/bisector/tiles`.
pub fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("bisector").join("tiles"))
}

fn files(dir: &Path, out: &mut Vec<(PathBuf, u64, SystemTime)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            files(&entry.path(), out);
        } else {
            out.push((entry.path(), meta.len(), meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
        }
    }
}

/// A 64-bit FNV-1a hash of `text`, in hex: a folder name for a source's address.
pub fn key(text: &str) -> String {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in text.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl DiskCache {
    /// Opens (creating it if needed) the cache folder `dir`, holding at most `limit_bytes`.
    pub fn open(dir: &Path, limit_bytes: u64) -> std::io::Result<DiskCache> {
        std::fs::create_dir_all(dir)?;
        let mut all = Vec::new();
        files(dir, &mut all);
        let used = all.iter().map(|f| f.1).sum();
        Ok(DiskCache { dir: dir.to_path_buf(), limit_bytes, used_bytes: Mutex::new(used) })
    }

    /// The cache folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn tile_path(&self, source: &str, z: u32, x: u32, y: u32, ext: &str) -> PathBuf {
        self.dir.join(source).join(z.to_string()).join(x.to_string()).join(format!("{y}.{ext}"))
    }

    /// What the cache holds for tile (z, x, y) of `source` (a [`key`]); a hit is marked used.
    pub fn get(&self, source: &str, z: u32, x: u32, y: u32) -> Cached {
        let tile = self.tile_path(source, z, x, y, "tile");
        if let Ok(bytes) = crate::input::read_limited(&tile, crate::input::TILE_BYTES, "cached tile") {
            let _ = std::fs::File::options().append(true).open(&tile).and_then(|f| f.set_modified(SystemTime::now()));
            return Cached::Tile(bytes);
        }
        if self.tile_path(source, z, x, y, "none").exists() {
            return Cached::NoTile;
        }
        Cached::Miss
    }

    /// A file named `name` under `source`'s folder (the source's index), if cached.
    pub fn get_file(&self, source: &str, name: &str, limit_bytes: u64) -> Option<Vec<u8>> {
        crate::input::read_limited(&self.dir.join(source).join(name), limit_bytes, "cached index").ok()
    }

    /// Stores `what` for tile (z, x, y) of `source` (I/O errors are ignored: the cache is only a cache).
    pub fn put(&self, source: &str, z: u32, x: u32, y: u32, what: &Cached) {
        let (path, bytes): (PathBuf, &[u8]) = match what {
            Cached::Tile(bytes) => (self.tile_path(source, z, x, y, "tile"), bytes),
            Cached::NoTile => (self.tile_path(source, z, x, y, "none"), &[]),
            Cached::Miss => return,
        };
        self.write(&path, bytes);
    }

    /// Stores a file named `name` under `source`'s folder.
    pub fn put_file(&self, source: &str, name: &str, bytes: &[u8]) {
        self.write(&self.dir.join(source).join(name), bytes);
    }

    fn write(&self, path: &Path, bytes: &[u8]) {
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let temporary = path.with_extension(format!("part{}", std::process::id()));
        if std::fs::write(&temporary, bytes).and_then(|_| std::fs::rename(&temporary, path)).is_err() {
            let _ = std::fs::remove_file(&temporary);
            return;
        }
        let over = {
            let mut used = self.used_bytes.lock().expect("disk cache lock");
            *used += bytes.len() as u64;
            *used > self.limit_bytes
        };
        if over {
            self.evict();
        }
    }

    /// Deletes the least recently used files until the folder holds at most 3/4 of the limit.
    pub fn evict(&self) {
        let mut used = self.used_bytes.lock().expect("disk cache lock");
        let mut all = Vec::new();
        files(&self.dir, &mut all);
        all.sort_by_key(|f| f.2);
        let mut total: u64 = all.iter().map(|f| f.1).sum();
        for (path, len, _) in all {
            if total <= self.limit_bytes / 4 * 3 {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
        *used = total;
    }

    /// Bytes the folder holds as far as this process knows.
    pub fn used_bytes(&self) -> u64 {
        *self.used_bytes.lock().expect("disk cache lock")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_tiles_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(dir.path(), 1000).unwrap();
        let base = SystemTime::now() - std::time::Duration::from_secs(100);
        for y in 0..4 {
            cache.put("s", 3, 1, y, &Cached::Tile(vec![y as u8; 200]));
            let path = cache.tile_path("s", 3, 1, y, "tile");
            std::fs::File::options()
                .append(true)
                .open(path)
                .unwrap()
                .set_modified(base + std::time::Duration::from_secs(y as u64))
                .unwrap();
        }
        cache.put("s", 3, 1, 9, &Cached::NoTile);
        // Tile 0 is the oldest; using it makes tile 1 the oldest.
        assert_eq!(cache.get("s", 3, 1, 0), Cached::Tile(vec![0; 200]));
        assert_eq!(cache.get("s", 3, 1, 9), Cached::NoTile);
        assert_eq!(cache.get("s", 3, 2, 0), Cached::Miss);
        assert_eq!(cache.used_bytes(), 800);
        // 1001 bytes, past the limit: evicted down to 750, oldest first (1, then 2).
        cache.put("s", 3, 1, 4, &Cached::Tile(vec![4; 201]));
        assert_eq!(cache.get("s", 3, 1, 1), Cached::Miss);
        assert_eq!(cache.get("s", 3, 1, 2), Cached::Miss);
        assert_eq!(cache.get("s", 3, 1, 0), Cached::Tile(vec![0; 200]));
        assert_eq!(cache.get("s", 3, 1, 4), Cached::Tile(vec![4; 201]));
        assert_eq!(cache.get("s", 3, 1, 3), Cached::Tile(vec![3; 200]));
        assert!(cache.used_bytes() <= 750, "{}", cache.used_bytes());
        // A second cache on the same folder counts what is there.
        assert_eq!(DiskCache::open(dir.path(), 1000).unwrap().used_bytes(), cache.used_bytes());
    }
}
