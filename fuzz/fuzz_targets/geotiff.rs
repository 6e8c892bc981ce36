//! Fuzz target: the GeoTIFF reader (`bisector::terrain::geotiff::read_bytes`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bisector::terrain::geotiff::read_bytes(data, "fuzz.tif");
});
