//! Checks that a set of LEB leaves forms a conforming triangulation of the unit square.

use std::collections::HashMap;

use crate::cbt::cpu::Node;
use crate::leb::cpu::decode_vertices;

/// What is wrong with a triangulation, if anything.
#[derive(Debug, PartialEq)]
pub enum ConformityError {
    /// An interior edge is used by other than two triangles (a T-junction or an overlap).
    Edge { a: [f32; 2], b: [f32; 2], uses: u32 },
    /// The triangles' areas do not add up to the unit square.
    Area { total: f64 },
}

/// Verifies that every interior edge of the leaves is shared by exactly two triangles and every
/// boundary edge by one (which rules out T-junctions), and that the triangles tile the square.
pub fn check_conforming(leaves: &[Node]) -> Result<(), ConformityError> {
    let mut uses: HashMap<([u32; 2], [u32; 2]), u32> = HashMap::new();
    let mut area = 0.0f64;
    for &leaf in leaves {
        let v = decode_vertices(leaf);
        area += 0.5
            * (((v[1][0] - v[0][0]) as f64) * ((v[2][1] - v[0][1]) as f64) - ((v[2][0] - v[0][0]) as f64) * ((v[1][1] - v[0][1]) as f64))
                .abs();
        for (a, b) in [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])] {
            let (ka, kb) = ([a[0].to_bits(), a[1].to_bits()], [b[0].to_bits(), b[1].to_bits()]);
            *uses.entry(if ka < kb { (ka, kb) } else { (kb, ka) }).or_default() += 1;
        }
    }
    for ((ka, kb), count) in uses {
        let (a, b) = ([f32::from_bits(ka[0]), f32::from_bits(ka[1])], [f32::from_bits(kb[0]), f32::from_bits(kb[1])]);
        let on_boundary = (0..2).any(|axis| a[axis] == b[axis] && (a[axis] == 0.0 || a[axis] == 1.0));
        let expected = if on_boundary { 1 } else { 2 };
        if count != expected {
            return Err(ConformityError::Edge { a, b, uses: count });
        }
    }
    if (area - 1.0).abs() > 1e-9 {
        return Err(ConformityError::Area { total: area });
    }
    Ok(())
}
