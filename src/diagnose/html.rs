//! The page's Diagnostics panel for binary classifiers, written natively
//! (in the loading worker, so the page's wasm holds none of it): controls,
//! the numbers and operating points per model, the reliability diagram with
//! its rows per bin, score distributions with the KS statistic and the
//! threshold line, cumulative gains, lift, the DET curve, groups of models
//! with their averaged ROC band, and how each number is computed. Charts are
//! inline SVG; every text from a file is escaped.

use std::fmt::Write;
use std::sync::Arc;

use super::{BinaryModel, Group, Options, TOP_PERCENT};
use crate::core::binary::BinaryCurve;
use crate::core::diagnostics;
use crate::core::registry::id;
use crate::core::Named;
use crate::plot::{series_hex, PR_AXES, ROC_AXES};
use crate::text::html as esc;

/// The id of the panel's `<style>` element that places the threshold lines
/// (the page rewrites it as the threshold moves).
pub const THRESHOLD_RULE_ID: &str = "diag-thr";

/// The style rules that put each model's threshold line at its `at` (0 to
/// 1) of the score axis (the models in the panel's order).
pub fn threshold_rule(at: &[f64]) -> String {
    let mut s = String::new();
    for (i, a) in at.iter().enumerate() {
        let _ = write!(
            s,
            ".diag-panel .thr[data-m=\"{i}\"]{{transform:translateX({:.2}px)}}",
            a * (RIGHT - LEFT)
        );
    }
    s
}

/// The prefix of every control's id; the rest is its option's key
/// ([`Options::set`]).
pub const CONTROL_PREFIX: &str = "diag-";

/// What the panel shows.
pub struct View<'a> {
    /// Each model's name and curve, in the table's order.
    pub curves: &'a [(String, Arc<BinaryCurve>)],
    /// Each model's colour index (the page's palette).
    pub colors: &'a [usize],
    pub models: &'a [BinaryModel],
    /// The groups, or why they could not be formed.
    pub groups: &'a Result<Vec<Group>, String>,
    pub options: &'a Options,
    /// The score axis of the distributions (the page's threshold slider's).
    pub range: (f64, f64),
    /// Each model's threshold's place on that axis (0 to 1) when the panel
    /// was asked for; the page moves the lines after ([`threshold_rule`]).
    pub at: &'a [f64],
}

fn f4(v: f64) -> String {
    format!("{v:.4}")
}

fn opt4(v: Option<f64>) -> String {
    v.map_or("—".into(), f4)
}

fn math(tex: &str) -> String {
    crate::math::to_mathml(tex, false).unwrap_or_else(|_| esc(tex))
}

/// A plot area of `W` × `H` user units with room for ticks on the left
/// and below.
struct Axes {
    x: (f64, f64),
    y: (f64, f64),
}

const W: f64 = 360.0;
const H: f64 = 240.0;
const LEFT: f64 = 44.0;
const TOP: f64 = 8.0;
const RIGHT: f64 = 352.0;
const BOTTOM: f64 = 212.0;

impl Axes {
    fn px(&self, v: f64) -> f64 {
        LEFT + (v - self.x.0) / (self.x.1 - self.x.0) * (RIGHT - LEFT)
    }
    fn py(&self, v: f64) -> f64 {
        BOTTOM - (v - self.y.0) / (self.y.1 - self.y.0) * (BOTTOM - TOP)
    }
    /// The frame, the ticks (value, label) and the axis titles.
    fn frame(&self, xt: &[(f64, String)], yt: &[(f64, String)], xl: &str, yl: &str) -> String {
        let mut s = format!(
            r#"<rect class="frame" x="{LEFT}" y="{TOP}" width="{}" height="{}"/>"#,
            RIGHT - LEFT,
            BOTTOM - TOP
        );
        for (v, label) in xt {
            let x = self.px(*v);
            let _ = write!(
                s,
                r#"<line class="grid" x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{BOTTOM}"/><text class="tick" x="{x:.1}" y="{}" text-anchor="middle">{label}</text>"#,
                BOTTOM + 12.0
            );
        }
        for (v, label) in yt {
            let y = self.py(*v);
            let _ = write!(
                s,
                r#"<line class="grid" x1="{LEFT}" x2="{RIGHT}" y1="{y:.1}" y2="{y:.1}"/><text class="tick" x="{}" y="{:.1}" text-anchor="end">{label}</text>"#,
                LEFT - 4.0,
                y + 3.0
            );
        }
        let _ = write!(
            s,
            r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{xl}</text><text class="tick" x="10" y="{mid}" transform="rotate(-90 10 {mid})" text-anchor="middle">{yl}</text>"#,
            (LEFT + RIGHT) / 2.0,
            H - 2.0,
            mid = (TOP + BOTTOM) / 2.0
        );
        s
    }
    /// A point (clamped to the axes) in user units.
    fn at(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            self.px(x.clamp(self.x.0, self.x.1)),
            self.py(y.clamp(self.y.0, self.y.1)),
        )
    }
    /// A path through `points` (clamped to the axes), thinned to what the
    /// drawing can show.
    fn path(&self, points: &[(f64, f64)], color: &str, class: &str) -> String {
        self.path_of(points.len(), |i| points[i], color, class)
    }
    /// [`Axes::path`] through points `0..n`, each read by `point` (no list).
    fn path_of(
        &self,
        n: usize,
        point: impl Fn(usize) -> (f64, f64),
        color: &str,
        class: &str,
    ) -> String {
        let mut d = String::new();
        let mut last = (f64::NAN, f64::NAN);
        for i in 0..n {
            let p = self.at(point(i));
            if !(p.0.is_finite() && p.1.is_finite()) {
                continue;
            }
            if last.0.is_nan() || far(p, last) || i + 1 == n {
                step(&mut d, p, last.0.is_nan());
                last = p;
            }
        }
        format!(r#"<path class="{class}" stroke="{color}" d="{d}"/>"#)
    }
    /// [`Axes::path_of`] of points whose coordinates each only grow or only
    /// shrink along the path (a curve read over its thresholds) and are
    /// never NaN: the same path, each next drawn point found by a galloping
    /// binary search (its distance from the last drawn one grows along the
    /// path), so `point` is read about log n times per point drawn, not n.
    fn monotone_path(
        &self,
        n: usize,
        point: impl Fn(usize) -> (f64, f64),
        color: &str,
        class: &str,
    ) -> String {
        let mut d = String::new();
        if n > 0 {
            let mut last = self.at(point(0));
            step(&mut d, last, true);
            let mut i = 0;
            // the last point is drawn whatever its distance
            while i + 1 < n {
                let is_far = |j: usize| far(self.at(point(j)), last);
                // the first j in (i, n - 1) far from the last drawn point, else n - 1
                let (mut lo, mut width) = (i + 1, 1);
                let mut hi = n - 1;
                while lo + width < hi {
                    if is_far(lo + width - 1) {
                        hi = lo + width - 1;
                        break;
                    }
                    lo += width;
                    width *= 2;
                }
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if is_far(mid) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                last = self.at(point(lo));
                step(&mut d, last, false);
                i = lo;
            }
        }
        format!(r#"<path class="{class}" stroke="{color}" d="{d}"/>"#)
    }
}

/// Whether `p` is far enough from `last` to be drawn (half a user unit).
fn far(p: (f64, f64), last: (f64, f64)) -> bool {
    (p.0 - last.0).abs() + (p.1 - last.1).abs() >= 0.5
}

/// A path's next step to `p` (`first`: a move).
fn step(d: &mut String, p: (f64, f64), first: bool) {
    let _ = write!(d, "{}{:.1} {:.1}", if first { "M" } else { "L" }, p.0, p.1);
}

/// The axes [0, 1] × [0, 1] with ticks at fifths and the dashed diagonal.
fn unit_square(x_label: &str, y_label: &str) -> (Axes, String) {
    let a = Axes {
        x: (0.0, 1.0),
        y: (0.0, 1.0),
    };
    let t = || ticks(&FIFTHS, |x| format!("{x}"));
    let mut body = a.frame(&t(), &t(), x_label, y_label);
    body.push_str(&a.path(&[(0.0, 0.0), (1.0, 1.0)], "currentColor", "diagonal"));
    (a, body)
}

fn ticks(values: &[f64], label: impl Fn(f64) -> String) -> Vec<(f64, String)> {
    values.iter().map(|&v| (v, label(v))).collect()
}

const FIFTHS: [f64; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];

fn figure(class: &str, aria: &str, body: &str, caption: &str) -> String {
    format!(
        r#"<figure class="{class}"><svg viewBox="0 0 {W} {H}" role="img" aria-label="{aria}">{body}</svg><figcaption>{caption}</figcaption></figure>"#
    )
}

/// The Diagnostics panel.
pub fn panel(v: &View) -> String {
    let mut s = String::from(r#"<div class="diag-panel">"#);
    if v.options.one_vs_rest.is_none() {
        let _ = write!(
            s,
            r#"<style id="{THRESHOLD_RULE_ID}">{}</style>"#,
            threshold_rule(v.at)
        );
    }
    match v.options.one_vs_rest {
        Some(class) => roc_and_pr(&mut s, v, class),
        None => {
            s.push_str("<h2>Diagnostics</h2>");
            controls(&mut s, v.options);
        }
    }
    numbers(&mut s, v);
    if v.options.one_vs_rest.is_none() {
        operating_points(&mut s, v);
    }
    s.push_str(r#"<div class="diag-charts">"#);
    reliability(&mut s, v);
    distributions(&mut s, v);
    gains_and_lift(&mut s, v);
    det(&mut s, v);
    s.push_str("</div>");
    groups(&mut s, v);
    explanations(&mut s, v.options);
    s.push_str("</div>");
    s
}

fn controls(s: &mut String, o: &Options) {
    let p = CONTROL_PREFIX;
    let number = |key: &str, label: &str, value: String, step: &str| {
        format!(
            r#"<label>{label} <input id="{p}{key}" type="number" step="{step}" min="0" value="{value}"></label>"#
        )
    };
    let strategies: String = diagnostics::BinStrategy::ALL
        .iter()
        .map(|s| s.name())
        .map(|n| {
            let sel = if n == o.strategy.name() {
                " selected"
            } else {
                ""
            };
            format!(r#"<option value="{n}"{sel}>{n}</option>"#)
        })
        .collect();
    let groups: Vec<String> = o.groups.iter().map(|(n, p)| format!("{n}={p}")).collect();
    let _ = write!(
        s,
        r#"<div class="diag-controls"><label>bins <input id="{p}bins" type="number" min="1" max="1000" step="1" value="{}"></label><label>binning <select id="{p}strategy">{strategies}</select></label>{}{}{}{}{}{}<label>target prevalence <input id="{p}prevalence" type="number" min="0" max="1" step="0.01" placeholder="the data's" value="{}"></label><label class="wide">groups <input id="{p}group" type="text" placeholder="name=pattern, e.g. gbdt=gbdt_fold*" value="{}"></label></div>"#,
        o.bins,
        number("recall", "recall ≥", o.recall.to_string(), "0.01"),
        number("precision", "precision ≥", o.precision.to_string(), "0.01"),
        number("tpr", "TPR ≥", o.tpr.to_string(), "0.01"),
        number("beta", "β", o.beta.to_string(), "0.5"),
        number("cost_fp", "cost of a FP", o.cost_fp.to_string(), "1"),
        number("cost_fn", "cost of a FN", o.cost_fn.to_string(), "1"),
        o.prevalence.map_or(String::new(), |p| p.to_string()),
        esc(&groups.join(", ")),
    );
}

fn swatch(color: &str) -> String {
    format!(r#"<span class="swatch" style="background:{color}"></span>"#)
}

fn numbers(s: &mut String, v: &View) {
    let o = v.options;
    let _ = write!(
        s,
        r#"<table class="diag-numbers" tabindex="0"><caption>Calibration in {} {} bins, KS, gains and lift (hover a header for its definition)</caption><thead><tr><th>model</th><th title="Σ_b n_b/N |fraction positive − mean p| over the non-empty bins">ECE</th><th title="max_b |fraction positive − mean p|">MCE</th><th title="mean (p − y)² over the rows">Brier</th><th title="mean (mean p of the row's bin − y)² over the rows = reliability − resolution + uncertainty">binned Brier</th><th title="(1/N) Σ_b n_b (mean p − fraction positive)²">reliability</th><th title="(1/N) Σ_b n_b (fraction positive − base rate)²">resolution</th><th title="base rate × (1 − base rate)">uncertainty</th><th title="max over thresholds of |TPR − FPR|">KS</th>"#,
        o.bins,
        o.strategy.name()
    );
    for q in TOP_PERCENT {
        let _ = write!(
            s,
            r#"<th title="positive rate of the top {q}% of rows by score over the base rate (ties at the cut shared pro rata)">lift@{q}%</th>"#
        );
    }
    s.push_str("</tr></thead><tbody>");
    for (i, m) in v.models.iter().enumerate() {
        let c = m.calibration.as_ref();
        let cell = |key: &str, value: Option<f64>| {
            format!(
                r#"<td data-key="{key}" data-value="{}">{}</td>"#,
                value.map_or(String::new(), |x| x.to_string()),
                opt4(value)
            )
        };
        let _ = write!(
            s,
            r#"<tr data-model="{}"><th scope="row">{}{}</th>{}{}{}{}{}{}{}{}"#,
            esc(&m.name),
            swatch(&series_hex(v.colors[i])),
            esc(&m.name),
            cell(id::ECE, c.map(|c| c.ece)),
            cell("mce", c.map(|c| c.mce)),
            cell(id::BRIER, m.brier),
            cell("brier_binned", c.map(|c| c.brier_binned)),
            cell("reliability", c.map(|c| c.reliability)),
            cell("resolution", c.map(|c| c.resolution)),
            cell("uncertainty", c.map(|c| c.uncertainty)),
            cell(id::KS, m.ks.map(|k| k.0)),
        );
        for q in TOP_PERCENT {
            let lift = m.top.iter().find(|t| t.0 == q).map(|t| t.2);
            s.push_str(&cell(&format!("lift@{q}"), lift));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    if v.models.iter().any(|m| m.calibration.is_none()) {
        s.push_str(r#"<p class="note">Calibration needs probabilities in [0, 1]: mark the scores as logits in Conventions if they are.</p>"#);
    }
}

fn operating_points(s: &mut String, v: &View) {
    s.push_str(r#"<table class="diag-points"><caption>Operating points: each button sets the threshold to the point's (the model's own when each model has one, else the one the models share)</caption><thead><tr><th>model</th><th>point</th><th>value</th><th>threshold</th><th>TP</th><th>FP</th><th>FN</th><th>TN</th><th></th></tr></thead><tbody>"#);
    for m in v.models.iter().take(PER_MODEL) {
        for p in &m.operating_points {
            let _ = write!(
                s,
                r#"<tr data-model="{}" data-point="{}"><td>{}</td><td title="{}">{}</td><td data-value="{}">{}</td>"#,
                esc(&m.name),
                p.name,
                esc(&m.name),
                esc(&p.target),
                p.name.replace('_', " "),
                p.value.map_or(String::new(), |x| x.to_string()),
                opt4(p.value),
            );
            match (p.threshold, p.confusion) {
                (Some(t), Some(c)) => {
                    let _ = write!(
                        s,
                        r#"<td>{t}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><button class="small" data-threshold="{t}">set threshold</button></td></tr>"#,
                        c.tp, c.fp, c.fn_, c.tn
                    );
                }
                _ => s.push_str(r#"<td colspan="6">no threshold reaches it</td></tr>"#),
            }
        }
    }
    s.push_str("</tbody></table>");
    only_first(s, v, "Operating points");
}

fn legend(v: &View, extra: &str) -> String {
    let mut s = String::from(r#"<span class="legend">"#);
    for (i, m) in v.models.iter().enumerate() {
        let _ = write!(s, "{}{} ", swatch(&series_hex(v.colors[i])), esc(&m.name));
    }
    s.push_str(extra);
    s.push_str("</span>");
    s
}

fn reliability(s: &mut String, v: &View) {
    let (a, mut body) = unit_square("mean predicted probability", "fraction positive");
    let mut counts = String::new();
    let strip = 28.0;
    for (i, m) in v.models.iter().enumerate() {
        let Some(c) = &m.calibration else { continue };
        let color = series_hex(v.colors[i]);
        let points: Vec<(f64, f64)> = c
            .bins
            .iter()
            .map(|b| (b.mean_predicted, b.fraction_positive))
            .collect();
        body.push_str(&a.path(&points, &color, "line"));
        let most = c.bins.iter().map(|b| b.rows).max().unwrap_or(1).max(1) as f64;
        let top = i as f64 * (strip + 4.0);
        for b in &c.bins {
            let _ = write!(
                body,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: bin ({}, {}], {} rows, {} positive, mean p {}, fraction positive {}</title></circle>"#,
                a.px(b.mean_predicted),
                a.py(b.fraction_positive),
                esc(&m.name),
                f4(b.lo),
                f4(b.hi),
                b.rows,
                b.positives,
                f4(b.mean_predicted),
                f4(b.fraction_positive)
            );
            let h = b.rows as f64 / most * strip;
            let _ = write!(
                counts,
                r#"<rect class="count" fill="{color}" x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}"><title>{}: {} rows in ({}, {}]</title></rect>"#,
                a.px(b.lo) + 0.5,
                top + strip - h,
                (a.px(b.hi) - a.px(b.lo) - 1.0).max(0.5),
                esc(&m.name),
                b.rows,
                f4(b.lo),
                f4(b.hi)
            );
        }
    }
    let strips = v.models.len() as f64 * (strip + 4.0);
    let o = v.options;
    let _ = write!(
        s,
        r#"<figure class="reliability"><svg viewBox="0 0 {W} {H}" role="img" aria-label="reliability diagram">{body}</svg><svg class="counts" viewBox="0 0 {W} {strips}" role="img" aria-label="rows per bin">{counts}</svg><figcaption>Reliability diagram, {} {} bins (empty bins dropped, as scikit-learn's calibration_curve); below, the rows per bin of each model. On the diagonal a model is calibrated. {}</figcaption></figure>"#,
        o.bins,
        o.strategy.name(),
        legend(v, "")
    );
}

const HISTOGRAM_BINS: usize = 40;

/// Models drawn one chart each (score distributions), and listed in the
/// operating points: the first ones shown; hiding models shows the others.
const PER_MODEL: usize = 8;

/// Says which models a per-model part leaves out.
fn only_first(s: &mut String, v: &View, what: &str) {
    if v.curves.len() > PER_MODEL {
        let _ = write!(
            s,
            r#"<p class="note">{what}: the first {PER_MODEL} of {} models shown; hide models to see the others.</p>"#,
            v.curves.len()
        );
    }
}

fn distributions(s: &mut String, v: &View) {
    let (lo, hi) = v.range;
    for (i, (name, curve)) in v.curves.iter().enumerate().take(PER_MODEL) {
        let color = series_hex(v.colors[i]);
        let h = diagnostics::histogram(curve, lo, hi, HISTOGRAM_BINS);
        let share = |k: u64, n: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        let top = h
            .iter()
            .map(|&(p, n)| share(p, curve.positives).max(share(n, curve.negatives)))
            .fold(0.0, f64::max)
            .max(1e-9);
        let a = Axes {
            x: (lo, hi),
            y: (0.0, top),
        };
        let span = hi - lo;
        let xt = ticks(&FIFTHS.map(|f| lo + f * span), |x| {
            crate::plot::tick_label(x, span)
        });
        let yt = ticks(&[0.0, top / 2.0, top], |y| crate::plot::tick_label(y, top));
        let mut body = a.frame(&xt, &yt, "score", "share of the class");
        let width = span / HISTOGRAM_BINS as f64;
        let steps = |pick: &dyn Fn(&(u64, u64)) -> f64| -> Vec<(f64, f64)> {
            let mut pts = vec![(lo, 0.0)];
            for (b, c) in h.iter().enumerate() {
                let x0 = lo + b as f64 * width;
                pts.push((x0, pick(c)));
                pts.push((x0 + width, pick(c)));
            }
            pts.push((hi, 0.0));
            pts
        };
        body.push_str(&a.path(&steps(&|c| share(c.0, curve.positives)), &color, "line"));
        body.push_str(&a.path(
            &steps(&|c| share(c.1, curve.negatives)),
            "currentColor",
            "line negatives",
        ));
        let ks = v.models.get(i).and_then(|m| m.ks);
        if let Some((k, t)) = ks {
            let x = a.px(t.clamp(lo, hi));
            let _ = write!(
                body,
                r#"<line class="ks" x1="{x:.1}" x2="{x:.1}" y1="{TOP}" y2="{BOTTOM}"/><text class="tick" x="{:.1}" y="{}">KS {}</text>"#,
                x + 3.0,
                TOP + 10.0,
                f4(k)
            );
        }
        // the threshold line: the page moves it with the slider (--thr: the
        // threshold's place on the score axis, 0 to 1)
        if v.options.one_vs_rest.is_none() {
            let _ = write!(
                body,
                r#"<line class="thr" data-m="{i}" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{BOTTOM}"/>"#
            );
        }
        let caption = format!(
            "{} {}: scores of the positives ({}) and of the negatives (dashed), each as a share of its class in {HISTOGRAM_BINS} bins; the KS statistic at its threshold (dotted){}",
            swatch(&color),
            esc(name),
            curve.positives,
            if v.options.one_vs_rest.is_none() { ", the threshold (solid)" } else { "" }
        );
        s.push_str(&figure(
            "distribution",
            &format!("score distributions of {}", esc(name)),
            &body,
            &caption,
        ));
    }
    only_first(s, v, "Score distributions");
}

fn gains_and_lift(s: &mut String, v: &View) {
    let a = Axes {
        x: (0.0, 1.0),
        y: (0.0, 1.0),
    };
    let pct = |x: f64| format!("{}%", (x * 100.0).round());
    let mut body = a.frame(
        &ticks(&FIFTHS, pct),
        &ticks(&FIFTHS, pct),
        "rows taken from the top",
        "positives found",
    );
    body.push_str(&a.path(&[(0.0, 0.0), (1.0, 1.0)], "currentColor", "diagonal"));
    // the curves are read in place (a million thresholds are not copied):
    // gains only grow, so their path is searched for, not walked; lift from
    // the first point at 1% of the rows on
    let mut lifts = Vec::new();
    for (i, (_, curve)) in v.curves.iter().enumerate() {
        let color = series_hex(v.colors[i]);
        let n = curve.thresholds.len() + 1;
        let g = |i| diagnostics::gains_point(curve, i);
        body.push_str(&a.monotone_path(n, g, &color, "line"));
        let from = (0..n).find(|&i| g(i).0 >= 0.01).unwrap_or(n);
        let top = (from..n).map(|i| g(i).1 / g(i).0).fold(1.0, f64::max);
        lifts.push((color, curve, from, top));
    }
    s.push_str(&figure("gains", "cumulative gains", &body, &format!("Cumulative gains: the share of the positives among the top rows by score (ties shared pro rata); the diagonal is a random order. {}", legend(v, ""))));
    let top = lifts.iter().map(|l| l.3).fold(1.0, f64::max).ceil();
    let a = Axes {
        x: (0.0, 1.0),
        y: (0.0, top),
    };
    let yt = ticks(&[0.0, top / 4.0, top / 2.0, 3.0 * top / 4.0, top], |y| {
        crate::plot::tick_label(y, top)
    });
    let mut body = a.frame(&ticks(&FIFTHS, pct), &yt, "rows taken from the top", "lift");
    body.push_str(&a.path(&[(0.0, 1.0), (1.0, 1.0)], "currentColor", "diagonal"));
    for &(ref color, curve, from, _) in &lifts {
        let n = curve.thresholds.len() + 1 - from;
        let lift = |i| {
            let g = diagnostics::gains_point(curve, from + i);
            (g.0, g.1 / g.0)
        };
        body.push_str(&a.path_of(n, lift, color, "line"));
    }
    s.push_str(&figure("lift", "lift", &body, &format!("Lift: the positive rate of the top rows over the base rate, from the top 1%; 1 is a random order. {}", legend(v, ""))));
}

/// scikit-learn's DetCurveDisplay ticks.
const DET_TICKS: [f64; 9] = [0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999];

fn det(s: &mut String, v: &View) {
    let a = Axes {
        x: (-3.0, 3.0),
        y: (-3.0, 3.0),
    };
    let label = |p: f64| format!("{}%", (p * 1000.0).round() / 10.0);
    let t: Vec<(f64, String)> = DET_TICKS
        .iter()
        .map(|&p| (diagnostics::probit(p), label(p)))
        .collect();
    let mut body = a.frame(&t, &t, "false positive rate", "false negative rate");
    for (i, (_, curve)) in v.curves.iter().enumerate() {
        if let Some(points) = diagnostics::det_points(curve) {
            // both rates only move one way along the curve, and so do
            // their probits: the path is searched for (a few probits per
            // point drawn, not one per threshold)
            let point = |k: usize| {
                let (fpr, fnr, _) = points[k];
                (diagnostics::probit(fpr), diagnostics::probit(fnr))
            };
            let color = series_hex(v.colors[i]);
            body.push_str(&a.monotone_path(points.len(), point, &color, "line"));
        }
    }
    s.push_str(&figure("det", "DET curve", &body, &format!("DET curve: miss rate against false-alarm rate on normal-deviate axes (scikit-learn's det_curve points; rates of 0 or 1 drawn at the edge). {}", legend(v, ""))));
}

fn groups(s: &mut String, v: &View) {
    let groups = match v.groups {
        Ok(g) if g.is_empty() => return,
        Ok(g) => g,
        Err(why) => {
            let _ = write!(s, r#"<p class="note" role="alert">{}</p>"#, esc(why));
            return;
        }
    };
    s.push_str(r#"<h3>Groups (folds or seeds as one model)</h3><table class="diag-groups"><thead><tr><th>group</th><th>models</th><th>number</th><th>mean ± sd</th></tr></thead><tbody>"#);
    for g in groups {
        for (label, mean, sd, values) in &g.mean_sd {
            let each: Vec<String> = g
                .members
                .iter()
                .zip(values)
                .map(|(m, x)| format!("{m}: {}", f4(*x)))
                .collect();
            let _ = write!(
                s,
                r#"<tr data-group="{}" data-key="{label}"><td>{}</td><td>{}</td><td>{label}</td><td data-value="{mean}" data-sd="{sd}" title="{}">{} ± {}</td></tr>"#,
                esc(&g.name),
                esc(&g.name),
                g.members.len(),
                esc(&each.join("; ")),
                f4(*mean),
                f4(*sd)
            );
        }
    }
    s.push_str("</tbody></table>");
    // each group's averaged ROC and PR curves, a ±1 sd band around each
    for pr in [false, true] {
        let (a, mut body) = unit_square(ROC_AXES.0, ROC_AXES.1);
        if pr {
            // no chance diagonal on a precision–recall chart
            let t = || ticks(&FIFTHS, |x| format!("{x}"));
            body = a.frame(&t(), &t(), PR_AXES.0, PR_AXES.1);
        }
        let mut names = String::new();
        for (i, g) in groups.iter().enumerate() {
            let (x, mean, lower, upper, value) = match (pr, &g.averaged_roc, &g.averaged_pr) {
                (false, Some(r), _) => (
                    &r.fpr,
                    &r.mean_tpr,
                    &r.lower,
                    &r.upper,
                    ("AUC", r.auc_mean, r.auc_sd),
                ),
                (true, _, Some(r)) => (
                    &r.recall,
                    &r.mean_precision,
                    &r.lower,
                    &r.upper,
                    ("AP", r.ap_mean, r.ap_sd),
                ),
                _ => continue,
            };
            let color = series_hex(i);
            let mut band = String::new();
            let around = x.iter().zip(upper).chain(x.iter().zip(lower).rev());
            for (j, (x, y)) in around.enumerate() {
                let _ = write!(
                    band,
                    "{}{:.1} {:.1}",
                    if j == 0 { "M" } else { "L" },
                    a.px(*x),
                    a.py(*y)
                );
            }
            let _ = write!(body, r#"<path class="band" fill="{color}" d="{band}Z"/>"#);
            let line: Vec<(f64, f64)> = x.iter().copied().zip(mean.iter().copied()).collect();
            body.push_str(&a.path(&line, &color, "line"));
            let _ = write!(
                names,
                "{}{} ({} {} ± {}) ",
                swatch(&color),
                esc(&g.name),
                value.0,
                f4(value.1),
                f4(value.2)
            );
        }
        s.push_str(&if pr {
            figure("averaged-pr", "averaged precision–recall", &body, &format!("Precision–recall averaged vertically with a ±1 sd band: each member's precision read at 100 evenly spaced recalls on its curve (numpy's interp on scikit-learn's precision_recall_curve in increasing recall; scikit-learn's examples average only ROC curves). {names}"))
        } else {
            figure("averaged-roc", "averaged ROC", &body, &format!("ROC averaged vertically with a ±1 sd band: each member's TPR read at 100 evenly spaced FPRs (scikit-learn's \"ROC with cross validation\" example). {names}"))
        });
    }
}

/// One class against the rest: ROC and precision–recall curves with each
/// model's ROC AUC and average precision (cells `data-ovr-metric`,
/// `data-ovr-class`, `data-value`).
fn roc_and_pr(s: &mut String, v: &View, class: u32) {
    let (a, mut roc) = unit_square(ROC_AXES.0, ROC_AXES.1);
    let t = || ticks(&FIFTHS, |x| format!("{x}"));
    let mut pr = a.frame(&t(), &t(), PR_AXES.0, PR_AXES.1);
    let mut rows = String::new();
    for (i, (name, curve)) in v.curves.iter().enumerate() {
        let color = series_hex(v.colors[i]);
        roc.push_str(&a.path(&curve.roc_points(), &color, "line"));
        // as average precision sums it: each precision over the recall step it ends
        let mut steps = Vec::new();
        for &(r, p) in curve.pr_points().iter().rev() {
            if let Some(&(r0, _)) = steps.last() {
                steps.push((r0, p));
            }
            steps.push((r, p));
        }
        pr.push_str(&a.path(&steps, &color, "line"));
        let (auc, ap) = (curve.roc_auc(), curve.average_precision());
        let cell = |metric: &str, x: Option<f64>| {
            format!(
                r#"<td data-ovr-metric="{metric}" data-ovr-class="{class}" data-value="{}">{}</td>"#,
                x.map_or(String::new(), |x| x.to_string()),
                x.map_or("undefined (one class only)".into(), f4)
            )
        };
        let _ = write!(
            rows,
            r#"<tr><th scope="row">{}{}</th>{}{}<td>{} of {}</td></tr>"#,
            swatch(&color),
            esc(name),
            cell(id::ROC_AUC, auc),
            cell(id::AVERAGE_PRECISION, ap),
            curve.positives,
            curve.positives + curve.negatives
        );
    }
    let legend = legend(v, "");
    let _ = write!(
        s,
        r#"<h3>Class {class} against the rest</h3><div class="diag-charts">{}{}</div><table class="diag-ovr"><thead><tr><th>model</th><th>ROC AUC</th><th>average precision</th><th>positives</th></tr></thead><tbody>{rows}</tbody></table>"#,
        figure("roc", &format!("one-vs-rest ROC class {class}"), &roc, &format!("ROC, class {class} against the rest. {legend}")),
        figure("pr", &format!("one-vs-rest PR class {class}"), &pr, &format!("Precision–recall, class {class} against the rest, as steps (average precision is their area). {legend}")),
    );
}

fn explanations(s: &mut String, o: &Options) {
    let item = |name: &str, tex: &str, words: &str| {
        format!("<dt>{name}</dt><dd>{} {words}</dd>", math(tex))
    };
    let _ = write!(
        s,
        "<details class=\"diag-explain\"><summary>How these numbers are computed</summary><dl>{}{}{}{}{}{}{}</dl></details>",
        item("ECE, MCE", r"\text{ECE} = \sum_{b} \frac{n_b}{N} \left| \bar{o}_b - \bar{p}_b \right|, \quad \text{MCE} = \max_b \left| \bar{o}_b - \bar{p}_b \right|", &format!("over the non-empty bins b of {} {} bins: n_b rows, ō_b the fraction positive, p̄_b the mean probability. Uniform bins have equal widths over [0, 1]; quantile bins equal counts (edges at the probabilities' quantiles). A probability on an edge goes to the lower bin.", o.bins, o.strategy.name())),
        item("Brier decomposition", r"\frac{1}{N} \sum_b n_b (\bar{p}_b - \bar{o}_b)^2 - \frac{1}{N} \sum_b n_b (\bar{o}_b - \bar{o})^2 + \bar{o}(1 - \bar{o})", "reliability − resolution + uncertainty (Murphy 1973), ō the base rate: equal to the binned Brier, the Brier score of the binned probabilities (each replaced by its bin's mean), not to the Brier score of the probabilities themselves (its own column), which also counts the spread of the probabilities within each bin."),
        item("KS", r"\text{KS} = \max_t \left| \text{TPR}(t) - \text{FPR}(t) \right|", "the largest gap between the score distributions of the positives and the negatives (scipy's ks_2samp statistic), drawn where it occurs."),
        item("Lift", r"\text{lift}@q = \frac{\text{positives in the top } q N \text{ rows} / (q N)}{P / N}", "rows sharing a score at the cut count pro rata (the expectation over their orders); gains are the same positives over P."),
        item("Youden's J", r"J = \max_t \, \text{TPR}(t) - \text{FPR}(t)", "the threshold farthest above the ROC diagonal."),
        item("Max Fβ", r"F_\beta = \frac{(1 + \beta^2)\,TP}{(1 + \beta^2)\,TP + \beta^2 FN + FP}", &format!("the threshold with the largest F1 and F-beta (β = {}: recall weighs β times precision).", o.beta)),
        item("Least expected cost", r"\text{cost} = \frac{c_{FP} \cdot FP + c_{FN} \cdot FN}{N} \quad \text{or} \quad c_{FN}\,\pi\,\text{FNR} + c_{FP}(1 - \pi)\,\text{FPR}", &format!("per row, with c_FP = {}, c_FN = {}; with a target prevalence π the rates are weighed by it instead of the data's counts.", o.cost_fp, o.cost_fn)),
    );
}

/// Most classes a confusion matrix shows (a wider one is not readable).
pub const MATRIX_CLASSES: usize = 30;

/// A value cell: shown to 4 decimals, its full value in `data-value`.
fn value_cell(key: &str, v: Option<f64>) -> String {
    format!(
        r#"<td class="num" data-key="{key}" data-value="{}">{}</td>"#,
        v.map_or(String::new(), |x| x.to_string()),
        opt4(v)
    )
}

/// The multi-class report of each model, as scikit-learn's
/// `classification_report`, `confusion_matrix` and
/// `roc_auc_score(multi_class=...)` compute it: per class precision, recall,
/// F1 and support with accuracy and the macro and weighted averages; the
/// confusion matrix in counts, each cell shaded by its share of its row
/// (written beside the count); the one-vs-rest and one-vs-one ROC AUCs; and
/// each class against the rest. `colors`: each model's colour index.
pub fn multiclass_report(models: &[super::MulticlassModel], colors: &[usize]) -> String {
    let mut s = String::from(
        r#"<div class="diag-panel class-report"><h2>Classification report</h2><p class="muted small">Each row predicted as its highest-scoring class (ties to the lower index, as argmax), then scikit-learn's classification_report: per class precision, recall and F1 (undefined as zero_division says), support = rows of the class; macro avg = unweighted mean over the classes, weighted avg = weighted by support. The confusion matrix counts rows by true class (rows) and predicted class (columns); each cell is shaded by its share of its row (recall on the diagonal). ROC AUC: roc_auc_score with multi_class='ovr' (each class against the rest) and 'ovo' (each pair of classes, Hand &amp; Till 2001), averaged over the classes unweighted (macro) or by prevalence (weighted).</p>"#,
    );
    for (i, m) in models.iter().enumerate() {
        let name = esc(&m.name);
        let color = series_hex(colors.get(i).copied().unwrap_or(i));
        let r = &m.report;
        let _ = write!(
            s,
            r#"<section class="class-model" data-model="{name}"><h3>{}{name} <span class="muted small">{} rows</span></h3><table class="class-lines"><thead><tr><th>class</th><th>precision</th><th>recall</th><th>F1</th><th>support</th></tr></thead><tbody>"#,
            swatch(&color),
            r.rows
        );
        for (line, class) in r.classes.iter().zip(&m.class_names) {
            let _ = write!(
                s,
                r#"<tr data-class="{}"><th scope="row">{}</th>{}{}{}<td class="num" data-key="support">{}</td></tr>"#,
                esc(class),
                esc(class),
                value_cell(id::PRECISION, line.precision),
                value_cell(id::RECALL, line.recall),
                value_cell(id::F1, line.f1),
                line.support
            );
        }
        let _ = write!(
            s,
            r#"<tr data-class="accuracy"><th scope="row">accuracy</th><td></td><td></td>{}<td class="num">{}</td></tr>"#,
            value_cell(id::F1, Some(r.accuracy)),
            r.rows
        );
        for (label, avg) in [("macro avg", r.macro_avg), ("weighted avg", r.weighted_avg)] {
            let _ = write!(
                s,
                r#"<tr data-class="{label}"><th scope="row">{label}</th>{}{}{}<td class="num">{}</td></tr>"#,
                value_cell(id::PRECISION, avg[0]),
                value_cell(id::RECALL, avg[1]),
                value_cell(id::F1, avg[2]),
                r.rows
            );
        }
        s.push_str("</tbody></table>");
        if let Some(auc) = m.roc_auc {
            s.push_str(r#"<table class="class-auc"><thead><tr><th>ROC AUC</th><th>macro</th><th>weighted</th></tr></thead><tbody>"#);
            for (label, key, pair) in [
                ("one-vs-rest", "ovr", [auc[0], auc[1]]),
                ("one-vs-one", "ovo", [auc[2], auc[3]]),
            ] {
                let _ = write!(
                    s,
                    r#"<tr><th scope="row">{label}</th>{}{}</tr>"#,
                    value_cell(&format!("{key}_macro"), pair[0]),
                    value_cell(&format!("{key}_weighted"), pair[1])
                );
            }
            s.push_str("</tbody></table>");
        } else {
            s.push_str(
                r#"<p class="note">A top-k list has no score for every class: no ROC AUC.</p>"#,
            );
        }
        // the confusion matrix: counts, shaded by their share of the row
        let k = m.class_names.len().min(MATRIX_CLASSES);
        s.push_str(r#"<div class="table-scroll"><table class="class-confusion"><caption>true class (rows) against predicted class (columns)</caption><thead><tr><th></th>"#);
        for c in &m.class_names[..k] {
            let _ = write!(s, r#"<th scope="col">{}</th>"#, esc(c));
        }
        s.push_str("</tr></thead><tbody>");
        for (row, c) in m.confusion_matrix.iter().zip(&m.class_names).take(k) {
            let total: u64 = row.iter().sum();
            let _ = write!(s, r#"<tr><th scope="row">{}</th>"#, esc(c));
            for n in &row[..k] {
                let share = *n as f64 / total.max(1) as f64;
                let _ = write!(
                    s,
                    r#"<td class="num" data-count="{n}" title="{:.1}% of the row" style="background:color-mix(in srgb, {color} {:.0}%, transparent)">{n}</td>"#,
                    share * 100.0,
                    share * 60.0
                );
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table></div>");
        if m.class_names.len() > k {
            let _ = write!(
                s,
                r#"<p class="note">The first {k} of {} classes shown; the table above has every one.</p>"#,
                m.class_names.len()
            );
        }
        if !m.per_class.is_empty() {
            s.push_str(r#"<table class="class-rest"><caption>Each class against the rest (its column as the scores)</caption><thead><tr><th>class</th><th>positives</th><th>ROC AUC</th><th>AP</th><th>ECE</th><th>MCE</th><th>Brier</th><th>KS</th></tr></thead><tbody>"#);
            for c in &m.per_class {
                let _ = write!(
                    s,
                    r#"<tr data-class="{}"><th scope="row">{}</th><td class="num">{}</td>{}{}{}{}{}{}</tr>"#,
                    esc(&c.class),
                    esc(&c.class),
                    c.positives,
                    value_cell(id::ROC_AUC, c.roc_auc),
                    value_cell(id::AVERAGE_PRECISION, c.average_precision),
                    value_cell(id::ECE, c.ece),
                    value_cell("mce", c.mce),
                    value_cell(id::BRIER, c.brier),
                    value_cell(id::KS, c.ks)
                );
            }
            s.push_str("</tbody></table>");
        }
        s.push_str("</section>");
    }
    s.push_str("</div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monotone_path_searched_for_is_the_path_walked() {
        // a curve of 20,000 distinct scores over 200,000 rows, read as the
        // gains and DET curves read it
        let (mut scores, mut labels) = (Vec::new(), Vec::new());
        let mut x = 0x2545_f491u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let s = (x % 20_000) as f64 / 20_000.0;
            scores.push(s);
            labels.push(x % 7 < (s * 7.0) as u32);
        }
        let curve = BinaryCurve::new(&labels, &scores);
        let unit = Axes {
            x: (0.0, 1.0),
            y: (0.0, 1.0),
        };
        let gains = diagnostics::gains_points(&curve);
        let searched = unit.monotone_path(gains.len(), |i| gains[i], "c", "line");
        assert_eq!(searched, unit.path(&gains, "c", "line"));
        assert!(searched.matches('L').count() > 100, "{searched}");
        let det = Axes {
            x: (-3.0, 3.0),
            y: (-3.0, 3.0),
        };
        let points: Vec<(f64, f64)> = (diagnostics::det_points(&curve).unwrap().iter())
            .map(|&(a, b, _)| (diagnostics::probit(a), diagnostics::probit(b)))
            .collect();
        let searched = det.monotone_path(points.len(), |i| points[i], "c", "line");
        assert_eq!(searched, det.path(&points, "c", "line"));
        // short paths: one point, two, none
        for n in [0, 1, 2, 3] {
            let p = &gains[..n];
            assert_eq!(
                unit.monotone_path(n, |i| p[i], "c", "l"),
                unit.path(p, "c", "l")
            );
        }
    }

    fn view_html(names: &[&str], options: &Options) -> String {
        let rows: Vec<(f64, bool)> = (0..200)
            .map(|i| ((i * 37 % 200) as f64 / 200.0, i % 3 == 0))
            .collect();
        let (s, l): (Vec<f64>, Vec<bool>) = rows.into_iter().unzip();
        let curves: Vec<(String, Arc<BinaryCurve>)> = names
            .iter()
            .map(|n| (n.to_string(), Arc::new(BinaryCurve::new(&l, &s))))
            .collect();
        let models = super::super::binary(&curves, options);
        let groups = super::super::groups(&curves, &models, options);
        panel(&View {
            curves: &curves,
            colors: &(0..names.len()).collect::<Vec<_>>(),
            models: &models,
            groups: &groups,
            options,
            range: (0.0, 1.0),
            at: &[0.5; 12],
        })
    }

    #[test]
    fn names_are_escaped_and_every_chart_is_drawn() {
        let html = view_html(&["<b>a</b>", "b"], &Options::default());
        assert!(!html.contains("<b>a</b>") && html.contains("&lt;b&gt;a&lt;/b&gt;"));
        for class in ["reliability", "distribution", "gains", "lift", "det"] {
            assert!(
                html.contains(&format!(r#"<figure class="{class}""#)),
                "{class}"
            );
        }
        assert!(html.contains("data-threshold=") && html.contains(r#"class="thr""#));
        // each model's line has its own rule
        assert!(html.contains(r#"<line class="thr" data-m="1" "#));
        assert!(html.contains(r#".diag-panel .thr[data-m="1"]{transform:translateX(154.00px)}"#));
        assert!(!html.contains("NaN") && !html.contains("inf"));
    }

    /// The numbers table has the binned Brier, which the three terms add up
    /// to, beside the probabilities' own Brier score.
    #[test]
    fn the_binned_brier_is_shown_beside_the_brier_score() {
        let o = Options::default();
        let html = view_html(&["a"], &o);
        let rows: Vec<(f64, bool)> = (0..200)
            .map(|i| ((i * 37 % 200) as f64 / 200.0, i % 3 == 0))
            .collect();
        let (s, l): (Vec<f64>, Vec<bool>) = rows.into_iter().unzip();
        let m = super::super::binary_model("a", &BinaryCurve::new(&l, &s), &o);
        let c = m.calibration.as_ref().unwrap();
        assert!((c.brier_binned - (c.reliability - c.resolution + c.uncertainty)).abs() < 1e-12);
        assert_ne!(Some(c.brier_binned), m.brier);
        for (key, v) in [
            ("brier", m.brier.unwrap()),
            ("brier_binned", c.brier_binned),
        ] {
            let cell = format!(r#"<td data-key="{key}" data-value="{v}">{v:.4}</td>"#);
            assert!(html.contains(&cell), "{cell}");
        }
        assert!(html.contains(">binned Brier</th>"));
    }

    #[test]
    fn many_models_draw_the_first_few_and_say_so() {
        let names: Vec<String> = (0..12).map(|i| format!("m{i}")).collect();
        let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let html = view_html(&refs, &Options::default());
        assert_eq!(
            html.matches(r#"<figure class="distribution""#).count(),
            PER_MODEL
        );
        assert!(html.contains("the first 8 of 12 models shown"));
        assert!(html.contains(r#"<tr data-model="m7" data-point"#));
        assert!(!html.contains(r#"<tr data-model="m8" data-point"#));
        // a model with one class only: no KS, DET or Youden, and nothing undefined printed as a number
        let one_class = BinaryCurve::new(&[true, true], &[0.2, 0.9]);
        let curves = vec![("only".to_string(), Arc::new(one_class))];
        let o = Options::default();
        let models = super::super::binary(&curves, &o);
        let groups = super::super::groups(&curves, &models, &o);
        let html = panel(&View {
            curves: &curves,
            colors: &[0],
            models: &models,
            groups: &groups,
            options: &o,
            range: (0.0, 1.0),
            at: &[0.0],
        });
        assert!(!html.contains("NaN") && html.contains("no threshold reaches it"));
    }

    /// The report of the reference matrix read from memory is the CLI's
    /// (the same function), escaped, and every number has its cell.
    #[test]
    fn the_multiclass_report_of_files_in_memory() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference");
        let bytes = std::fs::read(dir.join("multiclass_probs.csv")).unwrap();
        let o = Options::default();
        let models =
            super::super::multiclass_of_files(&[("multiclass_probs.csv".into(), bytes)], &o)
                .unwrap();
        let m = &models[0];
        assert!(m.roc_auc.is_some() && !m.per_class.is_empty());
        let html = multiclass_report(&models, &[3]);
        for v in m.report.classes.iter().filter_map(|l| l.recall) {
            assert!(html.contains(&format!(r#"data-key="recall" data-value="{v}""#)));
        }
        let auc = m.roc_auc.unwrap()[2].unwrap();
        assert!(html.contains(&format!(r#"data-key="ovo_macro" data-value="{auc}""#)));
        assert_eq!(
            html.matches("data-count=").count(),
            m.class_names.len().min(MATRIX_CLASSES).pow(2)
        );
        assert!(!html.contains("NaN") && !html.contains("inf"));
        // names from a file are escaped
        let mut evil = models.clone();
        evil[0].name = "<img src=x>".into();
        assert!(multiclass_report(&evil, &[0]).contains("&lt;img src=x&gt;"));
        // a file that is not multi-class: said
        let binary = std::fs::read(dir.join("binary.csv")).unwrap();
        let err = super::super::multiclass_of_files(&[("binary.csv".into(), binary)], &o);
        assert_eq!(
            err.unwrap_err(),
            "these files hold no multi-class predictions"
        );
    }

    #[test]
    fn groups_show_their_band_or_why_not() {
        let mut o = Options::default();
        o.set("group", "g=fold*");
        let html = view_html(&["fold1", "fold2", "other"], &o);
        assert!(html.contains(r#"class="band""#) && html.contains(r#"data-group="g""#));
        o.set("group", "g=nothing*");
        assert!(view_html(&["fold1"], &o).contains("no model matches"));
    }
}
