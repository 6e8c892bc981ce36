//! The ground height at a point of the globe on the CPU, from the finest data the tiles hold:
//! `probe --terrain planet...` and globe cameras placed above the ground (`--camera ...,100agl`).

use std::sync::Arc;

use crate::cache::tile_cache::Producer;
use crate::cache::tile_generate::{planet_height_m, PLANET_MAX_ZOOM};
use crate::cache::tile_producer::TileProducer;
use crate::globe::earth::{texel_step_m, LayeredEarth};
use crate::globe::spec::GlobeSpec;
use crate::leb::octahedral;
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

    /// A one-line warning when `camera` is below the drawn surface (the ground, or sea level
    /// over the sea, as the globe draws the water); None above it or where no layer has data.
    pub fn below_ground_warning(&self, camera: &crate::globe::camera::GlobeCamera) -> Result<Option<String>, TerrainError> {
        let (lon_deg, lat_deg) = camera.lon_lat_deg();
        let Some(ground_m) = self.height_m(lon_deg, lat_deg)? else { return Ok(None) };
        let (surface_m, altitude_m) = (f64::from(ground_m.max(0.0)), camera.altitude_m());
        Ok((altitude_m < surface_m).then(|| {
            format!(
                "warning: the camera at {lon_deg:.5},{lat_deg:.5} is {:.1} m below the surface ({surface_m:.1} m there, camera at {altitude_m:.1} m): the view shows the globe from beneath",
                surface_m - altitude_m
            )
        }))
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
    use crate::cache::tile_generate::PLANET_SOURCE;
    use crate::cache::tile_generate::{planet_direction, tile_texel_map_fixed};
    use crate::cache::tile_key::TileKey;

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

    #[test]
    fn a_globe_camera_below_the_surface_is_warned_about() {
        let ground = Ground::Procedural { seed: 1 };
        for (lon, lat) in [(121.0, 23.5), (-150.0, 0.0), (10.0, 46.5), (-70.0, -33.0)] {
            let surface_m = f64::from(ground.height_m(lon, lat).unwrap().unwrap().max(0.0));
            let camera = |altitude_m: f64| crate::globe::camera::GlobeCamera::at_lon_lat(lon, lat, altitude_m, 0.0, -10.0, 50.0);
            let (lon_back, lat_back) = camera(100.0).lon_lat_deg();
            assert!((lon_back - lon).abs() < 1e-9 && (lat_back - lat).abs() < 1e-9, "{lon},{lat} -> {lon_back},{lat_back}");
            let warning = ground.below_ground_warning(&camera(surface_m - 30.0)).unwrap().expect("30 m below");
            assert!(warning.contains("below the surface") && !warning.contains('\n'), "{warning}");
            assert_eq!(ground.below_ground_warning(&camera(surface_m + 2.0)).unwrap(), None);
        }
    }
}
