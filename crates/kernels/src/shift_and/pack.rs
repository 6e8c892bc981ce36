//! Units: patterns of one module packed several to a 32-bit word, so one GPU step advances them
//! all (the CPU twin of how the passes see the patterns).
//!
//! A word holds consecutive patterns side by side, each in its own bit range, their masks shifted
//! there. Nothing crosses from one pattern into the next: the shift moves a pattern's last state
//! into the next pattern's first state, which is OR-ed with First before the AND with Ch anyway;
//! Rep and Ch act bit by bit; and the closure's subtraction borrows from a run's Ebeg bit no
//! further than its Eend bit, which lies in the same pattern. So a unit's step is every pattern's
//! step at once, and a pattern matches where its final bit (one of the unit's `finals`) is set.
//!
//! Counting matches per pattern without a branch per byte: the GPU adds `(state & finals) >>
//! shift` to an accumulator, so pattern j's count grows in the field that starts at its final bit
//! (`fields[j]`) and reaches up to the next pattern's final bit. Every field is at least
//! FIELD_BITS bits wide (padding bits, never set, go between patterns shorter than that; the last
//! field ends at bit 31), and the accumulator is emptied into per-pattern counts every
//! 2^FIELD_BITS - 1 bytes at most, so no field overflows into the next. A pattern of several
//! modules is a unit of its own.

use super::pattern::{Compiled, Word};

/// Patterns one word holds at most.
pub const MAX_PACKED: usize = 8;
/// Bits each pattern's count field takes at least in the GPU's accumulator. Keep in sync with
/// FIELD_BITS in shaders/kernel_shift_and.wgsl.
pub const FIELD_BITS: u32 = 4;

/// Patterns that one GPU thread runs together: several of one module in one word, or one pattern
/// of several modules.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The unit's patterns are first_pattern.. first_pattern + patterns, in order.
    pub first_pattern: u32,
    pub patterns: u32,
    /// The words and masks of all its patterns.
    pub compiled: Compiled,
    /// One final bit per pattern in the last word, in pattern order.
    pub finals: u32,
    /// The accumulator takes (state & finals) >> shift: 0 unless a pattern's final bit lies
    /// above 31 - FIELD_BITS (a unit of one pattern then).
    pub shift: u32,
    /// Where each pattern's count field starts in the accumulator (final bit - shift).
    pub fields: [u8; MAX_PACKED],
}

impl Unit {
    fn alone(first_pattern: u32, c: &Compiled) -> Unit {
        let fin = c.final_bit().trailing_zeros();
        let shift = fin.saturating_sub(32 - FIELD_BITS);
        let mut fields = [0; MAX_PACKED];
        fields[0] = (fin - shift) as u8;
        Unit { first_pattern, patterns: 1, compiled: c.clone(), finals: 1 << fin, shift, fields }
    }

    /// Adds a one-module pattern above the ones it has, if it fits: its count field and the
    /// previous one at least FIELD_BITS wide, below MAX_PACKED patterns.
    fn try_add(&mut self, c: &Compiled) -> bool {
        let len = c.words[0].len;
        let word = self.compiled.words[0];
        let pad = FIELD_BITS.saturating_sub(len);
        let start = word.len + pad;
        let fin = start + len - 1;
        if self.compiled.words.len() != 1 || self.shift != 0 || self.patterns as usize == MAX_PACKED || fin > 31 - FIELD_BITS {
            return false;
        }
        let add = c.words[0];
        self.compiled.words[0] = Word {
            rep: word.rep | add.rep << start,
            ebeg: word.ebeg | add.ebeg << start,
            eend: word.eend | add.eend << start,
            eblk: word.eblk | add.eblk << start,
            first: word.first | add.first << start,
            len: fin + 1,
            pad: [0; 2],
        };
        for (m, a) in self.compiled.ch.iter_mut().zip(&c.ch) {
            *m |= a << start;
        }
        self.compiled.states += c.states;
        self.fields[self.patterns as usize] = fin as u8;
        self.finals |= 1 << fin;
        self.patterns += 1;
        true
    }

    /// The pattern (an index into the whole list) whose final bit is `bit`.
    pub fn pattern_of(&self, bit: u32) -> u32 {
        self.first_pattern + (self.finals & ((1 << bit) - 1)).count_ones()
    }
}

/// Packs `compiled` (in order) into units: consecutive one-module patterns share a word while
/// they fit; a pattern of several modules is a unit alone.
pub fn pack(compiled: &[Compiled]) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for (p, c) in compiled.iter().enumerate() {
        let fits = c.words.len() == 1 && units.last_mut().is_some_and(|u| u.try_add(c));
        if !fits {
            units.push(Unit::alone(p as u32, c));
        }
    }
    units
}

/// Every end position of each of the unit's patterns in `text`, from one run of the packed word
/// (the CPU twin of the GPU's view: equal to each pattern's own `match_ends`).
pub fn unit_match_ends(unit: &Unit, text: &[u8]) -> Vec<Vec<u32>> {
    let c = &unit.compiled;
    let mut d = vec![0u32; c.words.len()];
    let last = c.words.len() - 1;
    let mut out = vec![Vec::new(); unit.patterns as usize];
    for (i, &b) in text.iter().enumerate() {
        super::pattern::step(c, &mut d, b);
        let mut hits = d[last] & unit.finals;
        while hits != 0 {
            let bit = hits.trailing_zeros();
            hits &= hits - 1;
            out[(unit.pattern_of(bit) - unit.first_pattern) as usize].push(i as u32);
        }
    }
    out
}

/// The GPU's count of each of the unit's patterns over `text`: the accumulator of fields emptied
/// every `flush_bytes` bytes (at most 2^FIELD_BITS - 1 for exact counts).
pub fn unit_counts(unit: &Unit, text: &[u8], flush_bytes: usize) -> Vec<u32> {
    let c = &unit.compiled;
    let mut d = vec![0u32; c.words.len()];
    let last = c.words.len() - 1;
    let mut counts = vec![0u32; unit.patterns as usize];
    let mut acc = 0u32;
    let flush = |acc: &mut u32, counts: &mut [u32]| {
        for (count, &at) in counts.iter_mut().zip(&unit.fields) {
            *count += (*acc >> at) & ((1 << FIELD_BITS) - 1);
        }
        *acc = 0;
    };
    for (i, &b) in text.iter().enumerate() {
        super::pattern::step(c, &mut d, b);
        acc = acc.wrapping_add((d[last] & unit.finals) >> unit.shift);
        if (i + 1) % flush_bytes == 0 {
            flush(&mut acc, &mut counts);
        }
    }
    flush(&mut acc, &mut counts);
    counts
}

#[cfg(test)]
mod tests {
    use super::super::{compile, make_workload, match_ends, parse};
    use super::*;

    fn compiled(patterns: &[Vec<u8>]) -> Vec<Compiled> {
        patterns.iter().map(|p| compile(&parse(p).unwrap()).unwrap()).collect()
    }

    #[test]
    fn packed_patterns_match_as_they_do_alone() {
        let mut patterns: Vec<Vec<u8>> = make_workload(300, 32, 0, b"abc", 7).patterns;
        // Short ones (padded), a leading optional run, one of 32 states (a shifted field), one of
        // two modules in between.
        for p in [&b"a"[..], b"b?c", b"c*", b"a?b?c?a", b"[ab].{30}", b"ab", b"a.{40}b", b"c", b"b+"] {
            patterns.push(p.to_vec());
        }
        let compiled = compiled(&patterns);
        let units = pack(&compiled);
        assert!(units.len() < patterns.len() / 2, "{} units for {} patterns", units.len(), patterns.len());
        assert_eq!(units.iter().map(|u| u.patterns).sum::<u32>() as usize, patterns.len());
        let text: Vec<u8> = make_workload(1, 8, 20_000, b"abc", 8).text;
        for u in &units {
            assert!(u.patterns as usize <= MAX_PACKED && u.finals.count_ones() == u.patterns);
            let ends = unit_match_ends(u, &text);
            let counts = unit_counts(u, &text, (1 << FIELD_BITS) - 1);
            for k in 0..u.patterns as usize {
                let alone = match_ends(&compiled[u.first_pattern as usize + k], &text);
                assert_eq!(ends[k], alone, "pattern {}", String::from_utf8_lossy(&patterns[u.first_pattern as usize + k]));
                assert_eq!(counts[k] as usize, alone.len());
            }
        }
        // Flushing less often than the fields allow loses counts ("a" matches a third of the bytes).
        let a = units.iter().find(|u| u.patterns > 1 && (0..u.patterns).any(|k| patterns[(u.first_pattern + k) as usize] == b"a")).unwrap();
        let k = (0..a.patterns).find(|&k| patterns[(a.first_pattern + k) as usize] == b"a").unwrap() as usize;
        assert_ne!(unit_counts(a, &text, 64)[k] as usize, unit_match_ends(a, &text)[k].len());
    }
}
