//! The metric table: models x metrics, best value marked, differences to a
//! baseline, formula and convention on every header, exports.

use leptos::prelude::*;

use super::state::{AppState, Shared};
use super::util::{download, slug};
use crate::compare::{adjustment, mark};
use crate::core::evaluate::Report;
use crate::core::registry::{self, Kind};
use crate::plot::series_hex;
use crate::report::{fixed, full, Table};

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

fn higher_is_better(kind: Kind, id: &str) -> bool {
    registry::info(registry::base_of(id), kind).is_none_or(|i| i.higher_is_better)
}

#[component]
pub fn MetricTable(kind: Kind, report: Memo<Option<Shared<Report>>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    // the models' rows and the groups' (the Models card's groups box)
    let table = move || {
        report.get().map(|r| {
            let mut t = Table::from_report(&r, None);
            t.group(&crate::diagnose::groups_of(&state.diagnose.get()));
            t
        })
    };
    // the worker's tests of this report, none while new ones run (see compare_view.rs)
    let current = move || {
        state
            .tested
            .get()
            .filter(|t| t.kind == kind && state.testing.get().is_none())
    };
    let export = move |format: &'static str| {
        move |_| {
            let Some(mut t) = table() else { return };
            t.baseline = state
                .baseline
                .get()
                .filter(|b| t.rows.iter().any(|r| &r.0 == b));
            // the marks against the chosen baseline travel with the values
            // (an event handler: `get` tracks nothing here)
            let tested = current().filter(|t| Some(&t.baseline) == state.baseline.get().as_ref());
            if let Some(tested) = tested {
                let s = state.tests.get();
                t.marks = t
                    .rows
                    .iter()
                    .map(|(name, _)| {
                        t.columns
                            .iter()
                            .map(|c| {
                                tested
                                    .cell(name, c)
                                    .map_or(0, |x| mark(x[2], x[0], s.alpha))
                            })
                            .collect()
                    })
                    .collect();
                t.marks_note = crate::compare::marks_note(
                    if kind == Kind::Binary {
                        crate::compare::DELONG
                    } else {
                        s.test.title()
                    },
                    s.correction,
                    s.alpha,
                    &tested.baseline,
                    kind.unit(),
                );
            }
            let name = format!("rankscope-{}", slug(kind.label()));
            match format {
                // trec_eval's -q lines of every shown run (its official
                // measures and those of the table, under the conventions in force)
                "trec" => {
                    let conv = state.conv.get();
                    let complete = conv.query_set == crate::core::ranking::QuerySet::Qrels;
                    let measures = crate::trec_format::official_and(&state.columns(kind));
                    let text: String = state.ws.with(|w| {
                        w.ranking
                            .iter()
                            .flat_map(|d| {
                                (0..d.runs.len())
                                    .filter(|&i| !state.is_hidden(kind, &d.runs[i].name))
                                    .map(|i| {
                                        crate::trec_format::format_run(
                                            d, i, &conv, &measures, true, complete,
                                        )
                                    })
                                    .collect::<Vec<_>>()
                            })
                            .collect()
                    });
                    download(&format!("{name}.trec_eval.txt"), "text/plain", &text)
                }
                // the others written by a worker ([`Table::export`]): the
                // exporters' code stays out of the page
                _ => leptos::task::spawn_local(async move {
                    let (ext, mime) = match format {
                        "csv" => ("csv", "text/csv"),
                        "json" => ("json", "application/json"),
                        "md" => ("md", "text/markdown"),
                        _ => ("tex", "text/x-tex"),
                    };
                    match super::worker::export(&t, format).await {
                        Ok(text) => download(&format!("{name}.{ext}"), mime, &text),
                        Err(why) => state.say(
                            super::state::Level::Error,
                            "The table could not be exported",
                            vec![why],
                        ),
                    }
                }),
            }
        }
    };
    // the table as markup ([`markup`]); a click or Enter on a value
    // explains it (one listener on the table's box)
    let rows = move || match table() {
        Some(t) => markup(state, kind, &t, current()),
        None => r#"<p class="muted">No models to show.</p>"#.into(),
    };
    let explain = move |ev: web_sys::MouseEvent| {
        if let Some(td) = super::util::clicked(&ev, "td[data-metric]") {
            let attr = |a: &str| td.get_attribute(a).unwrap_or_default();
            let (model, metric) = (attr("data-model"), attr("data-metric"));
            state.explain.set(Some(super::state::Target {
                kind,
                model,
                metric,
                query: None,
            }));
        }
    };
    let models = move || {
        report
            .get()
            .map(|r| r.models.iter().map(|m| m.name.clone()).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let warnings = move || report.get().map(|r| r.warnings.clone()).unwrap_or_default();
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"Metrics"</h2>
                <label>"Baseline "
                    <select on:change=move |ev| { let v = event_target_value(&ev); state.baseline.set((!v.is_empty()).then_some(v)); }>
                        <option value="">"none"</option>
                        {move || models().into_iter().map(|m| { let sel = state.baseline.get().as_deref() == Some(m.as_str()); view! { <option value=m.clone() selected=sel>{m.clone()}</option> } }).collect_view()}
                    </select>
                </label>
                <span class="spacer"></span>
                <button class="small" data-export="csv" on:click=export("csv")>"CSV"</button>
                <button class="small" data-export="json" on:click=export("json")>"JSON"</button>
                <button class="small" data-export="md" on:click=export("md")>"Markdown"</button>
                <button class="small" data-export="tex" on:click=export("tex")>"LaTeX"</button>
                {(kind == Kind::Ranking).then(|| view! { <button class="small" data-export="trec" title="trec_eval -q: per query and all, trec_eval's official measures" on:click=export("trec")>"trec_eval -q"</button> })}
            </div>
            <ColumnPicker kind=kind/>
            <div on:keydown=super::util::grid_keys on:click=explain inner_html=rows></div>
            <ul class="warnings" inner_html={move || warnings().iter().map(|w| format!("<li>⚠ {}</li>", crate::text::html(w))).collect::<String>()}></ul>
        </section>
    }
}

/// Text of several lines for an attribute (a tooltip): each line escaped
/// ([`crate::text::html`] writes a line break as an escape), the breaks kept.
fn lines(text: &str) -> String {
    let lines: Vec<String> = text.split('\n').map(crate::text::html).collect();
    lines.join("&#10;")
}

/// The metric table as markup (a string: a fraction of the code a view of
/// every cell compiles to): headers with their help and † marks, a row per
/// model (best values starred, differences to the baseline, the tests'
/// marks and intervals), then a row per group of models (mean ± sd).
fn markup(
    state: AppState,
    kind: Kind,
    t: &Table,
    tested: Option<Shared<super::state::Tested>>,
) -> String {
    use std::fmt::Write;
    let esc = crate::text::html;
    let baseline = state
        .baseline
        .get()
        .filter(|b| t.rows.iter().any(|r| &r.0 == b));
    let best = t.best();
    let base_values: Option<Vec<Option<f64>>> = baseline
        .as_ref()
        .and_then(|b| t.rows.iter().find(|r| &r.0 == b).map(|r| r.1.clone()));
    let mut s = String::from(
        r#"<div class="table-scroll"><table class="metrics"><thead><tr><th scope="col" tabindex="-1">model</th>"#,
    );
    // a column a non-default convention changes is marked † (with the
    // conventions in its help and data-conventions)
    for (i, c) in t.columns.iter().enumerate() {
        let changed = t.changed(i);
        let mut help = header_help(kind, c);
        let mark = if changed.is_empty() { "" } else { "†" };
        if !changed.is_empty() {
            help = format!("{help}\nNot the default here: {changed}");
        }
        let help = lines(&help);
        let _ = write!(
            s,
            r#"<th scope="col" tabindex="-1" title="{help}" data-help="{help}" data-conventions="{}">{}<sup class="conv">{mark}</sup></th>"#,
            esc(&changed),
            esc(c)
        );
    }
    s.push_str("</tr></thead><tbody>");
    let tests = state.tests.get();
    for (r, (name, values)) in t.rows.iter().enumerate() {
        let color = series_hex(state.color_index(kind, name));
        let is_base = baseline.as_deref() == Some(name.as_str());
        let name_html = esc(name);
        let _ = write!(
            s,
            r#"<tr{}><th scope="row" tabindex="-1"><span class="swatch" style="background:{color}"></span>{name_html}</th>"#,
            if is_base { r#" class="baseline""# } else { "" }
        );
        for (c, v) in values.iter().enumerate() {
            let metric = &t.columns[c];
            let is_best = v.is_some() && *v == best[c];
            let delta = match (&base_values, v, is_base) {
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
            let mut title = match v {
                Some(v) => full(*v),
                None => "undefined: see the warnings".to_string(),
            };
            let cell = tested.as_ref().and_then(|t| t.cell(name, metric));
            let num = |i: usize| cell.map(|c| c[i]).filter(|v| v.is_finite());
            let (p, adjusted, lo, hi) = (num(1), num(2), num(3), num(4));
            let against = tested
                .as_ref()
                .is_some_and(|t| baseline.as_ref() == Some(&t.baseline));
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
                ">{}{}",
                fixed(metric, *v, 4),
                if is_best { " ★" } else { "" }
            );
            if marked != 0 {
                let good = (marked > 0) == higher_is_better(kind, metric);
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
    // groups of models (folds, seeds: `name=pattern`), each column's
    // mean ± sd over the members (as `rankscope eval --group`), the
    // members' values on hover
    for g in &t.groups {
        let group = esc(&g.name);
        let _ = write!(
            s,
            r#"<tr class="group" data-group="{group}"><th scope="row" tabindex="-1">{group} <span class="muted small">mean ± sd of {} models</span></th>"#,
            g.members.len()
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
    s.push_str("</tbody></table></div>");
    s
}

/// Which metric families and cutoffs the table shows.
#[component]
fn ColumnPicker(kind: Kind) -> impl IntoView {
    let state = expect_context::<AppState>();
    let chip = move |m: &'static registry::MetricInfo| {
        let base = m.base;
        let on = move || state.bases.with(|b| b.contains(&(kind, base)));
        let toggle = move |_| {
            state.bases.update(|b| {
                if let Some(i) = b.iter().position(|x| *x == (kind, base)) {
                    b.remove(i);
                } else {
                    b.push((kind, base));
                }
            })
        };
        view! { <button class="chip" class:on=on aria-pressed=move || on().to_string() on:click=toggle title=m.formula data-metric=base>{m.title}</button> }
    };
    let listed = move |extra: bool| {
        registry::METRICS.iter().filter(move |m| {
            m.kind == kind
                && m.is_trec_extra() == extra
                // the confusion matrix's cells are shown as the matrix
                && !(m.count && matches!(m.compute, registry::Compute::Threshold(..)))
        })
    };
    let chips = listed(false).map(chip).collect_view();
    // trec_eval's less common measures, folded away until wanted (open while one is shown)
    let extras: Vec<&'static registry::MetricInfo> = listed(true).collect();
    let any_extra_on = move || {
        state.bases.with(|b| {
            b.iter()
                .any(|&(k, base)| registry::info(base, k).is_some_and(|i| i.is_trec_extra()))
        })
    };
    let more = (!extras.is_empty()).then(|| {
        let count = extras.len();
        let chips = extras.into_iter().map(chip).collect_view();
        // open when asked, and always while one of them is shown
        let asked = RwSignal::new(false);
        let toggle = move |ev: leptos::ev::MouseEvent| {
            ev.prevent_default();
            asked.update(|o| *o = !*o);
        };
        view! { <details class="more-metrics" prop:open=move || asked.get() || any_extra_on()><summary on:click=toggle>{format!("trec_eval's other measures ({count})")}</summary>{chips}</details> }
    });
    let has_cutoffs = registry::METRICS
        .iter()
        .any(|m| m.kind == kind && m.cutoff != registry::Cutoff::None);
    let cutoffs_text = move || {
        state
            .cutoffs
            .get()
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let set_cutoffs = move |ev| {
        let text = event_target_value(&ev);
        let ks: Vec<usize> = text
            .split([',', ' '])
            .filter_map(|s| s.trim().parse().ok())
            .filter(|&k| k > 0 && k <= 100_000)
            .collect();
        let (ks, note) = registry::capped_cutoffs(ks);
        if let Some(note) = note {
            state.say(super::state::Level::Warning, "Too many cutoffs", vec![note]);
        }
        if !ks.is_empty() {
            state.cutoffs.set(ks);
        }
    };
    view! {
        <div class="picker">
            {chips}
            {more}
            {has_cutoffs.then(|| view! { <label class="cutoffs">"k = " <input type="text" size="14" prop:value=cutoffs_text on:change=set_cutoffs aria-label="cutoffs"/></label> })}
        </div>
    }
}
