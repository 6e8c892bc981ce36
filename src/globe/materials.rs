//! The globe's terrain shading (issue 17 item 4; shaders/shared/globe_materials.wgsl): the CPU
//! twin of its shading gradient, which blends the tile cache's central differences towards a
//! stencil four times as wide where they span only a few of the data's height steps, so
//! quantised data (Terrain-RGB's 0.1 m) does not shade in bands.

use crate::globe::cache::tile_cache::{cpu_gradient, cpu_texel};
use crate::globe::cache::tile_layout::TILE_SIDE;

/// The finest height step of the data's encodings (GLOBE_HEIGHT_STEP_M), metres.
pub const HEIGHT_STEP_M: f32 = 0.1;

/// How many texels each side the wide stencil reaches (GLOBE_WIDE_TEXELS).
pub const WIDE_TEXELS: u32 = 4;

/// The central difference WIDE_TEXELS each side at texel (i, j) of `layer`, shortened at its
/// edge (metres per texel). Mirrors globe_wide_texel_gradient.
fn wide_texel_gradient(layer: &[f32], i: u32, j: u32) -> [f32; 2] {
    let at = |i: u32, j: u32| layer[(j * TILE_SIDE + i) as usize];
    let last = TILE_SIDE - 1;
    let w = WIDE_TEXELS;
    let (x0, x1, y0, y1) = (i.saturating_sub(w), (i + w).min(last), j.saturating_sub(w), (j + w).min(last));
    [(at(x1, j) - at(x0, j)) / (x1 - x0) as f32, (at(i, y1) - at(i, y0)) / (y1 - y0) as f32]
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The CPU twin of `globe_shading_gradient`: dh/dmap (metres per map unit) for shading at `map`
/// in `layer`, a zoom-`zoom` tile's heights.
pub fn cpu_shading_gradient(layer: &[f32], zoom: u8, map: [u32; 2]) -> [f32; 2] {
    let narrow = cpu_gradient(layer, zoom, map);
    let texels_per_map = ((7 + zoom as i32) as f32).exp2();
    let steps = 2.0 * narrow[0].abs().max(narrow[1].abs()) / texels_per_map / HEIGHT_STEP_M;
    let wide_share = 1.0 - smoothstep(4.0, 32.0, steps);
    if wide_share <= 0.0 {
        return narrow;
    }
    let ([i, j], f) = cpu_texel(zoom, map);
    let (g00, g10, g01, g11) = (
        wide_texel_gradient(layer, i, j),
        wide_texel_gradient(layer, i + 1, j),
        wide_texel_gradient(layer, i, j + 1),
        wide_texel_gradient(layer, i + 1, j + 1),
    );
    [0, 1].map(|a| {
        let wide = crate::terrain::bilinear::lerp2(f, [g00[a], g10[a], g01[a], g11[a]]) * texels_per_map;
        narrow[a] + (wide - narrow[a]) * wide_share
    })
}
