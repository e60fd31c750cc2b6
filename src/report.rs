//! Metric tables in the export formats (CSV, JSON, Markdown, LaTeX) and the
//! number formatting the CLI and the page share.

use crate::core::evaluate::Report;
use crate::core::per_query::{RrIndex, RrValues};
use crate::core::registry;
use crate::text;

/// A table of models x metrics.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<(String, Vec<Option<f64>>)>,
    /// The conventions in force that are not the defaults (`gain=exponential`),
    /// written into every export so a number never travels without them.
    pub conventions: Vec<String>,
    /// Significance against a baseline per row and column (1: significantly
    /// higher, −1: lower, 0: neither; empty: not tested), shown as ▲ / ▼, and
    /// the note naming the test, correction, α and baseline.
    pub marks: Vec<Vec<i8>>,
    pub marks_note: String,
    /// The kind of the report (the metrics' names, directions and
    /// conventions); `None`: columns printed as they are.
    pub kind: Option<registry::Kind>,
    /// The row the Markdown and LaTeX tables give every other row's relative
    /// difference from, `(+3.2%)` after each value; `None`: no differences.
    pub baseline: Option<String>,
    /// Rows of groups of models (folds, seeds), under the models' rows.
    pub groups: Vec<GroupRow>,
}

/// A group of the table's rows (folds or seeds of one model, `name=pattern`):
/// each column's mean and standard deviation (ddof 0) over its members, as
/// `rankscope eval --group` (`None` unless every member has a value).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroupRow {
    pub name: String,
    pub pattern: String,
    /// The members' row indices.
    pub members: Vec<usize>,
    pub stats: Vec<Option<(f64, f64)>>,
}

/// One of the table's export formats, named as the page's buttons
/// (`data-export`) and the worker's request name it, which is also its
/// file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Export {
    Csv,
    Json,
    Markdown,
    Latex,
}

crate::named!(Export {
    Csv = "csv",
    Json = "json",
    Markdown = "md",
    Latex = "tex",
});

impl Export {
    /// The file's MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            Export::Csv => "text/csv",
            Export::Json => "application/json",
            Export::Markdown => "text/markdown",
            Export::Latex => "text/x-tex",
        }
    }
}

impl Table {
    /// Rows = models, columns = `metric_ids` (or every metric of the report).
    pub fn from_report(report: &Report, metric_ids: Option<&[String]>) -> Table {
        let columns: Vec<String> = match metric_ids {
            Some(ids) => ids.to_vec(),
            None => report.columns.clone(),
        };
        let rows = report
            .models
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    columns
                        .iter()
                        .map(|c| m.metrics.get(c).copied().flatten())
                        .collect(),
                )
            })
            .collect();
        let conventions = crate::session::non_default_conventions(&report.conventions, report.kind);
        Table {
            columns,
            rows,
            conventions,
            marks: Vec::new(),
            marks_note: String::new(),
            kind: Some(report.kind),
            baseline: None,
            groups: Vec::new(),
        }
    }

    /// The groups of rows `name=pattern` (the pattern's `*` matches any
    /// run of characters), in the order given.
    #[inline(never)]
    pub fn group(&mut self, groups: &[(String, String)]) {
        self.groups = (groups.iter())
            .map(|(name, pattern)| {
                let members: Vec<usize> = (0..self.rows.len())
                    .filter(|&r| crate::diagnose::glob(pattern, &self.rows[r].0))
                    .collect();
                let stats = (0..self.columns.len())
                    .map(|c| {
                        let mut values = Vec::with_capacity(members.len());
                        for &r in &members {
                            values.push(self.rows[r].1.get(c).copied().flatten()?);
                        }
                        crate::core::diagnostics::mean_sd(&values)
                    })
                    .collect();
                GroupRow {
                    name: name.clone(),
                    pattern: pattern.clone(),
                    members,
                    stats,
                }
            })
            .collect();
    }

    /// The groups that have members (the exports' group rows).
    fn member_groups(&self) -> impl Iterator<Item = &GroupRow> {
        self.groups.iter().filter(|g| !g.members.is_empty())
    }

    /// The models' rows, then per group a row of its means (`name (mean)`)
    /// and one of its sds (`name (sd)`): the CSV and JSON exports' rows.
    fn rows_and_groups(&self) -> Vec<(String, Vec<Option<f64>>)> {
        let mut rows = self.rows.clone();
        for g in self.member_groups() {
            for (what, sd) in [("mean", false), ("sd", true)] {
                let values = (g.stats.iter())
                    .map(|st| st.map(|(m, d)| if sd { d } else { m }))
                    .collect();
                rows.push((format!("{} ({what})", g.name), values));
            }
        }
        rows
    }

    /// The non-default conventions column `c`'s metric depends on
    /// ([`registry::depends_on`]), comma-separated; empty: none.
    /// The fingerprint of column `c`'s definition under the table's
    /// conventions (`core::fingerprint`; `None` for a column that is not a
    /// metric id, such as one of iprec_at_recall's points).
    pub fn fingerprint(&self, c: usize) -> Option<String> {
        let kind = self.kind?;
        let (view, _) = crate::session::ViewState::from_fragment(&self.conventions.join("&"));
        crate::core::fingerprint::of_text(kind, &self.columns[c], &view.conv)
    }

    pub fn changed(&self, c: usize) -> String {
        let Some(kind) = self.kind else {
            return String::new();
        };
        let base = registry::base_of(&self.columns[c]);
        self.conventions
            .iter()
            .filter(|kv| registry::depends_on(kind, base, kv.split('=').next().unwrap_or_default()))
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Per column, its best value when two or more models have one (the
    /// metric's direction; a count has none).
    pub fn best(&self) -> Vec<Option<f64>> {
        (0..self.columns.len())
            .map(|c| {
                let column = &self.columns[c];
                let values = self.rows.iter().filter_map(|r| r.1[c]);
                let kind = self.kind?;
                if self.rows.len() < 2 || registry::is_count(column) {
                    return None;
                }
                if registry::higher_is_better(column, kind) {
                    values.reduce(f64::max)
                } else {
                    values.reduce(f64::min)
                }
            })
            .collect()
    }

    /// A column's name for a paper: the metric's title with its cutoff
    /// (`nDCG@10`), else the column as it is.
    fn display_name(&self, column: &str) -> String {
        let title = self
            .kind
            .and_then(|k| registry::info(registry::base_of(column), k))
            .map(|i| i.title);
        match (title, column.split_once('@')) {
            (Some(t), Some((_, k))) => format!("{}@{k}", t.split('@').next().unwrap_or(t)),
            // one of a metric's several columns (`iprec_at_recall_0.10`) keeps its name
            (Some(t), None) if registry::base_of(column) == column => t.to_string(),
            _ => column.to_string(),
        }
    }

    fn mark(&self, row: usize, column: usize) -> &'static str {
        match self.marks.get(row).and_then(|m| m.get(column)) {
            Some(1) => "▲",
            Some(-1) => "▼",
            _ => "",
        }
    }

    /// Row `row`'s marks as `ndcg@10 ▲; map ▼` (CSV).
    fn marks_of(&self, row: usize) -> String {
        (0..self.columns.len())
            .filter(|&c| !self.mark(row, c).is_empty())
            .map(|c| format!("{} {}", self.columns[c], self.mark(row, c)))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The conventions as a sentence, for the Markdown and LaTeX footnotes.
    pub fn conventions_note(&self) -> String {
        let mut note = if self.conventions.is_empty() {
            "Conventions: Rankscope's defaults.".into()
        } else {
            let marked = (0..self.columns.len()).any(|c| !self.changed(c).is_empty());
            format!(
                "Conventions that differ from Rankscope's defaults{}: {}.",
                if marked {
                    " († marks the columns they change)"
                } else {
                    ""
                },
                self.conventions.join(", ")
            )
        };
        if let Some(b) = &self.baseline {
            note.push_str(&format!(" Percentages: relative difference from {b}."));
        }
        if !self.marks_note.is_empty() {
            note.push(' ');
            note.push_str(&self.marks_note);
        }
        note
    }

    /// The export `format` names: `csv`, `json`, `md` (Markdown) or LaTeX
    /// (anything else), values with 4 decimals where not full precision.
    /// (The page's loading worker writes these: the page sends it the table.)
    pub fn export(&self, format: Export) -> String {
        match format {
            Export::Csv => self.to_csv(),
            Export::Json => self.to_json(),
            Export::Markdown => self.to_markdown(4),
            Export::Latex => self.to_latex(4),
        }
    }

    /// A row per model, then the groups' mean and sd rows, full precision.
    pub fn to_csv(&self) -> String {
        // the conventions (when not the defaults) as a last column of every row
        let conventions = self.conventions.join("; ");
        let mut out = String::from("model");
        for c in &self.columns {
            out.push(',');
            text::push_csv_field(&mut out, &text::csv_cell(c));
        }
        if !conventions.is_empty() {
            out.push_str(",conventions");
        }
        let marked = !self.marks_note.is_empty();
        if marked {
            out.push_str(",marks,marks_note");
        }
        out.push('\n');
        for (r, (name, values)) in self.rows_and_groups().iter().enumerate() {
            text::push_csv_field(&mut out, &text::csv_cell(name));
            for v in values {
                out.push(',');
                if let Some(v) = v {
                    out.push_str(&full(*v));
                }
            }
            if !conventions.is_empty() {
                out.push(',');
                text::push_csv_field(&mut out, &conventions);
            }
            if marked {
                out.push(',');
                text::push_csv_field(&mut out, &text::csv_cell(&self.marks_of(r)));
                out.push(',');
                text::push_csv_field(&mut out, &self.marks_note);
            }
            out.push('\n');
        }
        out
    }

    /// `[{"model": …, "metrics": {column: value or null, …}}, …]`, columns in
    /// table order, full precision, the groups' mean and sd rows last; with `"conventions": [...]` after the
    /// metrics when they are not the defaults. Written directly (the page carries no JSON
    /// tree for this); the tests read it back with serde_json.
    pub fn to_json(&self) -> String {
        let mut out = String::from("[");
        for (i, (name, values)) in self.rows_and_groups().iter().enumerate() {
            out.push_str(if i == 0 {
                "\n  {\"model\": "
            } else {
                ",\n  {\"model\": "
            });
            json_string(&mut out, name);
            out.push_str(", \"metrics\": {");
            for (j, (c, v)) in self.columns.iter().zip(values).enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                json_string(&mut out, c);
                out.push_str(": ");
                match v {
                    Some(v) if v.is_finite() => out.push_str(&full(*v)),
                    _ => out.push_str("null"),
                }
            }
            out.push('}');
            if !self.conventions.is_empty() {
                out.push_str(", \"conventions\": [");
                for (j, c) in self.conventions.iter().enumerate() {
                    if j > 0 {
                        out.push_str(", ");
                    }
                    json_string(&mut out, c);
                }
                out.push(']');
            }
            if !self.marks_note.is_empty() {
                out.push_str(", \"marks\": {");
                let mut first = true;
                for (c, column) in self.columns.iter().enumerate() {
                    let m = self.mark(i, c);
                    if !m.is_empty() {
                        out.push_str(if first { "" } else { ", " });
                        first = false;
                        json_string(&mut out, column);
                        out.push_str(": ");
                        json_string(&mut out, m);
                    }
                }
                out.push_str("}, \"marks_note\": ");
                json_string(&mut out, &self.marks_note);
            }
            out.push('}');
        }
        out.push_str(if out.len() == 1 { "]" } else { "\n]" });
        out
    }

    pub fn to_markdown(&self, digits: usize) -> String {
        self.typeset(digits, false)
    }

    pub fn to_latex(&self, digits: usize) -> String {
        self.typeset(digits, true)
    }

    /// Markdown or (`latex`) a LaTeX tabular: names escaped, each value with
    /// its mark (LaTeX's need `amssymb`), the conventions and marks as a footnote.
    fn typeset(&self, digits: usize, latex: bool) -> String {
        let escape = if latex { text::latex } else { text::markdown };
        let (sep, end) = if latex {
            (" & ", " \\\\\n")
        } else {
            (" | ", " |\n")
        };
        // display names; a column a non-default convention changes is marked †
        let columns: Vec<String> = (0..self.columns.len())
            .map(|c| {
                let mut name = escape(&self.display_name(&self.columns[c]));
                if !self.changed(c).is_empty() {
                    name.push_str(if latex { "$^\\dagger$" } else { "†" });
                }
                name
            })
            .collect();
        let best = self.best();
        let base = self
            .baseline
            .as_ref()
            .and_then(|b| self.rows.iter().find(|r| &r.0 == b))
            .map(|r| r.1.clone());
        let mut s = if latex {
            format!(
                "\\begin{{tabular}}{{l{}}}\n\\hline\nmodel & {}{end}\\hline\n",
                "r".repeat(self.columns.len()),
                columns.join(sep)
            )
        } else {
            format!(
                "| model | {}{end}|---|{}\n",
                columns.join(sep),
                "---:|".repeat(self.columns.len())
            )
        };
        for (r, (name, values)) in self.rows.iter().enumerate() {
            s.push_str(if latex { "" } else { "| " });
            s.push_str(&escape(name));
            for (c, v) in values.iter().enumerate() {
                s.push_str(sep);
                let value = fixed(&self.columns[c], *v, digits);
                // the best value of a column in bold
                if v.is_some() && *v == best[c] {
                    s.push_str(&if latex {
                        format!("\\textbf{{{value}}}")
                    } else {
                        format!("**{value}**")
                    });
                } else {
                    s.push_str(&value);
                }
                s.push_str(match (self.mark(r, c), latex) {
                    ("", _) => "",
                    ("▲", true) => "$^{\\blacktriangle}$",
                    ("▲", false) => " ▲",
                    (_, true) => "$^{\\blacktriangledown}$",
                    _ => " ▼",
                });
                // the relative difference from the baseline (not for counts)
                let from = base.as_ref().and_then(|b| b[c]).filter(|b| *b != 0.0);
                if let (Some(b), Some(v), false) = (
                    from,
                    v,
                    Some(name) == self.baseline.as_ref() || registry::is_count(&self.columns[c]),
                ) {
                    let pct = format!(" ({:+.1}%)", (v - b) / b.abs() * 100.0);
                    s.push_str(&if latex { pct.replace('%', "\\%") } else { pct });
                }
            }
            s.push_str(end);
        }
        // a group: each column's mean ± sd over its members
        let pm = if latex { " $\\pm$ " } else { " ± " };
        for g in self.member_groups() {
            s.push_str(if latex { "" } else { "| " });
            s.push_str(&escape(&g.name));
            s.push_str(&format!(" (mean{pm}sd, {} models)", g.members.len()));
            for st in &g.stats {
                s.push_str(sep);
                s.push_str(&match st {
                    Some((m, d)) => format!("{m:.digits$}{pm}{d:.digits$}"),
                    None => "—".into(),
                });
            }
            s.push_str(end);
        }
        let note = escape(&self.conventions_note());
        if latex {
            let note = note
                .replace('▲', "$\\blacktriangle$")
                .replace('▼', "$\\blacktriangledown$")
                .replace('†', "$^\\dagger$");
            s.push_str(&format!(
                "\\hline\n\\end{{tabular}}\n\\par{{\\footnotesize {note}}}\n"
            ));
            // an undefined value's dash, which pdflatex's text fonts lack
            s = s.replace('—', "---");
            // the marks' triangles are amssymb's
            if !self.marks_note.is_empty() {
                s.insert_str(0, "% needs \\usepackage{amssymb}\n");
            }
        } else {
            s.push_str(&format!("\n*{note}*\n"));
        }
        s
    }

    /// Plain aligned text for the terminal.
    pub fn to_text(&self, digits: usize) -> String {
        let mut cols = vec!["model".to_string()];
        cols.extend(self.columns.iter().cloned());
        let mut grid: Vec<Vec<String>> = vec![cols];
        for (name, values) in &self.rows {
            let mut r = vec![name.clone()];
            r.extend(
                values
                    .iter()
                    .zip(&self.columns)
                    .map(|(v, c)| fixed(c, *v, digits)),
            );
            grid.push(r);
        }
        aligned(&grid)
    }
}

/// `text` as one comment line of the export `format` (no line break of its own):
/// LaTeX's `%`, an HTML comment for Markdown (every `--` broken, so no name
/// in it ends the comment), else `#` (the terminal's table, no export; trec_eval output
/// and CSV readers that skip comments).
pub fn comment_line(text: &str, format: Option<Export>) -> String {
    let text = text.replace(['\n', '\r'], " ");
    match format {
        Some(Export::Latex) => format!("% {text}"),
        Some(Export::Markdown) => {
            let mut text = text;
            while text.contains("--") {
                text = text.replace("--", "- -");
            }
            format!("<!-- {text} -->")
        }
        _ => format!("# {text}"),
    }
}

/// Per-unit values as the interchange file Rankscope reads back (and a
/// Spark job or the Python package writes): `query_id,model,metric,value`,
/// one line per (model, metric, query) in the report's order, and, when the
/// conventions in force are not the defaults, a last column `conventions`
/// naming them on every line (as the table's CSV). Ids quoted as RFC 4180
/// needs, a spreadsheet's formula made inert (`text::csv_cell`: the
/// reader takes the `'` off again, so the ids read back as they were);
/// values, numbers, in the shortest text that reads back to the same bits.
pub fn per_query_csv(report: &Report) -> String {
    let conventions =
        crate::session::non_default_conventions(&report.conventions, report.kind).join("; ");
    let mut out = String::from("query_id,model,metric,value");
    if !conventions.is_empty() {
        out.push_str(",conventions");
    }
    out.push('\n');
    for m in &report.models {
        for c in &report.columns {
            let Some(values) = m.per_unit.get(c).filter(|v| v.len() == m.unit_ids.len()) else {
                continue;
            };
            for (unit, v) in m.unit_ids.iter().zip(values) {
                for text in [unit, &m.name, c] {
                    text::push_csv_field(&mut out, &text::csv_cell(text));
                    out.push(',');
                }
                if v.is_finite() {
                    out.push_str(&v.to_string());
                }
                if !conventions.is_empty() {
                    out.push(',');
                    text::push_csv_field(&mut out, &text::csv_cell(&conventions));
                }
                out.push('\n');
            }
        }
    }
    out
}

/// Rows of cells as aligned text for the terminal: the first column to the
/// left, the others to the right, two spaces apart.
pub fn aligned(grid: &[Vec<String>]) -> String {
    let Some(first) = grid.first() else {
        return String::new();
    };
    let widths: Vec<usize> = (0..first.len())
        .map(|c| grid.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    for r in grid {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c == 0 {
                    format!("{v:<w$}", w = widths[c])
                } else {
                    format!("{v:>w$}", w = widths[c])
                }
            })
            .collect();
        s.push_str(line.join("  ").trim_end());
        s.push('\n');
    }
    s
}

/// Shortest text that reads back as the same f64.
/// `s` as a JSON string literal.
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The per-query table's rows `shown` (`core::per_query`) as CSV: the query, then each run's value (`label`
/// names it in the header; an undefined value is empty), text cells inert
/// (`text::csv_cell`), and, when `conventions` (those in force that are not
/// the defaults) has any, a last column naming them, as the table's CSV.
pub fn rr_table_csv(
    ix: &RrIndex,
    v: &RrValues,
    shown: &[usize],
    label: &str,
    conventions: &[String],
) -> String {
    use text::{csv_cell, push_csv_field};
    let conventions = conventions.join("; ");
    let mut csv = String::from("query");
    for n in &ix.names {
        csv.push(',');
        push_csv_field(&mut csv, &csv_cell(&format!("{n}: {label}")));
    }
    if !conventions.is_empty() {
        csv.push_str(",conventions");
    }
    csv.push('\n');
    for &i in shown {
        push_csv_field(&mut csv, &csv_cell(ix.qids[i].as_str()));
        for x in v.row(i).1 {
            csv.push(',');
            if !x.is_nan() {
                csv.push_str(&full(*x));
            }
        }
        if !conventions.is_empty() {
            csv.push(',');
            push_csv_field(&mut csv, &conventions);
        }
        csv.push('\n');
    }
    csv
}

pub fn full(v: f64) -> String {
    format!("{v:?}")
}

/// Column `column`'s value with fixed decimals; "—" for undefined; a count
/// ([`registry::is_count`]) without decimals.
pub fn fixed(column: &str, v: Option<f64>, digits: usize) -> String {
    match v {
        None => "—".into(),
        Some(v) if registry::is_count(column) => format!("{v:.0}"),
        Some(v) => format!("{v:.digits$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            columns: vec!["ndcg@10".into(), "roc_auc".into(), "tp".into()],
            rows: vec![
                ("a,b".into(), vec![Some(0.5), None, Some(0.0)]),
                ("x_y|z".into(), vec![Some(1.0 / 3.0), Some(1.0), Some(12.0)]),
            ],
            conventions: vec![],
            marks: vec![],
            marks_note: String::new(),
            kind: None,
            baseline: None,
            groups: Vec::new(),
        }
    }

    /// Groups of rows (folds, seeds): each column's mean and population sd
    /// over the members, in every export; a value a member lacks leaves the
    /// group's undefined; a group without members is not exported.
    #[test]
    fn group_rows_give_mean_and_sd_in_every_export() {
        let mut t = Table {
            columns: vec!["ndcg@10".into(), "map".into()],
            rows: vec![
                ("gbdt_fold1".into(), vec![Some(0.2), Some(0.5)]),
                ("gbdt_fold2".into(), vec![Some(0.4), None]),
                ("gbdt_fold3".into(), vec![Some(0.6), Some(0.7)]),
                ("bm25".into(), vec![Some(0.1), Some(0.1)]),
            ],
            ..table()
        };
        t.group(&[
            ("gbdt".into(), "gbdt_fold*".into()),
            ("none".into(), "x*".into()),
        ]);
        assert_eq!(t.groups[0].members, vec![0, 1, 2]);
        assert!(t.groups[1].members.is_empty());
        // numpy: np.mean([.2, .4, .6]) = 0.4000000000000001 (its naive sum; the
        // core sums exactly rounded: 1.2 / 3 = 0.39999999999999997), np.std = 0.1632993161855452
        let (m, sd) = t.groups[0].stats[0].unwrap();
        assert!((m - 0.4).abs() < 1e-15 && (sd - 0.1632993161855452).abs() < 1e-15);
        assert_eq!(t.groups[0].stats[1], None);
        let csv = t.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 4 + 2, "{csv}");
        assert!(
            lines[5].starts_with("gbdt (mean),0.39999999999999997,"),
            "{csv}"
        );
        assert!(lines[6].starts_with("gbdt (sd),0.16329931618554"), "{csv}");
        assert!(lines[6].ends_with(','), "the undefined map: empty");
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 6);
        assert_eq!(json[5]["model"], "gbdt (sd)");
        assert_eq!(json[5]["metrics"]["map"], serde_json::Value::Null);
        let md = t.to_markdown(4);
        assert!(
            md.contains("| gbdt (mean ± sd, 3 models) | 0.4000 ± 0.1633 | — |"),
            "{md}"
        );
        assert!(!md.contains("none"));
        let tex = t.to_latex(3);
        assert!(
            tex.contains("gbdt (mean $\\pm$ sd, 3 models) & 0.400 $\\pm$ 0.163 & --- \\\\"),
            "{tex}"
        );
    }

    /// A paper's table: metrics by their titles, each column's best value in
    /// bold (lower is better for log loss; counts have none), and the columns
    /// a non-default convention changes marked † with the note saying so.
    #[test]
    fn paper_tables_name_metrics_bold_the_best_and_mark_changed_columns() {
        let t = Table {
            columns: vec!["ndcg@10".into(), "map".into(), "num_ret".into()],
            rows: vec![
                ("a".into(), vec![Some(0.5), Some(0.25), Some(10.0)]),
                ("b".into(), vec![Some(0.75), Some(0.125), Some(20.0)]),
            ],
            conventions: vec!["gain=exponential".into()],
            kind: Some(registry::Kind::Ranking),
            ..table()
        };
        let md = t.to_markdown(4);
        assert!(
            md.starts_with("| model | nDCG@10† | MAP | Retrieved |\n"),
            "{md}"
        );
        assert!(
            md.contains("| a | 0.5000 | **0.2500** | 10 |\n| b | **0.7500** | 0.1250 | 20 |"),
            "{md}"
        );
        assert!(
            md.contains("† marks the columns they change\\)\\: gain=exponential"),
            "{md}"
        );
        let tex = t.to_latex(4);
        assert!(
            tex.contains("model & nDCG@10$^\\dagger$ & MAP & Retrieved \\\\"),
            "{tex}"
        );
        assert!(tex.contains("b & \\textbf{0.7500} & 0.1250 & 20"), "{tex}");
        assert!(tex.contains("($^\\dagger$ marks"), "{tex}");
        let binary = Table {
            columns: vec!["log_loss".into()],
            rows: vec![
                ("a".into(), vec![Some(0.5)]),
                ("b".into(), vec![Some(0.25)]),
            ],
            conventions: vec![],
            kind: Some(registry::Kind::Binary),
            ..table()
        };
        assert!(binary.to_markdown(4).contains("| b | **0.2500** |"));
        // against a baseline: each other value's relative difference, counts left out
        let t = Table {
            baseline: Some("a".into()),
            groups: Vec::new(),
            ..t
        };
        let md = t.to_markdown(4);
        assert!(md.contains("| a | 0.5000 | **0.2500** | 10 |\n| b | **0.7500** (+50.0%) | 0.1250 (-50.0%) | 20 |"), "{md}");
        assert!(md.contains("relative difference from a."), "{md}");
        assert!(t.to_latex(4).contains("0.1250 (-50.0\\%)"));
    }

    #[test]
    fn each_export_is_named_by_its_extension_and_writes_its_format() {
        use crate::core::Named;
        let t = table();
        for &f in Export::ALL {
            assert_eq!(Export::named(f.name()), Some(f));
            let text = t.export(f);
            let want = match f {
                Export::Csv => t.to_csv(),
                Export::Json => t.to_json(),
                Export::Markdown => t.to_markdown(4),
                Export::Latex => t.to_latex(4),
            };
            assert_eq!(text, want, "{f:?}");
        }
        let names: Vec<&str> = Export::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names, ["csv", "json", "md", "tex"]);
        assert_eq!(Export::Latex.mime(), "text/x-tex");
    }

    #[test]
    fn marks_travel_in_every_format() {
        let mut t = table();
        t.marks = vec![vec![0, 0, 0], vec![1, -1, 0]];
        t.marks_note = "▲ / ▼: against a,b.".into();
        let md = t.to_markdown(4);
        assert!(
            md.contains("| x\\_y\\|z | 0.3333 ▲ | 1.0000 ▼ | 12 |"),
            "{md}"
        );
        assert!(
            md.contains("Rankscope's defaults. ▲ / ▼\\: against a,b."),
            "{md}"
        );
        let tex = t.to_latex(4);
        assert!(tex.starts_with("% needs \\usepackage{amssymb}\n"), "{tex}");
        assert!(
            !table().to_latex(4).contains("amssymb"),
            "no marks, no package"
        );
        assert!(
            tex.contains("0.3333$^{\\blacktriangle}$ & 1.0000$^{\\blacktriangledown}$ & 12 \\\\"),
            "{tex}"
        );
        assert!(
            tex.contains("$\\blacktriangle$ / $\\blacktriangledown$: against a,b."),
            "{tex}"
        );
        let csv = t.to_csv();
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        assert_eq!(
            reader.headers().unwrap().iter().next_back(),
            Some("marks_note")
        );
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(&rows[1][4], "ndcg@10 ▲; roc_auc ▼");
        assert_eq!(&rows[0][4], "");
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(
            json[1]["marks"],
            serde_json::json!({"ndcg@10": "▲", "roc_auc": "▼"})
        );
        assert_eq!(json[0]["marks"], serde_json::json!({}));
        assert_eq!(json[1]["marks_note"], "▲ / ▼: against a,b.");
    }

    #[test]
    fn csv_is_written_as_the_csv_crate_writes_it() {
        let t = Table {
            columns: vec!["a,b".into(), "q\"uote".into(), "line\nbreak".into()],
            rows: vec![
                ("plain".into(), vec![Some(0.5), None, Some(1e-300)]),
                ("=cmd,x".into(), vec![Some(-0.0), Some(12.0), None]),
                ("".into(), vec![None, None, None]),
            ],
            conventions: vec![],
            marks: vec![],
            marks_note: String::new(),
            kind: None,
            baseline: None,
            groups: Vec::new(),
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["model".to_string()];
        header.extend(t.columns.iter().map(|c| text::csv_cell(c).into_owned()));
        w.write_record(&header).unwrap();
        for (name, values) in &t.rows {
            let mut rec = vec![text::csv_cell(name).into_owned()];
            rec.extend(values.iter().map(|v| v.map(full).unwrap_or_default()));
            w.write_record(&rec).unwrap();
        }
        let want = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(t.to_csv(), want);
    }

    #[test]
    fn csv_quotes_and_keeps_full_precision() {
        let csv = table().to_csv();
        assert!(csv.starts_with("model,ndcg@10,roc_auc,tp\n\"a,b\",0.5,,0.0\n"));
        assert!(csv.contains("0.3333333333333333"));
    }

    #[test]
    fn json_escapes_every_name_and_nulls_undefined_values() {
        let t = Table {
            columns: vec!["a\"b".into(), "c\\d".into(), "e".into()],
            rows: vec![
                (
                    "q\"uote\\ \n\t\u{1} é 😀".into(),
                    vec![Some(0.1), None, Some(f64::NAN)],
                ),
                (
                    "m2".into(),
                    vec![Some(1e-7), Some(3.0), Some(f64::INFINITY)],
                ),
            ],
            conventions: vec![],
            marks: vec![],
            marks_note: String::new(),
            kind: None,
            baseline: None,
            groups: Vec::new(),
        };
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(json[0]["model"], "q\"uote\\ \n\t\u{1} é 😀");
        assert_eq!(json[0]["metrics"]["a\"b"], serde_json::json!(0.1));
        assert_eq!(json[0]["metrics"]["c\\d"], serde_json::Value::Null);
        assert_eq!(json[0]["metrics"]["e"], serde_json::Value::Null);
        assert_eq!(json[1]["metrics"]["a\"b"], serde_json::json!(1e-7));
        assert_eq!(json[1]["metrics"]["e"], serde_json::Value::Null);
        let empty = Table {
            columns: vec![],
            rows: vec![],
            conventions: vec![],
            marks: vec![],
            marks_note: String::new(),
            kind: None,
            baseline: None,
            groups: Vec::new(),
        };
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&empty.to_json()).unwrap(),
            serde_json::json!([])
        );
    }

    #[test]
    fn exports_carry_no_formulas_markup_or_controls_from_names() {
        let t = Table {
            columns: vec!["ndcg@10".into()],
            rows: vec![
                ("=HYPERLINK(\"http://x\")".into(), vec![Some(-0.5)]),
                ("<b>[x](http://e)</b>".into(), vec![Some(0.5)]),
                ("[20cm]\u{7}".into(), vec![Some(0.25)]),
            ],
            conventions: vec![],
            marks: vec![],
            marks_note: String::new(),
            kind: None,
            baseline: None,
            groups: Vec::new(),
        };
        let csv = t.to_csv();
        assert!(
            csv.contains("\"'=HYPERLINK(\"\"http://x\"\")\",-0.5\n"),
            "{csv}"
        );
        let md = t.to_markdown(2);
        assert!(!md.contains("<b>") && !md.contains("]("), "{md}");
        let tex = t.to_latex(2);
        assert!(
            tex.contains("\n{[}20cm{]}\\textbackslash{}x07 & 0.25"),
            "{tex}"
        );
        assert!(!tex.contains('\u{7}'));
    }

    #[test]
    fn markdown_latex_and_json() {
        let t = table();
        // metrics keep their decimals (1.000, 0.000); counts have none
        let md = t.to_markdown(3);
        assert!(md.contains("| x\\_y\\|z | 0.333 | 1.000 | 12 |"), "{md}");
        assert!(md.contains("| 0.500 | — | 0 |"), "{md}");
        let tex = t.to_latex(3);
        assert!(tex.contains("x\\_y|z & 0.333 & 1.000 & 12 \\\\"));
        assert!(tex.contains("ndcg@10 & roc\\_auc"));
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(json[0]["metrics"]["roc_auc"], serde_json::Value::Null);
        assert_eq!(json[1]["metrics"]["ndcg@10"], serde_json::json!(1.0 / 3.0));
    }

    /// The per-query interchange file: ids a spreadsheet would run made
    /// inert (and read back as they were), numbers left numbers (-0.5), the
    /// conventions that are not the defaults in a last column.
    #[test]
    fn per_query_csv_has_inert_cells_and_its_conventions() {
        use crate::core::evaluate::{Conventions, ModelReport};
        let model = ModelReport {
            name: "@run".into(),
            metrics: Default::default(),
            unit_ids: vec![
                "=HYPERLINK(\"http://x\",\"y\")".into(),
                "-1".into(),
                "q3".into(),
            ],
            per_unit: [("spearman".to_string(), vec![-0.5, 0.25, f64::NAN])].into(),
            zero_division: vec![],
        };
        let mut report = Report {
            kind: registry::Kind::Ranking,
            columns: vec!["spearman".into()],
            conventions: Conventions::default(),
            models: vec![model],
            warnings: vec![],
        };
        let csv = per_query_csv(&report);
        assert_eq!(
            csv,
            "query_id,model,metric,value\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'@run,spearman,-0.5\n'-1,'@run,spearman,0.25\nq3,'@run,spearman,\n"
        );
        report.conventions.gain = crate::core::ranking_metrics::Gain::Exponential;
        report.conventions.relevance_level = 2;
        let csv = per_query_csv(&report);
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        assert_eq!(
            reader.headers().unwrap(),
            vec!["query_id", "model", "metric", "value", "conventions"]
        );
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(&rows[0][3], "-0.5");
        for row in &rows {
            assert_eq!(&row[4], "relevance_level=2; gain=exponential");
        }
        // read back: the ids as they were, the values as written
        let mut ws = crate::parse::Workspace::default();
        ws.load_bytes("values.csv", csv.as_bytes(), &Default::default())
            .unwrap();
        let back = ws.precomputed_report(None).unwrap();
        assert_eq!(back.models[0].name, "@run");
        let mut ids = back.models[0].unit_ids.clone();
        ids.sort();
        assert_eq!(ids, ["-1", "=HYPERLINK(\"http://x\",\"y\")"]);
    }

    #[test]
    fn every_export_carries_the_conventions_that_are_not_the_defaults() {
        let mut t = table();
        assert!(t
            .to_markdown(3)
            .ends_with("\n*Conventions\\: Rankscope's defaults.*\n"));
        assert!(!t.to_csv().contains("conventions"));
        assert!(!t.to_json().contains("conventions"));
        t.conventions = vec!["gain=exponential".into(), "ties=file".into()];
        let csv = t.to_csv();
        assert!(
            csv.starts_with("model,ndcg@10,roc_auc,tp,conventions\n"),
            "{csv}"
        );
        assert!(csv.contains(",0.0,gain=exponential; ties=file\n"), "{csv}");
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(
            json[1]["conventions"],
            serde_json::json!(["gain=exponential", "ties=file"])
        );
        assert!(t.to_latex(2).contains("\\par{\\footnotesize Conventions that differ from Rankscope's defaults: gain=exponential, ties=file.}"), "{}", t.to_latex(2));
        assert!(t.to_markdown(2).contains("gain=exponential, ties=file"));
        // from a report: the session's own list
        let report = crate::core::evaluate::Report {
            kind: crate::core::registry::Kind::Binary,
            columns: vec![],
            conventions: crate::core::evaluate::Conventions {
                threshold: 0.3,
                ..Default::default()
            },
            models: vec![],
            warnings: vec![],
        };
        assert_eq!(
            Table::from_report(&report, None).conventions,
            ["threshold=0.3"]
        );
    }
}
