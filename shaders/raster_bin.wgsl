// raster.bin: bins the triangles raster.small listed (shared/raster_small.wgsl,
// `raster_wide_push`) per 32x32-px screen tile for raster.wide, on both scenes. One workgroup per
// listed triangle (dispatched indirectly by the list's count): its first thread clips it against
// the near plane and the guard band (`raster_clip`: up to RASTER_WIDE_PIECES pieces), sets each
// piece up for raster.wide (`raster_wide_setup`), counts the tiles of the pieces' pixel
// rectangles inside the viewport, reserves that many tile entries with one atomicAdd and
// broadcasts the first; then the workgroup's threads write the entries in parallel. A piece
// outside raster.wide's guard band (NaN corners) or entries past the capacity send the whole
// triangle to raster.large. CPU twin: src/flat/raster.rs's `rasterise_wide_cpu`.
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

// What the first thread found, for the workgroup: the first entry reserved, the entries of all
// pieces, and per piece the end of its entries (counted from the first), its first tile and its
// width in tiles.
struct Bin {
    first: u32,
    total: u32,
    ends: array<u32, RASTER_WIDE_PIECES>,
    tile_lo: array<vec2<u32>, RASTER_WIDE_PIECES>,
    tiles_x: array<u32, RASTER_WIDE_PIECES>,
}

var<workgroup> bin: Bin;

@compute @workgroup_size(BIN_THREADS)
fn raster_bin(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let index = group.x;
    if (local == 0u) {
        let input = wide_in.inputs[index];
        let polygon = raster_clip(input.clip);
        var total = 0u;
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
                    total += u32(tiles.x * tiles.y);
                    bin.tile_lo[p] = vec2<u32>(tile_lo);
                    bin.tiles_x[p] = u32(tiles.x);
                    wide.triangles[RASTER_WIDE_PIECES * index + p] = t;
                }
            }
            bin.ends[p] = total;
        }
        if (!inside) {
            raster_large_push(input.id);
            total = 0u;
        } else if (total > 0u) {
            let first = atomicAdd(&large_args.wide_requested, total);
            if (first + total > min(RASTER_WIDE_ENTRIES, RASTER_WIDE_ENTRY_CAPACITY)) {
                raster_large_push(input.id);
                total = 0u;
            } else {
                // Reservations are contiguous in the order of the atomicAdd, so every entry below
                // the highest end that fit belongs to one that fit.
                atomicMax(&large_args.wide_entries, first + total);
                bin.first = first;
            }
        }
        bin.total = total;
    }
    workgroupBarrier();
    let total = bin.total;
    for (var k = local; k < total; k += BIN_THREADS) {
        var p = 0u;
        while (bin.ends[p] <= k) {
            p++;
        }
        let j = k - select(0u, bin.ends[max(p, 1u) - 1u], p > 0u);
        let tiles_x = bin.tiles_x[p];
        let tile = bin.tile_lo[p] + vec2<u32>(j % tiles_x, j / tiles_x);
        wide.entries[bin.first + k] = vec2<u32>(RASTER_WIDE_PIECES * index + p, tile.x | (tile.y << 16u));
    }
}
