//! Benchmark reports: per-pass GPU time statistics, a text summary, JSON and a PNG chart.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::collections::HashMap;

use crate::gpu::timings::percentile;

mod chart;
mod table;

/// Errors from writing report files.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The font bytes could not be parsed.
    #[error(
        "benchmark plot {file}: the font is not a valid TrueType/OpenType file; pass the bytes of one such as assets/fonts/DejaVuSans.ttf"
    )]
    Font {
        /// PNG file that was being written.
        file: String,
    },
    /// plotters failed while drawing the chart.
    #[error(
        "benchmark plot {file}: drawing the chart failed ({message}); this is a bug in the report code, please report it with the benchmark JSON"
    )]
    Draw {
        /// PNG file that was being written.
        file: String,
        /// plotters' description of the failure.
        message: String,
    },
    /// The PNG could not be encoded or written.
    #[error("benchmark plot {file}: cannot write the PNG ({source}); check that the directory exists and is writable")]
    Write {
        /// PNG file that was being written.
        file: String,
        /// Underlying image/I/O error.
        source: image::ImageError,
    },
}

/// Measurements of one benchmark frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameRecord {
    /// Frame index.
    pub frame: u32,
    /// Camera path time of the frame in seconds.
    pub time_s: f64,
    /// Number of leaf triangles in the subdivision.
    pub leaves: u32,
    /// Number of triangles drawn.
    pub triangles: u64,
    /// Leaves whose bounding box is inside the view frustum.
    pub visible_leaves: u32,
    /// Estimated largest screen-space error of a visible leaf in pixels: its error bound from the
    /// data (or its longest edge, under the edge-length criterion) projected at its bounding box.
    pub max_error_px: f64,
    /// Deepest subdivision level this frame.
    pub max_depth: u32,
    /// Visible leaves that wanted to split and could not: at the max depth (the flat terrain and
    /// the heap), or, over the bisector pool, refused by depth or by the pool in the last split
    /// frame (`PoolFrameRecord` has the two parts and the leaves still waiting for a split frame).
    pub capped_leaves: u32,
    /// Cache hits this frame.
    pub cache_hits: u64,
    /// Cache misses this frame.
    pub cache_misses: u64,
    /// GPU time in milliseconds of each pass this frame, by pass label (e.g. "leb.split").
    #[serde(rename = "gpu_ms", serialize_with = "serialize_pass_times")]
    pub pass_gpu_ms: Vec<(String, f64)>,
    /// GPU time of the whole frame in milliseconds.
    pub frame_gpu_ms: f64,
    /// On the globe: where the camera was and what the tile cache did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub globe: Option<GlobeFrameRecord>,
    /// On the globe drawn from the bisector pool: its figures (written beside `leaves` and
    /// `capped_leaves`, under the names `shot --json` uses).
    #[serde(flatten)]
    pub pool: Option<PoolFrameRecord>,
}

/// What a frame of the globe drawn from the bisector pool adds (`bench --pool-slots`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolFrameRecord {
    /// Depth of the deepest leaf in levels below the octahedron's base.
    pub max_depth_reached: u32,
    /// Slots of the pool, and those in use (the leaves).
    pub pool_slots: u32,
    pub pool_used: u32,
    /// Leaves the last split frame refused: at the max depth, and for want of free slots.
    pub capped_by_depth: u32,
    pub capped_by_pool: u32,
    /// Visible leaves that want a split (globe.pool_decode's count, after the last merge frame
    /// under the error criterion: a split frame's decode samples no error bound): those capped,
    /// and those the next split frame will split (the camera moved, or a leaf refines one level
    /// per split frame). Not a shortage: a measure of how far the pool lags the view.
    pub pending_split_leaves: u32,
    /// Edges of the drawn leaves over land within 3 km of the camera, from the GPU's histogram
    /// (globe::near_edges: the median to half a 1/16-octave bin), on every 8th frame
    /// (bench::run::BENCH_NEAR_EDGE_INTERVAL_FRAMES); absent on the others and when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_edge_m: Option<crate::globe::figures::EdgeStats>,
}

/// What a globe benchmark frame adds: the camera and the tile cache.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobeFrameRecord {
    /// Camera longitude in degrees.
    pub lon_deg: f64,
    /// Camera latitude in degrees.
    pub lat_deg: f64,
    /// Camera height above the sphere in metres.
    pub altitude_m: f64,
    /// CPU wall time of the frame's cache work (read-backs, residency, uploads), recording and
    /// submission, in milliseconds: where a read-back or an upload would stall the frame.
    pub cpu_submit_ms: f64,
    /// The tile cache after the frame's uploads; hits and misses are those of the latest
    /// read-back (`cache.readback_frame`), which may be a frame or two old.
    pub cache: crate::globe::cache::tile_cache::TileCacheStats,
}

/// The rasteriser of the flat terrain or the globe over the bisector pool over a benchmark run (`--raster`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RasterSummary {
    /// The path asked for: hardware, compute or auto.
    pub requested: String,
    /// The path that drew: hardware or compute.
    pub used: String,
    /// Triangles wider or taller than this many pixels went to raster.bin and raster.wide (or,
    /// overflowing their lists, raster.large).
    pub large_px: u32,
    /// With the compute path: on-screen triangles by the longest side of their screen bounding
    /// box, summed over the measured frames (what decides `large_px`).
    pub size_histogram: Vec<SizeBin>,
}

/// One bin of the triangle-size histogram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeBin {
    /// From this many pixels (inclusive) ...
    pub from_px: u32,
    /// ... to this many (exclusive; None for the last bin).
    pub to_px: Option<u32>,
    /// Triangles per frame in the bin, averaged over the measured frames.
    pub triangles_per_frame: f64,
}

/// A globe benchmark's tile cache over the whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheSummary {
    /// Tiles uploaded (or generated) into the atlas.
    pub tiles_streamed: u64,
    /// Bytes of the tiles uploaded into the atlas.
    pub bytes_streamed: u64,
    /// Tiles evicted.
    pub evictions: u64,
    /// Over every read-back: resident tiles sampled / (resident tiles sampled + distinct keys
    /// missed). Distinct tiles per frame, not texel fetches.
    pub hit_rate: f64,
    /// Frames whose tile feedback was read back.
    pub readback_frames: u32,
    /// Read-back frames whose feedback set overflowed.
    pub overflow_frames: u32,
    /// The longest load queue.
    pub max_load_queue: u32,
    /// The most tiles in flight in a frame (requested and not yet resident).
    pub max_in_flight: u32,
    /// Loads that failed, at the end.
    pub failed_loads: u32,
    /// Resident tiles at the end.
    pub resident_tiles: u32,
    /// Tiles the atlas can hold.
    pub capacity_tiles: u32,
    /// Median CPU submit time per frame in milliseconds.
    pub cpu_submit_median_ms: f64,
    /// Longest CPU submit time of a frame in milliseconds.
    pub cpu_submit_max_ms: f64,
}

impl CacheSummary {
    /// The summary of the globe frames among `frames` (None: no globe frames).
    pub fn from_frames(frames: &[FrameRecord]) -> Option<CacheSummary> {
        let globe: Vec<&GlobeFrameRecord> = frames.iter().filter_map(|f| f.globe.as_ref()).collect();
        let last = globe.last()?;
        let mut readbacks = globe.clone();
        readbacks.dedup_by_key(|g| g.cache.readback_frame);
        readbacks.retain(|g| g.cache.readback_frame > 0);
        let hits: u64 = readbacks.iter().map(|g| u64::from(g.cache.hits)).sum();
        let misses: u64 = readbacks.iter().map(|g| u64::from(g.cache.misses)).sum();
        let mut cpu_ms: Vec<f64> = globe.iter().map(|g| g.cpu_submit_ms).collect();
        cpu_ms.sort_by(f64::total_cmp);
        Some(CacheSummary {
            tiles_streamed: globe.iter().map(|g| u64::from(g.cache.uploaded_tiles)).sum(),
            bytes_streamed: globe.iter().map(|g| g.cache.uploaded_bytes).sum(),
            evictions: globe.iter().map(|g| u64::from(g.cache.evictions)).sum(),
            hit_rate: if hits + misses == 0 { 1.0 } else { hits as f64 / (hits + misses) as f64 },
            readback_frames: readbacks.len() as u32,
            overflow_frames: readbacks.iter().filter(|g| g.cache.feedback_overflow).count() as u32,
            max_load_queue: globe.iter().map(|g| g.cache.load_queue).max().unwrap_or(0),
            max_in_flight: globe.iter().map(|g| g.cache.in_flight).max().unwrap_or(0),
            failed_loads: last.cache.failed_loads,
            resident_tiles: last.cache.resident_tiles,
            capacity_tiles: last.cache.capacity_tiles,
            cpu_submit_median_ms: percentile(&cpu_ms, 50.0),
            cpu_submit_max_ms: cpu_ms[cpu_ms.len() - 1],
        })
    }
}

/// Description of a benchmark run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchMeta {
    /// Terrain name or file.
    pub terrain: String,
    /// Camera path file.
    pub path: String,
    /// Render target width in pixels.
    pub width_px: u32,
    /// Render target height in pixels.
    pub height_px: u32,
    /// Number of frames rendered.
    pub frames: u32,
    /// GPU adapter name.
    pub adapter: String,
    /// Graphics backend (e.g. "Vulkan").
    pub backend: String,
    /// Maximum subdivision depth allowed.
    pub max_depth: u32,
    /// The split criterion: "screen-space-error" or "edge-length".
    pub criterion: String,
    /// Split threshold in pixels of the criterion (screen-space error, or projected edge length).
    pub pixel_error_px: f64,
    /// Date of the run.
    pub date: String,
    /// Peak resident memory of the process in bytes at the end of the run, loading included
    /// (on a CPU adapter it holds the GPU's buffers too); None where the platform does not say.
    pub peak_rss_bytes: Option<u64>,
    /// Whether every pass was timed (false: `--pass-timing off`, only the frame's bounds, so the
    /// frames' pass lists hold frame.start and frame.end alone).
    pub pass_timing: bool,
}

/// Statistics of one GPU timing series in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassStats {
    /// Pass label, or "frame" for the whole-frame time.
    pub name: String,
    /// Median (50th percentile) in milliseconds.
    pub median_ms: f64,
    /// 95th percentile in milliseconds.
    pub p95_ms: f64,
    /// 99th percentile in milliseconds.
    pub p99_ms: f64,
    /// Maximum in milliseconds.
    pub max_ms: f64,
    /// Arithmetic mean in milliseconds.
    pub mean_ms: f64,
}

/// A complete benchmark report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    /// Description of the run.
    pub meta: BenchMeta,
    /// Per-pass statistics, in the order the passes first appear.
    pub passes: Vec<PassStats>,
    /// Whole-frame GPU time statistics.
    pub frame: PassStats,
    /// Frames whose GPU time is more than twice the median frame's.
    pub long_frames: Vec<u32>,
    /// Spikes: frames whose GPU time is more than twice the median of the SPIKE_WINDOW frames
    /// around them (a path that descends from orbit gets slower as it goes, so a global median
    /// flags the whole low end; this flags hitches).
    pub spike_frames: Vec<u32>,
    /// On the globe: the tile cache over the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheSummary>,
    /// Terrain from HTTP tile sources: what they fetched, read from the disk cache and gave up
    /// on over the run (absent when no tile came over HTTP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<crate::terrain::http_source::HttpStats>,
    /// Terrain from large GeoTIFFs read tile by tile: the decoded-tile cache's budget and peak,
    /// tiles decoded and bytes read (absent when no such file was read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cog: Option<crate::terrain::cog::CogStats>,
    /// The flat terrain and the globe over the bisector pool: the rasteriser and the triangle-size histogram.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raster: Option<RasterSummary>,
    /// Per-frame measurements.
    pub frames: Vec<FrameRecord>,
}

/// Statistics of `samples_ms`, ignoring non-finite values; all zero when nothing is left.
fn stats(name: &str, samples_ms: &[f64]) -> PassStats {
    let mut sorted: Vec<f64> = samples_ms.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return PassStats { name: name.to_string(), median_ms: 0.0, p95_ms: 0.0, p99_ms: 0.0, max_ms: 0.0, mean_ms: 0.0 };
    }
    sorted.sort_by(f64::total_cmp);
    PassStats {
        name: name.to_string(),
        median_ms: percentile(&sorted, 50.0),
        p95_ms: percentile(&sorted, 95.0),
        p99_ms: percentile(&sorted, 99.0),
        max_ms: sorted[sorted.len() - 1],
        mean_ms: sorted.iter().sum::<f64>() / sorted.len() as f64,
    }
}

/// Pass times with duplicate labels summed, in first-seen order.
fn merge_duplicate_passes(pass_gpu_ms: Vec<(String, f64)>) -> Vec<(String, f64)> {
    let mut merged: Vec<(String, f64)> = Vec::with_capacity(pass_gpu_ms.len());
    for (name, ms) in pass_gpu_ms {
        match merged.iter_mut().find(|(existing, _)| *existing == name) {
            Some((_, total)) => *total += ms,
            None => merged.push((name, ms)),
        }
    }
    merged
}

/// Frames on each side of a frame whose median a spike is measured against.
const SPIKE_WINDOW: usize = 15;

/// The frames whose GPU time exceeds twice the median of the frames within SPIKE_WINDOW of them.
fn spike_frames(frames: &[FrameRecord]) -> Vec<u32> {
    (0..frames.len())
        .filter(|&i| {
            let window = &frames[i.saturating_sub(SPIKE_WINDOW)..(i + SPIKE_WINDOW + 1).min(frames.len())];
            let mut times: Vec<f64> = window.iter().map(|f| f.frame_gpu_ms).filter(|t| t.is_finite()).collect();
            times.sort_by(f64::total_cmp);
            !times.is_empty() && frames[i].frame_gpu_ms > 2.0 * percentile(&times, 50.0)
        })
        .map(|i| frames[i].frame)
        .collect()
}

/// Serialises pass times as a JSON object in their recorded order.
fn serialize_pass_times<S: Serializer>(pass_gpu_ms: &[(String, f64)], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(pass_gpu_ms.len()))?;
    for (name, ms) in pass_gpu_ms {
        map.serialize_entry(name, ms)?;
    }
    map.end()
}

impl BenchReport {
    /// Builds a report from per-frame records.
    ///
    /// Passes are listed in the order they first appear. A pass missing from a frame is not
    /// counted for that frame; a label repeated within one frame is summed (and stored
    /// summed in `frames`). Non-finite times are left out of the statistics. Statistics
    /// of a series with no samples are all zero.
    pub fn from_frames(meta: BenchMeta, frames: Vec<FrameRecord>) -> BenchReport {
        let frames: Vec<FrameRecord> =
            frames.into_iter().map(|frame| FrameRecord { pass_gpu_ms: merge_duplicate_passes(frame.pass_gpu_ms), ..frame }).collect();

        let mut names: Vec<&str> = Vec::new();
        let mut samples_ms: Vec<Vec<f64>> = Vec::new();
        let mut index_of: HashMap<&str, usize> = HashMap::new();
        for frame in &frames {
            for (name, ms) in &frame.pass_gpu_ms {
                let index = *index_of.entry(name.as_str()).or_insert_with(|| {
                    names.push(name.as_str());
                    samples_ms.push(Vec::new());
                    names.len() - 1
                });
                samples_ms[index].push(*ms);
            }
        }
        let passes = names.iter().zip(&samples_ms).map(|(name, samples)| stats(name, samples)).collect();
        let frame_samples_ms: Vec<f64> = frames.iter().map(|f| f.frame_gpu_ms).collect();
        let frame = stats("frame", &frame_samples_ms);
        let long_frames = frames.iter().filter(|f| f.frame_gpu_ms > 2.0 * frame.median_ms).map(|f| f.frame).collect();
        let spike_frames = spike_frames(&frames);
        let cache = CacheSummary::from_frames(&frames);

        let http = Some(crate::terrain::http_source::stats()).filter(|s| s.requests + s.disk_hits + s.offline_misses > 0);
        let cog = Some(crate::terrain::cog::stats()).filter(|s| s.tiles_decoded > 0);
        BenchReport { meta, passes, frame, long_frames, spike_frames, cache, http, cog, raster: None, frames }
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|err| serde_json::json!({ "error": err.to_string() }).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_rng::XorShift;

    /// Metadata of a test report.
    pub(super) fn meta() -> BenchMeta {
        BenchMeta {
            terrain: "puget_sound_4k".to_string(),
            path: "paths/flyover.json".to_string(),
            width_px: 1920,
            height_px: 1080,
            frames: 0,
            adapter: "Test Adapter".to_string(),
            backend: "Vulkan".to_string(),
            max_depth: 32,
            criterion: "screen-space-error".to_string(),
            pixel_error_px: 1.5,
            date: "2026-05-09".to_string(),
            peak_rss_bytes: Some(734 << 20),
            pass_timing: true,
        }
    }

    pub(super) const PASS_NAMES: [&str; 4] = ["leb.split", "leb.merge", "cbt.reduce", "render.draw"];

    /// Random frames; some passes are missing from some frames.
    pub(super) fn random_frames(rng: &mut XorShift, count: u32) -> Vec<FrameRecord> {
        (0..count)
            .map(|frame| {
                let mut pass_gpu_ms: Vec<(String, f64)> = Vec::new();
                for (index, name) in PASS_NAMES.iter().enumerate() {
                    if index != 1 || rng.unit() < 0.6 {
                        pass_gpu_ms.push((name.to_string(), (index as f64 + 1.0) * rng.unit()));
                    }
                }
                let frame_gpu_ms = pass_gpu_ms.iter().map(|(_, ms)| ms).sum::<f64>() + 0.1;
                FrameRecord {
                    frame,
                    time_s: f64::from(frame) / 60.0,
                    leaves: 10_000 + (rng.next_u64() % 5_000) as u32,
                    triangles: 20_000 + rng.next_u64() % 10_000,
                    visible_leaves: 5_000 + (rng.next_u64() % 5_000) as u32,
                    max_error_px: rng.unit() * 2.0,
                    max_depth: 20 + (rng.next_u64() % 8) as u32,
                    capped_leaves: 0,
                    cache_hits: rng.next_u64() % 1000,
                    cache_misses: rng.next_u64() % 100,
                    pass_gpu_ms,
                    frame_gpu_ms,
                    globe: None,
                    pool: None,
                }
            })
            .collect()
    }

    #[test]
    fn a_steady_ramp_has_long_frames_but_no_spikes() {
        let mut rng = XorShift::fresh("spikes");
        let mut frames = random_frames(&mut rng, 200);
        for (i, f) in frames.iter_mut().enumerate() {
            // A descent: GPU time grows fiftyfold along the path, with 5% noise.
            f.frame_gpu_ms = (50f64.ln() * i as f64 / 199.0).exp() * rng.range(0.95, 1.05);
        }
        let report = BenchReport::from_frames(meta(), frames.clone());
        assert!(!report.long_frames.is_empty());
        assert!(report.spike_frames.is_empty(), "{:?}", report.spike_frames);
        let spike = (rng.next_u64() % 200) as usize;
        frames[spike].frame_gpu_ms *= 2.5;
        assert_eq!(BenchReport::from_frames(meta(), frames).spike_frames, vec![spike as u32]);
    }

    #[test]
    fn cache_summary_counts_each_readback_once_and_long_frames_are_flagged() {
        use crate::globe::cache::tile_cache::TileCacheStats;
        let mut rng = XorShift::fresh("cache_summary");
        let mut frames = random_frames(&mut rng, 40);
        let (mut hits, mut misses, mut uploaded) = (0u64, 0u64, 0u64);
        let mut previous = TileCacheStats::default();
        for (i, frame) in frames.iter_mut().enumerate() {
            let mut cache = TileCacheStats { uploaded_tiles: (rng.next_u64() % 8) as u32, capacity_tiles: 64, ..Default::default() };
            if i % 3 == 2 {
                // No new read-back this frame: the cache repeats the previous one's counts.
                (cache.readback_frame, cache.hits, cache.misses) = (previous.readback_frame, previous.hits, previous.misses);
            } else {
                (cache.readback_frame, cache.hits, cache.misses) =
                    (previous.readback_frame + 1, (rng.next_u64() % 50) as u32, (rng.next_u64() % 20) as u32);
                hits += u64::from(cache.hits);
                misses += u64::from(cache.misses);
            }
            uploaded += u64::from(cache.uploaded_tiles);
            previous = cache.clone();
            frame.globe = Some(GlobeFrameRecord { lon_deg: 0.0, lat_deg: 0.0, altitude_m: 1.0, cpu_submit_ms: i as f64, cache });
        }
        frames[7].frame_gpu_ms = 1e3;
        let report = BenchReport::from_frames(meta(), frames);
        let c = report.cache.as_ref().expect("globe frames give a cache summary");
        assert_eq!(u64::from(c.readback_frames), previous.readback_frame);
        assert_eq!(c.tiles_streamed, uploaded);
        assert!((c.hit_rate - hits as f64 / (hits + misses) as f64).abs() < 1e-12);
        assert_eq!(c.cpu_submit_max_ms, 39.0);
        assert!(report.long_frames.contains(&7) && report.spike_frames.contains(&7));
        assert!(report.long_frames.iter().all(|&f| report.frames[f as usize].frame_gpu_ms > 2.0 * report.frame.median_ms));
        assert!(BenchReport::from_frames(meta(), random_frames(&mut rng, 5)).cache.is_none());
    }

    #[test]
    fn stats_match_a_direct_recomputation() {
        let mut rng = XorShift::fresh("report");
        for count in [1, 2, 3, 10, 101, 500] {
            let frames = random_frames(&mut rng, count);
            let report = BenchReport::from_frames(meta(), frames.clone());
            assert_eq!(report.frames, frames);

            let mut expected_names: Vec<&str> = Vec::new();
            for frame in &frames {
                for (name, _) in &frame.pass_gpu_ms {
                    if !expected_names.contains(&name.as_str()) {
                        expected_names.push(name);
                    }
                }
            }
            let names: Vec<&str> = report.passes.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, expected_names);

            let mut series: Vec<(&PassStats, Vec<f64>)> = report
                .passes
                .iter()
                .map(|pass| {
                    let values = frames
                        .iter()
                        .flat_map(|f| f.pass_gpu_ms.iter())
                        .filter(|(name, _)| *name == pass.name)
                        .map(|(_, ms)| *ms)
                        .collect();
                    (pass, values)
                })
                .collect();
            series.push((&report.frame, frames.iter().map(|f| f.frame_gpu_ms).collect()));

            for (stats, mut values) in series {
                values.sort_by(|a, b| a.partial_cmp(b).unwrap());
                let n = values.len();
                let median = if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 };
                let rank = 0.95 * (n - 1) as f64;
                let low = rank.floor() as usize;
                let high = rank.ceil() as usize;
                let p95 = values[low] + (values[high] - values[low]) * (rank - low as f64);
                let max = values.iter().cloned().fold(f64::MIN, f64::max);
                let mean = values.iter().sum::<f64>() / n as f64;
                assert!((stats.median_ms - median).abs() < 1e-12, "{stats:?}");
                assert!((stats.p95_ms - p95).abs() < 1e-12, "{stats:?}");
                assert_eq!(stats.max_ms, max);
                assert!((stats.mean_ms - mean).abs() < 1e-12, "{stats:?}");
            }
        }
    }

    #[test]
    fn duplicate_and_non_finite_times() {
        let frame = |pass_gpu_ms: Vec<(&str, f64)>, frame_gpu_ms: f64| FrameRecord {
            globe: None,
            pool: None,
            frame: 0,
            time_s: 0.0,
            leaves: 1,
            triangles: 1,
            visible_leaves: 1,
            max_error_px: 0.5,
            max_depth: 1,
            capped_leaves: 0,
            cache_hits: 0,
            cache_misses: 0,
            pass_gpu_ms: pass_gpu_ms.into_iter().map(|(n, ms)| (n.to_string(), ms)).collect(),
            frame_gpu_ms,
        };
        let report = BenchReport::from_frames(
            meta(),
            vec![frame(vec![("a", 1.0), ("b", 2.0), ("a", 0.5)], 4.0), frame(vec![("b", f64::NAN)], f64::INFINITY)],
        );
        assert_eq!(report.frames[0].pass_gpu_ms, vec![("a".to_string(), 1.5), ("b".to_string(), 2.0)]);
        assert_eq!(report.passes[0].max_ms, 1.5);
        assert_eq!(report.passes[1].mean_ms, 2.0);
        assert_eq!(report.frame.max_ms, 4.0);

        let empty = BenchReport::from_frames(meta(), Vec::new());
        assert!(empty.passes.is_empty());
        assert_eq!(empty.frame.median_ms, 0.0);
        assert!(empty.summary_table().contains("frame total"));
    }

    #[test]
    fn peak_memory_is_in_the_summary_and_the_json() {
        let report = BenchReport::from_frames(meta(), Vec::new());
        assert!(report.summary_table().contains("peak memory: 734 MiB resident"), "{}", report.summary_table());
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(json["meta"]["peak_rss_bytes"], serde_json::json!(734u64 << 20));
        let unknown = BenchReport::from_frames(BenchMeta { peak_rss_bytes: None, ..meta() }, Vec::new());
        assert!(unknown.summary_table().contains("peak memory: unknown"));
        assert!(serde_json::from_str::<serde_json::Value>(&unknown.to_json()).unwrap()["meta"]["peak_rss_bytes"].is_null());
    }

    /// Equal up to the last-digit error of serde_json's default float parser.
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-14 * a.abs().max(b.abs())
    }

    #[test]
    fn json_has_every_field_and_parses_back() {
        let mut rng = XorShift::fresh("report");
        let report = BenchReport::from_frames(meta(), random_frames(&mut rng, 20));
        let value: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();

        for key in ["terrain", "path", "width_px", "height_px", "frames", "adapter", "backend", "max_depth", "pixel_error_px", "date"] {
            assert!(value["meta"].get(key).is_some(), "meta.{key} missing");
        }
        let stat_keys = ["name", "median_ms", "p95_ms", "max_ms", "mean_ms"];
        let passes = value["passes"].as_array().unwrap();
        assert_eq!(passes.len(), PASS_NAMES.len());
        for pass in passes.iter().chain([&value["frame"]]) {
            for key in stat_keys {
                assert!(pass.get(key).is_some(), "{key} missing from {pass}");
            }
        }
        assert_eq!(value["passes"][0]["name"], "leb.split");
        assert!(close(value["frame"]["median_ms"].as_f64().unwrap(), report.frame.median_ms));

        let frames = value["frames"].as_array().unwrap();
        assert_eq!(frames.len(), 20);
        for (json, record) in frames.iter().zip(&report.frames) {
            for key in ["frame", "time_s", "leaves", "triangles", "max_depth", "cache_hits", "cache_misses", "gpu_ms", "frame_gpu_ms"] {
                assert!(json.get(key).is_some(), "{key} missing from {json}");
            }
            let gpu_ms = json["gpu_ms"].as_object().unwrap();
            assert_eq!(gpu_ms.len(), record.pass_gpu_ms.len());
            for (name, ms) in &record.pass_gpu_ms {
                assert!(close(gpu_ms[name].as_f64().unwrap(), *ms), "{name}");
            }
            assert_eq!(json["triangles"].as_u64().unwrap(), record.triangles);
        }
        let text = report.to_json();
        let split = text.find("\"leb.split\"").unwrap();
        let draw = text.find("\"render.draw\"").unwrap();
        assert!(split < draw, "pass order must follow first appearance");
    }
}
