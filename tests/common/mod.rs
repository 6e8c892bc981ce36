//! Shared helpers of the integration tests: the GPU, seeded randomness.
#![allow(dead_code)]

use bisector::cbt::cpu::Cbt;
use bisector::gpu::{Gpu, Requirements};
use bisector::leb::cpu::{decode_vertices, split_conforming, BASE_DEPTH};
use rand::{rngs::StdRng, SeedableRng};

/// A headless GPU for max depth `max_depth`, or a panic that says how to get one.
pub fn gpu(max_depth: u32) -> Gpu {
    Gpu::headless(&Requirements::renderer(max_depth, 1 << 16))
        .unwrap_or_else(|e| panic!("{e}\n(the README's test command installs the software Vulkan driver lavapipe)"))
}

/// A fresh random generator; its seed is printed, and BISECTOR_TEST_SEED replays one.
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("BISECTOR_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    eprintln!("{test}: BISECTOR_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// Refines around `points` (unit-square coordinates): every leaf containing one splits, with
/// conforming splits, until `max_depth`. Makes deep spikes next to coarse regions.
pub fn refine_around_points(max_depth: u32, points: &[[f32; 2]]) -> Cbt {
    let mut cbt = Cbt::new(max_depth, BASE_DEPTH);
    loop {
        let targets: Vec<_> = cbt
            .leaves()
            .into_iter()
            .filter(|&n| n.depth < max_depth && points.iter().any(|p| triangle_contains(decode_vertices(n), *p)))
            .collect();
        if targets.is_empty() {
            return cbt;
        }
        for node in targets {
            split_conforming(&mut cbt, node);
        }
        cbt.reduce();
    }
}

/// True when point `p` lies in (or on) the triangle `v`.
pub fn triangle_contains(v: [[f32; 2]; 3], p: [f32; 2]) -> bool {
    let edge = |a: [f32; 2], b: [f32; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    let (e0, e1, e2) = (edge(v[0], v[1]), edge(v[1], v[2]), edge(v[2], v[0]));
    (e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0) || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0)
}

/// Number of distinct RGBA colours in `image`: a rendered frame has many, a blank one few.
pub fn distinct_colours(image: &image::RgbaImage) -> usize {
    image.pixels().map(|p| p.0).collect::<std::collections::HashSet<_>>().len()
}
