// kernel.shift_and: extended Shift-And (seed 003), many patterns at once. The update per byte
// and the meaning of the masks are written out in crates/kernels/src/shift_and/mod.rs (the CPU reference,
// whose `step` this mirrors word for word), with the proof that a chunk's transfer function is
// its end state from empty OR the rows of the start state's bits (crates/kernels/src/shift_and/transfer.rs
// is its CPU twin).
//   scan:  one thread per (one-module pattern, chunk), 64 patterns per workgroup reading the
//          same chunk (the text loads are the same address across the workgroup); every chunk
//          starts from the empty state and records its end state z.
//   scan_modules: the same for patterns of several modules, one thread per module (the paper's
//          distribute/aggregate): per byte every module publishes its state's last bit in
//          workgroup memory and, after a barrier, takes its predecessor's as the shift's carry.
//   transfer: one thread per (pattern, chunk, start state bit i): runs the chunk from {i} beside
//          the run from empty until the two agree; the row of i is what the first run has beyond
//          the second at the chunk's end (empty when they agreed). The chunk's function is
//          F(S) = z | OR of the rows of S's bits. A run that has not agreed after SHORT_BYTES
//          bytes goes to a list that transfer_long finishes, one thread per run.
//   carry_up, carry_down: a Blelloch scan over the chunks' functions, one dispatch per level
//          (log2 chunks levels each way). Up: node [a, b) with halves [a, m) and [m, b) stores
//          F[m, b) o F[a, m) in slot min(b, chunks) - 1 (the right half's slot). Down: the root
//          starts empty; a node's start state s is that of its left half, and the right half
//          starts at F[a, m)(s). Afterwards starts[c] is chunk c's true start state.
//   extra: one thread per (pattern, chunk): reruns each chunk from its true start state beside
//          the scan's run until they agree, adding the matches only the true run has (the
//          true run contains the scan's: the update is monotone); after SHORT_BYTES bytes the run
//          goes to a list that extra_long finishes.
//   fixup: the sequential alternative to transfer + carry + extra (one thread per pattern,
//          sequential over chunks), kept for comparison (`--carry sequential`).
// Matches: a count per pattern and, unless params.capacity is 0 (count only), (pattern,
// position) pairs appended up to params.capacity; the counts stay exact when the list is full.

const PATTERNS_PER_GROUP: u32 = 64u;
const MAX_WORDS: u32 = 8u;
// Lavapipe stops a loop (nested ones included) after 65535 iterations in all (gallivm's
// LP_MAX_TGSI_LOOP_ITERATIONS); crates/kernels/src/shift_and/mod.rs warns when a run may exceed it.

// Keep in sync with ShiftAndParams in crates/kernels/src/shift_and/mod.rs.
struct ShiftAndParams {
    patterns: u32,
    text_len: u32,
    chunk_len: u32,
    chunks: u32,
    capacity: u32,
    total_words: u32,
    // Patterns of more than one module (listed in module_patterns).
    module_pattern_count: u32,
    // Entries of each of the two lists in long_runs.
    long_capacity: u32,
}

// Keep in sync with Word in crates/kernels/src/shift_and/pattern.rs.
struct Word {
    rep: u32,
    ebeg: u32,
    eend: u32,
    eblk: u32,
    first: u32,
    len: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: ShiftAndParams;
// Per pattern: (first word, word count, the last state's bit in the last word, first word of
// its transfer functions in `functions`).
@group(0) @binding(1) var<storage, read> pattern_info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> words: array<Word>;
// ch[byte * total_words + word]: the threads of a warp, on consecutive words and the same byte,
// read consecutive addresses (`mask`).
@group(0) @binding(3) var<storage, read> ch: array<u32>;
// The text, four bytes per word (little-endian).
@group(0) @binding(4) var<storage, read> text: array<u32>;
// The scan's end state of every chunk: [chunk * total_words + word].
@group(0) @binding(5) var<storage, read_write> end_states: array<u32>;
@group(0) @binding(6) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> matches: array<vec2<u32>>;
// [0] = match slots handed out (stops a little beyond the capacity).
@group(0) @binding(8) var<storage, read_write> counter: array<atomic<u32>, 2>;
// The true start state of every chunk, [chunk * total_words + word] (written by carry_down).
@group(0) @binding(9) var<storage, read_write> starts: array<u32>;
// Every (pattern, chunk)'s transfer function, from pattern_info.w + chunk * fn_stride(words):
// z (the end state from empty, one u32 per word), then 32 rows per word, each `words` u32.
@group(0) @binding(10) var<storage, read_write> functions: array<u32>;
// The patterns of more than one module, for `scan_modules`.
@group(0) @binding(11) var<storage, read> module_patterns: array<u32>;
// The pattern of every word, for `transfer`.
@group(0) @binding(12) var<storage, read> word_pattern: array<u32>;
// (level of the carry scan, 0, 0, 0): node halves are 2^level chunks long.
@group(0) @binding(13) var<uniform> level: vec4<u32>;
// Runs that `extra` and `transfer` stopped after SHORT_BYTES bytes, for `extra_long` and
// `transfer_long` to finish: extra's from entry 0, transfer's from entry params.long_capacity,
// LONG_STRIDE u32 each (`save_long`).
@group(0) @binding(14) var<storage, read_write> long_runs: array<u32>;
// Entries handed out: [0] extra's, [1] transfer's (they may pass long_capacity: a run that
// finds no entry goes on in its own thread).
@group(0) @binding(15) var<storage, read_write> long_count: array<atomic<u32>, 2>;

// Bytes a thread of `extra` or `transfer` runs before it hands its run on. Most runs agree with
// the run from empty within a few bytes, a few (a `.*` after a rare prefix) never; without the
// hand-on a warp waits for its longest thread, and one such run in 32 made the whole warp scan
// its chunk.
const SHORT_BYTES: u32 = 256u;
// u32 per long run: (pattern or word, chunk, next byte, start bit), s, z.
const LONG_STRIDE: u32 = 20u;

// Workgroups along y of the passes dispatched per pattern or word (z counts the rest).
const GROUPS_Y: u32 = 32768u;

fn text_byte(i: u32) -> u32 {
    return (text[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu;
}

// Ch of word `w` for byte `b`.
fn mask(w: u32, b: u32) -> u32 {
    return ch[b * params.total_words + w];
}

fn word_step(w: u32, old: u32, carry: u32, b: u32) -> u32 {
    return word_apply(words[w], mask(w, b), old, carry);
}

// `word_step` on a word and character mask already loaded (the one-module loops keep them).
fn word_apply(word: Word, m: u32, old: u32, carry: u32) -> u32 {
    var x = (((old << 1u) | carry | word.first) & m) | (old & word.rep & m);
    let df = x | word.eend;
    x |= word.eblk & ((~(df - word.ebeg)) ^ df);
    return x;
}

// Advances the states `s` and `z` of the words base..=base+last by byte `b`; whether they are
// equal afterwards.
fn step_pair(s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>, base: u32, last: u32, b: u32) -> bool {
    var carry_s = 0u;
    var carry_z = 0u;
    var same = true;
    for (var w = 0u; w <= last; w += 1u) {
        let old_s = (*s)[w];
        let old_z = (*z)[w];
        let top = words[base + w].len - 1u;
        (*s)[w] = word_step(base + w, old_s, carry_s, b);
        (*z)[w] = word_step(base + w, old_z, carry_z, b);
        carry_s = (old_s >> top) & 1u;
        carry_z = (old_z >> top) & 1u;
        same = same && (*s)[w] == (*z)[w];
    }
    return same;
}

// Keeps (p, position) while the caller's `room` (true at first unless counting only) holds;
// clears it once the list is full, so a thread pays for the full list once, not with an atomic
// load of the contended counter per match. Counts are kept by the callers.
fn emit(p: u32, position: u32, room: ptr<function, bool>) {
    if (*room) {
        *room = atomicLoad(&counter[0]) < params.capacity;
        if (*room) {
            let slot = atomicAdd(&counter[0], 1u);
            if (slot < params.capacity) {
                matches[slot] = vec2<u32>(p, position);
            }
        }
    }
}

@compute @workgroup_size(64)
fn scan(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.x * PATTERNS_PER_GROUP + local;
    let chunk = group.y;
    if (p >= params.patterns) {
        return;
    }
    let info = pattern_info[p];
    let base = info.x;
    let last = info.y - 1u;
    let start = chunk * params.chunk_len;
    let end = min(start + params.chunk_len, params.text_len);
    var found = 0u;
    var room = params.capacity != 0u;
    // Patterns of several modules run in scan_modules.
    if (info.y == 1u) {
        // The state and the masks other than Ch in registers, four bytes per load.
        let word = words[base];
        var d = 0u;
        var i = start;
        while (i < end) {
            let packed = text[i >> 2u];
            let stop = min(end, (i & ~3u) + 4u);
            for (; i < stop; i += 1u) {
                let m = mask(base, (packed >> ((i & 3u) * 8u)) & 0xffu);
                d = word_apply(word, m, d, 0u);
                if ((d & info.z) != 0u) {
                    found += 1u;
                    emit(p, i, &room);
                }
            }
        }
        end_states[chunk * params.total_words + base] = d;
    }
    if (found != 0u) {
        atomicAdd(&counts[p], found);
    }
}

@compute @workgroup_size(64)
fn fixup(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.x * PATTERNS_PER_GROUP + local;
    if (p >= params.patterns) {
        return;
    }
    let info = pattern_info[p];
    let base = info.x;
    let last = info.y - 1u;
    // The true state at the start of the current chunk (s) and the scan's run from empty (z).
    var s: array<u32, MAX_WORDS>;
    var z: array<u32, MAX_WORDS>;
    var found = 0u;
    var room = params.capacity != 0u;
    for (var w = 0u; w <= last; w += 1u) {
        s[w] = end_states[base + w];
    }
    for (var chunk = 1u; chunk < params.chunks; chunk += 1u) {
        let start = chunk * params.chunk_len;
        let end = min(start + params.chunk_len, params.text_len);
        var same = true;
        for (var w = 0u; w <= last; w += 1u) {
            z[w] = 0u;
            same = same && s[w] == 0u;
        }
        if (last == 0u) {
            // One module: both states in registers.
            let word = words[base];
            var sd = s[0];
            var zd = 0u;
            for (var i = start; i < end && !same; i += 1u) {
                let m = mask(base, text_byte(i));
                sd = word_apply(word, m, sd, 0u);
                zd = word_apply(word, m, zd, 0u);
                same = sd == zd;
                if ((sd & info.z) != 0u && (zd & info.z) == 0u) {
                    found += 1u;
                    emit(p, i, &room);
                }
            }
            s[0] = sd;
        } else {
            for (var i = start; i < end && !same; i += 1u) {
                same = step_pair(&s, &z, base, last, text_byte(i));
                if ((s[last] & info.z) != 0u && (z[last] & info.z) == 0u) {
                    found += 1u;
                    emit(p, i, &room);
                }
            }
        }
        if (same) {
            // From here on the true run is the scan's: its end state is the chunk's.
            for (var w = 0u; w <= last; w += 1u) {
                s[w] = end_states[chunk * params.total_words + base + w];
            }
        }
    }
    if (found != 0u) {
        atomicAdd(&counts[p], found);
    }
}

// Whether the first `count` words of `s` and `z` agree.
fn states_equal(s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>, count: u32) -> bool {
    var same = true;
    for (var w = 0u; w < count; w += 1u) {
        same = same && (*s)[w] == (*z)[w];
    }
    return same;
}

// Runs the words base..=base+last over the bytes [*i, to) from state `s` beside the run `z`, until
// the two agree; with emit_for < params.patterns, emits (and counts in `found`) as pattern
// emit_for's the matches only `s` has (final bit `fin`). Returns whether they agree; *i is the
// next byte.
fn run_pair(base: u32, last: u32, s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>, i: ptr<function, u32>, to: u32, emit_for: u32, fin: u32, found: ptr<function, u32>) -> bool {
    var k = *i;
    var same = states_equal(s, z, last + 1u);
    var room = params.capacity != 0u;
    if (last == 0u) {
        // One module: both runs in registers.
        let word = words[base];
        var sd = (*s)[0];
        var zd = (*z)[0];
        for (; k < to && !same; k += 1u) {
            let m = mask(base, text_byte(k));
            sd = word_apply(word, m, sd, 0u);
            zd = word_apply(word, m, zd, 0u);
            same = sd == zd;
            if (emit_for < params.patterns && (sd & fin) != 0u && (zd & fin) == 0u) {
                *found += 1u;
                emit(emit_for, k, &room);
            }
        }
        (*s)[0] = sd;
        (*z)[0] = zd;
    } else {
        for (; k < to && !same; k += 1u) {
            same = step_pair(s, z, base, last, text_byte(k));
            if (emit_for < params.patterns && ((*s)[last] & fin) != 0u && ((*z)[last] & fin) == 0u) {
                *found += 1u;
                emit(emit_for, k, &room);
            }
        }
    }
    *i = k;
    return same;
}

// Stores a run for a long pass in entry `at` (`long_runs`).
fn save_long(at: u32, id: u32, chunk: u32, i: u32, bit: u32, s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>, count: u32) {
    let e = at * LONG_STRIDE;
    long_runs[e] = id;
    long_runs[e + 1u] = chunk;
    long_runs[e + 2u] = i;
    long_runs[e + 3u] = bit;
    for (var w = 0u; w < count; w += 1u) {
        long_runs[e + 4u + w] = (*s)[w];
        long_runs[e + 4u + MAX_WORDS + w] = (*z)[w];
    }
}

// Loads the states of long run `at` (the caller reads the other fields).
fn load_long(at: u32, s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>, count: u32) {
    let e = at * LONG_STRIDE;
    for (var w = 0u; w < count; w += 1u) {
        (*s)[w] = long_runs[e + 4u + w];
        (*z)[w] = long_runs[e + 4u + MAX_WORDS + w];
    }
}

// Pattern p's true start state at chunk `chunk`, as carry_down left it.
fn load_start_state(p: u32, chunk: u32) -> array<u32, MAX_WORDS> {
    let info = pattern_info[p];
    var s: array<u32, MAX_WORDS>;
    for (var w = 0u; w < info.y; w += 1u) {
        s[w] = starts[chunk * params.total_words + info.x + w];
    }
    return s;
}

// The end of chunk `chunk`.
fn chunk_end(chunk: u32) -> u32 {
    return min(chunk * params.chunk_len + params.chunk_len, params.text_len);
}

// One thread per (pattern, chunk): reruns the chunk from its true start state beside the scan's
// run for up to SHORT_BYTES bytes, then hands the run to extra_long.
@compute @workgroup_size(64)
fn extra(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.x * PATTERNS_PER_GROUP + local;
    let chunk = group.y;
    if (p >= params.patterns || chunk == 0u) {
        return;
    }
    let info = pattern_info[p];
    var s = load_start_state(p, chunk);
    var z: array<u32, MAX_WORDS>;
    var found = 0u;
    var i = chunk * params.chunk_len;
    let end = chunk_end(chunk);
    if (!run_pair(info.x, info.y - 1u, &s, &z, &i, min(end, i + SHORT_BYTES), p, info.z, &found) && i < end) {
        let at = atomicAdd(&long_count[0], 1u);
        if (at < params.long_capacity) {
            save_long(at, p, chunk, i, 0u, &s, &z, info.y);
        } else {
            _ = run_pair(info.x, info.y - 1u, &s, &z, &i, end, p, info.z, &found);
        }
    }
    if (found != 0u) {
        atomicAdd(&counts[p], found);
    }
}

// One thread per run `extra` handed on: runs it to the agreement or the chunk's end.
@compute @workgroup_size(64)
fn extra_long(@builtin(global_invocation_id) id: vec3<u32>) {
    let at = id.x;
    if (at >= min(atomicLoad(&long_count[0]), params.long_capacity)) {
        return;
    }
    let p = long_runs[at * LONG_STRIDE];
    let chunk = long_runs[at * LONG_STRIDE + 1u];
    var i = long_runs[at * LONG_STRIDE + 2u];
    let info = pattern_info[p];
    var s: array<u32, MAX_WORDS>;
    var z: array<u32, MAX_WORDS>;
    load_long(at, &s, &z, info.y);
    var found = 0u;
    _ = run_pair(info.x, info.y - 1u, &s, &z, &i, chunk_end(chunk), p, info.z, &found);
    if (found != 0u) {
        atomicAdd(&counts[p], found);
    }
}

const MODULE_PATTERNS: u32 = 8u;
// The last bit of every module's state before this byte, [pattern slot * MAX_WORDS + module].
var<workgroup> tops: array<u32, 64>;

@compute @workgroup_size(64)
fn scan_modules(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let slot = group.x * MODULE_PATTERNS + local / MAX_WORDS;
    let w = local % MAX_WORDS;
    let p = module_patterns[min(slot, params.module_pattern_count - 1u)];
    let info = pattern_info[p];
    // Threads beyond the list or the pattern's modules step a copy of its last module and keep
    // nothing; every thread takes part in the barriers.
    let keep = slot < params.module_pattern_count && w < info.y;
    let word_index = info.x + min(w, info.y - 1u);
    let word = words[word_index];
    let is_last = keep && w == info.y - 1u;
    let start = group.y * params.chunk_len;
    let end = min(start + params.chunk_len, params.text_len);
    var d = 0u;
    var found = 0u;
    var room = params.capacity != 0u;
    for (var i = start; i < end; i += 1u) {
        tops[local] = (d >> (word.len - 1u)) & 1u;
        workgroupBarrier();
        var carry = 0u;
        if (w > 0u) {
            carry = tops[local - 1u];
        }
        let m = mask(word_index, text_byte(i));
        d = word_apply(word, m, d, carry);
        if (is_last && (d & info.z) != 0u) {
            found += 1u;
            emit(p, i, &room);
        }
        workgroupBarrier();
    }
    if (keep) {
        end_states[group.y * params.total_words + word_index] = d;
    }
    if (is_last && found != 0u) {
        atomicAdd(&counts[p], found);
    }
}

// Words of one (pattern, chunk)'s transfer function for a pattern of `w` words: z, then 32 rows
// per word of w words each.
fn fn_stride(w: u32) -> u32 {
    return w + 32u * w * w;
}

// Where (pattern `info`, chunk)'s transfer function starts in `functions`.
fn fn_at(info: vec4<u32>, chunk: u32) -> u32 {
    return info.w + chunk * fn_stride(info.y);
}

// Writes the row of start bit `bit` of word `word_index` in chunk `chunk`'s function: what `s`
// has beyond `z`.
fn write_row(word_index: u32, chunk: u32, bit: u32, s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>) {
    let info = pattern_info[word_pattern[word_index]];
    let nw = info.y;
    let row = fn_at(info, chunk) + nw + ((word_index - info.x) * 32u + bit) * nw;
    for (var w = 0u; w < nw; w += 1u) {
        functions[row + w] = (*s)[w] & ~(*z)[w];
    }
}

// One thread per (chunk, word, start bit i): runs the chunk from {i} beside the run from empty
// for up to SHORT_BYTES bytes, then writes the row of i or hands the run to transfer_long.
@compute @workgroup_size(32)
fn transfer(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) bit: u32) {
    let chunk = group.x;
    let word_index = group.y + group.z * GROUPS_Y;
    if (word_index >= params.total_words) {
        return;
    }
    let info = pattern_info[word_pattern[word_index]];
    if (bit == 0u) {
        functions[fn_at(info, chunk) + word_index - info.x] = end_states[chunk * params.total_words + word_index];
    }
    var s: array<u32, MAX_WORDS>;
    var z: array<u32, MAX_WORDS>;
    // A bit beyond the word's states has an empty row.
    if (bit < words[word_index].len) {
        s[word_index - info.x] = 1u << bit;
    }
    var i = chunk * params.chunk_len;
    let end = chunk_end(chunk);
    var none = 0u;
    if (!run_pair(info.x, info.y - 1u, &s, &z, &i, min(end, i + SHORT_BYTES), params.patterns, 0u, &none) && i < end) {
        let at = atomicAdd(&long_count[1], 1u);
        if (at < params.long_capacity) {
            save_long(params.long_capacity + at, word_index, chunk, i, bit, &s, &z, info.y);
            return;
        }
        _ = run_pair(info.x, info.y - 1u, &s, &z, &i, end, params.patterns, 0u, &none);
    }
    write_row(word_index, chunk, bit, &s, &z);
}

// One thread per run `transfer` handed on: runs it to the agreement or the chunk's end and
// writes its row.
@compute @workgroup_size(64)
fn transfer_long(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= min(atomicLoad(&long_count[1]), params.long_capacity)) {
        return;
    }
    let at = params.long_capacity + id.x;
    let word_index = long_runs[at * LONG_STRIDE];
    let chunk = long_runs[at * LONG_STRIDE + 1u];
    var i = long_runs[at * LONG_STRIDE + 2u];
    let info = pattern_info[word_pattern[word_index]];
    var s: array<u32, MAX_WORDS>;
    var z: array<u32, MAX_WORDS>;
    load_long(at, &s, &z, info.y);
    var none = 0u;
    _ = run_pair(info.x, info.y - 1u, &s, &z, &i, chunk_end(chunk), params.patterns, 0u, &none);
    write_row(word_index, chunk, long_runs[at * LONG_STRIDE + 3u], &s, &z);
}

// The right half's function (z, then rows) while carry_up composes into its slot.
var<workgroup> right_fn: array<u32, 2056>;
// The composed function's z.
var<workgroup> composed_z: array<u32, MAX_WORDS>;

// ORs into `out` the rows of `right_fn` (a function of `nw` words) of every bit of the `nw` words
// of `functions` from `at`.
fn or_rows_of(nw: u32, at: u32, out: ptr<function, array<u32, MAX_WORDS>>) {
    for (var w = 0u; w < nw; w += 1u) {
        var bits = functions[at + w];
        while (bits != 0u) {
            let b = firstTrailingBit(bits);
            bits &= bits - 1u;
            let row = nw + (w * 32u + b) * nw;
            for (var v = 0u; v < nw; v += 1u) {
                (*out)[v] |= right_fn[row + v];
            }
        }
    }
}

@compute @workgroup_size(64)
fn carry_up(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.y + group.z * GROUPS_Y;
    let half = 1u << level.x;
    let a = group.x * 2u * half;
    let m = a + half;
    let r = min(m + half, params.chunks) - 1u;
    // The last chunk's slot feeds only the root, whose function nobody applies.
    if (p >= params.patterns || m >= params.chunks || r + 1u == params.chunks) {
        return;
    }
    let info = pattern_info[p];
    let nw = info.y;
    let right = fn_at(info, r);
    let left = fn_at(info, m - 1u);
    let size = fn_stride(nw);
    for (var i = local; i < size; i += 64u) {
        right_fn[i] = functions[right + i];
    }
    workgroupBarrier();
    if (local == 0u) {
        // z = z_right | the right rows of z_left's bits.
        var z: array<u32, MAX_WORDS>;
        for (var w = 0u; w < nw; w += 1u) {
            z[w] = right_fn[w];
        }
        or_rows_of(nw, left, &z);
        for (var w = 0u; w < nw; w += 1u) {
            composed_z[w] = z[w];
        }
    }
    workgroupBarrier();
    // Row i = the right rows of the bits of the left row i, less what z has.
    for (var i = local; i < 32u * nw; i += 64u) {
        var out: array<u32, MAX_WORDS>;
        or_rows_of(nw, left + nw + i * nw, &out);
        for (var v = 0u; v < nw; v += 1u) {
            functions[right + nw + i * nw + v] = out[v] & ~composed_z[v];
        }
    }
    if (local < nw) {
        functions[right + local] = composed_z[local];
    }
}

@compute @workgroup_size(64)
fn carry_down(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.y + group.z * GROUPS_Y;
    let half = 1u << level.x;
    let a = (group.x * 64u + local) * 2u * half;
    let m = a + half;
    if (p >= params.patterns || m >= params.chunks) {
        return;
    }
    let r = min(m + half, params.chunks) - 1u;
    let info = pattern_info[p];
    let nw = info.y;
    let left = fn_at(info, m - 1u);
    let row_r = r * params.total_words + info.x;
    let row_m = (m - 1u) * params.total_words + info.x;
    // out = z_left | the left rows of s's bits.
    var out: array<u32, MAX_WORDS>;
    for (var w = 0u; w < nw; w += 1u) {
        out[w] = functions[left + w];
    }
    for (var w = 0u; w < nw; w += 1u) {
        let s = starts[row_r + w];
        starts[row_m + w] = s;
        var bits = s;
        while (bits != 0u) {
            let b = firstTrailingBit(bits);
            bits &= bits - 1u;
            let row = left + nw + (w * 32u + b) * nw;
            for (var v = 0u; v < nw; v += 1u) {
                out[v] |= functions[row + v];
            }
        }
    }
    for (var w = 0u; w < nw; w += 1u) {
        starts[row_r + w] = out[w];
    }
}
