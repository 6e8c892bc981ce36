//! Fuzz target: globe camera paths (`GlobePath::parse`), sampled when they parse.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(path) = bisector::bench::globe_path::GlobePath::parse(&String::from_utf8_lossy(data), "fuzz.json") {
        let _ = path.sample(path.duration_s() * 0.37).camera();
    }
});
