//! Resumable archive builds for `bisector tiles` (`super::build_tiles`). While an .mbtiles or
//! .pmtiles build runs, each finished tile goes into a SQLite file beside the archive
//! (`NAME.mbtiles.partial`), one transaction per tile, together with the fingerprint of the build.
//! If the build is interrupted, running the same command again keeps those tiles. The archive is
//! written from the partial file at the end and the partial file is then removed. A partial
//! file from another command, or one that is not a partial build, is refused and left as it is.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::OptionalExtension;

use super::TerrainError;

/// A built tile: (z, x, y, PNG bytes), as the archive writers take them.
pub type BuiltTile = (u32, u32, u32, Vec<u8>);

/// What a partial build holds for one tile.
#[derive(Debug, PartialEq, Eq)]
pub enum Done {
    /// Not built yet.
    No,
    /// Built, no data there: no tile.
    Empty,
    /// Built: the tile's PNG.
    Tile(Vec<u8>),
}

/// The partial build of one archive: tiles done so far, by (z, x, y).
pub struct PartialArchive {
    path: PathBuf,
    connection: Mutex<rusqlite::Connection>,
}

/// The partial file of the archive at `archive`: its name with `.partial` added.
pub fn partial_path(archive: &Path) -> PathBuf {
    let mut name = archive.as_os_str().to_os_string();
    name.push(".partial");
    PathBuf::from(name)
}

fn file_error(path: &Path, problem: impl Into<String>) -> TerrainError {
    TerrainError::File { path: path.display().to_string(), problem: problem.into() }
}

impl PartialArchive {
    /// Opens the partial build of `archive` made by the build `fingerprint`, creating it when
    /// there is none; one of another build, or a file that is not a partial build, is an error
    /// (and is left as it is).
    pub fn open(archive: &Path, fingerprint: &str) -> Result<PartialArchive, TerrainError> {
        let path = partial_path(archive);
        let existed = path.exists();
        let fail = |e: rusqlite::Error| file_error(&path, format!("cannot keep the build's tiles in it ({e})"));
        let not_ours = || {
            file_error(
                &path,
                "exists and is not the interrupted build of this same bisector tiles command (same --from files and contents, zooms, --encoding, --attribution); bisector does not overwrite it: remove it to start again, or choose a new --out",
            )
        };
        let flags = if existed {
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE
        } else {
            rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_CREATE
        };
        let connection = rusqlite::Connection::open_with_flags(&path, flags | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(fail)?;
        if existed {
            // Anything unreadable as our table of tiles is someone else's file.
            let recorded: Option<String> = connection
                .query_row("SELECT value FROM bisector_partial WHERE name = 'fingerprint'", [], |row| row.get(0))
                .optional()
                .map_err(|_| not_ours())?;
            let tiles_table = connection.prepare("SELECT z, x, y, png FROM tiles LIMIT 1").is_ok();
            if recorded.as_deref() != Some(fingerprint) || !tiles_table {
                return Err(not_ours());
            }
        }
        // WAL with synchronous NORMAL: a killed process loses at most the tile being written,
        // and each tile costs no flush to disk.
        connection.pragma_update(None, "journal_mode", "WAL").map_err(fail)?;
        connection.pragma_update(None, "synchronous", "NORMAL").map_err(fail)?;
        if !existed {
            connection
                .execute_batch(
                    "BEGIN;
                     CREATE TABLE bisector_partial (name TEXT PRIMARY KEY, value TEXT);
                     CREATE TABLE tiles (z INTEGER, x INTEGER, y INTEGER, png BLOB, PRIMARY KEY (z, x, y));
                     COMMIT;",
                )
                .map_err(fail)?;
            connection.execute("INSERT INTO bisector_partial (name, value) VALUES ('fingerprint', ?1)", [fingerprint]).map_err(fail)?;
        }
        Ok(PartialArchive { path, connection: Mutex::new(connection) })
    }

    /// The partial file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the partial build holds for tile (z, x, y).
    pub fn get(&self, z: u32, x: u32, y: u32) -> Result<Done, TerrainError> {
        let connection = self.connection.lock().expect("partial archive lock");
        let row: Option<Option<Vec<u8>>> = connection
            .query_row("SELECT png FROM tiles WHERE z = ?1 AND x = ?2 AND y = ?3", [z, x, y], |row| row.get(0))
            .optional()
            .map_err(|e| file_error(&self.path, format!("cannot read it ({e})")))?;
        Ok(match row {
            None => Done::No,
            Some(None) => Done::Empty,
            Some(Some(png)) => Done::Tile(png),
        })
    }

    /// Records tile (z, x, y) as built: its PNG, or None where it has no data.
    pub fn put(&self, z: u32, x: u32, y: u32, png: Option<&[u8]>) -> Result<(), TerrainError> {
        let connection = self.connection.lock().expect("partial archive lock");
        connection
            .execute("INSERT OR REPLACE INTO tiles (z, x, y, png) VALUES (?1, ?2, ?3, ?4)", rusqlite::params![z, x, y, png])
            .map_err(|e| file_error(&self.path, format!("cannot write it ({e})")))?;
        Ok(())
    }

    /// Every tile with data, in (z, x, y) order, held in memory.
    pub fn tiles(&self) -> Result<Vec<BuiltTile>, TerrainError> {
        let connection = self.connection.lock().expect("partial archive lock");
        let fail = |e: rusqlite::Error| file_error(&self.path, format!("cannot read it ({e})"));
        let mut statement = connection.prepare("SELECT z, x, y, png FROM tiles WHERE png IS NOT NULL ORDER BY z, x, y").map_err(fail)?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))).map_err(fail)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(fail)
    }

    /// Every tile with data as (z, x, y, length in bytes), for a PMTiles writer's directories.
    pub fn lengths(&self) -> Result<Vec<(u32, u32, u32, u64)>, TerrainError> {
        let connection = self.connection.lock().expect("partial archive lock");
        let fail = |e: rusqlite::Error| file_error(&self.path, format!("cannot read it ({e})"));
        let mut statement = connection.prepare("SELECT z, x, y, length(png) FROM tiles WHERE png IS NOT NULL").map_err(fail)?;
        let rows =
            statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get::<_, i64>(3)? as u64))).map_err(fail)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(fail)
    }

    /// Hands every tile with data to `add` in (z, x, y) order, one at a time.
    pub fn for_each_tile(&self, mut add: impl FnMut(u32, u32, u32, &[u8]) -> Result<(), TerrainError>) -> Result<(), TerrainError> {
        let connection = self.connection.lock().expect("partial archive lock");
        let fail = |e: rusqlite::Error| file_error(&self.path, format!("cannot read it ({e})"));
        let mut statement = connection.prepare("SELECT z, x, y, png FROM tiles WHERE png IS NOT NULL ORDER BY z, x, y").map_err(fail)?;
        let mut rows = statement.query([]).map_err(fail)?;
        while let Some(row) = rows.next().map_err(fail)? {
            let png = row.get_ref(3).and_then(|v| v.as_blob().map_err(Into::into)).map_err(fail)?;
            add(row.get(0).map_err(fail)?, row.get(1).map_err(fail)?, row.get(2).map_err(fail)?, png)?;
        }
        Ok(())
    }

    /// Closes the partial file and removes it (and SQLite's `-wal` and `-shm` files beside it).
    pub fn remove(self) -> Result<(), TerrainError> {
        let connection = self.connection.into_inner().expect("partial archive lock");
        connection.close().map_err(|(_, e)| file_error(&self.path, format!("cannot close it ({e})")))?;
        for suffix in ["", "-wal", "-shm"] {
            let mut name = self.path.as_os_str().to_os_string();
            name.push(suffix);
            let path = PathBuf::from(name);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(file_error(&path, format!("cannot remove it ({e})")));
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_survive_a_reopen_and_another_build_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("a.pmtiles");
        let partial = PartialArchive::open(&archive, "build 1").unwrap();
        assert_eq!(partial.path(), dir.path().join("a.pmtiles.partial"));
        partial.put(3, 1, 2, Some(b"png")).unwrap();
        partial.put(0, 0, 0, None).unwrap();
        drop(partial);
        let again = PartialArchive::open(&archive, "build 1").unwrap();
        assert_eq!(again.get(3, 1, 2).unwrap(), Done::Tile(b"png".to_vec()));
        assert_eq!(again.get(0, 0, 0).unwrap(), Done::Empty);
        assert_eq!(again.get(1, 0, 0).unwrap(), Done::No);
        assert_eq!(again.tiles().unwrap(), vec![(3, 1, 2, b"png".to_vec())]);
        assert_eq!(again.lengths().unwrap(), vec![(3, 1, 2, 3)]);
        let mut seen = Vec::new();
        again
            .for_each_tile(|z, x, y, png| {
                seen.push((z, x, y, png.to_vec()));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, again.tiles().unwrap());
        drop(again);
        let error = PartialArchive::open(&archive, "build 2").err().unwrap().to_string();
        assert!(error.contains("a.pmtiles.partial") && error.contains("not the interrupted build"), "{error}");
        let again = PartialArchive::open(&archive, "build 1").unwrap();
        again.remove().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "files left");
        // Not SQLite: refused, left as it was.
        std::fs::write(partial_path(&archive), "mine").unwrap();
        let error = PartialArchive::open(&archive, "build 1").err().unwrap().to_string();
        assert!(error.contains("not the interrupted build"), "{error}");
        assert_eq!(std::fs::read_to_string(partial_path(&archive)).unwrap(), "mine");
    }
}
