//! The kernels' WGSL files (crates/kernels/shaders/), embedded; they include the shared pieces of
//! `bisector_gpu::shader::SHADERS` (dispatch indexing, the integer hash).

use bisector_gpu::shader::ShaderLibrary;

/// Every WGSL file under crates/kernels/shaders/, by path relative to it.
pub const SHADERS: ShaderLibrary = ShaderLibrary {
    files: &[
        ("kernel_chained_hash.wgsl", include_str!("../shaders/kernel_chained_hash.wgsl")),
        ("kernel_chained_hash_subgroup.wgsl", include_str!("../shaders/kernel_chained_hash_subgroup.wgsl")),
        ("kernel_closest_pairs_build.wgsl", include_str!("../shaders/kernel_closest_pairs_build.wgsl")),
        ("kernel_closest_pairs_brute.wgsl", include_str!("../shaders/kernel_closest_pairs_brute.wgsl")),
        ("kernel_closest_pairs_grid.wgsl", include_str!("../shaders/kernel_closest_pairs_grid.wgsl")),
        ("kernel_closest_pairs_top.wgsl", include_str!("../shaders/kernel_closest_pairs_top.wgsl")),
        ("kernel_compact_hash.wgsl", include_str!("../shaders/kernel_compact_hash.wgsl")),
        ("kernel_compact_hash_subgroup.wgsl", include_str!("../shaders/kernel_compact_hash_subgroup.wgsl")),
        ("kernel_compact_hash_uncompressed.wgsl", include_str!("../shaders/kernel_compact_hash_uncompressed.wgsl")),
        ("kernel_shift_and.wgsl", include_str!("../shaders/kernel_shift_and.wgsl")),
        ("shared/chained_hash.wgsl", include_str!("../shaders/shared/chained_hash.wgsl")),
        ("shared/closest_pairs.wgsl", include_str!("../shaders/shared/closest_pairs.wgsl")),
        ("shared/compact_hash.wgsl", include_str!("../shaders/shared/compact_hash.wgsl")),
        ("shared/compact_hash_tree.wgsl", include_str!("../shaders/shared/compact_hash_tree.wgsl")),
    ],
    includes_from: &[&bisector_gpu::shader::SHADERS],
};
