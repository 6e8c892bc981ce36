// The tile cache's write side: what a frame used and missed, for residency (LRU) and streaming.
// Fragment and compute shaders only (read_write storage):
//   @group(2) @binding(2) tile_feedback    (storage, read_write): the keys missed this frame
//   @group(2) @binding(3) tile_cache_used  (storage, read_write): one bit per atlas slot sampled
// Both are cleared by TileCache::begin_frame and read back after TileCache::end_frame.
//!include shared/tile_cache.wgsl
//!include shared/tile_feedback.wgsl

@group(2) @binding(2) var<storage, read_write> tile_feedback: TileFeedback;
@group(2) @binding(3) var<storage, read_write> tile_cache_used: array<atomic<u32>>;

// Marks `found`'s slot used and, when it is coarser than `wanted_zoom` (clamped to
// TILE_CACHE_MAX_ZOOM), asks for the wanted tile.
fn tile_cache_record(map: vec2<u32>, wanted_zoom: u32, found: TileFound) {
    tile_cache_record_key(tile_cache_wanted_key(map, wanted_zoom), found);
}

// Marks `found`'s slot used and, when it is coarser than the wanted tile `key`
// (tile_cache_wanted_key), asks for that tile. The used bit is set only when not yet set (a load
// instead of an atomic for the common case). A record is a function of `key` alone (`found` is
// tile_lookup_ancestor(key)), so a caller that knows it recorded `key` already may skip it.
fn tile_cache_record_key(key: vec2<u32>, found: TileFound) {
    if (found.slot != TILE_MISS) {
        let w = found.slot >> 5u;
        let bit = 1u << (found.slot & 31u);
        if ((atomicLoad(&tile_cache_used[w]) & bit) == 0u) {
            atomicOr(&tile_cache_used[w], bit);
        }
    }
    if (found.slot == TILE_MISS || found.zoom < tile_key_zoom(key)) {
        tile_feedback_insert(key);
    }
}
