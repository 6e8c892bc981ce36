// kernel.compact_hash (uncompressed): the same findOrPut with whole vectors in the slots, for
// comparison. A slot is 1 + length words: a state word, then the vector. States: EMPTY (0);
// CLAIMED, the claiming vector's index + 1 (below READY_BIT); READY, the vector's hash with
// READY_BIT set. Insert: claim an empty slot with a 32-bit compare-and-swap EMPTY -> index + 1,
// write the words, then store READY. A reader never waits: a CLAIMED slot belongs to a vector of
// this batch, whose words it compares in the input; a READY slot it compares by hash, then words.
// WGSL atomics are relaxed: that the words are visible once READY is read relies on the hardware
// (NVIDIA, lavapipe), and the verification against the CPU would catch a torn read.
//!include shared/dispatch.wgsl
//!include shared/compact_hash.wgsl

const EMPTY: u32 = 0u;
const READY_BIT: u32 = 0x80000000u;
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
fn slot_holds(at: u32, v: u32) -> bool {
    for (var i = 0u; i < VECTOR_LENGTH; i += 1u) {
        if (atomicLoad(&cells[at + 1u + i]) != words[v * VECTOR_LENGTH + i]) {
            return false;
        }
    }
    return true;
}

// Whether input vectors `a` and `b` are equal.
fn same_input(a: u32, b: u32) -> bool {
    for (var i = 0u; i < VECTOR_LENGTH; i += 1u) {
        if (words[a * VECTOR_LENGTH + i] != words[b * VECTOR_LENGTH + i]) {
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
                    let swapped = atomicCompareExchangeWeak(&cells[at], EMPTY, v + 1u);
                    if (swapped.exchanged) {
                        for (var i = 0u; i < VECTOR_LENGTH; i += 1u) {
                            atomicStore(&cells[at + 1u + i], words[v * VECTOR_LENGTH + i]);
                        }
                        atomicStore(&cells[at], ready);
                        return slot | NEW_BIT;
                    }
                    state = swapped.old_value;
                }
                if (state == EMPTY) {
                    return fail();
                }
                let claimed = (state & READY_BIT) == 0u;
                if ((claimed && same_input(state - 1u, v)) || (state == ready && slot_holds(at, v))) {
                    return slot;
                }
            }
        }
    }
    return fail();
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn find_or_put_uncompressed(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let v = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (v < params.vectors) {
        results[v] = find_or_put_vector(v);
    }
}
