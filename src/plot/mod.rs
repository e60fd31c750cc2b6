//! Plots drawn on any plotters backend: a canvas in the page, SVG for export
//! and tests. The page and the export call the same functions, so an exported
//! SVG is exactly what the page shows.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0, 114, 178),
    (230, 159, 0),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
    (213, 94, 0),
    (240, 228, 66),
    (120, 120, 120),
];

pub fn series_color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

pub fn series_hex(i: usize) -> String {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub color: usize,
    /// Shared: a chart rebuilt for a new marker (the threshold) reuses its
    /// curves' points (a 10M-row ROC curve has up to 10M of them).
    pub points: std::sync::Arc<[(f64, f64)]>,
    /// Thin, translucent (per-query lines, iso-F1 curves); a faint series
    /// with a name has it written at its last point (the iso-F1 values).
    pub faint: bool,
    /// Drawn as steps: each point's y held until the next point's x (as
    /// matplotlib's `steps-post`: a precision–recall curve in scikit-learn's
    /// order, recall falling, holds each precision over the recall step that
    /// average precision weighs it by).
    pub steps: bool,
}

impl Series {
    /// A line through `points`.
    pub fn line(name: String, color: usize, points: std::sync::Arc<[(f64, f64)]>) -> Series {
        Series {
            name,
            color,
            points,
            faint: false,
            steps: false,
        }
    }

    /// The points drawn: as given, or the corners of the steps.
    fn drawn(&self) -> std::borrow::Cow<'_, [(f64, f64)]> {
        if !self.steps {
            return std::borrow::Cow::Borrowed(&self.points);
        }
        let mut out = Vec::with_capacity(self.points.len() * 2);
        for (i, &p) in self.points.iter().enumerate() {
            if let Some(&(_, y)) = i.checked_sub(1).map(|j| &self.points[j]) {
                out.push((p.0, y));
            }
            out.push(p);
        }
        std::borrow::Cow::Owned(out)
    }
}

/// A labelled point (the elbow, the threshold).
#[derive(Clone, Debug)]
pub struct Marker {
    pub x: f64,
    pub y: f64,
    pub color: usize,
    pub label: String,
    /// A ring, not a dot (the operating point under the pointer).
    pub hollow: bool,
}

/// A shaded band around a series (its 95% interval): (x, low, high) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub color: usize,
    pub points: Vec<(f64, f64, f64)>,
}

/// Everything a line chart needs; no backend in sight.
#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub series: Vec<Series>,
    /// Drawn first, under the lines.
    pub bands: Vec<Band>,
    pub markers: Vec<Marker>,
    /// Draw the y = x chance line (ROC).
    pub diagonal: bool,
    /// Foreground (text, axes) colour.
    pub ink: (u8, u8, u8),
}

/// Drops points that land on the same pixel column and row as the previous
/// kept point; the metrics always use every point, only the drawing thins.
pub fn thin(
    points: &[(f64, f64)],
    x_range: (f64, f64),
    y_range: (f64, f64),
    width: u32,
    height: u32,
) -> Vec<(f64, f64)> {
    if points.len() <= (width as usize) * 2 {
        return points.to_vec();
    }
    let sx = width as f64 / (x_range.1 - x_range.0).max(f64::MIN_POSITIVE);
    let sy = height as f64 / (y_range.1 - y_range.0).max(f64::MIN_POSITIVE);
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(width as usize * 4);
    let mut last = (i64::MIN, i64::MIN);
    for (i, &(x, y)) in points.iter().enumerate() {
        let px = ((x - x_range.0) * sx) as i64;
        let py = ((y - y_range.0) * sy) as i64;
        if (px, py) != last || i + 1 == points.len() {
            out.push((x, y));
            last = (px, py);
        }
    }
    out
}

/// A curve of up to millions of points, thinned once on a 4096 x 4096 grid of
/// `[0, 1]^2` (finer than any chart's pixels: what a chart then draws differs
/// by less than a pixel), so that redrawing it for a moved marker stays cheap.
pub fn display_points(points: &[(f64, f64)]) -> std::sync::Arc<[(f64, f64)]> {
    thin(points, (0.0, 1.0), (0.0, 1.0), 4096, 4096).into()
}

/// Draws `chart` on any drawing area.
/// Where the data landed on the drawing: the plotting area in pixels and the
/// data ranges it spans, so a pointer position maps back to data coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub px: (i32, i32),
    pub py: (i32, i32),
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

impl Frame {
    /// Data coordinates of pixel (x, y); `None` outside the plotting area.
    pub fn to_data(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let (l, r) = (self.px.0 as f64, self.px.1 as f64);
        let (t, b) = (self.py.0 as f64, self.py.1 as f64);
        if x < l || x > r || y < t || y > b || r <= l || b <= t {
            return None;
        }
        let fx = (x - l) / (r - l);
        let fy = (b - y) / (b - t);
        Some((
            self.x_range.0 + fx * (self.x_range.1 - self.x_range.0),
            self.y_range.0 + fy * (self.y_range.1 - self.y_range.0),
        ))
    }
}

/// A tick's label with as many decimals as the axis' tick spacing needs
/// (plotters puts about ten ticks on an axis of length `span`), trailing
/// zeros dropped: cutoffs read 5, 10, 15 (not 5.0), probabilities 0.2 and
/// 0.25, and a tick computed as 0.30000000000000004 reads 0.3.
pub fn tick_label(v: f64, span: f64) -> String {
    let decimals = (1.0 - (span / 10.0).log10()).ceil();
    let decimals = if decimals.is_finite() {
        decimals.clamp(0.0, 12.0) as usize
    } else {
        12
    };
    let mut text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.truncate(text.trim_end_matches('0').trim_end_matches('.').len());
    }
    if text == "-0" {
        text.remove(0);
    }
    text
}

pub fn draw_line_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &LineChart,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    draw_chart(area, chart, true)
}

/// Width of the strip beside an exported chart that holds its legend and note.
/// The axes of a ROC chart (x, y), every view's and export's.
pub const ROC_AXES: (&str, &str) = ("false positive rate", "true positive rate");
/// The axes of a precision–recall chart (x, y).
pub const PR_AXES: (&str, &str) = ("recall", "precision");

pub const EXPORT_STRIP: u32 = 230;

/// A chart for export: the chart in `area` less a strip on its right
/// ([`EXPORT_STRIP`] wide), which holds the legend (off the curves) and
/// under it `note`, a line each (the conventions the values follow).
pub fn draw_export<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &LineChart,
    note: &[String],
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, _) = area.dim_in_pixel();
    let (left, right) = area.split_horizontally(w.saturating_sub(EXPORT_STRIP));
    let frame = draw_chart(&left, chart, false)?;
    let ink = RGBColor(chart.ink.0, chart.ink.1, chart.ink.2);
    let below = legend(&right, chart, ink, Some((4, 12)))?;
    let font = (FontFamily::SansSerif, 11).into_font().color(&ink);
    for (i, line) in note.iter().enumerate() {
        right.draw_text(line, &font, (4, below + 14 + 15 * i as i32))?;
    }
    Ok(frame)
}

fn draw_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &LineChart,
    legend_inside: bool,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let ink = RGBColor(chart.ink.0, chart.ink.1, chart.ink.2);
    let (w, h) = area.dim_in_pixel();
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48);
    if !chart.title.is_empty() {
        builder.caption(
            &chart.title,
            (FontFamily::SansSerif, 16).into_font().color(&ink),
        );
    }
    let x0 = chart.x_range.0;
    let x1 = if chart.x_range.1 > x0 {
        chart.x_range.1
    } else {
        x0 + 1.0
    };
    let y0 = chart.y_range.0;
    let y1 = if chart.y_range.1 > y0 {
        chart.y_range.1
    } else {
        y0 + 1.0
    };
    let mut ctx = builder.build_cartesian_2d(x0..x1, y0..y1)?;
    let (pxr, pyr) = ctx.plotting_area().get_pixel_range();
    let frame = Frame {
        px: (pxr.start, pxr.end),
        py: (pyr.start, pyr.end),
        x_range: (x0, x1),
        y_range: (y0, y1),
    };
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .axis_style(ink.mix(0.8))
        .bold_line_style(ink.mix(0.12))
        .light_line_style(ink.mix(0.05))
        .label_style((FontFamily::SansSerif, 12).into_font().color(&ink))
        .x_label_formatter(&|v| tick_label(*v, x1 - x0))
        .y_label_formatter(&|v| tick_label(*v, y1 - y0))
        .axis_desc_style((FontFamily::SansSerif, 13).into_font().color(&ink))
        .draw()?;
    if chart.diagonal {
        ctx.draw_series(LineSeries::new(
            [(x0, y0), (x1, y1)],
            ink.mix(0.35).stroke_width(1),
        ))?;
    }
    for b in &chart.bands {
        // each edge a thin line in the series' colour
        for edge in [0, 1] {
            let pts: Vec<(f64, f64)> = b
                .points
                .iter()
                .map(|&(x, lo, hi)| (x, if edge == 0 { lo } else { hi }))
                .collect();
            ctx.draw_series(LineSeries::new(
                pts,
                series_color(b.color).mix(0.5).stroke_width(1),
            ))?;
        }
    }
    for s in chart.series.iter().filter(|s| s.faint) {
        let pts = thin(&s.drawn(), (x0, x1), (y0, y1), w, h);
        ctx.draw_series(LineSeries::new(
            pts,
            series_color(s.color).mix(0.25).stroke_width(1),
        ))?;
        // a named faint line (an iso-F1 curve) says its name at its end
        if let (false, Some(&(x, y))) = (s.name.is_empty(), s.points.last()) {
            let font = (FontFamily::SansSerif, 10).into_font().color(&ink.mix(0.6));
            ctx.draw_series(std::iter::once(Text::new(
                s.name.clone(),
                (x, y),
                font.pos(Pos::new(HPos::Right, VPos::Bottom)),
            )))?;
        }
    }
    for s in chart.series.iter().filter(|s| !s.faint) {
        let color = series_color(s.color);
        let pts = thin(&s.drawn(), (x0, x1), (y0, y1), w, h);
        ctx.draw_series(LineSeries::new(pts, color.stroke_width(2)))?;
    }
    draw_each_marker(ctx.plotting_area(), &chart.markers, ink)?;
    if legend_inside {
        legend(&ctx.plotting_area().strip_coord_spec(), chart, ink, None)?;
    }
    Ok(frame)
}

/// The chart's markers (a dot, a ring, a label) in the plotting area `area`.
fn draw_each_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    markers: &[Marker],
    ink: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for m in markers {
        let color = series_color(m.color);
        let style = if m.hollow {
            color.stroke_width(2)
        } else {
            color.filled()
        };
        area.draw(&Circle::new((m.x, m.y), 5, style))?;
        if !m.label.is_empty() {
            area.draw(&Text::new(
                m.label.as_str(),
                (m.x, m.y),
                (FontFamily::SansSerif, 12).into_font().color(&ink),
            ))?;
        }
    }
    Ok(())
}

/// A chart's `markers` alone over a drawing of the rest of it that `frame`
/// came from (the same pixels as [`draw_line_chart`] puts them at), text in
/// the chart's `ink`: a moved threshold redraws its markers over a copy of
/// the curves.
pub fn draw_markers<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    markers: &[Marker],
    ink: (u8, u8, u8),
    frame: &Frame,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    // as plotters' ChartBuilder maps: the last pixel column and row are the
    // ends, y upwards
    let coord = Cartesian2d::<RangedCoordf64, RangedCoordf64>::new(
        frame.x_range.0..frame.x_range.1,
        frame.y_range.0..frame.y_range.1,
        (frame.px.0..frame.px.1 - 1, frame.py.1 - 1..frame.py.0),
    );
    let ink = RGBColor(ink.0, ink.1, ink.2);
    draw_each_marker(&area.apply_coord_spec(coord), markers, ink)
}

/// The names of the chart's (not faint) series in a box at the lower right of
/// `area` (or with its top left `at`), a colour swatch before each; returns
/// the box's bottom. The text is measured by the backend (the page's canvas
/// backend remembers each measure: measuring text in the DOM forces a layout
/// of the whole page, on every redraw).
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &LineChart,
    ink: RGBColor,
    at: Option<(i32, i32)>,
) -> Result<i32, DrawingAreaErrorKind<DB::ErrorType>> {
    let font = (FontFamily::SansSerif, 12).into_font().color(&ink);
    let mut lines = Vec::new();
    for s in chart.series.iter().filter(|s| !s.faint) {
        lines.push((s, area.estimate_text_size(&s.name, &font)?));
    }
    if lines.is_empty() {
        return Ok(at.map_or(0, |a| a.1));
    }
    let (margin, swatch) = (5, 26);
    let step = lines.iter().map(|l| l.1 .1).max().unwrap_or(0) as i32 + 2;
    let width = lines.iter().map(|l| l.1 .0).max().unwrap_or(0) as i32 + swatch + 2 * margin;
    let height = step * lines.len() as i32 + 2 * margin;
    let (aw, ah) = area.dim_in_pixel();
    let (x, y) = at.unwrap_or((aw as i32 - width - 10, ah as i32 - height - 10));
    let corners = [(x, y), (x + width, y + height)];
    area.draw(&Rectangle::new(
        corners,
        RGBColor(128, 128, 128).mix(0.12).filled(),
    ))?;
    area.draw(&Rectangle::new(corners, ink.mix(0.3)))?;
    for (i, (s, _)) in lines.iter().enumerate() {
        let top = y + margin + step * i as i32;
        let mid = top + step / 2;
        let color = series_color(s.color).stroke_width(3);
        area.draw(&PathElement::new(
            [(x + margin, mid), (x + margin + 18, mid)],
            color,
        ))?;
        area.draw_text(&s.name, &font, (x + margin + swatch, top))?;
    }
    Ok(y + height)
}

/// Renders a chart to an SVG string (the lessons and tests).
pub fn to_svg(chart: &LineChart, width: u32, height: u32) -> String {
    let mut svg = String::new();
    {
        let backend = SVGBackend::with_string(&mut svg, (width, height));
        let area = backend.into_drawing_area();
        // drawing into a String cannot fail for I/O reasons; a failure leaves a partial SVG
        let _ = draw_line_chart(&area, chart);
        let _ = area.present();
    }
    crate::text::xml_chars(svg)
}

/// Iso-F1 curves for a PR chart: precision = f·r / (2r − f) for r ≥ f/2.
pub fn iso_f1_curves() -> Vec<Series> {
    [0.2, 0.4, 0.6, 0.8]
        .iter()
        .map(|&f| Series {
            name: format!("F1 = {f}"),
            color: 7,
            faint: true,
            steps: false,
            points: (0..=100)
                .map(|i| f / 2.0 + (1.0 - f / 2.0) * i as f64 / 100.0)
                .map(|r| (r, (f * r / (2.0 * r - f)).min(1.0)))
                .collect(),
        })
        .collect()
}

/// The ROC and precision–recall charts' curves of binary models (name,
/// colour, curve), thinned for drawing: each ROC curve named with its AUC
/// and DeLong 95% interval, each PR curve (in steps, as average precision
/// sums it) with its average precision, after the iso-F1 lines; with
/// `bands`, each PR curve's pointwise 95% band as two faint lines in steps.
pub fn binary_series(
    models: &[(&str, usize, &crate::core::binary::BinaryCurve)],
    bands: bool,
) -> (Vec<Series>, Vec<Series>) {
    let series = |name: &str, color, what: &str, value: Option<f64>, points: Vec<_>| Series {
        steps: what == "AP",
        name: format!(
            "{name} ({what} {})",
            value.map_or("undefined".into(), |a| format!("{a:.4}"))
        ),
        color,
        faint: false,
        points: display_points(&points),
    };
    let roc = (models.iter())
        .map(|&(name, c, curve)| {
            let mut s = series(name, c, "AUC", curve.roc_auc(), curve.roc_points());
            if let Some((lo, hi)) = curve.delong_interval() {
                s.name
                    .insert_str(s.name.len() - 1, &format!(" [{lo:.4}, {hi:.4}]"));
            }
            s
        })
        .collect();
    let mut pr = iso_f1_curves();
    pr.extend((models.iter()).map(|&(name, c, curve)| {
        series(name, c, "AP", curve.average_precision(), curve.pr_points())
    }));
    for &(_, color, curve) in models.iter().filter(|_| bands) {
        for line in curve.pr_band() {
            pr.push(Series {
                name: String::new(),
                color,
                points: display_points(&line),
                faint: true,
                steps: true,
            });
        }
    }
    (roc, pr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_series_name_each_curve_with_its_area() {
        use crate::core::binary::BinaryCurve;
        // scores 0.9+ 0.8- 0.7+ 0.6-: AUC 3/4 (3 of 4 pairs in order); AP =
        // ½·1 + ½·⅔ (recall steps at 0.9 and 0.7) = 0.8333
        let a = BinaryCurve::new(&[true, false, true, false], &[0.9, 0.8, 0.7, 0.6]);
        let one = BinaryCurve::new(&[true, true], &[0.9, 0.8]);
        let (roc, pr) = binary_series(&[("a", 0, &a), ("one class", 1, &one)], false);
        assert!(roc[0].name.starts_with("a (AUC 0.7500"), "{}", roc[0].name);
        assert_eq!(roc[1].name, "one class (AUC undefined)");
        let iso = iso_f1_curves().len();
        assert_eq!(pr.len(), iso + 2);
        assert_eq!(pr[iso].name, "a (AP 0.8333)");
        assert!(pr[iso].steps && !roc[0].steps);
        let (_, banded) = binary_series(&[("a", 0, &a)], true);
        assert_eq!(banded.len(), iso + 1 + a.pr_band().len());
        assert!(banded[iso + 1..]
            .iter()
            .all(|s| s.faint && s.name.is_empty()));
    }

    fn chart() -> LineChart {
        LineChart {
            title: "nDCG@p".into(),
            x_label: "p".into(),
            y_label: "nDCG".into(),
            x_range: (1.0, 10.0),
            y_range: (0.0, 1.0),
            series: vec![Series {
                name: "bm25 <&>".into(),
                color: 0,
                points: (1..=10).map(|p| (p as f64, p as f64 / 10.0)).collect(),
                faint: false,
                steps: false,
            }],
            bands: vec![Band {
                color: 0,
                points: (1..=10)
                    .map(|p| (p as f64, p as f64 / 10.0 - 0.05, p as f64 / 10.0 + 0.05))
                    .collect(),
            }],
            markers: vec![Marker {
                x: 5.0,
                y: 0.5,
                color: 0,
                label: "elbow p=5".into(),
                hollow: false,
            }],
            diagonal: true,
            ink: (0, 0, 0),
        }
    }

    /// A precision–recall curve as steps: in scikit-learn's order (recall
    /// falling) each precision holds until the next point's recall, so the
    /// area under the drawn steps is average precision.
    #[test]
    fn steps_hold_each_value_until_the_next_point() {
        let pr = Series {
            steps: true,
            ..Series::line(
                "pr".into(),
                0,
                vec![(1.0, 0.5), (0.5, 1.0), (0.0, 1.0)].into(),
            )
        };
        assert_eq!(
            &pr.drawn()[..],
            [(1.0, 0.5), (0.5, 0.5), (0.5, 1.0), (0.0, 1.0), (0.0, 1.0)]
        );
        let area: f64 = pr
            .drawn()
            .windows(2)
            .map(|w| (w[0].0 - w[1].0) * w[0].1)
            .sum();
        assert_eq!(area, 0.5 * 0.5 + 0.5 * 1.0);
        let line = Series::line("l".into(), 0, vec![(0.0, 0.0), (1.0, 1.0)].into());
        assert_eq!(&line.drawn()[..], &line.points[..]);
    }

    /// An exported chart has its legend beside the curves and the
    /// conventions written under it; iso-F1 curves are labelled.
    #[test]
    fn exports_have_the_legend_and_conventions_beside_the_chart() {
        let mut c = chart();
        c.series.extend(iso_f1_curves());
        let mut svg = String::new();
        {
            let area =
                SVGBackend::with_string(&mut svg, (640 + EXPORT_STRIP, 400)).into_drawing_area();
            draw_export(
                &area,
                &c,
                &[
                    "Conventions, not the defaults:".into(),
                    "gain=exponential".into(),
                ],
            )
            .unwrap();
            area.present().unwrap();
        }
        assert!(svg.contains("Conventions, not the defaults:"), "{svg}");
        assert!(svg.contains("gain=exponential"), "{svg}");
        assert!(svg.contains("F1 = 0.4"));
        // the legend's text starts right of the chart's 640 pixels
        let at = svg.find("bm25 &lt;&amp;&gt;").unwrap();
        let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
        let x: f64 = tag
            .split("x=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(x > 640.0, "{tag}");
    }

    #[test]
    fn svg_export_contains_the_series_and_escapes_names() {
        let svg = to_svg(&chart(), 640, 400);
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("polyline"), "a line is drawn");
        let mut bare = chart();
        bare.bands.clear();
        let lines = to_svg(&bare, 640, 400).matches("<polyline").count();
        assert_eq!(
            svg.matches("<polyline").count(),
            lines + 2,
            "the band's two edges"
        );
        assert!(svg.contains("elbow p=5"));
        assert!(svg.contains("bm25 &lt;&amp;&gt;"), "names are escaped");
        assert!(!svg.contains("bm25 <&>"));
    }

    /// A control character in a name (a title, a label) leaves the SVG
    /// well-formed XML: it is replaced, never written raw.
    /// The page draws a chart without its markers once, then its markers
    /// over a copy of that for each moved threshold: they land where the
    /// whole chart's drawing puts them.
    #[test]
    fn markers_drawn_apart_land_where_the_whole_chart_puts_them() {
        let circles = |svg: &str| -> Vec<String> {
            svg.lines()
                .filter(|l| l.contains("<circle"))
                .map(String::from)
                .collect()
        };
        let mut c = chart();
        c.markers.push(Marker {
            x: 3.7,
            y: 0.81,
            color: 2,
            label: String::new(),
            hollow: true,
        });
        let whole = to_svg(&c, 640, 400);
        assert_eq!(circles(&whole).len(), 2, "{whole}");
        let mut bare = c.clone();
        bare.markers.clear();
        let mut svg = String::new();
        {
            let area = SVGBackend::with_string(&mut svg, (640, 400)).into_drawing_area();
            let frame = draw_line_chart(&area, &bare).unwrap();
            draw_markers(&area, &c.markers, c.ink, &frame).unwrap();
            let _ = area.present();
        }
        assert_eq!(circles(&svg), circles(&whole));
        assert!(svg.contains(&c.markers[0].label), "the label too");
    }

    #[test]
    fn svg_export_stays_xml_with_control_characters_in_names() {
        let mut c = chart();
        c.series[0].name = "m\u{1}\u{8}x".into();
        c.title = "t\u{1b}".into();
        let svg = to_svg(&c, 640, 400);
        assert!(!svg
            .chars()
            .any(|ch| (ch as u32) < 0x20 && !"\t\n\r".contains(ch)));
        assert!(svg.contains("m\u{fffd}\u{fffd}x"));
    }

    #[test]
    fn tick_labels_have_the_decimals_their_spacing_needs() {
        for (v, span, want) in [
            (5.0, 39.0, "5"),
            (40.0, 39.0, "40"),
            (250.0, 1000.0, "250"),
            (0.2, 1.0, "0.2"),
            (0.0, 1.0, "0"),
            (1.0, 1.0, "1"),
            (0.30000000000000004, 1.0, "0.3"),
            (-1e-17, 1.0, "0"),
            (-0.5, 2.0, "-0.5"),
            (0.05, 0.5, "0.05"),
            (0.125, 0.25, "0.125"),
            (1e-9, 1e-8, "0.000000001"),
            (3.0, 0.0, "3"),
        ] {
            assert_eq!(tick_label(v, span), want, "{v} on an axis of {span}");
        }
    }

    #[test]
    fn an_integer_axis_is_labelled_without_decimals() {
        let mut c = chart();
        c.x_range = (1.0, 40.0);
        let svg = to_svg(&c, 640, 400);
        let texts: Vec<&str> = svg
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next())
            .map(str::trim)
            .collect();
        assert!(texts.contains(&"10") && texts.contains(&"40"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.ends_with(".0")), "{texts:?}");
        assert!(texts.contains(&"0.5") && texts.contains(&"1"), "{texts:?}");
    }

    #[test]
    fn the_frame_maps_pixels_back_to_data() {
        let mut svg = String::new();
        let backend = SVGBackend::with_string(&mut svg, (640, 400));
        let area = backend.into_drawing_area();
        let f = draw_line_chart(&area, &chart()).unwrap();
        assert!(f.px.0 > 0 && f.px.1 < 640 && f.py.0 >= 0 && f.py.1 < 400);
        let (x, y) = f.to_data(f.px.0 as f64, f.py.1 as f64).unwrap();
        assert!((x - f.x_range.0).abs() < 1e-12 && (y - f.y_range.0).abs() < 1e-12);
        let (x, y) = f.to_data(f.px.1 as f64, f.py.0 as f64).unwrap();
        assert!((x - f.x_range.1).abs() < 1e-12 && (y - f.y_range.1).abs() < 1e-12);
        assert!(f.to_data(0.0, 0.0).is_none());
    }

    #[test]
    fn thinning_keeps_ends_and_drops_same_pixel_points() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64 / 100_000.0, (i as f64 / 100_000.0).sqrt()))
            .collect();
        let t = thin(&pts, (0.0, 1.0), (0.0, 1.0), 100, 100);
        assert!(t.len() < 1000);
        assert_eq!(t.first(), pts.first());
        assert_eq!(t.last(), pts.last());
    }

    #[test]
    fn display_points_draw_within_a_pixel_of_the_full_curve() {
        // the precision-recall curve of 1M scored examples, 12% positive
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let positives: Vec<bool> = (0..1_000_000)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // better examples first: positives are likelier early in the ranking
                (state % 1000) as f64 / 1000.0 < 0.3 * (1.0 - i as f64 / 1e6)
            })
            .collect();
        let total = positives.iter().filter(|&&p| p).count() as f64;
        let mut tp = 0.0;
        let pts: Vec<(f64, f64)> = positives
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                tp += p as u8 as f64;
                (tp / total, tp / (i + 1) as f64)
            })
            .collect();
        let shown = display_points(&pts);
        assert!(shown.len() < pts.len() / 10, "{}", shown.len());
        assert_eq!(shown.first(), pts.first());
        assert_eq!(shown.last(), pts.last());
        let (w, h) = (900u32, 700u32);
        let cells = |p: &[(f64, f64)]| -> Vec<(i64, i64)> {
            thin(p, (0.0, 1.0), (0.0, 1.0), w, h)
                .iter()
                .map(|&(x, y)| ((x * w as f64) as i64, (y * h as f64) as i64))
                .collect()
        };
        let (full, fast) = (cells(&pts), cells(&shown));
        let fast_set: std::collections::HashSet<_> = fast.iter().copied().collect();
        for (x, y) in full {
            let near = (-1..=1).any(|dx| (-1..=1).any(|dy| fast_set.contains(&(x + dx, y + dy))));
            assert!(near, "pixel ({x}, {y}) of the full curve is not drawn");
        }
        // and nothing is drawn that the curve does not pass through
        let all: std::collections::HashSet<u64> = pts
            .iter()
            .map(|p| p.0.to_bits() ^ p.1.to_bits().rotate_left(1))
            .collect();
        assert!(shown
            .iter()
            .all(|p| all.contains(&(p.0.to_bits() ^ p.1.to_bits().rotate_left(1)))));
    }
}
