//! Shared helpers of the kernels' tests: devices for the kernels, seeded randomness.
#![allow(dead_code)]

use bisector_gpu::{Gpu, Requirements};
use rand::{rngs::StdRng, SeedableRng};

/// A headless device for every kernel but compact-hash (subgroups for the chained hash's second build).
pub fn kernel_gpu() -> Gpu {
    Gpu::headless(&Requirements::kernel(64 << 20, "tests".into()).with_feature(wgpu::Features::SUBGROUP, "subgroup build"))
        .unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

/// A headless device for compact-hash (64-bit integers and atomics; subgroups for the variant
/// that reads a bucket with a subgroup).
pub fn compact_hash_gpu() -> Gpu {
    Gpu::headless(
        &Requirements::kernel(64 << 20, "tests".into())
            .with_feature(wgpu::Features::SHADER_INT64, "64-bit nodes")
            .with_feature(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS, "64-bit compare-and-swap")
            .with_feature(wgpu::Features::SUBGROUP, "the subgroup variant"),
    )
    .unwrap_or_else(|e| panic!("{e} (the README's test command installs lavapipe)"))
}

/// A fresh random generator; its seed is printed, and BISECTOR_TEST_SEED replays one.
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("BISECTOR_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    eprintln!("{test}: BISECTOR_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}
