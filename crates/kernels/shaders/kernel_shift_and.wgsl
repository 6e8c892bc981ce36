// kernel.shift_and: extended Shift-And (seed 003), many patterns at once. The update per byte
// and the meaning of the masks are written out in crates/kernels/src/shift_and/mod.rs (the CPU reference,
// whose `step` this mirrors word for word), with the proof that a chunk's transfer function is
// its end state from empty OR the rows of the start state's bits (crates/kernels/src/shift_and/transfer.rs
// is its CPU twin).
// The passes run units (crates/kernels/src/shift_and/pack.rs, their CPU twin): up to MAX_PACKED
// patterns of one module side by side in one word, or one pattern of several modules.
//   scan:  one thread per (one-word unit, chunk), the pairs numbered chunk by chunk (the text
//          loads are the same address across a warp, or two); every chunk starts from
//          the empty state and records its end state z. Matches are counted in fields of an
//          accumulator (`Tally`), emptied every few bytes.
//   scan_modules: the same for patterns of several modules, one thread per module (the paper's
//          distribute/aggregate): per byte every module publishes its state's last bit in
//          workgroup memory and, after a barrier, takes its predecessor's as the shift's carry.
//   transfer: one thread per (unit, chunk, start state bit i): runs the chunk from {i} beside
//          the run from empty until the two agree; the row of i is what the first run has beyond
//          the second at the chunk's end (empty when they agreed). The chunk's function is
//          F(S) = z | OR of the rows of S's bits. A run that has not agreed after SHORT_BYTES
//          bytes goes to a list that transfer_long finishes, one thread per run.
//   carry_up, carry_down: a Blelloch scan over the chunks' functions, one dispatch per level
//          (log2 chunks levels each way). Up: node [a, b) with halves [a, m) and [m, b) stores
//          F[m, b) o F[a, m) in slot min(b, chunks) - 1 (the right half's slot). Down: the root
//          starts empty; a node's start state s is that of its left half, and the right half
//          starts at F[a, m)(s). Afterwards starts[c] is chunk c's true start state.
//   extra: one thread per (unit, chunk): reruns each chunk from its true start state beside
//          the scan's run until they agree, adding the matches only the true run has (the
//          true run contains the scan's: the update is monotone); after SHORT_BYTES bytes the run
//          goes to a list that extra_long finishes.
//   fixup: the sequential alternative to transfer + carry + extra (one thread per unit,
//          sequential over chunks), kept for comparison (`--carry sequential`).
// Matches: a count per pattern and, unless params.capacity is 0 (count only), (pattern,
// position) pairs appended up to params.capacity; the counts stay exact when the list is full.
//!include shared/dispatch.wgsl

const MAX_WORDS: u32 = 8u;
const MAX_PACKED: u32 = 8u;
// Bits each pattern's count field has at least: the accumulator is emptied every
// 2^FIELD_BITS - 1 bytes at most.
const FIELD_BITS: u32 = 4u;
const FIELD_MASK: u32 = (1u << FIELD_BITS) - 1u;
// Lavapipe stops a loop (nested ones included) after 65535 iterations in all (gallivm's
// LP_MAX_TGSI_LOOP_ITERATIONS); crates/kernels/src/shift_and/mod.rs warns when a run may exceed it.

// Keep in sync with ShiftAndParams in crates/kernels/src/shift_and/mod.rs.
struct ShiftAndParams {
    units: u32,
    text_len: u32,
    chunk_len: u32,
    chunks: u32,
    capacity: u32,
    total_words: u32,
    // Units of more than one module (listed in module_units).
    module_unit_count: u32,
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
// Per unit: (first word, word count, the patterns' final bits in the last word, first word of
// its transfer functions in `functions`).
@group(0) @binding(1) var<storage, read> unit_info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> words: array<Word>;
// ch[byte * total_words + word]: the threads of a warp, on consecutive words and the same byte,
// read consecutive addresses (`mask`).
@group(0) @binding(3) var<storage, read> ch: array<u32>;
// The text, four bytes per word (little-endian).
@group(0) @binding(4) var<storage, read> text: array<u32>;
// The scan's end state of every chunk: [chunk * total_words + word].
@group(0) @binding(5) var<storage, read_write> end_states: array<u32>;
// Per pattern.
@group(0) @binding(6) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> matches: array<vec2<u32>>;
// [0] = match slots handed out (stops a little beyond the capacity).
@group(0) @binding(8) var<storage, read_write> counter: array<atomic<u32>, 2>;
// The true start state of every chunk, [chunk * total_words + word] (written by carry_down).
@group(0) @binding(9) var<storage, read_write> starts: array<u32>;
// Every (unit, chunk)'s transfer function, from unit_info.w + chunk * fn_stride(words):
// z (the end state from empty, one u32 per word), then 32 rows per word, each `words` u32.
@group(0) @binding(10) var<storage, read_write> functions: array<u32>;
// The units of more than one module, for `scan_modules`.
@group(0) @binding(11) var<storage, read> module_units: array<u32>;
// The unit of every word, for `transfer`.
@group(0) @binding(12) var<storage, read> word_unit: array<u32>;
// (level of the carry scan, 0, 0, 0): node halves are 2^level chunks long.
@group(0) @binding(13) var<uniform> level: vec4<u32>;
// Runs that `extra` and `transfer` stopped after SHORT_BYTES bytes, for `extra_long` and
// `transfer_long` to finish: extra's from entry 0, transfer's from entry params.long_capacity,
// LONG_STRIDE u32 each (`save_long`).
@group(0) @binding(14) var<storage, read_write> long_runs: array<u32>;
// Entries handed out: [0] extra's, [1] transfer's (they may pass long_capacity: a run that
// finds no entry goes on in its own thread).
@group(0) @binding(15) var<storage, read_write> long_count: array<atomic<u32>, 2>;
// Per unit: (first pattern, patterns | shift << 16, count fields of patterns 0-3 and 4-7, a
// byte each): the accumulator takes (state & finals) >> shift, and pattern j's count is the
// FIELD_BITS bits from its field.
@group(0) @binding(16) var<storage, read> unit_tally: array<vec4<u32>>;

// Bytes a thread of `extra` or `transfer` runs before it hands its run on. Most runs agree with
// the run from empty within a few bytes, a few (a `.*` after a rare prefix) never; without the
// hand-on a warp waits for its longest thread, and one such run in 32 made the whole warp scan
// its chunk.
const SHORT_BYTES: u32 = 256u;
// u32 per long run: (unit or word, chunk, next byte, start bit), s, z.
const LONG_STRIDE: u32 = 20u;

// Workgroups along y of the passes dispatched per unit or word (z counts the rest).
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

// A unit's match counts: `acc` holds each pattern's count since the last flush in its field.
struct Tally {
    acc: u32,
    // Bytes added since the last flush (for the callers that add byte by byte).
    bytes: u32,
    counts: array<u32, MAX_PACKED>,
}

// Adds the fields of `acc` to the counts (`tally` = the unit's unit_tally).
fn tally_flush(t: ptr<function, Tally>, tally: vec4<u32>) {
    for (var j = 0u; j < MAX_PACKED; j += 1u) {
        let at = (select(tally.z, tally.w, j >= 4u) >> ((j & 3u) * 8u)) & 0xffu;
        (*t).counts[j] += ((*t).acc >> at) & FIELD_MASK;
    }
    (*t).acc = 0u;
    (*t).bytes = 0u;
}

// Adds one byte's final states `hits` (already AND-ed with the finals), flushing when due.
fn tally_add(t: ptr<function, Tally>, tally: vec4<u32>, hits: u32) {
    (*t).acc += hits >> (tally.y >> 16u);
    (*t).bytes += 1u;
    if ((*t).bytes == FIELD_MASK) {
        tally_flush(t, tally);
    }
}

// Flushes and adds the counts to the patterns' totals.
fn tally_end(t: ptr<function, Tally>, tally: vec4<u32>) {
    tally_flush(t, tally);
    for (var j = 0u; j < MAX_PACKED; j += 1u) {
        if (j < (tally.y & 0xffffu) && (*t).counts[j] != 0u) {
            atomicAdd(&counts[tally.x + j], (*t).counts[j]);
        }
    }
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

// Emits a match at `position` for the pattern of every bit of `hits` (final bits of the unit
// with `finals` and unit_tally `tally`).
fn emit_hits(hits: u32, finals: u32, tally: vec4<u32>, position: u32, room: ptr<function, bool>) {
    var bits = hits;
    while (bits != 0u && *room) {
        let b = firstTrailingBit(bits);
        bits &= bits - 1u;
        emit(tally.x + countOneBits(finals & ((1u << b) - 1u)), position, room);
    }
}

// The (unit, chunk) pair index of a thread of `scan` or `extra` (workgroups of 64, a 2-D
// dispatch: shared/dispatch.wgsl): the pairs are numbered chunk by chunk, so no lane idles at
// the end of a chunk's units, and a warp reads at most two chunks' text.
fn pair_index(group: vec3<u32>, local: u32) -> u32 {
    return dispatch_group_index(group) * 64u + local;
}

@compute @workgroup_size(64)
fn scan(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let pair = pair_index(group, local);
    let u = pair % params.units;
    let chunk = pair / params.units;
    if (chunk >= params.chunks) {
        return;
    }
    let info = unit_info[u];
    // Units of several modules run in scan_modules.
    if (info.y != 1u) {
        return;
    }
    let base = info.x;
    let finals = info.z;
    let tally = unit_tally[u];
    let start = chunk * params.chunk_len;
    let end = chunk_end(chunk);
    var t: Tally;
    var room = params.capacity != 0u;
    // The state and the masks other than Ch in registers. Bytes up to a multiple of 4 one by
    // one, then blocks of BLOCK_BYTES whose masks are all loaded before the steps (the loads'
    // latency overlaps), then the rest one by one; the accumulator is emptied after the first
    // part and after every block (at most 15 bytes apart).
    let word = words[base];
    var d = 0u;
    var i = start;
    for (; i < end && (i & 3u) != 0u; i += 1u) {
        scan_step(word, mask(base, text_byte(i)), &d, finals, tally, &t, &room, i);
    }
    tally_flush(&t, tally);
    for (; i + BLOCK_BYTES <= end; i += BLOCK_BYTES) {
        let q = i >> 2u;
        let a = masks4(base, text[q]);
        let b = masks4(base, text[q + 1u]);
        let c = masks4(base, text[q + 2u]);
        scan_step4(word, a, &d, finals, tally, &t, &room, i);
        scan_step4(word, b, &d, finals, tally, &t, &room, i + 4u);
        scan_step4(word, c, &d, finals, tally, &t, &room, i + 8u);
        tally_flush(&t, tally);
    }
    for (; i < end; i += 1u) {
        scan_step(word, mask(base, text_byte(i)), &d, finals, tally, &t, &room, i);
    }
    end_states[chunk * params.total_words + base] = d;
    tally_end(&t, tally);
}

// Bytes of a block (three text words): a thread loads the block's masks together.
const BLOCK_BYTES: u32 = 12u;

// The masks of word `w` for the four bytes of text word `t` (vectors, not an array: an array
// indexed in a loop went to local memory and made the scan five times slower, run 58).
fn masks4(w: u32, t: u32) -> vec4<u32> {
    return vec4<u32>(mask(w, t & 0xffu), mask(w, (t >> 8u) & 0xffu), mask(w, (t >> 16u) & 0xffu), mask(w, t >> 24u));
}

// `scan_step` on four bytes from `position`.
fn scan_step4(word: Word, m: vec4<u32>, d: ptr<function, u32>, finals: u32, tally: vec4<u32>, t: ptr<function, Tally>, room: ptr<function, bool>, position: u32) {
    scan_step(word, m.x, d, finals, tally, t, room, position);
    scan_step(word, m.y, d, finals, tally, t, room, position + 1u);
    scan_step(word, m.z, d, finals, tally, t, room, position + 2u);
    scan_step(word, m.w, d, finals, tally, t, room, position + 3u);
}

// One byte (mask `m`, at `position`) of the scan of a one-word unit.
fn scan_step(word: Word, m: u32, d: ptr<function, u32>, finals: u32, tally: vec4<u32>, t: ptr<function, Tally>, room: ptr<function, bool>, position: u32) {
    *d = word_apply(word, m, *d, 0u);
    let hits = *d & finals;
    (*t).acc += hits >> (tally.y >> 16u);
    if (*room && hits != 0u) {
        emit_hits(hits, finals, tally, position, room);
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

// One byte (mask `m`, at `position`) of the runs `sd` and `z` of a one-word unit, tallying
// (with `count`) the matches only `sd` has. Whether they agree afterwards.
fn pair_step(word: Word, m: u32, sd: ptr<function, u32>, zd: ptr<function, u32>, count: bool, finals: u32, tally: vec4<u32>, t: ptr<function, Tally>, room: ptr<function, bool>, position: u32) -> bool {
    *sd = word_apply(word, m, *sd, 0u);
    *zd = word_apply(word, m, *zd, 0u);
    if (count) {
        let hits = *sd & ~*zd & finals;
        tally_add(t, tally, hits);
        if (*room && hits != 0u) {
            emit_hits(hits, finals, tally, position, room);
        }
    }
    return *sd == *zd;
}

// `pair_step` on four bytes from `position`.
fn pair_step4(word: Word, m: vec4<u32>, sd: ptr<function, u32>, zd: ptr<function, u32>, count: bool, finals: u32, tally: vec4<u32>, t: ptr<function, Tally>, room: ptr<function, bool>, position: u32) {
    _ = pair_step(word, m.x, sd, zd, count, finals, tally, t, room, position);
    _ = pair_step(word, m.y, sd, zd, count, finals, tally, t, room, position + 1u);
    _ = pair_step(word, m.z, sd, zd, count, finals, tally, t, room, position + 2u);
    _ = pair_step(word, m.w, sd, zd, count, finals, tally, t, room, position + 3u);
}

// Runs unit u's words over the bytes [*i, to) from state `s` beside the run `z`, until the two
// agree. With `count`, tallies in `t` (and emits) the matches only `s` has. Returns whether
// they agree; *i is the next byte.
fn run_pair(u: u32, count: bool, s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>, i: ptr<function, u32>, to: u32, t: ptr<function, Tally>) -> bool {
    let info = unit_info[u];
    let base = info.x;
    let last = info.y - 1u;
    let finals = info.z;
    let tally = unit_tally[u];
    var k = *i;
    var same = states_equal(s, z, last + 1u);
    var room = count && params.capacity != 0u;
    if (last == 0u) {
        // One module: both runs in registers; bytes up to a multiple of 4 one by one, then
        // blocks whose masks are loaded together (once the runs agree they stay equal, so a
        // block needs no early exit), then the rest.
        let word = words[base];
        var sd = (*s)[0];
        var zd = (*z)[0];
        for (; k < to && !same && (k & 3u) != 0u; k += 1u) {
            same = pair_step(word, mask(base, text_byte(k)), &sd, &zd, count, finals, tally, t, &room, k);
        }
        for (; k + BLOCK_BYTES <= to && !same; k += BLOCK_BYTES) {
            let q = k >> 2u;
            let a = masks4(base, text[q]);
            let b = masks4(base, text[q + 1u]);
            let c = masks4(base, text[q + 2u]);
            pair_step4(word, a, &sd, &zd, count, finals, tally, t, &room, k);
            pair_step4(word, b, &sd, &zd, count, finals, tally, t, &room, k + 4u);
            pair_step4(word, c, &sd, &zd, count, finals, tally, t, &room, k + 8u);
            same = sd == zd;
        }
        for (; k < to && !same; k += 1u) {
            same = pair_step(word, mask(base, text_byte(k)), &sd, &zd, count, finals, tally, t, &room, k);
        }
        (*s)[0] = sd;
        (*z)[0] = zd;
    } else {
        for (; k < to && !same; k += 1u) {
            same = step_pair(s, z, base, last, text_byte(k));
            if (count) {
                let hits = (*s)[last] & ~(*z)[last] & finals;
                tally_add(t, tally, hits);
                if (room && hits != 0u) {
                    emit_hits(hits, finals, tally, k, &room);
                }
            }
        }
    }
    *i = k;
    return same;
}

@compute @workgroup_size(64)
fn fixup(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let u = group.x * 64u + local;
    if (u >= params.units) {
        return;
    }
    let info = unit_info[u];
    // The true state at the start of the current chunk (s) and the scan's run from empty (z).
    var s: array<u32, MAX_WORDS>;
    var t: Tally;
    for (var w = 0u; w < info.y; w += 1u) {
        s[w] = end_states[info.x + w];
    }
    for (var chunk = 1u; chunk < params.chunks; chunk += 1u) {
        // Set on every pass (naga declares a loop's variables once, at the function's start).
        var z = array<u32, MAX_WORDS>();
        var i = chunk * params.chunk_len;
        if (run_pair(u, true, &s, &z, &i, chunk_end(chunk), &t)) {
            // From here on the true run is the scan's: its end state is the chunk's.
            for (var w = 0u; w < info.y; w += 1u) {
                s[w] = end_states[chunk * params.total_words + info.x + w];
            }
        }
    }
    tally_end(&t, unit_tally[u]);
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

// Unit u's true start state at chunk `chunk`, as carry_down left it.
fn load_start_state(u: u32, chunk: u32) -> array<u32, MAX_WORDS> {
    let info = unit_info[u];
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

// One thread per (unit, chunk): reruns the chunk from its true start state beside the scan's
// run for up to SHORT_BYTES bytes, then hands the run to extra_long.
@compute @workgroup_size(64)
fn extra(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    // Chunk 0 starts empty: its scan was right.
    let pair = pair_index(group, local) + params.units;
    let u = pair % params.units;
    let chunk = pair / params.units;
    if (chunk >= params.chunks) {
        return;
    }
    let info = unit_info[u];
    var s = load_start_state(u, chunk);
    var z: array<u32, MAX_WORDS>;
    var t: Tally;
    var i = chunk * params.chunk_len;
    let end = chunk_end(chunk);
    if (!run_pair(u, true, &s, &z, &i, min(end, i + SHORT_BYTES), &t) && i < end) {
        let at = atomicAdd(&long_count[0], 1u);
        if (at < params.long_capacity) {
            save_long(at, u, chunk, i, 0u, &s, &z, info.y);
        } else {
            _ = run_pair(u, true, &s, &z, &i, end, &t);
        }
    }
    tally_end(&t, unit_tally[u]);
}

// One thread per run `extra` handed on: runs it to the agreement or the chunk's end.
@compute @workgroup_size(64)
fn extra_long(@builtin(global_invocation_id) id: vec3<u32>) {
    let at = id.x;
    if (at >= min(atomicLoad(&long_count[0]), params.long_capacity)) {
        return;
    }
    let u = long_runs[at * LONG_STRIDE];
    let chunk = long_runs[at * LONG_STRIDE + 1u];
    var i = long_runs[at * LONG_STRIDE + 2u];
    var s: array<u32, MAX_WORDS>;
    var z: array<u32, MAX_WORDS>;
    load_long(at, &s, &z, unit_info[u].y);
    var t: Tally;
    _ = run_pair(u, true, &s, &z, &i, chunk_end(chunk), &t);
    tally_end(&t, unit_tally[u]);
}

const MODULE_UNITS: u32 = 8u;
// The last bit of every module's state before this byte, [unit slot * MAX_WORDS + module].
var<workgroup> tops: array<u32, 64>;

@compute @workgroup_size(64)
fn scan_modules(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let slot = group.x * MODULE_UNITS + local / MAX_WORDS;
    let w = local % MAX_WORDS;
    let u = module_units[min(slot, params.module_unit_count - 1u)];
    let info = unit_info[u];
    let p = unit_tally[u].x;
    // Threads beyond the list or the unit's modules step a copy of its last module and keep
    // nothing; every thread takes part in the barriers.
    let keep = slot < params.module_unit_count && w < info.y;
    let word_index = info.x + min(w, info.y - 1u);
    let word = words[word_index];
    let is_last = keep && w == info.y - 1u;
    let start = group.y * params.chunk_len;
    let end = chunk_end(group.y);
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

// Words of one (unit, chunk)'s transfer function for a unit of `w` words: z, then 32 rows
// per word of w words each.
fn fn_stride(w: u32) -> u32 {
    return w + 32u * w * w;
}

// Where (unit `info`, chunk)'s transfer function starts in `functions`.
fn fn_at(info: vec4<u32>, chunk: u32) -> u32 {
    return info.w + chunk * fn_stride(info.y);
}

// Writes the row of start bit `bit` of word `word_index` in chunk `chunk`'s function: what `s`
// has beyond `z`.
fn write_row(word_index: u32, chunk: u32, bit: u32, s: ptr<function, array<u32, MAX_WORDS>>, z: ptr<function, array<u32, MAX_WORDS>>) {
    let info = unit_info[word_unit[word_index]];
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
    let u = word_unit[word_index];
    let info = unit_info[u];
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
    var t: Tally;
    if (!run_pair(u, false, &s, &z, &i, min(end, i + SHORT_BYTES), &t) && i < end) {
        let at = atomicAdd(&long_count[1], 1u);
        if (at < params.long_capacity) {
            save_long(params.long_capacity + at, word_index, chunk, i, bit, &s, &z, info.y);
            return;
        }
        _ = run_pair(u, false, &s, &z, &i, end, &t);
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
    let u = word_unit[word_index];
    var s: array<u32, MAX_WORDS>;
    var z: array<u32, MAX_WORDS>;
    load_long(at, &s, &z, unit_info[u].y);
    var t: Tally;
    _ = run_pair(u, false, &s, &z, &i, chunk_end(chunk), &t);
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
    let u = group.y + group.z * GROUPS_Y;
    let half = 1u << level.x;
    let a = group.x * 2u * half;
    let m = a + half;
    let r = min(m + half, params.chunks) - 1u;
    // The last chunk's slot feeds only the root, whose function nobody applies.
    if (u >= params.units || m >= params.chunks || r + 1u == params.chunks) {
        return;
    }
    let info = unit_info[u];
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
    let u = group.y + group.z * GROUPS_Y;
    let half = 1u << level.x;
    let a = (group.x * 64u + local) * 2u * half;
    let m = a + half;
    if (u >= params.units || m >= params.chunks) {
        return;
    }
    let r = min(m + half, params.chunks) - 1u;
    let info = unit_info[u];
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
