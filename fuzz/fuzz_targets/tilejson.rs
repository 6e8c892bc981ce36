//! Fuzz target: a pyramid's TileJSON index (`tile_files::parse_tilejson`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bisector::terrain::tile_files::parse_tilejson(data, "tiles.json");
});
