//! The planet's real-data height source (`--terrain planet:BASE[,REGION...]`): a global base
//! raster with regional tile pyramids or rasters layered over it, resampled onto the tiles of the
//! octahedral map (src/globe/cache/tile_layout.rs) for the GPU tile cache.
//!
//! ```text
//! Per texel: map point -> octahedral::wrap -> unit vector n -> (lon, lat); texel spacing s from n
//! and the tile's zoom (`texel_step_m`). Then
//!   h = base(lon, lat)                         bilinear, longitude wrapped, polar caps
//!   for each region, coarsest first:
//!     h = h + w (region(lon, lat, s) - h)      region read at the zoom whose pixels match s
//!     w = feather(lon, lat) * coverage
//! coverage: the bilinear share of the region's own pixels that have data (falls from 1 to 0
//!   across one region pixel at a nodata edge, e.g. Taiwan's sea).
//! sea rule: where base(lon, lat) < 0 m, a region pixel within SEA_BAND_M of 0 m is sea without
//!   a depth. Real pyramids store sea level (0 m), not nodata, over the sea near their land
//!   (Taiwan's does, out to its bounds), which would otherwise cover the base's sea floor with a
//!   flat rectangle at 0 m; and their sea holds resampling noise a metre or few off 0 m (Taiwan's,
//!   off the Qingshui cliffs: rows of -2, -1, 1 and 3 m, drawn as striped land in the sea before).
//!   There the region's value comes from its other (land) pixels, with coverage c_land, and its
//!   sea pixels (share c_sea) pull towards sea level only near land:
//!     h = h + w (c_land (land - h) + c_sea k (0 - h))
//!     k = 1 - smoothstep(d_land / FEATHER_M), d_land: distance from the nearest land node
//!   so the sea floor falls from 0 m at the coast to the base's depth FEATHER_M offshore (and is
//!   the base's, bit for bit, beyond), while land keeps the region's heights up to the coast
//!   (land within SEA_BAND_M of sea level there, such as a beach, goes to the sea).
//!   (Counting the sea pixels as plain no data would move the feather's edge to the coast and
//!   pull the land within FEATHER_M of it towards the base's coarse sea floor: Hualien, 10 m,
//!   came out at -315 m.) Where the base is at or above 0 m, 0 m pixels are ordinary data.
//! feather: precomputed at open on a lon/lat grid of FEATHER_M / 6 cells over the region's
//!   bounds: d = distance (chamfer, metres) from a node to the nearest node without data or
//!   outside the bounds; weight = smoothstep((d - 1.5 cells) / FEATHER_M), read bilinearly.
//!   So a region fades in over FEATHER_M inside its data edge: the largest extra slope the
//!   blend adds is 1.5 |region - base| / FEATHER_M (the smoothstep's steepest slope).
//! Everything after the wrapped map point depends only on n and the zoom, so two tiles that
//! share a sample (also across the folds, where mirrored map points give the same n bit for
//! bit) give it the same height, bit for bit.
//! ```

use std::path::{Path, PathBuf};

use glam::{DVec2, DVec3};

use crate::globe::cache::tile_key::{TileKey, MAX_ZOOM};
use crate::globe::cache::tile_layout::{texel_map_point, TILE_INTERVALS, TILE_SIDE, TILE_TEXELS};
use crate::globe::cache::tile_producer::TileProducer;
use crate::globe::EARTH_RADIUS_M;
use crate::leb::octahedral;
use crate::terrain::bilinear;
use crate::terrain::pyramid::{TileMemo, TilePyramid};
use crate::terrain::raster::{Crs, Raster};
use crate::terrain::{HeightSource, TerrainError, TerrainSpec};

/// The tile-key source of the planet's heights.
pub const EARTH_SOURCE: u8 = 0;

/// How far inside a region's data edge (nodata or bounds) it fades in over the base, in metres.
pub const FEATHER_M: f64 = 6000.0;

/// Under the sea rule (where the base is below 0 m), region pixels within this many metres of
/// 0 m are sea: the module header says why.
pub const SEA_BAND_M: f32 = 3.5;

/// Metres per degree of latitude, and of longitude at the equator.
const METRES_PER_DEGREE: (f64, f64) = (110_574.0, 111_320.0);

/// Largest feather grid of a region, in nodes (coarser cells beyond).
const MAX_FEATHER_NODES: usize = 1 << 22;

/// The whole Earth: a global base raster and regions layered over it, finest data winning.
pub struct LayeredEarth {
    base: GlobalRaster,
    /// Coarsest first: the finest is blended last and wins where it has data.
    regions: Vec<Region>,
    max_zoom: u8,
}

/// A geographic raster covering the globe.
struct GlobalRaster {
    raster: Raster,
    /// Columns in 360 degrees (the raster may repeat the first column at the end).
    cols_per_turn: i64,
    /// Mean of the first and of the last row: the heights at the north and south poles.
    pole_m: (f64, f64),
    /// Sample spacing in metres (along a meridian).
    pixel_m: f64,
}

enum RegionData {
    Pyramid(TilePyramid),
    Raster(Raster),
}

struct Region {
    data: RegionData,
    /// West, south, east, north in degrees.
    bounds: [f64; 4],
    /// Finest pixel size in metres at the region's centre.
    pixel_m: f64,
    feather: FeatherGrid,
}

/// Blend weights on a lon/lat grid of nodes over a region's bounds (see the module header).
struct FeatherGrid {
    west: f64,
    south: f64,
    d_lon: f64,
    d_lat: f64,
    nx: usize,
    ny: usize,
    weights: Vec<f32>,
    /// k of the sea rule: 1 on land nodes, falling to 0 FEATHER_M from the nearest one.
    sea_level: Vec<f32>,
}

/// Per-call state of the samplers: one pyramid tile cache per region.
struct Scratch {
    caches: Vec<TileMemo>,
}

/// Distance in metres between neighbouring texels at unit vector `n` on a tile of `zoom`: the
/// octahedral map's scale 2 sqrt(2) |n|_1 (exact at the faces' centres, at most sqrt(2) too
/// large near the octahedron's vertices) times the map spacing 1 / (TILE_INTERVALS 2^zoom). A
/// function of n, so mirrored map points across a fold get the same spacing.
pub fn texel_step_m(n: DVec3, zoom: u8) -> f64 {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    EARTH_RADIUS_M * 2.0 * std::f64::consts::SQRT_2 * l1 / (TILE_INTERVALS as f64 * (1u64 << zoom) as f64)
}

/// The smallest zoom whose texels at a point of L1 norm `l1` are at most `pixel_m` apart.
fn zoom_for_pixel(pixel_m: f64, l1: f64) -> u8 {
    let zoom_0_m = texel_step_m(DVec3::new(l1, 0.0, 0.0), 0);
    (zoom_0_m / pixel_m).log2().ceil().clamp(0.0, MAX_ZOOM as f64) as u8
}

fn file_error(path: &Path, problem: impl Into<String>) -> TerrainError {
    TerrainError::File { path: path.display().to_string(), problem: problem.into() }
}

/// Opens a raster or pyramid through the `--terrain` code (errors name the file).
fn open_source(path: &Path) -> Result<HeightSource, TerrainError> {
    let url = path.to_str().is_some_and(crate::terrain::http_source::is_url);
    if !url && !path.exists() {
        return Err(file_error(path, "no such file or folder"));
    }
    let spec = path.to_str().ok_or_else(|| file_error(path, "the path is not valid UTF-8"))?;
    TerrainSpec::parse(spec)?.open()
}

fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Bilinear mean of (value, weight) samples without NaN ones, renormalised; NaN when none has data.
fn weighted_mean(samples: [(f64, f64); 4]) -> f64 {
    let (mut sum, mut weight) = (0.0, 0.0);
    for (h, w) in samples {
        if !h.is_nan() && w > 0.0 {
            sum += h * w;
            weight += w;
        }
    }
    if weight > 0.0 {
        sum / weight
    } else {
        f64::NAN
    }
}

impl GlobalRaster {
    fn new(path: &Path, raster: Raster) -> Result<GlobalRaster, TerrainError> {
        if raster.crs != Crs::Geographic {
            return Err(file_error(path, "the planet's base must be a geographic (EPSG:4326 lon/lat) raster; this one is projected"));
        }
        let (w, h) = (raster.width as f64, raster.height as f64);
        let (dx, dy) = raster.step;
        let cols_per_turn = (360.0 / dx).round();
        let north = raster.origin.1;
        let south = north - (h - 1.0) * dy;
        let (lon_span, lat_span) = (w * dx, h * dy);
        let whole_turn = (cols_per_turn * dx - 360.0).abs() < 1e-6 && (cols_per_turn..=cols_per_turn + 1.0).contains(&w);
        let pole_to_pole = north >= 90.0 - dy && north <= 90.0 + 1e-9 && south <= -90.0 + dy && south >= -90.0 - 1e-9;
        if !whole_turn || !pole_to_pole {
            return Err(file_error(
                path,
                format!(
                    "not a global raster: it covers {lon_span:.3} x {lat_span:.3} degrees (lon {:.4}..{:.4}, lat {south:.4}..{north:.4}); the planet's base must cover 360 x 180 degrees",
                    raster.origin.0,
                    raster.origin.0 + (w - 1.0) * dx
                ),
            ));
        }
        let row_mean = |row: u32| weighted_mean_row(&raster, row);
        let pole_m = (row_mean(0), row_mean(raster.height - 1));
        Ok(GlobalRaster { cols_per_turn: cols_per_turn as i64, pole_m, pixel_m: dy * METRES_PER_DEGREE.0, raster })
    }

    /// Bilinear along row `row` at longitude `lon` (wrapped around the globe).
    fn row_at(&self, row: u32, lon: f64) -> f64 {
        let r = &self.raster;
        let col = (lon - r.origin.0) / r.step.0;
        let c0 = col.floor();
        let f = col - c0;
        let index = |c: f64| (c as i64).rem_euclid(self.cols_per_turn) as usize + (row * r.width) as usize;
        weighted_mean([
            (r.heights_m[index(c0)] as f64, 1.0 - f),
            (r.heights_m[index(c0 + 1.0)] as f64, f),
            (f64::NAN, 0.0),
            (f64::NAN, 0.0),
        ])
    }

    /// The height at (lon, lat): bilinear between rows; beyond the first (last) row, blended
    /// towards the mean of that row, reached at the pole, so the pole has one height.
    fn sample(&self, lon: f64, lat: f64) -> f64 {
        let r = &self.raster;
        let last = r.height - 1;
        let (north, south) = (r.origin.1, r.origin.1 - last as f64 * r.step.1);
        if lat > north {
            let t = ((lat - north) / (90.0 - north)).min(1.0);
            return (1.0 - t) * self.row_at(0, lon) + t * self.pole_m.0;
        }
        if lat < south {
            let t = ((south - lat) / (south + 90.0)).min(1.0);
            return (1.0 - t) * self.row_at(last, lon) + t * self.pole_m.1;
        }
        let row = ((north - lat) / r.step.1).clamp(0.0, last as f64);
        let r0 = (row.floor() as u32).min(last.saturating_sub(1));
        let f = row - r0 as f64;
        weighted_mean([(self.row_at(r0, lon), 1.0 - f), (self.row_at(r0 + 1, lon), f), (f64::NAN, 0.0), (f64::NAN, 0.0)])
    }
}

fn weighted_mean_row(raster: &Raster, row: u32) -> f64 {
    let samples = &raster.heights_m[(row * raster.width) as usize..((row + 1) * raster.width) as usize];
    let (sum, count) = samples.iter().filter(|h| !h.is_nan()).fold((0.0, 0u32), |(s, c), &h| (s + h as f64, c + 1));
    if count > 0 {
        sum / count as f64
    } else {
        f64::NAN
    }
}

impl Region {
    fn open(path: &Path, base: &GlobalRaster) -> Result<Region, TerrainError> {
        let (data, bounds) = match open_source(path)? {
            HeightSource::Pyramid(p) => {
                let bounds = p.bounds;
                (RegionData::Pyramid(p), bounds)
            }
            HeightSource::Raster(r) if r.crs == Crs::Geographic => {
                let bounds =
                    [r.origin.0, r.origin.1 - (r.height - 1) as f64 * r.step.1, r.origin.0 + (r.width - 1) as f64 * r.step.0, r.origin.1];
                (RegionData::Raster(r), bounds)
            }
            _ => return Err(file_error(
                path,
                "a planet region must be a tile archive (.mbtiles, .pmtiles), a tile-pyramid folder or a geographic (EPSG:4326) GeoTIFF",
            )),
        };
        if !(bounds[0] < bounds[2]
            && bounds[1] < bounds[3]
            && bounds[0] >= -180.0
            && bounds[2] <= 180.0
            && bounds[1] >= -90.0
            && bounds[3] <= 90.0)
        {
            return Err(file_error(path, format!("region bounds {bounds:?} are not west < east, south < north within -180..180, -90..90")));
        }
        let mid_lat = ((bounds[1] + bounds[3]) / 2.0).to_radians();
        let pixel_m = match &data {
            RegionData::Pyramid(p) => p.finest_pixel_m(mid_lat),
            RegionData::Raster(r) => (r.step.0 * METRES_PER_DEGREE.1 * mid_lat.cos()).min(r.step.1 * METRES_PER_DEGREE.0),
        };
        let mut region = Region {
            data,
            bounds,
            pixel_m,
            feather: FeatherGrid {
                west: 0.0,
                south: 0.0,
                d_lon: 1.0,
                d_lat: 1.0,
                nx: 0,
                ny: 0,
                weights: Vec::new(),
                sea_level: Vec::new(),
            },
        };
        region.feather = FeatherGrid::build(&region, base)?;
        Ok(region)
    }

    /// The region's height and coverage at (lon, lat), read at the level matching `step_m`;
    /// with `land_only`, pixels within SEA_BAND_M of 0 m count as no data.
    fn sample(&self, cache: &mut TileMemo, lon: f64, lat: f64, step_m: f64, land_only: bool) -> Result<Option<(f32, f64)>, TerrainError> {
        Ok(match &self.data {
            RegionData::Pyramid(p) => {
                p.sample_coverage_via(cache, lon, lat, p.zoom_for_step(step_m, lat.to_radians()), land_only.then_some(SEA_BAND_M))?
            }
            RegionData::Raster(r) => r.sample_coverage_m(lon, lat, land_only.then_some(SEA_BAND_M)),
        })
    }

    /// The spacing in metres of the samples the region reads at (lon, lat) for texels `step_m`
    /// apart: a pyramid's serving zoom's pixels, or the raster's; None where it has no tile.
    fn data_spacing_m(&self, cache: &mut TileMemo, lon: f64, lat: f64, step_m: f64) -> Result<Option<f64>, TerrainError> {
        Ok(match &self.data {
            RegionData::Pyramid(p) => {
                let zoom = p.serving_zoom_via(cache, lon, lat, p.zoom_for_step(step_m, lat.to_radians()))?;
                zoom.map(|z| p.pixel_m_at(z, lat.to_radians()))
            }
            RegionData::Raster(_) => Some(self.pixel_m),
        })
    }

    /// What the region adds at (lon, lat) to a height `h` below it (the module header's formula
    /// without the feather w): (land height, c_land, c_sea k), or None where it has no data.
    /// `over_sea`: the base is below 0 m there (the sea rule applies).
    fn blend_terms(
        &self,
        cache: &mut TileMemo,
        lon: f64,
        lat: f64,
        step_m: f64,
        over_sea: bool,
    ) -> Result<Option<(f64, f64, f64)>, TerrainError> {
        let Some((all_m, all_coverage)) = self.sample(cache, lon, lat, step_m, false)? else { return Ok(None) };
        if !over_sea {
            return Ok(Some((all_m as f64, all_coverage, 0.0)));
        }
        let (land_m, land_coverage) = self.sample(cache, lon, lat, step_m, true)?.map_or((0.0, 0.0), |(h, c)| (h as f64, c));
        let sea_coverage = (all_coverage - land_coverage).max(0.0);
        Ok(Some((land_m, land_coverage, sea_coverage * self.feather.sea_level(lon, lat))))
    }

    fn contains(&self, lon: f64, lat: f64) -> bool {
        (self.bounds[0]..=self.bounds[2]).contains(&lon) && (self.bounds[1]..=self.bounds[3]).contains(&lat)
    }
}

impl FeatherGrid {
    /// Samples where `region` has data (over `base`, for the sea rule) on nodes FEATHER_M / 6
    /// apart (read at that resolution), then turns the distance to the nearest node without data
    /// into a weight.
    fn build(region: &Region, base: &GlobalRaster) -> Result<FeatherGrid, TerrainError> {
        let [west, south, east, north] = region.bounds;
        let cos_mid = ((south + north) / 2.0).to_radians().cos().max(1e-3);
        let mut cell_m = FEATHER_M / 6.0;
        let (nx, ny) = loop {
            let nx = ((east - west) * METRES_PER_DEGREE.1 * cos_mid / cell_m).ceil() as usize + 1;
            let ny = ((north - south) * METRES_PER_DEGREE.0 / cell_m).ceil() as usize + 1;
            if nx * ny <= MAX_FEATHER_NODES {
                break (nx.max(2), ny.max(2));
            }
            cell_m *= 2.0;
        };
        let (d_lon, d_lat) = ((east - west) / (nx - 1) as f64, (north - south) / (ny - 1) as f64);
        let mut cache = TileMemo::default();
        // Distances to the nearest node without data, and (sea rule) to the nearest land node.
        let mut to_edge_m = vec![0.0f64; nx * ny];
        let mut to_land_m = vec![0.0f64; nx * ny];
        for j in 0..ny {
            for i in 0..nx {
                let (lon, lat) = (west + i as f64 * d_lon, south + j as f64 * d_lat);
                let has_data = region.sample(&mut cache, lon, lat, cell_m, false)?.is_some();
                let land = has_data && (base.sample(lon, lat) >= 0.0 || region.sample(&mut cache, lon, lat, cell_m, true)?.is_some());
                to_edge_m[j * nx + i] = if has_data { f64::INFINITY } else { 0.0 };
                to_land_m[j * nx + i] = if land { 0.0 } else { f64::INFINITY };
            }
        }
        let (cx, cy) = (d_lon * METRES_PER_DEGREE.1 * cos_mid, d_lat * METRES_PER_DEGREE.0);
        chamfer(&mut to_edge_m, nx, (cx, cy), 0.0);
        chamfer(&mut to_land_m, nx, (cx, cy), f64::INFINITY);
        let margin_m = 1.5 * cx.max(cy);
        let weights = to_edge_m.iter().map(|&d| smoothstep((d - margin_m) / FEATHER_M) as f32).collect();
        let sea_level = to_land_m.iter().map(|&d| (1.0 - smoothstep(d / FEATHER_M)) as f32).collect();
        Ok(FeatherGrid { west, south, d_lon, d_lat, nx, ny, weights, sea_level })
    }

    /// The feather weight at (lon, lat), bilinear between nodes; 0 outside the grid.
    fn weight(&self, lon: f64, lat: f64) -> f64 {
        self.bilinear(&self.weights, lon, lat)
    }

    /// The sea rule's k at (lon, lat), bilinear between nodes; 0 outside the grid.
    fn sea_level(&self, lon: f64, lat: f64) -> f64 {
        self.bilinear(&self.sea_level, lon, lat)
    }

    fn bilinear(&self, values: &[f32], lon: f64, lat: f64) -> f64 {
        let (x, y) = ((lon - self.west) / self.d_lon, (lat - self.south) / self.d_lat);
        let (max_x, max_y) = ((self.nx - 1) as f64, (self.ny - 1) as f64);
        if !(0.0..=max_x).contains(&x) || !(0.0..=max_y).contains(&y) {
            return 0.0;
        }
        let (x0, y0) = (x.floor().min(max_x - 1.0), y.floor().min(max_y - 1.0));
        let (fx, fy) = (x - x0, y - y0);
        let k = y0 as usize * self.nx + x0 as usize;
        let corners = [k, k + 1, k + self.nx, k + self.nx + 1].map(|k| values[k] as f64);
        corners.iter().zip(bilinear::weights(fx, fy)).map(|(v, w)| v * w).sum()
    }
}

/// Two-pass chamfer distance in place on a grid `nx` nodes wide with node spacing (cx, cy)
/// metres: nodes start at 0 (sources) or infinity; beyond the grid counts as `outside_m`.
fn chamfer(distance_m: &mut [f64], nx: usize, (cx, cy): (f64, f64), outside_m: f64) {
    let ny = distance_m.len() / nx;
    let cd = cx.hypot(cy);
    let at = |d: &[f64], i: isize, j: isize| {
        if i < 0 || j < 0 || i >= nx as isize || j >= ny as isize {
            outside_m
        } else {
            d[j as usize * nx + i as usize]
        }
    };
    for j in 0..ny as isize {
        for i in 0..nx as isize {
            let k = j as usize * nx + i as usize;
            distance_m[k] = distance_m[k]
                .min(at(distance_m, i - 1, j) + cx)
                .min(at(distance_m, i, j - 1) + cy)
                .min(at(distance_m, i - 1, j - 1) + cd)
                .min(at(distance_m, i + 1, j - 1) + cd);
        }
    }
    for j in (0..ny as isize).rev() {
        for i in (0..nx as isize).rev() {
            let k = j as usize * nx + i as usize;
            distance_m[k] = distance_m[k]
                .min(at(distance_m, i + 1, j) + cx)
                .min(at(distance_m, i, j + 1) + cy)
                .min(at(distance_m, i + 1, j + 1) + cd)
                .min(at(distance_m, i - 1, j + 1) + cd);
        }
    }
}

impl LayeredEarth {
    /// Opens the global base raster `base` (geographic, covering 360 x 180 degrees) and the
    /// regions (tile pyramids: folders, .mbtiles or .pmtiles; or geographic GeoTIFFs) layered over it. Errors name the file.
    pub fn open(base: &Path, regions: &[PathBuf]) -> Result<LayeredEarth, TerrainError> {
        if base.is_dir() {
            return Err(file_error(base, "the planet's base must be a global GeoTIFF, not a folder"));
        }
        // Refused before anything is opened: an address would be fetched (and its failures warned
        // about) before the kind was known.
        let kind = crate::terrain::tile_source::archive_kind(base);
        if base.to_str().is_some_and(crate::terrain::http_source::is_url) || matches!(kind, Some("mbtiles" | "pmtiles")) {
            return Err(file_error(
                base,
                "the planet's base must be a global GeoTIFF; tile sources (addresses, .mbtiles, .pmtiles) serve as regions after it",
            ));
        }
        let base = match open_source(base)? {
            HeightSource::Raster(raster) => GlobalRaster::new(base, raster)?,
            // A GeoTIFF read lazily (a COG): its finest level that fits is held whole.
            HeightSource::Pyramid(_) if kind == Some("geotiff") => {
                GlobalRaster::new(base, crate::terrain::cog::read_level_that_fits(base, crate::terrain::cog::LAZY_MIN_SAMPLES)?)?
            }
            _ => return Err(file_error(base, "the planet's base must be a global geographic GeoTIFF")),
        };
        let mut regions = regions.iter().map(|path| Region::open(path, &base)).collect::<Result<Vec<_>, _>>()?;
        regions.sort_by(|a, b| b.pixel_m.total_cmp(&a.pixel_m));
        let base_zoom = zoom_for_pixel(base.pixel_m, 3f64.sqrt());
        let max_zoom = regions
            .iter()
            .map(|r| {
                let n = octahedral::from_lon_lat_deg((r.bounds[0] + r.bounds[2]) / 2.0, (r.bounds[1] + r.bounds[3]) / 2.0);
                zoom_for_pixel(r.pixel_m, n.x.abs() + n.y.abs() + n.z.abs())
            })
            .fold(base_zoom, u8::max);
        Ok(LayeredEarth { base, regions, max_zoom })
    }

    fn scratch(&self) -> Scratch {
        Scratch { caches: self.regions.iter().map(|_| TileMemo::default()).collect() }
    }

    /// The height in metres at (lon, lat) in degrees as a tile with texels `step_m` apart
    /// samples it (the same code `produce` runs per texel); NaN where no layer has data.
    pub fn height_at_lon_lat_m(&self, lon_deg: f64, lat_deg: f64, step_m: f64) -> Result<f32, TerrainError> {
        let lon = if (-180.0..=180.0).contains(&lon_deg) { lon_deg } else { (lon_deg + 180.0).rem_euclid(360.0) - 180.0 };
        self.height(&mut self.scratch(), lon, lat_deg.clamp(-90.0, 90.0), step_m)
    }

    /// The weight (0..=1) with which the finest region covering (lon, lat) replaces the layers
    /// below it there, at texel spacing `step_m` (0 where no region has data).
    pub fn region_weight(&self, lon_deg: f64, lat_deg: f64, step_m: f64) -> Result<f64, TerrainError> {
        let mut scratch = self.scratch();
        let over_sea = self.base.sample(lon_deg, lat_deg) < 0.0;
        for (region, cache) in self.regions.iter().zip(&mut scratch.caches).rev() {
            if !region.contains(lon_deg, lat_deg) {
                continue;
            }
            let w = region.feather.weight(lon_deg, lat_deg);
            if w > 0.0 {
                if let Some((_, land, sea)) = region.blend_terms(cache, lon_deg, lat_deg, step_m, over_sea)? {
                    return Ok(w * (land + sea));
                }
            }
        }
        Ok(0.0)
    }

    fn height(&self, scratch: &mut Scratch, lon: f64, lat: f64, step_m: f64) -> Result<f32, TerrainError> {
        let mut h = self.base.sample(lon, lat);
        let over_sea = h < 0.0;
        for (region, cache) in self.regions.iter().zip(&mut scratch.caches) {
            if !region.contains(lon, lat) {
                continue;
            }
            let w = region.feather.weight(lon, lat);
            if w <= 0.0 {
                continue;
            }
            let Some((land_m, land, sea)) = region.blend_terms(cache, lon, lat, step_m, over_sea)? else { continue };
            h = if h.is_nan() { land_m } else { h + w * (land * (land_m - h) + sea * (0.0 - h)) };
        }
        Ok(h as f32)
    }

    /// The height at map point `p` (already folded into the square) on a tile of `zoom`.
    fn height_at_map_point(&self, scratch: &mut Scratch, p: DVec2, zoom: u8) -> Result<f32, TerrainError> {
        let n = octahedral::to_unit_sphere(p);
        let (lon, lat) = octahedral::lon_lat_deg(n);
        self.height(scratch, lon, lat, texel_step_m(n, zoom))
    }
}

impl TileProducer for LayeredEarth {
    fn source(&self) -> u8 {
        EARTH_SOURCE
    }

    /// The zoom whose texels are as fine as the finest region's pixels (at its centre), or as the
    /// base's (at the coarsest texels of the map) when that is deeper.
    fn max_zoom(&self) -> u8 {
        self.max_zoom
    }

    /// The finest spacing of the data at the tile's centre and corners: the finest region with
    /// data there (its serving zoom), else the base.
    fn native_cells(&self, key: TileKey) -> Result<f32, TerrainError> {
        let mut scratch = self.scratch();
        let mut spacing_m = self.base.pixel_m;
        let mut step_m = f64::INFINITY;
        for (i, j) in [(65, 65), (1, 1), (129, 1), (1, 129), (129, 129)] {
            let n = octahedral::to_unit_sphere(octahedral::wrap(texel_map_point(key, i, j)));
            let (lon, lat) = octahedral::lon_lat_deg(n);
            let step = texel_step_m(n, key.zoom);
            step_m = step_m.min(step);
            for (region, cache) in self.regions.iter().zip(&mut scratch.caches) {
                if region.contains(lon, lat) && region.feather.weight(lon, lat) > 0.0 {
                    if let Some(s) = region.data_spacing_m(cache, lon, lat, step)? {
                        spacing_m = spacing_m.min(s);
                    }
                }
            }
        }
        Ok((spacing_m / step_m).max(1.0) as f32)
    }

    fn produce(&self, key: TileKey) -> Result<Vec<f32>, TerrainError> {
        let mut scratch = self.scratch();
        let mut heights = Vec::with_capacity(TILE_TEXELS);
        for j in 0..TILE_SIDE {
            for i in 0..TILE_SIDE {
                let p = octahedral::wrap(texel_map_point(key, i, j));
                heights.push(self.height_at_map_point(&mut scratch, p, key.zoom)?);
            }
        }
        Ok(heights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raster(width: u32, height: u32, origin: (f64, f64), step: (f64, f64), f: impl Fn(f64, f64) -> f32) -> Raster {
        let mut heights_m = Vec::new();
        for row in 0..height {
            for col in 0..width {
                heights_m.push(f(origin.0 + col as f64 * step.0, origin.1 - row as f64 * step.1));
            }
        }
        Raster { width, height, heights_m, origin, step, crs: Crs::Geographic }
    }

    /// A 10-degree global grid, PixelIsArea-like (samples at cell centres), height = longitude.
    fn global(f: impl Fn(f64, f64) -> f32) -> GlobalRaster {
        GlobalRaster::new(Path::new("test.tif"), raster(36, 18, (-175.0, 85.0), (10.0, 10.0), f)).unwrap()
    }

    #[test]
    fn the_base_wraps_in_longitude_and_meets_at_the_poles() {
        let base = global(|lon, _| lon as f32);
        // Between the last column (175) and the first (-175): halfway, the mean.
        assert_eq!(base.sample(180.0, 0.0), 0.0);
        assert_eq!(base.sample(-180.0, 0.0), 0.0);
        assert_eq!(base.sample(177.5, 0.0), 87.5);
        assert_eq!(base.sample(-175.0, 5.0), -175.0);
        // Every longitude meets the first row's mean at the pole.
        for lon in [-170.0, 0.0, 33.0, 180.0] {
            assert_eq!(base.sample(lon, 90.0), base.pole_m.0);
            assert_eq!(base.sample(lon, -90.0), base.pole_m.1);
        }
        assert!(base.sample(10.0, 87.5).is_finite());
    }

    #[test]
    fn a_raster_short_of_the_globe_is_refused() {
        let error =
            GlobalRaster::new(Path::new("half.tif"), raster(18, 18, (-175.0, 85.0), (10.0, 10.0), |_, _| 0.0)).err().unwrap().to_string();
        assert!(error.starts_with("half.tif: not a global raster: it covers 180.000 x 180.000 degrees"), "{error}");
        let error =
            GlobalRaster::new(Path::new("cap.tif"), raster(36, 9, (-175.0, 85.0), (10.0, 10.0), |_, _| 0.0)).err().unwrap().to_string();
        assert!(error.contains("360.000 x 90.000"), "{error}");
        // -180..180 inclusive (the first column repeated) is global too.
        assert!(GlobalRaster::new(Path::new("full.tif"), raster(37, 19, (-180.0, 90.0), (10.0, 10.0), |_, _| 0.0)).is_ok());
    }

    #[test]
    fn texel_spacing_and_zooms() {
        // Zoom 0 at the face centre: an octahedron face's map triangle (side 1/2) has 64 texel
        // steps per half side; the formula is exact there.
        let centre = DVec3::ONE.normalize();
        let step = texel_step_m(centre, 0);
        let p = octahedral::from_unit_sphere(centre);
        let q = octahedral::to_unit_sphere(p + DVec2::new(1.0 / 128.0, 0.0));
        let true_m = (q - centre).length() * EARTH_RADIUS_M;
        assert!((step / true_m - 1.0).abs() < 0.01, "{step} vs {true_m}");
        // ETOPO's 1/3-degree pixels (36.9 km): zoom 3 at the coarsest texels.
        assert_eq!(zoom_for_pixel(36_858.0, 3f64.sqrt()), 3);
        assert_eq!(texel_step_m(centre, 1), step / 2.0);
    }

    #[test]
    fn the_feather_fades_in_inside_the_data_edge() {
        // A 1-degree region with data east of 10.5E only.
        let r = raster(101, 101, (10.0, 1.0), (0.01, 0.01), |lon, _| if lon < 10.5 { f32::NAN } else { 100.0 });
        let mut region = Region {
            bounds: [10.0, 0.0, 11.0, 1.0],
            pixel_m: 1000.0,
            data: RegionData::Raster(r),
            feather: FeatherGrid {
                west: 0.0,
                south: 0.0,
                d_lon: 1.0,
                d_lat: 1.0,
                nx: 0,
                ny: 0,
                weights: Vec::new(),
                sea_level: Vec::new(),
            },
        };
        region.feather = FeatherGrid::build(&region, &global(|_, _| 100.0)).unwrap();
        let w = |lon: f64| region.feather.weight(lon, 0.5);
        assert_eq!(w(10.4), 0.0);
        // Nodes a sample west of 10.5E still see data (bilinear), so the fade starts just inside.
        assert_eq!(w(10.49), 0.0);
        assert!(w(10.5) < 0.05, "{}", w(10.5));
        // Full weight FEATHER_M (+ margin, about 0.07 degrees) inside the edge, and monotone.
        assert!(w(10.62) > 0.99, "{}", w(10.62));
        let mut last = 0.0;
        for k in 0..=100 {
            let v = w(10.5 + k as f64 * 0.001);
            assert!(v >= last - 1e-6, "not monotone at {k}");
            last = v;
        }
        assert_eq!(w(9.0), 0.0);
    }
}
