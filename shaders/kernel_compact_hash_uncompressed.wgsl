// kernel.compact_hash (uncompressed): the same findOrPut with whole vectors in the slots, for
// comparison. A slot is 1 + length words: a state word, then the vector. States: EMPTY (0), BUSY
// (claimed, being written) and READY, which is the vector's hash with the top bit set. Insert:
// claim an empty slot with a 32-bit compare-and-swap EMPTY -> BUSY, write the words, then store
// READY. A reader that finds BUSY waits until READY (at most MAX_WAIT_ROUNDS x MAX_WAIT reads: lavapipe cuts a loop at 65535 iterations; then the
// findOrPut fails and is counted in status[3]), then compares the hash and the words. The winner writes its words in the
// same loop iteration in which it claimed the slot, before any other thread's wait, so the wait
// also ends on SIMD CPUs (lavapipe) that run a subgroup's branches one after another.
// WGSL atomics are relaxed: that the words are visible once READY is relies on the hardware
// (NVIDIA, lavapipe), and the verification against the CPU would catch a torn read.
//!include shared/dispatch.wgsl
//!include shared/compact_hash.wgsl

const EMPTY: u32 = 0u;
const BUSY: u32 = 1u;
const READY_BIT: u32 = 0x80000000u;
const MAX_WAIT: u32 = 60000u;
const MAX_WAIT_ROUNDS: u32 = 256u;
const MAX_CAS_TRIES: u32 = 64u;

@group(0) @binding(1) var<storage, read_write> cells: array<atomic<u32>>;

fn hash_vector(v: u32) -> u32 {
    var h = GOLDEN;
    for (var i = 0u; i < VECTOR_LENGTH; i += 1u) {
        h = fmix32(h ^ words[v * VECTOR_LENGTH + i]);
    }
    return h;
}

// Whether slot `at` (its first cell) holds vector `v`.
fn holds(at: u32, v: u32) -> bool {
    for (var i = 0u; i < VECTOR_LENGTH; i += 1u) {
        if (atomicLoad(&cells[at + 1u + i]) != words[v * VECTOR_LENGTH + i]) {
            return false;
        }
    }
    return true;
}

fn find_or_put_vector(v: u32) -> u32 {
    let hash = hash_vector(v);
    let ready = hash | READY_BIT;
    let buckets = probed_buckets();
    let bucket_slots = 1u << params.bucket_log2;
    let stride = VECTOR_LENGTH + 1u;
    for (var round = 0u; round < MAX_HASHES; round += 1u) {
        let first = first_bucket(rehash(hash, round));
        for (var p = 0u; p < buckets; p += 1u) {
            for (var s = 0u; s < bucket_slots; s += 1u) {
                let slot = probe_slot(first, p, s);
                let at = slot * stride;
                var state = atomicLoad(&cells[at]);
                for (var tries = 0u; state == EMPTY && tries < MAX_CAS_TRIES; tries += 1u) {
                    let swapped = atomicCompareExchangeWeak(&cells[at], EMPTY, BUSY);
                    if (swapped.exchanged) {
                        for (var i = 0u; i < VECTOR_LENGTH; i += 1u) {
                            atomicStore(&cells[at + 1u + i], words[v * VECTOR_LENGTH + i]);
                        }
                        atomicStore(&cells[at], ready);
                        return slot | NEW_BIT;
                    }
                    state = swapped.old_value;
                }
                for (var wait = 0u; state == BUSY && wait < MAX_WAIT; wait += 1u) {
                    state = atomicLoad(&cells[at]);
                }
                if (state == EMPTY || state == BUSY) {
                    return fail();
                }
                if (state == ready && holds(at, v)) {
                    return slot;
                }
            }
        }
    }
    return fail();
}

@compute @workgroup_size(256)
fn find_or_put_uncompressed(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let v = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (v < params.vectors) {
        results[v] = find_or_put_vector(v);
    }
}
