//! "Explain this number": the computation behind a value, with its own terms.
//!
//! Every explanation is built from the same kernels as the value it explains
//! and ends on that value; its `terms` combine (as `steps` say) into it, which
//! `tests/explain.rs` checks for every metric on the reference data.

use super::binary::{BinaryCurve, Confusion, ThresholdRule, ZeroDivision};
use super::evaluate::{Conventions, ModelReport, MulticlassData, RatingsData};
use super::multiclass::MulticlassPredictions;
use super::ranking::{QueryView, NOT_JUDGED};
use super::ranking_metrics::{
    dcg_terms, discount_at, gain_of, ApDenominator, ApRun, Ctx, Discount, Gain,
};
use super::registry::{
    self, Average, Cells, ClassView, Compute, CurveTerms, Explain, Kind, MetricId, QueryTerms,
};
use super::sum::Sum;

/// One row of an explanation's table; `term` is its contribution (if any).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub cells: Vec<String>,
    pub term: Option<f64>,
    /// The unit (query id) the row stands for: the page opens its own explanation.
    pub unit: Option<String>,
}

/// How an explanation's values come together, step by step.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub label: String,
    pub value: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub title: String,
    /// The formula as TeX, typeset by `rankscope::math::to_mathml` (the root crate).
    pub formula: String,
    pub notes: Vec<String>,
    pub headers: Vec<String>,
    pub rows: Vec<Row>,
    /// The terms' sum or mean and the steps from it to `value`.
    pub steps: Vec<Step>,
    pub value: f64,
}

fn step(label: impl Into<String>, value: f64) -> Step {
    Step {
        label: label.into(),
        value,
    }
}

fn f(x: f64) -> String {
    if x.is_nan() {
        "— (undefined)".into()
    } else if x == x.trunc() && x.abs() < 1e15 {
        format!("{x}")
    } else {
        format!("{x:.4}")
    }
}

fn k_text(k: Option<usize>) -> String {
    k.map_or("".into(), |k| format!("@{k}"))
}

fn grade_text(g: i32) -> String {
    if g == NOT_JUDGED {
        "not judged".into()
    } else {
        g.to_string()
    }
}

fn discount_text(d: Discount) -> &'static str {
    match d {
        Discount::Log2 => r"\log_2(i+1)",
        Discount::JarvelinB2 => r"\max(1, \log_2 i)",
    }
}

/// The documents of evaluated query `i` of a prepared run, in ranked order.
pub fn ranked_docs(
    p: &super::ranking::PreparedRun,
    run: &super::ranking::Run,
    i: usize,
) -> Vec<String> {
    p.rows[p.row_range(i)]
        .iter()
        .map(|&row| run.doc(row).to_string())
        .collect()
}

/// The mean (or, for counts, the sum) over units (queries, users) of
/// per-unit values, as the tables show it.
pub fn mean(
    metric: &str,
    unit: &str,
    units: &[String],
    values: &[f64],
    shown: f64,
    is_mean: bool,
) -> Explanation {
    let mut total = Sum::new();
    let mut skipped = 0;
    let rows = units
        .iter()
        .zip(values)
        .map(|(u, &v)| {
            if v.is_finite() {
                total.add(v);
            } else {
                skipped += 1;
            }
            Row {
                cells: vec![
                    u.clone(),
                    if v.is_finite() {
                        f(v)
                    } else {
                        "undefined".into()
                    },
                ],
                term: v.is_finite().then_some(v),
                unit: Some(u.clone()),
            }
        })
        .collect();
    let n = values.len() - skipped;
    if !is_mean {
        return Explanation {
            title: format!("{metric}: the sum over {n} {unit}s"),
            formula: format!(r"\text{{{metric}}} = \sum_{{q}} \text{{{metric}}}(q)"),
            notes: vec![format!("A count, summed over {unit}s as trec_eval does.")],
            headers: vec![unit.into(), metric.into()],
            rows,
            steps: vec![step(format!("Σ over the {n} {unit}s"), shown)],
            value: shown,
        };
    }
    Explanation {
        title: format!("{metric}: the mean over {n} {unit}s"),
        formula: format!(
            r"\text{{{metric}}} = \frac{{1}}{{|Q|}} \sum_{{q \in Q}} \text{{{metric}}}(q)"
        ),
        notes: [format!(
            "Each {unit} counts once; choose a {unit} to see its own computation."
        )]
        .into_iter()
        .chain(
            (skipped > 0)
                .then(|| format!("{skipped} {unit}s where the value is undefined are left out.")),
        )
        .collect(),
        headers: vec![unit.into(), metric.into()],
        rows,
        steps: vec![
            step(format!("Σ over the {n} {unit}s"), total.value()),
            step(format!("÷ {n}"), shown),
        ],
        value: shown,
    }
}

/// One query's value of a per-query ranking metric, with its terms: nDCG
/// (gain · discount per rank, DCG, the ideal list, IDCG), AP (P@i at each
/// relevant rank), RR (the first relevant rank), P, R, hit. `docs[i]` names
/// the document at rank i + 1. `None` for other metrics and under averaged ties
/// (their value is an expectation over orderings, with no single list).
pub fn query(q: &QueryView, docs: &[String], id: &MetricId, ctx: &Ctx) -> Option<Explanation> {
    if q.average_ties {
        return None;
    }
    let Explain::Query(terms) = registry::info(&id.base, Kind::Ranking)?.explain else {
        return None;
    };
    Some(match terms {
        QueryTerms::Gains {
            exponential,
            normalised,
        } => {
            let gain = if exponential {
                Gain::Exponential
            } else {
                ctx.gain
            };
            gain_terms(q, docs, id, ctx, gain, normalised)
        }
        QueryTerms::Ap => ap(q, docs, id, ctx),
        QueryTerms::Rr => hit_terms(q, docs, id, ctx, Hits::Rr),
        QueryTerms::Hit => hit_terms(q, docs, id, ctx, Hits::Hit),
        QueryTerms::Precision => hit_terms(q, docs, id, ctx, Hits::Precision),
        QueryTerms::Recall => hit_terms(q, docs, id, ctx, Hits::Recall),
    })
}

/// What a list of hits explains: the first relevant rank, whether there is
/// one, or how many there are over k or over |R|.
#[derive(Clone, Copy, PartialEq)]
enum Hits {
    Rr,
    Hit,
    Precision,
    Recall,
}

/// What every ranking explanation starts from: the cutoff, the ranks shown,
/// relevance, the documents' names.
struct Listed<'a> {
    k: Option<usize>,
    n: usize,
    level: i32,
    kt: String,
    docs: &'a [String],
}

impl<'a> Listed<'a> {
    fn new(q: &QueryView, docs: &'a [String], id: &MetricId, ctx: &Ctx) -> Self {
        let k = id.k;
        Listed {
            k,
            n: k.map_or(q.len(), |k| k.min(q.len())),
            level: ctx.relevance_level,
            kt: k_text(k),
            docs,
        }
    }
    fn rel(&self, g: i32) -> bool {
        g != NOT_JUDGED && g >= self.level
    }
    fn doc(&self, i: usize) -> String {
        self.docs.get(i).cloned().unwrap_or_default()
    }
}

/// DCG's terms (gain · discount per rank), and for nDCG the ideal list and IDCG.
fn gain_terms(
    q: &QueryView,
    docs: &[String],
    id: &MetricId,
    ctx: &Ctx,
    gain: Gain,
    normalised: bool,
) -> Explanation {
    let l = Listed::new(q, docs, id, ctx);
    let (k, n, kt) = (l.k, l.n, l.kt.clone());
    let doc = |i| l.doc(i);
    let gain_text = match gain {
        Gain::Linear => "rel_i",
        Gain::Exponential => "2^{rel_i} - 1",
    };
    // the trec order's terms (the value below is the kernel's, under the tie rule)
    let rows = dcg_terms(&q.grades[..n], gain, ctx.discount)
        .enumerate()
        .map(|(i, t)| {
            let g = q.grades[i];
            Row {
                cells: vec![
                    (i + 1).to_string(),
                    doc(i),
                    grade_text(g),
                    f(gain_of(g, gain)),
                    f(discount_at(i, ctx.discount)),
                    f(t),
                ],
                term: Some(t),
                unit: None,
            }
        })
        .collect();
    let dcg_value = q.dcg(k, gain, ctx.discount);
    let idcg = q.idcg(k, gain, ctx.discount);
    let ideal_len = k.map_or(q.judged_desc.len(), |k| k.min(q.judged_desc.len()));
    // the ideal grades, the first 30 of a long list
    let mut ideal: Vec<String> = q.judged_desc[..ideal_len.min(30)]
        .iter()
        .map(|g| g.to_string())
        .collect();
    if ideal_len > 30 {
        ideal.push(format!("… {} more", ideal_len - 30));
    }
    let mut steps = vec![step(format!("DCG{kt} = Σ terms"), dcg_value)];
    let (formula, value) = if !normalised {
        (
            format!(
                r"\text{{DCG{kt}}} = \sum_{{i=1}}^{{k}} \frac{{{gain_text}}}{{{}}}",
                discount_text(ctx.discount)
            ),
            dcg_value,
        )
    } else {
        steps.push(step(
            format!("IDCG{kt} (ideal order: {})", ideal.join(", ")),
            idcg,
        ));
        let v = q.ndcg(k, gain, ctx.discount);
        steps.push(step(format!("nDCG{kt} = DCG / IDCG"), v));
        (
            format!(
                r"\text{{nDCG{kt}}} = \frac{{\text{{DCG{kt}}}}}{{\text{{IDCG{kt}}}}}, \quad \text{{DCG{kt}}} = \sum_{{i=1}}^{{k}} \frac{{{gain_text}}}{{{}}}",
                discount_text(ctx.discount)
            ),
            v,
        )
    };
    let mut notes = vec![format!(
        "IDCG ranks every judged document of the query by grade (the ideal list), cut at k."
    )];
    if idcg == 0.0 {
        notes.push(
            "No document of this query has a positive grade: nDCG is 0 by convention.".into(),
        );
    }
    Explanation {
        title: format!("{}{kt}", if normalised { "nDCG" } else { "DCG" }),
        formula,
        notes,
        headers: ["rank i", "document", "grade", "gain", "discount", "term"]
            .map(String::from)
            .to_vec(),
        rows,
        steps,
        value,
    }
}

/// AP@k's terms: P@i at each relevant rank, over the denominator in force.
fn ap(q: &QueryView, docs: &[String], id: &MetricId, ctx: &Ctx) -> Explanation {
    let l = Listed::new(q, docs, id, ctx);
    let (k, n, kt, level) = (l.k, l.n, l.kt.clone(), l.level);
    let (rel, doc) = (|g| l.rel(g), |i| l.doc(i));
    let denom = q.ap_denominator(k, ctx);
    let mut run = ApRun::default();
    let mut total = Sum::new();
    let rows = (0..n)
        .map(|i| {
            let g = q.grades[i];
            let r = rel(g);
            let p = run.step(i, r);
            if let Some(p) = p {
                total.add(p);
            }
            Row {
                cells: vec![
                    (i + 1).to_string(),
                    doc(i),
                    grade_text(g),
                    if r { "relevant".into() } else { "".into() },
                    match p {
                        Some(p) => format!("{}/{} = {}", run.hits, i + 1, f(p)),
                        None => "".into(),
                    },
                ],
                term: p,
                unit: None,
            }
        })
        .collect();
    let value = q.average_precision(k, ctx);
    let den_tex = match (k, ctx.ap_denominator) {
        (Some(k), ApDenominator::MinRelevantK) => format!(r"\min(|R|, {k}) = {denom}"),
        _ => format!("|R| = {denom}"),
    };
    let den_text = match (k, ctx.ap_denominator) {
        (Some(k), ApDenominator::MinRelevantK) => format!("min(|R|, {k}) = {denom}"),
        _ => format!("|R| = {denom}"),
    };
    Explanation {
        title: format!("AP{kt}"),
        formula: format!(
            r"\text{{AP{kt}}} = \frac{{1}}{{D}} \sum_{{i \le k,\, rel_i}} P@i, \quad D = {den_tex}"
        ),
        notes: vec![format!(
            "Relevant: grade ≥ {level}. Relevant documents never retrieved add 0 but count in |R|."
        )],
        headers: ["rank i", "document", "grade", "", "P@i"]
            .map(String::from)
            .to_vec(),
        rows,
        steps: vec![
            step("Σ P@i at the relevant ranks", total.value()),
            step(format!("÷ {den_text}"), value),
        ],
        value,
    }
}

/// RR, Hit@k, P@k or R@k: the relevant ranks of the list.
fn hit_terms(q: &QueryView, docs: &[String], id: &MetricId, ctx: &Ctx, what: Hits) -> Explanation {
    let l = Listed::new(q, docs, id, ctx);
    let (k, n, kt, level) = (l.k, l.n, l.kt.clone(), l.level);
    let (rel, doc) = (|g| l.rel(g), |i| l.doc(i));
    let mut hits = 0usize;
    let first = (0..n).find(|&i| rel(q.grades[i]));
    let rows = (0..n)
        .map(|i| {
            let r = rel(q.grades[i]);
            hits += r as usize;
            Row {
                cells: vec![
                    (i + 1).to_string(),
                    doc(i),
                    grade_text(q.grades[i]),
                    if r { "relevant".into() } else { "".into() },
                ],
                term: (r && !matches!(what, Hits::Rr | Hits::Hit)).then_some(1.0),
                unit: None,
            }
        })
        .collect();
    let (formula, steps, value) = match what {
        Hits::Rr => {
            let v = q.reciprocal_rank(k, level);
            let s = match first {
                Some(i) => vec![
                    step(format!("first relevant rank = {}", i + 1), (i + 1) as f64),
                    step(format!("RR = 1 / {}", i + 1), v),
                ],
                None => vec![step(format!("no relevant document in the top {n}: RR"), v)],
            };
            (
                format!(
                    r"\text{{RR{kt}}} = \frac{{1}}{{rank}}, \quad rank = \text{{rank of the first relevant document (0 if none{})}}",
                    if k.is_some() { " within k" } else { "" }
                ),
                s,
                v,
            )
        }
        Hits::Hit => {
            let v = q.hit(k, level);
            (
                format!(
                    r"\text{{Hit{kt}}} = \mathbb{{1}}[\text{{a relevant document is in the top }} k]"
                ),
                vec![
                    step("relevant documents retrieved", hits as f64),
                    step(format!("Hit{kt}"), v),
                ],
                v,
            )
        }
        Hits::Precision => {
            let v = q.precision(k, ctx);
            (
                format!(r"\text{{P{kt}}} = \frac{{|\text{{relevant in top }} k|}}{{k}}"),
                vec![
                    step("relevant in the top k", hits as f64),
                    step(format!("P{kt}"), v),
                ],
                v,
            )
        }
        Hits::Recall => {
            let v = q.recall(k, level);
            (
                format!(
                    r"\text{{R{kt}}} = \frac{{|\text{{relevant in top }} k|}}{{|R|}}, \quad |R| = {}",
                    q.num_relevant(level)
                ),
                vec![
                    step("relevant in the top k", hits as f64),
                    step(format!("R{kt}"), v),
                ],
                v,
            )
        }
    };
    Explanation {
        title: id.to_string(),
        formula,
        notes: vec![format!("Relevant: grade ≥ {level}.")],
        headers: ["rank i", "document", "grade", ""]
            .map(String::from)
            .to_vec(),
        rows,
        steps,
        value,
    }
}

/// ROC AUC as the share of positive–negative pairs the scores order
/// correctly, ties counting ½ (equal to the area under the ROC curve).
pub fn roc_auc(curve: &BinaryCurve) -> Option<Explanation> {
    let value = curve.roc_auc()?;
    let (mut correct, mut tied) = (0u128, 0u128);
    let (mut prev_tp, mut prev_fp) = (0u64, 0u64);
    for (&tp, &fp) in curve.tps.iter().zip(&curve.fps) {
        let (dtp, dfp) = ((tp - prev_tp) as u128, (fp - prev_fp) as u128);
        // the new negatives are outscored by every positive above this threshold
        correct += dfp * prev_tp as u128;
        tied += dfp * dtp;
        prev_tp = tp;
        prev_fp = fp;
    }
    let pairs = curve.positives as u128 * curve.negatives as u128;
    let wrong = pairs - correct - tied;
    let row = |what: &str, count: u128, weight: f64| Row {
        cells: vec![what.into(), count.to_string(), f(weight)],
        term: Some(count as f64 * weight),
        unit: None,
    };
    Some(Explanation {
        title: "ROC AUC".into(),
        formula: r"\text{AUC} = \frac{\text{pairs ordered correctly} + \frac{1}{2} \cdot \text{tied pairs}}{P \cdot N}".into(),
        notes: vec![
            format!("{} positives × {} negatives = {pairs} pairs.", curve.positives, curve.negatives),
            "A pair is ordered correctly when the positive scores higher than the negative. This is the area under the ROC curve (the Mann–Whitney U statistic / (P·N)).".into(),
        ],
        headers: ["pairs", "count", "weight"].map(String::from).to_vec(),
        rows: vec![
            row("positive above negative", correct, 1.0),
            row("tied scores", tied, 0.5),
            row("negative above positive", wrong, 0.0),
        ],
        steps: vec![
            step("Σ count · weight", correct as f64 + tied as f64 / 2.0),
            step(format!("÷ P · N = {pairs}"), value),
        ],
        value,
    })
}

/// Average precision (scikit-learn's step sum): Σ_n (R_n − R_{n−1}) · P_n over
/// the distinct thresholds where recall grows.
pub fn average_precision(curve: &BinaryCurve) -> Option<Explanation> {
    let value = curve.average_precision()?;
    let p = curve.positives as f64;
    let mut prev_tp = 0u64;
    let mut total = Sum::new();
    let mut rows = Vec::new();
    for ((&tp, &fp), &t) in curve.tps.iter().zip(&curve.fps).zip(&curve.thresholds) {
        if tp > prev_tp {
            let dr = (tp - prev_tp) as f64 / p;
            let precision = tp as f64 / (tp + fp) as f64;
            total.add(dr * precision);
            rows.push(Row {
                cells: vec![
                    f(t),
                    format!("{tp}/{}", tp + fp),
                    f(precision),
                    f(dr),
                    f(dr * precision),
                ],
                term: Some(dr * precision),
                unit: None,
            });
        }
        prev_tp = tp;
    }
    Some(Explanation {
        title: "Average precision".into(),
        formula: r"\text{AP} = \sum_{n} (R_n - R_{n-1}) \cdot P_n \quad \text{(thresholds from the highest)}".into(),
        notes: vec!["No interpolation (scikit-learn's average_precision_score).".into()],
        headers: [
            "threshold",
            "TP / predicted",
            "precision P_n",
            "recall gain",
            "term",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        steps: vec![step("Σ terms", total.value()), step("AP", value)],
        value,
    })
}

/// A confusion matrix's cells as numbers (TP, FP, FN, TN).
fn cells(c: &Confusion) -> (f64, f64, f64, f64) {
    (c.tp as f64, c.fp as f64, c.fn_ as f64, c.tn as f64)
}

/// Accuracy's formula, numerator and denominator.
fn accuracy_terms(c: &Confusion) -> (&'static str, f64, f64) {
    let (tp, fp, fn_, tn) = cells(c);
    (
        r"\text{accuracy} = \frac{TP + TN}{TP + FP + FN + TN}",
        tp + tn,
        tp + fp + fn_ + tn,
    )
}

/// Precision's formula, numerator and denominator.
fn precision_terms(c: &Confusion) -> (&'static str, f64, f64) {
    let (tp, fp, _, _) = cells(c);
    (r"\text{precision} = \frac{TP}{TP + FP}", tp, tp + fp)
}

/// Recall's formula, numerator and denominator.
fn recall_terms(c: &Confusion) -> (&'static str, f64, f64) {
    let (tp, _, fn_, _) = cells(c);
    (r"\text{recall} = \frac{TP}{TP + FN}", tp, tp + fn_)
}

/// F1's formula, numerator and denominator.
fn f1_terms(c: &Confusion) -> (&'static str, f64, f64) {
    let (tp, fp, fn_, _) = cells(c);
    (
        r"F_1 = \frac{2 \cdot TP}{2 \cdot TP + FP + FN}",
        2.0 * tp,
        2.0 * tp + fp + fn_,
    )
}

/// MCC's formula, numerator and denominator.
fn mcc_terms(c: &Confusion) -> (&'static str, f64, f64) {
    let (tp, fp, fn_, tn) = cells(c);
    (
        r"\text{MCC} = \frac{TP \cdot TN - FP \cdot FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}}",
        tp * tn - fp * fn_,
        ((tp + fp) * (tp + fn_) * (tn + fp) * (tn + fn_)).sqrt(),
    )
}

/// A threshold metric from the confusion matrix it comes from.
pub fn threshold_metric(
    base: &str,
    c: &Confusion,
    threshold_text: &str,
    zero_division: ZeroDivision,
) -> Option<Explanation> {
    let info = registry::info(base, Kind::Binary)?;
    let terms = match info.explain {
        Explain::F1Average { weighted } => return Some(f1_average(weighted, c, threshold_text)),
        Explain::Threshold(cells) => cells,
        _ => return None,
    };
    let value = info.at_threshold(c, zero_division)?.unwrap_or(f64::NAN);
    let (formula, num, den) = match terms {
        Cells::Accuracy => accuracy_terms(c),
        Cells::Precision => precision_terms(c),
        Cells::Recall => recall_terms(c),
        Cells::F1 => f1_terms(c),
        Cells::Mcc => mcc_terms(c),
    };
    let cell = |what: &str, n: u64| Row {
        cells: vec![what.into(), n.to_string()],
        term: None,
        unit: None,
    };
    Some(Explanation {
        title: base.to_string(),
        formula: formula.into(),
        notes: vec![
            format!("Predicted positive when {threshold_text}."),
            match zero_division {
                ZeroDivision::Undefined => "Undefined (—) when the denominator is 0: zero_division = nan (scikit-learn's default, 'warn', reports 0).",
                ZeroDivision::Zero => "0 when the denominator is 0, with a warning (scikit-learn's default zero_division='warn').",
                ZeroDivision::One => "1 when the denominator is 0 (scikit-learn's zero_division=1).",
            }
            .into(),
        ],
        headers: vec!["cell".into(), "count".into()],
        rows: vec![
            cell("TP (positive, predicted positive)", c.tp),
            cell("FP (negative, predicted positive)", c.fp),
            cell("FN (positive, predicted negative)", c.fn_),
            cell("TN (negative, predicted negative)", c.tn),
        ],
        steps: vec![
            step("numerator", num),
            step("denominator", den),
            step(base, value),
        ],
        value,
    })
}

/// Acc@k, MRR (@k) or nDCG@k of multi-class rows, with the rows grouped by
/// the rank of their target (ranks beyond k, and targets not ranked, in one
/// group worth 0): count · value per row, summed, over N.
pub fn target_ranks(id: &MetricId, ranks: &[Option<u32>]) -> Option<Explanation> {
    let Explain::TargetRanks {
        per_row,
        per_row_text,
        value,
        default_k,
    } = registry::info(&id.base, Kind::Multiclass)?.explain
    else {
        return None;
    };
    let k = id.k.map(|k| k.min(u32::MAX as usize) as u32);
    let value = value(ranks, k);
    let k_acc = k.or(default_k);
    // rows per rank (index 0: beyond k or not ranked, listed last)
    let mut counts: Vec<u64> = Vec::new();
    for r in ranks {
        let key = match r {
            Some(r) if k_acc.is_none_or(|k| *r <= k) => *r as usize,
            _ => 0,
        };
        if key >= counts.len() {
            counts.resize(key + 1, 0);
        }
        counts[key] += 1;
    }
    let groups = (1..counts.len())
        .chain([0])
        .filter(|&r| counts.get(r).is_some_and(|&c| c > 0))
        .map(|r| (if r == 0 { u32::MAX } else { r as u32 }, counts[r]));
    let n = ranks.len();
    let mut total = Sum::new();
    let rows = groups
        .map(|(r, count)| {
            let (label, v) = if r == u32::MAX {
                (
                    match k_acc {
                        Some(k) => format!("> {k} or not ranked"),
                        None => "not ranked".into(),
                    },
                    0.0,
                )
            } else {
                (r.to_string(), per_row(r))
            };
            total.add(count as f64 * v);
            Row {
                cells: vec![label, count.to_string(), f(v), f(count as f64 * v)],
                term: Some(count as f64 * v),
                unit: None,
            }
        })
        .collect();
    let key = id.to_string();
    Some(Explanation {
        title: format!("{key}: the mean over {n} rows"),
        formula: super::registry::info(&id.base, super::registry::Kind::Multiclass)
            .map_or(String::new(), |m| m.tex().to_string()),
        notes: vec![
            format!("Each row's value is {per_row_text} of its target class; rows with the same rank are counted together."),
            "The rank follows the class tie rule in force (see the conventions).".into(),
        ],
        headers: ["rank of the target", "rows", "value per row", "rows × value"]
            .map(String::from)
            .to_vec(),
        rows,
        steps: vec![
            step("Σ rows × value", total.value()),
            step(format!("÷ {n} rows: {key}"), value),
        ],
        value,
    })
}

/// Weighted or macro F1 over the classes of a multi-class prediction: each
/// class's support, TP, FP, FN, F1, its weight and term (sklearn's averages).
pub fn class_f1(
    targets: &[u32],
    predicted: &[u32],
    weighted: bool,
    class_name: &dyn Fn(u32) -> String,
) -> Explanation {
    use super::multiclass;
    let classes = multiclass::class_counts(targets, predicted);
    let weight = |c: &(u64, u64, u64)| if weighted { (c.0 + c.2) as f64 } else { 1.0 };
    let weight_sum: f64 = classes.iter().map(|(_, c)| weight(c)).sum();
    let mut total = Sum::new();
    let rows = classes
        .iter()
        .map(|&(class, c)| {
            let w = if weight_sum > 0.0 {
                weight(&c) / weight_sum
            } else {
                0.0
            };
            let f1 = multiclass::f1_of(c);
            total.add(w * f1);
            Row {
                cells: vec![
                    class_name(class),
                    (c.0 + c.2).to_string(),
                    c.0.to_string(),
                    c.1.to_string(),
                    c.2.to_string(),
                    f(f1),
                    f(w),
                    f(w * f1),
                ],
                term: Some(w * f1),
                unit: None,
            }
        })
        .collect();
    let value = multiclass::f1_average(targets, predicted, weighted);
    let name = if weighted {
        "F1 (weighted)"
    } else {
        "F1 (macro)"
    };
    Explanation {
        title: format!("{name} over {} classes", classes.len()),
        formula: if weighted {
            r"F_1^{weighted} = \sum_{c} \frac{n_c}{N} F_{1,c}, \quad F_{1,c} = \frac{2 \cdot TP_c}{2 \cdot TP_c + FP_c + FN_c}"
        } else {
            r"F_1^{macro} = \frac{1}{C} \sum_{c} F_{1,c}, \quad F_{1,c} = \frac{2 \cdot TP_c}{2 \cdot TP_c + FP_c + FN_c}"
        }
        .into(),
        notes: vec![
            "The prediction of a row is its argmax (lowest index among ties) or its list's first entry.".into(),
            if weighted {
                "Each class weighs by its support n_c (its rows), so frequent classes dominate.".into()
            } else {
                format!("Each of the C = {} classes present in the targets or the predictions weighs the same.", classes.len())
            },
        ],
        headers: ["class", "support n_c", "TP", "FP", "FN", "F1_c", "weight", "term"]
            .map(String::from)
            .to_vec(),
        rows,
        steps: vec![step("Σ weight · F1_c", total.value()), step(name, value)],
        value,
    }
}

/// MAE, MSE or RMSE of rating predictions with the rows grouped by user:
/// each user's rows and Σ|p − r| (or Σ(p − r)²), summed, over n (and the
/// square root for RMSE). `shown` is the table's value.
pub fn rating_errors(
    base: &str,
    users: &[u32],
    user_name: &dyn Fn(u32) -> String,
    r: &[f64],
    p: &[f64],
    shown: f64,
) -> Option<Explanation> {
    let Explain::RatingErrors { squared, root } = registry::info(base, Kind::Ratings)?.explain
    else {
        return None;
    };
    let groups = super::ratings::group_rows(users);
    let mut total = Sum::new();
    let rows = groups
        .iter()
        .enumerate()
        .filter(|(_, rows)| !rows.is_empty())
        .map(|(u, rows)| {
            let mut s = Sum::new();
            for &i in rows {
                let e = p[i] - r[i];
                s.add(if squared { e * e } else { e.abs() });
            }
            total.add(s.value());
            Row {
                cells: vec![user_name(u as u32), rows.len().to_string(), f(s.value())],
                term: Some(s.value()),
                unit: None,
            }
        })
        .collect();
    let n = r.len();
    let mean = total.value() / n.max(1) as f64;
    let mut steps = vec![
        step(
            if squared {
                "Σ (p − r)² over all rows"
            } else {
                "Σ |p − r| over all rows"
            },
            total.value(),
        ),
        step(format!("÷ {n} rows"), if root { mean } else { shown }),
    ];
    if root {
        steps.push(step("√ : RMSE", shown));
    }
    let kind = super::registry::Kind::Ratings;
    Some(Explanation {
        title: format!("{}: {n} ratings", base.to_ascii_uppercase()),
        formula: super::registry::info(base, kind).map_or(String::new(), |m| m.tex().to_string()),
        notes: vec!["Every rating counts once; the rows are grouped by user only to show where the error comes from.".into()],
        headers: ["user", "ratings", if squared { "Σ (p − r)²" } else { "Σ |p − r|" }]
            .map(String::from)
            .to_vec(),
        rows,
        steps,
        value: shown,
    })
}

/// Log loss or Brier score of a model's curve, its row terms summed per class
/// (positives: −ln p or (1 − p)², negatives: −ln(1 − p) or p²), over N: each
/// distinct score once, weighted by its rows of each class, as the value is
/// computed ([`super::binary::BinaryCurve::probability_loss`], with the same `probability`
/// of a score). `None` for other metrics or a probability outside [0, 1].
pub fn probability_loss(
    base: &str,
    curve: &super::binary::BinaryCurve,
    probability: impl Fn(f64) -> f64,
) -> Option<Explanation> {
    use super::binary::{brier_term, log_loss_term};
    let Compute::Loss { brier } = registry::info(base, Kind::Binary)?.compute else {
        return None;
    };
    let term: fn(bool, f64) -> f64 = if brier { brier_term } else { log_loss_term };
    let value = curve.probability_loss(brier, &probability)?;
    let mut sums = [(0u64, Sum::new()), (0u64, Sum::new())];
    for (t, tp, fp) in curve.steps() {
        let p = probability(t);
        for (class, count) in [(true, tp), (false, fp)] {
            if count > 0 {
                let s = &mut sums[usize::from(!class)];
                s.0 += count;
                s.1.add(count as f64 * term(class, p));
            }
        }
    }
    let n = curve.positives + curve.negatives;
    let log = !brier;
    let what = [
        if log { "−ln p" } else { "(1 − p)²" },
        if log { "−ln(1 − p)" } else { "p²" },
    ];
    let rows = sums
        .iter()
        .zip(["positives (y = 1)", "negatives (y = 0)"])
        .zip(what)
        .map(|(((count, sum), class), what)| Row {
            cells: vec![class.into(), count.to_string(), what.into(), f(sum.value())],
            term: Some(sum.value()),
            unit: None,
        })
        .collect();
    let total = sums[0].1.value() + sums[1].1.value();
    let kind = super::registry::Kind::Binary;
    Some(Explanation {
        title: format!("{}: {n} rows", if log { "Log loss" } else { "Brier score" }),
        formula: super::registry::info(base, kind).map_or(String::new(), |m| m.tex().to_string()),
        notes: vec![if log {
            "p is clipped to [ε, 1 − ε], ε = 2.22e−16, so a confident mistake costs at most 36 per row (scikit-learn).".into()
        } else {
            "The mean squared distance between each probability and its label.".into()
        }],
        headers: ["rows", "count", "term per row", "Σ terms"]
            .map(String::from)
            .to_vec(),
        rows,
        steps: vec![
            step("Σ over both classes", total),
            step(format!("÷ {n} rows"), value),
        ],
        value,
    })
}

/// Cross-entropy (or perplexity) of multi-class rows, −ln p(target) summed
/// per target class, over N (then exp for perplexity).
pub fn cross_entropy(
    base: &str,
    rows: &[super::multiclass::RowSummary],
    scale: super::multiclass::ScoreScale,
    class_name: &dyn Fn(u32) -> String,
) -> Option<Explanation> {
    let Explain::CrossEntropy { perplexity } = registry::info(base, Kind::Multiclass)?.explain
    else {
        return None;
    };
    // per true class: rows and Σ −ln p(target)
    let mut per: Vec<(u64, Sum)> = Vec::new();
    for r in rows {
        let c = r.target as usize;
        if c >= per.len() {
            per.resize_with(c + 1, || (0, Sum::new()));
        }
        per[c].0 += 1;
        per[c].1.add(-r.log_prob(scale));
    }
    let mut total = Sum::new();
    let table = per
        .into_iter()
        .enumerate()
        .filter(|(_, (count, _))| *count > 0)
        .map(|(c, (count, sum))| {
            let c = c as u32;
            total.add(sum.value());
            Row {
                cells: vec![class_name(c), count.to_string(), f(sum.value())],
                term: Some(sum.value()),
                unit: None,
            }
        })
        .collect();
    let ce = super::multiclass::cross_entropy(rows, scale);
    let n = rows.len();
    let mut steps = vec![
        step("Σ −ln p(target) over all rows", total.value()),
        step(format!("÷ {n} rows: cross-entropy"), ce),
    ];
    let value = if perplexity {
        steps.push(step("exp: perplexity", ce.exp()));
        ce.exp()
    } else {
        ce
    };
    let kind = super::registry::Kind::Multiclass;
    Some(Explanation {
        title: format!("{base}: {n} rows"),
        formula: super::registry::info(base, kind).map_or(String::new(), |m| m.tex().to_string()),
        notes: vec![
            "p(target) is the probability the row gives its true class (after log-softmax for logits), clipped at ε; rows are grouped by their true class.".into(),
        ],
        headers: ["true class", "rows", "Σ −ln p(target)"].map(String::from).to_vec(),
        rows: table,
        steps,
        value,
    })
}

/// Weighted or macro F1 over both classes: each class's precision, recall
/// and F1 (the negative class read as its own positive), its weight and term.
fn f1_average(weighted: bool, c: &Confusion, threshold_text: &str) -> Explanation {
    let n = c.total() as f64;
    let ratio = |a: u64, b: u64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
    // (class, support, correct, predicted, F1)
    let classes = [
        ("positive", c.tp + c.fn_, c.tp, c.tp + c.fp, c.f1()),
        ("negative", c.tn + c.fp, c.tn, c.tn + c.fn_, c.f1_negative()),
    ];
    // macro: the classes present as a label or a prediction (sklearn's labels)
    let present = classes.iter().filter(|class| class.4.is_some()).count();
    let classes = classes.map(|(class, support, correct, predicted, f1)| {
        (
            class,
            support,
            correct,
            predicted,
            f1.unwrap_or(0.0),
            f1.is_some(),
        )
    });
    let mut total = Sum::new();
    let rows = classes
        .iter()
        .map(|&(class, support, correct, predicted, f1, is_present)| {
            let w = if !weighted {
                if is_present {
                    1.0 / present as f64
                } else {
                    0.0
                }
            } else if n > 0.0 {
                support as f64 / n
            } else {
                0.0
            };
            total.add(w * f1);
            Row {
                cells: vec![
                    class.into(),
                    support.to_string(),
                    format!("{correct}/{predicted} = {}", f(ratio(correct, predicted))),
                    format!("{correct}/{support} = {}", f(ratio(correct, support))),
                    f(f1),
                    if weighted {
                        format!("{support}/{} = {}", c.total(), f(w))
                    } else if is_present {
                        format!("1/{present}")
                    } else {
                        "0 (absent)".into()
                    },
                    f(w * f1),
                ],
                term: Some(w * f1),
                unit: None,
            }
        })
        .collect();
    let value = if weighted {
        c.f1_weighted()
    } else {
        c.f1_macro()
    }
    .unwrap_or(f64::NAN);
    Explanation {
        title: if weighted { "F1 (weighted)" } else { "F1 (macro)" }.into(),
        formula: if weighted {
            r"F_1^{weighted} = \sum_{c} \frac{n_c}{N} F_{1,c}, \quad F_{1,c} = \frac{2 P_c R_c}{P_c + R_c}"
        } else {
            r"F_1^{macro} = \frac{1}{|C|} \sum_{c \in C} F_{1,c}, \quad F_{1,c} = \frac{2 P_c R_c}{P_c + R_c}"
        }
        .into(),
        notes: vec![
            format!("Predicted positive when {threshold_text}; each class in turn is read as the positive one."),
            if weighted {
                "Each class weighs by its share of the examples (its support), so the majority class dominates.".into()
            } else {
                "Each class present (as a label or a prediction, scikit-learn's labels) weighs the same, however rare: a class the model never finds pulls the mean down by its share.".into()
            },
        ],
        headers: ["class", "support n_c", "precision P_c", "recall R_c", "F1_c", "weight", "term"]
            .map(String::from)
            .to_vec(),
        rows,
        steps: vec![step("Σ weight · F1_c", total.value()), step(if weighted { "F1 (weighted)" } else { "F1 (macro)" }, value)],
        value,
    }
}

/// A curve's explanation: ROC AUC's ordered pairs or AP's recall steps.
pub fn curve_terms(terms: CurveTerms, curve: &BinaryCurve) -> Option<Explanation> {
    match terms {
        CurveTerms::PairsOrdered => roc_auc(curve),
        CurveTerms::RecallSteps => average_precision(curve),
    }
}

/// A binary metric's explanation under the conventions in force: the
/// curve's terms, the per-class loss (scores through the sigmoid when they
/// are logits) or the confusion matrix at model `model`'s threshold.
pub fn binary(
    id: &MetricId,
    model: &str,
    curve: &BinaryCurve,
    conv: &Conventions,
) -> Option<Explanation> {
    let info = registry::info(&id.base, Kind::Binary)?;
    match info.explain {
        Explain::Loss => {
            let logits = conv.binary_scores_are_logits;
            probability_loss(info.base, curve, |z| {
                if logits {
                    super::binary::sigmoid(z)
                } else {
                    z
                }
            })
        }
        Explain::Curve(terms) => curve_terms(terms, curve),
        _ => {
            let rule = match conv.threshold_rule {
                ThresholdRule::AtLeast => "score ≥",
                ThresholdRule::Above => "score >",
            };
            let t = conv.threshold_for(model);
            threshold_metric(
                info.base,
                &curve.confusion_at(t, conv.threshold_rule),
                &format!("{rule} {t}"),
                conv.zero_division,
            )
        }
    }
}

/// A multi-class metric's explanation for model `m`, or why there is none.
pub fn multiclass(
    id: &MetricId,
    d: &MulticlassData,
    m: &MulticlassPredictions,
    conv: &Conventions,
) -> Result<Explanation, String> {
    let info = registry::info(&id.base, Kind::Multiclass).ok_or("not a multi-class metric")?;
    let class = |c| format!("class {}", d.class_name(c));
    let ranks = m.ranks(conv.class_ties);
    let predicted = m.predicted();
    if let Compute::Classes(f) = info.compute {
        // a value the data cannot give (acc@k beyond a top-k list) says why
        f(&ClassView {
            targets: &d.targets,
            model: m,
            ranks: &ranks,
            predicted: &predicted,
            scale: conv.class_scale,
            k: id.k.map(|k| k.min(u32::MAX as usize) as u32),
        })?;
    }
    match info.explain {
        Explain::F1Average { weighted } => Ok(class_f1(&d.targets, &predicted, weighted, &class)),
        Explain::CrossEntropy { .. } => cross_entropy(info.base, &m.rows, conv.class_scale, &class)
            .filter(|_| !m.is_list())
            .ok_or_else(|| "Top-k lists carry no probabilities: cross-entropy is undefined.".into()),
        _ => target_ranks(id, &ranks).ok_or_else(|| {
            format!("{id} is the mean over rows of a per-row value computed from the full probability row; it has no shorter breakdown.")
        }),
    }
}

/// A ratings metric's explanation for the predictions `p` of the model
/// whose report is `model`: each user's errors, or the mean of the per-user
/// values, or why there is none.
pub fn ratings(
    id: &MetricId,
    d: &RatingsData,
    p: &[f64],
    model: &ModelReport,
) -> Result<Explanation, String> {
    let key = id.to_string();
    let shown = model
        .metrics
        .get(&key)
        .copied()
        .flatten()
        .ok_or("undefined")?;
    let info = registry::info(&id.base, Kind::Ratings).ok_or("not a ratings metric")?;
    match (info.compute, model.per_unit.get(&key)) {
        (Compute::PerUser(_), Some(values)) => {
            let mut e = mean(&key, "user", &model.unit_ids, values, shown, true);
            // a user's value has no further drill-down: plain rows
            e.rows.iter_mut().for_each(|r| r.unit = None);
            Ok(e)
        }
        _ => rating_errors(info.base, &d.user, &|u| d.users.name(u).to_string(), &d.rating, p, shown)
            .ok_or_else(|| format!("{key} = {shown:.4}: it has no term-by-term breakdown here; the formula above is what the core computes.")),
    }
}

/// A ranking metric's value over the queries from its per-query values:
/// their mean (or, for the counts, their sum), or why it is not one (a
/// geometric mean, or a ratio pooled over the queries).
pub fn over_queries(
    id: &MetricId,
    units: &[String],
    values: Option<&Vec<f64>>,
    shown: f64,
) -> Result<Explanation, String> {
    let key = id.to_string();
    let info = registry::info(&id.base, Kind::Ranking);
    let pooled = info.is_some_and(|m| {
        m.average == Average::Geometric || matches!(m.compute, Compute::Agreement { pooled: true })
    });
    match values {
        Some(values) if !pooled => {
            let summed = info.is_some_and(|m| m.average == Average::Sum);
            Ok(mean(&key, "query", units, values, shown, !summed))
        }
        _ => Err(format!(
            "{key} = {shown:.4} is not an average of per-query values."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_004_ndcg_terms() {
        // seed 004: relevances [0, 5, 1, 4, 2] give DCG 6.151, IDCG 8.954, nDCG 0.687
        let grades = [0, 5, 1, 4, 2];
        let ties = [false; 5];
        let ideal = [5, 4, 2, 1, 0];
        let q = QueryView {
            grades: &grades,
            tied_with_prev: &ties,
            judged_desc: &ideal,
            average_ties: false,
        };
        let docs: Vec<String> = (1..=5).map(|i| format!("d{i}")).collect();
        let e = query(&q, &docs, &MetricId::new("ndcg", Some(5)), &Ctx::default()).unwrap();
        let sum: f64 = e.rows.iter().filter_map(|r| r.term).sum();
        assert!((sum - 6.151).abs() < 5e-4, "{sum}");
        assert!((e.steps[1].value - 8.954).abs() < 5e-4);
        assert!((e.value - 0.687).abs() < 5e-4);
        assert_eq!(e.value, e.steps[0].value / e.steps[1].value);
    }

    #[test]
    fn auc_pairs_add_up() {
        let labels = [true, false, true, false, true, false];
        let scores = [0.9, 0.9, 0.4, 0.5, 0.7, 0.1];
        let curve = BinaryCurve::new(&labels, &scores);
        let e = roc_auc(&curve).unwrap();
        let counts: Vec<&str> = e.rows.iter().map(|r| r.cells[1].as_str()).collect();
        // pairs: (0.9,0.9) tie; 0.9>0.5,0.1; 0.4<0.9,0.5; 0.4>0.1; 0.7<0.9; 0.7>0.5,0.1
        assert_eq!(counts, ["5", "1", "3"]);
        assert_eq!(e.value, 5.5 / 9.0);
    }
}
