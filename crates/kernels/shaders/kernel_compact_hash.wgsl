// kernel.compact_hash: findOrPut of state vectors into a tree-compressed hash table (seed 002),
// one thread per vector, non-recursive. A vector of n words is a binary tree of n - 1 nodes,
// built bottom-up: each level pairs neighbours (item 2j with 2j + 1) into a 64-bit node (left in
// the low half, right in the high half) and carries an odd last item up unchanged, until one
// node, the root, is left. Leaves are the words themselves; a node's child is a word when it
// covers one word, else the reference (slot index) of the child node. Every node is stored once
// in one table of 64-bit slots, so vectors that share sub-vectors share their nodes. A vector of
// one word is the node (word, 0): one node with an unused half.
//
// findOrPut of a node: hash it to a bucket of 2^bucket_log2 slots, scan the slots in order and
// probe up to MAX_PROBED_BUCKETS buckets linearly, then rehash (shared/compact_hash.wgsl). A slot
// holding the node: found. An empty slot (0): claim it with a 64-bit compare-and-swap; the winner
// reports "new", a loser that reads the same node back reports "seen", any other loser goes on
// scanning. Slots only ever go from empty to a node, so every thread looking for one node visits
// the same slots in the same order and claims the same one: each node is stored exactly once, and
// exactly one findOrPut reports it new.
// The all-zero node would look like an empty slot: it is kept out of the table, in status[0],
// with the reference ZERO_REFERENCE.
//
// New vs seen: for lengths 1 and 2 every node is a root, and a vector is new exactly when its one
// node is. From length 3 on, a root may equal, bit for bit, a node of another role (a pair of
// words (r, w) equal to a root (reference r, word w)), which then serves both: the root node can
// be "seen" although its vector is new. So the root's slot is claimed as a root in a bitmap of one
// bit per slot (root_bits; status[2] for the all-zero node): the thread whose atomicOr sets the
// bit reports the vector new.
// Needs Features::SHADER_INT64 | SHADER_INT64_ATOMIC_ALL_OPS.
//!include shared/dispatch.wgsl
//!include shared/compact_hash.wgsl
//!include shared/compact_hash_tree.wgsl

// The node's reference, | NEW_BIT when this call stored it; FAILED when no slot was free.
fn find_or_put_node(left: u32, right: u32) -> u32 {
    if (left == 0u && right == 0u) {
        if (atomicLoad(&status[0]) != 0u) {
            return ZERO_REFERENCE;
        }
        return select(ZERO_REFERENCE, ZERO_REFERENCE | NEW_BIT, atomicExchange(&status[0], 1u) == 0u);
    }
    let node = (u64(right) << 32u) | u64(left);
    let hash = hash_node(left, right);
    let buckets = probed_buckets();
    let bucket_slots = 1u << params.bucket_log2;
    for (var round = 0u; round < MAX_HASHES; round += 1u) {
        let first = first_bucket(rehash(hash, round));
        for (var p = 0u; p < buckets; p += 1u) {
            for (var s = 0u; s < bucket_slots; s += 1u) {
                let slot = probe_slot(first, p, s);
                var current = atomicLoad(&table[slot]);
                for (var tries = 0u; current == EMPTY && tries < MAX_CAS_TRIES; tries += 1u) {
                    let swapped = atomicCompareExchangeWeak(&table[slot], EMPTY, node);
                    if (swapped.exchanged) {
                        return slot | NEW_BIT;
                    }
                    current = swapped.old_value;
                }
                if (current == node) {
                    return slot;
                }
                if (current == EMPTY) {
                    return fail();
                }
            }
        }
    }
    return fail();
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn find_or_put(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let v = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (v >= params.vectors) {
        return;
    }
    let n = VECTOR_LENGTH;
    var items: array<u32, MAX_LENGTH>;
    for (var i = 0u; i < n; i += 1u) {
        items[i] = words[v * n + i];
    }
    if (n == 1u) {
        results[v] = find_or_put_node(items[0], 0u);
        return;
    }
    var result = FAILED;
    var count = n;
    while (count > 1u) {
        let pairs = count / 2u;
        for (var j = 0u; j < pairs; j += 1u) {
            result = find_or_put_node(items[2u * j], items[2u * j + 1u]);
            if (result == FAILED) {
                results[v] = FAILED;
                return;
            }
            items[j] = result & REFERENCE_MASK;
        }
        if ((count & 1u) == 1u) {
            items[pairs] = items[count - 1u];
        }
        count = pairs + (count & 1u);
    }
    // The last node stored is the root.
    let root = result & REFERENCE_MASK;
    var is_new = result != root;
    if (n > 2u) {
        is_new = claim_root(root);
    }
    results[v] = select(root, root | NEW_BIT, is_new);
}
