//! Line charts for the histories (`history --plot`): panels stacked one above the other, each
//! with its series of (x, y) points drawn as lines with dots, a legend, and a shared x axis.
//! Pure: the picture is drawn into memory with plotters' bitmap backend and returned as an
//! image; writing it is the caller's. Text is DejaVu Sans, built into the binary, so a chart
//! looks the same on every machine and needs no system fonts.

use std::sync::Once;

use image::RgbImage;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// One line on a panel.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One chart of a figure.
#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub y_label: String,
    /// The y axis's range; `None`: from 0 to a little over the highest point.
    pub y_range: Option<(f64, f64)>,
    /// Where the legend goes: where the lines are not expected to be.
    pub legend: Legend,
    pub series: Vec<Series>,
}

/// A corner of a panel, on the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legend {
    UpperRight,
    LowerRight,
}

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("nothing to plot: no points")]
    Empty,
    #[error("the chart could not be drawn: {0}")]
    Draw(String),
}

/// A figure's size in pixels, and its x axis.
#[derive(Clone, Debug)]
pub struct Figure {
    pub width: u32,
    pub height: u32,
    pub x_label: String,
}

/// The unit a time axis spanning `span` seconds reads best in: seconds per unit and its name
/// (a 7-minute history in hours labelled every tick 0.0).
pub fn time_unit(span: u64) -> (f64, &'static str) {
    match span {
        0..120 => (1.0, "seconds"),
        120..7_200 => (60.0, "minutes"),
        7_200..172_800 => (3_600.0, "hours"),
        _ => (86_400.0, "days"),
    }
}

/// The family name plotters knows DejaVu Sans by, once registered.
const FAMILY: &str = "sans-serif";

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // A font built into the binary cannot be invalid; if it were, text would be missing,
        // which the caller sees in the picture rather than as a failure.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Colours that stay apart from one another on white, for series in turn.
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// Draws `panels` one above the other over the same x range.
pub fn draw(figure: &Figure, panels: &[Panel]) -> Result<RgbImage, PlotError> {
    let xs = || {
        panels
            .iter()
            .flat_map(|p| &p.series)
            .flat_map(|s| &s.points)
            .map(|p| p.0)
    };
    let (x0, x1) = xs().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if !x0.is_finite() || panels.is_empty() {
        return Err(PlotError::Empty);
    }
    // A single point still gets an axis of some width.
    let pad = if x1 > x0 { (x1 - x0) * 0.03 } else { 0.5 };
    let x_range = (x0 - pad)..(x1 + pad);
    register_font();
    let (w, h) = (figure.width.max(200), figure.height.max(150));
    let mut buffer = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let areas = root.split_evenly((panels.len(), 1));
        for (i, (panel, area)) in panels.iter().zip(&areas).enumerate() {
            let last = i + 1 == panels.len();
            draw_panel(
                area,
                panel,
                x_range.clone(),
                last.then_some(&figure.x_label),
            )?;
        }
        root.present().map_err(draw_error)?;
    }
    RgbImage::from_raw(w, h, buffer).ok_or_else(|| PlotError::Draw("buffer size".into()))
}

fn draw_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

fn draw_panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    panel: &Panel,
    x_range: std::ops::Range<f64>,
    x_label: Option<&String>,
) -> Result<(), PlotError> {
    let (y0, y1) = panel.y_range.unwrap_or_else(|| {
        let top = panel
            .series
            .iter()
            .flat_map(|s| &s.points)
            .map(|p| p.1)
            .fold(0.0f64, f64::max);
        // Headroom for the legend, in the upper right.
        (0.0, if top > 0.0 { top * 1.4 } else { 1.0 })
    });
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, (FAMILY, 20))
        .margin(10)
        .x_label_area_size(if x_label.is_some() { 40 } else { 20 })
        .y_label_area_size(60)
        .build_cartesian_2d(x_range, y0..y1)
        .map_err(draw_error)?;
    let mut mesh = chart.configure_mesh();
    mesh.y_desc(&panel.y_label)
        .label_style((FAMILY, 13))
        .x_label_formatter(&|v| format!("{v:.1}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .axis_desc_style((FAMILY, 14));
    if let Some(label) = x_label {
        mesh.x_desc(label);
    }
    mesh.draw().map_err(draw_error)?;
    for (i, s) in panel.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(draw_error)?
            .label(&s.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
            .map_err(draw_error)?;
    }
    chart
        .configure_series_labels()
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(match panel.legend {
            Legend::UpperRight => SeriesLabelPosition::UpperRight,
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
        })
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

/// "2026-11-24 04:26 UTC" for seconds since the Unix epoch.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let (h, m) = (secs % 86_400 / 3600, secs % 3600 / 60);
    // Days to a civil date (the proleptic Gregorian calendar), by eras of 400 years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_axis_reads_in_the_unit_its_span_needs() {
        assert_eq!(time_unit(0), (1.0, "seconds"));
        assert_eq!(time_unit(119), (1.0, "seconds"));
        assert_eq!(time_unit(7 * 60), (60.0, "minutes"));
        assert_eq!(time_unit(3 * 3600), (3600.0, "hours"));
        assert_eq!(time_unit(9 * 86_400), (86_400.0, "days"));
    }

    #[test]
    fn dates_are_civil() {
        let cases = [
            (0, "1970-01-01 00:00 UTC"),
            (951_782_400, "2000-02-29 00:00 UTC"),
            (1_795_494_793, "2026-11-24 04:33 UTC"),
            (4_107_542_400, "2100-03-01 00:00 UTC"),
        ];
        for (secs, want) in cases {
            assert_eq!(utc(secs), want, "{secs}");
        }
    }

    #[test]
    fn lines_are_drawn_in_their_colours_and_nothing_is_refused() {
        let figure = Figure {
            width: 640,
            height: 480,
            x_label: "hours".into(),
        };
        let panel = |title: &str| Panel {
            title: title.into(),
            y_label: "points".into(),
            y_range: None,
            legend: Legend::UpperRight,
            series: vec![
                Series {
                    name: "a".into(),
                    points: vec![(0.0, 10.0), (1.0, 30.0), (2.0, 20.0)],
                },
                Series {
                    name: "b".into(),
                    points: vec![(0.5, 5.0)],
                },
            ],
        };
        let img = draw(&figure, &[panel("one"), panel("two")]).unwrap();
        assert_eq!(img.dimensions(), (640, 480));
        let count = |c: RGBColor| img.pixels().filter(|p| p.0 == [c.0, c.1, c.2]).count();
        // Both series show, on both panels; most of the picture is white.
        assert!(count(PALETTE[0]) > 200, "{}", count(PALETTE[0]));
        assert!(count(PALETTE[1]) > 20, "{}", count(PALETTE[1]));
        assert!(count(WHITE) > 640 * 480 / 2);
        // Some text was drawn (dark pixels that are not lines).
        assert!(img.pixels().filter(|p| p.0.iter().all(|&c| c < 80)).count() > 500);
        assert!(matches!(draw(&figure, &[]), Err(PlotError::Empty)));
        let empty = Panel {
            series: vec![],
            ..panel("none")
        };
        assert!(matches!(draw(&figure, &[empty]), Err(PlotError::Empty)));
    }
}
