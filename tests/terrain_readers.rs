//! Height readers against known values of the real data in heightmaps/ (see its README), a
//! Terrarium pyramid the test writes itself, and corrupt inputs, all through the sampling code
//! `bisector probe` uses.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use bisector::terrain::pyramid::{tile_xy, Encoding};
use bisector::terrain::raster::Crs;
use bisector::terrain::{geotiff, HeightSource, TerrainSpec};

fn data(relative: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path
}

fn probe_line(terrain: &Path, at: &str) -> (bool, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_bisector")).args(["probe", "--terrain"]).arg(terrain).arg(format!("--at={at}")).output().unwrap();
    let text = if out.status.success() {
        String::from_utf8_lossy(&out.stdout).to_string()
    } else {
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got {lines:?}");
    assert!(!text.contains("panicked"));
    (out.status.success(), lines[0].to_string())
}

#[test]
fn etopo_extremes_and_the_pacific() {
    let raster = geotiff::read(&data("etopo20_global.tif")).unwrap();
    assert_eq!((raster.width, raster.height, raster.crs), (1080, 540, Crs::Geographic));
    let (lo, hi, at_max) = raster.stats().unwrap();
    assert_eq!((lo, hi), (-9027.0, 6229.0));
    assert!((at_max.0 - 85.2).abs() < 0.5 && (at_max.1 - 28.8).abs() < 0.5, "maximum at {at_max:?}");
    // The minimum: find it and check where it is.
    let i = raster.heights_m.iter().position(|&h| h == -9027.0).unwrap() as u32;
    let at_min = raster.position(i % raster.width, i / raster.width);
    assert!((at_min.0 - 142.2).abs() < 0.5 && (at_min.1 - 11.2).abs() < 0.5, "minimum at {at_min:?}");
    // probe samples exactly at a sample point, and interpolates between them.
    let (ok, line) = probe_line(&data("etopo20_global.tif"), &format!("{},{}", at_max.0, at_max.1));
    assert!(ok && line == "6229.00", "{line}");
    // 0N 150W sits between four samples: README says about -4181 m, the bilinear value is within 100 m.
    let pacific = raster.sample_m(-150.0, 0.0).unwrap();
    assert!((pacific - -4181.0).abs() < 100.0, "{pacific}");
}

#[test]
fn big_tujunga_projected_with_gdal_nodata() {
    let raster = geotiff::read(&data("bigtujunga.tif")).unwrap();
    assert_eq!((raster.width, raster.height, raster.crs, raster.step), (1197, 643, Crs::Projected { epsg: 32611 }, (30.0, 30.0)));
    let (lo, hi, _) = raster.stats().unwrap();
    assert_eq!((lo, hi), (315.0, 2295.0));
    // PixelIsArea: the first sample sits half a post inside the tie point's corner.
    assert_eq!(raster.origin, (376313.6554542635 + 15.0, 3807917.8276283755 - 15.0));
    let (ok, line) = probe_line(&data("bigtujunga.tif"), "300000,3800000");
    assert!(ok && line == "nodata", "{line}");
}

#[test]
fn taiwan_terrain_rgb_yushan_and_fallback() {
    let spec = TerrainSpec::parse(data("taiwan-terrain-rgb").to_str().unwrap()).unwrap();
    let source = spec.open().unwrap();
    // The highest value at the z13 pixel centres within 4 pixels (about 70 m) of Yushan's summit.
    let n = 256.0 * 8192.0;
    let (tx, ty) = tile_xy(13, 120.9572, 23.47);
    let (cx, cy) = ((tx * 256.0).floor(), (ty * 256.0).floor());
    let mut highest = f32::MIN;
    for i in -4..=4 {
        for j in -4..=4 {
            let (gx, gy) = (cx + i as f64 + 0.5, cy + j as f64 + 0.5);
            let lon = gx / n * 360.0 - 180.0;
            let lat = (std::f64::consts::PI * (1.0 - 2.0 * gy / n)).sinh().atan().to_degrees();
            if let Some(h) = source.sample_m(lon, lat).unwrap() {
                highest = highest.max(h);
            }
        }
    }
    assert!((highest - 3947.0).abs() < 5.0, "highest near Yushan {highest}");
    // The sea around the island is nodata; Xueshan is outside the z13 window: it falls back to z11.
    assert_eq!(source.sample_m(119.0, 22.0).unwrap(), None);
    let xueshan = source.sample_m(121.2333, 24.3833).unwrap().unwrap();
    assert!((3700.0..3890.0).contains(&xueshan), "{xueshan}");
}

/// Writes a Terrarium pyramid at zooms 1..=2 whose heights are multiples of 1/256 m.
fn write_terrarium(dir: &Path, tile_px: u32, height_at: impl Fn(u32, u32, u32, u32, u32) -> f64) {
    std::fs::write(dir.join("tiles.json"), r#"{"tilejson": "2.2.0", "tiles": ["{z}/{x}/{y}.png"], "minzoom": 1, "maxzoom": 2, "scheme": "xyz", "encoding": "terrarium", "bounds": [-180, -85, 180, 85]}"#).unwrap();
    for z in 1..=2u32 {
        for x in 0..(1 << z) {
            for y in 0..(1 << z) {
                let mut image = image::RgbImage::new(tile_px, tile_px);
                for (px, py, pixel) in image.enumerate_pixels_mut() {
                    pixel.0 = Encoding::Terrarium.encode(height_at(z, x, y, px, py));
                }
                std::fs::create_dir_all(dir.join(format!("{z}/{x}"))).unwrap();
                image.save(dir.join(format!("{z}/{x}/{y}.png"))).unwrap();
            }
        }
    }
}

#[test]
fn terrarium_pyramid_round_trips_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let height_at =
        |z: u32, x: u32, y: u32, px: u32, py: u32| (z * 1000 + x * 100 + y * 10) as f64 + (px * 7 + py * 3) as f64 / 256.0 - 500.0;
    write_terrarium(dir.path(), 16, height_at);
    let source = TerrainSpec::parse(dir.path().to_str().unwrap()).unwrap().open().unwrap();
    assert!(matches!(source, HeightSource::Pyramid(_)));
    // At every pixel centre of the finest zoom, the sample is the stored height exactly.
    let n = 4.0 * 16.0;
    for gx in (0..64u32).step_by(5) {
        for gy in (3..61u32).step_by(7) {
            let lon = (gx as f64 + 0.5) / n * 360.0 - 180.0;
            let merc = std::f64::consts::PI * (1.0 - 2.0 * (gy as f64 + 0.5) / n);
            let lat = merc.sinh().atan().to_degrees();
            let (tx, ty) = tile_xy(2, lon, lat);
            assert_eq!((tx as u32, ty as u32), (gx / 16, gy / 16));
            let expected = height_at(2, gx / 16, gy / 16, gx % 16, gy % 16) as f32;
            let got = source.sample_m(lon, lat).unwrap().unwrap();
            assert!((got - expected).abs() < 1e-3, "pixel ({gx}, {gy}): {got} vs {expected}");
        }
    }
}

#[test]
fn corrupt_inputs_give_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let etopo = std::fs::read(data("etopo20_global.tif")).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated.tif", etopo[..etopo.len() / 3].to_vec(), "truncated.tif"),
        ("magic.tif", [b"NOPE".as_slice(), &etopo[4..]].concat(), "magic.tif"),
        ("empty.tif", Vec::new(), "empty.tif"),
    ];
    for (name, bytes, expect) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (ok, line) = probe_line(&path, "0,0");
        assert!(!ok && line.contains(expect), "{name}: {line}");
    }
    // Absurd dimensions: patch the ImageWidth entry of a real file's first IFD to 2^31.
    let mut absurd = etopo.clone();
    let ifd = u32::from_le_bytes(absurd[4..8].try_into().unwrap()) as usize;
    let entries = u16::from_le_bytes(absurd[ifd..ifd + 2].try_into().unwrap()) as usize;
    let entry =
        (0..entries).map(|e| ifd + 2 + 12 * e).find(|&at| u16::from_le_bytes(absurd[at..at + 2].try_into().unwrap()) == 256).unwrap();
    let kind = u16::from_le_bytes(absurd[entry + 2..entry + 4].try_into().unwrap());
    if kind == 3 {
        absurd[entry + 8..entry + 10].copy_from_slice(&u16::MAX.to_le_bytes());
    } else {
        absurd[entry + 8..entry + 12].copy_from_slice(&(1u32 << 31).to_le_bytes());
    }
    let path = dir.path().join("absurd.tif");
    std::fs::write(&path, absurd).unwrap();
    let (ok, line) = probe_line(&path, "0,0");
    assert!(!ok && line.contains("absurd.tif"), "{line}");

    // Pyramids: bad JSON, missing fields, a tile of the wrong size.
    for (name, json) in [("badjson", "{ not json"), ("nofields", r#"{"tilejson": "2.2.0"}"#)] {
        let pyramid = dir.path().join(name);
        std::fs::create_dir_all(&pyramid).unwrap();
        std::fs::write(pyramid.join("tiles.json"), json).unwrap();
        let (ok, line) = probe_line(&pyramid, "0,0");
        assert!(!ok && line.contains("tiles.json"), "{name}: {line}");
    }
    let pyramid = dir.path().join("wrongsize");
    std::fs::create_dir_all(&pyramid).unwrap();
    write_terrarium(&pyramid, 16, |_, _, _, _, _| 0.0);
    image::RgbImage::new(8, 8).save(pyramid.join("2/1/1.png")).unwrap();
    let (ok, line) = probe_line(&pyramid, "-45,45");
    assert!(!ok && line.contains("1.png") && line.contains("8 x 8"), "{line}");
    // A tile missing inside the bounds is nodata at that zoom, not an error: z1 answers instead.
    std::fs::remove_file(pyramid.join("2/1/1.png")).unwrap();
    let (ok, line) = probe_line(&pyramid, "-45,45");
    assert!(ok && line == "0.00", "{line}");
}

#[test]
fn a_geotiff_renders() {
    // Until the tile cache streams full detail, a raster is resampled to one texture and drawn.
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("bigtujunga.png");
    let out = Command::new(env!("CARGO_BIN_EXE_bisector"))
        .args(["shot", "--size", "96x64", "--max-depth", "16", "--terrain"])
        .arg(data("bigtujunga.tif"))
        .arg("--out")
        .arg(&png)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let image = image::open(&png).unwrap().to_rgba8();
    let distinct = common::distinct_colours(&image);
    assert!(distinct > 100, "only {} colours", distinct);
    let field =
        TerrainSpec::parse(data("bigtujunga.tif").to_str().unwrap()).unwrap().load(bisector::terrain::DEFAULT_MAX_SAMPLES).unwrap().field;
    let (lo, hi) = field.height_range_m();
    assert!((315.0..400.0).contains(&lo) && (2200.0..=2295.0).contains(&hi), "{lo}..{hi}");
    assert!((field.size_m - 1196.0 * 30.0).abs() < 1.0, "{}", field.size_m);
}

#[test]
fn png16_heights_with_scale_and_extent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heights.png");
    let (w, h) = (33u32, 17u32);
    let value = |x: u32, y: u32| (x * 1000 + y * 37) as u16;
    image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(w, h, |x, y| image::Luma([value(x, y)])).save(&path).unwrap();
    let spec = format!("{}:0.25:3200", path.display());
    let source = TerrainSpec::parse(&spec).unwrap().open().unwrap();
    // 3200 m over 32 steps: 100 m between samples; row 0 is the north edge.
    for (x, y) in [(0u32, 0u32), (32, 16), (7, 3), (20, 11)] {
        let (east, north) = (x as f64 * 100.0, (h - 1 - y) as f64 * 100.0);
        let got = source.sample_m(east, north).unwrap().unwrap();
        assert_eq!(got, value(x, y) as f32 * 0.25, "sample ({x}, {y})");
    }
    assert_eq!(source.sample_m(-100.0, 0.0).unwrap(), None);
    let (ok, line) = probe_line(Path::new(&spec), "700,1300");
    assert!(ok && line == format!("{:.2}", value(7, 3) as f32 * 0.25), "{line}");

    // An 8-bit PNG, and a PNG without its scale and extent: one clear line each.
    let eight = dir.path().join("eight.png");
    image::GrayImage::new(4, 4).save(&eight).unwrap();
    let (ok, line) = probe_line(Path::new(&format!("{}:1:100", eight.display())), "1,1");
    assert!(!ok && line.contains("eight.png") && line.contains("16-bit"), "{line}");
    let (ok, line) = probe_line(&path, "1,1");
    assert!(!ok && line.contains("SCALE_M:SIZE_M"), "{line}");
}
