// kernel.compact_hash, subgroup variant: the same findOrPut into the same tree-compressed table as
// kernel_compact_hash.wgsl (whose comment describes the table and the protocol), but a bucket is
// read by a whole subgroup at once, as in the paper (a warp per bucket): lane i loads slot i of
// the bucket (in chunks of the subgroup's size when the bucket is larger), a ballot finds the
// first slot, in slot order, that holds the node or is empty, and only that slot's lane
// compares-and-swaps. The subgroup serves its lanes' nodes one after the other. Slots before the
// first hit hold other nodes for good (slots only go from empty to a node), so the subgroup
// claims the very slot a lone thread scanning in order would: same protocol, same guarantees.
// Lanes are ranked with subgroupExclusiveAdd, so a subgroup of any size, even a partial one,
// reads a bucket whole. Needs Features::SUBGROUP besides the 64-bit atomics.
//!include shared/dispatch.wgsl
//!include shared/compact_hash.wgsl
//!include shared/compact_hash_tree.wgsl

// The lowest lane set in `ballot`, or 128 when none.
fn first_lane(ballot: vec4<u32>) -> u32 {
    for (var i = 0u; i < 4u; i += 1u) {
        if (ballot[i] != 0u) {
            return 32u * i + firstTrailingBit(ballot[i]);
        }
    }
    return 128u;
}

// A chunk's first hit was another node's by the time its lane tried it: read the chunk again.
// (Not a slot, not ZERO_REFERENCE, not FAILED.)
const RETRY: u32 = 0x7fffffffu;

// The lane at the first hit settles it: the slot holds the node (its reference), was empty and
// this CAS stored the node (| NEW_BIT), stayed empty through every try (FAILED), or now holds
// another node (RETRY).
fn settle_slot(slot: u32, current: u64, node: u64) -> u32 {
    var c = current;
    for (var tries = 0u; c == EMPTY && tries < MAX_CAS_TRIES; tries += 1u) {
        let swapped = atomicCompareExchangeWeak(&table[slot], EMPTY, node);
        if (swapped.exchanged) {
            return slot | NEW_BIT;
        }
        c = swapped.old_value;
    }
    if (c == node) {
        return slot;
    }
    return select(RETRY, FAILED, c == EMPTY);
}

// findOrPut of node (left, right) of every lane with `want`, each bucket read by the whole
// subgroup; every lane of the subgroup calls it together. The lane's result (unused where !want).
fn find_or_put_node_subgroup(left: u32, right: u32, want: bool, lane: u32) -> u32 {
    var result = FAILED;
    var pending = want;
    if (pending && left == 0u && right == 0u) {
        pending = false;
        result = ZERO_REFERENCE;
        if (atomicLoad(&status[0]) == 0u && atomicExchange(&status[0], 1u) == 0u) {
            result = ZERO_REFERENCE | NEW_BIT;
        }
    }
    let rank = subgroupExclusiveAdd(1u);
    let lanes = subgroupAdd(1u);
    let bucket_slots = 1u << params.bucket_log2;
    let buckets = probed_buckets();
    loop {
        let owner = first_lane(subgroupBallot(pending));
        if (owner == 128u) {
            break;
        }
        let node_left = subgroupShuffle(left, owner);
        let node_right = subgroupShuffle(right, owner);
        let node = (u64(node_right) << 32u) | u64(node_left);
        let hash = hash_node(node_left, node_right);
        var outcome = FAILED;
        var searching = true;
        for (var round = 0u; round < MAX_HASHES && searching; round += 1u) {
            let first = first_bucket(rehash(hash, round));
            for (var p = 0u; p < buckets && searching; p += 1u) {
                for (var base = 0u; base < bucket_slots && searching; base += lanes) {
                    let reads = base + rank < bucket_slots;
                    let slot = probe_slot(first, p, min(base + rank, bucket_slots - 1u));
                    loop {
                        var current = EMPTY;
                        var hit = false;
                        if (reads) {
                            current = atomicLoad(&table[slot]);
                            hit = current == node || current == EMPTY;
                        }
                        let hit_lane = first_lane(subgroupBallot(hit));
                        if (hit_lane == 128u) {
                            break;
                        }
                        var settled = RETRY;
                        if (lane == hit_lane) {
                            settled = settle_slot(slot, current, node);
                        }
                        settled = subgroupShuffle(settled, hit_lane);
                        if (settled != RETRY) {
                            outcome = settled;
                            searching = false;
                            break;
                        }
                    }
                }
            }
        }
        if (lane == owner) {
            pending = false;
            result = outcome;
            if (outcome == FAILED) {
                fail();
            }
        }
    }
    return result;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn find_or_put_subgroup(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    // Every lane stays to the end (the subgroup reads buckets together); those past the last
    // vector, or whose vector failed, only help.
    let v = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    let valid = v < params.vectors;
    let n = VECTOR_LENGTH;
    var items: array<u32, MAX_LENGTH>;
    if (valid) {
        for (var i = 0u; i < n; i += 1u) {
            items[i] = words[v * n + i];
        }
    }
    if (n == 1u) {
        let result = find_or_put_node_subgroup(items[0], 0u, valid, lane);
        if (valid) {
            results[v] = result;
        }
        return;
    }
    var failed = !valid;
    var result = FAILED;
    var count = n;
    while (count > 1u) {
        let pairs = count / 2u;
        for (var j = 0u; j < pairs; j += 1u) {
            let node = find_or_put_node_subgroup(items[2u * j], items[2u * j + 1u], !failed, lane);
            if (!failed) {
                result = node;
                failed = node == FAILED;
                items[j] = node & REFERENCE_MASK;
            }
        }
        if ((count & 1u) == 1u) {
            items[pairs] = items[count - 1u];
        }
        count = pairs + (count & 1u);
    }
    if (!valid) {
        return;
    }
    if (failed) {
        results[v] = FAILED;
        return;
    }
    // The last node stored is the root.
    let root = result & REFERENCE_MASK;
    var is_new = result != root;
    if (n > 2u) {
        is_new = claim_root(root);
    }
    results[v] = select(root, root | NEW_BIT, is_new);
}
