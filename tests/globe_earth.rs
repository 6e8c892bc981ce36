//! The planet's real-data source (src/globe/earth.rs) through the tile producer path, against
//! known values of heightmaps/ (see its README): ETOPO20 as the global base, the Taiwan
//! Terrain-RGB pyramid layered over it; seams at the region's edge; shared tile samples; errors.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bisector::globe::cache::tile_key::TileKey;
use bisector::globe::cache::tile_layout::{texel_map_point, TILE_SIDE};
use bisector::globe::cache::tile_producer::TileProducer;
use bisector::globe::earth::{texel_step_m, LayeredEarth, EARTH_SOURCE, FEATHER_M, SEA_BAND_M};
use bisector::leb::octahedral;
use bisector::terrain::pyramid::{TileMemo, TilePyramid};
use glam::DVec2;
use rand::Rng;

fn data(relative: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path
}

/// ETOPO20 alone.
fn etopo() -> &'static LayeredEarth {
    static EARTH: OnceLock<LayeredEarth> = OnceLock::new();
    EARTH.get_or_init(|| LayeredEarth::open(&data("etopo20_global.tif"), &[]).unwrap())
}

/// ETOPO20 with Taiwan over it.
fn with_taiwan() -> &'static LayeredEarth {
    static EARTH: OnceLock<LayeredEarth> = OnceLock::new();
    EARTH.get_or_init(|| LayeredEarth::open(&data("etopo20_global.tif"), &[data("taiwan-terrain-rgb")]).unwrap())
}

/// The tile of `zoom` whose square holds (lon, lat).
fn tile_at(lon: f64, lat: f64, zoom: u8) -> TileKey {
    let p = octahedral::from_unit_sphere(octahedral::from_lon_lat_deg(lon, lat));
    let side = (1u64 << zoom) as f64;
    TileKey::new(EARTH_SOURCE, zoom, ((p.x * side) as u32).min((side - 1.0) as u32), ((p.y * side) as u32).min((side - 1.0) as u32))
        .unwrap()
}

/// (lon, lat, texel spacing) of texel (i, j) of `key`, as produce computes them.
fn texel_lon_lat_step(key: TileKey, i: u32, j: u32) -> (f64, f64, f64) {
    let n = octahedral::to_unit_sphere(octahedral::wrap(texel_map_point(key, i, j)));
    let (lon, lat) = octahedral::lon_lat_deg(n);
    (lon, lat, texel_step_m(n, key.zoom))
}

/// Great-circle distance in metres.
fn distance_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (na, nb) = (octahedral::from_lon_lat_deg(a.0, a.1), octahedral::from_lon_lat_deg(b.0, b.1));
    na.dot(nb).clamp(-1.0, 1.0).acos() * bisector::globe::EARTH_RADIUS_M
}

/// Highest (or lowest) texel of `key` within `radius_m` of `at`, and where.
fn extreme_near(earth: &LayeredEarth, key: TileKey, at: (f64, f64), radius_m: f64, highest: bool) -> (f32, (f64, f64)) {
    let heights = earth.produce(key).unwrap();
    let mut best: Option<(f32, (f64, f64))> = None;
    for j in 0..TILE_SIDE {
        for i in 0..TILE_SIDE {
            let (lon, lat, _) = texel_lon_lat_step(key, i, j);
            let h = heights[(j * TILE_SIDE + i) as usize];
            if distance_m((lon, lat), at) <= radius_m && best.is_none_or(|(b, _)| if highest { h > b } else { h < b }) {
                best = Some((h, (lon, lat)));
            }
        }
    }
    best.expect("no texel near the point")
}

#[test]
fn etopo_extremes_through_produce() {
    let earth = etopo();
    // The samples: maximum 6229 m at (85.1667E, 28.8333N), minimum -9027 m at (142.1667E, 11.1667N)
    // (tests/terrain_readers.rs finds them). Bilinear resampling never overshoots the samples,
    // so a texel is at most the extreme; how close it comes depends on how near a texel falls.
    let (peak, trench) = ((85.0 + 1.0 / 6.0, 28.0 + 5.0 / 6.0), (142.0 + 1.0 / 6.0, 11.0 + 1.0 / 6.0));
    assert_eq!(earth.max_zoom(), 3, "ETOPO's 37 km pixels need zoom 3 (texels 20..31 km)");
    // Zoom 3: texels about 25 km apart, close to the 37 km pixels: the nearest texel lies up to
    // ~18 km from the sample, where the relief around these extremes drops by up to ~1000 m per
    // pixel, so within 800 m.
    // Zoom 6: texels about 3 km apart, nearest within ~2 km: within 150 m.
    for (zoom, tolerance_m) in [(3u8, 800.0f32), (6, 150.0)] {
        let (hi, at) = extreme_near(earth, tile_at(peak.0, peak.1, zoom), peak, 60_000.0, true);
        assert!(hi <= 6229.0 && hi >= 6229.0 - tolerance_m, "zoom {zoom}: highest texel {hi} m at {at:?}");
        let (lo, at) = extreme_near(earth, tile_at(trench.0, trench.1, zoom), trench, 60_000.0, false);
        assert!(lo >= -9027.0 && lo <= -9027.0 + tolerance_m, "zoom {zoom}: lowest texel {lo} m at {at:?}");
        eprintln!("zoom {zoom}: highest texel {hi} m, lowest {lo} m");
    }
    // The same code path answers point queries; at the sample, the sample (within 0.5 m: the
    // tie point -179.8333 is stored rounded, so 85.1667E is a hair off the sample).
    let at_peak = earth.height_at_lon_lat_m(peak.0, peak.1, 30_000.0).unwrap();
    assert!((at_peak - 6229.0).abs() < 0.5, "{at_peak}");
    let pacific = earth.height_at_lon_lat_m(-150.0, 0.0, 30_000.0).unwrap();
    assert!((pacific - -4181.0).abs() < 100.0, "{pacific}");
}

#[test]
fn taiwan_wins_over_etopo_at_yushan_and_the_sea_stays_etopo() {
    let earth = with_taiwan();
    let yushan = (120.9572, 23.47);
    // Texels ~28 m apart at zoom 13 (the pyramid's 17.5 m zoom 13 answers), ~14 m at 14: the
    // nearest texel lies within ~20 m of the summit, where the slope is below ~0.6, and the
    // summit pixel itself reads 3947 m: within 30 m.
    for zoom in [13u8, 14] {
        let (hi, at) = extreme_near(earth, tile_at(yushan.0, yushan.1, zoom), yushan, 300.0, true);
        assert!((hi - 3947.0).abs() <= 30.0, "zoom {zoom}: highest texel near Yushan {hi} m at {at:?}");
        eprintln!("zoom {zoom}: highest texel near Yushan {hi} m at {at:?}");
    }
    assert_eq!(earth.max_zoom(), 14, "Taiwan's 17.5 m pixels need zoom 14 (texels ~14 m)");
    // ETOPO alone is far lower there (20 arc-minutes average the summit away).
    let etopo_m = etopo().height_at_lon_lat_m(yushan.0, yushan.1, 30.0).unwrap();
    assert!(etopo_m < 3000.0, "{etopo_m}");
    assert_eq!(earth.region_weight(yushan.0, yushan.1, 30.0).unwrap(), 1.0);
    // Open sea east of Taiwan, outside the pyramid's data: ETOPO's value, bit for bit, through
    // produce, on a zoom-9 tile: every texel beyond the region's feather equals ETOPO's.
    let sea = (122.5, 23.5);
    let h = earth.height_at_lon_lat_m(sea.0, sea.1, 200.0).unwrap();
    assert!(h < -1000.0 && h == etopo().height_at_lon_lat_m(sea.0, sea.1, 200.0).unwrap(), "{h}");
    let key = tile_at(sea.0, sea.1, 9);
    let (layered, alone) = (earth.produce(key).unwrap(), etopo().produce(key).unwrap());
    let mut outside = 0;
    for j in 0..TILE_SIDE {
        for i in 0..TILE_SIDE {
            let (lon, lat, step) = texel_lon_lat_step(key, i, j);
            let k = (j * TILE_SIDE + i) as usize;
            if earth.region_weight(lon, lat, step).unwrap() == 0.0 {
                assert_eq!(layered[k].to_bits(), alone[k].to_bits(), "texel ({i}, {j}) at {lon}, {lat}");
                outside += 1;
            }
        }
    }
    assert!(outside > 1000, "{outside} texels outside the region");
}

/// The sea rule (src/globe/earth.rs): Taiwan's pyramid stores 0 m over the sea out to its bounds;
/// where ETOPO is below sea level a 0 m pixel is no data, so the sea floor is ETOPO's.
#[test]
fn taiwans_zero_metre_sea_gives_way_to_etopos_sea_floor() {
    let earth = with_taiwan();
    let pyramid = TilePyramid::open(&data("taiwan-terrain-rgb")).unwrap();
    // 30 km off the east coast, inside the pyramid's bounds, where it holds exactly 0 m.
    let sea = (121.8, 23.5);
    assert_eq!(pyramid.sample_m(sea.0, sea.1).unwrap(), Some(0.0));
    for step_m in [30.0, 200.0, 2000.0] {
        let h = earth.height_at_lon_lat_m(sea.0, sea.1, step_m).unwrap();
        let etopo_m = etopo().height_at_lon_lat_m(sea.0, sea.1, step_m).unwrap();
        assert!(etopo_m < -2000.0, "{etopo_m}");
        assert_eq!(h.to_bits(), etopo_m.to_bits(), "step {step_m} m: {h} m, ETOPO {etopo_m} m");
        assert_eq!(earth.region_weight(sea.0, sea.1, step_m).unwrap(), 0.0);
    }
    // Yushan still comes from the pyramid's zoom 13 (17.5 m pixels): the point itself, and the
    // highest texel near the summit on a zoom-13 tile.
    let yushan = earth.height_at_lon_lat_m(120.9572, 23.47, 17.0).unwrap();
    assert_eq!(yushan, pyramid.sample_m(120.9572, 23.47).unwrap().unwrap());
    let (summit, _) = extreme_near(earth, tile_at(120.9572, 23.47, 13), (120.9572, 23.47), 300.0, true);
    assert!((3935.0..3950.0).contains(&yushan) && (3940.0..3950.0).contains(&summit), "Yushan {yushan} m, highest texel {summit} m");
    // Coastal land stays the pyramid's: on the Tainan plain, 20 km inland, fully the region's;
    // at Hualien, 2 km from the coast, where ETOPO's coarse sea floor reaches below 0 m, the
    // pyramid's land pixels (9.7 m) still win.
    let plain = (120.3, 23.3);
    assert_eq!(earth.region_weight(plain.0, plain.1, 30.0).unwrap(), 1.0);
    let h = earth.height_at_lon_lat_m(plain.0, plain.1, 30.0).unwrap();
    let zoom = pyramid.zoom_for_step(30.0, plain.1.to_radians());
    let own = pyramid.sample_up_to_zoom_m(plain.0, plain.1, zoom).unwrap().unwrap();
    assert!(h == own && h > 0.0 && h < 50.0, "Tainan plain {h} m, pyramid {own} m");
    let hualien = (121.6, 23.98);
    assert!(etopo().height_at_lon_lat_m(hualien.0, hualien.1, 30.0).unwrap() < 0.0);
    assert_eq!(earth.region_weight(hualien.0, hualien.1, 30.0).unwrap(), 1.0);
    let h = earth.height_at_lon_lat_m(hualien.0, hualien.1, 30.0).unwrap();
    assert!((h - 9.7).abs() < 1.0, "Hualien {h} m");
    // A kilometre offshore the sea floor is on its way down from sea level to ETOPO's depth.
    let offshore = earth.height_at_lon_lat_m(121.64, 23.98, 30.0).unwrap();
    let etopo_m = etopo().height_at_lon_lat_m(121.64, 23.98, 30.0).unwrap();
    assert!(offshore < 0.0 && offshore > etopo_m, "1 km off Hualien {offshore} m, ETOPO {etopo_m} m");
    eprintln!("Yushan {yushan} m (highest zoom-13 texel {summit} m), Tainan plain {own} m, Hualien {h} m");
}

/// The sea rule's band (src/globe/earth.rs SEA_BAND_M): off the Qingshui cliffs, in the Liwu's
/// mouth, Taiwan's zoom-11 tiles hold rows of -2, -1, 1 and 3 m in the sea (resampling artefacts,
/// drawn as striped land in the sea before). Wherever ETOPO is below sea level, every such pixel
/// is sea: the earth there is below 0 m, while the cliffs a few hundred metres inland keep the
/// pyramid's heights.
#[test]
fn noise_near_sea_level_off_the_qingshui_cliffs_is_sea() {
    let earth = with_taiwan();
    let pyramid = TilePyramid::open(&data("taiwan-terrain-rgb")).unwrap();
    let step_m = 30.0;
    // The artefacts' values: -2, -1, 1 and 3 m.
    let noise_m = 3.0;
    let (mut noisy, mut checked) = (0, 0);
    for j in 0..40 {
        for i in 0..40 {
            let (lon, lat) = (121.662 + 0.0006 * f64::from(i), 24.150 + 0.001 * f64::from(j));
            let zoom = pyramid.zoom_for_step(step_m, lat.to_radians());
            let Some(own) = pyramid.sample_up_to_zoom_m(lon, lat, zoom).unwrap() else { continue };
            if etopo().height_at_lon_lat_m(lon, lat, step_m).unwrap() >= 0.0 || own.abs() > noise_m {
                continue;
            }
            // Only where every pixel around the point is in the band (else land may blend in).
            let pixel_deg = 0.0007;
            let around = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
                .map(|(dx, dy)| pyramid.sample_up_to_zoom_m(lon + dx * pixel_deg, lat + dy * pixel_deg, zoom).unwrap());
            if !around.iter().all(|h| h.is_some_and(|h| h.abs() <= noise_m)) {
                continue;
            }
            checked += 1;
            noisy += usize::from(own != 0.0);
            let h = earth.height_at_lon_lat_m(lon, lat, step_m).unwrap();
            assert!(h <= 0.0, "{lon:.4}, {lat:.4}: the pyramid's {own} m came out as land, {h} m");
        }
    }
    assert!(checked > 200 && noisy > 20, "too few points in the sea band: {checked}, {noisy} of them off 0 m");
    let cliff = earth.height_at_lon_lat_m(121.645, 24.17, step_m).unwrap();
    let zoom = pyramid.zoom_for_step(step_m, 24.17f64.to_radians());
    assert_eq!(cliff, pyramid.sample_up_to_zoom_m(121.645, 24.17, zoom).unwrap().unwrap(), "the cliffs keep the pyramid's heights");
    eprintln!("{checked} points in the band, {noisy} of them off 0 m; the cliffs at 121.645E {cliff} m");
}

/// Largest height difference between consecutive texels along rows and columns of a tile.
fn largest_step_m(heights: &[f32]) -> f32 {
    let n = TILE_SIDE as usize;
    let mut largest = 0.0f32;
    for j in 0..n {
        for i in 0..n {
            let h = heights[j * n + i];
            if i + 1 < n {
                largest = largest.max((heights[j * n + i + 1] - h).abs());
            }
            if j + 1 < n {
                largest = largest.max((heights[(j + 1) * n + i] - h).abs());
            }
        }
    }
    largest
}

#[test]
fn no_seam_at_taiwans_coast() {
    let earth = with_taiwan();
    let pyramid = TilePyramid::open(&data("taiwan-terrain-rgb")).unwrap();
    let mut cache = TileMemo::default();
    // With the sea rule, on land the pyramid, over the sea ETOPO, whose 37 km pixels put the sea
    // floor hundreds to thousands of metres deep at the coast (east coast) or the land tens to
    // hundreds of metres above it (west coast); the sea floor fades from 0 m at the coast to
    // ETOPO's over FEATHER_M offshore. Zoom-10 tiles (texels ~230 m) straddling the coast.
    for (name, lon, lat) in [("Hualien", 121.62, 23.98), ("Taitung", 121.15, 22.75), ("Tainan", 120.1, 23.0)] {
        let key = tile_at(lon, lat, 10);
        let blended = earth.produce(key).unwrap();
        // The naive layering: the region's land wherever it answers, else ETOPO.
        let (mut naive, mut region_only, mut base_only) = (Vec::new(), Vec::new(), Vec::new());
        let mut mismatch_m = 0.0f32;
        let mut feathered = 0;
        for j in 0..TILE_SIDE {
            for i in 0..TILE_SIDE {
                let (lon, lat, step) = texel_lon_lat_step(key, i, j);
                let base = etopo().height_at_lon_lat_m(lon, lat, step).unwrap();
                let zoom = pyramid.zoom_for_step(step, lat.to_radians());
                let region =
                    pyramid.sample_coverage_via(&mut cache, lon, lat, zoom, (base < 0.0).then_some(SEA_BAND_M)).unwrap().map(|(h, _)| h);
                let w = earth.region_weight(lon, lat, step).unwrap();
                if w > 0.0 && w < 1.0 {
                    // What the blend moves between: the region's land and ETOPO, or sea level and ETOPO.
                    feathered += 1;
                    mismatch_m = mismatch_m.max((region.unwrap_or(0.0) - base).abs());
                }
                naive.push(region.unwrap_or(base));
                region_only.push(region.unwrap_or(f32::NAN));
                base_only.push(base);
            }
        }
        assert!(feathered > 1000, "{name}: the tile must cross the feather ({feathered} texels in it)");
        let (smooth, jump) = (largest_step_m(&blended), largest_step_m(&naive));
        let own_m = largest_step_m(&region_only).max(largest_step_m(&base_only));
        // Bound: the blend's step is at most the layers' own largest step plus 1.5 * mismatch /
        // FEATHER_M (the smoothstep's steepest part) times the texel spacing (up to 1.15 * 230 m,
        // octahedral anisotropy).
        let bound_m = own_m + 265.0 * 1.5 * mismatch_m / FEATHER_M as f32;
        eprintln!("{name}: mismatch {mismatch_m:.0} m, largest step blended {smooth:.0} m (bound {bound_m:.0}, layers' own {own_m:.0}), naive {jump:.0} m");
        assert!(smooth <= bound_m, "{name}: a step of {smooth} m > {bound_m} m");
    }
    // Taiwan's own relief at the same spacing (zoom 10 around Yushan), for comparison.
    let mountains = largest_step_m(&earth.produce(tile_at(120.9572, 23.47, 10)).unwrap());
    eprintln!("largest step of the mountains around Yushan at zoom 10: {mountains:.0} m");
    assert!(mountains > 150.0);
}

/// Heights of `keys` keyed by the bits of their sample's unit vector: wherever two texels
/// (of the same or different tiles) are the same point of the sphere, their heights must have
/// the same bits. Returns how many texels met an earlier one.
fn check_shared_samples(earth: &LayeredEarth, keys: &[TileKey]) -> usize {
    let mut seen: HashMap<[u64; 3], (u32, TileKey, u32, u32)> = HashMap::new();
    let mut shared = 0;
    for &key in keys {
        let heights = earth.produce(key).unwrap();
        for j in 0..TILE_SIDE {
            for i in 0..TILE_SIDE {
                let n = octahedral::to_unit_sphere(octahedral::wrap(texel_map_point(key, i, j)));
                let bits = heights[(j * TILE_SIDE + i) as usize].to_bits();
                match seen.get(&n.to_array().map(f64::to_bits)) {
                    Some(&(other, k, oi, oj)) => {
                        assert_eq!(bits, other, "{key:?} texel ({i}, {j}) and {k:?} texel ({oi}, {oj}) are the same point, heights differ");
                        shared += 1;
                    }
                    None => {
                        seen.insert(n.to_array().map(f64::to_bits), (bits, key, i, j));
                    }
                }
            }
        }
    }
    shared
}

/// The tile of the same zoom next to `key` in direction (dx, dy), across a fold if need be.
fn neighbour(key: TileKey, dx: i32, dy: i32) -> TileKey {
    let side = (1u64 << key.zoom) as f64;
    let centre = DVec2::new((key.x as f64 + 0.5 + dx as f64) / side, (key.y as f64 + 0.5 + dy as f64) / side);
    let p = octahedral::wrap(centre);
    TileKey::new(key.source, key.zoom, (p.x * side) as u32, (p.y * side) as u32).unwrap()
}

#[test]
fn neighbouring_tiles_share_bit_identical_samples() {
    let earth = with_taiwan();
    // Zoom 0: the border folds onto the tile itself; zoom 1: the four tiles around the map.
    let root = TileKey::new(EARTH_SOURCE, 0, 0, 0).unwrap();
    assert!(check_shared_samples(earth, &[root]) >= 4 * 129, "zoom 0 borders fold onto the tile");
    let ones: Vec<TileKey> = (0..4).map(|k| TileKey::new(EARTH_SOURCE, 1, k % 2, k / 2).unwrap()).collect();
    assert!(check_shared_samples(earth, &ones) >= 4 * 3 * 129);
    // Random tiles, half of them over Taiwan (region samples, the feather), each with its four
    // neighbours (across the map's folds where the tile touches a side).
    let mut rng = common::rng("neighbouring_tiles_share_bit_identical_samples");
    for round in 0..8 {
        let zoom = rng.random_range(2..=12u8);
        let key = if round % 2 == 0 {
            tile_at(rng.random_range(120.0..122.0), rng.random_range(22.0..25.5), zoom)
        } else {
            let side = 1u32 << zoom;
            // Often on a side of the map, to cross a fold.
            let x = if rng.random_bool(0.5) { [0, side - 1][rng.random_range(0..2)] } else { rng.random_range(0..side) };
            TileKey::new(EARTH_SOURCE, zoom, x, rng.random_range(0..side)).unwrap()
        };
        let mut keys = vec![key];
        keys.extend([(1, 0), (-1, 0), (0, 1), (0, -1)].map(|(dx, dy)| neighbour(key, dx, dy)));
        let shared = check_shared_samples(earth, &keys);
        assert!(shared >= 4 * 3 * 129, "{key:?}: only {shared} shared samples");
    }
}

#[test]
fn bad_inputs_give_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let etopo_path = data("etopo20_global.tif");
    let check = |base: &Path, regions: &[PathBuf], names: &str, says: &str| {
        let error = LayeredEarth::open(base, regions).err().unwrap_or_else(|| panic!("{names}: opened")).to_string();
        assert!(!error.contains('\n') && error.contains(names) && error.contains(says), "{error}");
    };
    // A geographic raster that is not global: ETOPO with its pixel scale halved (180 x 90 degrees).
    let mut half = std::fs::read(&etopo_path).unwrap();
    let ifd = u32::from_le_bytes(half[4..8].try_into().unwrap()) as usize;
    let entries = u16::from_le_bytes(half[ifd..ifd + 2].try_into().unwrap()) as usize;
    let entry =
        (0..entries).map(|e| ifd + 2 + 12 * e).find(|&at| u16::from_le_bytes(half[at..at + 2].try_into().unwrap()) == 33550).unwrap();
    let offset = u32::from_le_bytes(half[entry + 8..entry + 12].try_into().unwrap()) as usize;
    for k in 0..2 {
        let at = offset + 8 * k;
        let v = f64::from_le_bytes(half[at..at + 8].try_into().unwrap()) / 2.0;
        half[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    let half_path = dir.path().join("half.tif");
    std::fs::write(&half_path, half).unwrap();
    check(&half_path, &[], "half.tif", "not a global raster: it covers 180.000 x 90.000 degrees");
    check(&data("bigtujunga.tif"), &[], "bigtujunga.tif", "projected");
    check(&data("taiwan-terrain-rgb"), &[], "taiwan-terrain-rgb", "not a folder");
    check(&dir.path().join("missing.tif"), &[], "missing.tif", "no such file");
    check(&etopo_path, &[dir.path().join("nowhere")], "nowhere", "no such file");
    check(&etopo_path, &[data("bigtujunga.tif")], "bigtujunga.tif", "tile-pyramid folder or a geographic");
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("tiles.json"), "{ not json").unwrap();
    check(&etopo_path, std::slice::from_ref(&broken), "tiles.json", "not valid TileJSON");
}

/// Produce time per tile: `cargo test --test globe_earth -- --ignored --nocapture produce_time`
/// (set CARGO_PROFILE_TEST_OPT_LEVEL=3 for release-like code).
#[test]
#[ignore]
fn produce_time() {
    let earth = with_taiwan();
    let cases = [
        ("open sea (base only)", tile_at(-150.0, 0.0, 6)),
        ("Himalaya (base only)", tile_at(85.2, 28.8, 9)),
        ("Taiwan coast, zoom 10", tile_at(122.0, 23.5, 10)),
        ("Yushan, zoom 13", tile_at(120.9572, 23.47, 13)),
        ("Taiwan, zoom 8", tile_at(121.0, 23.7, 8)),
    ];
    for (name, key) in cases {
        earth.produce(key).unwrap(); // tiles read from disk once
        let runs = 10;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            std::hint::black_box(earth.produce(key).unwrap());
        }
        eprintln!("{name}: {:.2} ms per tile ({key:?})", start.elapsed().as_secs_f64() * 1000.0 / runs as f64);
    }
}

/// `native_cells`: how many of a tile's cells the data's samples are apart. At the Qingshui
/// coast the repository's pyramid serves a coarser zoom than at Yushan, so a zoom-14 tile (about
/// 9 m cells) interpolates it: 4 or more cells (4.9 seen); at Yushan zoom 13 serves: fewer; a
/// zoom-8 tile there is coarser than its data (1); ETOPO alone over the Pacific at zoom 10 is
/// some 37 km apart (hundreds of cells).
#[test]
fn native_cells_follow_the_data_that_serves_the_tile() {
    use bisector::globe::cache::tile_producer::TileProducer;
    let earth = with_taiwan();
    let coast = earth.native_cells(tile_at(121.64, 24.2, 14)).unwrap();
    let yushan = earth.native_cells(tile_at(120.9572, 23.47, 14)).unwrap();
    let coarse = earth.native_cells(tile_at(121.64, 24.2, 8)).unwrap();
    let pacific = etopo().native_cells(tile_at(-150.0, 0.0, 10)).unwrap();
    eprintln!("coast {coast}, Yushan {yushan}, coarse {coarse}, Pacific {pacific}");
    assert!(coast >= 4.0, "coast {coast}");
    assert!(yushan < coast / 2.0, "Yushan {yushan} against the coast's {coast}");
    assert_eq!(coarse, 1.0);
    assert!(pacific > 100.0, "Pacific {pacific}");
}
