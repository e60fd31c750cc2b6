//! The browser app: thin Leptos components over the core. Data flows one way:
//! dropped file -> [`loader`] (chunked parse) -> workspace signal -> memos
//! (prepared runs, curves, reports) -> views.

mod binary_view;
pub mod board;
mod chart;
mod classify;
mod compare_view;
mod conventions;
mod explain_view;
pub mod learn;
mod loader;
mod other_views;
mod playground;
mod precomputed;
mod ranking_view;
pub(crate) mod share;
mod state;
mod table;
mod util;
mod warm;
pub mod worker;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::registry::Kind;
use crate::plot::series_css;
use state::{AppState, Level, Theme};

pub fn main() {
    // no panic hook: the page must never panic, and a panic still ends in the
    // console as a trap (console_error_panic_hook, which the loading worker
    // keeps, cost the page 1.2 KB of wasm)
    leptos::mount::mount_to_body(App);
}

fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return vec![] };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

#[component]
fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    share::startup(state);
    let relations = precomputed::Relations::default();
    let values = precomputed::Values::default();

    // Escape (wherever the focus is in the app) closes the explanation and any
    // open menu (folds that are not menus stay as they are)
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if ev.key() != "Escape" {
            return;
        }
        state.explain.set(None);
        let document = web_sys::window().and_then(|w| w.document());
        while let Some(menu) = document
            .as_ref()
            .and_then(|d| d.query_selector("details.menu[open]").ok().flatten())
        {
            let _ = menu.remove_attribute("open");
        }
    };

    let report = share::is_report();
    let dragging = RwSignal::new(false);
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        if report {
            state.say(
                Level::Info,
                "This is a saved report",
                vec!["Open Rankscope to add files to these models.".into()],
            );
            return;
        }
        let files = files_of(ev.data_transfer().and_then(|dt| dt.files()));
        if !files.is_empty() {
            leptos::task::spawn_local(loader::load_files(state, files));
        }
    };
    let on_pick = move |ev: web_sys::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        let files = files_of(input.as_ref().and_then(|i| i.files()));
        if let Some(i) = input {
            i.set_value("");
        }
        if !files.is_empty() {
            leptos::task::spawn_local(loader::load_files(state, files));
        }
    };
    // (a closure, not a memo: `active` below is the memo the views follow)
    let kinds = move || {
        state
            .ws
            .with(|w| w.datasets().iter().map(|d| d.kind()).collect::<Vec<_>>())
    };
    let active = Memo::new(move |_| {
        let k = kinds();
        match state.tab.get() {
            Some(t) if k.contains(&t) => Some(t),
            _ => k.first().copied(),
        }
    });
    // the page-wide watchers, in one effect (each effect is its own 1.5 KB
    // of wasm): the theme follows the system unless chosen; the relation
    // files' evaluations follow the workspace and the trec_eval version;
    // the panel of values computed elsewhere follows its files, measure,
    // filter and the tests' settings;
    // the Diagnostics panel follows the shown binary models and its options
    let diagnostics = binary_view::Diagnostics::default();
    Effect::new(move |_| {
        relations.watch(state);
        values.watch(state);
        diagnostics.watch(state, active.get() == Some(Kind::Binary));
        let theme = state.theme.get();
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = match theme {
                Theme::System => root.remove_attribute("data-theme"),
                Theme::Light => root.set_attribute("data-theme", "light"),
                Theme::Dark => root.set_attribute("data-theme", "dark"),
            };
        }
    });
    let pending = move || {
        state.ws.with(|w| match (&w.ranking, w.has_qrels) {
            (Some(r), false) if !r.runs.is_empty() => Some(
                "Runs are loaded but no relevance judgments: drop the qrels file to evaluate them.",
            ),
            (Some(r), true) if r.runs.is_empty() => {
                Some("Relevance judgments are loaded: drop one or more runs to evaluate them.")
            }
            _ => None,
        })
    };
    let cycle_theme = move |_| {
        state.theme.update(|t| {
            *t = match t {
                Theme::System => Theme::Dark,
                Theme::Dark => Theme::Light,
                Theme::Light => Theme::System,
            }
        })
    };

    view! {
        <div class="app" class:dragging=move || dragging.get()
            on:dragenter=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); }
            on:dragleave=move |ev: web_sys::DragEvent| { if ev.related_target().is_none() { dragging.set(false); } }
            on:drop=on_drop on:keydown=on_key>
            <header class="top">
                <h1>"Rankscope"</h1>
                <span class="tagline">"ranking, recommendation and classification metrics, computed in your browser"</span>
                <span class="spacer"></span>
                {(!report).then(|| view! {
                    <label class="button">"Open files…"<input type="file" multiple id="file-input" on:change=on_pick/></label>
                    <button on:click=move |_| loader::load_example(state) disabled=move || state.example_loaded.get()>"Load example"</button>
                    <button id="clear" on:click=move |_| { state.ws.set(Default::default()); state.example_loaded.set(false); state.url_files.set(vec![]); state.messages.set(vec![]); }>"Clear"</button>
                })}
                {(!report).then(|| view! { <a class="button" id="learn-link" href="learn/" title="lessons and playgrounds: what each metric measures">"Learn"</a> })}
                <share::ShareMenu/>
                <button on:click=cycle_theme title="theme: system, dark or light">{move || match state.theme.get() { Theme::System => "◐ system", Theme::Dark => "● dark", Theme::Light => "○ light" }}</button>
            </header>
            <div class="dropzone" id="dropzone" aria-live="polite">
                {move || if report { "A saved Rankscope report: the data and the view are inside this file, and it works offline. To add or change data, open Rankscope and import the session or drop the files." } else if state.example_loaded.get() { "Showing the bundled example. Drop your files anywhere on the page (TREC run + qrels, CSV, .gz): they replace it. Nothing is uploaded." } else { "Drop files anywhere on the page (TREC run + qrels, CSV, .gz). Nothing leaves your browser." }}
            </div>
            {move || state.progress.get().map(|p| view! {
                <div class="progress" role="status">
                    <span>{format!("Reading {}: {:.1} of {:.1} MB, {} rows", p.file, p.bytes as f64 / 1e6, p.total as f64 / 1e6, p.rows)}</span>
                    <progress max=p.total.to_string() value=p.bytes.to_string()></progress>
                    <button class="small" on:click=move |_| {
                        state.cancel.set(true);
                        worker::cancel();
                    }>"Cancel"</button>
                </div>
            })}
            <worker::JobsStatus/>
            <div class="messages" role="log">
                {move || state.messages.get().into_iter().rev().map(|m| {
                    let id = m.id;
                    let class = match m.level { Level::Info => "msg info", Level::Warning => "msg warning", Level::Error => "msg error" };
                    let role = if m.level == Level::Error { "alert" } else { "status" };
                    // a notice read before the latest drop folds to its title line
                    view! { <div class=class role=role><details open=!m.read>
                        <summary><strong>{m.title}</strong></summary>
                        <ul inner_html={m.lines.iter().map(|l| format!("<li>{}</li>", crate::text::html(l))).collect::<String>()}></ul>
                    </details>
                    <button class="dismiss" aria-label="dismiss" on:click=move |_| state.messages.update(|ms| ms.retain(|x| x.id != id))>"×"</button></div> }
                }).collect_view()}
            </div>
            {move || pending().map(|p| view! { <p class="pending">{p}</p> })}
            <nav class="tabs" role="tablist">
                {move || kinds().into_iter().map(|k| view! {
                    <button role="tab" class:active=move || active.get() == Some(k) aria-selected=move || (active.get() == Some(k)).to_string()
                        data-tab=crate::core::Named::name(k) on:click=move |_| state.tab.set(Some(k))>{k.label()}</button>
                }).collect_view()}
            </nav>
            {move || state.ws.with(|w| w.measure_files().next().is_some()).then(|| view! { <precomputed::PrecomputedPanel values=values/> })}
            {move || match active.get() {
                None if state.ws.with(|w| w.measure_files().next().is_some() || !w.relations.is_empty()) => ().into_any(),
                None => view! { <section class="card empty"><h2>"Nothing loaded"</h2><p>"Drop prediction files here, open them, or load the example."</p></section> }.into_any(),
                Some(kind) => view! { <KindView kind=kind/> }.into_any(),
            }}
            <footer>"Rankscope computes every number with its Rust core compiled to WebAssembly; hover a column header for its formula and conventions."</footer>
        </div>
    }
}

/// Says, where the values are read, every convention in force that is not
/// the default (set by hand, a link or remembered settings), with one way
/// back to the defaults.
#[component]
fn NonDefaults(kind: Kind) -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let changed = state
            .conv
            .with(|c| crate::session::non_default_conventions(c, kind));
        (!changed.is_empty()).then(|| view! {
            <div class="msg warning nondefault" id="non-defaults" role="status">
                <strong>"Not the default conventions: "</strong>
                {changed.join(", ")}
                " (the columns they change are marked †) "
                <button class="small" id="reset-conventions" on:click=move |_| state.conv.set(Default::default())>"Reset to defaults"</button>
            </div>
        })
    }
}

#[component]
fn KindView(kind: Kind) -> impl IntoView {
    let state = expect_context::<AppState>();
    // one evaluation per change, shared by every reader (a derived signal would
    // evaluate again for each, and copy the per-query columns)
    let report = Memo::new(move |_| {
        state
            .report(kind)
            .map(|r| state::Shared(std::sync::Arc::new(r)))
    });
    view! {
        <div class="kind">
            <div class="side">
                <Models kind=kind/>
                <conventions::ConventionsPanel kind=kind/>
            </div>
            <div class="main">
                <NonDefaults kind=kind/>
                <table::MetricTable kind=kind report=report/>
                <explain_view::ExplainPanel/>
                {match kind {
                    Kind::Ranking => view! { <ranking_view::ElbowPanel/><ranking_view::ReciprocalRankPanel report=report/> }.into_any(),
                    Kind::Binary => view! { <binary_view::BinaryPanel/> }.into_any(),
                    Kind::Multiclass => view! { <other_views::MulticlassPanel/><other_views::OneVsRest/> }.into_any(),
                    Kind::Ratings => view! { <other_views::RatingsPanel/> }.into_any(),
                }}
                // last: it appears when the worker answers, and moves nothing above it
                <compare_view::ComparePanel kind=kind report=report/>
            </div>
        </div>
    }
}

/// Loaded models of a kind: colour, editable name, show/hide, remove.
#[component]
fn Models(kind: Kind) -> impl IntoView {
    let state = expect_context::<AppState>();
    let names = move || {
        state
            .ws
            .with(|w| w.dataset(kind).map(|d| d.model_names()).unwrap_or_default())
    };
    let size = move || {
        state.ws.with(|w| {
            match kind {
                Kind::Ranking => w.ranking.as_ref().map(|d| {
                    format!(
                        "{} {} judged, {} judgments",
                        d.qrels.num_judged_queries(),
                        if d.by_user { "users" } else { "queries" },
                        d.qrels.num_judgments()
                    )
                }),
                Kind::Binary => w
                    .binary
                    .as_ref()
                    .map(|d| format!("{} rows, {} positives", d.labels.len(), d.positives())),
                Kind::Multiclass => w
                    .multiclass
                    .as_ref()
                    .map(|d| format!("{} rows, {} classes", d.targets.len(), d.num_classes)),
                Kind::Ratings => w
                    .ratings
                    .as_ref()
                    .map(|d| format!("{} ratings, {} users", d.rating.len(), d.users.len())),
            }
            .unwrap_or_default()
        })
    };
    view! {
        <section class="card models">
            <h2>"Models"</h2>
            <p class="muted small">{size}</p>
            <ul>
                {move || names().into_iter().enumerate().map(|(i, name)| {
                    let hidden = {
                        let name = name.clone();
                        Signal::derive(move || state.is_hidden(kind, &name))
                    };
                    let key = crate::session::hidden_key(kind, &name);
                    let k2 = key.clone();
                    let old = name.clone();
                    let old2 = name.clone();
                    let rename = move |ev: web_sys::Event| {
                        let new = event_target_value(&ev);
                        let ok = state.ws.try_update(|w| w.rename(kind, &old, &new)).unwrap_or(false);
                        // the baseline, hidden state, threshold and groups go with its name
                        if ok {
                            let mut view = state.view();
                            view.rename_model(kind, &old, &crate::parse::Workspace::model_name(&new));
                            state.apply(&view);
                        }
                        if !ok && new.trim() != old {
                            state.say(Level::Warning, "Name not changed", vec![format!("'{}' is empty or already used by another model.", new.trim())]);
                        }
                    };
                    view! {
                        <li class:hidden=hidden data-model-item=name.clone()>
                            <span class="swatch" style=format!("background:{}", series_css(i))></span>
                            <input class="name" type="text" prop:value=name.clone() aria-label="model name" on:change=rename/>
                            <button class="small" aria-pressed=move || (!hidden.get()).to_string() title="show or hide"
                                on:click=move |_| state.hidden.update(|h| if let Some(p) = h.iter().position(|x| *x == k2) { h.remove(p); } else { h.push(k2.clone()); })>
                                {move || if hidden.get() { "show" } else { "hide" }}
                            </button>
                            <button class="small" title="remove" aria-label=format!("remove {name}") on:click=move |_| {
                                let _ = &key;
                                state.ws.update(|w| w.remove_model(kind, &old2));
                                // its own threshold too, unless a model of that name is left
                                let left = state.ws.with_untracked(|w| w.dataset(kind).is_some_and(|d| d.model_names().contains(&old2)));
                                if !left && kind == Kind::Binary && state.conv.with_untracked(|c| c.thresholds.iter().any(|o| o.0 == old2)) {
                                    state.conv.update(|c| c.forget_model(&old2));
                                }
                            }>"×"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            // folds or seeds of one model as a group: the table's mean ± sd
            <label class="small groups">"Groups "
                <input type="text" id="model-groups" placeholder="name=pattern*, …" aria-label="groups of models"
                    prop:value=move || state.diagnose.with(|d| crate::diagnose::groups_of(d).iter().map(|(n, p)| format!("{n}={p}")).collect::<Vec<_>>().join(", "))
                    on:change=move |ev| binary_view::set_option(state, "group", &event_target_value(&ev))/>
            </label>
        </section>
    }
}
