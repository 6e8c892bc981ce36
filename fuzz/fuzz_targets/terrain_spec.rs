//! Fuzz target: `--terrain` specs, including `FILE.png:SCALE_M:SIZE_M` (`TerrainSpec::parse`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bisector::terrain::TerrainSpec::parse(&String::from_utf8_lossy(data));
});
