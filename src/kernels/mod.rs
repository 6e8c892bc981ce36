//! Diagnostic GPU kernels, each verified against its CPU reference and timed on its own.

pub mod cbt;
pub mod chained_hash;
pub mod closest_pairs;
pub mod compact_hash;
pub mod shift_and;
pub mod tile_table;

/// Most timed repetitions a kernel runs (`--iterations`; more would run for hours).
pub const MAX_ITERATIONS: u32 = 10_000;

pub use crate::gpu::timings::{submit_and_time, submit_and_time_all, TimingMs};
