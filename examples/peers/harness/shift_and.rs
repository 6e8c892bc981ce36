//! Shift-and beside a CPU regex engine on all cores: regex-automata's lazy DFA, one per pattern,
//! counting every end position of a match (the kernel's count) over the whole text; the patterns
//! are spread over the cores, so no match crosses a chunk border.

use rayon::prelude::*;
use regex_automata::hybrid::dfa::DFA;
use regex_automata::nfa::thompson;
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, MatchKind};

use bisector::gpu::Gpu;
use bisector_kernels::shift_and::{self as sa, Item, ShiftAnd, ShiftAndInput};
use bisector_kernels::Kernel;

use super::{cpu_threads, timed, Options, PeersError, Row};

/// The bytes of the random text and patterns (`bisector kernel shift-and`'s default).
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

/// The row: the GPU's count-only run and the regex engine, per-pattern counts compared.
pub fn rows(options: &Options) -> Result<Vec<Row>, PeersError> {
    let s = &options.sizes;
    let work = sa::make_workload(s.sa_patterns, s.sa_max_states, s.sa_text_bytes, ALPHABET, options.seed);
    let regexes: Vec<String> = work
        .patterns
        .iter()
        .map(|p| sa::parse(p).map(|items| regex_of(&items)))
        .collect::<Result<_, _>>()
        .map_err(|e| PeersError::Input(e.to_string()))?;
    let input = ShiftAndInput {
        work,
        options: sa::ShiftAndOptions { chunk_len: 0, iterations: options.iterations, capacity: 0, carry: sa::Carry::Scan },
    };
    let gpu = Gpu::headless(&ShiftAnd::requirements(&input))?;
    let report = ShiftAnd::run(&gpu, &input)?;
    let text = &input.work.text;
    let (counts, peer_ms) = timed(options.peer_repeats, || count_all(&regexes, text));
    let label = format!("{} patterns x {} KiB, count only", regexes.len(), text.len() >> 10);
    let peer = format!("regex-automata lazy DFA, {} threads", cpu_threads());
    let row = Row::new("shift-and", label, (Some(report.total_gpu.median_ms), None), &peer, Some(peer_ms));
    Ok(vec![match counts {
        Err(e) => row.checked(false, format!("the regex engine failed: {e}")),
        Ok(counts) => {
            let differ = counts.iter().zip(&report.counts).position(|(&p, &g)| p != g as u64);
            let total: u64 = counts.iter().sum();
            let agree = differ.is_none() && counts.len() == report.counts.len() && report.verified;
            let note = match differ {
                None => format!("per-pattern match counts equal ({total} matches)"),
                Some(i) => format!(
                    "pattern {i} '{}': GPU {} matches, peer {}",
                    String::from_utf8_lossy(&input.work.patterns[i]),
                    report.counts[i],
                    counts[i]
                ),
            };
            row.checked(agree, if report.verified { note } else { format!("{note}; GPU differs from its CPU reference") })
        }
    }])
}

/// Every pattern's count of match end positions in `text`, the patterns spread over the cores.
pub fn count_all(regexes: &[String], text: &[u8]) -> Result<Vec<u64>, String> {
    regexes.par_iter().map(|r| count_matches(r, text)).collect()
}

/// The positions of `text` where a non-empty match of `regex` ends (shift-and's count), by one
/// unanchored pass of a lazy DFA that reports every match (MatchKind::All).
pub fn count_matches(regex: &str, text: &[u8]) -> Result<u64, String> {
    let dfa = DFA::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().utf8(false))
        .configure(DFA::config().match_kind(MatchKind::All))
        .build(regex)
        .map_err(|e| format!("'{regex}': {e}"))?;
    let mut cache = dfa.create_cache();
    let mut state = dfa.start_state(&mut cache, &start::Config::new().anchored(Anchored::No)).map_err(|e| e.to_string())?;
    let mut count = 0u64;
    // A DFA reports a match one byte late: the state after byte i is a match state when a
    // match ends just before byte i; the end of the text reports the last one.
    for &byte in text {
        state = dfa.next_state(&mut cache, state, byte).map_err(|e| e.to_string())?;
        count += state.is_match() as u64;
    }
    state = dfa.next_eoi_state(&mut cache, state).map_err(|e| e.to_string())?;
    Ok(count + state.is_match() as u64)
}

/// A regular expression (bytes, no Unicode) matching exactly the non-empty texts that `items`
/// match: shift-and reports only non-empty matches, so a pattern whose items may all be skipped
/// becomes the union, over each item that could be the first to take a byte, of that item taking
/// at least one byte followed by the rest.
pub fn regex_of(items: &[Item]) -> String {
    let mut alternatives = Vec::new();
    for (k, first) in items.iter().enumerate() {
        let mut out = piece(first, first.min.max(1));
        for item in &items[k + 1..] {
            out += &piece(item, item.min);
        }
        alternatives.push(out);
        if first.min > 0 {
            break;
        }
    }
    alternatives.join("|")
}

/// One item as a class and its repetition, at least `min` times.
fn piece(item: &Item, min: u32) -> String {
    let repeat = match item.max {
        None => format!("{{{min},}}"),
        Some(max) => format!("{{{min},{max}}}"),
    };
    format!("{}{repeat}", class(&item.set))
}

/// A byte set as a character class of byte ranges (an empty set as a class that matches nothing).
fn class(set: &sa::ByteSet) -> String {
    let mut out = String::from("[");
    let mut b = 0u32;
    while b < 256 {
        if !set.contains(b as u8) {
            b += 1;
            continue;
        }
        let first = b;
        while b + 1 < 256 && set.contains(b as u8 + 1) {
            b += 1;
        }
        out += &format!("\\x{first:02X}-\\x{b:02X}");
        b += 1;
    }
    if out.len() == 1 {
        return "[^\\x00-\\xFF]".into();
    }
    out + "]"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_equal_the_reference() {
        let text = b"abcabcaabbcc";
        for pattern in ["ab", "a?b?", "a*", "[ab]+c", ".{0,2}c", "a{2}"] {
            let items = sa::parse(pattern.as_bytes()).unwrap();
            let expected = sa::naive_match_ends(&items, text).len() as u64;
            assert_eq!(count_matches(&regex_of(&items), text).unwrap(), expected, "{pattern}");
        }
    }
}
