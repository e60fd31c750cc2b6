//! Cutoff curves (metric@p for p = 1..P) and their elbow.
//!
//! Each query is walked once: its per-position terms give metric@p for every p
//! up to the end of its list (or of its ideal list, for nDCG); beyond that the
//! value is `a + b/p` (a constant, or hits/p for precision), which is added to
//! the mean through two difference arrays. The mean curve therefore costs
//! O(total list length + relevant documents + P), not O(P x length).

use super::evaluate::Conventions;
use super::ranking::{PreparedRun, QueryView};
use super::ranking_metrics::{
    dcg_term, discounts, gain_of, ApDenominator, Gain, PrecisionDenominator,
};
#[cfg(test)]
use super::Named;

/// Metrics that have a cutoff curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurveMetric {
    Ndcg,
    Precision,
    Recall,
    Map,
    HitRate,
}

crate::named!(CurveMetric {
    Ndcg = "ndcg",
    Precision = "precision",
    Recall = "recall",
    Map = "map",
    HitRate = "hit_rate",
});

impl CurveMetric {
    pub fn label(self) -> &'static str {
        match self {
            CurveMetric::Ndcg => "nDCG@p",
            CurveMetric::Precision => "P@p",
            CurveMetric::Recall => "R@p",
            CurveMetric::Map => "MAP@p",
            CurveMetric::HitRate => "Hit@p",
        }
    }
}

/// Expected per-position terms of one query under the tie rule, for
/// positions < limit (buffers reused from query to query).
#[derive(Default)]
struct Terms {
    gain: Vec<f64>,
    rel: Vec<f64>,
    ap: Vec<f64>,
    hit: Vec<f64>,
}

/// Only the terms `metric` reads are filled into `t` (the others are left
/// empty; nDCG without averaged ties reads the grades instead).
fn position_terms(
    q: &QueryView,
    gain: Gain,
    level: i32,
    limit: usize,
    metric: CurveMetric,
    t: &mut Terms,
) {
    let n = q.grades.len().min(limit);
    let (need_gain, need_rel, need_ap, need_hit) = (
        metric == CurveMetric::Ndcg,
        matches!(metric, CurveMetric::Precision | CurveMetric::Recall),
        metric == CurveMetric::Map,
        metric == CurveMetric::HitRate,
    );
    t.gain.clear();
    t.rel.clear();
    t.ap.clear();
    t.hit.clear();
    if need_gain && !q.average_ties {
        // a group of one: its mean gain is the document's own, which the
        // nDCG curve reads from the grades directly
        return;
    }
    let is_rel = |g: i32| g != super::ranking::NOT_JUDGED && g >= level;
    let mut s = 0;
    let mut above = 0usize; // relevant docs in earlier groups
    let mut miss_before = 1.0; // P(no relevant before this group)
    while s < n {
        let mut e = s + 1;
        if q.average_ties {
            while e < q.grades.len() && q.tied_with_prev[e] {
                e += 1;
            }
        }
        let group = &q.grades[s..e];
        let size = group.len();
        let r = group.iter().filter(|&&g| is_rel(g)).count();
        let mean_gain = if need_gain {
            group.iter().map(|&g| gain_of(g, gain)).sum::<f64>() / size as f64
        } else {
            0.0
        };
        let frac = r as f64 / size as f64;
        let mut miss_in_group = 1.0;
        for i in s..e.min(n) {
            let m = i - s;
            if need_gain {
                t.gain.push(mean_gain);
            }
            if need_rel {
                t.rel.push(frac);
            }
            if need_ap {
                let within = if size > 1 {
                    m as f64 * (r.saturating_sub(1)) as f64 / (size - 1) as f64
                } else {
                    0.0
                };
                t.ap.push(if r > 0 {
                    frac * (above as f64 + 1.0 + within) / (i + 1) as f64
                } else {
                    0.0
                });
            }
            if need_hit {
                miss_in_group *= (size - r).saturating_sub(m) as f64 / (size - m) as f64;
                t.hit.push(1.0 - miss_before * miss_in_group);
            }
        }
        if r > 0 {
            miss_before = 0.0;
        }
        above += r;
        s = e;
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
    let (mut terms, mut head) = (Terms::default(), Vec::new());
    let (tail_const, tail_inv, m) =
        query_curve_head(q, conv, metric, max_p, false, &mut terms, &mut head);
    out[..m].copy_from_slice(&head);
    for (p, v) in out.iter_mut().enumerate().skip(m) {
        *v = tail_const + tail_inv / (p + 1) as f64;
    }
    out
}

/// The exact values for p = 1..=m into `head`, and the tail `a + b/p` for
/// p > m: `(a, b, m)`. `terms` and `head` are scratch space, reused.
/// `cumulative`: the metric's running sum instead ([`elbow`]): DCG@p for
/// nDCG, relevant retrieved for P@p, Σ P@i·rel_i for AP@p.
fn query_curve_head(
    q: &QueryView,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
    cumulative: bool,
    terms: &mut Terms,
    head: &mut Vec<f64>,
) -> (f64, f64, usize) {
    let level = conv.relevance_level;
    let len = q.grades.len().min(max_p);
    position_terms(q, conv.gain, level, max_p, metric, terms);
    let t = &*terms;
    let num_rel = q.num_relevant(level);
    head.clear();
    match metric {
        CurveMetric::Ndcg => {
            let ideal_len = q.judged_desc.len().min(max_p);
            let m = len.max(ideal_len);
            let discount = discounts(conv.discount);
            let (mut dcg, mut idcg) = (0.0, 0.0);
            for i in 0..m {
                let d = discount(i);
                // a grade <= 0 adds +0.0: the sums (from +0.0, growing) keep their bits
                if i < len {
                    if q.average_ties {
                        dcg += t.gain[i] * d;
                    } else if q.grades[i] > 0 {
                        dcg += dcg_term(q.grades[i], conv.gain, d);
                    }
                }
                if i < ideal_len && q.judged_desc[i] > 0 {
                    idcg += dcg_term(q.judged_desc[i], conv.gain, d);
                }
                head.push(if cumulative {
                    dcg
                } else if idcg > 0.0 {
                    dcg / idcg
                } else {
                    0.0
                });
            }
            let last = head.last().copied().unwrap_or(0.0);
            (last, 0.0, m)
        }
        CurveMetric::Precision => {
            let mut hits = 0.0;
            for i in 0..len {
                hits += t.rel[i];
                head.push(if cumulative {
                    hits
                } else {
                    hits / (i + 1) as f64
                });
            }
            if cumulative {
                return (hits, 0.0, len);
            }
            match conv.precision_denominator {
                PrecisionDenominator::K => (0.0, hits, len),
                PrecisionDenominator::MinKLength => {
                    let last = if len > 0 { hits / len as f64 } else { 0.0 };
                    (last, 0.0, len)
                }
            }
        }
        CurveMetric::Recall => {
            let mut hits = 0.0;
            for i in 0..len {
                hits += t.rel[i];
                head.push(if num_rel > 0 {
                    hits / num_rel as f64
                } else {
                    0.0
                });
            }
            let last = head.last().copied().unwrap_or(0.0);
            (last, 0.0, len)
        }
        CurveMetric::Map => {
            // with the min(|R|, p) denominator the tail still changes until p = |R|
            let m = match conv.ap_denominator {
                ApDenominator::Relevant => len,
                ApDenominator::MinRelevantK => len.max(num_rel.min(max_p)),
            };
            let mut acc = 0.0;
            for i in 0..m {
                if i < len {
                    acc += t.ap[i];
                }
                let denom = match conv.ap_denominator {
                    ApDenominator::Relevant => num_rel,
                    ApDenominator::MinRelevantK => num_rel.min(i + 1),
                };
                head.push(if cumulative {
                    acc
                } else if denom > 0 {
                    acc / denom as f64
                } else {
                    0.0
                });
            }
            let last = head.last().copied().unwrap_or(0.0);
            (last, 0.0, m)
        }
        CurveMetric::HitRate => {
            head.extend_from_slice(&t.hit[..len]);
            let last = head.last().copied().unwrap_or(0.0);
            (last, 0.0, len)
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
    let (mut terms, mut head) = (Terms::default(), Vec::new());
    for i in 0..n {
        let (a, b, m) = query_curve_head(
            &run.query(i),
            conv,
            metric,
            max_p,
            cumulative,
            &mut terms,
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
