//! Mutation tests of every parser (issue 13): from seed files in heightmaps/ and assets/ and
//! small ones made here, a fixed, seeded budget of mutations (bit flips, bytes set to 0, 255 or
//! random, truncations, duplicated or deleted ranges, interesting integers and tokens) per
//! parser. Each case must not panic, must finish within `CASE_TIME_LIMIT`, and must not allocate
//! more than the parser's stated limit (a counting global allocator tracks the peak bytes live
//! during the parse, per thread). A failure names the parser, the case's seed and the mutated
//! input's hash; the same seed reproduces it.
//!
//! `BISECTOR_MUTATIONS=N` multiplies every budget by N (`scripts/fuzz` uses it for long runs
//! without cargo-fuzz). `BISECTOR_MUTATION_SEEDS_DIR=DIR` also writes every seed (up to 256 KiB)
//! to DIR/TARGET/, TARGET the cargo-fuzz target of the same parser in fuzz/ (`scripts/fuzz`
//! makes its corpus so).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use bisector::bench::globe_path::GlobePath;
use bisector::bench::path::CameraPath;
use bisector::input::{CAMERA_PATH_BYTES, MAX_RASTER_SAMPLES, PNG_MAX_EXPANSION};
use bisector::terrain::pyramid::Encoding;
use bisector::terrain::tile_files::{decode_tile, parse_tilejson, tile_size_px, MAX_TILE_DECODE_BYTES};
use bisector::terrain::{geotiff, png16, TerrainSpec};
use bisector_kernels::{closest_pairs, shift_and};

/// Longest a case may take (in the test profile, on a loaded machine).
const CASE_TIME_LIMIT: Duration = Duration::from_secs(5);
/// A case still running after this is a hang: the test aborts, naming it.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// Fixed-point bookkeeping for the counting allocator: bytes live and the peak since `measure`
/// started, for the calling thread only (tests run in parallel threads).
struct Counting;

thread_local! {
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc(bytes: usize) {
    let _ = TRACKING.try_with(|tracking| {
        if tracking.get() {
            let live = LIVE.with(|l| {
                l.set(l.get() + bytes);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
        }
    });
}

fn note_free(bytes: usize) {
    let _ = TRACKING.try_with(|tracking| {
        if tracking.get() {
            LIVE.with(|l| l.set(l.get().saturating_sub(bytes)));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_free(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_free(layout.size());
        note_alloc(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result (None if it panicked) and the peak bytes it had allocated at once.
fn measure(f: impl FnOnce() -> bool) -> (Option<bool>, usize) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    TRACKING.with(|t| t.set(true));
    let result = catch_unwind(AssertUnwindSafe(f)).ok();
    TRACKING.with(|t| t.set(false));
    (result, PEAK.with(|p| p.get()))
}

/// SplitMix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Integers that tend to sit on a parser's edges, as 4 bytes (TIFF tags, PNG lengths, sizes).
const INTERESTING: [u32; 16] =
    [0, 1, 2, 7, 8, 255, 256, 0x7fff, 0x8000, 0xffff, 0x1_0000, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff, 4096];

/// Tokens that tend to break text parsers.
const TOKENS: [&str; 24] = [
    "1e308",
    "-1e308",
    "1e39",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "-0",
    "0",
    "99999999999999999999",
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "\n",
    "\r",
    "\\",
    "*",
    "{9999}",
    "[^",
    ".png",
];

/// One mutated copy of `seed`: 1 to 4 stacked mutations.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        let at = rng.below(len.max(1));
        match rng.below(11) {
            0 if len > 0 => data[at] ^= 1 << rng.below(8),
            1 if len > 0 => data[at] = 0,
            2 if len > 0 => data[at] = 255,
            3 if len > 0 => data[at] = rng.next() as u8,
            4 => data.truncate(rng.below(len + 1)),
            5 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                let copy = data[at..end].to_vec();
                let to = rng.below(len + 1);
                data.splice(to..to, copy);
            }
            6 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                data.drain(at..end);
            }
            7 if len >= 4 => {
                let value = INTERESTING[rng.below(INTERESTING.len())];
                let bytes = if rng.below(2) == 0 { value.to_le_bytes() } else { value.to_be_bytes() };
                let width = if rng.below(2) == 0 { 2 } else { 4 };
                let at = at.min(len - width);
                // Keep the low bytes for 2-byte integers (in either byte order).
                let source = if bytes == value.to_le_bytes() { &bytes[..width] } else { &bytes[4 - width..] };
                data[at..at + width].copy_from_slice(source);
            }
            8 if len > 0 => {
                let from = rng.below(len);
                let n = (1 + rng.below(16)).min(len - from).min(len - at);
                data.copy_within(from..from + n, at);
            }
            9 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                let to = rng.below(len + 1);
                if rng.below(2) == 0 || to == len {
                    data.splice(to..to, token.iter().copied());
                } else {
                    let end = (to + token.len()).min(len);
                    data.splice(to..end, token.iter().copied());
                }
            }
            _ => {
                let n = rng.below(8);
                for _ in 0..n {
                    let to = rng.below(data.len() + 1);
                    data.insert(to, rng.next() as u8);
                }
            }
        }
    }
    data
}

/// CRC-32 (ISO-HDLC), as PNG chunks use.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Rewrites the CRC of every whole chunk of a PNG, so that mutations reach the decoder past the
/// checksum.
fn fix_png_crcs(data: &mut [u8]) {
    let mut at = 8;
    while at + 12 <= data.len() {
        let len = u32::from_be_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        let Some(end) = (at + 8).checked_add(len).filter(|&end| end + 4 <= data.len()) else { break };
        let crc = crc32(&data[at + 4..end]);
        data[end..end + 4].copy_from_slice(&crc.to_be_bytes());
        at = end + 4;
    }
}

/// The budget multiplier from BISECTOR_MUTATIONS (1 when unset).
fn budget_factor() -> usize {
    std::env::var("BISECTOR_MUTATIONS").ok().and_then(|v| v.parse().ok()).filter(|&n: &usize| n >= 1).unwrap_or(1)
}

/// The cargo-fuzz targets (fuzz/fuzz_targets) that fuzz the parser named `parser` here.
fn fuzz_targets_of(parser: &str) -> &'static [&'static str] {
    match parser.split(' ').next().unwrap_or("") {
        "geotiff" => &["geotiff"],
        "png16" => &["png16"],
        "tilejson" => &["tilejson"],
        "tile" => &["tile"],
        "camera" if parser.contains("globe") => &["globe_path"],
        "camera" => &["camera_path"],
        "shift-and" => &["shift_and"],
        "closest-pairs" => &["closest_pairs"],
        "cli" => &["cli_strings", "terrain_spec"],
        _ => &[],
    }
}

/// Writes `seeds` for the fuzz targets of `parser` when BISECTOR_MUTATION_SEEDS_DIR is set.
fn write_seeds(parser: &str, seeds: &[(String, Vec<u8>)]) {
    let Ok(dir) = std::env::var("BISECTOR_MUTATION_SEEDS_DIR") else { return };
    for target in fuzz_targets_of(parser) {
        let dir = Path::new(&dir).join(target);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in seeds.iter().filter(|(_, bytes)| bytes.len() <= 256 << 10) {
            let file: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
            std::fs::write(dir.join(file), bytes).unwrap();
        }
    }
}

/// Runs each seed and `cases` mutations of it through `parse` (true when it accepted the
/// input; every seed must be accepted); `limit_bytes(input_len)` is the most the parse may
/// allocate. Panics listing every failing case.
fn run(
    parser: &str,
    seeds: &[(String, Vec<u8>)],
    cases: usize,
    png: bool,
    limit_bytes: impl Fn(usize) -> usize,
    parse: impl Fn(&[u8]) -> bool,
) {
    let cases = cases * budget_factor();
    write_seeds(parser, seeds);
    let mut failures = Vec::new();
    let mut parser_seed = std::collections::hash_map::DefaultHasher::new();
    parser.hash(&mut parser_seed);
    let base = parser_seed.finish();
    let started = Instant::now();
    // A case that never ends would hang the test: the watchdog names it and aborts.
    let current = std::sync::Arc::new(std::sync::Mutex::new((Instant::now(), String::new())));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (current, done) = (current.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let (started, id) = current.lock().unwrap().clone();
                if started.elapsed() > HANG_LIMIT {
                    eprintln!("{id}: still running after {HANG_LIMIT:?}: a hang; aborting");
                    std::process::abort();
                }
            }
        })
    };
    let mut slowest = Duration::ZERO;
    let mut accepted = 0usize;
    for (name, seed) in seeds {
        // The seed itself first, then its mutations.
        for case in 0..=cases {
            let case_seed = base ^ (case as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ name.len() as u64;
            let mut rng = Rng(case_seed);
            let mut input = if case == 0 { seed.clone() } else { mutate(seed, &mut rng) };
            if png && rng.below(10) != 0 {
                fix_png_crcs(&mut input);
            }
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            input.hash(&mut hasher);
            let id = format!(
                "{parser} seed file {name}, case {case} (seed {case_seed:#x}, input {} bytes, hash {:#x})",
                input.len(),
                hasher.finish()
            );
            *current.lock().unwrap() = (Instant::now(), id.clone());
            let start = Instant::now();
            let (result, peak_bytes) = measure(|| parse(&input));
            let took = start.elapsed();
            slowest = slowest.max(took);
            let limit = limit_bytes(input.len());
            match result {
                None => failures.push(format!("{id}: panicked")),
                Some(false) if case == 0 => failures.push(format!("{id}: the seed itself is refused")),
                Some(ok) => accepted += ok as usize,
            }
            if took > CASE_TIME_LIMIT {
                failures.push(format!("{id}: took {took:?}, more than {CASE_TIME_LIMIT:?}"));
            }
            if peak_bytes > limit {
                failures.push(format!("{id}: allocated {peak_bytes} bytes at once, more than its limit of {limit}"));
            }
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    watchdog.join().unwrap();
    eprintln!(
        "{parser}: {} seeds x {} cases in {:.1?} (slowest case {slowest:.1?}), {accepted} accepted",
        seeds.len(),
        cases + 1,
        started.elapsed()
    );
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}

const MIB: usize = 1 << 20;

fn repo_file(relative: &str) -> (String, Vec<u8>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    (relative.to_string(), std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn named(name: &str, bytes: impl Into<Vec<u8>>) -> (String, Vec<u8>) {
    (name.to_string(), bytes.into())
}

/// Small GeoTIFFs of every sample type and compression the reader takes.
fn small_geotiffs() -> Vec<(String, Vec<u8>)> {
    use tiff::encoder::{colortype, Compression, DeflateLevel, TiffEncoder};
    use tiff::tags::Tag;
    fn tags<W: std::io::Write + std::io::Seek, K: tiff::encoder::TiffKind>(
        e: &mut tiff::encoder::DirectoryEncoder<'_, W, K>,
        projected: bool,
    ) {
        e.write_tag(Tag::ModelPixelScaleTag, &[0.5f64, 0.5, 0.0][..]).unwrap();
        e.write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 10.0, 50.0, 0.0][..]).unwrap();
        let keys: &[u16] = if projected {
            &[1, 1, 0, 3, 1024, 0, 1, 1, 1025, 0, 1, 2, 3072, 0, 1, 32611]
        } else {
            &[1, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326]
        };
        e.write_tag(Tag::GeoKeyDirectoryTag, keys).unwrap();
        e.write_tag(Tag::GdalNodata, "-9999").unwrap();
    }
    let mut out = Vec::new();
    let heights: Vec<f32> = (0..256).map(|i| (i * 37 % 900) as f32 - 100.0).collect();
    for (name, compression) in [
        ("none", Compression::Uncompressed),
        ("lzw", Compression::Lzw),
        ("deflate", Compression::Deflate(DeflateLevel::Fast)),
        ("packbits", Compression::Packbits),
    ] {
        let mut bytes = Cursor::new(Vec::new());
        let mut encoder = TiffEncoder::new(&mut bytes).unwrap().with_compression(compression);
        match name {
            "none" => {
                let mut image = encoder.new_image::<colortype::GrayI16>(16, 16).unwrap();
                tags(image.encoder(), false);
                image.write_data(&heights.iter().map(|&h| h as i16).collect::<Vec<_>>()).unwrap();
            }
            "lzw" => {
                let mut image = encoder.new_image::<colortype::Gray32Float>(16, 16).unwrap();
                tags(image.encoder(), true);
                image.write_data(&heights).unwrap();
            }
            "deflate" => {
                let mut image = encoder.new_image::<colortype::Gray16>(16, 16).unwrap();
                tags(image.encoder(), false);
                image.write_data(&heights.iter().map(|&h| (h + 200.0) as u16).collect::<Vec<_>>()).unwrap();
            }
            _ => {
                let mut image = encoder.new_image::<colortype::GrayI32>(16, 16).unwrap();
                tags(image.encoder(), true);
                image.write_data(&heights.iter().map(|&h| h as i32).collect::<Vec<_>>()).unwrap();
            }
        }
        out.push(named(&format!("generated-{name}.tif"), bytes.into_inner()));
    }
    out
}

fn png_bytes(image: image::DynamicImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png).unwrap();
    bytes
}

#[test]
fn geotiff() {
    // Memory: the decoder's buffer (at most the file's bytes x 4096, LZW's best ratio) and 4
    // bytes of heights per sample (at least 1 byte each), within MAX_RASTER_SAMPLES.
    let limit = |len: usize| (5 * 4096 * len).min(MAX_RASTER_SAMPLES as usize * 8) + 4 * MIB;
    run("geotiff", &small_geotiffs(), 20_000, false, limit, |bytes| geotiff::read_bytes(bytes, "fuzz.tif").is_ok());
    let files = [repo_file("heightmaps/etopo20_global.tif"), repo_file("heightmaps/bigtujunga.tif")];
    run("geotiff (repository files)", &files, 150, false, limit, |bytes| geotiff::read_bytes(bytes, "fuzz.tif").is_ok());
}

#[test]
fn png16_height_map() {
    let image = image::ImageBuffer::<image::Luma<u16>, _>::from_fn(16, 16, |x, y| image::Luma([(x * 300 + y * 7) as u16]));
    let seeds = [named("generated-16bit.png", png_bytes(image.into()))];
    // The decoded pixels (2 bytes a sample, at most PNG_MAX_EXPANSION x the file) and 4 bytes of heights per sample.
    let limit = |len: usize| 3 * PNG_MAX_EXPANSION as usize * len + 4 * MIB;
    run("png16", &seeds, 30_000, true, limit, |bytes| png16::read_bytes(bytes, "fuzz.png", 0.1, 1000.0).is_ok());
}

#[test]
fn terrain_rgb_and_terrarium_tiles() {
    let small = [
        named(
            "generated-terrain-rgb.png",
            png_bytes(image::RgbImage::from_fn(8, 8, |x, y| image::Rgb(Encoding::TerrainRgb.encode((x * 100 + y) as f64))).into()),
        ),
        named(
            "generated-terrarium-rgba.png",
            png_bytes(
                image::RgbaImage::from_fn(8, 8, |x, y| {
                    let [r, g, b] = Encoding::Terrarium.encode(x as f64 * 10.0 - y as f64);
                    image::Rgba([r, g, b, 255])
                })
                .into(),
            ),
        ),
        named("generated-grey.png", png_bytes(image::GrayImage::from_pixel(8, 8, image::Luma([9])).into())),
    ];
    // The decoder's buffer (tile_size^2 x at most 8 bytes) and 4 bytes of heights per pixel.
    let limit_for = |size_px: usize| move |_len: usize| size_px * size_px * 12 + 4 * MIB;
    run("tile (8 px)", &small, 20_000, true, limit_for(8), |bytes| {
        let rgb = decode_tile(bytes, Encoding::TerrainRgb, 8, "fuzz.png").is_ok();
        let terrarium = decode_tile(bytes, Encoding::Terrarium, 8, "fuzz.png").is_ok();
        rgb && terrarium
    });
    let taiwan = [repo_file("heightmaps/taiwan-terrain-rgb/7/106/55.png")];
    run("tile (Taiwan, 256 px)", &taiwan, 1500, true, limit_for(256), |bytes| {
        decode_tile(bytes, Encoding::TerrainRgb, 256, "fuzz.png").is_ok()
    });
    // Whatever size a header claims, the decoder stays within MAX_TILE_DECODE_BYTES.
    run(
        "tile size",
        &small,
        10_000,
        true,
        |_| MAX_TILE_DECODE_BYTES as usize / 64 + 4 * MIB,
        |bytes| tile_size_px(bytes, "fuzz.png").is_ok(),
    );
}

#[test]
fn tilejson() {
    let seeds = [
        repo_file("heightmaps/taiwan-terrain-rgb/tiles.json"),
        named(
            "generated-terrarium.json",
            r#"{"tilejson": "2.2.0", "tiles": ["t/{z}/{x}/{y}.png"], "minzoom": 1, "maxzoom": 2, "scheme": "tms", "encoding": "terrarium", "bounds": [-180, -85, 180, 85]}"#,
        ),
    ];
    run("tilejson", &seeds, 30_000, false, |len| 16 * len + MIB, |bytes| parse_tilejson(bytes, "tiles.json").is_ok());
}

/// Text parsers see the mutated bytes as text (invalid UTF-8 is replaced, as the readers refuse it).
fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

#[test]
fn camera_paths() {
    let seeds: Vec<_> = [
        "assets/paths/high-pan.json",
        "assets/paths/low-flyover.json",
        "assets/paths/taiwan-low.json",
        "assets/paths/globe-taiwan-descent.json",
    ]
    .into_iter()
    .map(repo_file)
    .collect();
    // The top-level members' spans (serde_json RawValue slices, 32 bytes per member of at least 5
    // bytes, in a vector up to twice as long) and the keyframes, read one at a time: under 16
    // bytes per input byte.
    let limit = |len: usize| 16 * len.min(CAMERA_PATH_BYTES as usize) + MIB;
    run("camera path (flat)", &seeds[..3], 30_000, false, limit, |bytes| {
        CameraPath::parse(&text(bytes), "fuzz.json").map(|path| path.sample(path.duration_s() * 0.37)).is_ok()
    });
    run("camera path (globe)", &seeds[3..], 60_000, false, limit, |bytes| {
        GlobePath::parse(&text(bytes), "fuzz.json").map(|path| path.sample(path.duration_s() * 0.37)).is_ok()
    });
}

#[test]
fn shift_and_patterns() {
    let seeds = [named("generated-patterns.txt", "ab[c-e]*x{2,5}\n.\\.+[^a]?\nq{0,}r{3}\n[a-z0-9]{1,31}z\r\nhello\n")];
    run(
        "shift-and patterns",
        &seeds,
        30_000,
        false,
        |len| 64 * len + MIB,
        |bytes| {
            let Ok(patterns) = shift_and::parse_patterns(bytes, "fuzz.txt") else { return false };
            let compiled =
                shift_and::compile(&shift_and::parse(&patterns[0]).expect("parse_patterns checked it")).expect("parse_patterns checked it");
            let _ = shift_and::match_ends(&compiled, b"abcx xxabccccxxxxx q rrr hello.");
            true
        },
    );
}

#[test]
fn closest_pairs_csv() {
    let seeds = [named("generated-army.csv", "1,2,3\n4.5,-6,7e2\r\n-1e30, 0.000001 ,3.4e38\n0,0,0\n")];
    run(
        "closest-pairs csv",
        &seeds,
        40_000,
        false,
        |len| 8 * len + MIB,
        |bytes| closest_pairs::parse_army(&text(bytes), "fuzz.csv").is_ok(),
    );
}

#[test]
fn cli_strings_and_terrain_specs() {
    let seeds = [
        named("size", "1920x1080"),
        named("camera", "1000,1000,900,10000,10000,300,60"),
        named("globe camera", "121,23.5,30000,0,-45,50"),
        named("globe camera agl", "-150.5,23.5,100agl"),
        named("lon lat", "120.9572,23.47"),
        named("terrain procedural", "procedural:7"),
        named("terrain png", "heightmaps/taiwan-terrain-rgb/7/106/55.png:0.1:20480"),
        named("terrain tif", "heightmaps/bigtujunga.tif"),
    ];
    run(
        "cli strings",
        &seeds,
        5_000,
        false,
        |_| MIB,
        |bytes| {
            let s = text(bytes);
            let size = bisector::cli::parse_size(&s).is_ok();
            // A mutated string that names an existing file reads it as a camera path (flat or globe):
            // only strings that do not (camera paths have their own mutation test).
            let is_file = Path::new(s.as_ref()).exists();
            let camera = !is_file && bisector::cli::parse_camera(&s).is_ok();
            let globe = !is_file && bisector::cli::parse_globe_camera(&s).is_ok();
            let at = bisector::cli::parse_lon_lat(&s).is_ok();
            let terrain = TerrainSpec::parse(&s).is_ok();
            size || camera || globe || at || terrain
        },
    );
}
