// The bucketed tile table (key -> atlas slot), read-only on the GPU: bucketed cuckoo hashing with
// two choices and buckets of 8 slots, maintained by the CPU (src/kernels/tile_table_bucketed.rs,
// whose BucketedTileTable::lookup and lookup_ancestor this mirrors exactly). The includer binds
//   var<storage, read> tile_buckets: TileBuckets;
// A key sits in its secondary bucket only while its primary is full, so a lookup that meets an
// empty slot in the primary bucket stops there.
//!include shared/tile_key.wgsl

// Mixed into the key's hash for its secondary bucket. Keep in sync with SECONDARY_SALT in
// src/kernels/tile_table_bucketed.rs.
const TILE_BUCKET_SALT: u32 = 0x9e3779b9u;

// Keep in sync with TileBucket in src/kernels/tile_table_bucketed.rs: 96 bytes.
struct TileBucket {
    // Key lo words of the 8 slots, 0 when empty: one 32-byte sector, read as two 16-byte loads.
    lo: array<vec4<u32>, 2>,
    // (key hi, atlas slot) of each slot, two slots per vec4 (hi, value, hi, value): read only
    // where lo matched.
    hi_value: array<vec4<u32>, 4>,
}

// Keep in sync with BucketedTableHeader in src/kernels/tile_table_bucketed.rs: the header takes
// 32 bytes so that every bucket starts on a 32-byte sector.
struct TileBuckets {
    // Buckets - 1 (buckets are a power of two).
    bucket_mask: u32,
    len: u32,
    _pad0: vec2<u32>,
    _pad1: vec4<u32>,
    buckets: array<TileBucket>,
}

// The key's primary bucket (its hash) and secondary (primary xor an odd offset from a second
// hash: another bucket whenever there are two or more).
fn tile_buckets_of(key: vec2<u32>) -> vec2<u32> {
    let h = tile_hash(key);
    let primary = h & tile_buckets.bucket_mask;
    return vec2<u32>(primary, primary ^ ((fmix32(h ^ TILE_BUCKET_SALT) | 1u) & tile_buckets.bucket_mask));
}

// Bit i set where m's component i is true.
fn tile_bucket_bits(m: vec4<bool>) -> u32 {
    let b = select(vec4<u32>(0u), vec4<u32>(1u, 2u, 4u, 8u), m);
    return b.x | b.y | b.z | b.w;
}

struct TileBucketProbe {
    // The key's atlas slot, or TILE_MISS.
    value: u32,
    // The bucket has an empty slot (only computed on a miss).
    has_empty: bool,
}

// Looks for `key` in bucket `b`: the 8 lo words at once, then the (hi, value) pair of each slot
// whose lo word matched.
fn tile_bucket_probe(b: u32, key: vec2<u32>) -> TileBucketProbe {
    let lo0 = tile_buckets.buckets[b].lo[0];
    let lo1 = tile_buckets.buckets[b].lo[1];
    let k = vec4<u32>(key.x);
    var matches = tile_bucket_bits(lo0 == k) | (tile_bucket_bits(lo1 == k) << 4u);
    while (matches != 0u) {
        let i = firstTrailingBit(matches);
        let pair = tile_buckets.buckets[b].hi_value[i >> 1u];
        let entry = select(pair.xy, pair.zw, (i & 1u) == 1u);
        if (entry.x == key.y) {
            return TileBucketProbe(entry.y, false);
        }
        matches &= matches - 1u;
    }
    let zero = vec4<u32>(0u);
    return TileBucketProbe(TILE_MISS, any(lo0 == zero) || any(lo1 == zero));
}

// The atlas slot of `key`, or TILE_MISS: the primary bucket, then the secondary only when the
// primary has neither the key nor an empty slot (at most 2 buckets).
fn tile_bucketed_lookup(key: vec2<u32>) -> u32 {
    let b = tile_buckets_of(key);
    let first = tile_bucket_probe(b.x, key);
    if (first.value != TILE_MISS || first.has_empty) {
        return first.value;
    }
    return tile_bucket_probe(b.y, key).value;
}

struct TileBucketedFound {
    // The atlas slot of the nearest resident tile, TILE_MISS when none (zoom is then 0).
    slot: u32,
    // That tile's zoom.
    zoom: u32,
}

// The nearest resident tile among `key` and its ancestors (at most TILE_MAX_ZOOM + 1 lookups).
fn tile_bucketed_lookup_ancestor(key: vec2<u32>) -> TileBucketedFound {
    var k = key;
    for (var n = 0u; n <= TILE_MAX_ZOOM; n += 1u) {
        let slot = tile_bucketed_lookup(k);
        let zoom = tile_key_zoom(k);
        if (slot != TILE_MISS) {
            return TileBucketedFound(slot, zoom);
        }
        if (zoom == 0u) {
            break;
        }
        k = tile_key_parent(k);
    }
    return TileBucketedFound(TILE_MISS, 0u);
}
