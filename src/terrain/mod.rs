//! Height sources and their GPU form: a square grid of heights in metres uploaded as an R32Float
//! texture. Sources: the built-in procedural terrain, GeoTIFF rasters and tile pyramids; `probe`
//! samples them at full resolution, the renderer draws them resampled to one texture.

pub mod bilinear;
pub mod build_tiles;
pub mod cog;
pub mod cog_cache;
pub mod cog_decode;
pub mod cog_source;
pub mod disk_cache;
pub mod geotiff;
pub mod http_source;
pub mod mbtiles;
pub mod node_bounds;
pub mod partial_archive;
pub mod pmtiles;
pub mod png16;
pub mod procedural;
pub mod projection;
pub mod pyramid;
pub mod raster;
pub mod tile_files;
pub mod tile_source;

/// A square height grid covering the terrain square [0, size_m]^2; sample (0, 0) sits at the
/// origin and sample (n-1, n-1) at (size_m, size_m). Rows run along +y, columns along +x.
#[derive(Clone, Debug)]
pub struct HeightField {
    /// Samples per side.
    pub samples_per_side: u32,
    /// Row-major heights in metres.
    pub heights_m: Vec<f32>,
    /// Side of the terrain square in metres.
    pub size_m: f32,
    /// West, south, east, north edges in metres of the part that has data (the whole square
    /// for the procedural terrain; a resampled file may have nodata margins).
    pub data_bounds_m: [f32; 4],
    /// Row-major flags of samples without data (empty when every sample has data). Their
    /// `heights_m` hold the lowest height (for the LOD bounds); the renderer does not draw them.
    pub nodata: Vec<bool>,
}

impl HeightField {
    /// Lowest and highest height in metres.
    pub fn height_range_m(&self) -> (f32, f32) {
        self.heights_m.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)))
    }

    /// Bilinear height at world position (x, y) in metres, clamped to the square (as the shaders sample).
    pub fn height_at_m(&self, x_m: f32, y_m: f32) -> f32 {
        let n = self.samples_per_side as usize;
        let scale = (n - 1) as f32 / self.size_m;
        let (px, py) = ((x_m * scale).clamp(0.0, (n - 1) as f32), (y_m * scale).clamp(0.0, (n - 1) as f32));
        let (x0, y0) = (px.floor() as usize, py.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(n - 1), (y0 + 1).min(n - 1));
        let (fx, fy) = (px - x0 as f32, py - y0 as f32);
        let h = |x: usize, y: usize| self.heights_m[y * n + x];
        bilinear::lerp2([fx, fy], [h(x0, y0), h(x1, y0), h(x0, y1), h(x1, y1)])
    }

    /// The ground height in metres under world position (x, y), bilinear as `height_at_m`; None
    /// outside the part with data or where the nearest sample has none.
    pub fn ground_m(&self, x_m: f64, y_m: f64) -> Option<f32> {
        let [west, south, east, north] = self.data_bounds_m.map(f64::from);
        if !(west..=east).contains(&x_m) || !(south..=north).contains(&y_m) {
            return None;
        }
        let n = self.samples_per_side as usize;
        let scale = (n - 1) as f64 / f64::from(self.size_m);
        let nearest = |v: f64| ((v * scale).round() as usize).min(n - 1);
        if self.nodata.get(nearest(y_m) * n + nearest(x_m)).copied().unwrap_or(false) {
            return None;
        }
        Some(self.height_at_m(x_m as f32, y_m as f32))
    }

    /// Uploads the heights as the texture "terrain.heights" (R32Float, read with textureLoad;
    /// NaN marks samples without data), a band of rows at a time so that no second copy of the
    /// grid is made (see `gpu::upload`).
    pub fn create_texture(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> wgpu::Texture {
        let n = self.samples_per_side;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("terrain.heights"),
            size: wgpu::Extent3d { width: n, height: n, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let row_len = n as usize;
        let rows_per_band = (crate::gpu::upload::CHUNK_BYTES / (4 * row_len)).max(1);
        let mut texels = Vec::new();
        for first_row in (0..row_len).step_by(rows_per_band) {
            let rows = rows_per_band.min(row_len - first_row);
            let range = first_row * row_len..(first_row + rows) * row_len;
            let band: &[f32] = if self.nodata.is_empty() {
                &self.heights_m[range]
            } else {
                texels.clear();
                texels.extend(
                    self.heights_m[range.clone()].iter().zip(&self.nodata[range]).map(|(&h, &none)| if none { f32::NAN } else { h }),
                );
                &texels
            };
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x: 0, y: first_row as u32, z: 0 },
                    aspect: wgpu::TextureAspect::All,
                },
                bytemuck::cast_slice(band),
                wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(4 * n), rows_per_image: Some(rows as u32) },
                wgpu::Extent3d { width: n, height: rows as u32, depth_or_array_layers: 1 },
            );
            crate::gpu::upload::flush(device, queue);
        }
        texture
    }
}

/// Which terrain, parsed from `--terrain SPEC`.
#[derive(Clone, Debug, PartialEq)]
pub enum TerrainSpec {
    /// The built-in procedural terrain with a seed.
    Procedural { seed: u32 },
    /// A GeoTIFF file.
    GeoTiff(std::path::PathBuf),
    /// A 16-bit greyscale PNG: heights are sample values times `scale_m`, the image `size_m` wide.
    Png16 { path: std::path::PathBuf, scale_m: f64, size_m: f64 },
    /// A tile pyramid of Terrain-RGB or Terrarium tiles: a folder with a TileJSON `tiles.json`,
    /// an `.mbtiles` or a `.pmtiles` archive, or a large tiled GeoTIFF read tile by tile
    /// (`cog_source`: tiled with overviews, or more than `cog::LAZY_MIN_SAMPLES` samples).
    Pyramid(std::path::PathBuf),
}

/// Why a terrain cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TerrainError {
    #[error("--terrain '{spec}': {problem}")]
    BadSpec { spec: String, problem: String },
    #[error("{path}: {problem}")]
    File { path: String, problem: String },
    /// A tile a remote source could not fetch this time (already counted and warned about):
    /// read as missing for now, and asked for again later.
    #[error("{url}: {problem}")]
    Unavailable { url: String, problem: String },
    /// A file too large to read, or unreadable (see `crate::input`).
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
}

/// An opened height source, queried in its own coordinates.
pub enum HeightSource {
    /// The procedural terrain: x, y in metres over [0, size]^2.
    Procedural(HeightField),
    /// A GeoTIFF: lon, lat in degrees or easting, northing in metres.
    Raster(raster::Raster),
    /// A tile pyramid: lon, lat in degrees.
    Pyramid(pyramid::TilePyramid),
}

impl HeightSource {
    /// The height in metres at (x, y) in the source's coordinates, as the renderer samples it;
    /// None where there is no data.
    pub fn sample_m(&self, x: f64, y: f64) -> Result<Option<f32>, TerrainError> {
        Ok(match self {
            HeightSource::Procedural(field) => {
                let inside = (0.0..=field.size_m as f64).contains(&x) && (0.0..=field.size_m as f64).contains(&y);
                inside.then(|| field.height_at_m(x as f32, y as f32))
            }
            HeightSource::Raster(raster) => raster.sample_m(x, y),
            HeightSource::Pyramid(pyramid) => pyramid.sample_m(x, y)?,
        })
    }
}

/// Metres per degree of latitude, and of longitude at the equator (WGS 84 mean values).
const METRES_PER_DEGREE: (f64, f64) = (110_574.0, 111_320.0);

impl HeightSource {
    /// The source's extent in its own coordinates: (west, south, east, north).
    fn extent(&self) -> (f64, f64, f64, f64) {
        match self {
            HeightSource::Procedural(field) => (0.0, 0.0, field.size_m as f64, field.size_m as f64),
            HeightSource::Raster(r) => {
                (r.origin.0, r.origin.1 - (r.height - 1) as f64 * r.step.1, r.origin.0 + (r.width - 1) as f64 * r.step.0, r.origin.1)
            }
            HeightSource::Pyramid(p) => (p.bounds[0], p.bounds[1], p.bounds[2], p.bounds[3]),
        }
    }

    /// Metres per unit of the source's x and y (1 for metric sources; for degrees, an
    /// equirectangular approximation at the extent's mid latitude).
    fn metres_per_unit(&self) -> (f64, f64) {
        let geographic = match self {
            HeightSource::Procedural(_) => false,
            HeightSource::Raster(r) => r.crs == raster::Crs::Geographic,
            HeightSource::Pyramid(_) => true,
        };
        if geographic {
            let (_, south, _, north) = self.extent();
            let mid = ((south + north) / 2.0).to_radians();
            (METRES_PER_DEGREE.1 * mid.cos(), METRES_PER_DEGREE.0)
        } else {
            (1.0, 1.0)
        }
    }

    /// A square height field of `samples_per_side`^2 samples over the source's extent (the
    /// longer side; the source's south-west corner at the origin). Where the source has no
    /// data, the field takes the lowest height it has and a nodata flag.
    pub fn to_height_field(&self, samples_per_side: u32) -> Result<HeightField, TerrainError> {
        if let HeightSource::Procedural(field) = self {
            return Ok(field.clone());
        }
        let (west, south, east, north) = self.extent();
        let (mx, my) = self.metres_per_unit();
        let size_m = ((east - west) * mx).max((north - south) * my);
        let n = samples_per_side as usize;
        let step_m = size_m / (n - 1) as f64;
        // A pyramid is read at the zoom that matches the grid's spacing (pre-filtered, and fewer tiles).
        let zoom = match self {
            HeightSource::Pyramid(p) => Some(p.zoom_for_step(step_m, ((south + north) / 2.0).to_radians())),
            _ => None,
        };
        // Rows in parallel bands, one per core, each written in place into the grid; a
        // pyramid's tiles are read once and shared.
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
        let rows_per_band = n.div_ceil(threads);
        let mut heights_m = vec![f32::NAN; n * n];
        std::thread::scope(|scope| {
            let workers: Vec<_> = heights_m
                .chunks_mut(rows_per_band * n)
                .enumerate()
                .map(|(band, out)| {
                    scope.spawn(move || {
                        let mut tiles = pyramid::TileMemo::default();
                        for (i, out_row) in out.chunks_mut(n).enumerate() {
                            let row = band * rows_per_band + i;
                            for (col, out_h) in out_row.iter_mut().enumerate() {
                                let (x, y) = (west + col as f64 * step_m / mx, south + row as f64 * step_m / my);
                                let h = match (self, zoom) {
                                    (HeightSource::Pyramid(p), Some(z)) => p.sample_via(&mut tiles, x, y, z)?,
                                    _ => self.sample_m(x, y)?,
                                };
                                *out_h = h.unwrap_or(f32::NAN);
                            }
                        }
                        Ok::<(), TerrainError>(())
                    })
                })
                .collect();
            workers.into_iter().try_for_each(|w| w.join().expect("a terrain sampling thread panicked"))
        })?;
        let lowest = heights_m.iter().copied().filter(|h| !h.is_nan()).fold(f32::INFINITY, f32::min);
        if !lowest.is_finite() {
            return Err(TerrainError::BadSpec { spec: self.describe(), problem: "has no height data at all".into() });
        }
        let nodata: Vec<bool> =
            if heights_m.iter().any(|h| h.is_nan()) { heights_m.iter().map(|h| h.is_nan()).collect() } else { Vec::new() };
        let mut bounds = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for (i, h) in heights_m.iter_mut().enumerate() {
            if h.is_nan() {
                *h = lowest;
            } else {
                let (x, y) = ((i % n) as f32 * step_m as f32, (i / n) as f32 * step_m as f32);
                bounds = [bounds[0].min(x), bounds[1].min(y), bounds[2].max(x), bounds[3].max(y)];
            }
        }
        Ok(HeightField { samples_per_side, heights_m, size_m: size_m as f32, data_bounds_m: bounds, nodata })
    }

    /// Samples along the longer side of the extent at the source's own (finest) resolution.
    pub fn native_samples(&self) -> u64 {
        let (west, south, east, north) = self.extent();
        let (mx, my) = self.metres_per_unit();
        let size_m = ((east - west) * mx).max((north - south) * my);
        let step_m = match self {
            HeightSource::Procedural(field) => field.size_m as f64 / (field.samples_per_side - 1) as f64,
            HeightSource::Raster(r) => (r.step.0 * mx).min(r.step.1 * my),
            HeightSource::Pyramid(p) => p.finest_pixel_m(((south + north) / 2.0).to_radians()),
        };
        (size_m / step_m).ceil() as u64 + 1
    }

    fn describe(&self) -> String {
        match self {
            HeightSource::Procedural(_) => "procedural".into(),
            HeightSource::Raster(r) => format!("{} x {} raster", r.width, r.height),
            HeightSource::Pyramid(_) => "tile pyramid".into(),
        }
    }
}

/// Largest height grid, in samples per side, that files are loaded into unless told otherwise
/// (one R32Float texture of 256 MiB).
pub const DEFAULT_MAX_SAMPLES: u32 = 8193;

/// Largest height grid by default on a CPU adapter (lavapipe, llvmpipe, SwiftShader), whose GPU
/// buffers and textures are the process's own memory: a shot of 2049^2 samples peaks near 0.5 GB
/// there, 4097^2 near 1 GB and 8193^2 near 1.8 GB (node bounds 0.5 GB, gradients 12 B and heights
/// 4 B a sample on the GPU, the CPU grid 5 B a sample).
pub const CPU_ADAPTER_MAX_SAMPLES: u32 = 2049;

/// The largest grid to load when --max-samples is not given, for an adapter of `device_type`.
pub fn default_max_samples(device_type: wgpu::DeviceType) -> u32 {
    if device_type == wgpu::DeviceType::Cpu {
        CPU_ADAPTER_MAX_SAMPLES
    } else {
        DEFAULT_MAX_SAMPLES
    }
}

/// The grid size, 2^k + 1 samples per side, that holds `native` samples: the smallest at least as
/// fine, capped at `max_samples`.
pub fn grid_samples(native: u64, max_samples: u32) -> u32 {
    let cells = native.saturating_sub(1).max(2).next_power_of_two();
    (cells.min(max_samples as u64 - 1) + 1) as u32
}

/// Checks a --max-samples value: 2^k + 1 with 65 <= it <= 16385.
pub fn check_max_samples(max_samples: u32) -> Result<(), TerrainError> {
    let ok = (65..=16385).contains(&max_samples) && (max_samples - 1).is_power_of_two();
    if ok {
        Ok(())
    } else {
        Err(TerrainError::BadSpec {
            spec: format!("--max-samples {max_samples}"),
            problem: "must be 2^k + 1 between 65 and 16385, e.g. 4097".into(),
        })
    }
}

/// A height field ready to draw, and a note when it is coarser than its source.
pub struct LoadedTerrain {
    pub field: HeightField,
    /// Set when the source is finer than the grid it was loaded into (say so to the user).
    pub note: Option<String>,
}

impl TerrainSpec {
    /// Parses `procedural[:SEED]`, a GeoTIFF path (.tif, .tiff), `FILE.png:SCALE_M:SIZE_M` (a
    /// 16-bit PNG, metres per sample unit, width in metres), a tile-pyramid folder or a tile
    /// archive (.mbtiles, .pmtiles).
    pub fn parse(spec: &str) -> Result<TerrainSpec, TerrainError> {
        let bad = |problem: &str| TerrainError::BadSpec { spec: spec.to_string(), problem: problem.to_string() };
        if http_source::is_url(spec) {
            return Ok(TerrainSpec::Pyramid(spec.into()));
        }
        if let Some(at) = spec.to_ascii_lowercase().find(".png") {
            let (file, options) = spec.split_at(at + 4);
            let fields: Vec<&str> = options.split(':').skip(1).collect();
            let numbers: Vec<f64> = fields.iter().filter_map(|v| v.trim().parse().ok()).collect();
            if !options.starts_with(':') || fields.len() != 2 || numbers.len() != 2 {
                return Err(bad(
                    "a 16-bit PNG needs its height scale and width: FILE.png:SCALE_M:SIZE_M, e.g. heights.png:0.1:20480 (positive numbers)",
                ));
            }
            png16::check_scale(numbers[0], numbers[1]).map_err(|problem| bad(&problem.to_string()))?;
            if !std::path::Path::new(file).is_file() {
                return Err(bad(&format!("{file} does not exist")));
            }
            return Ok(TerrainSpec::Png16 { path: file.into(), scale_m: numbers[0], size_m: numbers[1] });
        }
        let path = std::path::Path::new(spec);
        match spec.split_once(':') {
            None if spec == "procedural" => Ok(TerrainSpec::Procedural { seed: procedural::DEFAULT_SEED }),
            Some(("procedural", seed)) => seed
                .parse()
                .map(|seed| TerrainSpec::Procedural { seed })
                .map_err(|_| bad("the seed must be an unsigned 32-bit integer, e.g. procedural:7")),
            _ if path.is_dir() => Ok(TerrainSpec::Pyramid(path.to_path_buf())),
            _ if path.is_file() => match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
                // Tiled with overviews (a COG) or very large: read tile by tile, as a pyramid.
                Some("tif" | "tiff") if cog::layout(path)? == cog::Layout::Lazy => Ok(TerrainSpec::Pyramid(path.to_path_buf())),
                Some("tif" | "tiff") => Ok(TerrainSpec::GeoTiff(path.to_path_buf())),
                Some("mbtiles" | "pmtiles") => Ok(TerrainSpec::Pyramid(path.to_path_buf())),
                _ => Err(bad(
                    "height files must be GeoTIFFs (.tif, .tiff), 16-bit PNGs (FILE.png:SCALE_M:SIZE_M) or tile archives (.mbtiles, .pmtiles)",
                )),
            },
            _ => Err(bad("expected procedural[:SEED], a GeoTIFF file, a tile-pyramid folder or a tile archive (.mbtiles, .pmtiles), and no such file or folder exists")),
        }
    }

    /// Opens the source for height queries.
    pub fn open(&self) -> Result<HeightSource, TerrainError> {
        Ok(match self {
            TerrainSpec::Procedural { seed } => {
                HeightSource::Procedural(procedural::generate(*seed, procedural::DEFAULT_SAMPLES, procedural::DEFAULT_SIZE_M))
            }
            TerrainSpec::GeoTiff(path) => HeightSource::Raster(geotiff::read(path)?),
            TerrainSpec::Png16 { path, scale_m, size_m } => HeightSource::Raster(png16::read(path, *scale_m, *size_m)?),
            TerrainSpec::Pyramid(path) => HeightSource::Pyramid(pyramid::TilePyramid::open(path)?),
        })
    }

    /// The height field the renderer draws: the procedural grid, or the source resampled over its
    /// extent to the grid of 2^k + 1 samples per side that is at least as fine as the source, or
    /// to `max_samples` when the source is finer (the finest level that fits; full resolution
    /// streams with the GPU tile cache).
    pub fn load(&self, max_samples: u32) -> Result<LoadedTerrain, TerrainError> {
        let source = self.open()?;
        if let HeightSource::Procedural(field) = source {
            return Ok(LoadedTerrain { field, note: None });
        }
        let native = source.native_samples();
        let samples = grid_samples(native, max_samples);
        let field = source.to_height_field(samples)?;
        let note = (native > samples as u64).then(|| {
            let step_m = field.size_m as f64 / (samples - 1) as f64;
            let native_m = field.size_m as f64 / (native - 1) as f64;
            format!(
                "note: {} has about {native} samples across ({native_m:.1} m apart); loaded at the finest level that fits, {samples}x{samples} samples {step_m:.1} m apart (--max-samples {max_samples})",
                self.path_display()
            )
        });
        Ok(LoadedTerrain { field, note })
    }

    fn path_display(&self) -> String {
        match self {
            TerrainSpec::Procedural { seed } => format!("procedural:{seed}"),
            TerrainSpec::GeoTiff(path) | TerrainSpec::Png16 { path, .. } | TerrainSpec::Pyramid(path) => path.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_adapters_load_a_smaller_grid_by_default() {
        assert_eq!(default_max_samples(wgpu::DeviceType::Cpu), CPU_ADAPTER_MAX_SAMPLES);
        assert_eq!(default_max_samples(wgpu::DeviceType::DiscreteGpu), DEFAULT_MAX_SAMPLES);
        for samples in [CPU_ADAPTER_MAX_SAMPLES, DEFAULT_MAX_SAMPLES] {
            check_max_samples(samples).unwrap();
        }
        const { assert!(CPU_ADAPTER_MAX_SAMPLES < DEFAULT_MAX_SAMPLES) };
    }
}
