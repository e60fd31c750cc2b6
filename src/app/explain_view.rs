//! "Explain this number": the panel that opens on a metric cell, a point of
//! the elbow curve or a reciprocal-rank cell, showing the computation with its
//! own terms ([`crate::core::explain`]; the same kernels as the tables).

use leptos::prelude::*;

use super::state::{AppState, Target};
use crate::core::evaluate;
use crate::core::explain::{self, Explanation};
use crate::core::registry::{self, Kind, MetricId};

/// The explanation of `target` under the conventions in force, or why there is none.
fn compute(state: AppState, t: &Target) -> Result<Explanation, String> {
    let id = MetricId::parse(&t.metric, t.kind)?;
    let conv = state.conv.get();
    match t.kind {
        Kind::Ranking => {
            let prepared = state.prepared.get();
            let idx = prepared
                .iter()
                .position(|p| p.name == t.model)
                .ok_or("this model is no longer loaded")?;
            let p = &prepared[idx];
            state.ws.with(|w| {
                let d = w.ranking.as_ref().ok_or("no ranking data")?;
                let run = d.runs.iter().find(|r| r.name == t.model).ok_or("no such run")?;
                let report = evaluate::evaluate_prepared(d, [p], &conv, std::slice::from_ref(&id));
                let model = report.models.first().ok_or("nothing computed")?;
                let key = id.to_string();
                match &t.query {
                    Some(qid) => {
                        let i = model
                            .unit_ids
                            .iter()
                            .position(|u| u == qid)
                            .ok_or(format!("query {qid} is not evaluated"))?;
                        let docs = explain::ranked_docs(p, run, i);
                        explain::query(&p.query(i), &docs, &id, &conv.ranking_ctx()).ok_or_else(|| {
                            if p.query(i).average_ties {
                                "Under averaged ties the value is an expectation over every order of the tied documents: switch the tie rule to see one list.".to_string()
                            } else {
                                format!("{key} has no per-query breakdown here; its value for {qid} is {}.", model.per_unit.get(&key).and_then(|v| v.get(i)).map_or("—".into(), |v| format!("{v:.4}")))
                            }
                        })
                    }
                    None => {
                        let shown = model.metrics.get(&key).copied().flatten().ok_or("undefined")?;
                        explain::over_queries(&id, &model.unit_ids, model.per_unit.get(&key), shown)
                    }
                }
            })
        }
        Kind::Binary => {
            let prepared = state.binary.get();
            let p = prepared
                .iter()
                .find(|p| p.name == t.model)
                .ok_or("this model is no longer loaded")?;
            let e = explain::binary(&id, &p.name, &p.curve, &conv);
            e.ok_or_else(|| format!("{} has no breakdown yet.", id))
        }
        Kind::Multiclass => state.ws.with(|w| {
            let d = w.multiclass.as_ref().ok_or("no multi-class data")?;
            let m = d
                .models
                .iter()
                .find(|m| m.name == t.model)
                .ok_or("this model is no longer loaded")?;
            explain::multiclass(&id, d, m, &conv)
        }),
        Kind::Ratings => state.ws.with(|w| {
            let d = w.ratings.as_ref().ok_or("no ratings data")?;
            let (_, p) = d
                .models
                .iter()
                .find(|m| m.0 == t.model)
                .ok_or("this model is no longer loaded")?;
            let data = crate::core::evaluate::Dataset::Ratings(d);
            let report = evaluate::evaluate(&data, &conv, std::slice::from_ref(&id));
            let model = report
                .models
                .iter()
                .find(|m| m.name == t.model)
                .ok_or("nothing computed")?;
            explain::ratings(&id, d, p, model)
        }),
    }
}

#[component]
pub fn ExplainPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    // (a closure, not a memo: only this view reads it, and a memo of its
    // own type is about 1 KB of wasm)
    let result = move || state.explain.get().map(|t| (t.clone(), compute(state, &t)));
    move || {
        result().map(|(target, r)| {
            let heading = format!(
                "{} — {}{}",
                target.metric,
                target.model,
                target.query.as_ref().map(|q| format!(", query {q}")).unwrap_or_default()
            );
            let back = target.query.is_some().then(|| {
                let t = target.clone();
                view! { <button class="small" on:click=move |_| state.explain.set(Some(Target { query: None, ..t.clone() }))>"← all queries"</button> }
            });
            let body = match r {
                Err(why) => {
                    // no breakdown: still the typeset formula and its conventions
                    let info = MetricId::parse(&target.metric, target.kind)
                        .ok()
                        .and_then(|id| registry::info(&id.base, target.kind));
                    view! {
                        {info.map(|m| view! { <Formula tex=m.tex()/><p class="muted small">{m.conventions}</p> })}
                        <p class="muted">{why}</p>
                    }
                    .into_any()
                }
                Ok(e) => render(state, &target, e).into_any(),
            };
            view! {
                <section class="card explain" role="dialog" aria-label="explanation">
                    <div class="card-head">
                        <h2>"Where " {heading} " comes from"</h2>
                        {back}
                        <button class="small" id="explain-close" aria-label="close the explanation" on:click=move |_| state.explain.set(None)>"×"</button>
                    </div>
                    {body}
                </section>
            }
        })
    }
}

fn render(state: AppState, target: &Target, e: Explanation) -> impl IntoView {
    let conv_lines: Vec<String> = state
        .conv
        .get_untracked()
        .describe(target.kind)
        .into_iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    let t = target.clone();
    let open_unit = Callback::new(move |u: String| {
        state.explain.set(Some(Target {
            query: Some(u),
            ..t.clone()
        }))
    });
    let context = format!("{} · {}", e.title, conv_lines.join(", "));
    view! { <Breakdown e=e context=context open_unit=open_unit digits=6/> }
}

/// A formula (TeX, see [`crate::math`]) typeset as MathML; the TeX source as
/// text if it cannot be typeset (never expected: the tests typeset every one).
#[component]
pub fn Formula(#[prop(into)] tex: String) -> impl IntoView {
    match crate::math::to_mathml(&tex, true) {
        Ok(html) => view! { <div class="formula" inner_html=html></div> }.into_any(),
        Err(_) => view! { <div class="formula">{tex}</div> }.into_any(),
    }
}

/// The body of an explanation: formula, notes, the table of terms (a unit's
/// first cell opens that unit when `open_unit` is given) and the steps that
/// end on the value. Used by the dashboard's panel and by the playgrounds.
/// Rows of an explanation shown at once (then a page more per click).
pub const EXPLAIN_PAGE: usize = 200;

#[component]
pub fn Breakdown(
    e: Explanation,
    #[prop(optional, into)] context: String,
    #[prop(optional)] open_unit: Option<Callback<String>>,
    digits: usize,
) -> impl IntoView {
    // a long list (a query of 300,000 documents) is shown a page at a time:
    // its rows would be millions of DOM nodes
    let total = e.rows.len();
    let all_rows = StoredValue::new(e.rows);
    let shown = RwSignal::new(EXPLAIN_PAGE.min(total));
    // the rows as markup (a unit's first cell a button: one listener on the body)
    let rows = move || {
        let mut s = String::new();
        all_rows.with_value(|rows| {
            for r in &rows[..shown.get()] {
                let term = r.term.map(|t| format!("{t:?}")).unwrap_or_default();
                s += &format!(r#"<tr data-term="{term}">"#);
                for (i, c) in r.cells.iter().enumerate() {
                    let c = crate::text::html(c);
                    match (&r.unit, open_unit.is_some() && i == 0) {
                        (Some(u), true) => {
                            s += &format!(
                                r#"<td><button class="link" data-unit="{}">{c}</button></td>"#,
                                crate::text::html(u)
                            )
                        }
                        _ => s += &format!("<td>{c}</td>"),
                    }
                }
                s += "</tr>";
            }
        });
        s
    };
    let unit_clicked = move |ev: web_sys::MouseEvent| {
        let unit = super::util::clicked(&ev, "button[data-unit]")
            .and_then(|e| e.get_attribute("data-unit"));
        if let (Some(u), Some(open)) = (unit, open_unit) {
            open.run(u);
        }
    };
    let more = move || {
        let n = shown.get();
        (n < total).then(|| {
            let next = EXPLAIN_PAGE.min(total - n);
            view! {
                <p class="muted small explain-more">
                    {format!("Showing the first {n} of {total} rows (the steps below use them all). ")}
                    <button class="small" on:click=move |_| shown.update(|s| *s = (*s + EXPLAIN_PAGE).min(total))>{format!("Show {next} more")}</button>
                </p>
            }
        })
    };
    view! {
        <div class="explain-body" data-value=format!("{:?}", e.value)>
            <Formula tex=e.formula/>
            {(!context.is_empty()).then(|| view! { <p class="muted small">{context}</p> })}
            <ul class="notes">{e.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            <div class="explain-table">
                <table class="small-table">
                    <thead><tr>{e.headers.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr></thead>
                    <tbody on:click=unit_clicked inner_html=rows></tbody>
                </table>
            </div>
            {more}
            <ol class="steps">
                {e.steps.into_iter().map(|s| view! { <li data-step=format!("{:?}", s.value)>{s.label}" = "<strong>{format!("{:.digits$}", s.value)}</strong></li> }).collect_view()}
            </ol>
        </div>
    }
}
