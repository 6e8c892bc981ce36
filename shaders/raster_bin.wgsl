// raster.bin: bins the triangles raster.small listed (shared/raster_small.wgsl,
// `raster_wide_push`) per 32x32-px screen tile for raster.wide, on both scenes. One workgroup per
// listed triangle (dispatched indirectly by the list's count): its first thread clips it against
// the near plane and the guard band (`raster_clip`: up to RASTER_WIDE_PIECES pieces) and sets
// each piece up for raster.wide (`raster_wide_setup`); the workgroup's threads then test the
// tiles of the pieces' pixel boxes inside the viewport in parallel (`raster_wide_tile_touched`:
// does some pixel centre of the tile lie on the inner side of every edge?) and count those
// touched; the first thread reserves that many tile entries with one atomicAdd and broadcasts the
// first; the threads write the entries in parallel. A piece outside raster.wide's guard band (NaN
// corners, or viewports over 2^15 px) or entries past the capacity send the whole triangle to
// raster.large. CPU twin: src/flat/raster.rs's `rasterise_wide_cpu` and `wide_tiles_cpu`.
//!include shared/vis_raster.wgsl
//!include shared/raster_lists.wgsl

// raster.small's list as raster.bin reads it (WideInputs in shared/raster_small.wgsl).
struct WideInputsRead {
    bin_args: vec4<u32>,
    inputs: array<WideInput>,
}

@group(2) @binding(6) var<storage, read_write> wide: WideLists;
@group(2) @binding(7) var<storage, read> wide_in: WideInputsRead;

// Tile entries raster.bin hands to raster.wide at most (tests lower it to fill the list).
override RASTER_WIDE_ENTRIES: u32 = RASTER_WIDE_ENTRY_CAPACITY;

const BIN_THREADS: u32 = 64u;

// What the first thread set up, for the workgroup: the pieces, per piece the end of its box's
// tiles (counted over the pieces), its first tile and its width in tiles, the tiles of all boxes;
// then the first entry reserved, and whether the entries are to be written (false: none touched,
// or the list full).
struct Bin {
    pieces: array<WideTriangle, RASTER_WIDE_PIECES>,
    ends: array<u32, RASTER_WIDE_PIECES>,
    tile_lo: array<vec2<u32>, RASTER_WIDE_PIECES>,
    tiles_x: array<u32, RASTER_WIDE_PIECES>,
    boxes: u32,
    first: u32,
    written: bool,
}

var<workgroup> bin: Bin;
// The tiles touched, counted by every thread.
var<workgroup> touched: atomic<u32>;
// The entries written so far, each thread taking the next for each tile it writes.
var<workgroup> cursor: atomic<u32>;

// The piece and tile of the `k`-th tile of the pieces' boxes, and whether the piece touches it.
struct BinTile {
    piece: u32,
    tile: vec2<u32>,
    touched: bool,
}

fn bin_tile(k: u32) -> BinTile {
    var out: BinTile;
    var p = 0u;
    while (bin.ends[p] <= k) {
        p++;
    }
    let j = k - select(0u, bin.ends[max(p, 1u) - 1u], p > 0u);
    let tiles_x = bin.tiles_x[p];
    out.piece = p;
    out.tile = bin.tile_lo[p] + vec2<u32>(j % tiles_x, j / tiles_x);
    out.touched = raster_wide_tile_touched(bin.pieces[p], vec2<i32>(out.tile));
    return out;
}

@compute @workgroup_size(BIN_THREADS)
fn raster_bin(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let index = group.x;
    if (local == 0u) {
        let input = wide_in.inputs[index];
        let polygon = raster_clip(input.clip);
        var boxes = 0u;
        var inside = true;
        for (var p = 0u; p < RASTER_WIDE_PIECES; p++) {
            if (p + 2u < polygon.count) {
                let piece = array<vec4<f32>, 3>(polygon.corners[0], polygon.corners[p + 1u], polygon.corners[p + 2u]);
                let setup = raster_wide_setup(piece, input.id);
                inside = inside && setup.ok;
                let t = setup.t;
                // No pixel centre in the viewport, a back face, or degenerate once snapped: no tiles.
                if (setup.ok && all(t.lo <= t.hi) && raster_wide_area(t) > 0) {
                    let tile_lo = t.lo / RASTER_WIDE_TILE_PX;
                    let tiles = t.hi / RASTER_WIDE_TILE_PX - tile_lo + 1;
                    boxes += u32(tiles.x * tiles.y);
                    bin.pieces[p] = t;
                    bin.tile_lo[p] = vec2<u32>(tile_lo);
                    bin.tiles_x[p] = u32(tiles.x);
                    wide.triangles[RASTER_WIDE_PIECES * index + p] = t;
                }
            }
            bin.ends[p] = boxes;
        }
        if (!inside) {
            raster_large_push(input.id);
            boxes = 0u;
        }
        bin.boxes = boxes;
    }
    workgroupBarrier();
    let boxes = bin.boxes;
    var count = 0u;
    for (var k = local; k < boxes; k += BIN_THREADS) {
        count += u32(bin_tile(k).touched);
    }
    atomicAdd(&touched, count);
    workgroupBarrier();
    if (local == 0u) {
        let total = atomicLoad(&touched);
        bin.written = false;
        if (total > 0u) {
            let first = atomicAdd(&large_args.wide_requested, total);
            if (first + total > min(RASTER_WIDE_ENTRIES, RASTER_WIDE_ENTRY_CAPACITY)) {
                raster_large_push(wide_in.inputs[index].id);
            } else {
                // Reservations are contiguous in the order of the atomicAdd, so every entry below
                // the highest end that fit belongs to one that fit.
                atomicMax(&large_args.wide_entries, first + total);
                bin.first = first;
                bin.written = true;
            }
        }
    }
    workgroupBarrier();
    if (!bin.written) {
        return;
    }
    for (var k = local; k < boxes; k += BIN_THREADS) {
        let t = bin_tile(k);
        if (t.touched) {
            let slot = bin.first + atomicAdd(&cursor, 1u);
            wide.entries[slot] = vec2<u32>(RASTER_WIDE_PIECES * index + t.piece, t.tile.x | (t.tile.y << 16u));
        }
    }
}
