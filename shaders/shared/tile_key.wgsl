// Tile keys on the GPU: (source, zoom, x, y) packed into two u32 words vec2<u32>(lo, hi), and
// their hash. Mirrors src/globe/cache/tile_key.rs (see its bit layout):
//   lo = x | (zoom + 1) << 27,  hi = y | (source + 1) << 27;  (0, 0) is the empty slot.
//!include shared/hash.wgsl
//!include shared/tile_constants.wgsl

fn tile_key(source: u32, zoom: u32, x: u32, y: u32) -> vec2<u32> {
    return vec2<u32>(x | ((zoom + 1u) << TILE_COORD_BITS), y | ((source + 1u) << TILE_COORD_BITS));
}

fn tile_key_zoom(key: vec2<u32>) -> u32 {
    return (key.x >> TILE_COORD_BITS) - 1u;
}

// The tile one level up (the key must have zoom >= 1): x and y halve, zoom + 1 drops by one.
fn tile_key_parent(key: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(
        ((key.x & TILE_COORD_MASK) >> 1u) | ((key.x & ~TILE_COORD_MASK) - (1u << TILE_COORD_BITS)),
        ((key.y & TILE_COORD_MASK) >> 1u) | (key.y & ~TILE_COORD_MASK),
    );
}


// Keep in sync with tile_hash in src/globe/cache/tile_key.rs.
fn tile_hash(key: vec2<u32>) -> u32 {
    return fmix32(key.x ^ fmix32(key.y));
}
