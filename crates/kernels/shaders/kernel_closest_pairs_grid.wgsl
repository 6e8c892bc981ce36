// kernel.closest_pairs.nearest_grid: exact nearest B through a uniform grid (built on the GPU by
// kernel_closest_pairs_build.wgsl; only B's occupied cells are stored, in a table by cell key).
// A and B are sorted by cell (for B: cell_start[slot] .. cell_start[slot + 1] in b_points;
// w = the original id of A and B). Each A starts at its (clamped) cell and visits rings of
// cells at Chebyshev distance r = 0, 1, 2, ... After ring r every unvisited B lies beyond a face of the box of cells within r, so its distance is at least
// the distance L from A to the nearest such face that still has cells behind it. The search
// stops once (L - slack)^2 * (1 - 2^-20) > the best squared distance: the slack covers the
// rounding of face positions and cell assignment, the factor that of the f32 distance, so any
// unvisited B is strictly farther. With no face left, every cell has been visited.
//!include shared/dispatch.wgsl
//!include shared/hash.wgsl
//!include shared/closest_pairs.wgsl

// Per slot of the table of occupied cells: where its B start in b_points (slots + 2 entries).
@group(0) @binding(4) var<storage, read> cell_start: array<u32>;
// The table's cell keys (EMPTY_KEY: free).
@group(0) @binding(16) var<storage, read> keys: array<u32>;
// The grid's cells, as the build passes planned them.
@group(0) @binding(11) var<storage, read> grid: GridParams;

fn visit_cell(p: vec3<f32>, cell: vec3<i32>, best: ptr<function, vec2<u32>>) {
    let wanted = cell_key(vec3<u32>(cell));
    let mask = params.slots - 1u;
    var c = fmix32(wanted) & mask;
    loop {
        let k = keys[c];
        if (k == wanted) {
            break;
        }
        if (k == EMPTY_KEY) {
            return;
        }
        c = (c + 1u) & mask;
    }
    let end = cell_start[c + 1u];
    for (var j = cell_start[c]; j < end; j += 1u) {
        let b = b_points[j];
        let d2 = bitcast<u32>(distance2(p, b.xyz));
        let id = bitcast<u32>(b.w);
        if (before(d2, id, (*best).x, (*best).y)) {
            *best = vec2<u32>(d2, id);
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn nearest_grid(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = dispatch_group_index(group) * WORKGROUP_SIZE + local;
    if (i >= params.a_count) {
        return;
    }
    let a = a_points[i];
    let p = a.xyz;
    let dims = vec3<i32>(i32(grid.dim_x), i32(grid.dim_y), i32(grid.dim_z));
    let c = vec3<i32>(clamp(floor((p - grid.origin) * grid.inv_cell_size), vec3<f32>(0.0), vec3<f32>(dims - 1)));
    var best = vec2<u32>(NONE, NONE);
    let max_ring = max(dims.x, max(dims.y, dims.z));
    for (var r = 0; r < max_ring; r += 1) {
        let lo = max(c - r, vec3<i32>(0));
        let hi = min(c + r, dims - 1);
        for (var z = lo.z; z <= hi.z; z += 1) {
            for (var y = lo.y; y <= hi.y; y += 1) {
                let edge = abs(z - c.z) == r || abs(y - c.y) == r;
                if (edge) {
                    for (var x = lo.x; x <= hi.x; x += 1) {
                        visit_cell(p, vec3<i32>(x, y, z), &best);
                    }
                } else {
                    if (c.x - r >= 0) {
                        visit_cell(p, vec3<i32>(c.x - r, y, z), &best);
                    }
                    if (c.x + r < dims.x) {
                        visit_cell(p, vec3<i32>(c.x + r, y, z), &best);
                    }
                }
            }
        }
        // The nearest face with unvisited cells behind it.
        var bound = 3.0e38;
        var open = false;
        for (var axis = 0; axis < 3; axis += 1) {
            if (c[axis] - r > 0) {
                bound = min(bound, p[axis] - (grid.origin[axis] + f32(c[axis] - r) * grid.cell_size_m));
                open = true;
            }
            if (c[axis] + r + 1 < dims[axis]) {
                bound = min(bound, grid.origin[axis] + f32(c[axis] + r + 1) * grid.cell_size_m - p[axis]);
                open = true;
            }
        }
        if (!open) {
            break;
        }
        let safe = bound - grid.slack;
        if (best.x != NONE && safe > 0.0 && bitcast<u32>(safe * safe * (1.0 - 1.0 / 1048576.0)) > best.x) {
            break;
        }
    }
    nearest[bitcast<u32>(a.w)] = best;
}
