// globe.decode: one thread per leaf writes the leaf's node id for the draw and the deepest
// depth, measures visible leaves and their largest projected hypotenuse (the statistics), and
// tells the tile cache which tiles the visible leaves use and miss (at their vertices and
// centre, at the zoom each point wants).
//!include shared/cbt.wgsl
//!include shared/cbt_heap_read.wgsl
//!include shared/dispatch.wgsl
//!include shared/frame.wgsl
//!include shared/hash.wgsl
//!include shared/globe_leb.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/tile_cache_record.wgsl
//!include shared/globe_lod.wgsl

@group(0) @binding(1) var<storage, read_write> leaf_ids: array<u32>;
@group(0) @binding(2) var<storage, read_write> stats: FrameStats;
@group(0) @binding(3) var<uniform> globe: GlobeFrame;
@group(0) @binding(4) var<storage, read_write> lod_stats: GlobeLodStats;

// Keep in sync with LodStats in src/leb/decode.rs.
struct GlobeLodStats {
    // Bits of the largest projected hypotenuse in pixels of a visible leaf.
    max_size_px_bits: atomic<u32>,
    // Leaves neither outside the frustum nor behind the horizon.
    visible_leaves: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
}

var<workgroup> wg_max_depth: atomic<u32>;
var<workgroup> wg_max_size_bits: atomic<u32>;
var<workgroup> wg_visible: atomic<u32>;

// Projected size (largest edge, pixels) above which a leaf may span several tiles: tiles aim at
// one to two pixels per sample over 128 samples, so they span 128 pixels or more. (Leaves split
// above 48 px at the default pixel target, so only a coarse target makes leaves this large.)
const LARGE_LEAF_PX: f32 = 128.0;

// Records the tile that a vertex at map point `p` samples: used, or missed (asked for).
fn request_tile(p: vec2<u32>) {
    let zoom = globe_vertex_zoom(p);
    tile_cache_record(p, zoom, tile_cache_find(p, zoom));
}

@compute @workgroup_size(256)
fn decode(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let leaf_index = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (leaf_index < cbt_node_count() && leaf_index < stats.capacity) {
        let node = cbt_decode_node(leaf_index);
        leaf_ids[leaf_index] = node.id;
        atomicMax(&wg_max_depth, node.depth);
        let b = globe_bound(node.id, node.depth);
        if (!globe_is_hidden(b)) {
            let v = globe_decode_map(node.id, node.depth);
            let projected_px = globe_projected_px(b);
            if (node.depth == CBT_MAX_DEPTH || projected_px > LARGE_LEAF_PX) {
                // A leaf that may be larger than a tile (it cannot split, or the pixel target is
                // coarse): the 15 points of its 4 x 4 grid, so the fragments inside find every
                // tile they want resident (with the corners alone, tiles inside such leaves were
                // never asked for and showed coarse ancestors).
                let q = array<vec2<u32>, 3>(v[0] / 4u, v[1] / 4u, v[2] / 4u);
                for (var i = 0u; i <= 4u; i += 1u) {
                    for (var j = 0u; j <= 4u - i; j += 1u) {
                        request_tile(q[0] * (4u - i - j) + q[1] * i + q[2] * j);
                    }
                }
            } else {
                request_tile(v[0]);
                request_tile(v[1]);
                request_tile(v[2]);
                request_tile(v[0] / 4u + v[2] / 4u + v[1] / 2u);
            }
            atomicMax(&wg_max_size_bits, bitcast<u32>(projected_px));
            atomicAdd(&wg_visible, 1u);
        }
    }
    workgroupBarrier();
    if (local == 0u) {
        atomicMax(&stats.max_depth, atomicLoad(&wg_max_depth));
        atomicMax(&lod_stats.max_size_px_bits, atomicLoad(&wg_max_size_bits));
        atomicAdd(&lod_stats.visible_leaves, atomicLoad(&wg_visible));
    }
}
