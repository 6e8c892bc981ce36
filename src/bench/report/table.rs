//! The benchmark report's plain-text summary table.

use super::{percentile, BenchReport, SPIKE_WINDOW};

impl BenchReport {
    /// Aligned plain-text summary: per-pass and frame GPU times, then subdivision size.
    pub fn summary_table(&self) -> String {
        let meta = &self.meta;
        let mut out = format!(
            "bisector benchmark: {} along {}, {}x{} px, {} frames, {} ({}), max depth {}, {} {} px, {}\n\n",
            meta.terrain,
            meta.path,
            meta.width_px,
            meta.height_px,
            self.frames.len(),
            meta.adapter,
            meta.backend,
            meta.max_depth,
            meta.criterion,
            meta.pixel_error_px,
            meta.date,
        );
        out.push_str(&format!("{}\n\n", crate::bench::memory::describe_peak_rss(meta.peak_rss_bytes)));

        let total_label = "frame total";
        let name_width =
            self.passes.iter().map(|pass| pass.name.chars().count()).chain([total_label.len(), "pass".len()]).max().unwrap_or(0);
        out.push_str(&format!("{:<name_width$}  {:>10}  {:>10}  {:>10}  {:>10}\n", "pass", "median ms", "p95 ms", "p99 ms", "max ms"));
        out.push_str(&format!("{}\n", "-".repeat(name_width + 48)));
        let rows = self.passes.iter().map(|pass| (pass.name.as_str(), pass));
        for (label, pass) in rows.chain([(total_label, &self.frame)]) {
            out.push_str(&format!(
                "{:<name_width$}  {:>10.3}  {:>10.3}  {:>10.3}  {:>10.3}\n",
                label, pass.median_ms, pass.p95_ms, pass.p99_ms, pass.max_ms
            ));
        }

        let counts: [(&str, Vec<f64>); 3] = [
            ("leaves", self.frames.iter().map(|f| f64::from(f.leaves)).collect()),
            ("triangles", self.frames.iter().map(|f| f.triangles as f64).collect()),
            ("max depth", self.frames.iter().map(|f| f64::from(f.max_depth)).collect()),
        ];
        out.push_str(&format!("\n{:<name_width$}  {:>12}  {:>12}\n", "", "median", "max"));
        for (label, mut values) in counts {
            values.sort_by(f64::total_cmp);
            let (median, max) = if values.is_empty() { (0.0, 0.0) } else { (percentile(&values, 50.0), values[values.len() - 1]) };
            out.push_str(&format!("{label:<name_width$}  {median:>12.0}  {max:>12.0}\n"));
        }
        let with_uploads = |list: &[u32]| {
            list.iter()
                .filter(|&&f| self.frames.iter().any(|r| r.frame == f && r.globe.as_ref().is_some_and(|g| g.cache.uploaded_tiles > 0)))
                .count()
        };
        out.push_str(&format!(
            "\nframes over twice the median GPU time: {} of {} ({} uploading tiles); spikes over twice the median of the {} frames around them: {} ({} uploading tiles)\n",
            self.long_frames.len(),
            self.frames.len(),
            with_uploads(&self.long_frames),
            2 * SPIKE_WINDOW + 1,
            self.spike_frames.len(),
            with_uploads(&self.spike_frames),
        ));
        if let Some(r) = &self.raster {
            out.push_str(&format!("raster: {} (asked {})", r.used, r.requested));
            if r.used == "compute" {
                out.push_str(&format!(", triangles over {} px binned per tile", r.large_px));
            }
            let bins: Vec<String> = r
                .size_histogram
                .iter()
                .filter(|b| b.triangles_per_frame > 0.0)
                .map(|b| match b.to_px {
                    Some(to) => format!("{}-{} px {:.0}", b.from_px, to, b.triangles_per_frame),
                    None => format!("{}+ px {:.0}", b.from_px, b.triangles_per_frame),
                })
                .collect();
            if !bins.is_empty() {
                out.push_str(&format!("; triangles per frame by screen size: {}", bins.join(", ")));
            }
            out.push('\n');
        }
        if let Some(h) = &self.http {
            out.push_str(&format!(
                "http tiles: {} requests, {} fetched, {} from the disk cache, {} \"no tile here\", {} retried, {} given up, {} missing offline\n",
                h.requests, h.fetched, h.disk_hits, h.no_tile, h.retries, h.failures, h.offline_misses
            ));
        }
        if let Some(g) = &self.cog {
            out.push_str(&format!(
                "large GeoTIFF tiles: {} decoded ({:.1} MiB read), {} cache hits, decoded-tile cache peak {:.1} of {:.1} MiB\n",
                g.tiles_decoded,
                g.bytes_read as f64 / (1 << 20) as f64,
                g.cache_hits,
                g.cache_peak_bytes as f64 / (1 << 20) as f64,
                g.cache_budget_bytes as f64 / (1 << 20) as f64
            ));
        }
        if let Some(c) = &self.cache {
            out.push_str(&format!(
                "tile cache: {} tiles streamed ({:.1} MiB), {} evicted, hit rate {:.1}% over {} read-backs ({} overflowed), load queue up to {}, {} failed, {} of {} resident at the end; CPU submit median {:.2} ms, max {:.2} ms\n",
                c.tiles_streamed,
                c.bytes_streamed as f64 / (1 << 20) as f64,
                c.evictions,
                100.0 * c.hit_rate,
                c.readback_frames,
                c.overflow_frames,
                c.max_load_queue,
                c.failed_loads,
                c.resident_tiles,
                c.capacity_tiles,
                c.cpu_submit_median_ms,
                c.cpu_submit_max_ms,
            ));
        }
        out.push_str(&self.pool_summary());
        out
    }

    /// The bisector pool's line (empty without pool frames): slots used, depth reached, and
    /// `near_edge_m.median`, the median over the frames that have land within 3 km.
    fn pool_summary(&self) -> String {
        let pool: Vec<&super::PoolFrameRecord> = self.frames.iter().filter_map(|f| f.pool.as_ref()).collect();
        let Some(last) = pool.last() else {
            return String::new();
        };
        let mut medians: Vec<f64> = pool.iter().filter_map(|p| p.near_edge_m.map(|e| e.median)).collect();
        medians.sort_by(f64::total_cmp);
        let shortest = pool.iter().filter_map(|p| p.near_edge_m.map(|e| e.min)).reduce(f64::min);
        let near = match shortest {
            Some(shortest) => format!(
                "near_edge_m median {:.2} m (the median over the {} of {} frames with land within 3 km), shortest edge {shortest:.3} m",
                percentile(&medians, 50.0),
                medians.len(),
                pool.len()
            ),
            None => "near_edge_m: no land within 3 km in any frame".to_string(),
        };
        format!(
            "bisector pool of {} slots: {} used at the end (at most {}), max depth reached {} levels below the base; {near}\n",
            last.pool_slots,
            last.pool_used,
            pool.iter().map(|p| p.pool_used).max().unwrap_or(0),
            pool.iter().map(|p| p.max_depth_reached).max().unwrap_or(0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::tests::{meta, random_frames, PASS_NAMES};
    use crate::test_rng::XorShift;

    #[test]
    fn summary_table_is_aligned() {
        let mut rng = XorShift::fresh("report");
        let report = BenchReport::from_frames(meta(), random_frames(&mut rng, 50));
        let table = report.summary_table();
        for needle in ["pass", "median ms", "p95 ms", "max ms", "frame total", "leaves", "triangles", "max depth"] {
            assert!(table.contains(needle), "{needle} missing from\n{table}");
        }
        for name in PASS_NAMES {
            assert!(table.contains(name), "{name} missing from\n{table}");
        }
        assert!(!table.contains("bisector pool"), "{table}");
        let timing_rows: Vec<&str> =
            table.lines().filter(|line| PASS_NAMES.iter().any(|n| line.starts_with(n)) || line.starts_with("frame total")).collect();
        assert_eq!(timing_rows.len(), PASS_NAMES.len() + 1, "{table}");
        let width = timing_rows[0].len();
        assert!(timing_rows.iter().all(|row| row.len() == width), "{table}");
    }

    #[test]
    fn pool_frames_give_the_near_edge_median_in_the_summary_and_the_json() {
        use crate::bench::report::PoolFrameRecord;
        use crate::globe::figures::EdgeStats;
        let mut rng = XorShift::fresh("pool_frames_give_the_near_edge_median");
        let mut frames = random_frames(&mut rng, 9);
        let mut medians = Vec::new();
        for (i, frame) in frames.iter_mut().enumerate() {
            let near_edge_m = (i % 3 != 0).then(|| EdgeStats { min: rng.range(0.1, 1.0), median: rng.range(1.0, 20.0), count: 30 });
            medians.extend(near_edge_m.map(|e| e.median));
            frame.pool = Some(PoolFrameRecord {
                max_depth_reached: 40 + i as u32,
                pool_slots: 1 << 20,
                pool_used: frame.leaves,
                capped_by_depth: 0,
                capped_by_pool: 0,
                pending_split_leaves: 0,
                near_edge_m,
            });
        }
        medians.sort_by(f64::total_cmp);
        let report = BenchReport::from_frames(meta(), frames);
        let table = report.summary_table();
        let expected = format!("near_edge_m median {:.2} m (the median over the 6 of 9 frames", percentile(&medians, 50.0));
        assert!(table.contains(&expected) && table.contains("max depth reached 48 levels"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let frame = &json["frames"][1];
        for key in ["leaves", "max_depth_reached", "pool_slots", "pool_used", "capped_leaves", "pending_split_leaves"] {
            assert!(frame[key].is_u64(), "{key} missing from {frame}");
        }
        assert!(frame["near_edge_m"]["median"].is_f64() && frame["near_edge_m"]["count"] == 30, "{frame}");
        assert!(json["frames"][0].get("near_edge_m").is_none() && json["frames"][0]["pool_used"].is_u64());
    }
}
