//! The refinement criterion shared by the CPU twin and the GPU update pass. A triangle splits
//! when its size on screen exceeds the pixel target: either its geometric error from the data
//! (screen-space error, the default) or its longest edge (the foundation's criterion), projected
//! at the distance from the camera to the box that bounds it. Hidden triangles never split: those
//! outside the view frustum, and those whose every possible surface faces away from the camera
//! (back-facing, from the node's slope ranges). Merging uses a lower threshold than splitting
//! (hysteresis).

use crate::cbt::cpu::Node;
use crate::leb::bounds::{BoundsDepths, NodeBounds};
use crate::leb::cpu::decode_vertices;

/// What "size on screen" measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Criterion {
    /// The node's error bound from the data (metres of height), projected: split above the pixel error.
    #[default]
    ScreenSpaceError,
    /// The node's longest edge, projected: split above the pixel target.
    EdgeLength,
}

impl Criterion {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Criterion::ScreenSpaceError => "screen-space-error",
            Criterion::EdgeLength => "edge-length",
        }
    }
}

/// A diamond merges only when its projected size is below this fraction of the split threshold,
/// so that a camera moving back and forth by a little does not split and merge the same triangles.
pub const MERGE_HYSTERESIS: f32 = 0.75;

/// Back-face margin, squared: a node counts as back-facing when every surface under it faces away
/// from the camera by at least 0.1 x its distance (see `box_is_back_facing`; for gentle slopes an
/// angle of about 6 degrees). Without a margin, slopes that turn
/// towards an approaching camera are still coarse when they come into view (measured on the H100
/// along the Taiwan low path: the largest visible error estimate rose from 1 px to 2.5-4.6 px).
pub const BACK_FACE_MARGIN_SQ: f32 = 0.01;

/// Where the criterion looks from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodView {
    pub position_m: glam::Vec3,
    /// World -> clip transform whose frustum culls (None: nothing is culled).
    pub clip_from_world: Option<glam::Mat4>,
    pub fov_y_rad: f32,
    pub viewport_height_px: u32,
}

/// Parameters of the level-of-detail criterion.
/// Keep in sync with `LodParams` in shaders/shared/lod.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LodParams {
    /// Camera position in world metres (w unused).
    pub camera_position_m: [f32; 4],
    /// Side of the square terrain in metres (unit square -> [0, size]^2).
    pub terrain_size_m: f32,
    /// (viewport height in pixels / (2 tan(fov_y / 2)))^2: pixels per metre at 1 m distance, squared.
    pub projection_scale_sq: f32,
    /// Pixel target squared: split above it.
    pub split_threshold_sq: f32,
    /// (Pixel target x MERGE_HYSTERESIS) squared: merge below it.
    pub merge_threshold_sq: f32,
    /// Max depth D of the tree: nodes at D never split.
    pub max_depth: u32,
    /// 0 = screen-space error, 1 = edge length.
    pub criterion: u32,
    /// Deepest depth whose node bounds are stored (deeper nodes read their ancestor's).
    pub bounds_depth: u32,
    /// Depth at which triangles reach the data's resolution (no split at or below it under screen-space error).
    pub data_depth: u32,
    /// Frustum planes (a, b, c, d): a point p is inside when a px + b py + c pz + d >= 0.
    pub frustum_planes: [[f32; 4]; 5],
}
const _: () = assert!(std::mem::size_of::<LodParams>() == 128);

/// A node decoded once for the criterion: vertices (unit square), error bound, bounding box
/// (metres), slope ranges (metres per metre).
struct NodeBox {
    v: [[f32; 2]; 3],
    error_m: f32,
    lo: [f32; 3],
    hi: [f32; 3],
    slope_x: [f32; 2],
    slope_y: [f32; 2],
}

/// The plane that keeps every point inside.
const NO_PLANE: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

impl LodParams {
    /// The criterion for `view`, splitting triangles bigger than `pixel_target_px` on screen.
    pub fn new(view: &LodView, criterion: Criterion, pixel_target_px: f32, terrain_size_m: f32, max_depth: u32, bounds: BoundsDepths) -> LodParams {
        let scale = view.viewport_height_px as f32 / (2.0 * (view.fov_y_rad * 0.5).tan());
        let merge = pixel_target_px * MERGE_HYSTERESIS;
        LodParams {
            camera_position_m: view.position_m.extend(0.0).to_array(),
            terrain_size_m,
            projection_scale_sq: scale * scale,
            split_threshold_sq: pixel_target_px * pixel_target_px,
            merge_threshold_sq: merge * merge,
            max_depth,
            criterion: match criterion {
                Criterion::ScreenSpaceError => 0,
                Criterion::EdgeLength => 1,
            },
            bounds_depth: bounds.stored,
            data_depth: bounds.data,
            frustum_planes: view.clip_from_world.map_or([NO_PLANE; 5], frustum_planes),
        }
    }

    /// Lower and upper corners in metres of the box that bounds `node`'s triangle: xy of its
    /// vertices, z over the heights under it.
    pub fn bounding_box_m(&self, node: Node, bounds: &NodeBounds) -> ([f32; 3], [f32; 3]) {
        let n = self.node_box(node, bounds);
        (n.lo, n.hi)
    }

    /// Decodes `node` once: its vertices, its bounds and its bounding box (as lod.wgsl does).
    fn node_box(&self, node: Node, bounds: &NodeBounds) -> NodeBox {
        let v = decode_vertices(node);
        let bound = bounds.get(node);
        let s = self.terrain_size_m;
        let (x0, x1, x2) = (v[0][0] * s, v[1][0] * s, v[2][0] * s);
        let (y0, y1, y2) = (v[0][1] * s, v[1][1] * s, v[2][1] * s);
        let lo = [x0.min(x1).min(x2), y0.min(y1).min(y2), bound.height_min_m];
        let hi = [x0.max(x1).max(x2), y0.max(y1).max(y2), bound.height_max_m];
        NodeBox { v, error_m: bound.error_m, lo, hi, slope_x: bound.slope_x, slope_y: bound.slope_y }
    }

    fn box_distance_sq_m2(&self, n: &NodeBox) -> f32 {
        let mut d2 = 0.0f32;
        for axis in 0..3 {
            let c = self.camera_position_m[axis];
            let d = (n.lo[axis] - c).max(0.0).max(c - n.hi[axis]);
            d2 += d * d;
        }
        d2
    }

    /// True when nothing drawn in `node`'s place can be seen: its bounding box lies entirely
    /// outside one frustum plane, or every surface under it faces away from the camera (no
    /// margin: what the statistics and the quality measurement count as visible).
    pub fn is_hidden(&self, node: Node, bounds: &NodeBounds) -> bool {
        self.box_is_hidden(&self.node_box(node, bounds), 0.0)
    }

    /// Outside the frustum, or back-facing by `margin_sq` (0 or BACK_FACE_MARGIN_SQ).
    fn box_is_hidden(&self, n: &NodeBox, margin_sq: f32) -> bool {
        self.box_is_culled(n) || self.box_is_back_facing(n, margin_sq)
    }

    fn box_is_culled(&self, n: &NodeBox) -> bool {
        self.frustum_planes.iter().any(|p| {
            let c = [0, 1, 2].map(|a| if p[a] >= 0.0 { n.hi[a] } else { n.lo[a] });
            p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] < 0.0
        })
    }

    /// True when every triangle that can be drawn in the node's place faces away from the camera
    /// c by at least the margin (squared: `margin_sq`). A surface point p of slope g faces c when
    /// f = (c.z - p.z) - g.x (c.x - p.x) - g.y (c.y - p.y) > 0 (f = n.(c - p) with n = (-g, 1));
    /// this bounds f from above over the node's box and slope ranges (each product by its four
    /// corner values) and asks f <= -margin x (distance to the box), compared squared. f / |c - p|
    /// is about the sine of the angle by which a gentle slope faces away, so a slope that turns
    /// towards an approaching camera counts as visible (and is refined) a few degrees before it
    /// can be seen (with BACK_FACE_MARGIN_SQ, as splits use it); a heuristic lead, not a bound.
    fn box_is_back_facing(&self, n: &NodeBox, margin_sq: f32) -> bool {
        let c = self.camera_position_m;
        let largest = |g: [f32; 2], d: [f32; 2]| (-g[0] * d[0]).max(-g[0] * d[1]).max((-g[1] * d[0]).max(-g[1] * d[1]));
        let along_x = largest(n.slope_x, [c[0] - n.hi[0], c[0] - n.lo[0]]);
        let along_y = largest(n.slope_y, [c[1] - n.hi[1], c[1] - n.lo[1]]);
        let facing = (c[2] - n.lo[2]) + along_x + along_y;
        facing <= 0.0 && facing * facing >= margin_sq * self.box_distance_sq_m2(n)
    }

    /// The squared size in metres the criterion projects: error squared or longest edge squared.
    fn size_sq_m2(&self, n: &NodeBox) -> f32 {
        if self.criterion == 1 {
            let s = self.terrain_size_m;
            let dx = (n.v[0][0] - n.v[2][0]) * s;
            let dy = (n.v[0][1] - n.v[2][1]) * s;
            dx * dx + dy * dy
        } else {
            n.error_m * n.error_m
        }
    }

    /// True when `node` is bigger on screen than `threshold_sq` (squared pixels), is visible and
    /// may split. Compares squares (no sqrt, no division). Mirrors `lod_wants_split` in
    /// shaders/shared/lod.wgsl operation for operation.
    pub fn wants_split(&self, node: Node, bounds: &NodeBounds, threshold_sq: f32) -> bool {
        if node.depth >= self.max_depth || (self.criterion == 0 && node.depth >= self.data_depth) {
            return false;
        }
        let n = self.node_box(node, bounds);
        if self.box_is_hidden(&n, BACK_FACE_MARGIN_SQ) {
            return false;
        }
        self.size_sq_m2(&n) * self.projection_scale_sq > threshold_sq * self.box_distance_sq_m2(&n)
    }

    /// True when leaf `node` should split.
    pub fn should_split(&self, node: Node, bounds: &NodeBounds) -> bool {
        self.wants_split(node, bounds, self.split_threshold_sq)
    }

    /// True when `node` (a parent in a diamond) must stay split.
    pub fn keeps_split(&self, node: Node, bounds: &NodeBounds) -> bool {
        self.wants_split(node, bounds, self.merge_threshold_sq)
    }
}

/// The left, right, bottom, top and near planes of a reverse-Z (or any D3D-style) projection:
/// rows r of clip_from_world give r3 + r0, r3 - r0, r3 + r1, r3 - r1 and r3 - r2 (z <= w).
pub fn frustum_planes(clip_from_world: glam::Mat4) -> [[f32; 4]; 5] {
    let r = |i: usize| clip_from_world.row(i);
    [r(3) + r(0), r(3) - r(0), r(3) + r(1), r(3) - r(1), r(3) - r(2)].map(|p| p.to_array())
}

/// The criterion and the node bounds it reads, as the CPU twin uses them.
#[derive(Clone, Copy)]
pub struct Lod<'a> {
    pub params: &'a LodParams,
    pub bounds: &'a NodeBounds,
}

impl Lod<'_> {
    /// True when leaf `node` should split.
    pub fn should_split(&self, node: Node) -> bool {
        self.params.should_split(node, self.bounds)
    }
    /// True when `node` must stay split (a diamond containing it does not merge).
    pub fn keeps_split(&self, node: Node) -> bool {
        self.params.keeps_split(node, self.bounds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frustum_culls_what_is_behind_the_camera() {
        let position = glam::Vec3::new(500.0, 500.0, 100.0);
        let view_m = glam::Mat4::look_to_rh(position, glam::Vec3::X, glam::Vec3::Z);
        let clip = glam::Mat4::perspective_infinite_reverse_rh(1.0, 1.0, 0.5) * view_m;
        let view = LodView { position_m: position, clip_from_world: Some(clip), fov_y_rad: 1.0, viewport_height_px: 512 };
        let bounds = NodeBounds::flat(12, (0.0, 50.0));
        let lod = LodParams::new(&view, Criterion::EdgeLength, 8.0, 1000.0, 20, bounds.depths());
        // Node 2 is the lower-left half (x + y <= 1), 3 the upper-right: both straddle x = 500.
        assert!(!lod.is_hidden(Node::from_id(2), &bounds));
        // Deep nodes wholly at x < 450 are behind; those at x > 800 (the ground within 14 degrees of
        // the view direction, half the field of view) in front.
        for id in (1u32 << 12)..(2u32 << 12) {
            let node = Node::from_id(id);
            let (lo, hi) = lod.bounding_box_m(node, &bounds);
            if hi[0] < 450.0 {
                assert!(lod.is_hidden(node, &bounds), "node {id} behind the camera");
            }
            if lo[0] > 800.0 && (lo[1] - 500.0).abs() < 10.0 {
                assert!(!lod.is_hidden(node, &bounds), "node {id} ahead of the camera");
            }
        }
    }
}
