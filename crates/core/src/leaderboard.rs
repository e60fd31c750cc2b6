//! A leaderboard's numbers over one metric's runs × queries matrix: the
//! means, the best run, the tie group (the runs a paired test cannot tell
//! from the best once corrected for the number of comparisons), each run's
//! rank interval from a paired bootstrap over queries, marks against a
//! baseline, the per-topic heatmap's order and a history of the metric over
//! dates. Pure functions: the CLI, the page's worker and Python call them on
//! a catalog's values.
//!
//! The matrix is run-major ([`Matrix`]): run `r`'s value on query `q` is
//! `values[r * queries + q]`, every run on the same queries (a catalog keeps
//! the queries every run has a value for).
//!
//! **Ranks.** A run's rank is 1 + the number of runs with a strictly higher
//! mean: tied runs share the better rank (1, 1, 3). Means closer than
//! [`RANK_TOLERANCE`] of their size count as equal, so the order in which a
//! sum was added up never decides a rank.
//!
//! **Rank intervals.** B resamples (1,000 by default) of the queries with
//! replacement, the same resample for every run (paired): resample `b`
//! draws `n` query positions with [`SplitMix64::below`] from the generator
//! seeded with `seed`, resample after resample (resample `b` starts at the
//! generator's `b · n`-th draw, so resamples can be computed apart). Each
//! run's resampled mean is its values weighted by how often each query was
//! drawn; its rank in each resample as above. The interval is the 2.5th
//! percentile of its B ranks rounded down to an observed rank and the
//! 97.5th rounded up (numpy's `percentile(..., method="lower")` and
//! `method="higher"`): the ranks the run could hold at 95%.

use crate::stats::{self, Correction, Paired, SplitMix64};

/// The paired tests a leaderboard can use.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Paired Student's t-test (scipy `ttest_rel`).
    #[default]
    T,
    /// Wilcoxon's signed-rank test (scipy `wilcoxon`, its defaults).
    Wilcoxon,
    /// The sign test (scipy `binomtest` of the wins among wins and losses).
    Sign,
}

crate::named!(Test {
    T = "t",
    Wilcoxon = "wilcoxon",
    Sign = "sign",
});

/// Two means closer than this share of their size, `|a| + |b|`, are equal
/// for ranking.
pub const RANK_TOLERANCE: f64 = 1e-11;

/// One metric's values, run-major.
#[derive(Clone, Copy, Debug)]
pub struct Matrix<'a> {
    pub runs: usize,
    pub queries: usize,
    pub values: &'a [f64],
}

impl<'a> Matrix<'a> {
    /// `None` unless `values` holds `runs × queries` numbers.
    pub fn new(runs: usize, queries: usize, values: &'a [f64]) -> Option<Matrix<'a>> {
        (runs.checked_mul(queries) == Some(values.len())).then_some(Matrix {
            runs,
            queries,
            values,
        })
    }

    /// Run `r`'s values, one per query.
    pub fn row(&self, r: usize) -> &'a [f64] {
        &self.values[r * self.queries..(r + 1) * self.queries]
    }
}

/// Each run's mean over the queries (compensated sum; NaN without queries).
pub fn means(m: &Matrix) -> Vec<f64> {
    (0..m.runs)
        .map(|r| crate::sum::mean(m.row(r).iter().copied()).unwrap_or(f64::NAN))
        .collect()
}

/// Whether mean `a` is higher than `b` beyond [`RANK_TOLERANCE`].
pub fn higher(a: f64, b: f64) -> bool {
    a - b > RANK_TOLERANCE * (a.abs() + b.abs())
}

/// The run with the highest mean (the first of equal ones); `None` without runs.
pub fn best(means: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (r, &v) in means.iter().enumerate() {
        if v.is_nan() {
            continue;
        }
        if best.is_none_or(|b| higher(v, means[b])) {
            best = Some(r);
        }
    }
    best.or((!means.is_empty()).then_some(0))
}

/// Each run's rank: 1 + the runs with a strictly higher mean.
pub fn ranks(means: &[f64]) -> Vec<usize> {
    let mut sorted = means.to_vec();
    sorted.sort_unstable_by(|a, b| b.total_cmp(a));
    means
        .iter()
        .map(|&v| 1 + count_higher(&sorted, v))
        .collect()
}

/// How many of `descending` are higher than `v` ([`higher`] is monotone in
/// its first argument, so they are a prefix).
fn count_higher(descending: &[f64], v: f64) -> usize {
    descending.partition_point(|&s| higher(s, v))
}

/// The two-sided p-value of `test` on the paired values `a` (the
/// reference) and `b`. Where the test is undefined: 1 when every
/// difference is 0 (or fewer than 2 queries for the t-test), and for the
/// t-test with differences that are all the same non-zero number, 0
/// (scipy: t = ±∞).
pub fn p_value(test: Test, a: &[f64], b: &[f64]) -> f64 {
    let p = Paired::new(a, b);
    match test {
        Test::T => match stats::paired_t(&p) {
            Some(t) => t.p,
            None if p.n >= 2 && p.mean_diff != 0.0 && !p.mean_diff.is_nan() => 0.0,
            None => 1.0,
        },
        Test::Wilcoxon => stats::wilcoxon(a, b).map_or(1.0, |w| w.p),
        Test::Sign => stats::sign_test(&p).unwrap_or(1.0),
    }
}

/// One run tested against a reference run (the best, or the baseline).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    pub run: usize,
    /// The run's mean minus the reference's.
    pub mean_diff: f64,
    pub p: f64,
    /// `p` corrected across every run tested against the same reference.
    pub adjusted: f64,
    /// `adjusted < α` and the means differ.
    pub significant: bool,
}

/// Every run other than `reference` tested against it, in run order,
/// p-values corrected across them.
pub fn against(
    m: &Matrix,
    reference: usize,
    test: Test,
    correction: Correction,
    alpha: f64,
) -> Vec<Comparison> {
    if reference >= m.runs {
        return Vec::new();
    }
    let base = m.row(reference);
    let others: Vec<usize> = (0..m.runs).filter(|&r| r != reference).collect();
    let raw: Vec<(f64, f64)> = crate::par_map(&others, |&r| {
        let row = m.row(r);
        let d = crate::sum::mean((0..m.queries).map(|q| row[q] - base[q])).unwrap_or(0.0);
        (d, p_value(test, base, row))
    });
    let p: Vec<f64> = raw.iter().map(|x| x.1).collect();
    let adjusted = stats::adjust(&p, correction);
    others
        .iter()
        .zip(raw)
        .zip(adjusted)
        .map(|((&run, (mean_diff, p)), adjusted)| Comparison {
            run,
            mean_diff,
            p,
            adjusted,
            significant: adjusted < alpha && mean_diff != 0.0,
        })
        .collect()
}

/// The tie group: the best run and every run not significantly worse.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TieGroup {
    pub best: usize,
    /// Each other run against the best.
    pub comparisons: Vec<Comparison>,
    /// Per run: in the group.
    pub members: Vec<bool>,
}

/// The best run's tie group under `test`, p-values corrected across the
/// runs − 1 comparisons (Holm: family-wise error; Benjamini–Hochberg: false
/// discovery rate) at `alpha`; `None` without runs.
pub fn tie_group(m: &Matrix, test: Test, correction: Correction, alpha: f64) -> Option<TieGroup> {
    let best = best(&means(m))?;
    let comparisons = against(m, best, test, correction, alpha);
    let mut members = vec![true; m.runs];
    for c in &comparisons {
        members[c.run] = !(c.significant && c.mean_diff < 0.0);
    }
    Some(TieGroup {
        best,
        comparisons,
        members,
    })
}

/// A run's rank and the ranks it could hold at 95%.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RankInterval {
    pub rank: usize,
    pub low: usize,
    pub high: usize,
}

/// Resamples computed together: each run's row is read once for all of them.
const TILE: usize = 8;
/// Queries per block: a block of a row and the tile's weights stay in cache.
const BLOCK: usize = 2048;
/// SplitMix64's increment: the generator's state after `k` draws is `seed + k · GAMMA`.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// `Σ x_i w_i` with eight running sums (vectorized).
fn dot(x: &[f64], w: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (xc, wc) = (x.chunks_exact(8), w.chunks_exact(8));
    let (xr, wr) = (xc.remainder(), wc.remainder());
    for (a, b) in xc.zip(wc) {
        for i in 0..8 {
            acc[i] += a[i] * b[i];
        }
    }
    let mut tail = 0.0;
    for (a, b) in xr.iter().zip(wr) {
        tail += a * b;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// The resampled sums of resamples `first..first + k` (k ≤ [`TILE`]):
/// `sums[r * TILE + j]` is run `r`'s weighted sum in resample `first + j`.
fn tile_sums(m: &Matrix, first: usize, k: usize, seed: u64) -> Vec<f64> {
    let n = m.queries;
    let mut weights = vec![0.0f64; TILE * n];
    for j in 0..k {
        let start = ((first + j) as u64)
            .wrapping_mul(n as u64)
            .wrapping_mul(GAMMA);
        let mut rng = SplitMix64::new(seed.wrapping_add(start));
        let w = &mut weights[j * n..(j + 1) * n];
        for _ in 0..n {
            w[rng.below(n)] += 1.0;
        }
    }
    let mut sums = vec![0.0f64; m.runs * TILE];
    let mut lo = 0;
    while lo < n {
        let hi = (lo + BLOCK).min(n);
        for r in 0..m.runs {
            let x = &m.row(r)[lo..hi];
            for j in 0..k {
                sums[r * TILE + j] += dot(x, &weights[j * n + lo..j * n + hi]);
            }
        }
        lo = hi;
    }
    sums
}

/// Each run's rank and its 95% rank interval from `resamples` paired
/// bootstrap resamples of the queries (see the module's doc); an interval
/// is the rank itself with no resample or no query.
pub fn rank_intervals(m: &Matrix, resamples: usize, seed: u64) -> Vec<RankInterval> {
    let observed = ranks(&means(m));
    if resamples == 0 || m.queries == 0 || m.runs == 0 {
        return observed
            .into_iter()
            .map(|rank| RankInterval {
                rank,
                low: rank,
                high: rank,
            })
            .collect();
    }
    // a histogram of each run's ranks per group of tiles (the percentiles by
    // counting), the groups added up: memory does not grow with `resamples`
    let tiles = resamples.div_ceil(TILE);
    let per = tiles.div_ceil(16);
    let groups: Vec<usize> = (0..tiles.div_ceil(per)).collect();
    let width = m.runs + 1;
    let hists: Vec<Vec<u32>> = crate::par_map(&groups, |&g| {
        let mut hist = vec![0u32; m.runs * width];
        let mut col = vec![0.0; m.runs];
        let mut sorted = vec![0.0; m.runs];
        for t in g * per..((g + 1) * per).min(tiles) {
            let first = t * TILE;
            let k = TILE.min(resamples - first);
            let sums = tile_sums(m, first, k, seed);
            for j in 0..k {
                for (r, c) in col.iter_mut().enumerate() {
                    *c = sums[r * TILE + j];
                }
                sorted.copy_from_slice(&col);
                sorted.sort_unstable_by(|a, b| b.total_cmp(a));
                for (r, &c) in col.iter().enumerate() {
                    hist[r * width + 1 + count_higher(&sorted, c)] += 1;
                }
            }
        }
        hist
    });
    let mut hist = vec![0usize; m.runs * width];
    for h in &hists {
        for (a, &b) in hist.iter_mut().zip(h) {
            *a += b as usize;
        }
    }
    let last = (resamples - 1) as f64;
    let (lo_at, hi_at) = (
        (0.025 * last).floor() as usize,
        (0.975 * last).ceil() as usize,
    );
    let nth = |h: &[usize], i: usize| {
        let mut seen = 0;
        for (rank, &c) in h.iter().enumerate() {
            seen += c;
            if seen > i {
                return rank;
            }
        }
        h.len() - 1
    };
    (0..m.runs)
        .map(|r| {
            let h = &hist[r * width..(r + 1) * width];
            RankInterval {
                rank: observed[r],
                low: nth(h, lo_at),
                high: nth(h, hi_at),
            }
        })
        .collect()
}

/// A leaderboard's settings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    pub test: Test,
    pub correction: Correction,
    pub alpha: f64,
    pub resamples: usize,
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            test: Test::T,
            correction: Correction::Holm,
            alpha: 0.05,
            resamples: 1_000,
            seed: 42,
        }
    }
}

/// One metric's column of a leaderboard.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Column {
    pub means: Vec<f64>,
    pub best: usize,
    pub ties: TieGroup,
    pub ranks: Vec<RankInterval>,
    /// Every run other than the baseline against it, if one was chosen.
    pub versus: Option<Vec<Comparison>>,
}

/// The column of one metric; `None` without runs.
pub fn column(m: &Matrix, s: &Settings, baseline: Option<usize>) -> Option<Column> {
    let means = means(m);
    let ties = tie_group(m, s.test, s.correction, s.alpha)?;
    Some(Column {
        best: ties.best,
        ranks: rank_intervals(m, s.resamples, s.seed),
        versus: baseline
            .filter(|&b| b < m.runs)
            .map(|b| against(m, b, s.test, s.correction, s.alpha)),
        means,
        ties,
    })
}

/// The heatmap's query order: hardest first (lowest mean over the runs),
/// equal ones in query order; and each query's mean over the runs.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Topics {
    pub order: Vec<usize>,
    pub difficulty: Vec<f64>,
}

pub fn topics(m: &Matrix) -> Topics {
    let difficulty: Vec<f64> = (0..m.queries)
        .map(|q| {
            crate::sum::mean((0..m.runs).map(|r| m.values[r * m.queries + q])).unwrap_or(f64::NAN)
        })
        .collect();
    let order = crate::order(m.queries, &|a, b| difficulty[a].total_cmp(&difficulty[b]));
    Topics { order, difficulty }
}

/// Each value minus the baseline's on the same query (run-major, as `m`).
pub fn differences(m: &Matrix, baseline: usize) -> Vec<f64> {
    let base = m.row(baseline);
    (0..m.runs)
        .flat_map(|r| m.row(r).iter().zip(base).map(|(x, b)| x - b))
        .collect()
}

/// A run on the history's time axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Dated<'a> {
    pub run: usize,
    /// ISO 8601: dates sort as text.
    pub date: &'a str,
    /// The series it belongs to (its tags, or its author).
    pub groups: Vec<&'a str>,
    pub value: f64,
}

/// A point of a history line.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Point {
    pub run: usize,
    pub date: String,
    pub value: f64,
    /// The highest value of the line up to this date.
    pub best_so_far: f64,
}

/// One line of the history: a group's runs by date (the line of every run
/// has the group `""`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Series {
    pub group: String,
    pub points: Vec<Point>,
}

/// The line of every run, then one per group (by name), each by date
/// (equal dates in run order), with its best-so-far.
pub fn history(runs: &[Dated]) -> Vec<Series> {
    let order = crate::order(runs.len(), &|a, b| {
        runs[a]
            .date
            .cmp(runs[b].date)
            .then(runs[a].run.cmp(&runs[b].run))
    });
    let line = |group: &str, keep: &dyn Fn(&Dated) -> bool| {
        let mut best = f64::NEG_INFINITY;
        let points = order
            .iter()
            .map(|&i| &runs[i])
            .filter(|d| keep(d))
            .map(|d| {
                if d.value > best {
                    best = d.value;
                }
                Point {
                    run: d.run,
                    date: d.date.to_string(),
                    value: d.value,
                    best_so_far: if best.is_finite() { best } else { f64::NAN },
                }
            })
            .collect();
        Series {
            group: group.to_string(),
            points,
        }
    };
    let mut groups: Vec<&str> = runs.iter().flat_map(|d| d.groups.iter().copied()).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut out = vec![line("", &|_| true)];
    for g in groups {
        out.push(line(g, &|d: &Dated| d.groups.contains(&g)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made-up values: `runs` runs, run `r` shifted up by `r · step`.
    fn made_up(runs: usize, queries: usize, step: f64, seed: u64) -> Vec<f64> {
        let mut next = crate::xorshift(seed);
        (0..runs * queries)
            .map(|i| {
                let noise = (next() >> 11) as f64 / (1u64 << 53) as f64;
                (0.3 * noise + step * (i / queries) as f64).min(1.0)
            })
            .collect()
    }

    #[test]
    fn ranks_share_the_better_rank_on_ties() {
        assert_eq!(ranks(&[0.5, 0.7, 0.5, 0.2]), [2, 1, 2, 4]);
        assert_eq!(ranks(&[0.3, 0.3 + 1e-17, 0.1]), [1, 1, 3]);
        assert_eq!(best(&[0.5, 0.7, 0.7]), Some(1));
        assert_eq!(best(&[]), None);
    }

    #[test]
    fn p_values_follow_scipy_where_it_is_undefined() {
        let a = [0.1, 0.2, 0.3];
        assert_eq!(p_value(Test::T, &a, &a), 1.0);
        assert_eq!(p_value(Test::Wilcoxon, &a, &a), 1.0);
        assert_eq!(p_value(Test::Sign, &a, &a), 1.0);
        assert_eq!(
            p_value(Test::T, &[0.5, 0.25, 0.75], &[1.0, 0.75, 1.25]),
            0.0
        );
        // scipy 1.17: ttest_rel([0.25, 0.45, 0.52, 0.40, 0.71, 0.39, 0.57], a)
        let a = [0.2, 0.35, 0.5, 0.41, 0.6, 0.33, 0.48];
        let b = [0.25, 0.45, 0.52, 0.40, 0.71, 0.39, 0.57];
        assert!((p_value(Test::T, &a, &b) - 0.011226502400368283).abs() < 1e-9);
    }

    #[test]
    fn a_clear_winner_stands_alone_and_close_runs_tie() {
        // 4 runs: 0 and 1 far below, 2 and 3 indistinguishable at the top
        let q = 200;
        let mut v = made_up(4, q, 0.0, 7);
        for x in &mut v[2 * q..] {
            *x += 0.3;
        }
        for i in 0..q {
            v[3 * q + i] = v[2 * q + i] + if i % 2 == 0 { 0.001 } else { -0.001 };
        }
        let m = Matrix::new(4, q, &v).unwrap();
        let g = tie_group(&m, Test::T, Correction::Holm, 0.05).unwrap();
        assert_eq!(g.members, [false, false, true, true]);
        assert_eq!(g.comparisons.len(), 3);
        let r = rank_intervals(&m, 200, 1);
        assert_eq!((r[2].low, r[3].low), (1, 1));
        assert!(r[0].low >= 3 && r[1].low >= 3 && r[0].high == 4);
    }

    #[test]
    fn resamples_are_independent_of_tiles_and_threads() {
        // resample b's counts drawn from the generator at its b·n-th draw:
        // the same as drawing every resample one after another
        let (runs, n) = (3, 37);
        let v = made_up(runs, n, 0.01, 3);
        let m = Matrix::new(runs, n, &v).unwrap();
        let mut rng = SplitMix64::new(9);
        for b in 0..20 {
            let mut w = vec![0.0; n];
            for _ in 0..n {
                w[rng.below(n)] += 1.0;
            }
            let sums = tile_sums(&m, b, 1, 9);
            for r in 0..runs {
                let want: f64 = m.row(r).iter().zip(&w).map(|(x, c)| x * c).sum();
                assert!(
                    (sums[r * TILE] - want).abs() < 1e-12,
                    "resample {b} run {r}"
                );
            }
        }
    }

    #[test]
    fn intervals_hold_the_rank_and_are_reproducible() {
        let v = made_up(12, 300, 0.004, 11);
        let m = Matrix::new(12, 300, &v).unwrap();
        let a = rank_intervals(&m, 333, 5);
        assert_eq!(a, rank_intervals(&m, 333, 5));
        assert_ne!(a, rank_intervals(&m, 333, 6));
        for r in &a {
            assert!(r.low <= r.rank && r.rank <= r.high, "{r:?}");
        }
        // with no resample, the rank itself
        assert!(rank_intervals(&m, 0, 5)
            .iter()
            .all(|r| r.low == r.rank && r.high == r.rank));
    }

    #[test]
    fn marks_against_a_baseline() {
        let q = 100;
        let mut v = made_up(3, q, 0.0, 5);
        for x in &mut v[2 * q..] {
            *x += 0.2;
        }
        let m = Matrix::new(3, q, &v).unwrap();
        let c = column(&m, &Settings::default(), Some(0)).unwrap();
        let vs = c.versus.unwrap();
        assert_eq!(vs.iter().map(|c| c.run).collect::<Vec<_>>(), [1, 2]);
        assert!(vs[1].significant && vs[1].mean_diff > 0.19);
        assert_eq!(c.best, 2);
        assert_eq!(c.ties.members, [false, false, true]);
        // a reference that is not a run: nothing to compare (no panic)
        assert!(against(&m, 3, Test::T, Correction::Holm, 0.05).is_empty());
    }

    #[test]
    fn topics_hardest_first_and_differences() {
        let v = [0.1, 0.9, 0.5, 0.3, 0.7, 0.5];
        let m = Matrix::new(2, 3, &v).unwrap();
        let t = topics(&m);
        assert_eq!(t.order, [0, 2, 1]);
        assert_eq!(t.difficulty, [0.2, 0.8, 0.5]);
        let d = differences(&m, 0);
        assert_eq!(d[..3], [0.0, 0.0, 0.0]);
        assert!((d[3] - 0.2).abs() < 1e-15 && (d[4] + 0.2).abs() < 1e-15 && d[5] == 0.0);
    }

    #[test]
    fn history_lines_by_date_with_the_best_so_far() {
        let runs = [
            Dated {
                run: 0,
                date: "2026-02-01",
                groups: vec!["bm25"],
                value: 0.3,
            },
            Dated {
                run: 1,
                date: "2026-01-01",
                groups: vec!["dense"],
                value: 0.4,
            },
            Dated {
                run: 2,
                date: "2026-03-01",
                groups: vec!["bm25", "dense"],
                value: 0.35,
            },
        ];
        let h = history(&runs);
        assert_eq!(
            h.iter().map(|s| s.group.as_str()).collect::<Vec<_>>(),
            ["", "bm25", "dense"]
        );
        let all: Vec<(usize, f64)> = h[0].points.iter().map(|p| (p.run, p.best_so_far)).collect();
        assert_eq!(all, [(1, 0.4), (0, 0.4), (2, 0.4)]);
        let bm25: Vec<(usize, f64)> = h[1].points.iter().map(|p| (p.run, p.best_so_far)).collect();
        assert_eq!(bm25, [(0, 0.3), (2, 0.35)]);
    }
}
