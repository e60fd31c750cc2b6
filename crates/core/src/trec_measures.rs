//! trec_eval's per-query measures beyond the common ones (Buckley's trec_eval
//! 10.0, `m_*.c`), as kernels over one prepared query ([`QueryView`]).
//!
//! Each follows its `m_*.c` expression by expression (same operations in the
//! same order, so the values are trec_eval's bits under the trec order), with
//! trec_eval's defaults for its parameters: the gain of a grade is the grade
//! (negative and unjudged grades gain 0), the discount is `log2(i + 2)` divided
//! by, RBP's persistence is 0.9, utility's coefficients are (1, −1, 0, 0), set
//! F's β is 1. Documents absent from the qrels are trec_eval's "not in the
//! pool"; judged with a negative grade, "in the pool but unjudged".
//!
//! Ties: the measures linear in per-position terms (relative P, unj, Rprec_mult,
//! RBP and its residual) take the exact expectation under averaged ties like
//! the other kernels; the set measures do not depend on the order; the rest
//! (infAP, binG, G, nDCG_rel, Rndcg, 11-point average, yaAP) read the ranking
//! in trec_eval's order under every tie rule, as bpref does (`ranking::retie`
//! keeps that order when ties are averaged).

use super::ranking::{QueryView, NOT_JUDGED};
use super::ranking_metrics::{ap_running, TrecEvalVersion};

/// The multiples of |R| of `Rprec_mult` (trec_eval's defaults).
pub const RPREC_MULTS: [f64; 10] = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];

/// RBP's persistence p (trec_eval's default).
pub const RBP_PERSISTENCE: f64 = 0.9;

/// The floor of a geometric mean's values (trec_eval's `MIN_GEO_MEAN`).
pub const MIN_GEO_MEAN: f64 = 0.00001;

const INFAP_EPSILON: f64 = 0.00001;

/// trec_eval's gain of a grade with its default gains: the grade itself,
/// 0 for negative and unjudged grades.
#[inline]
fn trec_gain(grade: i32) -> f64 {
    if grade > 0 {
        grade as f64
    } else {
        0.0
    }
}

/// Not in the pool (absent from the qrels) or judged with a negative grade.
#[inline]
fn unjudged(grade: i32) -> bool {
    grade == NOT_JUDGED || grade < 0
}

/// `log2(i + 2)`, the discount trec_eval divides the gain of 0-based rank i by
/// (a division, as trec_eval's bits need: not the core's DCG sum, which
/// multiplies by its reciprocal; see `ranking_metrics::dcg_terms`).
#[inline]
fn log2_discount(i: usize) -> f64 {
    ((i + 2) as f64).log2()
}

/// set_P over counts: |relevant retrieved| / |retrieved| (0 with nothing
/// retrieved). The core's [`QueryView::set_precision`] and the port's `set_P`.
#[inline]
pub fn set_p_of(rel_ret: i64, ret: i64) -> f64 {
    match ret {
        0 => 0.0,
        n => rel_ret as f64 / n as f64,
    }
}

/// set_recall over counts (0 when |R| = 0); the core's and the port's.
#[inline]
pub fn set_recall_of(rel_ret: i64, rel: i64) -> f64 {
    match rel {
        0 => 0.0,
        r => rel_ret as f64 / r as f64,
    }
}

/// set_relative_P over counts (0 when nothing is retrieved or |R| = 0); the
/// core's and the port's.
#[inline]
pub fn set_relative_p_of(rel_ret: i64, ret: i64, rel: i64) -> f64 {
    if ret == 0 || rel == 0 {
        return 0.0;
    }
    rel_ret as f64 / ret.min(rel) as f64
}

/// set_map over counts, |relevant retrieved|² / (|retrieved| · |R|); the
/// core's and the port's.
#[inline]
pub fn set_map_of(rel_ret: i64, ret: i64, rel: i64) -> f64 {
    if ret == 0 || rel == 0 {
        return 0.0;
    }
    (rel_ret as f64 * rel_ret as f64) / (ret as f64 * rel as f64)
}

/// set_F over counts with trec_eval's β parameter (0 with no relevant
/// document retrieved); the core's (β = 1) and the port's.
#[inline]
pub fn set_f_of(rel_ret: i64, ret: i64, rel: i64, beta: f64) -> f64 {
    if rel_ret == 0 {
        return 0.0;
    }
    let precision = rel_ret as f64 / ret as f64;
    let recall = rel_ret as f64 / rel as f64;
    (beta + 1.0) * precision * recall / (beta * precision + recall)
}

/// utility over counts with coefficients `c` and -N `docs` (C's long
/// arithmetic, which wraps on x86-64 for a -N near `i64::MAX`); the core's
/// (defaults, -N = 0) and the port's.
#[inline]
pub fn utility_of(c: [f64; 4], rel_ret: i64, ret: i64, rel: i64, docs: i64) -> f64 {
    c[0] * rel_ret as f64
        + c[1] * (ret - rel_ret) as f64
        + c[2] * (rel - rel_ret) as f64
        + c[3]
            * docs
                .wrapping_add(rel_ret)
                .wrapping_sub(ret)
                .wrapping_sub(rel) as f64
}

/// binG's sum over a list's relevance in rank order: (Σ over relevant ranks
/// i of 1 / log2(3 + i − rel_so_far), the relevant documents seen). The
/// core's [`QueryView::bin_g`] and the port's `binG` add it.
#[inline]
pub fn bin_g_sum(relevant: impl Iterator<Item = bool>) -> (f64, i64) {
    let (mut rel_so_far, mut sum) = (0i64, 0.0);
    for (i, rel) in relevant.enumerate() {
        if rel {
            rel_so_far += 1;
            sum += 1.0 / ((3 + i as i64 - rel_so_far) as f64).log2();
        }
    }
    (sum, rel_so_far)
}

/// How infAP reads one retrieved document ([`inferred_ap_sum`]); each side
/// maps its own grades (the core's and the port's unjudged values differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooled {
    /// Not in the pool: skipped.
    NotInPool,
    /// In the pool, unjudged.
    Unjudged,
    /// Judged non-relevant.
    NonRelevant,
    /// Judged relevant.
    Relevant,
}

/// infAP's sum (m_infAP.c) over the documents in rank order, before the
/// division by |R|: the core's [`QueryView::inferred_ap`] and the port's
/// `infAP` add it.
pub fn inferred_ap_sum(docs: impl Iterator<Item = Pooled>) -> f64 {
    let (mut nonrel, mut rel, mut pool_unjudged) = (0i64, 0i64, 0i64);
    let mut inf_ap = 0.0;
    for (j, d) in docs.enumerate() {
        match d {
            Pooled::NotInPool => {}
            Pooled::Unjudged => pool_unjudged += 1,
            Pooled::NonRelevant => nonrel += 1,
            Pooled::Relevant => {
                rel += 1;
                if j == 0 {
                    inf_ap += 1.0;
                } else {
                    let fj = j as f64;
                    inf_ap += 1.0 / (fj + 1.0)
                        + (fj / (fj + 1.0))
                            * ((rel - 1 + nonrel + pool_unjudged) as f64 / fj)
                            * (((rel - 1) as f64 + INFAP_EPSILON)
                                / ((rel - 1 + nonrel) as f64 + 2.0 * INFAP_EPSILON));
                }
            }
        }
    }
    inf_ap
}

/// RBP's sum Σ_i gain_i p^i with trec_eval's running product p^i, over the
/// gains in rank order (each side scales its own gains); the core's
/// [`QueryView::rbp`] without tie groups and the port's `RBP` add it.
#[inline]
pub fn rbp_sum(gains: impl Iterator<Item = f64>, p: f64) -> f64 {
    let (mut sum, mut cur_p) = (0.0, 1.0);
    for gain in gains {
        if gain != 0.0 {
            sum += gain * cur_p;
        }
        cur_p *= p;
    }
    sum
}

/// rbp_resid over the unjudged flags in rank order: p^n + (1 − p) Σ_{i
/// unjudged} p^i, `None` when no retrieved document is unjudged (trec_eval
/// then prints 0); the core's [`QueryView::rbp_residual`] without tie groups
/// and the port's `rbp_resid`.
#[inline]
pub fn rbp_residual_of(unjudged: impl Iterator<Item = bool>, p: f64) -> Option<f64> {
    let (mut unj, mut sum, mut cur_p) = (0usize, 0.0, 1.0);
    for u in unjudged {
        if u {
            unj += 1;
            sum += cur_p;
        }
        cur_p *= p;
    }
    (unj != 0).then_some(cur_p + (1.0 - p) * sum)
}

impl QueryView<'_> {
    fn rel(&self, level: i32) -> impl Fn(i32) -> bool {
        move |g| g != NOT_JUDGED && g >= level
    }

    /// The ideal ranking's gains: the query's judged grades above 0, descending.
    fn ideal_gains(&self) -> impl Iterator<Item = f64> + '_ {
        self.judged_desc
            .iter()
            .take_while(|&&g| g > 0)
            .map(|&g| g as f64)
    }

    /// set_P = |relevant retrieved| / |retrieved| (0 with nothing retrieved).
    pub fn set_precision(&self, level: i32) -> f64 {
        set_p_of(self.num_relevant_retrieved(level) as i64, self.len() as i64)
    }

    /// set_recall = |relevant retrieved| / |R| (0 when |R| = 0).
    pub fn set_recall(&self, level: i32) -> f64 {
        set_recall_of(
            self.num_relevant_retrieved(level) as i64,
            self.num_relevant(level) as i64,
        )
    }

    /// set_relative_P = |relevant retrieved| / min(|retrieved|, |R|).
    pub fn set_relative_precision(&self, level: i32) -> f64 {
        let (rr, ret, r) = self.counts(level);
        set_relative_p_of(rr, ret, r)
    }

    /// set_map = set_P · set_recall = |relevant retrieved|² / (|retrieved| · |R|).
    pub fn set_map(&self, level: i32) -> f64 {
        let (rr, ret, r) = self.counts(level);
        set_map_of(rr, ret, r)
    }

    /// set_F (β = 1) = 2 · set_P · set_recall / (set_P + set_recall), 0 with no
    /// relevant document retrieved.
    pub fn set_f(&self, level: i32) -> f64 {
        let (rr, ret, r) = self.counts(level);
        set_f_of(rr, ret, r, 1.0)
    }

    /// (|relevant retrieved|, |retrieved|, |R|), as trec_eval's longs.
    fn counts(&self, level: i32) -> (i64, i64, i64) {
        (
            self.num_relevant_retrieved(level) as i64,
            self.len() as i64,
            self.num_relevant(level) as i64,
        )
    }

    /// relative_P@k = |relevant in top k| / min(k, |R|); 0 when |R| = 0.
    ///
    /// Not shared with the port's `relative_P`, nor are [`Self::unjudged_at`]
    /// and [`Self::rprec_mult`] with `unj` and `Rprec_mult`: these read the
    /// counts through the core's tie rule (an expectation over tie groups,
    /// `hits`/`linear_sum`), which the port, reading trec_eval's order only,
    /// has no use for; the port reads every cutoff in one scan (`scan`) or, for
    /// Rprec_mult, walks m_Rprec_mult.c's list from the end. Both end in one
    /// count over one integer division, so the bits agree
    /// (tests/properties.rs keeps them equal).
    pub fn relative_precision(&self, k: usize, level: i32) -> f64 {
        match self.num_relevant(level) {
            0 => 0.0,
            r => self.hits(Some(k), level) / k.min(r) as f64,
        }
    }

    /// unj@k = |documents in the top k not in the pool or judged negative| / k.
    pub fn unjudged_at(&self, k: usize) -> f64 {
        let n = k.min(self.len());
        self.linear_sum(n, |g| unjudged(g) as u8 as f64, |_| 1.0) / k as f64
    }

    /// Rprec_mult: P@c at c = (long)(m·|R| + 0.9) documents for each multiple m
    /// of [`RPREC_MULTS`] (0 when c = 0), documents beyond the list counted as
    /// non-relevant.
    pub fn rprec_mult(&self, level: i32) -> [f64; 10] {
        let r = self.num_relevant(level) as f64;
        RPREC_MULTS.map(|m| match (m * r + 0.9) as usize {
            0 => 0.0,
            c => self.hits(Some(c), level) / c as f64,
        })
    }

    /// 11pt_avg: the mean of the 11 interpolated precisions of
    /// `iprec_at_recall`, summed from recall 1.0 down as trec_eval adds them.
    pub fn eleven_point_average(&self, level: i32, version: TrecEvalVersion) -> f64 {
        let values = self.interpolated_precision(level, version);
        values.iter().rev().fold(0.0, |s, v| s + v) / values.len() as f64
    }

    /// infAP (Yilmaz & Aslam 2006, trec_eval `m_infAP.c`): AP inferred from a
    /// uniform sample of the pool. For the relevant document at 0-based rank
    /// j > 0, with rel, nonrel and unj the relevant, judged non-relevant and
    /// in-pool unjudged documents above it:
    /// E[P@j+1] = 1/(j+1) + (j/(j+1)) · ((rel + nonrel + unj)/j) · ((rel + ε)/(rel + nonrel + 2ε)),
    /// summed and divided by |R|; documents not in the pool are skipped.
    pub fn inferred_ap(&self, level: i32) -> f64 {
        let inf_ap = inferred_ap_sum(self.grades.iter().map(|&g| match g {
            NOT_JUDGED => Pooled::NotInPool,
            g if g < 0 => Pooled::Unjudged,
            g if g < level => Pooled::NonRelevant,
            _ => Pooled::Relevant,
        }));
        match self.num_relevant(level) {
            0 => inf_ap,
            r => inf_ap / r as f64,
        }
    }

    /// binG (trec_eval `m_binG.c`): Σ over relevant ranks i (0-based) of
    /// 1 / log2(3 + i − rel_so_far), divided by |R|; the discount grows only
    /// with the non-relevant documents above.
    pub fn bin_g(&self, level: i32) -> f64 {
        let rel = self.rel(level);
        let (sum, rel_so_far) = bin_g_sum(self.grades.iter().map(|&g| rel(g)));
        if rel_so_far == 0 {
            return 0.0;
        }
        sum / self.num_relevant(level) as f64
    }

    /// Not shared with the port's `G`, nor are [`Self::ndcg_rel`] and
    /// [`Self::rndcg`] with `ndcg_rel` and `Rndcg`: the port's gains and its
    /// ideal ranking come from the measure's parameters (`setup_gains`, a
    /// gain per judged level and a count per level, walked by `Ideal`), the
    /// core's from the grades (`ideal_gains` over `judged_desc`), and the
    /// loops follow each m_*.c's walk over those; a shared form would take
    /// two gain iterators and cost the port a list per query. Both divide by
    /// the same `log2(i + 2)` in the same order (tests/properties.rs).
    ///
    /// G (trec_eval `m_G.c`, Sakai's normalised cumulative gain with a cost of
    /// at least 1 per document): Σ_i gain_i / log2(2 + cost_i − gains_i), with
    /// cost_i = Σ_{j ≤ i} max(ideal gain_j, 1) and gains_i the ranking's
    /// cumulative gain, divided by the ideal ranking's total gain.
    pub fn g(&self) -> f64 {
        let mut ideal = self.ideal_gains();
        let (mut results_g, mut sum_results, mut sum_cost) = (0.0, 0.0, 0.0);
        for &grade in self.grades {
            let gain = trec_gain(grade);
            sum_results += gain;
            let g = ideal.next().unwrap_or(0.0);
            sum_cost += if g >= 1.0 { g } else { 1.0 };
            if gain != 0.0 {
                results_g += gain / (2.0 + sum_cost - sum_results).log2();
            }
        }
        let sum_ideal: f64 = self.ideal_gains().fold(0.0, |s, g| s + g);
        if sum_ideal > 0.0 {
            results_g / sum_ideal
        } else {
            0.0
        }
    }

    /// nDCG_rel (trec_eval `m_ndcg_rel.c`): the mean over the relevant
    /// documents (gain > 0) of nDCG at each one's rank; a relevant document not
    /// retrieved counts nDCG of the whole list.
    pub fn ndcg_rel(&self) -> f64 {
        let ideal: Vec<f64> = self.ideal_gains().collect();
        let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
        let mut num_rel_ret = 0i64;
        for (i, &grade) in self.grades.iter().enumerate() {
            let gain = trec_gain(grade);
            if gain != 0.0 {
                results_dcg += gain / log2_discount(i);
            }
            if let Some(&g) = ideal.get(i) {
                ideal_dcg += g / log2_discount(i);
            }
            if gain > 0.0 {
                sum += results_dcg / ideal_dcg;
                num_rel_ret += 1;
            }
        }
        for (i, &g) in ideal.iter().enumerate().skip(self.len()) {
            ideal_dcg += g / log2_discount(i);
        }
        let num_rel = ideal.len() as i64;
        if num_rel == num_rel_ret {
            // trec_eval adds 0 · dcg / idcg, NaN when nothing is judged
            // relevant, and then keeps 0 (`sum > 0` fails)
            return if sum > 0.0 { sum / num_rel as f64 } else { 0.0 };
        }
        sum += (num_rel - num_rel_ret) as f64 * results_dcg / ideal_dcg;
        if sum > 0.0 {
            sum / num_rel as f64
        } else {
            0.0
        }
    }

    /// Rndcg (trec_eval `m_Rndcg.c`): the mean of nDCG read where the ideal
    /// ranking's gain changes level (and once at the end of a list longer than
    /// the ideal one); 0 when |R| = 0.
    pub fn rndcg(&self, level: i32) -> f64 {
        if self.num_relevant(level) == 0 {
            return 0.0;
        }
        let ideal: Vec<f64> = self.ideal_gains().collect();
        let n = self.len();
        // the ideal ranking's gain at 0-based rank i: 0 past its end
        let at = |i: usize| ideal.get(i).copied().unwrap_or(0.0);
        let mut old = ideal.first().copied().unwrap_or(0.0);
        let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
        let mut changes = 0i64;
        // nDCG read where the ideal gain changes
        let change = |g: f64, old: &mut f64, sum: &mut f64, changes: &mut i64, r: f64, i: f64| {
            if *old != g {
                if i > 0.0 {
                    *sum += r / i;
                    *changes += 1;
                }
                *old = g;
            }
        };
        let mut i = 0;
        // trec_eval walks both lists while the ideal one's last gain is > 0
        let mut current = old;
        while i < n && current > 0.0 {
            let gain = trec_gain(self.grades[i]);
            let g = at(i);
            change(g, &mut old, &mut sum, &mut changes, results_dcg, ideal_dcg);
            if gain != 0.0 {
                results_dcg += gain / log2_discount(i);
            }
            if g > 0.0 {
                ideal_dcg += g / log2_discount(i);
            }
            current = g;
            i += 1;
        }
        if i < n {
            while i < n {
                let gain = trec_gain(self.grades[i]);
                if gain != 0.0 {
                    results_dcg += gain / log2_discount(i);
                }
                i += 1;
            }
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
        }
        while current > 0.0 {
            let g = at(i);
            change(g, &mut old, &mut sum, &mut changes, results_dcg, ideal_dcg);
            if g > 0.0 {
                ideal_dcg += g / log2_discount(i);
            }
            current = g;
            i += 1;
        }
        sum / changes as f64
    }

    /// RBP (Moffat & Zobel 2008, trec_eval `m_rbp.c`) = (1 − p) Σ_i gain_i p^i,
    /// p = [`RBP_PERSISTENCE`]; gains are the grades, scaled by the query's
    /// highest judged grade when that is above 1.
    pub fn rbp(&self) -> f64 {
        let top = self.judged_desc.first().copied().unwrap_or(0).max(0) as f64;
        let scale = |grade: i32| {
            let gain = trec_gain(grade);
            if top > 1.0 {
                (gain - 0.0) / (top - 0.0)
            } else {
                gain
            }
        };
        let p = RBP_PERSISTENCE;
        if !self.average_ties {
            return (1.0 - p) * rbp_sum(self.grades.iter().map(|&g| scale(g)), p);
        }
        let weights = persistence_weights(self.len(), p);
        (1.0 - p) * self.linear_sum(self.len(), scale, |i| weights[i])
    }

    /// rbp_resid (trec_eval `m_rbp_resid.c`): RBP's residual, the most the
    /// unjudged and unretrieved documents could add: p^n + (1 − p) Σ_{i unjudged} p^i;
    /// 0 (as trec_eval prints) when every retrieved document is judged.
    pub fn rbp_residual(&self) -> f64 {
        let p = RBP_PERSISTENCE;
        if !self.average_ties {
            return rbp_residual_of(self.grades.iter().map(|&g| unjudged(g)), p).unwrap_or(0.0);
        }
        if !self.grades.iter().any(|&g| unjudged(g)) {
            return 0.0;
        }
        let weights = persistence_weights(self.len() + 1, p);
        let sum = self.linear_sum(self.len(), |g| unjudged(g) as u8 as f64, |i| weights[i]);
        weights[self.len()] + (1.0 - p) * sum
    }

    /// utility with trec_eval's default coefficients (1, −1, 0, 0):
    /// |relevant retrieved| − |non-relevant retrieved|.
    pub fn utility(&self, level: i32) -> f64 {
        let (rr, ret, r) = self.counts(level);
        // trec_eval's -N (documents in the collection) is 0 here
        utility_of([1.0, -1.0, 0.0, 0.0], rr, ret, r, 0)
    }

    /// Judged non-relevant documents retrieved (grade in [0, level)).
    pub fn num_nonrelevant_judged_retrieved(&self, level: i32) -> usize {
        self.grades
            .iter()
            .filter(|&&g| g != NOT_JUDGED && g >= 0 && g < level)
            .count()
    }

    /// yaAP (Robertson 2008, trec_eval `m_yaap.c`):
    /// ln((1 + S) / (1 + |R| − S)), S = Σ_{relevant ranks i} P@i (AP · |R|).
    pub fn yaap(&self, level: i32) -> f64 {
        let rel = self.rel(level);
        let (sum, _) = ap_running(self.grades.iter().map(|&g| rel(g)), |_, _| {});
        ((1.0 + sum) / (1.0 + self.num_relevant(level) as f64 - sum)).ln()
    }
}

/// p^0, p^1, ... by repeated multiplication, as trec_eval's running product.
fn persistence_weights(n: usize, p: f64) -> Vec<f64> {
    let mut cur = 1.0;
    (0..n)
        .map(|_| {
            let w = cur;
            cur *= p;
            w
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking_metrics::tests::{permute, view};

    const U: i32 = NOT_JUDGED;

    #[test]
    fn worked_examples() {
        // ranks: rel(2), absent, non-rel, rel(1), judged -1; one relevant unretrieved (1)
        let g = [2, U, 0, 1, -1];
        let judged = [2, 1, 1, 0];
        let q = view(&g, &[false; 5], &judged, false);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-15, "{a} vs {b}");
        close(q.set_precision(1), 2.0 / 5.0);
        close(q.set_recall(1), 2.0 / 3.0);
        close(q.set_f(1), 2.0 * 0.4 * (2.0 / 3.0) / (0.4 + 2.0 / 3.0));
        close(q.set_relative_precision(1), 2.0 / 3.0);
        close(q.set_map(1), 4.0 / 15.0);
        close(q.relative_precision(2, 1), 1.0 / 2.0);
        close(q.relative_precision(10, 1), 2.0 / 3.0);
        close(q.unjudged_at(5), 2.0 / 5.0);
        close(q.unjudged_at(10), 2.0 / 10.0);
        close(q.utility(1), 2.0 - 3.0);
        assert_eq!(q.num_nonrelevant_judged_retrieved(1), 1);
        // |R| = 3: c = (long)(m·3 + 0.9): 1, 2, 2, 3, 3, 4, 5, 5, 6, 6
        let rm = q.rprec_mult(1);
        close(rm[0], 1.0);
        close(rm[1], 0.5);
        close(rm[3], 1.0 / 3.0);
        close(rm[5], 2.0 / 4.0);
        close(rm[9], 2.0 / 6.0);
        // binG: ranks 1 and 4 relevant: 1/log2(2) + 1/log2(2 + 4 − 2)
        close(q.bin_g(1), (1.0 + 1.0 / 4f64.log2()) / 3.0);
        // infAP: rank 1 gives 1; rank 4 (j = 3 above: 1 rel, 1 non-rel, the absent one skipped)
        let j = 3.0;
        let second = 1.0 / (j + 1.0)
            + (j / (j + 1.0)) * (2.0 / j) * ((1.0 + INFAP_EPSILON) / (2.0 + 2.0 * INFAP_EPSILON));
        close(q.inferred_ap(1), (1.0 + second) / 3.0);
        // RBP: grades scaled by the top judged grade 2
        let p = RBP_PERSISTENCE;
        close(q.rbp(), (1.0 - p) * (1.0 + 0.5 * p * p * p));
        // the residual: p^5 + (1 − p)(p + p^4)
        close(q.rbp_residual(), p.powi(5) + (1.0 - p) * (p + p.powi(4)));
        // yaAP: S = 1 + 2/4
        close(q.yaap(1), (2.5f64 / (1.0 + 3.0 - 1.5)).ln());
        // G: ideal gains 2, 1, 1; costs 2, 3, 4, 5, 6; cumulative gains 2, 2, 2, 3, 3
        close(
            q.g(),
            (2.0 / 2f64.log2() + 1.0 / (2.0 + 5.0 - 3.0f64).log2()) / 4.0,
        );
    }

    #[test]
    fn nothing_judged_relevant_gives_zero() {
        let g = [0, U, -1];
        let q = view(&g, &[false; 3], &[0], false);
        for v in [
            q.set_recall(1),
            q.set_f(1),
            q.set_map(1),
            q.inferred_ap(1),
            q.bin_g(1),
            q.g(),
            q.ndcg_rel(),
            q.rndcg(1),
            q.rbp(),
        ] {
            assert_eq!(v, 0.0);
        }
        let empty = view(&[], &[], &[1], false);
        assert_eq!(empty.set_precision(1), 0.0);
        assert_eq!(empty.ndcg_rel(), 0.0);
        assert_eq!(empty.rndcg(1), 0.0);
    }

    #[test]
    fn the_linear_measures_average_ties_exactly() {
        // a tied group of four at ranks 2..5 between two untied documents
        let grades = [1, 0, 2, U, -1, 3];
        let ties = [false, false, true, true, true, false];
        let judged = [3, 2, 1, 1, 0];
        let q = view(&grades, &ties, &judged, true);
        let mut perms = vec![];
        permute(&mut vec![0, 1, 2, 3], 0, &mut perms);
        let mut sums = [0.0f64; 5];
        let mut mult = [0.0f64; 10];
        for p in &perms {
            let mut g = grades;
            for (slot, &src) in p.iter().enumerate() {
                g[1 + slot] = grades[1 + src];
            }
            let e = view(&g, &[false; 6], &judged, false);
            sums[0] += e.relative_precision(3, 1);
            sums[1] += e.unjudged_at(3);
            sums[2] += e.rbp();
            sums[3] += e.rbp_residual();
            sums[4] += e.relative_precision(2, 2);
            for (m, v) in mult.iter_mut().zip(e.rprec_mult(1)) {
                *m += v;
            }
        }
        let n = perms.len() as f64;
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        close(q.relative_precision(3, 1), sums[0] / n);
        close(q.unjudged_at(3), sums[1] / n);
        close(q.rbp(), sums[2] / n);
        close(q.rbp_residual(), sums[3] / n);
        close(q.relative_precision(2, 2), sums[4] / n);
        for (a, b) in q.rprec_mult(1).iter().zip(mult) {
            close(*a, b / n);
        }
    }
}
