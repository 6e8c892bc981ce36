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
//! chunk from the empty state and records its end state. The update is monotone (a larger start
//! state gives a superset at every later byte), so a chunk's true run contains its scan run and
//! the two agree for good once their states are equal. `carry` then finds the true start
//! states as a fixed point: estimates start as the scan's end states, each thread reruns its
//! chunk from its estimate until its run agrees with the scan's, and if it never does, ORs its
//! end state into the next chunk's estimate and runs on while that adds bits; rounds repeat
//! until one adds nothing (usually 1-2). `extra` reruns each chunk from its true start state,
//! adding the matches only the true run has. After `max_carry_rounds` without a fixed point,
//! `fixup` (one thread per pattern, sequential over chunks) does the same job instead. The
//! result does not depend on the chunking (tests compare chunk lengths 1 byte to the whole
//! text). Worst case: a pattern whose state never forgets (`x.*` with a rare `x`) makes one
//! thread run from the first `x` to the end of the text.

mod pattern;

use std::time::Instant;

use serde::Serialize;
use wgpu::util::DeviceExt;

use bisector_gpu::readback::read_buffer;
use bisector_gpu::timings::{submit_and_time_all, TimingMs};
use bisector_gpu::{profiled_compute_pass, Gpu, Requirements};

pub use pattern::{compile, match_ends, naive_match_ends, parse, step, ByteSet, Compiled, Item, PatternError, Word};

use crate::{check_iterations, IterationsError, Kernel, KernelError, SHADERS};

/// Words (32-state modules) a pattern may take.
pub const MAX_WORDS: usize = 8;
/// Carry rounds tried before the sequential fix-up takes over (the default of `max_carry_rounds`).
pub const MAX_CARRY_ROUNDS: u32 = 8;
/// Patterns each scan workgroup runs. Keep in sync with PATTERNS_PER_GROUP in shaders/kernel_shift_and.wgsl.
pub const PATTERNS_PER_GROUP: u32 = 64;

/// Parameters of the passes. Keep in sync with ShiftAndParams in shaders/kernel_shift_and.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ShiftAndParams {
    pub patterns: u32,
    pub text_len: u32,
    pub chunk_len: u32,
    pub chunks: u32,
    pub capacity: u32,
    pub total_words: u32,
    /// Patterns of more than one module.
    pub module_pattern_count: u32,
    pub pad: u32,
}
const _: () = assert!(std::mem::size_of::<ShiftAndParams>() == 32);

/// What to run.
#[derive(Clone, Debug)]
pub struct ShiftAndOptions {
    /// Bytes per chunk (one GPU thread per pattern and chunk); 0 picks about 1024 chunks.
    pub chunk_len: u32,
    pub iterations: u32,
    /// Match positions kept (counts are always exact).
    pub capacity: u32,
    /// Carry rounds before the sequential fix-up takes over (MAX_CARRY_ROUNDS; 0 forces it).
    pub max_carry_rounds: u32,
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
        let chunks = chunk_count(work.text.len(), options.chunk_len);
        if chunks > MAX_CHUNKS {
            return Err(OptionsError::TooManyChunks(chunks).into());
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
            "for {} patterns over {} text bytes in {} chunks and {} match positions; use fewer patterns (--count), a larger --chunk, a smaller text or --capacity",
            work.patterns.len(),
            work.text.len(),
            chunk_count(work.text.len(), options.chunk_len),
            options.capacity
        );
        Requirements::kernel(run_buffer_bytes(work, options.chunk_len, options.capacity), why)
    }

    fn measure(gpu: &Gpu, input: &ShiftAndInput) -> ShiftAndReport {
        measure(gpu, &input.options, &input.work)
    }
}

/// One pass's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct ShiftAndReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub source: String,
    pub patterns: usize,
    pub text_bytes: usize,
    pub chunk_len: u32,
    pub chunks: u32,
    pub max_states: usize,
    /// Every pattern's count, and (when they fit the capacity) every match position, equal the CPU reference.
    pub verified: bool,
    pub scan_gpu: TimingMs,
    /// Carry rounds + extra matches (or the sequential fix-up).
    pub fixup_gpu: TimingMs,
    /// Carry rounds of the last iteration (until the chunks' start states stopped changing).
    pub carry_rounds: u32,
    /// Whether the carry rounds did not settle and the sequential fix-up ran instead.
    pub sequential_fixup: bool,
    pub total_gpu: TimingMs,
    /// Text bytes x patterns per second (total, median).
    pub byte_patterns_per_s: f64,
    pub upload_ms: f64,
    pub readback_ms: f64,
    /// The CPU reference: one sequential scan per pattern, patterns spread over threads.
    pub cpu_reference_ms: f64,
    pub cpu_threads: usize,
    pub total_matches: u64,
    /// Matches beyond the position capacity (counted, not kept).
    pub positions_overflowed: bool,
    pub counts: Vec<u32>,
    /// On lavapipe, which stops a shader loop after 65535 iterations in all: whether a thread
    /// of this run may need more (then results can be incomplete and `verified` says so).
    pub lavapipe_loop_limit_exceeded: bool,
    #[serde(skip)]
    pub matches: Vec<(u32, u32)>,
}

fn storage(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    })
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

/// Storage bytes the largest buffer of a run over `work` needs: the text, the match positions,
/// or the states at every chunk's end (and start) of every pattern word, whichever is largest.
pub fn run_buffer_bytes(work: &Workload, chunk_len: u32, capacity: u32) -> u64 {
    let words: u64 = work.patterns.iter().filter_map(|p| compile(&parse(p).ok()?).ok()).map(|c| c.words.len() as u64).sum();
    largest_buffer_bytes(work.text.len(), capacity).max(4 * chunk_count(work.text.len(), chunk_len) * words)
}

/// Most patterns one run takes: the scan's workgroups (PATTERNS_PER_GROUP patterns each) fit one
/// dispatch dimension of 65535.
pub const MAX_PATTERNS: usize = 65535 * PATTERNS_PER_GROUP as usize;

/// Runs both passes on `work` (at least one pattern, each of which compiles, and a non-empty
/// text; `ShiftAnd::measure`).
fn measure(gpu: &Gpu, options: &ShiftAndOptions, work: &Workload) -> ShiftAndReport {
    let device = &gpu.device;
    let compiled: Vec<Compiled> =
        work.patterns.iter().map(|p| compile(&parse(p).expect("pattern parses")).expect("pattern compiles")).collect();
    let n = work.text.len();
    assert!(n > 0 && !compiled.is_empty() && n < u32::MAX as usize);
    let cpu_threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let cpu_start = Instant::now();
    let mut expected: Vec<Vec<u32>> = vec![Vec::new(); compiled.len()];
    let per = compiled.len().div_ceil(cpu_threads);
    std::thread::scope(|scope| {
        for (cs, out) in compiled.chunks(per).zip(expected.chunks_mut(per)) {
            let text = &work.text;
            scope.spawn(move || {
                for (c, o) in cs.iter().zip(out) {
                    *o = match_ends(c, text);
                }
            });
        }
    });
    let cpu_reference_ms = cpu_start.elapsed().as_secs_f64() * 1e3;

    let chunk_len = if options.chunk_len == 0 { (n as u32).div_ceil(1024).next_multiple_of(64) } else { options.chunk_len };
    let chunks = (n as u32).div_ceil(chunk_len);
    assert!(chunks <= 65535, "at most 65535 chunks");
    let upload_start = Instant::now();
    let mut info: Vec<[u32; 4]> = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut ch: Vec<u32> = Vec::new();
    for c in &compiled {
        info.push([words.len() as u32, c.words.len() as u32, c.final_bit(), 0]);
        words.extend_from_slice(&c.words);
        ch.extend_from_slice(&c.ch);
    }
    let total_words = words.len() as u32;
    let module_patterns: Vec<u32> = (0..compiled.len() as u32).filter(|&p| compiled[p as usize].words.len() > 1).collect();
    let params = ShiftAndParams {
        patterns: compiled.len() as u32,
        text_len: n as u32,
        chunk_len,
        chunks,
        capacity: options.capacity,
        total_words,
        module_pattern_count: module_patterns.len() as u32,
        pad: 0,
    };
    let mut text = work.text.clone();
    text.resize(n.div_ceil(4) * 4, 0);
    let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("kernel.shift_and.params"),
        contents: bytemuck::bytes_of(&params),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let info_buffer = storage(device, "kernel.shift_and.patterns", bytemuck::cast_slice(&info));
    let words_buffer = storage(device, "kernel.shift_and.words", bytemuck::cast_slice(&words));
    let ch_buffer = storage(device, "kernel.shift_and.ch", bytemuck::cast_slice(&ch));
    let text_buffer = storage(device, "kernel.shift_and.text", &text);
    let end_states = storage(device, "kernel.shift_and.end_states", &vec![0u8; 4 * chunks as usize * total_words as usize]);
    let counts = storage(device, "kernel.shift_and.counts", &vec![0u8; 4 * compiled.len()]);
    let matches = storage(device, "kernel.shift_and.matches", &vec![0u8; 8 * options.capacity.max(1) as usize]);
    let counter = storage(device, "kernel.shift_and.counter", &[0u8; 8]);
    gpu.wait_idle();
    let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3;

    let starts = storage(device, "kernel.shift_and.starts", &vec![0u8; 4 * chunks as usize * total_words as usize]);
    let changed = storage(device, "kernel.shift_and.changed", &[0u8; 4]);
    let module_list = storage(
        device,
        "kernel.shift_and.module_patterns",
        bytemuck::cast_slice(&module_patterns.iter().copied().chain([0]).collect::<Vec<u32>>()),
    );
    let pipeline =
        |entry: &str| SHADERS.compute_pipeline(device, &format!("kernel.shift_and.{entry}"), "kernel_shift_and.wgsl", entry, &[]);
    let (scan, scan_modules, carry, extra, fixup) =
        (pipeline("scan"), pipeline("scan_modules"), pipeline("carry"), pipeline("extra"), pipeline("fixup"));
    let common = [
        (0, &params_buffer),
        (1, &info_buffer),
        (2, &words_buffer),
        (3, &ch_buffer),
        (4, &text_buffer),
        (5, &end_states),
        (6, &counts),
        (7, &matches),
        (8, &counter),
    ];
    // The layouts come from the shaders, which bind only what each entry point uses: `carry`
    // and `extra` read no end states, `carry` keeps no counts.
    let bind = |pipeline: &wgpu::ComputePipeline, more: &[(u32, &wgpu::Buffer)]| {
        let unused: &[u32] = if std::ptr::eq(pipeline, &carry) {
            &[5, 6]
        } else if std::ptr::eq(pipeline, &extra) {
            &[5]
        } else {
            &[]
        };
        let entries: Vec<wgpu::BindGroupEntry> = common
            .iter()
            .chain(more)
            .filter(|(b, _)| !unused.contains(b))
            .map(|(b, buf)| wgpu::BindGroupEntry { binding: *b, resource: buf.as_entire_binding() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("kernel.shift_and"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    };
    let (scan_group, fixup_group) = (bind(&scan, &[]), bind(&fixup, &[]));
    let scan_modules_group = bind(&scan_modules, &[(11, &module_list)]);
    let carry_group = bind(&carry, &[(9, &starts), (10, &changed)]);
    let extra_group = bind(&extra, &[(9, &starts)]);
    let mut profiler = bisector_gpu::create_profiler(device);
    let (mut scan_ms, mut fixup_ms, mut total_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut carry_rounds = 0;
    let mut sequential_fixup = false;
    let pattern_groups = (compiled.len() as u32).div_ceil(PATTERNS_PER_GROUP);
    let run_pass = |profiler: &mut wgpu_profiler::GpuProfiler,
                    prepare: &dyn Fn(&mut wgpu::CommandEncoder),
                    label: &str,
                    pipeline: &wgpu::ComputePipeline,
                    group: &wgpu::BindGroup,
                    (x, y): (u32, u32)|
     -> f64 {
        let mut encoder = device.create_command_encoder(&Default::default());
        prepare(&mut encoder);
        profiled_compute_pass(profiler, &mut encoder, label, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
        submit_and_time_all(gpu, profiler, encoder).iter().map(|(_, t)| t).sum()
    };
    for _ in 0..options.iterations {
        let clear = |encoder: &mut wgpu::CommandEncoder| {
            for buffer in [&counts, &counter] {
                encoder.clear_buffer(buffer, 0, None);
            }
        };
        let mut scan_time = run_pass(&mut profiler, &clear, "kernel.shift_and.scan", &scan, &scan_group, (pattern_groups, chunks));
        if !module_patterns.is_empty() {
            scan_time += run_pass(
                &mut profiler,
                &|_| {},
                "kernel.shift_and.scan_modules",
                &scan_modules,
                &scan_modules_group,
                ((module_patterns.len() as u32).div_ceil(8), chunks),
            );
        }
        // Carry rounds until the start states are a fixed point, at most MAX_CARRY_ROUNDS.
        let mut fix_time = 0.0;
        let mut converged = chunks == 1;
        carry_rounds = 0;
        while !converged && carry_rounds < options.max_carry_rounds {
            let prepare = |encoder: &mut wgpu::CommandEncoder| {
                encoder.clear_buffer(&changed, 0, None);
                if carry_rounds == 0 {
                    // First estimates: chunk c + 1 starts where the scan left chunk c.
                    let row = 4 * total_words as u64;
                    encoder.clear_buffer(&starts, 0, Some(row));
                    encoder.copy_buffer_to_buffer(&end_states, 0, &starts, row, row * (chunks as u64 - 1));
                }
            };
            fix_time += run_pass(&mut profiler, &prepare, "kernel.shift_and.carry", &carry, &carry_group, (pattern_groups, chunks));
            carry_rounds += 1;
            converged = read_buffer(device, &gpu.queue, &changed, 0, 4) == [0u8; 4];
        }
        sequential_fixup = !converged;
        fix_time += if converged {
            run_pass(&mut profiler, &|_| {}, "kernel.shift_and.extra", &extra, &extra_group, (pattern_groups, chunks))
        } else {
            run_pass(&mut profiler, &|_| {}, "kernel.shift_and.fixup", &fixup, &fixup_group, (pattern_groups, 1))
        };
        scan_ms.push(scan_time);
        fixup_ms.push(fix_time);
        total_ms.push(scan_time + fix_time);
    }
    let read_start = Instant::now();
    let got_counts: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &counts, 0, 4 * compiled.len() as u64)).to_vec();
    let counter_value: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &counter, 0, 8)).to_vec();
    let gpu_total: u64 = got_counts.iter().map(|&c| c as u64).sum();
    let kept = counter_value[0].min(options.capacity);
    let mut got: Vec<(u32, u32)> =
        bytemuck::cast_slice::<u8, [u32; 2]>(&read_buffer(device, &gpu.queue, &matches, 0, 8 * kept.max(1) as u64))
            .iter()
            .take(kept as usize)
            .map(|&[p, i]| (p, i))
            .collect();
    let readback_ms = read_start.elapsed().as_secs_f64() * 1e3;
    got.sort_unstable();
    let expected_counts: Vec<u32> = expected.iter().map(|e| e.len() as u32).collect();
    let total_matches: u64 = expected_counts.iter().map(|&c| c as u64).sum();
    let overflowed = gpu_total > kept as u64;
    let expected_list: Vec<(u32, u32)> = expected.iter().enumerate().flat_map(|(p, e)| e.iter().map(move |&i| (p as u32, i))).collect();
    let verified = got_counts == expected_counts && (overflowed || got == expected_list);
    let words_max = compiled.iter().map(|c| c.words.len()).max().unwrap_or(1) as u64;
    let (scan_per_byte, fixup_per_byte) = if words_max == 1 { (2, 1) } else { (1 + words_max, 1 + 2 * words_max) };
    let loop_iterations = (chunk_len as u64 * scan_per_byte).max(n as u64 * fixup_per_byte + chunks as u64 * (2 + 2 * words_max));
    let total = TimingMs::of(total_ms);
    ShiftAndReport {
        kernel: "shift-and",
        adapter: gpu.describe(),
        source: work.source.clone(),
        patterns: compiled.len(),
        text_bytes: n,
        chunk_len,
        chunks,
        max_states: compiled.iter().map(|c| c.states).max().unwrap_or(0),
        verified,
        scan_gpu: TimingMs::of(scan_ms),
        fixup_gpu: TimingMs::of(fixup_ms),
        carry_rounds,
        sequential_fixup,
        byte_patterns_per_s: n as f64 * compiled.len() as f64 / (total.median_ms * 1e-3),
        total_gpu: total,
        upload_ms,
        readback_ms,
        cpu_reference_ms,
        cpu_threads,
        total_matches,
        positions_overflowed: overflowed,
        counts: got_counts,
        lavapipe_loop_limit_exceeded: gpu.adapter.get_info().name.contains("llvmpipe") && loop_iterations > 65535,
        matches: if overflowed { Vec::new() } else { got },
    }
}

impl ShiftAndReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        format!(
            "shift-and on {}: {} ({} patterns, up to {} states; {} bytes in {} chunks of {}), verified: {}\n  \
             scan median {:.4} ms + carry and fix-up {:.4} ms ({} carry rounds{}) = {:.4} ms (min {:.4}), {:.3} G byte-patterns/s; {} matches{}\n  \
             upload {:.1} ms, read-back {:.1} ms; CPU reference ({} threads) {:.1} ms",
            self.adapter,
            self.source,
            self.patterns,
            self.max_states,
            self.text_bytes,
            self.chunks,
            self.chunk_len,
            self.verified,
            self.scan_gpu.median_ms,
            self.fixup_gpu.median_ms,
            self.carry_rounds,
            if self.sequential_fixup { ", then the sequential fix-up" } else { "" },
            self.total_gpu.median_ms,
            self.total_gpu.min_ms,
            self.byte_patterns_per_s / 1e9,
            self.total_matches,
            if self.positions_overflowed { " (positions beyond the capacity counted only)" } else { "" },
            self.upload_ms,
            self.readback_ms,
            self.cpu_threads,
            self.cpu_reference_ms
        ) + if self.lavapipe_loop_limit_exceeded {
            "\n  warning: lavapipe stops a shader loop after 65535 iterations and this run may need more (the fix-up of a `.*`-like pattern walks the whole text): use a text under ~30 KB on lavapipe"
        } else {
            ""
        }
    }
}
