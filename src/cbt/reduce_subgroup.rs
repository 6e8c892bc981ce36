//! cbt.reduce's subgroup path (shaders/cbt_reduce_subgroup.wgsl): the same heap as the fallback
//! (shaders/cbt_reduce.wgsl) in fewer dispatches, its first levels summed with subgroup shuffles.
//! Used where the device has Features::SUBGROUP with subgroups of 4..=128 lanes and D >= 13
//! (`ReducePath::choose`); `CbtReduce` records either path.

use crate::cbt::reduce::word_log2;

/// Parameters of one dispatch of the subgroup path. Keep in sync with SubgroupReduceParams in
/// shaders/cbt_reduce_subgroup.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SubgroupReduceParams {
    /// Depth of the stage's inputs (D - 5 for the bitfield stage).
    pub in_depth: u32,
    /// log2 of the inputs each thread reads (0..=2).
    pub items_log2: u32,
    /// 1: the inputs are bitfield words.
    pub bitfield: u32,
    /// 1: the bitfield stage visits the changed blocks alone (an indirect dispatch).
    pub changed_only: u32,
    /// 1: the last workgroup to finish carries on with the tail stage.
    pub tail: u32,
    /// Input depth of the tail stage.
    pub tail_in_depth: u32,
    /// Inputs per thread of the tail stage (log2).
    pub tail_items_log2: u32,
    pub _pad: u32,
}
const _: () = assert!(std::mem::size_of::<SubgroupReduceParams>() == 32);

/// Shallowest tree the subgroup path reduces: every bitfield workgroup is full (256 words) and
/// depths D-2 and D-3 start on word boundaries. Smaller trees take the fallback (one dispatch).
pub const MIN_DEPTH: u32 = 13;
/// Subgroup sizes the shader is written for (powers of two; the active lanes of a subgroup, which
/// the shader counts itself, must be a power of two in this range too).
pub const SUBGROUP_SIZES: std::ops::RangeInclusive<u32> = 4..=128;
/// Workgroup memory of the subgroup path, in bytes (values, 16 areas of 20 bytes, 5 words;
/// tests/shaders.rs checks it against the shader).
pub const WORKGROUP_STORAGE_BYTES: u64 = 3072 * 4 + 16 * 20 + 5 * 4;

/// One stage: a workgroup reduces min(2^in_depth, 256 << items_log2) inputs to their sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    pub in_depth: u32,
    pub items_log2: u32,
}

impl Stage {
    /// log2 of the inputs one workgroup reduces: the levels it writes above them.
    pub fn levels(&self) -> u32 {
        self.in_depth.min(8 + self.items_log2)
    }

    /// Workgroups of the stage.
    pub fn groups(&self) -> u32 {
        1 << (self.in_depth - self.levels())
    }
}

/// The stages of a tree of max depth `max_depth` (>= MIN_DEPTH): the bitfield stage with the
/// fallback's words per thread (so that a workgroup reads one block of cbt::changed), then count
/// stages of up to 4 counts per thread until the root.
pub fn stages(max_depth: u32) -> Vec<Stage> {
    assert!(max_depth >= MIN_DEPTH, "the subgroup reduction needs D >= {MIN_DEPTH}");
    let first = Stage { in_depth: max_depth - 5, items_log2: word_log2(max_depth) };
    let mut stages = vec![first];
    let mut depth = first.in_depth - first.levels();
    while depth > 0 {
        let stage = Stage { in_depth: depth, items_log2: depth.saturating_sub(8).min(2) };
        depth -= stage.levels();
        stages.push(stage);
    }
    stages
}

/// The dispatches: one per stage, the last stage (always one workgroup) chained to the one before.
/// 1 dispatch up to D = 25, 2 up to 29.
pub fn plan(max_depth: u32) -> Vec<(SubgroupReduceParams, u32)> {
    let stages = stages(max_depth);
    let tail = (stages.len() > 1).then(|| *stages.last().expect("a stage"));
    let dispatched = &stages[..stages.len() - usize::from(tail.is_some())];
    dispatched
        .iter()
        .enumerate()
        .map(|(index, stage)| {
            let chained = tail.filter(|_| index + 1 == dispatched.len());
            let params = SubgroupReduceParams {
                in_depth: stage.in_depth,
                items_log2: stage.items_log2,
                bitfield: u32::from(index == 0),
                changed_only: 0,
                tail: u32::from(chained.is_some()),
                tail_in_depth: chained.map_or(0, |t| t.in_depth),
                tail_items_log2: chained.map_or(0, |t| t.items_log2),
                _pad: 0,
            };
            (params, stage.groups())
        })
        .collect()
}

/// Whether `device` runs the subgroup path: Features::SUBGROUP, and subgroup sizes the shader
/// is written for (the adapter's min and max, powers of two in 4..=128).
pub fn device_supports(device: &wgpu::Device) -> bool {
    let info = device.adapter_info();
    let size_ok = |size: u32| size.is_power_of_two() && SUBGROUP_SIZES.contains(&size);
    device.features().contains(wgpu::Features::SUBGROUP) && size_ok(info.subgroup_min_size) && size_ok(info.subgroup_max_size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbt::changed::{block_bits_log2, block_count};

    #[test]
    fn stages_cover_every_level_once() {
        for d in MIN_DEPTH..=29 {
            let stages = stages(d);
            // D-1..D-5 from the bitfield words, then each stage's levels.
            assert_eq!(stages.iter().map(Stage::levels).sum::<u32>() + 5, d, "D={d}: {stages:?}");
            for pair in stages.windows(2) {
                assert_eq!(pair[1].in_depth, pair[0].in_depth - pair[0].levels(), "D={d}");
            }
            assert_eq!(stages.last().unwrap().groups(), 1, "D={d}: the last stage is one workgroup");
            // The bitfield stage's workgroup reads one block of cbt::changed.
            assert_eq!(stages[0].groups(), block_count(d), "D={d}");
            assert_eq!(13 + stages[0].items_log2, block_bits_log2(d), "D={d}");
            assert!(stages.iter().all(|s| s.items_log2 <= 2 && s.levels() <= 10), "D={d}: at most 1024 inputs a workgroup");
        }
    }

    #[test]
    fn one_dispatch_up_to_depth_25() {
        for d in MIN_DEPTH..=29 {
            let plan = plan(d);
            assert_eq!(plan.len(), if d <= 25 { 1 } else { 2 }, "D={d}: {plan:?}");
            assert_eq!(plan[0].0.bitfield, 1);
            assert_eq!(plan.iter().filter(|(p, _)| p.tail == 1).count(), usize::from(d > 13 + word_log2(d)), "D={d}");
            assert_eq!(plan.last().unwrap().0.tail, u32::from(d > 13 + word_log2(d)), "D={d}: only the last dispatch chains");
        }
        assert_eq!(
            plan(25)[0].0,
            SubgroupReduceParams {
                in_depth: 20,
                items_log2: 2,
                bitfield: 1,
                changed_only: 0,
                tail: 1,
                tail_in_depth: 10,
                tail_items_log2: 2,
                _pad: 0
            }
        );
    }
}
