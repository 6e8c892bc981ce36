// kernel.tile_table_bucketed (subgroup variant): lookups in the bucketed tile table with 8 lanes
// of a subgroup per query, lane i reading slot i of the bucket (the 8 lo words as one coalesced
// 32-byte read, then the matching lane's (hi, value) pair), votes by subgroupBallot. Same answers
// as tile_bucketed_lookup. Needs subgroups of a multiple of 8 lanes (the Rust side checks).
//!include shared/dispatch.wgsl
//!include shared/tile_table_bucketed.wgsl

@group(0) @binding(0) var<storage, read> tile_buckets: TileBuckets;
@group(0) @binding(2) var<storage, read> queries: array<vec2<u32>>;
// The atlas slot or TILE_MISS per query.
@group(0) @binding(3) var<storage, read_write> slots_found: array<u32>;

// Dispatched with 8 threads per query. Every lane runs both rounds and every vote (subgroup
// operations need the whole subgroup); lanes whose query is answered or absent vote false.
@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup_subgroup(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    let q = (dispatch_group_index(group) * WORKGROUP_SIZE + subgroup * size + lane) >> 3u;
    let slot = lane & 7u;
    // This lane's group of 8 within the ballot's words.
    let word = lane >> 5u;
    let shift = lane & 24u;
    var done = q >= arrayLength(&queries);
    var key = vec2<u32>(0u);
    if (!done) {
        key = queries[q];
    }
    let buckets = tile_buckets_of(key);
    var value = TILE_MISS;
    for (var round = 0u; round < 2u; round += 1u) {
        let b = select(buckets.x, buckets.y, round == 1u);
        var lo = 1u;
        var mine = TILE_MISS;
        if (!done) {
            lo = tile_buckets.buckets[b].lo[slot >> 2u][slot & 3u];
            if (lo == key.x) {
                let pair = tile_buckets.buckets[b].hi_value[slot >> 1u];
                let entry = select(pair.xy, pair.zw, (slot & 1u) == 1u);
                if (entry.x == key.y) {
                    mine = entry.y;
                }
            }
        }
        let hits = (subgroupBallot(mine != TILE_MISS)[word] >> shift) & 0xffu;
        let empties = (subgroupBallot(lo == 0u)[word] >> shift) & 0xffu;
        let source = select(lane, (lane & ~7u) + firstTrailingBit(hits), hits != 0u);
        let found = subgroupShuffle(mine, source);
        if (!done && hits != 0u) {
            value = found;
        }
        done = done || hits != 0u || empties != 0u;
    }
    if (q < arrayLength(&queries) && slot == 0u) {
        slots_found[q] = value;
    }
}
