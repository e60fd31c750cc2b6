//! Cutoff curves (metric@p for p = 1..P) and their elbow.
//!
//! Each query is walked once: its per-position terms give metric@p for every p
//! up to the end of its list (or of its ideal list, for nDCG); beyond that the
//! value is `a + b/p` (a constant, or hits/p for precision), which is added to
//! the mean through two difference arrays. The mean curve therefore costs
//! O(total list length + relevant documents + P), not O(P x length).

use super::evaluate::Conventions;
use super::ranking::{PreparedRun, QueryView};
use super::ranking_metrics::{discounts, gain_of, ApDenominator, Gain, PrecisionDenominator};

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

impl CurveMetric {
    pub const ALL: [CurveMetric; 5] = [
        CurveMetric::Ndcg,
        CurveMetric::Precision,
        CurveMetric::Recall,
        CurveMetric::Map,
        CurveMetric::HitRate,
    ];

    pub fn id(self) -> &'static str {
        match self {
            CurveMetric::Ndcg => "ndcg",
            CurveMetric::Precision => "precision",
            CurveMetric::Recall => "recall",
            CurveMetric::Map => "map",
            CurveMetric::HitRate => "hit_rate",
        }
    }

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
    let (tail_const, tail_inv, m) = query_curve_head(q, conv, metric, max_p, &mut terms, &mut head);
    out[..m].copy_from_slice(&head);
    for (p, v) in out.iter_mut().enumerate().skip(m) {
        *v = tail_const + tail_inv / (p + 1) as f64;
    }
    out
}

/// The exact values for p = 1..=m into `head`, and the tail `a + b/p` for
/// p > m: `(a, b, m)`. `terms` and `head` are scratch space, reused.
fn query_curve_head(
    q: &QueryView,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
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
                        dcg += gain_of(q.grades[i], conv.gain) * d;
                    }
                }
                if i < ideal_len && q.judged_desc[i] > 0 {
                    idcg += gain_of(q.judged_desc[i], conv.gain) * d;
                }
                head.push(if idcg > 0.0 { dcg / idcg } else { 0.0 });
            }
            let last = head.last().copied().unwrap_or(0.0);
            (last, 0.0, m)
        }
        CurveMetric::Precision => {
            let mut hits = 0.0;
            for i in 0..len {
                hits += t.rel[i];
                head.push(hits / (i + 1) as f64);
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
                head.push(if denom > 0 { acc / denom as f64 } else { 0.0 });
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

/// The mean of metric@p over the evaluated queries, p = 1..=max_p.
pub fn mean_curve(
    run: &PreparedRun,
    conv: &Conventions,
    metric: CurveMetric,
    max_p: usize,
) -> Vec<f64> {
    let mut head_sum = vec![0.0; max_p + 1];
    let mut const_diff = vec![0.0; max_p + 2];
    let mut inv_diff = vec![0.0; max_p + 2];
    let n = run.num_queries();
    let (mut terms, mut head) = (Terms::default(), Vec::new());
    for i in 0..n {
        let (a, b, m) = query_curve_head(&run.query(i), conv, metric, max_p, &mut terms, &mut head);
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

/// The elbow of a curve y(p), p = 1..=len, by Kneedle's difference curve
/// (Satopaa et al. 2011): normalise p and y to [0, 1], and take the p whose
/// point lies farthest from the chord joining the first and the last point.
/// For a concave rising curve (the usual nDCG@p) that is Kneedle's knee; for a
/// falling curve (P@p) its elbow; for a curve that dips first, the turn.
/// `None` for fewer than 3 points, a flat curve, or a straight line.
pub fn kneedle(y: &[f64]) -> Option<usize> {
    let n = y.len();
    if n < 3 {
        return None;
    }
    let (lo, hi) = y
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    if !(hi - lo).is_finite() || hi - lo <= 0.0 {
        return None;
    }
    let norm = |v: f64| (v - lo) / (hi - lo);
    let (first, last) = (norm(y[0]), norm(y[n - 1]));
    let mut best = (0usize, 0.0f64);
    for (i, &v) in y.iter().enumerate() {
        let xn = i as f64 / (n - 1) as f64;
        let chord = first + (last - first) * xn;
        let d = (norm(v) - chord).abs();
        if d > best.1 + 1e-12 {
            best = (i, d);
        }
    }
    (best.1 > 1e-9).then_some(best.0 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ranking::TieRule;
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
            crate::core::sort_descending(&mut j);
            Arc::make_mut(&mut p.judged_desc).extend(j);
            let judged = p.judged_desc.len();
            Arc::make_mut(&mut p.judged_offsets).push(judged);
            p.selection.evaluated.push(i as u32);
        }
        p
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
            for metric in CurveMetric::ALL {
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
        }
    }

    #[test]
    fn kneedle_finds_the_bend() {
        let y: Vec<f64> = (1..=20)
            .map(|p| {
                if p <= 5 {
                    p as f64 / 5.0
                } else {
                    1.0 + (p - 5) as f64 * 0.001
                }
            })
            .collect();
        assert_eq!(kneedle(&y), Some(5));
        let falling: Vec<f64> = y.iter().map(|v| 2.0 - v).collect();
        assert_eq!(kneedle(&falling), Some(5));
        assert_eq!(kneedle(&[1.0, 1.0, 1.0]), None);
        assert_eq!(
            kneedle(&[0.0, 0.5, 1.0]),
            None,
            "a straight line has no elbow"
        );
        // a dip: the turn is the elbow
        assert_eq!(
            kneedle(&[0.6, 0.5, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65]),
            Some(3)
        );
        assert_eq!(kneedle(&[0.0, 1.0]), None);
    }
}
