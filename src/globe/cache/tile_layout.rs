//! Where a tile's height samples lie on the octahedral map (src/leb/octahedral.rs).
//!
//! ```text
//! Tile (source, zoom z, x, y) covers map [x, x + 1] / 2^z  x  [y, y + 1] / 2^z of the unit
//! square; zoom 0 is the whole globe. Its samples are vertex-centred: TILE_INTERVALS intervals
//! per side, so samples 0 and TILE_INTERVALS lie on the tile's edges and neighbouring tiles
//! share them (bilinear filtering never needs a neighbour). A border of TILE_BORDER samples on
//! every side (for gradients and normals) brings a side to TILE_SIDE texels. Texel (i, j) of the
//! tile's atlas layer holds the height at map point
//!   ((x + (i - TILE_BORDER) / TILE_INTERVALS) / 2^z, (y + (j - TILE_BORDER) / TILE_INTERVALS) / 2^z)
//! folded into the square (`octahedral::wrap`) where it falls outside, row j at texel row j.
//! ```

use crate::globe::cache::tile_key::TileKey;
use glam::DVec2;

/// Intervals between samples along a tile's side.
pub const TILE_INTERVALS: u32 = 128;
/// Extra samples beyond each edge.
pub const TILE_BORDER: u32 = 1;
/// Texels along a side of a tile's atlas layer.
pub const TILE_SIDE: u32 = TILE_INTERVALS + 1 + 2 * TILE_BORDER;
/// Texels of one tile.
pub const TILE_TEXELS: usize = (TILE_SIDE * TILE_SIDE) as usize;

/// The map point of texel (i, j) of `key`'s layer, before folding (may lie outside [0, 1]^2).
pub fn texel_map_point(key: TileKey, i: u32, j: u32) -> DVec2 {
    let scale = 1.0 / (1u64 << key.zoom) as f64;
    let offset = |t: u32| (t as f64 - TILE_BORDER as f64) / TILE_INTERVALS as f64;
    DVec2::new((key.x as f64 + offset(i)) * scale, (key.y as f64 + offset(j)) * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_tiles_share_their_edge_samples() {
        let a = TileKey::new(0, 5, 7, 9).unwrap();
        let b = TileKey::new(0, 5, 8, 9).unwrap();
        for j in 0..TILE_SIDE {
            assert_eq!(texel_map_point(a, TILE_BORDER + TILE_INTERVALS, j), texel_map_point(b, TILE_BORDER, j));
        }
        let root = TileKey::new(0, 0, 0, 0).unwrap();
        assert_eq!(texel_map_point(root, TILE_BORDER, TILE_BORDER), DVec2::ZERO);
        assert_eq!(texel_map_point(root, TILE_SIDE - 1 - TILE_BORDER, TILE_BORDER), DVec2::X);
    }
}
