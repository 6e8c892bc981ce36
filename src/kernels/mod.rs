//! Diagnostic GPU kernels that measure parts of the renderer (the CBT's reduction and decode, the
//! tile cache's hash table), each verified against its CPU twin and timed on its own. The seed
//! papers' kernels are the crate `bisector-kernels` (crates/kernels).

pub mod cbt;
pub mod pool;
pub mod tile_table;
pub mod tile_table_bucketed;
pub mod tile_table_cuckoo;
pub mod tile_table_packed;
