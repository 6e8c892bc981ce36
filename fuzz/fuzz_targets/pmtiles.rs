//! Fuzz target: a PMTiles v3 header and directory (`pmtiles::Header::parse`, `pmtiles::parse_directory`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use bisector::terrain::pmtiles;
    let _ = pmtiles::Header::parse(data);
    if let Ok(entries) = pmtiles::parse_directory(data) {
        for id in entries.iter().map(|e| e.tile_id).take(16) {
            let _ = pmtiles::find_entry(&entries, id);
        }
    }
});
