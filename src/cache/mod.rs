//! The tile cache's GPU hash tables: `tile_key` (the 64-bit tile key and its hash),
//! `tile_table` (key -> atlas slot, owned by the CPU and mirrored to the GPU) and
//! `tile_feedback` (the bounded set of keys shaders missed, filled on the GPU).
//! On top of them, the cache itself: `atlas` (a texture array, one layer per slot), `residency`
//! (which tile is in which slot, LRU, pins, requests), `streaming` (loader threads),
//! `tile_generate` (the GPU planet generator, pass `cache.tile_generate`, and its CPU twin) and `tile_cache` (the per-frame flow
//! and the bind group of shaders/shared/tile_cache.wgsl).

pub mod atlas;
pub mod residency;
pub mod streaming;
pub mod tile_cache;
pub mod tile_feedback;
pub mod tile_generate;
pub mod tile_key;
pub mod tile_layout;
pub mod tile_producer;
pub mod tile_table;
