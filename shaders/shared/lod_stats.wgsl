// A decode pass's LOD statistics (shared/decode.wgsl, globe_pool_decode.wgsl). No bindings.

// Keep in sync with LodStats in src/leb/decode.rs (tests/shaders.rs compares the layouts).
struct LodStats {
    // Bits of the largest f32 projected size in pixels of a visible leaf (non-negative floats
    // order like their bits).
    max_size_px_bits: atomic<u32>,
    // Visible leaves: inside the frustum (and, on the globe, not behind the horizon).
    visible_leaves: atomic<u32>,
    // Visible leaves that want to split but cannot: they are at the tree's max depth.
    capped_leaves: atomic<u32>,
    _pad0: u32,
}
