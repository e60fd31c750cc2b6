//! Judgment sets side by side: how two sets agree on the documents both
//! judge, whether the ordering of runs by a metric survives a change of set,
//! what a run's unjudged documents can do to its values (bounds, condensed
//! lists), and which documents to judge next (a pool, a merge of new
//! judgments). Pure functions over the core's columns; the callers name
//! queries and runs.
//!
//! Definitions, each with its reference:
//! - Cohen's κ (Cohen 1960) on the labels binarised at the relevance level:
//!   κ = (p_o − p_e) / (1 − p_e).
//! - Weighted κ (Cohen 1968) on grades: κ_w = 1 − Σ w_ij O_ij / Σ w_ij E_ij,
//!   w_ij = |g_i − g_j| (linear) or (g_i − g_j)² (quadratic) on the grades'
//!   values, E_ij = row_i · col_j / N (scikit-learn's `cohen_kappa_score` with
//!   `labels` every whole number from the lowest grade to the highest).
//! - Krippendorff's α (Krippendorff 2011, "Computing Krippendorff's alpha"),
//!   two coders without missing values: α = 1 − (n − 1) Σ o_ck δ²_ck /
//!   Σ n_c n_k δ²_ck over the coincidence matrix o (each shared document
//!   counted as (a, b) and (b, a)), δ² = (c − k)² (interval) or
//!   (Σ_{g=c..k} n_g − (n_c + n_k)/2)² (ordinal, over the grades present).
//! - Kendall's τ_b (Kendall 1945): (C − D) / √((P − T_x)(P − T_y)), P pairs,
//!   T pairs tied in each (scipy's `kendalltau`).
//! - Spearman's ρ: Pearson's r of average ranks (scipy's `spearmanr`).
//! - τ_AP (Yilmaz, Aslam & Robertson 2008, eq. 3): with A's ordering the
//!   reference, τ_AP = (2/(N − 1)) Σ_{i=2..N} C(i)/(i − 1) − 1, C(i) the runs
//!   above rank i in B's ordering that A also places above that run.
//! - Rank-biased overlap, extrapolated (Webber, Moffat & Zobel 2010, eq. 32):
//!   RBO_EXT = (X_k/k) p^k + ((1 − p)/p) Σ_{d=1..k} (X_d/d) p^d, X_d the runs
//!   both orderings place in their top d; for two orderings of the same k
//!   runs X_k = k.

use super::ranking::{PreparedRun, Qrels, RankingData, Run, NOT_JUDGED};
use super::ranking_metrics::agreement;
use super::stats::{self, SplitMix64};
use super::sum;

/// What a run's documents absent from the judgments are, before scoring.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Unjudged {
    /// Kept in the list, counted as not relevant (trec_eval's default).
    #[default]
    Keep,
    /// Removed before scoring (trec_eval `-J`; Sakai's condensed lists):
    /// only documents judged with a grade ≥ 0 stay, in their order.
    Condensed,
}

crate::named!(Unjudged {
    Keep = "keep",
    Condensed = "condensed"
});

/// One query's judgments as a range of the columns.
fn range(q: &Qrels, query: usize) -> std::ops::Range<usize> {
    if query + 1 < q.offsets.len() {
        q.offsets[query] as usize..q.offsets[query + 1] as usize
    } else {
        0..0
    }
}

/// A document of one query in either set or both (indices into each set's columns).
#[derive(Clone, Copy)]
enum Side {
    Both(usize, usize),
    A(usize),
    B(usize),
}

/// The judgments of one query in two sets, by a merge of their (hash, name)
/// orders: each document once, as [`Side`].
fn join(a: &Qrels, b: &Qrels, query: usize, mut each: impl FnMut(Side)) {
    let (ra, rb) = (range(a, query), range(b, query));
    let (mut i, mut j) = (ra.start, rb.start);
    while i < ra.end && j < rb.end {
        let ka = (a.hashes[i], a.names.get(i));
        let kb = (b.hashes[j], b.names.get(j));
        match ka.cmp(&kb) {
            std::cmp::Ordering::Equal => {
                each(Side::Both(i, j));
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                each(Side::A(i));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                each(Side::B(j));
                j += 1;
            }
        }
    }
    (i..ra.end).for_each(|i| each(Side::A(i)));
    (j..rb.end).for_each(|j| each(Side::B(j)));
}

/// One query's agreement.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryAgreement {
    /// The query's id (its name is the caller's to give).
    #[serde(skip)]
    pub query: u32,
    /// Documents both sets judge, and those only one of them judges.
    pub both: usize,
    pub only_a: usize,
    pub only_b: usize,
    /// Of the shared documents: the same grade, the same binary label.
    pub same_grade: usize,
    pub same_label: usize,
    /// Cohen's κ of the binary labels on the shared documents (`None` when
    /// undefined: no shared document, or both sets give one label throughout).
    pub kappa: Option<f64>,
}

/// Two judgment sets compared on the documents both judge.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Agreement {
    pub relevance_level: i32,
    pub both: usize,
    pub only_a: usize,
    pub only_b: usize,
    /// The share of A's judgments that B does not make (`only_a / (both +
    /// only_a)`), and of B's that A does not make.
    pub a_unjudged_by_b: Option<f64>,
    pub b_unjudged_by_a: Option<f64>,
    /// The share of shared documents with the same grade (observed agreement).
    pub same_grade: Option<f64>,
    pub kappa: Option<f64>,
    pub kappa_linear: Option<f64>,
    pub kappa_quadratic: Option<f64>,
    pub alpha_ordinal: Option<f64>,
    pub alpha_interval: Option<f64>,
    /// The grades either set gives a shared document, ascending.
    pub grades: Vec<i32>,
    /// `confusion[i][j]`: shared documents A grades `grades[i]` and B `grades[j]`.
    pub confusion: Vec<Vec<u64>>,
    /// Every query either set judges, in query id order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_query: Vec<QueryAgreement>,
}

/// Cohen's κ of a 2×2 table `[[n00, n01], [n10, n11]]` (rows A, columns B).
fn kappa2(t: [[u64; 2]; 2]) -> Option<f64> {
    let n = (t[0][0] + t[0][1] + t[1][0] + t[1][1]) as f64;
    if n == 0.0 {
        return None;
    }
    let po = (t[0][0] + t[1][1]) as f64 / n;
    let (r0, r1) = ((t[0][0] + t[0][1]) as f64, (t[1][0] + t[1][1]) as f64);
    let (c0, c1) = ((t[0][0] + t[1][0]) as f64, (t[0][1] + t[1][1]) as f64);
    let pe = (r0 * c0 + r1 * c1) / (n * n);
    (pe < 1.0).then(|| (po - pe) / (1.0 - pe))
}

/// Weighted κ of a confusion matrix over `grades` with weight `w(g_i, g_j)`.
fn weighted_kappa(grades: &[i32], m: &[Vec<u64>], w: impl Fn(f64) -> f64) -> Option<f64> {
    let k = grades.len();
    let n: f64 = m.iter().flatten().map(|&c| c as f64).sum();
    if n == 0.0 {
        return None;
    }
    let rows: Vec<f64> = m
        .iter()
        .map(|r| r.iter().map(|&c| c as f64).sum())
        .collect();
    let cols: Vec<f64> = (0..k)
        .map(|j| m.iter().map(|r| r[j] as f64).sum())
        .collect();
    let (mut observed, mut expected) = (sum::Sum::new(), sum::Sum::new());
    for i in 0..k {
        for j in 0..k {
            let wij = w((grades[i] - grades[j]) as f64);
            observed.add(wij * m[i][j] as f64);
            expected.add(wij * rows[i] * cols[j] / n);
        }
    }
    (expected.value() > 0.0).then(|| 1.0 - observed.value() / expected.value())
}

/// Krippendorff's α of two coders over `grades` from their confusion matrix.
fn alpha(grades: &[i32], m: &[Vec<u64>], ordinal: bool) -> Option<f64> {
    let k = grades.len();
    // coincidences: each shared document is the pairs (a, b) and (b, a)
    let o = |c: usize, d: usize| (m[c][d] + m[d][c]) as f64;
    let nc: Vec<f64> = (0..k).map(|c| (0..k).map(|d| o(c, d)).sum()).collect();
    let n: f64 = nc.iter().sum();
    if n < 2.0 {
        return None;
    }
    let delta2 = |c: usize, d: usize| -> f64 {
        if ordinal {
            let (lo, hi) = (c.min(d), c.max(d));
            let between: f64 = nc[lo..=hi].iter().sum();
            let x = between - (nc[lo] + nc[hi]) / 2.0;
            x * x
        } else {
            let x = (grades[c] - grades[d]) as f64;
            x * x
        }
    };
    let (mut observed, mut expected) = (sum::Sum::new(), sum::Sum::new());
    for c in 0..k {
        for d in 0..k {
            let dd = delta2(c, d);
            observed.add(o(c, d) * dd);
            expected.add(nc[c] * nc[d] * dd);
        }
    }
    (expected.value() > 0.0).then(|| 1.0 - (n - 1.0) * observed.value() / expected.value())
}

/// How judgment sets `a` and `b` (over the same query ids, `num_queries` of
/// them) agree on the documents both judge, at `relevance_level` for the
/// binary labels (relevant: grade ≥ level).
///
/// # Examples
///
/// ```
/// use rankscope_core::ids::Names;
/// use rankscope_core::judgments::agree;
/// use rankscope_core::ranking::Qrels;
///
/// let set = |docs: &[&str], grades: &[i32]| {
///     let mut names = Names::default();
///     docs.iter().for_each(|d| names.push(d));
///     Qrels::from_columns(&vec![0; docs.len()], &names, grades, 1).0
/// };
/// let a = set(&["d1", "d2", "d3", "d4", "x"], &[1, 0, 2, 0, 1]);
/// let b = set(&["d1", "d2", "d3", "d4"], &[1, 1, 2, 0]);
/// let g = agree(&a, &b, 1, 1);
/// assert_eq!((g.both, g.only_a, g.only_b), (4, 1, 0));
/// assert_eq!(g.a_unjudged_by_b, Some(0.2));
/// // labels (1, 0, 1, 0) and (1, 1, 1, 0): p_o = 3/4, p_e = 1/2, κ = 1/2
/// assert!((g.kappa.unwrap() - 0.5).abs() < 1e-12);
/// ```
pub fn agree(a: &Qrels, b: &Qrels, num_queries: usize, relevance_level: i32) -> Agreement {
    let mut pairs: Vec<(i32, i32)> = Vec::new();
    let mut per_query = Vec::new();
    let (mut only_a, mut only_b) = (0usize, 0usize);
    for q in 0..num_queries {
        let start = pairs.len();
        let (mut oa, mut ob) = (0usize, 0usize);
        join(a, b, q, |side| match side {
            Side::Both(i, j) => pairs.push((a.grades[i], b.grades[j])),
            Side::A(_) => oa += 1,
            Side::B(_) => ob += 1,
        });
        let shared = &pairs[start..];
        if shared.is_empty() && oa == 0 && ob == 0 {
            continue;
        }
        let mut t = [[0u64; 2]; 2];
        for &(x, y) in shared {
            t[(x >= relevance_level) as usize][(y >= relevance_level) as usize] += 1;
        }
        per_query.push(QueryAgreement {
            query: q as u32,
            both: shared.len(),
            only_a: oa,
            only_b: ob,
            same_grade: shared.iter().filter(|(x, y)| x == y).count(),
            same_label: (t[0][0] + t[1][1]) as usize,
            kappa: kappa2(t),
        });
        only_a += oa;
        only_b += ob;
    }
    let mut grades: Vec<i32> = pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
    grades.sort_unstable();
    grades.dedup();
    let at = |g: i32| grades.binary_search(&g).unwrap_or(0);
    let mut confusion = vec![vec![0u64; grades.len()]; grades.len()];
    let mut t = [[0u64; 2]; 2];
    for &(x, y) in &pairs {
        confusion[at(x)][at(y)] += 1;
        t[(x >= relevance_level) as usize][(y >= relevance_level) as usize] += 1;
    }
    let both = pairs.len();
    let share = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
    Agreement {
        relevance_level,
        both,
        only_a,
        only_b,
        a_unjudged_by_b: share(only_a, both + only_a),
        b_unjudged_by_a: share(only_b, both + only_b),
        same_grade: share(pairs.iter().filter(|(x, y)| x == y).count(), both),
        kappa: kappa2(t),
        kappa_linear: weighted_kappa(&grades, &confusion, f64::abs),
        kappa_quadratic: weighted_kappa(&grades, &confusion, |d| d * d),
        alpha_ordinal: alpha(&grades, &confusion, true),
        alpha_interval: alpha(&grades, &confusion, false),
        grades,
        confusion,
        per_query,
    }
}

// ---------------------------------------------------------------------------
// rank correlations between two orderings of the same runs

/// Kendall's τ_b of `x` and `y` (scipy's `kendalltau`, variant b); `None`
/// with fewer than two values or when either side is constant.
///
/// # Examples
///
/// ```
/// use rankscope_core::judgments::kendall_tau_b;
///
/// // scipy 1.17: kendalltau([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).statistic
/// let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
/// assert!((t - 0.6).abs() < 1e-12);
/// ```
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    let (mut c, mut d, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let sx = (x[i] - x[j]).partial_cmp(&0.0).map_or(0, |o| o as i64);
            let sy = (y[i] - y[j]).partial_cmp(&0.0).map_or(0, |o| o as i64);
            match sx * sy {
                1 => c += 1,
                -1 => d += 1,
                _ => {}
            }
            tx += (sx == 0) as i64;
            ty += (sy == 0) as i64;
        }
    }
    let pairs = (n * n.saturating_sub(1) / 2) as i64;
    let denom = ((pairs - tx) as f64 * (pairs - ty) as f64).sqrt();
    (denom > 0.0).then(|| (c - d) as f64 / denom)
}

/// Spearman's ρ (scipy's `spearmanr`): Pearson's r of average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    agreement::spearman(x, y)
}

/// The positions `0..n` ordered by `values` descending, ties by position
/// (the order of the runs as given): an ordering of runs, best first.
pub fn ordering(values: &[f64]) -> Vec<usize> {
    crate::order(values.len(), &|i, j| values[j].total_cmp(&values[i]))
}

/// τ_AP (Yilmaz, Aslam & Robertson 2008) of ordering `b` with ordering `a`
/// the reference; both list the same items, best first. `None` with fewer
/// than two items.
///
/// # Examples
///
/// ```
/// use rankscope_core::judgments::tau_ap;
///
/// assert_eq!(tau_ap(&[0, 1, 2, 3], &[0, 1, 2, 3]), Some(1.0));
/// assert_eq!(tau_ap(&[0, 1, 2, 3], &[3, 2, 1, 0]), Some(-1.0));
/// // a swap at the top costs more than one at the bottom
/// let top = tau_ap(&[0, 1, 2, 3], &[1, 0, 2, 3]).unwrap();
/// let bottom = tau_ap(&[0, 1, 2, 3], &[0, 1, 3, 2]).unwrap();
/// assert!((top - 1.0 / 3.0).abs() < 1e-12 && (bottom - 7.0 / 9.0).abs() < 1e-12);
/// ```
pub fn tau_ap(a: &[usize], b: &[usize]) -> Option<f64> {
    let n = a.len();
    if n < 2 || b.len() != n {
        return None;
    }
    let mut rank_a = vec![usize::MAX; n];
    for (r, &item) in a.iter().enumerate() {
        *rank_a.get_mut(item)? = r;
    }
    let mut total = sum::Sum::new();
    for i in 1..n {
        let here = rank_a[b[i]];
        let correct = b[..i].iter().filter(|&&above| rank_a[above] < here).count();
        total.add(correct as f64 / i as f64);
    }
    Some(2.0 / (n - 1) as f64 * total.value() - 1.0)
}

/// Rank-biased overlap, extrapolated (RBO_EXT, Webber, Moffat & Zobel 2010,
/// eq. 32), of two orderings of the same items at persistence `p` in (0, 1).
///
/// # Examples
///
/// ```
/// use rankscope_core::judgments::rbo;
///
/// assert!((rbo(&[0, 1, 2], &[0, 1, 2], 0.9).unwrap() - 1.0).abs() < 1e-12);
/// // X_1 = 0, X_2 = 2, X_3 = 3: p³ + ((1 − p)/p)(0·p + (2/2)p² + (3/3)p³)
/// let v = rbo(&[0, 1, 2], &[1, 0, 2], 0.5).unwrap();
/// assert!((v - (0.125 + (0.25 + 0.125))).abs() < 1e-12);
/// ```
pub fn rbo(a: &[usize], b: &[usize], p: f64) -> Option<f64> {
    let k = a.len();
    if k == 0 || b.len() != k || !(p > 0.0 && p < 1.0) {
        return None;
    }
    let (mut seen_a, mut seen_b) = (vec![false; k], vec![false; k]);
    let mut overlap = 0usize;
    let mut total = sum::Sum::new();
    let mut pd = 1.0;
    for d in 0..k {
        let (x, y) = (*a.get(d)?, *b.get(d)?);
        if x >= k || y >= k {
            return None;
        }
        if x == y {
            overlap += 1;
        } else {
            overlap += seen_b[x] as usize + seen_a[y] as usize;
        }
        seen_a[x] = true;
        seen_b[y] = true;
        pd *= p;
        total.add(overlap as f64 / (d + 1) as f64 * pd);
    }
    Some(overlap as f64 / k as f64 * pd + (1.0 - p) / p * total.value())
}

// ---------------------------------------------------------------------------
// does the ordering of runs survive a change of judgments?

/// What [`survival`] is asked for.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SurvivalOptions {
    /// RBO's persistence p.
    pub persistence: f64,
    /// Bootstrap resamples of the queries (0: no intervals).
    pub resamples: usize,
    pub seed: u64,
    /// The level a flipped pair's paired t-test is read at.
    pub alpha: f64,
}

impl Default for SurvivalOptions {
    fn default() -> Self {
        SurvivalOptions {
            persistence: 0.9,
            resamples: 1000,
            seed: 42,
            alpha: 0.05,
        }
    }
}

/// A statistic with its bootstrap percentile 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Statistic {
    pub value: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// Two runs ordered one way under A and the other way under B.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Flip {
    /// The run ahead under A, and the other.
    pub ahead_a: usize,
    pub ahead_b: usize,
    /// mean(ahead_a) − mean(ahead_b) under A (> 0) and under B (< 0).
    pub diff_a: f64,
    pub diff_b: f64,
    /// Two-sided paired t-test p of the two runs' per-query values under
    /// each set (`None`: undefined, fewer than two queries or no spread).
    pub p_a: Option<f64>,
    pub p_b: Option<f64>,
    pub significant_a: bool,
    pub significant_b: bool,
}

/// The runs ordered under two judgment sets and how the orderings compare.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Survival {
    pub means_a: Vec<f64>,
    pub means_b: Vec<f64>,
    /// Run indices, best first (ties in the order given).
    pub order_a: Vec<usize>,
    pub order_b: Vec<usize>,
    pub kendall_tau_b: Statistic,
    /// τ_AP of B's ordering, A's the reference.
    pub tau_ap: Statistic,
    pub spearman: Statistic,
    /// RBO_EXT at `options.persistence`.
    pub rbo: Statistic,
    pub options: SurvivalOptions,
    pub flips: Vec<Flip>,
}

/// Means of the rows of `values` (runs × queries, NaN: the query is not
/// evaluated under that set), compensated sums.
fn means(values: &[Vec<f64>]) -> Vec<f64> {
    values
        .iter()
        .map(|row| sum::mean(row.iter().copied().filter(|v| !v.is_nan())).unwrap_or(0.0))
        .collect()
}

/// The means of a bootstrap replicate (each query weighted by its draws), fast: a row without NaN is
/// one dot product with the counts (four running sums) over their total.
fn replicate_means(values: &[Vec<f64>], clean: &[bool], counts: &[f64], total: f64) -> Vec<f64> {
    values
        .iter()
        .zip(clean)
        .map(|(row, &clean)| {
            if clean {
                let mut acc = [0.0f64; 4];
                let (rows, cs) = (row.chunks_exact(4), counts.chunks_exact(4));
                let (rest_r, rest_c) = (rows.remainder(), cs.remainder());
                for (r, c) in rows.zip(cs) {
                    for ((a, r), c) in acc.iter_mut().zip(r).zip(c) {
                        *a += r * c;
                    }
                }
                let tail: f64 = rest_r.iter().zip(rest_c).map(|(r, c)| r * c).sum();
                ((acc[0] + acc[1]) + (acc[2] + acc[3]) + tail) / total
            } else {
                let (mut s, mut n) = (0.0, 0.0);
                for (&v, &c) in row.iter().zip(counts) {
                    if !v.is_nan() {
                        s += c * v;
                        n += c;
                    }
                }
                if n > 0.0 {
                    s / n
                } else {
                    0.0
                }
            }
        })
        .collect()
}

fn four(a: &[f64], b: &[f64], p: f64) -> [Option<f64>; 4] {
    let (oa, ob) = (ordering(a), ordering(b));
    [
        kendall_tau_b(a, b),
        tau_ap(&oa, &ob),
        spearman(a, b),
        rbo(&oa, &ob, p),
    ]
}

/// The runs' per-query values under two judgment sets (`a[r][q]`, `b[r][q]`
/// over the same queries: the union of those either set evaluates, NaN
/// where a set does not evaluate the query) ordered by their means under
/// each, the orderings' τ_b, τ_AP, ρ and RBO, each with a paired bootstrap
/// percentile 95% interval (queries drawn with replacement from the union,
/// seeded: one draw serves both sets, so the pairing of queries holds; a
/// replicate's mean under a set is over the drawn queries it evaluates),
/// and the pairs of runs whose order flips with each side's paired t-test.
///
/// # Examples
///
/// ```
/// use rankscope_core::judgments::{survival, SurvivalOptions};
///
/// let a = vec![vec![0.9, 0.8], vec![0.5, 0.6], vec![0.1, 0.2]];
/// let b = vec![vec![0.4, 0.5], vec![0.7, 0.8], vec![0.1, 0.0]];
/// let s = survival(&a, &b, &SurvivalOptions { resamples: 0, ..Default::default() });
/// assert_eq!((s.order_a.clone(), s.order_b.clone()), (vec![0, 1, 2], vec![1, 0, 2]));
/// assert_eq!(s.kendall_tau_b.value, Some(1.0 / 3.0));
/// assert_eq!((s.flips.len(), s.flips[0].ahead_a, s.flips[0].ahead_b), (1, 0, 1));
/// ```
pub fn survival(a: &[Vec<f64>], b: &[Vec<f64>], options: &SurvivalOptions) -> Survival {
    let (means_a, means_b) = (means(a), means(b));
    let point = four(&means_a, &means_b, options.persistence);
    let queries = a.first().map_or(0, Vec::len);
    let mut draws: [Vec<f64>; 4] = Default::default();
    if options.resamples > 0 && queries > 0 && means_a.len() >= 2 {
        let mut rng = SplitMix64::new(options.seed);
        let mut counts = vec![0.0f64; queries];
        let clean = |m: &[Vec<f64>]| -> Vec<bool> {
            m.iter()
                .map(|row| row.len() == queries && !row.iter().any(|v| v.is_nan()))
                .collect()
        };
        let (clean_a, clean_b) = (clean(a), clean(b));
        for _ in 0..options.resamples {
            counts.iter_mut().for_each(|c| *c = 0.0);
            for _ in 0..queries {
                counts[rng.below(queries)] += 1.0;
            }
            let total = queries as f64;
            let (ma, mb) = (
                replicate_means(a, &clean_a, &counts, total),
                replicate_means(b, &clean_b, &counts, total),
            );
            for (slot, v) in four(&ma, &mb, options.persistence).into_iter().enumerate() {
                if let Some(v) = v {
                    draws[slot].push(v);
                }
            }
        }
    }
    let stat = |slot: usize| {
        let mut d = draws[slot].clone();
        let interval = (!d.is_empty()).then(|| stats::percentiles_95(&mut d));
        Statistic {
            value: point[slot],
            low: interval.map(|i| i.0),
            high: interval.map(|i| i.1),
        }
    };
    let flips = flips(a, b, &means_a, &means_b, options.alpha);
    Survival {
        order_a: ordering(&means_a),
        order_b: ordering(&means_b),
        kendall_tau_b: stat(0),
        tau_ap: stat(1),
        spearman: stat(2),
        rbo: stat(3),
        means_a,
        means_b,
        options: *options,
        flips,
    }
}

/// The paired t-test p of rows `i` and `j` on the queries both have.
fn paired_p(values: &[Vec<f64>], i: usize, j: usize) -> Option<f64> {
    let (x, y): (Vec<f64>, Vec<f64>) = values[i]
        .iter()
        .zip(&values[j])
        .filter(|(x, y)| !x.is_nan() && !y.is_nan())
        .map(|(&x, &y)| (x, y))
        .unzip();
    stats::paired_t(&stats::Paired::new(&x, &y)).map(|t| t.p)
}

fn flips(a: &[Vec<f64>], b: &[Vec<f64>], ma: &[f64], mb: &[f64], alpha: f64) -> Vec<Flip> {
    let mut out = Vec::new();
    for i in 0..ma.len() {
        for j in i + 1..ma.len() {
            let (da, db) = (ma[i] - ma[j], mb[i] - mb[j]);
            if da * db >= 0.0 {
                continue;
            }
            let (hi, lo) = if da > 0.0 { (i, j) } else { (j, i) };
            let (p_a, p_b) = (paired_p(a, hi, lo), paired_p(b, hi, lo));
            out.push(Flip {
                ahead_a: hi,
                ahead_b: lo,
                diff_a: ma[hi] - ma[lo],
                diff_b: mb[hi] - mb[lo],
                p_a,
                p_b,
                significant_a: p_a.is_some_and(|p| p < alpha),
                significant_b: p_b.is_some_and(|p| p < alpha),
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------
// unjudged documents: bounds and condensed lists

/// Queries whose groups of equal scores hold documents of different grades.
fn mixed_ties(p: &PreparedRun) -> Vec<usize> {
    (0..p.num_queries())
        .filter(|&i| {
            let r = p.row_range(i);
            (r.start + 1..r.end).any(|j| p.tied_with_prev[j] && p.grades[j] != p.grades[j - 1])
        })
        .collect()
}

/// The run with every retrieved document absent from the judgments judged
/// `grade`, as if its judgments held them (the qrels trec_eval would read
/// with a line `q 0 doc grade` added for each): `grade` 0 gives the lower
/// bound of a run's values (the value of today's table for every metric but
/// those that tell unjudged from judged non-relevant documents: bpref,
/// infAP, Judged@k, unj, rbp_resid, the judged counts), a grade ≥ the
/// relevance level the upper one. The ideal lists grow by the same grades.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use rankscope_core::judgments::complete;
/// use rankscope_core::ranking::{PreparedRun, NOT_JUDGED};
///
/// let p = PreparedRun {
///     grades: vec![1, NOT_JUDGED, 0],
///     offsets: Arc::new(vec![0, 3]),
///     tied_with_prev: Arc::new(vec![false; 3]),
///     judged_offsets: Arc::new(vec![0, 2]),
///     judged_desc: Arc::new(vec![1, 0]),
///     ..Default::default()
/// };
/// let high = complete(&p, 2);
/// assert_eq!((high.grades.clone(), high.judged_desc.to_vec()), (vec![1, 2, 0], vec![2, 1, 0]));
/// ```
pub fn complete(p: &PreparedRun, grade: i32) -> PreparedRun {
    let mut out = p.clone();
    let mut judged = Vec::with_capacity(p.judged_desc.len());
    let mut offsets = Vec::with_capacity(p.judged_offsets.len());
    offsets.push(0);
    for i in 0..p.judged_offsets.len().saturating_sub(1) {
        let start = judged.len();
        judged.extend_from_slice(&p.judged_desc[p.judged_offsets[i]..p.judged_offsets[i + 1]]);
        if let Some(r) = (i + 1 < p.offsets.len()).then(|| p.row_range(i)) {
            let unjudged = p.grades[r].iter().filter(|&&g| g == NOT_JUDGED).count();
            if grade >= 0 {
                judged.extend(std::iter::repeat_n(grade, unjudged));
            }
        }
        crate::sort_descending(&mut judged[start..]);
        offsets.push(judged.len());
    }
    for g in out.grades.iter_mut().filter(|g| **g == NOT_JUDGED) {
        *g = grade;
    }
    out.judged_desc = std::sync::Arc::new(judged);
    out.judged_offsets = std::sync::Arc::new(offsets);
    out.mixed_ties = mixed_ties(&out);
    out
}

/// The condensed lists of a run (trec_eval `-J`; Sakai 2007's condensed
/// lists): each query's documents without those not judged with a grade ≥ 0,
/// in their order; the ideal lists unchanged. Ties are equal scores of
/// documents now next to each other.
pub fn condense(p: &PreparedRun, run: &Run) -> PreparedRun {
    let mut out = PreparedRun {
        name: p.name.clone(),
        tie_rule: p.tie_rule,
        selection: p.selection.clone(),
        judged_offsets: p.judged_offsets.clone(),
        judged_desc: p.judged_desc.clone(),
        duplicates_dropped: p.duplicates_dropped,
        ..Default::default()
    };
    let mut offsets = Vec::with_capacity(p.offsets.len());
    let mut tied = Vec::with_capacity(p.grades.len());
    offsets.push(0);
    for i in 0..p.num_queries() {
        let mut prev: Option<f64> = None;
        for j in p.row_range(i) {
            if p.grades[j] < 0 {
                continue;
            }
            let score = run.scores.get(p.rows[j] as usize).copied();
            tied.push(prev.is_some() && prev == score);
            prev = score;
            out.grades.push(p.grades[j]);
            out.rows.push(p.rows[j]);
        }
        offsets.push(out.grades.len());
    }
    out.offsets = std::sync::Arc::new(offsets);
    out.tied_with_prev = std::sync::Arc::new(tied);
    out.mixed_ties = mixed_ties(&out);
    out
}

// ---------------------------------------------------------------------------
// what to judge next

/// A document of the pool no judgment covers, with the priority of judging it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PoolEntry {
    pub query: u32,
    pub doc: String,
    /// How much judging it narrows the compared runs' bounds (see [`pool`]).
    pub priority: f64,
    /// Runs that retrieve it within the depth, and its best rank among them.
    pub runs: usize,
    pub best_rank: usize,
}

/// The grade of `doc` in `query` (a binary search of the query's judgments
/// by (hash, name)), [`NOT_JUDGED`] if it has none.
pub fn grade_of(q: &Qrels, query: u32, doc: &str) -> i32 {
    let r = range(q, query as usize);
    let key = (super::ids::hash(doc.as_bytes()), doc);
    let (hashes, start) = (&q.hashes[r.clone()], r.start);
    let mut lo = hashes.partition_point(|&h| h < key.0);
    while lo < hashes.len() && hashes[lo] == key.0 {
        if q.names.get(start + lo) == doc {
            return q.grades[start + lo];
        }
        lo += 1;
    }
    NOT_JUDGED
}

/// The file rows of `run`'s top `depth` documents of `query` in trec_eval's
/// order (score descending, then document id descending).
fn top_rows(run: &Run, query: u32, depth: usize) -> Vec<u32> {
    let mut rows: Vec<u32> = run.rows[run.query_range(query)].to_vec();
    let before = |a: &u32, b: &u32| {
        let (sa, sb) = (run.scores[*a as usize], run.scores[*b as usize]);
        sb.total_cmp(&sa)
            .then_with(|| run.doc(*b).as_bytes().cmp(run.doc(*a).as_bytes()))
    };
    if depth < rows.len() {
        rows.select_nth_unstable_by(depth, before);
        rows.truncate(depth);
    }
    rows.sort_unstable_by(before);
    rows
}

/// The depth-`depth` pool of `data`'s runs: the documents some run ranks in
/// its top `depth` of a query (trec_eval's order) that `data.qrels` do not
/// judge, ranked by a greedy rule.
///
/// The rule: a document at rank i of run r (within the depth) could add at
/// most w_r = 1 / log2(i + 1) / n_r to r's mean DCG@depth per unit of gain
/// (n_r: the queries the run retrieves for; w_r = 0 where r does not rank it
/// within the depth), so its share of the bound on the difference of runs r
/// and s is |w_r − w_s| (a document both rank alike moves the difference
/// little). Its priority is Σ |w_r − w_s| over the compared pairs (each run
/// against `baseline`, or every pair when `None`). The widths of those
/// differences' bounds are sums of such terms, so judging documents in this
/// order narrows them the most per judgment, greedily. Ties: by query id,
/// then document id.
pub fn pool(data: &RankingData, depth: usize, baseline: Option<usize>) -> Vec<PoolEntry> {
    // (query, doc, run, rank) of every unjudged document within the depth
    let mut hits: Vec<(u32, &str, usize, usize)> = Vec::new();
    let mut n_of = Vec::with_capacity(data.runs.len());
    for (r, run) in data.runs.iter().enumerate() {
        let mut queries = 0usize;
        for q in 0..data.queries.len() as u32 {
            if !run.has_query(q) {
                continue;
            }
            queries += 1;
            for (rank, row) in top_rows(run, q, depth).into_iter().enumerate() {
                let doc = run.doc(row);
                if grade_of(&data.qrels, q, doc) == NOT_JUDGED {
                    hits.push((q, doc, r, rank + 1));
                }
            }
        }
        n_of.push(queries.max(1) as f64);
    }
    let names = |q: u32| data.queries.name(q);
    hits.sort_unstable_by(|x, y| {
        (names(x.0), x.1, x.2)
            .cmp(&(names(y.0), y.1, y.2))
            .then(x.0.cmp(&y.0))
    });
    let runs = data.runs.len();
    let mut out = Vec::new();
    let mut weights = vec![0.0f64; runs];
    for group in hits.chunk_by(|x, y| x.0 == y.0 && x.1 == y.1) {
        weights.iter_mut().for_each(|w| *w = 0.0);
        for &(_, _, r, rank) in group {
            weights[r] = 1.0 / ((rank + 1) as f64).log2() / n_of[r];
        }
        let priority = match baseline.filter(|&b| b < runs) {
            Some(b) => (0..runs)
                .filter(|&r| r != b)
                .map(|r| (weights[r] - weights[b]).abs())
                .sum(),
            None => {
                // Σ_{i<j} |w_i − w_j| from the weights sorted ascending
                let mut w: Vec<f64> = group.iter().map(|h| weights[h.2]).collect();
                w.sort_by(f64::total_cmp);
                let zeros = (runs - w.len()) as f64;
                let m = w.len() as f64;
                let between: f64 = w
                    .iter()
                    .enumerate()
                    .map(|(k, &x)| x * (2.0 * k as f64 - m + 1.0))
                    .sum();
                between + zeros * w.iter().sum::<f64>()
            }
        };
        out.push(PoolEntry {
            query: group[0].0,
            doc: group[0].1.to_string(),
            priority,
            runs: group.len(),
            best_rank: group.iter().map(|h| h.3).min().unwrap_or(0),
        });
    }
    // stable: equal priorities keep the (query name, document) order
    let order = crate::order(out.len(), &|i, j| {
        out[j].priority.total_cmp(&out[i].priority)
    });
    order.into_iter().map(|i| out[i].clone()).collect()
}

/// Two judgments of one document that differ.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Conflict {
    pub query: u32,
    pub doc: String,
    /// The grade kept and the one set aside.
    pub kept: i32,
    pub other: i32,
}

/// `new` merged into `base` (same query ids): every judgment of either, one
/// per document. Where both judge a document with different grades the
/// judgment of `base` is kept (of `new` with `prefer_new`) and the pair is a
/// [`Conflict`]: nothing is replaced silently. Returns `(query, document,
/// grade)` per judgment, by query id and then the sets' order, and the
/// conflicts.
///
/// # Examples
///
/// ```
/// use rankscope_core::ids::Names;
/// use rankscope_core::judgments::merge;
/// use rankscope_core::ranking::Qrels;
///
/// let set = |docs: &[&str], grades: &[i32]| {
///     let mut names = Names::default();
///     docs.iter().for_each(|d| names.push(d));
///     Qrels::from_columns(&vec![0; docs.len()], &names, grades, 1).0
/// };
/// let (all, conflicts) = merge(&set(&["a", "b"], &[1, 0]), &set(&["b", "c"], &[2, 1]), 1, false);
/// assert_eq!(all.len(), 3);
/// assert_eq!((conflicts.len(), conflicts[0].kept, conflicts[0].other), (1, 0, 2));
/// ```
pub fn merge(
    base: &Qrels,
    new: &Qrels,
    num_queries: usize,
    prefer_new: bool,
) -> (Vec<(u32, String, i32)>, Vec<Conflict>) {
    let mut all = Vec::with_capacity(base.grades.len() + new.grades.len());
    let mut conflicts = Vec::new();
    for q in 0..num_queries {
        let qid = q as u32;
        join(base, new, q, |side| match side {
            Side::Both(i, j) => {
                let (g, h) = (base.grades[i], new.grades[j]);
                let (kept, other) = if prefer_new { (h, g) } else { (g, h) };
                if g != h {
                    conflicts.push(Conflict {
                        query: qid,
                        doc: base.names.get(i).to_string(),
                        kept,
                        other,
                    });
                }
                all.push((qid, base.names.get(i).to_string(), kept));
            }
            Side::A(i) => all.push((qid, base.names.get(i).to_string(), base.grades[i])),
            Side::B(j) => all.push((qid, new.names.get(j).to_string(), new.grades[j])),
        });
    }
    (all, conflicts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Names;
    use crate::Named;

    fn set(rows: &[(u32, &str, i32)], nq: usize) -> Qrels {
        let mut names = Names::default();
        rows.iter().for_each(|r| names.push(r.1));
        let q: Vec<u32> = rows.iter().map(|r| r.0).collect();
        let g: Vec<i32> = rows.iter().map(|r| r.2).collect();
        Qrels::from_columns(&q, &names, &g, nq).0
    }

    #[test]
    fn identical_sets_agree_perfectly_and_disjoint_sets_share_nothing() {
        let a = set(&[(0, "a", 0), (0, "b", 1), (1, "c", 2), (1, "d", 0)], 2);
        let g = agree(&a, &a, 2, 1);
        assert_eq!(g.kappa, Some(1.0));
        assert_eq!(g.kappa_linear, Some(1.0));
        assert_eq!(g.alpha_interval, Some(1.0));
        assert_eq!(g.alpha_ordinal, Some(1.0));
        assert_eq!(g.grades, [0, 1, 2]);
        assert_eq!(g.per_query.len(), 2);
        let b = set(&[(0, "x", 1)], 2);
        let g = agree(&a, &b, 2, 1);
        assert_eq!((g.both, g.only_a, g.only_b, g.kappa), (0, 4, 1, None));
        assert_eq!(g.a_unjudged_by_b, Some(1.0));
    }

    #[test]
    fn tau_b_counts_ties_as_scipy() {
        // scipy 1.17: kendalltau([1, 2, 2, 3], [1, 3, 2, 2]).statistic
        let t = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 2.0]).unwrap();
        assert!((t - 0.4).abs() < 1e-12, "{t}");
        assert_eq!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn bounds_complete_and_condense() {
        use std::sync::Arc;
        let p = PreparedRun {
            grades: vec![NOT_JUDGED, 1, -1, 0],
            rows: vec![0, 1, 2, 3],
            offsets: Arc::new(vec![0, 4]),
            tied_with_prev: Arc::new(vec![false, false, true, true]),
            judged_offsets: Arc::new(vec![0, 2]),
            judged_desc: Arc::new(vec![1, 0]),
            selection: crate::ranking::QuerySelection {
                evaluated: vec![0],
                ..Default::default()
            },
            ..Default::default()
        };
        let low = complete(&p, 0);
        assert_eq!(low.grades, [0, 1, -1, 0]);
        assert_eq!(*low.judged_desc, [1, 0, 0]);
        let run = Run {
            scores: Arc::new(vec![3.0, 2.0, 1.0, 1.0]),
            ..Default::default()
        };
        let c = condense(&p, &run);
        assert_eq!((c.grades.clone(), c.rows.clone()), (vec![1, 0], vec![1, 3]));
        assert_eq!(*c.tied_with_prev, [false, false], "2.0 then 1.0");
        assert_eq!(*c.offsets, [0, 2]);
    }

    /// Every ranking metric but those `registry::TELLS_UNJUDGED` lists has
    /// the same value when the unjudged documents are judged 0: the lower
    /// bound takes their values from the table (random data, every metric
    /// at several cutoffs, every tie rule).
    #[test]
    fn only_the_listed_metrics_tell_unjudged_from_non_relevant() {
        use crate::evaluate::{evaluate_prepared, prepare_runs, Conventions};
        use crate::registry::{self, Kind};
        let mut next = crate::xorshift(7);
        let mut data = RankingData::default();
        let (mut qs, mut names, mut grades) = (Vec::new(), Names::default(), Vec::new());
        for q in 0..30u32 {
            data.queries.intern(&format!("q{q}"));
            for d in 0..40 {
                if next() % 3 == 0 {
                    qs.push(q);
                    names.push(&format!("d{d}"));
                    grades.push((next() % 5) as i32 - 1);
                }
            }
        }
        data.qrels = Qrels::from_columns(&qs, &names, &grades, 30).0;
        let (mut rq, mut rn, mut rs) = (Vec::new(), Names::default(), Vec::new());
        for q in 0..30u32 {
            for d in 0..40 {
                if next() % 2 == 0 {
                    rq.push(q);
                    rn.push(&format!("d{d}"));
                    rs.push((next() % 7) as f64);
                }
            }
        }
        data.runs.push(Run::from_rows(
            "r".into(),
            rn.into(),
            rs.into(),
            &rq,
            |_| true,
            30,
        ));
        let metrics = registry::all_metrics(Kind::Ranking, &[1, 3, 5, 10, 20, 100]);
        let mut listed_differ = 0;
        for ties in crate::ranking::TieRule::ALL {
            let conv = Conventions {
                ties: *ties,
                ..Default::default()
            };
            let prepared = prepare_runs(&data, &conv);
            let low: Vec<_> = prepared.iter().map(|p| complete(p, 0)).collect();
            let (v, l) = (
                evaluate_prepared(&data, &prepared, &conv, &metrics),
                evaluate_prepared(&data, &low, &conv, &metrics),
            );
            for c in &v.columns {
                let (x, y) = (v.models[0].metrics[c], l.models[0].metrics[c]);
                let same = match (x, y) {
                    (Some(x), Some(y)) => (x - y).abs() <= 1e-12,
                    (x, y) => x.is_none() && y.is_none(),
                };
                let listed = registry::TELLS_UNJUDGED.contains(&registry::base_of(c));
                assert!(same || listed, "{c} under {ties:?}: {x:?} -> {y:?}");
                listed_differ += (!same) as usize;
            }
        }
        assert!(listed_differ > 10, "the data has unjudged documents");
    }

    #[test]
    fn merging_lists_every_conflict() {
        let a = set(&[(0, "a", 1), (0, "b", 0), (1, "c", 2)], 2);
        let b = set(&[(0, "a", 1), (0, "b", 2), (1, "d", 0)], 2);
        let (all, conflicts) = merge(&a, &b, 2, true);
        assert_eq!(all.len(), 4);
        assert_eq!(conflicts.len(), 1);
        assert_eq!((conflicts[0].kept, conflicts[0].other), (2, 0));
        assert!(all.iter().any(|e| e.1 == "b" && e.2 == 2));
    }
}
