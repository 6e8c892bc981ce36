// kernel.shift_and: extended Shift-And (seed 003), many patterns at once. The update per byte
// and the meaning of the masks are written out in crates/kernels/src/shift_and/mod.rs (the CPU reference,
// whose `step` this mirrors word for word).
//   scan:  one thread per (one-module pattern, chunk), 64 patterns per workgroup reading the
//          same chunk (the text loads are the same address across the workgroup); every chunk
//          starts from the empty state and records its end state.
//   scan_modules: the same for patterns of several modules, one thread per module (the paper's
//          distribute/aggregate): per byte every module publishes its state's last bit in
//          workgroup memory and, after a barrier, takes its predecessor's as the shift's carry.
//   carry: one thread per (pattern, chunk), rounds until nothing changes. The estimates start as
//          the scan's end states (chunk c + 1 starts from chunk c's end from empty). A thread
//          reruns its chunk from its estimate beside the scan's run until the two states agree
//          (then the chunk's end state is the scan's, already in the next estimate); if they
//          never agree it ORs its end state into the next chunk's estimate and, when that added
//          bits, runs on into that chunk, and so on. Estimates only grow and stay below the
//          true states (the update is monotone); a round that adds nothing leaves the true
//          states (by induction from chunk 0, whose start is empty).
//   extra: one thread per (pattern, chunk): reruns each chunk from its true start state beside
//          the scan's run until they agree, adding the matches only the true run has (the
//          true run contains the scan's).
//   fixup: the same with one thread per pattern, sequential over chunks, for when `carry`
//          has not reached its fixed point within a few rounds.
// Matches: a count per pattern and (pattern, position) pairs appended up to params.capacity.

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
    pad1: u32,
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
// Per pattern: (first word, word count, the last state's bit in the last word, 0).
@group(0) @binding(1) var<storage, read> pattern_info: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> words: array<Word>;
// ch[word * 256 + byte]
@group(0) @binding(3) var<storage, read> ch: array<u32>;
// The text, four bytes per word (little-endian).
@group(0) @binding(4) var<storage, read> text: array<u32>;
// The scan's end state of every chunk: [chunk * total_words + word].
@group(0) @binding(5) var<storage, read_write> end_states: array<u32>;
@group(0) @binding(6) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> matches: array<vec2<u32>>;
// [0] = match slots handed out (stops a little beyond the capacity).
@group(0) @binding(8) var<storage, read_write> counter: array<atomic<u32>, 2>;
// Start-state estimates of the chunks, [chunk * total_words + word]: under-approximations
// (every bit set is set in the true state) that `carry` only ever ORs bits into.
@group(0) @binding(9) var<storage, read_write> starts: array<atomic<u32>>;
// Set by `carry` when it added a bit to an estimate.
@group(0) @binding(10) var<storage, read_write> changed: atomic<u32>;
// The patterns of more than one module, for `scan_modules`.
@group(0) @binding(11) var<storage, read> module_patterns: array<u32>;

fn text_byte(i: u32) -> u32 {
    return (text[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu;
}

fn word_step(w: u32, old: u32, carry: u32, b: u32) -> u32 {
    let word = words[w];
    let m = ch[w * 256u + b];
    var x = (((old << 1u) | carry | word.first) & m) | (old & word.rep & m);
    let df = x | word.eend;
    x |= word.eblk & ((~(df - word.ebeg)) ^ df);
    return x;
}

// Keeps (p, position) while there is room (counts are kept by the callers, so a full list
// costs one load per match, not a contended atomic).
fn emit(p: u32, position: u32) {
    if (atomicLoad(&counter[0]) < params.capacity) {
        let slot = atomicAdd(&counter[0], 1u);
        if (slot < params.capacity) {
            matches[slot] = vec2<u32>(p, position);
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
    // Patterns of several modules run in scan_modules.
    if (info.y == 1u) {
        // The state and the masks other than Ch in registers, four bytes per load.
        let word = words[base];
        let row = base * 256u;
        var d = 0u;
        var i = start;
        while (i < end) {
            let packed = text[i >> 2u];
            let stop = min(end, (i & ~3u) + 4u);
            for (; i < stop; i += 1u) {
                let m = ch[row + ((packed >> ((i & 3u) * 8u)) & 0xffu)];
                d = (((d << 1u) | word.first) & m) | (d & word.rep & m);
                let df = d | word.eend;
                d |= word.eblk & ((~(df - word.ebeg)) ^ df);
                if ((d & info.z) != 0u) {
                    found += 1u;
                    emit(p, i);
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
            let row = base * 256u;
            var sd = s[0];
            var zd = 0u;
            for (var i = start; i < end && !same; i += 1u) {
                let m = ch[row + text_byte(i)];
                sd = (((sd << 1u) | word.first) & m) | (sd & word.rep & m);
                zd = (((zd << 1u) | word.first) & m) | (zd & word.rep & m);
                let sf = sd | word.eend;
                let zf = zd | word.eend;
                sd |= word.eblk & ((~(sf - word.ebeg)) ^ sf);
                zd |= word.eblk & ((~(zf - word.ebeg)) ^ zf);
                same = sd == zd;
                if ((sd & info.z) != 0u && (zd & info.z) == 0u) {
                    found += 1u;
                    emit(p, i);
                }
            }
            s[0] = sd;
        } else {
            for (var i = start; i < end && !same; i += 1u) {
                let b = text_byte(i);
                var carry_s = 0u;
                var carry_z = 0u;
                same = true;
                for (var w = 0u; w <= last; w += 1u) {
                    let old_s = s[w];
                    let old_z = z[w];
                    let top = words[base + w].len - 1u;
                    s[w] = word_step(base + w, old_s, carry_s, b);
                    z[w] = word_step(base + w, old_z, carry_z, b);
                    carry_s = (old_s >> top) & 1u;
                    carry_z = (old_z >> top) & 1u;
                    same = same && s[w] == z[w];
                }
                if ((s[last] & info.z) != 0u && (z[last] & info.z) == 0u) {
                    found += 1u;
                    emit(p, i);
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

// Runs `chunk` of pattern `p` from state `s` beside the scan's run (from empty) until the two
// agree or the chunk ends. With `emit_matches`, emits the matches only the first run has and
// counts them in found. Returns whether they agreed; `s` holds the state reached.
fn rerun(p: u32, chunk: u32, s: ptr<function, array<u32, MAX_WORDS>>, emit_matches: bool, found: ptr<function, u32>) -> bool {
    let info = pattern_info[p];
    let base = info.x;
    let last = info.y - 1u;
    let start = chunk * params.chunk_len;
    let end = min(start + params.chunk_len, params.text_len);
    var z: array<u32, MAX_WORDS>;
    var same = true;
    for (var w = 0u; w <= last; w += 1u) {
        same = same && (*s)[w] == 0u;
    }
    for (var i = start; i < end && !same; i += 1u) {
        let b = text_byte(i);
        var carry_s = 0u;
        var carry_z = 0u;
        same = true;
        for (var w = 0u; w <= last; w += 1u) {
            let old_s = (*s)[w];
            let old_z = z[w];
            let top = words[base + w].len - 1u;
            (*s)[w] = word_step(base + w, old_s, carry_s, b);
            z[w] = word_step(base + w, old_z, carry_z, b);
            carry_s = (old_s >> top) & 1u;
            carry_z = (old_z >> top) & 1u;
            same = same && (*s)[w] == z[w];
        }
        if (emit_matches && ((*s)[last] & info.z) != 0u && (z[last] & info.z) == 0u) {
            *found += 1u;
            emit(p, i);
        }
    }
    return same;
}

// Pattern p's start state at chunk `chunk`, as the carry rounds have left it in `starts`.
fn load_start_state(p: u32, chunk: u32) -> array<u32, MAX_WORDS> {
    let info = pattern_info[p];
    var s: array<u32, MAX_WORDS>;
    for (var w = 0u; w < info.y; w += 1u) {
        s[w] = atomicLoad(&starts[chunk * params.total_words + info.x + w]);
    }
    return s;
}

@compute @workgroup_size(64)
fn carry(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.x * PATTERNS_PER_GROUP + local;
    // Chunk 0 starts empty; its end (the scan's) is chunk 1's first estimate already.
    if (p >= params.patterns || group.y == 0u) {
        return;
    }
    let info = pattern_info[p];
    let base = info.x;
    let last = info.y - 1u;
    var s = load_start_state(p, group.y);
    var found = 0u;
    for (var chunk = group.y; chunk + 1u < params.chunks; chunk += 1u) {
        if (rerun(p, chunk, &s, false, &found)) {
            break;
        }
        var grew = false;
        for (var w = 0u; w <= last; w += 1u) {
            let old = atomicOr(&starts[(chunk + 1u) * params.total_words + base + w], s[w]);
            grew = grew || (old | s[w]) != old;
            s[w] |= old;
        }
        if (!grew) {
            break;
        }
        atomicStore(&changed, 1u);
    }
}

@compute @workgroup_size(64)
fn extra(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let p = group.x * PATTERNS_PER_GROUP + local;
    if (p >= params.patterns || group.y == 0u) {
        return;
    }
    var s = load_start_state(p, group.y);
    var found = 0u;
    rerun(p, group.y, &s, true, &found);
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
    let row = word_index * 256u;
    let is_last = keep && w == info.y - 1u;
    let start = group.y * params.chunk_len;
    let end = min(start + params.chunk_len, params.text_len);
    var d = 0u;
    var found = 0u;
    for (var i = start; i < end; i += 1u) {
        tops[local] = (d >> (word.len - 1u)) & 1u;
        workgroupBarrier();
        var carry = 0u;
        if (w > 0u) {
            carry = tops[local - 1u];
        }
        let m = ch[row + text_byte(i)];
        d = (((d << 1u) | carry | word.first) & m) | (d & word.rep & m);
        let df = d | word.eend;
        d |= word.eblk & ((~(df - word.ebeg)) ^ df);
        if (is_last && (d & info.z) != 0u) {
            found += 1u;
            emit(p, i);
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
