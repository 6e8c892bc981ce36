// Per-frame indirect arguments and statistics written on the GPU.
// Keep in sync with FrameArgs and FrameStats in src/cbt/gpu.rs.

struct FrameArgs {
    dispatch_x: u32,
    dispatch_y: u32,
    dispatch_z: u32,
    _pad: u32,
    draw_vertex_count: u32,
    draw_instance_count: u32,
    draw_first_vertex: u32,
    draw_first_instance: u32,
}

struct FrameStats {
    leaves: u32,
    max_depth: atomic<u32>,
    // 1 when there are more leaves than the node buffer holds (only `capacity` are drawn).
    overflow: u32,
    capacity: u32,
}
