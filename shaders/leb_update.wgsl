// leb.split / leb.merge on the unit square under the terrain's LOD criterion (shared/lod.wgsl);
// the passes themselves are shared/leb_update_passes.wgsl.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/leb.wgsl
//!include shared/lod.wgsl
//!include shared/leb_split.wgsl
//!include shared/leb_update_passes.wgsl

@group(0) @binding(1) var<uniform> lod: LodParams;

fn should_split(node: CbtNode) -> bool {
    return lod_wants_split(lod, node.id, node.depth, lod.split_threshold_sq);
}

fn keeps_split(node: CbtNode) -> bool {
    return lod_wants_split(lod, node.id, node.depth, lod.merge_threshold_sq);
}
