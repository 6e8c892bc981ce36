//! Per-node bounds that drive the screen-space-error criterion: for every LEB node down to a
//! stored depth, a bound on how far the true surface under the triangle lies from the triangle's
//! plane (metres) and the lowest and highest height under it. Built from height data elsewhere
//! (`terrain::node_bounds`); src/leb only reads them. Nodes deeper than the stored depth use
//! their ancestor at that depth, which is conservative because the bounds are nested.

use crate::cbt::cpu::Node;

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
}

impl NodeBounds {
    /// Flat bounds: no error anywhere and every height within `height_range_m` (for tests and
    /// for the edge-length criterion without data).
    pub fn flat(depth: u32, height_range_m: (f32, f32)) -> NodeBounds {
        let len = 2usize << depth;
        NodeBounds { depth, data_depth: depth, error_m: vec![0.0; len], height_min_m: vec![height_range_m.0; len], height_max_m: vec![height_range_m.1; len] }
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

    /// The bounds of `node`.
    pub fn get(&self, node: Node) -> Bound {
        let i = self.index(node);
        Bound { error_m: self.error_m[i], height_min_m: self.height_min_m[i], height_max_m: self.height_max_m[i] }
    }

    /// Uploads the three arrays as storage buffers "terrain.node_error", "terrain.node_height_min"
    /// and "terrain.node_height_max".
    pub fn create_buffers(&self, device: &wgpu::Device) -> GpuNodeBounds {
        use wgpu::util::DeviceExt;
        let make = |label: &str, data: &[f32]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: bytemuck::cast_slice(data), usage: wgpu::BufferUsages::STORAGE })
        };
        GpuNodeBounds {
            error_m: make("terrain.node_error", &self.error_m),
            height_min_m: make("terrain.node_height_min", &self.height_min_m),
            height_max_m: make("terrain.node_height_max", &self.height_max_m),
        }
    }

    /// Bytes of one of the three arrays at a stored depth.
    pub fn array_bytes(depth: u32) -> u64 {
        4u64 << (depth + 1)
    }
}

/// The bounds on the GPU, bound by the passes that evaluate the criterion at @group(1).
pub struct GpuNodeBounds {
    pub error_m: wgpu::Buffer,
    pub height_min_m: wgpu::Buffer,
    pub height_max_m: wgpu::Buffer,
}

impl GpuNodeBounds {
    /// The bind group at @group(1) of `pipeline` (shaders/shared/node_bounds.wgsl).
    pub fn bind_group(&self, device: &wgpu::Device, pipeline: &wgpu::ComputePipeline, label: &str) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout: &pipeline.get_bind_group_layout(1), entries: &self.entries() })
    }

    /// Bind-group entries 0..3 in the order of shaders/shared/node_bounds.wgsl.
    pub fn entries(&self) -> [wgpu::BindGroupEntry<'_>; 3] {
        [
            wgpu::BindGroupEntry { binding: 0, resource: self.error_m.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: self.height_min_m.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: self.height_max_m.as_entire_binding() },
        ]
    }
}
