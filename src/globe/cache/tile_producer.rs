//! Where tile heights come from when the CPU makes them (on loader threads): a source of real
//! elevation data resampled onto the tiles of `tile_layout`.

use crate::globe::cache::tile_key::TileKey;
use crate::terrain::TerrainError;

/// Makes the heights of tiles of one source on the CPU; called from background threads.
pub trait TileProducer: Send + Sync {
    /// The `source` field of the keys it answers.
    fn source(&self) -> u8;
    /// The deepest zoom worth loading: finer tiles would add no detail.
    fn max_zoom(&self) -> u8;
    /// The TILE_TEXELS heights in metres of `key`, row-major (texel (i, j) at
    /// j * TILE_SIDE + i, laid out as src/globe/cache/tile_layout.rs says); NaN where there is no data.
    fn produce(&self, key: TileKey) -> Result<Vec<f32>, TerrainError>;
    /// How many of `key`'s cells the data's own samples are apart there (at least 1): tiles
    /// finer than the data interpolate it, and the error criterion must not take the
    /// interpolation's kinks for terrain (src/globe/cache/tile_error.rs). Default 1.
    fn native_cells(&self, key: TileKey) -> Result<f32, TerrainError> {
        let _ = key;
        Ok(1.0)
    }
}
