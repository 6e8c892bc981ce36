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
/// run 29 and the tile table's idle-clock figures), and 300 ms of full load did not always
/// lift them (run peers-r6: `kernel cbt` at D = 25 timed 3 of 5 iterations at idle clocks after
/// it).
pub const WARM_UP_MS: f64 = 1000.0;
