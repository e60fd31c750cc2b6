//! Models against a baseline, unit by unit: the paired tests of
//! [`crate::core::stats`] on every per-unit metric of a [`Report`], with the
//! p-values corrected across the compared models. What `rankscope compare`
//! prints; [`page`] is the same for the page's worker (the marks of the
//! metric table and the Compare view, drawn by [`html`]).

pub mod binary;
pub mod html;
pub mod page;
pub mod rows;
pub mod settings;

use crate::core::evaluate::{BinaryData, Report};
use crate::core::registry::{self, Kind, MetricId};
use crate::core::stats::{self, Correction, DeLong, Paired, Resampled, TTest, Wilcoxon};
use crate::core::Named;
use crate::report::aligned;

/// The knobs of a comparison.
#[derive(Clone, Debug)]
pub struct Options {
    /// The model the others are compared with (default: the first).
    pub baseline: Option<String>,
    /// Random sign flips of the randomization test (when there are too many
    /// units to enumerate every one).
    pub resamples: u64,
    /// Resamples of the paired bootstrap test (Sakai's 1,000).
    pub bootstraps: u64,
    pub seed: u64,
    pub correction: Correction,
    /// The test whose adjusted p marks a model (▲ / ▼) in the tables, and
    /// the level it must fall below.
    pub test: Test,
    pub alpha: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            baseline: None,
            resamples: 10_000,
            bootstraps: 1_000,
            seed: 42,
            correction: Correction::Holm,
            test: Test::T,
            alpha: 0.05,
        }
    }
}

/// What `rankscope compare` (and Python's `compare`) tests when no metric
/// is named, per kind: ranking, the page table's default columns at `ks`
/// (the table's 5, 10 and 20 when `None`); binary, ROC AUC (DeLong's test)
/// and average precision (its bootstrap interval); multi-class, Acc@1
/// (McNemar's exact test on its hits) and MRR (each row's reciprocal rank);
/// ratings, MAE and MSE (each row's absolute and squared error).
pub fn default_metrics(kind: Kind, ks: Option<&[usize]>) -> Vec<MetricId> {
    use crate::core::registry::id;
    let ids = |ids: &[(&'static str, Option<usize>)]| {
        ids.iter().map(|&(b, k)| MetricId::new(b, k)).collect()
    };
    match kind {
        Kind::Ranking => {
            let shown: Vec<(Kind, &str)> = (crate::session::DEFAULT_METRICS.iter())
                .filter_map(|m| m.split_once('.'))
                .filter_map(|(k, base)| Some((Kind::named(k)?, base)))
                .collect();
            let table = crate::session::ViewState::default().k;
            registry::table_columns(kind, &shown, ks.unwrap_or(&table))
        }
        Kind::Binary => ids(&[(id::ROC_AUC, None), (id::AVERAGE_PRECISION, None)]),
        Kind::Multiclass => ids(&[(id::ACC, Some(1)), (id::MRR, None)]),
        Kind::Ratings => ids(&[(id::MAE, None), (id::MSE, None)]),
    }
}

/// The columns of `report` that every model has per-unit values of: what a
/// comparison of values computed elsewhere (per-query files, trec_eval's
/// `-q` output) tests when no metric is named (their counts and `all`-only
/// lines have nothing to pair).
pub fn paired_columns(report: &Report) -> Vec<String> {
    (report.columns.iter())
        .filter(|c| report.models.iter().all(|m| m.per_unit.contains_key(*c)))
        .cloned()
        .collect()
}

/// The words `--help` says of [`default_metrics`], from it.
pub fn default_metrics_help() -> String {
    let list = |kind| {
        let ids: Vec<String> = default_metrics(kind, None)
            .iter()
            .map(|m| m.to_string())
            .collect();
        ids.join(",")
    };
    format!(
        "Without --metrics (or -m), per kind: ranking, the page table's default columns at -k (default 5,10,20): {}; binary {}; multi-class {}; ratings {}.",
        list(Kind::Ranking),
        list(Kind::Binary),
        list(Kind::Multiclass),
        list(Kind::Ratings)
    )
}

/// One model's mean of one metric with its 95% interval, as the page's
/// metric table shows it with its "95% intervals" on ([`page::mean_interval`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct MeanInterval {
    pub model: String,
    pub metric: String,
    /// The mean of the model's defined per-unit values.
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// How many units (defined values) the mean is of.
    pub units: usize,
    /// `bootstrap` (percentile, `resamples` resamples, `seed`) up to 20,000
    /// units, `t` (Student's) beyond.
    pub method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resamples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Every model's 95% interval of its mean of each of `metrics` (those with
/// per-unit values), metric by metric, the models in the report's order:
/// the page's, with `options.bootstraps` resamples (1,000, the page's) and
/// `options.seed`.
pub fn mean_intervals(report: &Report, metrics: &[String], options: &Options) -> Vec<MeanInterval> {
    let mut out = Vec::new();
    for metric in metrics {
        for m in &report.models {
            let Some(values) = m.per_unit.get(metric) else {
                continue;
            };
            let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            let (Some(mean), Some((low, high, bootstrap))) = (
                crate::core::sum::mean(finite.iter().copied()),
                page::mean_interval(&finite, options.bootstraps as usize, options.seed),
            ) else {
                continue;
            };
            out.push(MeanInterval {
                model: m.name.clone(),
                metric: metric.clone(),
                mean,
                low,
                high,
                units: finite.len(),
                method: if bootstrap { "bootstrap" } else { "t" },
                resamples: bootstrap.then_some(options.bootstraps),
                seed: bootstrap.then_some(options.seed),
            });
        }
    }
    out
}

/// The intervals of [`mean_intervals`] as text.
pub fn mean_intervals_text(intervals: &[MeanInterval], options: &Options) -> String {
    if intervals.is_empty() {
        return String::new();
    }
    let mut grid = vec![
        ["metric", "model", "mean", "95% interval", "units", "method"]
            .map(String::from)
            .to_vec(),
    ];
    for i in intervals {
        grid.push(vec![
            i.metric.clone(),
            i.model.clone(),
            format!("{:.4}", i.mean),
            format!("[{:.4}, {:.4}]", i.low, i.high),
            i.units.to_string(),
            i.method.to_string(),
        ]);
    }
    format!(
        "# 95% intervals of each model's mean: percentile bootstrap, {} resamples, seed {} (Student's t beyond {} units), as the page's table shows them\n{}",
        options.bootstraps,
        options.seed,
        page::CI_BOOTSTRAP_UNITS,
        aligned(&grid)
    )
}

/// One model against the baseline on one metric.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    pub metric: String,
    pub model: String,
    pub baseline: String,
    pub paired: Paired,
    pub t_test: Option<TTest>,
    pub wilcoxon: Option<Wilcoxon>,
    pub sign_test: Option<f64>,
    pub randomization: Option<Resampled>,
    pub bootstrap: Option<Resampled>,
    /// McNemar's exact test, for per-unit hits (every value 0 or 1, as a
    /// multi-class row's Acc@k): the sign test's exact binomial on the
    /// discordant units, which is McNemar's exact p; `None` for other values.
    pub mcnemar: Option<f64>,
    /// The randomized Tukey HSD test of the baseline and every model
    /// compared with it on this metric ([`tukey_group`]): this pair's p,
    /// family-wise over all pairs of them already.
    pub tukey: Option<Resampled>,
    /// The p-values of the tests in [`Test::ALL`]'s order (t, Wilcoxon,
    /// sign, randomization, bootstrap, McNemar, Tukey HSD) adjusted across
    /// the models compared on this metric (Tukey's as it is).
    pub adjusted: [Option<f64>; 7],
}

impl Comparison {
    /// The t-test, Wilcoxon and sign test of one model (`b`) against the
    /// baseline (`a`) on paired units; no resampling test.
    pub fn quick(metric: &str, model: &str, baseline: &str, a: &[f64], b: &[f64]) -> Self {
        let paired = Paired::new(a, b);
        let sign_test = stats::sign_test(&paired);
        Comparison {
            mcnemar: sign_test.filter(|_| hits(a, b)),
            metric: metric.into(),
            model: model.into(),
            baseline: baseline.into(),
            t_test: stats::paired_t(&paired),
            wilcoxon: stats::wilcoxon(a, b),
            sign_test,
            randomization: None,
            bootstrap: None,
            tukey: None,
            paired,
            adjusted: [None; 7],
        }
    }

    /// Every test of one model (`b`) against the baseline (`a`) on paired units.
    pub fn new(
        metric: &str,
        model: &str,
        baseline: &str,
        a: &[f64],
        b: &[f64],
        options: &Options,
    ) -> Self {
        Comparison {
            randomization: stats::randomization(a, b, options.resamples, options.seed),
            bootstrap: stats::bootstrap_test(a, b, options.bootstraps, options.seed),
            ..Comparison::quick(metric, model, baseline, a, b)
        }
    }

    /// The raw p-value of `test`.
    pub fn p(&self, test: Test) -> Option<f64> {
        match test {
            Test::T => self.t_test.as_ref().map(|t| t.p),
            Test::Wilcoxon => self.wilcoxon.as_ref().map(|w| w.p),
            Test::Sign => self.sign_test,
            Test::Randomization => self.randomization.as_ref().map(|r| r.p),
            Test::Bootstrap => self.bootstrap.as_ref().map(|r| r.p),
            Test::McNemar => self.mcnemar,
            Test::Tukey => self.tukey.as_ref().map(|r| r.p),
        }
    }
}

/// Whether both sides hold hits (every value 0 or 1), where McNemar's exact
/// test (the sign test's exact binomial on the discordant units) applies.
fn hits(a: &[f64], b: &[f64]) -> bool {
    a.iter().chain(b).all(|&x| x == 0.0 || x == 1.0)
}

pub use settings::Test;

impl Test {
    /// This test's two-sided p-value of `b` against `a` on paired units
    /// (`paired`: their summary), `None` where it is undefined.
    pub fn p_value(self, a: &[f64], b: &[f64], paired: &Paired, options: &Options) -> Option<f64> {
        match self {
            Test::T => stats::paired_t(paired).map(|t| t.p),
            Test::Wilcoxon => stats::wilcoxon(a, b).map(|w| w.p),
            Test::Sign => stats::sign_test(paired),
            Test::Randomization => {
                stats::randomization(a, b, options.resamples, options.seed).map(|r| r.p)
            }
            Test::Bootstrap => {
                stats::bootstrap_test(a, b, options.bootstraps, options.seed).map(|r| r.p)
            }
            Test::McNemar => stats::sign_test(paired).filter(|_| hits(a, b)),
            // a test of every model at once, not of a pair: [`tukey_group`]
            Test::Tukey => None,
        }
    }

    /// The test's name in a sentence.
    pub fn title(self) -> &'static str {
        match self {
            Test::T => "paired t-test",
            Test::Wilcoxon => "Wilcoxon signed-rank test",
            Test::Sign => "sign test",
            Test::Randomization => "randomization test",
            Test::Bootstrap => "paired bootstrap test",
            Test::McNemar => "McNemar's exact test",
            Test::Tukey => "randomized Tukey HSD test",
        }
    }
}

/// What ▲ / ▼ mean in an exported table (the page's and `rankscope compare
/// --format markdown`'s footnote).
pub fn marks_note(
    test: &str,
    correction: Correction,
    alpha: f64,
    baseline: &str,
    unit: &str,
) -> String {
    format!(
        "▲ / ▼: higher / lower than {baseline} by a two-sided {test} over the {unit} values both models have, {} p < {alpha}.",
        adjustment(correction)
    )
}

/// DeLong's test in a sentence (binary models' ROC AUCs).
pub const DELONG: &str = "DeLong's test";

/// A correction's name in a sentence.
pub fn correction_title(c: Correction) -> &'static str {
    match c {
        Correction::Holm => "Holm",
        Correction::Bonferroni => "Bonferroni",
        Correction::BenjaminiHochberg => "Benjamini–Hochberg",
        Correction::None => "none",
    }
}

/// `report`'s table (the columns compared) with the marks of `comparisons`
/// under `test` and `alpha` against their baseline.
pub fn marked_table(
    report: &Report,
    comparisons: &[Comparison],
    options: &Options,
) -> crate::report::Table {
    let (test, alpha) = (options.test, options.alpha);
    // `compare` lists the comparisons metric by metric
    let columns: Vec<String> = comparisons
        .chunk_by(|a, b| a.metric == b.metric)
        .map(|g| g[0].metric.clone())
        .collect();
    let mut t = crate::report::Table::from_report(report, Some(&columns));
    let i = test as usize;
    t.marks = t
        .rows
        .iter()
        .map(|(name, _)| {
            columns
                .iter()
                .map(|metric| {
                    comparisons
                        .iter()
                        .find(|c| &c.model == name && &c.metric == metric)
                        .map_or(0, |c| {
                            mark(c.adjusted[i].unwrap_or(f64::NAN), c.paired.mean_diff, alpha)
                        })
                })
                .collect()
        })
        .collect();
    let baseline = comparisons.first().map_or("", |c| c.baseline.as_str());
    t.baseline = comparisons.first().map(|c| c.baseline.clone());
    t.marks_note = marks_note(
        test.title(),
        options.correction,
        alpha,
        baseline,
        report.kind.unit(),
    );
    t
}

/// `p` adjusted under `correction` where present, `None` kept in place.
pub fn adjust_present(raw: &[Option<f64>], correction: Correction) -> Vec<Option<f64>> {
    let present: Vec<f64> = raw.iter().flatten().copied().collect();
    let mut adjusted = stats::adjust(&present, correction).into_iter();
    raw.iter()
        .map(|p| p.and_then(|_| adjusted.next()))
        .collect()
}

/// Every model of `report` but the baseline against the baseline, on each
/// of `metrics` that has per-unit values; units paired by id (a unit one
/// model lacks, or whose value is undefined for either, is left out).
pub fn compare(
    report: &Report,
    metrics: &[String],
    options: &Options,
) -> Result<Vec<Comparison>, String> {
    let base = match &options.baseline {
        Some(name) => report
            .models
            .iter()
            .find(|m| &m.name == name)
            .ok_or_else(|| format!("no model named '{name}' (the models: {})", names(report)))?,
        None => report.models.first().ok_or("no model to compare")?,
    };
    if report.models.len() < 2 {
        return Err("a comparison needs two models or more".into());
    }
    let others: Vec<_> = report
        .models
        .iter()
        .filter(|m| m.name != base.name)
        .collect();
    let aligned_ids = alignment(&base.unit_ids, others.iter().map(|m| &m.unit_ids[..]));
    // each metric's group on its own (natively on the machine's threads:
    // every test is seeded per comparison, so the threads change nothing)
    let groups = crate::core::par_map(metrics, |metric| {
        let Some(base_col) = base.per_unit.get(metric) else {
            return Err(format!(
                "{metric} has no per-{} values to pair (a pooled value such as ROC AUC needs another test)",
                report.kind.unit()
            ));
        };
        let mut group = Vec::new();
        let mut columns = Vec::new();
        for (m, align) in others.iter().zip(&aligned_ids) {
            let col = m.per_unit.get(metric).map_or(&[][..], Vec::as_slice);
            let (a, b, _) = pair(base_col, align, &m.unit_ids, col);
            group.push(Comparison::new(
                metric, &m.name, &base.name, &a, &b, options,
            ));
            columns.push((&align[..], col));
        }
        tukey_group(&mut group, &common_units(base_col, &columns), options);
        adjust_group(&mut group, options.correction);
        Ok(group)
    });
    let mut out = Vec::new();
    for group in groups {
        out.extend(group?);
    }
    Ok(out)
}

/// For each unit list of `others`, the index of each of its units among
/// `base`'s (`None` where the baseline lacks it): one hash table of the
/// baseline's ids, built once for every metric compared.
pub fn alignment<'a>(
    base: &[String],
    others: impl Iterator<Item = &'a [String]>,
) -> Vec<Vec<Option<u32>>> {
    let at: std::collections::HashMap<&str, u32> = base
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i as u32))
        .collect();
    others
        .map(|ids| ids.iter().map(|id| at.get(id.as_str()).copied()).collect())
        .collect()
}

/// The baseline's and a model's values on the units both have with a
/// defined value, and those units' ids: `col` holds the model's value per
/// id of `ids`, `align` their places in `base_col` ([`alignment`]).
pub fn pair<'a>(
    base_col: &[f64],
    align: &[Option<u32>],
    ids: &'a [String],
    col: &[f64],
) -> (Vec<f64>, Vec<f64>, Vec<&'a str>) {
    let (mut a, mut b, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for ((id, &v), at) in ids.iter().zip(col).zip(align) {
        if let Some(&u) = at.and_then(|i| base_col.get(i as usize)) {
            if u.is_finite() && v.is_finite() {
                a.push(u);
                b.push(v);
                kept.push(id.as_str());
            }
        }
    }
    (a, b, kept)
}

/// Whether an adjusted p marks a model against the baseline: 1 (▲, higher)
/// or −1 (▼, lower) below `alpha`, else 0 (also for an undefined p).
pub fn mark(adjusted: f64, mean_diff: f64, alpha: f64) -> i8 {
    if adjusted < alpha {
        if mean_diff > 0.0 {
            1
        } else {
            -1
        }
    } else {
        0
    }
}

/// How a p-value is adjusted, in a sentence: `Holm-adjusted`, `unadjusted`.
pub fn adjustment(correction: Correction) -> String {
    if correction == Correction::None {
        "unadjusted".into()
    } else {
        format!("{}-adjusted", correction_title(correction))
    }
}

/// Each test's p-values of `group` (one metric, every model against one
/// baseline) adjusted across the group; Tukey HSD's are family-wise
/// already and stay as they are.
pub fn adjust_group(group: &mut [Comparison], correction: Correction) {
    for (i, &test) in Test::ALL.iter().enumerate() {
        let raw: Vec<Option<f64>> = group.iter().map(|c| c.p(test)).collect();
        let correction = if test == Test::Tukey {
            Correction::None
        } else {
            correction
        };
        for (c, p) in group.iter_mut().zip(adjust_present(&raw, correction)) {
            c.adjusted[i] = p;
        }
    }
}

/// The baseline's values (`base_col`) and each other model's on the units
/// that every one of them has with a defined value, the baseline first:
/// each other model as its values and their places among the baseline's
/// units ([`alignment`]).
pub fn common_units(base_col: &[f64], others: &[(&[Option<u32>], &[f64])]) -> Vec<Vec<f64>> {
    let len = base_col.len();
    let mut columns = vec![base_col.to_vec()];
    for (align, col) in others {
        let mut c = vec![f64::NAN; len];
        for (at, &v) in align.iter().zip(col.iter()) {
            if let Some(slot) = at.and_then(|i| c.get_mut(i as usize)) {
                *slot = v;
            }
        }
        columns.push(c);
    }
    let keep: Vec<usize> = (0..len)
        .filter(|&i| columns.iter().all(|c| c[i].is_finite()))
        .collect();
    columns
        .into_iter()
        .map(|c| keep.iter().map(|&i| c[i]).collect())
        .collect()
}

/// The randomized Tukey HSD test ([`stats::tukey_hsd`]: `options.resamples`
/// draws, `options.seed`) of the baseline and the models of `group` on
/// `columns` ([`common_units`]: the baseline first, then `group`'s models in
/// order): each comparison's `tukey` is its pair with the baseline.
pub fn tukey_group(group: &mut [Comparison], columns: &[Vec<f64>], options: &Options) {
    let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    let family = stats::tukey_hsd(&refs, options.resamples, options.seed);
    for (k, c) in group.iter_mut().enumerate() {
        c.tukey = family.as_ref().map(|f| f.pair(0, k + 1));
    }
}

fn names(report: &Report) -> String {
    report
        .models
        .iter()
        .map(|m| m.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The comparisons as an aligned text table per metric, each p-value
/// followed by its corrected value.
pub fn to_text(comparisons: &[Comparison], options: &Options, unit: &str) -> String {
    let mut s = String::new();
    // small p-values keep their magnitude: 3.1e-9, not 0.0000
    let p = |v: Option<f64>| v.map_or("—".to_string(), format_p);
    for group in comparisons.chunk_by(|a, b| a.metric == b.metric) {
        let first = &group[0];
        let corrected = group.len() > 1 && options.correction != Correction::None;
        let pair = |raw: Option<f64>, adj: Option<f64>| match (raw, adj) {
            (Some(_), Some(_)) if corrected => format!("{} ({})", p(raw), p(adj)),
            _ => p(raw),
        };
        s.push_str(&format!(
            "# {} per {unit}, paired: model − baseline ({}); two-sided p-values{}; randomization: {}\n",
            first.metric,
            first.baseline,
            if corrected {
                format!(", ({}) {}-corrected over {} models", "…", options.correction.name(), group.len())
            } else {
                String::new()
            },
            match &first.randomization {
                Some(r) if r.exact => "every sign flip".to_string(),
                _ => format!("{} sign flips, seed {}", options.resamples, options.seed),
            } + &format!("; bootstrap: {} resamples, seed {}", options.bootstraps, options.seed)
        ));
        let mut grid = vec![[
            "model",
            "n",
            "mean",
            "baseline",
            "Δ",
            "95% CI of Δ (t)",
            "d_z",
            "t-test p",
            "Wilcoxon p",
            "sign p",
            "randomization p",
            "bootstrap p",
            "McNemar p",
            "Tukey HSD p",
            "wins/losses/ties",
        ]
        .map(String::from)
        .to_vec()];
        for c in group {
            let q = &c.paired;
            grid.push(vec![
                c.model.clone(),
                q.n.to_string(),
                format!("{:.4}", q.mean_b),
                format!("{:.4}", q.mean_a),
                format!("{:+.4}", q.mean_diff),
                c.t_test.as_ref().map_or("—".into(), |t| {
                    format!("[{:+.4}, {:+.4}]", t.ci_low, t.ci_high)
                }),
                c.t_test
                    .as_ref()
                    .map_or("—".into(), |t| format!("{:.2}", t.effect_size)),
                pair(c.t_test.as_ref().map(|t| t.p), c.adjusted[0]),
                pair(c.wilcoxon.as_ref().map(|w| w.p), c.adjusted[1]),
                pair(c.sign_test, c.adjusted[2]),
                match &c.randomization {
                    Some(r) if !r.exact => format!(
                        "{} ±{:.4}",
                        pair(Some(r.p), c.adjusted[3]),
                        r.standard_error
                    ),
                    r => pair(r.as_ref().map(|r| r.p), c.adjusted[3]),
                },
                pair(c.bootstrap.as_ref().map(|r| r.p), c.adjusted[4]),
                pair(c.mcnemar, c.adjusted[5]),
                match &c.tukey {
                    Some(r) => format!("{} ±{:.4}", p(Some(r.p)), r.standard_error),
                    None => "—".into(),
                },
                format!("{}/{}/{}", q.wins, q.losses, q.ties),
            ]);
        }
        s.push_str(&aligned(&grid));
    }
    s
}

/// One binary model's ROC AUC against the baseline's on the same rows:
/// DeLong's test ([`stats::delong`]), its p-value corrected across models.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AucComparison {
    pub model: String,
    pub baseline: String,
    pub delong: DeLong,
    pub adjusted: f64,
}

/// Every binary model but the baseline against it, by ROC AUC.
pub fn compare_auc(d: &BinaryData, options: &Options) -> Result<Vec<AucComparison>, String> {
    let all = || {
        d.models
            .iter()
            .map(|m| m.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let base = match &options.baseline {
        Some(name) => d
            .models
            .iter()
            .find(|m| &m.0 == name)
            .ok_or_else(|| format!("no model named '{name}' (the models: {})", all()))?,
        None => d.models.first().ok_or("no model to compare")?,
    };
    if d.models.len() < 2 {
        return Err("a comparison needs two models or more".into());
    }
    let others: Vec<_> = d.models.iter().filter(|m| m.0 != base.0).collect();
    let columns: Vec<&[f64]> = others.iter().map(|m| m.1.as_slice()).collect();
    let tests = stats::delong_against(&d.labels, &base.1, &columns)
        .ok_or("ROC AUC needs positive and negative rows")?;
    let mut out: Vec<AucComparison> = others
        .iter()
        .zip(tests)
        .map(|(m, delong)| AucComparison {
            model: m.0.clone(),
            baseline: base.0.clone(),
            delong,
            adjusted: f64::NAN,
        })
        .collect();
    let raw: Vec<f64> = out.iter().map(|c| c.delong.p).collect();
    for (c, p) in out.iter_mut().zip(stats::adjust(&raw, options.correction)) {
        c.adjusted = p;
    }
    Ok(out)
}

/// The AUC comparisons as an aligned text table.
pub fn auc_text(comparisons: &[AucComparison], options: &Options) -> String {
    let Some(first) = comparisons.first() else {
        return String::new();
    };
    let corrected = comparisons.len() > 1 && options.correction != Correction::None;
    let mut grid = vec![[
        "model",
        "AUC",
        "95% CI",
        "baseline AUC",
        "95% CI",
        "Δ AUC",
        "z",
        "DeLong p",
    ]
    .map(String::from)
    .to_vec()];
    for c in comparisons {
        let d = &c.delong;
        let p = format_p(d.p);
        grid.push(vec![
            c.model.clone(),
            format!("{:.4}", d.auc_b),
            format!("[{:.4}, {:.4}]", d.ci_b.0, d.ci_b.1),
            format!("{:.4}", d.auc_a),
            format!("[{:.4}, {:.4}]", d.ci_a.0, d.ci_a.1),
            format!("{:+.4}", d.auc_b - d.auc_a),
            format!("{:.3}", d.z),
            if corrected {
                format!("{p} ({})", format_p(c.adjusted))
            } else {
                p
            },
        ]);
    }
    let mut s = format!(
        "# roc_auc on the same rows: DeLong's test against {} (Sun & Xu's midrank algorithm), two-sided{}; 95% CIs AUC ± 1.96 √var (pROC's DeLong interval)\n",
        first.baseline,
        if corrected {
            format!(", (…) {}-corrected over {} models", options.correction.name(), comparisons.len())
        } else {
            String::new()
        }
    );
    s.push_str(&aligned(&grid));
    s
}

/// A p-value with four decimals, or its magnitude when it is smaller.
pub fn format_p(p: f64) -> String {
    if p.is_nan() {
        "—".into()
    } else if p != 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evaluate::{Conventions, ModelReport, Report};
    use crate::core::registry::Kind;

    /// Metrics compared together (on the machine's threads) give what each
    /// compared alone gives, in the metrics' order.
    #[test]
    fn metrics_compared_together_equal_each_alone() {
        let mut rng = crate::core::stats::SplitMix64::new(3);
        let metrics: Vec<String> = (0..5).map(|j| format!("m{j}")).collect();
        let ids: Vec<String> = (0..60).map(|i| format!("q{i}")).collect();
        let models = (0..3)
            .map(|k| ModelReport {
                name: format!("model{k}"),
                unit_ids: ids.clone(),
                per_unit: metrics
                    .iter()
                    .map(|m| {
                        (
                            m.clone(),
                            (0..60).map(|_| rng.below(100) as f64 / 100.0).collect(),
                        )
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        let report = Report {
            kind: Kind::Ranking,
            columns: metrics.clone(),
            conventions: Conventions::default(),
            models,
            warnings: vec![],
        };
        let options = Options {
            resamples: 500,
            bootstraps: 200,
            ..Options::default()
        };
        let json = |c: &[Comparison]| serde_json::to_string(c).unwrap();
        let together = compare(&report, &metrics, &options).unwrap();
        let alone: Vec<Comparison> = metrics
            .iter()
            .flat_map(|m| compare(&report, std::slice::from_ref(m), &options).unwrap())
            .collect();
        assert_eq!(together.len(), metrics.len() * 2);
        assert_eq!(json(&together), json(&alone));
        assert!(compare(&report, &["missing".to_string()], &options).is_err());
    }

    #[test]
    fn par_map_keeps_the_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = crate::core::par_map(&items, |&i| i * i);
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert!(crate::core::par_map(&[] as &[u64], |&i| i).is_empty());
    }
}
