//! The page's static markup, written as strings for an `inner_html` (a
//! string is a fraction of the code a view of every cell compiles to):
//! native, so tests read it without a browser. Every text from a file is
//! escaped ([`crate::text::html`]).

use std::fmt::Write;

use crate::compare::page::{Settings, Tested};
use crate::compare::{adjustment, mark};
use crate::core::binary::Confusion;
use crate::core::curves::CurveLine;
use crate::core::per_query::{RrIndex, RrValues};
use crate::core::registry::{self, Kind};
use crate::parse::error::count;
use crate::report::{fixed, full, Table};
use crate::text::html as esc;

/// One bar chart of a histogram as HTML, for an `inner_html` (static
/// markup: a string is a fraction of the code a view of it compiles to):
/// `<div class="{class}"{attrs}>` with the swatch and `title` (HTML), each
/// bar's tooltip, height in percent, count written under it (if any) and
/// label (text), then the axis caption.
pub fn histogram(
    class: &str,
    attrs: &str,
    color: &str,
    title: &str,
    bars: impl IntoIterator<Item = (String, f64, Option<usize>, String)>,
    axis: &str,
) -> String {
    let mut s = format!(
        r#"<div class="{class}"{attrs}><div class="hist-title"><span class="swatch" style="background:{color}"></span>{title}</div><div class="bars">"#
    );
    for (tip, height, count, label) in bars {
        let _ = write!(
            s,
            r#"<div class="bar" title="{}"><div class="fill" style="height:{height:.1}%;background:{color}"></div>"#,
            crate::text::html(&tip)
        );
        if let Some(c) = count {
            let _ = write!(s, r#"<span class="count">{}</span>"#, short_count(c));
        }
        let _ = write!(
            s,
            r#"<span class="label">{}</span></div>"#,
            crate::text::html(&label)
        );
    }
    let _ = write!(s, r#"</div><div class="axis-x">{axis}</div></div>"#);
    s
}

/// A bar's count in at most four characters (`12345` as `12k`), so that
/// neighbouring bars' counts never overlap; the bar's title has it exact.
pub fn short_count(n: usize) -> String {
    match n {
        0..=9999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1000),
        _ => format!("{}M", n / 1_000_000),
    }
}
/// The per-query table's rows `shown` as markup: per query its id (a
/// button that opens its lists), each run's first relevant rank and value
/// (a button that explains it; — for a query the run has no value of), and
/// the difference `pair` (other, baseline), its sign as its class.
pub fn per_query_rows(
    ix: &RrIndex,
    v: &RrValues,
    shown: &[usize],
    pair: Option<(usize, usize)>,
) -> String {
    let text = |x: f64, sign: bool| {
        if x.is_nan() {
            "—".to_string()
        } else if sign {
            format!("{x:+.4}")
        } else {
            format!("{x:.4}")
        }
    };
    let mut s = String::new();
    for (r, &row) in shown.iter().enumerate() {
        let q = esc(&ix.qids[row]);
        let (ranks, rr) = v.row(row);
        // the table's one Tab stop: the first query (the page's grid keys move it)
        let stop = if r == 0 { "0" } else { "-1" };
        let _ = write!(
            s,
            r#"<tr data-query="{q}"><th scope="row"><button class="link" tabindex="{stop}">{q}</button></th>"#
        );
        for ((rank, rr), model) in ranks.iter().zip(rr).zip(&ix.names) {
            let rank = rank.map_or("none".into(), |x| x.to_string());
            let _ = write!(
                s,
                r#"<td class="num">{rank}</td><td class="num" data-per-query="{rr:?}"><button class="link" title="explain" tabindex="-1" data-model="{}">{}</button></td>"#,
                esc(model),
                text(*rr, false)
            );
        }
        if let Some((o, b)) = pair {
            let d = rr[o] - rr[b];
            let class = if d > 0.0 {
                " pos"
            } else if d < 0.0 {
                " neg"
            } else {
                ""
            };
            let _ = write!(s, r#"<td class="num{class}">{}</td>"#, text(d, true));
        }
        s.push_str("</tr>");
    }
    s
}

/// A model's confusion matrix at its threshold, with the metrics read off it.
pub fn confusion_table(name: &str, color: &str, m: &Confusion) -> String {
    let name = esc(name);
    format!(
        r#"<table class="confusion" data-cm-model="{name}"><caption><span class="swatch" style="background:{color}"></span>{name}</caption><thead><tr><th></th><th scope="col">predicted +</th><th scope="col">predicted −</th></tr></thead><tbody><tr><th scope="row">actual +</th><td class="num" data-cm="tp">{}</td><td class="num" data-cm="fn">{}</td></tr><tr><th scope="row">actual −</th><td class="num" data-cm="fp">{}</td><td class="num" data-cm="tn">{}</td></tr></tbody><tfoot><tr><td colspan="3">accuracy {} · precision {} · recall {} · F1 {} · MCC {:.4}</td></tr></tfoot></table>"#,
        m.tp,
        m.fn_,
        m.fp,
        m.tn,
        fixed("", m.accuracy(), 4),
        fixed("", m.precision(), 4),
        fixed("", m.recall(), 4),
        fixed("", m.f1(), 4),
        m.mcc()
    )
}

fn header_help(kind: Kind, id: &str) -> String {
    let base = registry::base_of(id);
    match registry::info(base, kind) {
        Some(i) => format!(
            "{}\n{}\nConventions: {}\nReference: {}{}",
            i.title,
            i.formula,
            i.conventions,
            i.reference,
            i.trec_name()
                .map_or(String::new(), |t| format!("\ntrec_eval: -m {t}"))
        ),
        None => id.to_string(),
    }
}

/// Text of several lines for an attribute (a tooltip): each line escaped
/// ([`crate::text::html`] writes a line break as an escape), the breaks kept.
fn lines(text: &str) -> String {
    let lines: Vec<String> = text.split('\n').map(crate::text::html).collect();
    lines.join("&#10;")
}

/// The table's header cells: each column's help, and † on a column a
/// non-default convention changes (the conventions in its help and
/// `data-conventions`).
fn header_cells(s: &mut String, kind: Kind, t: &Table) {
    for (i, c) in t.columns.iter().enumerate() {
        let changed = t.changed(i);
        let mut help = header_help(kind, c);
        let mark = if changed.is_empty() { "" } else { "†" };
        if !changed.is_empty() {
            help = format!("{help}\nNot the default here: {changed}");
        }
        if let Some(f) = t.fingerprint(i) {
            help = format!("{help}\nDefinition fingerprint: {f}");
        }
        let help = lines(&help);
        let _ = write!(
            s,
            r#"<th scope="col" tabindex="-1" title="{help}" data-help="{help}" data-conventions="{}">{}<sup class="conv">{mark}</sup></th>"#,
            esc(&changed),
            esc(c)
        );
    }
}

/// Groups of models (folds, seeds: `name=pattern`): each column's mean ±
/// sd over the members (as `rankscope eval --group`), the members' values
/// on hover.
fn group_rows(s: &mut String, t: &Table) {
    for g in &t.groups {
        let group = esc(&g.name);
        let _ = write!(
            s,
            r#"<tr class="group" data-group="{group}"><th scope="row" tabindex="-1">{group} <span class="muted small">mean ± sd of {}</span></th>"#,
            count(g.members.len(), "model")
        );
        if g.members.is_empty() {
            let _ = write!(
                s,
                r#"<td colspan="{}">no model matches '{}'</td>"#,
                t.columns.len(),
                esc(&g.pattern)
            );
        }
        for (c, column) in t
            .columns
            .iter()
            .enumerate()
            .filter(|_| !g.members.is_empty())
        {
            let mut tip = String::new();
            for &r in &g.members {
                let (name, row) = &t.rows[r];
                let _ = writeln!(
                    tip,
                    "{name}: {}",
                    fixed(column, row.get(c).copied().flatten(), 4)
                );
            }
            let stats = g.stats.get(c).copied().flatten();
            let (mean, sd) = stats.map_or((String::new(), String::new()), |(m, sd)| {
                (full(m), full(sd))
            });
            let shown = stats.map_or("—".into(), |(m, sd)| format!("{m:.4} ± {sd:.4}"));
            let _ = write!(
                s,
                r#"<td class="num" data-group-metric="{}" data-value="{mean}" data-sd="{sd}" title="{}">{shown}</td>"#,
                esc(column),
                lines(tip.trim_end())
            );
        }
        s.push_str("</tr>");
    }
}

/// The metric table: headers with their help and † marks, a row per model
/// (its colour from `colors`; best values starred, differences to the
/// `baseline`, the `tested` marks and intervals under the `tests`
/// settings, a ⚠ on a value `zero_division` decided, with
/// `zero_division(model, metric)`'s reason; each value's difference from
/// the baseline when `deltas`), then a row per group of models (mean ± sd).
// the table's inputs, each read as the page holds it (a struct of them
// would be built afresh for every render)
#[allow(clippy::too_many_arguments)]
pub fn metric_table(
    kind: Kind,
    t: &Table,
    baseline: Option<&str>,
    colors: &[String],
    tested: Option<&Tested>,
    tests: &Settings,
    zero_division: &dyn Fn(&str, &str) -> Option<&'static str>,
    deltas: bool,
) -> String {
    let baseline = baseline.filter(|b| t.rows.iter().any(|r| r.0 == *b));
    let best = t.best();
    let base_values: Option<Vec<Option<f64>>> =
        baseline.and_then(|b| t.rows.iter().find(|r| r.0 == b).map(|r| r.1.clone()));
    let mut s = String::from(
        r#"<div class="table-scroll"><table class="metrics"><thead><tr><th scope="col" tabindex="-1">model</th>"#,
    );
    header_cells(&mut s, kind, t);
    s.push_str("</tr></thead><tbody>");
    for (r, (name, values)) in t.rows.iter().enumerate() {
        let color = colors.get(r).map_or("", String::as_str);
        let is_base = baseline == Some(name.as_str());
        let name_html = esc(name);
        let _ = write!(
            s,
            r#"<tr{}><th scope="row" tabindex="-1"><span class="swatch" style="background:{color}"></span>{name_html}</th>"#,
            if is_base { r#" class="baseline""# } else { "" }
        );
        for (c, v) in values.iter().enumerate() {
            let metric = &t.columns[c];
            let is_best = v.is_some() && *v == best[c];
            let delta = match (&base_values, v, is_base || !deltas) {
                (Some(b), Some(v), false) => b[c].map(|b| {
                    let pp = (v - b) * 100.0;
                    let rel = if b != 0.0 {
                        format!(" ({:+.1}%)", (v - b) / b.abs() * 100.0)
                    } else {
                        String::new()
                    };
                    format!("{pp:+.2} pp{rel}")
                }),
                _ => None,
            };
            let zero = zero_division(name, metric);
            let mut title = match (v, zero) {
                (Some(v), _) => full(*v),
                (None, Some(_)) => "undefined".to_string(),
                (None, None) => "undefined: see the warnings".to_string(),
            };
            if let Some(why) = zero {
                title.push_str(&format!(
                    "\n⚠ {why}: its denominator is 0, so this is zero_division's value (Conventions ▸ Zero division)"
                ));
            }
            let cell = tested.and_then(|t| t.cell(name, metric));
            let num = |i: usize| cell.map(|c| c[i]).filter(|v| v.is_finite());
            let (p, adjusted, lo, hi) = (num(1), num(2), num(3), num(4));
            let against = tested.is_some_and(|t| baseline == Some(t.baseline.as_str()));
            let marked = cell
                .filter(|_| against)
                .map_or(0, |x| mark(x[2], x[0], tests.alpha));
            if let (Some(p), Some(a), true) = (p, adjusted, against) {
                let test = if kind == Kind::Binary {
                    crate::compare::DELONG
                } else {
                    tests.test.title()
                };
                title.push_str(&format!(
                    "\n{test}: p = {p:.4}, {} p = {a:.4}",
                    adjustment(tests.correction)
                ));
            }
            // the table's one Tab stop: its first value ([`grid_keys`] moves it)
            let stop = if r + c == 0 { "0" } else { "-1" };
            let _ = write!(
                s,
                r#"<td class="num explainable{}" data-metric="{}" data-model="{name_html}" data-value="{}" title="{}" tabindex="{stop}""#,
                if is_best { " best" } else { "" },
                esc(metric),
                v.map(full).unwrap_or_default(),
                lines(&title)
            );
            for (attr, x) in [
                ("p", p),
                ("p-adjusted", adjusted),
                ("ci-low", lo),
                ("ci-high", hi),
            ] {
                if let Some(x) = x {
                    let _ = write!(s, r#" data-{attr}="{}""#, full(x));
                }
            }
            let _ = write!(
                s,
                ">{}{}{}",
                fixed(metric, *v, 4),
                if is_best { " ★" } else { "" },
                if zero.is_some() {
                    r#"<span class="mark zd"> ⚠</span>"#
                } else {
                    ""
                }
            );
            if marked != 0 {
                let good = (marked > 0) == registry::higher_is_better(metric, kind);
                let _ = write!(
                    s,
                    r#"<span class="mark {}">{}</span>"#,
                    if good { "good" } else { "bad" },
                    if marked > 0 { " ▲" } else { " ▼" }
                );
            }
            if let (Some(lo), Some(hi), true) = (lo, hi, tests.ci) {
                let _ = write!(s, r#"<span class="ci">[{lo:.4}, {hi:.4}]</span>"#);
            }
            if let Some(d) = delta {
                let _ = write!(s, r#"<span class="delta">{d}</span>"#);
            }
            s.push_str("</td>");
        }
        s.push_str("</tr>");
    }
    group_rows(&mut s, t);
    s.push_str("</tbody></table></div>");
    s
}

/// The elbow table's rows: per run its elbow, the value there (a button
/// that explains it) and at the last cutoff; per group the same as mean ±
/// sd over its members.
pub fn elbow_rows(lines: &[CurveLine]) -> String {
    let mut s = String::new();
    for l in lines {
        let name = esc(&l.name);
        let elbow = l.elbow.map(|e| e.to_string()).unwrap_or_default();
        // a value, with its sd over a group's members
        let value = |i: usize| match (l.values.get(i), l.sd.get(i)) {
            (Some(v), Some(sd)) => format!("{v:.4} ± {sd:.4}"),
            (Some(v), None) => format!("{v:.4}"),
            _ => String::new(),
        };
        let at = l.elbow.map_or("—".into(), |e| value(e - 1));
        let last = l.values.len().wrapping_sub(1);
        let (row, what) = match l.members.len() {
            0 => ("model", String::new()),
            k => (
                "group",
                format!(
                    r#" <span class="muted small">mean ± sd of {}</span>"#,
                    count(k, "run")
                ),
            ),
        };
        let _ = write!(
            s,
            r#"<tr data-elbow-{row}="{name}" data-elbow="{elbow}"><th><span class="swatch" style="background:{}"></span>{name}{what}</th><td class="num">{}</td><td class="num">"#,
            crate::plot::series_css(l.color),
            l.elbow
                .map_or("no clear elbow".into(), |e| format!("p = {e}"))
        );
        match l.elbow {
            Some(_) if l.members.is_empty() => {
                let _ = write!(
                    s,
                    r#"<button class="link" title="explain" data-explain-elbow="{elbow}">{at}</button>"#
                );
            }
            _ => s.push_str(&at),
        }
        let _ = write!(
            s,
            r#"</td><td class="num" data-value="{}" data-sd="{}">{}</td></tr>"#,
            l.values.get(last).map_or(String::new(), |v| v.to_string()),
            l.sd.get(last).map_or(String::new(), |v| v.to_string()),
            value(last)
        );
    }
    s
}

/// A report's warnings as the table lists them: the same warning of
/// several models (`model: text`, the same text but for its numbers) is one
/// line naming them, each with its own numbers where they differ (`a (n =
/// 3) and b (n = 5): in n queries …`); others as they are.
pub fn merged_warnings(warnings: &[String], models: &[String]) -> Vec<String> {
    // (the warning's text with its numbers as #, the models, each one's numbers)
    type Group<'a> = (String, Vec<&'a str>, Vec<Vec<&'a str>>);
    let mut groups: Vec<Group> = Vec::new();
    for w in warnings {
        let model = (models.iter())
            .filter(|m| w.starts_with(m.as_str()) && w[m.len()..].starts_with(": "))
            .max_by_key(|m| m.len());
        let Some(model) = model else {
            groups.push((w.clone(), Vec::new(), Vec::new()));
            continue;
        };
        let rest = &w[model.len() + 2..];
        let (mut template, mut numbers, mut start) = (String::new(), Vec::new(), None);
        for (i, c) in rest.char_indices().chain([(rest.len(), ' ')]) {
            let digit = c.is_ascii_digit() || (c == '.' && start.is_some());
            match (start, digit) {
                (None, true) => start = Some(i),
                (Some(s), false) => {
                    numbers.push(&rest[s..i]);
                    template.push('#');
                    start = None;
                }
                _ => {}
            }
            if !digit && i < rest.len() {
                template.push(c);
            }
        }
        match (groups.iter_mut()).find(|g| g.0 == template && !g.1.is_empty()) {
            Some(g) => {
                g.1.push(model);
                g.2.push(numbers);
            }
            None => groups.push((template, vec![model], vec![numbers])),
        }
    }
    let mut out = Vec::new();
    for (template, names, numbers) in groups {
        if names.is_empty() {
            out.push(template);
            continue;
        }
        // each number the same for every model, or a letter for it
        let slots = numbers[0].len();
        let varies: Vec<bool> = (0..slots)
            .map(|j| numbers.iter().any(|n| n[j] != numbers[0][j]))
            .collect();
        let letter = |j: usize| {
            let k = varies[..j].iter().filter(|&&v| v).count();
            ["n", "m", "k", "j"][k.min(3)]
        };
        let who: Vec<String> = (names.iter().zip(&numbers))
            .map(|(name, n)| {
                let own: Vec<String> = (0..slots)
                    .filter(|&j| varies[j])
                    .map(|j| format!("{} = {}", letter(j), n[j]))
                    .collect();
                if own.is_empty() {
                    name.to_string()
                } else {
                    format!("{name} ({})", own.join(", "))
                }
            })
            .collect();
        let mut text = String::new();
        let mut j = 0;
        for c in template.chars() {
            if c == '#' {
                text.push_str(if varies[j] { letter(j) } else { numbers[0][j] });
                j += 1;
            } else {
                text.push(c);
            }
        }
        let who = match &who[..] {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
            [] => String::new(),
        };
        out.push(format!("{who}: {text}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_query_rows_escape_ids_and_mark_the_difference() {
        let ix = RrIndex {
            names: vec!["a<b".into(), "c".into()],
            runs: vec![0, 1],
            qids: vec!["q&1".into(), "q2".into()],
            rows: vec![],
        };
        let v = RrValues {
            models: 2,
            ranks: vec![Some(1), None, Some(3), Some(1)],
            rr: vec![1.0, 0.0, 1.0 / 3.0, f64::NAN],
        };
        let s = per_query_rows(&ix, &v, &[1, 0], Some((0, 1)));
        let rows: Vec<&str> = s.split("</tr>").collect();
        assert!(rows[0].starts_with(
            r#"<tr data-query="q2"><th scope="row"><button class="link" tabindex="0">q2</button>"#
        ));
        assert!(rows[0].contains(
            r#"<td class="num">3</td><td class="num" data-per-query="0.3333333333333333">"#
        ));
        // no value: a dash, and no difference to take
        assert!(rows[0].contains(r#"data-model="c">—</button>"#));
        assert!(rows[0].ends_with(r#"<td class="num">—</td>"#));
        assert!(
            rows[1].contains(r#"data-query="q&amp;1""#)
                && rows[1].contains(r#"tabindex="-1">q&amp;1<"#)
        );
        assert!(rows[1].contains(r#"data-model="a&lt;b">1.0000<"#));
        assert!(rows[1].contains(r#"<td class="num">none</td>"#));
        assert!(rows[1].ends_with(r#"<td class="num pos">+1.0000</td>"#));
    }

    #[test]
    fn a_confusion_table_has_its_cells_and_the_metrics_of_them() {
        let m = Confusion {
            tp: 3,
            fp: 1,
            fn_: 2,
            tn: 4,
        };
        let s = confusion_table("m<1>", "#0072b2", &m);
        for cell in [
            r#"data-cm="tp">3<"#,
            r#"data-cm="fn">2<"#,
            r#"data-cm="fp">1<"#,
            r#"data-cm="tn">4<"#,
        ] {
            assert!(s.contains(cell), "{cell}");
        }
        assert!(s.contains(r#"data-cm-model="m&lt;1&gt;""#));
        // accuracy 7/10, precision 3/4, recall 3/5, F1 6/9, MCC (12 − 2)/√(4·5·5·6)
        assert!(
            s.contains(
                "accuracy 0.7000 · precision 0.7500 · recall 0.6000 · F1 0.6667 · MCC 0.4082"
            ),
            "{s}"
        );
    }

    /// A value `zero_division` decided (precision with nothing predicted
    /// positive) is marked ⚠ with its reason, under every rule; a ratio is not.
    #[test]
    fn the_metric_table_marks_values_zero_division_decided() {
        use crate::core::binary::ZeroDivision;
        use crate::core::evaluate::{evaluate, Conventions};
        use crate::core::registry::MetricId;
        use crate::parse::{LoadOptions, Workspace};
        let mut ws = Workspace::default();
        let csv = "label,m\n1,0.2\n0,0.1\n1,0.3\n";
        ws.load_bytes("m.csv", csv.as_bytes(), &LoadOptions::default())
            .unwrap();
        let ids = [registry::id::PRECISION, registry::id::RECALL].map(|m| MetricId::new(m, None));
        for (rule, shown) in [
            (ZeroDivision::Zero, "0.0000"),
            (ZeroDivision::One, "1.0000"),
            (ZeroDivision::Undefined, "—"),
        ] {
            let conv = Conventions {
                zero_division: rule,
                ..Default::default()
            };
            let report = evaluate(&ws.dataset(Kind::Binary).unwrap(), &conv, &ids);
            let t = Table::from_report(&report, None);
            let html = metric_table(
                Kind::Binary,
                &t,
                None,
                &[],
                None,
                &Settings::default(),
                &|m, c| report.zero_division(m, c),
                true,
            );
            let cell = |metric: &str| {
                let start = html.find(&format!(r#"data-metric="{metric}""#)).unwrap();
                html[start..start + html[start..].find("</td>").unwrap()].to_string()
            };
            let precision = cell("precision");
            assert!(
                precision.contains(&format!(r#">{shown}<span class="mark zd"> ⚠</span>"#))
                    && precision.contains("⚠ no row is predicted positive: its denominator is 0"),
                "{precision}"
            );
            // recall: 0 of 2 positives, a ratio
            let recall = cell("recall");
            assert!(
                recall.contains(">0.0000") && !recall.contains("⚠"),
                "{recall}"
            );
        }
    }

    #[test]
    fn the_metric_table_marks_best_values_differences_and_tests() {
        use crate::core::evaluate::{evaluate, Conventions};
        use crate::core::registry::MetricId;
        use crate::parse::{LoadOptions, Workspace};
        let mut ws = Workspace::default();
        let csv = "label,a<1>,b\n1,0.9,0.6\n0,0.2,0.7\n1,0.8,0.4\n0,0.3,0.5\n";
        ws.load_bytes("m.csv", csv.as_bytes(), &LoadOptions::default())
            .unwrap();
        let ids = [MetricId::new(registry::id::ROC_AUC, None)];
        let report = evaluate(
            &ws.dataset(Kind::Binary).unwrap(),
            &Conventions::default(),
            &ids,
        );
        let t = Table::from_report(&report, None);
        // a's AUC 1, b's 0.25 (1 of 4 pairs in order); a tested against b:
        // mean difference 0.75, p 0.01, adjusted 0.02, interval [0.5, 1]
        let tested = Tested {
            kind: Kind::Binary,
            baseline: "b".into(),
            models: vec!["a<1>".into()],
            metrics: vec!["roc_auc".into()],
            cells: vec![0.75, 0.01, 0.02, 0.5, 1.0],
            html: String::new(),
        };
        let colors = ["#111".to_string(), "#222".to_string()];
        let tests = Settings {
            ci: true,
            ..Settings::default()
        };
        let s = metric_table(
            Kind::Binary,
            &t,
            Some("b"),
            &colors,
            Some(&tested),
            &tests,
            &|_, _| None,
            true,
        );
        let rows: Vec<&str> = s.split("</tr>").collect();
        assert!(
            rows[0].contains(r#"data-conventions="">roc_auc<"#),
            "{}",
            rows[0]
        );
        let a = rows[1];
        assert!(
            a.contains(r#"background:#111"></span>a&lt;1&gt;</th>"#),
            "{a}"
        );
        assert!(a.contains(r#"class="num explainable best" data-metric="roc_auc" data-model="a&lt;1&gt;" data-value="1.0""#), "{a}");
        assert!(
            a.contains(
                r#"data-p="0.01" data-p-adjusted="0.02" data-ci-low="0.5" data-ci-high="1.0""#
            ),
            "{a}"
        );
        assert!(a.contains(r#"1.0000 ★<span class="mark good"> ▲</span><span class="ci">[0.5000, 1.0000]</span><span class="delta">+75.00 pp (+300.0%)</span>"#), "{a}");
        let b = rows[2];
        assert!(
            b.starts_with(r#"<tr class="baseline">"#) && b.contains(r#"data-value="0.25""#),
            "{b}"
        );
        assert!(!b.contains("delta") && !b.contains("mark"), "{b}");
        // the differences left out: the marks stay, no delta
        let plain = metric_table(
            Kind::Binary,
            &t,
            Some("b"),
            &colors,
            Some(&tested),
            &tests,
            &|_, _| None,
            false,
        );
        assert!(
            plain.contains(r#"<span class="mark good"> ▲</span>"#) && !plain.contains("delta"),
            "{plain}"
        );
        // tested against another baseline: its numbers kept, no mark, no p in the title
        let other = metric_table(
            Kind::Binary,
            &t,
            Some("a<1>"),
            &colors,
            Some(&tested),
            &tests,
            &|_, _| None,
            true,
        );
        assert!(
            !other.contains("class=\"mark") && !other.contains(": p = "),
            "{other}"
        );
        assert!(s.contains("DeLong"), "the test named in the title: {s}");
        // the exports' marks: the same rule, a note naming the test and baseline
        let mut marked = t.clone();
        tested.mark(&mut marked, &tests);
        assert_eq!(marked.marks, [[1], [0]]);
        assert!(marked.marks_note.contains("DeLong") && marked.marks_note.contains('b'));
        // a group of both: mean 0.625, sd (ddof 0) 0.375; one that matches nothing says so
        let mut grouped = t.clone();
        grouped.group(&[
            ("g&".into(), "*".into()),
            ("none".into(), "zz*".into()),
            ("one".into(), "b".into()),
        ]);
        let g = metric_table(
            Kind::Binary,
            &grouped,
            None,
            &colors,
            None,
            &tests,
            &|_, _| None,
            true,
        );
        assert!(g.contains(r#"<tr class="group" data-group="g&amp;"><th scope="row" tabindex="-1">g&amp; <span class="muted small">mean ± sd of 2 models</span></th><td class="num" data-group-metric="roc_auc" data-value="0.625" data-sd="0.375" title="a&lt;1&gt;: 1.0000&#10;b: 0.2500">0.6250 ± 0.3750</td></tr>"#), "{g}");
        assert!(
            g.contains(r#"<td colspan="1">no model matches 'zz*'</td>"#),
            "{g}"
        );
    }

    #[test]
    fn elbow_rows_name_the_elbow_and_a_groups_members() {
        let line = |name: &str, elbow, members: usize| CurveLine {
            name: name.into(),
            color: 0,
            values: vec![0.5, 0.625, 0.75],
            cumulative: vec![],
            elbow,
            sd: if members > 0 {
                vec![0.0, 0.125, 0.25]
            } else {
                vec![]
            },
            members: (0..members).map(|i| format!("m{i}")).collect(),
        };
        let s = elbow_rows(&[
            line("a<b", Some(2), 0),
            line("flat", None, 0),
            line("g", Some(2), 1),
        ]);
        let rows: Vec<&str> = s.split("</tr>").collect();
        assert!(
            rows[0].starts_with(r#"<tr data-elbow-model="a&lt;b" data-elbow="2">"#),
            "{}",
            rows[0]
        );
        assert!(rows[0].contains(r#"<td class="num">p = 2</td><td class="num"><button class="link" title="explain" data-explain-elbow="2">0.6250</button></td><td class="num" data-value="0.75" data-sd="">0.7500</td>"#), "{}", rows[0]);
        assert!(
            rows[1].contains("no clear elbow") && rows[1].contains(r#"<td class="num">—</td>"#),
            "{}",
            rows[1]
        );
        // a group: mean ± sd, nothing to explain, one member named in the singular
        assert!(
            rows[2].starts_with(r#"<tr data-elbow-group="g""#),
            "{}",
            rows[2]
        );
        assert!(
            rows[2].contains("mean ± sd of 1 run</span>") && rows[2].contains(">0.6250 ± 0.1250<"),
            "{}",
            rows[2]
        );
        assert!(
            rows[2].contains(r#"data-value="0.75" data-sd="0.25">0.7500 ± 0.2500<"#),
            "{}",
            rows[2]
        );
    }

    #[test]
    fn counts_under_bars_take_at_most_four_characters() {
        assert_eq!(short_count(9999), "9999");
        assert_eq!(short_count(12_345), "12k");
        assert_eq!(short_count(3_400_000), "3M");
        let h = histogram(
            "hist",
            "",
            "#000",
            "<b>t</b>",
            [("a<".into(), 50.0, Some(12_345), "1".into())],
            "axis",
        );
        assert!(h.contains(r#"title="a&lt;""#) && h.contains(r#"<span class="count">12k</span>"#));
    }

    /// Six runs with the same tie-rule warning (their own counts) and two
    /// with the same missing-queries warning make two lines naming them;
    /// a warning of one model, and one of no model, stay as they are.
    #[test]
    fn the_same_warning_of_several_models_is_one_line() {
        let models: Vec<String> = (1..=6)
            .map(|i| format!("run{i}"))
            .chain(["run1-x".into()])
            .collect();
        let mut warnings: Vec<String> = (1..=6)
            .map(|i| format!("run{i}: in {} queries equal scores tie documents of different grades, so their values depend on the tie rule (now file order).", i * 3 % 7))
            .collect();
        warnings.push(
            "run2: 4 run queries are not in the qrels (q1, q2, q3, q4); they are left out.".into(),
        );
        warnings.push(
            "run1-x: 4 run queries are not in the qrels (q1, q2, q3, q4); they are left out."
                .into(),
        );
        warnings.push("run3: 12.5% of its retrieved documents are judged, against 40.0% for the best-judged model.".into());
        warnings.push("the qrels repeat a judgment".into());
        let merged = merged_warnings(&warnings, &models);
        assert_eq!(
            merged,
            [
                "run1 (n = 3), run2 (n = 6), run3 (n = 2), run4 (n = 5), run5 (n = 1) and run6 (n = 4): in n queries equal scores tie documents of different grades, so their values depend on the tie rule (now file order).",
                "run2 and run1-x: 4 run queries are not in the qrels (q1, q2, q3, q4); they are left out.",
                "run3: 12.5% of its retrieved documents are judged, against 40.0% for the best-judged model.",
                "the qrels repeat a judgment",
            ]
        );
    }
}
