//! Conforming splits and diamond merges keep the triangulation free of T-junctions at depths up
//! to 24, for random refinement targets (CPU twin; the GPU test shows the GPU equals it).

mod common;

use bisector::cbt::cpu::Cbt;
use bisector::leb::bounds::NodeBounds;
use bisector::leb::conformity::{check_conforming, ConformityError};
use bisector::leb::cpu::{converge, update, UpdateKind, BASE_DEPTH};
use bisector::leb::lod::{Criterion, Lod, LodParams, LodView};
use bisector::terrain::node_bounds;
use common::refine_around_points;
use glam::Vec3;
use rand::Rng;

#[test]
fn random_point_refinement_conforms_up_to_depth_24() {
    let mut rng = common::rng("random_point_refinement_conforms_up_to_depth_24");
    for max_depth in [6, 11, 17, 24] {
        let points: Vec<[f32; 2]> = (0..rng.random_range(1..6)).map(|_| [rng.random(), rng.random()]).collect();
        let cbt = refine_around_points(max_depth, &points);
        let leaves = cbt.leaves();
        assert_eq!(leaves.iter().map(|n| n.depth).max(), Some(max_depth));
        check_conforming(&leaves).unwrap_or_else(|e| panic!("D={max_depth} points {points:?}: {e:?}"));
    }
}

#[test]
fn camera_refinement_and_coarsening_conform_up_to_depth_24() {
    let mut rng = common::rng("camera_refinement_and_coarsening_conform_up_to_depth_24");
    let size_m = 20480.0;
    let mut cbt = Cbt::new(24, BASE_DEPTH);
    // A camera that moves: each step refines towards the new view and coarsens behind it.
    for step in 0..3 {
        let camera = Vec3::new(rng.random_range(0.0..size_m), rng.random_range(0.0..size_m), rng.random_range(0.5..50.0));
        let view = LodView { position_m: camera, clip_from_world: None, fov_y_rad: 1.0, viewport_height_px: 720 };
        let bounds = NodeBounds::flat(10, (0.0, 10.0));
        let params = LodParams::new(&view, Criterion::EdgeLength, rng.random_range(30.0..80.0), size_m, 24, bounds.depths());
        let lod = Lod { params: &params, bounds: &bounds };
        converge(&mut cbt, &lod, 200);
        let leaves = cbt.leaves();
        check_conforming(&leaves).unwrap_or_else(|e| panic!("step {step}: {e:?}"));
        assert_eq!(leaves.iter().map(|n| n.depth).max(), Some(24), "step {step}: the camera at {camera} should reach depth 24");
        // One more of each update changes nothing: converged means a fixed point.
        let mut again = cbt.clone();
        assert!(!update(&mut again, UpdateKind::Split, &lod) && !update(&mut again, UpdateKind::Merge, &lod));
    }
}

#[test]
fn data_driven_refinement_conforms() {
    // The screen-space-error criterion on random relief, from random views that move: the
    // refinement follows the data (deep on rough ground, coarse on flat sea) and never cracks.
    let mut rng = common::rng("data_driven_refinement_conforms");
    let size_m = 20480.0;
    let field = common::random_field(&mut rng, 9, size_m);
    let bounds = node_bounds::build(&field, 19);
    let mut cbt = Cbt::new(24, BASE_DEPTH);
    for step in 0..3 {
        let view = common::random_view(&mut rng, size_m);
        let params = LodParams::new(&view, Criterion::ScreenSpaceError, rng.random_range(1.0..4.0), size_m, 24, bounds.depths());
        let lod = Lod { params: &params, bounds: &bounds };
        let frames = converge(&mut cbt, &lod, 400);
        assert!(frames < 400, "step {step}: no convergence");
        let leaves = cbt.leaves();
        check_conforming(&leaves).unwrap_or_else(|e| panic!("step {step}: {e:?}"));
        assert!(leaves.iter().all(|n| n.depth <= bounds.data_depth), "step {step}: split below the data's resolution");
        let mut again = cbt.clone();
        assert!(!update(&mut again, UpdateKind::Split, &lod) && !update(&mut again, UpdateKind::Merge, &lod));
        eprintln!("step {step}: {} leaves, deepest {:?}", leaves.len(), leaves.iter().map(|n| n.depth).max());
    }
}

#[test]
fn a_lone_split_without_the_chain_is_caught() {
    // The checker itself must fail on a T-junction: split one triangle but not its neighbour.
    let mut cbt = Cbt::new(8, BASE_DEPTH);
    cbt.split(bisector::cbt::cpu::Node::from_id(2));
    cbt.reduce();
    assert!(matches!(check_conforming(&cbt.leaves()), Err(ConformityError::Edge { .. })));
}
