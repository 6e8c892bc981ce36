//! The ground height at a point of the globe on the CPU, from the finest data the tiles hold:
//! `probe --terrain planet...` and globe cameras placed above the ground (`--camera ...,100agl`).

use std::sync::Arc;

use crate::globe::cache::tile_cache::Producer;
use crate::globe::cache::tile_cache::{cpu_height_slope, cpu_wanted_key};
use crate::globe::cache::tile_error::{data_lattice, native_spacing, NativeSpacing};
use crate::globe::cache::tile_generate::{planet_height_m, planet_tile, PLANET_MAX_ZOOM, PLANET_SOURCE};
use crate::globe::cache::tile_producer::TileProducer;
use crate::globe::earth::{texel_step_m, LayeredEarth};
use crate::globe::spec::GlobeSpec;
use crate::leb::octahedral;
use crate::terrain::TerrainError;

/// The data's height at fixed-point map point `map` in the zoom-`zoom` tile whose heights are
/// `layer` and whose data's samples are `spacing` apart (`tile_error::native_spacing`), and the
/// detail below it for a vertex whose pixel spans `pixel_m` metres: [data_m, detail_m].
/// Mirrors tile_detail_sample in shaders/shared/tile_error.wgsl.
pub fn tile_detail_m(layer: &[f32], zoom: u8, spacing: NativeSpacing, map: [u32; 2], pixel_m: f32) -> [f32; 2] {
    let (data_m, slope_m, data_level, first) = detail_inputs(layer, zoom, spacing, map);
    [data_m, crate::globe::detail::detail_m(map, slope_m, data_m, pixel_m, data_level, first)]
}

/// How far the GPU's detail (tile_detail_sample through the tile cache) may be from
/// `tile_detail_m`'s at the same point, in metres: 1e-4 of the detail's amplitude bound there,
/// plus 1e-4 m (tests/globe_data_error.rs holds the GPU to it).
pub fn tile_detail_tolerance_m(layer: &[f32], zoom: u8, spacing: NativeSpacing, map: [u32; 2]) -> f32 {
    let (_, slope_m, data_level, first) = detail_inputs(layer, zoom, spacing, map);
    1e-4 * crate::globe::detail::amplitude_bound_m(slope_m, data_level, first) + 1e-4
}

/// What the detail at `map` reads of its tile: the data's height, its slope in metres per cell
/// of the data's lattice, that lattice's level and the first octave's fraction.
fn detail_inputs(layer: &[f32], zoom: u8, spacing: NativeSpacing, map: [u32; 2]) -> (f32, f32, u32, f32) {
    let (data_m, g) = cpu_height_slope(layer, zoom, map);
    let (data_level, first) = data_lattice(u32::from(zoom), spacing);
    let slope_m = (g[0] * g[0] + g[1] * g[1]).sqrt() / (1u32 << data_level) as f32;
    (data_m, slope_m, data_level, first)
}

/// A globe's heights on the CPU.
#[derive(Clone)]
pub enum Ground {
    /// The procedural planet: the CPU twin of the GPU generator (src/globe/cache/tile_generate.rs).
    Procedural { seed: u32 },
    /// Real data: a global base with regions over it.
    Earth(Arc<LayeredEarth>),
}

/// How far above the drawn surface a camera must be for `shot` and `bench` (the viewer keeps its
/// camera this high).
pub const MIN_CLEARANCE_M: f64 = 1.0;

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

    /// The detail below the data (src/globe/detail.rs) that the renderer adds at (`lon_deg`,
    /// `lat_deg`) seen from up close (every octave), from the finest tile there as the GPU
    /// samples it: its bilinear height and gradient, its octaves from the spacing of the data in
    /// that tile (the producer's `native_cells`). 0 over the sea and where there is no data.
    pub fn detail_m(&self, lon_deg: f64, lat_deg: f64) -> Result<f32, TerrainError> {
        let map = octahedral::to_fixed(octahedral::from_unit_sphere(octahedral::from_lon_lat_deg(lon_deg, lat_deg)));
        let (source, max_zoom) = match self {
            Ground::Procedural { .. } => (PLANET_SOURCE, PLANET_MAX_ZOOM),
            Ground::Earth(earth) => (earth.source(), earth.max_zoom()),
        };
        let key = cpu_wanted_key(source, max_zoom, map, max_zoom as u32);
        let (layer, native_cells) = match self {
            Ground::Procedural { seed } => (planet_tile(key, *seed), 1.0),
            Ground::Earth(earth) => (earth.produce(key)?, earth.native_cells(key)?),
        };
        Ok(tile_detail_m(&layer, key.zoom, native_spacing(native_cells), map, 0.0)[1])
    }

    /// What is wrong, in one line, when `camera` is below the drawn surface (the ground, or sea
    /// level over the sea, as the globe draws the water) or less than `MIN_CLEARANCE_M` above it;
    /// None where it is high enough. Where no layer has data, only the sphere counts.
    pub fn below_surface(&self, camera: &crate::globe::camera::GlobeCamera) -> Result<Option<String>, TerrainError> {
        let (lon_deg, lat_deg) = camera.lon_lat_deg();
        let surface_m = self.height_m(lon_deg, lat_deg)?.map_or(0.0, |h| f64::from(h.max(0.0)));
        let altitude_m = camera.altitude_m();
        Ok((altitude_m < surface_m + MIN_CLEARANCE_M).then(|| {
            let place = if altitude_m < -crate::globe::EARTH_RADIUS_M * 0.5 { ", inside the Earth" } else { "" };
            let position = if altitude_m < surface_m {
                format!("{:.1} m below the surface", surface_m - altitude_m)
            } else {
                format!("only {:.1} m above the surface", altitude_m - surface_m)
            };
            format!(
                "the camera at {lon_deg:.5},{lat_deg:.5} is at {altitude_m:.1} m, {position} there ({surface_m:.1} m){place}; it must be at least {MIN_CLEARANCE_M} m above it (e.g. an altitude of 20agl)"
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
    use crate::globe::cache::tile_generate::PLANET_SOURCE;
    use crate::globe::cache::tile_generate::{planet_direction, tile_texel_map_fixed};
    use crate::globe::cache::tile_key::TileKey;

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
    fn a_globe_camera_below_the_surface_or_too_close_is_named() {
        let ground = Ground::Procedural { seed: 1 };
        for (lon, lat) in [(121.0, 23.5), (-150.0, 0.0), (10.0, 46.5), (-70.0, -33.0)] {
            let surface_m = f64::from(ground.height_m(lon, lat).unwrap().unwrap().max(0.0));
            let camera = |altitude_m: f64| crate::globe::camera::GlobeCamera::at_lon_lat(lon, lat, altitude_m, 0.0, -10.0, 50.0);
            let (lon_back, lat_back) = camera(100.0).lon_lat_deg();
            assert!((lon_back - lon).abs() < 1e-9 && (lat_back - lat).abs() < 1e-9, "{lon},{lat} -> {lon_back},{lat_back}");
            let problem = ground.below_surface(&camera(surface_m - 30.0)).unwrap().expect("30 m below");
            assert!(problem.contains("30.0 m below the surface") && !problem.contains('\n'), "{problem}");
            assert!(ground.below_surface(&camera(surface_m + 0.5)).unwrap().is_some(), "0.5 m above is closer than 1 m");
            assert_eq!(ground.below_surface(&camera(surface_m + 2.0)).unwrap(), None);
            let inside = ground.below_surface(&camera(-5.0e6)).unwrap().expect("inside the Earth");
            assert!(inside.contains("inside the Earth"), "{inside}");
        }
    }
}
