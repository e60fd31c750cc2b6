//! The Compare view's panel as HTML, built in the worker: two models'
//! per-unit differences as sorted bars, their values against each other,
//! the units where the model gains and loses most, every test's result, and
//! what each number means, worked on the user's own values. Every text from
//! a file (names, ids) is escaped ([`crate::text::html`]); the page inserts
//! the panel as it is.

use std::fmt::Write;

use super::settings::Settings;
use super::{correction_title, format_p, Comparison, Test};
use crate::core::stats::{Correction, WilcoxonMethod};
use crate::core::Named;
use crate::text::html as esc;

/// What the panel shows.
pub struct Focus<'a> {
    /// The model against the baseline, every test, adjusted across `group` models.
    pub comparison: &'a Comparison,
    pub group: usize,
    /// The baseline's and the model's values on the paired units, and their ids.
    pub a: &'a [f64],
    pub b: &'a [f64],
    pub ids: &'a [&'a str],
    pub unit: &'a str,
    pub settings: &'a Settings,
    /// Whether the resampling tests ran for every model of the group (else
    /// for this one only, and are adjusted only as the table's test).
    pub resampled_group: bool,
}

/// Bars drawn one per unit up to this many; beyond, the sorted differences
/// as a filled outline (one point per pixel).
const BARS: usize = 300;
/// Units drawn as dots up to this many; beyond, counted on a grid.
const DOTS: usize = 2000;
/// Units listed among the largest gains and losses.
const EXTREMES: usize = 5;
/// Bins of the distribution of each model's per-unit values.
const HISTOGRAM_BINS: usize = 20;

fn f4(v: f64) -> String {
    format!("{v:.4}")
}

fn signed(v: f64) -> String {
    format!("{v:+.4}")
}

/// `query` → `queries`, `row` → `rows`.
fn plural(unit: &str) -> String {
    match unit.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{unit}s"),
    }
}

fn math(tex: &str) -> String {
    // the formulas here are written below; a failure would be a bug, shown as text
    crate::math::to_mathml(tex, false).unwrap_or_else(|_| esc(tex))
}

/// The ids of the Compare view's controls, which the page listens for
/// (`app/compare_view.rs`): test, correction, α, intervals, model,
/// baseline, metric.
pub const TEST_ID: &str = "sig-test";
pub const CORRECTION_ID: &str = "sig-correction";
pub const ALPHA_ID: &str = "sig-alpha";
pub const CI_ID: &str = "sig-ci";
pub const MODEL_ID: &str = "cmp-model";
pub const BASELINE_ID: &str = "cmp-baseline";
pub const METRIC_ID: &str = "cmp-metric";

/// A `<select>` of id `id` with `items` (value, text), `chosen` selected.
fn options(
    s: &mut String,
    id: &str,
    items: &mut dyn Iterator<Item = (String, String)>,
    chosen: &str,
) {
    let _ = write!(s, r#"<select id="{id}">"#);
    for (value, text) in items {
        let _ = write!(
            s,
            r#"<option value="{}"{}>{}</option>"#,
            esc(&value),
            if value == chosen { " selected" } else { "" },
            esc(&text)
        );
    }
    s.push_str("</select>");
}

/// The correction, α and intervals controls, `what` naming the intervals.
fn correction_alpha_ci(s: &mut String, set: &Settings, what: &str) {
    s.push_str("<label>Correction ");
    options(
        s,
        CORRECTION_ID,
        &mut Correction::ALL
            .iter()
            .map(|c| (c.name().to_string(), correction_title(*c).to_string())),
        set.correction.name(),
    );
    let _ = write!(
        s,
        r#"</label><label>α <input id="{ALPHA_ID}" type="number" min="0.001" max="0.5" step="0.01" value="{}"></label><label><input id="{CI_ID}" type="checkbox"{}> 95% intervals of the {what}</label></div>"#,
        set.alpha,
        if set.ci { " checked" } else { "" }
    );
}

/// The Compare view's controls: the test settings and the pair compared,
/// each control with its id above.
pub fn controls(req: &super::settings::Request, focus: (usize, usize)) -> String {
    let set = &req.settings;
    let mut s = String::from(r#"<div class="compare-settings">"#);
    s.push_str("<label>Test ");
    options(
        &mut s,
        TEST_ID,
        &mut Test::ALL
            .iter()
            .map(|t| (t.name().to_string(), t.title().to_string())),
        set.test.name(),
    );
    s.push_str("</label>");
    correction_alpha_ci(&mut s, set, "means");
    let _ = write!(
        s,
        r#"<p class="muted small">▲ / ▼ beside a value in the table: the model's mean is higher / lower than the baseline's, with the {}'s {} p below α = {} (two-sided, paired over the {units} both models have; hover a value for its p). Intervals of the means: percentile bootstrap ({} resamples, seed {}) up to {} {units}, Student's t beyond. The tests run in a background worker.</p>"#,
        set.test.title(),
        super::adjustment(set.correction),
        set.alpha,
        super::settings::CI_RESAMPLES,
        set.seed,
        super::settings::CI_BOOTSTRAP_UNITS,
        units = plural(&req.unit)
    );
    let (model, metric) = focus;
    s.push_str(r#"<p class="compare-pick"><label>Model "#);
    options(
        &mut s,
        MODEL_ID,
        &mut req
            .models
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != req.baseline)
            .map(|(_, m)| (m.name.clone(), m.name.clone())),
        &req.models[model].name,
    );
    s.push_str("</label> <label>against the baseline ");
    options(
        &mut s,
        BASELINE_ID,
        &mut req.models.iter().map(|m| (m.name.clone(), m.name.clone())),
        &req.models[req.baseline].name,
    );
    s.push_str("</label> <label>on ");
    options(
        &mut s,
        METRIC_ID,
        &mut req.metrics.iter().map(|m| (m.clone(), m.clone())),
        &req.metrics[metric],
    );
    s.push_str("</label></p>");
    s
}

/// The Compare card of binary models: each model's ROC AUC against the
/// baseline's by DeLong's test on the same rows (`comparisons`, from
/// [`super::compare_auc`]; `focus` the one explained), its controls
/// (correction, α, intervals, model and baseline among `names`) and what
/// the numbers mean on these values. Data attributes on
/// `div.compare-panel` and each row, for scripts and tests.
pub fn auc_panel(
    comparisons: &[super::AucComparison],
    focus: usize,
    names: &[&str],
    set: &Settings,
) -> String {
    let Some(c) = comparisons.get(focus) else {
        return String::new();
    };
    let mut s = String::from(
        r#"<section class="card compare" id="compare"><h2>Compare</h2><div class="compare-settings">"#,
    );
    correction_alpha_ci(&mut s, set, "AUCs");
    let _ = write!(
        s,
        r#"<p class="muted small">▲ / ▼ beside a ROC AUC in the table: the model's AUC is higher / lower than the baseline's, with DeLong's test (two-sided, on the same rows) {} p below α = {}; hover a value for its p. Intervals: DeLong's, AUC ± 1.96 √var (pROC's). The other columns are not tested: a threshold metric or AP is one number per model, with no rows to pair as AUC's placements are. The test runs in a background worker.</p>"#,
        super::adjustment(set.correction),
        set.alpha
    );
    s.push_str(r#"<p class="compare-pick"><label>Model "#);
    options(
        &mut s,
        MODEL_ID,
        &mut comparisons
            .iter()
            .map(|c| (c.model.clone(), c.model.clone())),
        &c.model,
    );
    s.push_str("</label> <label>against the baseline ");
    options(
        &mut s,
        BASELINE_ID,
        &mut names.iter().map(|n| (n.to_string(), n.to_string())),
        &c.baseline,
    );
    s.push_str("</label> on ROC AUC</p>");
    let d = &c.delong;
    let (model, base) = (esc(&c.model), esc(&c.baseline));
    let _ = write!(
        s,
        r#"<div class="compare-panel" data-model="{model}" data-baseline="{base}" data-metric="{}" data-auc-a="{}" data-auc-b="{}" data-z="{}" data-p="{}" data-p-adjusted="{}"><h3>{model} against {base} on ROC AUC, DeLong's test</h3>"#,
        crate::core::registry::DELONG,
        d.auc_a,
        d.auc_b,
        d.z,
        d.p,
        c.adjusted
    );
    let corrected = comparisons.len() > 1 && set.correction != Correction::None;
    let _ = write!(
        s,
        r#"<div class="table-scroll"><table class="tests"><caption>ROC AUC on the same rows, two-sided, α = {}</caption><thead><tr><th scope="col">model</th><th scope="col">AUC</th><th scope="col">95% CI (DeLong)</th><th scope="col">Δ AUC</th><th scope="col">z</th><th scope="col">p</th><th scope="col">{}</th></tr></thead><tbody>"#,
        set.alpha,
        if corrected {
            format!(
                "p adjusted ({}, {} models)",
                correction_title(set.correction),
                comparisons.len()
            )
        } else {
            "p adjusted (one comparison)".into()
        }
    );
    let _ = write!(
        s,
        r#"<tr data-auc-model="{base}"><th scope="row">{base} (baseline)</th><td class="num">{}</td><td class="num">[{}, {}]</td><td></td><td></td><td></td><td></td></tr>"#,
        f4(d.auc_a),
        f4(d.ci_a.0),
        f4(d.ci_a.1)
    );
    for x in comparisons {
        let e = &x.delong;
        let _ = write!(
            s,
            r#"<tr data-auc-model="{}" data-p="{}" data-p-adjusted="{}"{}><th scope="row">{}</th><td class="num">{}</td><td class="num">[{}, {}]</td><td class="num">{}</td><td class="num">{:.3}</td><td class="num">{}</td><td class="num{}">{}</td></tr>"#,
            esc(&x.model),
            e.p,
            x.adjusted,
            if x.model == c.model {
                r#" class="chosen""#
            } else {
                ""
            },
            esc(&x.model),
            f4(e.auc_b),
            f4(e.ci_b.0),
            f4(e.ci_b.1),
            signed(e.auc_b - e.auc_a),
            e.z,
            format_p(e.p),
            if x.adjusted < set.alpha {
                " significant"
            } else {
                ""
            },
            format_p(x.adjusted)
        );
    }
    s.push_str("</tbody></table></div>");
    let se = (d.var_a + d.var_b - 2.0 * d.cov).max(0.0).sqrt();
    let _ = write!(
        s,
        r#"<div class="test-notes"><h4>What these numbers say</h4><p><strong>ROC AUC</strong> is the chance that a positive row, drawn at random, scores above a negative one (a tie counts half): {model} {}, {base} {}.</p><p><strong>DeLong's test.</strong> Each positive row's share of negatives it outscores, and each negative row's share of positives that outscore it, are the AUC's parts; their spread gives each AUC's variance and, because both models score the same rows, their covariance: var({base}) = {:.3e}, var({model}) = {:.3e}, cov = {:.3e}. Then {}, and p = 2(1 − Φ(|z|)) = {}: the chance of a difference at least this far from 0 if the two models ranked these rows equally well.</p><p><strong>95% interval of an AUC.</strong> {}: intervals made this way hold the model's true AUC for 95 of 100 samples of rows like these.</p></div></div></section>"#,
        f4(d.auc_b),
        f4(d.auc_a),
        d.var_a,
        d.var_b,
        d.cov,
        math(&format!(
            r"z = \frac{{\mathrm{{AUC}}_{{B}} - \mathrm{{AUC}}_{{A}}}}{{\sqrt{{V_A + V_B - 2C}}}} = \frac{{{:.4}}}{{{:.4}}} = {:.3}",
            d.auc_b - d.auc_a,
            se,
            d.z
        )),
        format_p(d.p),
        math(&format!(
            r"\mathrm{{AUC}} \pm 1.96 \sqrt{{V}} = {:.4} \pm 1.96 \cdot {:.4} = [{:.4}, {:.4}]",
            d.auc_b,
            d.var_b.sqrt(),
            d.ci_b.0,
            d.ci_b.1
        ))
    );
    s
}

/// The panel: a `<div class="compare-panel">` with data attributes for
/// scripts and tests.
pub fn panel(f: &Focus) -> String {
    let c = f.comparison;
    let q = &c.paired;
    let (model, base, metric) = (esc(&c.model), esc(&c.baseline), esc(&c.metric));
    let unit = esc(f.unit);
    let units = if q.n == 1 {
        unit.clone()
    } else {
        plural(&unit)
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<div class="compare-panel" data-model="{model}" data-baseline="{base}" data-metric="{metric}" data-n="{}" data-mean-diff="{}" data-wins="{}" data-losses="{}" data-ties="{}">"#,
        q.n, q.mean_diff, q.wins, q.losses, q.ties
    );
    let _ = write!(s, "<h3>{model} against {base} on {metric}, per {unit}</h3>");
    if q.n == 0 {
        let _ = write!(
            s,
            "<p>No {unit} has a defined value for both models: nothing to pair.</p></div>"
        );
        return s;
    }
    let ci = c
        .t_test
        .as_ref()
        .map(|t| format!(", 95% CI [{}, {}] (t)", signed(t.ci_low), signed(t.ci_high)))
        .unwrap_or_default();
    let _ = write!(
        s,
        r#"<p class="summary">{n} {units} both models have. Mean of {metric}: {model} {mb}, {base} {ma}; Δ = {model} − {base} = <strong>{d}</strong>{ci}. {model} is higher on <span class="good">{w}</span>, lower on <span class="bad">{l}</span>, equal on {t}.</p>"#,
        n = q.n,
        mb = f4(q.mean_b),
        ma = f4(q.mean_a),
        d = signed(q.mean_diff),
        w = q.wins,
        l = q.losses,
        t = q.ties,
    );
    let d: Vec<f64> = f.a.iter().zip(f.b).map(|(a, b)| b - a).collect();
    // the units by difference, ascending (ties by id descending): the bars
    // left to right, the largest losses from the front, the gains from the back
    let mut order: Vec<usize> = (0..d.len()).collect();
    order.sort_by(|&i, &j| d[i].total_cmp(&d[j]).then(f.ids[j].cmp(f.ids[i])));
    s.push_str(r#"<div class="compare-charts">"#);
    differences(&mut s, &d, &order, f.ids, &model, &base, &unit);
    scatter(&mut s, f.a, f.b, f.ids, &model, &base, &unit);
    distribution(
        &mut s,
        &[
            Spread {
                name: &base,
                attributes: r#"class="base""#.into(),
                values: f.a,
            },
            Spread {
                name: &model,
                attributes: r#"class="model""#.into(),
                values: f.b,
            },
        ],
        &metric,
        &unit,
        &format!("{base} grey, {model} coloured"),
    );
    s.push_str("</div>");
    extremes(&mut s, &d, &order, f, &model, &base, &unit);
    tests(&mut s, f, &model, &base);
    explanations(&mut s, f, &model, &base, &unit);
    s.push_str("</div>");
    s
}

/// The y of `v` on a scale from `lo` (at `bottom`) to `hi` (at `top`).
fn scale(v: f64, lo: f64, hi: f64, top: f64, bottom: f64) -> f64 {
    bottom - (v - lo) / (hi - lo) * (bottom - top)
}

/// Sorted differences: a bar per unit (green above 0, red below), or the
/// sorted curve filled to 0 when there are too many to draw one by one.
fn differences(
    s: &mut String,
    d: &[f64],
    order: &[usize],
    ids: &[&str],
    model: &str,
    base: &str,
    unit: &str,
) {
    let (w, h, left, top, bottom) = (420.0, 200.0, 52.0, 10.0, 180.0);
    let lo = d.iter().copied().fold(0.0, f64::min);
    let hi = d.iter().copied().fold(0.0, f64::max);
    let (lo, hi) = if hi - lo > 0.0 { (lo, hi) } else { (-1.0, 1.0) };
    let y = |v: f64| scale(v, lo, hi, top, bottom);
    let zero = y(0.0);
    let width = w - left - 4.0;
    let _ = write!(
        s,
        r#"<figure class="diffs"><svg viewBox="0 0 {w} {h}" role="img" aria-label="{model} − {base} per {unit}, sorted"><line class="axis" x1="{left}" x2="{x2}" y1="{zero:.1}" y2="{zero:.1}"/>"#,
        x2 = w - 4.0
    );
    for (v, anchor) in [(hi, "hi"), (0.0, "zero"), (lo, "lo")] {
        if anchor != "zero" && v == 0.0 {
            continue;
        }
        let _ = write!(
            s,
            r#"<text class="tick" x="{x}" y="{y:.1}" text-anchor="end">{v}</text>"#,
            x = left - 4.0,
            y = y(v) + 4.0,
            v = if v == 0.0 { "0".to_string() } else { signed(v) }
        );
    }
    let n = d.len();
    if n <= BARS {
        let bar = width / n as f64;
        for (k, &i) in order.iter().enumerate() {
            let v = d[i];
            let (y0, y1) = if v >= 0.0 { (y(v), zero) } else { (zero, y(v)) };
            let class = if v > 0.0 {
                "win"
            } else if v < 0.0 {
                "loss"
            } else {
                "tie"
            };
            let _ = write!(
                s,
                r#"<rect class="{class}" x="{x:.2}" y="{y0:.2}" width="{bw:.2}" height="{hh:.2}"><title>{id}: {v}</title></rect>"#,
                x = left + k as f64 * bar,
                bw = (bar - if bar > 3.0 { 1.0 } else { 0.0 }).max(0.5),
                hh = (y1 - y0).max(0.5),
                id = esc(ids[i]),
                v = signed(v)
            );
        }
    } else {
        // the sorted curve is monotone: one point per pixel column shows it
        let columns = (width as usize).min(n);
        let mut points = String::new();
        for c in 0..=columns {
            let k = ((c * (n - 1)) as f64 / columns as f64).round() as usize;
            let _ = write!(
                points,
                "{:.1},{:.1} ",
                left + c as f64 * width / columns as f64,
                y(d[order[k]])
            );
        }
        let _ = write!(
            s,
            r#"<polygon class="spread" points="{left},{zero:.1} {points}{x2},{zero:.1}"/>"#,
            x2 = left + width
        );
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{left}" y="{h}">{units} sorted by {model} − {base}</text></svg><figcaption>{model} − {base} per {unit}: above 0 {model} is higher</figcaption></figure>"#,
        h = h - 4.0,
        units = plural(unit)
    );
}

/// Each unit as a dot at (baseline, model), the diagonal where they are equal.
fn scatter(
    s: &mut String,
    a: &[f64],
    b: &[f64],
    ids: &[&str],
    model: &str,
    base: &str,
    unit: &str,
) {
    let (size, pad) = (200.0, 42.0);
    let lo = a.iter().chain(b).copied().fold(f64::INFINITY, f64::min);
    let hi = a.iter().chain(b).copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, lo + 0.5)
    };
    let x = |v: f64| pad + (v - lo) / (hi - lo) * (size - pad - 6.0);
    let y = |v: f64| scale(v, lo, hi, 6.0, size - pad);
    let _ = write!(
        s,
        r#"<figure class="scatter"><svg viewBox="0 0 {size} {size}" role="img" aria-label="{model} against {base} per {unit}"><line class="diagonal" x1="{x0:.1}" y1="{y0:.1}" x2="{x1:.1}" y2="{y1:.1}"/><text class="tick" x="{x0:.1}" y="{ty}">{lo}</text><text class="tick" x="{x1:.1}" y="{ty}" text-anchor="end">{hi}</text><text class="tick" x="{tx}" y="{yhi:.1}" text-anchor="end">{hi}</text>"#,
        x0 = x(lo),
        y0 = y(lo),
        x1 = x(hi),
        y1 = y(hi),
        ty = size - pad + 14.0,
        tx = pad - 3.0,
        yhi = y(hi) + 8.0,
        lo = f4(lo),
        hi = f4(hi),
    );
    if a.len() <= DOTS {
        for i in 0..a.len() {
            let class = if b[i] > a[i] {
                "win"
            } else if b[i] < a[i] {
                "loss"
            } else {
                "tie"
            };
            let _ = write!(
                s,
                r#"<circle class="{class}" cx="{:.1}" cy="{:.1}" r="2.5"><title>{}: {base} {}, {model} {}</title></circle>"#,
                x(a[i]),
                y(b[i]),
                esc(ids[i]),
                f4(a[i]),
                f4(b[i])
            );
        }
    } else {
        // counted on a 40 × 40 grid, each cell as dark as the square root of its share
        const G: usize = 40;
        let mut counts = vec![0u32; G * G];
        let cell = |v: f64| (((v - lo) / (hi - lo) * G as f64) as usize).min(G - 1);
        for i in 0..a.len() {
            counts[cell(b[i]) * G + cell(a[i])] += 1;
        }
        let most = *counts.iter().max().unwrap_or(&1) as f64;
        let side = (size - pad - 6.0) / G as f64;
        for (k, &count) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            let (row, col) = (k / G, k % G);
            let _ = write!(
                s,
                r#"<rect class="density" x="{:.1}" y="{:.1}" width="{side:.2}" height="{side:.2}" fill-opacity="{:.2}"><title>{count}</title></rect>"#,
                pad + col as f64 * side,
                size - pad - (row + 1) as f64 * side,
                0.15 + 0.85 * (count as f64 / most).sqrt()
            );
        }
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{mid}" y="{yb}" text-anchor="middle">{base}</text><text class="tick" x="10" y="{mid}" transform="rotate(-90 10 {mid})" text-anchor="middle">{model}</text></svg><figcaption>each {unit}: {base} across, {model} up; above the diagonal {model} is higher</figcaption></figure>"#,
        mid = size / 2.0,
        yb = size - 4.0
    );
}

/// How many units fall in each of [`HISTOGRAM_BINS`] equal bins from `lo`
/// to `hi` (the last bin closed, as numpy's `histogram`).
fn histogram(values: &[f64], lo: f64, hi: f64) -> [u32; HISTOGRAM_BINS] {
    let mut counts = [0; HISTOGRAM_BINS];
    for &v in values {
        let at = if hi > lo {
            ((v - lo) / (hi - lo) * HISTOGRAM_BINS as f64) as usize
        } else {
            0
        };
        counts[at.min(HISTOGRAM_BINS - 1)] += 1;
    }
    counts
}

/// One series of [`distribution`]: its name, the attributes of its outline
/// and mean line (a class, or a stroke colour), its values.
pub struct Spread<'a> {
    pub name: &'a str,
    pub attributes: String,
    pub values: &'a [f64],
}

/// The distribution of each series' values: a histogram outline per series
/// on shared bins, each mean a dashed line (`data-counts` on each outline,
/// for scripts and tests); `caption` follows the metric and unit. Names are
/// escaped by the caller.
pub fn distribution(s: &mut String, series: &[Spread], metric: &str, unit: &str, caption: &str) {
    let (w, h, left, top, bottom) = (240.0, 200.0, 30.0, 10.0, 170.0);
    let all = || series.iter().flat_map(|x| x.values.iter().copied());
    let lo = all().fold(f64::INFINITY, f64::min);
    let hi = all().fold(f64::NEG_INFINITY, f64::max);
    let counts: Vec<[u32; HISTOGRAM_BINS]> =
        series.iter().map(|x| histogram(x.values, lo, hi)).collect();
    let most = counts.iter().flatten().copied().max().unwrap_or(1).max(1) as f64;
    let width = w - left - 6.0;
    let x = |v: f64| {
        if hi > lo {
            left + (v - lo) / (hi - lo) * width
        } else {
            left + width / 2.0
        }
    };
    let y = |c: f64| scale(c, 0.0, most, top, bottom);
    let _ = write!(
        s,
        r#"<figure class="distribution" data-lo="{lo}" data-hi="{hi}" data-bins="{HISTOGRAM_BINS}"><svg viewBox="0 0 {w} {h}" role="img" aria-label="distribution of {metric} per {unit}"><line class="axis" x1="{left}" x2="{x2}" y1="{bottom}" y2="{bottom}"/><text class="tick" x="{tx}" y="{ty:.1}" text-anchor="end">{most}</text><text class="tick" x="{tx}" y="{bottom}" text-anchor="end">0</text><text class="tick" x="{left}" y="{lb}">{flo}</text><text class="tick" x="{x2}" y="{lb}" text-anchor="end">{fhi}</text>"#,
        x2 = left + width,
        tx = left - 3.0,
        ty = top + 8.0,
        lb = bottom + 13.0,
        flo = f4(lo),
        fhi = f4(hi),
    );
    let bin = width / HISTOGRAM_BINS as f64;
    // a series without values (a file without the measure) draws nothing
    for (x_, counts) in series
        .iter()
        .zip(&counts)
        .filter(|(x, _)| !x.values.is_empty())
    {
        let mut d = format!("M{left:.1},{bottom:.1}");
        for (k, &c) in counts.iter().enumerate() {
            let _ = write!(
                d,
                " V{:.1} H{:.1}",
                y(c as f64),
                left + (k + 1) as f64 * bin
            );
        }
        let _ = write!(d, " V{bottom:.1}");
        let list: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        let mean = crate::core::sum::mean(x_.values.iter().copied()).unwrap_or(f64::NAN);
        let _ = write!(
            s,
            r#"<path {attrs} d="{d}" data-counts="{}"><title>{name}: {units} per bin</title></path><line {attrs} x1="{mx:.1}" x2="{mx:.1}" y1="{top}" y2="{bottom}" stroke-dasharray="3 3"><title>{name}: mean {}</title></line>"#,
            list.join(" "),
            f4(mean),
            attrs = x_.attributes,
            name = x_.name,
            units = plural(unit),
            mx = x(mean),
        );
    }
    let _ = write!(
        s,
        r#"</svg><figcaption>{metric} per {unit}: how many {units} have each value ({caption}; dashed: the means)</figcaption></figure>"#,
        units = plural(unit)
    );
}

/// The units where the model gains and loses most, each a row the page
/// opens in the drill-down (`data-query`).
fn extremes(
    s: &mut String,
    d: &[f64],
    order: &[usize],
    f: &Focus,
    model: &str,
    base: &str,
    unit: &str,
) {
    let metric = esc(&f.comparison.metric);
    let gains: Vec<usize> = order
        .iter()
        .rev()
        .copied()
        .take_while(|&i| d[i] > 0.0)
        .take(EXTREMES)
        .collect();
    let losses: Vec<usize> = order
        .iter()
        .copied()
        .take_while(|&i| d[i] < 0.0)
        .take(EXTREMES)
        .collect();
    s.push_str(r#"<div class="extremes">"#);
    for (title, rows) in [("Largest gains", gains), ("Largest losses", losses)] {
        let _ = write!(
            s,
            r#"<div class="table-scroll"><table class="extreme"><caption>{title} of {model}</caption><thead><tr><th scope="col">{unit}</th><th scope="col">{base}</th><th scope="col">{model}</th><th scope="col">Δ</th></tr></thead><tbody>"#
        );
        if rows.is_empty() {
            s.push_str(r#"<tr><td colspan="4" class="muted">none</td></tr>"#);
        }
        for i in rows {
            let id = esc(f.ids[i]);
            let _ = write!(
                s,
                r#"<tr class="pick" data-query="{id}" data-model="{model}" data-metric="{metric}" tabindex="0" title="show how {model}'s value for {id} is computed"><td>{id}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                f4(f.a[i]),
                f4(f.b[i]),
                signed(d[i])
            );
        }
        s.push_str("</tbody></table></div>");
    }
    s.push_str("</div>");
}

/// Every test's statistic, p-value and adjusted p-value.
fn tests(s: &mut String, f: &Focus, model: &str, base: &str) {
    let c = f.comparison;
    let set = f.settings;
    let corrected = f.group > 1 && set.correction != Correction::None;
    let adjusted_head = if corrected {
        format!(
            "p adjusted ({}, {} models)",
            correction_title(set.correction),
            f.group
        )
    } else {
        "p adjusted (one comparison)".into()
    };
    let _ = write!(
        s,
        r#"<div class="table-scroll"><table class="tests"><caption>{model} against {base}: two-sided tests, α = {alpha}</caption><thead><tr><th scope="col">test</th><th scope="col">statistic</th><th scope="col">p</th><th scope="col">{adjusted_head}</th><th scope="col">how p is found</th></tr></thead><tbody>"#,
        alpha = set.alpha
    );
    for (i, &test) in Test::ALL.iter().enumerate() {
        let (statistic, how) = match test {
            Test::T => match &c.t_test {
                Some(t) => (
                    format!("t = {:.3}, d_z = {:.3}", t.t, t.effect_size),
                    format!("Student's t with {} df", t.df),
                ),
                None => (
                    "—".into(),
                    "undefined: the differences have no spread".into(),
                ),
            },
            Test::Wilcoxon => match &c.wilcoxon {
                Some(w) => (
                    format!("W = {}", w.statistic),
                    match w.method {
                        WilcoxonMethod::Exact => "exact distribution of W".into(),
                        WilcoxonMethod::Permutation => "every sign flip (zeros or ties)".into(),
                        WilcoxonMethod::Normal => "normal approximation, tie-corrected".into(),
                    },
                ),
                None => ("—".into(), "undefined: every difference is 0".into()),
            },
            Test::Sign => (
                format!("{} wins, {} losses", c.paired.wins, c.paired.losses),
                "exact binomial, ties dropped".into(),
            ),
            Test::McNemar => match c.mcnemar {
                Some(_) => (
                    format!(
                        "{} hits only by the model, {} only by the baseline",
                        c.paired.wins, c.paired.losses
                    ),
                    "exact binomial on the discordant units".into(),
                ),
                None => ("—".into(), "only for hits (values 0 or 1)".into()),
            },
            Test::Tukey => match &c.tukey {
                Some(r) => (
                    format!("± {:.4} (Monte Carlo SE)", r.standard_error),
                    format!(
                        "range of {} models' means, {} shuffles of each unit's values among them, seed {}; family-wise over every pair",
                        f.group + 1,
                        r.resamples,
                        r.seed
                    ),
                ),
                None => ("—".into(), "not run: too many draws for the page (the CLI runs it)".into()),
            },
            Test::Randomization | Test::Bootstrap => {
                let r = if test == Test::Randomization {
                    &c.randomization
                } else {
                    &c.bootstrap
                };
                match r {
                    Some(r) if r.exact => ("—".into(), format!("all {} sign flips", r.resamples)),
                    Some(r) => (
                        format!("± {:.4} (Monte Carlo SE)", r.standard_error),
                        format!(
                            "{} {}, seed {}",
                            r.resamples,
                            if test == Test::Randomization {
                                "random sign flips"
                            } else {
                                "resamples"
                            },
                            r.seed
                        ),
                    ),
                    None => ("—".into(), "undefined".into()),
                }
            }
        };
        let p = c.p(test);
        let adjusted = c.adjusted[i];
        let marked = adjusted.is_some_and(|p| p < set.alpha);
        let _ = write!(
            s,
            r#"<tr data-test="{name}" data-p="{p_attr}" data-p-adjusted="{adj_attr}"{chosen}><th scope="row">{title}</th><td>{statistic}</td><td class="num">{p}</td><td class="num{sig}">{adj}</td><td class="muted">{how}</td></tr>"#,
            name = test.name(),
            p_attr = p.map(|v| v.to_string()).unwrap_or_default(),
            adj_attr = adjusted.map(|v| v.to_string()).unwrap_or_default(),
            chosen = if test == set.test {
                r#" class="chosen""#
            } else {
                ""
            },
            title = test.title(),
            p = p.map_or("—".into(), format_p),
            adj = adjusted.map_or_else(
                || {
                    if matches!(test, Test::Randomization | Test::Bootstrap) && !f.resampled_group {
                        "— (for every model only as the table's test)".to_string()
                    } else {
                        "—".to_string()
                    }
                },
                format_p
            ),
            sig = if marked { " significant" } else { "" },
        );
    }
    s.push_str("</tbody></table></div>");
}

/// What the numbers mean, on these values.
fn explanations(s: &mut String, f: &Focus, model: &str, base: &str, unit: &str) {
    let c = f.comparison;
    let q = &c.paired;
    let n = q.n as f64;
    let units = plural(unit);
    s.push_str(r#"<div class="test-notes"><h4>What these numbers say</h4>"#);
    let _ = write!(
        s,
        "<p>Each p-value answers one question: <em>if {model} and {base} were equally good on {units} like these, how often would chance alone give a difference at least this far from 0 (either way)?</em> A small p says chance is an unlikely explanation; it is not the probability that the models are equal, and it says nothing of how large the difference is: Δ and its interval do.</p>"
    );
    if let Some(t) = &c.t_test {
        let se = q.sd_diff / n.sqrt();
        let quantile = (t.ci_high - q.mean_diff) / se;
        let _ = write!(
            s,
            "<p><strong>t-test.</strong> {} The chance of a t at least this large with {} degrees of freedom is p = {}.</p>",
            math(&format!(
                r"t = \frac{{\bar{{d}}}}{{s_d / \sqrt{{n}}}} = \frac{{{:.4}}}{{{:.4} / \sqrt{{{}}}}} = {:.3}",
                q.mean_diff, q.sd_diff, q.n, t.t
            )),
            t.df,
            format_p(t.p)
        );
        let verdict = if t.ci_low > 0.0 || t.ci_high < 0.0 {
            "It leaves out 0: at the 5% level the difference is not chance, the same verdict as the t-test's p < 0.05."
        } else {
            "It holds 0: the data are consistent with no difference at all."
        };
        let _ = write!(
            s,
            "<p><strong>95% interval of Δ.</strong> {} = [{}, {}]. Intervals made this way hold the true mean difference for 95 of 100 samples of {units}. {verdict}</p>",
            math(&format!(
                r"\bar{{d}} \pm t_{{0.975}} \cdot \frac{{s_d}}{{\sqrt{{n}}}} = {:.4} \pm {:.3} \cdot {:.4}",
                q.mean_diff, quantile, se
            )),
            signed(t.ci_low),
            signed(t.ci_high)
        );
        let _ = write!(
            s,
            "<p><strong>Effect size.</strong> {}: the mean difference in units of the differences' spread (about 0.2 is small, 0.5 medium, 0.8 large, by Cohen's rule of thumb).</p>",
            math(&format!(r"d_z = \bar{{d}} / s_d = {:.3}", t.effect_size))
        );
    }
    if let Some(w) = &c.wilcoxon {
        let _ = write!(
            s,
            "<p><strong>Wilcoxon.</strong> The {} nonzero differences ranked by size; W = {} is the smaller of the rank sums of the gains and of the losses. It asks whether gains outweigh losses by rank, so a few large differences weigh less than in the t-test; p = {}.</p>",
            q.wins + q.losses,
            w.statistic,
            format_p(w.p)
        );
    }
    if let Some(p) = c.sign_test {
        let _ = write!(
            s,
            "<p><strong>Sign test.</strong> Only who wins counts: {} wins against {} losses, ties left out. p = {} is the chance of a split at least this lopsided in {} tosses of a fair coin.</p>",
            q.wins,
            q.losses,
            format_p(p),
            q.wins + q.losses
        );
    }
    if let Some(p) = c.mcnemar {
        let _ = write!(
            s,
            "<p><strong>McNemar.</strong> Each {unit} is a hit (1) or a miss (0) for both: only the {} the two disagree on count, {} hit by the model alone and {} by the baseline alone. p = {} is the chance of a split at least this lopsided if either were as likely (the exact test; on hits it is the sign test).</p>",
            q.wins + q.losses,
            q.wins,
            q.losses,
            format_p(p),
            unit = f.unit
        );
    }
    if let Some(r) = &c.randomization {
        let how = if r.exact {
            format!("all {} ways", r.resamples)
        } else {
            format!("{} random ways (seed {})", r.resamples, r.seed)
        };
        let _ = write!(
            s,
            "<p><strong>Randomization.</strong> If the two models were interchangeable, each {unit}'s two values could as well be swapped, flipping the sign of its difference. Flipped {how}, the mean difference was at least |{}| in a share p = {} of them{}.</p>",
            signed(q.mean_diff),
            format_p(r.p),
            if r.exact { String::new() } else { format!(" (± {:.4} from the sampling)", r.standard_error) }
        );
    }
    if let Some(r) = &c.bootstrap {
        let _ = write!(
            s,
            "<p><strong>Bootstrap.</strong> The differences shifted to mean 0 (a world with no difference) and resampled with replacement {} times (seed {}): the share with a t at least as large as the observed is p = {}.</p>",
            r.resamples,
            r.seed,
            format_p(r.p)
        );
    }
    if f.group > 1 && f.settings.correction != Correction::None {
        let _ = write!(
            s,
            "<p><strong>Adjusted p.</strong> {} models are compared with {base} on this metric; testing each at α = {} would find a false difference more often than α. The adjusted p-values ({}) hold the whole family to α; the table marks a value when its adjusted p is below α.</p>",
            f.group,
            f.settings.alpha,
            match f.settings.correction {
                Correction::Holm => "Holm's step-down",
                Correction::Bonferroni => "Bonferroni",
                _ => "Benjamini–Hochberg, which holds the share of false discoveries instead",
            }
        );
    }
    s.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Options;

    fn focus_html(a: &[f64], b: &[f64], ids: &[&str]) -> String {
        let c = Comparison::new("ndcg@10", "b<x>", "a&b", a, b, &Options::default());
        panel(&Focus {
            comparison: &c,
            group: 1,
            a,
            b,
            ids,
            unit: "query",
            settings: &Settings::default(),
            resampled_group: true,
        })
    }

    #[test]
    fn names_and_ids_are_escaped_and_counts_shown() {
        let a = [0.1, 0.5, 0.5, 0.9];
        let b = [0.3, 0.4, 0.5, 1.0];
        let html = focus_html(&a, &b, &["q\"1", "<q2>", "q3", "q4"]);
        assert!(html.contains("b&lt;x&gt; against a&amp;b on ndcg@10"));
        assert!(html.contains("data-query=\"q&quot;1\""));
        assert!(html.contains("&lt;q2&gt;"));
        assert!(!html.contains("<q2>") && !html.contains("<x>"));
        assert!(html.contains(r#"data-wins="2" data-losses="1" data-ties="1""#));
        // one bar per query, one dot per query
        assert_eq!(html.matches("<rect class=").count(), 4);
        // each model's values counted on shared bins from 0.1 to 1.0
        assert!(html.contains(r#"data-lo="0.1" data-hi="1" data-bins="20""#));
        let counts = |class: &str| -> Vec<u32> {
            let at = html.find(&format!(r#"<path class="{class}""#)).unwrap();
            let tail = &html[at..];
            let from = tail.find("data-counts=\"").unwrap() + 13;
            let to = from + tail[from..].find('"').unwrap();
            tail[from..to]
                .split(' ')
                .map(|c| c.parse().unwrap())
                .collect()
        };
        let (base, model) = (counts("base"), counts("model"));
        assert_eq!(base.len(), HISTOGRAM_BINS);
        // a: 0.1 in bin 0, 0.5 twice in bin 8 (0.4 / 0.9 * 20 = 8.9), 0.9 in bin 17
        let at = |c: &[u32], k: usize| c[k];
        assert_eq!((at(&base, 0), at(&base, 8), at(&base, 17)), (1, 2, 1));
        assert_eq!(base.iter().sum::<u32>(), 4);
        // b: 0.3 in bin 4, 0.4 in bin 6, 0.5 in bin 8, 1.0 in the closed last bin
        assert_eq!(
            (at(&model, 4), at(&model, 6), at(&model, 8), at(&model, 19)),
            (1, 1, 1, 1)
        );
        assert_eq!(html.matches("<circle").count(), 4);
        // every test has a row, the gains listed largest first
        assert_eq!(html.matches("<tr data-test=").count(), Test::ALL.len());
        let gains = html.find("Largest gains").unwrap();
        let q1 = html[gains..].find("data-query=\"q&quot;1\"").unwrap();
        let q4 = html[gains..].find("data-query=\"q4\"").unwrap();
        assert!(q1 < q4);
    }

    #[test]
    fn many_units_are_drawn_as_an_outline_and_a_grid() {
        let a: Vec<f64> = (0..5000).map(|i| (i % 97) as f64 / 97.0).collect();
        let b: Vec<f64> = (0..5000).map(|i| (i % 89) as f64 / 89.0).collect();
        let ids: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let html = focus_html(&a, &b, &ids);
        assert_eq!(html.matches("<polygon").count(), 1);
        assert!(!html.contains("<circle"));
        assert!(html.matches(r#"class="density""#).count() > 100);
        assert!(html.len() < 400_000, "{}", html.len());
    }

    #[test]
    fn the_formulas_typeset() {
        let a = [0.1, 0.5, 0.2, 0.9, 0.3];
        let b = [0.3, 0.4, 0.5, 1.0, 0.6];
        let html = focus_html(&a, &b, &["1", "2", "3", "4", "5"]);
        assert_eq!(html.matches("<math").count(), 3, "t, the interval, d_z");
        assert!(!html.contains("\\frac"));
    }
}
