// An exclusive prefix sum over a workgroup of 256 threads, through workgroup memory (Hillis-Steele:
// 8 steps). Used by pool.alloc_sum (pool_allocate.wgsl) and cbt.decode_words.

var<workgroup> wg_scan: array<u32, 256>;

// The exclusive prefix of `value` over the workgroup's 256 threads (call in uniform control flow).
fn workgroup_exclusive_scan(t: u32, value: u32) -> u32 {
    wg_scan[t] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < 256u; offset <<= 1u) {
        var other = 0u;
        if (t >= offset) {
            other = wg_scan[t - offset];
        }
        workgroupBarrier();
        wg_scan[t] += other;
        workgroupBarrier();
    }
    return wg_scan[t] - value;
}
