//! The refinement criterion shared by the CPU twin and the GPU update pass: a triangle splits when
//! the projected length of its longest edge exceeds the pixel target.

use crate::cbt::cpu::Node;
use crate::leb::cpu::decode_vertices;

/// Parameters of the level-of-detail criterion.
/// Keep in sync with `LodParams` in shaders/shared/lod.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LodParams {
    /// Camera position in world metres (w unused).
    pub camera_position_m: [f32; 4],
    /// Side of the square terrain in metres (unit square -> [0, size]^2).
    pub terrain_size_m: f32,
    /// Lowest terrain height in metres (bottom of every triangle's bounding box).
    pub height_min_m: f32,
    /// Highest terrain height in metres (top of every triangle's bounding box).
    pub height_max_m: f32,
    /// (viewport height in pixels / (2 tan(fov_y / 2)))^2: pixels per metre at 1 m distance, squared.
    pub projection_scale_sq: f32,
    /// Target length of a projected longest edge in pixels, squared.
    pub pixel_error_sq: f32,
    /// Max depth D of the tree: nodes at D never split.
    pub max_depth: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<LodParams>() == 48);

impl LodParams {
    /// Criterion for a camera at `camera_position_m` with vertical field of view `fov_y_rad` on a
    /// viewport `viewport_height_px` high, splitting edges longer than `pixel_error_px` pixels.
    pub fn new(
        camera_position_m: glam::Vec3,
        fov_y_rad: f32,
        viewport_height_px: u32,
        pixel_error_px: f32,
        terrain_size_m: f32,
        height_range_m: (f32, f32),
        max_depth: u32,
    ) -> LodParams {
        let scale = viewport_height_px as f32 / (2.0 * (fov_y_rad * 0.5).tan());
        LodParams {
            camera_position_m: camera_position_m.extend(0.0).to_array(),
            terrain_size_m,
            height_min_m: height_range_m.0,
            height_max_m: height_range_m.1,
            projection_scale_sq: scale * scale,
            pixel_error_sq: pixel_error_px * pixel_error_px,
            max_depth,
            _pad: [0; 2],
        }
    }

    /// Squared distance in metres from the camera to the box that bounds `node`'s triangle (xy of
    /// its vertices, z over the terrain's height range).
    pub fn distance_sq_m2(&self, node: Node) -> f32 {
        let v = decode_vertices(node);
        let s = self.terrain_size_m;
        let (x0, x1, x2) = (v[0][0] * s, v[1][0] * s, v[2][0] * s);
        let (y0, y1, y2) = (v[0][1] * s, v[1][1] * s, v[2][1] * s);
        let lo = [x0.min(x1).min(x2), y0.min(y1).min(y2), self.height_min_m];
        let hi = [x0.max(x1).max(x2), y0.max(y1).max(y2), self.height_max_m];
        let mut d2 = 0.0f32;
        for axis in 0..3 {
            let c = self.camera_position_m[axis];
            let d = (lo[axis] - c).max(0.0).max(c - hi[axis]);
            d2 += d * d;
        }
        d2
    }

    /// True when `node`'s longest edge projects to more than the pixel target (never at max depth).
    /// Mirrors `lod_should_split` in shaders/shared/lod.wgsl operation for operation.
    pub fn should_split(&self, node: Node) -> bool {
        if node.depth >= self.max_depth {
            return false;
        }
        let v = decode_vertices(node);
        let s = self.terrain_size_m;
        let dx = (v[0][0] - v[2][0]) * s;
        let dy = (v[0][1] - v[2][1]) * s;
        let edge_sq_m2 = dx * dx + dy * dy;
        edge_sq_m2 * self.projection_scale_sq > self.pixel_error_sq * self.distance_sq_m2(node)
    }
}
