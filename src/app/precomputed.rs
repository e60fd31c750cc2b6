//! Values computed elsewhere: trec_eval output (`measure qid value`),
//! per-query values files (`query_id,model,metric,value`: what
//! `rankscope eval --per-query --format csv`, the Python package and its
//! Spark job write), and the evaluations of the relation files
//! (preferences, judgment groups, z-scores) by `rankscope trec_eval` in a
//! loading worker. The panel's tables and, when nothing else is loaded,
//! its Compare view are written in a loading worker
//! ([`crate::values::panel`]): the page keeps the query filter, the chosen
//! measure and the removal of a file, and inserts what the worker writes.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::{AppState, Level};
use crate::parse::Parsed;

/// The panel's state and the worker's last answer (its three parts:
/// tables, per-query table, Compare view), kept current by [`Values::watch`].
#[derive(Clone, Copy)]
pub struct Values {
    measure: RwSignal<String>,
    filter: RwSignal<String>,
    html: RwSignal<[String; 3]>,
    /// What the last request was of (a hash), 0 for none.
    last: StoredValue<u64>,
}

impl Default for Values {
    fn default() -> Self {
        Values {
            measure: RwSignal::new(String::new()),
            filter: RwSignal::new(String::new()),
            html: RwSignal::new(Default::default()),
            last: StoredValue::new(0),
        }
    }
}

impl Values {
    /// Called from the page-wide effect: asks a loading worker for the
    /// panel when the files, the measure, the filter or the tests' settings
    /// change (the files are sent only then).
    pub fn watch(self, state: AppState) {
        // the page-wide effect runs on every threshold step: without files,
        // nothing to hash or send
        if state.ws.with(|w| w.measure_files().next().is_none()) && self.last.get_value() == 0 {
            return;
        }
        let (measure, filter) = (self.measure.get(), self.filter.get());
        let alone = state.ws.with(|w| w.datasets().is_empty());
        let compare = (state.tests.get(), state.baseline.get());
        let view = crate::session::ViewState {
            tests: compare.0.clone(),
            baseline: compare.1.clone(),
            ..Default::default()
        }
        .to_fragment();
        // FNV-1a over what the panel depends on (the files by their columns'
        // addresses: a changed file is a new one)
        let mut key = 0xcbf2_9ce4_8422_2325u64;
        let mut mix = |v: u64| key = (key ^ v).wrapping_mul(0x0100_0000_01b3);
        let files = state.ws.with(|w| {
            for p in w.measure_files() {
                p.name.bytes().for_each(|b| mix(b as u64));
                mix(p.value.as_ptr() as usize as u64 ^ (p.value.len() as u64) << 32);
            }
            w.measure_files().count()
        });
        for text in [&measure, &filter, &view] {
            text.bytes().for_each(|b| mix(b as u64));
            mix(0x100);
        }
        mix(alone as u64);
        let key = if files == 0 { 0 } else { key | 1 };
        if key == self.last.get_value() {
            return;
        }
        self.last.set_value(key);
        if key == 0 {
            self.html.set(Default::default());
            return;
        }
        let bytes = state.ws.with_untracked(|w| {
            let files: Vec<_> = w
                .measure_files()
                .map(|p| (p.name.clone(), Ok(Parsed::Measures(p.clone()))))
                .collect();
            crate::parse::transfer::encode_many(&files)
        });
        let (html, last) = (self.html, self.last);
        wasm_bindgen_futures::spawn_local(async move {
            let answer = super::worker::values(&bytes, &measure, &filter, compare, alone).await;
            if last.get_value() != key {
                return;
            }
            match answer {
                Ok(parts) => html.set(parts),
                Err(why) if !why.is_empty() => {
                    state.say(Level::Error, "The values could not be shown", vec![why])
                }
                Err(_) => {}
            }
        });
    }
}

#[component]
pub fn PrecomputedPanel(values: Values) -> impl IntoView {
    let state = expect_context::<AppState>();
    let part = move |i: usize| move || values.html.with(|h| h[i].clone());
    // a measure's name shows its per-query values; × removes a file
    let click = move |ev: web_sys::MouseEvent| {
        let Some(button) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("button").ok().flatten())
        else {
            return;
        };
        if let Some(m) = button.get_attribute("data-measure") {
            values.measure.set(m);
        }
        if let Some(name) = button.get_attribute("data-remove") {
            state.ws.update(|w| {
                w.precomputed.retain(|p| p.name != name);
                w.derived.retain(|p| p.name != name);
            });
        }
    };
    // the Compare view's controls set the tests' settings; a gain or loss
    // row filters the per-query table to its query
    let changed = move |ev: web_sys::Event| {
        super::compare_view::control_changed(state, &ev);
    };
    let pick = move |ev: web_sys::MouseEvent| {
        if let Some(q) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[data-query]").ok().flatten())
            .and_then(|row| row.get_attribute("data-query"))
        {
            values.filter.set(q);
        }
    };
    view! {
        <section class="card precomputed">
            <h2>"Values computed elsewhere"</h2>
            {move || state.ws.with(|w| (!w.precomputed.is_empty()).then(|| view! { <p class="muted small">"Values computed by another tool (trec_eval output, per-query values files), as written; Rankscope does not recompute them. A file's all line is its value, else the mean over its queries (as rankscope eval gives). Drop the run and qrels to evaluate here."</p> }))}
            <p class="muted small relations">{move || state.ws.with(|w| w.relations.iter().map(|r| {
                let (option, measures) = crate::parse::relations_command(r.format());
                format!("{}: each run evaluated here by rankscope trec_eval {option} -m {measures} (trec_eval 10.0's code, in Rust) under the trec_eval version in force. ", r.name)
            }).collect::<String>())}</p>
            <div on:click=click inner_html=part(0)></div>
            <input type="search" placeholder="query id (* for any text)" aria-label="filter queries"
                prop:value=move || values.filter.get() on:input=move |e| values.filter.set(event_target_value(&e))/>
            <div inner_html=part(1)></div>
        </section>
        <div class="compare-body" on:change=changed on:click=pick inner_html=part(2)></div>
    }
}

/// The most values ([`crate::parse::Workspace::values`]) a workspace holds
/// for the page to evaluate its relation files.
pub(super) const RELATIONS_VALUES: u64 = 12_000_000;

/// Keeps the relation files' evaluations current: when the relation files,
/// the runs, the judgments or the trec_eval version change, a loading worker
/// runs `rankscope trec_eval` on every (file, run) pair of the workspace
/// (sent as a session: the page's wasm has no trec_eval) and the results
/// replace the earlier ones; what trec_eval says instead is a notice.
#[derive(Clone, Copy)]
pub struct Relations {
    /// What the last evaluation was of ([`crate::parse::Workspace::relations_key`]
    /// and the version), 0 for none.
    last: StoredValue<u64>,
}

impl Default for Relations {
    fn default() -> Self {
        Relations {
            last: StoredValue::new(0),
        }
    }
}

impl Relations {
    /// Called from an effect: tracks the workspace and the conventions.
    pub fn watch(self, state: AppState) {
        let last = self.last;
        let version = state.conv.with(|c| c.trec_eval);
        let key = state.ws.with(|w| w.relations_key());
        let key = if key == 0 { 0 } else { key ^ version as u64 };
        if key == last.get_value() {
            return;
        }
        last.set_value(key);
        if key == 0 {
            state.ws.update(|w| w.derived.clear());
            return;
        }
        // the workspace travels to the worker as a session: a copy of it in
        // the page's 32-bit memory, so only for workspaces of modest size
        if state.ws.with_untracked(|w| w.values()) > RELATIONS_VALUES {
            state.ws.update(|w| w.derived.clear());
            state.say(
                Level::Warning,
                "Relation files not evaluated in the page",
                vec![format!("The loaded runs hold more than {RELATIONS_VALUES} values; evaluate them with the command line: rankscope eval RUN… PREFS (or rankscope trec_eval).")],
            );
            return;
        }
        // the workspace as a session (its view is not read)
        let bytes = super::share::session_bytes(state);
        wasm_bindgen_futures::spawn_local(async move {
            let answer = super::worker::relations(&bytes, version).await;
            // a newer evaluation is on its way
            if last.get_value() != key {
                return;
            }
            let (mut derived, mut problems) = (Vec::new(), Vec::new());
            match answer {
                Ok(outcomes) => {
                    for (_, outcome) in outcomes {
                        match outcome {
                            Ok(Parsed::Measures(p)) => derived.push(p),
                            Ok(_) => {}
                            Err(e) => problems.push(e.to_string()),
                        }
                    }
                }
                Err(why) => problems.push(why),
            }
            state.ws.update(|w| w.derived = derived);
            if !problems.is_empty() {
                state.say(
                    Level::Warning,
                    "trec_eval could not evaluate every relation file",
                    problems,
                );
            }
        });
    }
}
