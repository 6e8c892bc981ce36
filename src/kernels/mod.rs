//! Diagnostic GPU kernels that measure parts of the renderer (the CBT's reduction and decode, the
//! tile cache's hash table), each verified against its CPU twin and timed on its own. The seed
//! papers' kernels are the crate `bisector-kernels` (crates/kernels).

pub mod cbt;
pub mod pool;
pub mod tile_table;
pub mod tile_table_bucketed;
pub mod tile_table_cuckoo;
pub mod tile_table_packed;

/// Timed runs of a large kernel follow at least this much wall time of untimed ones: a GPU idle
/// while the CPU builds inputs starts at low clocks (345 MHz on the H100 against 1980; BENCHMARKS.md,
/// run 29 and the tile table's idle-clock figures).
pub const WARM_UP_MS: f64 = 300.0;
