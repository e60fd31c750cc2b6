//! A catalog's leaderboard: runs × metrics from the runs' values files, each
//! column's tie group, rank intervals and marks against a baseline
//! ([`rankscope_core::leaderboard`]), written as text, CSV, JSON, Markdown
//! and LaTeX (the CLI's `rankscope leaderboard`, Python's
//! `rankscope.leaderboard`, the page's exports).

use crate::catalog::{self, Manifest, RunValues};
use crate::core::leaderboard::{self as lb, Column, Matrix, Settings};
use crate::core::Named;
use crate::report::{self, Export};
use crate::text;

/// One metric of the board: its column over the runs (in the board's run
/// order), the queries it was computed on and those left out.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MetricColumn {
    pub metric: String,
    pub queries: usize,
    /// Queries some run lacks (or leaves undefined): left out of every run's mean.
    pub dropped: usize,
    pub column: Column,
}

/// A leaderboard: the runs (manifest order), the metrics' columns, the
/// settings and the baseline.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Board {
    pub catalog: String,
    /// (id, name) per run.
    pub runs: Vec<(String, String)>,
    pub columns: Vec<MetricColumn>,
    pub settings: Settings,
    pub baseline: Option<usize>,
    /// Runs left out (scored against another judgment set than the first run's).
    pub left_out: Vec<String>,
    /// The conventions in force that are not the defaults.
    pub conventions: Vec<String>,
}

/// The board of `metrics` (every metric of the manifest when empty) over
/// the runs of `values` (each run's values, in the manifest's run order,
/// checked against it), against `baseline` (a run id or name).
pub fn board(
    manifest: &Manifest,
    values: &[RunValues],
    metrics: &[String],
    settings: &Settings,
    baseline: Option<&str>,
) -> Result<Board, String> {
    if values.len() != manifest.runs.len() {
        return Err(format!(
            "{} runs in the manifest, {} values files",
            manifest.runs.len(),
            values.len()
        ));
    }
    for (entry, v) in manifest.runs.iter().zip(values) {
        catalog::check_values(manifest, entry, v)?;
    }
    let metrics: Vec<String> = if metrics.is_empty() {
        manifest.metrics.clone()
    } else {
        metrics.to_vec()
    };
    if let Some(m) = metrics.iter().find(|m| !manifest.metrics.contains(m)) {
        return Err(format!(
            "--metrics {m}: not in the catalog (it holds: {})",
            manifest.metrics.join(", ")
        ));
    }
    // the runs of one judgment set: the first run's
    let set = manifest.runs.first().map(|r| r.judgments.clone());
    let (kept, left): (Vec<usize>, Vec<usize>) =
        (0..manifest.runs.len()).partition(|&i| Some(&manifest.runs[i].judgments) == set.as_ref());
    let runs: Vec<(String, String)> = kept
        .iter()
        .map(|&i| (manifest.runs[i].id.clone(), manifest.runs[i].name.clone()))
        .collect();
    let baseline = match baseline {
        None => None,
        Some(b) => Some(
            runs.iter()
                .position(|(id, name)| id == b || name == b)
                .ok_or_else(|| {
                    format!(
                        "--baseline {b}: no such run (the runs: {})",
                        runs.iter()
                            .map(|r| r.0.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?,
        ),
    };
    let chosen: Vec<&RunValues> = kept.iter().map(|&i| &values[i]).collect();
    let mut columns = Vec::new();
    for m in &metrics {
        let matrix = catalog::metric_matrix(&chosen, m)
            .ok_or_else(|| format!("{m}: a run has no values of it"))?;
        let n = matrix.queries.len();
        let view = Matrix::new(runs.len(), n, &matrix.values)
            .ok_or_else(|| format!("{m}: the values do not fill runs × queries"))?;
        let Some(column) = lb::column(&view, settings, baseline) else {
            continue;
        };
        columns.push(MetricColumn {
            metric: m.clone(),
            queries: n,
            dropped: matrix.dropped,
            column,
        });
    }
    Ok(Board {
        catalog: manifest.name.clone(),
        runs,
        columns,
        settings: settings.clone(),
        baseline,
        left_out: left.iter().map(|&i| manifest.runs[i].id.clone()).collect(),
        conventions: crate::session::non_default_conventions(
            &manifest.conventions,
            crate::core::registry::Kind::Ranking,
        ),
    })
}

/// A catalog's manifest (a file, or a folder holding
/// [`catalog::MANIFEST`]) and every run's values, read (several at once)
/// and checked: a damaged manifest, a missing or damaged values file is an
/// error naming the file.
pub fn load(path: &str) -> Result<(Manifest, Vec<RunValues>), String> {
    let p = std::path::Path::new(path);
    let file = if p.is_dir() {
        p.join(catalog::MANIFEST)
    } else {
        p.to_path_buf()
    };
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("{shown}: cannot read the manifest ({e})"))?;
    let manifest = catalog::parse_manifest(&shown, &text).map_err(|e| e.to_string())?;
    let dir = file.parent().unwrap_or(std::path::Path::new("."));
    let values = crate::core::par_map(&manifest.runs, |r| {
        let path = dir.join(&r.values);
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "{}: the values of run '{}' cannot be read ({e}); rebuild the catalog (rankscope catalog build)",
                path.display(),
                r.id
            )
        })?;
        catalog::read_values(&r.values, &bytes).map_err(|e| e.to_string())
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    Ok((manifest, values))
}

/// One run on one metric: a line of the CSV, a row of Python's DataFrame.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Row {
    pub run: String,
    pub name: String,
    pub metric: String,
    pub mean: f64,
    pub rank: usize,
    pub rank_low: usize,
    pub rank_high: usize,
    pub tie_group: bool,
    pub best: bool,
    pub p_vs_best: Option<f64>,
    pub adjusted_vs_best: Option<f64>,
    /// 1 significantly above the baseline, −1 below, 0 neither; `None`: the
    /// baseline itself, or no baseline.
    pub vs_baseline: Option<i8>,
    pub p_vs_baseline: Option<f64>,
    pub adjusted_vs_baseline: Option<f64>,
    pub queries: usize,
}

/// Digits of a mean in the tables.
const DIGITS: usize = 4;

impl Board {
    /// Row order: by the first metric's mean, highest first (equal ones in
    /// manifest order).
    pub fn order(&self) -> Vec<usize> {
        match self.columns.first() {
            Some(c) => {
                let means = &c.column.means;
                crate::core::order(means.len(), &|a, b| means[b].total_cmp(&means[a]))
            }
            None => (0..self.runs.len()).collect(),
        }
    }

    /// The mark of run `r` in column `c` against the baseline: 1 above, −1
    /// below, 0 neither (or the baseline itself, or no baseline).
    pub fn mark(&self, c: usize, r: usize) -> i8 {
        let Some(vs) = &self.columns[c].column.versus else {
            return 0;
        };
        match vs.iter().find(|v| v.run == r) {
            Some(v) if v.significant && v.mean_diff > 0.0 => 1,
            Some(v) if v.significant && v.mean_diff < 0.0 => -1,
            _ => 0,
        }
    }

    /// Run `r` against the best of column `c` (`None` for the best itself).
    fn versus_best(&self, c: usize, r: usize) -> Option<&lb::Comparison> {
        self.columns[c]
            .column
            .ties
            .comparisons
            .iter()
            .find(|v| v.run == r)
    }

    /// What the marks mean, the settings and the conventions: one line.
    pub fn note(&self) -> String {
        let s = &self.settings;
        let mut note = format!(
            "tie group (bold, *): not significantly worse than the best run ({} test, {} correction, α = {}); [a–b]: 95% rank interval, paired bootstrap over queries ({} resamples, seed {})",
            s.test.name(),
            s.correction.name(),
            s.alpha,
            s.resamples,
            s.seed
        );
        if let Some(b) = self.baseline {
            note.push_str(&format!(
                "; ▲ / ▼: significantly above / below the baseline {} (same test and correction)",
                self.runs[b].1
            ));
        }
        let queries: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let mut q = format!("{} {}", c.metric, c.queries);
                if c.dropped > 0 {
                    q.push_str(&format!(" ({} left out: not in every run)", c.dropped));
                }
                q
            })
            .collect();
        note.push_str(&format!("; queries: {}", queries.join(", ")));
        if !self.conventions.is_empty() {
            note.push_str(&format!("; conventions: {}", self.conventions.join(" ")));
        }
        if !self.left_out.is_empty() {
            note.push_str(&format!(
                "; left out (other judgments): {}",
                self.left_out.join(", ")
            ));
        }
        note
    }

    fn interval(&self, c: usize, r: usize) -> String {
        let i = self.columns[c].column.ranks[r];
        if i.low == i.high {
            format!("[{}]", i.low)
        } else {
            format!("[{}–{}]", i.low, i.high)
        }
    }

    /// The terminal's table: per metric its mean (`*` in the tie group) and
    /// a column of the rank interval and mark (`[1–3] ▲`).
    pub fn to_text(&self) -> String {
        let mut head = vec!["run".to_string()];
        for c in &self.columns {
            head.push(c.metric.clone());
            head.push("rank".into());
        }
        let mut grid = vec![head];
        for r in self.order() {
            let mut row = vec![self.runs[r].1.clone()];
            for c in 0..self.columns.len() {
                let col = &self.columns[c].column;
                let star = if col.ties.members[r] { "*" } else { " " };
                row.push(format!(
                    "{}{star}",
                    report::fixed(&self.columns[c].metric, Some(col.means[r]), DIGITS)
                ));
                let mark = match self.mark(c, r) {
                    1 => " ▲",
                    -1 => " ▼",
                    _ if self.baseline.is_some() => "  ",
                    _ => "",
                };
                row.push(format!("{}{mark}", self.interval(c, r)));
            }
            grid.push(row);
        }
        let mut out = report::aligned(&grid);
        out.push_str(&report::comment_line(&self.note(), None));
        out.push('\n');
        out
    }

    /// Markdown or (`latex`) a LaTeX tabular: the tie group in bold, each
    /// rank interval after its mean, the note under the table; valid from
    /// its first byte (its first line a comment naming the catalog).
    pub fn typeset(&self, latex: bool) -> String {
        let escape = if latex { text::latex } else { text::markdown };
        let format = if latex {
            Export::Latex
        } else {
            Export::Markdown
        };
        let (sep, end) = if latex {
            (" & ", " \\\\\n")
        } else {
            (" | ", " |\n")
        };
        let mut s = report::comment_line(&format!("leaderboard of {}", self.catalog), Some(format));
        s.push('\n');
        let metrics: Vec<String> = self.columns.iter().map(|c| escape(&c.metric)).collect();
        if latex {
            if self.baseline.is_some() {
                s.push_str("% needs \\usepackage{amssymb}\n");
            }
            s.push_str(&format!(
                "\\begin{{tabular}}{{l{}}}\n\\hline\nrun & {}{end}\\hline\n",
                "r".repeat(metrics.len()),
                metrics.join(sep)
            ));
        } else {
            s.push_str(&format!(
                "| run | {}{end}|---|{}\n",
                metrics.join(sep),
                "---:|".repeat(metrics.len())
            ));
        }
        for r in self.order() {
            if !latex {
                s.push_str("| ");
            }
            s.push_str(&escape(&self.runs[r].1));
            for c in 0..self.columns.len() {
                let col = &self.columns[c].column;
                let value = report::fixed(&self.columns[c].metric, Some(col.means[r]), DIGITS);
                s.push_str(sep);
                s.push_str(&match (col.ties.members[r], latex) {
                    (true, true) => format!("\\textbf{{{value}}}"),
                    (true, false) => format!("**{value}**"),
                    (false, _) => value,
                });
                let interval = self.interval(c, r);
                s.push_str(&if latex {
                    format!(" {{\\scriptsize {}}}", interval.replace('–', "--"))
                } else {
                    format!(" {interval}")
                });
                s.push_str(match (self.mark(c, r), latex) {
                    (1, true) => "$^{\\blacktriangle}$",
                    (-1, true) => "$^{\\blacktriangledown}$",
                    (1, false) => " ▲",
                    (-1, false) => " ▼",
                    _ => "",
                });
            }
            s.push_str(end);
        }
        let note = escape(&self.note());
        if latex {
            let note = note
                .replace('▲', "$\\blacktriangle$")
                .replace('▼', "$\\blacktriangledown$")
                .replace('α', "$\\alpha$")
                .replace('–', "--");
            s.push_str(&format!(
                "\\hline\n\\end{{tabular}}\n\\par{{\\footnotesize {note}}}\n"
            ));
        } else {
            s.push_str(&format!("\n*{note}*\n"));
        }
        s
    }

    /// One row per (run, metric), runs in the board's order.
    pub fn rows(&self) -> Vec<Row> {
        let mut out = Vec::new();
        for r in self.order() {
            for (c, mc) in self.columns.iter().enumerate() {
                let col = &mc.column;
                let vb = self.versus_best(c, r);
                let vs = col
                    .versus
                    .as_ref()
                    .and_then(|v| v.iter().find(|v| v.run == r));
                let i = col.ranks[r];
                out.push(Row {
                    run: self.runs[r].0.clone(),
                    name: self.runs[r].1.clone(),
                    metric: mc.metric.clone(),
                    mean: col.means[r],
                    rank: i.rank,
                    rank_low: i.low,
                    rank_high: i.high,
                    tie_group: col.ties.members[r],
                    best: col.best == r,
                    p_vs_best: vb.map(|v| v.p),
                    adjusted_vs_best: vb.map(|v| v.adjusted),
                    vs_baseline: vs.map(|_| self.mark(c, r)),
                    p_vs_baseline: vs.map(|v| v.p),
                    adjusted_vs_baseline: vs.map(|v| v.adjusted),
                    queries: mc.queries,
                });
            }
        }
        out
    }

    /// [`Board::rows`] as CSV: `run,name,metric,mean,rank,rank_low,
    /// rank_high,tie_group,best,p_vs_best,adjusted_vs_best,vs_baseline,
    /// p_vs_baseline,adjusted_vs_baseline,queries`, numbers in full (they
    /// read back exactly), empty where a comparison does not apply.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("run,name,metric,mean,rank,rank_low,rank_high,tie_group,best,p_vs_best,adjusted_vs_best,vs_baseline,p_vs_baseline,adjusted_vs_baseline,queries\n");
        let num = |v: Option<f64>| v.map_or(String::new(), report::full);
        for row in self.rows() {
            for cell in [&row.run, &row.name, &row.metric] {
                text::push_csv_field(&mut out, &text::csv_cell(cell));
                out.push(',');
            }
            let fields = [
                report::full(row.mean),
                row.rank.to_string(),
                row.rank_low.to_string(),
                row.rank_high.to_string(),
                row.tie_group.to_string(),
                row.best.to_string(),
                num(row.p_vs_best),
                num(row.adjusted_vs_best),
                row.vs_baseline.map_or(String::new(), |m| m.to_string()),
                num(row.p_vs_baseline),
                num(row.adjusted_vs_baseline),
                row.queries.to_string(),
            ];
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }

    /// Every number, as JSON.
    pub fn to_json(&self) -> String {
        let metrics: Vec<serde_json::Value> = self
            .columns
            .iter()
            .enumerate()
            .map(|(c, mc)| {
                let col = &mc.column;
                let runs: Vec<serde_json::Value> = self
                    .order()
                    .into_iter()
                    .map(|r| {
                        let i = col.ranks[r];
                        let mut o = serde_json::json!({
                            "run": self.runs[r].0,
                            "name": self.runs[r].1,
                            "mean": col.means[r],
                            "rank": i.rank,
                            "rank_interval": [i.low, i.high],
                            "tie_group": col.ties.members[r],
                            "best": col.best == r,
                        });
                        if let Some(v) = self.versus_best(c, r) {
                            o["vs_best"] = serde_json::json!({"mean_diff": v.mean_diff, "p": v.p, "adjusted": v.adjusted});
                        }
                        if let Some(v) = col.versus.as_ref().and_then(|v| v.iter().find(|v| v.run == r)) {
                            o["vs_baseline"] = serde_json::json!({"mean_diff": v.mean_diff, "p": v.p, "adjusted": v.adjusted, "mark": self.mark(c, r)});
                        }
                        o
                    })
                    .collect();
                serde_json::json!({
                    "metric": mc.metric,
                    "queries": mc.queries,
                    "dropped": mc.dropped,
                    "best": self.runs[col.best].0,
                    "tie_group": (0..self.runs.len()).filter(|&r| col.ties.members[r]).map(|r| self.runs[r].0.clone()).collect::<Vec<_>>(),
                    "runs": runs,
                })
            })
            .collect();
        let s = &self.settings;
        let doc = serde_json::json!({
            "catalog": self.catalog,
            "test": s.test.name(),
            "correction": s.correction.name(),
            "alpha": s.alpha,
            "resamples": s.resamples,
            "seed": s.seed,
            "baseline": self.baseline.map(|b| self.runs[b].0.clone()),
            "conventions": self.conventions,
            "left_out": self.left_out,
            "metrics": metrics,
        });
        let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
        out.push('\n');
        out
    }

    /// The board in `format`.
    pub fn export(&self, format: Export) -> String {
        match format {
            Export::Csv => self.to_csv(),
            Export::Json => self.to_json(),
            Export::Markdown => self.typeset(false),
            Export::Latex => self.typeset(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Judgments, RunEntry};
    use crate::core::evaluate::Conventions;

    /// Three runs of 40 queries: `c` far ahead, `a` and `b` alike.
    fn catalog() -> (Manifest, Vec<RunValues>) {
        let mut m = Manifest::new("team <x>", Conventions::default(), vec!["ndcg@10".into()]);
        m.judgments.push(Judgments {
            id: "qrels".into(),
            file: "qrels.txt".into(),
            sha256: String::new(),
        });
        let queries: Vec<String> = (0..40).map(|q| format!("q{q}")).collect();
        let mut values = Vec::new();
        for (id, shift) in [("a", 0.0), ("b", 0.001), ("c", 0.3)] {
            m.runs.push(RunEntry {
                id: id.into(),
                name: format!("run {id}"),
                file: format!("runs/{id}"),
                format: "run".into(),
                values: format!("values/{id}.rsv"),
                sha256: String::new(),
                date: None,
                author: String::new(),
                description: String::new(),
                tags: vec![],
                judgments: "qrels".into(),
                metadata: Default::default(),
            });
            values.push(RunValues {
                run: id.into(),
                judgments: "qrels".into(),
                metrics: vec!["ndcg@10".into()],
                queries: queries.clone(),
                conventions: Conventions::default(),
                values: (0..40)
                    .map(|q| {
                        ((q * 7919) % 40) as f64 / 80.0
                            + shift
                            + if q % 2 == 0 { 0.01 } else { -0.01 } * (id == "b") as u8 as f64
                    })
                    .collect(),
            });
        }
        (m, values)
    }

    #[test]
    fn every_export_has_the_groups_intervals_and_marks() {
        let (m, v) = catalog();
        let b = board(&m, &v, &[], &Settings::default(), Some("a")).unwrap();
        assert_eq!(b.order(), [2, 1, 0]);
        let col = &b.columns[0].column;
        assert_eq!(col.ties.members, [false, false, true]);
        let text = b.to_text();
        assert!(text.lines().nth(1).unwrap().starts_with("run c"), "{text}");
        let row: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(row[2..], ["0.5437*", "[1]", "▲"], "{text}");
        let md = b.typeset(false);
        assert!(
            md.starts_with("<!-- leaderboard of team <x> -->\n| run | ndcg@10 |"),
            "{md}"
        );
        assert!(
            md.contains("| run c | **0.") && md.contains("[1] ▲ |"),
            "{md}"
        );
        let tex = b.typeset(true);
        assert!(
            tex.starts_with(
                "% leaderboard of team <x>\n% needs \\usepackage{amssymb}\n\\begin{tabular}{lr}"
            ),
            "{tex}"
        );
        assert!(tex.contains("\\textbf{0."), "{tex}");
        let csv = b.to_csv();
        let first = csv.lines().nth(1).unwrap();
        assert!(first.starts_with("c,run c,ndcg@10,"), "{csv}");
        assert!(first.contains(",1,1,1,true,true,,,1,"), "{first}");
        let json: serde_json::Value = serde_json::from_str(&b.to_json()).unwrap();
        assert_eq!(json["metrics"][0]["tie_group"], serde_json::json!(["c"]));
        assert_eq!(json["baseline"], "a");
    }

    #[test]
    fn bad_values_and_baselines_are_refused() {
        let (m, mut v) = catalog();
        let e = board(&m, &v, &[], &Settings::default(), Some("zz")).unwrap_err();
        assert!(
            e.starts_with("--baseline zz: no such run (the runs: a, b, c)"),
            "{e}"
        );
        let e = board(&m, &v, &["map".into()], &Settings::default(), None).unwrap_err();
        assert!(e.contains("not in the catalog"), "{e}");
        v[1].judgments = "other".into();
        let e = board(&m, &v, &[], &Settings::default(), None).unwrap_err();
        assert!(e.contains("scored against other judgments"), "{e}");
    }
}
