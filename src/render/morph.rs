//! Vertex morphing (no popping), the CPU twin of `morph_*` in shaders/terrain_draw.wgsl.
//!
//! ```text
//! Every vertex of the LEB mesh except the square's corners was created by one split: the
//! midpoint of one edge A-B (shared by the two triangles of the split diamond). Which edge
//! follows from the vertex's position on the dyadic grid (coordinates p, q in units of
//! 2^-GRID_BITS of the square): with s = 2^min(tz(p), tz(q)) and (P, Q) = (p, q) / s,
//!   P odd, Q even: the horizontal edge (p - s, q) - (p + s, q)
//!   P even, Q odd: the vertical edge (p, q - s) - (p, q + s)
//!   P, Q odd:      a diagonal of the square of side 2s centred on the vertex; the one through
//!                  the centre of that square's parent (the 4-8 mesh), or for the whole square
//!                  the base mesh's diagonal (0, 1) - (1, 0).
//! A vertex is drawn at mix((h(A) + h(B)) / 2, h(v), t), with t a function of the vertex alone
//! (so triangles that share it agree and no crack opens): its displacement from the edge
//! (screen-space error) or the edge's length (edge length) projected at its distance, over the
//! pixel target, mapped from [1, MORPH_END] to [0, 1]. A vertex appears when its diamond splits,
//! which the criterion does only when the diamond's bound (>= the vertex's own size) reaches the
//! target, so it appears at t = 0, on the coarse surface, and slides to its height as the camera
//! approaches.
//! ```

/// Bits of the grid vertex positions are snapped to: exact for every vertex down to depth 2 x 16 + 1.
pub const GRID_BITS: u32 = 16;

/// Projected size, in multiples of the pixel target, at which a vertex reaches its true height.
pub const MORPH_END: f32 = 2.0;

/// The endpoints of the edge whose split created the vertex at grid position (p, q), or None for
/// the square's corners (which were never created by a split).
pub fn creating_edge(p: u32, q: u32) -> Option<([u32; 2], [u32; 2])> {
    let t = p.trailing_zeros().min(q.trailing_zeros());
    if t >= GRID_BITS {
        return None;
    }
    let s = 1u32 << t;
    let (odd_p, odd_q) = ((p >> t) & 1 == 1, (q >> t) & 1 == 1);
    Some(match (odd_p, odd_q) {
        (true, false) => ([p - s, q], [p + s, q]),
        (false, true) => ([p, q - s], [p, q + s]),
        _ if t + 1 == GRID_BITS => ([p - s, q + s], [p + s, q - s]),
        _ => {
            // Square of side 2s with index (i, j); its parent's centre is the corner on the side
            // where i (j) is even: the right (top) one, else the left (bottom) one.
            let (i, j) = ((p - s) >> (t + 1), (q - s) >> (t + 1));
            let a = [if i % 2 == 0 { p + s } else { p - s }, if j % 2 == 0 { q + s } else { q - s }];
            (a, [2 * p - a[0], 2 * q - a[1]])
        }
    })
}

/// How far towards its true height a vertex is drawn: 0 on its creating edge, 1 at its height,
/// for a projected size of `size_px` (its displacement or its edge) and a pixel target `target_px`.
pub fn morph_factor(size_px: f32, target_px: f32) -> f32 {
    ((size_px / target_px - 1.0) / (MORPH_END - 1.0)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::cpu::Node;
    use crate::leb::cpu::decode_vertices;

    fn grid(v: [f32; 2]) -> [u32; 2] {
        v.map(|c| (c * (1u32 << GRID_BITS) as f32) as u32)
    }

    /// Every split's new vertex (the midpoint of the hypotenuse) maps back to that hypotenuse.
    #[test]
    fn creating_edges_are_the_split_hypotenuses() {
        for depth in 1..=22u32 {
            let step = if depth < 14 { 1 } else { 997 };
            for id in ((1u32 << depth)..(2u32 << depth)).step_by(step) {
                let v = decode_vertices(Node { id, depth }).map(grid);
                let m = [(v[0][0] + v[2][0]) / 2, (v[0][1] + v[2][1]) / 2];
                let (a, b) = creating_edge(m[0], m[1]).expect("a midpoint is not a corner");
                assert!((a, b) == (v[0], v[2]) || (a, b) == (v[2], v[0]), "node {id}: midpoint {m:?} gives {a:?}-{b:?}, hypotenuse {:?}-{:?}", v[0], v[2]);
            }
        }
        let one = 1u32 << GRID_BITS;
        for corner in [[0, 0], [one, 0], [0, one], [one, one]] {
            assert_eq!(creating_edge(corner[0], corner[1]), None);
        }
    }

    #[test]
    fn morph_runs_from_the_target_to_morph_end() {
        assert_eq!(morph_factor(0.5, 1.0), 0.0);
        assert_eq!(morph_factor(1.0, 1.0), 0.0);
        assert_eq!(morph_factor(1.5, 1.0), 0.5);
        assert_eq!(morph_factor(3.0, 1.0), 1.0);
    }
}
