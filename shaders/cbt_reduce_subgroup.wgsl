// cbt.reduce, subgroup path (src/cbt/reduce_subgroup.rs; the fallback is cbt_reduce.wgsl): rebuilds
// every count of the heap from the leaf bitfield, in one dispatch up to D = 25 and two up to 29.
//
// A stage reads 2^in_depth inputs (bitfield words at depth D-5, or counts at in_depth) and writes
// the levels above them; one workgroup of 256 threads reduces n0 = min(2^in_depth, 256 << items_log2)
// inputs, all the way to their one sum:
//   - the bitfield stage reads its words with coalesced loads (thread l reads word j * 256 + l of
//     its block, j < 2^items_log2). The SWAR popcount steps of a word are the counts of depths
//     D-1..D-5: D-1 is stored as it is; the 24- and 16-bit packed fields of D-2 and D-3 go out
//     as whole words assembled from the neighbouring lanes (a shuffle within a quad);
//   - the counts above (D-5 and up, or the inputs of a count stage) are summed with a butterfly
//     of shuffles, log2(subgroup size) levels without a barrier, the subgroups' sums
//     then again in rounds of one barrier each (one round for subgroups of 32 and up);
//   - every level summed (and D-4 from its 10-bit pairs) waits in workgroup memory as one value
//     per field; after the last barrier each thread assembles whole heap words from them, stored
//     plainly, and only the partial words at an area's edges, shared with a neighbouring
//     workgroup, go through cbt_heap's masked atomics.
// The last stage (a single workgroup) runs chained: the last workgroup of the stage before it to
// finish (a counter in reduce_sync, reset by that workgroup) carries on with it, so no dispatch
// waits for one workgroup. Correct for any subgroup of 4..=128 active lanes, a power of two, in any
// layout: the lanes are ranked among the subgroup's active ones (subgroupExclusiveAdd), each
// subgroup takes the next thread numbers, and shuffles address lanes by rank. (subgroup_size is
// not the active count: lavapipe at 1024-bit vectors runs 256-thread workgroups as 16 subgroups
// of 16 active lanes of a subgroup_size of 32.)
// With changed_only = 1 the bitfield stage runs one workgroup per block listed in cbt_changed, as
// cbt_reduce.wgsl does. Needs D >= 13 (full bitfield workgroups, word-aligned levels D-2, D-3).
// Mirrors Cbt::reduce in src/cbt/cpu.rs. (No `enable subgroups;`: naga 30 rejects the directive and
// takes subgroup builtins from the device's Features::SUBGROUP.)
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/cbt_reduce_block.wgsl
//!include shared/cbt_pack_word.wgsl

// Keep in sync with SubgroupReduceParams in src/cbt/reduce_subgroup.rs.
struct SubgroupReduceParams {
    // Depth of the stage's inputs (D - 5 for the bitfield stage).
    in_depth: u32,
    // log2 of the inputs per thread (0..=2).
    items_log2: u32,
    // 1: the inputs are bitfield words.
    bitfield: u32,
    // 1: the bitfield stage over the changed blocks alone (workgroup i reduces block cbt_changed list[i]).
    changed_only: u32,
    // 1: the last workgroup to finish runs the tail stage (a count stage of one workgroup).
    tail: u32,
    tail_in_depth: u32,
    tail_items_log2: u32,
    _pad0: u32,
}

@group(0) @binding(1) var<uniform> params: SubgroupReduceParams;
// The same heap buffer as cbt_heap, without atomics: plain loads of the bitfield and stores of the
// words a workgroup owns whole.
@group(0) @binding(2) var<storage, read_write> heap_words: array<u32>;
// [0]: workgroups of the chained dispatch that have finished (back to 0 when the last has).
@group(0) @binding(3) var<storage, read_write> reduce_sync: array<atomic<u32>>;

// Workgroup values: [0, 1024) the D-4 pairs (10 bits, one per bitfield word), then the levels
// summed, level m (m levels above the inputs, n0 >> m values) at sg_level_index(m, 0).
var<workgroup> wg_values: array<u32, 3072>;

fn sg_level_index(m: u32, i: u32) -> u32 {
    return 1024u + 2048u - (2048u >> m) + i;
}

// One area a workgroup writes: `len_bits` heap bits from `start_bit`, fields (or field pairs) of
// `chunk_bits` each, their values at wg_values[src..]; its words are numbered from `first_word` in
// the workgroup's list of every area's words.
struct PackArea {
    start_bit: u32,
    len_bits: u32,
    chunk_bits: u32,
    src: u32,
    first_word: u32,
}

var<workgroup> wg_areas: array<PackArea, 16>;
var<workgroup> wg_area_count: u32;
var<workgroup> wg_total_words: u32;
// 1 in the workgroup that runs the tail.
var<workgroup> wg_last: u32;
// Thread numbers handed out to subgroups so far.
var<workgroup> wg_next_thread: atomic<u32>;

fn sg_add_area(start_bit: u32, len_bits: u32, chunk_bits: u32, src: u32) {
    let a = wg_area_count;
    wg_areas[a] = PackArea(start_bit, len_bits, chunk_bits, src, wg_total_words);
    wg_total_words += ((start_bit & 31u) + len_bits + 31u) >> 5u;
    wg_area_count = a + 1u;
}

// The areas workgroup `wid` writes in a stage (one thread; a barrier follows before they are read).
fn sg_build_areas(bitfield: bool, in_depth: u32, n0_log2: u32, wid: u32) {
    let d = CBT_MAX_DEPTH;
    let n0 = 1u << n0_log2;
    wg_area_count = 0u;
    wg_total_words = 0u;
    if (bitfield) {
        // D-4 as pairs of 5-bit fields, one pair per word; D-5 as the inputs (6 bits).
        sg_add_area(cbt_level_bit_offset(d - 4u) + wid * n0 * 10u, n0 * 10u, 10u, 0u);
        sg_add_area(cbt_level_bit_offset(d - 5u) + wid * n0 * 6u, n0 * 6u, 6u, sg_level_index(0u, 0u));
    }
    for (var m = 1u; m <= n0_log2; m += 1u) {
        let depth = in_depth - m;
        let width = d - depth + 1u;
        let count = n0 >> m;
        sg_add_area(cbt_level_bit_offset(depth) + wid * count * width, count * width, width, sg_level_index(m, 0u));
    }
}

// The active lanes of a thread's subgroup.
struct SgLanes {
    // Which lanes are active.
    ballot: vec4<u32>,
    // This lane's rank among them.
    rank: u32,
    // How many (a power of two, 4..=128).
    count: u32,
    // The active lanes are 0..count-1 (rank = lane): the usual case, no look-up.
    dense: bool,
}

fn sg_lanes(lane: u32) -> SgLanes {
    let rank = subgroupExclusiveAdd(1u);
    return SgLanes(subgroupBallot(true), rank, subgroupAdd(1u), subgroupAll(rank == lane));
}

// The lane of rank `rank` (< count).
fn sg_lane_of(g: SgLanes, rank: u32) -> u32 {
    if (g.dense) {
        return rank;
    }
    var r = rank;
    for (var i = 0u; i < 4u; i += 1u) {
        let n = countOneBits(g.ballot[i]);
        if (r < n) {
            return 32u * i + cbt_select_bit(g.ballot[i], r);
        }
        r -= n;
    }
    return 0u;
}

// One stage for workgroup `wid`: thread `l` (numbered by subgroup), in a subgroup of active
// lanes `g`. Inputs are bitfield words (`bitfield`, D-5 = in_depth) or counts at in_depth.
fn sg_reduce_stage(bitfield: bool, in_depth: u32, items_log2: u32, wid: u32, l: u32, g: SgLanes) {
    let d = CBT_MAX_DEPTH;
    let n0_log2 = min(in_depth, 8u + items_log2);
    let n0 = 1u << n0_log2;
    // Inputs per pass (one per thread) and passes.
    let block = min(n0, WORKGROUP_SIZE);
    let block_log2 = firstTrailingBit(block);
    let sg_log2 = firstTrailingBit(g.count);
    let sg_first = l - g.rank;
    let next_lane = sg_lane_of(g, min(g.rank + 1u, g.count - 1u));
    if (l == 0u) {
        sg_build_areas(bitfield, in_depth, n0_log2, wid);
    }
    // Levels the butterfly sums inside each subgroup, in registers.
    let first_steps = min(sg_log2, block_log2);
    for (var j = 0u; j < n0 / block; j += 1u) {
        let p = j * block + l;
        let input = wid * n0 + p;
        let in_block = l < block;
        var c = 0u;
        if (bitfield) {
            // Every thread has a word (n0 >= 256 from D = 13 on).
            let w = heap_words[(3u << (d - 5u)) + input];
            let x1 = w - ((w >> 1u) & 0x55555555u);
            let x2 = (x1 & 0x33333333u) + ((x1 >> 2u) & 0x33333333u);
            let x3 = (x2 + (x2 >> 4u)) & 0x0f0f0f0fu;
            let x4 = (x3 + (x3 >> 8u)) & 0x00ff00ffu;
            c = (x4 + (x4 >> 16u)) & 0xffffu;
            // Depth D-1: sixteen 2-bit fields, exactly one aligned heap word.
            heap_words[(1u << (d - 4u)) + input] = x1;
            // Depth D-2: 8 fields of 3 bits per word; 4 words make 3 heap words.
            var p2 = 0u;
            for (var i = 0u; i < 8u; i += 1u) {
                p2 |= ((x2 >> (4u * i)) & 0xfu) << (3u * i);
            }
            let next2 = subgroupShuffle(p2, next_lane);
            let r = p & 3u;
            if (r < 3u) {
                heap_words[(cbt_level_bit_offset(d - 2u) >> 5u) + 3u * (input >> 2u) + r] = (p2 >> (8u * r)) | (next2 << (24u - 8u * r));
            }
            // Depth D-3: 4 fields of 4 bits per word; 2 words make a heap word.
            var p3 = 0u;
            for (var i = 0u; i < 4u; i += 1u) {
                p3 |= ((x3 >> (8u * i)) & 0xffu) << (4u * i);
            }
            let next3 = subgroupShuffle(p3, next_lane);
            if ((p & 1u) == 0u) {
                heap_words[(cbt_level_bit_offset(d - 3u) >> 5u) + (input >> 1u)] = p3 | (next3 << 16u);
            }
            // Depth D-4: 2 fields of 5 bits per word, packed with the other levels below.
            wg_values[p] = (x4 & 0xffffu) | ((x4 >> 16u) << 5u);
            wg_values[sg_level_index(0u, p)] = c;
        } else if (in_block) {
            c = cbt_heap_read(CbtNode((1u << in_depth) + input, in_depth));
        }
        if (sg_first < block) {
            for (var s = 0u; s < first_steps; s += 1u) {
                c += subgroupShuffle(c, sg_lane_of(g, g.rank ^ (1u << s)));
                if (in_block && (p & ((2u << s) - 1u)) == 0u) {
                    wg_values[sg_level_index(s + 1u, p >> (s + 1u))] = c;
                }
            }
        }
    }
    // The subgroups' sums (at most 256 values: n0 <= 1024, subgroups of 4 and up), a round of
    // log2(subgroup size) levels per barrier.
    var m = first_steps;
    loop {
        workgroupBarrier();
        if (m >= n0_log2) {
            break;
        }
        let n = n0 >> m;
        var c = 0u;
        if (l < n) {
            c = wg_values[sg_level_index(m, l)];
        }
        let steps = min(sg_log2, n0_log2 - m);
        if (sg_first < n) {
            for (var s = 0u; s < steps; s += 1u) {
                c += subgroupShuffle(c, sg_lane_of(g, g.rank ^ (1u << s)));
                if (l < n && (l & ((2u << s) - 1u)) == 0u) {
                    wg_values[sg_level_index(m + s + 1u, l >> (s + 1u))] = c;
                }
            }
        }
        m += steps;
    }
    // Every area's words, shared out over the workgroup.
    let total = wg_total_words;
    let area_count = wg_area_count;
    for (var i = l; i < total; i += WORKGROUP_SIZE) {
        var a = 0u;
        while (a + 1u < area_count && wg_areas[a + 1u].first_word <= i) {
            a += 1u;
        }
        let area = wg_areas[a];
        cbt_pack_word(area.start_bit, area.len_bits, area.chunk_bits, area.src, i - area.first_word);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn reduce(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    // Each subgroup takes the next g.count thread numbers, whatever the driver's layout of
    // subgroups in the workgroup: thread l is the lane of rank l % g.count.
    let g = sg_lanes(lane);
    var first = 0u;
    if (lane == subgroupBroadcastFirst(lane)) {
        first = atomicAdd(&wg_next_thread, g.count);
    }
    let l = subgroupBroadcastFirst(first) + g.rank;
    let wid = cbt_reduce_block(group, t);
    let group_count = 1u << (params.in_depth - min(params.in_depth, 8u + params.items_log2));
    if (wid >= group_count) {
        return;
    }
    sg_reduce_stage(params.bitfield == 1u, params.in_depth, params.items_log2, wid, l, g);
    if (params.tail == 0u) {
        return;
    }
    // Release this workgroup's stores to the device before counting it as done.
    storageBarrier();
    if (t == 0u) {
        let expected = select(group_count, groups.x, params.changed_only == 1u);
        let done = atomicAdd(&reduce_sync[0], 1u) + 1u;
        wg_last = u32(done == expected);
        if (done == expected) {
            atomicStore(&reduce_sync[0], 0u);
        }
    }
    if (workgroupUniformLoad(&wg_last) == 0u) {
        return;
    }
    // Acquire every other workgroup's stores; the tail reads its inputs with atomic loads.
    storageBarrier();
    sg_reduce_stage(false, params.tail_in_depth, params.tail_items_log2, 0u, l, g);
}
