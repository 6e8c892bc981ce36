//! Uploads of large arrays in bounded pieces: each piece is written, submitted and waited for
//! before the next, so the staging memory wgpu allocates for `queue.write_*` stays one piece
//! instead of a second copy of the whole array (on a CPU adapter, GPU memory is the process's
//! own, and a 256 MiB height texture would otherwise cost 512 MiB while it uploads).

/// Largest piece, in bytes, staged at once.
pub const CHUNK_BYTES: usize = 16 << 20;

/// Submits the writes queued so far and waits until the GPU has consumed them (their staging
/// memory is freed).
pub fn flush(device: &wgpu::Device, queue: &wgpu::Queue) {
    queue.submit([]);
    device.poll(wgpu::PollType::wait_indefinitely()).expect("GPU poll failed");
}

/// A storage buffer labelled `label` holding `data`, written in pieces of at most `CHUNK_BYTES`.
pub fn storage_buffer(device: &wgpu::Device, queue: &wgpu::Queue, label: &str, data: &[u8]) -> wgpu::Buffer {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: data.len() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    // Pieces keep write_buffer's 4-byte alignment: CHUNK_BYTES is a multiple of 4, and so is
    // every array of f32 or u32.
    for (i, piece) in data.chunks(CHUNK_BYTES).enumerate() {
        queue.write_buffer(&buffer, (i * CHUNK_BYTES) as u64, piece);
        flush(device, queue);
    }
    buffer
}

/// A storage buffer labelled `label` holding `data`, uploaded from its end in pieces of at most
/// `CHUNK_BYTES`, each freed on the CPU once written: CPU and GPU copies together never hold
/// much more than one copy.
pub fn storage_buffer_from_vec<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    mut data: Vec<T>,
) -> wgpu::Buffer {
    let item_bytes = std::mem::size_of::<T>();
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: (data.len() * item_bytes) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let items_per_piece = (CHUNK_BYTES / item_bytes).max(1);
    while !data.is_empty() {
        let first = (data.len() - 1) / items_per_piece * items_per_piece;
        queue.write_buffer(&buffer, (first * item_bytes) as u64, bytemuck::cast_slice(&data[first..]));
        flush(device, queue);
        data.truncate(first);
        // Shrinking a large allocation gives its tail back to the system (mremap).
        data.shrink_to_fit();
    }
    buffer
}

/// The number of distinct indices in `changed` (unsorted, may repeat).
pub fn distinct_count(changed: &[u32]) -> u32 {
    let mut changed = changed.to_vec();
    changed.sort_unstable();
    changed.dedup();
    changed.len() as u32
}

/// The elements whose indices are in `changed` (unsorted, may repeat) as sorted ranges
/// [start, end), runs closer than `merge_gap` joined: one larger write beats many tiny ones.
pub fn changed_runs(mut changed: Vec<u32>, merge_gap: u32) -> Vec<(u32, u32)> {
    changed.sort_unstable();
    changed.dedup();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for i in changed {
        match runs.last_mut() {
            Some((_, end)) if i <= *end + merge_gap => *end = i + 1,
            _ => runs.push((i, i + 1)),
        }
    }
    runs
}

/// Writes `elements[start..end]` of each run into `buffer`, whose elements begin after a header of
/// `header_bytes`.
pub fn write_runs<T: bytemuck::Pod>(queue: &wgpu::Queue, buffer: &wgpu::Buffer, header_bytes: u64, elements: &[T], runs: &[(u32, u32)]) {
    for &(start, end) in runs {
        let offset = header_bytes + u64::from(start) * std::mem::size_of::<T>() as u64;
        queue.write_buffer(buffer, offset, bytemuck::cast_slice(&elements[start as usize..end as usize]));
    }
}
