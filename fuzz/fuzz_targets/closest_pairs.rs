//! Fuzz target: closest-pairs army CSVs (`closest_pairs::parse_army`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bisector_kernels::closest_pairs::parse_army(&String::from_utf8_lossy(data), "fuzz.csv");
});
