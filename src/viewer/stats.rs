//! Statistics for the Stats panel, gathered without stalling the frame: the leaf count, deepest
//! leaf and leaf-depth histogram come from "cbt.stats" and the leaf ids ("leb.leaf_ids",
//! "globe.leaf_ids"), and the visible leaves from the decode pass's LOD statistics where given,
//! copied into staging buffers that are mapped asynchronously and read a few frames later; GPU
//! pass times come from wgpu-profiler's finished frames (also a few frames late). The globe drawn
//! from the bisector pool adds its near-edge histogram and pool counters (`PoolReadback`).

use std::collections::{BTreeMap, VecDeque};

use crate::cbt::gpu::{FrameStats, GpuCbt};
use crate::globe::near_edges::{GpuNearEdges, NearEdgeHistogram};
use crate::gpu::readback::ReadbackRing;
use crate::gpu::timings::FrameTimings;
use crate::leb::decode::LodStats;
use crate::pool::gpu::{GpuPoolCounters, COUNTERS_OFFSET};

/// Staging buffers in flight at most; when all are busy a frame simply copies nothing.
const SLOTS: usize = 3;
/// Read statistics every this many frames.
pub const READBACK_INTERVAL_FRAMES: u64 = 4;
// The pool's counters are read on split frames (even ones).
const _: () = assert!(READBACK_INTERVAL_FRAMES.is_multiple_of(2));
/// Leaf ids copied for the histogram at most (16 MiB).
pub const MAX_HISTOGRAM_LEAVES: u32 = 1 << 22;

/// What one read-back found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeafStats {
    /// Frame whose statistics these are.
    pub frame: u64,
    pub stats: FrameStats,
    /// Leaves per depth (index = depth) over the first `sampled` leaves.
    pub depth_histogram: Vec<u32>,
    /// Leaves the histogram counts (all of them unless the tree grew since the copy was sized).
    pub sampled: u32,
    /// Visible leaves and the largest projected size, when the scene's decode pass measures them.
    pub lod: Option<LodStats>,
}

impl LeafStats {
    /// Triangles drawn: one per leaf, at most the leaf-id capacity.
    pub fn triangles(&self) -> u32 {
        self.stats.leaves.min(self.stats.capacity)
    }
}

/// Leaves per depth of a list of LEB node ids (depth = index of the highest set bit).
pub fn depth_histogram(ids: &[u32]) -> Vec<u32> {
    let mut histogram = Vec::new();
    for &id in ids {
        let depth = 31 - id.max(1).leading_zeros() as usize;
        if histogram.len() <= depth {
            histogram.resize(depth + 1, 0);
        }
        histogram[depth] += 1;
    }
    histogram
}

/// What a staging buffer of the statistics ring holds.
struct StatsCopy {
    frame: u64,
    leaves_copied: u32,
    /// Bytes before the leaf ids: `FrameStats`, then `LodStats` when copied.
    header_bytes: u64,
}

/// Asynchronous read-back of the tree statistics.
pub struct StatsReadback {
    ring: ReadbackRing<StatsCopy>,
    pub latest: Option<LeafStats>,
    /// Set when a mapping failed (the device is probably lost).
    pub failed: bool,
}

impl Default for StatsReadback {
    fn default() -> Self {
        StatsReadback { ring: ReadbackRing::new("viewer.stats_readback", SLOTS), latest: None, failed: false }
    }
}

impl StatsReadback {
    /// Records copies of this frame's statistics (`cbt.stats`, the first leaf ids of `leaf_ids`
    /// when given, and the 16-byte `LodStats` in `lod_stats` when given) into a free staging
    /// buffer (every `READBACK_INTERVAL_FRAMES` frames). Returns the slot to map after submitting.
    /// (The bisector pool lists slots, not 32-bit node ids: no depth histogram.)
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        cbt: &GpuCbt,
        leaf_ids: Option<&wgpu::Buffer>,
        lod_stats: Option<&wgpu::Buffer>,
        frame: u64,
    ) -> Option<usize> {
        if !frame.is_multiple_of(READBACK_INTERVAL_FRAMES) {
            return None;
        }
        // Size the leaf copy from the last count we know (with room to grow).
        let wanted = self.latest.as_ref().map_or(1 << 18, |l| l.stats.leaves.saturating_mul(2).saturating_add(4096));
        let leaves = if leaf_ids.is_some() { wanted.min(cbt.leaf_capacity).min(MAX_HISTOGRAM_LEAVES) } else { 0 };
        let header_bytes = if lod_stats.is_some() { 32 } else { 16 };
        let tag = StatsCopy { frame, leaves_copied: leaves, header_bytes };
        self.ring.record(device, encoder, header_bytes + leaves as u64 * 4, tag, |encoder, buffer| {
            encoder.copy_buffer_to_buffer(&cbt.stats, 0, buffer, 0, 16);
            if let Some(lod_stats) = lod_stats {
                encoder.copy_buffer_to_buffer(lod_stats, 0, buffer, 16, 16);
            }
            if let Some(leaf_ids) = leaf_ids {
                encoder.copy_buffer_to_buffer(leaf_ids, 0, buffer, header_bytes, leaves as u64 * 4);
            }
        })
    }

    /// Starts mapping slot `index` (after the encoder that filled it was submitted).
    pub fn map(&mut self, index: usize) {
        self.ring.map(index);
    }

    /// Reads every mapped slot (call after a non-blocking `device.poll`); keeps the newest.
    pub fn collect(&mut self) {
        let read = self.ring.collect(|copy, bytes| {
            let header = copy.header_bytes as usize;
            let stats: FrameStats = bytemuck::pod_read_unaligned(&bytes[..16]);
            let lod = (header == 32).then(|| bytemuck::pod_read_unaligned::<LodStats>(&bytes[16..32]));
            let valid = stats.leaves.min(stats.capacity).min(copy.leaves_copied) as usize;
            let ids: &[u32] = bytemuck::cast_slice(&bytes[header..header + valid * 4]);
            LeafStats { frame: copy.frame, stats, depth_histogram: depth_histogram(ids), sampled: valid as u32, lod }
        });
        for stats in read {
            if self.latest.as_ref().is_none_or(|l| l.frame < stats.frame) {
                self.latest = Some(stats);
            }
        }
        self.failed |= self.ring.failed();
    }
}

/// What one read-back of the bisector pool's statistics found (`view --pool-slots`).
#[derive(Clone, Debug, PartialEq)]
pub struct PoolStats {
    /// Frame whose statistics these are (a split frame: `READBACK_INTERVAL_FRAMES` is even).
    pub frame: u64,
    /// The decode's near-edge histogram (globe::near_edges).
    pub near_edges: NearEdgeHistogram,
    /// The pool's counters of that split frame: leaves capped by depth and by the pool.
    pub counters: GpuPoolCounters,
}

/// Asynchronous read-back of the bisector pool's statistics, as `StatsReadback`.
pub struct PoolReadback {
    ring: ReadbackRing<u64>,
    pub latest: Option<PoolStats>,
    /// Set when a mapping failed (the device is probably lost).
    pub failed: bool,
}

impl Default for PoolReadback {
    fn default() -> Self {
        PoolReadback { ring: ReadbackRing::new("viewer.pool_readback", SLOTS), latest: None, failed: false }
    }
}

impl PoolReadback {
    /// Records copies of this frame's near edges (`GpuNearEdges` in `near_edges`) and pool
    /// counters (in `pool_control`) into a free staging buffer (every `READBACK_INTERVAL_FRAMES`
    /// frames). Returns the slot to map after submitting.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        near_edges: &wgpu::Buffer,
        pool_control: &wgpu::Buffer,
        frame: u64,
    ) -> Option<usize> {
        if !frame.is_multiple_of(READBACK_INTERVAL_FRAMES) {
            return None;
        }
        let histogram_bytes = std::mem::size_of::<GpuNearEdges>() as u64;
        let counter_bytes = std::mem::size_of::<GpuPoolCounters>() as u64;
        self.ring.record(device, encoder, histogram_bytes + counter_bytes, frame, |encoder, buffer| {
            encoder.copy_buffer_to_buffer(near_edges, 0, buffer, 0, histogram_bytes);
            encoder.copy_buffer_to_buffer(pool_control, COUNTERS_OFFSET, buffer, histogram_bytes, counter_bytes);
        })
    }

    /// Starts mapping slot `index` (after the encoder that filled it was submitted).
    pub fn map(&mut self, index: usize) {
        self.ring.map(index);
    }

    /// Reads every mapped slot (after a non-blocking `device.poll`); keeps the newest.
    pub fn collect(&mut self) {
        let read = self.ring.collect(|&frame, bytes| {
            let histogram_bytes = std::mem::size_of::<GpuNearEdges>();
            let counters = bytemuck::pod_read_unaligned(&bytes[histogram_bytes..histogram_bytes + std::mem::size_of::<GpuPoolCounters>()]);
            PoolStats { frame, near_edges: NearEdgeHistogram::from_bytes(bytes), counters }
        });
        for stats in read {
            if self.latest.as_ref().is_none_or(|l| l.frame < stats.frame) {
                self.latest = Some(stats);
            }
        }
        self.failed |= self.ring.failed();
    }
}

/// Median and 95th percentile of `values` (nearest rank), or None when empty.
pub fn median_p95(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let mut sorted: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let rank = |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
    Some((rank(0.5), rank(0.95)))
}

/// Rolling history of GPU pass times and CPU frame times.
#[derive(Debug)]
pub struct TimingHistory {
    pub capacity: usize,
    /// Per pass label: (frame number, GPU ms), oldest first.
    pub passes: BTreeMap<String, VecDeque<(u64, f64)>>,
    /// Whole-frame GPU time.
    pub frame_gpu: VecDeque<(u64, f64)>,
    /// CPU time from one frame to the next, in ms.
    pub frame_cpu: VecDeque<(u64, f64)>,
    gpu_frames: u64,
}

impl TimingHistory {
    pub fn new(capacity: usize) -> TimingHistory {
        TimingHistory {
            capacity: capacity.max(2),
            passes: BTreeMap::new(),
            frame_gpu: VecDeque::new(),
            frame_cpu: VecDeque::new(),
            gpu_frames: 0,
        }
    }

    fn push(queue: &mut VecDeque<(u64, f64)>, capacity: usize, value: (u64, f64)) {
        queue.push_back(value);
        while queue.len() > capacity {
            queue.pop_front();
        }
    }

    /// Adds one finished GPU frame (passes of the same label in one frame are summed).
    pub fn add_gpu(&mut self, timings: &FrameTimings) {
        let n = self.gpu_frames;
        self.gpu_frames += 1;
        let mut summed: BTreeMap<&str, f64> = BTreeMap::new();
        for pass in &timings.passes {
            *summed.entry(pass.label.as_str()).or_default() += pass.gpu_ms;
        }
        for (label, ms) in summed {
            Self::push(self.passes.entry(label.to_string()).or_default(), self.capacity, (n, ms));
        }
        Self::push(&mut self.frame_gpu, self.capacity, (n, timings.frame_gpu_ms));
        // Drop passes not seen for a whole window (e.g. leb.split while frozen).
        self.passes.retain(|_, q| q.back().is_some_and(|&(f, _)| f + self.capacity as u64 > n));
    }

    /// Adds one CPU frame time.
    pub fn add_cpu(&mut self, frame: u64, ms: f64) {
        Self::push(&mut self.frame_cpu, self.capacity, (frame, ms));
    }

    /// Rows for the table: label, median, p95 in ms.
    pub fn table(&self) -> Vec<(String, f64, f64)> {
        let mut rows: Vec<(String, f64, f64)> =
            self.passes.iter().filter_map(|(label, q)| median_p95(q.iter().map(|v| v.1)).map(|(m, p)| (label.clone(), m, p))).collect();
        if let Some((m, p)) = median_p95(self.frame_gpu.iter().map(|v| v.1)) {
            rows.push(("GPU frame".into(), m, p));
        }
        if let Some((m, p)) = median_p95(self.frame_cpu.iter().map(|v| v.1)) {
            rows.push(("CPU frame".into(), m, p));
        }
        rows
    }

    /// Forgets everything (after the renderer is rebuilt).
    pub fn clear(&mut self) {
        *self = TimingHistory::new(self.capacity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::timings::PassTiming;

    #[test]
    fn histogram_counts_depths_from_node_ids() {
        // Base triangles 2 and 3 are depth 1; 4..7 depth 2; 1 << 20 is depth 20.
        assert_eq!(depth_histogram(&[2, 3]), vec![0, 2]);
        let h = depth_histogram(&[4, 5, 3, 1 << 20]);
        assert_eq!(h.len(), 21);
        assert_eq!((h[1], h[2], h[20]), (1, 2, 1));
        assert_eq!(h.iter().sum::<u32>(), 4);
    }

    #[test]
    fn median_and_p95_use_nearest_rank() {
        assert_eq!(median_p95(Vec::<f64>::new()), None);
        assert_eq!(median_p95([3.0]), Some((3.0, 3.0)));
        let values: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(median_p95(values), Some((50.0, 95.0)));
    }

    #[test]
    fn history_rolls_and_summarises() {
        let mut history = TimingHistory::new(10);
        for i in 0..25 {
            let mut passes = vec![
                PassTiming { label: "render.draw".into(), gpu_ms: i as f64 },
                PassTiming { label: "cbt.reduce".into(), gpu_ms: 0.5 },
                PassTiming { label: "cbt.reduce".into(), gpu_ms: 0.25 },
            ];
            if i < 3 {
                passes.push(PassTiming { label: "leb.split".into(), gpu_ms: 1.0 });
            }
            history.add_gpu(&FrameTimings { passes, frame_gpu_ms: 2.0 });
            history.add_cpu(i, 16.0);
        }
        assert_eq!(history.passes["render.draw"].len(), 10);
        assert!(!history.passes.contains_key("leb.split"), "stale passes are dropped");
        let table = history.table();
        let row = |name: &str| table.iter().find(|r| r.0 == name).cloned().unwrap();
        assert_eq!(row("render.draw"), ("render.draw".into(), 19.0, 24.0));
        assert_eq!(row("cbt.reduce").1, 0.75);
        assert_eq!(row("CPU frame").1, 16.0);
        assert_eq!(row("GPU frame").2, 2.0);
    }
}
