//! Binary classification: one sort per model gives the exact ROC and PR curves
//! (scikit-learn's `_binary_clf_curve`: cumulative true and false positives at
//! every distinct score), and every threshold metric after it costs O(log n).

use super::base::order_key;
use super::sum::Sum;
use super::POW10;

/// Predicted positive iff `score >= t` (default) or `score > t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdRule {
    #[serde(rename = ">=")]
    AtLeast,
    #[serde(rename = ">")]
    Above,
}

crate::named!(ThresholdRule { AtLeast = ">=", Above = ">" });

/// What a threshold metric whose denominator is zero becomes (precision with
/// no row predicted positive, recall with no positive row, F1 with neither):
/// scikit-learn's `zero_division`. The default is scikit-learn's own
/// (`"warn"`): 0, with a warning (and the table's cell marked); `nan` leaves
/// it undefined (`—`, JSON null), `1` reports 1, each with the warning too.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum ZeroDivision {
    #[serde(rename = "nan")]
    Undefined,
    #[default]
    #[serde(rename = "0")]
    Zero,
    #[serde(rename = "1")]
    One,
}

crate::named!(ZeroDivision { Undefined = "nan", Zero = "0", One = "1" });

impl ZeroDivision {
    /// `value`, or what this rule puts in place of an undefined one.
    pub fn apply(self, value: Option<f64>) -> Option<f64> {
        value.or(match self {
            ZeroDivision::Undefined => None,
            ZeroDivision::Zero => Some(0.0),
            ZeroDivision::One => Some(1.0),
        })
    }
}

/// scikit-learn >= 1.5 clips probabilities to [eps, 1 - eps] with eps = f64::EPSILON.
pub const LOG_LOSS_EPS: f64 = f64::EPSILON;

/// The exact binary curve of one model.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct BinaryCurve {
    /// Distinct scores, descending.
    #[serde(with = "crate::raw")]
    pub thresholds: Vec<f64>,
    /// `tps[i]`: positives with score >= `thresholds[i]`.
    #[serde(with = "crate::raw")]
    pub tps: Vec<u64>,
    /// `fps[i]`: negatives with score >= `thresholds[i]`.
    #[serde(with = "crate::raw")]
    pub fps: Vec<u64>,
    pub positives: u64,
    pub negatives: u64,
    /// The threshold-free summaries, computed on first use: moving the
    /// threshold re-evaluates the table but not these (a curve is never
    /// changed after [`BinaryCurve::new`]).
    #[serde(skip)]
    summaries: Summaries,
}

#[derive(Clone, Debug, Default)]
struct Summaries {
    roc_auc: std::sync::OnceLock<Option<f64>>,
    average_precision: std::sync::OnceLock<Option<f64>>,
    pr_auc_trapezoid: std::sync::OnceLock<Option<f64>>,
    interpolated_average_precision: std::sync::OnceLock<Option<f64>>,
}

/// The number of `true` flags, eight at a time: a bool is one byte, 0 or 1,
/// so words of them add lane by lane (255 words at most before a lane could
/// carry), then the eight lanes of the sum add up.
///
/// # Examples
///
/// ```
/// use rankscope_core::binary::count_true;
///
/// assert_eq!(count_true(&[true, false, true, true]), 3);
/// // every third of 10,000 flags: positions 0, 3, …, 9999
/// let flags: Vec<bool> = (0..10_000).map(|i| i % 3 == 0).collect();
/// assert_eq!(count_true(&flags), 3334);
/// ```
pub fn count_true(flags: &[bool]) -> usize {
    let bytes: &[u8] = bytemuck::cast_slice(flags);
    let (head, words, tail) = bytemuck::pod_align_to::<u8, u64>(bytes);
    let mut n: usize = head.iter().chain(tail).map(|&b| b as usize).sum();
    const LOW: u64 = 0x00ff_00ff_00ff_00ff;
    for block in words.chunks(255) {
        let lanes: u64 = block.iter().sum();
        // four 16-bit lanes of at most 510, then their sum in the top lane
        let pairs = (lanes & LOW) + ((lanes >> 8) & LOW);
        n += (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize;
    }
    n
}

impl BinaryCurve {
    /// Accumulates counts per distinct score, from the highest: counted
    /// per value when the scores are short decimals in a narrow range
    /// ([`BinaryCurve::counted`]), else sorted once. Both give the same curve.
    pub fn new(labels: &[bool], scores: &[f64]) -> BinaryCurve {
        assert!(labels.len() == scores.len(), "one score per label");
        Self::counted(labels, scores).unwrap_or_else(|| Self::sorted(labels, scores))
    }

    /// A curve from its columns, as another program (the page, for a
    /// worker) sends them: refused unless the thresholds strictly descend
    /// (none NaN) and both counts grow by at least one row per threshold.
    pub fn from_parts(
        thresholds: Vec<f64>,
        tps: Vec<u64>,
        fps: Vec<u64>,
    ) -> Result<BinaryCurve, String> {
        let n = thresholds.len();
        let sound = tps.len() == n
            && fps.len() == n
            && thresholds.windows(2).all(|w| w[0] > w[1])
            && !thresholds.first().is_some_and(|t| t.is_nan())
            && (0..n).all(|i| {
                let (tp0, fp0) = if i == 0 {
                    (0, 0)
                } else {
                    (tps[i - 1], fps[i - 1])
                };
                tps[i] >= tp0
                    && fps[i] >= fp0
                    && tps[i].checked_add(fps[i]).is_some_and(|n| n > tp0 + fp0)
            });
        if !sound {
            return Err("the curve's columns are damaged".into());
        }
        Ok(BinaryCurve {
            positives: tps.last().copied().unwrap_or(0),
            negatives: fps.last().copied().unwrap_or(0),
            thresholds,
            tps,
            fps,
            summaries: Summaries::default(),
        })
    }

    /// The curve by one sort of (score, label) keys, descending.
    pub fn sorted(labels: &[bool], scores: &[f64]) -> BinaryCurve {
        // key: order-preserving bits, lowest bit of a separate vector for labels
        let mut keyed: Vec<(u64, bool)> = scores
            .iter()
            .zip(labels)
            .map(|(&s, &l)| (order_key(s), l))
            .collect();
        keyed.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
        let mut curve = BinaryCurve::default();
        let (mut tp, mut fp) = (0u64, 0u64);
        let mut i = 0;
        while i < keyed.len() {
            let key = keyed[i].0;
            while i < keyed.len() && keyed[i].0 == key {
                if keyed[i].1 {
                    tp += 1;
                } else {
                    fp += 1;
                }
                i += 1;
            }
            curve.thresholds.push(scores_from_key(key));
            curve.tps.push(tp);
            curve.fps.push(fp);
        }
        curve.positives = tp;
        curve.negatives = fp;
        curve
    }

    /// The curve without a sort, when every score is `m / 10^k` for one `k`
    /// of at most [`MAX_FRACTION_DIGITS`] and integers `m` in a range of at
    /// most [`BinaryCurve::counting_range`] values (what a file of scores
    /// written with a fixed number of decimals holds): positives and
    /// negatives are counted per `m` (a counting sort), and the thresholds
    /// are the `m` counted, from the highest. `None` for any other scores.
    ///
    /// `k` is the most fraction digits any of the first 64 scores needs;
    /// each score is then checked to be exactly its `m / 10^k` (the same
    /// correctly rounded division that reads a decimal text), so a
    /// threshold is bit for bit the score it stands for, and a score with
    /// more digits, NaN or an infinity sends all of them to the sort.
    pub(crate) fn counted(labels: &[bool], scores: &[f64]) -> Option<BinaryCurve> {
        const EXACT: f64 = (1u64 << 53) as f64;
        // few rows sort fast; a count beyond u32 is not counted
        if scores.len() < 1 << 16 || scores.len() > u32::MAX as usize {
            return None;
        }
        let k = scores
            .iter()
            .take(64)
            .map(|&s| fraction_digits(s))
            .try_fold(0, |k, d| d.map(|d| d.max(k)))?;
        let scale = POW10[k];
        // the range first (a plain scan): NaN and infinities leave here
        let (mut lo, mut hi) = (scores[0], scores[0]);
        for &s in scores {
            if s.is_nan() {
                return None;
            }
            lo = if s < lo { s } else { lo };
            hi = if s > hi { s } else { hi };
        }
        // rounding is monotone: every score's integer lies in [lo, hi]
        let (lo, hi) = (
            (lo * scale).round_ties_even(),
            (hi * scale).round_ties_even(),
        );
        if !(lo >= -EXACT && hi <= EXACT && hi - lo < Self::counting_range(scores.len()) as f64) {
            return None;
        }
        let (lo, range) = (lo as i64, (hi - lo) as usize + 1);
        // Counted in partitions of 2^PART consecutive integers, so that the
        // counting touches one cache-sized table at a time instead of a table
        // of the whole range at random (a cache miss per row past a few MB).
        // First each partition's rows are counted, and each score checked to
        // be exactly its integer / 10^k (the division overlaps the memory
        // waits); then each row goes to its partition's run as its integer's
        // low bits and its label; then each run, from the highest, is counted
        // per integer and read back from the highest.
        const PART: u32 = 12;
        let offset = |s: f64| ((s * scale).round_ties_even() as i64 - lo) as usize;
        let mut starts = vec![0usize; (range >> PART) + 2];
        let mut exact = true;
        for &s in scores {
            let m = (s * scale).round_ties_even();
            exact &= m / scale == s;
            // always in range (rounding is monotone); outside, the sort decides
            *starts.get_mut(((m as i64 - lo) as usize >> PART) + 1)? += 1;
        }
        if !exact {
            return None;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut runs = vec![0u16; scores.len()];
        for (&s, &l) in scores.iter().zip(labels) {
            let o = offset(s);
            let at = &mut next[o >> PART];
            runs[*at] = (((o & ((1 << PART) - 1)) << 1) | l as usize) as u16;
            *at += 1;
        }
        let mut curve = BinaryCurve::default();
        let distinct = range.min(scores.len());
        curve.thresholds.reserve(distinct);
        curve.tps.reserve(distinct);
        curve.fps.reserve(distinct);
        let (mut tp, mut fp) = (0u64, 0u64);
        // [negatives, positives] per integer of one partition
        let mut counts = [[0u32; 2]; 1 << PART];
        for part in (0..starts.len() - 1).rev() {
            let run = &runs[starts[part]..starts[part + 1]];
            if run.is_empty() {
                continue;
            }
            for &key in run {
                counts[(key >> 1) as usize][(key & 1) as usize] += 1;
            }
            let base = lo + (part << PART) as i64;
            for (i, c) in counts.iter_mut().enumerate().rev() {
                let [negatives, positives] = std::mem::take(c);
                if negatives + positives == 0 {
                    continue;
                }
                tp += positives as u64;
                fp += negatives as u64;
                // the integer 0 gives 0, never -0 (one threshold, as in the sort)
                curve.thresholds.push((base + i as i64) as f64 / scale);
                curve.tps.push(tp);
                curve.fps.push(fp);
            }
        }
        curve.positives = tp;
        curve.negatives = fp;
        Some(curve)
    }

    /// The most distinct integers counted for `rows` rows: twice the rows
    /// (at least 2^20), so the counts (8 bytes per integer) take no more
    /// memory than the sort's keys (16 bytes per row).
    pub(crate) fn counting_range(rows: usize) -> usize {
        (2 * rows).max(1 << 20)
    }

    /// The curve of two sets of rows together, from the curve of each: the
    /// union of their thresholds, each with the counts of both at or above
    /// it. The same curve as [`BinaryCurve::new`] on the rows of both (a
    /// curve depends only on the multiset of (score, label) pairs): how the
    /// curves of a file's two halves, sorted in two workers, become one.
    pub fn merge(&self, other: &BinaryCurve) -> BinaryCurve {
        let (a, b) = (self, other);
        // written by index into full-size columns, then cut to length (no
        // push per threshold: the page's size-optimised code does not inline it)
        let capacity = a.thresholds.len() + b.thresholds.len();
        let mut thresholds = vec![0.0; capacity];
        let mut tps = vec![0; capacity];
        let mut fps = vec![0; capacity];
        let (mut i, mut j, mut n) = (0, 0, 0);
        // counts of each side at or above the current threshold
        let (mut at_a, mut at_b) = ((0, 0), (0, 0));
        while i < a.thresholds.len() || j < b.thresholds.len() {
            let ka = a.thresholds.get(i).map(|&t| order_key(t));
            let kb = b.thresholds.get(j).map(|&t| order_key(t));
            // descending: the larger key comes first; equal keys are one threshold
            let key = match (ka, kb) {
                (Some(x), Some(y)) => x.max(y),
                (Some(x), None) => x,
                (None, Some(y)) => y,
                (None, None) => break,
            };
            if ka == Some(key) {
                at_a = (a.tps[i], a.fps[i]);
                i += 1;
            }
            if kb == Some(key) {
                at_b = (b.tps[j], b.fps[j]);
                j += 1;
            }
            thresholds[n] = scores_from_key(key);
            tps[n] = at_a.0 + at_b.0;
            fps[n] = at_a.1 + at_b.1;
            n += 1;
        }
        thresholds.truncate(n);
        tps.truncate(n);
        fps.truncate(n);
        BinaryCurve {
            thresholds,
            tps,
            fps,
            positives: a.positives + b.positives,
            negatives: a.negatives + b.negatives,
            summaries: Summaries::default(),
        }
    }

    /// Checks that this curve (built elsewhere: the loading worker) is a
    /// curve of `labels`: as many positives and negatives, distinct
    /// thresholds in descending order, counts that grow by at least one row
    /// per threshold. Every later use (binary search, differences of counts)
    /// then stays in bounds.
    pub fn check(&self, labels: &[bool]) -> Result<(), String> {
        let positives = count_true(labels) as u64;
        let negatives = labels.len() as u64 - positives;
        let n = self.thresholds.len();
        if self.tps.len() != n || self.fps.len() != n {
            return Err("a curve with columns of different lengths".into());
        }
        if (self.positives, self.negatives) != (positives, negatives) {
            return Err(format!(
                "a curve of {} positives and {} negatives for {positives} and {negatives}",
                self.positives, self.negatives
            ));
        }
        let last = match n {
            0 => (0, 0),
            _ => (self.tps[n - 1], self.fps[n - 1]),
        };
        if last != (positives, negatives) {
            return Err("a curve whose counts do not end at the totals".into());
        }
        let mut before = (None, 0u64, 0u64);
        for i in 0..n {
            let (key, tp, fp) = (order_key(self.thresholds[i]), self.tps[i], self.fps[i]);
            let descending = before.0.is_none_or(|k| key < k);
            if !descending || tp < before.1 || fp < before.2 || tp + fp == before.1 + before.2 {
                return Err(format!("a damaged curve at threshold {i}"));
            }
            before = (Some(key), tp, fp);
        }
        Ok(())
    }

    /// Rows with a score below `lo` or above `hi`.
    pub fn rows_outside(&self, lo: f64, hi: f64) -> u64 {
        // rows at or above a bound: the counts at the last threshold at or above it
        let at_or_above = |bound: f64, strictly: bool| {
            let n = self
                .thresholds
                .partition_point(|&t| if strictly { t > bound } else { t >= bound });
            n.checked_sub(1).map_or(0, |k| self.tps[k] + self.fps[k])
        };
        let total = self.positives + self.negatives;
        at_or_above(hi, true) + total.saturating_sub(at_or_above(lo, false))
    }

    /// Each distinct score, descending, with its positives and negatives
    /// (the rows that have exactly that score).
    pub fn steps(&self) -> impl Iterator<Item = (f64, u64, u64)> + '_ {
        let before = |c: &[u64], i: usize| if i == 0 { 0 } else { c[i - 1] };
        (0..self.thresholds.len()).map(move |i| {
            (
                self.thresholds[i],
                self.tps[i] - before(&self.tps, i),
                self.fps[i] - before(&self.fps, i),
            )
        })
    }

    /// Log loss (`brier = false`) or Brier score (`true`) from the curve:
    /// each distinct score once, its row term weighted by the positives and
    /// negatives that have it, Σ / N. The same terms as [`log_loss`] and
    /// [`brier`] row by row, summed in score order (compensated), so a file
    /// gives the same value however its rows were split or ordered, at the
    /// cost of one logarithm per distinct score instead of per row.
    /// `probability` maps a score to its probability (the identity, or the
    /// sigmoid for logits: increasing, so equal scores stay equal). `None`
    /// when a probability is outside [0, 1] (or NaN): the highest and the
    /// lowest score decide.
    pub fn probability_loss(&self, brier: bool, probability: impl Fn(f64) -> f64) -> Option<f64> {
        let n = self.thresholds.len();
        if n > 0 {
            let inside = |t: f64| (0.0..=1.0).contains(&probability(t));
            if !inside(self.thresholds[0]) || !inside(self.thresholds[n - 1]) {
                return None;
            }
        }
        let term = if brier { brier_term } else { log_loss_term };
        let mut s = Sum::new();
        for (t, tp, fp) in self.steps() {
            let p = probability(t);
            if tp > 0 {
                s.add(tp as f64 * term(true, p));
            }
            if fp > 0 {
                s.add(fp as f64 * term(false, p));
            }
        }
        Some(s.value() / (self.positives + self.negatives).max(1) as f64)
    }

    /// ROC AUC by the trapezoid rule over all distinct thresholds, which equals
    /// the Mann-Whitney U / (P·N) with a tied positive/negative pair counting 1/2
    /// (sklearn `roc_auc_score`). `None` when only one class is present.
    /// Computed in exact integer arithmetic, then divided once.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::binary::BinaryCurve;
    ///
    /// let labels = [false, false, true, true, false, true];
    /// let scores = [0.1, 0.4, 0.35, 0.8, 0.5, 0.7];
    /// let curve = BinaryCurve::new(&labels, &scores);
    ///
    /// // scikit-learn 1.9: roc_auc_score(labels, scores); 7 of the 9
    /// // positive-negative pairs are ordered right
    /// assert!((curve.roc_auc().unwrap() - 0.7777777777777778).abs() < 1e-12);
    /// assert_eq!(BinaryCurve::new(&[true, true], &[0.3, 0.6]).roc_auc(), None);
    /// ```
    pub fn roc_auc(&self) -> Option<f64> {
        *self
            .summaries
            .roc_auc
            .get_or_init(|| self.compute_roc_auc())
    }

    /// DeLong's 95% interval of the ROC AUC, AUC ± 1.96 √var clamped to
    /// [0, 1] (pROC's `ci.auc(method = "delong")`), read off the curve: a
    /// positive's placement (the share of negatives it outscores, a tie
    /// counting half) and a negative's (the share of positives that outscore
    /// it) depend only on its score, so each distinct score's rows share
    /// one, and var = S10 / P + S01 / N with S10 and S01 the placements'
    /// variances (n − 1 denominators; DeLong, DeLong & Clarke-Pearson 1988).
    /// Equal to [`crate::stats::delong`]'s interval on the rows (a
    /// test checks it). `None` when only one class is present.
    pub fn delong_interval(&self) -> Option<(f64, f64)> {
        let auc = self.roc_auc()?;
        let (m, n) = (self.positives as f64, self.negatives as f64);
        let (mut s10, mut s01) = (Sum::new(), Sum::new());
        let (mut prev_tp, mut prev_fp) = (0u64, 0u64);
        for (&tp, &fp) in self.tps.iter().zip(&self.fps) {
            let (dp, dn) = ((tp - prev_tp) as f64, (fp - prev_fp) as f64);
            let v10 = (n - fp as f64 + 0.5 * dn) / n;
            let v01 = (prev_tp as f64 + 0.5 * dp) / m;
            s10.add(dp * (v10 - auc) * (v10 - auc));
            s01.add(dn * (v01 - auc) * (v01 - auc));
            (prev_tp, prev_fp) = (tp, fp);
        }
        let spread = |s: Sum, k: f64| if k > 1.0 { s.value() / (k - 1.0) } else { 0.0 };
        let half = crate::stats::Z95 * (spread(s10, m) / m + spread(s01, n) / n).sqrt();
        Some(((auc - half).max(0.0), (auc + half).min(1.0)))
    }

    fn compute_roc_auc(&self) -> Option<f64> {
        if self.positives == 0 || self.negatives == 0 {
            return None;
        }
        let (mut prev_tp, mut prev_fp) = (0u128, 0u128);
        let mut twice_area: u128 = 0;
        for (&tp, &fp) in self.tps.iter().zip(&self.fps) {
            let (tp, fp) = (tp as u128, fp as u128);
            twice_area += (fp - prev_fp) * (tp + prev_tp);
            prev_tp = tp;
            prev_fp = fp;
        }
        Some(twice_area as f64 / (2.0 * self.positives as f64 * self.negatives as f64))
    }

    /// Average precision, the step sum over distinct thresholds:
    /// AP = Σ_n (R_n - R_{n-1}) P_n (sklearn `average_precision_score`).
    /// 0 without positive rows (sklearn, which warns); `None` without rows.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::binary::BinaryCurve;
    ///
    /// let labels = [false, false, true, true, false, true];
    /// let scores = [0.1, 0.4, 0.35, 0.8, 0.5, 0.7];
    /// let curve = BinaryCurve::new(&labels, &scores);
    ///
    /// // scikit-learn 1.9: average_precision_score(labels, scores)
    /// assert!((curve.average_precision().unwrap() - 0.8666666666666667).abs() < 1e-12);
    /// ```
    pub fn average_precision(&self) -> Option<f64> {
        *self
            .summaries
            .average_precision
            .get_or_init(|| self.compute_average_precision())
    }

    fn compute_average_precision(&self) -> Option<f64> {
        if self.positives == 0 {
            // scikit-learn: recall is set to 1 at every threshold, so AP is 0 (with a warning)
            return (self.negatives > 0).then_some(0.0);
        }
        let mut s = Sum::new();
        let mut prev_tp = 0u64;
        for (&tp, &fp) in self.tps.iter().zip(&self.fps) {
            if tp > prev_tp {
                s.add((tp - prev_tp) as f64 * (tp as f64 / (tp + fp) as f64));
            }
            prev_tp = tp;
        }
        Some(s.value() / self.positives as f64)
    }

    /// The PR curve as sklearn's `precision_recall_curve` returns it: one point
    /// per distinct threshold, in increasing-threshold order, then (recall 0, precision 1).
    pub fn pr_points(&self) -> Vec<(f64, f64)> {
        let p = self.positives as f64;
        let mut pts: Vec<(f64, f64)> = self
            .tps
            .iter()
            .zip(&self.fps)
            .rev()
            .map(|(&tp, &fp)| {
                let predicted = tp + fp;
                let precision = if predicted > 0 {
                    tp as f64 / predicted as f64
                } else {
                    0.0
                };
                let recall = if self.positives > 0 {
                    tp as f64 / p
                } else {
                    1.0
                };
                (recall, precision)
            })
            .collect();
        pts.push((0.0, 1.0));
        pts
    }

    /// A pointwise 95% band around [`Self::pr_points`]: at each threshold,
    /// the Wilson score interval of the precision ([`crate::stats::wilson`])
    /// with the threshold's predicted positives as trials, at that
    /// threshold's recall: the band's low and high lines as (recall,
    /// precision) points in the curve's order (the closing (0, 1) point has
    /// no trials and no band).
    pub fn pr_band(&self) -> [Vec<(f64, f64)>; 2] {
        let p = self.positives.max(1) as f64;
        let (mut low, mut high) = (Vec::new(), Vec::new());
        for (&tp, &fp) in self.tps.iter().zip(&self.fps).rev() {
            if let Some((lo, hi)) = crate::stats::wilson(tp, tp + fp) {
                low.push((tp as f64 / p, lo));
                high.push((tp as f64 / p, hi));
            }
        }
        [low, high]
    }

    /// Area under the PR curve by the trapezoid rule (sklearn `auc(recall, precision)`).
    /// Linear interpolation of precision is optimistic: prefer [`Self::average_precision`].
    pub fn pr_auc_trapezoid(&self) -> Option<f64> {
        *self
            .summaries
            .pr_auc_trapezoid
            .get_or_init(|| self.compute_pr_auc_trapezoid())
    }

    fn compute_pr_auc_trapezoid(&self) -> Option<f64> {
        if self.positives == 0 {
            return None;
        }
        let pts = self.pr_points();
        let mut s = Sum::new();
        for w in pts.windows(2) {
            // points run from recall 1 down to recall 0
            s.add((w[0].0 - w[1].0) * (w[0].1 + w[1].1) / 2.0);
        }
        Some(s.value())
    }

    /// Interpolated AP: the step sum with precision replaced by its envelope
    /// max_{j: R_j >= R_n} P_j (PASCAL VOC style).
    pub fn interpolated_average_precision(&self) -> Option<f64> {
        *self
            .summaries
            .interpolated_average_precision
            .get_or_init(|| self.compute_interpolated_average_precision())
    }

    fn compute_interpolated_average_precision(&self) -> Option<f64> {
        if self.positives == 0 {
            return None;
        }
        let n = self.tps.len();
        let mut envelope = vec![0.0; n];
        let mut best: f64 = 0.0;
        for i in (0..n).rev() {
            let prec = self.tps[i] as f64 / (self.tps[i] + self.fps[i]) as f64;
            best = best.max(prec);
            envelope[i] = best;
        }
        let mut s = Sum::new();
        let mut prev_tp = 0;
        for (&tp, &env) in self.tps.iter().zip(&envelope) {
            if tp > prev_tp {
                s.add((tp - prev_tp) as f64 * env);
            }
            prev_tp = tp;
        }
        Some(s.value() / self.positives as f64)
    }

    /// Confusion matrix at threshold `t` by binary search: O(log n).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::binary::{BinaryCurve, Confusion, ThresholdRule};
    ///
    /// let labels = [false, false, true, true, false, true];
    /// let scores = [0.1, 0.4, 0.35, 0.8, 0.5, 0.7];
    /// let curve = BinaryCurve::new(&labels, &scores);
    ///
    /// // scores >= 0.5: 0.8 and 0.7 (positives), 0.5 (a negative)
    /// let at_least = curve.confusion_at(0.5, ThresholdRule::AtLeast);
    /// assert_eq!(at_least, Confusion { tp: 2, fp: 1, fn_: 1, tn: 2 });
    /// let above = curve.confusion_at(0.5, ThresholdRule::Above);
    /// assert_eq!(above, Confusion { tp: 2, fp: 0, fn_: 1, tn: 3 });
    /// ```
    pub fn confusion_at(&self, t: f64, rule: ThresholdRule) -> Confusion {
        // thresholds are descending; count those predicted positive
        let count = match rule {
            ThresholdRule::AtLeast => self.thresholds.partition_point(|&s| s >= t),
            ThresholdRule::Above => self.thresholds.partition_point(|&s| s > t),
        };
        let (tp, fp) = if count == 0 {
            (0, 0)
        } else {
            (self.tps[count - 1], self.fps[count - 1])
        };
        Confusion {
            tp,
            fp,
            fn_: self.positives - tp,
            tn: self.negatives - fp,
        }
    }

    /// The operating point whose false-positive rate (`by_recall = false`,
    /// the ROC x axis) or recall (`true`, the PR x axis) is nearest `x`: its
    /// threshold and the confusion matrix of "positive iff score >= threshold".
    /// `None` without thresholds. O(log n): the counts grow with the index.
    pub fn point_near(&self, x: f64, by_recall: bool) -> Option<(f64, Confusion)> {
        if self.thresholds.is_empty() {
            return None;
        }
        let (counts, total) = if by_recall {
            (&self.tps, self.positives)
        } else {
            (&self.fps, self.negatives)
        };
        let rate = |i: usize| counts[i] as f64 / total.max(1) as f64;
        let i = counts.partition_point(|&c| (c as f64 / total.max(1) as f64) < x);
        let i = match (i.checked_sub(1), i < counts.len()) {
            (Some(j), true) if (x - rate(j)).abs() <= (rate(i) - x).abs() => j,
            (Some(j), false) => j,
            _ => i,
        };
        let (tp, fp) = (self.tps[i], self.fps[i]);
        Some((
            self.thresholds[i],
            Confusion {
                tp,
                fp,
                fn_: self.positives - tp,
                tn: self.negatives - fp,
            },
        ))
    }

    /// ROC points (fpr, tpr) from (0, 0) through every distinct threshold.
    pub fn roc_points(&self) -> Vec<(f64, f64)> {
        let (p, n) = (self.positives.max(1) as f64, self.negatives.max(1) as f64);
        std::iter::once((0.0, 0.0))
            .chain(
                self.tps
                    .iter()
                    .zip(&self.fps)
                    .map(|(&tp, &fp)| (fp as f64 / n, tp as f64 / p)),
            )
            .collect()
    }
}

/// The most fraction digits [`BinaryCurve::counted`] takes.
const MAX_FRACTION_DIGITS: usize = 9;

/// The fewest fraction digits `k` (at most [`MAX_FRACTION_DIGITS`]) with
/// which `s` is exactly `m / 10^k` for an integer `m`.
fn fraction_digits(s: f64) -> Option<usize> {
    (0..=MAX_FRACTION_DIGITS).find(|&k| (s * POW10[k]).round_ties_even() / POW10[k] == s)
}

#[inline]
fn scores_from_key(key: u64) -> f64 {
    let b = if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    };
    f64::from_bits(b)
}

/// The four cells of a confusion matrix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Confusion {
    pub tp: u64,
    pub fp: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
    pub tn: u64,
}

fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// `num / den`, undefined when `den` is 0.
fn defined(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

impl Confusion {
    pub fn total(&self) -> u64 {
        self.tp + self.fp + self.fn_ + self.tn
    }
    /// The operating point on a ROC chart: (FPR, TPR), a rate 0 when its
    /// class has no row.
    pub fn roc_point(&self) -> (f64, f64) {
        let fpr = self.fp as f64 / (self.fp + self.tn).max(1) as f64;
        (fpr, self.recall().unwrap_or(0.0))
    }
    /// The operating point on a precision–recall chart: (recall,
    /// precision); with no row predicted positive, the curve's end point
    /// (precision 1, as scikit-learn's `precision_recall_curve` ends).
    pub fn pr_point(&self) -> (f64, f64) {
        (
            self.recall().unwrap_or(0.0),
            self.precision().unwrap_or(1.0),
        )
    }
    /// (TP + TN) / total; undefined without rows.
    pub fn accuracy(&self) -> Option<f64> {
        defined(self.tp + self.tn, self.total())
    }
    /// Balanced accuracy: the mean recall of the classes present in the
    /// labels, (TP/(TP+FN) + TN/(TN+FP)) / 2 with both (scikit-learn's
    /// `balanced_accuracy_score`, which leaves out a class absent from the
    /// labels); undefined with no row.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::binary::Confusion;
    ///
    /// // scikit-learn 1.9: balanced_accuracy_score of these four cells, (2/3 + 2/3) / 2
    /// let m = Confusion { tp: 2, fp: 1, fn_: 1, tn: 2 };
    /// assert!((m.balanced_accuracy().unwrap() - 0.6666666666666666).abs() < 1e-12);
    /// ```
    pub fn balanced_accuracy(&self) -> Option<f64> {
        let recalls = [
            defined(self.tn, self.tn + self.fp),
            defined(self.tp, self.tp + self.fn_),
        ];
        let present: Vec<f64> = recalls.into_iter().flatten().collect();
        (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64)
    }
    /// TP / (TP + FP); undefined with no row predicted positive (see [`ZeroDivision`]).
    pub fn precision(&self) -> Option<f64> {
        defined(self.tp, self.tp + self.fp)
    }
    /// TP / (TP + FN); undefined without positive rows.
    pub fn recall(&self) -> Option<f64> {
        defined(self.tp, self.tp + self.fn_)
    }
    /// 2TP / (2TP + FP + FN) (= 2PR/(P+R)); undefined when no row is positive
    /// or predicted positive (scikit-learn >= 1.3).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::binary::Confusion;
    ///
    /// let m = Confusion { tp: 2, fp: 1, fn_: 1, tn: 2 };
    /// assert_eq!(m.f1(), Some(4.0 / 6.0)); // 2·2 / (2·2 + 1 + 1)
    /// assert_eq!(Confusion { tp: 0, fp: 0, fn_: 0, tn: 3 }.f1(), None);
    /// ```
    pub fn f1(&self) -> Option<f64> {
        defined(2 * self.tp, 2 * self.tp + self.fp + self.fn_)
    }
    /// F1 of the negative class: 2TN / (2TN + FN + FP).
    pub fn f1_negative(&self) -> Option<f64> {
        defined(2 * self.tn, 2 * self.tn + self.fn_ + self.fp)
    }
    /// (TP·TN - FP·FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)); 0 if a factor is 0 (sklearn).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::binary::Confusion;
    ///
    /// // scikit-learn 1.9: matthews_corrcoef([0, 0, 1, 1, 0, 1], [0, 0, 0, 1, 1, 1]);
    /// // by hand (2·2 − 1·1) / √(3·3·3·3) = 1/3
    /// let m = Confusion { tp: 2, fp: 1, fn_: 1, tn: 2 };
    /// assert!((m.mcc() - 0.3333333333333333).abs() < 1e-12);
    /// ```
    pub fn mcc(&self) -> f64 {
        let (tp, fp, fn_, tn) = (
            self.tp as f64,
            self.fp as f64,
            self.fn_ as f64,
            self.tn as f64,
        );
        let den = ((tp + fp) * (tp + fn_) * (tn + fp) * (tn + fn_)).sqrt();
        ratio(tp * tn - fp * fn_, den)
    }
    /// Support-weighted mean of both classes' F1 (sklearn `average='weighted'`);
    /// undefined without rows. A class with no support weighs 0.
    pub fn f1_weighted(&self) -> Option<f64> {
        let pos = (self.tp + self.fn_) as f64;
        let neg = (self.tn + self.fp) as f64;
        (self.total() > 0).then(|| {
            (self.f1().unwrap_or(0.0) * pos + self.f1_negative().unwrap_or(0.0) * neg) / (pos + neg)
        })
    }
    /// Unweighted mean of the F1 of the classes present as a label or a
    /// prediction (sklearn `average='macro'`, whose labels are those of
    /// `y_true` and `y_pred`): all-negative rows predicted negative give 1.
    pub fn f1_macro(&self) -> Option<f64> {
        let present: Vec<f64> = [self.f1(), self.f1_negative()]
            .into_iter()
            .flatten()
            .collect();
        (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64)
    }
}

/// Where a click at (x, y) lands on a ROC chart (`by_recall` false) or a
/// precision–recall chart (true) of several curves: on each curve the
/// operating point nearest x ([`BinaryCurve::point_near`]), of these the
/// one nearest y (the first of equals): (its curve's position, its threshold).
pub fn nearest_point<'a>(
    curves: impl IntoIterator<Item = &'a BinaryCurve>,
    (x, y): (f64, f64),
    by_recall: bool,
) -> Option<(usize, f64)> {
    (curves.into_iter().enumerate())
        .filter_map(|(i, c)| {
            let (t, m) = c.point_near(x, by_recall)?;
            let at = if by_recall {
                m.pr_point().1
            } else {
                m.roc_point().1
            };
            Some(((at - y).abs(), i, t))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, i, t)| (i, t))
}

/// Log loss -mean(y ln p + (1-y) ln(1-p)) with p clipped to [eps, 1-eps].
/// `Err(index)` names the first score outside [0, 1] (probabilities required).
///
/// # Examples
///
/// ```
/// use rankscope_core::binary::log_loss;
///
/// let labels = [false, false, true, true, false, true];
/// let probs = [0.1, 0.4, 0.35, 0.8, 0.5, 0.7];
/// // scikit-learn 1.9: log_loss(labels, probs)
/// assert!((log_loss(&labels, &probs).unwrap() - 0.489828989955897).abs() < 1e-12);
/// assert_eq!(log_loss(&[true, false], &[0.9, 1.2]), Err(1)); // not a probability
/// ```
pub fn log_loss(labels: &[bool], probs: &[f64]) -> Result<f64, usize> {
    let mut s = Sum::new();
    for (i, (&y, &p)) in labels.iter().zip(probs).enumerate() {
        if !(0.0..=1.0).contains(&p) {
            return Err(i);
        }
        s.add(log_loss_term(y, p));
    }
    Ok(s.value() / labels.len().max(1) as f64)
}

/// One row's log loss: −ln p for a positive, −ln(1 − p) for a negative, p clipped.
pub fn log_loss_term(y: bool, p: f64) -> f64 {
    let p = p.clamp(LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS);
    if y {
        -p.ln()
    } else {
        -(1.0 - p).ln()
    }
}

/// One row's Brier term (p − y)².
pub fn brier_term(y: bool, p: f64) -> f64 {
    let d = p - if y { 1.0 } else { 0.0 };
    d * d
}

/// Brier score mean((p - y)^2). `Err(index)` for a score outside [0, 1].
///
/// # Examples
///
/// ```
/// use rankscope_core::binary::brier;
///
/// let labels = [false, false, true, true, false, true];
/// let probs = [0.1, 0.4, 0.35, 0.8, 0.5, 0.7];
/// // scikit-learn 1.9: brier_score_loss(labels, probs)
/// assert!((brier(&labels, &probs).unwrap() - 0.16208333333333336).abs() < 1e-12);
/// ```
pub fn brier(labels: &[bool], probs: &[f64]) -> Result<f64, usize> {
    let mut s = Sum::new();
    for (i, (&y, &p)) in labels.iter().zip(probs).enumerate() {
        if !(0.0..=1.0).contains(&p) {
            return Err(i);
        }
        s.add(brier_term(y, p));
    }
    Ok(s.value() / labels.len().max(1) as f64)
}

/// The logistic sigmoid, for scores that are logits.
///
/// # Examples
///
/// ```
/// use rankscope_core::binary::sigmoid;
///
/// // scipy 1.17: scipy.special.expit
/// assert!((sigmoid(2.0) - 0.8807970779778823).abs() < 1e-15);
/// assert!((sigmoid(-1.5) - 0.18242552380635635).abs() < 1e-15);
/// assert_eq!(sigmoid(0.0), 0.5);
/// ```
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_curve_rebuilt_from_its_columns_is_the_same_and_damage_is_refused() {
        let c = BinaryCurve::new(&[true, false, true, false], &[0.9, 0.5, 0.5, 0.1]);
        let back =
            BinaryCurve::from_parts(c.thresholds.clone(), c.tps.clone(), c.fps.clone()).unwrap();
        assert_eq!(
            (back.positives, back.negatives, back.roc_auc()),
            (2, 2, c.roc_auc())
        );
        let bad =
            |t: Vec<f64>, tp: Vec<u64>, fp: Vec<u64>| BinaryCurve::from_parts(t, tp, fp).is_err();
        assert!(bad(vec![0.5, 0.9], vec![1, 2], vec![0, 1]));
        assert!(bad(vec![f64::NAN], vec![1], vec![0]));
        assert!(bad(vec![0.9, 0.5], vec![1, 1], vec![0, 0]));
        assert!(bad(vec![0.9], vec![1, 2], vec![0]));
        assert!(BinaryCurve::from_parts(vec![], vec![], vec![]).is_ok());
    }

    use super::*;

    /// The PR band against the rows counted directly at each distinct
    /// threshold, with the curve's precision inside it.
    #[test]
    fn the_pr_band_is_wilsons_interval_at_each_threshold() {
        let labels = [true, false, true, true, false, false, true, false, true];
        let scores = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5, 0.4, 0.4, 0.1];
        let curve = BinaryCurve::new(&labels, &scores);
        let [low, high] = curve.pr_band();
        let mut thresholds: Vec<f64> = scores.to_vec();
        thresholds.sort_by(|a, b| a.total_cmp(b));
        thresholds.dedup();
        assert_eq!(low.len(), thresholds.len());
        let curve_points = curve.pr_points();
        for (i, &t) in thresholds.iter().enumerate() {
            let above = || labels.iter().zip(&scores).filter(|(_, &s)| s >= t);
            let tp = above().filter(|(&l, _)| l).count() as u64;
            let k = above().count() as u64;
            let (lo, hi) = crate::stats::wilson(tp, k).unwrap();
            assert_eq!(
                (low[i], high[i]),
                ((tp as f64 / 5.0, lo), (tp as f64 / 5.0, hi))
            );
            let (recall, precision) = curve_points[i];
            assert_eq!(recall, low[i].0);
            assert!(lo <= precision && precision <= hi);
        }
    }

    #[test]
    fn the_delong_interval_off_the_curve_is_the_rows_interval() {
        // tie-heavy scores (two decimals) on 3,000 rows, and a tiny case
        let mut rng = crate::stats::SplitMix64::new(7);
        let mut next = || rng.next_u64();
        let labels: Vec<bool> = (0..3000).map(|_| next() % 3 == 0).collect();
        let scores: Vec<f64> = labels
            .iter()
            .map(|&l| ((next() % 70) as f64 + if l { 25.0 } else { 0.0 }) / 100.0)
            .collect();
        for (labels, scores) in [
            (&labels[..], &scores[..]),
            (&[true, false, true, false][..], &[0.9, 0.5, 0.5, 0.1][..]),
        ] {
            let rows = crate::stats::delong(labels, scores, scores).unwrap().ci_a;
            let curve = BinaryCurve::new(labels, scores).delong_interval().unwrap();
            assert!(
                (rows.0 - curve.0).abs() < 1e-12 && (rows.1 - curve.1).abs() < 1e-12,
                "{rows:?} {curve:?}"
            );
        }
        assert_eq!(
            BinaryCurve::new(&[true, true], &[0.1, 0.2]).delong_interval(),
            None
        );
    }

    #[test]
    fn the_point_near_a_rate_is_the_operating_point_of_its_threshold() {
        // scores 0.9+ 0.8- 0.7+ 0.6- (P = 2, N = 2)
        let c = BinaryCurve::new(&[true, false, true, false], &[0.9, 0.8, 0.7, 0.6]);
        let (t, m) = c.point_near(0.45, false).unwrap();
        assert_eq!((t, m.tp, m.fp), (0.8, 1, 1));
        assert_eq!(m, c.confusion_at(t, ThresholdRule::AtLeast));
        let (t, m) = c.point_near(1.0, true).unwrap();
        assert_eq!((t, m.tp), (0.7, 2));
        let (t, _) = c.point_near(0.0, false).unwrap();
        assert_eq!(t, 0.9);
        assert!(BinaryCurve::new(&[], &[]).point_near(0.5, false).is_none());
    }

    #[test]
    fn operating_points_sit_where_the_charts_draw_them_and_a_click_picks_the_nearest() {
        // scores 0.9+ 0.8- 0.7+ 0.6- (P = 2, N = 2): at 0.8, TP 1 FP 1
        let a = BinaryCurve::new(&[true, false, true, false], &[0.9, 0.8, 0.7, 0.6]);
        let m = a.confusion_at(0.8, ThresholdRule::AtLeast);
        assert_eq!((m.roc_point(), m.pr_point()), ((0.5, 0.5), (0.5, 0.5)));
        // nothing predicted positive: recall 0, precision 1 (the PR curve's end)
        let none = a.confusion_at(2.0, ThresholdRule::AtLeast);
        assert_eq!(
            (none.roc_point(), none.pr_point()),
            ((0.0, 0.0), (0.0, 1.0))
        );
        // a perfect ranking: at FPR 0.5 (threshold 0.7) its TPR is 1, a's 0.5 (at 0.8)
        let b = BinaryCurve::new(&[true, true, false, false], &[0.9, 0.8, 0.7, 0.6]);
        assert_eq!(nearest_point([&a, &b], (0.5, 0.95), false), Some((1, 0.7)));
        assert_eq!(nearest_point([&a, &b], (0.5, 0.4), false), Some((0, 0.8)));
        // equally near: the first curve
        assert_eq!(nearest_point([&a, &a], (0.5, 0.5), false), Some((0, 0.8)));
        assert_eq!(
            nearest_point([&BinaryCurve::new(&[], &[])], (0.5, 0.5), true),
            None
        );
    }

    #[test]
    fn probe_roc_ties_count_half() {
        let c = BinaryCurve::new(&[true, false, true, false], &[0.5, 0.5, 0.7, 0.2]);
        assert_eq!(c.roc_auc(), Some(0.875));
    }

    #[test]
    fn probe_pr_step_trapezoid_and_envelope() {
        let labels = [true, false, true, true, false, false, true, false];
        let scores = [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0];
        let c = BinaryCurve::new(&labels, &scores);
        assert!((c.average_precision().unwrap() - 0.7470238095238095).abs() < 1e-12);
        assert!((c.pr_auc_trapezoid().unwrap() - 0.706845238095238).abs() < 1e-12);
        assert!((c.interpolated_average_precision().unwrap() - 0.7678571428571428).abs() < 1e-12);
    }

    #[test]
    fn probe_ap_with_ties_is_one_threshold() {
        let c = BinaryCurve::new(&[true, false, true, false], &[0.9, 0.5, 0.5, 0.1]);
        assert!((c.average_precision().unwrap() - 0.8333333333333333).abs() < 1e-12);
    }

    #[test]
    fn probe_log_loss_clips_at_f64_epsilon() {
        let v = log_loss(&[true, false], &[0.0, 0.5]).unwrap();
        assert!((v - 18.36840028483855).abs() < 1e-9);
        assert_eq!(log_loss(&[true], &[1.5]), Err(0));
    }

    #[test]
    fn probe_threshold_rule() {
        let c = BinaryCurve::new(&[true, true, false], &[0.5, 0.5, 0.2]);
        assert_eq!(
            c.confusion_at(0.5, ThresholdRule::AtLeast).accuracy(),
            Some(1.0)
        );
        assert!(
            (c.confusion_at(0.5, ThresholdRule::Above)
                .accuracy()
                .unwrap()
                - 1.0 / 3.0)
                .abs()
                < 1e-15
        );
    }

    /// `count_true` counts as one flag at a time does.
    #[test]
    fn flags_are_counted_as_one_by_one() {
        // every alignment and length around a word and a 255-word block
        let mut x = 7u64;
        let flags: Vec<bool> = (0..8 * 255 * 2 + 40)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                x >> 62 != 0
            })
            .collect();
        for start in 0..9 {
            for len in [
                0,
                1,
                7,
                8,
                9,
                100,
                8 * 255 - 1,
                8 * 255,
                8 * 255 + 9,
                flags.len() - start,
            ] {
                let part = &flags[start..(start + len).min(flags.len())];
                assert_eq!(
                    count_true(part),
                    part.iter().filter(|&&f| f).count(),
                    "{start} {len}"
                );
            }
        }
        assert_eq!(count_true(&vec![true; 8 * 255 * 3 + 5]), 8 * 255 * 3 + 5);
    }

    /// The counting path gives the sort's curve, bit for bit, wherever it is
    /// taken, and leaves every other set of scores to the sort.
    #[test]
    fn counted_curves_are_the_sorted_curves() {
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d);
        let same = |a: &BinaryCurve, b: &BinaryCurve| {
            let bits =
                |c: &BinaryCurve| c.thresholds.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
            bits(a) == bits(b)
                && a.tps == b.tps
                && a.fps == b.fps
                && (a.positives, a.negatives) == (b.positives, b.negatives)
        };
        let n = 70_000;
        for (k, range, offset) in [
            (6, 1_000_001, 0),
            (3, 2001, -1000),
            (0, 50, 7),
            (9, 1 << 20, -1),
            (2, 5, -2),
        ] {
            let labels: Vec<bool> = (0..n).map(|_| next() % 3 == 0).collect();
            // decimal texts read as the parser does (-0 read as 0)
            let scores: Vec<f64> = (0..n)
                .map(|_| {
                    let m = (next() % range) as i64 + offset;
                    let text = format!("{}", m as f64 / 10f64.powi(k));
                    text.parse::<f64>().unwrap() + 0.0
                })
                .collect();
            let counted = BinaryCurve::counted(&labels, &scores).expect("counted");
            assert!(
                same(&counted, &BinaryCurve::sorted(&labels, &scores)),
                "k = {k}"
            );
            assert!(same(&BinaryCurve::new(&labels, &scores), &counted));
            // one score that is not such a decimal sends them all to the sort
            for odd in [
                f64::NAN,
                f64::INFINITY,
                1e300,
                0.1234567891,
                scores[5] + 0.5e-9,
            ] {
                let mut scores = scores.clone();
                scores[n - 1] = odd;
                assert!(BinaryCurve::counted(&labels, &scores).is_none(), "{odd}");
            }
        }
        // too wide a range, or too few rows
        let labels = vec![true; n];
        let wide: Vec<f64> = (0..n).map(|i| (i * 100) as f64).collect();
        assert!(BinaryCurve::counted(&labels, &wide).is_none());
        let few: Vec<f64> = (0..1000).map(|i| i as f64).collect();
        assert!(BinaryCurve::counted(&labels[..1000], &few).is_none());
    }

    #[test]
    fn rows_outside_a_range_are_read_off_the_curve() {
        let scores = [
            -0.5,
            0.0,
            0.0,
            0.3,
            1.0,
            1.0,
            1.5,
            2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let labels = [
            true, false, true, false, true, false, true, false, true, false,
        ];
        let c = BinaryCurve::new(&labels, &scores);
        let counted = scores.iter().filter(|s| !(0.0..=1.0).contains(*s)).count() as u64;
        assert_eq!(c.rows_outside(0.0, 1.0), counted);
        assert_eq!(counted, 5);
        assert_eq!(c.rows_outside(-1.0, 3.0), 2);
        assert_eq!(c.rows_outside(0.1, 0.9), 9);
        assert_eq!(BinaryCurve::new(&[], &[]).rows_outside(0.0, 1.0), 0);
    }

    #[test]
    fn single_class_has_no_auc() {
        let c = BinaryCurve::new(&[true, true], &[0.1, 0.2]);
        assert_eq!(c.roc_auc(), None);
        let c = BinaryCurve::new(&[false, false], &[0.1, 0.2]);
        assert_eq!(c.roc_auc(), None);
        // scikit-learn: average precision without a positive row is 0
        assert_eq!(c.average_precision(), Some(0.0));
        assert_eq!(BinaryCurve::new(&[], &[]).average_precision(), None);
    }

    /// scikit-learn 1.9.1's `balanced_accuracy_score` on labels and
    /// predictions with these (TP, FP, FN, TN), a class absent from the
    /// labels included (it warns and leaves that class out).
    #[test]
    fn balanced_accuracy_is_scikit_learns() {
        for ((tp, fp, fn_, tn), want) in [
            ((3, 1, 2, 4), 0.7),
            ((0, 0, 2, 3), 0.5),
            ((0, 2, 0, 3), 0.6),
            ((2, 0, 0, 0), 1.0),
            ((0, 0, 0, 4), 1.0),
            ((5, 3, 0, 0), 0.5),
        ] {
            let c = Confusion { tp, fp, fn_, tn };
            assert_eq!(c.balanced_accuracy(), Some(want), "{c:?}");
            assert_eq!(
                c.metric("balanced_accuracy", ZeroDivision::Zero),
                Some(Some(want))
            );
        }
        let none = Confusion {
            tp: 0,
            fp: 0,
            fn_: 0,
            tn: 0,
        };
        assert_eq!(none.balanced_accuracy(), None);
    }

    #[test]
    fn zero_division_follows_its_rule_and_macro_f1_counts_the_classes_present() {
        // nothing predicted positive: precision undefined, recall 0, F1 0
        let c = Confusion {
            tp: 0,
            fp: 0,
            fn_: 2,
            tn: 3,
        };
        assert_eq!(c.precision(), None);
        assert_eq!(c.metric("precision", ZeroDivision::Undefined), Some(None));
        assert_eq!(c.metric("precision", ZeroDivision::Zero), Some(Some(0.0)));
        assert_eq!(c.metric("precision", ZeroDivision::One), Some(Some(1.0)));
        assert_eq!(c.metric("recall", ZeroDivision::One), Some(Some(0.0)));
        assert_eq!(c.metric("f1", ZeroDivision::One), Some(Some(0.0)));
        // scikit-learn: f1_score([1,1,0,0,0], [0]*5, average='macro') = (0 + 0.75) / 2
        assert_eq!(c.f1_macro(), Some(0.375));
        // all negative, all predicted negative: F1 macro over the one label = 1
        let c = Confusion {
            tp: 0,
            fp: 0,
            fn_: 0,
            tn: 4,
        };
        assert_eq!(c.f1_macro(), Some(1.0));
        assert_eq!(c.f1_weighted(), Some(1.0));
        assert_eq!(c.metric("f1", ZeroDivision::Zero), Some(Some(0.0)));
        assert_eq!(c.metric("recall", ZeroDivision::Undefined), Some(None));
        assert_eq!(c.metric("roc_auc", ZeroDivision::Zero), None);
        assert_eq!(Confusion::default().accuracy(), None);
    }

    #[test]
    fn order_key_round_trips_and_orders() {
        for x in [
            -1e300,
            -1.0,
            0.0,
            1e-300,
            0.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(scores_from_key(order_key(x)).to_bits(), x.to_bits());
        }
        assert_eq!(order_key(-0.0), order_key(0.0));
        assert!(order_key(-1.0) < order_key(0.5));
        assert!(order_key(0.5) < order_key(1.0));
    }
}
