//! Models against a baseline, unit by unit: the paired tests of
//! [`crate::core::stats`] on every per-unit metric of a [`Report`], with the
//! p-values corrected across the compared models. What `rankscope compare`
//! prints.

use crate::core::evaluate::{BinaryData, Report};
use crate::core::stats::{self, Correction, DeLong, Paired, Resampled, TTest, Wilcoxon};
use crate::core::Named;
use crate::report::aligned;

/// The knobs of a comparison.
#[derive(Clone, Debug)]
pub struct Options {
    /// The model the others are compared with (default: the first).
    pub baseline: Option<String>,
    /// Random sign flips of the randomization test and resamples of the
    /// bootstrap test (when there are too many units to enumerate).
    pub resamples: u64,
    pub seed: u64,
    pub correction: Correction,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            baseline: None,
            resamples: 10_000,
            seed: 42,
            correction: Correction::Holm,
        }
    }
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
    /// The t-test's, Wilcoxon's, the sign test's and the randomization
    /// test's p-values adjusted across the models compared on this metric.
    pub adjusted: [Option<f64>; 4],
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
    let mut out = Vec::new();
    for metric in metrics {
        let Some(base_col) = base.per_unit.get(metric) else {
            return Err(format!(
                "{metric} has no per-{} values to pair (a pooled value such as ROC AUC needs another test)",
                report.kind.unit()
            ));
        };
        let at: std::collections::HashMap<&str, f64> = base
            .unit_ids
            .iter()
            .map(String::as_str)
            .zip(base_col.iter().copied())
            .collect();
        let mut group = Vec::new();
        for m in report.models.iter().filter(|m| m.name != base.name) {
            let col = m.per_unit.get(metric).map_or(&[][..], Vec::as_slice);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (id, &v) in m.unit_ids.iter().zip(col) {
                if let Some(&u) = at.get(id.as_str()) {
                    if u.is_finite() && v.is_finite() {
                        a.push(u);
                        b.push(v);
                    }
                }
            }
            let paired = Paired::new(&a, &b);
            group.push(Comparison {
                metric: metric.clone(),
                model: m.name.clone(),
                baseline: base.name.clone(),
                t_test: stats::paired_t(&paired),
                wilcoxon: stats::wilcoxon(&a, &b),
                sign_test: stats::sign_test(&paired),
                randomization: stats::randomization(&a, &b, options.resamples, options.seed),
                paired,
                adjusted: [None; 4],
            });
        }
        for test in 0..4 {
            let raw: Vec<Option<f64>> = group
                .iter()
                .map(|c| match test {
                    0 => c.t_test.as_ref().map(|t| t.p),
                    1 => c.wilcoxon.as_ref().map(|w| w.p),
                    2 => c.sign_test,
                    _ => c.randomization.as_ref().map(|r| r.p),
                })
                .collect();
            let present: Vec<f64> = raw.iter().flatten().copied().collect();
            let mut adjusted = stats::adjust(&present, options.correction).into_iter();
            for (c, p) in group.iter_mut().zip(&raw) {
                c.adjusted[test] = p.and_then(|_| adjusted.next());
            }
        }
        out.extend(group);
    }
    Ok(out)
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
            }
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
    let mut out = Vec::new();
    for (name, scores) in d.models.iter().filter(|m| m.0 != base.0) {
        let delong = stats::delong(&d.labels, &base.1, scores)
            .ok_or("ROC AUC needs positive and negative rows")?;
        out.push(AucComparison {
            model: name.clone(),
            baseline: base.0.clone(),
            delong,
            adjusted: f64::NAN,
        });
    }
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
fn format_p(p: f64) -> String {
    if p.is_nan() {
        "—".into()
    } else if p != 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}
