//! Concurrent binary tree: the CPU twin and the GPU heap with its passes (reduce, args, ops, changed blocks).
//! Knows nothing of triangles or terrain.

pub mod args;
pub mod changed;
pub mod cpu;
pub mod decode_words;
pub mod gpu;
pub mod ops;
pub mod reduce;
pub mod reduce_one;
pub mod reduce_subgroup;

use crate::gpu::{Limit, Requirements};

/// Needs of a CBT of max depth `max_depth` with `leaf_capacity` leaf ids and its passes (every
/// renderer's base; scenes add their own).
pub fn requirements(max_depth: u32, leaf_capacity: u64) -> Requirements {
    let heap_bytes = cpu::heap_size_bytes(max_depth);
    let leaf_bytes = leaf_capacity * 4;
    let storage = heap_bytes.max(leaf_bytes);
    let why_heap =
        format!("for the CBT heap at max depth {max_depth} ({} MiB) and {leaf_capacity} leaf ids; lower --max-depth", heap_bytes >> 20);
    Requirements {
        wanted_limits: Vec::new(),
        features: Vec::new(),
        // Subgroups where present: cbt.reduce's faster path (cbt::reduce_subgroup).
        optional_features: wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP,
        limits: vec![
            (Limit::MaxStorageBufferBindingSize, storage, why_heap.clone()),
            (Limit::MaxBufferSize, storage, why_heap),
            (
                Limit::MaxComputeWorkgroupsPerDimension,
                crate::gpu::dispatch::MAX_GROUPS_X as u64,
                "for 2-D dispatches over every leaf".into(),
            ),
            (Limit::MaxComputeInvocationsPerWorkgroup, 256, "for the 256-thread CBT passes".into()),
            (
                Limit::MaxComputeWorkgroupStorageSize,
                reduce::WORKGROUP_STORAGE_BYTES.max(reduce_subgroup::WORKGROUP_STORAGE_BYTES).max(reduce_one::WORKGROUP_STORAGE_BYTES),
                "for the shared-memory CBT reduction".into(),
            ),
        ],
    }
}
