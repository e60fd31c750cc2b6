//! Paired significance tests on the per-unit values (per query, row or user)
//! of two models: is model B's mean really different from model A's?
//!
//! Every test takes the differences `d_i = b_i − a_i` (model minus baseline)
//! over the units both models have, and is two-sided. Conventions follow
//! scipy 1.17 where scipy has the test (`ttest_rel`, `wilcoxon`,
//! `binomtest`), and Smucker, Allan & Carterette (2007) and Sakai (2006) for
//! the randomization and bootstrap tests; each function states its own.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The paired differences of two models and their summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Paired {
    /// Units both models have.
    pub n: usize,
    pub mean_a: f64,
    pub mean_b: f64,
    /// Mean of `b − a`.
    pub mean_diff: f64,
    /// Sample standard deviation of the differences (n − 1).
    pub sd_diff: f64,
    /// Units where B is higher, lower, equal.
    pub wins: usize,
    pub losses: usize,
    pub ties: usize,
}

impl Paired {
    /// # Examples
    ///
    /// ```
    /// use rankscope_core::stats::Paired;
    ///
    /// let a = [0.2, 0.35, 0.5, 0.41, 0.6, 0.33, 0.48]; // baseline, per query
    /// let b = [0.25, 0.45, 0.52, 0.40, 0.71, 0.39, 0.57]; // model
    /// let p = Paired::new(&a, &b);
    /// assert_eq!((p.n, p.wins, p.losses, p.ties), (7, 6, 1, 0));
    /// assert!((p.mean_diff - 0.06).abs() < 1e-12); // (0.05 + 0.1 + 0.02 − 0.01 + 0.11 + 0.06 + 0.09) / 7
    /// ```
    pub fn new(a: &[f64], b: &[f64]) -> Paired {
        let n = a.len().min(b.len());
        let d: Vec<f64> = (0..n).map(|i| b[i] - a[i]).collect();
        let mean = |x: &[f64]| super::sum::mean(x.iter().copied()).unwrap_or(f64::NAN);
        let mean_diff = mean(&d);
        Paired {
            n,
            mean_a: mean(&a[..n]),
            mean_b: mean(&b[..n]),
            mean_diff,
            sd_diff: sd(&d, mean_diff),
            wins: d.iter().filter(|&&x| x > 0.0).count(),
            losses: d.iter().filter(|&&x| x < 0.0).count(),
            ties: d.iter().filter(|&&x| x == 0.0).count(),
        }
    }
}

fn sd(x: &[f64], mean: f64) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let ss: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
    (ss / (x.len() - 1) as f64).sqrt()
}

/// Paired Student's t-test (scipy `ttest_rel`): t = d̄ / (s_d / √n) with
/// n − 1 degrees of freedom, two-sided p; the 95% confidence interval of
/// the mean difference, d̄ ± t_{0.975, n−1} · s_d / √n; and the effect size
/// d_z = d̄ / s_d (Cohen's d for paired samples: the mean difference in
/// units of the differences' standard deviation).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TTest {
    pub t: f64,
    pub df: f64,
    pub p: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub effect_size: f64,
}

/// `None` with fewer than 2 units or differences that are all equal (no
/// spread: scipy returns NaN there).
///
/// # Examples
///
/// ```
/// use rankscope_core::stats::{paired_t, Paired};
///
/// let a = [0.2, 0.35, 0.5, 0.41, 0.6, 0.33, 0.48]; // baseline, per query
/// let b = [0.25, 0.45, 0.52, 0.40, 0.71, 0.39, 0.57]; // model
/// let t = paired_t(&Paired::new(&a, &b)).unwrap();
/// // scipy 1.17: ttest_rel(b, a) and its confidence_interval(); the p-value and
/// // the interval go through Student's t distribution (statrs), hence 1e-9
/// assert!((t.t - 3.610330006885894).abs() < 1e-12);
/// assert_eq!(t.df, 6.0);
/// assert!((t.p - 0.011226502400368283).abs() < 1e-9);
/// assert!((t.ci_low - 0.019334822360093783).abs() < 1e-9);
/// assert!((t.ci_high - 0.10066517763990623).abs() < 1e-9);
/// ```
pub fn paired_t(p: &Paired) -> Option<TTest> {
    if p.n < 2 || p.sd_diff.is_nan() || p.sd_diff <= 0.0 {
        return None;
    }
    let df = (p.n - 1) as f64;
    let se = p.sd_diff / (p.n as f64).sqrt();
    let t = p.mean_diff / se;
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    let pv = (2.0 * dist.cdf(-t.abs())).min(1.0);
    let q = dist.inverse_cdf(0.975);
    Some(TTest {
        t,
        df,
        p: pv,
        ci_low: p.mean_diff - q * se,
        ci_high: p.mean_diff + q * se,
        effect_size: p.mean_diff / p.sd_diff,
    })
}

/// How a Wilcoxon p-value was found (scipy's `method='auto'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WilcoxonMethod {
    /// The exact null distribution of W+ (n ≤ 50, no zero difference, no tie).
    Exact,
    /// Every one of the 2^n sign flips (n ≤ 13 with zeros or ties).
    Permutation,
    /// The normal approximation with the tie correction, no continuity correction.
    Normal,
}

/// Wilcoxon signed-rank test with scipy's defaults (`zero_method='wilcox'`:
/// zero differences dropped from the ranks; `correction=False`;
/// `method='auto'`: the exact distribution for n ≤ 50 with no zero and no
/// tie, every sign flip for n ≤ 13 otherwise, else the normal approximation
/// with the tie correction). `statistic` is min(W+, W−), as scipy reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Wilcoxon {
    pub statistic: f64,
    pub p: f64,
    pub method: WilcoxonMethod,
}

/// `None` when every difference is 0.
///
/// # Examples
///
/// ```
/// use rankscope_core::stats::{wilcoxon, WilcoxonMethod};
///
/// let a = [0.2, 0.35, 0.5, 0.41, 0.6, 0.33, 0.48]; // baseline, per query
/// let b = [0.25, 0.45, 0.52, 0.40, 0.71, 0.39, 0.57]; // model
/// // scipy 1.17: wilcoxon(b, a). The one negative difference, −0.01, has the
/// // smallest |d|: W− = 1; P(W+ >= 27) = P(W+ <= 1) = 2/128, so p = 2 · 2/128
/// let w = wilcoxon(&a, &b).unwrap();
/// assert_eq!(w.statistic, 1.0);
/// assert_eq!(w.method, WilcoxonMethod::Exact);
/// assert!((w.p - 0.03125).abs() < 1e-15);
/// ```
pub fn wilcoxon(a: &[f64], b: &[f64]) -> Option<Wilcoxon> {
    let n_all = a.len().min(b.len());
    let d: Vec<f64> = (0..n_all).map(|i| b[i] - a[i]).collect();
    let nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    let count = nonzero.len();
    if count == 0 {
        return None;
    }
    let abs: Vec<f64> = nonzero.iter().map(|x| x.abs()).collect();
    let ranks = super::base::average_ranks(&abs);
    let r_plus: f64 = nonzero
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum();
    let r_minus = (count * (count + 1)) as f64 / 2.0 - r_plus;
    let tie_sizes = tie_groups(&abs);
    let has_ties = tie_sizes.iter().any(|&t| t > 1);
    let zeros = n_all - count;
    let two_sided = |less: f64, greater: f64| (2.0 * less.min(greater)).min(1.0);
    let (p, method) = if n_all <= 50 && !has_ties && zeros == 0 {
        let pmf = signed_rank_pmf(count);
        let at_most = |k: f64| pmf[..=(k as usize).min(pmf.len() - 1)].iter().sum::<f64>();
        let at_least = |k: f64| pmf[(k as usize).min(pmf.len())..].iter().sum::<f64>();
        (
            two_sided(at_most(r_plus.ceil()), at_least(r_plus.floor())),
            WilcoxonMethod::Exact,
        )
    } else if n_all <= 13 {
        // every sign flip, compared within scipy's relative tolerance
        let gamma = 1e-14 * r_plus.abs().max(1.0);
        let (mut less, mut greater) = (0u64, 0u64);
        // a zero's flip changes nothing: flip the nonzero differences only,
        // each assignment counted 2^zeros times (the same shares)
        let total = 1u64 << count;
        for mask in 0..total {
            let t: f64 = ranks
                .iter()
                .enumerate()
                .filter(|(i, _)| (mask >> i) & 1 == 1)
                .map(|(_, r)| r)
                .sum();
            less += (t <= r_plus + gamma) as u64;
            greater += (t >= r_plus - gamma) as u64;
        }
        (
            two_sided(less as f64 / total as f64, greater as f64 / total as f64),
            WilcoxonMethod::Permutation,
        )
    } else {
        let c = count as f64;
        let mean = c * (c + 1.0) / 4.0;
        let tie_term: f64 = tie_sizes.iter().map(|&t| (t * t * t - t) as f64).sum();
        let se = ((c * (c + 1.0) * (2.0 * c + 1.0) - tie_term / 2.0) / 24.0).sqrt();
        let z = (r_plus - mean) / se;
        (2.0 * normal_cdf(-z.abs()), WilcoxonMethod::Normal)
    };
    Some(Wilcoxon {
        statistic: r_plus.min(r_minus),
        p,
        method,
    })
}

/// Sizes of the groups of equal values.
fn tie_groups(x: &[f64]) -> Vec<usize> {
    let mut s = x.to_vec();
    s.sort_by(f64::total_cmp);
    s.chunk_by(|a, b| a == b).map(<[f64]>::len).collect()
}

/// The null distribution of W+ for n differences, P(W+ = k) for k = 0..=n(n+1)/2:
/// the number of subsets of {1..n} with sum k, over 2^n.
fn signed_rank_pmf(n: usize) -> Vec<f64> {
    let max = n * (n + 1) / 2;
    let mut counts = vec![0f64; max + 1];
    counts[0] = 1.0;
    for r in 1..=n {
        for k in (r..=max).rev() {
            counts[k] += counts[k - r];
        }
    }
    let total = 2f64.powi(n as i32);
    counts.iter().map(|c| c / total).collect()
}

fn normal_cdf(z: f64) -> f64 {
    Normal::standard().cdf(z)
}

/// Sign test: an exact two-sided binomial test of wins against losses, ties
/// dropped (scipy `binomtest(wins, wins + losses, 0.5)`). `None` without a
/// win or a loss.
///
/// # Examples
///
/// ```
/// use rankscope_core::stats::{sign_test, Paired};
///
/// let a = [0.2, 0.35, 0.5, 0.41, 0.6, 0.33, 0.48]; // baseline, per query
/// let b = [0.25, 0.45, 0.52, 0.40, 0.71, 0.39, 0.57]; // model
/// // 6 wins, 1 loss. scipy 1.17: binomtest(6, 7, 0.5).pvalue,
/// // by hand 2 · (C(7, 0) + C(7, 1)) / 2^7 = 16/128
/// assert!((sign_test(&Paired::new(&a, &b)).unwrap() - 0.125).abs() < 1e-15);
/// ```
pub fn sign_test(p: &Paired) -> Option<f64> {
    let n = p.wins + p.losses;
    if n == 0 {
        return None;
    }
    let k = p.wins.min(p.losses);
    // P(X <= k) for X ~ Binomial(n, 1/2), summed in logs for large n
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_c = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_c + ln_half_n).exp();
    }
    Some((2.0 * tail).min(1.0))
}

/// A seeded generator (SplitMix64): the same sequence for the same seed on
/// every machine, so a p-value can be reproduced from its seed.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// A resampling test's p-value, with its Monte Carlo standard error (0 when exact).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Resampled {
    pub p: f64,
    pub standard_error: f64,
    /// Resamples drawn (or every sign flip, when `exact`).
    pub resamples: u64,
    pub exact: bool,
    pub seed: u64,
}

/// The most units whose 2^n sign flips are all enumerated.
pub const EXACT_FLIPS: usize = 20;

/// Fisher's randomization test (paired permutation; Smucker, Allan &
/// Carterette 2007): under the null each difference's sign is a coin flip;
/// p = the share of sign assignments whose |mean| is at least the observed
/// |mean| (within 1e-12 relative). Every one of the 2^n assignments for n ≤
/// [`EXACT_FLIPS`]; otherwise `resamples` random ones, counted with the
/// observed one, p = (1 + hits) / (1 + B) (never 0; Phipson & Smyth 2010).
pub fn randomization(a: &[f64], b: &[f64], resamples: u64, seed: u64) -> Option<Resampled> {
    let n = a.len().min(b.len());
    if n == 0 {
        return None;
    }
    let d: Vec<f64> = (0..n).map(|i| b[i] - a[i]).collect();
    let observed: f64 = d.iter().sum::<f64>().abs();
    let at_least = |s: f64| s.abs() >= observed - 1e-12 * observed.max(1e-300);
    if n <= EXACT_FLIPS {
        let total = 1u64 << n;
        let hits = (0..total)
            .filter(|mask| {
                let s: f64 = d
                    .iter()
                    .enumerate()
                    .map(|(i, x)| if (mask >> i) & 1 == 1 { -x } else { *x })
                    .sum();
                at_least(s)
            })
            .count() as u64;
        return Some(Resampled {
            p: hits as f64 / total as f64,
            standard_error: 0.0,
            resamples: total,
            exact: true,
            seed,
        });
    }
    // each draw flips the sign bits of 64 differences at once, summed in
    // four lanes (no branch, no dependency chain of n additions)
    let bits: Vec<u64> = d.iter().map(|x| x.to_bits()).collect();
    let mut rng = SplitMix64::new(seed);
    let mut hits = 0u64;
    for _ in 0..resamples {
        let mut s = 0.0;
        for chunk in bits.chunks(64) {
            let flips = rng.next_u64();
            let mut lanes = [0.0f64; 4];
            for (j, x) in chunk.iter().enumerate() {
                lanes[j & 3] += f64::from_bits(x ^ (((flips >> j) & 1) << 63));
            }
            s += (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
        }
        hits += at_least(s) as u64;
    }
    let p = (1 + hits) as f64 / (1 + resamples) as f64;
    Some(Resampled {
        p,
        standard_error: (p * (1.0 - p) / resamples as f64).sqrt(),
        resamples,
        exact: false,
        seed,
    })
}

/// Paired bootstrap test (Sakai 2006): the differences shifted to mean 0
/// are resampled with replacement; p = the share of resamples whose
/// |t| = |mean| / (sd / √n) is at least the observed |t|, counted with the
/// observed one: p = (1 + hits) / (1 + B), never 0 (Phipson & Smyth 2010;
/// Sakai's hits / B reads 0 when no resample reaches the observed t).
pub fn bootstrap_test(a: &[f64], b: &[f64], resamples: u64, seed: u64) -> Option<Resampled> {
    let p = Paired::new(a, b);
    let t = paired_t(&p)?.t;
    let n = p.n;
    let z: Vec<f64> = (0..n).map(|i| b[i] - a[i] - p.mean_diff).collect();
    let mut rng = SplitMix64::new(seed);
    let mut hits = 0u64;
    let mut sample = vec![0.0; n];
    for _ in 0..resamples {
        for s in sample.iter_mut() {
            *s = z[rng.below(n)];
        }
        let m = sample.iter().sum::<f64>() / n as f64;
        let s = sd(&sample, m);
        let t_star = if s > 0.0 {
            m / (s / (n as f64).sqrt())
        } else {
            0.0
        };
        hits += (t_star.abs() >= t.abs()) as u64;
    }
    let pv = (1 + hits) as f64 / (1 + resamples) as f64;
    Some(Resampled {
        p: pv,
        standard_error: (pv * (1.0 - pv) / resamples as f64).sqrt(),
        resamples,
        exact: false,
        seed,
    })
}

/// A randomized Tukey HSD test of several models on the same units.
#[derive(Clone, Debug, PartialEq)]
pub struct TukeyHsd {
    pub means: Vec<f64>,
    /// `p[j * m + k]`: models `j` and `k`, family-wise over every pair.
    pub p: Vec<f64>,
    pub resamples: u64,
    pub seed: u64,
    /// Every shuffle enumerated (two models on at most [`EXACT_FLIPS`] units).
    pub exact: bool,
}

impl TukeyHsd {
    /// Models `j` and `k`'s p-value with its Monte Carlo standard error.
    pub fn pair(&self, j: usize, k: usize) -> Resampled {
        let p = self.p[j * self.means.len() + k];
        Resampled {
            p,
            standard_error: (p * (1.0 - p) / self.resamples as f64).sqrt(),
            resamples: self.resamples,
            exact: self.exact,
            seed: self.seed,
        }
    }
}

/// Randomized Tukey HSD test (Carterette 2012, "Multiple testing in
/// statistical analysis of systems-based information retrieval
/// experiments"; Sakai 2018, *Laboratory Experiments in Information
/// Retrieval*, §4.4): `columns[j][i]` is model `j`'s value on unit `i`,
/// every model on the same units. Under the null hypothesis the models are
/// exchangeable on each unit: each of `resamples` draws shuffles every
/// unit's values among the models, and its statistic is the range of the
/// model means (max − min). The p-value of models `j` and `k` is the share
/// of draws whose range is at least |mean_j − mean_k| (within 1e-12
/// relative), counted with the observed one: (1 + hits) / (1 + B). The
/// range bounds every pair's difference in a draw, so the p-values hold
/// family-wise over all pairs (no further correction). With two models a
/// shuffle is a sign flip and the range is |mean difference|: the test is
/// [`randomization`]'s, run as that (64 flips per draw, exact up to
/// [`EXACT_FLIPS`] units). `None` below two models, without units, or for
/// columns of different lengths.
pub fn tukey_hsd(columns: &[&[f64]], resamples: u64, seed: u64) -> Option<TukeyHsd> {
    let m = columns.len();
    let n = columns.first()?.len();
    if m < 2 || n == 0 || columns.iter().any(|c| c.len() != n) || resamples == 0 {
        return None;
    }
    let means: Vec<f64> = columns
        .iter()
        .map(|c| c.iter().sum::<f64>() / n as f64)
        .collect();
    if m == 2 {
        let r = randomization(columns[0], columns[1], resamples, seed)?;
        return Some(TukeyHsd {
            means,
            p: vec![1.0, r.p, r.p, 1.0],
            resamples: r.resamples,
            seed,
            exact: r.exact,
        });
    }
    // unit-major rows: each draw reads the units in order
    let rows: Vec<f64> = (0..n)
        .flat_map(|i| columns.iter().map(move |c| c[i]))
        .collect();
    let mut rng = SplitMix64::new(seed);
    let mut ranges = Vec::with_capacity(resamples as usize);
    let (mut sums, mut order) = (vec![0.0; m], vec![0usize; m]);
    for _ in 0..resamples {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for row in rows.chunks_exact(m) {
            // a uniform permutation of the models (Fisher–Yates)
            for (j, o) in order.iter_mut().enumerate() {
                *o = j;
            }
            for j in (1..m).rev() {
                order.swap(j, rng.below(j + 1));
            }
            for (&j, &v) in order.iter().zip(row) {
                sums[j] += v;
            }
        }
        let (lo, hi) = sums
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| {
                (lo.min(s), hi.max(s))
            });
        ranges.push((hi - lo) / n as f64);
    }
    ranges.sort_by(f64::total_cmp);
    let mut p = vec![1.0; m * m];
    for j in 0..m {
        for k in 0..m {
            if j != k {
                let observed = (means[j] - means[k]).abs();
                let from = observed - 1e-12 * observed.max(1e-300);
                let hits = ranges.len() - ranges.partition_point(|&r| r < from);
                p[j * m + k] = (1 + hits) as f64 / (1 + resamples) as f64;
            }
        }
    }
    Some(TukeyHsd {
        means,
        p,
        resamples,
        seed,
        exact: false,
    })
}

/// Student's t 95% interval of the mean of `x`: x̄ ± t_{0.975, n−1} · s/√n
/// (`None` below 2 values).
///
/// # Examples
///
/// ```
/// use rankscope_core::stats::t_interval;
///
/// // scipy 1.17: t.interval(0.95, 4, loc=mean(x), scale=sem(x))
/// let (lo, hi) = t_interval(&[0.2, 0.35, 0.5, 0.41, 0.6]).unwrap();
/// assert!((lo - 0.22381518058706185).abs() < 1e-9);
/// assert!((hi - 0.6001848194129382).abs() < 1e-9);
/// assert_eq!(t_interval(&[0.5]), None);
/// ```
pub fn t_interval(x: &[f64]) -> Option<(f64, f64)> {
    let n = x.len();
    if n < 2 {
        return None;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let half = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(0.975)
        * sd(x, mean)
        / (n as f64).sqrt();
    Some((mean - half, mean + half))
}

/// Bootstrap percentile 95% interval of the mean of `x` (`resamples`
/// resamples with replacement, seeded): the 2.5th and 97.5th percentiles of
/// the resampled means (numpy's linear interpolation between order statistics).
pub fn bootstrap_ci(x: &[f64], resamples: usize, seed: u64) -> Option<(f64, f64)> {
    let n = x.len();
    if n == 0 || resamples == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| x[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    Some(percentiles_95(&mut means))
}

/// The 2.5th and 97.5th percentiles of `x` (sorted here, through
/// [`crate::order`]: the page's one sort; numpy's linear
/// interpolation between order statistics); `x` must not be empty.
pub fn percentiles_95(x: &mut [f64]) -> (f64, f64) {
    let sorted: Vec<f64> = crate::order(x.len(), &|a, b| x[a].total_cmp(&x[b]))
        .into_iter()
        .map(|i| x[i])
        .collect();
    x.copy_from_slice(&sorted);
    let q = |p: f64| {
        let h = p * (x.len() - 1) as f64;
        let (lo, frac) = (h.floor() as usize, h - h.floor());
        let hi = (lo + 1).min(x.len() - 1);
        x[lo] + frac * (x[hi] - x[lo])
    };
    (q(0.025), q(0.975))
}

/// Wilson's (1927) score 95% interval of a proportion of `successes` in
/// `trials` (scipy's `binomtest(...).proportion_ci(method="wilson")`):
/// (p̂ + z²/2k ± z √(p̂(1 − p̂)/k + z²/4k²)) / (1 + z²/k), clipped to [0, 1];
/// `None` without trials.
///
/// # Examples
///
/// ```
/// use rankscope_core::stats::wilson;
///
/// // scipy 1.17: binomtest(3, 4).proportion_ci(method="wilson")
/// let (lo, hi) = wilson(3, 4).unwrap();
/// assert!((lo - 0.30064184258240184).abs() < 1e-12);
/// assert!((hi - 0.9544127391902995).abs() < 1e-12);
/// ```
pub fn wilson(successes: u64, trials: u64) -> Option<(f64, f64)> {
    if trials == 0 {
        return None;
    }
    let (k, z2) = (trials as f64, Z95 * Z95);
    let p = successes as f64 / k;
    let scale = 1.0 + z2 / k;
    let center = (p + z2 / (2.0 * k)) / scale;
    let half = Z95 * (p * (1.0 - p) / k + z2 / (4.0 * k * k)).sqrt() / scale;
    Some(((center - half).max(0.0), (center + half).min(1.0)))
}

pub use super::base::Z95;

/// DeLong's test for two correlated ROC AUCs on the same rows (DeLong,
/// DeLong & Clarke-Pearson 1988), by Sun & Xu's (2014) midrank algorithm in
/// O(n log n): each model's placement values V10 (per positive) and V01 (per
/// negative) from three average rankings, their covariances over the
/// positives (S10) and the negatives (S01), S = S10/m + S01/n; then
/// z = (AUC_b − AUC_a) / √(S_aa + S_bb − 2 S_ab), two-sided p from the
/// normal distribution, and each AUC's 95% interval AUC ± 1.96 √S_kk (as
/// pROC's `ci.auc(method = "delong")`), clipped to [0, 1]. Ties count ½, as
/// in the AUC itself.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DeLong {
    pub auc_a: f64,
    pub auc_b: f64,
    pub z: f64,
    pub p: f64,
    pub ci_a: (f64, f64),
    pub ci_b: (f64, f64),
    /// S_aa, S_bb and S_ab.
    pub var_a: f64,
    pub var_b: f64,
    pub cov: f64,
}

/// `None` without both classes; `z` and `p` are NaN when the two models'
/// placements are identical (no variance to test against).
pub fn delong(labels: &[bool], a: &[f64], b: &[f64]) -> Option<DeLong> {
    let (m, n) = classes(labels)?;
    let codes = placement_codes(labels, &[a, b]);
    Some(delong_codes(labels, m, n, &codes[0], &codes[1]))
}

/// DeLong's test of each of `models` against `base` on the same rows: the
/// baseline's placements are computed once (as [`delong`] for each pair).
pub fn delong_against(labels: &[bool], base: &[f64], models: &[&[f64]]) -> Option<Vec<DeLong>> {
    let (m, n) = classes(labels)?;
    let mut columns = vec![base];
    columns.extend_from_slice(models);
    let codes = placement_codes(labels, &columns);
    Some(
        codes[1..]
            .iter()
            .map(|c| delong_codes(labels, m, n, &codes[0], c))
            .collect(),
    )
}

/// The numbers of positive and negative rows, when both are there (rows are
/// numbered in 31 bits in [`placement_codes`]).
fn classes(labels: &[bool]) -> Option<(usize, usize)> {
    let m = labels.iter().filter(|&&l| l).count();
    let n = labels.len() - m;
    (m > 0 && n > 0 && labels.len() < 1 << 31).then_some((m, n))
}

/// The test from two models' placement codes. Every sum is an exact
/// integer (codes are below 2^32, sums of products below 2^95), so each
/// covariance, k·Σxy − Σx·Σy over k(k − 1), is rounded once.
fn delong_codes(labels: &[bool], m: usize, n: usize, ca: &[u32], cb: &[u32]) -> DeLong {
    #[derive(Default)]
    struct Sums {
        a: u128,
        b: u128,
        aa: u128,
        bb: u128,
        ab: u128,
    }
    let (mut pos, mut neg) = (Sums::default(), Sums::default());
    for ((&l, &x), &y) in labels.iter().zip(ca).zip(cb) {
        let s = if l { &mut pos } else { &mut neg };
        let (x, y) = (x as u64, y as u64);
        s.a += x as u128;
        s.b += y as u128;
        s.aa += (x * x) as u128;
        s.bb += (y * y) as u128;
        s.ab += (x * y) as u128;
    }
    // the covariance of two code columns over k rows, scaled by 1/scale²
    let cov = |k: usize, sx: u128, sy: u128, sxy: u128, scale: f64| -> f64 {
        if k < 2 {
            return 0.0;
        }
        let num = k as i128 * sxy as i128 - sx as i128 * sy as i128;
        num as f64 / (k as f64 * (k - 1) as f64) / (scale * scale)
    };
    // V10 = c / 2n over the positives, V01 = 1 − d / 2m over the negatives
    // (the sign cancels in every covariance)
    let (two_n, two_m) = (2.0 * n as f64, 2.0 * m as f64);
    let s = |p: (u128, u128, u128), q: (u128, u128, u128)| {
        cov(m, p.0, p.1, p.2, two_n) / m as f64 + cov(n, q.0, q.1, q.2, two_m) / n as f64
    };
    let var_a = s((pos.a, pos.a, pos.aa), (neg.a, neg.a, neg.aa));
    let var_b = s((pos.b, pos.b, pos.bb), (neg.b, neg.b, neg.bb));
    let cov_ab = s((pos.a, pos.b, pos.ab), (neg.a, neg.b, neg.ab));
    let auc = |sum: u128| sum as f64 / (two_n * m as f64);
    let (auc_a, auc_b) = (auc(pos.a), auc(pos.b));
    let se = (var_a + var_b - 2.0 * cov_ab).sqrt();
    let z = if se > 0.0 {
        (auc_b - auc_a) / se
    } else {
        f64::NAN
    };
    let ci = |auc: f64, var: f64| {
        let h = Z95 * var.sqrt();
        ((auc - h).max(0.0), (auc + h).min(1.0))
    };
    DeLong {
        auc_a,
        auc_b,
        z,
        p: if z.is_nan() {
            f64::NAN
        } else {
            2.0 * normal_cdf(-z.abs())
        },
        ci_a: ci(auc_a, var_a),
        ci_b: ci(auc_b, var_b),
        var_a,
        var_b,
        cov: cov_ab,
    }
}

/// Each column's placement values as exact integer codes, one per row: a
/// positive's V10 is c / 2n with c = 2·(negatives scored below it) +
/// (negatives tied with it), a negative's V01 is 1 − c / 2m with c =
/// 2·(positives below) + (positives tied). (Sun & Xu 2014, eq. 7-8: the
/// overall midrank minus the midrank within the row's own class, over the
/// other class's size.) Natively the columns are sorted on as many threads
/// as the machine has ([`crate::par_map`]: two columns on two cores
/// take the time of one).
fn placement_codes(labels: &[bool], columns: &[&[f64]]) -> Vec<Vec<u32>> {
    crate::par_map(columns, |c| codes(labels, c))
}

/// One column's codes (see [`placement_codes`]): one sort of (score, row),
/// whose tie groups give Sun & Xu's three midranks at once, then one write
/// per row.
fn codes(labels: &[bool], scores: &[f64]) -> Vec<u32> {
    // the curve's key (−0.0 keyed as 0.0: equal scores); the label rides in
    // the row's top bit
    let key = crate::base::order_key;
    let mut order: Vec<(u64, u32)> = scores
        .iter()
        .zip(labels)
        .enumerate()
        .map(|(i, (&x, &l))| (key(x), i as u32 | (l as u32) << 31))
        .collect();
    // (radsort's LSD radix sort by the key alone measured 12 % slower on
    // 10M rows: 16-byte rows, six or seven passes)
    order.sort_unstable();
    let mut out = vec![0u32; labels.len()];
    let (mut below_pos, mut below_neg) = (0u32, 0u32);
    let mut s = 0;
    while s < order.len() {
        let mut e = s + 1;
        while e < order.len() && order[e].0 == order[s].0 {
            e += 1;
        }
        let group = &order[s..e];
        let p = group.iter().filter(|(_, i)| i >> 31 == 1).count() as u32;
        let q = group.len() as u32 - p;
        let (pos_code, neg_code) = (2 * below_neg + q, 2 * below_pos + p);
        for &(_, i) in group {
            out[(i & 0x7fff_ffff) as usize] = if i >> 31 == 1 { pos_code } else { neg_code };
        }
        below_pos += p;
        below_neg += q;
        s = e;
    }
    out
}

/// A correction of p-values for testing several models against one baseline.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// Holm's step-down (family-wise error; uniformly more powerful than Bonferroni).
    #[default]
    Holm,
    Bonferroni,
    /// Benjamini–Hochberg (false discovery rate).
    #[serde(rename = "bh")]
    BenjaminiHochberg,
    None,
}

crate::named!(Correction {
    Holm = "holm",
    Bonferroni = "bonferroni",
    BenjaminiHochberg = "bh",
    None = "none",
});

/// `p` adjusted under `correction` (statsmodels `multipletests`: adjusted
/// values are monotone in the raw ones and at most 1).
///
/// # Examples
///
/// ```
/// use rankscope_core::stats::{adjust, Correction};
///
/// let p = [0.01, 0.04, 0.03, 0.2];
/// let close = |got: Vec<f64>, want: [f64; 4]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-12);
/// // statsmodels 0.15: multipletests(p, method=...)[1]
/// assert!(close(adjust(&p, Correction::Holm), [0.04, 0.09, 0.09, 0.2]));
/// assert!(close(adjust(&p, Correction::Bonferroni), [0.04, 0.16, 0.12, 0.8]));
/// let bh = [0.04, 0.05333333333333334, 0.05333333333333334, 0.2]; // "fdr_bh"
/// assert!(close(adjust(&p, Correction::BenjaminiHochberg), bh));
/// ```
pub fn adjust(p: &[f64], correction: Correction) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut out = vec![0.0; m];
    match correction {
        Correction::None => out.copy_from_slice(p),
        Correction::Bonferroni => {
            for i in 0..m {
                out[i] = (p[i] * m as f64).min(1.0);
            }
        }
        Correction::Holm => {
            let mut running: f64 = 0.0;
            for (rank, &i) in order.iter().enumerate() {
                running = running.max(((m - rank) as f64 * p[i]).min(1.0));
                out[i] = running;
            }
        }
        Correction::BenjaminiHochberg => {
            let mut running: f64 = 1.0;
            for (rank, &i) in order.iter().enumerate().rev() {
                running = running.min((m as f64 / (rank + 1) as f64 * p[i]).min(1.0));
                out[i] = running;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against scipy 1.17's `binomtest(x, n).proportion_ci(method="wilson")`.
    #[test]
    fn wilson_intervals_equal_scipy() {
        for (x, n, lo, hi) in [
            (3, 4, 0.30064184258240184, 0.9544127391902995),
            (10, 10, 0.7224672001371109, 1.0),
            (0, 5, 0.0, 0.43448246478317476),
            (57, 120, 0.3878209113791835, 0.5637300469417517),
            (1, 1, 0.20654931437723745, 1.0),
            (9999, 10000, 0.9994337311025987, 0.9999823473263989),
        ] {
            let (l, h) = wilson(x, n).unwrap();
            assert!(
                (l - lo).abs() < 1e-12 && (h - hi).abs() < 1e-12,
                "{x}/{n}: {l} {h}"
            );
        }
        assert_eq!(wilson(0, 0), None);
    }

    /// Each code against its definition counted pair by pair, with ties,
    /// on one column and on several sorted at once (threads natively).
    #[test]
    fn placement_codes_count_the_other_class_below_and_tied() {
        let mut rng = SplitMix64::new(11);
        let labels: Vec<bool> = (0..400).map(|_| rng.below(3) == 0).collect();
        let cols: Vec<Vec<f64>> = (0..3)
            .map(|_| (0..400).map(|_| rng.below(30) as f64 / 30.0).collect())
            .collect();
        let refs: Vec<&[f64]> = cols.iter().map(|c| c.as_slice()).collect();
        let all = placement_codes(&labels, &refs);
        for (col, got) in cols.iter().zip(&all) {
            assert_eq!(got, &placement_codes(&labels, &[col])[0]);
            for i in 0..labels.len() {
                let (mut below, mut tied) = (0, 0);
                for j in (0..labels.len()).filter(|&j| labels[j] != labels[i]) {
                    below += (col[j] < col[i]) as u32;
                    tied += (col[j] == col[i]) as u32;
                }
                assert_eq!(got[i], 2 * below + tied, "row {i}");
            }
        }
        let against = delong_against(&labels, &cols[0], &[&cols[1], &cols[2]]).unwrap();
        for (k, d) in against.iter().enumerate() {
            assert_eq!(*d, delong(&labels, &cols[0], &cols[k + 1]).unwrap());
        }
    }

    #[test]
    fn the_signed_rank_distribution_sums_to_one_and_is_symmetric() {
        for n in [1, 2, 5, 20, 50] {
            let pmf = signed_rank_pmf(n);
            assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let m = pmf.len();
            for k in 0..m {
                assert_eq!(pmf[k], pmf[m - 1 - k]);
            }
        }
        assert_eq!(signed_rank_pmf(2), vec![0.25, 0.25, 0.25, 0.25]);
    }

    #[test]
    fn corrections_are_monotone_and_capped() {
        let p = [0.01, 0.04, 0.03, 0.5];
        assert_eq!(
            adjust(&p, Correction::Bonferroni),
            vec![0.04, 0.16, 0.12, 1.0]
        );
        // Holm: sorted 0.01*4, 0.03*3, 0.04*2, 0.5*1, running max
        let holm = adjust(&p, Correction::Holm);
        assert_eq!(holm, vec![0.04, 0.09, 0.09, 0.5]);
        // BH: 0.5*4/4, 0.04*4/3, 0.03*4/2, 0.01*4/1, running min from the top
        let bh = adjust(&p, Correction::BenjaminiHochberg);
        let want = [0.04, 0.04 * 4.0 / 3.0, 0.04 * 4.0 / 3.0, 0.5];
        for (g, w) in bh.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{bh:?}");
        }
    }

    #[test]
    fn randomization_is_exact_for_few_units_and_seeded_otherwise() {
        // three differences of +1: only the all-positive and all-negative
        // assignments reach |sum| 3: p = 2/8
        let a = [0.0; 3];
        let b = [1.0; 3];
        let r = randomization(&a, &b, 1000, 7).unwrap();
        assert!(r.exact);
        assert_eq!(r.p, 0.25);
        let a: Vec<f64> = (0..40).map(|i| (i % 7) as f64 / 7.0).collect();
        let b: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(i, x)| x + if i % 3 == 0 { 0.2 } else { -0.05 })
            .collect();
        let one = randomization(&a, &b, 2000, 42).unwrap();
        assert_eq!(one, randomization(&a, &b, 2000, 42).unwrap());
        assert!(!one.exact && one.p > 0.0 && one.p <= 1.0);
    }

    /// Tukey HSD's exact p-values by enumerating every unit's every
    /// permutation of the models ((m!)^n draws).
    fn tukey_exact(columns: &[&[f64]]) -> Vec<f64> {
        let (m, n) = (columns.len(), columns[0].len());
        let perms: Vec<Vec<usize>> = match m {
            2 => vec![vec![0, 1], vec![1, 0]],
            3 => vec![
                vec![0, 1, 2],
                vec![0, 2, 1],
                vec![1, 0, 2],
                vec![1, 2, 0],
                vec![2, 0, 1],
                vec![2, 1, 0],
            ],
            _ => unreachable!(),
        };
        let means: Vec<f64> = columns
            .iter()
            .map(|c| c.iter().sum::<f64>() / n as f64)
            .collect();
        let total = perms.len().pow(n as u32);
        let mut ranges = Vec::new();
        for code in 0..total {
            let mut sums = vec![0.0; m];
            let mut c = code;
            for i in 0..n {
                let perm = &perms[c % perms.len()];
                c /= perms.len();
                for (j, column) in columns.iter().enumerate() {
                    sums[perm[j]] += column[i];
                }
            }
            let hi = sums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = sums.iter().copied().fold(f64::INFINITY, f64::min);
            ranges.push((hi - lo) / n as f64);
        }
        let mut p = vec![1.0; m * m];
        for j in 0..m {
            for k in 0..m {
                if j != k {
                    let d = (means[j] - means[k]).abs();
                    let hits = ranges
                        .iter()
                        .filter(|&&r| r >= d - 1e-12 * d.max(1e-300))
                        .count();
                    p[j * m + k] = hits as f64 / total as f64;
                }
            }
        }
        p
    }

    #[test]
    fn tukey_hsd_is_within_its_error_of_the_exact_enumeration() {
        let a = [0.2, 0.5, 0.1, 0.9, 0.4];
        let b = [0.3, 0.7, 0.2, 0.8, 0.6];
        let c = [0.6, 0.9, 0.3, 1.0, 0.7];
        let cols: [&[f64]; 3] = [&a, &b, &c];
        let exact = tukey_exact(&cols);
        let t = tukey_hsd(&cols, 40_000, 9).unwrap();
        for j in 0..3 {
            for k in 0..3 {
                let r = t.pair(j, k);
                let want = exact[j * 3 + k];
                assert!(
                    (r.p - want).abs() <= 4.0 * r.standard_error.max(1e-4),
                    "{j} {k}: {} vs {want}",
                    r.p
                );
                assert_eq!(r.p, t.pair(k, j).p, "symmetric");
            }
        }
        // a clear gap is found, family-wise
        assert!(t.pair(0, 2).p < 0.05 && t.pair(0, 1).p > 0.2, "{:?}", t.p);
        // seeded: the same draws again
        assert_eq!(t, tukey_hsd(&cols, 40_000, 9).unwrap());
        // two models: the randomization test's sign flips (exact for 5
        // units), which the shuffles' enumeration gives too
        let two = tukey_hsd(&cols[..2], 40_000, 3).unwrap().pair(0, 1);
        let flips = randomization(&a, &b, 1, 0).unwrap();
        assert_eq!((two.p, two.exact, two.resamples), (flips.p, true, 32));
        assert_eq!(tukey_exact(&cols[..2])[1], flips.p);
        let (x, y): (Vec<f64>, Vec<f64>) = {
            let mut rng = SplitMix64::new(4);
            (0..200)
                .map(|_| (rng.below(100) as f64, rng.below(100) as f64 + 3.0))
                .unzip()
        };
        let drawn = tukey_hsd(&[&x, &y], 5_000, 8).unwrap().pair(1, 0);
        assert_eq!(drawn, randomization(&x, &y, 5_000, 8).unwrap());
        assert!(tukey_hsd(&cols[..1], 100, 1).is_none());
        assert!(tukey_hsd(&[&a, &b[..4]], 100, 1).is_none());
    }
}
