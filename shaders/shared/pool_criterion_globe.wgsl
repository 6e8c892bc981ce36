// The pool's criterion on the globe (replaces shared/pool_criterion.wgsl in the pool's passes
// when a globe scene draws from the pool, src/globe/pool_scene.rs): the heap's projected-edge or
// data-error criterion (shared/globe_lod.wgsl) on a ball around the slot's triangle,
// camera-relative, 0 where the last drawn frame hid the ball (shared/pool_occlusion.wgsl, at
// @group(1)). Binds the globe's frame at @group(0) @binding(8), the last decode's vertices at
// @binding(9) and the tile cache at @group(2); the pool's target T is the split threshold in px.
//
// Where the ball's vertices come from: globe.pool_decode placed every listed leaf's vertices
// relative to its camera (3 per leaf in drawing order, the data's error bound in the first one's
// w), and the passes of this frame run over the same list. The criterion moves those vertices by
// the camera's motion since (globe.camera_moved_m.xyz, exact in f64 on the CPU, then f32: an error
// of 1e-7 of the motion); the heights and the error are then one frame old, as tiles stream in.
// Where the motion is too large for that (the first frame, a jump: camera_moved_m.w = 0), the
// scene runs the decode again before the update, at this frame's camera, and the motion is 0
// (src/globe/pool_scene.rs `record_update`). So these passes never sample the tile cache for a
// leaf's own vertices: that path held 61 registers a thread in classify_split where reading the
// decode's needs 27 (docs/BENCHMARKS.md run 86).
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/globe_cull.wgsl
//!include shared/pool_globe.wgsl
//!include shared/pool_occlusion.wgsl

@group(0) @binding(8) var<uniform> globe: GlobeFrame;
// globe.pool_decode's camera-relative vertices of the listed leaves (its draw_positions).
@group(0) @binding(9) var<storage, read> pool_decoded: array<vec4<f32>>;

// The position of vertex `vertex` (0..3) of listed leaf `i` at depth `depth`, as the last decode
// placed it, moved to this frame's camera.
fn pool_decoded_vertex(i: u32, depth: u32, vertex: u32) -> vec3<f32> {
    // pool_draw_vertex is its own inverse: vertex k is drawn as corner pool_draw_vertex(depth, k).
    return pool_decoded[3u * i + pool_draw_vertex(depth, vertex)].xyz - globe.camera_moved_m.xyz;
}

// The criterion on ball `b`: 0 when hidden, or when occluded and above the merge threshold (only
// a triangle that would stay split or split is worth the occlusion test).
fn pool_globe_criterion_sq_px2(b: GlobeBound) -> f32 {
    let e = pool_globe_error_sq_px2_of(b);
    let merge = globe.merge_threshold_px * globe.merge_threshold_px;
    if (e > merge && pool_globe_is_occluded(b)) {
        return 0.0;
    }
    return e;
}

// The squared error of listed leaf `i`, in `slot`.
fn pool_leaf_error_sq_px2(i: u32, slot: u32) -> f32 {
    let depth = id_depth(pool_ids[slot]);
    var b = pool_globe_bound_of(
        array<vec3<f32>, 3>(pool_decoded_vertex(i, depth, 0u), pool_decoded_vertex(i, depth, 1u), pool_decoded_vertex(i, depth, 2u)),
    );
    // The data's error bound as the decode found it (0 under the edge criterion).
    b.error_m = pool_decoded[3u * i].w;
    return pool_globe_criterion_sq_px2(b);
}

// The squared error of the parent of listed leaf `i`, in `slot`: an even leaf whose right
// neighbour is its odd sibling (pool.classify_merge asks only those). The parent (a, b, 2m - a)
// of child 0 (a, m, b) has the leaf's first and last vertices and one more, the sibling's last
// (child 1 is (b, m, 2m - a)): in the compact pool's tree order the sibling is the next listed
// leaf, and the decode placed it; else (slot order) it is placed from the tile cache. The
// parent's error bound is found afresh.
fn pool_parent_error_sq_px2(i: u32, slot: u32) -> f32 {
    let id = pool_ids[slot];
    let parent = parent_of_child0_vertices(load_vertices(slot));
    let depth = id_depth(id);
    var third: vec3<f32>;
    let next = i + 1u;
    if (next < pool.params.leaves && pool_list[next] == pool_neighbours[3u * slot + POOL_RIGHT]) {
        third = pool_decoded_vertex(next, depth, 2u);
    } else {
        third = pool_relative_position_m(parent[2], pool_vertex_height_m(parent[2]));
    }
    let p = array<vec3<f32>, 3>(pool_decoded_vertex(i, depth, 0u), pool_decoded_vertex(i, depth, 2u), third);
    return pool_globe_criterion_sq_px2(pool_globe_bound_with_error(parent, p));
}
