// The one-pass CBT reduction's workgroup (cbt_reduce_one.wgsl describes it): `reduce_one_group`,
// for cbt_reduce_one.wgsl's dispatch and for pool_order_reduce.wgsl, which runs it beside
// pool.order. Needs the includer's shared/cbt.wgsl, shared/cbt_heap_atomic.wgsl,
// shared/cbt_pack_word.wgsl and the heap's plain views `heap_words`, `heap_vec4`, `heap_vec2`
// and the sums `reduce_sync`.

// Level m = k - 6 (depth D-k, k = 8..16, m >= 2) of the workgroup's counts: 1024 >> m values
// from one_level_index(m, 0). The tail reuses the array for its 2^(D-16) inputs and their sums.
var<workgroup> wg_values: array<u32, 2048>;
// The odd threads' first bits of D-4, D-5 and D-7, for the even threads (the pair's shared word).
var<workgroup> wg_pair4: array<u32, 128>;
var<workgroup> wg_pair5: array<u32, 128>;
var<workgroup> wg_pair7: array<u32, 128>;
// Every thread's 28 bits of D-6, for its left neighbour.
var<workgroup> wg_chunk6: array<u32, 256>;
// 1 in the workgroup that runs the tail.
var<workgroup> wg_last: u32;

fn one_level_index(m: u32, i: u32) -> u32 {
    return 2048u - (2048u >> m) + i;
}

// The counts of depths D-1..D-5 of one bitfield word, their fields packed as in the heap: x1 (16
// fields of 2 bits), p2 (8 of 3: 24 bits), p3 (4 of 4: 16 bits), p4 (2 of 5: 10 bits), x5 (6 bits).
struct WordCounts {
    x1: u32,
    p2: u32,
    p3: u32,
    p4: u32,
    x5: u32,
}

fn word_counts(w: u32) -> WordCounts {
    let x1 = w - ((w >> 1u) & 0x55555555u);
    let x2 = (x1 & 0x33333333u) + ((x1 >> 2u) & 0x33333333u);
    let x3 = (x2 + (x2 >> 4u)) & 0x0f0f0f0fu;
    let x4 = (x3 + (x3 >> 8u)) & 0x00ff00ffu;
    let x5 = (x4 + (x4 >> 16u)) & 0xffffu;
    // 4-bit lanes (<= 4) to 3-bit fields: pairs in bytes, then in 16-bit halves, then the word.
    let a = (x2 & 0x07070707u) | ((x2 >> 1u) & 0x38383838u);
    let b = (a & 0x003f003fu) | ((a >> 2u) & 0x0fc00fc0u);
    let p2 = (b & 0xfffu) | ((b >> 4u) & 0xfff000u);
    // Bytes (<= 8) to 4-bit fields.
    let c = (x3 & 0x000f000fu) | ((x3 >> 4u) & 0x00f000f0u);
    let p3 = (c & 0xffu) | ((c >> 8u) & 0xff00u);
    let p4 = (x4 & 0xffffu) | ((x4 >> 16u) << 5u);
    return WordCounts(x1, p2, p3, p4, x5);
}

fn area_word_count(start_bit: u32, len_bits: u32) -> u32 {
    return ((start_bit & 31u) + len_bits + 31u) >> 5u;
}

// The area of depth D-k (k = 8..16) that workgroup `wid` writes: (start bit, length in bits).
fn group_area(k: u32, wid: u32) -> vec2<u32> {
    let count = 1u << (16u - k);
    let width = k + 1u;
    return vec2<u32>(cbt_level_bit_offset(CBT_MAX_DEPTH - k) + wid * count * width, count * width);
}

// Sum of `n` values of wg_values from `first`.
fn sum_values(first: u32, n: u32) -> u32 {
    var sum = 0u;
    for (var i = 0u; i < n; i += 1u) {
        sum += wg_values[first + i];
    }
    return sum;
}

// true: the workgroups leave their sums in reduce_sync and a second dispatch of one workgroup
// (`top`) writes depths D-17..0 (ReducePath::OnePassSplit); false: the last workgroup does.
override ONE_SPLIT: bool = false;

// Word `w` of depths D-17..0 (bits cbt_level_bit_offset(0) to cbt_level_bit_offset(D-16), one
// contiguous run of fields 18..D+1 bits wide, at most 3 to a word) from the tail's sums: level j
// (depth D-16-j) at wg_values[2G - (2G >> j)..]. Every word is whole but the first (the header
// holds its low bits) and, below D = 21, the last (shared with depth D-16).
fn one_tail_word(w: u32) {
    let d = CBT_MAX_DEPTH;
    let g2 = 2u << (d - 16u);
    let top_depth = d - 17u;
    let w0 = w * 32u;
    let lo = max(cbt_level_bit_offset(0u), w0);
    let hi = min(cbt_level_bit_offset(d - 16u), w0 + 32u);
    // The depth of bit lo.
    var depth = 0u;
    while (depth < top_depth && cbt_level_bit_offset(depth + 1u) <= lo) {
        depth += 1u;
    }
    var width = d - depth + 1u;
    var k = (lo - cbt_level_bit_offset(depth)) / width;
    var field_bit = cbt_level_bit_offset(depth) + k * width;
    var bits = 0u;
    while (field_bit < hi) {
        let v = wg_values[g2 - (g2 >> (d - 16u - depth)) + k];
        if (field_bit >= w0) {
            bits |= v << (field_bit - w0);
        } else {
            bits |= v >> (w0 - field_bit);
        }
        field_bit += width;
        k += 1u;
        if (k == (1u << depth)) {
            depth += 1u;
            width -= 1u;
            k = 0u;
        }
    }
    let mask = cbt_mask(hi - lo) << (lo - w0);
    if (mask == 0xffffffffu) {
        heap_words[w] = bits;
    } else {
        atomicAnd(&cbt_heap[w], ~mask);
        atomicOr(&cbt_heap[w], bits & mask);
    }
}

// Workgroup `i`'s sum from reduce_sync[1 + i], where it was published as sum + 1: waits until it
// is there (its workgroup stored it before counting itself done, but with no fence between the
// two it may reach this workgroup later) and leaves 0 for the next reduction. The wait is
// bounded (2^15 loads; it ends at once on the split path, a dispatch later).
fn one_take_sum(i: u32) -> u32 {
    var v = atomicLoad(&reduce_sync[1u + i]);
    for (var n = 0u; v == 0u && n < 32768u; n += 1u) {
        v = atomicLoad(&reduce_sync[1u + i]);
    }
    atomicStore(&reduce_sync[1u + i], 0u);
    return v - 1u;
}

// Depths D-17..0 from the G = 2^(D-16) workgroup sums in reduce_sync (D >= 17): each thread
// loads two sums and keeps their sum (level 1), then a barrier a level up to the root, then one
// thread a word (one_tail_word).
fn one_tail(t: u32) {
    let d = CBT_MAX_DEPTH;
    let group_count = 1u << (d - 16u);
    if (2u * t < group_count) {
        wg_values[group_count + t] = one_take_sum(2u * t) + one_take_sum(2u * t + 1u);
    }
    for (var j = 2u; j <= d - 16u; j += 1u) {
        workgroupBarrier();
        let n = group_count >> j;
        let below = 2u * group_count - (2u * group_count >> (j - 1u));
        if (t < n) {
            wg_values[below + (group_count >> (j - 1u)) + t] = wg_values[below + 2u * t] + wg_values[below + 2u * t + 1u];
        }
    }
    workgroupBarrier();
    let words = (cbt_level_bit_offset(d - 16u) + 31u) >> 5u;
    for (var w = t; w < words; w += WORKGROUP_SIZE) {
        one_tail_word(w);
    }
}

// Workgroup `wid` of the reduction (thread t): the whole of it but the dispatch. Call from
// every thread of the workgroup, in uniform control flow.
fn reduce_one_group(wid: u32, t: u32) {
    let d = CBT_MAX_DEPTH;
    let group_count = 1u << (d - 16u);
    if (wid >= group_count) {
        return;
    }
    let g = wid * WORKGROUP_SIZE + t;
    let odd = (t & 1u) == 1u;

    // Depths D-1..D-5 from the thread's 8 bitfield words.
    let bitfield_vec4 = 3u << (d - 7u);
    let wa = heap_vec4[bitfield_vec4 + 2u * g];
    let wb = heap_vec4[bitfield_vec4 + 2u * g + 1u];
    let c0 = word_counts(wa.x);
    let c1 = word_counts(wa.y);
    let c2 = word_counts(wa.z);
    let c3 = word_counts(wa.w);
    let c4 = word_counts(wb.x);
    let c5 = word_counts(wb.y);
    let c6 = word_counts(wb.z);
    let c7 = word_counts(wb.w);
    // D-1 at word 2^(D-4): 8 words.
    let l1 = 1u << (d - 6u);
    heap_vec4[l1 + 2u * g] = vec4<u32>(c0.x1, c1.x1, c2.x1, c3.x1);
    heap_vec4[l1 + 2u * g + 1u] = vec4<u32>(c4.x1, c5.x1, c6.x1, c7.x1);
    // D-2 at word 5 * 2^(D-7): 6 words (four 24-bit fields make 3 words).
    let l2 = 5u << (d - 8u);
    heap_vec2[l2 + 3u * g] = vec2<u32>(c0.p2 | (c1.p2 << 24u), (c1.p2 >> 8u) | (c2.p2 << 16u));
    heap_vec2[l2 + 3u * g + 1u] = vec2<u32>((c2.p2 >> 16u) | (c3.p2 << 8u), c4.p2 | (c5.p2 << 24u));
    heap_vec2[l2 + 3u * g + 2u] = vec2<u32>((c5.p2 >> 8u) | (c6.p2 << 16u), (c6.p2 >> 16u) | (c7.p2 << 8u));
    // D-3 at word 3 * 2^(D-7): 4 words.
    let l3 = 3u << (d - 9u);
    heap_vec4[l3 + g] = vec4<u32>(c0.p3 | (c1.p3 << 16u), c2.p3 | (c3.p3 << 16u), c4.p3 | (c5.p3 << 16u), c6.p3 | (c7.p3 << 16u));
    // D-4 at word 7 * 2^(D-9): 80 bits a thread (q0, q1 and the 16 bits of q2).
    let q0 = c0.p4 | (c1.p4 << 10u) | (c2.p4 << 20u) | (c3.p4 << 30u);
    let q1 = (c3.p4 >> 2u) | (c4.p4 << 8u) | (c5.p4 << 18u) | (c6.p4 << 28u);
    let q2 = (c6.p4 >> 4u) | (c7.p4 << 6u);
    let l4 = (7u << (d - 9u)) + 5u * (g >> 1u);
    // D-5 at word 2^(D-7): 48 bits a thread (r0 and the 16 bits of r1).
    let r0 = c0.x5 | (c1.x5 << 6u) | (c2.x5 << 12u) | (c3.x5 << 18u) | (c4.x5 << 24u) | (c5.x5 << 30u);
    let r1 = (c5.x5 >> 2u) | (c6.x5 << 4u) | (c7.x5 << 10u);
    let l5 = (1u << (d - 7u)) + 3u * (g >> 1u);
    if (odd) {
        // The pair's words 3 and 4 of D-4 and word 2 of D-5, shifted by the even thread's 16 bits.
        heap_words[l4 + 3u] = (q0 >> 16u) | (q1 << 16u);
        heap_words[l4 + 4u] = (q1 >> 16u) | (q2 << 16u);
        heap_words[l5 + 2u] = (r0 >> 16u) | (r1 << 16u);
        wg_pair4[t >> 1u] = q0;
        wg_pair5[t >> 1u] = r0;
    } else {
        heap_words[l4] = q0;
        heap_words[l4 + 1u] = q1;
        heap_words[l5] = r0;
    }
    // D-6..D-8: 4 counts of 7 bits (28 bits), 2 of 8 (16 bits) and 1.
    let s6 = vec4<u32>(c0.x5 + c1.x5, c2.x5 + c3.x5, c4.x5 + c5.x5, c6.x5 + c7.x5);
    let s7 = vec2<u32>(s6.x + s6.y, s6.z + s6.w);
    let chunk6 = s6.x | (s6.y << 7u) | (s6.z << 14u) | (s6.w << 21u);
    let chunk7 = s7.x | (s7.y << 8u);
    wg_chunk6[t] = chunk6;
    if (odd) {
        wg_pair7[t >> 1u] = chunk7;
    }
    wg_values[one_level_index(2u, t)] = s7.x + s7.y;
    workgroupBarrier();
    if (!odd) {
        heap_words[l4 + 2u] = q2 | (wg_pair4[t >> 1u] << 16u);
        heap_words[l5 + 1u] = r1 | (wg_pair5[t >> 1u] << 16u);
        // D-7 at word 5 * 2^(D-11): one word a pair.
        heap_words[(5u << (d - 11u)) + (g >> 1u)] = chunk7 | (wg_pair7[t >> 1u] << 16u);
    }
    // D-6 at word 9 * 2^(D-11): 7 words for 8 threads.
    let r6 = t & 7u;
    if (r6 < 7u) {
        heap_words[(9u << (d - 11u)) + 7u * (g >> 3u) + r6] = (chunk6 >> (4u * r6)) | (wg_chunk6[t + 1u] << (28u - 4u * r6));
    }
    // D-9..D-11 (levels 3..5: 128, 64, 32 values) from D-8, in one round.
    if (t < 224u) {
        let m = select(select(5u, 4u, t < 192u), 3u, t < 128u);
        let i = t - select(select(192u, 128u, t < 192u), 0u, t < 128u);
        let n = 1u << (m - 2u);
        wg_values[one_level_index(m, i)] = sum_values(one_level_index(2u, i * n), n);
    }
    workgroupBarrier();
    // D-12..D-14 (levels 6..8: 16, 8, 4 values) from D-11.
    if (t < 28u) {
        let m = select(select(8u, 7u, t < 24u), 6u, t < 16u);
        let i = t - select(select(24u, 16u, t < 24u), 0u, t < 16u);
        let n = 1u << (m - 5u);
        wg_values[one_level_index(m, i)] = sum_values(one_level_index(5u, i * n), n);
    }
    workgroupBarrier();
    // D-15, D-16 (levels 9, 10: 2 values and 1) from D-14.
    if (t < 3u) {
        let m = select(10u, 9u, t < 2u);
        let i = select(0u, t, t < 2u);
        let n = 1u << (m - 8u);
        wg_values[one_level_index(m, i)] = sum_values(one_level_index(8u, i * n), n);
    }
    workgroupBarrier();

    // Publish the workgroup's sum (+ 1: one_take_sum) and count the workgroup done now, with no
    // storage barrier: the tail reads nothing this workgroup stores but the sum (the edge words it
    // shares, with the header and depth D-16, take masked atomics of disjoint bits), and the
    // count's answer is needed only after the packing (H100 run cbt-tail2: 1 µs less than a
    // fenced hand-over after it).
    var done = 0u;
    if (!ONE_SPLIT && group_count > 1u && t == 0u) {
        atomicStore(&reduce_sync[1u + wid], wg_values[one_level_index(10u, 0u)] + 1u);
        done = atomicAdd(&reduce_sync[0], 1u) + 1u;
    }

    // Every word of D-8..D-16 (at most 165), shared out over the workgroup.
    var total = 0u;
    for (var k = 8u; k <= 16u; k += 1u) {
        let area = group_area(k, wid);
        total += area_word_count(area.x, area.y);
    }
    for (var i = t; i < total; i += WORKGROUP_SIZE) {
        var k = 8u;
        var first = 0u;
        var area = group_area(8u, wid);
        loop {
            let words = area_word_count(area.x, area.y);
            if (i < first + words) {
                break;
            }
            first += words;
            k += 1u;
            area = group_area(k, wid);
        }
        cbt_pack_word(area.x, area.y, k + 1u, one_level_index(k - 6u, 0u), i - first);
    }

    if (group_count == 1u) {
        return;
    }
    if (ONE_SPLIT) {
        // The second dispatch (`top`) sums the workgroup sums.
        if (t == 0u) {
            atomicStore(&reduce_sync[1u + wid], wg_values[one_level_index(10u, 0u)] + 1u);
        }
        return;
    }
    // The last workgroup to count itself done runs the tail.
    if (t == 0u) {
        wg_last = u32(done == group_count);
        if (done == group_count) {
            atomicStore(&reduce_sync[0], 0u);
        }
    }
    if (workgroupUniformLoad(&wg_last) == 0u) {
        return;
    }
    one_tail(t);
}

