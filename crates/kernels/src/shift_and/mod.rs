//! `bisector kernel shift-and`: extended-string pattern matching with bit-parallel NFAs (seed 003).
//!
//! Patterns over bytes: characters (`\` escapes the next byte), classes `[abc]`, `[a-z]`, `[^...]`,
//! `.`, each optionally followed by one of `?`, `*`, `+`, `{x}`, `{x,}`, `{x,y}`. A bounded repeat
//! expands to x copies and y - x optional copies (`{x,}`: x copies, the last one repeatable;
//! `{0,}` is `*`). An occurrence is a non-empty substring the pattern matches; we report, per
//! pattern, every text position where an occurrence ends (0-based index of its last byte). A
//! pattern that matches the empty string reports only its non-empty occurrences.
//!
//! Extended Shift-And (Navarro and Raffinot): state i is set when the pattern's first i + 1
//! positions match a suffix of the text read so far. Per byte c:
//!   D = (((D << 1) | First) & Ch[c]) | (D & Rep & Ch[c])        (shift in, or stay on a repeat)
//!   Df = D | Eend;  D |= Eblk & ((~(Df - Ebeg)) ^ Df)            (ε-closure: the add trick)
//! Eblk marks optional positions, Eend the last of each run of them, Ebeg the position before
//! each run (the run itself for a run at the pattern's start), First the positions the first
//! byte of an occurrence may take (position 0, or the leading optional run and the position
//! after it). A match ends here when the last state is set.
//!
//! Modules: a pattern takes up to MAX_WORDS 32-bit words ("modules"). States are packed so that
//! each optional run and its Ebeg state share a word (the closure then stays within a word; a run
//! longer than 31 states is refused); the shift carries a word's last state into the next word.
//! The GPU scan runs such patterns one thread per module, 8 patterns per workgroup, with the
//! paper's distribute/aggregate step: per byte each module publishes its state's last bit in
//! workgroup memory and, after a barrier, takes its predecessor's as the shift's carry. The
//! carry/extra/fix-up passes keep a pattern's modules in one thread's registers.
//!
//! Chunks: the text is cut into chunks, one GPU thread per (pattern, chunk). `scan` runs every
//! chunk from the empty state, reports its matches and records its end state z. A chunk maps its
//! start state S to F(S) = z | OR of the rows of S's bits (transfer.rs proves it: the update
//! distributes over OR); `transfer` finds every row in parallel (one thread per start bit, run
//! beside the run from empty until they agree, usually after a byte or two). `carry_up` and
//! `carry_down` combine the chunks' functions with a Blelloch scan, ceil(log2 chunks) levels
//! each way whatever the patterns, and leave every chunk's true start state; `extra` reruns each
//! chunk from it beside the scan's run until they agree, adding the matches only the true run
//! has (the update is monotone: the true run contains the scan's). `transfer` and `extra` hand
//! a run that has not agreed after SHORT_BYTES bytes to `transfer_long` and `extra_long`, which
//! finish those runs one thread each: a warp waits for its longest thread, and a `.*` after a
//! rare prefix never agrees. The mask table is stored byte-major (`ch[byte * words + word]`),
//! so the threads of a warp read consecutive words. The result does not depend
//! on the chunking (tests compare chunk lengths 1 byte to the whole text). `Carry::Sequential`
//! runs the former sequential fix-up instead (one thread per pattern over all chunks), for
//! comparison. Positions: `capacity` 0 counts only; otherwise up to `capacity` positions are
//! kept and the per-pattern counts stay exact beyond it.

mod gpu;
mod pack;
mod pattern;
pub mod transfer;

use serde::Serialize;

use bisector_gpu::timings::TimingMs;
use bisector_gpu::{Gpu, Requirements};

pub use pack::{pack, unit_counts, unit_match_ends, Unit, FIELD_BITS, MAX_PACKED};
pub use pattern::{compile, match_ends, naive_match_ends, parse, step, ByteSet, Compiled, Item, PatternError, Word};

use crate::{check_iterations, IterationsError, Kernel, KernelError};

/// Words (32-state modules) a pattern may take.
pub const MAX_WORDS: usize = 8;
/// Workgroups along y of the passes dispatched per pattern or per word (z counts the rest).
/// Keep in sync with GROUPS_Y in shaders/kernel_shift_and.wgsl.
pub const GROUPS_Y: u32 = 32768;

/// Parameters of the passes. Keep in sync with ShiftAndParams in shaders/kernel_shift_and.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ShiftAndParams {
    /// Units (pack.rs): patterns packed into shared words, or alone when of several modules.
    pub units: u32,
    pub text_len: u32,
    pub chunk_len: u32,
    pub chunks: u32,
    pub capacity: u32,
    pub total_words: u32,
    /// Units of more than one module.
    pub module_unit_count: u32,
    /// Entries of each of the two lists of long runs.
    pub long_capacity: u32,
}
const _: () = assert!(std::mem::size_of::<ShiftAndParams>() == 32);

/// What to run.
#[derive(Clone, Debug)]
pub struct ShiftAndOptions {
    /// Bytes per chunk (one GPU thread per pattern and chunk); 0 picks about 1024 chunks (fewer
    /// where the transfer functions would pass AUTO_TRANSFER_BYTES: `chunk_len_of`).
    pub chunk_len: u32,
    pub iterations: u32,
    /// Match positions kept; 0 counts only (the counts are always exact).
    pub capacity: u32,
    /// How chunks pass their end states on.
    pub carry: Carry,
    /// Runs the `extra_long` and `transfer_long` passes each take over (0: `long_capacity_of`
    /// picks); a run beyond it goes on in its own thread.
    pub long_capacity: u32,
}

/// Long runs each list holds at most, unless the options say otherwise.
pub const LONG_CAPACITY: u64 = 1 << 17;
/// u32 per long run. Keep in sync with LONG_STRIDE in shaders/kernel_shift_and.wgsl.
pub const LONG_STRIDE: u64 = 20;
/// Bytes `extra` and `transfer` run before they hand a run on. Keep in sync with SHORT_BYTES in
/// shaders/kernel_shift_and.wgsl.
pub const SHORT_BYTES: u32 = 256;

/// Entries of each list of long runs: `options.long_capacity`, or as many as there can be runs
/// (transfer's 32 per word and chunk; extra's, one per unit and chunk, are fewer) up to
/// LONG_CAPACITY.
pub fn long_capacity_of(options: &ShiftAndOptions, words: u64, chunks: u64) -> u32 {
    if options.long_capacity != 0 {
        return options.long_capacity;
    }
    (32 * words * chunks).clamp(1, LONG_CAPACITY) as u32
}

/// Storage bytes of the two lists of long runs of `long_capacity` entries each.
pub fn long_runs_bytes(long_capacity: u32) -> u64 {
    2 * 4 * LONG_STRIDE * long_capacity as u64
}

/// How the chunks' start states are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Carry {
    /// Transfer functions per chunk combined by a parallel scan (log2 chunks levels).
    #[default]
    Scan,
    /// One thread per pattern, sequential over the chunks (the first round's fix-up).
    Sequential,
}

/// Patterns and text, and where they came from.
#[derive(Clone, Debug)]
pub struct Workload {
    pub patterns: Vec<Vec<u8>>,
    pub text: Vec<u8>,
    pub source: String,
}

/// Random patterns over `alphabet` (each up to `max_states` states) and a random text over it.
pub fn make_workload(patterns: usize, max_states: usize, text_len: usize, alphabet: &[u8], seed: u64) -> Workload {
    let mut state = seed | 1;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) % n.max(1)
    };
    let pick = |next: &mut dyn FnMut(u64) -> u64| alphabet[next(alphabet.len() as u64) as usize];
    let text = (0..text_len).map(|_| pick(&mut next)).collect();
    let mut list = Vec::new();
    while list.len() < patterns {
        let mut p = Vec::new();
        for _ in 0..3 + next(6) {
            match next(10) {
                0 => p.push(b'.'),
                1 => {
                    let (a, b) = (pick(&mut next), pick(&mut next));
                    p.extend_from_slice(&[b'[', a, b, b']']);
                }
                2 => {
                    let (x, y) = (pick(&mut next), pick(&mut next));
                    let (a, b) = (x.min(y), x.max(y));
                    p.extend_from_slice(&[b'[', a, b'-', b, b']']);
                }
                _ => p.push(pick(&mut next)),
            }
            match next(12) {
                0 => p.push(b'?'),
                1 => p.push(b'*'),
                2 => p.push(b'+'),
                3 => {
                    let x = next(3);
                    p.extend_from_slice(format!("{{{x},{}}}", x + 1 + next(3)).as_bytes());
                }
                _ => {}
            }
        }
        if compile(&parse(&p).expect("generated patterns parse")).is_ok_and(|c| c.states <= max_states) {
            list.push(p);
        }
    }
    Workload {
        patterns: list,
        text,
        source: format!(
            "{patterns} random patterns (<= {max_states} states), {text_len} random bytes over {:?}, seed {seed}",
            String::from_utf8_lossy(alphabet)
        ),
    }
}

/// Why a pattern list or a text to search cannot be used: a line that is not a pattern (named
/// file:line, lines from 1), no patterns, an empty text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("{file}:{line}: {problem}")]
    BadPattern { file: String, line: usize, problem: PatternError },
    #[error("{file}: no patterns")]
    NoPatterns { file: String },
    #[error("{file}: the text is empty")]
    EmptyText { file: String },
}

/// Splits a pattern file's bytes into patterns, one per line (a trailing `\r` is dropped; empty
/// lines are refused), and checks that each parses and compiles; `file` names it in errors.
/// (The caller reads the file, within its size limit.)
pub fn parse_patterns(bytes: &[u8], file: &str) -> Result<Vec<Vec<u8>>, InputError> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        return Err(InputError::NoPatterns { file: file.to_string() });
    }
    for (i, line) in lines.iter().enumerate() {
        parse(line).and_then(|items| compile(&items)).map_err(|problem| InputError::BadPattern {
            file: file.to_string(),
            line: i + 1,
            problem,
        })?;
    }
    Ok(lines.into_iter().map(|l| l.to_vec()).collect())
}

/// The text to search, which must not be empty; `file` names it in errors. (The caller reads
/// the file, within its size limit, the bound of `--text-bytes` too.)
pub fn check_text(bytes: Vec<u8>, file: &str) -> Result<Vec<u8>, InputError> {
    if bytes.is_empty() {
        return Err(InputError::EmptyText { file: file.to_string() });
    }
    Ok(bytes)
}

/// Longest text one run takes.
pub const MAX_TEXT_BYTES: usize = 1 << 30;
/// Most chunks one run takes (one dispatch dimension).
pub const MAX_CHUNKS: u64 = 65535;

/// Why the kernel cannot run with its options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("at least one pattern and one text byte")]
    Empty,
    #[error("{0} patterns: at most {MAX_PATTERNS} in one run")]
    TooManyPatterns(usize),
    #[error("at most 2^30 text bytes")]
    TextTooLong,
    #[error("{0} chunks: at most {MAX_CHUNKS}")]
    TooManyChunks(u64),
    #[error("{patterns} patterns x {chunks} chunks: at most {MAX_PAIRS} pairs (use a larger --chunk or fewer patterns)")]
    TooManyPairs { patterns: usize, chunks: u64 },
    #[error("pattern {index}: {problem}")]
    BadPattern { index: usize, problem: PatternError },
    #[error(transparent)]
    Iterations(#[from] IterationsError),
}

/// What one run is given: the patterns and the text, and how to run over them.
#[derive(Clone, Debug)]
pub struct ShiftAndInput {
    pub work: Workload,
    pub options: ShiftAndOptions,
}

/// The kernel, run through [`Kernel`].
pub struct ShiftAnd;

impl Kernel for ShiftAnd {
    const NAME: &'static str = "shift-and";
    type Options = ShiftAndInput;
    type Report = ShiftAndReport;

    fn check(input: &ShiftAndInput) -> Result<(), KernelError> {
        let (work, options) = (&input.work, &input.options);
        if work.patterns.is_empty() || work.text.is_empty() {
            return Err(OptionsError::Empty.into());
        }
        if work.patterns.len() > MAX_PATTERNS {
            return Err(OptionsError::TooManyPatterns(work.patterns.len()).into());
        }
        if work.text.len() > MAX_TEXT_BYTES {
            return Err(OptionsError::TextTooLong.into());
        }
        let chunks = chunk_count(work.text.len(), chunk_len_of(work, options));
        if chunks > MAX_CHUNKS {
            return Err(OptionsError::TooManyChunks(chunks).into());
        }
        if work.patterns.len() as u64 * chunks > MAX_PAIRS {
            return Err(OptionsError::TooManyPairs { patterns: work.patterns.len(), chunks }.into());
        }
        for (index, pattern) in work.patterns.iter().enumerate() {
            parse(pattern).and_then(|items| compile(&items)).map_err(|problem| OptionsError::BadPattern { index, problem })?;
        }
        check_iterations(options.iterations).map_err(OptionsError::from)?;
        Ok(())
    }

    fn requirements(input: &ShiftAndInput) -> Requirements {
        let (work, options) = (&input.work, &input.options);
        let why = format!(
            "for {} patterns over {} text bytes in {} chunks (a transfer function per pattern and chunk) and {} match positions; use fewer patterns (--count), a larger --chunk, a smaller text or --capacity",
            work.patterns.len(),
            work.text.len(),
            chunk_count(work.text.len(), chunk_len_of(work, options)),
            options.capacity
        );
        Requirements::kernel(run_buffer_bytes(work, chunk_len_of(work, options), options.capacity, options.carry), why)
    }

    fn measure(gpu: &Gpu, input: &ShiftAndInput) -> ShiftAndReport {
        gpu::measure(gpu, &input.options, &input.work)
    }
}

/// One pass's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct ShiftAndReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub source: String,
    pub patterns: usize,
    /// Units the patterns were packed into (one GPU thread each per chunk).
    pub units: usize,
    pub text_bytes: usize,
    pub chunk_len: u32,
    pub chunks: u32,
    pub max_states: usize,
    /// Every pattern's count, and (when they fit the capacity) every match position, equal the CPU reference.
    pub verified: bool,
    /// How the chunks' start states were found.
    pub carry: Carry,
    /// Levels of the carry scan each way (ceil(log2 chunks); 0 for the sequential carry).
    pub carry_levels: u32,
    /// Whether only counts were kept (capacity 0).
    pub count_only: bool,
    /// The scans from empty (one-module and several-module patterns).
    pub scan_gpu: TimingMs,
    /// The chunks' transfer functions (0 for the sequential carry).
    pub transfer_gpu: TimingMs,
    /// The carry scan up and down (or the sequential fix-up, matches included).
    pub carry_gpu: TimingMs,
    /// The reruns from the true start states (0 for the sequential carry).
    pub extra_gpu: TimingMs,
    /// Of transfer_gpu and extra_gpu: the passes that finish the long runs.
    pub transfer_long_gpu: TimingMs,
    pub extra_long_gpu: TimingMs,
    pub total_gpu: TimingMs,
    /// Text bytes x patterns per second (total, median).
    pub byte_patterns_per_s: f64,
    pub upload_ms: f64,
    pub readback_ms: f64,
    /// The CPU reference: one sequential scan per pattern, patterns spread over threads.
    pub cpu_reference_ms: f64,
    pub cpu_threads: usize,
    pub total_matches: u64,
    /// Runs `transfer` and `extra` handed on after SHORT_BYTES bytes (the last iteration's; those
    /// beyond `long_capacity` went on in their own threads).
    pub long_runs: [u32; 2],
    pub long_capacity: u32,
    /// Matches beyond the position capacity (counted, not kept; any match when counting only).
    pub positions_overflowed: bool,
    pub counts: Vec<u32>,
    /// On lavapipe, which stops a shader loop after 65535 iterations in all: whether a thread
    /// of this run may need more (then results can be incomplete and `verified` says so).
    pub lavapipe_loop_limit_exceeded: bool,
    #[serde(skip)]
    pub matches: Vec<(u32, u32)>,
}

/// Storage bytes the largest buffer needs.
pub fn largest_buffer_bytes(text_len: usize, capacity: u32) -> u64 {
    (text_len as u64 + 4).max(8 * capacity as u64).max(64 << 20)
}

/// Chunks the text of `text_len` bytes is cut into at `chunk_len` bytes each (0: about 1024
/// chunks, a multiple of 64 bytes long).
pub fn chunk_count(text_len: usize, chunk_len: u32) -> u64 {
    let chunk_len = if chunk_len == 0 { (text_len as u64).div_ceil(1024).next_multiple_of(64) } else { u64::from(chunk_len) };
    (text_len as u64).div_ceil(chunk_len.max(1))
}

/// Most bytes of transfer functions the automatic chunk length (`chunk_len` 0) allows.
pub const AUTO_TRANSFER_BYTES: u64 = 1 << 30;

/// The chunk length a run over `work` uses: `options.chunk_len`, or for 0 about 1024 chunks (a
/// multiple of 64 bytes), twice as long while the transfer functions of the scan carry would
/// pass AUTO_TRANSFER_BYTES (long patterns: a pattern of w modules takes w + 32 w^2 u32 a chunk).
pub fn chunk_len_of(work: &Workload, options: &ShiftAndOptions) -> u32 {
    if options.chunk_len != 0 {
        return options.chunk_len;
    }
    let n = work.text.len() as u64;
    let mut chunk_len = n.div_ceil(1024).next_multiple_of(64);
    if options.carry == Carry::Scan {
        let words: Vec<usize> = work.patterns.iter().filter_map(|p| compile(&parse(p).ok()?).ok()).map(|c| c.words.len()).collect();
        while chunk_len < n && transfer_bytes(words.iter().copied(), n.div_ceil(chunk_len)) > AUTO_TRANSFER_BYTES {
            chunk_len *= 2;
        }
    }
    chunk_len.min(u32::MAX as u64) as u32
}

/// Storage bytes of the transfer functions of `chunks` chunks for patterns of `words` words each
/// (z and 32 rows per word: w + 32 w^2 u32 per pattern and chunk).
pub fn transfer_bytes(words: impl IntoIterator<Item = usize>, chunks: u64) -> u64 {
    4 * chunks * words.into_iter().map(|w| (w + 32 * w * w) as u64).sum::<u64>()
}

/// Storage bytes the largest buffer of a run over `work` needs: the text, the match positions,
/// the states at every chunk's end of every pattern word, or (carrying by scan) the chunks'
/// transfer functions, whichever is largest.
pub fn run_buffer_bytes(work: &Workload, chunk_len: u32, capacity: u32, carry: Carry) -> u64 {
    let words: Vec<usize> = work.patterns.iter().filter_map(|p| compile(&parse(p).ok()?).ok()).map(|c| c.words.len()).collect();
    let chunks = chunk_count(work.text.len(), chunk_len);
    let functions = if carry == Carry::Scan { transfer_bytes(words.iter().copied(), chunks) } else { 0 };
    largest_buffer_bytes(work.text.len(), capacity).max(4 * chunks * words.iter().sum::<usize>() as u64).max(functions)
}

/// Most patterns one run takes: the fix-up's workgroups (64 units each, a unit at least one
/// pattern) fit one dispatch dimension of 65535.
pub const MAX_PATTERNS: usize = 65535 * 64;
/// Most (pattern, chunk) pairs one run takes: a thread's pair index is a u32.
pub const MAX_PAIRS: u64 = 1 << 31;

impl ShiftAndReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        let carry = match self.carry {
            Carry::Scan => format!(
                "transfer {:.4} ms + carry scan {:.4} ms ({} levels each way) + extra matches {:.4} ms (long runs: {} transfer in {:.4} ms, {} extra in {:.4} ms)",
                self.transfer_gpu.median_ms,
                self.carry_gpu.median_ms,
                self.carry_levels,
                self.extra_gpu.median_ms,
                self.long_runs[0],
                self.transfer_long_gpu.median_ms,
                self.long_runs[1],
                self.extra_long_gpu.median_ms
            ),
            Carry::Sequential => format!("sequential fix-up {:.4} ms", self.carry_gpu.median_ms),
        };
        let positions = if self.count_only {
            " (counted only)"
        } else if self.positions_overflowed {
            " (positions beyond the capacity counted only)"
        } else {
            ""
        };
        format!(
            "shift-and on {}: {} ({} patterns in {} units, up to {} states; {} bytes in {} chunks of {}), verified: {}\n  \
             scan median {:.4} ms + {carry} = {:.4} ms (min {:.4}), {:.3} G byte-patterns/s; {} matches{positions}\n  \
             upload {:.1} ms, read-back {:.1} ms; CPU reference ({} threads) {:.1} ms",
            self.adapter,
            self.source,
            self.patterns,
            self.units,
            self.max_states,
            self.text_bytes,
            self.chunks,
            self.chunk_len,
            self.verified,
            self.scan_gpu.median_ms,
            self.total_gpu.median_ms,
            self.total_gpu.min_ms,
            self.byte_patterns_per_s / 1e9,
            self.total_matches,
            self.upload_ms,
            self.readback_ms,
            self.cpu_threads,
            self.cpu_reference_ms
        ) + if self.lavapipe_loop_limit_exceeded {
            "\n  warning: lavapipe stops a shader loop after 65535 iterations and this run may need more (a chunk longer than ~30 KB, or the sequential fix-up of a `.*`-like pattern over the whole text): use a smaller --chunk or text on lavapipe"
        } else {
            ""
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_chunks_keep_the_transfer_functions_bounded() {
        let options = |carry| ShiftAndOptions { chunk_len: 0, iterations: 1, capacity: 0, carry, long_capacity: 0 };
        let short = Workload { patterns: vec![b"ab*c".to_vec()], text: vec![b'a'; 1 << 20], source: String::new() };
        assert_eq!(chunk_len_of(&short, &options(Carry::Scan)), 1024);
        // 200 patterns of 7 modules over 64 KB: 1024 chunks would take about 1.3 GB of functions.
        let long = Workload { patterns: vec![b".{200}".to_vec(); 200], text: vec![b'a'; 1 << 16], source: String::new() };
        assert_eq!(compile(&parse(b".{200}").unwrap()).unwrap().words.len(), 7);
        let chunk_len = chunk_len_of(&long, &options(Carry::Scan));
        assert_eq!(chunk_len, 128);
        assert!(transfer_bytes([7; 200], chunk_count(1 << 16, chunk_len)) <= AUTO_TRANSFER_BYTES);
        assert_eq!(chunk_len_of(&long, &options(Carry::Sequential)), 64);
        assert_eq!(chunk_len_of(&long, &ShiftAndOptions { chunk_len: 5, ..options(Carry::Scan) }), 5);
    }
}
