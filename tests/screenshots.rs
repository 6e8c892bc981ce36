//! Golden screenshots of the procedural terrain, shaded and in wireframe, rendered through the
//! same function as `bisector shot` and compared with NVIDIA FLIP.
//!
//! Threshold: mean FLIP <= 0.005 at 256x256. Measured: 1-level noise on 10% of pixels gives about
//! 0.004; a whole-image shift of one level 0.037; a 32x32 block inverted 0.006 (smooth content) to
//! 0.020 (terrain). References are made on lavapipe; set BISECTOR_UPDATE_GOLDEN=1 to rewrite them.

mod common;
#[path = "support/golden.rs"]
#[allow(dead_code)]
mod golden;

use std::path::Path;

use bisector::render::camera::Camera;
use bisector::render::headless::render_shot;
use bisector::render::RenderSettings;
use bisector::terrain::procedural;
use glam::DVec3;

const THRESHOLD_MEAN_FLIP: f32 = 0.005;

fn check(name: &str, wireframe: bool) {
    let gpu = common::gpu(20);
    let field = procedural::generate(procedural::DEFAULT_SEED, procedural::DEFAULT_SAMPLES, procedural::DEFAULT_SIZE_M);
    let camera = Camera::look_at(DVec3::new(1500.0, 2500.0, 4200.0), DVec3::new(12000.0, 11000.0, 500.0), 50.0);
    let settings = RenderSettings { max_depth: 20, pixel_target_px: 10.0, wireframe, ..Default::default() };
    let shot = render_shot(&gpu, &field, settings, &camera, (256, 256));
    assert!(shot.last.stats.leaves > 1000, "{name}: only {} leaves", shot.last.stats.leaves);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let outcome = golden::compare_golden(&dir, name, &shot.image, THRESHOLD_MEAN_FLIP).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        outcome.passed,
        "{name}: mean FLIP {:.4} > {THRESHOLD_MEAN_FLIP} (max {:.3}); see tests/golden/{name}-actual.png and -diff.png",
        outcome.mean_flip,
        outcome.max_flip
    );
}

#[test]
fn procedural_shaded() {
    check("procedural-shaded", false);
}

#[test]
fn procedural_wireframe() {
    check("procedural-wireframe", true);
}
