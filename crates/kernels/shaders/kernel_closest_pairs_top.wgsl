// kernel.closest_pairs.top: keeps the first `params.top` (<= 256) of each chunk of 2048
// candidates in (squared distance, A id) order, a bitonic sort in workgroup memory. Applied
// until one chunk remains, it leaves the overall closest pairs sorted by distance then A id (then
// B id, as each A has one B). Candidates are A ids (`identity`: the pass's first round reads
// A = 0 .. a_count - 1 without a list).
//!include shared/dispatch.wgsl
//!include shared/closest_pairs.wgsl

const CHUNK: u32 = 2048u;

@group(0) @binding(5) var<storage, read> candidates: array<u32>;
@group(0) @binding(6) var<storage, read_write> kept: array<u32>;
// (squared distance bits, A id, B id, 0) of each kept pair, in order.
@group(0) @binding(7) var<storage, read_write> kept_pairs: array<vec4<u32>>;

override identity: bool = false;

var<workgroup> keys: array<vec2<u32>, 2048>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn top(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let chunk = dispatch_group_index(group);
    for (var k = local; k < CHUNK; k += WORKGROUP_SIZE) {
        let j = chunk * CHUNK + k;
        var key = vec2<u32>(NONE, NONE);
        if (j < params.candidates) {
            var a = j;
            if (!identity) {
                a = candidates[j];
            }
            if (a != NONE) {
                key = vec2<u32>(nearest[a].x, a);
            }
        }
        keys[k] = key;
    }
    workgroupBarrier();
    for (var size = 2u; size <= CHUNK; size <<= 1u) {
        for (var stride = size >> 1u; stride > 0u; stride >>= 1u) {
            for (var t = local; t < CHUNK / 2u; t += WORKGROUP_SIZE) {
                let low = 2u * t - (t & (stride - 1u));
                let high = low + stride;
                let ascending = (low & size) == 0u;
                let x = keys[low];
                let y = keys[high];
                let y_first = y.x < x.x || (y.x == x.x && y.y < x.y);
                if (y_first == ascending) {
                    keys[low] = y;
                    keys[high] = x;
                }
            }
            workgroupBarrier();
        }
    }
    if (local < params.top) {
        let key = keys[local];
        let out = chunk * params.top + local;
        kept[out] = key.y;
        var b = NONE;
        if (key.y != NONE) {
            b = nearest[key.y].y;
        }
        kept_pairs[out] = vec4<u32>(key.x, key.y, b, 0u);
    }
}
