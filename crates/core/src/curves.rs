//! Cutoff curves (metric@p for p = 1..P) and their elbow.
//!
//! Each query is walked once: its per-position terms give metric@p for every p
//! up to the end of its list (or of its ideal list, for nDCG); beyond that the
//! value is `a + b/p` (a constant, or hits/p for precision), which is added to
//! the mean through two difference arrays. The mean curve therefore costs
//! O(total list length + relevant documents + P), not O(P x length).

use super::evaluate::Conventions;
use super::ranking::{PreparedRun, QueryView};
use super::ranking_metrics::{ndcg_of, ApDenominator, PrecisionDenominator};
use super::registry::{Kind, MetricInfo, METRICS};
use super::Named;

pub use super::ranking_metrics::CurveMetric;

/// The registry's row of a curve metric (a test holds every variant to one).
fn row(metric: CurveMetric) -> Option<&'static MetricInfo> {
    METRICS.iter().find(|m| m.curve == Some(metric))
}

/// Metrics that have a cutoff curve: the registry's rows with a `curve` (a
/// test holds `ALL`, the kernels in the page's menu order, to them). Their
/// names are the rows' ids, their labels the rows' titles at cutoff p.
impl super::Named for CurveMetric {
    const ALL: &'static [Self] = &[
        CurveMetric::Ndcg,
        CurveMetric::Precision,
        CurveMetric::Recall,
        CurveMetric::Map,
        CurveMetric::HitRate,
    ];
    fn name(self) -> &'static str {
        row(self).map_or("", |m| m.base)
    }
    fn named(name: &str) -> Option<Self> {
        METRICS
            .iter()
            .find(|m| m.kind == Kind::Ranking && m.base == name)
            .and_then(|m| m.curve)
    }
}

impl CurveMetric {
    /// The registry's title at cutoff p ("nDCG@p", "P@p").
    pub fn label(self) -> String {
        let title = row(self).map_or("", |m| m.title);
        format!("{}@p", title.strip_suffix("@k").unwrap_or(title))
    }
}

/// Serialised by its registry name (sessions and links keep it).
impl serde::Serialize for CurveMetric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for CurveMetric {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        CurveMetric::named(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("not a curve metric: {name}")))
    }
}

/// metric@p of one query for p = 1..=max_p.
pub fn query_curve(
    q: &QueryView,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
) -> Vec<f64> {
    let mut out = vec![0.0; max_p];
    let (mut ideal, mut head) = (Vec::new(), Vec::new());
    let (tail_const, tail_inv, m) =
        query_curve_head(q, conv, metric, max_p, false, &mut ideal, &mut head);
    out[..m].copy_from_slice(&head);
    for (p, v) in out.iter_mut().enumerate().skip(m) {
        *v = tail_const + tail_inv / (p + 1) as f64;
    }
    out
}

/// The exact values for p = 1..=m into `head`, and the tail `a + b/p` for
/// p > m: `(a, b, m)`. `ideal` and `head` are scratch space, reused.
/// `cumulative`: the metric's running sum instead ([`elbow`]): DCG@p for
/// nDCG, relevant retrieved for P@p, Σ P@i·rel_i for AP@p. Every value is
/// the kernel's own ([`QueryView::dcg_each`], [`QueryView::hits_each`],
/// [`QueryView::ap_sum_each`], [`QueryView::hit_each`]) read at each p.
fn query_curve_head(
    q: &QueryView,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
    cumulative: bool,
    ideal: &mut Vec<f64>,
    head: &mut Vec<f64>,
) -> (f64, f64, usize) {
    let ctx = conv.ranking_ctx();
    let level = conv.relevance_level;
    let len = q.grades.len().min(max_p);
    head.clear();
    let last = |head: &Vec<f64>| head.last().copied().unwrap_or(0.0);
    match metric {
        CurveMetric::Ndcg => {
            let ideal_len = q.judged_desc.len().min(max_p);
            let m = len.max(ideal_len);
            q.dcg_each(len, conv.gain, conv.discount, |_, v| head.push(v));
            // past the list, DCG stays
            head.resize(m, last(head));
            if !cumulative {
                ideal.clear();
                q.idcg_each(ideal_len, conv.gain, conv.discount, |_, v| ideal.push(v));
                let idcg_last = last(ideal);
                for (i, v) in head.iter_mut().enumerate() {
                    *v = ndcg_of(*v, ideal.get(i).copied().unwrap_or(idcg_last));
                }
            }
            (last(head), 0.0, m)
        }
        CurveMetric::Precision => {
            let hits = q.hits_each(len, level, |i, hits| {
                head.push(if cumulative {
                    hits
                } else {
                    q.precision_of(hits, Some(i + 1), &ctx)
                })
            });
            let hits = if len > 0 { hits } else { 0.0 };
            if cumulative {
                return (hits, 0.0, len);
            }
            match conv.precision_denominator {
                PrecisionDenominator::K => (0.0, hits, len),
                PrecisionDenominator::MinKLength => (last(head), 0.0, len),
            }
        }
        CurveMetric::Recall => {
            q.hits_each(len, level, |_, hits| head.push(q.recall_of(hits, level)));
            (last(head), 0.0, len)
        }
        CurveMetric::Map => {
            // with the min(|R|, p) denominator the tail still changes until p = |R|
            let m = match conv.ap_denominator {
                ApDenominator::Relevant => len,
                ApDenominator::MinRelevantK => len.max(q.num_relevant(level).min(max_p)),
            };
            q.ap_sum_each(len, level, |_, sum| head.push(sum));
            head.resize(m, last(head));
            if !cumulative {
                for (i, v) in head.iter_mut().enumerate() {
                    let denom = q.ap_denominator(Some(i + 1), &ctx);
                    *v = if denom > 0 { *v / denom as f64 } else { 0.0 };
                }
            }
            (last(head), 0.0, m)
        }
        CurveMetric::HitRate => {
            q.hit_each(len, level, |_, v| head.push(v));
            (last(head), 0.0, len)
        }
    }
}

/// Resamples of the elbow curve's bootstrap band.
pub const BAND_RESAMPLES: usize = 200;
/// The band is bootstrapped while queries × cutoffs stay within this (the
/// per-query curves are held, and each resample adds them up); beyond, it
/// is the normal interval.
pub const BAND_VALUES: usize = 200_000;

/// The 95% band of [`mean_curve`], (low, high) for p = 1..=max_p: the
/// percentile bootstrap over queries (each of [`BAND_RESAMPLES`] resamples
/// draws the queries with replacement, seeded; the 2.5th and 97.5th
/// percentiles of its means at each p, as
/// [`crate::stats::bootstrap_ci`] takes them) while queries × cutoffs
/// ≤ [`BAND_VALUES`]; beyond, the normal interval mean ± 1.96 s/√n (s with
/// n − 1). Empty without queries.
pub fn mean_band(
    run: &PreparedRun,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
    seed: u64,
) -> Vec<(f64, f64)> {
    let n = run.num_queries();
    if n == 0 || max_p == 0 {
        return Vec::new();
    }
    let curve = |i: usize| query_curve(&run.query(i), conv, metric, max_p);
    if n.saturating_mul(max_p) > BAND_VALUES {
        let (mut sum, mut squares) = (vec![0.0; max_p], vec![0.0; max_p]);
        for i in 0..n {
            for (p, v) in curve(i).into_iter().enumerate() {
                sum[p] += v;
                squares[p] += v * v;
            }
        }
        let k = n as f64;
        return sum
            .iter()
            .zip(&squares)
            .map(|(&s, &q)| {
                let mean = s / k;
                let var = if n > 1 {
                    ((q - s * mean) / (k - 1.0)).max(0.0)
                } else {
                    0.0
                };
                let half = crate::stats::Z95 * (var / k).sqrt();
                (mean - half, mean + half)
            })
            .collect();
    }
    let curves: Vec<Vec<f64>> = (0..n).map(curve).collect();
    let mut rng = super::stats::SplitMix64::new(seed);
    // each resample's mean curve, then each cutoff's percentiles
    let resampled: Vec<Vec<f64>> = (0..BAND_RESAMPLES)
        .map(|_| {
            let mut sum = vec![0.0; max_p];
            for _ in 0..n {
                for (s, v) in sum.iter_mut().zip(&curves[rng.below(n)]) {
                    *s += v;
                }
            }
            sum.into_iter().map(|s| s / n as f64).collect()
        })
        .collect();
    (0..max_p)
        .map(|p| {
            let mut at: Vec<f64> = resampled.iter().map(|m| m[p]).collect();
            super::stats::percentiles_95(&mut at)
        })
        .collect()
}

/// The mean of metric@p over the evaluated queries, p = 1..=max_p.
pub fn mean_curve(
    run: &PreparedRun,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
) -> Vec<f64> {
    mean_of(run, conv, metric, max_p, false)
}

fn mean_of(
    run: &PreparedRun,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
    cumulative: bool,
) -> Vec<f64> {
    let mut head_sum = vec![0.0; max_p + 1];
    let mut const_diff = vec![0.0; max_p + 2];
    let mut inv_diff = vec![0.0; max_p + 2];
    let n = run.num_queries();
    let (mut ideal, mut head) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (a, b, m) = query_curve_head(
            &run.query(i),
            conv,
            metric,
            max_p,
            cumulative,
            &mut ideal,
            &mut head,
        );
        for (sum, v) in head_sum.iter_mut().zip(&head) {
            *sum += v;
        }
        const_diff[m] += a;
        inv_diff[m] += b;
    }
    let (mut a, mut b) = (0.0, 0.0);
    let mut out = Vec::with_capacity(max_p);
    for p in 0..max_p {
        a += const_diff[p];
        b += inv_diff[p];
        let total = head_sum[p] + a + b / (p + 1) as f64;
        out.push(if n > 0 { total / n as f64 } else { 0.0 });
    }
    out
}

/// How far (in normalised units) a cumulative curve must rise above its
/// chord for its knee to count as an elbow. Relevant documents spread evenly
/// down the list give DCG@p a bend from the log2 discount alone, of 0.08 to
/// 0.12 for P = 10..1000; recall@p of a random order is a straight line (0).
pub const CLEAR_KNEE: f64 = 0.2;

/// The elbow of `metric` for p = 1..=max_p: where showing more items starts
/// to pay less (seed 004), found on the metric's cumulative form, which only
/// rises: DCG@p for nDCG@p, relevant retrieved for P@p, Σ P@i·rel_i for
/// MAP@p, and recall@p and Hit@p themselves. See [`knee`].
pub fn elbow(
    run: &PreparedRun,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
) -> Option<usize> {
    knee(&mean_of(run, conv, metric, max_p, true))
}

/// The cumulative form [`elbow`] finds the knee on, p = 1..=max_p, averaged
/// over the queries (a group of runs averages these before its knee).
pub fn cumulative_curve(
    run: &PreparedRun,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
) -> Vec<f64> {
    mean_of(run, conv, metric, max_p, true)
}

/// The knee of a rising curve y(p), p = 1..=len, by Kneedle (Satopaa et al.
/// 2011): with p and y normalised to [0, 1], the p where the curve lies
/// farthest above the chord from its first to its last point. `None` ("no
/// clear elbow") when that height is under [`CLEAR_KNEE`] (a nearly straight
/// or convex curve), for fewer than 3 points, or for a flat curve.
pub fn knee(y: &[f64]) -> Option<usize> {
    let n = y.len();
    if n < 3 {
        return None;
    }
    let (first, last) = (y[0], y[n - 1]);
    if !(last - first).is_finite() || last - first <= 0.0 {
        return None;
    }
    let mut best = (0usize, f64::NEG_INFINITY);
    for (i, &v) in y.iter().enumerate() {
        let height = (v - first) / (last - first) - i as f64 / (n - 1) as f64;
        if height > best.1 + 1e-12 {
            best = (i, height);
        }
    }
    (best.1 >= CLEAR_KNEE).then_some(best.0 + 1)
}

/// A run's line on the elbow chart (or a group's: the members' mean):
/// its mean curve, the cumulative form its elbow is found on, the elbow.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveLine {
    pub name: String,
    pub color: usize,
    pub values: Vec<f64>,
    /// The cumulative form the elbow is found on.
    pub cumulative: Vec<f64>,
    pub elbow: Option<usize>,
    /// A group of runs: each cutoff's sd over its members, and their names.
    pub sd: Vec<f64>,
    pub members: Vec<String>,
}

/// Groups of runs (the Models card's `name=pattern`: folds, seeds) as one
/// curve each: the members' mean at every cutoff with its sd, the elbow
/// found on the members' mean cumulative form. A group no shown run
/// matches has no curve.
impl CurveLine {
    /// Run `run`'s line of `metric` at cutoffs 1..=`max_p`, drawn in `color`.
    pub fn of_run(
        run: &PreparedRun,
        conv: &Conventions,
        metric: CurveMetric,
        max_p: usize,
        color: usize,
    ) -> CurveLine {
        let cumulative = cumulative_curve(run, conv, metric, max_p);
        CurveLine {
            name: run.name.clone(),
            color,
            elbow: knee(&cumulative),
            values: mean_curve(run, conv, metric, max_p),
            cumulative,
            sd: Vec::new(),
            members: Vec::new(),
        }
    }
}

pub fn group_lines(lines: &[CurveLine], groups: &[(String, String)]) -> Vec<CurveLine> {
    let mut out = Vec::new();
    for (name, pattern) in groups {
        let members: Vec<&CurveLine> = (lines.iter())
            .filter(|l| crate::text::glob(pattern, &l.name))
            .collect();
        let values: Vec<&[f64]> = members.iter().map(|l| &l.values[..]).collect();
        let cumulative: Vec<&[f64]> = members.iter().map(|l| &l.cumulative[..]).collect();
        let (Some((values, sd)), Some((cumulative, _))) = (
            super::diagnostics::pointwise_mean_sd(&values),
            super::diagnostics::pointwise_mean_sd(&cumulative),
        ) else {
            continue;
        };
        out.push(CurveLine {
            name: name.clone(),
            color: members[0].color,
            elbow: knee(&cumulative),
            values,
            cumulative,
            sd,
            members: members.iter().map(|l| l.name.clone()).collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::TieRule;
    use crate::ranking_metrics::Gain;
    use std::sync::Arc;

    fn run_from(queries: &[(&[i32], &[i32])], tie_groups: bool) -> PreparedRun {
        let mut p = PreparedRun {
            offsets: Arc::new(vec![0]),
            judged_offsets: Arc::new(vec![0]),
            tie_rule: if tie_groups {
                TieRule::Average
            } else {
                TieRule::Trec
            },
            ..Default::default()
        };
        for (i, (grades, judged)) in queries.iter().enumerate() {
            p.grades.extend_from_slice(grades);
            p.rows.extend(grades.iter().map(|_| 0));
            Arc::make_mut(&mut p.tied_with_prev).extend(
                grades
                    .iter()
                    .enumerate()
                    .map(|(j, _)| tie_groups && j > 0 && j < 3),
            );
            Arc::make_mut(&mut p.offsets).push(p.grades.len());
            let mut j = judged.to_vec();
            crate::sort_descending(&mut j);
            Arc::make_mut(&mut p.judged_desc).extend(j);
            let judged = p.judged_desc.len();
            Arc::make_mut(&mut p.judged_offsets).push(judged);
            p.selection.evaluated.push(i as u32);
        }
        p
    }

    #[test]
    fn the_band_holds_the_mean_and_is_seeded() {
        let conv = Conventions::default();
        let queries: Vec<(Vec<i32>, Vec<i32>)> = (0..40)
            .map(|q| {
                let grades: Vec<i32> = (0..8).map(|d| ((q * 7 + d * 3) % 5 == 0) as i32).collect();
                (grades, vec![1, 1, 0])
            })
            .collect();
        let refs: Vec<(&[i32], &[i32])> = queries.iter().map(|(g, j)| (&g[..], &j[..])).collect();
        let run = run_from(&refs, false);
        for metric in CurveMetric::ALL {
            let mean = mean_curve(&run, &conv, *metric, 10);
            let band = mean_band(&run, &conv, *metric, 10, 42);
            assert_eq!(band.len(), 10);
            for ((lo, hi), m) in band.iter().zip(&mean) {
                assert!(
                    lo - 1e-12 <= *m && *m <= hi + 1e-12,
                    "{metric:?}: {lo} {m} {hi}"
                );
            }
            assert!(
                band.iter().any(|(lo, hi)| lo < hi),
                "{metric:?}: some spread"
            );
            assert_eq!(band, mean_band(&run, &conv, *metric, 10, 42), "seeded");
            // beyond the bootstrap's size, the normal interval: centred on the mean
            let wide = mean_band(&run, &conv, *metric, BAND_VALUES / 40 + 1, 42);
            let mean = mean_curve(&run, &conv, *metric, BAND_VALUES / 40 + 1);
            for ((lo, hi), m) in wide.iter().zip(&mean).take(10) {
                assert!(((lo + hi) / 2.0 - m).abs() < 1e-12, "{metric:?}");
            }
        }
        // at every cutoff, the bootstrap interval of that cutoff's per-query
        // values (the same draws: stats::bootstrap_ci, whose coverage is tested)
        let band = mean_band(&run, &conv, CurveMetric::Ndcg, 10, 42);
        for (p, b) in band.iter().enumerate() {
            let at: Vec<f64> = (0..run.num_queries())
                .map(|i| query_curve(&run.query(i), &conv, CurveMetric::Ndcg, 10)[p])
                .collect();
            let want = crate::stats::bootstrap_ci(&at, BAND_RESAMPLES, 42).unwrap();
            assert!(
                (b.0 - want.0).abs() < 1e-12 && (b.1 - want.1).abs() < 1e-12,
                "p={}: {b:?} {want:?}",
                p + 1
            );
        }
        // one query: no spread
        let one = run_from(&refs[..1], false);
        assert!(mean_band(&one, &conv, CurveMetric::Ndcg, 5, 1)
            .iter()
            .all(|(lo, hi)| lo == hi));
    }

    #[test]
    fn curves_agree_with_the_kernels_at_every_p() {
        let conv = Conventions::default();
        for ties in [false, true] {
            let run = run_from(
                &[
                    (&[0, 2, 1, 0, 1], &[2, 1, 1, 1, 0]),
                    (&[1], &[1, 3]),
                    (&[], &[1]),
                    (&[0, 0, 0], &[0]),
                ],
                ties,
            );
            let ctx = conv.ranking_ctx();
            for &metric in CurveMetric::ALL {
                let curve = mean_curve(&run, &conv, metric, 8);
                for p in 1..=8 {
                    let expected: f64 = (0..run.num_queries())
                        .map(|i| {
                            let q = run.query(i);
                            match metric {
                                CurveMetric::Ndcg => q.ndcg(Some(p), ctx.gain, ctx.discount),
                                CurveMetric::Precision => q.precision(Some(p), &ctx),
                                CurveMetric::Recall => q.recall(Some(p), 1),
                                CurveMetric::Map => q.average_precision(Some(p), &ctx),
                                CurveMetric::HitRate => q.hit(Some(p), 1),
                            }
                        })
                        .sum::<f64>()
                        / run.num_queries() as f64;
                    assert!(
                        (curve[p - 1] - expected).abs() < 1e-12,
                        "{metric:?} p={p} ties={ties}: {} vs {expected}",
                        curve[p - 1]
                    );
                }
            }
            // the elbow's cumulative DCG@p is the DCG kernel's
            let dcg = mean_of(&run, &conv, CurveMetric::Ndcg, 8, true);
            for p in 1..=8 {
                let expected: f64 = (0..run.num_queries())
                    .map(|i| run.query(i).dcg(Some(p), ctx.gain, ctx.discount))
                    .sum::<f64>()
                    / run.num_queries() as f64;
                assert!((dcg[p - 1] - expected).abs() < 1e-12, "DCG@{p}");
            }
        }
    }

    #[test]
    fn a_curve_metric_is_a_registry_ranking_metric_with_a_cutoff_titled_as_its_label() {
        use crate::registry::{info, Cutoff, Kind};
        for &metric in CurveMetric::ALL {
            let row = info(metric.name(), Kind::Ranking)
                .unwrap_or_else(|| panic!("{metric:?}: no ranking metric {}", metric.name()));
            assert_ne!(row.cutoff, Cutoff::None, "{metric:?}");
            let title = row.title.strip_suffix("@k").unwrap_or(row.title);
            assert_eq!(metric.label(), format!("{title}@p"), "{metric:?}");
            assert_eq!(CurveMetric::named(metric.name()), Some(metric));
        }
        assert_eq!(CurveMetric::named("mrr"), None);
    }

    #[test]
    fn the_curve_metrics_are_the_registry_rows_with_a_curve() {
        let rows: Vec<_> = METRICS.iter().filter(|m| m.curve.is_some()).collect();
        assert_eq!(rows.len(), CurveMetric::ALL.len());
        for m in rows {
            assert_eq!(m.kind, Kind::Ranking, "{}", m.base);
            let curve = m.curve.unwrap();
            assert!(CurveMetric::ALL.contains(&curve), "{}", m.base);
            assert_eq!(curve.name(), m.base);
        }
        // the names sessions and links saved before
        let names: Vec<_> = CurveMetric::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["ndcg", "precision", "recall", "map", "hit_rate"]);
        let labels: Vec<_> = CurveMetric::ALL.iter().map(|m| m.label()).collect();
        assert_eq!(labels, ["nDCG@p", "P@p", "R@p", "MAP@p", "Hit@p"]);
    }

    #[test]
    fn a_query_curve_is_the_kernels_value_at_every_p_to_the_bit() {
        // tie groups whose mean gain times the sum of their discounts is not
        // the sum of mean gain times each discount: one DCG sum for both
        let mut conv = Conventions::default();
        for (gain, ties) in [
            (Gain::Linear, false),
            (Gain::Linear, true),
            (Gain::Exponential, true),
        ] {
            conv.gain = gain;
            let run = run_from(
                &[
                    (&[0, 3, 1, 2, 0, 1, 1], &[3, 2, 1, 1, 1, 0]),
                    (&[2, 0, 1, 3], &[3, 2, 1]),
                    (&[0, 0, 1], &[1, 1, 1, 1, 1]),
                ],
                ties,
            );
            let ctx = conv.ranking_ctx();
            for i in 0..run.num_queries() {
                let q = run.query(i);
                for &metric in CurveMetric::ALL {
                    let curve = query_curve(&q, &conv, metric, 9);
                    for p in 1..=9 {
                        let k = Some(p);
                        let want = match metric {
                            CurveMetric::Ndcg => q.ndcg(k, ctx.gain, ctx.discount),
                            CurveMetric::Precision => q.precision(k, &ctx),
                            CurveMetric::Recall => q.recall(k, 1),
                            CurveMetric::Map => q.average_precision(k, &ctx),
                            CurveMetric::HitRate => q.hit(k, 1),
                        };
                        assert_eq!(
                            curve[p - 1].to_bits(),
                            want.to_bits(),
                            "{metric:?} p={p} ties={ties} {gain:?}: {} vs {want}",
                            curve[p - 1]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_knee_is_where_a_rising_curve_bends_and_only_a_clear_one_counts() {
        // saturates at p = 5 of 20
        let y: Vec<f64> = (1..=20)
            .map(|p| {
                if p <= 5 {
                    p as f64 / 5.0
                } else {
                    1.0 + (p - 5) as f64 * 0.001
                }
            })
            .collect();
        assert_eq!(knee(&y), Some(5));
        assert_eq!(knee(&[1.0, 1.0, 1.0]), None, "flat");
        assert_eq!(knee(&[0.0, 0.5, 1.0]), None, "a straight line");
        assert_eq!(knee(&[0.0, 1.0]), None);
        let convex: Vec<f64> = (1..=20).map(|p| (p * p) as f64).collect();
        assert_eq!(knee(&convex), None, "accelerating: no diminishing returns");
        // the log2 discount alone (one relevant document per position) is no elbow
        let mut dcg = 0.0;
        let even: Vec<f64> = (1..=100)
            .map(|i| {
                dcg += 1.0 / ((i + 1) as f64).log2();
                dcg
            })
            .collect();
        assert_eq!(knee(&even), None);
    }

    #[test]
    fn the_elbow_is_found_on_the_cumulative_curve_not_on_bumps() {
        let conv = Conventions::default();
        // relevant documents only in the top 4 of 20: a clear elbow at 4 for every metric
        let mut grades = vec![1, 1, 1, 1];
        grades.extend([0; 16]);
        let top = run_from(&[(&grades, &[1, 1, 1, 1])], false);
        for metric in [
            CurveMetric::Ndcg,
            CurveMetric::Precision,
            CurveMetric::Recall,
        ] {
            assert_eq!(elbow(&top, &conv, metric, 20), Some(4), "{metric:?}");
        }
        // relevant documents evenly spread: nDCG@p is bumpy (local dips), DCG@p has no knee
        let spread: Vec<i32> = (0..20).map(|i| (i % 3 == 0) as i32).collect();
        let judged: Vec<i32> = spread.iter().copied().filter(|&g| g > 0).collect();
        let run = run_from(&[(&spread, &judged)], false);
        let ndcg = mean_curve(&run, &conv, CurveMetric::Ndcg, 20);
        assert!(ndcg.windows(2).any(|w| w[1] < w[0]), "the nDCG curve dips");
        assert_eq!(elbow(&run, &conv, CurveMetric::Ndcg, 20), None);
        assert_eq!(elbow(&run, &conv, CurveMetric::Recall, 20), None);
    }

    #[test]
    fn a_group_line_is_its_members_mean_with_its_elbow_on_their_mean_cumulative_form() {
        let conv = Conventions::default();
        // two runs of one query: relevant documents at the top (an elbow
        // early) and spread out (later); the group's curve, sd and elbow by hand
        let mut early = vec![1, 1, 1];
        early.extend([0; 17]);
        let mut spread = vec![0; 20];
        for i in [0, 4, 8, 12] {
            spread[i] = 1;
        }
        let judged = [1, 1, 1, 1];
        let mut a = CurveLine::of_run(
            &run_from(&[(&early, &judged)], false),
            &conv,
            CurveMetric::Ndcg,
            20,
            3,
        );
        let mut b = CurveLine::of_run(
            &run_from(&[(&spread, &judged)], false),
            &conv,
            CurveMetric::Ndcg,
            20,
            5,
        );
        (a.name, b.name) = ("fold1".into(), "fold2".into());
        let groups = [
            ("cv".to_string(), "fold*".to_string()),
            ("none".to_string(), "x*".to_string()),
        ];
        let g = group_lines(&[a.clone(), b.clone()], &groups);
        assert_eq!(g.len(), 1, "a group no run matches has no line");
        let g = &g[0];
        assert_eq!(
            (g.name.as_str(), g.color, &g.members[..]),
            ("cv", 3, &["fold1".to_string(), "fold2".to_string()][..])
        );
        let mean_cumulative: Vec<f64> = (0..20)
            .map(|i| (a.cumulative[i] + b.cumulative[i]) / 2.0)
            .collect();
        for (i, want) in mean_cumulative.iter().enumerate() {
            assert!((g.values[i] - (a.values[i] + b.values[i]) / 2.0).abs() < 1e-15);
            assert!((g.sd[i] - (a.values[i] - b.values[i]).abs() / 2.0).abs() < 1e-15);
            assert!((g.cumulative[i] - want).abs() < 1e-15);
        }
        assert_eq!(g.elbow, knee(&mean_cumulative));
        assert!(g.elbow.is_some() && a.elbow.is_some());
        assert!(
            a.elbow <= g.elbow,
            "{:?} {:?} {:?}",
            a.elbow,
            g.elbow,
            b.elbow
        );
    }

    #[test]
    fn a_group_curve_is_the_members_mean_and_population_sd_at_each_cutoff() {
        use crate::diagnostics::pointwise_mean_sd;
        // on the common length 2, numpy: np.mean / np.std of [.2,.4,.6] and
        // [.4,.8,.6] are 0.4, 0.1632993161855452 and 0.6, 0.16329931618554522
        let (a, b, c) = ([0.2, 0.4, 0.9], [0.4, 0.8, 0.7], [0.6, 0.6]);
        let (mean, sd) = pointwise_mean_sd(&[&a, &b, &c]).unwrap();
        assert_eq!(mean.len(), 2);
        assert!((mean[0] - 0.4).abs() < 1e-15 && (mean[1] - 0.6).abs() < 1e-15);
        assert!((sd[0] - 0.1632993161855452).abs() < 1e-15);
        assert!((sd[1] - 0.16329931618554522).abs() < 1e-15);
        assert_eq!(pointwise_mean_sd(&[]), None);
        // the cumulative form's knee is the elbow
        let conv = Conventions::default();
        let mut grades = vec![1, 1, 1, 1];
        grades.extend([0; 16]);
        let top = run_from(&[(&grades, &[1, 1, 1, 1])], false);
        let cumulative = cumulative_curve(&top, &conv, CurveMetric::Ndcg, 20);
        assert_eq!(knee(&cumulative), elbow(&top, &conv, CurveMetric::Ndcg, 20));
    }
}
