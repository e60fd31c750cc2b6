//! Multi-class next-item prediction (seed 000): the rank of the target class.
//!
//! A probability (or logit) matrix is never kept whole: while parsing, each row
//! is reduced to a [`RowSummary`] (the target's value, how many classes beat it
//! or tie with it on either side, the argmax, the row sum and log-sum-exp). Every
//! metric and every tie convention is computed from these summaries, so a
//! 100,000 x 1000 matrix costs O(rows) memory.

use super::sum::Sum;

/// Clip for ln p(target) (sklearn `log_loss`: float64 eps).
pub const CE_EPS: f64 = f64::EPSILON;

/// How tied classes order around the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassTieRule {
    /// Stable descending sort: tied classes with a lower index come first (default; = argmax for rank 1).
    LowerIndexFirst,
    /// sklearn `top_k_accuracy_score`: tied classes with a higher index come first.
    HigherIndexFirst,
    /// Best case: 1 + #{p_j > p_t}.
    Optimistic,
    /// Worst case: #{p_j >= p_t}.
    Pessimistic,
}

crate::named!(ClassTieRule {
    LowerIndexFirst = "lower_index_first",
    HigherIndexFirst = "higher_index_first",
    Optimistic = "optimistic",
    Pessimistic = "pessimistic",
});

/// Whether the matrix holds probabilities or logits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreScale {
    Probabilities,
    /// Apply log-softmax first (what seed 000's loss does).
    Logits,
}

crate::named!(ScoreScale { Probabilities = "probabilities", Logits = "logits" });

/// One row of a probability/logit matrix, reduced.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RowSummary {
    pub target: u32,
    pub target_value: f64,
    pub greater: u32,
    pub tied_lower_index: u32,
    pub tied_higher_index: u32,
    /// Lowest index among the maxima (numpy argmax).
    pub argmax: u32,
    pub row_sum: f64,
    /// ln Σ exp(z_j), for the logit scale.
    pub log_sum_exp: f64,
}

impl RowSummary {
    /// Reduces one row. `target` must be < `values.len()`.
    pub fn from_row(values: &[f64], target: usize) -> RowSummary {
        let t = values[target];
        let (mut greater, mut tl, mut th) = (0u32, 0u32, 0u32);
        let mut argmax = 0usize;
        let mut max = f64::NEG_INFINITY;
        let mut sum = Sum::new();
        for (j, &v) in values.iter().enumerate() {
            if v > t {
                greater += 1;
            } else if v == t && j != target {
                if j < target {
                    tl += 1;
                } else {
                    th += 1;
                }
            }
            if v > max {
                max = v;
                argmax = j;
            }
            sum.add(v);
        }
        let mut lse = Sum::new();
        for &v in values {
            lse.add((v - max).exp());
        }
        RowSummary {
            target: target as u32,
            target_value: t,
            greater,
            tied_lower_index: tl,
            tied_higher_index: th,
            argmax: argmax as u32,
            row_sum: sum.value(),
            log_sum_exp: max + lse.value().ln(),
        }
    }

    /// 1-based rank of the target under the tie rule.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::multiclass::{ClassTieRule, RowSummary};
    ///
    /// // target class 2 scores 0.2: one class above it (0.5), one tied at a lower index (0)
    /// let row = RowSummary::from_row(&[0.2, 0.5, 0.2, 0.1], 2);
    /// assert_eq!(row.rank(ClassTieRule::Optimistic), 2);
    /// assert_eq!(row.rank(ClassTieRule::HigherIndexFirst), 2);
    /// assert_eq!(row.rank(ClassTieRule::LowerIndexFirst), 3);
    /// assert_eq!(row.rank(ClassTieRule::Pessimistic), 3);
    /// ```
    pub fn rank(&self, rule: ClassTieRule) -> u32 {
        1 + self.greater
            + match rule {
                ClassTieRule::LowerIndexFirst => self.tied_lower_index,
                ClassTieRule::HigherIndexFirst => self.tied_higher_index,
                ClassTieRule::Optimistic => 0,
                ClassTieRule::Pessimistic => self.tied_lower_index + self.tied_higher_index,
            }
    }

    pub fn is_tied(&self) -> bool {
        self.tied_lower_index + self.tied_higher_index > 0
    }

    /// ln p(target) under the scale (probabilities clipped at eps).
    pub fn log_prob(&self, scale: ScoreScale) -> f64 {
        match scale {
            ScoreScale::Probabilities => self.target_value.clamp(CE_EPS, 1.0 - CE_EPS).ln(),
            ScoreScale::Logits => self.target_value - self.log_sum_exp,
        }
    }
}

/// One model's predictions, reduced per row: the rank of the target (`None`:
/// not in a top-k list) and the predicted class (rank-1 class).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MulticlassPredictions {
    pub name: String,
    /// From a matrix: per-row summaries. Empty for a top-k list.
    pub rows: Vec<RowSummary>,
    /// From a top-k list: the target's 1-based position, 0 for a miss.
    pub list_positions: Vec<u32>,
    /// From a top-k list: the first prediction per row (u32::MAX if the row is empty).
    pub list_first: Vec<u32>,
    /// Length of the top-k lists (0 for a matrix).
    pub list_len: usize,
}

impl MulticlassPredictions {
    pub fn is_list(&self) -> bool {
        self.rows.is_empty() && !self.list_positions.is_empty()
    }

    pub fn len(&self) -> usize {
        if self.is_list() {
            self.list_positions.len()
        } else {
            self.rows.len()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// 1-based rank of the target of each row, `None` when it is not ranked.
    pub fn ranks(&self, rule: ClassTieRule) -> Vec<Option<u32>> {
        if self.is_list() {
            self.list_positions
                .iter()
                .map(|&p| (p > 0).then_some(p))
                .collect()
        } else {
            self.rows.iter().map(|r| Some(r.rank(rule))).collect()
        }
    }

    /// The predicted class of each row (argmax, or the list's first entry).
    pub fn predicted(&self) -> Vec<u32> {
        if self.is_list() {
            self.list_first.clone()
        } else {
            self.rows.iter().map(|r| r.argmax).collect()
        }
    }
}

/// Acc@k = share of rows whose target rank <= k.
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::accuracy_at;
///
/// // the target's rank in each row; None: not in the row's top-k list
/// let ranks = [Some(1), Some(3), None, Some(2)];
/// assert_eq!(accuracy_at(&ranks, 1), 0.25);
/// assert_eq!(accuracy_at(&ranks, 2), 0.5);
/// ```
pub fn accuracy_at(ranks: &[Option<u32>], k: u32) -> f64 {
    ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / ranks.len().max(1) as f64
}

/// MRR@k = mean of 1/rank (0 beyond k or unranked); `k = None`: no cutoff.
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::mrr;
///
/// // the target's rank in each row; None: not in the row's top-k list
/// let ranks = [Some(1), Some(3), None, Some(2)];
/// assert!((mrr(&ranks, None) - (1.0 + 1.0 / 3.0 + 0.0 + 0.5) / 4.0).abs() < 1e-15);
/// assert_eq!(mrr(&ranks, Some(2)), 0.375); // (1 + 1/2) / 4
/// ```
pub fn mrr(ranks: &[Option<u32>], k: Option<u32>) -> f64 {
    let mut s = Sum::new();
    for r in ranks.iter().flatten() {
        if k.is_none_or(|k| *r <= k) {
            s.add(1.0 / *r as f64);
        }
    }
    s.value() / ranks.len().max(1) as f64
}

/// nDCG@k with one relevant class: 1/log2(rank + 1) if rank <= k else 0 (IDCG = 1).
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::ndcg_at;
///
/// // the target's rank in each row; None: not in the row's top-k list
/// let ranks = [Some(1), Some(3), None, Some(2)];
/// // (1/log2(2) + 1/log2(4) + 0 + 1/log2(3)) / 4
/// let hand = (1.0 + 0.5 + 1.0 / 3f64.log2()) / 4.0;
/// assert!((ndcg_at(&ranks, 3) - hand).abs() < 1e-15);
/// ```
pub fn ndcg_at(ranks: &[Option<u32>], k: u32) -> f64 {
    let mut s = Sum::new();
    for r in ranks.iter().flatten() {
        if *r <= k {
            s.add(1.0 / ((*r + 1) as f64).log2());
        }
    }
    s.value() / ranks.len().max(1) as f64
}

/// Cross-entropy -mean ln p(target).
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::{cross_entropy, RowSummary, ScoreScale};
///
/// let probs = [
///     [0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.3, 0.3, 0.4],
///     [0.2, 0.3, 0.5], [0.5, 0.4, 0.1], [0.4, 0.2, 0.4],
/// ];
/// let targets = [0, 1, 2, 2, 1, 0, 2];
/// let rows: Vec<RowSummary> =
///     probs.iter().zip(targets).map(|(p, t)| RowSummary::from_row(p, t)).collect();
/// // scikit-learn 1.9: log_loss(targets, probs)
/// let ce = cross_entropy(&rows, ScoreScale::Probabilities);
/// assert!((ce - 0.7777856966751597).abs() < 1e-12);
/// ```
pub fn cross_entropy(rows: &[RowSummary], scale: ScoreScale) -> f64 {
    let mut s = Sum::new();
    for r in rows {
        s.add(-r.log_prob(scale));
    }
    s.value() / rows.len().max(1) as f64
}

/// Per class (ascending), its (TP, FP, FN) of predicted vs true classes, over
/// the classes present in either; `u32::MAX` (an empty top-k row's prediction)
/// is left out: only its false negative counts.
pub fn class_counts(targets: &[u32], predicted: &[u32]) -> Vec<(u32, (u64, u64, u64))> {
    use std::collections::HashMap;
    let mut counts: HashMap<u32, (u64, u64, u64)> = HashMap::new();
    for (&t, &p) in targets.iter().zip(predicted) {
        if t == p {
            counts.entry(t).or_default().0 += 1;
        } else {
            counts.entry(p).or_default().1 += 1;
            counts.entry(t).or_default().2 += 1;
        }
    }
    let classes: Vec<_> = counts.into_iter().filter(|c| c.0 != u32::MAX).collect();
    crate::order(classes.len(), &|a, b| classes[a].0.cmp(&classes[b].0))
        .into_iter()
        .map(|i| classes[i])
        .collect()
}

/// F1 from (TP, FP, FN): 2TP / (2TP + FP + FN), 0 when undefined.
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::f1_of;
///
/// assert_eq!(f1_of((2, 1, 1)), 4.0 / 6.0); // 2·2 / (2·2 + 1 + 1)
/// assert_eq!(f1_of((0, 0, 0)), 0.0);
/// ```
pub fn f1_of((tp, fp, fn_): (u64, u64, u64)) -> f64 {
    let denom = 2 * tp + fp + fn_;
    if denom > 0 {
        2.0 * tp as f64 / denom as f64
    } else {
        0.0
    }
}

/// Per-class F1 of predicted vs true classes, averaged weighted by support
/// (`weighted = true`, sklearn `average='weighted'`) or unweighted over the
/// classes present in either (sklearn `average='macro'`).
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::f1_average;
///
/// let targets = [0, 1, 2, 2, 1, 0, 2];
/// let predicted = [0, 2, 2, 2, 1, 1, 0];
/// // scikit-learn 1.9: f1_score(targets, predicted, average="macro" | "weighted")
/// assert!((f1_average(&targets, &predicted, false) - 0.5555555555555555).abs() < 1e-12);
/// assert!((f1_average(&targets, &predicted, true) - 0.5714285714285714).abs() < 1e-12);
/// ```
pub fn f1_average(targets: &[u32], predicted: &[u32], weighted: bool) -> f64 {
    let mut total = Sum::new();
    let mut weight_sum = 0.0;
    for (_, c) in class_counts(targets, predicted) {
        let w = if weighted { (c.0 + c.2) as f64 } else { 1.0 };
        total.add(f1_of(c) * w);
        weight_sum += w;
    }
    if weight_sum > 0.0 {
        total.value() / weight_sum
    } else {
        0.0
    }
}

/// One class's line of scikit-learn's `classification_report`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ClassLine {
    pub class: u32,
    /// `None` where the denominator is 0 and `zero_division` leaves it undefined.
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
    pub support: u64,
}

/// scikit-learn's `classification_report` of predicted vs true classes:
/// one line per class present in either (ascending), accuracy, and the macro
/// and support-weighted averages of precision, recall and F1. A value whose
/// denominator is 0 becomes what `zero_division` says (scikit-learn's default
/// is 0); left undefined, it is skipped by the averages, as scikit-learn's
/// `zero_division=np.nan` skips it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClassReport {
    pub classes: Vec<ClassLine>,
    pub accuracy: f64,
    pub macro_avg: [Option<f64>; 3],
    pub weighted_avg: [Option<f64>; 3],
    pub rows: u64,
}

/// # Examples
///
/// ```
/// use rankscope_core::binary::ZeroDivision;
/// use rankscope_core::multiclass::classification_report;
///
/// let targets = [0, 1, 2, 2, 1, 0, 2];
/// let predicted = [0, 2, 2, 2, 1, 1, 0];
/// // scikit-learn 1.9: classification_report(targets, predicted, output_dict=True)
/// let report = classification_report(&targets, &predicted, ZeroDivision::Zero);
/// assert!((report.accuracy - 0.5714285714285714).abs() < 1e-12);
/// let two = &report.classes[2];
/// assert_eq!((two.class, two.support), (2, 3));
/// assert!((two.precision.unwrap() - 0.6666666666666666).abs() < 1e-12);
/// assert!((report.macro_avg[2].unwrap() - 0.5555555555555555).abs() < 1e-12);
/// assert!((report.weighted_avg[0].unwrap() - 0.5714285714285714).abs() < 1e-12);
/// ```
pub fn classification_report(
    targets: &[u32],
    predicted: &[u32],
    zero_division: super::binary::ZeroDivision,
) -> ClassReport {
    let ratio = |n: u64, d: u64| zero_division.apply((d > 0).then(|| n as f64 / d as f64));
    let classes: Vec<ClassLine> = class_counts(targets, predicted)
        .into_iter()
        .map(|(class, (tp, fp, fn_))| ClassLine {
            class,
            precision: ratio(tp, tp + fp),
            recall: ratio(tp, tp + fn_),
            f1: ratio(2 * tp, 2 * tp + fp + fn_),
            support: tp + fn_,
        })
        .collect();
    let rows = targets.len() as u64;
    let hits = targets
        .iter()
        .zip(predicted)
        .filter(|(t, p)| t == p)
        .count();
    let average = |weighted: bool, pick: fn(&ClassLine) -> Option<f64>| {
        let (mut s, mut w) = (Sum::new(), 0.0);
        for c in &classes {
            let weight = if weighted { c.support as f64 } else { 1.0 };
            if let Some(v) = pick(c) {
                s.add(v * weight);
                w += weight;
            }
        }
        (w > 0.0).then(|| s.value() / w)
    };
    let picks: [fn(&ClassLine) -> Option<f64>; 3] = [|c| c.precision, |c| c.recall, |c| c.f1];
    ClassReport {
        accuracy: hits as f64 / rows.max(1) as f64,
        macro_avg: picks.map(|p| average(false, p)),
        weighted_avg: picks.map(|p| average(true, p)),
        classes,
        rows,
    }
}

/// The confusion matrix over `classes` (ascending): row = true class,
/// column = predicted class (scikit-learn's `confusion_matrix`); a row whose
/// true or predicted class is not listed is left out.
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::confusion_matrix;
///
/// let targets = [0, 1, 2, 2, 1, 0, 2];
/// let predicted = [0, 2, 2, 2, 1, 1, 0];
/// // scikit-learn 1.9: confusion_matrix(targets, predicted)
/// let m = confusion_matrix(&targets, &predicted, &[0, 1, 2]);
/// assert_eq!(m, vec![vec![1, 1, 0], vec![0, 1, 1], vec![1, 0, 2]]);
/// ```
pub fn confusion_matrix(targets: &[u32], predicted: &[u32], classes: &[u32]) -> Vec<Vec<u64>> {
    let k = classes.len();
    let mut m = vec![vec![0u64; k]; k];
    let at = |c: u32| classes.binary_search(&c).ok();
    for (&t, &p) in targets.iter().zip(predicted) {
        if let (Some(i), Some(j)) = (at(t), at(p)) {
            m[i][j] += 1;
        }
    }
    m
}

/// The classes some row targets, ascending.
pub fn present_classes(targets: &[u32]) -> Vec<u32> {
    let mut present = targets.to_vec();
    present.sort_unstable();
    present.dedup();
    present
}

/// Multi-class ROC AUC from each class's score column (`scores[c][row]`),
/// as scikit-learn's `roc_auc_score(multi_class=...)`: one-vs-rest (each
/// class against the others, `ovo = false`) or one-vs-one (Hand & Till
/// 2001: each pair of classes on its own rows, the mean of both
/// directions), averaged unweighted (macro) or weighted by support
/// (one-vs-rest) or by the pair's share of the rows (one-vs-one). The
/// classes are those present in `targets`; `None` with fewer than two.
///
/// # Examples
///
/// ```
/// use rankscope_core::multiclass::multiclass_roc_auc;
///
/// let targets = [0, 1, 2, 2, 1, 0, 2];
/// // one score column per class (rows: 0.6 0.3 0.1, 0.2 0.5 0.3, …)
/// let scores = vec![
///     vec![0.6, 0.2, 0.1, 0.3, 0.2, 0.5, 0.4],
///     vec![0.3, 0.5, 0.3, 0.3, 0.3, 0.4, 0.2],
///     vec![0.1, 0.3, 0.6, 0.4, 0.5, 0.1, 0.4],
/// ];
/// // scikit-learn 1.9: roc_auc_score(targets, probs, multi_class=..., average=...)
/// let auc = |ovo, weighted| multiclass_roc_auc(&targets, &scores, ovo, weighted).unwrap();
/// assert!((auc(false, false) - 0.861111111111111).abs() < 1e-12); // "ovr", "macro"
/// assert!((auc(false, true) - 0.8571428571428571).abs() < 1e-12); // "ovr", "weighted"
/// assert!((auc(true, false) - 0.8541666666666666).abs() < 1e-12); // "ovo", "macro"
/// assert!((auc(true, true) - 0.8571428571428572).abs() < 1e-12); // "ovo", "weighted"
/// ```
pub fn multiclass_roc_auc(
    targets: &[u32],
    scores: &[Vec<f64>],
    ovo: bool,
    weighted: bool,
) -> Option<f64> {
    use super::binary::BinaryCurve;
    let present = present_classes(targets);
    if present.len() < 2 || present.iter().any(|&c| c as usize >= scores.len()) {
        return None;
    }
    let auc = |rows: &[usize], class: u32, column: u32| {
        let labels: Vec<bool> = rows.iter().map(|&r| targets[r] == class).collect();
        let s: Vec<f64> = rows.iter().map(|&r| scores[column as usize][r]).collect();
        BinaryCurve::new(&labels, &s).roc_auc()
    };
    let (mut total, mut weights) = (Sum::new(), 0.0);
    let all: Vec<usize> = (0..targets.len()).collect();
    for (i, &a) in present.iter().enumerate() {
        if !ovo {
            let w = if weighted {
                targets.iter().filter(|&&t| t == a).count() as f64
            } else {
                1.0
            };
            total.add(auc(&all, a, a)? * w);
            weights += w;
            continue;
        }
        for &b in &present[i + 1..] {
            let rows: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&r| targets[r] == a || targets[r] == b)
                .collect();
            let pair = (auc(&rows, a, a)? + auc(&rows, b, b)?) / 2.0;
            let w = if weighted {
                rows.len() as f64 / targets.len() as f64
            } else {
                1.0
            };
            total.add(pair * w);
            weights += w;
        }
    }
    Some(total.value() / weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_uniform_rows_tie_rules() {
        let a = RowSummary::from_row(&[0.25; 4], 0);
        let b = RowSummary::from_row(&[0.25; 4], 3);
        assert_eq!(a.rank(ClassTieRule::LowerIndexFirst), 1);
        assert_eq!(b.rank(ClassTieRule::LowerIndexFirst), 4);
        assert_eq!(a.rank(ClassTieRule::HigherIndexFirst), 4);
        assert_eq!(b.rank(ClassTieRule::HigherIndexFirst), 1);
        assert_eq!(a.rank(ClassTieRule::Optimistic), 1);
        assert_eq!(a.rank(ClassTieRule::Pessimistic), 4);
        assert_eq!(a.argmax, 0);
    }

    #[test]
    fn logits_use_log_softmax() {
        let r = RowSummary::from_row(&[1.0, 2.0, 3.0], 2);
        let expected = 3.0 - (1f64.exp() + 2f64.exp() + 3f64.exp()).ln();
        assert!((r.log_prob(ScoreScale::Logits) - expected).abs() < 1e-12);
    }

    #[test]
    fn seed_000_imbalance_example_weighted_vs_macro() {
        // 1000 of class A predicted right, 10 of class B all predicted as A
        let mut t = vec![0u32; 1000];
        t.extend([1u32; 10]);
        let p = vec![0u32; 1010];
        let weighted = f1_average(&t, &p, true);
        let macro_ = f1_average(&t, &p, false);
        let f1_a = 2.0 * 1000.0 / (2000.0 + 10.0);
        assert!((weighted - f1_a * 1000.0 / 1010.0).abs() < 1e-12);
        assert!((macro_ - f1_a / 2.0).abs() < 1e-12);
    }
}
