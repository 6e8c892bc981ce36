//! Patterns: the parser, the compiler to 32-bit modules, the CPU step (the reference) and a naive
//! backtracking matcher (for tests).

use super::MAX_WORDS;

/// Why a pattern cannot be used: it does not parse, or does not fit the modules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("'{pattern}': ends with a lone \\")]
    LoneBackslash { pattern: String },
    #[error("'{pattern}': unclosed [")]
    UnclosedClass { pattern: String },
    #[error("'{pattern}': range {from}-{to} is reversed")]
    ReversedRange { pattern: String, from: char, to: char },
    #[error("'{pattern}': {repeat} at byte {at} repeats nothing")]
    RepeatsNothing { pattern: String, repeat: char, at: usize },
    #[error("'{pattern}': unclosed {{")]
    UnclosedRepeat { pattern: String },
    #[error("'{pattern}': bad repeat {{{inner}}} (expected {{x}}, {{x,}} or {{x,y}} with x <= y, y >= 1)")]
    BadRepeat { pattern: String, inner: String },
    #[error("'{pattern}': two repeats in a row at byte {at}")]
    TwoRepeats { pattern: String, at: usize },
    #[error("an empty pattern matches nothing")]
    Empty,
    #[error("an optional run of {states} states does not fit a 32-bit module (at most 31 after a mandatory state)")]
    RunTooLong { states: u32 },
    #[error("{states} states need {modules} modules; at most {MAX_WORDS} (of 32 states) are supported")]
    TooManyModules { states: usize, modules: usize },
}

/// A set of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteSet(pub [u64; 4]);

impl ByteSet {
    pub fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] >> (b & 63) & 1 == 1
    }
    fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }
}

/// One atom with its repetition: between `min` and `max` (None: unbounded) bytes of `set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub set: ByteSet,
    pub min: u32,
    pub max: Option<u32>,
}

/// Parses a pattern into items, or says what is wrong.
pub fn parse(pattern: &[u8]) -> Result<Vec<Item>, PatternError> {
    let mut items = Vec::new();
    let mut i = 0;
    let text = || String::from_utf8_lossy(pattern).into_owned();
    while i < pattern.len() {
        let mut set = ByteSet([0; 4]);
        match pattern[i] {
            b'.' => set = ByteSet([u64::MAX; 4]),
            b'\\' => {
                i += 1;
                set.insert(*pattern.get(i).ok_or_else(|| PatternError::LoneBackslash { pattern: text() })?);
            }
            b'[' => {
                i += 1;
                let negate = pattern.get(i) == Some(&b'^');
                if negate {
                    i += 1;
                }
                let start = i;
                loop {
                    let Some(&c) = pattern.get(i) else { return Err(PatternError::UnclosedClass { pattern: text() }) };
                    if c == b']' && i > start {
                        break;
                    }
                    let c = if c == b'\\' {
                        i += 1;
                        *pattern.get(i).ok_or_else(|| PatternError::UnclosedClass { pattern: text() })?
                    } else {
                        c
                    };
                    if pattern.get(i + 1) == Some(&b'-') && pattern.get(i + 2).is_some_and(|&e| e != b']') {
                        let end = pattern[i + 2];
                        if end < c {
                            return Err(PatternError::ReversedRange { pattern: text(), from: c as char, to: end as char });
                        }
                        for b in c..=end {
                            set.insert(b);
                        }
                        i += 3;
                    } else {
                        set.insert(c);
                        i += 1;
                    }
                }
                if negate {
                    set = ByteSet(set.0.map(|w| !w));
                }
            }
            b'?' | b'*' | b'+' | b'{' => return Err(PatternError::RepeatsNothing { pattern: text(), repeat: pattern[i] as char, at: i }),
            c => set.insert(c),
        }
        i += 1;
        let (mut min, mut max) = (1, Some(1));
        match pattern.get(i) {
            Some(b'?') => (min, max, i) = (0, Some(1), i + 1),
            Some(b'*') => (min, max, i) = (0, None, i + 1),
            Some(b'+') => (min, max, i) = (1, None, i + 1),
            Some(b'{') => {
                let close =
                    pattern[i..].iter().position(|&c| c == b'}').ok_or_else(|| PatternError::UnclosedRepeat { pattern: text() })? + i;
                let inner = std::str::from_utf8(&pattern[i + 1..close]).unwrap_or("");
                let bad = || PatternError::BadRepeat { pattern: text(), inner: inner.to_string() };
                let number = |s: &str| s.trim().parse::<u32>().ok().filter(|&n| n <= 256);
                (min, max) = match inner.split_once(',') {
                    None => number(inner).map(|n| (n, Some(n))).ok_or_else(bad)?,
                    Some((x, "")) => (number(x).ok_or_else(bad)?, None),
                    Some((x, y)) => (number(x).ok_or_else(bad)?, Some(number(y).ok_or_else(bad)?)),
                };
                if max.is_some_and(|y| y < min || y == 0) {
                    return Err(bad());
                }
                i = close + 1;
            }
            _ => {}
        }
        if matches!(pattern.get(i), Some(b'?' | b'*' | b'+' | b'{')) {
            return Err(PatternError::TwoRepeats { pattern: text(), at: i });
        }
        items.push(Item { set, min, max });
    }
    if items.is_empty() {
        return Err(PatternError::Empty);
    }
    Ok(items)
}

/// One NFA position: a byte set, optional (may be skipped), repeatable (may take more bytes).
#[derive(Clone, Copy, Debug)]
struct Position {
    set: ByteSet,
    optional: bool,
    repeat: bool,
}

fn positions(items: &[Item]) -> Vec<Position> {
    let mut out = Vec::new();
    for item in items {
        match item.max {
            None if item.min == 0 => out.push(Position { set: item.set, optional: true, repeat: true }),
            None => {
                for k in 0..item.min {
                    out.push(Position { set: item.set, optional: false, repeat: k + 1 == item.min });
                }
            }
            Some(max) => {
                for k in 0..max {
                    out.push(Position { set: item.set, optional: k >= item.min, repeat: false });
                }
            }
        }
    }
    out
}

/// One 32-bit module of a compiled pattern. Keep in sync with Word in shaders/kernel_shift_and.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Word {
    pub rep: u32,
    pub ebeg: u32,
    pub eend: u32,
    pub eblk: u32,
    pub first: u32,
    /// States in this word (1..=32): the shift carries bit len - 1 into the next word.
    pub len: u32,
    pub pad: [u32; 2],
}

/// A pattern compiled into modules: masks per byte and word.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub words: Vec<Word>,
    /// ch[w * 256 + byte]
    pub ch: Vec<u32>,
    /// States in all.
    pub states: usize,
}

impl Compiled {
    /// The last state's bit in the last word.
    pub fn final_bit(&self) -> u32 {
        1 << (self.words.last().map_or(1, |w| w.len) - 1)
    }
}

/// Compiles items into Shift-And modules.
pub fn compile(items: &[Item]) -> Result<Compiled, PatternError> {
    let positions = positions(items);
    // Units: a mandatory position with the optional run after it (or the leading optional run).
    let mut units: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    for i in 1..=positions.len() {
        if i == positions.len() || !positions[i].optional {
            units.push(start..i);
            start = i;
        }
    }
    // Pack units into words; a unit must fit in one word.
    let mut word_of = vec![(0usize, 0u32); positions.len()];
    let (mut word, mut used) = (0usize, 0u32);
    for unit in &units {
        let size = unit.len() as u32;
        if size > 32 {
            return Err(PatternError::RunTooLong { states: size - 1 });
        }
        if used + size > 32 {
            word += 1;
            used = 0;
        }
        for (k, p) in unit.clone().enumerate() {
            word_of[p] = (word, used + k as u32);
        }
        used += size;
    }
    let word_count = word + 1;
    if word_count > MAX_WORDS {
        return Err(PatternError::TooManyModules { states: positions.len(), modules: word_count });
    }
    let mut words = vec![Word::default(); word_count];
    let mut ch = vec![0u32; word_count * 256];
    for (p, pos) in positions.iter().enumerate() {
        let (w, bit) = word_of[p];
        words[w].len = words[w].len.max(bit + 1);
        for b in 0..=255u8 {
            if pos.set.contains(b) {
                ch[w * 256 + b as usize] |= 1 << bit;
            }
        }
        if pos.repeat {
            words[w].rep |= 1 << bit;
        }
        if pos.optional {
            words[w].eblk |= 1 << bit;
            if p + 1 == positions.len() || !positions[p + 1].optional {
                words[w].eend |= 1 << bit;
            }
            if p == 0 {
                words[w].ebeg |= 1 << bit;
            } else if !positions[p - 1].optional {
                let (w0, b0) = word_of[p - 1];
                words[w0].ebeg |= 1 << b0;
            }
        }
    }
    // First: position 0, and through a leading optional run the position after it.
    for (p, pos) in positions.iter().enumerate() {
        let (w, bit) = word_of[p];
        words[w].first |= 1 << bit;
        if !pos.optional {
            break;
        }
    }
    Ok(Compiled { words, ch, states: positions.len() })
}

/// One Shift-And step of all words of `c` on byte `b` (the GPU's step, word by word).
pub fn step(c: &Compiled, d: &mut [u32], b: u8) {
    let mut carry = 0;
    for (w, word) in c.words.iter().enumerate() {
        let old = d[w];
        let m = c.ch[w * 256 + b as usize];
        let mut x = (((old << 1) | carry | word.first) & m) | (old & word.rep & m);
        let df = x | word.eend;
        x |= word.eblk & (!(df.wrapping_sub(word.ebeg)) ^ df);
        carry = (old >> (word.len - 1)) & 1;
        d[w] = x;
    }
}

/// Every end position of `c` in `text` (the CPU reference: one sequential scan).
pub fn match_ends(c: &Compiled, text: &[u8]) -> Vec<u32> {
    let mut d = vec![0u32; c.words.len()];
    let last = c.words.len() - 1;
    let fin = c.final_bit();
    let mut out = Vec::new();
    for (i, &b) in text.iter().enumerate() {
        step(c, &mut d, b);
        if d[last] & fin != 0 {
            out.push(i as u32);
        }
    }
    out
}

/// Every end position by backtracking over the items (for tests; slow).
pub fn naive_match_ends(items: &[Item], text: &[u8]) -> Vec<u32> {
    fn full(items: &[Item], s: &[u8]) -> bool {
        let Some((item, rest)) = items.split_first() else { return s.is_empty() };
        let max = item.max.map_or(s.len(), |m| (m as usize).min(s.len()));
        for count in 0..=max {
            if count > 0 && !item.set.contains(s[count - 1]) {
                return false;
            }
            if count >= item.min as usize && full(rest, &s[count..]) {
                return true;
            }
        }
        false
    }
    (0..text.len()).filter(|&j| (0..=j).any(|i| full(items, &text[i..=j]))).map(|j| j as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(pattern: &str, text: &str) -> Vec<u32> {
        match_ends(&compile(&parse(pattern.as_bytes()).unwrap()).unwrap(), text.as_bytes())
    }

    #[test]
    fn extended_patterns() {
        assert_eq!(ends("abc", "xabcabc"), vec![3, 6]);
        assert_eq!(ends("ab?c", "acabcabbc"), vec![1, 4]);
        assert_eq!(ends("ab*c", "acabbbc"), vec![1, 6]);
        assert_eq!(ends("ab+c", "acabbbc"), vec![6]);
        assert_eq!(ends("a[xy]{2,3}b", "axbaxybaxyxbaxyxyb"), vec![6, 11]);
        assert_eq!(ends("[a-c]+", "zabz"), vec![1, 2]);
        assert_eq!(ends("[^a]", "aab"), vec![2]);
        assert_eq!(ends("a?b?", "xaby"), vec![1, 2]);
        assert_eq!(ends("a.c", "abcaXc"), vec![2, 5]);
        assert_eq!(ends("\\.", "a.b"), vec![1]);
        assert_eq!(ends("a{2,}", "aaaba"), vec![1, 2]);
    }

    #[test]
    fn long_patterns_take_several_modules() {
        let long: String = "ab?".repeat(30) + "c";
        let c = compile(&parse(long.as_bytes()).unwrap()).unwrap();
        assert!(c.words.len() >= 2);
        let text = "ab".repeat(10) + &"a".repeat(25) + "c" + &"ab".repeat(30) + "c";
        assert_eq!(match_ends(&c, text.as_bytes()), naive_match_ends(&parse(long.as_bytes()).unwrap(), text.as_bytes()));
    }

    #[test]
    fn bad_patterns() {
        for bad in ["", "*a", "a**", "[ab", "a{3,1}", "a{0}", "a{x}", "[z-a]", "a\\", "a{0,40}"] {
            assert!(parse(bad.as_bytes()).and_then(|i| compile(&i)).is_err(), "{bad}");
        }
    }
}
