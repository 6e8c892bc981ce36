//! Concurrent binary tree: the CPU twin and the GPU heap with its passes (reduce, args, ops, changed blocks).
//! Knows nothing of triangles or terrain.

pub mod args;
pub mod changed;
pub mod cpu;
pub mod gpu;
pub mod ops;
pub mod reduce;
