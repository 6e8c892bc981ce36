//! The kernels' WGSL (crates/kernels/shaders/) passes naga validation, each pass with its
//! includes resolved (from this crate and from bisector-gpu); every file on disk is embedded; the
//! Rust structs that mirror WGSL types have their size and member offsets; the constants the
//! kernels write as WGSL literals equal their Rust values. (The same checks as the renderer's,
//! tests/support/wgsl.rs of the workspace.)

#[macro_use]
#[path = "../../../tests/support/wgsl.rs"]
mod wgsl;

use std::path::Path;

use bisector_kernels::chained_hash::{self, ChainNode, ChainedHashParams};
use bisector_kernels::closest_pairs::{self, ClosestPairsParams, GpuGridParams, Nearest};
use bisector_kernels::compact_hash::{self, CompactHashParams};
use bisector_kernels::shift_and::{self, ShiftAndParams, Word};
use bisector_kernels::SHADERS;
use wgsl::{Mirror, Value, Wgsl};

#[test]
fn every_wgsl_file_validates() {
    wgsl::every_pass_validates(&SHADERS, &[]);
    wgsl::names_are_unique(&[&SHADERS, &bisector_gpu::shader::SHADERS]);
}

#[test]
fn every_shader_file_is_embedded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    wgsl::every_file_is_embedded(&SHADERS, &dir, "SHADERS in crates/kernels/src/shaders.rs");
}

/// Every Rust struct of the kernels that mirrors a WGSL type. Add new mirrors here.
fn mirrors() -> Vec<Mirror> {
    vec![
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
                candidates: "candidates",
                top: "top",
                zero: "zero",
                slots: "slots",
                pad: _,
            }
        ),
        mirror!(
            "kernel_closest_pairs_build.wgsl",
            Wgsl::Struct("GridParams"),
            GpuGridParams {
                dims: ["dim_x", "dim_y", "dim_z"],
                cells: "cells",
                origin: "origin",
                cell_size_m: "cell_size_m",
                inv_cell_size: "inv_cell_size",
                slack: "slack",
                pad: _,
            }
        ),
        mirror!("kernel_closest_pairs_grid.wgsl", Wgsl::Elements("nearest"), Nearest { d2_bits: "x", b: "y" }),
        mirror!(
            "kernel_shift_and.wgsl",
            Wgsl::Struct("ShiftAndParams"),
            ShiftAndParams {
                units: "units",
                text_len: "text_len",
                chunk_len: "chunk_len",
                chunks: "chunks",
                capacity: "capacity",
                total_words: "total_words",
                module_unit_count: "module_unit_count",
                long_capacity: "long_capacity",
            }
        ),
        mirror!(
            "kernel_shift_and.wgsl",
            Wgsl::Struct("Word"),
            Word { rep: "rep", ebeg: "ebeg", eend: "eend", eblk: "eblk", first: "first", len: "len", pad: _ }
        ),
    ]
}

#[test]
fn rust_structs_match_their_wgsl_layout() {
    wgsl::mirrors_match(&SHADERS, mirrors());
}

/// The kernels' constants are WGSL literals, checked here against Rust.
#[test]
fn constants_shared_with_rust_agree() {
    let expected = [
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
        ("kernel_shift_and.wgsl", "MAX_PACKED", Value::U32(shift_and::MAX_PACKED as u32)),
        ("kernel_shift_and.wgsl", "FIELD_BITS", Value::U32(shift_and::FIELD_BITS)),
        ("kernel_shift_and.wgsl", "GROUPS_Y", Value::U32(shift_and::GROUPS_Y)),
        ("kernel_shift_and.wgsl", "SHORT_BYTES", Value::U32(shift_and::SHORT_BYTES)),
        ("kernel_shift_and.wgsl", "LONG_STRIDE", Value::U32(shift_and::LONG_STRIDE as u32)),
        ("kernel_chained_hash.wgsl", "GOLDEN_FRACTION", Value::U32(chained_hash::GOLDEN_FRACTION)),
        ("kernel_closest_pairs_top.wgsl", "CHUNK", Value::U32(closest_pairs::TOP_CHUNK)),
        ("kernel_closest_pairs_build.wgsl", "SCAN_BLOCK", Value::U32(closest_pairs::SCAN_BLOCK)),
        ("kernel_compact_hash.wgsl", "GOLDEN", Value::U32(compact_hash::GOLDEN)),
        ("kernel_compact_hash_uncompressed.wgsl", "READY_BIT", Value::U32(compact_hash::READY_BIT)),
    ];
    wgsl::constants_agree(&SHADERS, &expected);
}
