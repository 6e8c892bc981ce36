// The bisector pool's control block and its 64-bit arithmetic on (low word, high word) pairs
// (src/pool/gpu.rs; docs/design/bisector-pool.md 3.3). No bindings.
//
//   node id   vec2<u32> (lo, hi), 0 = free slot; depth = index of the leading 1
//   vertex    vec4<u32> (x lo, x hi, y lo, y hi): fixed-point map point, MAP_ONE_64 = 2^62
//   slot s    ids[s], neighbours[3s..3s+3) = (left, right, edge), vertices[3s..3s+3),
//             update[8s..8s+8) = (pattern, child slots x3, survivor, flags, bucket, -)
// Coordinates stay below 2^63, so sums of two and doubles never overflow 64 bits.
//!include shared/pool_constants.wgsl

// Keep in sync with GpuPoolParams in src/pool/gpu.rs.
struct PoolParams {
    // T² in px².
    target_sq_px2: f32,
    // T_eff² in px², written by pool.threshold.
    effective_target_sq_px2: f32,
    // MERGE_RATIO_SQ * T_eff², written by pool.threshold.
    merge_target_sq_px2: f32,
    // No node deeper than this is made.
    max_depth: u32,
    // Depth of the base triangles: merges stop there.
    base_depth: u32,
    // Leaves in pool_list (written by pool.list or pool.order, read by every pass over the leaves).
    leaves: u32,
    // b* of the last split frame.
    threshold_bucket: u32,
    // Compact mode: the leaves of the last frame's draw list, which pool.order reads (written by
    // the frame's bisect or merge: pool.order writes `leaves`).
    last_leaves: u32,
}

// Keep in sync with GpuPoolCounters in src/pool/gpu.rs. Cleared at the start of every frame.
struct PoolCounters {
    wanted_split: atomic<u32>,
    admitted: atomic<u32>,
    capped_by_depth: atomic<u32>,
    capped_by_pool: atomic<u32>,
    threshold_bucket: atomic<u32>,
    slots_allocated: atomic<u32>,
    diamonds_merged: atomic<u32>,
    slots_freed: atomic<u32>,
    max_depth_reached: atomic<u32>,
    leaves: atomic<u32>,
    // Entries of the compact lists by LIST_* (compact mode, shared/pool_bindings.wgsl).
    listed: array<atomic<u32>, 4>,
    // The histogram's sum: the chain costs of every split candidate (classify_split).
    histogram_total: atomic<u32>,
    _pad: u32,
}

struct PoolControl {
    params: PoolParams,
    counters: PoolCounters,
    // Chain costs (slots) of the split candidates per priority bucket.
    histogram: array<atomic<u32>, BUCKET_COUNT>,
    // Per workgroup of 256 leaves: the slots its leaves allocate, then their exclusive prefix.
    group_sums: array<atomic<u32>>,
}

fn id_depth(id: vec2<u32>) -> u32 {
    if (id.y != 0u) {
        return 32u + firstLeadingBit(id.y);
    }
    return firstLeadingBit(id.x);
}

// (id << 1) | bit.
fn id_child(id: vec2<u32>, bit: u32) -> vec2<u32> {
    return vec2<u32>((id.x << 1u) | bit, (id.y << 1u) | (id.x >> 31u));
}

// id >> 1.
fn id_parent(id: vec2<u32>) -> vec2<u32> {
    return vec2<u32>((id.x >> 1u) | (id.y << 31u), id.y >> 1u);
}

// id >> k for k in 0..64.
fn id_shift_right(id: vec2<u32>, k: u32) -> vec2<u32> {
    if (k == 0u) {
        return id;
    }
    if (k >= 32u) {
        return vec2<u32>(id.y >> (k - 32u), 0u);
    }
    return vec2<u32>((id.x >> k) | (id.y << (32u - k)), id.y >> k);
}

fn id_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn id_equal(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x == b.x && a.y == b.y;
}

fn u64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn u64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

// The midpoint (a + b) / 2 of two map points (exact on the grid of every split).
fn point_mid(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(id_parent(u64_add(a.xy, b.xy)), id_parent(u64_add(a.zw, b.zw)));
}

// 2m - a.
fn point_reflect(m: vec4<u32>, a: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(u64_sub(id_child(m.xy, 0u), a.xy), u64_sub(id_child(m.zw, 0u), a.zw));
}

// Vertices of child `bit` of (v0, v1, v2): (v0, m, v1) or (v1, m, v2) (src/pool/cpu.rs).
fn child_vertices(v: array<vec4<u32>, 3>, bit: u32) -> array<vec4<u32>, 3> {
    let m = point_mid(v[0], v[2]);
    if (bit == 0u) {
        return array<vec4<u32>, 3>(v[0], m, v[1]);
    }
    return array<vec4<u32>, 3>(v[1], m, v[2]);
}

// Vertices of the parent of child 0 (a, m, b): (a, b, 2m - a).
fn parent_of_child0_vertices(v: array<vec4<u32>, 3>) -> array<vec4<u32>, 3> {
    return array<vec4<u32>, 3>(v[0], v[2], point_reflect(v[1], v[0]));
}

// Vertices of the parent of child 1 (a, m, b): (2m - b, a, b).
fn parent_of_child1_vertices(v: array<vec4<u32>, 3>) -> array<vec4<u32>, 3> {
    return array<vec4<u32>, 3>(point_reflect(v[1], v[2]), v[0], v[2]);
}

// Vertices of the parent of node `id` whose vertices are `v`.
fn parent_vertices(id: vec2<u32>, v: array<vec4<u32>, 3>) -> array<vec4<u32>, 3> {
    if ((id.x & 1u) == 0u) {
        return parent_of_child0_vertices(v);
    }
    return parent_of_child1_vertices(v);
}
