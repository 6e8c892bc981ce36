// cbt.reduce: rebuilds every count of the heap from the leaf bitfield in at most 3 dispatches.
//
//   dispatch 0 (bitfield = 1): one thread per 32-bit bitfield word. The SWAR popcount steps of the
//       word are exactly the counts of the 5 levels above it (2, 4, 8, 16, 32 bits wide); then the
//       workgroup sums its 256 words over up to 8 more levels in shared memory.
//   dispatch 1, 2 (bitfield = 0): one thread per node of `in_depth`, summed over up to 8 levels.
// Each workgroup assembles its (contiguous) part of every level in shared memory and writes it out
// with plain stores; only the partial words at its edges use atomics, as neighbouring workgroups
// share them. Mirrors Cbt::reduce in src/cbt/cpu.rs.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl

// Keep in sync with ReduceParams in src/cbt/gpu.rs.
struct ReduceParams {
    // Depth of the per-thread input counts (D - 5 for the bitfield dispatch).
    in_depth: u32,
    // Levels summed in shared memory above in_depth.
    levels: u32,
    // 1 for the first dispatch, which reads the bitfield.
    bitfield: u32,
    _pad: u32,
}

@group(0) @binding(1) var<uniform> params: ReduceParams;

const SHARED_WORDS: u32 = 1024u;
// Counts of the level being summed, ping-ponging between two halves: one barrier per level.
var<workgroup> wg_counts: array<u32, 512>;
var<workgroup> wg_bits: array<atomic<u32>, SHARED_WORDS>;

// One area per level this workgroup writes: its fields [start, start + len) in heap bits, and
// where its words live in wg_bits (word-aligned like the heap). Areas 0..3 are depths D-2..D-5
// (bitfield dispatch only), then one per summed level.
struct Area {
    start_bit: u32,
    len_bits: u32,
    shared_word: u32,
}

fn area_words(area: Area) -> u32 {
    return ((area.start_bit & 31u) + area.len_bits + 31u) >> 5u;
}

// Depth, first node (level-local index) and node count of area `a` for workgroup `wid` whose
// threads hold `active_count` nodes of in_depth.
fn area_nodes(a: u32, wid: u32, active_count: u32) -> vec3<u32> {
    let first = wid * active_count;
    if (params.bitfield == 1u && a < 4u) {
        let k = a + 2u;
        return vec3<u32>(CBT_MAX_DEPTH - k, first * (32u >> k), active_count * (32u >> k));
    }
    let s = a + 1u - select(0u, 4u, params.bitfield == 1u);
    return vec3<u32>(params.in_depth - s, first >> s, active_count >> s);
}

fn area_at(a: u32, wid: u32, active_count: u32) -> Area {
    var shared_word = 0u;
    var result = Area(0u, 0u, 0u);
    for (var i = 0u; i <= a; i += 1u) {
        let nodes = area_nodes(i, wid, active_count);
        let width = CBT_MAX_DEPTH - nodes.x + 1u;
        result = Area(cbt_level_bit_offset(nodes.x) + nodes.y * width, nodes.z * width, shared_word);
        shared_word += area_words(result);
    }
    return result;
}

// ORs `value` (`width` <= 32 bits) at bit `bit` of `area`, relative to the area's first field.
fn emit(area: Area, bit: u32, width: u32, value: u32) {
    let local_bit = (area.start_bit & 31u) + bit;
    let word = area.shared_word + (local_bit >> 5u);
    let shift = local_bit & 31u;
    atomicOr(&wg_bits[word], value << shift);
    if (shift + width > 32u) {
        atomicOr(&wg_bits[word + 1u], value >> (32u - shift));
    }
}

@compute @workgroup_size(256)
fn reduce(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let d = CBT_MAX_DEPTH;
    let wid = dispatch_group_index(group);
    // Threads of this dispatch: one per node of in_depth (one per bitfield word in dispatch 0).
    let total_threads = 1u << params.in_depth;
    let group_count = max(total_threads / WORKGROUP_SIZE, 1u);
    if (wid >= group_count) {
        return;
    }
    let active_threads = min(total_threads, WORKGROUP_SIZE);
    let first = wid * active_threads;
    let area_count = params.levels + select(0u, 4u, params.bitfield == 1u);

    var count = 0u;
    if (t < active_threads) {
        let node_index = first + t;
        if (params.bitfield == 1u) {
            let word = (3u << (d - 5u)) + node_index;
            let w = atomicLoad(&cbt_heap[word]);
            let x1 = w - ((w >> 1u) & 0x55555555u);
            let x2 = (x1 & 0x33333333u) + ((x1 >> 2u) & 0x33333333u);
            let x3 = (x2 + (x2 >> 4u)) & 0x0f0f0f0fu;
            let x4 = (x3 + (x3 >> 8u)) & 0x00ff00ffu;
            let x5 = (x4 + (x4 >> 16u)) & 0xffffu;
            // Depth D-1: sixteen 2-bit fields, exactly one aligned heap word.
            atomicStore(&cbt_heap[(1u << (d - 4u)) + node_index], x1);
            // Depths D-2..D-5: repack 4/8/16-bit lanes into 3/4/5/6-bit fields.
            var p2 = 0u;
            for (var j = 0u; j < 8u; j += 1u) {
                p2 |= ((x2 >> (4u * j)) & 0xfu) << (3u * j);
            }
            var p3 = 0u;
            for (var j = 0u; j < 4u; j += 1u) {
                p3 |= ((x3 >> (8u * j)) & 0xffu) << (4u * j);
            }
            let p4 = (x4 & 0xffffu) | ((x4 >> 16u) << 5u);
            emit(area_at(0u, wid, active_threads), t * 24u, 24u, p2);
            emit(area_at(1u, wid, active_threads), t * 16u, 16u, p3);
            emit(area_at(2u, wid, active_threads), t * 10u, 10u, p4);
            emit(area_at(3u, wid, active_threads), t * 6u, 6u, x5);
            count = x5;
        } else {
            count = cbt_heap_read(CbtNode((1u << params.in_depth) + node_index, params.in_depth));
        }
    }
    wg_counts[t] = count;
    let first_upper_area = select(0u, 4u, params.bitfield == 1u);
    for (var s = 1u; s <= params.levels; s += 1u) {
        workgroupBarrier();
        let n = active_threads >> s;
        let read_half = ((s - 1u) & 1u) * 256u;
        if (t < n) {
            let sum = wg_counts[read_half + 2u * t] + wg_counts[read_half + 2u * t + 1u];
            wg_counts[(256u - read_half) + t] = sum;
            let width = d - (params.in_depth - s) + 1u;
            emit(area_at(first_upper_area + s - 1u, wid, active_threads), t * width, width, sum);
        }
    }
    workgroupBarrier();

    // Write every area out: whole words with stores, partial edge words with masked atomics.
    for (var a = 0u; a < area_count; a += 1u) {
        let area = area_at(a, wid, active_threads);
        let first_word = area.start_bit >> 5u;
        let end_bit = area.start_bit + area.len_bits;
        let word_count = ((area.start_bit & 31u) + area.len_bits + 31u) >> 5u;
        for (var i = t; i < word_count; i += WORKGROUP_SIZE) {
            let word = first_word + i;
            let lo = max(area.start_bit, word * 32u) - word * 32u;
            let hi = min(end_bit, word * 32u + 32u) - word * 32u;
            let mask = cbt_mask(hi - lo) << lo;
            let bits = atomicLoad(&wg_bits[area.shared_word + i]);
            if (mask == 0xffffffffu) {
                atomicStore(&cbt_heap[word], bits);
            } else {
                atomicAnd(&cbt_heap[word], ~mask);
                atomicOr(&cbt_heap[word], bits & mask);
            }
        }
    }
}
