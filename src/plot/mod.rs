//! Plots drawn on any plotters backend: a canvas in the page, SVG for export
//! and tests. The page and the export call the same functions, so an exported
//! SVG is exactly what the page shows.

pub mod heatmap;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The series' colours: eight hues (blue, vermillion, green, magenta, teal,
/// ochre, violet, grey), each at least 3:1 in contrast (WCAG) against the
/// page's backgrounds in both themes (cards #ffffff and #1e293b, the page
/// #f8fafc and #0f172a), every pair at least 20 apart in CIEDE2000; series
/// 9 to 16 take them again dashed, 17 to 24 dotted ([`DASHES`]).
pub const PALETTE: [(u8, u8, u8); 8] = [
    (0x22, 0x76, 0xb3),
    (0xd5, 0x5e, 0x00),
    (0x59, 0xa1, 0x4f),
    (0xe7, 0x29, 0x8a),
    (0x5c, 0x9c, 0x98),
    (0xac, 0x8f, 0x00),
    (0x94, 0x67, 0xbd),
    (0x78, 0x78, 0x78),
];

/// A series' line beyond the palette's first round: (dash, gap) in pixels,
/// (0, 0) solid.
pub const DASHES: [(u32, u32); 3] = [(0, 0), (8, 4), (2, 3)];

pub fn series_color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// Series `i`'s dash pattern ([`DASHES`]).
pub fn series_dash(i: usize) -> (u32, u32) {
    DASHES[(i / PALETTE.len()) % DASHES.len()]
}

pub fn series_hex(i: usize) -> String {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Series `i`'s swatch as a CSS `background`: its colour, striped with the
/// card's colour as its line is dashed.
pub fn series_css(i: usize) -> String {
    match series_dash(i) {
        (0, _) => series_hex(i),
        (on, off) => format!(
            "repeating-linear-gradient(90deg,#0000 0 {on}px,var(--card) 0 {}px) {}",
            on + off,
            series_hex(i)
        ),
    }
}

/// A path of pixels in series `color`'s colour and dash pattern.
fn stroke<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    points: Vec<(i32, i32)>,
    color: usize,
    width: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = series_color(color).stroke_width(width);
    match series_dash(color) {
        (0, _) => area.draw(&PathElement::new(points, style)),
        dash => {
            for piece in dashes(&points, dash) {
                area.draw(&PathElement::new(piece, style))?;
            }
            Ok(())
        }
    }
}

/// The dashes of a line through `points` (pixels): pieces `on` pixels long
/// every `on + off`, the pattern carried on across its corners.
fn dashes(points: &[(i32, i32)], (on, off): (u32, u32)) -> Vec<Vec<(i32, i32)>> {
    // (no f64 remainder or hypot: each would bring libm's code into the page)
    let (on, period) = (on as f64, (on + off) as f64);
    let (mut out, mut piece, mut phase) = (Vec::new(), Vec::new(), 0.0f64);
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
        let len = (dx * dx + dy * dy).sqrt();
        let at = |t: f64| {
            (
                (a.0 as f64 + dx * t / len + 0.5).floor() as i32,
                (a.1 as f64 + dy * t / len + 0.5).floor() as i32,
            )
        };
        let mut t = 0.0;
        while t < len {
            let drawing = phase < on;
            let step = (if drawing { on } else { period } - phase).min(len - t);
            if drawing {
                if piece.is_empty() {
                    piece.push(at(t));
                }
                piece.push(at(t + step));
            } else if !piece.is_empty() {
                out.push(std::mem::take(&mut piece));
            }
            t += step;
            phase += step;
            if phase >= period {
                phase -= period;
            }
        }
    }
    if !piece.is_empty() {
        out.push(piece);
    }
    out
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

/// The axes of a ROC chart (x, y), every view's and export's.
pub const ROC_AXES: (&str, &str) = ("false positive rate", "true positive rate");
/// The axes of a precision–recall chart (x, y).
pub const PR_AXES: (&str, &str) = ("recall", "precision");

/// Width of the strip beside an exported chart that holds its legend and note.
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
    let font = (FontFamily::SansSerif, 12).into_font().color(&ink);
    let lines = legend_lines(&right, chart, &font)?;
    let below = legend(&right, &lines, &font, ink, 1)?;
    let font = (FontFamily::SansSerif, 11).into_font().color(&ink);
    for (i, line) in note.iter().enumerate() {
        right.draw_text(line, &font, (4, below + 14 + 15 * i as i32))?;
    }
    Ok(frame)
}

fn draw_chart<DB: DrawingBackend>(
    outer: &DrawingArea<DB, Shift>,
    chart: &LineChart,
    with_legend: bool,
) -> Result<Frame, DrawingAreaErrorKind<DB::ErrorType>> {
    let ink = RGBColor(chart.ink.0, chart.ink.1, chart.ink.2);
    // the legend outside the plotting area: on its right when it takes at
    // most 35% of the width and its lines fit the height, else under it in
    // as many columns as fit
    let font = (FontFamily::SansSerif, 12).into_font().color(&ink);
    let lines = if with_legend {
        legend_lines(outer, chart, &font)?
    } else {
        Vec::new()
    };
    let (ow, oh) = outer.dim_in_pixel();
    let (lw, step) = legend_size(&lines);
    let fits = (oh as i32 - 2 * LEGEND_MARGIN - 24) / step;
    let (area, beside) = if lines.is_empty() {
        (outer.clone(), None)
    } else if (lw + 12) * 20 <= ow as i32 * 7 && lines.len() as i32 <= fits {
        let (left, right) = outer.split_horizontally(ow - lw as u32 - 12);
        (left, Some((right.margin(12, 0, 0, 12), 1)))
    } else {
        let columns = ((ow as i32 - 12) / (lw + 8)).max(1);
        let rows = (lines.len() as i32 + columns - 1) / columns;
        let (top, bottom) = outer.split_vertically(oh as i32 - rows * step - 2 * LEGEND_MARGIN - 8);
        (top, Some((bottom.margin(4, 0, 12, 0), columns)))
    };
    let (w, h) = area.dim_in_pixel();
    let mut builder = ChartBuilder::on(&area);
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
    // the lines in pixels, so a dash pattern is measured on the screen
    let plot = ctx.plotting_area();
    let (bx, by) = plot.get_base_pixel();
    let flat = plot.strip_coord_spec();
    for s in chart.series.iter().filter(|s| !s.faint) {
        let pts = (thin(&s.drawn(), (x0, x1), (y0, y1), w, h).iter())
            .map(|p| {
                let (x, y) = plot.map_coordinate(p);
                (x - bx, y - by)
            })
            .collect();
        stroke(&flat, pts, s.color, 2)?;
    }
    draw_each_marker(ctx.plotting_area(), &chart.markers, ink)?;
    if let Some((right, columns)) = beside {
        legend(&right, &lines, &font, ink, columns)?;
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

const LEGEND_MARGIN: i32 = 5;
const LEGEND_SWATCH: i32 = 30;

/// A legend's line: its series and the size of its name.
type Line<'a> = (&'a Series, (u32, u32));

/// The chart's named (not faint) series and their names' sizes. The text
/// is measured by the backend (the page's canvas backend remembers each
/// measure: measuring text in the DOM forces a layout of the whole page, on
/// every redraw).
fn legend_lines<'a, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &'a LineChart,
    font: &TextStyle,
) -> Result<Vec<Line<'a>>, DrawingAreaErrorKind<DB::ErrorType>> {
    let mut lines = Vec::new();
    for s in (chart.series.iter()).filter(|s| !s.faint && !s.name.is_empty()) {
        lines.push((s, area.estimate_text_size(&s.name, font)?));
    }
    Ok(lines)
}

/// A legend column's width and its lines' step.
fn legend_size(lines: &[Line]) -> (i32, i32) {
    let width = lines.iter().map(|l| l.1 .0).max().unwrap_or(0) as i32;
    let step = lines.iter().map(|l| l.1 .1).max().unwrap_or(12) as i32 + 4;
    (width + LEGEND_SWATCH + 2 * LEGEND_MARGIN, step)
}

/// The `lines` in a box at the top left of `area` in `columns` columns
/// (filled down, then across), a stroke of each series' colour and dash
/// before its name; returns the box's bottom.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
    font: &TextStyle,
    ink: RGBColor,
    columns: i32,
) -> Result<i32, DrawingAreaErrorKind<DB::ErrorType>> {
    if lines.is_empty() {
        return Ok(0);
    }
    let (width, step) = legend_size(lines);
    let rows = (lines.len() as i32 + columns - 1) / columns;
    let corners = [
        (0, 0),
        (
            width * columns + 8 * (columns - 1),
            step * rows + 2 * LEGEND_MARGIN,
        ),
    ];
    area.draw(&Rectangle::new(
        corners,
        RGBColor(128, 128, 128).mix(0.12).filled(),
    ))?;
    area.draw(&Rectangle::new(corners, ink.mix(0.3)))?;
    for (i, (s, _)) in lines.iter().enumerate() {
        let (row, column) = (i as i32 % rows, i as i32 / rows);
        let (x, top) = (
            LEGEND_MARGIN + (width + 8) * column,
            LEGEND_MARGIN + step * row,
        );
        let mid = top + step / 2;
        stroke(area, vec![(x, mid), (x + 24, mid)], s.color, 3)?;
        area.draw_text(&s.name, font, (x + LEGEND_SWATCH, top + 2))?;
    }
    Ok(corners[1].1)
}

/// The elbow chart: `faint` per-query lines (then the y axis is [0, 1]),
/// each run's mean curve with its elbow (a dot on the curve, its cutoff in
/// the legend: labels beside a dozen elbows would print over each other),
/// and each group's mean with its ±1 sd band over its members, which are
/// drawn faint and unnamed; `bands` are the runs' 95% bands; cutoffs 1..=`p`.
pub fn elbow_chart(
    lines: &[crate::core::curves::CurveLine],
    groups: &[crate::core::curves::CurveLine],
    mut series: Vec<Series>,
    mut bands: Vec<Band>,
    y_label: &str,
    p: usize,
    ink: (u8, u8, u8),
) -> LineChart {
    let points = |v: &[f64]| -> std::sync::Arc<[(f64, f64)]> {
        v.iter()
            .enumerate()
            .map(|(i, &v)| ((i + 1) as f64, v))
            .collect()
    };
    let per_query = !series.is_empty();
    let mut ymax = 0.0f64;
    let mut markers = Vec::new();
    for l in lines.iter().chain(groups) {
        ymax = l.values.iter().fold(ymax, |a, &b| a.max(b));
        let member = groups.iter().any(|g| g.members.contains(&l.name));
        let mut name = String::new();
        if !member {
            name.push_str(&l.name);
            if let Some(e) = l.elbow {
                name.push_str(&format!(" · elbow p={e}"));
                markers.push(Marker {
                    x: e as f64,
                    y: l.values[e - 1],
                    color: l.color,
                    label: String::new(),
                    hollow: false,
                });
            }
        }
        series.push(Series {
            name,
            color: l.color,
            faint: member,
            steps: false,
            points: points(&l.values),
        });
        if !l.sd.is_empty() {
            let band: Vec<(f64, f64, f64)> = (l.values.iter().zip(&l.sd).enumerate())
                .map(|(i, (v, sd))| ((i + 1) as f64, (v - sd).max(0.0), (v + sd).min(1.0)))
                .collect();
            ymax = band.iter().fold(ymax, |a, b| a.max(b.2));
            bands.push(Band {
                color: l.color,
                points: band,
            });
        }
    }
    LineChart {
        title: String::new(),
        x_label: "cutoff p".into(),
        y_label: y_label.into(),
        x_range: (1.0, p.max(2) as f64),
        y_range: (
            0.0,
            if per_query {
                1.0
            } else {
                (ymax * 1.08).clamp(0.05, 1.0)
            },
        ),
        series,
        bands,
        markers,
        diagonal: false,
        ink,
    }
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
pub(crate) mod tests {
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

    pub(super) fn chart() -> LineChart {
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

    /// sRGB to CIELAB (D65), as CSS Color 4 converts.
    fn lab((r, g, b): (u8, u8, u8)) -> [f64; 3] {
        let lin = |c: u8| {
            let c = c as f64 / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (lin(r), lin(g), lin(b));
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
        let f = |t: f64| {
            if t > 216.0 / 24389.0 {
                t.cbrt()
            } else {
                (24389.0 / 27.0 * t + 16.0) / 116.0
            }
        };
        let (fx, fy, fz) = (f(x), f(y), f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
    }

    /// CIEDE2000 (Sharma, Wu and Dalal 2005, equations 1-22).
    fn ciede2000(l1: [f64; 3], l2: [f64; 3]) -> f64 {
        let [l1, a1, b1] = l1;
        let [l2, a2, b2] = l2;
        let p7 = |c: f64| (c.powi(7) / (c.powi(7) + 25f64.powi(7))).sqrt();
        let cbar = (a1.hypot(b1) + a2.hypot(b2)) / 2.0;
        let g = 0.5 * (1.0 - p7(cbar));
        let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
        let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
        let hue = |b: f64, a: f64| {
            if a == 0.0 && b == 0.0 {
                0.0
            } else {
                b.atan2(a).to_degrees().rem_euclid(360.0)
            }
        };
        let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
        let dl = l2 - l1;
        let dc = c2p - c1p;
        let dh = if c1p * c2p == 0.0 {
            0.0
        } else if (h2p - h1p).abs() <= 180.0 {
            h2p - h1p
        } else if h2p <= h1p {
            h2p - h1p + 360.0
        } else {
            h2p - h1p - 360.0
        };
        let dhh = 2.0 * (c1p * c2p).sqrt() * (dh.to_radians() / 2.0).sin();
        let lbar = (l1 + l2) / 2.0;
        let cbarp = (c1p + c2p) / 2.0;
        let hbar = if c1p * c2p == 0.0 {
            h1p + h2p
        } else if (h1p - h2p).abs() <= 180.0 {
            (h1p + h2p) / 2.0
        } else if h1p + h2p < 360.0 {
            (h1p + h2p + 360.0) / 2.0
        } else {
            (h1p + h2p - 360.0) / 2.0
        };
        let cos = |d: f64| d.to_radians().cos();
        let t =
            1.0 - 0.17 * cos(hbar - 30.0) + 0.24 * cos(2.0 * hbar) + 0.32 * cos(3.0 * hbar + 6.0)
                - 0.20 * cos(4.0 * hbar - 63.0);
        let dtheta = 30.0 * (-((hbar - 275.0) / 25.0).powi(2)).exp();
        let rc = 2.0 * p7(cbarp);
        let sl = 1.0 + 0.015 * (lbar - 50.0).powi(2) / (20.0 + (lbar - 50.0).powi(2)).sqrt();
        let sc = 1.0 + 0.045 * cbarp;
        let sh = 1.0 + 0.015 * cbarp * t;
        let rt = -(2.0 * dtheta).to_radians().sin() * rc;
        ((dl / sl).powi(2) + (dc / sc).powi(2) + (dhh / sh).powi(2) + rt * (dc / sc) * (dhh / sh))
            .sqrt()
    }

    /// WCAG 2's contrast ratio of two sRGB colours.
    fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
        let lum = |(r, g, b): (u8, u8, u8)| {
            let lin = |c: u8| {
                let c = c as f64 / 255.0;
                if c <= 0.03928 {
                    c / 12.92
                } else {
                    ((c + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
        };
        let (x, y) = (lum(a), lum(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    /// The conversions checked on published values: Sharma et al.'s test
    /// pairs 1, 7 and 17 (ΔE00 2.0425, 0.0000... 2.3669, 27.1492) and white,
    /// black and sRGB red in CIELAB; WCAG's 21:1 and 4.5:1 examples.
    #[test]
    fn colour_measures_give_their_published_values() {
        for (a, b, want) in [
            ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
            ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
            ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
            (
                [60.2574, -34.0099, 36.2677],
                [60.4626, -34.1751, 39.4387],
                1.2644,
            ),
        ] {
            let got = ciede2000(a, b);
            assert!((got - want).abs() < 5e-5, "{a:?} {b:?}: {got}");
        }
        let near = |x: [f64; 3], y: [f64; 3]| x.iter().zip(y).all(|(a, b)| (a - b).abs() < 0.02);
        assert!(near(lab((255, 255, 255)), [100.0, 0.0, 0.0]));
        assert!(near(lab((0, 0, 0)), [0.0, 0.0, 0.0]));
        assert!(
            near(lab((255, 0, 0)), [53.24, 80.09, 67.20]),
            "{:?}",
            lab((255, 0, 0))
        );
        assert!((contrast((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
        // #767676 on white: the lightest grey with 4.5:1
        assert!((contrast((0x76, 0x76, 0x76), (255, 255, 255)) - 4.54).abs() < 0.01);
    }

    /// Sixteen series stay apart: every pair drawn alike (the same dash
    /// pattern) differs by at least 20 in CIEDE2000 (2.3 is a just
    /// noticeable difference), and every colour has at least 3:1 contrast
    /// (WCAG's for graphics) against the cards and the page in both themes
    /// (style/main.css: --card and --bg, light and dark).
    #[test]
    fn sixteen_series_are_told_apart_on_both_themes() {
        let backgrounds = [
            ("light card", (0xff, 0xff, 0xff)),
            ("light page", (0xf8, 0xfa, 0xfc)),
            ("dark card", (0x1e, 0x29, 0x3b)),
            ("dark page", (0x0f, 0x17, 0x2a)),
        ];
        let css = include_str!("../../style/main.css");
        for (_, (r, g, b)) in backgrounds {
            assert!(
                css.contains(&format!("#{r:02x}{g:02x}{b:02x}")),
                "the stylesheet has #{r:02x}{g:02x}{b:02x}"
            );
        }
        let rgb = |i: usize| PALETTE[i % PALETTE.len()];
        let mut closest = f64::MAX;
        for i in 0..16 {
            for (what, bg) in backgrounds {
                let c = contrast(rgb(i), bg);
                assert!(
                    c >= 3.0,
                    "series {i} {} on the {what}: {c:.2}:1",
                    series_hex(i)
                );
            }
            for j in 0..i {
                if series_dash(i) != series_dash(j) {
                    continue;
                }
                let d = ciede2000(lab(rgb(i)), lab(rgb(j)));
                closest = closest.min(d);
                assert!(d >= 20.0, "series {j} and {i}: ΔE00 {d:.1}");
            }
        }
        assert!(closest < 40.0, "the pairs were compared");
        // beyond the palette, a second encoding
        assert_eq!(series_dash(3), (0, 0));
        assert_ne!(series_dash(8), series_dash(0));
        assert_ne!(series_dash(16), series_dash(8));
        assert!(series_css(9).contains("repeating-linear-gradient"));
        assert_eq!(series_css(1), series_hex(1));
    }

    /// Dashes run on across a line's corners, `on` pixels drawn every
    /// `on + off`; a solid pattern is never asked for.
    #[test]
    fn dashes_are_measured_along_the_line() {
        let pieces = dashes(&[(0, 0), (10, 0), (10, 10)], (4, 2));
        assert_eq!(
            pieces,
            [
                vec![(0, 0), (4, 0)],
                vec![(6, 0), (10, 0)],
                vec![(10, 2), (10, 6)],
                vec![(10, 8), (10, 10)],
            ]
        );
        let corner = dashes(&[(0, 0), (3, 0), (3, 5)], (4, 2));
        assert_eq!(
            corner[0],
            [(0, 0), (3, 0), (3, 1)],
            "a dash turns the corner"
        );
        assert!(dashes(&[(5, 5), (5, 5)], (4, 2)).is_empty());
    }

    /// A text element's box, as plotters' SVG backend writes it (the
    /// anchor's position, `dy` for the vertical alignment) with its width
    /// as plotters measures text without a font file (0.7 em a character).
    fn text_boxes(svg: &str) -> Vec<(String, [f64; 4])> {
        let attr = |tag: &str, name: &str| -> Option<String> {
            let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(tag[at..].split('"').next()?.to_string())
        };
        let mut out = Vec::new();
        for part in svg.split("<text").skip(1) {
            let (tag, rest) = part.split_once('>').unwrap();
            let text = rest.split("</text>").next().unwrap().trim().to_string();
            let num = |n: &str| attr(tag, n).unwrap().parse::<f64>().unwrap();
            let (x, y, size) = (num("x"), num("y"), num("font-size"));
            let w = size / 1.24 * 0.7 * text.chars().count() as f64;
            let h = size;
            let left = match attr(tag, "text-anchor").as_deref() {
                Some("middle") => x - w / 2.0,
                Some("end") => x - w,
                _ => x,
            };
            let top = match attr(tag, "dy").as_deref() {
                Some("0.76em") => y,
                Some("0.5ex") => y - h / 2.0,
                _ => y - h,
            };
            let b = if tag.contains("rotate(270") {
                // turned a quarter about (x, y): width runs up the page
                let (dx, dy) = (top - y, left - x);
                [x + dx, y - dy - w, x + dx + h, y - dy]
            } else {
                [left, top, left + w, top + h]
            };
            out.push((text, b));
        }
        out
    }

    fn overlap(a: [f64; 4], b: [f64; 4]) -> bool {
        a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
    }

    /// Twelve runs whose elbows fall on neighbouring cutoffs: no two texts
    /// of the chart overlap (the elbows' cutoffs are in the legend), the
    /// legend's box is outside the plotting area and inside the chart, and
    /// the plotting area keeps most of the width.
    #[test]
    fn twelve_runs_legend_outside_and_no_label_over_another() {
        use crate::core::curves::CurveLine;
        let lines: Vec<CurveLine> = (0..12)
            .map(|i| {
                let values: Vec<f64> = (1..=20)
                    .map(|p| (0.3 + 0.01 * i as f64) * (1.0 - (-(p as f64) / 4.0).exp()))
                    .collect();
                CurveLine {
                    name: format!("bm25-variant-{i:02}"),
                    color: i,
                    cumulative: values.clone(),
                    values,
                    elbow: Some(9 + i % 4),
                    sd: Vec::new(),
                    members: Vec::new(),
                }
            })
            .collect();
        let chart = elbow_chart(
            &lines,
            &[],
            Vec::new(),
            Vec::new(),
            "nDCG@p",
            20,
            (30, 41, 59),
        );
        for (w, h) in [(1000, 400), (520, 400)] {
            let mut svg = String::new();
            let frame = {
                let area = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                let f = draw_line_chart(&area, &chart).unwrap();
                area.present().unwrap();
                f
            };
            let boxes = text_boxes(&svg);
            let legend: Vec<&(String, [f64; 4])> =
                boxes.iter().filter(|b| b.0.contains("elbow p=")).collect();
            assert_eq!(legend.len(), 12, "{svg}");
            for (i, a) in boxes.iter().enumerate() {
                for b in &boxes[..i] {
                    assert!(
                        !overlap(a.1, b.1),
                        "{w}x{h}: '{}' {:?} over '{}' {:?}",
                        a.0,
                        a.1,
                        b.0,
                        b.1
                    );
                }
                assert!(
                    a.1[0] >= 0.0 && a.1[2] <= w as f64 && a.1[1] >= 0.0 && a.1[3] <= h as f64,
                    "{w}x{h}: '{}' {:?} outside",
                    a.0,
                    a.1
                );
            }
            // the legend's box: the first filled rectangle after the curves
            let rect = svg
                .split("<rect")
                .find(|r| r.contains("fill=\"#808080\""))
                .expect("a legend box");
            let num = |n: &str| -> f64 {
                let at = rect.find(&format!(" {n}=\"")).unwrap() + n.len() + 3;
                rect[at..].split('"').next().unwrap().parse().unwrap()
            };
            let legend_box = [
                num("x"),
                num("y"),
                num("x") + num("width"),
                num("y") + num("height"),
            ];
            let plot = [
                frame.px.0 as f64,
                frame.py.0 as f64,
                frame.px.1 as f64,
                frame.py.1 as f64,
            ];
            assert!(
                !overlap(legend_box, plot),
                "{w}x{h}: legend {legend_box:?} over the plot {plot:?}"
            );
            assert!(
                legend_box[2] <= w as f64 && legend_box[3] <= h as f64,
                "{legend_box:?}"
            );
            for l in legend {
                assert!(overlap(l.1, legend_box), "{w}x{h}: '{}' in the legend", l.0);
            }
            assert!(
                (plot[2] - plot[0]) >= 0.5 * w as f64,
                "{w}x{h}: plot {plot:?}"
            );
            // the runs past the eighth are dashed: drawn in many pieces
            let stroked = |i: usize| {
                let hex = series_hex(i).to_uppercase();
                svg.matches(&format!("stroke=\"{hex}\"")).count()
            };
            // series 0 and 8 share a colour; 7 is drawn alone and solid
            assert!(
                stroked(8) > 10 * stroked(7).max(1),
                "{} {}",
                stroked(8),
                stroked(7)
            );
        }
    }
}
