//! Fuzz target: shift-and pattern files (`parse_patterns`, then `parse`, `compile` and a CPU match).
#![no_main]
use bisector_kernels::shift_and;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(patterns) = shift_and::parse_patterns(data, "fuzz.txt") {
        for pattern in patterns.iter().take(4) {
            let compiled = shift_and::compile(&shift_and::parse(pattern).expect("parse_patterns checked it")).expect("parse_patterns checked it");
            let _ = shift_and::match_ends(&compiled, b"abcx xxabccccxxxxx q rrr hello.");
        }
    }
});
