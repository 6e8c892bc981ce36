//! Readers against bad data (issue 13): files past their size limit (also ones with no known
//! length), tiles whose pixel format cannot be Terrain-RGB/Terrarium, absurd PNG height scales,
//! non-finite or out-of-range heights and CSV values past f32. Every file is generated in a
//! tempdir; no GPU is needed.

use std::io::Cursor;
use std::path::Path;
use std::process::Command;

use bisector::bench::globe_path::GlobePath;
use bisector::bench::path::CameraPath;
use bisector::terrain::pyramid::{Encoding, TilePyramid};
use bisector::terrain::{geotiff, png16, HeightSource, TerrainSpec};
use bisector_kernels::closest_pairs;
use tiff::encoder::{colortype, TiffEncoder};
use tiff::tags::Tag;

/// A sparse file of `len` zero bytes (no disk used).
fn sparse(path: &Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

fn error_text<T, E: std::fmt::Display>(result: Result<T, E>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn camera_paths_stop_at_16_mib() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.json");
    sparse(&big, (16 << 20) + 1);
    let flat = error_text(CameraPath::load(&big));
    assert!(flat.starts_with(&format!("camera path {}: it is 16.0 MiB, more than the 16 MiB", big.display())), "{flat}");
    let globe = error_text(GlobePath::load(&big));
    assert!(globe.contains("more than the 16 MiB a camera path may have"), "{globe}");
    // A file with no length: reading stops one byte past the limit.
    #[cfg(unix)]
    {
        let endless = error_text(CameraPath::load(Path::new("/dev/zero")));
        assert_eq!(endless, "camera path /dev/zero: it holds more than the 16 MiB a camera path may have; is it the right file?");
        assert!(error_text(GlobePath::load(Path::new("/dev/zero"))).contains("it holds more than the 16 MiB"));
    }
}

#[test]
fn army_pattern_and_text_files_have_limits() {
    // `bisector kernel` reads them (within their limits) before any GPU work.
    let dir = tempfile::tempdir().unwrap();
    let kernel = |args: &[&std::ffi::OsStr]| {
        let out = Command::new(env!("CARGO_BIN_EXE_bisector")).arg("kernel").args(args).output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let big = dir.path().join("army.csv");
    sparse(&big, (512 << 20) + 1);
    let army = kernel(&["closest-pairs".as_ref(), "--a".as_ref(), big.as_os_str(), "--b".as_ref(), big.as_os_str()]);
    assert!(army.contains("army.csv: it is 512.0 MiB, more than the 512 MiB"), "{army}");
    let patterns = dir.path().join("patterns.txt");
    sparse(&patterns, (16 << 20) + 1);
    let text = dir.path().join("text.bin");
    std::fs::write(&text, b"abc").unwrap();
    let shift_and = |patterns: &Path, text: &Path| {
        kernel(&["shift-and".as_ref(), "--patterns".as_ref(), patterns.as_os_str(), "--text".as_ref(), text.as_os_str()])
    };
    let error = shift_and(&patterns, &text);
    assert!(error.contains("more than the 16 MiB a pattern file may have"), "{error}");
    std::fs::write(&patterns, b"ab\n").unwrap();
    sparse(&text, (1 << 30) + 1);
    let error = shift_and(&patterns, &text);
    assert!(error.contains("more than the 1 GiB a text may have"), "{error}");
    std::fs::write(&text, b"").unwrap();
    let error = shift_and(&patterns, &text);
    assert!(error.contains("the text is empty"), "{error}");
}

#[test]
fn army_values_past_f32_are_out_of_range_on_their_line() {
    let err = error_text(closest_pairs::parse_army("1,2,3\n4,1e300,6\n", "a.csv"));
    assert!(err.starts_with("a.csv:2: '1e300' is out of range: coordinates must fit f32"), "{err}");
    let err = error_text(closest_pairs::parse_army("1,inf,3\n", "a.csv"));
    assert!(err.starts_with("a.csv:1: 'inf' is not a finite number"), "{err}");
    assert_eq!(closest_pairs::parse_army("1,-2.5,3e38\r\n", "a.csv").unwrap(), vec![[1.0, -2.5, 3e38]]);
}

#[test]
fn tilejson_stops_at_1_mib() {
    let dir = tempfile::tempdir().unwrap();
    sparse(&dir.path().join("tiles.json"), (1 << 20) + 1);
    let err = error_text(TilePyramid::open(dir.path()));
    assert!(err.contains("tiles.json: it is 1.0 MiB, more than the 1 MiB a TileJSON may have"), "{err}");
}

fn png_bytes(image: image::DynamicImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png).unwrap();
    bytes
}

/// A Terrain-RGB pyramid at zooms 1 and 2 whose tiles all hold `height_m`, except tile
/// (2, 1, 1), which is `odd`.
fn write_pyramid(dir: &Path, height_m: f64, odd: image::DynamicImage) {
    std::fs::write(dir.join("tiles.json"), r#"{"tiles": ["{z}/{x}/{y}.png"], "minzoom": 1, "maxzoom": 2, "bounds": [-180, -85, 180, 85]}"#)
        .unwrap();
    let rgb = Encoding::TerrainRgb.encode(height_m);
    let good = png_bytes(image::RgbImage::from_pixel(8, 8, image::Rgb(rgb)).into());
    for z in 1..=2u32 {
        for x in 0..1u32 << z {
            std::fs::create_dir_all(dir.join(format!("{z}/{x}"))).unwrap();
            for y in 0..1u32 << z {
                let bytes = if (z, x, y) == (2, 1, 1) { png_bytes(odd.clone()) } else { good.clone() };
                std::fs::write(dir.join(format!("{z}/{x}/{y}.png")), bytes).unwrap();
            }
        }
    }
}

/// A point inside tile (2, 1, 1): lon -45, lat 30.
const IN_ODD_TILE: (f64, f64) = (-45.0, 30.0);

#[test]
fn greyscale_and_16_bit_tiles_are_not_terrain_rgb() {
    let odd_tiles: [(image::DynamicImage, &str); 4] = [
        (image::GrayImage::from_pixel(8, 8, image::Luma([200])).into(), "8-bit greyscale cannot be Terrain-RGB"),
        (
            image::ImageBuffer::<image::Luma<u16>, _>::from_pixel(8, 8, image::Luma([40000])).into(),
            "16-bit greyscale cannot be Terrain-RGB",
        ),
        (
            image::ImageBuffer::<image::LumaA<u8>, _>::from_pixel(8, 8, image::LumaA([90, 255])).into(),
            "8-bit greyscale+alpha cannot be Terrain-RGB",
        ),
        (image::ImageBuffer::<image::Rgb<u16>, _>::from_pixel(8, 8, image::Rgb([1, 2, 3])).into(), "16-bit RGB cannot be Terrain-RGB"),
    ];
    for (odd, _) in odd_tiles {
        let dir = tempfile::tempdir().unwrap();
        write_pyramid(dir.path(), 321.0, odd);
        let pyramid = TilePyramid::open(dir.path()).unwrap();
        // The odd tile reads as missing: zoom 1's height shows through, not 256,510 m or nodata.
        let h = pyramid.sample_m(IN_ODD_TILE.0, IN_ODD_TILE.1).unwrap().expect("zoom 1 has data there");
        assert!((h - 321.0).abs() < 0.1, "{h}");
        assert_eq!(pyramid.rejected_tiles(), 1);
        assert!((pyramid.sample_m(100.0, -30.0).unwrap().unwrap() - 321.0).abs() < 0.1);
        assert_eq!(pyramid.rejected_tiles(), 1);
    }
}

#[test]
fn tiles_with_heights_off_the_earth_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_pyramid(dir.path(), -50.0, image::RgbImage::from_pixel(8, 8, image::Rgb([255, 255, 255])).into());
    let pyramid = TilePyramid::open(dir.path()).unwrap();
    let h = pyramid.sample_m(IN_ODD_TILE.0, IN_ODD_TILE.1).unwrap().unwrap();
    assert!((h + 50.0).abs() < 0.1, "{h}");
    assert_eq!(pyramid.rejected_tiles(), 1);
}

#[test]
fn a_rejected_tile_is_named_once_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    write_pyramid(dir.path(), 700.0, image::GrayImage::from_pixel(8, 8, image::Luma([200])).into());
    // A second greyscale tile: counted, not named.
    std::fs::write(dir.path().join("2/1/2.png"), png_bytes(image::GrayImage::from_pixel(8, 8, image::Luma([3])).into())).unwrap();
    let out =
        Command::new(env!("CARGO_BIN_EXE_bisector")).args(["probe", "--terrain"]).arg(dir.path()).arg("--at=-45,30").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("1.png: 8-bit greyscale cannot be Terrain-RGB"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("700"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn png_height_scales_and_sizes_must_be_sane() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h.png");
    std::fs::write(
        &file,
        png_bytes(image::ImageBuffer::<image::Luma<u16>, _>::from_fn(4, 4, |x, y| image::Luma([(x * 100 + y) as u16])).into()),
    )
    .unwrap();
    let f = file.display();
    for (spec, problem) in [
        (format!("{f}:1e308:100"), "height scale 1e308 is out of range"),
        (format!("{f}:1001:100"), "height scale 1001 is out of range"),
        (format!("{f}:0:100"), "height scale 0 is out of range"),
        (format!("{f}:-1:100"), "height scale -1 is out of range"),
        (format!("{f}:inf:100"), "height scale inf is out of range"),
        (format!("{f}:1:NaN"), "width NaN is out of range"),
        (format!("{f}:1:1e9"), "width 1e9 is out of range"),
        (format!("{f}x:1:100"), "needs its height scale and width: FILE.png:SCALE_M:SIZE_M"),
    ] {
        let err = error_text(TerrainSpec::parse(&spec));
        assert!(err.contains(problem), "{spec}: {err}");
    }
    assert!(TerrainSpec::parse(&format!("{f}:0.5:100")).is_ok());
    // Heights that cannot be on Earth: 200 units x 100 m.
    let err = error_text(png16::read(&file, 100.0, 1000.0));
    assert!(err.starts_with(&format!("{f}: height 20000 m at sample (column 2, row 0) is outside")), "{err}");
    let raster = png16::read(&file, 10.0, 1000.0).unwrap();
    assert_eq!(raster.heights_m[3], 3000.0);
}

/// A 4 x 4 float32 GeoTIFF in EPSG:4326 with `heights` and an optional GDAL_NODATA.
fn geotiff_f32(heights: &[f32; 16], nodata: Option<&str>) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    let mut tiff = TiffEncoder::new(&mut bytes).unwrap();
    let mut image = tiff.new_image::<colortype::Gray32Float>(4, 4).unwrap();
    write_geo_tags(image.encoder(), nodata);
    image.write_data(heights).unwrap();
    bytes.into_inner()
}

fn write_geo_tags<W: std::io::Write + std::io::Seek, K: tiff::encoder::TiffKind>(
    encoder: &mut tiff::encoder::DirectoryEncoder<'_, W, K>,
    nodata: Option<&str>,
) {
    encoder.write_tag(Tag::ModelPixelScaleTag, &[0.5f64, 0.5, 0.0][..]).unwrap();
    encoder.write_tag(Tag::ModelTiepointTag, &[0.0f64, 0.0, 0.0, 10.0, 50.0, 0.0][..]).unwrap();
    encoder.write_tag(Tag::GeoKeyDirectoryTag, &[1u16, 1, 0, 2, 1024, 0, 1, 2, 2048, 0, 1, 4326][..]).unwrap();
    if let Some(nodata) = nodata {
        encoder.write_tag(Tag::GdalNodata, nodata).unwrap();
    }
}

#[test]
fn geotiff_nan_is_nodata_and_infinite_or_absurd_heights_are_refused() {
    let mut heights = [100.0f32; 16];
    heights[5] = f32::NAN;
    let raster = geotiff::read_bytes(&geotiff_f32(&heights, None), "nan.tif").unwrap();
    assert!(raster.heights_m[5].is_nan() && raster.heights_m[6] == 100.0);
    heights[5] = f32::INFINITY;
    let err = error_text(geotiff::read_bytes(&geotiff_f32(&heights, None), "inf.tif"));
    assert!(err.starts_with("inf.tif: height inf m at sample (column 1, row 1) is outside -12000..10000 m"), "{err}");
    heights[5] = f32::NEG_INFINITY;
    assert!(error_text(geotiff::read_bytes(&geotiff_f32(&heights, None), "inf.tif")).contains("height -inf m"));
    heights[5] = 50_000.0;
    assert!(error_text(geotiff::read_bytes(&geotiff_f32(&heights, None), "high.tif")).contains("height 50000 m"));
    // An undeclared nodata value is refused with advice; declared, it is nodata.
    heights[5] = -32768.0;
    let err = error_text(geotiff::read_bytes(&geotiff_f32(&heights, None), "void.tif"));
    assert!(err.contains("height -32768 m") && err.contains("declare it in GDAL_NODATA"), "{err}");
    let raster = geotiff::read_bytes(&geotiff_f32(&heights, Some("-32768")), "void.tif").unwrap();
    assert!(raster.heights_m[5].is_nan());
}

/// Sets the value of `tag` (SHORT or LONG, one value) in the first IFD of little-endian TIFF `bytes`.
fn patch_tag(bytes: &mut [u8], tag: u16, value: u32) {
    let ifd = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let count = u16::from_le_bytes(bytes[ifd..ifd + 2].try_into().unwrap()) as usize;
    let entry = (0..count)
        .map(|i| ifd + 2 + 12 * i)
        .find(|&e| u16::from_le_bytes(bytes[e..e + 2].try_into().unwrap()) == tag)
        .expect("tag present");
    match u16::from_le_bytes(bytes[entry + 2..entry + 4].try_into().unwrap()) {
        3 => bytes[entry + 8..entry + 10].copy_from_slice(&(value as u16).to_le_bytes()),
        _ => bytes[entry + 8..entry + 12].copy_from_slice(&value.to_le_bytes()),
    }
}

#[test]
fn geotiff_headers_cannot_claim_more_than_the_file_holds() {
    let mut bytes = Cursor::new(Vec::new());
    let mut tiff = TiffEncoder::new(&mut bytes).unwrap();
    let mut image = tiff.new_image::<colortype::GrayI16>(4, 4).unwrap();
    write_geo_tags(image.encoder(), None);
    image.write_data(&[7i16; 16]).unwrap();
    let mut bytes = bytes.into_inner();
    assert!(geotiff::read_bytes(&bytes, "small.tif").is_ok());
    // 4 x 4 samples claimed as 8192 x 8192 (128 MiB from a file of a few hundred bytes).
    patch_tag(&mut bytes, 256, 8192);
    patch_tag(&mut bytes, 257, 8192);
    let err = error_text(geotiff::read_bytes(&bytes, "lying.tif"));
    assert!(err.starts_with("lying.tif: the header claims 8192 x 8192 samples of 2 bytes, more than the file's"), "{err}");
}

#[test]
fn the_repository_files_still_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["heightmaps/etopo20_global.tif", "heightmaps/bigtujunga.tif"] {
        let spec = TerrainSpec::parse(root.join(file).to_str().unwrap()).unwrap();
        assert!(matches!(spec.open(), Ok(HeightSource::Raster(_))), "{file}");
    }
    let pyramid = TilePyramid::open(&root.join("heightmaps/taiwan-terrain-rgb")).unwrap();
    assert!(pyramid.sample_m(120.9572, 23.47).unwrap().is_some());
    assert_eq!(pyramid.rejected_tiles(), 0);
}

/// `bench --path /dev/zero` grew to 24 GB and was killed: now one line and exit 1, under a 2 GB
/// address-space limit (so a regression fails here instead of eating the machine's memory).
#[cfg(unix)]
#[test]
fn bench_path_from_dev_zero_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let script = format!(
        "ulimit -v 2000000; exec '{}' bench --path /dev/zero --size 32x32 --json '{}'",
        env!("CARGO_BIN_EXE_bisector"),
        json.display()
    );
    let out = Command::new("sh").arg("-c").arg(script).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR")).collect();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(lines, ["error: camera path /dev/zero: it holds more than the 16 MiB a camera path may have; is it the right file?"]);
    assert!(!json.exists());
}
