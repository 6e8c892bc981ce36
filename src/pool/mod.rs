//! The bisector pool (issue 15; docs/design/bisector-pool.md): a fixed pool of 2^D slots, each
//! holding one leaf of a longest-edge bisection of the globe's octahedron as a 64-bit node id
//! (`leb::node64`), allocated by the CBT in pool mode (`Cbt::new_pool`). priority.rs holds the
//! back-off arithmetic shared with the GPU (buckets of the squared error's float bits, the
//! threshold bucket, the effective target). Knows nothing of rendering.

pub mod priority;
