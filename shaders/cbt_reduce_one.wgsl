// cbt.reduce, one-pass path (src/cbt/reduce_one.rs; D = 16..=25): rebuilds every count of the
// heap from the leaf bitfield in one dispatch, without subgroups and without workgroup atomics.
//
// Workgroup `wid` (256 threads) owns 2048 bitfield words (a depth D-16 node); thread g = wid *
// 256 + t owns the 8 words 8g..8g+7 (a depth D-8 node), read as two vec4 loads. Level D-k then
// holds 2^(8-k) * 32 fields of k+1 bits per thread, whatever D is:
//   - D-1..D-3 (256, 192, 128 bits): whole aligned words per thread, stored plainly (vec4/vec2);
//   - D-4, D-5, D-7 (80, 48, 16 bits): a pair of threads spans 5, 3 and 1 whole words; the odd
//     thread hands its first bits to the even one through workgroup memory, so each word has one
//     writer; D-6 (28 bits): 8 threads span 7 words, thread r < 7 of them writes word r with its
//     right neighbour's bits;
//   - D-8 (1 count a thread) and D-9..D-16 (summed from it in workgroup memory in 3 rounds of one
//     barrier) wait in workgroup memory as one value per field; after the last barrier the
//     workgroup assembles whole words of them (D-8..D-11 span whole words per workgroup;
//     D-12..D-16 share their edge words with the neighbouring workgroups, which go through
//     cbt_heap's masked atomics).
// Depths D-17..0: each workgroup, once it has its sum (before packing D-8..D-16), leaves it in
// reduce_sync and counts itself done, with no fence (the tail waits for each sum); the last one
// (the counter reaches the workgroup count, and it resets it) runs one_tail: two sums a thread,
// a barrier a level up to the root, then one thread a word of those levels. With ONE_SPLIT
// (ReducePath::OnePassSplit) a second dispatch of one workgroup (`top`) runs it instead. Every
// workgroup value is written before it is read (no zeroing needed). Mirrors Cbt::reduce in src/cbt/cpu.rs.
//!include shared/cbt.wgsl
//!include shared/cbt_heap_atomic.wgsl
//!include shared/dispatch.wgsl
//!include shared/cbt_pack_word.wgsl
//!include shared/cbt_reduce_one.wgsl

// The same heap buffer as cbt_heap, without atomics: plain loads of the bitfield and stores of
// the words one thread owns whole, as u32, vec2 and vec4 (the levels used that way start on
// 16-byte boundaries from D = 9 on).
@group(0) @binding(2) var<storage, read_write> heap_words: array<u32>;
@group(0) @binding(4) var<storage, read_write> heap_vec4: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> heap_vec2: array<vec2<u32>>;
// [0]: workgroups that have finished (back to 0 when the last has); [1 + wid]: workgroup wid's sum.
@group(0) @binding(3) var<storage, read_write> reduce_sync: array<atomic<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn reduce(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    reduce_one_group(dispatch_group_index(group), t);
}

// The second dispatch of ReducePath::OnePassSplit (ONE_SPLIT, D >= 17): one workgroup writes
// depths D-17..0 from the sums the first left in reduce_sync.
@compute @workgroup_size(WORKGROUP_SIZE)
fn top(@builtin(local_invocation_index) t: u32) {
    one_tail(t);
}
