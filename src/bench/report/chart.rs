//! The benchmark report's PNG chart: GPU milliseconds per frame, one line per pass.

use super::{BenchReport, ReportError};
use plotters::prelude::*;
use std::path::Path;

/// Chart width in pixels.
const PLOT_WIDTH_PX: u32 = 1200;

/// Chart height in pixels.
const PLOT_HEIGHT_PX: u32 = 600;

/// Font family name the chart's text is registered and drawn under.
const PLOT_FONT: &str = "sans-serif";

/// Line colours for passes (Tableau 10), reused cyclically; the frame total is black.
const PASS_COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// plotters' description of a failure while drawing the chart.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct DrawError(String);

impl BenchReport {
    /// Writes a 1200x600 PNG line chart of GPU ms per frame: one line per pass plus the frame total.
    ///
    /// `font_ttf` is registered with plotters under "sans-serif" (replacing any font
    /// registered there before); plotters keeps a reference to it, hence `'static`, as
    /// given by `include_bytes!`.
    pub fn write_plot_png(&self, path: &Path, font_ttf: &'static [u8]) -> Result<(), ReportError> {
        let file = path.display().to_string();
        plotters::style::register_font(PLOT_FONT, FontStyle::Normal, font_ttf).map_err(|_| ReportError::Font { file: file.clone() })?;

        let mut rgb = vec![0u8; PLOT_WIDTH_PX as usize * PLOT_HEIGHT_PX as usize * 3];
        self.draw_chart(&mut rgb).map_err(|err| ReportError::Draw { file: file.clone(), message: err.to_string() })?;
        let image = image::RgbImage::from_raw(PLOT_WIDTH_PX, PLOT_HEIGHT_PX, rgb)
            .ok_or_else(|| ReportError::Draw { file: file.clone(), message: "the pixel buffer has the wrong size".to_string() })?;
        image.save_with_format(path, image::ImageFormat::Png).map_err(|source| ReportError::Write { file, source })
    }

    /// Draws the chart into an RGB buffer of PLOT_WIDTH_PX x PLOT_HEIGHT_PX pixels.
    fn draw_chart(&self, rgb: &mut [u8]) -> Result<(), DrawError> {
        let error = |err: &dyn std::fmt::Display| DrawError(err.to_string());
        let root = BitMapBackend::with_buffer(rgb, (PLOT_WIDTH_PX, PLOT_HEIGHT_PX)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| error(&e))?;

        let first_frame = self.frames.iter().map(|f| f.frame).min().unwrap_or(0);
        let last_frame = self.frames.iter().map(|f| f.frame).max().unwrap_or(0);
        let x_end = if last_frame > first_frame { last_frame } else { first_frame + 1 };
        let max_ms = self
            .frames
            .iter()
            .flat_map(|f| f.pass_gpu_ms.iter().map(|(_, ms)| *ms).chain([f.frame_gpu_ms]))
            .filter(|ms| ms.is_finite())
            .fold(0.0f64, f64::max);
        let y_end = if max_ms > 0.0 { max_ms * 1.1 } else { 1.0 };

        let title =
            format!("GPU time per frame: {} at {}x{}", short_terrain_name(&self.meta.terrain), self.meta.width_px, self.meta.height_px);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (PLOT_FONT, 26))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(first_frame..x_end, 0.0..y_end)
            .map_err(|e| error(&e))?;
        chart
            .configure_mesh()
            .x_desc("frame")
            .y_desc("GPU time (ms)")
            .label_style((PLOT_FONT, 15))
            .axis_desc_style((PLOT_FONT, 18))
            .draw()
            .map_err(|e| error(&e))?;

        for (index, pass) in self.passes.iter().enumerate() {
            let colour = PASS_COLOURS[index % PASS_COLOURS.len()];
            let points = self.frames.iter().filter_map(|f| {
                f.pass_gpu_ms.iter().find(|(name, _)| *name == pass.name).map(|(_, ms)| (f.frame, *ms)).filter(|(_, ms)| ms.is_finite())
            });
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                .map_err(|e| error(&e))?
                .label(pass.name.clone())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], colour.stroke_width(3)));
        }
        let totals = self.frames.iter().map(|f| (f.frame, f.frame_gpu_ms)).filter(|(_, ms)| ms.is_finite());
        chart
            .draw_series(LineSeries::new(totals, BLACK.stroke_width(2)))
            .map_err(|e| error(&e))?
            .label("frame total")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 24, y)], BLACK.stroke_width(3)));

        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((PLOT_FONT, 15))
            .draw()
            .map_err(|e| error(&e))?;
        root.present().map_err(|e| error(&e))?;
        Ok(())
    }
}

/// `terrain` with every path cut to its file name, for a chart's title:
/// "planet:data/geotiff/etopo.tif,data/pyramid" -> "planet:etopo.tif,pyramid".
fn short_terrain_name(terrain: &str) -> String {
    let file_name = |path: &str| std::path::Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
    let (kind, sources) = terrain.split_once(':').map_or(("", terrain), |(k, s)| (k, s));
    let sources: Vec<String> = sources.split(',').map(file_name).collect();
    if kind.is_empty() {
        sources.join(",")
    } else {
        format!("{kind}:{}", sources.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::tests::{meta, random_frames, PASS_NAMES};
    use crate::test_rng::XorShift;

    /// DejaVuSans from the repository's assets, or from the system as a fallback.
    fn test_font() -> &'static [u8] {
        let candidates =
            [concat!(env!("CARGO_MANIFEST_DIR"), "/assets/fonts/DejaVuSans.ttf"), "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"];
        let bytes = candidates
            .iter()
            .find_map(|path| std::fs::read(path).ok())
            .expect("DejaVuSans.ttf not found in assets/fonts/ or /usr/share/fonts/truetype/dejavu/");
        Box::leak(bytes.into_boxed_slice())
    }

    #[test]
    fn chart_titles_name_files_not_paths() {
        assert_eq!(short_terrain_name("planet:data/geotiff/etopo.tif,../data/taiwan-terrain-rgb"), "planet:etopo.tif,taiwan-terrain-rgb");
        assert_eq!(short_terrain_name("planet:7"), "planet:7");
        assert_eq!(short_terrain_name("heightmaps/puget_sound_4k.png"), "puget_sound_4k.png");
        assert_eq!(short_terrain_name("procedural"), "procedural");
    }

    #[test]
    fn writes_a_png_chart() {
        let mut rng = XorShift::fresh("report");
        let report = BenchReport::from_frames(meta(), random_frames(&mut rng, 300));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bench.png");
        report.write_plot_png(&file, test_font()).unwrap();

        let image = image::open(&file).unwrap().to_rgb8();
        assert_eq!(image.dimensions(), (PLOT_WIDTH_PX, PLOT_HEIGHT_PX));
        let first = *image.get_pixel(0, 0);
        let distinct: std::collections::HashSet<[u8; 3]> = image.pixels().map(|p| p.0).collect();
        assert!(image.pixels().any(|p| *p != first));
        assert!(distinct.len() > 10, "only {} colours", distinct.len());
        for colour in PASS_COLOURS.iter().take(PASS_NAMES.len()) {
            let rgb = [colour.0, colour.1, colour.2];
            assert!(distinct.contains(&rgb), "no pixel of pass colour {rgb:?}");
        }

        let empty = BenchReport::from_frames(meta(), Vec::new());
        empty.write_plot_png(&dir.path().join("empty.png"), test_font()).unwrap();
    }

    #[test]
    fn unwritable_png_path_names_the_file() {
        let report = BenchReport::from_frames(meta(), random_frames(&mut XorShift::fresh("report"), 5));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("no_such_dir").join("bench.png");
        let err = report.write_plot_png(&file, test_font()).unwrap_err();
        assert!(matches!(err, ReportError::Write { .. }), "{err}");
        assert!(err.to_string().contains(&file.display().to_string()), "{err}");

        let err = report.write_plot_png(&dir.path().join("bad_font.png"), b"not a font").unwrap_err();
        assert!(matches!(err, ReportError::Font { .. }), "{err}");
    }
}
