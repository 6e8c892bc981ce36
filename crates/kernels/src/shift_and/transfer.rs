//! A chunk's transfer function (the CPU twin of the `transfer`, `carry_up` and `carry_down`
//! passes) and the chunked matcher built on it.
//!
//! Claim: for a pattern's step on byte c, f_c(S) = K_c | L_c(S) where K_c is a constant and L_c
//! distributes over OR (L_c(A | B) = L_c(A) | L_c(B), L_c(0) = 0). Proof: the step is
//!   x = (((S << 1) | carry(S) | First) & Ch[c]) | (S & Rep & Ch[c]),  then  x |= closure(x),
//! where carry(S) is the previous word's last bit of S. The shift, the carry, AND with a mask and
//! OR all distribute over OR, so before the closure x = (First & Ch[c]) | L'(S) with L'
//! distributive. The closure (the add trick, see mod.rs) works per optional run [s, e] (s the
//! Ebeg bit, e the Eend bit): Df = x | Eend; subtracting the run's Ebeg bit borrows from bit s up
//! to the lowest bit t >= s set in Df (t <= e since bit e is set), so ~(Df - Ebeg) ^ Df has, inside
//! the run, exactly the bits above t, and the step adds the run's bits t + 1 ..= e, where t is the
//! lowest bit of x in [s, e] (or e when there is none, adding nothing). The lowest set bit of
//! A | B in the run is the lower of A's and B's, so the bits added for A | B are those added for
//! A or for B: the closure distributes over OR and maps 0 to 0. Composition keeps the form
//! (f_d(f_c(S)) = K_d | L_d(K_c) | L_d(L_c(S))), so a whole chunk maps S to
//!   F(S) = F(0) | L(S) = z | OR over the bits i of S of L({i}),
//! with z the end state from empty. The row of bit i is L({i}) less z (bits of z change nothing),
//! which is F({i}) less z: run the chunk from {i} and from empty, and take what the first has
//! beyond the second at the end. Once the two runs agree they agree to the end (same state, same
//! bytes), so a row is empty as soon as they do; most rows are, after a byte or two. The chunks'
//! functions compose in the same form (rows of F2 o F1: the F2 rows of the bits of F1's rows),
//! which a parallel scan combines in log2(chunks) levels.

use super::pattern::{step, Compiled};

/// A chunk's transfer function for one pattern: F(S) = z | OR of `rows[i]` for the bits i of S
/// (bit i is word i / 32, bit i % 32; each row has one u32 per word).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub z: Vec<u32>,
    pub rows: Vec<Vec<u32>>,
}

/// Runs `c` over `bytes` from `state` (in place).
pub fn run(c: &Compiled, state: &mut [u32], bytes: &[u8]) {
    for &b in bytes {
        step(c, state, b);
    }
}

impl Transfer {
    /// The transfer function of `bytes` for `c` (what the GPU's `transfer` pass stores).
    pub fn of(c: &Compiled, bytes: &[u8]) -> Transfer {
        let words = c.words.len();
        let mut z = vec![0u32; words];
        run(c, &mut z, bytes);
        let rows = (0..32 * words)
            .map(|i| {
                let mut s = vec![0u32; words];
                if (i % 32) as u32 >= c.words[i / 32].len {
                    return s;
                }
                s[i / 32] = 1 << (i % 32);
                run(c, &mut s, bytes);
                s.iter().zip(&z).map(|(s, z)| s & !z).collect()
            })
            .collect();
        Transfer { z, rows }
    }

    /// F(state).
    pub fn apply(&self, state: &[u32]) -> Vec<u32> {
        let mut out = self.z.clone();
        for (w, &bits) in state.iter().enumerate() {
            for b in 0..32 {
                if bits >> b & 1 == 1 {
                    for (o, r) in out.iter_mut().zip(&self.rows[w * 32 + b]) {
                        *o |= r;
                    }
                }
            }
        }
        out
    }

    /// `self` after `first` (the chunk of `first` comes first): z = self(first.z), rows the
    /// linear part of self applied to first's rows, less z.
    pub fn after(&self, first: &Transfer) -> Transfer {
        let z = self.apply(&first.z);
        let linear = |row: &[u32]| -> Vec<u32> {
            let mut out = vec![0u32; row.len()];
            for (w, &bits) in row.iter().enumerate() {
                for b in 0..32 {
                    if bits >> b & 1 == 1 {
                        for (o, r) in out.iter_mut().zip(&self.rows[w * 32 + b]) {
                            *o |= r;
                        }
                    }
                }
            }
            out.iter().zip(&z).map(|(o, z)| o & !z).collect()
        };
        let rows = first.rows.iter().map(|r| linear(r)).collect();
        Transfer { z, rows }
    }
}

/// Every chunk's true start state, the way the GPU finds them: the chunks' transfer functions
/// combined by the Blelloch scan of `carry_up` and `carry_down` (the same slots and levels).
pub fn chunk_starts(c: &Compiled, text: &[u8], chunk_len: usize) -> Vec<Vec<u32>> {
    let chunks = text.len().div_ceil(chunk_len).max(1);
    let mut functions: Vec<Transfer> =
        (0..chunks).map(|k| Transfer::of(c, &text[k * chunk_len..((k + 1) * chunk_len).min(text.len())])).collect();
    let levels = scan_levels(chunks as u32);
    for level in 0..levels {
        let half = 1usize << level;
        for a in (0..chunks).step_by(2 * half) {
            let m = a + half;
            let r = (m + half).min(chunks) - 1;
            if m < chunks && r + 1 < chunks {
                functions[r] = functions[r].after(&functions[m - 1]);
            }
        }
    }
    let mut starts = vec![vec![0u32; c.words.len()]; chunks];
    for level in (0..levels).rev() {
        let half = 1usize << level;
        for a in (0..chunks).step_by(2 * half) {
            let m = a + half;
            if m < chunks {
                let r = (m + half).min(chunks) - 1;
                let s = starts[r].clone();
                starts[r] = functions[m - 1].apply(&s);
                starts[m - 1] = s;
            }
        }
    }
    starts
}

/// Levels of the carry scan over `chunks` chunks: ceil(log2(chunks)).
pub fn scan_levels(chunks: u32) -> u32 {
    32 - chunks.max(1).saturating_sub(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::super::pattern::{compile, parse};
    use super::*;

    /// A small deterministic generator (the crate's tests avoid a rand dependency).
    struct Xorshift(u64);
    impl Xorshift {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) % n
        }
    }

    const PATTERNS: [&str; 9] = ["ab?c*.", "a.*b", "[ab]{1,3}c?", "a?b?c?", "c{3,}", "[^c]+c", "a*", "x?a+b?c", "b.{2,5}c"];

    #[test]
    fn transfer_function_equals_a_direct_run_from_any_state() {
        let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
        let long = "ab?c*.".repeat(12);
        for pattern in PATTERNS.iter().copied().chain([long.as_str()]) {
            let c = compile(&parse(pattern.as_bytes()).unwrap()).unwrap();
            for len in [0, 1, 3, 10, 70] {
                let text: Vec<u8> = (0..len).map(|_| b"abc"[rng.next(3) as usize]).collect();
                let f = Transfer::of(&c, &text);
                for _ in 0..50 {
                    // Random states, only over real states.
                    let state: Vec<u32> = c
                        .words
                        .iter()
                        .map(|w| (rng.next(1 << 32) as u32) & (u32::MAX >> (32 - w.len)) & (u32::MAX >> rng.next(32)))
                        .collect();
                    let mut direct = state.clone();
                    run(&c, &mut direct, &text);
                    assert_eq!(f.apply(&state), direct, "{pattern} on {:?} from {state:?}", String::from_utf8_lossy(&text));
                }
                // Composition equals the function of the concatenation.
                let more: Vec<u8> = (0..len / 2 + 1).map(|_| b"abc"[rng.next(3) as usize]).collect();
                let g = Transfer::of(&c, &more);
                let both = Transfer::of(&c, &[text.clone(), more].concat());
                let composed = g.after(&f);
                let s: Vec<u32> = c.words.iter().map(|w| (rng.next(1 << 32) as u32) & (u32::MAX >> (32 - w.len))).collect();
                assert_eq!(composed.apply(&s), both.apply(&s), "{pattern}");
            }
        }
    }

    #[test]
    fn scanned_starts_equal_the_sequential_states() {
        let mut rng = Xorshift(12345);
        for pattern in PATTERNS {
            let c = compile(&parse(pattern.as_bytes()).unwrap()).unwrap();
            let text: Vec<u8> = (0..200).map(|_| b"abc"[rng.next(3) as usize]).collect();
            for chunk_len in [1, 3, 7, 64, 200, 500] {
                let starts = chunk_starts(&c, &text, chunk_len);
                let mut state = vec![0u32; c.words.len()];
                for (k, start) in starts.iter().enumerate() {
                    assert_eq!(start, &state, "{pattern}, chunk {k} of {chunk_len} bytes");
                    run(&c, &mut state, &text[k * chunk_len..((k + 1) * chunk_len).min(text.len())]);
                }
            }
        }
    }

    #[test]
    fn levels_are_ceil_log2() {
        assert_eq!([1, 2, 3, 4, 5, 1024, 1025].map(scan_levels), [0, 1, 2, 2, 3, 10, 11]);
    }
}
