//! The leaderboard page's logic, apart from the page (native, tested without
//! a browser): a catalog's runs × queries × metrics as [`Board`], the
//! table's filter and order, the best run per column, the heatmap's query
//! order, the history chart's lines, and the links the page writes (a
//! catalog's URLs relative to the app, the dashboard on a run's files).

use crate::core::registry::{self, Kind};
use crate::plot::{LineChart, Series};

/// One run of a catalog, as the page shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    pub name: String,
    /// ISO date (`2026-03-01`, or with a time); empty when the manifest has none.
    pub date: String,
    pub author: String,
    pub description: String,
    pub tags: Vec<String>,
    /// Free metadata, as `key = value` text.
    pub meta: Vec<(String, String)>,
    /// The run's file and its judgments, as URLs (resolved against the
    /// manifest's), when the catalog names them: the dashboard can open them.
    pub file: Option<String>,
    pub qrels: Option<String>,
}

/// A catalog's per-query values: every run × query × metric, run-major per
/// metric (`values[m][r * queries[m].len() + q]`). Each metric has its own
/// queries: those every run has a value for (`catalog::metric_matrix`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    pub runs: Vec<Run>,
    pub metrics: Vec<String>,
    pub queries: Vec<Vec<String>>,
    pub values: Vec<Vec<f64>>,
    /// Each metric's means, once [`Board::keep_means`] computed them.
    pub kept_means: Vec<Vec<f64>>,
}

impl Board {
    /// Run `r`'s per-query values of metric `m`.
    pub fn row(&self, m: usize, r: usize) -> &[f64] {
        let n = self.queries.get(m).map_or(0, Vec::len);
        self.values
            .get(m)
            .and_then(|v| v.get(r * n..(r + 1) * n))
            .unwrap_or(&[])
    }

    /// Computes every metric's means once (the table, its order and the
    /// history read them at every change).
    pub fn keep_means(&mut self) {
        self.kept_means = Vec::new();
        self.kept_means = (0..self.metrics.len()).map(|m| self.means(m)).collect();
    }

    /// Each run's mean of metric `m` over the queries it has a value for
    /// (compensated sum, as every mean of the core).
    pub fn means(&self, m: usize) -> Vec<f64> {
        if let Some(kept) = self.kept_means.get(m) {
            return kept.clone();
        }
        (0..self.runs.len())
            .map(|r| {
                let row = self.row(m, r);
                crate::core::sum::mean(row.iter().copied().filter(|v| v.is_finite()))
                    .unwrap_or(f64::NAN)
            })
            .collect()
    }

    /// Whether a larger value of metric `m` is better.
    pub fn higher_is_better(&self, m: usize) -> bool {
        self.metrics
            .get(m)
            .is_none_or(|c| registry::higher_is_better(c, Kind::Ranking))
    }
}

/// Metric `metric`'s runs × queries matrix over the queries every run has
/// a value for: [`crate::catalog::metric_matrix`]'s queries, values and
/// number of queries left out, with a fast path for runs that share one
/// query list of distinct ids (a catalog built at once: no lookup by id).
/// `None` when a run lacks the metric.
pub fn matrix(
    runs: &[&crate::catalog::RunValues],
    metric: &str,
) -> Option<(Vec<String>, Vec<f64>, usize)> {
    let first = runs.first();
    let distinct =
        |q: &[String]| q.iter().collect::<std::collections::HashSet<_>>().len() == q.len();
    if !first.is_some_and(|f| runs.iter().all(|r| r.queries == f.queries) && distinct(&f.queries)) {
        let m = crate::catalog::metric_matrix(runs, metric)?;
        return Some((m.queries, m.values, m.dropped));
    }
    let columns: Vec<&[f64]> = runs
        .iter()
        .map(|r| r.metric(metric))
        .collect::<Option<_>>()?;
    let queries = &first?.queries;
    let kept: Vec<usize> = (0..queries.len())
        .filter(|&q| columns.iter().all(|c| !c[q].is_nan()))
        .collect();
    let mut values = Vec::with_capacity(runs.len() * kept.len());
    for c in &columns {
        values.extend(kept.iter().map(|&q| c[q]));
    }
    let dropped = queries.len() - kept.len();
    Some((
        kept.iter().map(|&q| queries[q].clone()).collect(),
        values,
        dropped,
    ))
}

/// The table's filter: words that must all hold. `tag:x`, `author:x`,
/// `date>=2026-01`, `date<=2026-06`, `key=value` (metadata), and plain words
/// found in a run's name, description, tags, author or metadata (case ignored).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter(pub String);

impl Filter {
    /// Whether `run` passes every word.
    pub fn keeps(&self, run: &Run) -> bool {
        let low = |s: &str| s.to_lowercase();
        self.0.split_whitespace().all(|word| {
            let w = low(word);
            if let Some(tag) = w.strip_prefix("tag:") {
                return run.tags.iter().any(|t| low(t) == tag);
            }
            if let Some(a) = w.strip_prefix("author:") {
                return low(&run.author).contains(a);
            }
            if let Some(d) = w.strip_prefix("date>=") {
                return !run.date.is_empty() && run.date.as_str() >= d;
            }
            if let Some(d) = w.strip_prefix("date<=") {
                // a day's bound keeps that day's times too
                return !run.date.is_empty() && run.date.get(..d.len()).unwrap_or(&run.date) <= d;
            }
            if let Some((k, v)) = w.split_once('=') {
                return run.meta.iter().any(|(mk, mv)| low(mk) == k && low(mv) == v);
            }
            let text = [&run.name, &run.description, &run.author].map(|s| low(s));
            let mut meta = run.meta.iter().map(|(k, v)| low(&format!("{k}={v}")));
            text.iter().any(|t| t.contains(&w))
                || run.tags.iter().any(|t| low(t).contains(&w))
                || meta.any(|t| t.contains(&w))
        })
    }
}

/// What the table is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// The catalog's order.
    Catalog,
    Name,
    Date,
    /// Metric `m`'s mean, best first.
    Metric(usize),
}

/// The runs `filter` keeps, in `sort`'s order (`descending` reverses it;
/// NaN means last either way; ties keep the catalog's order).
pub fn rows(board: &Board, filter: &Filter, sort: Sort, descending: bool) -> Vec<usize> {
    let mut kept: Vec<usize> = (0..board.runs.len())
        .filter(|&r| filter.keeps(&board.runs[r]))
        .collect();
    match sort {
        Sort::Catalog => {}
        Sort::Name => kept.sort_by(|&a, &b| board.runs[a].name.cmp(&board.runs[b].name)),
        Sort::Date => kept.sort_by(|&a, &b| board.runs[a].date.cmp(&board.runs[b].date)),
        Sort::Metric(m) => {
            let means = board.means(m);
            let up = !board.higher_is_better(m);
            kept.sort_by(|&a, &b| better_first(means[a], means[b], up));
        }
    }
    if descending {
        kept.reverse();
        if let Sort::Metric(m) = sort {
            // NaN stays last
            let means = board.means(m);
            kept.sort_by_key(|&r| means[r].is_nan());
        }
    }
    kept
}

/// Orders two means best first (`lower`: smaller is better), NaN last.
fn better_first(a: f64, b: f64, lower: bool) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ if lower => a.total_cmp(&b),
        _ => b.total_cmp(&a),
    }
}

/// The best run among `rows` per metric (by mean; `None` when fewer than two
/// runs or no finite mean).
pub fn best(board: &Board, rows: &[usize]) -> Vec<Option<usize>> {
    (0..board.metrics.len())
        .map(|m| {
            if rows.len() < 2 {
                return None;
            }
            let means = board.means(m);
            let lower = !board.higher_is_better(m);
            rows.iter()
                .copied()
                .filter(|&r| means[r].is_finite())
                .min_by(|&a, &b| better_first(means[a], means[b], lower).then(a.cmp(&b)))
        })
        .collect()
}

/// How the heatmap orders its query columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryOrder {
    /// The catalog's order.
    Catalog,
    /// Hardest first: the lowest mean over `rows` of the metric first (for a
    /// metric where lower is better, the highest).
    Difficulty,
    /// Where the runs disagree most first: the largest spread (max − min)
    /// over `rows` first, the topics that separate the runs.
    Spread,
}

/// The query columns of the heatmap of metric `m` over `rows`, in `order`.
/// Ties keep the catalog's order.
pub fn query_order(board: &Board, m: usize, rows: &[usize], order: QueryOrder) -> Vec<usize> {
    let n = board.queries.get(m).map_or(0, Vec::len);
    let mut cols: Vec<usize> = (0..n).collect();
    if order == QueryOrder::Catalog || rows.is_empty() {
        return cols;
    }
    let lower = !board.higher_is_better(m);
    let key: Vec<f64> = (0..n)
        .map(|q| {
            let vals = rows
                .iter()
                .map(|&r| board.row(m, r).get(q).copied().unwrap_or(f64::NAN))
                .filter(|v| v.is_finite());
            let vals: Vec<f64> = vals.collect();
            if vals.is_empty() {
                return f64::NAN;
            }
            match order {
                QueryOrder::Difficulty => {
                    let mean = crate::core::sum::mean(vals.iter().copied()).unwrap_or(f64::NAN);
                    if lower {
                        -mean
                    } else {
                        mean
                    }
                }
                _ => {
                    let (lo, hi) = vals
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                            (l.min(v), h.max(v))
                        });
                    lo - hi
                }
            }
        })
        .collect();
    // ascending key (NaN last): hardest, or widest spread, first
    cols.sort_by(|&a, &b| better_first(key[a], key[b], true));
    cols
}

/// Which lines the history chart draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryBy {
    Tag,
    Author,
}

/// The history of metric `m` over the dated runs among `rows`: one line per
/// tag (a run with several tags on each of its tags' lines; untagged runs on
/// "untagged") or per author, and the best-so-far line over all of them.
/// x is the run's date as days since 1970-01-01 (UTC, time of day as a
/// fraction) after the first run's day, y its mean. Runs without a readable
/// date are left out.
pub fn history(board: &Board, m: usize, rows: &[usize], by: HistoryBy) -> LineChart {
    let means = board.means(m);
    let lower = !board.higher_is_better(m);
    let mut dated: Vec<(f64, usize)> = rows
        .iter()
        .filter_map(|&r| Some((days(&board.runs[r].date)?, r)))
        .filter(|&(_, r)| means[r].is_finite())
        .collect();
    dated.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // days after the first run's day (the axis reads 0, 30, 60, not 20,454)
    let day0 = dated.first().map_or(0.0, |d| d.0.floor());
    for d in &mut dated {
        d.0 -= day0;
    }
    let mut groups: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for &(x, r) in &dated {
        let run = &board.runs[r];
        let keys: Vec<String> = match by {
            HistoryBy::Author if run.author.is_empty() => vec!["no author".into()],
            HistoryBy::Author => vec![run.author.clone()],
            HistoryBy::Tag if run.tags.is_empty() => vec!["untagged".into()],
            HistoryBy::Tag => run.tags.clone(),
        };
        for key in keys {
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g.1.push((x, means[r])),
                None => groups.push((key, vec![(x, means[r])])),
            }
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let mut series: Vec<Series> = (groups.into_iter().enumerate())
        .map(|(i, (name, points))| Series::line(name, i + 1, points.into()))
        .collect();
    let mut best: Vec<(f64, f64)> = Vec::new();
    for &(x, r) in &dated {
        let v = means[r];
        let so_far = best.last().map(|p| p.1);
        let next = match so_far {
            Some(b) if (lower && b <= v) || (!lower && b >= v) => b,
            _ => v,
        };
        best.push((x, next));
    }
    let metric = board.metrics.get(m).cloned().unwrap_or_default();
    if !best.is_empty() {
        let mut line = Series::line("best so far".into(), 0, best.into());
        line.steps = true;
        series.insert(0, line);
    }
    let xs = dated.iter().map(|d| d.0);
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
        (l.min(x), h.max(x))
    });
    let ys = dated.iter().map(|d| means[d.1]);
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), y| {
        (l.min(y), h.max(y))
    });
    let pad = |lo: f64, hi: f64, by: f64| {
        if !lo.is_finite() {
            (0.0, 1.0)
        } else if hi - lo < 1e-12 {
            (lo - by, hi + by)
        } else {
            (lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.05)
        }
    };
    LineChart {
        title: format!("{metric} over time"),
        x_label: format!("days since {}", day_label(day0)),
        y_label: metric,
        x_range: pad(x0, x1, 1.0),
        y_range: pad(y0, y1, 0.01),
        series,
        bands: vec![],
        markers: vec![],
        diagonal: false,
        ink: (0, 0, 0),
    }
}

/// Days since 1970-01-01 of an ISO date (`YYYY-MM-DD`, optionally followed
/// by `THH:MM[:SS]`, read as UTC); `None` for anything else.
pub fn days(date: &str) -> Option<f64> {
    let (day, time) = match date.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (date, None),
    };
    let mut parts = day.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let mo: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    // days from civil (Howard Hinnant's algorithm)
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let mut out = (era * 146097 + doe - 719468) as f64;
    if let Some(t) = time {
        let t = t.trim_end_matches('Z');
        let mut hms = t.split(':').map(|p| p.parse::<f64>().ok());
        let h = hms.next().flatten()?;
        let mi = hms.next().flatten().unwrap_or(0.0);
        let s = hms.next().flatten().unwrap_or(0.0);
        out += (h * 3600.0 + mi * 60.0 + s) / 86400.0;
    }
    Some(out)
}

/// The ISO day of `days` since 1970-01-01 (the history chart's x labels).
pub fn day_label(days: f64) -> String {
    if !days.is_finite() {
        return String::new();
    }
    let z = days.floor() as i64 + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `url` (as a link or the manifest gives it) resolved against `base` (an
/// absolute URL ending in `/` or naming a file): absolute URLs as they are,
/// `/path` on `base`'s origin, anything else relative to `base`'s folder,
/// `.` and `..` segments resolved. Only `http:`/`https:` results are
/// returned (a link cannot make the page read another scheme).
pub fn resolve(base: &str, url: &str) -> Option<String> {
    let scheme_ok = |u: &str| u.starts_with("http://") || u.starts_with("https://");
    if url.contains("://") || url.starts_with("data:") || url.starts_with("javascript:") {
        return scheme_ok(url).then(|| url.to_string());
    }
    if !scheme_ok(base) {
        return None;
    }
    let after = base.find("://")? + 3;
    let origin_end = base[after..].find('/').map_or(base.len(), |i| after + i);
    let origin = &base[..origin_end];
    if let Some(rest) = url.strip_prefix("//") {
        return Some(format!("{}//{rest}", &base[..after - 2]));
    }
    let path = &base[origin_end..];
    let path = path.split(['?', '#']).next().unwrap_or("");
    let (url_path, tail) = match url.find(['?', '#']) {
        Some(i) => (&url[..i], &url[i..]),
        None => (url, ""),
    };
    let mut segments: Vec<&str> = if url_path.starts_with('/') {
        Vec::new()
    } else {
        let dir = path.rsplit_once('/').map_or("", |p| p.0);
        dir.split('/').filter(|s| !s.is_empty()).collect()
    };
    let parts: Vec<&str> = url_path.split('/').collect();
    for (i, seg) in parts.iter().enumerate() {
        match *seg {
            "" | "." => {
                if i + 1 == parts.len() {
                    segments.push("");
                }
            }
            ".." => {
                segments.pop();
                if i + 1 == parts.len() {
                    segments.push("");
                }
            }
            s => segments.push(s),
        }
    }
    Some(format!("{origin}/{}{tail}", segments.join("/")))
}

/// The dashboard's address on runs' files and their judgments (`app`: the
/// app's folder URL, ending in `/`; the file URLs as given, made relative to
/// nothing: the dashboard resolves them as it reads them) with `fragment`.
pub fn dashboard_link(app: &str, qrels: Option<&str>, runs: &[&str], fragment: &str) -> String {
    let mut query: Vec<String> = Vec::new();
    if let Some(q) = qrels {
        query.push(format!("qrels={}", crate::session::percent_encode(q)));
    }
    for r in runs {
        query.push(format!("run={}", crate::session::percent_encode(r)));
    }
    let mut link = format!("{app}index.html?{}", query.join("&"));
    if !fragment.is_empty() {
        link.push('#');
        link.push_str(fragment);
    }
    link
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board() -> Board {
        let run = |name: &str, date: &str, author: &str, tags: &[&str]| Run {
            name: name.into(),
            date: date.into(),
            author: author.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            meta: vec![("model".into(), format!("{name}-m"))],
            ..Run::default()
        };
        Board {
            runs: vec![
                run("bm25", "2026-01-05", "ana", &["lexical"]),
                run("dense", "2026-02-01", "bo", &["neural"]),
                run("hybrid", "2026-03-10T12:00", "ana", &["neural", "lexical"]),
                run("nodate", "", "bo", &[]),
            ],
            metrics: vec!["ndcg@10".into(), "map".into()],
            queries: vec![vec!["q1".into(), "q2".into(), "q3".into()]; 2],
            values: vec![
                vec![
                    0.1,
                    0.5,
                    0.9,
                    0.2,
                    0.6,
                    0.9,
                    0.3,
                    0.7,
                    0.95,
                    0.0,
                    0.1,
                    f64::NAN,
                ],
                vec![0.4, 0.4, 0.4, 0.1, 0.1, 0.1, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2],
            ],
            kept_means: vec![],
        }
    }

    #[test]
    fn means_skip_missing_values() {
        let mut b = board();
        let m = b.means(0);
        assert!((m[0] - 0.5).abs() < 1e-15);
        assert!((m[3] - 0.05).abs() < 1e-15, "{m:?}");
        b.keep_means();
        assert_eq!(b.means(0), m);
        assert_eq!(b.kept_means.len(), 2);
    }

    #[test]
    fn filter_words() {
        let b = board();
        let keep = |f: &str| rows(&b, &Filter(f.into()), Sort::Catalog, false);
        assert_eq!(keep(""), vec![0, 1, 2, 3]);
        assert_eq!(keep("tag:neural"), vec![1, 2]);
        assert_eq!(keep("author:ana tag:neural"), vec![2]);
        assert_eq!(keep("date>=2026-02-01"), vec![1, 2]);
        assert_eq!(keep("date<=2026-03-10"), vec![0, 1, 2]);
        assert_eq!(keep("date<=2026-03-09"), vec![0, 1]);
        assert_eq!(keep("model=dense-m"), vec![1]);
        assert_eq!(keep("HYB"), vec![2]);
        assert_eq!(keep("lexical"), vec![0, 2]);
    }

    #[test]
    fn sorts_and_best() {
        let b = board();
        let all = Filter::default();
        assert_eq!(rows(&b, &all, Sort::Metric(0), false), vec![2, 1, 0, 3]);
        assert_eq!(rows(&b, &all, Sort::Metric(0), true), vec![3, 0, 1, 2]);
        assert_eq!(rows(&b, &all, Sort::Name, false), vec![0, 1, 2, 3]);
        assert_eq!(rows(&b, &all, Sort::Date, false), vec![3, 0, 1, 2]);
        assert_eq!(best(&b, &[0, 1, 2, 3]), vec![Some(2), Some(0)]);
        assert_eq!(best(&b, &[1, 3]), vec![Some(1), Some(3)]);
        assert_eq!(best(&b, &[1]), vec![None, None]);
    }

    #[test]
    fn query_orders() {
        let b = board();
        let all = [0, 1, 2, 3];
        assert_eq!(query_order(&b, 0, &all, QueryOrder::Catalog), vec![0, 1, 2]);
        // means over runs: q1 0.15, q2 0.475, q3 0.9167 (NaN skipped)
        assert_eq!(
            query_order(&b, 0, &all, QueryOrder::Difficulty),
            vec![0, 1, 2]
        );
        // spreads: q1 0.3, q2 0.6, q3 0.05
        assert_eq!(query_order(&b, 0, &all, QueryOrder::Spread), vec![1, 0, 2]);
    }

    #[test]
    fn history_lines_and_best_so_far() {
        let b = board();
        let chart = history(&b, 0, &[0, 1, 2, 3], HistoryBy::Tag);
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["best so far", "lexical", "neural"]);
        let d = |s: &str| days(s).unwrap();
        let best: Vec<(f64, f64)> = chart.series[0].points.to_vec();
        assert_eq!(best.len(), 3);
        assert_eq!(best[0].0, 0.0);
        assert_eq!(best[1].0, d("2026-02-01") - d("2026-01-05"));
        assert_eq!(chart.x_label, "days since 2026-01-05");
        assert!((best[2].1 - 0.65).abs() < 1e-12);
        assert_eq!(chart.series[1].points.len(), 2); // bm25, hybrid
        let by_author = history(&b, 1, &[0, 1, 2], HistoryBy::Author);
        // map: bm25 0.4, dense 0.1, hybrid 0.3 → best so far stays 0.4
        assert!(by_author.series[0]
            .points
            .iter()
            .all(|p| (p.1 - 0.4).abs() < 1e-12));
    }

    #[test]
    fn matrices_as_the_catalog_s() {
        use crate::catalog::{metric_matrix, RunValues};
        let run = |id: &str, queries: &[&str], values: Vec<f64>| RunValues {
            run: id.into(),
            judgments: "qrels".into(),
            metrics: vec!["ndcg@10".into(), "map".into()],
            queries: queries.iter().map(|q| q.to_string()).collect(),
            conventions: Default::default(),
            values,
        };
        let nan = f64::NAN;
        let a = run("a", &["q1", "q2", "q3"], vec![0.1, 0.2, 0.3, 0.4, nan, 0.6]);
        let b = run(
            "b",
            &["q1", "q2", "q3"],
            vec![0.7, nan, 0.9, 1.0, 0.5, 0.25],
        );
        let c = run("c", &["q3", "q1"], vec![0.5, 0.75, 0.125, 0.375]);
        for runs in [vec![&a, &b], vec![&a, &b, &c], vec![&b]] {
            for metric in ["ndcg@10", "map"] {
                let want = metric_matrix(&runs, metric).unwrap();
                let got = matrix(&runs, metric).unwrap();
                assert_eq!(got.0, want.queries, "{metric}");
                assert_eq!(got.1, want.values, "{metric}");
                assert_eq!(got.2, want.dropped, "{metric}");
            }
        }
        assert_eq!(matrix(&[&a], "p@10"), None);
    }

    #[test]
    fn dates() {
        assert_eq!(days("1970-01-01"), Some(0.0));
        assert_eq!(days("2000-03-01"), Some(11017.0));
        assert_eq!(
            days("2026-01-05T12:00"),
            Some(days("2026-01-05").unwrap() + 0.5)
        );
        assert_eq!(days("2026-13-01"), None);
        assert_eq!(days("soon"), None);
        assert_eq!(day_label(11017.0), "2000-03-01");
        assert_eq!(day_label(days("2026-02-28").unwrap()), "2026-02-28");
    }

    #[test]
    fn urls() {
        let app = "http://h:8/team/app/";
        assert_eq!(
            resolve(app, "cat/manifest.json").as_deref(),
            Some("http://h:8/team/app/cat/manifest.json")
        );
        assert_eq!(
            resolve(app, "../data/m.json").as_deref(),
            Some("http://h:8/team/data/m.json")
        );
        assert_eq!(
            resolve(app, "/x/m.json?v=1").as_deref(),
            Some("http://h:8/x/m.json?v=1")
        );
        assert_eq!(
            resolve("http://h/a/m.json", "runs/r1.run").as_deref(),
            Some("http://h/a/runs/r1.run")
        );
        assert_eq!(
            resolve(app, "https://o/m.json").as_deref(),
            Some("https://o/m.json")
        );
        assert_eq!(
            resolve(app, "//o/m.json").as_deref(),
            Some("http://o/m.json")
        );
        assert_eq!(resolve(app, "file:///etc/passwd"), None);
        assert_eq!(resolve(app, "javascript:alert(1)"), None);
        assert_eq!(
            dashboard_link(app, Some("http://h/q rels"), &["http://h/a.run", "http://h/b.run"], "tab=compare"),
            "http://h:8/team/app/index.html?qrels=http://h/q%20rels&run=http://h/a.run&run=http://h/b.run#tab=compare"
        );
    }
}
