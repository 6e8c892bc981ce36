//! The bisector pool (issue 15; docs/design/bisector-pool.md): a fixed pool of 2^D slots, each
//! holding one leaf of a longest-edge bisection of the globe's octahedron as a 64-bit node id
//! (`leb::node64`), its exact fixed-point map vertices and the slots of its three neighbours; the
//! CBT in pool mode (`Cbt::new_pool`) allocates the slots (bitfield bit i set = slot i used).
//!
//! ```text
//! slot s: id (0 = free), vertices (v0, v1, v2) with MAP_ONE_64 = 1.0,
//!         neighbours [left, right, edge] = slots of the leaves across (v0,v1), (v1,v2), (v2,v0)
//!         (NO_SLOT on an open mesh's border); across a leg the leaf is as deep or one level
//!         finer, across the hypotenuse as deep or one level coarser, and always edge to edge.
//! split frame: classify -> threshold -> mark -> allocate -> bisect -> fix-up -> reduce -> list
//! merge frame: classify -> elect -> merge -> fix-up -> reduce -> list
//! ```
//! `PoolTwin` (cpu.rs) is the exact CPU model of the GPU passes, one function per pass
//! (split.rs, merge.rs), each reading a snapshot of the state where the GPU reads the current
//! buffer; priority.rs holds the back-off arithmetic shared with the GPU (buckets of the squared
//! error's float bits, the threshold bucket, the effective target) and validate.rs the invariant
//! checks. Knows nothing of rendering.

pub mod cpu;
pub mod criterion;
pub mod gpu;
mod gpu_passes;
mod merge;
pub mod priority;
mod split;
mod validate;

#[cfg(test)]
mod tests;

pub use cpu::{FrameStats, PoolState, PoolTwin, SplitCandidate};
pub use criterion::TestCriterion;
pub use gpu::{GpuPool, PoolMode, PoolSettings};
pub use gpu_passes::SceneCriterion;
