// globe.split / globe.merge: the LEB update passes (shared/leb_update_passes.wgsl) over the
// octahedron under the globe's criterion (shared/globe_lod.wgsl).
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/hash.wgsl
//!include shared/globe_leb.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/globe_lod.wgsl
//!include shared/leb_split.wgsl
//!include shared/leb_update_passes.wgsl

@group(0) @binding(1) var<uniform> globe: GlobeFrame;

fn should_split(node: CbtNode) -> bool {
    return globe_wants_split(node.id, node.depth, globe.split_threshold_px);
}

fn keeps_split(node: CbtNode) -> bool {
    return globe_wants_split(node.id, node.depth, globe.merge_threshold_px);
}
