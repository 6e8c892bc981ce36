//! Tile pyramids served over HTTP(S): an XYZ URL template `http(s)://HOST/PATH/{z}/{x}/{y}.png`
//! (`{-y}` for TMS rows) or a TileJSON URL. Tiles are fetched with ureq on the threads that ask
//! for them (the tile cache's loader threads, the flat terrain's loading threads), at most
//! [`HttpOptions::per_host`] at a time per host, with a timeout, retried with back-off after a
//! 5xx, a timeout or a dropped connection; 404 and 204 mean "no tile here". Tiles go through a
//! size-bounded disk cache (`super::disk_cache`); `offline` uses only that cache. A tile that
//! cannot be fetched is counted in [`stats`] and returned as [`TerrainError::Unavailable`]; the
//! pyramid reads it as missing for now and asks again later: a server never ends the program.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};
use std::time::Duration;

use super::disk_cache::{self, Cached, DiskCache};
use super::pyramid::Encoding;
use super::tile_files;
use super::tile_source::{self, SourceIndex, TileSource};
use super::TerrainError;

/// How HTTP sources fetch and cache (the CLI's `--tile-cache-dir`, `--offline`, `--tile-encoding`).
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The disk cache folder; None: [`disk_cache::default_dir`] (no cache when that is unknown).
    pub cache_dir: Option<PathBuf>,
    /// Most bytes the disk cache holds.
    pub cache_limit_bytes: u64,
    /// Use only the disk cache.
    pub offline: bool,
    /// The tiles' encoding, over what a TileJSON says (Terrain-RGB when neither says).
    pub encoding: Option<Encoding>,
    /// Longest wait for one response, body included.
    pub timeout: Duration,
    /// Tries after the first (5xx, timeouts, dropped connections).
    pub retries: u32,
    /// First back-off; it doubles after each try.
    pub backoff: Duration,
    /// Requests in flight at once to one host.
    pub per_host: usize,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            cache_dir: None,
            cache_limit_bytes: 2 << 30,
            offline: false,
            encoding: None,
            timeout: Duration::from_secs(10),
            retries: 3,
            backoff: Duration::from_millis(200),
            per_host: 8,
        }
    }
}

static OPTIONS: RwLock<Option<HttpOptions>> = RwLock::new(None);

/// Sets the options of the HTTP sources opened from now on (the CLI, once, from its flags).
pub fn set_options(options: HttpOptions) {
    *OPTIONS.write().expect("HTTP options lock") = Some(options);
}

fn options() -> HttpOptions {
    OPTIONS.read().expect("HTTP options lock").clone().unwrap_or_default()
}

/// What the HTTP sources of this process did, summed (for reports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct HttpStats {
    /// Requests sent (retries included).
    pub requests: u64,
    /// Tiles received.
    pub fetched: u64,
    /// Tiles (or "no tile here") read from the disk cache.
    pub disk_hits: u64,
    /// 404 or 204: no tile there.
    pub no_tile: u64,
    /// Requests tried again after a 5xx, a timeout or a dropped connection.
    pub retries: u64,
    /// Tiles given up on (read as missing): retries exhausted, another 4xx, a wrong content type.
    pub failures: u64,
    /// Tiles not in the disk cache while offline (read as missing).
    pub offline_misses: u64,
}

#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    fetched: AtomicU64,
    disk_hits: AtomicU64,
    no_tile: AtomicU64,
    retries: AtomicU64,
    failures: AtomicU64,
    offline_misses: AtomicU64,
}

static COUNTERS: Counters = Counters {
    requests: AtomicU64::new(0),
    fetched: AtomicU64::new(0),
    disk_hits: AtomicU64::new(0),
    no_tile: AtomicU64::new(0),
    retries: AtomicU64::new(0),
    failures: AtomicU64::new(0),
    offline_misses: AtomicU64::new(0),
};

/// The HTTP sources' figures so far.
pub fn stats() -> HttpStats {
    let c = &COUNTERS;
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    HttpStats {
        requests: get(&c.requests),
        fetched: get(&c.fetched),
        disk_hits: get(&c.disk_hits),
        no_tile: get(&c.no_tile),
        retries: get(&c.retries),
        failures: get(&c.failures),
        offline_misses: get(&c.offline_misses),
    }
}

fn count(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// A counting semaphore: the requests in flight to one host.
struct HostSlots {
    in_flight: Mutex<usize>,
    freed: Condvar,
}

fn host_slots(host: &str) -> Arc<HostSlots> {
    static HOSTS: OnceLock<Mutex<HashMap<String, Arc<HostSlots>>>> = OnceLock::new();
    let mut hosts = HOSTS.get_or_init(Default::default).lock().expect("HTTP hosts lock");
    hosts.entry(host.to_string()).or_insert_with(|| Arc::new(HostSlots { in_flight: Mutex::new(0), freed: Condvar::new() })).clone()
}

/// `true` when `spec` is an http(s) address.
pub fn is_url(spec: &str) -> bool {
    let lower = spec.get(..8).unwrap_or(spec).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The host (and port) of an http(s) address.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// `true` for bytes that start as a PNG but lack its closing IEND chunk (a response cut short).
fn is_cut_png(bytes: &[u8]) -> bool {
    const IEND: [u8; 8] = [0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];
    bytes.starts_with(b"\x89PNG") && !bytes.ends_with(&IEND)
}

/// What one fetch ended with.
enum Fetched {
    Body(Vec<u8>),
    NoTile,
    /// Given up: why, for one warning line.
    Failed(String),
}

/// A pyramid served over HTTP.
pub struct HttpSource {
    /// What the user gave (template or TileJSON address).
    spec: String,
    /// Absolute template with `{z}`, `{x}` and `{y}` or `{-y}`.
    template: String,
    tms: bool,
    index: SourceIndex,
    agent: ureq::Agent,
    options: HttpOptions,
    cache: Option<DiskCache>,
    /// The cache folder of this source's tiles ([`disk_cache::key`] of the template).
    cache_key: String,
    slots: Arc<HostSlots>,
    /// Failures so far (the first is named on stderr).
    failures: AtomicU64,
}

impl HttpSource {
    /// Opens `url` with the options set by [`set_options`].
    pub fn open(url: &str) -> Result<HttpSource, TerrainError> {
        HttpSource::open_with(url, options())
    }

    /// Opens `url`: an XYZ template (zooms 0 to 15 over the whole world) or a TileJSON address
    /// (fetched, or read from the disk cache).
    pub fn open_with(url: &str, options: HttpOptions) -> Result<HttpSource, TerrainError> {
        let bad = |problem: String| TerrainError::BadSpec { spec: url.to_string(), problem };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(options.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("bisector/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let cache_dir = options.cache_dir.clone().or_else(disk_cache::default_dir);
        let cache = match &cache_dir {
            Some(dir) => Some(DiskCache::open(dir, options.cache_limit_bytes).map_err(|e| {
                bad(format!("the tile cache folder {} cannot be used ({e}); choose another with --tile-cache-dir", dir.display()))
            })?),
            None if options.offline => return Err(bad("--offline needs a tile cache folder: give --tile-cache-dir".into())),
            None => None,
        };
        let mut source = HttpSource {
            spec: url.to_string(),
            template: String::new(),
            tms: false,
            index: SourceIndex { min_zoom: 0, max_zoom: 15, bounds: None, encoding: Encoding::TerrainRgb },
            agent,
            slots: host_slots(host_of(url)),
            options,
            cache,
            cache_key: String::new(),
            failures: AtomicU64::new(0),
        };
        let has = |p: &str| url.contains(p);
        if has("{z}") || has("{x}") || has("{y}") || has("{-y}") {
            if !has("{z}") || !has("{x}") || !(has("{y}") || has("{-y}")) {
                return Err(bad("a tile URL template needs {z}, {x} and {y} (or {-y} for TMS rows)".into()));
            }
            source.template = url.to_string();
        } else {
            source.read_tilejson(url)?;
        }
        if let Some(encoding) = source.options.encoding {
            source.index.encoding = encoding;
        }
        source.cache_key = disk_cache::key(&source.template);
        // The tiles' host may not be the TileJSON's.
        source.slots = host_slots(host_of(&source.template));
        Ok(source)
    }

    /// Reads the TileJSON at `url` (from the disk cache when offline or when the server fails).
    fn read_tilejson(&mut self, url: &str) -> Result<(), TerrainError> {
        let key = disk_cache::key(url);
        let cached = self.cache.as_ref().and_then(|c| c.get_file(&key, "tiles.json", crate::input::TILEJSON_BYTES));
        let bytes = match (self.options.offline, cached) {
            (true, Some(bytes)) => bytes,
            (true, None) => {
                return Err(TerrainError::File { path: url.into(), problem: "not in the tile cache, and --offline is given".into() })
            }
            (false, cached) => match self.fetch(url, crate::input::TILEJSON_BYTES) {
                Fetched::Body(bytes) => {
                    if let Some(cache) = &self.cache {
                        cache.put_file(&key, "tiles.json", &bytes);
                    }
                    bytes
                }
                Fetched::NoTile => {
                    return Err(TerrainError::File { path: url.into(), problem: "the server has no TileJSON there (404)".into() })
                }
                Fetched::Failed(why) => match cached {
                    Some(bytes) => bytes,
                    None => return Err(TerrainError::File { path: url.into(), problem: format!("cannot fetch the TileJSON: {why}") }),
                },
            },
        };
        let json = tile_files::parse_tilejson_at(&bytes, url, true)?;
        self.template = if is_url(&json.template) {
            json.template
        } else {
            let base = url.rsplit_once('/').map_or(url, |(b, _)| b);
            format!("{base}/{}", json.template.trim_start_matches("./"))
        };
        self.tms = json.tms;
        self.index = tile_source::check_index(
            SourceIndex { min_zoom: json.min_zoom, max_zoom: json.max_zoom, bounds: json.bounds, encoding: json.encoding },
            url,
        )?;
        Ok(())
    }

    fn tile_url(&self, z: u32, x: u32, y: u32) -> String {
        let (row, flipped) = if self.tms { ((1 << z) - 1 - y, y) } else { (y, (1 << z) - 1 - y) };
        self.template
            .replace("{z}", &z.to_string())
            .replace("{x}", &x.to_string())
            .replace("{y}", &row.to_string())
            .replace("{-y}", &flipped.to_string())
    }

    /// GETs `url` with the per-host bound, timeouts and retries.
    fn fetch(&self, url: &str, limit_bytes: u64) -> Fetched {
        {
            let mut in_flight = self.slots.in_flight.lock().expect("HTTP host slots lock");
            while *in_flight >= self.options.per_host.max(1) {
                in_flight = self.slots.freed.wait(in_flight).expect("HTTP host slots lock");
            }
            *in_flight += 1;
        }
        let result = self.fetch_with_retries(url, limit_bytes);
        *self.slots.in_flight.lock().expect("HTTP host slots lock") -= 1;
        self.slots.freed.notify_one();
        result
    }

    fn fetch_with_retries(&self, url: &str, limit_bytes: u64) -> Fetched {
        let mut backoff = self.options.backoff;
        let mut last = String::new();
        for attempt in 0..=self.options.retries {
            if attempt > 0 {
                count(&COUNTERS.retries);
                std::thread::sleep(backoff);
                backoff *= 2;
            }
            count(&COUNTERS.requests);
            match self.agent.get(url).call() {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    match status {
                        200 => {
                            let kind = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
                            if !(kind.is_empty() || kind.starts_with("image/") || kind.contains("octet-stream") || kind.contains("json")) {
                                return Fetched::Failed(format!("the server sent {kind}, not a tile"));
                            }
                            match response.body_mut().with_config().limit(limit_bytes).read_to_vec() {
                                Ok(bytes) if is_cut_png(&bytes) => last = "a PNG that breaks off before its end".into(),
                                Ok(bytes) => return Fetched::Body(bytes),
                                Err(ureq::Error::BodyExceedsLimit(_)) => {
                                    return Fetched::Failed(format!("more than {}", crate::input::format_bytes(limit_bytes)))
                                }
                                Err(e) => last = format!("the response broke off ({e})"),
                            }
                        }
                        204 | 404 => return Fetched::NoTile,
                        429 | 500..=599 => last = format!("HTTP {status}"),
                        _ => return Fetched::Failed(format!("HTTP {status}")),
                    }
                }
                Err(e @ (ureq::Error::Timeout(_) | ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::Protocol(_))) => {
                    last = e.to_string()
                }
                Err(e) => return Fetched::Failed(e.to_string()),
            }
        }
        Fetched::Failed(format!("{last}, after {} tries", self.options.retries + 1))
    }

    /// Tiles of this source given up on so far.
    pub fn failure_count(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    fn failed(&self, url: &str, why: &str) {
        count(&COUNTERS.failures);
        if self.failures.fetch_add(1, Ordering::Relaxed) == 0 {
            eprintln!("warning: {url}: {why}; tile read as missing (later failures from {} are counted, not named)", self.spec);
        }
    }
}

impl TileSource for HttpSource {
    fn name(&self) -> String {
        self.spec.clone()
    }

    fn index(&self) -> &SourceIndex {
        &self.index
    }

    fn tile_name(&self, z: u32, x: u32, y: u32) -> String {
        self.tile_url(z, x, y)
    }

    fn remote(&self) -> bool {
        true
    }

    fn get(&self, z: u32, x: u32, y: u32) -> Result<Option<Vec<u8>>, TerrainError> {
        if z > tile_source::MAX_SOURCE_ZOOM || x >= 1 << z || y >= 1 << z {
            return Ok(None);
        }
        if let Some(cache) = &self.cache {
            match cache.get(&self.cache_key, z, x, y) {
                Cached::Tile(bytes) => {
                    count(&COUNTERS.disk_hits);
                    return Ok(Some(bytes));
                }
                Cached::NoTile => {
                    count(&COUNTERS.disk_hits);
                    return Ok(None);
                }
                Cached::Miss => {}
            }
        }
        if self.options.offline {
            count(&COUNTERS.offline_misses);
            return Ok(None);
        }
        let url = self.tile_url(z, x, y);
        let (tile, cached) = match self.fetch(&url, crate::input::TILE_BYTES) {
            Fetched::Body(bytes) => {
                count(&COUNTERS.fetched);
                (Some(bytes.clone()), Cached::Tile(bytes))
            }
            Fetched::NoTile => {
                count(&COUNTERS.no_tile);
                (None, Cached::NoTile)
            }
            Fetched::Failed(why) => {
                self.failed(&url, &why);
                return Err(TerrainError::Unavailable { url, problem: why });
            }
        };
        if let Some(cache) = &self.cache {
            cache.put(&self.cache_key, z, x, y, &cached);
        }
        Ok(tile)
    }
}
