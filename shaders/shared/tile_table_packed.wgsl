// The packed tile table (key -> atlas slot), read-only on the GPU: partial-key cuckoo hashing with
// two choices and buckets of 4 slots of 8 bytes (one 32-byte sector), maintained by the CPU
// (src/kernels/tile_table_packed.rs, whose PackedTileTable::lookup and lookup_ancestor this mirrors
// exactly; its module comment gives the slot layout). The includer binds
//   var<storage, read> tile_packed: TilePackedTable;
// A key is encoded in 60 bits and permuted (a Feistel network on two 30-bit halves); the low k
// bits pick the primary bucket and the other 60 - k bits, the remainder r, are what a slot stores,
// so the key is exact. A key sits in its alternate bucket only while its primary is full, so a
// lookup that meets an empty slot in the primary bucket stops there.
//!include shared/tile_key.wgsl

// The Feistel network's round keys and the alternate offset's salt. Keep in sync with ROUND_KEYS
// and OFFSET_SALT in src/kernels/tile_table_packed.rs.
const TILE_PACKED_KEY0: u32 = 0x9e3779b9u;
const TILE_PACKED_KEY1: u32 = 0x7f4a7c15u;
const TILE_PACKED_KEY2: u32 = 0xf39cc060u;
const TILE_PACKED_KEY3: u32 = 0x5cedc834u;
const TILE_PACKED_SALT: u32 = 0x165667b1u;
const TILE_PACKED_HALF_MASK: u32 = 0x3fffffffu;

// Keep in sync with PackedBucket in src/kernels/tile_table_packed.rs: 32 bytes, slot s is the
// 64-bit word hi[s] << 32 | lo[s]. Read as two 16-byte loads.
struct TilePackedBucket {
    lo: vec4<u32>,
    hi: vec4<u32>,
}

// Keep in sync with PackedTableHeader in src/kernels/tile_table_packed.rs: 32 bytes, so that every
// bucket starts on a 32-byte sector.
struct TilePackedTable {
    // Buckets - 1 (buckets are a power of two).
    bucket_mask: u32,
    // k: log2 of the buckets.
    bucket_bits: u32,
    len: u32,
    _pad0: u32,
    _pad1: vec4<u32>,
    buckets: array<TilePackedBucket>,
}

fn tile_packed_round(half: u32, round_key: u32) -> u32 {
    return fmix32(half ^ round_key) & TILE_PACKED_HALF_MASK;
}

// The key as 60 bits, source << 55 | 1 << 2 zoom | x << zoom | y, permuted by 4 Feistel rounds:
// (high 30 bits, low 30 bits). Mirrors encode and permute.
fn tile_packed_permute(key: vec2<u32>) -> vec2<u32> {
    let z = tile_key_zoom(key);
    let a = (1u << z) | (key.x & TILE_COORD_MASK);
    let e_lo = (a << z) | (key.y & TILE_COORD_MASK);
    // a >> (32 - z), 0 at zoom 0 (a shift by 32 would be a shift by 0).
    let e_hi = ((a >> 1u) >> (31u - z)) | (((key.y >> TILE_COORD_BITS) - 1u) << 23u);
    var l = (e_hi << 2u) | (e_lo >> 30u);
    var r = e_lo & TILE_PACKED_HALF_MASK;
    var t = l ^ tile_packed_round(r, TILE_PACKED_KEY0);
    l = r;
    r = t;
    t = l ^ tile_packed_round(r, TILE_PACKED_KEY1);
    l = r;
    r = t;
    t = l ^ tile_packed_round(r, TILE_PACKED_KEY2);
    l = r;
    r = t;
    t = l ^ tile_packed_round(r, TILE_PACKED_KEY3);
    return vec2<u32>(r, t);
}

// What a lookup of one key needs.
struct TilePackedQuery {
    primary: u32,
    // The remainder r = h >> k as (lo, hi) words.
    r: vec2<u32>,
    // The slot's low 61 - k bits for the key in its primary bucket (flag 0) as (lo, hi) words;
    // in its alternate bucket the lo word has bit 0 set.
    tag: vec2<u32>,
    // The tag's bits in a slot's hi word, and where the value field (atlas slot + 1) starts.
    hi_mask: u32,
    value_shift: u32,
}

fn tile_packed_query(key: vec2<u32>) -> TilePackedQuery {
    let h = tile_packed_permute(key);
    let k = tile_packed.bucket_bits;
    let r = vec2<u32>((h.x << (30u - k)) | (h.y >> k), h.x >> (2u + k));
    let value_shift = 29u - k;
    return TilePackedQuery(
        h.y & tile_packed.bucket_mask,
        r,
        vec2<u32>(r.x << 1u, (r.y << 1u) | (r.x >> 31u)),
        (1u << value_shift) - 1u,
        value_shift,
    );
}

// The alternate bucket's offset from the primary for remainder r (odd). Mirrors offset_of.
fn tile_packed_offset(r: vec2<u32>) -> u32 {
    return (fmix32(r.x ^ fmix32(r.y ^ TILE_PACKED_SALT)) | 1u) & tile_packed.bucket_mask;
}

struct TilePackedProbe {
    // The key's atlas slot, or TILE_MISS.
    value: u32,
    // The bucket has an empty slot.
    has_empty: bool,
}

// Looks for `tag` in a bucket: the 4 slots compared at once. An empty slot (all zero) may match
// the tag but has value field 0, which adds nothing; value - 1 wraps 0 to TILE_MISS.
fn tile_packed_probe_bucket(bucket: TilePackedBucket, tag: vec2<u32>, q: TilePackedQuery) -> TilePackedProbe {
    let values = bucket.hi >> vec4<u32>(q.value_shift);
    let m = (bucket.lo == vec4<u32>(tag.x)) & ((bucket.hi & vec4<u32>(q.hi_mask)) == vec4<u32>(tag.y));
    let v = select(vec4<u32>(0u), values, m);
    return TilePackedProbe((v.x | v.y | v.z | v.w) - 1u, any(values == vec4<u32>(0u)));
}

// The atlas slot of `key`, or TILE_MISS: the primary bucket, then the alternate only when the
// primary has neither the key nor an empty slot (one sector, at most two).
fn tile_packed_lookup(key: vec2<u32>) -> u32 {
    let q = tile_packed_query(key);
    let first = tile_packed_probe_bucket(tile_packed.buckets[q.primary], q.tag, q);
    if (first.value != TILE_MISS || first.has_empty) {
        return first.value;
    }
    let alternate = q.primary ^ tile_packed_offset(q.r);
    return tile_packed_probe_bucket(tile_packed.buckets[alternate], vec2<u32>(q.tag.x | 1u, q.tag.y), q).value;
}

struct TilePackedFound {
    // The atlas slot of the nearest resident tile, TILE_MISS when none (zoom is then 0).
    slot: u32,
    // That tile's zoom.
    zoom: u32,
}

// The nearest resident tile among `key` and its ancestors (at most TILE_MAX_ZOOM + 1 lookups).
fn tile_packed_lookup_ancestor(key: vec2<u32>) -> TilePackedFound {
    var k = key;
    for (var n = 0u; n <= TILE_MAX_ZOOM; n += 1u) {
        let slot = tile_packed_lookup(k);
        let zoom = tile_key_zoom(k);
        if (slot != TILE_MISS) {
            return TilePackedFound(slot, zoom);
        }
        if (zoom == 0u) {
            break;
        }
        k = tile_key_parent(k);
    }
    return TilePackedFound(TILE_MISS, 0u);
}
