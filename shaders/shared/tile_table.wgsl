// The tile table (key -> atlas slot), read-only on the GPU: open addressing with linear probing
// in Robin Hood order (each slot stores its entry's displacement), maintained by the CPU (src/globe/cache/tile_table.rs, whose TileTable::lookup and lookup_ancestor
// this mirrors exactly). The includer binds the table as
//   var<storage, read> tile_table: TileTable;
// (one buffer: the header, then the slots). No tombstones: removals shift entries back.
//!include shared/tile_key.wgsl

// Keep in sync with TileTableHeader and TileSlot in src/globe/cache/tile_table.rs.
struct TileTable {
    // Slots, a power of two.
    capacity: u32,
    // Largest displacement of a present key: a lookup examines at most max_probe + 1 slots.
    max_probe: u32,
    len: u32,
    _pad: u32,
    // x = key lo, y = key hi, z = atlas slot, w = displacement from the key's home slot;
    // key (0, 0) = empty.
    slots: array<vec4<u32>>,
}

// The atlas slot of `key`, or TILE_MISS. Probes from the key's home slot until the key, an
// empty slot, an entry displaced less than the probe distance (Robin Hood order: the key would
// sit before it), or max_probe + 1 slots (so it ends even in a full table).
fn tile_table_lookup(key: vec2<u32>) -> u32 {
    let mask = tile_table.capacity - 1u;
    var i = tile_hash(key) & mask;
    for (var n = 0u; n <= tile_table.max_probe; n += 1u) {
        let slot = tile_table.slots[i];
        if (slot.x == key.x && slot.y == key.y) {
            return slot.z;
        }
        if (slot.x == 0u || slot.w < n) {
            return TILE_MISS;
        }
        i = (i + 1u) & mask;
    }
    return TILE_MISS;
}

struct TileFound {
    // The atlas slot of the nearest resident tile, TILE_MISS when none (zoom is then 0).
    slot: u32,
    // That tile's zoom: the sampler scales its coordinates by 2^(key zoom - zoom).
    zoom: u32,
}

// The nearest resident tile among `key` and its ancestors (at most TILE_MAX_ZOOM + 1 lookups).
fn tile_lookup_ancestor(key: vec2<u32>) -> TileFound {
    var k = key;
    for (var n = 0u; n <= TILE_MAX_ZOOM; n += 1u) {
        let slot = tile_table_lookup(k);
        let zoom = tile_key_zoom(k);
        if (slot != TILE_MISS) {
            return TileFound(slot, zoom);
        }
        if (zoom == 0u) {
            break;
        }
        k = tile_key_parent(k);
    }
    return TileFound(TILE_MISS, 0u);
}
