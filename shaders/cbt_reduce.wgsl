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
var<workgroup> wg_counts: array<u32, 256>;
var<workgroup> wg_bits: array<atomic<u32>, SHARED_WORDS>;

// One area per level this workgroup writes: its fields [start, start + len) in heap bits, and
// where its words live in wg_bits (word-aligned like the heap).
struct Area {
    start_bit: u32,
    len_bits: u32,
    shared_word: u32,
}

var<private> areas: array<Area, 16>;
var<private> area_count: u32;

fn add_area(depth: u32, first_node: u32, node_count: u32) {
    let width = CBT_MAX_DEPTH - depth + 1u;
    let start = cbt_level_bit_offset(depth) + first_node * width;
    var shared_word = 0u;
    if (area_count > 0u) {
        let prev = areas[area_count - 1u];
        shared_word = prev.shared_word + (((prev.start_bit & 31u) + prev.len_bits + 31u) >> 5u);
    }
    areas[area_count] = Area(start, node_count * width, shared_word);
    area_count += 1u;
}

// ORs `value` (`width` <= 32 bits) at bit `bit` of area `a`, relative to the area's first field.
fn emit(a: u32, bit: u32, width: u32, value: u32) {
    let local_bit = (areas[a].start_bit & 31u) + bit;
    let word = areas[a].shared_word + (local_bit >> 5u);
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
    area_count = 0u;
    if (params.bitfield == 1u) {
        for (var k = 2u; k <= 5u; k += 1u) {
            add_area(d - k, first * (32u >> k), active_threads * (32u >> k));
        }
    }
    for (var s = 1u; s <= params.levels; s += 1u) {
        add_area(params.in_depth - s, first >> s, active_threads >> s);
    }

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
            emit(0u, t * 24u, 24u, p2);
            emit(1u, t * 16u, 16u, p3);
            emit(2u, t * 10u, 10u, p4);
            emit(3u, t * 6u, 6u, x5);
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
        var sum = 0u;
        if (t < n) {
            sum = wg_counts[2u * t] + wg_counts[2u * t + 1u];
        }
        workgroupBarrier();
        if (t < n) {
            wg_counts[t] = sum;
            emit(first_upper_area + s - 1u, t * (d - (params.in_depth - s) + 1u), d - (params.in_depth - s) + 1u, sum);
        }
    }
    workgroupBarrier();

    // Write every area out: whole words with stores, partial edge words with masked atomics.
    for (var a = 0u; a < area_count; a += 1u) {
        let area = areas[a];
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
