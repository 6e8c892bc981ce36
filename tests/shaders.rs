//! Every WGSL file passes naga validation: each pass with its includes resolved, and each shared
//! file as part of every pass that includes it (some need a binding file from their includer).
//! Every file in shaders/ is embedded in the binary. Every Rust struct that mirrors a WGSL type
//! has the WGSL type's size and member offsets (naga's layout).

use std::collections::HashSet;

use bisector::cache::tile_generate::TileJob;
use bisector::cache::tile_table::{TileSlot, TileTableHeader};
use bisector::cbt::gpu::{FrameArgs, FrameStats};
use bisector::cbt::ops::CbtOp;
use bisector::cbt::reduce::ReduceParams;
use bisector::globe::frame::GlobeFrame;
use bisector::gpu::shader::{shader_source, SHADER_FILES};
use bisector::kernels::chained_hash::{ChainNode, ChainedHashParams};
use bisector::kernels::closest_pairs::{ClosestPairsParams, Nearest};
use bisector::kernels::compact_hash::CompactHashParams;
use bisector::kernels::shift_and::{ShiftAndParams, Word};
use bisector::leb::decode::LodStats;
use bisector::leb::lod::LodParams;
use bisector::render::terrain_draw::DrawUniforms;

/// The files `name` includes, transitively.
fn includes(name: &str, seen: &mut HashSet<String>) {
    let (_, text) = SHADER_FILES.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not embedded"));
    for line in text.lines() {
        if let Some(included) = line.strip_prefix("//!include ") {
            if seen.insert(included.trim().to_string()) {
                includes(included.trim(), seen);
            }
        }
    }
}

/// unpack2x16float (the node bounds' slope ranges): WebGPU core, granted by wgpu on every
/// backend with DownlevelFlags::SHADER_F16_IN_F32.
const F16_IN_F32: naga::valid::Capabilities = naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32;

#[test]
fn every_wgsl_file_validates() {
    let passes: Vec<&str> = SHADER_FILES.iter().map(|(n, _)| *n).filter(|n| !n.starts_with("shared/")).collect();
    let mut included = HashSet::new();
    for name in &passes {
        includes(name, &mut included);
    }
    for (name, _) in SHADER_FILES.iter().filter(|(n, _)| n.starts_with("shared/")) {
        assert!(included.contains(*name), "{name} is included by no pass, so nothing validates it");
    }
    for name in passes {
        let source = shader_source(name).unwrap_or_else(|| panic!("{name}: an include is missing"));
        let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default()
                | naga::valid::Capabilities::SUBGROUP
                | F16_IN_F32
                | naga::valid::Capabilities::SHADER_INT64
                | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}

#[test]
fn every_shader_file_is_embedded() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk = Vec::new();
    for dir in [root.clone(), root.join("shared")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wgsl") {
                on_disk.push(path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    on_disk.sort();
    let mut embedded: Vec<String> = SHADER_FILES.iter().map(|(n, _)| n.to_string()).collect();
    embedded.sort();
    assert_eq!(on_disk, embedded, "add new shaders to SHADER_FILES in src/gpu/shader.rs");
}

/// The WGSL side of a mirror: a struct by name, or the element type of an array (a global
/// variable, or `Struct.member`), whose vector components are members `x`, `y`, `z`, `w`.
enum Wgsl {
    Struct(&'static str),
    Elements(&'static str),
}

/// A Rust struct that mirrors a WGSL type: each Rust field (or each element of an array field)
/// with the WGSL member it mirrors; padding fields are left out (see `is_padding`).
struct Mirror {
    rust: &'static str,
    size: usize,
    /// (WGSL member, offset in the Rust struct, size in bytes).
    fields: Vec<(&'static str, usize, usize)>,
    /// Rust fields mapped to `_`: they must be padding by name.
    padding: Vec<&'static str>,
    /// The shader (includes resolved) that defines the WGSL type.
    shader: &'static str,
    wgsl: Wgsl,
}

/// Padding, on either side, is named `pad`, `_pad` or either followed by digits: it is not
/// matched by name (the sizes and the other members' offsets still pin it down).
fn is_padding(name: &str) -> bool {
    let rest = name.strip_prefix('_').unwrap_or(name);
    rest.strip_prefix("pad").is_some_and(|digits| digits.chars().all(|c| c.is_ascii_digit()))
}

/// `mirror!("file.wgsl", Wgsl::…, RustStruct { field: "member", array: ["m0", "m1"], pad: _ })`:
/// every Rust field must be listed (the exhaustive pattern below fails to compile otherwise); an
/// array field lists one WGSL member per element.
macro_rules! mirror {
    ($shader:literal, $wgsl:expr, $rust:ident { $($field:ident: $members:tt),* $(,)? }) => {{
        #[allow(dead_code)]
        fn every_field_is_listed(v: $rust) {
            let $rust { $($field: _),* } = v;
        }
        let zero: $rust = bytemuck::Zeroable::zeroed();
        let mut fields = Vec::new();
        #[allow(unused_mut)]
        let mut padding = Vec::new();
        $(
            let offset = std::mem::offset_of!($rust, $field);
            let size = std::mem::size_of_val(&zero.$field);
            mirror!(@members fields padding $field offset size $members);
        )*
        Mirror { rust: stringify!($rust), size: std::mem::size_of::<$rust>(), fields, padding, shader: $shader, wgsl: $wgsl }
    }};
    (@members $fields:ident $padding:ident $field:ident $offset:ident $size:ident _) => {
        let _ = ($offset, $size);
        $padding.push(stringify!($field));
    };
    (@members $fields:ident $padding:ident $field:ident $offset:ident $size:ident [$($member:literal),+ $(,)?]) => {
        let members: &[&'static str] = &[$($member),+];
        let element = $size / members.len();
        assert_eq!(element * members.len(), $size, "{}: {} members for {} bytes", stringify!($field), members.len(), $size);
        for (i, member) in members.iter().enumerate() {
            $fields.push((*member, $offset + i * element, element));
        }
    };
    (@members $fields:ident $padding:ident $field:ident $offset:ident $size:ident $member:literal) => {
        $fields.push(($member, $offset, $size));
    };
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
            LodStats { max_size_px: "max_size_px_bits", visible_leaves: "visible_leaves", _pad: _ }
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
                radius_m: "radius_m",
                occluder_radius_m: "occluder_radius_m",
                projection_scale_px: "projection_scale_px",
                split_threshold_px: "split_threshold_px",
                merge_threshold_px: "merge_threshold_px",
                wireframe: "wireframe",
                criterion: "criterion",
                _pad: _,
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
            "kernel_chained_hash.wgsl",
            Wgsl::Struct("ChainedHashParams"),
            ChainedHashParams { elements: "elements", bucket_log2: "bucket_log2", node_capacity: "node_capacity", queries: "queries" }
        ),
        mirror!("kernel_chained_hash.wgsl", Wgsl::Struct("ChainNode"), ChainNode { key: "key", value: "value", next: "next" }),
        mirror!(
            "kernel_compact_hash.wgsl",
            Wgsl::Struct("CompactHashParams"),
            CompactHashParams { vectors: "vectors", length: "length", slot_log2: "slot_log2", bucket_log2: "bucket_log2" }
        ),
        mirror!(
            "kernel_closest_pairs_grid.wgsl",
            Wgsl::Struct("ClosestPairsParams"),
            ClosestPairsParams {
                a_count: "a_count",
                b_count: "b_count",
                dims: ["dim_x", "dim_y", "dim_z"],
                candidates: "candidates",
                top: "top",
                zero: "zero",
                origin: "origin",
                cell_size_m: "cell_size_m",
                inv_cell_size: "inv_cell_size",
                slack: "slack",
                pad1: _,
            }
        ),
        mirror!("kernel_closest_pairs_grid.wgsl", Wgsl::Elements("nearest"), Nearest { d2_bits: "x", b: "y" }),
        mirror!(
            "kernel_shift_and.wgsl",
            Wgsl::Struct("ShiftAndParams"),
            ShiftAndParams {
                patterns: "patterns",
                text_len: "text_len",
                chunk_len: "chunk_len",
                chunks: "chunks",
                capacity: "capacity",
                total_words: "total_words",
                module_pattern_count: "module_pattern_count",
                pad: _,
            }
        ),
        mirror!(
            "kernel_shift_and.wgsl",
            Wgsl::Struct("Word"),
            Word { rep: "rep", ebeg: "ebeg", eend: "eend", eblk: "eblk", first: "first", len: "len", pad: _ }
        ),
    ]
}

/// A WGSL type's members as (name, offset, size) and its size (a struct's span, an array's stride).
fn wgsl_layout(module: &naga::Module, wgsl: &Wgsl) -> (Vec<(String, usize, usize)>, usize) {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let find_struct = |name: &str| {
        module.types.iter().find(|(_, t)| t.name.as_deref() == Some(name)).unwrap_or_else(|| panic!("no WGSL struct {name}")).0
    };
    let members_of = |ty: naga::Handle<naga::Type>| -> Vec<(String, usize, usize)> {
        match &module.types[ty].inner {
            naga::TypeInner::Struct { members, .. } => members
                .iter()
                .map(|m| {
                    // A runtime-sized array has size 0 here: the buffer's tail, not the header.
                    let runtime = matches!(module.types[m.ty].inner, naga::TypeInner::Array { size: naga::ArraySize::Dynamic, .. });
                    (m.name.clone().unwrap_or_default(), m.offset as usize, if runtime { 0 } else { layouter[m.ty].size as usize })
                })
                .collect(),
            naga::TypeInner::Vector { size, scalar } => ["x", "y", "z", "w"][..*size as usize]
                .iter()
                .enumerate()
                .map(|(i, c)| (c.to_string(), i * scalar.width as usize, scalar.width as usize))
                .collect(),
            other => panic!("unexpected WGSL type {other:?}"),
        }
    };
    match wgsl {
        Wgsl::Struct(name) => {
            let ty = find_struct(name);
            (members_of(ty), layouter[ty].size as usize)
        }
        Wgsl::Elements(path) => {
            let array = match path.split_once('.') {
                Some((name, member)) => match &module.types[find_struct(name)].inner {
                    naga::TypeInner::Struct { members, .. } => {
                        members.iter().find(|m| m.name.as_deref() == Some(member)).unwrap_or_else(|| panic!("no member {path}")).ty
                    }
                    _ => unreachable!(),
                },
                None => {
                    module
                        .global_variables
                        .iter()
                        .find(|(_, g)| g.name.as_deref() == Some(*path))
                        .unwrap_or_else(|| panic!("no global {path}"))
                        .1
                        .ty
                }
            };
            match module.types[array].inner {
                naga::TypeInner::Array { base, stride, .. } => (members_of(base), stride as usize),
                ref other => panic!("{path} is not an array: {other:?}"),
            }
        }
    }
}

/// Compares one mirror with its WGSL type; returns what disagrees.
fn mirror_mismatches(mirror: &Mirror) -> Vec<String> {
    let source = shader_source(mirror.shader).unwrap_or_else(|| panic!("{}: unknown shader", mirror.shader));
    let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{}: {}", mirror.shader, e.emit_to_string(&source)));
    let (members, mut wgsl_size) = wgsl_layout(&module, &mirror.wgsl);
    let mut errors = Vec::new();
    for pad in &mirror.padding {
        if !is_padding(pad) {
            errors.push(format!("Rust field {pad} is mapped to _ but is not named as padding"));
        }
    }
    let mut matched = HashSet::new();
    for (i, (name, offset, size)) in members.iter().enumerate() {
        // A trailing runtime-sized array is the buffer's tail after the mirrored header.
        if i + 1 == members.len() && *size == 0 {
            if *offset != mirror.size {
                errors.push(format!("the array {name} starts at {offset}, after a Rust header of {} bytes", mirror.size));
            }
            wgsl_size = *offset;
            continue;
        }
        if is_padding(name) {
            continue;
        }
        match mirror.fields.iter().find(|(member, _, _)| member == name) {
            None => errors.push(format!("WGSL member {name} has no Rust field")),
            Some((_, rust_offset, rust_size)) => {
                matched.insert(name.as_str());
                if rust_offset != offset || rust_size != size {
                    errors.push(format!("{name}: WGSL offset {offset} size {size}, Rust offset {rust_offset} size {rust_size}"));
                }
            }
        }
    }
    for (member, _, _) in &mirror.fields {
        if !matched.contains(member) {
            errors.push(format!("Rust maps a field to {member}, which WGSL lacks"));
        }
    }
    if wgsl_size != mirror.size {
        errors.push(format!("WGSL size {wgsl_size}, Rust size {}", mirror.size));
    }
    errors
}

#[test]
fn rust_structs_match_their_wgsl_layout() {
    let mut errors = Vec::new();
    for mirror in mirrors() {
        for error in mirror_mismatches(&mirror) {
            errors.push(format!("{} ({}): {error}", mirror.rust, mirror.shader));
        }
    }
    assert!(errors.is_empty(), "Rust and WGSL layouts disagree:\n{}", errors.join("\n"));
}

/// A WGSL constant's value, as naga evaluates it.
#[derive(Debug, PartialEq)]
enum Value {
    U32(u32),
    I32(i32),
    F32(f32),
}

/// The value of `const name` in `shader` (includes resolved).
fn wgsl_constant(shader: &str, name: &str) -> Value {
    let source = shader_source(shader).unwrap_or_else(|| panic!("{shader}: unknown shader"));
    let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{shader}: {}", e.emit_to_string(&source)));
    let constant =
        module.constants.iter().find(|(_, c)| c.name.as_deref() == Some(name)).unwrap_or_else(|| panic!("{shader}: no const {name}")).1;
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => Value::U32(v),
        naga::Expression::Literal(naga::Literal::I32(v)) => Value::I32(v),
        naga::Expression::Literal(naga::Literal::F32(v)) => Value::F32(v),
        ref other => panic!("{shader}: const {name} is {other:?}"),
    }
}

/// The constants shared by Rust and WGSL, as WGSL sees them. Those of the globe, the tile cache,
/// the dispatches, the CBT reduction, the LOD criterion and morphing reach WGSL as generated files
/// (`GENERATED_FILES` below, checked in and kept current by `generated_wgsl_files_are_current`):
/// checked here that they parse back to the Rust values. The
/// diagnostic kernels' constants are still WGSL literals, checked here against Rust: the kernels
/// are to move to a crate of their own, which will carry its own shader sources.
#[test]
fn constants_shared_with_rust_agree() {
    use bisector::cache::{tile_key, tile_layout, tile_table};
    use bisector::kernels::{chained_hash, closest_pairs, compact_hash, shift_and};
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
        ("terrain_draw.wgsl", "MORPH_GRID_BITS", Value::U32(bisector::render::morph::GRID_BITS)),
        ("terrain_draw.wgsl", "MORPH_END", Value::F32(bisector::render::morph::MORPH_END)),
        ("terrain_draw.wgsl", "LEB_BASE_DEPTH", Value::U32(bisector::leb::cpu::BASE_DEPTH)),
        ("kernel_chained_hash.wgsl", "NOT_FOUND", Value::U32(chained_hash::NOT_FOUND)),
        ("kernel_closest_pairs_grid.wgsl", "NONE", Value::U32(closest_pairs::NONE)),
        ("kernel_compact_hash.wgsl", "NEW_BIT", Value::U32(compact_hash::NEW_BIT)),
        ("kernel_compact_hash.wgsl", "REFERENCE_MASK", Value::U32(compact_hash::REFERENCE_MASK)),
        ("kernel_compact_hash.wgsl", "FAILED", Value::U32(compact_hash::FAILED)),
        ("kernel_compact_hash.wgsl", "ZERO_REFERENCE", Value::U32(compact_hash::ZERO_REFERENCE)),
        ("kernel_compact_hash.wgsl", "MAX_PROBED_BUCKETS", Value::U32(compact_hash::MAX_PROBED_BUCKETS)),
        ("kernel_compact_hash.wgsl", "MAX_HASHES", Value::U32(compact_hash::MAX_HASHES)),
        ("kernel_compact_hash.wgsl", "MAX_LENGTH", Value::U32(compact_hash::MAX_LENGTH)),
        ("kernel_shift_and.wgsl", "MAX_WORDS", Value::U32(shift_and::MAX_WORDS as u32)),
        ("kernel_shift_and.wgsl", "PATTERNS_PER_GROUP", Value::U32(shift_and::PATTERNS_PER_GROUP)),
        ("kernel_chained_hash.wgsl", "GOLDEN_FRACTION", Value::U32(chained_hash::GOLDEN_FRACTION)),
        ("kernel_closest_pairs_top.wgsl", "CHUNK", Value::U32(closest_pairs::TOP_CHUNK)),
        ("kernel_compact_hash.wgsl", "GOLDEN", Value::U32(compact_hash::GOLDEN)),
        ("kernel_compact_hash_uncompressed.wgsl", "READY_BIT", Value::U32(compact_hash::READY_BIT)),
    ];
    let mut errors = Vec::new();
    for (shader, name, value) in expected {
        let got = wgsl_constant(shader, name);
        if got != value {
            errors.push(format!("{shader}: {name} is {got:?} in WGSL, {value:?} in Rust"));
        }
    }
    assert!(errors.is_empty(), "WGSL constants disagree with Rust:\n{}", errors.join("\n"));
}

/// The CBT reduction's workgroup memory, as the device limit check counts it.
#[test]
fn cbt_reduce_workgroup_memory_matches_rust() {
    let source = shader_source("cbt_reduce.wgsl").unwrap();
    let module = naga::front::wgsl::parse_str(&source).unwrap();
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let bytes: u64 = module
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
        .map(|(_, g)| layouter[g.ty].size as u64)
        .sum();
    assert_eq!(bytes, bisector::cbt::reduce::WORKGROUP_STORAGE_BYTES, "cbt_reduce.wgsl's workgroup variables");
}

/// Buffers that Rust lays out as words, not as a struct: the tile feedback's header (its slots
/// follow `HEADER_WORDS` words) and `FrameStats` read as four words by the update passes.
#[test]
fn word_layouts_match_rust() {
    let source = shader_source("kernel_tile_table.wgsl").unwrap();
    let module = naga::front::wgsl::parse_str(&source).unwrap();
    let (members, _) = wgsl_layout(&module, &Wgsl::Struct("TileFeedback"));
    let words = members.iter().find(|(name, _, _)| name == "words").expect("TileFeedback.words").1;
    assert_eq!(words, 4 * bisector::cache::tile_feedback::HEADER_WORDS as usize, "TileFeedback's slots start after HEADER_WORDS words");

    let source = shader_source("leb_update.wgsl").unwrap();
    let module = naga::front::wgsl::parse_str(&source).unwrap();
    let stats_words = module.global_variables.iter().find(|(_, g)| g.name.as_deref() == Some("stats_words")).expect("stats_words").1;
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    assert_eq!(layouter[stats_words.ty].size as usize, std::mem::size_of::<FrameStats>(), "stats_words is FrameStats as words");
}

/// Makes the text of a generated WGSL file.
type GenerateWgsl = fn() -> String;

/// WGSL files generated from Rust constants. They are checked in, so that `gpu::shader` embeds
/// them without naming the modules that own the constants (`gpu` is the bottom layer), and kept
/// current here; `BISECTOR_UPDATE_GENERATED=1` rewrites them. (shared/globe_base_mesh.wgsl has
/// its own test beside `BaseMesh::to_wgsl`.)
const GENERATED_FILES: &[(&str, GenerateWgsl)] = &[
    ("shared/globe_constants.wgsl", bisector::globe::constants_wgsl),
    ("shared/tile_constants.wgsl", bisector::cache::constants_wgsl),
    ("shared/dispatch_constants.wgsl", bisector::gpu::dispatch::constants_wgsl),
    ("shared/lod_constants.wgsl", bisector::leb::lod::constants_wgsl),
    ("shared/morph_constants.wgsl", bisector::render::morph::constants_wgsl),
    ("shared/cbt_reduce_constants.wgsl", bisector::cbt::reduce::constants_wgsl),
    ("shared/leb_constants.wgsl", bisector::leb::cpu::constants_wgsl),
];

#[test]
fn generated_wgsl_files_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let update = std::env::var_os("BISECTOR_UPDATE_GENERATED").is_some();
    for (name, generate) in GENERATED_FILES {
        let path = root.join(name);
        let expected = generate();
        if update {
            std::fs::write(&path, &expected).unwrap();
            continue;
        }
        let embedded = SHADER_FILES.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} is not embedded (SHADER_FILES)")).1;
        assert_eq!(
            embedded, expected,
            "shaders/{name} is out of date: run BISECTOR_UPDATE_GENERATED=1 cargo test --test shaders generated"
        );
    }
}
