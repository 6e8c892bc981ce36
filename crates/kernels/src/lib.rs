//! The diagnostic GPU kernels of the seed papers, each verified against its CPU reference and
//! timed on its own: `chained_hash` (seed 000), `closest_pairs` (001), `compact_hash` (002) and
//! `shift_and` (003). They build on `bisector-gpu` alone, not on the renderer. `bisector kernel
//! NAME` and the viewer's kernel lab run them through [`Kernel`]: options -> requirements -> run
//! -> report.

pub mod chained_hash;
pub mod closest_pairs;
pub mod compact_hash;
pub mod shaders;
pub mod shift_and;

use bisector_gpu::{Gpu, GpuError, Requirements};

pub use shaders::SHADERS;

/// Most timed repetitions a kernel runs (`--iterations`; more would run for hours).
pub const MAX_ITERATIONS: u32 = 10_000;

/// One diagnostic kernel: what a run is given, what it needs of the device, the run, its report.
pub trait Kernel {
    /// The name of `bisector kernel NAME`.
    const NAME: &'static str;
    /// What one run is given: sizes, seed, variants, and any input data.
    type Options;
    /// What a run measured, and whether every GPU result equals the CPU reference.
    type Report;

    /// Ok when the kernel can run with `options`, else the first one out of its range.
    fn check(options: &Self::Options) -> Result<(), KernelError>;

    /// What a run with `options` needs of the device: features and limits, each with the reason.
    fn requirements(options: &Self::Options) -> Requirements;

    /// Runs the kernel on options that passed `check`, on a device that meets `requirements`:
    /// inputs, CPU reference, timed GPU passes, verification.
    fn measure(gpu: &Gpu, options: &Self::Options) -> Self::Report;

    /// Checks the options and `gpu`'s device, then runs (`measure`).
    fn run(gpu: &Gpu, options: &Self::Options) -> Result<Self::Report, KernelError> {
        Self::check(options)?;
        let name = gpu.adapter.get_info().name;
        Self::requirements(options).check(&name, gpu.device.features(), &gpu.device.limits())?;
        Ok(Self::measure(gpu, options))
    }
}

/// Why a kernel did not run.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error(transparent)]
    ChainedHash(#[from] chained_hash::OptionsError),
    #[error(transparent)]
    ClosestPairs(#[from] closest_pairs::OptionsError),
    #[error(transparent)]
    CompactHash(#[from] compact_hash::OptionsError),
    #[error(transparent)]
    ShiftAnd(#[from] shift_and::OptionsError),
    /// The device lacks a feature or a limit the run needs.
    #[error(transparent)]
    Device(#[from] GpuError),
}

/// Why an iteration count is refused (every kernel's `iterations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IterationsError {
    #[error("at least one iteration is needed")]
    None,
    #[error("{0} iterations: at most {MAX_ITERATIONS}")]
    TooMany(u32),
}

/// Ok when `iterations` is 1..=MAX_ITERATIONS.
pub fn check_iterations(iterations: u32) -> Result<(), IterationsError> {
    match iterations {
        0 => Err(IterationsError::None),
        n if n > MAX_ITERATIONS => Err(IterationsError::TooMany(n)),
        _ => Ok(()),
    }
}
