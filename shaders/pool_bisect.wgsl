// pool.bisect (src/pool/split.rs `bisect`): every leaf with a split pattern writes its pieces'
// ids and vertices (its own slot keeps the first piece, the allocated slots take the others in
// tree order), marks the new slots used, links its pieces to each other and, across each of its
// three edges, to the pieces of the neighbour there, read from that neighbour's pattern and child
// slots and from the snapshot of the links. An unsplit neighbour whose edge now faces a piece in
// another slot is repaired here too: that field names this bisector's slot, so this thread is
// its only writer. Each split flips the vertex order's orientation: two leaves of one depth walk
// their shared edge in opposite directions, a leg and the hypotenuse of a leaf one level finer
// in the same direction.
// Every write here comes from a leaf with a pattern (`bisect` returns for the others), so the
// compact mode's `bisect_listed` runs over LIST_ALLOCATIONS, which holds exactly those slots.
// bisect reads the snapshot of its own slot and of its three neighbours only; so the compact
// mode's allocate copies the links of those slots alone (`allocate_listed`), not the whole
// neighbour buffer (nothing before bisect writes a link).
//!include shared/pool_bindings.wgsl

// A bisector's pieces: child 0 as (its slot, NO_SLOT) or its two children, child 1 the same way.
struct Pieces {
    c0: vec2<u32>,
    c1: vec2<u32>,
}

fn pieces_of(slot: u32, pattern: u32) -> Pieces {
    var next = 0u;
    var c0 = vec2<u32>(slot, NO_SLOT);
    if ((pattern & SPLIT_LEFT) != 0u) {
        c0.y = child_slot(slot, 0u);
        next = 1u;
    }
    var c1 = vec2<u32>(child_slot(slot, next), NO_SLOT);
    if ((pattern & SPLIT_RIGHT) != 0u) {
        c1.y = child_slot(slot, next + 1u);
    }
    return Pieces(c0, c1);
}

// The (slot, field) of the one or two pieces along an edge, in the edge's direction (left
// v0 -> v1, right v1 -> v2, hypotenuse v2 -> v0).
struct EdgePieces {
    first: vec2<u32>,
    second: vec2<u32>,
    count: u32,
}

fn edge_pieces(slot: u32, field: u32) -> EdgePieces {
    let pattern = update_load(slot, UPDATE_PATTERN);
    let none = vec2<u32>(NO_SLOT, 0u);
    if (pattern == 0u) {
        return EdgePieces(vec2<u32>(slot, field), none, 1u);
    }
    let p = pieces_of(slot, pattern);
    let split0 = p.c0.y != NO_SLOT;
    let split1 = p.c1.y != NO_SLOT;
    if (field == POOL_EDGE) {
        // v2 -> m lies on child 1's side, m -> v0 on child 0's.
        let a = select(vec2<u32>(p.c1.x, POOL_RIGHT), vec2<u32>(p.c1.y, POOL_EDGE), split1);
        let b = select(vec2<u32>(p.c0.x, POOL_LEFT), vec2<u32>(p.c0.x, POOL_EDGE), split0);
        return EdgePieces(a, b, 2u);
    }
    if (field == POOL_LEFT) {
        if (split0) {
            return EdgePieces(vec2<u32>(p.c0.x, POOL_LEFT), vec2<u32>(p.c0.y, POOL_RIGHT), 2u);
        }
        return EdgePieces(vec2<u32>(p.c0.x, POOL_EDGE), none, 1u);
    }
    if (split1) {
        return EdgePieces(vec2<u32>(p.c1.x, POOL_LEFT), vec2<u32>(p.c1.y, POOL_RIGHT), 2u);
    }
    return EdgePieces(vec2<u32>(p.c1.x, POOL_EDGE), none, 1u);
}

fn edge_piece(pieces: EdgePieces, i: u32) -> vec2<u32> {
    return select(pieces.first, pieces.second, i == 1u);
}

fn set_link(piece: vec2<u32>, slot: u32) {
    pool_neighbours[3u * piece.x + piece.y] = slot;
}

fn link(a: vec2<u32>, b: vec2<u32>) {
    set_link(a, b.x);
    set_link(b, a.x);
}

fn place(slot: u32, id: vec2<u32>, v: array<vec4<u32>, 3>) {
    pool_ids[slot] = id;
    store_vertices(slot, v);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bisect(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let i = pool_thread_index(group, local);
    if (i >= pool.params.leaves) {
        return;
    }
    let slot = pool_list[i];
    let pattern = update_load(slot, UPDATE_PATTERN);
    if (pattern != 0u) {
        bisect_slot(slot, pattern);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bisect_listed(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let count = listed_count(LIST_ALLOCATIONS);
    for (var j = grid_first(group, local); j < count; j += grid_stride(groups)) {
        let slot = listed_slot(LIST_ALLOCATIONS, j);
        bisect_slot(slot, update_load(slot, UPDATE_PATTERN));
    }
    order_gains(grid_first(group, local), grid_stride(groups), true);
}

// Splits the leaf in `slot` by its (non-zero) pattern.
fn bisect_slot(slot: u32, pattern: u32) {
    let p = pieces_of(slot, pattern);
    let id = pool_ids[slot];
    let v = load_vertices(slot);
    for (var half = 0u; half < 2u; half += 1u) {
        let pieces = select(p.c0, p.c1, half == 1u);
        let child = id_child(id, half);
        let w = child_vertices(v, half);
        if (pieces.y == NO_SLOT) {
            place(pieces.x, child, w);
        } else {
            place(pieces.x, id_child(child, 0u), child_vertices(w, 0u));
            place(pieces.y, id_child(child, 1u), child_vertices(w, 1u));
        }
    }
    for (var j = 0u; j < countOneBits(pattern); j += 1u) {
        set_slot_used(child_slot(slot, j), true);
    }
    // Inside the bisector: child 0's right edge meets child 1's left edge, and each split
    // child's halves meet along its interior edge.
    let split0 = p.c0.y != NO_SLOT;
    let split1 = p.c1.y != NO_SLOT;
    let c0_right = select(vec2<u32>(p.c0.x, POOL_RIGHT), vec2<u32>(p.c0.y, POOL_EDGE), split0);
    let c1_left = select(vec2<u32>(p.c1.x, POOL_LEFT), vec2<u32>(p.c1.x, POOL_EDGE), split1);
    link(c0_right, c1_left);
    if (split0) {
        link(vec2<u32>(p.c0.x, POOL_RIGHT), vec2<u32>(p.c0.y, POOL_LEFT));
    }
    if (split1) {
        link(vec2<u32>(p.c1.x, POOL_RIGHT), vec2<u32>(p.c1.y, POOL_LEFT));
    }
    // Across its three edges.
    for (var field = 0u; field < 3u; field += 1u) {
        let mine = edge_pieces(slot, field);
        let other = pool_snapshot[3u * slot + field];
        if (other == NO_SLOT) {
            for (var k = 0u; k < mine.count; k += 1u) {
                set_link(edge_piece(mine, k), NO_SLOT);
            }
            continue;
        }
        let other_field = snapshot_field(other, slot);
        let theirs = edge_pieces(other, other_field);
        let same_direction = (field == POOL_EDGE) != (other_field == POOL_EDGE);
        for (var k = 0u; k < mine.count; k += 1u) {
            let facing = select(mine.count - 1u - k, k, same_direction);
            set_link(edge_piece(mine, k), edge_piece(theirs, facing).x);
        }
        if (update_load(other, UPDATE_PATTERN) == 0u && mine.first.x != slot) {
            pool_neighbours[3u * other + other_field] = mine.first.x;
        }
    }
}
