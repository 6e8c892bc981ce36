//! The command line: the commands, their flags, and the options every rendering command shares.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use bisector::flat::RenderSettings;

use crate::kernel::KernelCommand;

#[derive(Parser)]
#[command(
    name = "bisector",
    version,
    about = "GPU terrain level of detail: concurrent binary tree + longest-edge bisection",
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    #[command(flatten)]
    pub(crate) tiles: TileArgs,
}

/// How `--terrain http(s)://...` sources fetch and cache tiles, and how much memory large
/// GeoTIFFs read tile by tile keep (every command).
#[derive(clap::Args, Clone)]
pub(crate) struct TileArgs {
    /// The disk cache of tiles fetched over HTTP (default: $XDG_CACHE_HOME/bisector/tiles, or
    /// ~/.cache/bisector/tiles), least recently used tiles evicted past --tile-cache-mib.
    #[arg(long, global = true)]
    pub(crate) tile_cache_dir: Option<PathBuf>,
    /// Most MiB the tile disk cache holds.
    #[arg(long, global = true, default_value_t = 2048)]
    pub(crate) tile_cache_mib: u64,
    /// Read tiles from the disk cache only (no network); tiles not there are missing.
    #[arg(long, global = true)]
    pub(crate) offline: bool,
    /// The encoding of tiles fetched over HTTP, over what their TileJSON says (default: the
    /// TileJSON's, else terrain-rgb).
    #[arg(long, global = true, value_enum)]
    pub(crate) tile_encoding: Option<TileEncodingArg>,
    /// Seconds to wait for one tile over HTTP before trying again.
    #[arg(long, global = true, default_value_t = 10.0)]
    pub(crate) tile_timeout_s: f64,
    /// MiB of decoded tiles each large GeoTIFF read tile by tile keeps (least recently used
    /// out; the bench JSON's "cog" reports the peak).
    #[arg(long, global = true, default_value_t = 256)]
    pub(crate) cog_cache_mib: u64,
    /// MiB of Web-Mercator tiles each large GeoTIFF serving as terrain keeps.
    #[arg(long, global = true, default_value_t = 64)]
    pub(crate) cog_tiles_mib: u64,
}

/// The --tile-encoding values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum TileEncodingArg {
    TerrainRgb,
    Terrarium,
}

/// Options every rendering command shares.
#[derive(clap::Args, Clone)]
pub(crate) struct RenderArgs {
    /// Terrain: procedural[:SEED] (the built-in default), a GeoTIFF, PNG, tile-pyramid folder,
    /// .mbtiles or .pmtiles archive, an http(s) tile URL template ({z}/{x}/{y} or {-y}) or
    /// TileJSON URL, or the globe: planet[:SEED] (procedural) or planet:BASE.tif[,REGION...].
    #[arg(long, default_value = "procedural")]
    pub(crate) terrain: String,
    /// Max depth D of the concurrent binary tree (5..=29; the heap takes 2^(D-1) bytes).
    /// Default: 24, and 28 for --terrain planet (the globe needs 25 levels below its base
    /// triangles for triangles under 2 km; 29 needs a GPU that binds 256 MiB).
    #[arg(long)]
    pub(crate) max_depth: Option<u32>,
    /// Level-of-detail criterion: "error" splits triangles whose error bound from the data
    /// projects to more than --pixel-error pixels; "edge" splits triangles whose longest edge
    /// projects to more than --pixel-target pixels. Default: error, but edge for the globe drawn
    /// from the heap (--pool-slots 0).
    #[arg(long, value_enum)]
    pub(crate) lod: Option<LodArg>,
    /// Screen-space error target in pixels (--lod error).
    #[arg(long, default_value_t = RenderSettings::default().pixel_error_px)]
    pub(crate) pixel_error: f32,
    /// Projected edge-length target in pixels (--lod edge).
    #[arg(long, default_value_t = RenderSettings::default().pixel_target_px)]
    pub(crate) pixel_target: f32,
    /// The globe's detail below the finest data: deterministic noise at spacings finer than its
    /// samples, following the data's slope, none over the sea (the flat terrain has none).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) detail: OnOff,
    /// The globe's atmosphere: the sky, sunlight through the air and aerial perspective (off:
    /// space's colour behind the globe and plain sun light; for timing the frame without it).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) atmosphere: OnOff,
    /// The globe's sea: wave normals, the sky's Fresnel reflection and the sun's glint (off: flat
    /// water; for timing the frame without the waves).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) sea: OnOff,
    /// The globe's occlusion culling (drawn from the bisector pool): terrain hidden behind nearer
    /// terrain in the last frame is not refined (off: for comparing leaves and timings without it).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub(crate) occlusion: OnOff,
    /// The time of the sea's waves in seconds, in `shot` and the viewer's first frame (the viewer
    /// then runs the clock): the same time gives the same picture.
    #[arg(long, default_value_t = 0.0)]
    pub(crate) sea_time_s: f64,
    /// The globe's sun at a UTC date and time, YYYY-MM-DDTHH:MMZ (the night side dark). Default:
    /// the sun over 125E 10N, lighting Asia and the default views.
    #[arg(long, conflicts_with = "sun")]
    pub(crate) time: Option<String>,
    /// The globe's sun at AZIMUTH,ELEVATION degrees (azimuth clockwise from north) seen from the
    /// camera's place (the first pose of a bench path; the viewer's first camera).
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) sun: Option<String>,
    /// Do not morph new vertices (splits and merges then pop).
    #[arg(long)]
    pub(crate) no_morph: bool,
    /// Largest height grid (samples per side, 2^k + 1) a GeoTIFF, PNG or tile pyramid is loaded
    /// into: files load at their own resolution up to this, at the finest level that fits above.
    /// Default: 8193, and 2049 on a software (CPU) adapter, whose GPU memory is the process's own.
    #[arg(long)]
    pub(crate) max_samples: Option<u32>,
    /// Overlay the triangle edges.
    #[arg(long)]
    pub(crate) wireframe: bool,
    /// Tiles the globe's tile cache holds (--terrain planet): atlas layers of 131 x 131 heights
    /// (67 KiB each, and 44 KiB of error summary), evicted least recently used.
    #[arg(long, default_value_t = 1024)]
    pub(crate) cache_tiles: u32,
    /// The globe (--terrain planet) is drawn from a bisector pool of this many slots (a power of
    /// two, 4096..=67108864; default 1048576 = 2^20): 64-bit node ids, refined to 60 levels below
    /// the octahedron, centimetres at the ground (--max-depth then 4..=63, default 63). 0 draws it
    /// from the bit-packed heap instead (--max-depth 5..=29, default 28: triangles of 1-2 km).
    #[arg(long)]
    pub(crate) pool_slots: Option<u32>,
    /// The rasteriser of the flat terrain and of the globe drawn from the bisector pool: "hardware"
    /// draws every triangle; "compute" rasterises the small ones in compute into a 64-bit
    /// visibility buffer, the rest by the hardware into it, then shades every pixel (needs 64-bit
    /// storage-buffer atomics: `bisector info` says); "auto" (the default) is compute on a GPU
    /// that has them, hardware elsewhere (and on CPU adapters): on the H100 compute draws the
    /// globe 7-10x faster (docs/BENCHMARKS.md, seventh session). The globe drawn from the heap
    /// (--pool-slots 0) draws with the hardware.
    #[arg(long, value_enum, default_value_t = RasterArg::Auto)]
    pub(crate) raster: RasterArg,
    /// With --raster compute or auto: triangles wider or taller than this many pixels on screen are
    /// binned into 32x32-px tiles and drawn a tile per workgroup (1..=64); smaller ones a thread each.
    #[arg(long, default_value_t = bisector::flat::raster::DEFAULT_LARGE_PX)]
    pub(crate) raster_large_px: u32,
}

/// The --raster values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RasterArg {
    Hardware,
    Compute,
    Auto,
}

impl RasterArg {
    /// The library's path.
    pub(crate) fn path(self) -> bisector::flat::raster::RasterPath {
        use bisector::flat::raster::RasterPath;
        match self {
            RasterArg::Hardware => RasterPath::Hardware,
            RasterArg::Compute => RasterPath::Compute,
            RasterArg::Auto => RasterPath::Auto,
        }
    }
}

/// A switch: on or off.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnOff {
    On,
    Off,
}

/// The --lod values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum LodArg {
    Error,
    Edge,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Open the interactive viewer with its egui panel (C: orbit/fly, drag, scroll, WASD/QE, F wireframe, L freeze, F12 screenshot; --terrain planet: the globe, right drag or Q/E/T/G to turn and tilt).
    View {
        #[command(flatten)]
        render: RenderArgs,
        /// The first camera, as `shot --camera` takes it: PX,PY,PZ,TX,TY,TZ[,FOV_DEG] or a
        /// camera-path file (its first pose); on a globe LON,LAT,ALT[,HEADING_DEG,PITCH_DEG[,FOV_DEG]]
        /// (ALT in metres, or above the ground with agl) or a globe camera-path file. The viewer
        /// starts there flying, or on a ship's bridge where the pose is one (1-100 m above the sea,
        /// e.g. assets/paths/globe-taiwan-coast-ship.json).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Quit after this many frames.
        #[arg(long)]
        frames: Option<u32>,
        /// With --frames: write the last frame (with the panel) to this PNG.
        #[arg(long, requires = "frames")]
        screenshot: Option<PathBuf>,
        /// Present as fast as possible instead of at the display's refresh rate.
        #[arg(long)]
        no_vsync: bool,
    },
    /// Print the adapter, backend, driver, the features and limits the renderer uses.
    Info,
    /// Render one headless frame after the level of detail has converged and write a PNG.
    Shot {
        #[command(flatten)]
        render: RenderArgs,
        /// PX,PY,PZ,TX,TY,TZ[,FOV_DEG] (metres, degrees) or a camera-path file (its first pose).
        /// On a globe: LON,LAT,ALT[,HEADING_DEG,PITCH_DEG[,FOV_DEG]], ALT in metres above the
        /// WGS84 ellipsoid, e.g. 30000, or above the ground with agl, e.g. 100agl, or a
        /// globe camera-path file (its first pose).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Image size WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// Output PNG.
        #[arg(long)]
        out: PathBuf,
        /// Also write the converged view's figures as JSON: leaves, max_depth_reached,
        /// pool_slots, pool_used, capped_leaves, near_edge_m (globe).
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Fly a camera path headless, print per-pass GPU times and write a JSON report.
    Bench {
        #[command(flatten)]
        render: RenderArgs,
        /// Camera path file (JSON keyframes; see the README).
        #[arg(long)]
        path: PathBuf,
        /// Image size WIDTHxHEIGHT.
        #[arg(long, default_value = "1920x1080")]
        size: String,
        /// Frames to render along the path.
        #[arg(long, default_value_t = 300)]
        frames: u32,
        /// Frames rendered at the path's start before measuring (the globe stops early once its
        /// tree has converged and its tile cache has settled); then, unless 0, frames at that pose
        /// for a second more, so that the GPU's clocks are up when the measured frames start.
        #[arg(long, default_value_t = 60)]
        warmup: u32,
        /// Start frames no faster than this many per second (0: as fast as the GPU goes). Tiles
        /// stream on background threads in real time, so this sets the time they get per frame.
        #[arg(long, default_value_t = 60.0)]
        fps: f64,
        /// JSON report to write.
        #[arg(long)]
        json: PathBuf,
        /// Also write a PNG chart of per-pass GPU time per frame.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// GPU timestamps around every pass (on), or only around the whole frame (off: a timed
        /// pass costs a few microseconds even when empty, so the frame measures less; the report
        /// then has no per-pass times).
        #[arg(long, value_enum, default_value = "on")]
        pass_timing: OnOff,
    },
    /// Run one diagnostic GPU kernel, verified against its CPU reference, with timings.
    #[command(arg_required_else_help = true)]
    Kernel {
        #[command(subcommand)]
        kernel: KernelCommand,
    },
    /// Measure the level of detail against the full-resolution data: the screen-space-error
    /// criterion at --pixel-error, and the edge-length criterion at the coarsest target whose
    /// measured error is no larger; prints triangles and measured errors of both.
    Quality {
        #[command(flatten)]
        render: RenderArgs,
        /// PX,PY,PZ,TX,TY,TZ[,FOV_DEG] (metres, degrees) or a camera-path file (its first pose).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<String>,
        /// Image size WIDTHxHEIGHT.
        #[arg(long, default_value = "1920x1080")]
        size: String,
        /// Write the measurements as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Print the height in metres the renderer samples at a point.
    Probe {
        /// Terrain: procedural[:SEED], a GeoTIFF file, a tile pyramid (folder, .mbtiles,
        /// .pmtiles, http(s) URL template or TileJSON), or a globe:
        /// planet[:SEED] or planet:BASE.tif[,REGION...] (the ground from the finest data).
        #[arg(long, default_value = "procedural")]
        terrain: String,
        /// X,Y in the source's coordinates: metres for the procedural terrain and projected
        /// rasters, lon,lat in degrees for geographic rasters, tile pyramids and globes.
        #[arg(long, allow_hyphen_values = true)]
        at: String,
        /// On a globe, add the detail below the data that the renderer draws (at full
        /// resolution: as seen from up close).
        #[arg(long, value_enum, default_value_t = OnOff::On)]
        detail: OnOff,
    },
    /// Build a Web-Mercator pyramid of 256 px Terrain-RGB or Terrarium PNG tiles from
    /// GeoTIFFs (geographic or projected), on all cores: a folder, .mbtiles or .pmtiles (each
    /// resumable).
    Tiles {
        /// A GeoTIFF in longitude/latitude (EPSG:4326) or a projected CRS (UTM and other EPSG
        /// codes); repeat for more. Each pixel comes from the finest source with data there (the
        /// later --from among equally fine ones).
        #[arg(long, required = true)]
        from: Vec<PathBuf>,
        /// The pyramid: a folder ({z}/{x}/{y}.png and tiles.json), or a new FILE.mbtiles or
        /// FILE.pmtiles (its tiles kept in FILE.*.partial until the end); an interrupted build
        /// resumes when the same command runs again.
        #[arg(long)]
        out: PathBuf,
        /// How the tiles' RGB encodes heights: terrain-rgb (0.1 m steps) or terrarium (1/256 m).
        #[arg(long, value_enum, default_value_t = TileEncodingArg::TerrainRgb)]
        encoding: TileEncodingArg,
        /// Finest zoom (0..=22). Default: the zoom whose pixels are as fine as the finest source's.
        #[arg(long)]
        max_zoom: Option<u32>,
        /// Coarsest zoom.
        #[arg(long, default_value_t = 0)]
        min_zoom: u32,
        /// Licence and source text written into tiles.json or the archive's metadata.
        #[arg(long)]
        attribution: Option<String>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
}
