//! The leaderboard's per-topic heatmap: runs × queries coloured by a
//! metric's value, or by its difference from a baseline run. Two painters of
//! the same cells: [`Heatmap::paint`] writes a window's RGBA pixels (the
//! page's canvas, redrawn at every scroll step: only the visible cells), and
//! [`draw`] draws a window with plotters on any backend (SVG export, tests).

use plotters::coord::Shift;
use plotters::prelude::*;

/// A metric's runs × queries matrix and how it is shown.
#[derive(Clone, Copy, Debug)]
pub struct Heatmap<'a> {
    /// Run-major: run `r`'s value on query `q` is `values[r * queries + q]`.
    pub values: &'a [f64],
    pub queries: usize,
    /// The runs shown, top to bottom.
    pub rows: &'a [usize],
    /// The queries shown, left to right.
    pub cols: &'a [usize],
    /// Colour by the difference from this run's value on the same query.
    pub baseline: Option<usize>,
    /// The colour scale's ends: values (the metric's range), or for
    /// differences `(-d, d)`.
    pub range: (f64, f64),
    /// A larger value is better (the diverging scale's blue side).
    pub higher_is_better: bool,
}

/// The colour of a missing value (NaN).
pub const MISSING: (u8, u8, u8) = (200, 200, 200);

/// Viridis at nine stops (matplotlib's), interpolated linearly.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

/// Worse, neutral and better ends of the difference scale (ColorBrewer RdBu).
const WORSE: (u8, u8, u8) = (178, 24, 43);
const SAME: (u8, u8, u8) = (247, 247, 247);
const BETTER: (u8, u8, u8) = (33, 102, 172);

fn mix(a: (u8, u8, u8), b: (u8, u8, u8), t: f64) -> (u8, u8, u8) {
    let c = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    (c(a.0, b.0), c(a.1, b.1), c(a.2, b.2))
}

impl Heatmap<'_> {
    /// The number shown in cell (row `i`, column `j`): the value, or its
    /// difference from the baseline's (NaN when either is missing or the
    /// cell is outside).
    pub fn cell(&self, i: usize, j: usize) -> f64 {
        let (Some(&r), Some(&q)) = (self.rows.get(i), self.cols.get(j)) else {
            return f64::NAN;
        };
        let at = |r: usize| self.values.get(r * self.queries + q).copied();
        match (at(r), self.baseline.map(at)) {
            (Some(v), None) => v,
            (Some(v), Some(Some(b))) => v - b,
            _ => f64::NAN,
        }
    }

    /// The colour of number `v` on this map's scale.
    pub fn color(&self, v: f64) -> (u8, u8, u8) {
        if !v.is_finite() {
            return MISSING;
        }
        let (lo, hi) = self.range;
        let span = hi - lo;
        let t = if span > 0.0 {
            ((v - lo) / span).clamp(0.0, 1.0)
        } else {
            0.5
        };
        if self.baseline.is_some() {
            // below the middle: worse when higher is better
            let (low_end, high_end) = if self.higher_is_better {
                (WORSE, BETTER)
            } else {
                (BETTER, WORSE)
            };
            if t < 0.5 {
                mix(low_end, SAME, t * 2.0)
            } else {
                mix(SAME, high_end, (t - 0.5) * 2.0)
            }
        } else {
            let x = t * (VIRIDIS.len() - 1) as f64;
            let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
            mix(VIRIDIS[i], VIRIDIS[i + 1], x - i as f64)
        }
    }

    /// The scale's ends for these rows and columns: the values' range, or
    /// the largest absolute difference on both sides (at least 1e-12).
    pub fn fit_range(&mut self) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for i in 0..self.rows.len() {
            for j in 0..self.cols.len() {
                let v = self.cell(i, j);
                if v.is_finite() {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
        self.range = if !lo.is_finite() {
            (0.0, 1.0)
        } else if self.baseline.is_some() {
            let d = lo.abs().max(hi.abs()).max(1e-12);
            (-d, d)
        } else {
            (lo, hi)
        };
    }

    /// The RGBA pixels (`width × height`, row by row) of the window whose top
    /// left is at pixel (`x`, `y`) of the whole map, each cell `cw × ch`
    /// pixels; outside the map transparent. Cells are coloured once each.
    pub fn paint(&self, x: u32, y: u32, cw: u32, ch: u32, width: u32, height: u32) -> Vec<u8> {
        let (cw, ch) = (cw.max(1) as usize, ch.max(1) as usize);
        let (w, h) = (width as usize, height as usize);
        let mut out = vec![0u8; w * h * 4];
        let (x, y) = (x as usize, y as usize);
        let first_col = x / cw;
        let last_col = ((x + w).div_ceil(cw)).min(self.cols.len());
        // one row of pixels per map row, copied down its height
        let mut line = vec![0u8; w * 4];
        let mut py = 0usize;
        while py < h {
            let map_y = y + py;
            let i = map_y / ch;
            if i >= self.rows.len() {
                break;
            }
            let rows_here = (ch - map_y % ch).min(h - py);
            line.fill(0);
            for j in first_col..last_col {
                let (r, g, b) = self.color(self.cell(i, j));
                let from = (j * cw).max(x) - x;
                let to = ((j + 1) * cw).min(x + w) - x;
                for px in from..to {
                    line[px * 4..px * 4 + 4].copy_from_slice(&[r, g, b, 255]);
                }
            }
            for k in 0..rows_here {
                let at = (py + k) * w * 4;
                out[at..at + w * 4].copy_from_slice(&line);
            }
            py += rows_here;
        }
        out
    }

    /// The (row, column) of pixel (`px`, `py`) of the whole map, if it is a cell.
    pub fn at(&self, px: f64, py: f64, cw: u32, ch: u32) -> Option<(usize, usize)> {
        if px < 0.0 || py < 0.0 {
            return None;
        }
        let j = (px / cw.max(1) as f64) as usize;
        let i = (py / ch.max(1) as f64) as usize;
        (i < self.rows.len() && j < self.cols.len()).then_some((i, j))
    }
}

/// Draws rows `first_row..` and columns `first_col..` of `map` (as many as
/// fit, each cell `cw × ch`) as rectangles on `area`: the same colours as
/// [`Heatmap::paint`], on any backend.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &Heatmap,
    first_row: usize,
    first_col: usize,
    cw: u32,
    ch: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.dim_in_pixel();
    let (cw, ch) = (cw.max(1) as usize, ch.max(1) as usize);
    let cols = (w as usize / cw).min(map.cols.len().saturating_sub(first_col));
    let rows = (h as usize / ch).min(map.rows.len().saturating_sub(first_row));
    for i in 0..rows {
        for j in 0..cols {
            let (r, g, b) = map.color(map.cell(first_row + i, first_col + j));
            let (x0, y0) = ((j * cw) as i32, (i * ch) as i32);
            area.draw(&Rectangle::new(
                [(x0, y0), (x0 + cw as i32, y0 + ch as i32)],
                RGBColor(r, g, b).filled(),
            ))?;
        }
    }
    Ok(())
}

/// A window of `map` as an SVG document (`rows × cols` cells from the top left).
pub fn to_svg(map: &Heatmap, cw: u32, ch: u32) -> String {
    let mut svg = String::new();
    {
        let size = (
            (map.cols.len() as u32 * cw).max(1),
            (map.rows.len() as u32 * ch).max(1),
        );
        let area = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let _ = draw(&area, map, 0, 0, cw, ch);
        let _ = area.present();
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUES: [f64; 6] = [0.0, 0.5, 1.0, 0.25, f64::NAN, 0.75];

    fn map<'a>(rows: &'a [usize], cols: &'a [usize], baseline: Option<usize>) -> Heatmap<'a> {
        let mut m = Heatmap {
            values: &VALUES,
            queries: 3,
            rows,
            cols,
            baseline,
            range: (0.0, 1.0),
            higher_is_better: true,
        };
        m.fit_range();
        m
    }

    #[test]
    fn cells_values_and_differences() {
        let m = map(&[1, 0], &[2, 0, 1], None);
        assert_eq!(m.cell(0, 0), 0.75);
        assert_eq!(m.cell(1, 2), 0.5);
        assert!(m.cell(0, 2).is_nan());
        assert!(m.cell(2, 0).is_nan());
        assert_eq!(m.range, (0.0, 1.0));
        let d = map(&[0, 1], &[0, 1, 2], Some(0));
        assert_eq!(d.cell(1, 0), 0.25);
        assert_eq!(d.cell(1, 2), -0.25);
        assert_eq!(d.cell(0, 1), 0.0);
        assert_eq!(d.range, (-0.25, 0.25));
    }

    #[test]
    fn colours_follow_the_scales() {
        let m = map(&[0, 1], &[0, 1, 2], None);
        assert_eq!(m.color(0.0), VIRIDIS[0]);
        assert_eq!(m.color(1.0), VIRIDIS[8]);
        assert_eq!(m.color(0.5), VIRIDIS[4]);
        assert_eq!(m.color(f64::NAN), MISSING);
        let d = map(&[0, 1], &[0, 1, 2], Some(0));
        assert_eq!(d.color(0.0), SAME);
        assert_eq!(d.color(0.25), BETTER);
        assert_eq!(d.color(-1.0), WORSE);
        let lower = Heatmap {
            higher_is_better: false,
            ..d
        };
        assert_eq!(lower.color(0.25), WORSE);
    }

    #[test]
    fn paint_writes_each_cell_over_its_pixels_and_agrees_with_the_svg() {
        let m = map(&[0, 1], &[0, 1, 2], None);
        // the whole map, 2 × 3 pixels a cell
        let px = m.paint(0, 0, 2, 3, 6, 6);
        let at = |x: usize, y: usize| {
            let i = (y * 6 + x) * 4;
            (px[i], px[i + 1], px[i + 2], px[i + 3])
        };
        let c = |v: f64| {
            let (r, g, b) = m.color(v);
            (r, g, b, 255)
        };
        assert_eq!(at(0, 0), c(0.0));
        assert_eq!(at(1, 2), c(0.0));
        assert_eq!(at(2, 0), c(0.5));
        assert_eq!(at(5, 5), c(0.75));
        assert_eq!(at(2, 4), c(f64::NAN));
        // a window from pixel (3, 2): half a cell in, the map's end transparent
        let w = m.paint(3, 2, 2, 3, 4, 5);
        let wat = |x: usize, y: usize| w[(y * 4 + x) * 4..(y * 4 + x) * 4 + 4].to_vec();
        let (r, g, b) = m.color(0.5);
        assert_eq!(wat(0, 0), vec![r, g, b, 255]);
        let (r, g, b) = m.color(0.75);
        assert_eq!(wat(2, 1), vec![r, g, b, 255]);
        assert_eq!(wat(3, 0), vec![0, 0, 0, 0]);
        assert_eq!(wat(0, 4), vec![0, 0, 0, 0]);
        // the SVG's rectangles carry the same colours
        let svg = to_svg(&m, 2, 3);
        for i in 0..2 {
            for j in 0..3 {
                let (r, g, b) = m.color(m.cell(i, j));
                let hex = format!("#{r:02X}{g:02X}{b:02X}");
                assert!(svg.to_uppercase().contains(&hex), "{hex} in {svg}");
            }
        }
        assert_eq!(svg.matches("<rect").count(), 6, "{svg}");
        assert_eq!(m.at(5.0, 4.0, 2, 3), Some((1, 2)));
        assert_eq!(m.at(6.0, 0.0, 2, 3), None);
    }
}
