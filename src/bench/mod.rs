//! Benchmarks: camera paths, the headless runner and reports.

pub mod globe_path;
mod keyframes;
pub mod memory;
pub mod path;
pub mod quality;
pub mod report;
pub mod run;
mod spline;
