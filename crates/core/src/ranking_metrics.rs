//! Ranking metric kernels over one prepared query ([`QueryView`]).
//!
//! Every kernel documents its formula and conventions; `k = None` means no cutoff.
//! Positions are 1-based in formulas (rank i), 0-based in code.
//!
//! Ties: under [`TieRule::Average`](super::ranking::TieRule) each kernel returns
//! the exact expected value over uniformly random orderings inside every group of
//! equal scores. Metrics linear in per-position terms (DCG, P, R, F1, ARHR,
//! R-precision) replace each term by its group mean; AP, RR and Hit use closed
//! forms given beside them. With no ties (or another tie rule) every group has
//! one member and the formulas reduce to the usual ones.

use super::ranking::{QueryView, NOT_JUDGED};

/// nDCG gain function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gain {
    /// gain = rel (Järvelin & Kekäläinen; trec_eval, ranx `ndcg`, sklearn).
    Linear,
    /// gain = 2^rel - 1 (Burges et al. 2005; ranx `ndcg_burges`).
    Exponential,
}

crate::named!(Gain { Linear = "linear", Exponential = "exponential" });

/// nDCG position discount.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discount {
    /// 1 / log2(i + 1) (trec_eval, ranx, sklearn).
    Log2,
    /// The original Järvelin-Kekäläinen discount with b = 2: 1 / max(1, log2 i).
    JarvelinB2,
}

crate::named!(Discount { Log2 = "log2", JarvelinB2 = "jarvelin_b2" });

/// AP@k denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApDenominator {
    /// |R|, all relevant documents of the query (trec_eval `map_cut`, ranx).
    Relevant,
    /// min(|R|, k) (Kaggle `apk`, seeds 002 and 004).
    MinRelevantK,
}

crate::named!(ApDenominator { Relevant = "relevant", MinRelevantK = "min_relevant_k" });

/// P@k denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionDenominator {
    /// k, even when fewer than k documents were retrieved (trec_eval, ranx).
    K,
    /// min(k, list length).
    MinKLength,
}

crate::named!(PrecisionDenominator { K = "k", MinKLength = "min_k_length" });

/// How F1@k is aggregated over queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum F1Aggregation {
    /// Mean of per-query 2PR/(P+R) (ranx).
    PerQuery,
    /// 2PR/(P+R) of the mean P@k and mean R@k (LibCity, seed 003).
    FromMeans,
}

crate::named!(F1Aggregation { PerQuery = "per_query", FromMeans = "from_means" });

/// Which trec_eval's rule turns a recall point into a number of relevant
/// documents (`iprec_at_recall`): its values changed in trec_eval 10.0.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum TrecEvalVersion {
    /// trec_eval 10.0: `lround(level · |R|)`.
    #[default]
    #[serde(rename = "10.0")]
    V10,
    /// trec_eval 9.0.x and pytrec_eval: `(long)(level · |R| + 0.9)`.
    #[serde(rename = "9.0.x")]
    V9,
}

crate::named!(TrecEvalVersion { V10 = "10.0", V9 = "9.0.x" });

/// How deep nDCG's ideal list goes at cutoff k.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum IdealDepth {
    /// The top k of the ideal list (trec_eval `ndcg_cut`, ranx, scikit-learn).
    #[default]
    K,
    /// The top min(k, list length): a list shorter than k is held to a
    /// shorter ideal, so nDCG rises when fewer than k documents come back
    /// (MLflow's `ndcg_at_k`, which passes `k=len(retrieved[:k])` to
    /// scikit-learn's `ndcg_score`; mlflow issue 24541).
    ListLength,
}

crate::named!(IdealDepth { K = "k", ListLength = "list_length" });

/// Per-query context every kernel needs.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub relevance_level: i32,
    pub gain: Gain,
    pub discount: Discount,
    pub ap_denominator: ApDenominator,
    pub precision_denominator: PrecisionDenominator,
    pub ideal_depth: IdealDepth,
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx {
            relevance_level: 1,
            gain: Gain::Linear,
            discount: Discount::Log2,
            ap_denominator: ApDenominator::Relevant,
            precision_denominator: PrecisionDenominator::K,
            ideal_depth: IdealDepth::K,
        }
    }
}

#[inline]
fn cut(k: Option<usize>, len: usize) -> usize {
    k.map_or(len, |k| k.min(len))
}

/// nDCG's per-position term: the gain of `grade` times the discount `d` of
/// its position, gain(rel_i) · discount(i); +0.0 for a grade without gain
/// (0 · d, as every discount is finite and positive).
///
/// # Examples
///
/// ```
/// use rankscope_core::ranking_metrics::{dcg_term, discount_at, Discount, Gain};
///
/// // grade 3 at the second position, discount 1/log2(3)
/// let d = discount_at(1, Discount::Log2);
/// assert!((dcg_term(3, Gain::Linear, d) - 3.0 / 3f64.log2()).abs() < 1e-15);
/// assert!((dcg_term(3, Gain::Exponential, d) - 7.0 / 3f64.log2()).abs() < 1e-15);
/// assert_eq!(dcg_term(0, Gain::Linear, d), 0.0);
/// ```
#[inline]
pub fn dcg_term(grade: i32, gain: Gain, d: f64) -> f64 {
    if grade <= 0 {
        0.0
    } else {
        gain_of(grade, gain) * d
    }
}

/// DCG's terms of a list in its order, gain(rel_i) · discount(i) for
/// i = 1, 2, … (the first position first): what the explanation lists, and
/// what [`running_sum`] adds for DCG and IDCG without tie groups
/// ([`QueryView::dcg_each`], [`QueryView::idcg_each`]).
///
/// The trec_eval port (`trec_eval::measures`: `ndcg`, `ndcg_cut`, `ndcg_rel`,
/// `Rndcg`, `G`) and the core's trec measures that follow it
/// (`trec_measures.rs`) do not add these terms: trec_eval divides each gain
/// by log2(i + 2) where these multiply by the discount 1/log2(i + 2), which
/// rounds differently in the last bit, and its gains are its own (the
/// measure's `level=gain` parameters, `setup_gains`). trec_eval's printed
/// bits need its division; the oracle and property tests hold the two sums
/// equal to 1e-12.
///
/// # Examples
///
/// ```
/// use rankscope_core::ranking_metrics::{dcg_terms, Discount, Gain};
///
/// let terms: Vec<f64> = dcg_terms(&[3, 2, 0, 1], Gain::Linear, Discount::Log2).collect();
/// // 3/log2(2), 2/log2(3), 0, 1/log2(5)
/// let hand = [3.0, 2.0 / 3f64.log2(), 0.0, 1.0 / 5f64.log2()];
/// assert_eq!(terms.len(), 4);
/// for (t, h) in terms.iter().zip(hand) {
///     assert!((t - h).abs() < 1e-15);
/// }
/// ```
#[inline]
pub fn dcg_terms(grades: &[i32], gain: Gain, discount: Discount) -> impl Iterator<Item = f64> + '_ {
    let d = discounts(discount);
    grades
        .iter()
        .enumerate()
        // the discount is looked up only for a grade with gain
        .map(move |(i, &g)| if g <= 0 { 0.0 } else { dcg_term(g, gain, d(i)) })
}

/// The one running sum of a list's terms: `at(i, t_0 + … + t_i)` for every
/// term in order, and the whole sum, added left to right from -0.0 (as
/// `Iterator::sum`, so an empty list sums to -0.0 as it always did).
#[inline]
pub fn running_sum(terms: impl Iterator<Item = f64>, mut at: impl FnMut(usize, f64)) -> f64 {
    let mut acc = -0.0;
    for (i, t) in terms.enumerate() {
        acc += t;
        at(i, acc);
    }
    acc
}

/// Gain of a grade: 0 for non-positive and unjudged grades.
///
/// # Examples
///
/// ```
/// use rankscope_core::ranking::NOT_JUDGED;
/// use rankscope_core::ranking_metrics::{gain_of, Gain};
///
/// assert_eq!(gain_of(3, Gain::Linear), 3.0);
/// assert_eq!(gain_of(3, Gain::Exponential), 7.0); // 2^3 - 1
/// assert_eq!(gain_of(0, Gain::Exponential), 0.0);
/// assert_eq!(gain_of(NOT_JUDGED, Gain::Linear), 0.0);
/// ```
#[inline]
pub fn gain_of(grade: i32, gain: Gain) -> f64 {
    if grade <= 0 {
        0.0
    } else {
        match gain {
            Gain::Linear => grade as f64,
            // 2^g - 1 of an integer grade, exact as an integer below 2^53
            Gain::Exponential if grade < 53 => ((1u64 << grade) - 1) as f64,
            Gain::Exponential => (grade as f64).exp2() - 1.0,
        }
    }
}

/// Discounts of the first positions, computed once (bit-identical to computing
/// them each time: the same expression fills the table).
const DISCOUNT_TABLE: usize = 4096;

fn discount_table(discount: Discount) -> &'static [f64] {
    static LOG2: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    static JK: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let cell = match discount {
        Discount::Log2 => &LOG2,
        Discount::JarvelinB2 => &JK,
    };
    cell.get_or_init(|| {
        (0..DISCOUNT_TABLE)
            .map(|i| compute_discount(i, discount))
            .collect()
    })
}

fn compute_discount(i: usize, discount: Discount) -> f64 {
    let rank = (i + 1) as f64;
    match discount {
        Discount::Log2 => 1.0 / (rank + 1.0).log2(),
        Discount::JarvelinB2 => 1.0 / rank.log2().max(1.0),
    }
}

/// [`discount_at`] with the table looked up once, for a loop over positions.
pub fn discounts(discount: Discount) -> impl Fn(usize) -> f64 {
    let table = discount_table(discount);
    move |i| match table.get(i) {
        Some(&d) => d,
        None => compute_discount(i, discount),
    }
}

/// Discount of the 0-based position `i`: 1/log2(i + 2), or 1/max(1, log2(i + 1)).
///
/// # Examples
///
/// ```
/// use rankscope_core::ranking_metrics::{discount_at, Discount};
///
/// // rank 1 and rank 3 (0-based positions 0 and 2): 1/log2(2), 1/log2(4)
/// assert_eq!(discount_at(0, Discount::Log2), 1.0);
/// assert_eq!(discount_at(2, Discount::Log2), 0.5);
/// // Järvelin-Kekäläinen, b = 2: ranks 1 and 2 undiscounted, rank 4 1/log2(4)
/// assert_eq!(discount_at(1, Discount::JarvelinB2), 1.0);
/// assert_eq!(discount_at(3, Discount::JarvelinB2), 0.5);
/// ```
#[inline]
pub fn discount_at(i: usize, discount: Discount) -> f64 {
    if i < DISCOUNT_TABLE {
        discount_table(discount)[i]
    } else {
        compute_discount(i, discount)
    }
}

#[inline]
fn is_rel(grade: i32, level: i32) -> bool {
    grade != NOT_JUDGED && grade >= level
}

/// The kernels of the metric@p curves ([`super::curves`]). A registry row
/// names its curve (`MetricInfo::curve`); the curves' names and labels are
/// read from those rows, not written here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CurveMetric {
    Ndcg,
    Precision,
    Recall,
    Map,
    HitRate,
}

/// Sums over a prefix of one ranked list ([`QueryView::scan_cutoffs`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prefix {
    /// Relevant documents in the prefix.
    pub hits: usize,
    /// Σ hits@i / i over relevant positions i (AP's numerator).
    pub ap_sum: f64,
    /// Σ 1 / i over relevant positions i (ARHR).
    pub arhr: f64,
    /// 1-based rank of the first relevant document in the prefix, 0 if none.
    pub first_relevant: usize,
    /// DCG with the context's gain, and with 2^rel - 1.
    pub dcg: f64,
    pub dcg_exp: f64,
    /// IDCG at the same cutoff, with the context's gain and with 2^rel - 1.
    pub idcg: f64,
    pub idcg_exp: f64,
}

/// AP's numerator over a list's relevance in rank order, Σ_{relevant i}
/// hits@i / i: `at(i, the sum so far)` at every rank, and (the sum, the
/// relevant documents seen). The kernel without tie groups
/// ([`QueryView::ap_sum_each`]) and the trec_eval port's `map`, `gm_map` and
/// `yaAP` (`trec_eval::measures`, on its own relevance list) add it.
#[inline]
pub fn ap_running(
    relevant: impl Iterator<Item = bool>,
    mut at: impl FnMut(usize, f64),
) -> (f64, usize) {
    let mut run = ApRun::default();
    for (i, rel) in relevant.enumerate() {
        run.step(i, rel);
        at(i, run.sum);
    }
    (run.sum, run.hits)
}

/// [`ap_running`]'s state, one rank at a time, for loops that read other sums
/// in the same pass: [`QueryView::scan_cutoffs`], the explanation of AP, the
/// core's yaAP and the trec_eval port's `map_cut`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ApRun {
    /// Relevant documents seen.
    pub hits: usize,
    /// Σ hits@i / i over the relevant ranks seen.
    pub sum: f64,
}

impl ApRun {
    /// Rank `i` (0-based): if `relevant`, adds P@(i+1) to the sum and returns it.
    #[inline]
    pub fn step(&mut self, i: usize, relevant: bool) -> Option<f64> {
        if !relevant {
            return None;
        }
        self.hits += 1;
        let p = self.hits as f64 / (i + 1) as f64;
        self.sum += p;
        Some(p)
    }
}

/// trec_eval's interpolated precision (`m_iprec_at_recall.c`), walked from
/// the end of the list up: the highest precision at or below each rank,
/// given to `hit(j, value)` for every recall cutoff `cutoffs[j]` (a number of
/// relevant documents, ascending), from the last down. The core's
/// [`QueryView::interpolated_precision`] and the trec_eval port's
/// `iprec_at_recall` and `11pt_avg` (`trec_eval::measures`, with their own
/// recall points and cutoff rounding) walk it.
#[inline]
pub fn interpolated_walk(
    relevant_at: impl Fn(usize) -> bool,
    num_ret: i64,
    num_rel_ret: i64,
    cutoffs: &[i64],
    mut hit: impl FnMut(usize, f64),
) {
    let mut current = cutoffs.len() as i64 - 1;
    while current >= 0 && cutoffs[current as usize] > num_rel_ret {
        current -= 1;
    }
    let mut int_precis = num_rel_ret as f64 / num_ret as f64;
    let mut rel_so_far = num_rel_ret;
    let mut i = num_ret;
    while i > 0 && rel_so_far > 0 {
        let precis = rel_so_far as f64 / i as f64;
        if int_precis < precis {
            int_precis = precis;
        }
        if relevant_at((i - 1) as usize) {
            while current >= 0 && rel_so_far == cutoffs[current as usize] {
                hit(current as usize, int_precis);
                current -= 1;
            }
            rel_so_far -= 1;
        }
        i -= 1;
    }
    while current >= 0 {
        hit(current as usize, int_precis);
        current -= 1;
    }
}

/// DCG / IDCG, 0 when the ideal list has no gain.
///
/// # Examples
///
/// ```
/// use rankscope_core::ranking_metrics::ndcg_of;
///
/// assert_eq!(ndcg_of(2.0, 4.0), 0.5);
/// assert_eq!(ndcg_of(0.0, 0.0), 0.0); // no relevant document: 0, not NaN
/// ```
#[inline]
pub fn ndcg_of(dcg: f64, idcg: f64) -> f64 {
    if idcg > 0.0 {
        dcg / idcg
    } else {
        0.0
    }
}

impl<'a> QueryView<'a> {
    /// Number of relevant documents of the query: judged with grade >= level.
    pub fn num_relevant(&self, level: i32) -> usize {
        // judged_desc is descending: count the prefix >= level
        self.judged_desc.partition_point(|&g| g >= level)
    }

    /// Judged non-relevant documents (0 <= grade < level), for bpref.
    pub fn num_judged_nonrelevant(&self, level: i32) -> usize {
        self.judged_desc.len() - self.num_relevant(level)
    }

    /// nDCG at cutoff `k` with the ideal list as deep as `ctx.ideal_depth`
    /// says ([`IdealDepth`]): DCG@k over IDCG@k, or over IDCG@min(k, n).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::{Ctx, Gain, IdealDepth};
    ///
    /// // two documents retrieved, the first relevant; three relevant in all
    /// let q = QueryView {
    ///     grades: &[1, 0],
    ///     tied_with_prev: &[false, false],
    ///     judged_desc: &[1, 1, 1],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default();
    /// let short = Ctx { ideal_depth: IdealDepth::ListLength, ..ctx };
    /// // DCG@10 = 1; IDCG@10 = 1 + 1/log2(3) + 1/2; IDCG@2 = 1 + 1/log2(3)
    /// let idcg = |n: usize| (0..n).map(|i| 1.0 / ((i + 2) as f64).log2()).sum::<f64>();
    /// assert!((q.ndcg_at(Some(10), Gain::Linear, &ctx) - 1.0 / idcg(3)).abs() < 1e-15);
    /// assert!((q.ndcg_at(Some(10), Gain::Linear, &short) - 1.0 / idcg(2)).abs() < 1e-15);
    /// ```
    pub fn ndcg_at(&self, k: Option<usize>, gain: Gain, ctx: &Ctx) -> f64 {
        match ctx.ideal_depth {
            IdealDepth::K => self.ndcg(k, gain, ctx.discount),
            IdealDepth::ListLength => ndcg_of(
                self.dcg(k, gain, ctx.discount),
                self.idcg(Some(cut(k, self.len())), gain, ctx.discount),
            ),
        }
    }

    /// The IDCG that divides nDCG at cutoff `k` under `ctx.ideal_depth`.
    pub fn idcg_at(&self, k: Option<usize>, gain: Gain, ctx: &Ctx) -> f64 {
        match ctx.ideal_depth {
            IdealDepth::K => self.idcg(k, gain, ctx.discount),
            IdealDepth::ListLength => self.idcg(Some(cut(k, self.len())), gain, ctx.discount),
        }
    }

    pub fn len(&self) -> usize {
        self.grades.len()
    }

    pub fn is_empty(&self) -> bool {
        self.grades.is_empty()
    }

    /// How many of the positions `start..end` are relevant at `level`
    /// (a tie group's, or the first k's).
    #[inline]
    fn relevant_in(&self, start: usize, end: usize, level: i32) -> usize {
        self.grades[start..end]
            .iter()
            .filter(|&&g| is_rel(g, level))
            .count()
    }

    /// Calls `f(start, end)` for every tie group (one per position unless ties are averaged).
    #[inline]
    fn for_each_group(&self, mut f: impl FnMut(usize, usize) -> bool) {
        let n = self.grades.len();
        if !self.average_ties {
            for i in 0..n {
                if !f(i, i + 1) {
                    return;
                }
            }
            return;
        }
        let mut s = 0;
        while s < n {
            let mut e = s + 1;
            while e < n && self.tied_with_prev[e] {
                e += 1;
            }
            if !f(s, e) {
                return;
            }
            s = e;
        }
    }

    /// Σ_{i < k} w(i) · E[v(grade_i)]: the expectation of any metric linear in
    /// per-position values, under the tie rule.
    #[inline]
    pub(crate) fn linear_sum(
        &self,
        k: usize,
        v: impl Fn(i32) -> f64,
        w: impl Fn(usize) -> f64,
    ) -> f64 {
        self.linear_each(k, v, w, |_, _| {})
    }

    /// [`QueryView::linear_sum`] read at every cutoff on the way: `at(i, sum
    /// up to i + 1)` for i < min(k, n), and the sum up to k. The tie rule's
    /// expectation lives here: a group of tied documents contributes its mean
    /// value times the sum of its weights inside the cutoff (so a cutoff
    /// inside a group reads the group's weights so far).
    #[inline]
    pub(crate) fn linear_each(
        &self,
        k: usize,
        v: impl Fn(i32) -> f64,
        w: impl Fn(usize) -> f64,
        mut at: impl FnMut(usize, f64),
    ) -> f64 {
        if !self.average_ties {
            // no tie groups: a plain running sum
            let k = k.min(self.grades.len());
            return running_sum(
                self.grades[..k]
                    .iter()
                    .enumerate()
                    .map(|(i, &g)| w(i) * v(g)),
                at,
            );
        }
        let mut total = 0.0;
        self.for_each_group(|s, e| {
            if s >= k {
                return false;
            }
            if e - s == 1 {
                total += w(s) * v(self.grades[s]);
                at(s, total);
            } else {
                let mean = self.grades[s..e].iter().map(|&g| v(g)).sum::<f64>() / (e - s) as f64;
                // the weights summed from -0.0, as Iterator::sum
                let mut weights = -0.0;
                for i in s..e.min(k) {
                    weights += w(i);
                    at(i, total + mean * weights);
                }
                total += mean * weights;
            }
            true
        });
        total
    }

    /// Expected relevant documents in the top i + 1 for every i < min(k, n):
    /// `at(i, hits@(i+1))`; returns hits@k.
    #[inline]
    pub fn hits_each(&self, k: usize, level: i32, at: impl FnMut(usize, f64)) -> f64 {
        self.linear_each(k, |g| is_rel(g, level) as u8 as f64, |_| 1.0, at)
    }

    /// Expected number of relevant documents in the top k.
    pub fn hits(&self, k: Option<usize>, level: i32) -> f64 {
        if !self.average_ties {
            let k = cut(k, self.len());
            return self.relevant_in(0, k, level) as f64;
        }
        let k = cut(k, self.len());
        self.linear_sum(k, |g| is_rel(g, level) as u8 as f64, |_| 1.0)
    }

    /// The one DCG sum, under the tie rule: `at(i, DCG@(i+1))` for every
    /// i < min(k, n), and DCG@k. The table ([`QueryView::dcg`]) and the
    /// curves (`curves.rs`) read it; without tie groups it is the
    /// [`running_sum`] of [`dcg_terms`], which the one-scan path
    /// ([`QueryView::scan_cutoffs`], both gains in one pass) adds in the same
    /// order and the explanation (`explain.rs`) lists. With tie groups it is
    /// [`QueryView::linear_each`] of gain and discount.
    #[inline]
    pub fn dcg_each(
        &self,
        k: usize,
        gain: Gain,
        discount: Discount,
        at: impl FnMut(usize, f64),
    ) -> f64 {
        if !self.average_ties {
            let k = k.min(self.grades.len());
            return running_sum(dcg_terms(&self.grades[..k], gain, discount), at);
        }
        self.linear_each(k, |g| gain_of(g, gain), discounts(discount), at)
    }

    /// IDCG@(i+1) for every i < min(k, judged): the same sum over the ideal
    /// list (every judged document by grade, descending; no ties to average).
    #[inline]
    pub fn idcg_each(
        &self,
        k: usize,
        gain: Gain,
        discount: Discount,
        at: impl FnMut(usize, f64),
    ) -> f64 {
        let k = k.min(self.judged_desc.len());
        running_sum(dcg_terms(&self.judged_desc[..k], gain, discount), at)
    }

    /// DCG@k = Σ_{i=1}^{min(k,n)} gain(rel_i) · discount(i).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::{Discount, Gain};
    ///
    /// // grades in ranked order; every judged grade of the query, descending
    /// let q = QueryView {
    ///     grades: &[3, 2, 0, 1],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[3, 2, 1, 0],
    ///     average_ties: false,
    /// };
    ///
    /// // scikit-learn 1.9: dcg_score([[3, 2, 0, 1]], [[4, 3, 2, 1]])
    /// let dcg = q.dcg(None, Gain::Linear, Discount::Log2);
    /// assert!((dcg - 4.6925360652163075).abs() < 1e-12);
    /// // by hand: (2^3 - 1)/log2(2) + (2^2 - 1)/log2(3) + 0 + (2^1 - 1)/log2(5)
    /// let hand = 7.0 + 3.0 / 3f64.log2() + 1.0 / 5f64.log2();
    /// assert!((q.dcg(None, Gain::Exponential, Discount::Log2) - hand).abs() < 1e-12);
    /// ```
    pub fn dcg(&self, k: Option<usize>, gain: Gain, discount: Discount) -> f64 {
        self.dcg_each(cut(k, self.len()), gain, discount, |_, _| {})
    }

    /// IDCG@k: DCG@k of the ideal ranking of every judged document of the query.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::{Discount, Gain};
    ///
    /// // grades in ranked order; every judged grade of the query, descending
    /// let q = QueryView {
    ///     grades: &[3, 2, 0, 1],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[3, 2, 1, 0],
    ///     average_ties: false,
    /// };
    ///
    /// // the judged grades in their best order, 3, 2, 1, 0: 3/log2(2) + 2/log2(3) + 1/log2(4)
    /// let hand = 3.0 + 2.0 / 3f64.log2() + 0.5;
    /// assert!((q.idcg(None, Gain::Linear, Discount::Log2) - hand).abs() < 1e-12);
    /// ```
    pub fn idcg(&self, k: Option<usize>, gain: Gain, discount: Discount) -> f64 {
        self.idcg_each(cut(k, self.judged_desc.len()), gain, discount, |_, _| {})
    }

    /// nDCG@k = DCG@k / IDCG@k; 0 when the query has no positive grade.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::{Discount, Gain};
    ///
    /// // grades in ranked order; every judged grade of the query, descending
    /// let q = QueryView {
    ///     grades: &[3, 2, 0, 1],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[3, 2, 1, 0],
    ///     average_ties: false,
    /// };
    ///
    /// // scikit-learn 1.9: ndcg_score([[3, 2, 0, 1]], [[4, 3, 2, 1]]), and with k=3
    /// let ndcg = q.ndcg(None, Gain::Linear, Discount::Log2);
    /// assert!((ndcg - 0.9854419388428785).abs() < 1e-12);
    /// let ndcg_3 = q.ndcg(Some(3), Gain::Linear, Discount::Log2);
    /// assert!((ndcg_3 - 0.894999002123018).abs() < 1e-12);
    /// ```
    pub fn ndcg(&self, k: Option<usize>, gain: Gain, discount: Discount) -> f64 {
        ndcg_of(self.dcg(k, gain, discount), self.idcg(k, gain, discount))
    }

    /// P@k = hits@k / k (or / min(k, n)); P without cutoff = hits / n.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::{Ctx, PrecisionDenominator};
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// assert_eq!(q.precision(Some(2), &ctx), 0.5); // 1 relevant in the top 2
    /// assert_eq!(q.precision(Some(10), &ctx), 0.2); // 2 / 10: k, as trec_eval
    /// let short = Ctx { precision_denominator: PrecisionDenominator::MinKLength, ..ctx };
    /// assert_eq!(q.precision(Some(10), &short), 0.5); // 2 / min(10, 4)
    /// ```
    pub fn precision(&self, k: Option<usize>, ctx: &Ctx) -> f64 {
        self.precision_of(self.hits(k, ctx.relevance_level), k, ctx)
    }

    /// P@k from hits@k (shared with [`QueryView::scan_cutoffs`] users).
    pub fn precision_of(&self, hits: f64, k: Option<usize>, ctx: &Ctx) -> f64 {
        let denom = match (k, ctx.precision_denominator) {
            (Some(k), PrecisionDenominator::K) => k,
            (Some(k), PrecisionDenominator::MinKLength) => k.min(self.len()),
            (None, _) => self.len(),
        };
        if denom == 0 {
            return 0.0;
        }
        hits / denom as f64
    }

    /// R@k = hits@k / |R|; 0 when |R| = 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::Ctx;
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// assert_eq!(q.recall(Some(2), ctx.relevance_level), 1.0 / 3.0);
    /// assert_eq!(q.recall(None, ctx.relevance_level), 2.0 / 3.0);
    /// ```
    pub fn recall(&self, k: Option<usize>, level: i32) -> f64 {
        self.recall_of(self.hits(k, level), level)
    }

    /// R@k from hits@k.
    pub fn recall_of(&self, hits: f64, level: i32) -> f64 {
        let r = self.num_relevant(level);
        if r == 0 {
            0.0
        } else {
            hits / r as f64
        }
    }

    /// F1@k = 2·P@k·R@k / (P@k + R@k), 0 when both are 0. With the default P
    /// denominator this equals 2·hits / (k + |R|), linear in hits, so its tie
    /// average is exact.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::Ctx;
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// // P@2 = 1/2, R@2 = 1/3: 2PR / (P + R) = 2 · hits / (k + |R|) = 2/5
    /// assert!((q.f1(Some(2), &ctx) - 0.4).abs() < 1e-15);
    /// ```
    pub fn f1(&self, k: Option<usize>, ctx: &Ctx) -> f64 {
        self.f1_of(self.hits(k, ctx.relevance_level), k, ctx)
    }

    /// F1@k from hits@k.
    pub fn f1_of(&self, hits: f64, k: Option<usize>, ctx: &Ctx) -> f64 {
        let p = self.precision_of(hits, k, ctx);
        let r = self.recall_of(hits, ctx.relevance_level);
        if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        }
    }

    /// Judged@k = |judged documents in the top k| / min(k, list length): the
    /// share of what the run shows that the qrels judge (any grade, 0
    /// included). ir_measures' `Judged` (from OpenNIR); 0 for an empty list.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::{QueryView, NOT_JUDGED};
    ///
    /// let q = QueryView {
    ///     grades: &[1, NOT_JUDGED, 0, 2],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[2, 1, 0],
    ///     average_ties: false,
    /// };
    /// assert_eq!(q.judged(Some(2)), 0.5);
    /// assert_eq!(q.judged(None), 0.75);
    /// ```
    pub fn judged(&self, k: Option<usize>) -> f64 {
        let k = cut(k, self.len());
        if k == 0 {
            return 0.0;
        }
        self.linear_sum(k, |g| (g != NOT_JUDGED) as u8 as f64, |_| 1.0) / k as f64
    }

    /// Hit@k (trec_eval `success`): 1 if a relevant document is in the top k.
    /// Tie average: a group straddling the cutoff with t of its n slots inside
    /// and r relevant members contributes P(hit) = 1 - C(n-r, t) / C(n, t).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    ///
    /// // three documents with equal scores, the last one relevant
    /// let tied = |average_ties| QueryView {
    ///     grades: &[0, 0, 1],
    ///     tied_with_prev: &[false, true, true],
    ///     judged_desc: &[1, 0, 0],
    ///     average_ties,
    /// };
    /// assert_eq!(tied(false).hit(Some(1), 1), 0.0); // in the file's order
    /// // averaged: 1 - C(2, 1) / C(3, 1) = 1/3 for k = 1, 1 - C(2, 2) / C(3, 2) = 2/3 for k = 2
    /// assert!((tied(true).hit(Some(1), 1) - 1.0 / 3.0).abs() < 1e-15);
    /// assert!((tied(true).hit(Some(2), 1) - 2.0 / 3.0).abs() < 1e-15);
    /// ```
    pub fn hit(&self, k: Option<usize>, level: i32) -> f64 {
        self.hit_each(cut(k, self.len()), level, |_, _| {})
    }

    /// Hit@(i+1) for every i < min(k, n): `at(i, value)`; returns Hit@k.
    #[inline]
    pub fn hit_each(&self, k: usize, level: i32, mut at: impl FnMut(usize, f64)) -> f64 {
        let k = k.min(self.len());
        let mut value = 0.0;
        let mut reached = 0; // positions given to `at`
        self.for_each_group(|s, e| {
            if s >= k {
                return false;
            }
            let n = e - s;
            let r = self.relevant_in(s, e, level);
            let t = e.min(k) - s;
            if r == 0 {
                (s..s + t).for_each(|i| at(i, 0.0));
                reached = s + t;
                return true;
            }
            let mut miss = 1.0;
            for j in 0..t {
                miss *= (n - r).saturating_sub(j) as f64 / (n - j) as f64;
                at(s + j, 1.0 - miss);
            }
            value = 1.0 - miss;
            reached = s + t;
            false
        });
        // past the first group with a relevant document, every cutoff has a hit
        (reached..k).for_each(|i| at(i, value));
        value
    }

    /// RR@k = 1 / rank of the first relevant document if it is within k, else 0
    /// (trec_eval `recip_rank` has no cutoff). Tie average: the first relevant
    /// member of a group of n with r relevant sits at offset j with probability
    /// C(n-1-j, r-1) / C(n, r).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    ///
    /// let q = QueryView {
    ///     grades: &[0, 0, 2, 1],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[2, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// assert_eq!(q.reciprocal_rank(None, 1), 1.0 / 3.0);
    /// assert_eq!(q.reciprocal_rank(Some(2), 1), 0.0);
    ///
    /// // two documents with equal scores, one relevant: first with probability 1/2
    /// let tied = QueryView {
    ///     grades: &[0, 1],
    ///     tied_with_prev: &[false, true],
    ///     judged_desc: &[1, 0],
    ///     average_ties: true,
    /// };
    /// assert_eq!(tied.reciprocal_rank(None, 1), 0.75); // (1 + 1/2) / 2
    /// ```
    pub fn reciprocal_rank(&self, k: Option<usize>, level: i32) -> f64 {
        let k = cut(k, self.len());
        let mut value = 0.0;
        self.for_each_group(|s, e| {
            if s >= k {
                return false;
            }
            let n = e - s;
            let r = self.relevant_in(s, e, level);
            if r == 0 {
                return true;
            }
            let mut p = r as f64 / n as f64; // P(first relevant at offset 0)
            for j in 0..=(n - r) {
                if s + j >= k {
                    break;
                }
                value += p / (s + j + 1) as f64;
                // P(j+1) = P(j) · (n-j-r) / (n-j-1)
                if n - j > 1 {
                    p *= (n - j - r) as f64 / (n - j - 1) as f64;
                }
            }
            false
        });
        value
    }

    /// First relevant rank (1-based), `None` when nothing relevant was retrieved.
    /// Under the tie average this is the trec-order rank.
    pub fn first_relevant_rank(&self, level: i32) -> Option<usize> {
        self.grades
            .iter()
            .position(|&g| is_rel(g, level))
            .map(|i| i + 1)
    }

    /// AP@k = Σ_{i ≤ k, rel_i} P@i / D, with D = |R| (trec_eval) or min(|R|, k).
    /// Tie average: for the member at offset m of a group of n with r relevant
    /// and B relevant above the group, E[rel_i · hits@i] = (r/n)(B + 1 + m(r-1)/(n-1)).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::{ApDenominator, Ctx};
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// // (P@1 + P@3) / |R| = (1 + 2/3) / 3, as trec_eval's map
    /// assert!((q.average_precision(None, &ctx) - 5.0 / 9.0).abs() < 1e-15);
    /// // AP@2 over min(|R|, 2) = P@1 / 2
    /// let kaggle = Ctx { ap_denominator: ApDenominator::MinRelevantK, ..ctx };
    /// assert_eq!(q.average_precision(Some(2), &kaggle), 0.5);
    ///
    /// // every relevant document retrieved: scikit-learn 1.9's
    /// // average_precision_score([1, 0, 1, 0], [4, 3, 2, 1])
    /// let all = QueryView { judged_desc: &[1, 1, 0, 0], ..q };
    /// assert!((all.average_precision(None, &ctx) - 0.8333333333333333).abs() < 1e-12);
    /// ```
    pub fn average_precision(&self, k: Option<usize>, ctx: &Ctx) -> f64 {
        let denom = self.ap_denominator(k, ctx);
        if denom == 0 {
            return 0.0;
        }
        self.ap_sum_each(cut(k, self.len()), ctx.relevance_level, |_, _| {}) / denom as f64
    }

    /// AP's numerator Σ_{j ≤ i+1, rel_j} P@j (its expectation under the tie
    /// rule) for every i < min(k, n): `at(i, sum)`; returns the sum to k.
    #[inline]
    pub fn ap_sum_each(&self, k: usize, level: i32, mut at: impl FnMut(usize, f64)) -> f64 {
        let k = k.min(self.len());
        if !self.average_ties {
            let relevant = self.grades[..k].iter().map(|&g| is_rel(g, level));
            return ap_running(relevant, at).0;
        }
        let mut total = 0.0;
        let mut above = 0usize;
        self.for_each_group(|s, e| {
            if s >= k {
                return false;
            }
            let n = e - s;
            let r = self.relevant_in(s, e, level);
            let pr = r as f64 / n as f64;
            for i in s..e.min(k) {
                if r > 0 {
                    let m = (i - s) as f64;
                    let within = if n > 1 {
                        m * (r - 1) as f64 / (n - 1) as f64
                    } else {
                        0.0
                    };
                    total += pr * (above as f64 + 1.0 + within) / (i + 1) as f64;
                }
                at(i, total);
            }
            above += r;
            true
        });
        total
    }

    /// The AP@k denominator: |R|, or min(|R|, k).
    pub fn ap_denominator(&self, k: Option<usize>, ctx: &Ctx) -> usize {
        let num_rel = self.num_relevant(ctx.relevance_level);
        match (k, ctx.ap_denominator) {
            (Some(k), ApDenominator::MinRelevantK) => num_rel.min(k),
            _ => num_rel,
        }
    }

    /// Running sums of the ranked list and of the ideal list, read at every
    /// cutoff of `ks` (ascending, `None` = no cutoff, last) in one scan each:
    /// `out[j]` holds the sums over the first `min(ks[j], n)` positions. Every
    /// sum adds the same terms in the same order as the per-k kernels, so the
    /// values derived from it are the kernels' values. Only valid when ties are
    /// not averaged (each position is its own group).
    pub fn scan_cutoffs(&self, ks: &[Option<usize>], ctx: &Ctx, out: &mut Vec<Prefix>) {
        debug_assert!(!self.average_ties);
        out.clear();
        let d = ctx.discount;
        // DCG and IDCG add the one list of DCG terms (`dcg_terms`, as
        // `dcg_each` does without tie groups), here both gains in one pass;
        // the sums start at +0.0 and a zero term leaves their bits as they are
        let n = self.grades.len();
        let mut terms =
            dcg_terms(self.grades, ctx.gain, d).zip(dcg_terms(self.grades, Gain::Exponential, d));
        let mut acc = Prefix::default();
        let mut ap = ApRun::default();
        let mut i = 0;
        for &k in ks {
            // cut(k, n) does not decrease along ks
            let end = cut(k, n).max(i);
            for (j, &g) in self.grades[i..end].iter().enumerate() {
                let at = i + j;
                if ap.step(at, is_rel(g, ctx.relevance_level)).is_some() {
                    acc.arhr += 1.0 / (at + 1) as f64;
                    if acc.first_relevant == 0 {
                        acc.first_relevant = at + 1;
                    }
                }
                if let Some((t, t_exp)) = terms.next() {
                    acc.dcg += t;
                    acc.dcg_exp += t_exp;
                }
            }
            i = end;
            (acc.hits, acc.ap_sum) = (ap.hits, ap.sum);
            out.push(acc);
        }
        let jn = self.judged_desc.len();
        let mut terms = dcg_terms(self.judged_desc, ctx.gain, d).zip(dcg_terms(
            self.judged_desc,
            Gain::Exponential,
            d,
        ));
        let (mut idcg, mut idcg_exp) = (0.0, 0.0);
        let mut i = 0;
        for (k, prefix) in ks.iter().zip(out.iter_mut()) {
            let end = cut(*k, jn).max(i);
            for (t, t_exp) in terms.by_ref().take(end - i) {
                idcg += t;
                idcg_exp += t_exp;
            }
            i = end;
            prefix.idcg = idcg;
            prefix.idcg_exp = idcg_exp;
        }
    }

    /// ARHR@k (Deshpande & Karypis; seed 004) = Σ_{i ≤ k, rel_i} 1/i.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::Ctx;
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// assert_eq!(q.arhr(None, ctx.relevance_level), 1.0 + 1.0 / 3.0); // 1/1 + 1/3
    /// ```
    pub fn arhr(&self, k: Option<usize>, level: i32) -> f64 {
        let k = cut(k, self.len());
        self.linear_sum(
            k,
            |g| is_rel(g, level) as u8 as f64,
            |i| 1.0 / (i + 1) as f64,
        )
    }

    /// R-precision = hits in the top |R| / |R|; 0 when |R| = 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::Ctx;
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// // |R| = 3: two relevant documents in the top 3
    /// assert_eq!(q.r_precision(ctx.relevance_level), 2.0 / 3.0);
    /// ```
    pub fn r_precision(&self, level: i32) -> f64 {
        let r = self.num_relevant(level);
        if r == 0 {
            return 0.0;
        }
        self.hits(Some(r), level) / r as f64
    }

    /// bpref (Buckley & Voorhees 2004, as trec_eval computes it):
    /// (1/|R|) Σ_{retrieved relevant r} (1 - min(N_above(r), |R|) / min(|N|, |R|)),
    /// N_above = judged non-relevant ranked above r, N = all judged non-relevant.
    /// Documents absent from the qrels are skipped. Always in the trec order.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking::QueryView;
    /// use rankscope_core::ranking_metrics::Ctx;
    ///
    /// // relevant, not, relevant, not; a third relevant document was not
    /// // retrieved, and two judged non-relevant documents were
    /// let q = QueryView {
    ///     grades: &[1, 0, 1, 0],
    ///     tied_with_prev: &[false; 4],
    ///     judged_desc: &[1, 1, 1, 0, 0],
    ///     average_ties: false,
    /// };
    /// let ctx = Ctx::default(); // relevance level 1
    ///
    /// // |R| = 3, N = 2. Rank 1: no non-relevant above, 1. Rank 3: one above,
    /// // 1 - min(1, 3) / min(2, 3) = 1/2. bpref = (1 + 1/2) / 3
    /// assert_eq!(q.bpref(ctx.relevance_level), 0.5);
    /// ```
    pub fn bpref(&self, level: i32) -> f64 {
        let num_rel = self.num_relevant(level);
        if num_rel == 0 {
            return 0.0;
        }
        let num_nonrel = self.num_judged_nonrelevant(level);
        let mut nonrel_so_far = 0usize;
        let mut total = 0.0;
        for &g in self.grades {
            if g == NOT_JUDGED || g < 0 {
                continue;
            }
            if g < level {
                nonrel_so_far += 1;
            } else if nonrel_so_far > 0 {
                total += 1.0 - nonrel_so_far.min(num_rel) as f64 / num_nonrel.min(num_rel) as f64;
            } else {
                total += 1.0;
            }
        }
        total / num_rel as f64
    }

    /// Interpolated precision at the 11 recall levels 0.0, 0.1, ..., 1.0
    /// (trec_eval `iprec_at_recall`): max precision at any rank whose recall is
    /// at least the level. A level is reached after `lround(level · |R|)`
    /// relevant documents (trec_eval 10.0) or `(long)(level · |R| + 0.9)`
    /// (9.0.x and pytrec_eval), in f64 as trec_eval computes it; the two
    /// differ when level · |R| has a fraction in (0.1, 0.5).
    pub fn interpolated_precision(&self, level: i32, version: TrecEvalVersion) -> [f64; 11] {
        let mut out = [0.0; 11];
        let num_rel = self.num_relevant(level);
        let num_ret = self.len();
        let num_rel_ret = self.grades.iter().filter(|&&g| is_rel(g, level)).count();
        if num_ret == 0 {
            return out;
        }
        const LEVELS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
        let cutoffs = LEVELS.map(|l| match version {
            TrecEvalVersion::V10 => (l * num_rel as f64).round() as i64,
            TrecEvalVersion::V9 => (l * num_rel as f64 + 0.9) as i64,
        });
        interpolated_walk(
            |i| is_rel(self.grades[i], level),
            num_ret as i64,
            num_rel_ret as i64,
            &cutoffs,
            |j, p| out[j] = p,
        );
        out
    }

    /// Relevant documents retrieved anywhere in the list.
    pub fn num_relevant_retrieved(&self, level: i32) -> usize {
        self.grades.iter().filter(|&&g| is_rel(g, level)).count()
    }
}

/// Graded-relevance agreement of one ranked list (seed 004's FCP, seed 001's
/// Spearman), computed over the retrieved documents with unjudged = grade 0.
pub mod agreement {
    /// The positions of `values` in ascending (or descending) order, equal
    /// values in position order (a stable sort; one instance for both uses).
    fn order_by(values: &[f64], descending: bool) -> Vec<usize> {
        crate::order(values.len(), &|a, b| {
            let ascending = values[a].total_cmp(&values[b]);
            if descending {
                ascending.reverse()
            } else {
                ascending
            }
        })
    }

    /// Concordant and discordant pairs between score order and grade order
    /// (Koren's FCP terms): a pair tied in score or in grade counts as neither.
    /// O(n log n) via a Fenwick tree over the query's distinct grades.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking_metrics::agreement::concordance;
    ///
    /// // pairs (0,1), (0,2), (0,3) concordant; (1,2), (1,3) discordant; (2,3) tied in grade
    /// assert_eq!(concordance(&[0.9, 0.8, 0.7, 0.6], &[2, 0, 1, 1]), (3, 2));
    /// ```
    pub fn concordance(scores: &[f64], grades: &[i32]) -> (u64, u64) {
        let n = scores.len();
        if n < 2 {
            return (0, 0);
        }
        let mut distinct: Vec<i32> = grades.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let index = |g: i32| distinct.binary_search(&g).unwrap_or(0);
        let order = order_by(scores, true);
        let mut tree = vec![0u64; distinct.len() + 1];
        let add = |tree: &mut Vec<u64>, mut i: usize| {
            i += 1;
            while i < tree.len() {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        };
        let prefix = |tree: &Vec<u64>, mut i: usize| {
            // count of inserted grades with index < i
            let mut s = 0;
            while i > 0 {
                s += tree[i];
                i -= i & i.wrapping_neg();
            }
            s
        };
        let (mut concordant, mut discordant) = (0u64, 0u64);
        let mut seen = 0u64;
        let mut s = 0;
        while s < n {
            let mut e = s + 1;
            while e < n && scores[order[e]] == scores[order[s]] {
                e += 1;
            }
            for &row in &order[s..e] {
                let gi = index(grades[row]);
                let lower = prefix(&tree, gi);
                let lower_or_equal = prefix(&tree, gi + 1);
                // seen docs scored higher: concordant if their grade is higher
                concordant += seen - lower_or_equal;
                discordant += lower;
            }
            for &row in &order[s..e] {
                add(&mut tree, index(grades[row]));
                seen += 1;
            }
            s = e;
        }
        (concordant, discordant)
    }

    /// Largest grade for which the counting versions below are used; a query
    /// with a larger grade goes through the general (sorting) versions.
    pub const SMALL_GRADES: i32 = 64;

    /// [`concordance`] of a list already sorted by score, descending, whose
    /// grades are all in 0..=[`SMALL_GRADES`]: one pass with a count per grade,
    /// no sort. `counts` is scratch space.
    pub fn concordance_sorted(scores: &[f64], grades: &[i32], counts: &mut Vec<u64>) -> (u64, u64) {
        let top = grades.iter().copied().max().unwrap_or(0).max(0) as usize;
        counts.clear();
        counts.resize(top + 1, 0);
        let (mut concordant, mut discordant, mut seen) = (0u64, 0u64, 0u64);
        let n = scores.len();
        let mut s = 0;
        while s < n {
            let mut e = s + 1;
            while e < n && scores[e] == scores[s] {
                e += 1;
            }
            for &g in &grades[s..e] {
                let g = g as usize;
                let lower: u64 = counts[..g].iter().sum();
                concordant += seen - lower - counts[g];
                discordant += lower;
            }
            for &g in &grades[s..e] {
                counts[g as usize] += 1;
                seen += 1;
            }
            s = e;
        }
        (concordant, discordant)
    }

    /// [`spearman`] of a list already sorted by score, descending, whose grades
    /// are all in 0..=[`SMALL_GRADES`]: ranks from the order and from grade
    /// counts, no sort. The ranks are the same numbers [`average_ranks`] gives.
    pub fn spearman_sorted(
        scores: &[f64],
        grades: &[i32],
        scratch: &mut (Vec<f64>, Vec<f64>, Vec<usize>),
    ) -> Option<f64> {
        let n = scores.len();
        let (x, y, counts) = scratch;
        x.clear();
        y.clear();
        let mut s = 0;
        while s < n {
            let mut e = s + 1;
            while e < n && scores[e] == scores[s] {
                e += 1;
            }
            // positions s..e descending are ascending ranks n-e+1 ..= n-s
            let avg = ((n - e) + (n - s) + 1) as f64 / 2.0;
            x.extend(std::iter::repeat_n(avg, e - s));
            s = e;
        }
        let top = grades.iter().copied().max().unwrap_or(0).max(0) as usize;
        counts.clear();
        counts.resize(top + 1, 0);
        for &g in grades {
            counts[g as usize] += 1;
        }
        // counts[g] becomes the mean rank of grade g
        let mut below = 0;
        let ranks: Vec<f64> = counts
            .iter()
            .map(|&c| {
                let r = (below + below + c + 1) as f64 / 2.0;
                below += c;
                r
            })
            .collect();
        y.extend(grades.iter().map(|&g| ranks[g as usize]));
        pearson(x, y)
    }

    pub use crate::base::average_ranks;

    /// Pearson correlation in f64 with compensated sums; `None` if either side is constant.
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking_metrics::agreement::pearson;
    ///
    /// // scipy 1.17: pearsonr([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).statistic
    /// let r = pearson(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
    /// assert!((r - 0.8).abs() < 1e-12);
    /// assert_eq!(pearson(&[1.0, 2.0], &[3.0, 3.0]), None); // one side constant
    /// ```
    pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
        let n = x.len();
        if n < 2 || n != y.len() {
            return None;
        }
        let mx = crate::sum::sum(x.iter().copied()) / n as f64;
        let my = crate::sum::sum(y.iter().copied()) / n as f64;
        let (mut sxy, mut sxx, mut syy) = (
            crate::sum::Sum::new(),
            crate::sum::Sum::new(),
            crate::sum::Sum::new(),
        );
        for (&a, &b) in x.iter().zip(y) {
            let (dx, dy) = (a - mx, b - my);
            sxy.add(dx * dy);
            sxx.add(dx * dx);
            syy.add(dy * dy);
        }
        let denom = (sxx.value() * syy.value()).sqrt();
        if denom == 0.0 || !denom.is_finite() {
            None
        } else {
            Some((sxy.value() / denom).clamp(-1.0, 1.0))
        }
    }

    /// Spearman's rho: Pearson correlation of average ranks (scipy `spearmanr`).
    ///
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::ranking_metrics::agreement::spearman;
    ///
    /// // scipy 1.17: spearmanr([1, 2, 2, 4], [1, 3, 2, 4]).statistic (a tie: average ranks)
    /// let rho = spearman(&[1.0, 2.0, 2.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
    /// assert!((rho - 0.9486832980505139).abs() < 1e-12);
    /// ```
    pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
        pearson(&average_ranks(x), &average_ranks(y))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A query view of literal columns, for the kernels' tests.
    pub(crate) fn view<'a>(
        grades: &'a [i32],
        ties: &'a [bool],
        judged: &'a [i32],
        avg: bool,
    ) -> QueryView<'a> {
        QueryView {
            grades,
            tied_with_prev: ties,
            judged_desc: judged,
            average_ties: avg,
        }
    }

    #[test]
    fn seed_004_worked_example() {
        let g = [0, 5, 1, 4, 2];
        let judged = [5, 4, 2, 1, 0];
        let q = view(&g, &[false; 5], &judged, false);
        assert!((q.dcg(Some(5), Gain::Linear, Discount::Log2) - 6.151060614619943).abs() < 1e-12);
        assert!((q.idcg(Some(5), Gain::Linear, Discount::Log2) - 8.954395572359225).abs() < 1e-12);
        assert!((q.ndcg(Some(5), Gain::Linear, Discount::Log2) - 0.6869319726735409).abs() < 1e-12);
        assert!(
            (q.dcg(Some(5), Gain::Exponential, Discount::Log2) - 27.679529153519702).abs() < 1e-9
        );
        assert!(
            (q.ndcg(Some(5), Gain::Exponential, Discount::Log2) - 0.6529018843699065).abs() < 1e-12
        );
    }

    #[test]
    fn tie_average_matches_brute_force_over_permutations() {
        // group of 4 tied docs with 2 relevant after one relevant doc
        let grades = [1, 0, 1, 2, 0, 0];
        let ties = [false, false, true, true, true, false];
        let judged = [2, 1, 1, 0, 0, 0];
        let q = view(&grades, &ties, &judged, true);
        let ctx = Ctx::default();
        // enumerate the 4! orderings of positions 1..5
        let mut perms = vec![];
        permute(&mut vec![0, 1, 2, 3], 0, &mut perms);
        let mut sums = [0.0f64; 6];
        for p in &perms {
            let mut g = grades;
            for (slot, &src) in p.iter().enumerate() {
                g[1 + slot] = grades[1 + src];
            }
            let e = view(&g, &[false; 6], &judged, false);
            sums[0] += e.average_precision(Some(4), &ctx);
            sums[1] += e.reciprocal_rank(None, 1);
            sums[2] += e.hit(Some(2), 2);
            sums[3] += e.ndcg(Some(3), Gain::Linear, Discount::Log2);
            sums[4] += e.precision(Some(3), &ctx);
            sums[5] += e.reciprocal_rank(Some(2), 2);
        }
        let n = perms.len() as f64;
        assert!((q.average_precision(Some(4), &ctx) - sums[0] / n).abs() < 1e-12);
        assert!((q.reciprocal_rank(None, 1) - sums[1] / n).abs() < 1e-12);
        assert!((q.hit(Some(2), 2) - sums[2] / n).abs() < 1e-12);
        assert!((q.ndcg(Some(3), Gain::Linear, Discount::Log2) - sums[3] / n).abs() < 1e-12);
        assert!((q.precision(Some(3), &ctx) - sums[4] / n).abs() < 1e-12);
        assert!((q.reciprocal_rank(Some(2), 2) - sums[5] / n).abs() < 1e-12);
    }

    /// Every ordering of `v[i..]`, appended to `out`.
    pub(crate) fn permute(v: &mut Vec<usize>, i: usize, out: &mut Vec<Vec<usize>>) {
        if i == v.len() {
            out.push(v.clone());
            return;
        }
        for j in i..v.len() {
            v.swap(i, j);
            permute(v, i + 1, out);
            v.swap(i, j);
        }
    }

    #[test]
    fn concordance_counts_ties_as_neither() {
        // user0 of the FCP probe: r=[1,2,3] p=[1,1,2]
        let (c, d) = agreement::concordance(&[1.0, 1.0, 2.0], &[1, 2, 3]);
        assert_eq!((c, d), (2, 0));
        let (c, d) = agreement::concordance(&[3.0, 2.0, 1.0], &[1, 2, 3]);
        assert_eq!((c, d), (0, 3));
    }

    #[test]
    fn spearman_uses_average_ranks() {
        let x = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0];
        let y = [1.0, 3.0, 2.0, 2.0, 3.0, 3.0];
        assert!((agreement::spearman(&x, &y).unwrap() - 0.5833333333333334).abs() < 1e-12);
        assert_eq!(agreement::spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn k_beyond_the_list_and_empty_relevant_sets() {
        let g = [1, NOT_JUDGED, 0];
        let judged = [1, 0];
        let q = view(&g, &[false; 3], &judged, false);
        let ctx = Ctx::default();
        assert_eq!(q.precision(Some(10), &ctx), 0.1);
        let min_ctx = Ctx {
            precision_denominator: PrecisionDenominator::MinKLength,
            ..ctx
        };
        assert!((q.precision(Some(10), &min_ctx) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(q.ndcg(Some(10), Gain::Linear, Discount::Log2), 1.0);
        let none = view(&[0, 0], &[false; 2], &[0, 0], false);
        assert_eq!(none.average_precision(None, &ctx), 0.0);
        assert_eq!(none.ndcg(None, Gain::Linear, Discount::Log2), 0.0);
        assert_eq!(none.recall(Some(5), 1), 0.0);
        assert_eq!(none.bpref(1), 0.0);
    }
}
