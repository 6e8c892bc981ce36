//! bisector: real-time GPU terrain level of detail. A concurrent binary tree (CBT) on the GPU
//! drives longest-edge bisection (LEB) of the terrain every frame.

pub mod bench;
pub mod cache;
pub mod cbt;
pub mod cli;
pub mod globe;
pub mod gpu;
pub mod hash;
pub mod input;
pub mod kernels;
pub mod leb;
pub mod pool;
pub mod render;
pub mod terrain;
#[cfg(test)]
pub(crate) mod test_rng;
pub mod viewer;
