// kernel.chained_hash: build with one global atomic counter per element (the paper's variant),
// and lookups (one thread per query: walk the chain, compare keys).
//!include shared/dispatch.wgsl
//!include shared/chained_hash.wgsl

@group(0) @binding(6) var<storage, read> queries: array<u32>;
@group(0) @binding(7) var<storage, read_write> found: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn build_global(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i < params.elements) {
        insert_at(i, atomicAdd(&counter[0], 1u));
    }
}

// The value stored with query key `queries[q]` (the one linked last when the key was inserted
// several times), or NOT_FOUND.
@compute @workgroup_size(WORKGROUP_SIZE)
fn lookup(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let q = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (q >= params.queries) {
        return;
    }
    let key = queries[q];
    var reference = atomicLoad(&heads[bucket_of(key)]);
    var result = NOT_FOUND;
    for (var steps = 0u; reference != 0u && steps < params.node_capacity; steps += 1u) {
        let node = nodes[reference - 1u];
        if (node.key == key) {
            result = node.value;
            break;
        }
        reference = node.next;
    }
    found[q] = result;
}
