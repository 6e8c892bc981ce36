// The compact lists, the free list and the update records' words (src/pool/gpu_passes.rs), and
// the clearing of the words a frame wrote, shared by the update passes (shared/pool_bindings.wgsl),
// pool.list (pool_list.wgsl) and pool.order (pool_order.wgsl, whose dispatch does the clearing). Needs shared/pool_types.wgsl and the includer's
// `pool_list` (the draw list, then the compact lists), `pool` (PoolControl), `pool_update` and
// `pool_snapshot` bound.

// The compact lists (compact mode): pool_list holds the draw list in entries [0, N), list k's
// entries at [N, 2N) for the first list of a frame (LIST_CANDIDATES, LIST_MERGE) and [2N, 3N) for
// the second (LIST_ALLOCATIONS, LIST_MERGED), N the pool's slots; pool.counters.listed[k] counts
// them. A slot enters a list at most once per frame, so N entries never overflow.
fn list_base(k: u32) -> u32 {
    return (1u + (k & 1u)) << CBT_MAX_DEPTH;
}

// The free list: pool.list, or in the compact mode the split frame's classify
// (shared/pool_free_list.wgsl), writes the first POOL_FREE_SLOTS_LISTED free slots, in slot order,
// after the draw list (entries leaves + k of pool_list; the draw list and all free slots together
// fill its first N entries), so that allocate finds the rank-th free slot with one load instead of
// a walk down the CBT's 20 levels (`pool_free_slot`). Ranks past it walk. Set by
// src/pool/gpu_passes.rs (`free_slots_listed`: 65536, or a quarter of a smaller pool's slots).
override POOL_FREE_SLOTS_LISTED: u32;

// The last frame's draw list (compact mode): pool_list's entries [3N, 4N), copied there by the
// frame's classify pass (as it reads each entry), read by pool.order.
fn last_list_base() -> u32 {
    return 3u << CBT_MAX_DEPTH;
}

fn listed_count(k: u32) -> u32 {
    return atomicLoad(&pool.counters.listed[k]);
}

fn listed_slot(k: u32, j: u32) -> u32 {
    return pool_list[list_base(k) + j];
}

fn update_load(slot: u32, word: u32) -> u32 {
    return atomicLoad(&pool_update[slot * UPDATE_WORDS + word]);
}

fn update_store(slot: u32, word: u32, value: u32) {
    atomicStore(&pool_update[slot * UPDATE_WORDS + word], value);
}

// The pattern and child slots of a slot that split, cleared (after pool.order read them).
fn clean_split(slot: u32) {
    update_store(slot, UPDATE_PATTERN, 0u);
    for (var c = 0u; c < 3u; c += 1u) {
        update_store(slot, UPDATE_CHILDREN + c, NO_SLOT);
    }
}

// The clearing for entry j of the frame's compact lists taken in turn, whose lengths are
// `counts` (`listed_counts`; read once per workgroup: every thread loading the same four atomics
// costs more than the work), by pool.order's threads: the update words the frame's passes wrote,
// cleared, so that every record is clean when the next frame begins (the compact mode's classify
// passes clear none). A split frame wrote a candidate's flags and bucket (classify;
// LIST_CANDIDATES) and a listed slot's pattern and child slots (mark, allocate; LIST_ALLOCATIONS:
// pool.order reads those, and the thread that reads a slot's clears them); a merge frame an even
// leaf's merge flags (classify, elect; LIST_MERGE) and its merged odd sibling's flags and survivor
// (elect; the sibling is the right link each of LIST_MERGED's even leaves had, in the snapshot;
// its slot is free now). Only those words: with the pool full, 500 k leaves a frame are
// candidates. A frame fills the lists of its kind only, and the bit-exact mode none.
fn listed_counts() -> vec4<u32> {
    return vec4<u32>(listed_count(0u), listed_count(1u), listed_count(2u), listed_count(3u));
}

fn clean_entry(j: u32, counts: vec4<u32>) {
    var k = 0u;
    var e = j;
    for (; k < 3u; k += 1u) {
        if (e < counts[k]) {
            break;
        }
        e -= counts[k];
    }
    let slot = listed_slot(k, e);
    switch k {
        case LIST_CANDIDATES: {
            update_store(slot, UPDATE_FLAGS, 0u);
            update_store(slot, UPDATE_BUCKET, 0u);
        }
        case LIST_ALLOCATIONS: {
            // pool.order's thread of the slot's entry (`clean_split`).
        }
        case LIST_MERGE: {
            update_store(slot, UPDATE_FLAGS, 0u);
        }
        default: {
            let odd = pool_snapshot[3u * slot + POOL_RIGHT];
            update_store(odd, UPDATE_FLAGS, 0u);
            update_store(odd, UPDATE_SURVIVOR, odd);
        }
    }
}
