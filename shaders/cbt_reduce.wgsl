// cbt.reduce: rebuilds every count of the heap from the leaf bitfield in at most 3 dispatches.
//
//   dispatch 0 (bitfield = 1): one thread per 2^items_log2 (up to 4) 32-bit bitfield words. The
//       SWAR popcount steps of a word are exactly the counts of the 5 levels above it (2, 4, 8,
//       16, 32 bits wide); the thread sums its words over items_log2 more levels in registers,
//       then the workgroup sums over up to 8 more levels in shared memory.
//   dispatch 1, 2 (bitfield = 0): one thread per 2^items_log2 counts of the deepest level not yet
//       summed, summed in registers, then over up to 8 levels in shared memory.
// Up to D = 25 this takes 2 dispatches, up to 29 three. With changed_only = 1, dispatch 0 runs one
// workgroup per block listed in cbt_changed (an indirect dispatch; see src/cbt/changed.rs): the
// counts of unchanged blocks are still right, as they depend on their bits alone.
// Each workgroup assembles its (contiguous) part of every level in shared memory and writes it out
// with plain stores; only the partial words at its edges use atomics, as neighbouring workgroups
// share them. Mirrors Cbt::reduce in src/cbt/cpu.rs.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/cbt_reduce_block.wgsl
//!include shared/cbt_reduce_constants.wgsl

// Keep in sync with ReduceParams in src/cbt/gpu.rs.
struct ReduceParams {
    // Depth of the per-thread input counts (D - 5 for the bitfield dispatch).
    in_depth: u32,
    // Levels summed in shared memory above in_depth.
    levels: u32,
    // 1 for the first dispatch, which reads the bitfield.
    bitfield: u32,
    // log2 of the items (bitfield words, or counts) each thread reads and sums in registers (0..=2).
    items_log2: u32,
    // 1: dispatch 0 over the changed blocks alone (workgroup i reduces block cbt_changed list[i]).
    changed_only: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(1) var<uniform> params: ReduceParams;
// The same heap buffer as cbt_heap, without atomics: plain (coalesced, cacheable) loads of the
// bitfield and stores of the words this workgroup owns whole. Only the partial words at an
// area's edges, which a neighbouring workgroup shares, go through cbt_heap's atomics.
@group(0) @binding(2) var<storage, read_write> heap_words: array<u32>;

// SHARED_WORDS (enough for every area of 4 items per thread) and MAX_ITEMS_PER_THREAD come from
// src/cbt/reduce.rs.
// Counts of the level being summed, ping-ponging between two halves: one barrier per level.
var<workgroup> wg_counts: array<u32, 512>;
var<workgroup> wg_bits: array<atomic<u32>, SHARED_WORDS>;

// One area per level this workgroup writes: its fields [start, start + len) in heap bits, and
// where its words live in wg_bits (word-aligned like the heap). In the bitfield dispatch, areas
// 0..3 are depths D-2..D-5. Then items_log2 areas for the levels summed in registers, then one
// per level summed in shared memory.
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
    var a_rel = a;
    if (params.bitfield == 1u) {
        if (a < 4u) {
            let per_thread = (32u >> (a + 2u)) << params.items_log2;
            return vec3<u32>(CBT_MAX_DEPTH - (a + 2u), first * per_thread, active_count * per_thread);
        }
        a_rel = a - 4u;
    }
    if (a_rel < params.items_log2) {
        let j = a_rel + 1u;
        let per_thread = (1u << params.items_log2) >> j;
        return vec3<u32>(params.in_depth + params.items_log2 - j, first * per_thread, active_count * per_thread);
    }
    let s = a_rel + 1u - params.items_log2;
    return vec3<u32>(params.in_depth - s, first >> s, active_count >> s);
}

// The workgroup's area table, in shared memory rather than per thread: a per-thread table costs
// registers, and register pressure limited the first dispatch to one workgroup per SM.
var<workgroup> areas: array<Area, 16>;

// Fills `areas` for workgroup `wid` (one thread; the caller synchronises).
fn build_areas(area_count: u32, wid: u32, active_count: u32) {
    var shared_word = 0u;
    for (var i = 0u; i < area_count; i += 1u) {
        let nodes = area_nodes(i, wid, active_count);
        let width = CBT_MAX_DEPTH - nodes.x + 1u;
        areas[i] = Area(cbt_level_bit_offset(nodes.x) + nodes.y * width, nodes.z * width, shared_word);
        shared_word += area_words(areas[i]);
    }
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn reduce(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let d = CBT_MAX_DEPTH;
    let wid = cbt_reduce_block(group, t);
    // Threads of this dispatch: one per node of in_depth; each reads the 2^items_log2 items below
    // it (bitfield words at depth D-5 in dispatch 0, counts at in_depth + items_log2 after).
    let total_threads = 1u << params.in_depth;
    let group_count = max(total_threads / WORKGROUP_SIZE, 1u);
    if (wid >= group_count) {
        return;
    }
    let active_threads = min(total_threads, WORKGROUP_SIZE);
    let first = wid * active_threads;
    let first_register_area = select(0u, 4u, params.bitfield == 1u);
    let area_count = first_register_area + params.items_log2 + params.levels;
    if (t == 0u) {
        build_areas(area_count, wid, active_threads);
    }
    workgroupBarrier();

    var count = 0u;
    if (t < active_threads) {
        let node_index = first + t;
        let items = 1u << params.items_log2;
        var item_counts: array<u32, MAX_ITEMS_PER_THREAD>;
        if (params.bitfield == 1u) {
            let words = items;
            for (var j = 0u; j < words; j += 1u) {
                let word_index = node_index * words + j;
                let w = heap_words[(3u << (d - 5u)) + word_index];
                let x1 = w - ((w >> 1u) & 0x55555555u);
                let x2 = (x1 & 0x33333333u) + ((x1 >> 2u) & 0x33333333u);
                let x3 = (x2 + (x2 >> 4u)) & 0x0f0f0f0fu;
                let x4 = (x3 + (x3 >> 8u)) & 0x00ff00ffu;
                let x5 = (x4 + (x4 >> 16u)) & 0xffffu;
                // Depth D-1: sixteen 2-bit fields, exactly one aligned heap word.
                heap_words[(1u << (d - 4u)) + word_index] = x1;
                // Depths D-2..D-5: repack 4/8/16-bit lanes into 3/4/5/6-bit fields.
                var p2 = 0u;
                for (var i = 0u; i < 8u; i += 1u) {
                    p2 |= ((x2 >> (4u * i)) & 0xfu) << (3u * i);
                }
                var p3 = 0u;
                for (var i = 0u; i < 4u; i += 1u) {
                    p3 |= ((x3 >> (8u * i)) & 0xffu) << (4u * i);
                }
                let p4 = (x4 & 0xffffu) | ((x4 >> 16u) << 5u);
                let local_word = t * words + j;
                emit(areas[0u], local_word * 24u, 24u, p2);
                emit(areas[1u], local_word * 16u, 16u, p3);
                emit(areas[2u], local_word * 10u, 10u, p4);
                emit(areas[3u], local_word * 6u, 6u, x5);
                item_counts[j] = x5;
            }
        } else {
            let item_depth = params.in_depth + params.items_log2;
            for (var j = 0u; j < items; j += 1u) {
                item_counts[j] = cbt_heap_read(CbtNode((1u << item_depth) + node_index * items + j, item_depth));
            }
        }
        // The items_log2 levels above the items: sum this thread's items in registers.
        for (var level = 1u; level <= params.items_log2; level += 1u) {
            let n = items >> level;
            let width = d - (params.in_depth + params.items_log2 - level) + 1u;
            for (var i = 0u; i < n; i += 1u) {
                let sum = item_counts[2u * i] + item_counts[2u * i + 1u];
                item_counts[i] = sum;
                emit(areas[first_register_area + level - 1u], (t * n + i) * width, width, sum);
            }
        }
        count = item_counts[0];
    }
    wg_counts[t] = count;
    let first_upper_area = first_register_area + params.items_log2;
    for (var s = 1u; s <= params.levels; s += 1u) {
        workgroupBarrier();
        let n = active_threads >> s;
        let read_half = ((s - 1u) & 1u) * 256u;
        if (t < n) {
            let sum = wg_counts[read_half + 2u * t] + wg_counts[read_half + 2u * t + 1u];
            wg_counts[(256u - read_half) + t] = sum;
            let width = d - (params.in_depth - s) + 1u;
            emit(areas[first_upper_area + s - 1u], t * width, width, sum);
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
                heap_words[word] = bits;
            } else {
                atomicAnd(&cbt_heap[word], ~mask);
                atomicOr(&cbt_heap[word], bits & mask);
            }
        }
    }
}
