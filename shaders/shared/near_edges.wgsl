// The near-edge statistics of the globe drawn from the bisector pool (src/globe/near_edges.rs,
// whose CPU twin is near_edges_twin): the edges of the drawn leaves over land within
// NEAR_EDGE_DISTANCE_M of the camera, binned into 1/16-octave bins of their length, their count
// and their minimum. near_edge_lengths tests a leaf; globe.pool_decode adds the workgroup's near
// leaves into bins in workgroup memory (its vertex table's, free by then) and then those into
// `near_edges` with one global atomic per non-empty bin: with the cliffs within 3 km of the
// bridge, a third of the leaves are near, and an atomic per edge on the few bins they share cost
// the decode 0.05 ms on those frames (docs/BENCHMARKS.md run 123). Needs shared/pool_globe.wgsl
// (and what it needs), shared/dispatch.wgsl, and `near_edges: NearEdges` bound read_write.
//!include shared/near_edge_constants.wgsl

// Keep in sync with GpuNearEdges in src/globe/near_edges.rs (tests/shaders.rs compares them).
struct NearEdges {
    count: atomic<u32>,
    // !bits of the shortest edge's length (positive floats order like their bits): the largest.
    min_inverted_bits: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    bins: array<atomic<u32>, NEAR_EDGE_BINS>,
}

// The bin of an edge `length_m` long: its exponent's octave and its mantissa's 1/16 step.
fn near_edge_bin(length_m: f32) -> u32 {
    if (!(length_m > 0.0)) {
        return 0u;
    }
    let bits = bitcast<u32>(length_m);
    let exponent = i32(bits >> 23u) - 127;
    let bin = (exponent - NEAR_EDGE_MIN_EXPONENT) * i32(NEAR_EDGE_BINS_PER_OCTAVE) + i32(near_edge_step(bits & 0x7fffffu));
    return u32(clamp(bin, 0, i32(NEAR_EDGE_BINS) - 1));
}

// What rounding may move a camera-relative point within NEAR_EDGE_DISTANCE_M by, and more.
const NEAR_EDGE_ROUNDING_M: f32 = 1.0;

// The edge lengths (xyz) of a leaf with map vertices `m`, placed at `p` (camera-relative, at
// their drawn heights: the decode's own positions), and w = 1 when they count: its map centroid
// lies on land (height above 0 m) within NEAR_EDGE_DISTANCE_M of the camera (src/globe/
// figures.rs's rule); else 0.
fn near_edge_lengths(m: array<vec2<u32>, 3>, p: array<vec3<f32>, 3>) -> vec4<f32> {
    let c = (m[0] + m[1] + m[2]) / 3u;
    let c64 = vec4<u32>(0u, c.x, 0u, c.y);
    // First without the tile cache: the centroid's column from 0 to NEAR_EDGE_MAX_HEIGHT_M (a
    // point's camera-relative position is linear in its height, shared/globe_frame.wgsl) must
    // pass within the distance. Most leaves of a view over mountains lie within a few
    // kilometres of the camera plus the mountains' height, so a test with the height bound
    // alone sent nearly all of them to the tile cache.
    let low = pool_relative_position_m(c64, 0.0);
    let up = pool_relative_position_m(c64, NEAR_EDGE_MAX_HEIGHT_M) - low;
    let t = clamp(-dot(low, up) / dot(up, up), 0.0, 1.0);
    if (length(low + t * up) > NEAR_EDGE_DISTANCE_M + NEAR_EDGE_ROUNDING_M) {
        return vec4<f32>(0.0);
    }
    let centre_h = tile_cache_height(tile_cache_find(c, globe_vertex_zoom(c)), c);
    if (!(centre_h > 0.0) || length(pool_relative_position_m(c64, centre_h)) > NEAR_EDGE_DISTANCE_M) {
        return vec4<f32>(0.0);
    }
    return vec4<f32>(length(p[0] - p[1]), length(p[1] - p[2]), length(p[2] - p[0]), 1.0);
}
