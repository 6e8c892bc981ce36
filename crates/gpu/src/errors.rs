//! GPU errors that do not end the program: validation and out-of-memory errors caught around one
//! piece of work (`capture`), and a log of the uncaptured ones for an interactive program
//! (`ErrorLog`). Command-line runs keep the default: an uncaptured error is one line and exit 3.

use std::sync::{Arc, Mutex};

/// Runs `work` with the device's validation, out-of-memory and internal errors caught instead of
/// reaching the uncaptured-error handler; returns its result and the first error, if any. The
/// device stays usable after an error caught here. Error scopes are per thread: `work` must
/// record and submit on the calling thread.
pub fn capture<T>(device: &wgpu::Device, work: impl FnOnce() -> T) -> (T, Option<wgpu::Error>) {
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = work();
    // Scopes pop in reverse order of their pushes.
    let errors = [validation.pop(), memory.pop(), internal.pop()].map(pollster::block_on);
    (result, errors.into_iter().flatten().next())
}

/// The uncaptured GPU errors of a device, kept for the program to show rather than exiting.
#[derive(Clone, Default)]
pub struct ErrorLog {
    messages: Arc<Mutex<Vec<String>>>,
}

impl ErrorLog {
    /// Makes `device` send its uncaptured errors here (replacing the handler that exits).
    pub fn install(&self, device: &wgpu::Device) {
        let messages = self.messages.clone();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            let message = one_line(&error);
            log::error!("GPU: {message}");
            messages.lock().unwrap_or_else(|e| e.into_inner()).push(message);
        }));
    }

    /// The errors since the last call, oldest first.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.messages.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A wgpu error on one line: its kind and its first lines of detail, joined.
pub fn one_line(error: &wgpu::Error) -> String {
    let kind = match error {
        wgpu::Error::OutOfMemory { .. } => "out of memory",
        wgpu::Error::Validation { .. } => "validation error",
        wgpu::Error::Internal { .. } => "internal error",
    };
    let text = error.to_string();
    let detail: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(4).collect();
    format!("{kind}: {}", detail.join(" "))
}
