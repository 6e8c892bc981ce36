//! The ground height at a point of the globe on the CPU, from the finest data the tiles hold:
//! `probe --terrain planet...` and globe cameras placed above the ground (`--camera ...,100agl`).

use std::sync::Arc;

use crate::cache::tile_cache::Producer;
use crate::cache::tile_generate::{planet_height_m, PLANET_MAX_ZOOM};
use crate::cache::tile_producer::TileProducer;
use crate::globe::earth::{texel_step_m, LayeredEarth};
use crate::globe::octahedral;
use crate::globe::spec::GlobeSpec;
use crate::terrain::TerrainError;

/// A globe's heights on the CPU.
#[derive(Clone)]
pub enum Ground {
    /// The procedural planet: the CPU twin of the GPU generator (src/cache/tile_generate.rs).
    Procedural { seed: u32 },
    /// Real data: a global base with regions over it.
    Earth(Arc<LayeredEarth>),
}

impl Ground {
    /// Opens the globe `spec` names (real data is read here; errors name the file).
    pub fn open(spec: &GlobeSpec) -> Result<Ground, TerrainError> {
        Ok(match spec {
            GlobeSpec::Procedural { seed } => Ground::Procedural { seed: *seed },
            GlobeSpec::Earth { base, regions } => Ground::Earth(Arc::new(LayeredEarth::open(base, regions)?)),
        })
    }

    /// The height in metres at (`lon_deg`, `lat_deg`) as the finest tiles hold it (procedural:
    /// the generator at PLANET_MAX_ZOOM; real data: the layers at the texel spacing of the
    /// producer's deepest zoom there); None where no layer has data.
    pub fn height_m(&self, lon_deg: f64, lat_deg: f64) -> Result<Option<f32>, TerrainError> {
        let n = octahedral::from_lon_lat_deg(lon_deg, lat_deg);
        let height_m = match self {
            Ground::Procedural { seed } => planet_height_m(n.as_vec3().to_array(), PLANET_MAX_ZOOM as u32, *seed),
            Ground::Earth(earth) => earth.height_at_lon_lat_m(lon_deg, lat_deg, texel_step_m(n, earth.max_zoom()))?,
        };
        Ok((!height_m.is_nan()).then_some(height_m))
    }

    /// Where the tile cache gets this globe's tiles.
    pub fn producer(&self) -> Producer {
        match self {
            Ground::Procedural { seed } => Producer::Procedural { seed: *seed },
            Ground::Earth(earth) => Producer::Cpu(earth.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::tile_generate::{planet_direction, tile_texel_map_fixed};
    use crate::cache::tile_key::TileKey;
    use crate::cache::tile_generate::PLANET_SOURCE;

    #[test]
    fn the_procedural_ground_is_the_generators_height_at_its_texels() {
        let ground = Ground::Procedural { seed: 1 };
        // A texel of a zoom-14 tile, as the GPU generator computes it, read back by lon/lat.
        let key = TileKey::new(PLANET_SOURCE, PLANET_MAX_ZOOM, 5000, 7000).unwrap();
        let d = planet_direction(tile_texel_map_fixed(key, 40, 70));
        let (lon, lat) = octahedral::lon_lat_deg(glam::Vec3::from(d).as_dvec3());
        let generated = planet_height_m(d, PLANET_MAX_ZOOM as u32, 1);
        let probed = ground.height_m(lon, lat).unwrap().unwrap();
        // The same function of the direction; the directions differ in the last f32 bits.
        assert!((probed - generated).abs() < 0.05, "{probed} vs {generated}");
    }
}
