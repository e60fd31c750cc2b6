//! Rating prediction (seed 001): error metrics, rank correlation and FCP.

use super::ids::Interner;
use super::ranking_metrics::agreement;
use super::sum::Sum;

/// Ratings with one prediction column per model.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RatingsData {
    pub users: Interner,
    pub items: Interner,
    #[serde(with = "crate::raw")]
    pub user: Vec<u32>,
    #[serde(with = "crate::raw")]
    pub item: Vec<u32>,
    #[serde(with = "crate::raw")]
    pub rating: Vec<f64>,
    #[serde(with = "crate::raw::named")]
    pub models: Vec<(String, Vec<f64>)>,
}

/// Ratings and one model's predictions, row-aligned.
#[derive(Clone, Debug, Default)]
pub struct RatingsColumns<'a> {
    pub users: &'a [u32],
    pub items: &'a [u32],
    pub ratings: &'a [f64],
    pub predictions: &'a [f64],
}

/// MAE = Σ|P - R| / n.
///
/// # Examples
///
/// ```
/// use rankscope_core::ratings::mae;
///
/// let ratings = [4.0, 3.0, 5.0, 2.0];
/// let predictions = [3.5, 3.0, 4.0, 2.5];
/// // scikit-learn 1.9: mean_absolute_error; (0.5 + 0 + 1 + 0.5) / 4
/// assert_eq!(mae(&ratings, &predictions), 0.5);
/// ```
pub fn mae(r: &[f64], p: &[f64]) -> f64 {
    let mut s = Sum::new();
    for (a, b) in r.iter().zip(p) {
        s.add((b - a).abs());
    }
    s.value() / r.len().max(1) as f64
}

/// MSE = Σ(P - R)² / n.
///
/// # Examples
///
/// ```
/// use rankscope_core::ratings::mse;
///
/// let ratings = [4.0, 3.0, 5.0, 2.0];
/// let predictions = [3.5, 3.0, 4.0, 2.5];
/// // scikit-learn 1.9: mean_squared_error; (0.25 + 0 + 1 + 0.25) / 4
/// assert_eq!(mse(&ratings, &predictions), 0.375);
/// ```
pub fn mse(r: &[f64], p: &[f64]) -> f64 {
    let mut s = Sum::new();
    for (a, b) in r.iter().zip(p) {
        s.add((b - a) * (b - a));
    }
    s.value() / r.len().max(1) as f64
}

/// RMSE = sqrt(MSE).
///
/// # Examples
///
/// ```
/// use rankscope_core::ratings::rmse;
///
/// let ratings = [4.0, 3.0, 5.0, 2.0];
/// let predictions = [3.5, 3.0, 4.0, 2.5];
/// // scikit-learn 1.9: root_mean_squared_error
/// assert!((rmse(&ratings, &predictions) - 0.6123724356957945).abs() < 1e-15);
/// ```
pub fn rmse(r: &[f64], p: &[f64]) -> f64 {
    mse(r, p).sqrt()
}

/// Row indices grouped by a dense key (user or item), in key order.
pub fn group_rows(keys: &[u32]) -> Vec<Vec<usize>> {
    let n = keys.iter().map(|&k| k as usize + 1).max().unwrap_or(0);
    let mut groups = vec![Vec::new(); n];
    for (i, &k) in keys.iter().enumerate() {
        groups[k as usize].push(i);
    }
    groups
}

/// RMSE of every group (user or item) with at least one row, in key order.
pub fn rmse_per_group(keys: &[u32], r: &[f64], p: &[f64]) -> Vec<(u32, f64)> {
    group_rows(keys)
        .into_iter()
        .enumerate()
        .filter(|(_, rows)| !rows.is_empty())
        .map(|(k, rows)| {
            let mut s = Sum::new();
            for &i in &rows {
                s.add((p[i] - r[i]) * (p[i] - r[i]));
            }
            (k as u32, (s.value() / rows.len() as f64).sqrt())
        })
        .collect()
}

/// Spearman of every user with a defined correlation (>= 2 rows, neither side constant).
pub fn spearman_per_group(keys: &[u32], r: &[f64], p: &[f64]) -> Vec<(u32, f64)> {
    group_rows(keys)
        .into_iter()
        .enumerate()
        .filter_map(|(k, rows)| {
            let a: Vec<f64> = rows.iter().map(|&i| r[i]).collect();
            let b: Vec<f64> = rows.iter().map(|&i| p[i]).collect();
            agreement::spearman(&a, &b).map(|v| (k as u32, v))
        })
        .collect()
}

/// Koren's FCP: per user, concordant and discordant item pairs (a tie in the
/// rating or in the prediction counts as neither); FCP = Σ nc / Σ (nc + nd).
/// Returns (fcp, per-user (user, nc, nd)). `None` if there is no comparable pair.
///
/// # Examples
///
/// ```
/// use rankscope_core::ratings::fcp;
///
/// let users = [0, 0, 0, 1, 1];
/// let ratings = [5.0, 3.0, 1.0, 4.0, 2.0];
/// let predictions = [4.5, 2.0, 3.0, 3.0, 3.0];
/// // user 0: items (0, 1) and (0, 2) in the ratings' order, (1, 2) not;
/// // user 1: its two predictions are equal, neither
/// let (value, per_user) = fcp(&users, &ratings, &predictions);
/// assert_eq!(value, Some(2.0 / 3.0));
/// assert_eq!(per_user, vec![(0, 2, 1), (1, 0, 0)]);
/// ```
pub fn fcp(users: &[u32], r: &[f64], p: &[f64]) -> (Option<f64>, Vec<(u32, u64, u64)>) {
    let mut per_user = Vec::new();
    let (mut nc, mut nd) = (0u64, 0u64);
    for (u, rows) in group_rows(users).into_iter().enumerate() {
        if rows.len() < 2 {
            if !rows.is_empty() {
                per_user.push((u as u32, 0, 0));
            }
            continue;
        }
        let preds: Vec<f64> = rows.iter().map(|&i| p[i]).collect();
        // grade order from ratings: map ratings to their rank among distinct values
        let mut distinct: Vec<f64> =
            crate::order(rows.len(), &|a, b| r[rows[a]].total_cmp(&r[rows[b]]))
                .into_iter()
                .map(|a| r[rows[a]])
                .collect();
        distinct.dedup();
        let grades: Vec<i32> = rows
            .iter()
            .map(|&i| distinct.partition_point(|&d| d < r[i]) as i32)
            .collect();
        let (c, d) = agreement::concordance(&preds, &grades);
        nc += c;
        nd += d;
        per_user.push((u as u32, c, d));
    }
    let value = (nc + nd > 0).then(|| nc as f64 / (nc + nd) as f64);
    (value, per_user)
}

/// Counts of `values` in `bins` equal-width bins over [lo, hi] (values outside
/// are clamped into the end bins; the last bin includes `hi`).
pub fn histogram(values: impl Iterator<Item = f64>, lo: f64, hi: f64, bins: usize) -> Vec<usize> {
    let bins = bins.max(1);
    let mut out = vec![0usize; bins];
    let width = (hi - lo) / bins as f64;
    for v in values {
        let i = if width > 0.0 {
            ((v - lo) / width).floor()
        } else {
            0.0
        };
        out[(i.max(0.0) as usize).min(bins - 1)] += 1;
    }

    out
}

/// The predicted-vs-actual scatter binned into an `n` x `n` grid over
/// [lo, hi]^2: `grid[y * n + x]` counts rows with actual in column x and
/// prediction in row y (row 0 = lowest prediction). Bounded size for any data.
pub fn scatter_grid(actual: &[f64], predicted: &[f64], lo: f64, hi: f64, n: usize) -> Vec<usize> {
    let n = n.max(1);
    let mut grid = vec![0usize; n * n];
    let width = (hi - lo) / n as f64;
    let cell = |v: f64| {
        let i = if width > 0.0 {
            ((v - lo) / width).floor()
        } else {
            0.0
        };
        (i.max(0.0) as usize).min(n - 1)
    };
    for (&a, &p) in actual.iter().zip(predicted) {
        grid[cell(p) * n + cell(a)] += 1;
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_and_grids_count_every_row_once() {
        let h = histogram(
            [0.0, 0.5, 0.99, 1.0, 2.0, -3.0, 9.0].into_iter(),
            0.0,
            2.0,
            2,
        );
        assert_eq!(h, vec![4, 3]);
        let g = scatter_grid(&[1.0, 5.0, 5.0, 3.0], &[1.0, 1.0, 5.0, 3.2], 1.0, 5.0, 2);
        // actual 1 pred 1 -> (0,0); actual 5 pred 1 -> x1 y0; (5,5) -> x1 y1; (3,3.2) -> x1 y1
        assert_eq!(g, vec![1, 1, 0, 2]);
        assert_eq!(g.iter().sum::<usize>(), 4);
    }

    #[test]
    fn probe_fcp_koren() {
        // user0 r=[1,2,3] p=[1,1,2]; user1 r=[1,2,3] p=[3,2,1] -> 2 / (2 + 3)
        let users = [0, 0, 0, 1, 1, 1];
        let r = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0];
        let p = [1.0, 1.0, 2.0, 3.0, 2.0, 1.0];
        assert_eq!(fcp(&users, &r, &p).0, Some(0.4));
    }

    #[test]
    fn error_metrics() {
        let r = [1.0, 2.0, 3.0];
        let p = [2.0, 2.0, 1.0];
        assert_eq!(mae(&r, &p), 1.0);
        assert!((mse(&r, &p) - 5.0 / 3.0).abs() < 1e-15);
    }
}
