// kernel.closest_pairs.nearest_brute: one thread per A compares it with every B; B is read in
// tiles of 256 points through workgroup memory (one global load per B per workgroup). B is
// visited in id order and only a strictly nearer B replaces the best, so ties keep the smaller id.
//!include shared/dispatch.wgsl
//!include shared/closest_pairs.wgsl

var<workgroup> tile: array<vec4<f32>, 256>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn nearest_brute(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    let p = a_points[min(i, params.a_count - 1u)].xyz;
    var best_d2 = NONE;
    var best_id = NONE;
    for (var start = 0u; start < params.b_count; start += WORKGROUP_SIZE) {
        let j = start + local;
        if (j < params.b_count) {
            tile[local] = b_points[j];
        }
        workgroupBarrier();
        let count = min(WORKGROUP_SIZE, params.b_count - start);
        for (var k = 0u; k < count; k += 1u) {
            let d2 = bitcast<u32>(distance2(p, tile[k].xyz));
            if (d2 < best_d2) {
                best_d2 = d2;
                best_id = start + k;
            }
        }
        workgroupBarrier();
    }
    if (i < params.a_count) {
        nearest[i] = vec2<u32>(best_d2, best_id);
    }
}
