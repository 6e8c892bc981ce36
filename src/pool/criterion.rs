//! The pool's test criterion (docs/design/bisector-pool.md 3.7): a squared error in px² that
//! depends on the 64-bit node id alone, through integer hashing and float values that are exact
//! in f32, so that the CPU twin and the GPU passes (shaders/shared/pool_criterion.wgsl) decide
//! bit for bit alike, as `globe_test_wants_split` does for the globe's 32-bit ids.
//!
//! ```text
//! h  = fmix32(fmix32(id_lo ^ salt) ^ id_hi),  r = h & 0xffff,  h2 = fmix32(h)
//! e² = 2 + (h2 >> 12)          the node is a proper ancestor of a focus (refines towards it)
//!    = 1 + ((h2 >> 8) | 1)     depth < random_max_depth and r < split_share   (wants a split)
//!    = 0.9                     r < split_share + keep_share   (above 0.75² T², keeps children)
//!    = 0.1                     otherwise                      (its children may merge)
//! ```
//! Every value is an integer below 2^24 or a literal, so f32 holds it exactly; with the target
//! T = 1 px a split wants e² > 1 and a merge e² <= 0.5625 · T_eff².

use crate::gpu::hash::fmix32;
use crate::leb::node64::Node64;

/// Most foci a criterion holds (the GPU's uniform has room for this many).
pub const MAX_FOCI: usize = 8;

/// The test criterion's parameters; one split or merge frame evaluates it on every leaf (or
/// every leaf's parent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestCriterion {
    /// Salt of the id hash (a new one per frame makes random frames).
    pub salt: u32,
    /// Share of nodes, out of 65,536, that want a split (above `random_max_depth`).
    pub split_share: u32,
    /// Share of nodes, out of 65,536, that keep their children (after the split share).
    pub keep_share: u32,
    /// Random splits only above this depth.
    pub random_max_depth: u32,
    /// Nodes whose proper ancestors all want a split (at most `MAX_FOCI`).
    pub foci: Vec<Node64>,
}

/// The criterion as the GPU's uniform (`PoolCriterion` in shaders/shared/pool_criterion.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuCriterion {
    /// `TestCriterion::salt`.
    pub salt: u32,
    /// `TestCriterion::split_share`.
    pub split_share: u32,
    /// `TestCriterion::keep_share`.
    pub keep_share: u32,
    /// `TestCriterion::random_max_depth`.
    pub random_max_depth: u32,
    /// Foci in use.
    pub focus_count: u32,
    pub _pad: [u32; 3],
    /// Each focus as (id low word, id high word, depth, 0).
    pub foci: [[u32; 4]; MAX_FOCI],
}

/// The hash of a node id under `salt` (mirrored by `pool_hash` in WGSL).
pub fn pool_hash(id: u64, salt: u32) -> u32 {
    fmix32(fmix32(id as u32 ^ salt) ^ (id >> 32) as u32)
}

impl TestCriterion {
    /// The squared error of `node` in px².
    pub fn error_sq_px2(&self, node: Node64) -> f32 {
        let depth = node.depth();
        let h = pool_hash(node.0, self.salt);
        let h2 = fmix32(h);
        if self.foci.iter().any(|f| depth < f.depth() && f.0 >> (f.depth() - depth) == node.0) {
            return 2.0 + (h2 >> 12) as f32;
        }
        let r = h & 0xffff;
        if depth < self.random_max_depth && r < self.split_share {
            1.0 + ((h2 >> 8) | 1) as f32
        } else if r < self.split_share + self.keep_share {
            0.9
        } else {
            0.1
        }
    }

    /// The uniform the GPU passes read.
    pub fn to_gpu(&self) -> GpuCriterion {
        assert!(self.foci.len() <= MAX_FOCI, "{} foci, at most {MAX_FOCI}", self.foci.len());
        let mut gpu = GpuCriterion {
            salt: self.salt,
            split_share: self.split_share,
            keep_share: self.keep_share,
            random_max_depth: self.random_max_depth,
            focus_count: self.foci.len() as u32,
            ..Default::default()
        };
        for (slot, focus) in gpu.foci.iter_mut().zip(&self.foci) {
            *slot = [focus.0 as u32, (focus.0 >> 32) as u32, focus.depth(), 0];
        }
        gpu
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foci_refine_their_ancestors_only() {
        let focus = Node64((1 << 50) | 0x2_3456_789a_bcde);
        let criterion = TestCriterion { salt: 7, split_share: 0, keep_share: 0, random_max_depth: 0, foci: vec![focus] };
        for depth in 3..50 {
            assert!(criterion.error_sq_px2(Node64(focus.0 >> (50 - depth))) >= 2.0, "ancestor at depth {depth}");
        }
        assert_eq!(criterion.error_sq_px2(focus), 0.1);
        assert_eq!(criterion.error_sq_px2(Node64((focus.0 >> 10) ^ 1)), 0.1);
        let everything = TestCriterion { split_share: 1 << 16, random_max_depth: 64, ..criterion };
        assert!((0..1000u64).all(|i| everything.error_sq_px2(Node64((1 << 40) + i * 977)) > 1.0));
    }
}
