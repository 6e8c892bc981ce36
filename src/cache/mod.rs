//! The tile cache's GPU hash tables: `tile_key` (the 64-bit tile key and its hash),
//! `tile_table` (key -> atlas slot, owned by the CPU and mirrored to the GPU) and
//! `tile_feedback` (the bounded set of keys shaders missed, filled on the GPU).
//! Residency (LRU), the atlas and the streaming thread come later (the globe issue).

pub mod tile_feedback;
pub mod tile_key;
pub mod tile_layout;
pub mod tile_producer;
pub mod tile_table;
