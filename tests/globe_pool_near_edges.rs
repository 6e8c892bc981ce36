//! The near-edge statistics globe.pool_decode gathers every frame on the GPU (src/globe/
//! near_edges.rs) against their CPU twin on a real converged pool view: the bridge view of
//! assets/paths/globe-taiwan-coast-ship.json at a random time along the path, a small pool at a
//! small size on lavapipe, with the detail below the data (the default). The histogram's counts
//! equal the twin's bin for bin, where the twin is sure of an edge's bin (an edge within
//! `edge_tolerance_m` of a bin boundary may be in either of the two bins; a leaf whose own test is too close to call may count in any bin or none); the
//! minimum agrees within that tolerance; and the histogram's median agrees with the exact median
//! of figures.rs (`shot --json`'s) within one bin (half a bin of resolution, and figures.rs reads
//! heights from the data rather than from the tile cache's tiles).

mod common;

use std::collections::HashMap;

use bisector::globe::cache::tile_cache::{cpu_find, cpu_height, Producer, TileCache, TileCacheConfig};
use bisector::globe::cache::tile_error::{native_spacing, NativeSpacing};
use bisector::globe::figures::near_edges_pool;
use bisector::globe::ground::{tile_detail_m, tile_detail_tolerance_m};
use bisector::globe::near_edges::{bin_lower_m, edge_tolerance_m, near_edges_twin, NearEdgeHistogram, NearEdgeTwin, BINS};
use bisector::globe::pool_scene::{requirements, GlobePoolRenderer};
use bisector::globe::renderer::GlobeSettings;
use bisector::gpu::Gpu;
use bisector::pool::PoolSettings;
use bisector::schedule::headless::HeadlessView;
use bisector::schedule::LebScene;
use rand::Rng;

use common::taiwan_ground as taiwan;

/// Whether the GPU's histogram is one the twin allows: every edge the twin is sure of in one of
/// its bins, the others in any bin or none (earliest-deadline-first matching of the GPU's counts
/// above the twin's sure ones to the edges that may be there). Err says where it is not.
fn explains(twin: &NearEdgeTwin, gpu: &NearEdgeHistogram) -> Result<(), String> {
    let mut sure = vec![0u32; BINS];
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut anywhere = 0u32;
    for edge in &twin.edges {
        match edge.bins {
            Some((lo, hi)) if lo == hi => sure[lo] += 1,
            Some(range) => ranges.push(range),
            None => anywhere += 1,
        }
    }
    ranges.sort();
    let mut next = 0;
    let mut open: Vec<usize> = Vec::new(); // upper ends of the ranges reached, not yet placed
    for (bin, (&counted, &sure)) in gpu.bins.iter().zip(&sure).enumerate() {
        while next < ranges.len() && ranges[next].0 == bin {
            open.push(ranges[next].1);
            next += 1;
        }
        open.sort_unstable_by(|a, b| b.cmp(a));
        let Some(mut extra) = counted.checked_sub(sure) else {
            return Err(format!("bin {bin} ({:.4} m): GPU {counted} < {sure} the twin is sure of", bin_lower_m(bin)));
        };
        while extra > 0 && open.last().is_some() {
            open.pop();
            extra -= 1;
        }
        if open.last() == Some(&bin) {
            return Err(format!("bin {bin} ({:.4} m): an edge that must be here or below is not counted", bin_lower_m(bin)));
        }
        if extra > anywhere {
            return Err(format!("bin {bin} ({:.4} m): GPU {counted} > {sure} the twin allows", bin_lower_m(bin)));
        }
        anywhere -= extra;
    }
    Ok(())
}

#[test]
fn the_gpu_near_edge_histogram_equals_its_twin_on_a_converged_pool_view() {
    let mut rng = common::rng("the_gpu_near_edge_histogram_equals_its_twin_on_a_converged_pool_view");
    let ground = taiwan();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-coast-ship.json");
    let path = bisector::bench::globe_path::GlobePath::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let time_s = rng.random_range(0.0..path.duration_s());
    let camera = path.sample(time_s).camera();
    let (size_px, tiles) = ((384, 216), 512);
    let pool_settings = PoolSettings { pool_slots: 1 << 16, ..Default::default() };
    // With the detail below the data (the default): the twin's heights add it as
    // `globe::ground::tile_detail_m` does, within its tolerance (tests/globe_data_error.rs).
    let settings = GlobeSettings::default();
    assert!(settings.detail);
    let gpu = Gpu::headless(&requirements(&pool_settings, tiles).with_image_size(size_px)).unwrap_or_else(|e| panic!("{e}"));
    let cache = TileCache::new(&gpu, TileCacheConfig { tiles, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
    let mut scene =
        GlobePoolRenderer::new(&gpu, settings, pool_settings, bisector::gpu::target::COLOR_FORMAT, cache).unwrap_or_else(|e| panic!("{e}"));
    scene.near_edge_interval_frames = 1;
    let mut view = HeadlessView::new(&gpu, scene, size_px.0, size_px.1);
    let (frames, last) = view.converge(&gpu, &camera, 600);
    assert!(view.scene.is_settled(), "the tile cache did not settle in {frames} frames");

    let histogram = view.scene.read_near_edges(&gpu);
    let state = view.scene.pool.read_state(&gpu);
    let leaves: Vec<[[u64; 2]; 3]> = state.list.iter().map(|&slot| state.vertices[slot as usize]).collect();
    assert_eq!(leaves.len() as u32, last.stats.leaves);
    let cache = &view.scene.cache;
    let (source, max_zoom) = (cache.source(), cache.max_zoom());
    let mut layers: HashMap<u32, Vec<f32>> = HashMap::new();
    let Producer::Cpu(producer) = ground.producer() else { panic!("the Earth's tiles come from the CPU") };
    let mut spacings: HashMap<u32, NativeSpacing> = HashMap::new();
    let mut detailed = 0usize;
    let mut height_at = |map: [u32; 2], zoom: u32, pixel_m: Option<f32>| match cpu_find(cache.table(), source, max_zoom, map, zoom) {
        Some((slot, found_zoom)) => {
            let layer = layers.entry(slot).or_insert_with(|| cache.atlas.read_layer(&gpu.device, &gpu.queue, slot));
            let Some(pixel_m) = pixel_m else { return (cpu_height(layer, found_zoom, map), 0.0) };
            let spacing = *spacings.entry(slot).or_insert_with(|| {
                let key = cache.table().iter().find(|&(_, s)| s == slot).expect("resident").0;
                native_spacing(producer.native_cells(key).unwrap())
            });
            let [data_m, detail_m] = tile_detail_m(layer, found_zoom, spacing, map, pixel_m);
            detailed += usize::from(detail_m != 0.0);
            (data_m + detail_m, tile_detail_tolerance_m(layer, found_zoom, spacing, map))
        }
        None => (0.0, 0.0),
    };
    let frame = view.scene.frame_uniforms(&camera, size_px);
    let twin = near_edges_twin(&leaves, &camera, &frame, u32::from(max_zoom), &mut height_at);
    // Few near vertices carry detail at this size (most of its octaves are under a pixel), and
    // those moved edges across bins before the twin added it.
    assert!(detailed > 0, "no vertex with detail");
    let sure = twin.histogram();
    eprintln!(
        "{time_s:.1} s along the path, {frames} frames, {} leaves ({detailed} vertices with detail): GPU {} near edges, twin {} ({} in a certain bin), median {:?} m",
        leaves.len(),
        histogram.count,
        twin.edges.len(),
        twin.certain_edges(),
        histogram.median_m()
    );
    assert!(histogram.count > 100, "too few near edges to compare: {}", histogram.count);
    assert_eq!(histogram.bins.iter().sum::<u32>(), histogram.count);
    assert!(twin.certain_edges() * 100 >= twin.edges.len() * 95, "the twin is unsure of over 5% of the edges");
    explains(&twin, &histogram).unwrap_or_else(|e| panic!("the GPU's histogram is not the twin's: {e}"));

    // The minimum: the same edge, within its tolerance.
    let (gpu_min, twin_min) = (histogram.min_m.expect("a minimum"), sure.min_m.expect("a minimum"));
    assert!((gpu_min - twin_min).abs() <= edge_tolerance_m(twin_min, 3500.0), "minimum {gpu_min} m on the GPU, {twin_min} m on the CPU");

    // The median against figures.rs's exact one (heights from the data): within one bin.
    let exact = near_edges_pool(&leaves, &camera, |lon, lat| ground.height_m(lon, lat).ok().flatten().map(f64::from)).expect("land near");
    let median = histogram.median_m().expect("a median");
    eprintln!("figures.rs: {exact:?}; GPU min {:?} median {median}", histogram.min_m);
    let one_bin = 2f64.powf(1.0 / 16.0);
    assert!(median / exact.median <= one_bin && exact.median / median <= one_bin, "median {median} m vs figures.rs's {} m", exact.median);
    // figures.rs decides land from the finest data, the GPU from the tiles drawn: a few leaves
    // along the coast differ.
    let relative_count = (histogram.count as f64 - exact.count as f64).abs() / exact.count as f64;
    assert!(relative_count < 0.15, "{} edges on the GPU, {} in figures.rs", histogram.count, exact.count);

    // A frame that does not fill the histogram (the pipeline without NEAR_EDGES) says so and
    // leaves the last figures; the next one that does fills it again.
    assert!(view.scene.near_edges_fresh());
    view.scene.near_edge_interval_frames = 0;
    view.frame(&gpu, &camera);
    assert!(!view.scene.near_edges_fresh());
    assert_eq!(view.scene.read_near_edges(&gpu), histogram, "a frame without the histogram changed it");
    view.scene.near_edge_interval_frames = 1;
    view.frame(&gpu, &camera);
    assert!(view.scene.near_edges_fresh());
    assert!(view.scene.read_near_edges(&gpu).count > 100, "the histogram was not filled again");
}
