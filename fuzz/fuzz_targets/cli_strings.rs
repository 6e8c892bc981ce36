//! Fuzz target: the CLI's size, camera, globe camera and lon,lat strings (`bisector::cli`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = bisector::cli::parse_size(&text);
    // An existing file would be read as a camera path: fuzz the strings only.
    if !std::path::Path::new(text.as_ref()).exists() {
        let _ = bisector::cli::parse_camera(&text);
    }
    let _ = bisector::cli::parse_globe_camera(&text);
    let _ = bisector::cli::parse_lon_lat(&text);
});
