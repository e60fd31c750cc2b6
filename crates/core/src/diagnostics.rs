//! Binary classifier diagnostics read off the exact curve ([`BinaryCurve`]:
//! each distinct score with the positives and negatives at or above it), so
//! none of them sorts or reads the rows again: calibration (reliability
//! bins, ECE, MCE, Murphy's decomposition of the Brier score), the
//! Kolmogorov–Smirnov statistic, cumulative gains and lift, the DET curve,
//! and operating points (a threshold chosen for a target: recall, precision,
//! TPR, Youden's J, the best Fβ, the least expected cost).
//!
//! Every threshold here means "positive iff score ≥ t" (the ≥ rule);
//! [`OperatingPoint::threshold_for`] gives the value for the > rule.

use super::binary::{BinaryCurve, Confusion};
use super::sum::Sum;

/// How the calibration bins are cut (scikit-learn's `calibration_curve`
/// `strategy`): equal widths over [0, 1], or equal counts of rows (edges at
/// the score quantiles, numpy's linear interpolation; equal edges leave
/// empty bins, which are dropped as scikit-learn drops them).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum BinStrategy {
    #[default]
    Uniform,
    Quantile,
}

crate::named!(BinStrategy {
    Uniform = "uniform",
    Quantile = "quantile"
});

/// One non-empty calibration bin: the rows whose probability p has
/// `lo < p ≤ hi` (the first bin also takes p = `lo`; scikit-learn's
/// `searchsorted` on the inner edges).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CalibrationBin {
    pub lo: f64,
    pub hi: f64,
    pub rows: u64,
    pub positives: u64,
    /// Mean probability of the bin's rows (scikit-learn's `prob_pred`).
    pub mean_predicted: f64,
    /// Fraction of the bin's rows that are positive (`prob_true`).
    pub fraction_positive: f64,
}

/// Reliability bins and the numbers read from them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Calibration {
    pub strategy: BinStrategy,
    /// The `bins + 1` edges asked for (some bins may be empty).
    pub edges: Vec<f64>,
    /// The non-empty bins, lowest first.
    pub bins: Vec<CalibrationBin>,
    /// Expected calibration error: Σ_b (n_b / N) |ō_b − p̄_b|.
    pub ece: f64,
    /// Maximum calibration error: max_b |ō_b − p̄_b|.
    pub mce: f64,
    /// Murphy (1973) on the bins: reliability (1/N) Σ n_b (p̄_b − ō_b)²,
    pub reliability: f64,
    /// resolution (1/N) Σ n_b (ō_b − ō)²,
    pub resolution: f64,
    /// and uncertainty ō (1 − ō); reliability − resolution + uncertainty
    /// is the Brier score of the binned forecasts (each p replaced by p̄_b),
    pub uncertainty: f64,
    /// which is this, computed from the bins' counts directly:
    /// (1/N) Σ_b [P_b (1 − p̄_b)² + (n_b − P_b) p̄_b²]. It is not the Brier
    /// score of the probabilities themselves (that one also counts the
    /// spread of the probabilities within each bin).
    pub brier_binned: f64,
}

/// The calibration of `curve`'s scores read as probabilities through
/// `probability` (increasing: the identity, or the sigmoid for logits) in
/// `bins` bins. `None` without rows or bins, or when a probability is
/// outside [0, 1] (scikit-learn refuses those).
pub fn calibration(
    curve: &BinaryCurve,
    bins: usize,
    strategy: BinStrategy,
    probability: impl Fn(f64) -> f64,
) -> Option<Calibration> {
    let n_rows = curve.positives + curve.negatives;
    let last = curve.thresholds.len().checked_sub(1)?;
    let (hi, lo) = (
        probability(curve.thresholds[0]),
        probability(curve.thresholds[last]),
    );
    if bins == 0 || n_rows == 0 || !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) {
        return None;
    }
    // numpy's linspace(0, 1, bins + 1): i · (1 / bins), the last exactly 1
    let step = 1.0 / bins as f64;
    let fractions: Vec<f64> = (0..=bins)
        .map(|i| if i == bins { 1.0 } else { i as f64 * step })
        .collect();
    let edges: Vec<f64> = match strategy {
        BinStrategy::Uniform => fractions,
        // np.percentile(p, linspace(0, 1, bins + 1) * 100)
        BinStrategy::Quantile => fractions
            .iter()
            .map(|&f| quantile(curve, (f * 100.0) / 100.0, &probability))
            .collect(),
    };
    let inner = &edges[1..bins];
    // per bin: rows, positives, Σ p (compensated)
    let mut acc = vec![(0u64, 0u64, Sum::new()); bins];
    for (t, tp, fp) in curve.steps() {
        let p = probability(t);
        let b = &mut acc[inner.partition_point(|&e| e < p)];
        b.0 += tp + fp;
        b.1 += tp;
        b.2.add((tp + fp) as f64 * p);
    }
    let n = n_rows as f64;
    let base = curve.positives as f64 / n;
    let mut out = Calibration {
        strategy,
        bins: Vec::new(),
        ece: 0.0,
        mce: 0.0,
        reliability: 0.0,
        resolution: 0.0,
        uncertainty: base * (1.0 - base),
        brier_binned: 0.0,
        edges: Vec::new(),
    };
    let (mut ece, mut rel, mut res) = (Sum::new(), Sum::new(), Sum::new());
    let mut binned = Sum::new();
    for (i, &(rows, positives, sum)) in acc.iter().enumerate() {
        if rows == 0 {
            continue;
        }
        let w = rows as f64;
        let (pred, obs) = (sum.value() / w, positives as f64 / w);
        let gap = (obs - pred).abs();
        ece.add(w * gap);
        rel.add(w * gap * gap);
        res.add(w * (obs - base) * (obs - base));
        let negatives = (rows - positives) as f64;
        binned.add(positives as f64 * (1.0 - pred) * (1.0 - pred));
        binned.add(negatives * pred * pred);
        out.mce = out.mce.max(gap);
        out.bins.push(CalibrationBin {
            lo: edges[i],
            hi: edges[i + 1],
            rows,
            positives,
            mean_predicted: pred,
            fraction_positive: obs,
        });
    }
    out.ece = ece.value() / n;
    out.reliability = rel.value() / n;
    out.resolution = res.value() / n;
    out.brier_binned = binned.value() / n;
    out.edges = edges;
    Some(out)
}

/// numpy's `quantile(p, q)` with its default linear method: the order
/// statistics at ⌊(N−1)q⌋ and the next, interpolated as `_lerp` does.
fn quantile(curve: &BinaryCurve, q: f64, probability: &impl Fn(f64) -> f64) -> f64 {
    let n = curve.positives + curve.negatives;
    let virtual_index = (n - 1) as f64 * q;
    let below = virtual_index.floor();
    let gamma = virtual_index - below;
    let a = probability(order_statistic(curve, below as u64));
    let b = probability(order_statistic(curve, (below as u64 + 1).min(n - 1)));
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

/// The `j`-th smallest score (0-based) of the curve's rows.
fn order_statistic(curve: &BinaryCurve, j: u64) -> f64 {
    let n = curve.positives + curve.negatives;
    // the j-th smallest is the (n − j)-th largest: the first threshold
    // with at least n − j rows at or above it
    let i = count_index(curve, n - j);
    curve.thresholds[i]
}

/// The first index whose rows at or above it number at least `rows`.
fn count_index(curve: &BinaryCurve, rows: u64) -> usize {
    let (mut lo, mut hi) = (0, curve.thresholds.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if curve.tps[mid] + curve.fps[mid] < rows {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The Kolmogorov–Smirnov statistic of the positives' and the negatives'
/// scores (scipy's `ks_2samp(...).statistic`): max over thresholds of
/// |TPR − FPR|, with the threshold where it first occurs. `None` unless both
/// classes are present.
pub fn ks(curve: &BinaryCurve) -> Option<(f64, f64)> {
    best(curve, |c| {
        (rate(c.tp, curve.positives) - rate(c.fp, curve.negatives)).abs()
    })
    .map(|p| (p.value, p.threshold))
}

fn rate(k: u64, n: u64) -> f64 {
    k as f64 / n as f64
}

/// The cumulative gains curve: (fraction of rows taken from the top,
/// fraction of the positives among them) from (0, 0) through every distinct
/// threshold. Between two points the line is what a random order of the tied
/// rows gives on average.
pub fn gains_points(curve: &BinaryCurve) -> Vec<(f64, f64)> {
    (0..=curve.thresholds.len())
        .map(|i| gains_point(curve, i))
        .collect()
}

/// Point `i` of [`gains_points`] (0: the origin), read without the list.
pub fn gains_point(curve: &BinaryCurve, i: usize) -> (f64, f64) {
    let Some(i) = i.checked_sub(1) else {
        return (0.0, 0.0);
    };
    let n = (curve.positives + curve.negatives).max(1) as f64;
    let p = curve.positives.max(1) as f64;
    (
        (curve.tps[i] + curve.fps[i]) as f64 / n,
        curve.tps[i] as f64 / p,
    )
}

/// Fraction of the positives among the top `fraction` of the rows by score
/// (the gains curve read at `fraction`, rows sharing a score counted pro
/// rata: the expectation over their orders). `None` without positives.
pub fn gains_at(curve: &BinaryCurve, fraction: f64) -> Option<f64> {
    if curve.positives == 0 {
        return None;
    }
    let n = curve.positives + curve.negatives;
    let k = fraction.clamp(0.0, 1.0) * n as f64;
    // the first threshold whose rows at or above reach k
    let i = (0..curve.thresholds.len())
        .find(|&i| (curve.tps[i] + curve.fps[i]) as f64 >= k)
        .unwrap_or(0);
    let (rows0, tp0) = match i.checked_sub(1) {
        Some(j) => (curve.tps[j] + curve.fps[j], curve.tps[j]),
        None => (0, 0),
    };
    let (rows1, tp1) = (curve.tps[i] + curve.fps[i], curve.tps[i]);
    let share = (k - rows0 as f64) / (rows1 - rows0) as f64;
    let positives = tp0 as f64 + share * (tp1 - tp0) as f64;
    Some(positives / curve.positives as f64)
}

/// Lift of the top `fraction` of the rows: their positive rate over the base
/// rate, gains / fraction. `None` without positives or for a zero fraction.
pub fn lift_at(curve: &BinaryCurve, fraction: f64) -> Option<f64> {
    (fraction > 0.0).then_some(())?;
    gains_at(curve, fraction).map(|g| g / fraction.min(1.0))
}

/// The DET curve as scikit-learn's `det_curve` gives it: (false-positive
/// rate, false-negative rate) per threshold, from the last threshold with no
/// false positive to the first with no false negative, false-positive rate
/// decreasing; with the thresholds (∞ for "nothing positive"). `None` unless
/// both classes are present.
pub fn det_points(curve: &BinaryCurve) -> Option<Vec<(f64, f64, f64)>> {
    if curve.positives == 0 || curve.negatives == 0 {
        return None;
    }
    let (p, n) = (curve.positives, curve.negatives);
    // index 0 is the threshold at infinity, index i + 1 the curve's i-th
    let at = |i: usize| {
        if i == 0 {
            (f64::INFINITY, 0, 0)
        } else {
            (curve.thresholds[i - 1], curve.tps[i - 1], curve.fps[i - 1])
        }
    };
    let len = curve.thresholds.len() + 1;
    let first = (0..len).take_while(|&i| at(i).2 == 0).last().unwrap_or(0);
    let last = (0..len).find(|&i| at(i).1 == p).unwrap_or(len - 1);
    Some(
        (first..=last)
            .rev()
            .map(|i| {
                let (t, tp, fp) = at(i);
                (rate(fp, n), rate(p - tp, p), t)
            })
            .collect(),
    )
}

/// The inverse of the standard normal CDF (the DET curve's axes): Wichura's
/// AS 241 (PPND16), about 16 digits. ±∞ at 0 and 1, NaN outside.
pub fn probit(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    let poly = |c: &[f64], x: f64| c.iter().rev().fold(0.0, |acc, &k| acc * x + k);
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q * poly(&AS241_A, r) / poly(&AS241_B, r);
    }
    let r = if q < 0.0 { p } else { 1.0 - p };
    if r == 0.0 {
        return if q < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let r = (-r.ln()).sqrt();
    let z = if r <= 5.0 {
        let r = r - 1.6;
        poly(&AS241_C, r) / poly(&AS241_D, r)
    } else {
        let r = r - 5.0;
        poly(&AS241_E, r) / poly(&AS241_F, r)
    };
    if q < 0.0 {
        -z
    } else {
        z
    }
}

// AS 241's coefficients, lowest power first, as published.
#[allow(clippy::excessive_precision)]
const AS241_A: [f64; 8] = [
    3.387_132_872_796_366_5,
    133.141_667_891_784_38,
    1_971.590_950_306_551_3,
    13_731.693_765_509_461,
    45_921.953_931_549_87,
    67_265.770_927_008_7,
    33_430.575_583_588_13,
    2_509.080_928_730_122_7,
];
const AS241_B: [f64; 8] = [
    1.0,
    42.313_330_701_600_91,
    687.187_007_492_057_9,
    5_394.196_021_424_751,
    21_213.794_301_586_597,
    39_307.895_800_092_71,
    28_729.085_735_721_943,
    5_226.495_278_852_545,
];
const AS241_C: [f64; 8] = [
    1.423_437_110_749_683_5,
    4.630_337_846_156_546,
    5.769_497_221_460_691,
    3.647_848_324_763_204_5,
    1.270_458_252_452_368_4,
    0.241_780_725_177_450_6,
    0.022_723_844_989_269_184,
    7.745_450_142_783_414e-4,
];
const AS241_D: [f64; 8] = [
    1.0,
    2.053_191_626_637_759,
    1.676_384_830_183_803_8,
    0.689_767_334_985_1,
    0.148_103_976_427_480_08,
    0.015_198_666_563_616_457,
    5.475_938_084_995_345e-4,
    1.050_750_071_644_416_9e-9,
];
const AS241_E: [f64; 8] = [
    6.657_904_643_501_103,
    5.463_784_911_164_114,
    1.784_826_539_917_291_3,
    0.296_560_571_828_504_9,
    0.026_532_189_526_576_124,
    0.001_242_660_947_388_078_4,
    2.711_555_568_743_487_6e-5,
    2.010_334_399_292_288e-7,
];
const AS241_F: [f64; 8] = [
    1.0,
    0.599_832_206_555_888,
    0.136_929_880_922_735_8,
    0.014_875_361_290_850_615,
    7.868_691_311_456_133e-4,
    1.846_318_317_510_054_8e-5,
    1.421_511_758_316_446e-7,
    2.044_263_103_389_939_7e-15,
];

/// A threshold chosen for a target, with its confusion matrix and the value
/// that chose it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct OperatingPoint {
    /// Positive iff score ≥ `threshold` (+∞: nothing is positive).
    pub threshold: f64,
    pub confusion: Confusion,
    pub value: f64,
}

impl OperatingPoint {
    /// The threshold giving the same predictions under the > rule: the next
    /// lower distinct score (−∞ when every row is positive).
    pub fn threshold_for(&self, curve: &BinaryCurve, above: bool) -> f64 {
        if !above {
            return self.threshold;
        }
        let i = curve.thresholds.partition_point(|&s| s >= self.threshold);
        curve
            .thresholds
            .get(i)
            .copied()
            .unwrap_or(f64::NEG_INFINITY)
    }
}

/// The operating points of the curve: "nothing positive" (threshold +∞)
/// and each distinct score, highest first.
fn points(curve: &BinaryCurve) -> impl Iterator<Item = (f64, Confusion)> + '_ {
    let none = (f64::INFINITY, 0, 0);
    let each =
        (0..curve.thresholds.len()).map(|i| (curve.thresholds[i], curve.tps[i], curve.fps[i]));
    std::iter::once(none).chain(each).map(|(t, tp, fp)| {
        let c = Confusion {
            tp,
            fp,
            fn_: curve.positives - tp,
            tn: curve.negatives - fp,
        };
        (t, c)
    })
}

/// The operating point with the largest `score` (the highest threshold among
/// equals); scores that are NaN are skipped. `None` when none is a number.
fn best(curve: &BinaryCurve, score: impl Fn(&Confusion) -> f64) -> Option<OperatingPoint> {
    let mut out: Option<OperatingPoint> = None;
    for (threshold, confusion) in points(curve) {
        let value = score(&confusion);
        if !value.is_nan() && out.is_none_or(|o| value > o.value) {
            out = Some(OperatingPoint {
                threshold,
                confusion,
                value,
            });
        }
    }
    out
}

/// An operating point's target or objective.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The highest precision among thresholds with recall ≥ r.
    PrecisionAtRecall(f64),
    /// The highest recall among thresholds with precision ≥ p.
    RecallAtPrecision(f64),
    /// The lowest false-positive rate among thresholds with TPR ≥ t.
    FprAtTpr(f64),
    /// The largest Youden's J = TPR − FPR.
    Youden,
    /// The largest Fβ = (1+β²)TP / ((1+β²)TP + β²FN + FP).
    MaxF(f64),
    /// The least expected cost per row, c_FP·FP/N + c_FN·FN/N; with a
    /// target prevalence π, c_FN·π·FNR + c_FP·(1−π)·FPR instead.
    MinCost {
        fp: f64,
        fn_: f64,
        prevalence: Option<f64>,
    },
}

/// The operating point for `target`, its `value` the target's metric
/// (precision, recall, FPR, J, Fβ or the cost). `None` when no threshold
/// reaches the target or a needed class is absent.
pub fn operating_point(curve: &BinaryCurve, target: Target) -> Option<OperatingPoint> {
    operating_points(curve, &[target]).pop().flatten()
}

/// [`operating_point`] of each of `targets`, in one pass over the curve.
pub fn operating_points(curve: &BinaryCurve, targets: &[Target]) -> Vec<Option<OperatingPoint>> {
    let (pos, neg) = (curve.positives, curve.negatives);
    let mut found: Vec<Option<OperatingPoint>> = vec![None; targets.len()];
    for (threshold, confusion) in points(curve) {
        for (&target, out) in targets.iter().zip(&mut found) {
            // the largest score wins, the highest threshold among equals (as [`best`])
            let value = target_score(target, &confusion, pos, neg);
            if !value.is_nan() && out.as_ref().is_none_or(|o| value > o.value) {
                *out = Some(OperatingPoint {
                    threshold,
                    confusion,
                    value,
                });
            }
        }
    }
    (found.into_iter().zip(targets))
        .map(|(point, target)| {
            let point = point?;
            (pos > 0).then_some(())?;
            let negate = matches!(target, Target::FprAtTpr(_) | Target::MinCost { .. });
            Some(OperatingPoint {
                value: if negate { -point.value } else { point.value },
                ..point
            })
        })
        .collect()
}

/// What an operating point for `target` maximises at confusion `c`: unmet
/// constraints score NaN (skipped), minima are maxima of the negation.
fn target_score(target: Target, c: &Confusion, pos: u64, neg: u64) -> f64 {
    let tpr = |c: &Confusion| rate(c.tp, pos);
    let fpr = |c: &Confusion| rate(c.fp, neg);
    let precision = |c: &Confusion| c.tp as f64 / (c.tp + c.fp) as f64;
    let when = |ok: bool, v: f64| if ok { v } else { f64::NAN };
    match target {
        Target::PrecisionAtRecall(r) => when(tpr(c) >= r, precision(c)),
        Target::RecallAtPrecision(p) => when(precision(c) >= p, tpr(c)),
        Target::FprAtTpr(t) => when(tpr(c) >= t, -fpr(c)),
        Target::Youden => when(neg > 0, tpr(c) - fpr(c)),
        Target::MaxF(beta) => {
            let b2 = beta * beta;
            let num = (1.0 + b2) * c.tp as f64;
            num / (num + b2 * c.fn_ as f64 + c.fp as f64)
        }
        Target::MinCost {
            fp,
            fn_,
            prevalence,
        } => -match prevalence {
            Some(pi) => fn_ * pi * rate(c.fn_, pos) + fp * (1.0 - pi) * fpr(c),
            None => (fp * c.fp as f64 + fn_ * c.fn_ as f64) / (pos + neg) as f64,
        },
    }
}

/// The scores' histogram per class: (positives, negatives) in each of
/// `bins` equal widths over [`lo`, `hi`] (a score on an inner edge in the
/// upper bin, `hi` in the last; scores outside in the end bins).
pub fn histogram(curve: &BinaryCurve, lo: f64, hi: f64, bins: usize) -> Vec<(u64, u64)> {
    let mut out = vec![(0u64, 0u64); bins.max(1)];
    let last = out.len() - 1;
    let width = (hi - lo) / out.len() as f64;
    for (t, tp, fp) in curve.steps() {
        let at = ((t - lo) / width).floor();
        let b = if at.is_nan() || at < 0.0 {
            0
        } else {
            (at as usize).min(last)
        };
        out[b].0 += tp;
        out[b].1 += fp;
    }
    out
}

/// Several models' ROC curves averaged vertically (folds or seeds of one
/// model), as scikit-learn's "ROC with cross validation" example does: each
/// curve's TPR read at `grid` evenly spaced FPRs (numpy's `interp`: on a
/// vertical step, the step's top), TPR at FPR 0 set to 0 and the mean's
/// last to 1; the band is ±1 standard deviation (numpy's `std`, ddof 0)
/// clipped to [0, 1]; the mean curve's AUC by the trapezoid rule, with the
/// mean and standard deviation of the members' own AUCs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AveragedRoc {
    pub fpr: Vec<f64>,
    pub mean_tpr: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    /// AUC of the mean curve.
    pub auc_of_mean: f64,
    /// Mean and standard deviation (ddof 0) of the members' AUCs.
    pub auc_mean: f64,
    pub auc_sd: f64,
}

/// `None` unless every curve has both classes (and there is one at least).
pub fn averaged_roc(curves: &[&BinaryCurve], grid: usize) -> Option<AveragedRoc> {
    if curves.is_empty() || grid < 2 {
        return None;
    }
    let fpr = unit_grid(grid);
    let mut tprs = Vec::with_capacity(curves.len());
    let mut aucs = Vec::with_capacity(curves.len());
    for curve in curves {
        aucs.push(curve.roc_auc().filter(|_| curve.negatives > 0)?);
        let points = curve.roc_points();
        let mut tpr: Vec<f64> = fpr.iter().map(|&x| interp(x, &points)).collect();
        tpr[0] = 0.0;
        tprs.push(tpr);
    }
    let (mean_tpr, lower, upper) = vertical_band(&tprs, Some(1.0))?;
    let auc_of_mean = (1..grid)
        .map(|i| (fpr[i] - fpr[i - 1]) * (mean_tpr[i] + mean_tpr[i - 1]) / 2.0)
        .sum();
    let (auc_mean, auc_sd) = mean_sd(&aucs)?;
    Some(AveragedRoc {
        fpr,
        mean_tpr,
        lower,
        upper,
        auc_of_mean,
        auc_mean,
        auc_sd,
    })
}

/// The pointwise mean of `rows` (equal lengths) with its ±1 standard
/// deviation (ddof 0) clipped to [0, 1]; the mean's last value set to
/// `last` first when given (an averaged ROC curve ends at 1).
fn vertical_band(rows: &[Vec<f64>], last: Option<f64>) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let rows: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
    let (mut mean, sd) = pointwise_mean_sd(&rows)?;
    if let (Some(last), Some(m)) = (last, mean.last_mut()) {
        *m = last;
    }
    let lower = mean
        .iter()
        .zip(&sd)
        .map(|(m, s)| (m - s).max(0.0))
        .collect();
    let upper = mean
        .iter()
        .zip(&sd)
        .map(|(m, s)| (m + s).min(1.0))
        .collect();
    Some((mean, lower, upper))
}

/// `grid` evenly spaced points of [0, 1] as numpy's `linspace(0, 1, grid)`
/// (the last exactly 1).
fn unit_grid(grid: usize) -> Vec<f64> {
    let step = 1.0 / (grid - 1) as f64;
    (0..grid)
        .map(|i| if i == grid - 1 { 1.0 } else { i as f64 * step })
        .collect()
}

/// Several rows as one (folds or seeds of one model; runs of one system on
/// the elbow chart): at every position the mean and standard deviation
/// (ddof 0, [`mean_sd`], as the metric table's group rows and `rankscope
/// eval --group`) of the rows' values, as long as the shortest row. `None`
/// for no rows.
pub fn pointwise_mean_sd(rows: &[&[f64]]) -> Option<(Vec<f64>, Vec<f64>)> {
    let len = rows.iter().map(|r| r.len()).min()?;
    let (mut mean, mut sd) = (Vec::with_capacity(len), Vec::with_capacity(len));
    let mut at = Vec::with_capacity(rows.len());
    for p in 0..len {
        at.clear();
        at.extend(rows.iter().map(|r| r[p]));
        let (m, s) = mean_sd(&at)?;
        mean.push(m);
        sd.push(s);
    }
    Some((mean, sd))
}

/// Several models' precision–recall curves averaged vertically, as their
/// ROC curves are ([`averaged_roc`]): each curve's precision read at `grid`
/// evenly spaced recalls by numpy's `interp` on scikit-learn's
/// `precision_recall_curve` in increasing recall (`interp(mean_recall,
/// recall[::-1], precision[::-1])`, the common recipe: scikit-learn's
/// examples average only ROC curves); the band ±1 standard deviation
/// (ddof 0) clipped to [0, 1]; the mean and standard deviation of the
/// members' average precisions.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AveragedPr {
    pub recall: Vec<f64>,
    pub mean_precision: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub ap_mean: f64,
    pub ap_sd: f64,
}

/// `None` unless every curve has a positive (and there is one at least).
pub fn averaged_pr(curves: &[&BinaryCurve], grid: usize) -> Option<AveragedPr> {
    if curves.is_empty() || grid < 2 {
        return None;
    }
    let recall = unit_grid(grid);
    let mut precisions = Vec::with_capacity(curves.len());
    let mut aps = Vec::with_capacity(curves.len());
    for curve in curves {
        aps.push(curve.average_precision().filter(|_| curve.positives > 0)?);
        let mut points = curve.pr_points();
        points.reverse();
        precisions.push(recall.iter().map(|&x| interp(x, &points)).collect());
    }
    let (mean_precision, lower, upper) = vertical_band(&precisions, None)?;
    let (ap_mean, ap_sd) = mean_sd(&aps)?;
    Some(AveragedPr {
        recall,
        mean_precision,
        lower,
        upper,
        ap_mean,
        ap_sd,
    })
}

/// numpy's `interp(x, xp, fp)` on increasing (not strictly) `points`.
fn interp(x: f64, points: &[(f64, f64)]) -> f64 {
    // the last point at or left of x
    let j = points.partition_point(|p| p.0 <= x);
    let Some(j) = j.checked_sub(1) else {
        return points[0].1;
    };
    if j + 1 == points.len() || points[j].0 == x {
        return points[j].1;
    }
    let (a, b) = (points[j], points[j + 1]);
    let slope = (b.1 - a.1) / (b.0 - a.0);
    slope * (x - a.0) + a.1
}

/// Mean and standard deviation (ddof 0, numpy's `std`) of `values`, as a
/// group of folds or seeds is shown (`None` for no values).
pub fn mean_sd(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len() as f64;
    (!values.is_empty()).then(|| {
        let m = super::sum::sum(values.iter().copied()) / n;
        let var = super::sum::sum(values.iter().map(|x| (x - m) * (x - m))) / n;
        (m, var.sqrt())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(rows: &[(f64, bool)]) -> BinaryCurve {
        let (s, l): (Vec<f64>, Vec<bool>) = rows.iter().copied().unzip();
        BinaryCurve::new(&l, &s)
    }

    #[test]
    fn calibration_bins_follow_scikit_learn_edges() {
        // 0.3 sits on the inner edge 0.30000000000000004's lower side: bin 2
        let c = curve(&[
            (0.05, false),
            (0.3, true),
            (0.35, false),
            (0.95, true),
            (1.0, true),
        ]);
        let cal = calibration(&c, 10, BinStrategy::Uniform, |p| p).unwrap();
        let rows: Vec<(f64, u64, u64)> = cal
            .bins
            .iter()
            .map(|b| (b.lo, b.rows, b.positives))
            .collect();
        assert_eq!(
            rows,
            vec![
                (0.0, 1, 0),
                (0.2, 1, 1),
                (0.30000000000000004, 1, 0),
                (0.9, 2, 2)
            ]
        );
        let decomposed = cal.reliability - cal.resolution + cal.uncertainty;
        // binned forecasts: 0.05, 0.3, 0.35, 0.975, 0.975
        let direct =
            (0.05f64.powi(2) + 0.7f64.powi(2) + 0.35f64.powi(2) + 2.0 * 0.025f64.powi(2)) / 5.0;
        for v in [decomposed, cal.brier_binned] {
            assert!((v - direct).abs() < 1e-15, "{v} {direct}");
        }
        assert!(calibration(&curve(&[(1.5, true)]), 10, BinStrategy::Uniform, |p| p).is_none());
    }

    #[test]
    fn ks_and_youden_agree_when_positives_score_higher() {
        let c = curve(&[
            (0.9, true),
            (0.8, false),
            (0.7, true),
            (0.2, false),
            (0.1, false),
        ]);
        let (k, t) = ks(&c).unwrap();
        let j = operating_point(&c, Target::Youden).unwrap();
        assert_eq!((k, t), (j.value, j.threshold));
        assert!((k - 2.0 / 3.0).abs() < 1e-15 && t == 0.7);
    }

    #[test]
    fn gains_share_tied_rows_pro_rata() {
        // four rows tied at 0.5, two of them positive: the top 2 of 4 hold one on average
        let c = curve(&[(0.5, true), (0.5, true), (0.5, false), (0.5, false)]);
        assert_eq!(gains_at(&c, 0.5), Some(0.5));
        assert_eq!(lift_at(&c, 0.5), Some(1.0));
    }

    #[test]
    fn histogram_counts_each_class_per_bin() {
        let c = curve(&[
            (0.0, false),
            (0.25, true),
            (0.5, false),
            (0.5, true),
            (1.0, true),
            (2.0, false),
        ]);
        assert_eq!(
            histogram(&c, 0.0, 1.0, 4),
            vec![(0, 1), (1, 0), (1, 1), (1, 1)]
        );
        assert_eq!(histogram(&c, 0.0, 0.0, 2), vec![(0, 1), (3, 2)]);
    }

    #[test]
    fn probit_matches_known_quantiles() {
        assert_eq!(probit(0.5), 0.0);
        assert!((probit(0.975) - 1.959_963_984_540_054).abs() < 1e-15);
        assert!((probit(1e-10) + 6.361_340_902_404_056).abs() < 1e-13);
        assert_eq!(probit(1.0), f64::INFINITY);
        assert!(probit(1.5).is_nan());
    }

    #[test]
    fn threshold_for_the_strict_rule_gives_the_same_predictions() {
        let c = curve(&[(0.9, true), (0.8, false), (0.7, true)]);
        let p = operating_point(&c, Target::MaxF(1.0)).unwrap();
        for above in [false, true] {
            let rule = if above {
                super::super::binary::ThresholdRule::Above
            } else {
                super::super::binary::ThresholdRule::AtLeast
            };
            assert_eq!(
                c.confusion_at(p.threshold_for(&c, above), rule),
                p.confusion
            );
        }
    }
}
