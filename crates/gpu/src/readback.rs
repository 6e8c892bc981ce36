//! Read-back of buffers and textures: blocking (tests, `shot`; never in the viewer's frame loop),
//! and `ReadbackRing`, the non-blocking ring of staging buffers the frame loops use.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Copies `size` bytes of `buffer` from `offset` to the CPU, waiting for the GPU.
pub fn read_buffer(device: &wgpu::Device, queue: &wgpu::Queue, buffer: &wgpu::Buffer, offset: u64, size: u64) -> Vec<u8> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback.staging"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    queue.submit([encoder.finish()]);
    map_and_copy(device, &staging)
}

fn map_and_copy(device: &wgpu::Device, staging: &wgpu::Buffer) -> Vec<u8> {
    staging.map_async(wgpu::MapMode::Read, .., |result| result.expect("mapping a read-back buffer failed"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("GPU poll failed");
    let bytes = staging.get_mapped_range(..).expect("mapped range").to_vec();
    staging.unmap();
    bytes
}

/// Reads an RGBA8 texture of `width` x `height` into tightly packed rows.
pub fn read_texture_rgba8(device: &wgpu::Device, queue: &wgpu::Queue, texture: &wgpu::Texture, width: u32, height: u32) -> Vec<u8> {
    read_texture_layer(device, queue, texture, 0, (width, height), 4)
}

/// Reads layer `layer` of a 2-D (array) texture, `size` texels of `texel_bytes` each, into
/// tightly packed rows (waits for the GPU).
pub fn read_texture_layer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    layer: u32,
    (width, height): (u32, u32),
    texel_bytes: u32,
) -> Vec<u8> {
    let row_bytes = width * texel_bytes;
    let padded_row_bytes = row_bytes.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback.texture"),
        size: padded_row_bytes as u64 * height as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback.texture") });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d { x: 0, y: 0, z: layer },
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded_row_bytes), rows_per_image: Some(height) },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    queue.submit([encoder.finish()]);
    let padded = map_and_copy(device, &staging);
    padded.chunks(padded_row_bytes as usize).flat_map(|row| &row[..row_bytes as usize]).copied().collect()
}

/// Slot states of a `ReadbackRing`.
const SLOT_FREE: u8 = 0;
const SLOT_RECORDED: u8 = 1;
const SLOT_MAPPING: u8 = 2;
const SLOT_READY: u8 = 3;
const SLOT_FAILED: u8 = 4;

struct RingSlot<T> {
    buffer: Option<wgpu::Buffer>,
    state: Arc<AtomicU8>,
    bytes: u64,
    tag: Option<T>,
}

/// Read-back without stalling a frame loop: a ring of staging buffers. Each read-back goes
/// record (copies into a free slot's buffer, tagged) -> map (once the encoder is submitted) ->
/// collect (after a non-blocking `device.poll`, a few frames later). When every slot is busy a
/// frame records nothing. The viewer's statistics and the tile cache's feedback use it.
pub struct ReadbackRing<T> {
    label: &'static str,
    slots: Vec<RingSlot<T>>,
    failed: bool,
}

impl<T> ReadbackRing<T> {
    /// A ring of `slots` staging buffers labelled `label` (created on first use, grown as needed).
    pub fn new(label: &'static str, slots: usize) -> ReadbackRing<T> {
        let slots = (0..slots).map(|_| RingSlot { buffer: None, state: Arc::new(AtomicU8::new(SLOT_FREE)), bytes: 0, tag: None }).collect();
        ReadbackRing { label, slots, failed: false }
    }

    fn state(&self, index: usize) -> u8 {
        self.slots[index].state.load(Ordering::Acquire)
    }

    /// Records into a free slot: `copy` fills its staging buffer (at least `bytes` long) through
    /// `encoder`; the slot carries `tag` until it is collected. Returns the slot to `map` after
    /// the encoder is submitted, or None when every slot is still in flight. A slot recorded but
    /// never mapped is reused.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        bytes: u64,
        tag: T,
        copy: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Option<usize> {
        let index = (0..self.slots.len()).find(|&i| matches!(self.state(i), SLOT_FREE | SLOT_RECORDED))?;
        let label = self.label;
        let slot = &mut self.slots[index];
        if slot.buffer.as_ref().is_none_or(|b| b.size() < bytes) {
            slot.buffer = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.next_power_of_two().max(bytes).max(4),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        copy(encoder, slot.buffer.as_ref().expect("staging buffer"));
        slot.bytes = bytes;
        slot.tag = Some(tag);
        slot.state.store(SLOT_RECORDED, Ordering::Release);
        Some(index)
    }

    /// Starts mapping slot `index` (after the encoder that `record` filled was submitted).
    pub fn map(&mut self, index: usize) {
        let slot = &self.slots[index];
        if slot.state.load(Ordering::Acquire) != SLOT_RECORDED {
            return;
        }
        let state = slot.state.clone();
        state.store(SLOT_MAPPING, Ordering::Release);
        slot.buffer.as_ref().expect("staging buffer").slice(..slot.bytes).map_async(wgpu::MapMode::Read, move |result| {
            state.store(if result.is_ok() { SLOT_READY } else { SLOT_FAILED }, Ordering::Release);
        });
    }

    /// Reads every slot whose mapping finished with `read(tag, bytes)` and frees it; the results
    /// come in slot order (sort by a frame in the tag where order matters).
    pub fn collect<R>(&mut self, mut read: impl FnMut(&T, &[u8]) -> R) -> Vec<R> {
        let mut out = Vec::new();
        for slot in &mut self.slots {
            match slot.state.load(Ordering::Acquire) {
                SLOT_READY => {
                    let buffer = slot.buffer.as_ref().expect("staging buffer");
                    match buffer.slice(..slot.bytes).get_mapped_range() {
                        Ok(bytes) => out.push(read(slot.tag.as_ref().expect("a recorded slot has a tag"), &bytes)),
                        Err(_) => self.failed = true,
                    }
                    buffer.unmap();
                    slot.tag = None;
                    slot.state.store(SLOT_FREE, Ordering::Release);
                }
                SLOT_FAILED => {
                    self.failed = true;
                    slot.tag = None;
                    slot.state.store(SLOT_FREE, Ordering::Release);
                }
                _ => {}
            }
        }
        out
    }

    /// Whether a mapping failed (the device is probably lost).
    pub fn failed(&self) -> bool {
        self.failed
    }
}
