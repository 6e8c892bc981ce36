//! WGSL sources, embedded in the binary, with `//!include path` lines resolved (each file once).
//! Files generated from Rust data (shared/globe_base_mesh.wgsl) are checked in; a test beside
//! their generator keeps them current.

use std::collections::HashSet;

/// Every WGSL file of the project, by path relative to `shaders/`.
pub const SHADER_FILES: &[(&str, &str)] = &[
    ("cbt_args.wgsl", include_str!("../../shaders/cbt_args.wgsl")),
    ("cbt_ops.wgsl", include_str!("../../shaders/cbt_ops.wgsl")),
    ("cbt_pool_probe.wgsl", include_str!("../../shaders/cbt_pool_probe.wgsl")),
    ("cbt_reduce.wgsl", include_str!("../../shaders/cbt_reduce.wgsl")),
    ("globe_decode.wgsl", include_str!("../../shaders/globe_decode.wgsl")),
    ("globe_draw.wgsl", include_str!("../../shaders/globe_draw.wgsl")),
    ("globe_update.wgsl", include_str!("../../shaders/globe_update.wgsl")),
    ("globe_octahedral_probe.wgsl", include_str!("../../shaders/globe_octahedral_probe.wgsl")),
    ("globe_relative_probe.wgsl", include_str!("../../shaders/globe_relative_probe.wgsl")),
    ("kernel_chained_hash.wgsl", include_str!("../../shaders/kernel_chained_hash.wgsl")),
    ("kernel_chained_hash_subgroup.wgsl", include_str!("../../shaders/kernel_chained_hash_subgroup.wgsl")),
    ("kernel_compact_hash.wgsl", include_str!("../../shaders/kernel_compact_hash.wgsl")),
    ("kernel_compact_hash_uncompressed.wgsl", include_str!("../../shaders/kernel_compact_hash_uncompressed.wgsl")),
    ("kernel_closest_pairs_brute.wgsl", include_str!("../../shaders/kernel_closest_pairs_brute.wgsl")),
    ("kernel_closest_pairs_grid.wgsl", include_str!("../../shaders/kernel_closest_pairs_grid.wgsl")),
    ("kernel_closest_pairs_top.wgsl", include_str!("../../shaders/kernel_closest_pairs_top.wgsl")),
    ("kernel_shift_and.wgsl", include_str!("../../shaders/kernel_shift_and.wgsl")),
    ("kernel_tile_table.wgsl", include_str!("../../shaders/kernel_tile_table.wgsl")),
    ("leb_decode.wgsl", include_str!("../../shaders/leb_decode.wgsl")),
    ("leb_split_nodes.wgsl", include_str!("../../shaders/leb_split_nodes.wgsl")),
    ("leb_update.wgsl", include_str!("../../shaders/leb_update.wgsl")),
    ("tile_cache_probe.wgsl", include_str!("../../shaders/tile_cache_probe.wgsl")),
    ("tile_generate.wgsl", include_str!("../../shaders/tile_generate.wgsl")),
    ("terrain_draw.wgsl", include_str!("../../shaders/terrain_draw.wgsl")),
    ("terrain_gradients.wgsl", include_str!("../../shaders/terrain_gradients.wgsl")),
    ("shared/cbt.wgsl", include_str!("../../shaders/shared/cbt.wgsl")),
    ("shared/cbt_heap_atomic.wgsl", include_str!("../../shaders/shared/cbt_heap_atomic.wgsl")),
    ("shared/cbt_heap_read.wgsl", include_str!("../../shaders/shared/cbt_heap_read.wgsl")),
    ("shared/chained_hash.wgsl", include_str!("../../shaders/shared/chained_hash.wgsl")),
    ("shared/globe_base_mesh.wgsl", include_str!("../../shaders/shared/globe_base_mesh.wgsl")),
    ("shared/globe_frame.wgsl", include_str!("../../shaders/shared/globe_frame.wgsl")),
    ("shared/globe_heights.wgsl", include_str!("../../shaders/shared/globe_heights.wgsl")),
    ("shared/globe_leb.wgsl", include_str!("../../shaders/shared/globe_leb.wgsl")),
    ("shared/globe_lod.wgsl", include_str!("../../shaders/shared/globe_lod.wgsl")),
    ("shared/shading.wgsl", include_str!("../../shaders/shared/shading.wgsl")),
    ("shared/hash.wgsl", include_str!("../../shaders/shared/hash.wgsl")),
    ("shared/compact_hash.wgsl", include_str!("../../shaders/shared/compact_hash.wgsl")),
    ("shared/closest_pairs.wgsl", include_str!("../../shaders/shared/closest_pairs.wgsl")),
    ("shared/decode.wgsl", include_str!("../../shaders/shared/decode.wgsl")),
    ("shared/dispatch.wgsl", include_str!("../../shaders/shared/dispatch.wgsl")),
    ("shared/frame.wgsl", include_str!("../../shaders/shared/frame.wgsl")),
    ("shared/heights.wgsl", include_str!("../../shaders/shared/heights.wgsl")),
    ("shared/leb.wgsl", include_str!("../../shaders/shared/leb.wgsl")),
    ("shared/leb_split.wgsl", include_str!("../../shaders/shared/leb_split.wgsl")),
    ("shared/leb_bits.wgsl", include_str!("../../shaders/shared/leb_bits.wgsl")),
    ("shared/leb_update_passes.wgsl", include_str!("../../shaders/shared/leb_update_passes.wgsl")),
    ("shared/lod.wgsl", include_str!("../../shaders/shared/lod.wgsl")),
    ("shared/node_bounds.wgsl", include_str!("../../shaders/shared/node_bounds.wgsl")),
    ("shared/octahedral.wgsl", include_str!("../../shaders/shared/octahedral.wgsl")),
    ("shared/planet.wgsl", include_str!("../../shaders/shared/planet.wgsl")),
    ("shared/tile_cache.wgsl", include_str!("../../shaders/shared/tile_cache.wgsl")),
    ("shared/tile_cache_record.wgsl", include_str!("../../shaders/shared/tile_cache_record.wgsl")),
    ("shared/tile_feedback.wgsl", include_str!("../../shaders/shared/tile_feedback.wgsl")),
    ("shared/tile_key.wgsl", include_str!("../../shaders/shared/tile_key.wgsl")),
    ("shared/tile_table.wgsl", include_str!("../../shaders/shared/tile_table.wgsl")),
    ("shared/globe_constants.wgsl", include_str!("../../shaders/shared/globe_constants.wgsl")),
    ("shared/tile_constants.wgsl", include_str!("../../shaders/shared/tile_constants.wgsl")),
    ("shared/dispatch_constants.wgsl", include_str!("../../shaders/shared/dispatch_constants.wgsl")),
    ("shared/lod_constants.wgsl", include_str!("../../shaders/shared/lod_constants.wgsl")),
    ("shared/morph_constants.wgsl", include_str!("../../shaders/shared/morph_constants.wgsl")),
    ("shared/cbt_reduce_constants.wgsl", include_str!("../../shaders/shared/cbt_reduce_constants.wgsl")),
    ("shared/leb_constants.wgsl", include_str!("../../shaders/shared/leb_constants.wgsl")),
];

/// A WGSL `const` declaration of u32 `value`.
pub fn const_u32(name: &str, value: u32) -> String {
    format!("const {name}: u32 = {value}u;\n")
}

/// A WGSL `const` declaration of i32 `value`.
pub fn const_i32(name: &str, value: i32) -> String {
    format!("const {name}: i32 = {value}i;\n")
}

/// A WGSL `const` declaration of f32 `value`, written so that it parses back to exactly `value`.
pub fn const_f32(name: &str, value: f32) -> String {
    format!("const {name}: f32 = {:?};\n", f64::from(value))
}

const INCLUDE: &str = "//!include ";

/// The source of shader `name` with its includes spliced in, or None for an unknown name.
pub fn shader_source(name: &str) -> Option<String> {
    let mut seen = HashSet::new();
    let mut out = String::new();
    append(name, &mut seen, &mut out)?;
    Some(out)
}

fn append(name: &str, seen: &mut HashSet<String>, out: &mut String) -> Option<()> {
    if !seen.insert(name.to_string()) {
        return Some(());
    }
    let text = SHADER_FILES.iter().find(|(n, _)| *n == name)?.1;
    for line in text.lines() {
        if let Some(included) = line.strip_prefix(INCLUDE) {
            append(included.trim(), seen, out)?;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(())
}

/// Compiles shader `name` (which must be one of `SHADER_FILES`) into a module labelled with it.
pub fn create_module(device: &wgpu::Device, name: &str) -> wgpu::ShaderModule {
    let source = shader_source(name).unwrap_or_else(|| panic!("unknown shader {name}"));
    device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) })
}

/// A compute pipeline for entry point `entry` of shader `name`, with its layout derived from the
/// shader and its `override` constants set to `constants`.
pub fn compute_pipeline(device: &wgpu::Device, label: &str, name: &str, entry: &str, constants: &[(&str, f64)]) -> wgpu::ComputePipeline {
    let module = create_module(device, name);
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
        cache: None,
    })
}
