//! Fuzz target: one Terrain-RGB/Terrarium PNG tile (`tile_files::decode_tile`, `tile_size_px`).
#![no_main]
use bisector::terrain::pyramid::Encoding;
use bisector::terrain::tile_files::{decode_tile, tile_size_px};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = tile_size_px(data, "fuzz.png");
    for size_px in [8, 256] {
        let _ = decode_tile(data, Encoding::TerrainRgb, size_px, "fuzz.png");
        let _ = decode_tile(data, Encoding::Terrarium, size_px, "fuzz.png");
    }
});
