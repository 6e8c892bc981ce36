//! The whole globe (issue 4): LEB over the octahedron's closed base mesh on a sphere of
//! `EARTH_RADIUS_M`, drawn relative to the camera.

pub mod camera;
pub mod earth;
pub mod frame;
pub mod ground;
pub mod headless;
pub mod renderer;
pub mod spec;

/// Earth's mean radius in metres.
pub const EARTH_RADIUS_M: f64 = 6_371_000.0;
