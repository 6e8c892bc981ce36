//! Fuzz target: the 16-bit PNG height-map reader (`bisector::terrain::png16::read_bytes`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bisector::terrain::png16::read_bytes(data, "fuzz.png", 0.1, 1000.0);
});
