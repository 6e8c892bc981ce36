//! The WGSL of the renderer (shaders/) and of `bisector-gpu` (crates/gpu/shaders/) passes naga
//! validation: each pass with its includes resolved, and each shared file as part of every pass
//! that includes it (some need a binding file from their includer). Every file on disk is
//! embedded. Every Rust struct that mirrors a WGSL type has the WGSL type's size and member
//! offsets (naga's layout). The kernels crate checks its own WGSL the same way
//! (crates/kernels/tests/shaders.rs, with the same tests/support/wgsl.rs).

#[macro_use]
#[path = "support/wgsl.rs"]
mod wgsl;

use std::path::Path;

use bisector::cbt::gpu::{FrameArgs, FrameStats};
use bisector::cbt::ops::CbtOp;
use bisector::cbt::reduce::ReduceParams;
use bisector::cbt::reduce_subgroup::SubgroupReduceParams;
use bisector::flat::raster::{RasterUniforms, WideInput, WideTriangle};
use bisector::flat::terrain_draw::DrawUniforms;
use bisector::globe::atmosphere::AtmosphereUniforms;
use bisector::globe::cache::tile_generate::TileJob;
use bisector::globe::cache::tile_table::{TileSlot, TileTableHeader};
use bisector::globe::frame::GlobeFrame;
use bisector::globe::near_edges::GpuNearEdges;
use bisector::globe::occlusion::OcclusionFrame;
use bisector::globe::sea::SeaUniforms;
use bisector::gpu::shader::SHADERS as GPU_SHADERS;
use bisector::kernels::tile_table_bucketed::{BucketedTableHeader, TileBucket};
use bisector::kernels::tile_table_packed::{PackedBucket, PackedTableHeader};
use bisector::leb::decode::LodStats;
use bisector::leb::lod::LodParams;
use bisector::pool::criterion::GpuCriterion;
use bisector::pool::gpu::{GpuPoolCounters, GpuPoolParams};
use bisector::shaders::SHADERS;
use wgsl::{Mirror, Value, Wgsl};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_wgsl_file_validates() {
    // The shared pieces of bisector-gpu are validated as part of the renderer's passes.
    // The pool's passes also run under the globe's criterion (src/globe/pool_scene.rs).
    wgsl::every_pass_and_variant_validates(
        &SHADERS,
        &[&GPU_SHADERS],
        &[("shared/pool_criterion.wgsl", "shared/pool_criterion_globe.wgsl")],
    );
    wgsl::names_are_unique(&[&SHADERS, &GPU_SHADERS]);
}

#[test]
fn every_shader_file_is_embedded() {
    wgsl::every_file_is_embedded(&SHADERS, &root().join("shaders"), "SHADERS in src/shaders.rs");
    wgsl::every_file_is_embedded(&GPU_SHADERS, &root().join("crates/gpu/shaders"), "SHADERS in crates/gpu/src/shader.rs");
}

/// Every Rust struct that mirrors a WGSL type. Add new mirrors here.
fn mirrors() -> Vec<Mirror> {
    vec![
        mirror!(
            "cbt_args.wgsl",
            Wgsl::Struct("FrameArgs"),
            FrameArgs {
                dispatch: ["dispatch_x", "dispatch_y", "dispatch_z"],
                _pad: _,
                draw: ["draw_vertex_count", "draw_instance_count", "draw_first_vertex", "draw_first_instance"],
            }
        ),
        mirror!(
            "cbt_args.wgsl",
            Wgsl::Struct("FrameStats"),
            FrameStats { leaves: "leaves", max_depth: "max_depth", overflow: "overflow", capacity: "capacity" }
        ),
        mirror!("cbt_ops.wgsl", Wgsl::Struct("CbtOp"), CbtOp { id: "id", depth: "depth", merge: "merge", _pad: _ }),
        mirror!(
            "cbt_reduce.wgsl",
            Wgsl::Struct("ReduceParams"),
            ReduceParams {
                in_depth: "in_depth",
                levels: "levels",
                bitfield: "bitfield",
                items_log2: "items_log2",
                changed_only: "changed_only",
                _pad: _,
            }
        ),
        mirror!(
            "cbt_reduce_subgroup.wgsl",
            Wgsl::Struct("SubgroupReduceParams"),
            SubgroupReduceParams {
                in_depth: "in_depth",
                items_log2: "items_log2",
                bitfield: "bitfield",
                changed_only: "changed_only",
                tail: "tail",
                tail_in_depth: "tail_in_depth",
                tail_items_log2: "tail_items_log2",
                _pad: _,
            }
        ),
        mirror!(
            "leb_decode.wgsl",
            Wgsl::Struct("LodParams"),
            LodParams {
                camera_position_m: "camera_position_m",
                terrain_size_m: "terrain_size_m",
                projection_scale_sq: "projection_scale_sq",
                split_threshold_sq: "split_threshold_sq",
                merge_threshold_sq: "merge_threshold_sq",
                max_depth: "max_depth",
                criterion: "criterion",
                bounds_depth: "bounds_depth",
                data_depth: "data_depth",
                frustum_planes: "frustum_planes",
            }
        ),
        mirror!(
            "shared/decode.wgsl",
            Wgsl::Struct("LodStats"),
            LodStats { max_size_px: "max_size_px_bits", visible_leaves: "visible_leaves", capped_leaves: "capped_leaves", _pad: _ }
        ),
        mirror!(
            "globe_pool_decode.wgsl",
            Wgsl::Struct("LodStats"),
            LodStats { max_size_px: "max_size_px_bits", visible_leaves: "visible_leaves", capped_leaves: "capped_leaves", _pad: _ }
        ),
        mirror!(
            "globe_occlusion_probe.wgsl",
            Wgsl::Struct("Occlusion"),
            OcclusionFrame {
                view_from_relative: "view_from_relative",
                camera_shift_m: "camera_shift_m",
                projection: "projection",
                viewport: "viewport",
            }
        ),
        mirror!(
            "globe_pool_decode.wgsl",
            Wgsl::Struct("NearEdges"),
            GpuNearEdges { count: "count", min_inverted_bits: "min_inverted_bits", _pad: _, bins: "bins" }
        ),
        mirror!(
            "terrain_draw.wgsl",
            Wgsl::Struct("DrawUniforms"),
            DrawUniforms {
                clip_from_world: "clip_from_world",
                camera_position_m: "camera_position_m",
                sun_direction: "sun_direction",
                terrain_size_m: "terrain_size_m",
                wireframe: "wireframe",
                haze_distance_m: "haze_distance_m",
                projection_scale: "projection_scale",
                morph_target_px: "morph_target_px",
                morph_mode: "morph_mode",
                _pad: _,
            }
        ),
        mirror!("terrain_shade.wgsl", Wgsl::Struct("RasterUniforms"), RasterUniforms { size_px: "size_px", large_px: "large_px", _pad: _ }),
        mirror!(
            "globe_shade_compute.wgsl",
            Wgsl::Struct("RasterUniforms"),
            RasterUniforms { size_px: "size_px", large_px: "large_px", _pad: _ }
        ),
        mirror!(
            "raster_wide.wgsl",
            Wgsl::Struct("WideTriangle"),
            WideTriangle { a: "a", b: "b", c: "c", base_px: "base", lo_px: "lo", hi_px: "hi", z: "z", id: "id" }
        ),
        mirror!("raster_bin.wgsl", Wgsl::Struct("WideInput"), WideInput { clip: "clip", id: "id", _pad: _ }),
        mirror!(
            "atmosphere_views.wgsl",
            Wgsl::Struct("Atmosphere"),
            AtmosphereUniforms {
                radii: "radii",
                rayleigh: "rayleigh",
                mie_scattering: "mie_scattering",
                mie_extinction: "mie_extinction",
                ozone: "ozone",
                ozone_density: "ozone_density",
                ground_albedo: "ground_albedo",
                sun_illuminance: "sun_illuminance",
                camera_km: "camera_km",
                sun_direction: "sun_direction",
                relative_from_clip: "relative_from_clip",
                viewport: "viewport",
                sea: "sea",
            }
        ),
        mirror!("sea_tiles.wgsl", Wgsl::Struct("SeaUniforms"), SeaUniforms { east: "east", north: "north", tiles: "tiles" }),
        mirror!(
            "globe_draw.wgsl",
            Wgsl::Struct("GlobeFrame"),
            GlobeFrame {
                clip_from_relative: "clip_from_relative",
                anchor_fixed: "anchor_fixed",
                anchor: "anchor",
                camera_from_anchor_m: "camera_from_anchor_m",
                centre_from_camera_m: "centre_from_camera_m",
                frustum: "frustum",
                sun_direction: "sun_direction",
                camera_moved_m: "camera_moved_m",
                radius_m: "radius_m",
                occluder_radius_m: "occluder_radius_m",
                projection_scale_px: "projection_scale_px",
                split_threshold_px: "split_threshold_px",
                merge_threshold_px: "merge_threshold_px",
                wireframe: "wireframe",
                criterion: "criterion",
                detail: "detail",
            }
        ),
        mirror!(
            "pool_split.wgsl",
            Wgsl::Struct("PoolParams"),
            GpuPoolParams {
                target_sq_px2: "target_sq_px2",
                effective_target_sq_px2: "effective_target_sq_px2",
                merge_target_sq_px2: "merge_target_sq_px2",
                max_depth: "max_depth",
                base_depth: "base_depth",
                leaves: "leaves",
                threshold_bucket: "threshold_bucket",
                last_leaves: "last_leaves",
            }
        ),
        mirror!(
            "pool_split.wgsl",
            Wgsl::Struct("PoolCounters"),
            GpuPoolCounters {
                wanted_split: "wanted_split",
                admitted: "admitted",
                capped_by_depth: "capped_by_depth",
                capped_by_pool: "capped_by_pool",
                threshold_bucket: "threshold_bucket",
                slots_allocated: "slots_allocated",
                diamonds_merged: "diamonds_merged",
                slots_freed: "slots_freed",
                max_depth_reached: "max_depth_reached",
                leaves: "leaves",
                listed: "listed",
                histogram_total: "histogram_total",
                _pad: _,
            }
        ),
        mirror!(
            "pool_split.wgsl",
            Wgsl::Struct("PoolCriterion"),
            GpuCriterion {
                salt: "salt",
                split_share: "split_share",
                keep_share: "keep_share",
                random_max_depth: "random_max_depth",
                focus_count: "focus_count",
                _pad: _,
                foci: "foci",
            }
        ),
        mirror!(
            "tile_cache_probe.wgsl",
            Wgsl::Struct("TileTable"),
            TileTableHeader { capacity: "capacity", max_probe: "max_probe", len: "len", _pad: _ }
        ),
        mirror!("tile_cache_probe.wgsl", Wgsl::Elements("TileTable.slots"), TileSlot { key: ["x", "y"], value: "z", displacement: "w" }),
        mirror!("tile_generate.wgsl", Wgsl::Elements("tile_jobs"), TileJob { key: ["x", "y"], layer: "z", seed: "w" }),
        mirror!(
            "kernel_tile_table_bucketed.wgsl",
            Wgsl::Struct("TileBuckets"),
            BucketedTableHeader { bucket_mask: "bucket_mask", len: "len", _pad: _ }
        ),
        mirror!("kernel_tile_table_bucketed.wgsl", Wgsl::Elements("TileBuckets.buckets"), TileBucket { lo: "lo", hi_value: "hi_value" }),
        mirror!(
            "kernel_tile_table_packed.wgsl",
            Wgsl::Struct("TilePackedTable"),
            PackedTableHeader { bucket_mask: "bucket_mask", bucket_bits: "bucket_bits", len: "len", _pad: _ }
        ),
        mirror!("kernel_tile_table_packed.wgsl", Wgsl::Elements("TilePackedTable.buckets"), PackedBucket { lo: "lo", hi: "hi" }),
    ]
}

#[test]
fn rust_structs_match_their_wgsl_layout() {
    wgsl::mirrors_match(&SHADERS, mirrors());
}

/// The constants shared by Rust and WGSL, as WGSL sees them. Those of the globe, the tile cache,
/// the dispatches, the CBT reduction, the LOD criterion and morphing reach WGSL as generated files
/// (checked in and kept current by `generated_wgsl_files_are_current`): checked here that they
/// parse back to the Rust values. (The seed kernels' constants, WGSL literals, are checked by
/// crates/kernels/tests/shaders.rs.)
#[test]
fn constants_shared_with_rust_agree() {
    use bisector::globe::cache::{tile_key, tile_layout, tile_table};
    let expected = [
        ("globe_draw.wgsl", "GLOBE_MAP_SIDE_M", Value::F32(bisector::globe::MAP_SIDE_M as f32)),
        ("globe_draw.wgsl", "GLOBE_TILE_INTERVALS", Value::F32(tile_layout::TILE_INTERVALS as f32)),
        ("globe_draw.wgsl", "GLOBE_MAP_ONE_F", Value::F32(bisector::leb::octahedral::MAP_ONE as f32)),
        ("globe_draw.wgsl", "GLOBE_FIXED_ONE", Value::I32(bisector::globe::frame::FIXED_ONE)),
        ("tile_generate.wgsl", "PLANET_MAP_ONE", Value::I32(bisector::leb::octahedral::MAP_ONE as i32)),
        ("tile_generate.wgsl", "TILE_SIDE", Value::U32(tile_layout::TILE_SIDE)),
        ("globe_draw.wgsl", "TILE_COORD_BITS", Value::U32(tile_key::COORD_BITS)),
        ("globe_draw.wgsl", "TILE_COORD_MASK", Value::U32(tile_key::COORD_MASK)),
        ("globe_draw.wgsl", "TILE_MAX_ZOOM", Value::U32(tile_key::MAX_ZOOM as u32)),
        ("globe_draw.wgsl", "TILE_MISS", Value::U32(tile_table::TILE_MISS)),
        ("leb_decode.wgsl", "WORKGROUP_SIZE", Value::U32(bisector::gpu::dispatch::WORKGROUP_SIZE)),
        ("leb_decode.wgsl", "MAX_GROUPS_X", Value::U32(bisector::gpu::dispatch::MAX_GROUPS_X)),
        ("leb_decode.wgsl", "BACK_FACE_MARGIN_SQ", Value::F32(bisector::leb::lod::BACK_FACE_MARGIN_SQ)),
        ("terrain_draw.wgsl", "MORPH_GRID_BITS", Value::U32(bisector::flat::morph::GRID_BITS)),
        ("terrain_draw.wgsl", "MORPH_END", Value::F32(bisector::flat::morph::MORPH_END)),
        ("terrain_shade.wgsl", "RASTER_HISTOGRAM_BINS", Value::U32(bisector::flat::raster::HISTOGRAM_BINS as u32)),
        ("terrain_shade_compute.wgsl", "SHADE_TILE_PX", Value::U32(bisector::flat::raster::SHADE_TILE_PX)),
        ("globe_shade_compute.wgsl", "SHADE_TILE_PX", Value::U32(bisector::schedule::raster::SHADE_TILE_PX)),
        ("globe_raster_small.wgsl", "RASTER_HISTOGRAM_BINS", Value::U32(bisector::schedule::raster::HISTOGRAM_BINS as u32)),
        ("raster_wide.wgsl", "RASTER_WIDE_ENTRY_CAPACITY", Value::U32(bisector::schedule::raster::WIDE_ENTRY_CAPACITY as u32)),
        ("raster_wide.wgsl", "RASTER_WIDE_TILE_PX", Value::I32(bisector::schedule::raster::WIDE_TILE_PX as i32)),
        ("raster_wide.wgsl", "RASTER_WIDE_GUARD_PX", Value::F32(bisector::schedule::raster::WIDE_GUARD_PX)),
        ("raster_bin.wgsl", "RASTER_WIDE_TRIANGLE_CAPACITY", Value::U32(bisector::schedule::raster::WIDE_TRIANGLE_CAPACITY as u32)),
        ("raster_bin.wgsl", "RASTER_WIDE_PIECES", Value::U32(bisector::schedule::raster::WIDE_PIECES as u32)),
        ("raster_bin.wgsl", "RASTER_CLIP_GUARD", Value::F32(bisector::schedule::raster::CLIP_GUARD)),
        ("terrain_draw.wgsl", "LEB_BASE_DEPTH", Value::U32(bisector::leb::cpu::BASE_DEPTH)),
        ("kernel_tile_table_bucketed.wgsl", "TILE_BUCKET_SALT", Value::U32(bisector::kernels::tile_table_bucketed::SECONDARY_SALT)),
        ("kernel_tile_table_packed.wgsl", "TILE_PACKED_KEY0", Value::U32(bisector::kernels::tile_table_packed::ROUND_KEYS[0])),
        ("kernel_tile_table_packed.wgsl", "TILE_PACKED_KEY1", Value::U32(bisector::kernels::tile_table_packed::ROUND_KEYS[1])),
        ("kernel_tile_table_packed.wgsl", "TILE_PACKED_KEY2", Value::U32(bisector::kernels::tile_table_packed::ROUND_KEYS[2])),
        ("kernel_tile_table_packed.wgsl", "TILE_PACKED_KEY3", Value::U32(bisector::kernels::tile_table_packed::ROUND_KEYS[3])),
        ("kernel_tile_table_packed.wgsl", "TILE_PACKED_SALT", Value::U32(bisector::kernels::tile_table_packed::OFFSET_SALT)),
    ];
    wgsl::constants_agree(&SHADERS, &expected);
}

/// The CBT reduction's workgroup memory (both paths), as the device limit check counts it.
#[test]
fn cbt_reduce_workgroup_memory_matches_rust() {
    for (file, expected) in [
        ("cbt_reduce.wgsl", bisector::cbt::reduce::WORKGROUP_STORAGE_BYTES),
        ("cbt_reduce_subgroup.wgsl", bisector::cbt::reduce_subgroup::WORKGROUP_STORAGE_BYTES),
        ("cbt_reduce_one.wgsl", bisector::cbt::reduce_one::WORKGROUP_STORAGE_BYTES),
    ] {
        let module = wgsl::parse(&SHADERS, file);
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).unwrap();
        let bytes: u64 = module
            .global_variables
            .iter()
            .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
            .map(|(_, g)| layouter[g.ty].size as u64)
            .sum();
        assert_eq!(bytes, expected, "{file}'s workgroup variables");
    }
}

/// Buffers that Rust lays out as words, not as a struct: the tile feedback's header (its slots
/// follow `HEADER_WORDS` words), the pool's control block (cleared and read by byte offsets) and
/// `FrameStats` read as four words by the update passes.
#[test]
fn word_layouts_match_rust() {
    let module = wgsl::parse(&SHADERS, "kernel_tile_table.wgsl");
    let (members, _) = wgsl::wgsl_layout(&module, &Wgsl::Struct("TileFeedback"));
    let words = members.iter().find(|(name, _, _)| name == "words").expect("TileFeedback.words").1;
    assert_eq!(
        words,
        4 * bisector::globe::cache::tile_feedback::HEADER_WORDS as usize,
        "TileFeedback's slots start after HEADER_WORDS words"
    );

    // The pool's control block: Rust clears and reads its parts by byte offset.
    let module = wgsl::parse(&SHADERS, "pool_split.wgsl");
    let (members, _) = wgsl::wgsl_layout(&module, &Wgsl::Struct("PoolControl"));
    let offset = |name: &str| members.iter().find(|(n, _, _)| n == name).unwrap_or_else(|| panic!("PoolControl.{name}")).1 as u64;
    use bisector::pool::gpu::{COUNTERS_OFFSET, GROUP_SUMS_OFFSET, HISTOGRAM_OFFSET};
    assert_eq!(offset("counters"), COUNTERS_OFFSET, "PoolControl.counters");
    assert_eq!(offset("histogram"), HISTOGRAM_OFFSET, "PoolControl.histogram");
    assert_eq!(offset("group_sums"), GROUP_SUMS_OFFSET, "PoolControl.group_sums");

    let module = wgsl::parse(&SHADERS, "leb_update.wgsl");
    let stats_words = module.global_variables.iter().find(|(_, g)| g.name.as_deref() == Some("stats_words")).expect("stats_words").1;
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    assert_eq!(layouter[stats_words.ty].size as usize, std::mem::size_of::<FrameStats>(), "stats_words is FrameStats as words");

    // The compute rasteriser's arguments and lists: Rust clears, dispatches from and reads them by
    // byte offset and sizes them.
    use bisector::schedule::raster::{wide_inputs_size, wide_lists_size, LARGE_ARGS_SIZE, WIDE_ARGS_OFFSET, WIDE_INPUTS_HEADER};
    let module = wgsl::parse(&SHADERS, "vis_raster_wide_probe.wgsl");
    let (members, size) = wgsl::wgsl_layout(&module, &Wgsl::Struct("RasterArgs"));
    let offset = |name: &str| members.iter().find(|(n, _, _)| n == name).unwrap_or_else(|| panic!("RasterArgs.{name}")).1 as u64;
    assert_eq!(offset("wide_entries"), WIDE_ARGS_OFFSET, "RasterArgs.wide_entries");
    assert_eq!(size as u64, LARGE_ARGS_SIZE, "RasterArgs");
    let (members, _) = wgsl::wgsl_layout(&module, &Wgsl::Struct("WideInputs"));
    let inputs = members.iter().find(|(n, _, _)| n == "inputs").expect("WideInputs.inputs").1 as u64;
    assert_eq!(inputs, WIDE_INPUTS_HEADER, "WideInputs.inputs");
    assert_eq!(wide_inputs_size(3) - wide_inputs_size(2), std::mem::size_of::<WideInput>() as u64);
    let module = wgsl::parse(&SHADERS, "raster_wide.wgsl");
    let (members, _) = wgsl::wgsl_layout(&module, &Wgsl::Struct("WideLists"));
    let triangles = members.iter().find(|(n, _, _)| n == "triangles").expect("WideLists.triangles").1 as u64;
    assert_eq!(wide_lists_size(0), triangles, "WideLists.triangles");
    let pieces = bisector::schedule::raster::WIDE_PIECES;
    assert_eq!(wide_lists_size(1) - wide_lists_size(0), pieces * std::mem::size_of::<WideTriangle>() as u64, "a slot per piece");
}

/// WGSL files generated from Rust constants, by the folder that holds them. They are checked in,
/// so that each crate embeds them without naming the modules that own the constants (`gpu` is the
/// bottom layer), and kept current here; `BISECTOR_UPDATE_GENERATED=1` rewrites them.
/// (shared/globe_base_mesh.wgsl has its own test beside `BaseMesh::to_wgsl`.)
#[test]
fn generated_wgsl_files_are_current() {
    wgsl::generated_files_are_current(
        &SHADERS,
        &root().join("shaders"),
        &[
            ("shared/globe_constants.wgsl", bisector::globe::constants_wgsl),
            ("shared/tile_constants.wgsl", bisector::globe::cache::constants_wgsl),
            ("shared/lod_constants.wgsl", bisector::leb::lod::constants_wgsl),
            ("shared/morph_constants.wgsl", bisector::flat::morph::constants_wgsl),
            ("shared/cbt_reduce_constants.wgsl", bisector::cbt::reduce::constants_wgsl),
            ("shared/leb_constants.wgsl", bisector::leb::cpu::constants_wgsl),
            ("shared/pool_constants.wgsl", bisector::pool::gpu::constants_wgsl),
            ("shared/near_edge_constants.wgsl", bisector::globe::near_edges::constants_wgsl),
        ],
    );
    wgsl::generated_files_are_current(
        &GPU_SHADERS,
        &root().join("crates/gpu/shaders"),
        &[("shared/dispatch_constants.wgsl", bisector::gpu::dispatch::constants_wgsl)],
    );
}
