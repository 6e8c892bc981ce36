//! MBTiles archives: one SQLite file with a `tiles` table (zoom_level, tile_column, tile_row,
//! tile_data; rows in TMS order, growing northwards) and a `metadata` table of name/value pairs
//! (minzoom, maxzoom, bounds, format, and bisector's `encoding`). Read only, through rusqlite's
//! bundled SQLite; [`write`] builds one from tiles (the tests, and later `bisector tiles`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::tile_source::{self, SourceIndex, TileSource};
use super::TerrainError;

/// An opened MBTiles archive.
pub struct MbTiles {
    path: PathBuf,
    /// SQLite connections are not shared between threads: the loader threads take turns.
    connection: Mutex<Connection>,
    index: SourceIndex,
}

fn file_error(path: &Path, problem: impl Into<String>) -> TerrainError {
    TerrainError::File { path: path.display().to_string(), problem: problem.into() }
}

/// Why SQLite refused, as one line for a user.
fn sqlite_problem(e: &rusqlite::Error) -> String {
    format!("not a readable MBTiles archive (SQLite: {e})")
}

impl MbTiles {
    /// Opens `path` read-only and reads its metadata; a file that is not SQLite, or a database
    /// without a `tiles` table, is an error naming the file.
    pub fn open(path: &Path) -> Result<MbTiles, TerrainError> {
        if !path.is_file() {
            return Err(file_error(path, "no such file"));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags).map_err(|e| file_error(path, sqlite_problem(&e)))?;
        let tables: Vec<String> = connection
            .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
            .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect())
            .map_err(|e| file_error(path, sqlite_problem(&e)))?;
        if !tables.iter().any(|t| t == "tiles") {
            return Err(file_error(
                path,
                "a SQLite database but not an MBTiles archive: it has no `tiles` table (zoom_level, tile_column, tile_row, tile_data)",
            ));
        }
        let mut metadata = HashMap::new();
        if tables.iter().any(|t| t == "metadata") {
            let rows: Vec<(String, Box<str>)> = connection
                .prepare("SELECT name, value FROM metadata")
                .and_then(|mut s| s.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?.collect())
                .map_err(|e| file_error(path, format!("its metadata table cannot be read ({e})")))?;
            metadata.extend(rows);
        }
        let index = read_index(&connection, &metadata, path)?;
        Ok(MbTiles { path: path.to_path_buf(), connection: Mutex::new(connection), index })
    }
}

/// The zoom range, bounds and encoding from `metadata`, or from the tiles where it is silent.
fn read_index(connection: &Connection, metadata: &HashMap<String, Box<str>>, path: &Path) -> Result<SourceIndex, TerrainError> {
    let name = path.display().to_string();
    if let Some(format) = metadata.get("format").map(|f| f.trim().to_ascii_lowercase()) {
        if format != "png" {
            return Err(file_error(path, format!("its tiles are '{format}'; elevation tiles must be png (Terrain-RGB or Terrarium)")));
        }
    }
    let number = |key: &str| -> Result<Option<u32>, TerrainError> {
        metadata
            .get(key)
            .map(|v| v.trim().parse::<u32>().map_err(|_| file_error(path, format!("metadata {key} '{v}' is not a zoom level"))))
            .transpose()
    };
    let (min_zoom, max_zoom) = match (number("minzoom")?, number("maxzoom")?) {
        (Some(lo), Some(hi)) => (lo, hi),
        _ => {
            let range: (Option<i64>, Option<i64>) = connection
                .query_row("SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles", [], |row| Ok((row.get(0)?, row.get(1)?)))
                .map_err(|e| file_error(path, sqlite_problem(&e)))?;
            match range {
                (Some(lo), Some(hi)) if (0..=tile_source::MAX_SOURCE_ZOOM as i64).contains(&lo) && hi >= lo => {
                    (lo as u32, hi.min(tile_source::MAX_SOURCE_ZOOM as i64 + 1) as u32)
                }
                (None, _) | (_, None) => return Err(file_error(path, "the archive has no tiles")),
                (Some(lo), Some(hi)) => return Err(file_error(path, format!("zoom levels {lo}..{hi} are not 0..24"))),
            }
        }
    };
    let bounds = match metadata.get("bounds") {
        Some(text) => {
            let values: Vec<f64> = text.split(',').filter_map(|v| v.trim().parse().ok()).collect();
            if values.len() != 4 {
                return Err(file_error(path, format!("metadata bounds '{text}' are not four numbers west,south,east,north")));
            }
            Some([values[0], values[1], values[2], values[3]])
        }
        None => None,
    };
    let encoding = tile_source::parse_encoding(metadata.get("encoding").map(|e| e.trim()), &name)?;
    tile_source::check_index(SourceIndex { min_zoom, max_zoom, bounds, encoding }, &name)
}

impl TileSource for MbTiles {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    fn index(&self) -> &SourceIndex {
        &self.index
    }

    fn tile_name(&self, z: u32, x: u32, y: u32) -> String {
        format!("{} (tile {z}/{x}/{y})", self.path.display())
    }

    fn get(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<u8>>, TerrainError> {
        if z > tile_source::MAX_SOURCE_ZOOM || x >= 1 << z || y >= 1 << z {
            return Ok(None);
        }
        let tms_row = (1u32 << z) - 1 - y;
        let connection = self.connection.lock().expect("MBTiles connection lock");
        let bad = |e: rusqlite::Error| file_error(Path::new(&self.tile_name(z, x, y)), sqlite_problem(&e));
        let key = rusqlite::params![z, x, tms_row];
        let length: Option<Option<i64>> = connection
            .prepare_cached("SELECT length(tile_data) FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3")
            .and_then(|mut s| s.query_row(key, |row| row.get(0)).optional())
            .map_err(bad)?;
        match length {
            None | Some(None) => return Ok(None),
            Some(Some(bytes)) if bytes as u64 > crate::input::TILE_BYTES => {
                return Err(crate::input::InputError::TooLarge {
                    what: "tile",
                    path: self.tile_name(z, x, y),
                    size_bytes: Some(bytes as u64),
                    limit_bytes: crate::input::TILE_BYTES,
                }
                .into())
            }
            Some(Some(_)) => {}
        }
        connection
            .prepare_cached("SELECT tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3")
            .and_then(|mut s| s.query_row(key, |row| row.get::<_, Vec<u8>>(0)).optional())
            .map_err(bad)
    }
}

/// Writes the tiles `(z, x, y, png bytes)` (XYZ rows) to a new MBTiles file at `path`, with
/// metadata for `index`; an existing file is an error, never overwritten.
pub fn write(path: &Path, index: &SourceIndex, tiles: &[(u32, u32, u32, Vec<u8>)]) -> Result<(), TerrainError> {
    write_with_metadata(path, index, tiles, &[])
}

/// As [`write`], with `extra` name/value rows added to the metadata (attribution, description).
pub fn write_with_metadata(
    path: &Path,
    index: &SourceIndex,
    tiles: &[(u32, u32, u32, Vec<u8>)],
    extra: &[(&str, &str)],
) -> Result<(), TerrainError> {
    let mut writer = MbTilesWriter::create(path, index, extra)?;
    for (z, x, y, bytes) in tiles {
        writer.add(*z, *x, *y, bytes)?;
    }
    writer.finish()
}

/// A new MBTiles file written tile by tile in one transaction (no more than a tile held in
/// memory); nothing is committed until [`MbTilesWriter::finish`].
pub struct MbTilesWriter {
    path: PathBuf,
    connection: Connection,
}

impl MbTilesWriter {
    /// Creates the MBTiles file at `path` (an existing file is an error, never overwritten) with
    /// metadata for `index` and the `extra` name/value rows.
    pub fn create(path: &Path, index: &SourceIndex, extra: &[(&str, &str)]) -> Result<MbTilesWriter, TerrainError> {
        if path.exists() {
            return Err(file_error(path, "already exists; bisector does not overwrite it"));
        }
        let fail = |e: rusqlite::Error| file_error(path, format!("cannot write the MBTiles archive ({e})"));
        let connection = Connection::open(path).map_err(fail)?;
        connection
            .execute_batch(
                "BEGIN;
                 CREATE TABLE metadata (name TEXT, value TEXT);
                 CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                 CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);",
            )
            .map_err(fail)?;
        let mut rows = vec![
            ("format", "png".to_string()),
            ("minzoom", index.min_zoom.to_string()),
            ("maxzoom", index.max_zoom.to_string()),
            ("encoding", tile_source::encoding_name(index.encoding).to_string()),
            ("type", "baselayer".to_string()),
        ];
        if let Some([w, s, e, n]) = index.bounds {
            rows.push(("bounds", format!("{w},{s},{e},{n}")));
        }
        rows.extend(extra.iter().map(|&(name, value)| (name, value.to_string())));
        for (name, value) in rows {
            connection.execute("INSERT INTO metadata (name, value) VALUES (?1, ?2)", rusqlite::params![name, value]).map_err(fail)?;
        }
        Ok(MbTilesWriter { path: path.to_path_buf(), connection })
    }

    /// Adds tile (z, x, y) (an XYZ row; stored as MBTiles' TMS row).
    pub fn add(&mut self, z: u32, x: u32, y: u32, bytes: &[u8]) -> Result<(), TerrainError> {
        let fail = |e: rusqlite::Error| file_error(&self.path, format!("cannot write the MBTiles archive ({e})"));
        let mut insert = self
            .connection
            .prepare_cached("INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?1, ?2, ?3, ?4)")
            .map_err(fail)?;
        insert.execute(rusqlite::params![z, x, (1u32 << z) - 1 - y, bytes]).map_err(fail)?;
        Ok(())
    }

    /// Commits the tiles and closes the file.
    pub fn finish(self) -> Result<(), TerrainError> {
        let path = self.path;
        let fail = |e: rusqlite::Error| file_error(&path, format!("cannot write the MBTiles archive ({e})"));
        self.connection.execute_batch("COMMIT;").map_err(fail)?;
        self.connection.close().map_err(|(_, e)| fail(e))
    }
}
