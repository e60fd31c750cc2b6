//! The metric table: models x metrics, best value marked, differences to a
//! baseline, formula and convention on every header, exports.

use leptos::prelude::*;

use super::state::{AppState, Shared};
use super::util::{download, slug};
use crate::core::evaluate::Report;
use crate::core::registry::{self, Kind};
use crate::core::Named;
use crate::markup::metric_table;
use crate::plot::series_css;
use crate::report::{Export, Table};

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
    // `None`: trec_eval's -q lines
    let export = move |format: Option<Export>| {
        move |_| {
            let Some(mut t) = table() else { return };
            // the differences as the table shows them
            t.baseline = (state.baseline.get())
                .filter(|b| state.diff.get() && t.rows.iter().any(|r| &r.0 == b));
            // the marks against the chosen baseline travel with the values
            // (an event handler: `get` tracks nothing here)
            let tested = current().filter(|t| Some(&t.baseline) == state.baseline.get().as_ref());
            if let Some(tested) = tested {
                tested.mark(&mut t, &state.tests.get());
            }
            let name = format!("rankscope-{}", slug(kind.label()));
            match format {
                // trec_eval's -q lines of every shown run (its official
                // measures and those of the table, under the conventions in
                // force), written in a worker from the workspace as a session
                None if state.ws.with_untracked(|w| w.values()) > super::precomputed::RELATIONS_VALUES => state.say(
                    super::state::Level::Error,
                    "The table could not be exported",
                    vec!["Too large to copy to a worker: rankscope eval --format trec_eval -q RUN… --qrels QRELS writes it.".into()],
                ),
                None => {
                    let columns = state.columns(kind);
                    let session = super::share::session_bytes(state);
                    leptos::task::spawn_local(async move {
                        match super::worker::trec_eval_q(&session, columns).await {
                            Ok(text) => download(&format!("{name}.trec_eval.txt"), "text/plain", &text),
                            Err(why) if why.is_empty() => {}
                            Err(why) => state.say(
                                super::state::Level::Error,
                                "The table could not be exported",
                                vec![why],
                            ),
                        }
                    })
                }
                // the others written by a worker ([`Table::export`]): the
                // exporters' code stays out of the page
                Some(format) => leptos::task::spawn_local(async move {
                    match super::worker::export(t, format).await {
                        Ok(text) => {
                            let file = format!("{name}.{}", format.name());
                            download(&file, format.mime(), &text)
                        }
                        Err(why) if why.is_empty() => {}
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
    // the table as markup ([`metric_table`]); a click or Enter on a value
    // explains it (one listener on the table's box)
    let rows = move || match table() {
        Some(t) => {
            let colors: Vec<String> = (t.rows.iter())
                .map(|r| series_css(state.color_index(kind, &r.0)))
                .collect();
            let (baseline, tests) = (state.baseline.get(), state.tests.get());
            let report = report.get();
            metric_table(
                kind,
                &t,
                baseline.as_deref(),
                &colors,
                current().as_deref(),
                &tests,
                &|m, c| report.as_ref()?.zero_division(m, c),
                state.diff.get(),
            )
        }
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
    // the same warning of several models: one line naming them
    let warnings = move || {
        (report.get())
            .map(|r| crate::markup::merged_warnings(&r.warnings, &models()))
            .unwrap_or_default()
    };
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"Metrics"</h2>
                <span class="muted small" id="preset-in-force">{move || state.conv.with(|c| (!c.preset.is_empty()).then(|| format!("preset {}", c.preset)))}</span>
                <label>"Baseline "
                    <select on:change=move |ev| { let v = event_target_value(&ev); state.baseline.set((!v.is_empty()).then_some(v)); }>
                        <option value="">"none"</option>
                        {move || models().into_iter().map(|m| { let sel = state.baseline.get().as_deref() == Some(m.as_str()); view! { <option value=m.clone() selected=sel>{m.clone()}</option> } }).collect_view()}
                    </select>
                </label>
                <label title="each value's difference from the baseline, here and in the exports"><input type="checkbox" id="show-diff" prop:checked=move || state.diff.get()
                    on:change=move |ev| state.diff.set(event_target_checked(&ev))/>" differences"</label>
                <span class="spacer"></span>
                <button class="small" data-export="csv" on:click=export(Some(Export::Csv))>"CSV"</button>
                <button class="small" data-export="json" on:click=export(Some(Export::Json))>"JSON"</button>
                <button class="small" data-export="md" on:click=export(Some(Export::Markdown))>"Markdown"</button>
                <button class="small" data-export="tex" on:click=export(Some(Export::Latex))>"LaTeX"</button>
                {(kind == Kind::Ranking).then(|| view! { <button class="small" data-export="trec" title="trec_eval -q: per query and all, trec_eval's official measures" on:click=export(None)>"trec_eval -q"</button> })}
            </div>
            <ColumnPicker kind=kind/>
            <div on:keydown=super::util::grid_keys on:click=explain inner_html=rows></div>
            <ul class="warnings" inner_html={move || warnings().iter().map(|w| format!("<li>⚠ {}</li>", crate::text::html(w))).collect::<String>()}></ul>
        </section>
    }
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
