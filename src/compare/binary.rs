//! Percentile-bootstrap 95% intervals of binary models' metrics (average
//! precision, the threshold metrics, log loss, Brier, ROC AUC: every one the
//! core computes from a curve), for `rankscope compare` on binary data.
//!
//! A resample draws the rows with replacement (seeded; the same rows for
//! every model, so the intervals are paired); rows of one distinct score
//! and label are alike to every metric, so a resample is a count per
//! (score, label) and its curve is built from those counts in time linear
//! in the distinct scores ([`BinaryCurve::from_parts`]): exactly the curve
//! of the resampled rows (a test builds that one from the rows and gets the
//! same values bit for bit). Each metric is then the core's
//! ([`crate::core::evaluate::evaluate_binary_prepared`], the conventions in
//! force: threshold, rule, zero division, scale).

use std::sync::Arc;

use crate::core::binary::{sigmoid, BinaryCurve};
use crate::core::evaluate::{evaluate_binary_prepared, BinaryData, BinaryPrepared, Conventions};
use crate::core::registry::MetricId;
use crate::core::stats::{percentiles_95, SplitMix64};

/// One metric's value and its interval.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Interval {
    pub metric: String,
    pub value: Option<f64>,
    /// The 2.5th and 97.5th percentiles of the resamples where the metric
    /// is defined; `None` when it is defined in none.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Resamples where the metric is defined (of `resamples`).
    pub defined: usize,
}

/// One model's intervals.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ModelIntervals {
    pub model: String,
    pub resamples: usize,
    pub seed: u64,
    pub intervals: Vec<Interval>,
}

/// The model's prepared form on `curve` (log loss and Brier from the curve,
/// as [`crate::core::evaluate::prepare_binary_with`] takes them).
fn prepared(name: &str, curve: Arc<BinaryCurve>, logits: bool) -> BinaryPrepared {
    let probability = |z: f64| if logits { sigmoid(z) } else { z };
    let loss = |brier| {
        curve
            .probability_loss(brier, probability)
            .ok_or((0, f64::NAN))
    };
    let (log_loss, brier) = (loss(false), loss(true));
    BinaryPrepared {
        name: name.to_string(),
        curve,
        log_loss,
        brier,
    }
}

/// The metrics' values on one curve, in `metrics`' order.
fn values(p: &BinaryPrepared, conv: &Conventions, metrics: &[MetricId]) -> Vec<Option<f64>> {
    let report = evaluate_binary_prepared([p], conv, metrics);
    let m = &report.models[0];
    metrics
        .iter()
        .map(|id| m.metrics.get(&id.to_string()).copied().flatten())
        .collect()
}

/// Every model's `metrics` with their bootstrap intervals (`resamples`
/// resamples of the rows, `seed`).
pub fn bootstrap_intervals(
    d: &BinaryData,
    conv: &Conventions,
    metrics: &[MetricId],
    resamples: usize,
    seed: u64,
) -> Vec<ModelIntervals> {
    let n = d.labels.len();
    let logits = conv.binary_scores_are_logits;
    (0..d.models.len())
        .map(|i| {
            let (name, scores) = &d.models[i];
            let curve = d.curve(i);
            let point = values(&prepared(name, Arc::clone(&curve), logits), conv, metrics);
            // each row's distinct score, as its place among the curve's thresholds
            let level: Vec<u32> = scores
                .iter()
                .map(|&s| curve.thresholds.partition_point(|&t| t > s) as u32)
                .collect();
            let levels = curve.thresholds.len();
            let mut rng = SplitMix64::new(seed);
            let mut drawn: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); metrics.len()];
            let (mut pos, mut neg) = (vec![0u64; levels], vec![0u64; levels]);
            let rounds = if n == 0 { 0 } else { resamples };
            for _ in 0..rounds {
                pos.iter_mut().for_each(|c| *c = 0);
                neg.iter_mut().for_each(|c| *c = 0);
                for _ in 0..n {
                    let r = rng.below(n);
                    let counts = if d.labels[r] { &mut pos } else { &mut neg };
                    counts[level[r] as usize] += 1;
                }
                let (mut thresholds, mut tps, mut fps) = (Vec::new(), Vec::new(), Vec::new());
                let (mut tp, mut fp) = (0, 0);
                for k in 0..levels {
                    if pos[k] + neg[k] > 0 {
                        tp += pos[k];
                        fp += neg[k];
                        thresholds.push(curve.thresholds[k]);
                        tps.push(tp);
                        fps.push(fp);
                    }
                }
                let Ok(c) = BinaryCurve::from_parts(thresholds, tps, fps) else {
                    continue;
                };
                for (j, v) in values(&prepared(name, Arc::new(c), logits), conv, metrics)
                    .into_iter()
                    .enumerate()
                {
                    if let Some(v) = v.filter(|v| v.is_finite()) {
                        drawn[j].push(v);
                    }
                }
            }
            let intervals = metrics
                .iter()
                .zip(point)
                .zip(drawn.iter_mut())
                .map(|((id, value), d)| {
                    let bounds = (!d.is_empty()).then(|| percentiles_95(d));
                    Interval {
                        metric: id.to_string(),
                        value,
                        low: bounds.map(|b| b.0),
                        high: bounds.map(|b| b.1),
                        defined: d.len(),
                    }
                })
                .collect();
            ModelIntervals {
                model: name.clone(),
                resamples,
                seed,
                intervals,
            }
        })
        .collect()
}

/// The intervals as an aligned text table.
pub fn intervals_text(models: &[ModelIntervals]) -> String {
    let Some(first) = models.first() else {
        return String::new();
    };
    let mut grid = vec![[
        "model",
        "metric",
        "value",
        "95% CI (bootstrap)",
        "defined in",
    ]
    .map(String::from)
    .to_vec()];
    for m in models {
        for i in &m.intervals {
            grid.push(vec![
                m.model.clone(),
                i.metric.clone(),
                i.value.map_or("—".into(), |v| format!("{v:.4}")),
                match (i.low, i.high) {
                    (Some(lo), Some(hi)) => format!("[{lo:.4}, {hi:.4}]"),
                    _ => "—".into(),
                },
                format!("{} of {}", i.defined, m.resamples),
            ]);
        }
    }
    format!(
        "# percentile bootstrap 95% intervals: {} resamples of the rows (the same rows for every model), seed {}\n{}",
        first.resamples,
        first.seed,
        crate::report::aligned(&grid)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::registry::Kind;

    /// The resamples' values, built the slow way: the resampled rows
    /// themselves, sorted into a curve.
    fn by_rows(
        d: &BinaryData,
        i: usize,
        conv: &Conventions,
        metrics: &[MetricId],
        resamples: usize,
        seed: u64,
    ) -> Vec<Vec<f64>> {
        let n = d.labels.len();
        let mut rng = SplitMix64::new(seed);
        let mut drawn = vec![Vec::new(); metrics.len()];
        for _ in 0..resamples {
            let rows: Vec<usize> = (0..n).map(|_| rng.below(n)).collect();
            let labels: Vec<bool> = rows.iter().map(|&r| d.labels[r]).collect();
            let scores: Vec<f64> = rows.iter().map(|&r| d.models[i].1[r]).collect();
            let curve = BinaryCurve::new(&labels, &scores);
            let p = prepared(
                &d.models[i].0,
                Arc::new(curve),
                conv.binary_scores_are_logits,
            );
            for (j, v) in values(&p, conv, metrics).into_iter().enumerate() {
                if let Some(v) = v.filter(|v| v.is_finite()) {
                    drawn[j].push(v);
                }
            }
        }
        drawn
    }

    #[test]
    fn counts_per_score_give_the_resampled_rows_values_bit_for_bit() {
        let mut rng = SplitMix64::new(11);
        let mut next = || rng.next_u64();
        let labels: Vec<bool> = (0..300).map(|_| next() % 4 == 0).collect();
        let score = |l: bool, k: u64| ((k % 40) as f64 + if l { 12.0 } else { 0.0 }) / 60.0;
        let a: Vec<f64> = labels.iter().map(|&l| score(l, next())).collect();
        let b: Vec<f64> = labels.iter().map(|&l| score(l, next() / 3)).collect();
        let d = BinaryData {
            labels,
            models: vec![("a".into(), a), ("b".into(), b)],
            curves: Default::default(),
        };
        let metrics: Vec<MetricId> = [
            "average_precision",
            "roc_auc",
            "f1",
            "precision",
            "mcc",
            "log_loss",
            "brier",
        ]
        .iter()
        .map(|m| MetricId::parse(m, Kind::Binary).unwrap())
        .collect();
        let conv = Conventions::default();
        let got = bootstrap_intervals(&d, &conv, &metrics, 200, 5);
        for (i, m) in got.iter().enumerate() {
            let mut slow = by_rows(&d, i, &conv, &metrics, 200, 5);
            for (interval, values) in m.intervals.iter().zip(slow.iter_mut()) {
                assert_eq!(interval.defined, values.len(), "{}", interval.metric);
                let (lo, hi) = percentiles_95(values);
                assert_eq!(
                    (interval.low, interval.high),
                    (Some(lo), Some(hi)),
                    "{} {}",
                    m.model,
                    interval.metric
                );
                let v = interval.value.unwrap();
                assert!(
                    lo <= v && v <= hi,
                    "{} {}: {lo} {v} {hi}",
                    m.model,
                    interval.metric
                );
            }
        }
        // seeded
        assert_eq!(got, bootstrap_intervals(&d, &conv, &metrics, 200, 5));
        assert!(intervals_text(&got).contains("200 resamples"));
    }
}
