//! bisector: real-time GPU terrain level of detail. A concurrent binary tree (CBT) on the GPU
//! drives longest-edge bisection (LEB) of the terrain every frame.

pub mod bench;
pub mod cbt;
pub mod cli;
pub mod flat;
pub mod globe;
/// The bottom layer (the `bisector-gpu` crate), under its old path so that `crate::gpu::...` reads as before.
pub use bisector_gpu as gpu;
/// The integer hash of the GPU hash tables (in `bisector-gpu`, which the kernels crate shares).
pub use bisector_gpu::hash;
pub mod input;
pub mod kernels;
pub mod leb;
pub mod pool;
pub mod schedule;
pub mod shaders;
pub mod terrain;
#[cfg(test)]
pub(crate) mod test_rng;
pub mod viewer;
