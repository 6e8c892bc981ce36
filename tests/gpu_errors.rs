//! GPU errors that must not end the program: `gpu::errors::capture` catches a validation error
//! around a piece of work and the device goes on working; `ErrorLog` keeps uncaptured ones.

mod common;

use bisector::gpu::errors::{capture, ErrorLog};
use bisector::gpu::readback::read_buffer;
use rand::Rng;

/// A buffer that is invalid without a native-only feature: mappable for reading and writing.
fn invalid_buffer(device: &wgpu::Device) -> wgpu::Buffer {
    let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE;
    device.create_buffer(&wgpu::BufferDescriptor { label: Some("invalid"), size: 4, usage, mapped_at_creation: false })
}

/// Random words written to a buffer and read back through the device.
fn round_trip(gpu: &bisector::gpu::Gpu, rng: &mut impl Rng) {
    let words: Vec<u32> = (0..64).map(|_| rng.random()).collect();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor { label: None, size: 256, usage, mapped_at_creation: false });
    gpu.queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&words));
    let back: Vec<u32> = bytemuck::cast_slice(&read_buffer(&gpu.device, &gpu.queue, &buffer, 0, 256)).to_vec();
    assert_eq!(back, words, "the device no longer works after a caught error");
}

#[test]
fn a_caught_validation_error_is_returned_and_the_device_goes_on() {
    let gpu = common::gpu(12);
    let mut rng = common::rng("a_caught_validation_error_is_returned_and_the_device_goes_on");
    let ((), error) = capture(&gpu.device, || drop(invalid_buffer(&gpu.device)));
    let error = error.expect("the invalid buffer's validation error was not caught");
    assert!(matches!(error, wgpu::Error::Validation { .. }), "{error:?}");
    let line = bisector::gpu::errors::one_line(&error);
    assert!(line.starts_with("validation error: ") && !line.contains('\n'), "{line}");
    round_trip(&gpu, &mut rng);
    let (value, none) = capture(&gpu.device, || 41 + 1);
    assert_eq!((value, none.is_none()), (42, true), "valid work reported an error");
}

#[test]
fn an_error_log_keeps_uncaptured_errors_instead_of_exiting() {
    let gpu = common::gpu(12);
    let mut rng = common::rng("an_error_log_keeps_uncaptured_errors_instead_of_exiting");
    let log = ErrorLog::default();
    log.install(&gpu.device);
    let n = rng.random_range(1..4);
    for _ in 0..n {
        drop(invalid_buffer(&gpu.device));
    }
    gpu.wait_idle();
    let messages = log.take();
    assert_eq!(messages.len(), n, "{messages:?}");
    assert!(messages.iter().all(|m| m.starts_with("validation error: ")), "{messages:?}");
    assert!(log.take().is_empty(), "take() did not empty the log");
    round_trip(&gpu, &mut rng);
}
