//! trec_eval output: files of it (`measure qid value`), shown as they were
//! computed elsewhere, and the evaluations of the relation files
//! (preferences, judgment groups, z-scores) by `rankscope trec_eval` in a
//! loading worker: a summary table (the `all` lines) and the per-query
//! values of one measure. The panel says which is which.

use leptos::prelude::*;
use std::collections::BTreeMap;

use super::state::{AppState, Level};
use crate::parse::{Parsed, Precomputed};

/// Per-query rows shown at most (filter to find others).
const SHOWN: usize = 200;

/// `measure -> value` of one query id in one file (the last line wins, as written).
fn values_of(p: &Precomputed, qid: &str) -> BTreeMap<u32, f64> {
    let mut out = BTreeMap::new();
    if let Some(q) = p.queries.get(qid) {
        for i in 0..p.m.len() {
            if p.q[i] == q {
                out.insert(p.m[i], p.value[i]);
            }
        }
    }
    out
}

#[component]
pub fn PrecomputedPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let names = Memo::new(move |_| {
        state.ws.with(|w| {
            w.measure_files()
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
        })
    });
    // (measure, value per file) for the `all` lines, measures in first-seen order
    let summary = Memo::new(move |_| {
        state.ws.with(|w| {
            let mut measures: Vec<String> = Vec::new();
            for p in w.measure_files() {
                for m in p.measure_names() {
                    if !measures.iter().any(|x| x == m) {
                        measures.push(m.to_string());
                    }
                }
            }
            let per_file: Vec<(&Precomputed, BTreeMap<u32, f64>)> = w
                .measure_files()
                .map(|p| (p, values_of(p, "all")))
                .collect();
            measures
                .into_iter()
                .map(|m| {
                    let vals: Vec<Option<f64>> = per_file
                        .iter()
                        .map(|(p, v)| p.measures.get(&m).and_then(|id| v.get(&id).copied()))
                        .collect();
                    (m, vals)
                })
                .collect::<Vec<_>>()
        })
    });
    let measure = RwSignal::new(String::new());
    let filter = RwSignal::new(String::new());
    let chosen = move || {
        let m = measure.get();
        if m.is_empty() {
            summary.with(|s| s.first().map(|x| x.0.clone()).unwrap_or_default())
        } else {
            m
        }
    };
    // (query, value per file) of the chosen measure, `all` excluded
    let per_query = Memo::new(move |_| {
        let m = chosen();
        let f = filter.get();
        state.ws.with(|w| {
            let mut rows: BTreeMap<String, Vec<Option<f64>>> = BTreeMap::new();
            let n = w.measure_files().count();
            for (j, p) in w.measure_files().enumerate() {
                let Some(mid) = p.measures.get(&m) else {
                    continue;
                };
                for i in 0..p.m.len() {
                    if p.m[i] != mid {
                        continue;
                    }
                    let q = p.queries.name(p.q[i]);
                    if q == "all" || !q.contains(f.as_str()) {
                        continue;
                    }
                    rows.entry(q.to_string()).or_insert_with(|| vec![None; n])[j] =
                        Some(p.value[i]);
                }
            }
            let total = rows.len();
            (rows.into_iter().take(SHOWN).collect::<Vec<_>>(), total)
        })
    });
    let cell = |m: String, model: String, v: Option<f64>| {
        let text = v.map(|v| v.to_string()).unwrap_or_else(|| "–".into());
        view! { <td class="num" data-measure=m data-model=model data-value=v.map(|v| v.to_string()).unwrap_or_default()>{text}</td> }
    };
    view! {
        <section class="card precomputed">
            <h2>"trec_eval results"</h2>
            {move || state.ws.with(|w| (!w.precomputed.is_empty()).then(|| view! { <p class="muted small">"Files of trec_eval output: values as written, computed by another tool; Rankscope does not recompute them. Drop the run and qrels to evaluate here."</p> }))}
            <p class="muted small relations">{move || state.ws.with(|w| w.relations.iter().map(|r| {
                let (option, measures) = crate::parse::relations_command(r.format());
                format!("{}: each run evaluated here by rankscope trec_eval {option} -m {measures} (trec_eval 10.0's code, in Rust) under the trec_eval version in force. ", r.name)
            }).collect::<String>())}</p>
            <table class="metrics">
                <thead><tr><th>"measure"</th>
                    {move || names.get().into_iter().map(|n| {
                        let n2 = n.clone();
                        view! { <th>{n}" "<button class="small" aria-label=format!("remove {n2}") on:click=move |_| state.ws.update(|w| { w.precomputed.retain(|p| p.name != n2); w.derived.retain(|p| p.name != n2); })>"×"</button></th> }
                    }).collect_view()}
                </tr></thead>
                <tbody>
                    {move || summary.get().into_iter().map(|(m, vals)| {
                        let names = names.get();
                        let m2 = m.clone();
                        view! { <tr><th scope="row"><button class="link" on:click=move |_| measure.set(m2.clone())>{m.clone()}</button></th>
                            {vals.into_iter().zip(names).map(|(v, n)| cell(m.clone(), n, v)).collect_view()}
                        </tr> }
                    }).collect_view()}
                </tbody>
            </table>
            <h3>{move || format!("Per query: {}", chosen())}</h3>
            <input type="search" placeholder="filter queries" aria-label="filter queries" on:input=move |e| filter.set(event_target_value(&e))/>
            <table class="metrics per-query">
                <thead><tr><th>"query"</th>{move || names.get().into_iter().map(|n| view! { <th>{n}</th> }).collect_view()}</tr></thead>
                <tbody>
                    {move || {
                        let m = chosen();
                        per_query.get().0.into_iter().map(|(q, vals)| {
                            let names = names.get();
                            let m = m.clone();
                            let label = q.clone();
                            view! { <tr data-query=q><th scope="row">{label}</th>
                                {vals.into_iter().zip(names).map(|(v, n)| cell(m.clone(), n, v)).collect_view()}
                            </tr> }
                        }).collect_view()
                    }}
                </tbody>
            </table>
            <p class="muted small">{move || { let (shown, total) = (per_query.with(|p| p.0.len()), per_query.with(|p| p.1)); if total > shown { format!("{shown} of {total} queries shown; filter to find others.") } else { format!("{total} queries.") } }}</p>
        </section>
    }
}

/// The most values ([`crate::parse::Workspace::values`]) a workspace holds
/// for the page to evaluate its relation files.
const RELATIONS_VALUES: u64 = 12_000_000;

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
        use crate::core::Named;
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
            let answer = super::worker::relations(&bytes, version.name()).await;
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
