//! Golden screenshots, shaded and in wireframe, of the procedural terrain, Big Tujunga (GeoTIFF,
//! 1025^2 grid) and Taiwan (Terrain-RGB pyramid read at zoom 10, 4097^2 grid), rendered with
//! the screen-space-error criterion through the same function as `bisector shot` and compared
//! with NVIDIA FLIP.
//!
//! Threshold: mean FLIP <= 0.005 at 256x256. Measured: 1-level noise on 10% of pixels gives about
//! 0.004; a whole-image shift of one level 0.037; a 32x32 block inverted 0.006 (smooth content) to
//! 0.020 (terrain). References are made on lavapipe; set BISECTOR_UPDATE_GOLDEN=1 to rewrite them.

mod common;
#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use std::sync::OnceLock;

use bisector::flat::camera::Camera;
use bisector::flat::render_shot;
use bisector::flat::RenderSettings;
use bisector::terrain::{procedural, HeightField, TerrainSpec};
use glam::DVec3;

const THRESHOLD_MEAN_FLIP: f32 = 0.005;

fn check(name: &str, field: &HeightField, camera: &Camera, wireframe: bool) {
    let gpu = common::gpu(20);
    let settings = RenderSettings { max_depth: 24, wireframe, ..Default::default() };
    let shot = render_shot(&gpu, field, settings, camera, (256, 256));
    assert!(shot.last.stats.leaves > 1000, "{name}: only {} leaves", shot.last.stats.leaves);
    golden::assert_golden(name, &shot.image, THRESHOLD_MEAN_FLIP);
}

fn procedural_field() -> &'static HeightField {
    static FIELD: OnceLock<HeightField> = OnceLock::new();
    FIELD.get_or_init(|| procedural::generate(procedural::DEFAULT_SEED, procedural::DEFAULT_SAMPLES, procedural::DEFAULT_SIZE_M))
}

fn procedural_camera() -> Camera {
    Camera::look_at(DVec3::new(1500.0, 2500.0, 4200.0), DVec3::new(12000.0, 11000.0, 500.0), 50.0)
}

fn file_field(relative: &str, max_samples: u32) -> HeightField {
    let spec = TerrainSpec::parse(common::heightmap(relative).to_str().unwrap()).unwrap();
    spec.load(max_samples).unwrap_or_else(|e| panic!("{e}")).field
}

fn bigtujunga() -> &'static HeightField {
    static FIELD: OnceLock<HeightField> = OnceLock::new();
    FIELD.get_or_init(|| file_field("bigtujunga.tif", 1025))
}

fn taiwan_z10() -> &'static HeightField {
    static FIELD: OnceLock<HeightField> = OnceLock::new();
    FIELD.get_or_init(|| file_field("taiwan-terrain-rgb", 4097))
}

fn default_camera(field: &HeightField) -> Camera {
    Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64)
}

#[test]
fn procedural_shaded() {
    check("procedural-shaded", procedural_field(), &procedural_camera(), false);
}

#[test]
fn procedural_wireframe() {
    check("procedural-wireframe", procedural_field(), &procedural_camera(), true);
}

#[test]
fn bigtujunga_shaded() {
    check("bigtujunga-shaded", bigtujunga(), &default_camera(bigtujunga()), false);
}

#[test]
fn bigtujunga_wireframe() {
    check("bigtujunga-wireframe", bigtujunga(), &default_camera(bigtujunga()), true);
}

#[test]
fn taiwan_z10_shaded() {
    check("taiwan-z10-shaded", taiwan_z10(), &default_camera(taiwan_z10()), false);
}

#[test]
fn taiwan_z10_wireframe() {
    check("taiwan-z10-wireframe", taiwan_z10(), &default_camera(taiwan_z10()), true);
}
