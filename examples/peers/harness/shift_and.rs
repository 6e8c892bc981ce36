//! Shift-and beside a CPU regex engine on all cores: regex-automata's DFA (fully built, or lazy
//! where that would be large), one per pattern, counting every end position of a match (the
//! kernel's count) over the whole text; the patterns are spread over the cores, so no match
//! crosses a chunk border.

use rayon::prelude::*;
use regex_automata::dfa::{dense, Automaton, StartKind};
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
        options: sa::ShiftAndOptions {
            chunk_len: 0,
            iterations: options.iterations,
            capacity: 0,
            carry: sa::Carry::Scan,
            long_capacity: 0,
        },
    };
    let gpu = Gpu::headless(&ShiftAnd::requirements(&input))?;
    let report = ShiftAnd::run(&gpu, &input)?;
    let text = &input.work.text;
    let (engines, build_ms) = timed(1, || build_all(&regexes));
    let engines = engines.map_err(PeersError::Input)?;
    let dense = engines.iter().filter(|e| matches!(e, Engine::Dense(_))).count();
    let (counts, peer_ms) = timed(options.peer_repeats, || count_all(&engines, text));
    let label = format!("{} patterns x {} KiB, count only", regexes.len(), text.len() >> 10);
    let peer = format!("regex-automata DFA, {} threads", cpu_threads());
    let row = Row::new("shift-and", label, (Some(report.total_gpu.median_ms), None), &peer, Some(peer_ms));
    Ok(vec![match counts {
        Err(e) => row.checked(false, format!("the regex engine failed: {e}")),
        Ok(counts) => {
            let differ = counts.iter().zip(&report.counts).position(|(&p, &g)| p != g as u64);
            let total: u64 = counts.iter().sum();
            let agree = differ.is_none() && counts.len() == report.counts.len() && report.verified;
            let note = match differ {
                None => format!(
                    "per-pattern match counts equal ({total} matches); {dense} dense and {} lazy DFAs built in {build_ms:.1} ms before the timed scan",
                    engines.len() - dense
                ),
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

/// One pattern's DFA: fully built (dense) where it stays under `DENSE_DFA_BYTES`, else lazy.
pub enum Engine {
    Dense(dense::DFA<Vec<u32>>),
    Lazy(DFA),
}

/// Most bytes of a pattern's fully built DFA; a pattern whose DFA would be larger runs on the lazy DFA.
const DENSE_DFA_BYTES: usize = 2 << 20;

/// Every pattern's DFA, built on all cores.
pub fn build_all(regexes: &[String]) -> Result<Vec<Engine>, String> {
    regexes.par_iter().map(|r| build(r)).collect()
}

/// Every pattern's count of match end positions in `text`, the patterns spread over the cores.
pub fn count_all(engines: &[Engine], text: &[u8]) -> Result<Vec<u64>, String> {
    engines.par_iter().map(|e| count(e, text)).collect()
}

/// The DFA of `regex` that reports every match (MatchKind::All) of an unanchored search.
pub fn build(regex: &str) -> Result<Engine, String> {
    let syntax = syntax::Config::new().unicode(false).utf8(false);
    let thompson = thompson::Config::new().utf8(false);
    let limit = Some(DENSE_DFA_BYTES);
    let dense = dense::Builder::new()
        .syntax(syntax)
        .thompson(thompson.clone())
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Unanchored)
                .dfa_size_limit(limit)
                .determinize_size_limit(limit),
        )
        .build(regex);
    match dense {
        Ok(dfa) => Ok(Engine::Dense(dfa)),
        Err(_) => build_lazy(regex),
    }
}

/// The lazy DFA of `regex` (states built as a text needs them), as `build` makes it.
pub fn build_lazy(regex: &str) -> Result<Engine, String> {
    DFA::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().utf8(false))
        .configure(DFA::config().match_kind(MatchKind::All))
        .build(regex)
        .map(Engine::Lazy)
        .map_err(|e| format!("'{regex}': {e}"))
}

/// The positions of `text` where a match of the engine's pattern ends (shift-and's count), by one
/// pass from the unanchored start state. A DFA reports a match one byte late: the state after byte
/// i is a match state when a match ends just before byte i; the end of the text reports the last.
pub fn count(engine: &Engine, text: &[u8]) -> Result<u64, String> {
    let start = start::Config::new().anchored(Anchored::No);
    let mut count = 0u64;
    match engine {
        Engine::Dense(dfa) => {
            let mut state = dfa.start_state(&start).map_err(|e| e.to_string())?;
            for &byte in text {
                state = dfa.next_state(state, byte);
                count += dfa.is_match_state(state) as u64;
            }
            state = dfa.next_eoi_state(state);
            Ok(count + dfa.is_match_state(state) as u64)
        }
        Engine::Lazy(dfa) => {
            let mut cache = dfa.create_cache();
            let mut state = dfa.start_state(&mut cache, &start).map_err(|e| e.to_string())?;
            for &byte in text {
                state = dfa.next_state(&mut cache, state, byte).map_err(|e| e.to_string())?;
                count += state.is_match() as u64;
            }
            state = dfa.next_eoi_state(&mut cache, state).map_err(|e| e.to_string())?;
            Ok(count + state.is_match() as u64)
        }
    }
}

/// `count` of a pattern's regex, its DFA built first (for the tests).
#[cfg(test)]
pub fn count_matches(regex: &str, text: &[u8]) -> Result<u64, String> {
    count(&build(regex)?, text)
}

/// `count_matches` on the lazy DFA (for the tests).
#[cfg(test)]
pub fn count_matches_lazy(regex: &str, text: &[u8]) -> Result<u64, String> {
    count(&build_lazy(regex)?, text)
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
            assert_eq!(count_matches_lazy(&regex_of(&items), text).unwrap(), expected, "{pattern}");
        }
    }
}
