// Per-node error and height bounds (src/leb/bounds.rs): arrays indexed by node id down to the
// stored depth; deeper nodes read their ancestor's. Bound at @group(1) by the passes that
// evaluate the LOD criterion.

@group(1) @binding(0) var<storage, read> node_error_m: array<f32>;
@group(1) @binding(1) var<storage, read> node_height_min_m: array<f32>;
@group(1) @binding(2) var<storage, read> node_height_max_m: array<f32>;

// Mirrors NodeBounds::index.
fn node_bounds_index(id: u32, depth: u32, bounds_depth: u32) -> u32 {
    return id >> (max(depth, bounds_depth) - bounds_depth);
}
