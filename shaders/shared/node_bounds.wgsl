// Per-node error, height and slope bounds (src/leb/bounds.rs): arrays indexed by node id down to
// the stored depth (slopes one level less); deeper nodes read their ancestor's. Bound at @group(1) by the passes that
// evaluate the LOD criterion.

@group(1) @binding(0) var<storage, read> node_error_m: array<f32>;
@group(1) @binding(1) var<storage, read> node_height_min_m: array<f32>;
@group(1) @binding(2) var<storage, read> node_height_max_m: array<f32>;
// (dh/dx, dh/dy) ranges in metres per metre, each two f16 (lowest, highest): unpack2x16float.
@group(1) @binding(3) var<storage, read> node_slope_range: array<vec2<u32>>;

// Mirrors NodeBounds::index.
fn node_bounds_index(id: u32, depth: u32, bounds_depth: u32) -> u32 {
    return id >> (max(depth, bounds_depth) - bounds_depth);
}

// Mirrors NodeBounds::slope_index (slopes are stored to slope_depth(bounds_depth) = bounds_depth - 1).
fn node_slope_index(id: u32, depth: u32, bounds_depth: u32) -> u32 {
    let slope_depth = max(bounds_depth, 1u) - 1u;
    return id >> (max(depth, slope_depth) - slope_depth);
}
