// The pool's test criterion: a squared error in px² from the 64-bit node id alone, bit for bit
// the CPU's (src/pool/criterion.rs, whose header gives the formula). Needs shared/pool_types.wgsl
// and shared/hash.wgsl; binds the criterion at @group(0) @binding(8).

// Keep in sync with GpuCriterion in src/pool/criterion.rs.
struct PoolCriterion {
    salt: u32,
    split_share: u32,
    keep_share: u32,
    random_max_depth: u32,
    focus_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // (id lo, id hi, depth, 0) per focus.
    foci: array<vec4<u32>, POOL_MAX_FOCI>,
}

@group(0) @binding(8) var<uniform> criterion: PoolCriterion;

fn pool_hash(id: vec2<u32>) -> u32 {
    return fmix32(fmix32(id.x ^ criterion.salt) ^ id.y);
}

// The error of listed leaf `i` in `slot` (the pool's passes call these two; a scene's criterion
// replaces them, src/pool/gpu_passes.rs SceneCriterion).
fn pool_leaf_error_sq_px2(i: u32, slot: u32) -> f32 {
    return pool_error_sq_px2(pool_ids[slot], load_vertices(slot));
}

// The error of the parent of listed leaf `i` in `slot`.
fn pool_parent_error_sq_px2(i: u32, slot: u32) -> f32 {
    let id = pool_ids[slot];
    return pool_error_sq_px2(id_parent(id), parent_vertices(id, load_vertices(slot)));
}

// The error of node `id` whose triangle is `v` (unused here: the test criterion needs the id alone).
fn pool_error_sq_px2(id: vec2<u32>, v: array<vec4<u32>, 3>) -> f32 {
    let depth = id_depth(id);
    let h = pool_hash(id);
    let h2 = fmix32(h);
    for (var i = 0u; i < criterion.focus_count; i += 1u) {
        let focus = criterion.foci[i];
        if (depth < focus.z && id_equal(id_shift_right(focus.xy, focus.z - depth), id)) {
            return 2.0 + f32(h2 >> 12u);
        }
    }
    let r = h & 0xffffu;
    if (depth < criterion.random_max_depth && r < criterion.split_share) {
        return 1.0 + f32((h2 >> 8u) | 1u);
    }
    if (r < criterion.split_share + criterion.keep_share) {
        return 0.9;
    }
    return 0.1;
}
