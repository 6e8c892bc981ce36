//! The `bisector` command line: view | shot | bench | kernel | quality | probe | info | tiles, one module per
//! command beside this file; `args` holds the flags, `checks` and `scene` what several commands share.

use clap::Parser;

use args::{Cli, Command};
use bench::bench;
use bisector::bench::run::BenchOptions;
use bisector::cli::parse_size;
use info::info;
use kernel::kernel;
use probe::probe;
use quality::quality;
use shot::shot;
use tiles::tiles;
use view::view;

/// Prints a line on stdout like `println!`, but a closed stdout (its reader gone, as in
/// `bisector ... | head -1`) is no error: the rest is not printed and the command goes on.
macro_rules! say {
    ($($arg:tt)*) => { $crate::print_line(format_args!($($arg)*)) };
}

/// Writes one line to stdout unless stdout has closed (then nothing more is printed).
fn print_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static CLOSED: AtomicBool = AtomicBool::new(false);
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        CLOSED.store(true, Ordering::Relaxed);
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("warning: cannot write to stdout ({error}); the rest of the output is not printed");
        }
    }
}

mod args;
mod bench;
mod checks;
mod info;
mod kernel;
mod kernel_all;
mod probe;
mod quality;
mod scene;
mod shot;
mod tiles;
mod view;

fn run(cli: Cli) -> anyhow::Result<()> {
    match &cli.command {
        Command::View { render, camera, frames, screenshot, no_vsync } => {
            view(render, camera.as_deref(), *frames, screenshot.as_deref(), *no_vsync)
        }
        Command::Info => info(),
        Command::Shot { render, camera, size, out, json } => shot(render, camera.as_deref(), size, out, json.as_deref()),
        Command::Bench { render, path, size, frames, warmup, fps, json, plot, pass_timing } => {
            let pass_timing = *pass_timing == args::OnOff::On;
            bisector::gpu::set_pass_timing(pass_timing);
            let options = BenchOptions {
                terrain_name: render.terrain.clone(),
                path_name: path.display().to_string(),
                size_px: parse_size(size)?,
                frames: *frames,
                warmup_frames: *warmup,
                pace_fps: *fps,
                progress: true,
                pass_timing,
            };
            bench(render, path, options, json, plot.as_deref())
        }
        Command::Probe { terrain, at, detail } => probe(terrain, at, *detail == args::OnOff::On),
        Command::Quality { render, camera, size, json } => quality(render, camera.as_deref(), size, json.as_deref()),
        Command::Kernel { kernel: k } => kernel(k),
        Command::Tiles { from, out, encoding, max_zoom, min_zoom, attribution, threads } => {
            tiles(from, out, *encoding, *max_zoom, *min_zoom, attribution.as_deref(), *threads)
        }
    }
}

/// One line for a command-line error: clap's first paragraph (the message and, for missing
/// arguments, their names) joined, then where to look.
fn clap_error_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let message: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let message = if message.is_empty() { "error: bad arguments".to_string() } else { message.join(" ") };
    format!("{message} (see bisector --help)")
}

/// Hands the --tile-* flags and --offline to the HTTP tile sources, the --cog-* budgets to the
/// large GeoTIFFs.
fn set_tile_options(tiles: &args::TileArgs) -> anyhow::Result<()> {
    use bisector::terrain::{cog, cog_source, http_source, pyramid::Encoding};
    for (flag, mib) in [("--cog-cache-mib", tiles.cog_cache_mib), ("--cog-tiles-mib", tiles.cog_tiles_mib)] {
        if mib == 0 || mib > 1 << 20 {
            anyhow::bail!("{flag} {mib}: must be 1 to 1048576 (MiB)");
        }
    }
    cog::set_file_budget(tiles.cog_cache_mib << 20);
    cog_source::set_served_budget(tiles.cog_tiles_mib << 20);
    if !(tiles.tile_timeout_s > 0.0 && tiles.tile_timeout_s <= 3600.0) {
        anyhow::bail!("--tile-timeout-s {}: must be more than 0 and at most 3600 seconds", tiles.tile_timeout_s);
    }
    if tiles.tile_cache_mib == 0 || tiles.tile_cache_mib > 1 << 30 {
        anyhow::bail!("--tile-cache-mib {}: must be 1 to 1073741824", tiles.tile_cache_mib);
    }
    http_source::set_options(http_source::HttpOptions {
        cache_dir: tiles.tile_cache_dir.clone(),
        cache_limit_bytes: tiles.tile_cache_mib << 20,
        offline: tiles.offline,
        encoding: tiles.tile_encoding.map(|e| match e {
            args::TileEncodingArg::TerrainRgb => Encoding::TerrainRgb,
            args::TileEncodingArg::Terrarium => Encoding::Terrarium,
        }),
        timeout: std::time::Duration::from_secs_f64(tiles.tile_timeout_s),
        ..http_source::HttpOptions::default()
    });
    Ok(())
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn,wgpu_hal=off")).init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            let _ = error.print();
            return;
        }
        Err(error) if error.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `bisector` or `bisector kernel` alone: the help, and the exit of a usage error.
            let _ = error.print();
            std::process::exit(2);
        }
        Err(error) => {
            eprintln!("{}", clap_error_line(&error));
            std::process::exit(2);
        }
    };
    if let Err(error) = set_tile_options(&cli.tiles) {
        eprintln!("error: {error:#}");
        std::process::exit(2);
    }
    if !matches!(cli.command, Command::View { .. }) {
        bisector::gpu::quiet_headless_platform();
    }
    if let Err(error) = run(cli) {
        eprintln!("error: {error:#}");
        std::process::exit(1);
    }
    let tiles = bisector::terrain::http_source::stats();
    if tiles.failures > 0 || tiles.offline_misses > 0 {
        eprintln!(
            "note: tiles over HTTP: {} given up on and {} not in the disk cache (--offline), drawn as missing; {} requests, {} retries, {} tiles fetched, {} read from the disk cache",
            tiles.failures, tiles.offline_misses, tiles.requests, tiles.retries, tiles.fetched, tiles.disk_hits
        );
    }
}
