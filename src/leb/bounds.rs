//! Per-node bounds that drive the screen-space-error criterion: for every LEB node down to a
//! stored depth, a bound on how far the true surface under the triangle lies from the triangle's
//! plane (metres), the lowest and highest height under it, and the range of surface slopes under
//! it (for back-face culling). Built from height data elsewhere (`terrain::node_bounds`); src/leb
//! only reads them. Nodes deeper than the stored depth use their ancestor at that depth, which is
//! conservative because the bounds are nested.

use crate::cbt::cpu::Node;
use crate::gpu::upload;

/// Error and height bounds of every node with depth <= `depth`, indexed by node id.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBounds {
    /// Deepest depth stored: ids below 2^(depth + 1).
    pub depth: u32,
    /// Depth at which triangles reach the data's resolution (their vertices are neighbouring
    /// samples); deeper triangles add no detail, so they never split under the error criterion.
    pub data_depth: u32,
    /// Bound on |true height - triangle plane| in metres, nested: a parent's >= its children's.
    pub error_m: Vec<f32>,
    /// Lowest height in metres under the triangle.
    pub height_min_m: Vec<f32>,
    /// Highest height in metres under the triangle.
    pub height_max_m: Vec<f32>,
    /// Slope ranges (dh/dx, dh/dy in metres per metre) of every triangle that can be drawn in
    /// the node's place (it and its descendants), stored one level shallower than the other
    /// bounds (`slope_depth`) so that the array fits the same binding: [x, y], each a
    /// [`pack_slope_range`] of (lowest, highest).
    pub slope_range: Vec<[u32; 2]>,
}

/// The slope range of a node whose slopes are unknown: f16's largest finite values (never
/// back-facing; finite so that products with 0 stay 0).
pub const UNKNOWN_SLOPE_RANGE: [f32; 2] = [-65504.0, 65504.0];

/// (lowest, highest) as two f16 in one u32 (lowest in the low half, as WGSL's unpack2x16float
/// reads it), rounded outwards so the range still contains the f32 one; beyond f16's range
/// clamped to its largest finite value.
pub fn pack_slope_range(range: [f32; 2]) -> u32 {
    use half::f16;
    let [low, high] = range.map(|x| x.clamp(UNKNOWN_SLOPE_RANGE[0], UNKNOWN_SLOPE_RANGE[1]));
    let (mut lowest, mut highest) = (f16::from_f32(low), f16::from_f32(high));
    if lowest.to_f32() > low {
        lowest = f16_step(lowest, false);
    }
    if highest.to_f32() < high {
        highest = f16_step(highest, true);
    }
    lowest.to_bits() as u32 | ((highest.to_bits() as u32) << 16)
}

/// The next f16 above (`up`) or below `h` (finite, not NaN).
fn f16_step(h: half::f16, up: bool) -> half::f16 {
    let bits = h.to_bits();
    half::f16::from_bits(match (bits & 0x7fff == 0, bits & 0x8000 == 0) {
        (true, _) => {
            if up {
                0x0001
            } else {
                0x8001
            }
        }
        // A positive value grows with its bits, a negative one shrinks.
        (false, positive) => {
            if up == positive {
                bits + 1
            } else {
                bits - 1
            }
        }
    })
}

/// The (lowest, highest) packed by [`pack_slope_range`], as the GPU unpacks it.
pub fn unpack_slope_range(packed: u32) -> [f32; 2] {
    [half::f16::from_bits(packed as u16).to_f32(), half::f16::from_bits((packed >> 16) as u16).to_f32()]
}

/// How deep node bounds go: what the GPU criterion needs to know of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundsDepths {
    /// Deepest depth stored.
    pub stored: u32,
    /// Depth at which triangles reach the data's resolution.
    pub data: u32,
}

/// The three bounds of one node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub error_m: f32,
    pub height_min_m: f32,
    pub height_max_m: f32,
    /// Lowest and highest dh/dx (metres per metre).
    pub slope_x: [f32; 2],
    /// Lowest and highest dh/dy (metres per metre).
    pub slope_y: [f32; 2],
}

impl NodeBounds {
    /// Flat bounds: no error anywhere and every height within `height_range_m` (for tests and
    /// for the edge-length criterion without data).
    pub fn flat(depth: u32, height_range_m: (f32, f32)) -> NodeBounds {
        let len = 2usize << depth;
        let unknown = pack_slope_range(UNKNOWN_SLOPE_RANGE);
        NodeBounds {
            depth,
            data_depth: depth,
            error_m: vec![0.0; len],
            height_min_m: vec![height_range_m.0; len],
            height_max_m: vec![height_range_m.1; len],
            slope_range: vec![[unknown; 2]; 2usize << slope_depth(depth)],
        }
    }

    /// Its stored and data depths.
    pub fn depths(&self) -> BoundsDepths {
        BoundsDepths { stored: self.depth, data: self.data_depth }
    }

    /// The index bounds of `node` are stored at (its ancestor at `depth` when deeper).
    /// Mirrors `node_bounds_index` in shaders/shared/node_bounds.wgsl.
    pub fn index(&self, node: Node) -> usize {
        (node.id >> node.depth.saturating_sub(self.depth)) as usize
    }

    /// The index `node`'s slope range is stored at. Mirrors `node_slope_index` in
    /// shaders/shared/node_bounds.wgsl.
    pub fn slope_index(&self, node: Node) -> usize {
        (node.id >> node.depth.saturating_sub(slope_depth(self.depth))) as usize
    }

    /// The bounds of `node`.
    pub fn get(&self, node: Node) -> Bound {
        let i = self.index(node);
        let [x, y] = self.slope_range[self.slope_index(node)];
        Bound {
            error_m: self.error_m[i],
            height_min_m: self.height_min_m[i],
            height_max_m: self.height_max_m[i],
            slope_x: unpack_slope_range(x),
            slope_y: unpack_slope_range(y),
        }
    }

    /// Uploads the three arrays as storage buffers "terrain.node_error", "terrain.node_height_min"
    /// and "terrain.node_height_max".
    pub fn create_buffers(&self, device: &wgpu::Device) -> GpuNodeBounds {
        use wgpu::util::DeviceExt;
        let make = |label: &str, data: &[f32]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        GpuNodeBounds {
            error_m: make("terrain.node_error", &self.error_m),
            height_min_m: make("terrain.node_height_min", &self.height_min_m),
            height_max_m: make("terrain.node_height_max", &self.height_max_m),
            slope_range: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("terrain.node_slope_range"),
                contents: bytemuck::cast_slice(&self.slope_range),
                usage: wgpu::BufferUsages::STORAGE,
            }),
        }
    }

    /// Bytes of the largest array at a stored depth (each of the f32 arrays; the slope ranges,
    /// twice as wide, are stored one level shallower).
    pub fn array_bytes(depth: u32) -> u64 {
        4u64 << (depth + 1)
    }
}

/// The depth slope ranges are stored to when the other bounds go to `depth`.
pub fn slope_depth(depth: u32) -> u32 {
    depth.saturating_sub(1)
}

/// The bounds on the GPU, bound by the passes that evaluate the criterion at @group(1).
pub struct GpuNodeBounds {
    pub error_m: wgpu::Buffer,
    pub height_min_m: wgpu::Buffer,
    pub height_max_m: wgpu::Buffer,
    pub slope_range: wgpu::Buffer,
}

impl GpuNodeBounds {
    /// The bind group at @group(1) of `pipeline` (shaders/shared/node_bounds.wgsl).
    pub fn bind_group(&self, device: &wgpu::Device, pipeline: &wgpu::ComputePipeline, label: &str) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &pipeline.get_bind_group_layout(1),
            entries: &self.entries(),
        })
    }

    /// Bind-group entries 0..4 in the order of shaders/shared/node_bounds.wgsl.
    pub fn entries(&self) -> [wgpu::BindGroupEntry<'_>; 4] {
        [
            wgpu::BindGroupEntry { binding: 0, resource: self.error_m.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: self.height_min_m.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: self.height_max_m.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 3, resource: self.slope_range.as_entire_binding() },
        ]
    }
}

/// The node bounds on the GPU, as `upload_node_bounds` makes them, from bounds the caller no
/// longer needs (freed piece by piece as they are uploaded).
pub fn upload_node_bounds_from(device: &wgpu::Device, queue: &wgpu::Queue, bounds: NodeBounds) -> GpuNodeBounds {
    let NodeBounds { error_m, height_min_m, height_max_m, slope_range, .. } = bounds;
    GpuNodeBounds {
        error_m: upload::storage_buffer_from_vec(device, queue, "terrain.node_error", error_m),
        height_min_m: upload::storage_buffer_from_vec(device, queue, "terrain.node_height_min", height_min_m),
        height_max_m: upload::storage_buffer_from_vec(device, queue, "terrain.node_height_max", height_max_m),
        slope_range: upload::storage_buffer_from_vec(device, queue, "terrain.node_slope_range", slope_range),
    }
}

/// The node bounds on the GPU, as `NodeBounds::create_buffers` makes them, uploaded in pieces (`gpu::upload`).
pub fn upload_node_bounds(device: &wgpu::Device, queue: &wgpu::Queue, bounds: &NodeBounds) -> GpuNodeBounds {
    GpuNodeBounds {
        error_m: upload::storage_buffer(device, queue, "terrain.node_error", bytemuck::cast_slice(&bounds.error_m)),
        height_min_m: upload::storage_buffer(device, queue, "terrain.node_height_min", bytemuck::cast_slice(&bounds.height_min_m)),
        height_max_m: upload::storage_buffer(device, queue, "terrain.node_height_max", bytemuck::cast_slice(&bounds.height_max_m)),
        slope_range: upload::storage_buffer(device, queue, "terrain.node_slope_range", bytemuck::cast_slice(&bounds.slope_range)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn packed_slope_ranges_contain_the_range_within_one_step() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(rand::random());
        for _ in 0..20_000 {
            let scale = 10f32.powi(rng.random_range(-6..=4));
            let (a, b) = (rng.random_range(-1.0..1.0f32) * scale, rng.random_range(-1.0..1.0f32) * scale);
            let range = [a.min(b), a.max(b)];
            let [lo, hi] = unpack_slope_range(pack_slope_range(range));
            assert!(lo <= range[0] && hi >= range[1], "{range:?} packed as [{lo}, {hi}]");
            let (lo_next, hi_next) = (f16_step(half::f16::from_f32(lo), true).to_f32(), f16_step(half::f16::from_f32(hi), false).to_f32());
            assert!(lo_next > range[0] && hi_next < range[1] || range[0] == range[1], "{range:?} packed as [{lo}, {hi}]: not the tightest");
        }
        assert_eq!(unpack_slope_range(pack_slope_range([0.0, 0.0])), [0.0, 0.0]);
        assert_eq!(unpack_slope_range(pack_slope_range([-1e9, 1e9])), UNKNOWN_SLOPE_RANGE);
    }
}
