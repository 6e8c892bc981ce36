// globe.pool_decode: the globe drawn from the bisector pool (src/globe/pool_scene.rs). One thread
// per used slot of pool.list (the pool's leaves, listed by the frame's pool.order): tells the tile
// cache which tiles the visible leaves use and miss (as globe.decode does), places its three
// vertices relative to the camera for the draw (`draw_positions`), measures visible
// leaves, their largest projected hypotenuse and those that still want to split (LodStats'
// capped_leaves, reported as pending_split_leaves: those the pool or its max depth refused, and
// those the next split frame will split; not those the last frame hid, shared/pool_occlusion.wgsl
// at @group(1)), the deepest leaf; thread 0 writes the
// draw's arguments (3 vertices per leaf) and the leaf count into the tree's FrameStats. Beside
// them, the near-edge statistics (shared/near_edges.wgsl) of every leaf into `near_edges` (through
// the workgroup's bins: add_near_edges), in the pipeline built with NEAR_EDGES (the frames someone
// reads them: GlobePoolRenderer::near_edge_interval_frames); the other leaves `near_edges` as it
// was.
// Each vertex is sampled once per workgroup (tile lookup, height, detail: most of the pass's
// work). A vertex's sample is a function of its 32-bit map point alone, so the leaves sharing it
// agree: the workgroup's corners go into a table in workgroup memory keyed by map point, the
// first corner of each point samples it, and the others read its sample. In the compact pool's
// tree order (pool_order.wgsl) a workgroup's 256 leaves have about 0.2 distinct points per
// corner, where slot order had 0.8.
//!include shared/pool_types.wgsl
//!include shared/dispatch.wgsl
//!include shared/frame.wgsl
//!include shared/lod_stats.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/tile_cache_record.wgsl
//!include shared/globe_cull.wgsl
//!include shared/pool_globe.wgsl
//!include shared/globe_tile_requests.wgsl
//!include shared/near_edges.wgsl
//!include shared/pool_occlusion.wgsl

@group(0) @binding(0) var<storage, read> pool_list: array<u32>;
@group(0) @binding(1) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> pool_vertices: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> globe: GlobeFrame;
@group(0) @binding(4) var<storage, read_write> lod_stats: LodStats;
// (vertex count, instance count, first vertex, first instance) of the draw.
@group(0) @binding(5) var<storage, read_write> draw_args: array<u32, 4>;
@group(0) @binding(6) var<storage, read_write> stats: FrameStats;
// pool.control's first words: PoolParams (the leaf count is word 5).
@group(0) @binding(7) var<storage, read> pool_params: array<u32, 8>;
// The near edges' histogram, count and minimum (src/globe/near_edges.rs).
@group(0) @binding(8) var<storage, read_write> near_edges: NearEdges;
// Each listed leaf's three vertices, camera-relative, in drawing order (globe.pool_draw's; the
// pool's criterion reads them next frame, the data's error bound in the first one's w).
@group(0) @binding(9) var<storage, read_write> draw_positions: array<vec4<f32>>;

// Whether this pipeline fills `near_edges` (GlobePoolRenderer builds one of each).
override NEAR_EDGES: bool = true;
// Whether this pipeline samples the data's error bound (--lod error) for the next frame's
// criterion and counts the leaves that want to split. Only a split frame's classify reads the
// bound, and a split frame follows a merge frame: a split frame's own decode leaves it out
// (GlobePoolRenderer::record_decode_for), the error tile's record with it, and LodStats'
// capped_leaves as the last decode counted them.
override ERROR_SAMPLE: bool = true;

var<workgroup> wg_max_depth: atomic<u32>;
var<workgroup> wg_max_size_bits: atomic<u32>;
var<workgroup> wg_visible: atomic<u32>;
var<workgroup> wg_capped: atomic<u32>;

// The workgroup's vertex table: open addressing over VERTEX_TABLE entries, each 0 or 1 + the
// corner (3 x thread + k) that first inserted its map point.
const CORNERS: u32 = 3u * WORKGROUP_SIZE;
const VERTEX_TABLE: u32 = 1024u;
var<workgroup> wg_vertex_owner: array<atomic<u32>, VERTEX_TABLE>;
// Each corner's map point; an owning corner's entry then holds its sample (vertex_sample_packed).
var<workgroup> wg_corner: array<vec2<u32>, CORNERS>;
// The owning corners, in the order they claimed their points, and their count.
var<workgroup> wg_owners: array<u32, CORNERS>;
var<workgroup> wg_owner_count: atomic<u32>;

// The corner that owns map point `key` (its own `corner` when it is the first): the table is
// never full (CORNERS < VERTEX_TABLE), so the probe ends.
fn vertex_owner(corner: u32, key: vec2<u32>) -> u32 {
    var h = ((key.x * 0x9e3779b1u) ^ (key.y * 0x85ebca77u)) >> 22u;
    loop {
        let r = atomicCompareExchangeWeak(&wg_vertex_owner[h], 0u, corner + 1u);
        if (r.exchanged) {
            let k = atomicAdd(&wg_owner_count, 1u);
            wg_owners[k] = corner;
            return corner;
        }
        if (r.old_value != 0u) {
            let other = r.old_value - 1u;
            if (all(wg_corner[other] == key)) {
                return other;
            }
            h = (h + 1u) & (VERTEX_TABLE - 1u);
        }
    }
    return corner;
}

// A VertexSample in two words: the height's bits, then the found slot (17 bits, all ones for
// TILE_MISS; atlas slots are fewer than 2^16), the found zoom and the wanted zoom (5 bits each).
const PACKED_MISS: u32 = 0x1ffffu;

fn vertex_sample_packed(s: VertexSample) -> vec2<u32> {
    let slot = select(s.found.slot & PACKED_MISS, PACKED_MISS, s.found.slot == TILE_MISS);
    return vec2<u32>(bitcast<u32>(s.height_m), slot | (s.found.zoom << 17u) | (s.wanted_zoom << 22u));
}

fn vertex_sample_unpacked(p: vec2<u32>) -> VertexSample {
    let slot = p.y & PACKED_MISS;
    let found = TileFound(select(slot, TILE_MISS, slot == PACKED_MISS), (p.y >> 17u) & 31u);
    return VertexSample(bitcast<f32>(p.x), p.y >> 22u, found);
}

// Whether wanted tile `k` is one of a leaf's vertices' `key`.
fn leaf_key_recorded(k: vec2<u32>, key: array<vec2<u32>, 3>) -> bool {
    return all(k == key[0]) || all(k == key[1]) || all(k == key[2]);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    let leaves = pool_params[5];
    if (i == 0u) {
        draw_args[0] = 3u * leaves;
        draw_args[1] = 1u;
        draw_args[2] = 0u;
        draw_args[3] = 0u;
        stats.leaves = leaves;
        stats.overflow = 0u;
        stats.capacity = arrayLength(&pool_list);
    }
    // A dispatch of one thread per slot (GpuPool::dispatch_over_leaves) has workgroups past the
    // last leaf: nothing to do there, not even the statistics' atomics (`leaves` is uniform: a
    // read-only buffer).
    if (dispatch_group_index(group) * WORKGROUP_SIZE >= leaves) {
        return;
    }
    // The vertex table: each corner's map point, its owner, then one sample per owner.
    let live = i < leaves;
    var slot = 0u;
    // The leaf's near edges (near_edge_lengths), added to the histogram at the end.
    var near = vec4<f32>(0.0);
    var v = array<vec4<u32>, 3>();
    var m = array<vec2<u32>, 3>();
    if (live) {
        slot = pool_list[i];
        v = array<vec4<u32>, 3>(pool_vertices[3u * slot], pool_vertices[3u * slot + 1u], pool_vertices[3u * slot + 2u]);
        m = array<vec2<u32>, 3>(pool_map32(v[0]), pool_map32(v[1]), pool_map32(v[2]));
        wg_corner[3u * local] = m[0];
        wg_corner[3u * local + 1u] = m[1];
        wg_corner[3u * local + 2u] = m[2];
    }
    workgroupBarrier();
    var owners = vec3<u32>(0u);
    if (live) {
        owners = vec3<u32>(vertex_owner(3u * local, m[0]), vertex_owner(3u * local + 1u, m[1]), vertex_owner(3u * local + 2u, m[2]));
    }
    workgroupBarrier();
    let owned = atomicLoad(&wg_owner_count);
    for (var k = local; k < owned; k += WORKGROUP_SIZE) {
        let corner = wg_owners[k];
        wg_corner[corner] = vertex_sample_packed(globe_vertex_sample(wg_corner[corner]));
    }
    workgroupBarrier();
    if (live) {
        // The vertices are loaded again rather than kept through the samples, and each value is
        // used as soon as it is ready (the vertices' tile records before the data's error sample,
        // the last two corners written before it): fewer registers live at the pass's busiest
        // point, so more workgroups fit on an SM (docs/BENCHMARKS.md run 86).
        v = array<vec4<u32>, 3>(pool_vertices[3u * slot], pool_vertices[3u * slot + 1u], pool_vertices[3u * slot + 2u]);
        m = array<vec2<u32>, 3>(pool_map32(v[0]), pool_map32(v[1]), pool_map32(v[2]));
        let depth = id_depth(pool_ids[slot]);
        atomicMax(&wg_max_depth, depth);
        // The heights, and the tiles they sampled (recorded below without a second lookup).
        let s = array<VertexSample, 3>(
            vertex_sample_unpacked(wg_corner[owners.x]),
            vertex_sample_unpacked(wg_corner[owners.y]),
            vertex_sample_unpacked(wg_corner[owners.z]),
        );
        let p = pool_relative_positions_m(v, vec3<f32>(s[0].height_m, s[1].height_m, s[2].height_m));
        var b = pool_globe_bound_of(p);
        // Odd depths reverse the corners (pool_draw_vertex), written out: an array indexed at run
        // time may go to local memory. The first corner is written last, with the error bound.
        let flip = pool_draw_vertex(depth, 0u) == 2u;
        let first_corner = select(p[0], p[2], flip);
        draw_positions[3u * i + 1u] = vec4<f32>(p[1], 1.0);
        draw_positions[3u * i + 2u] = vec4<f32>(select(p[2], p[0], flip), 1.0);
        if (NEAR_EDGES) {
            near = near_edge_lengths(m, p);
        }
        // The tiles this leaf wants, recorded once each: its vertices', its centre's and the data
        // error's are most often one tile (tiles span 128 px or more, a small leaf a few), and a
        // record is an atomic load in L2. A record is a function of the wanted key alone
        // (tile_cache_record_key), and the vertices' keys found `s[k].found`.
        let key = array<vec2<u32>, 3>(
            tile_cache_wanted_key(m[0], s[0].wanted_zoom),
            tile_cache_wanted_key(m[1], s[1].wanted_zoom),
            tile_cache_wanted_key(m[2], s[2].wanted_zoom),
        );
        let visible = !globe_is_hidden(b);
        // A visible leaf within LARGE_LEAF_PX (globe_request_leaf_tiles' small case).
        var small = false;
        if (visible) {
            let projected_px = globe_projected_px(b);
            small = !(projected_px > LARGE_LEAF_PX);
            if (small) {
                // globe_request_leaf_tiles' small case: the vertices' tiles as sampled, the centre's.
                tile_cache_record_key(key[0], s[0].found);
                if (any(key[1] != key[0])) {
                    tile_cache_record_key(key[1], s[1].found);
                }
                if (any(key[2] != key[0]) && any(key[2] != key[1])) {
                    tile_cache_record_key(key[2], s[2].found);
                }
                let centre = globe_leaf_centre(m);
                let centre_key = tile_cache_wanted_key(centre, globe_vertex_zoom(centre));
                if (!leaf_key_recorded(centre_key, key)) {
                    tile_cache_record_key(centre_key, tile_lookup_ancestor(centre_key));
                }
            } else {
                globe_request_leaf_tiles(m, true);
            }
            atomicMax(&wg_max_size_bits, bitcast<u32>(projected_px));
            atomicAdd(&wg_visible, 1u);
        }
        if (ERROR_SAMPLE && globe.criterion == GLOBE_CRITERION_ERROR) {
            // globe_data_error_m, and globe_request_error_tile as sampled; a vertex's tile is
            // found (and recorded, when visible and small) already.
            let error_key = globe_data_error_key(m, globe_nearest_m(b));
            var found = s[0].found;
            if (all(error_key == key[1])) {
                found = s[1].found;
            } else if (all(error_key == key[2])) {
                found = s[2].found;
            } else if (any(error_key != key[0])) {
                found = tile_lookup_ancestor(error_key);
            }
            b.error_m = globe_data_error_found_m(m, found);
            if (visible && !(small && leaf_key_recorded(error_key, key))) {
                tile_cache_record_key(error_key, found);
            }
        }
        // The first corner's w holds the data's error bound, for the next frame's pool criterion
        // (shared/pool_criterion_globe.wgsl); the draw reads xyz.
        draw_positions[3u * i] = vec4<f32>(first_corner, b.error_m);
        if (ERROR_SAMPLE && visible && globe_criterion_px(b) > globe.split_threshold_px && !pool_globe_is_occluded(b)) {
            atomicAdd(&wg_capped, 1u);
        }
    }
    workgroupBarrier();
    if (local == 0u) {
        atomicMax(&stats.max_depth, atomicLoad(&wg_max_depth));
        atomicMax(&lod_stats.max_size_px_bits, atomicLoad(&wg_max_size_bits));
        atomicAdd(&lod_stats.visible_leaves, atomicLoad(&wg_visible));
        if (ERROR_SAMPLE) {
            atomicAdd(&lod_stats.capped_leaves, atomicLoad(&wg_capped));
        }
    }
    if (NEAR_EDGES) {
        add_near_edges(local, near);
    }
}

// The workgroup's near edges into `near_edges`: bins in the vertex table's workgroup memory (no
// longer read once every thread passed the barrier above), then one global atomic per non-empty
// bin. The count and the minimum take the two entries after the bins (NEAR_EDGE_BINS + 2 = 434
// of the table's VERTEX_TABLE = 1024).
const WG_NEAR_COUNT: u32 = NEAR_EDGE_BINS;
const WG_NEAR_MIN: u32 = NEAR_EDGE_BINS + 1u;

fn add_near_edges(local: u32, near: vec4<f32>) {
    for (var k = local; k <= WG_NEAR_MIN; k += WORKGROUP_SIZE) {
        atomicStore(&wg_vertex_owner[k], 0u);
    }
    workgroupBarrier();
    if (near.w > 0.0) {
        atomicAdd(&wg_vertex_owner[near_edge_bin(near.x)], 1u);
        atomicAdd(&wg_vertex_owner[near_edge_bin(near.y)], 1u);
        atomicAdd(&wg_vertex_owner[near_edge_bin(near.z)], 1u);
        atomicAdd(&wg_vertex_owner[WG_NEAR_COUNT], 3u);
        atomicMax(&wg_vertex_owner[WG_NEAR_MIN], ~bitcast<u32>(min(min(near.x, near.y), near.z)));
    }
    workgroupBarrier();
    for (var k = local; k < NEAR_EDGE_BINS; k += WORKGROUP_SIZE) {
        let n = atomicLoad(&wg_vertex_owner[k]);
        if (n != 0u) {
            atomicAdd(&near_edges.bins[k], n);
        }
    }
    if (local == 0u) {
        let count = atomicLoad(&wg_vertex_owner[WG_NEAR_COUNT]);
        if (count != 0u) {
            atomicAdd(&near_edges.count, count);
            atomicMax(&near_edges.min_inverted_bits, atomicLoad(&wg_vertex_owner[WG_NEAR_MIN]));
        }
    }
}
