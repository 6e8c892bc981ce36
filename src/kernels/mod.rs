//! Diagnostic GPU kernels, each verified against its CPU reference and timed on its own.

pub mod cbt;
pub mod chained_hash;
