//! Is the difference real? The significance tests' controls, the worker
//! job behind the metric table's marks (`table.rs` reads `compare::page::Tested`) and
//! the Compare view, whose panel the worker writes
//! ([`crate::compare::html`]). The page's wasm holds no test.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::{AppState, Shared, Target, Tested};
use crate::compare::html;
use crate::compare::page::{ask, ask_auc};
use crate::compare::Test;
use crate::core::evaluate::Report;
use crate::core::registry::Kind;
use crate::core::stats::Correction;
use crate::core::Named;

/// Applies a change of one of the Compare view's controls (the worker
/// writes them: [`html::controls`]) to the tests' settings or the
/// baseline; the control's id, or `None` for another element or a value
/// out of range.
pub fn control_changed(state: AppState, ev: &web_sys::Event) -> Option<String> {
    let id = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|e| e.id())
        .unwrap_or_default();
    let v = event_target_value(ev);
    let mut s = state.tests.get();
    match id.as_str() {
        html::TEST_ID => s.test = Test::named(&v).unwrap_or(s.test),
        html::CORRECTION_ID => s.correction = Correction::named(&v).unwrap_or(s.correction),
        html::ALPHA_ID => match crate::text::parse_f64(&v) {
            Some(a) if a > 0.0 && a < 1.0 => s.alpha = a,
            _ => return None,
        },
        html::CI_ID => s.ci = event_target_checked(ev),
        html::MODEL_ID => s.vs = Some(v),
        html::BASELINE_ID => {
            state.baseline.set(Some(v));
            return Some(id);
        }
        html::METRIC_ID => s.on = Some(v),
        _ => return None,
    }
    state.tests.set(s);
    Some(id)
}

#[component]
pub fn ComparePanel(kind: Kind, report: Memo<Option<Shared<Report>>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let tickets = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let refocus = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
    let refocused = refocus.clone();
    // a new report, baseline, setting or focus asks the worker again (the
    // previous job, if still running, is stopped)
    Effect::new(move |_| {
        let settings = state.tests.get();
        let baseline = state.baseline.get();
        // binary models: their ROC AUCs on the same rows (DeLong's test),
        // asked again when the data, the shown models or the settings change,
        // not when the threshold moves (the report does)
        let auc = kind == Kind::Binary;
        let asked = if auc {
            state.ws.with(|w| {
                w.binary.as_ref().and_then(|d| {
                    let models: Vec<(&str, &[f64])> = d
                        .models
                        .iter()
                        .filter(|(name, _)| !state.is_hidden(kind, name))
                        .map(|(name, scores)| (name.as_str(), &scores[..]))
                        .collect();
                    ask_auc(&d.labels, &models, baseline.as_deref(), &settings)
                })
            })
        } else {
            report.with(|r| {
                r.as_ref()
                    .and_then(|r| ask(r, baseline.as_deref(), &settings))
            })
        };
        let Some(mut request) = asked else {
            super::worker::cancel_compare();
            state.tested.set(None);
            state.testing.set(None);
            return;
        };
        let bytes = std::mem::take(&mut request.bytes);
        let ticket = tickets.get() + 1;
        tickets.set(ticket);
        let tickets = tickets.clone();
        let refocus = refocused.clone();
        // the table shows no mark of the previous values while the new ones
        // are tested (table.rs), the panel shows them faded
        let progress = |bytes, total| super::state::Progress {
            file: String::new(),
            bytes,
            total,
            rows: 0,
        };
        state.testing.set(Some(progress(0, 1)));
        wasm_bindgen_futures::spawn_local(async move {
            let answer = super::worker::compare(&bytes, auc, &mut |done, total| {
                state.testing.set(Some(progress(done, total)))
            })
            .await;
            if tickets.get() != ticket {
                return;
            }
            state.testing.set(None);
            let id = refocus.take();
            if !id.is_empty() {
                super::util::focus_soon(format!("#{id}"));
            }
            match answer {
                Ok((cells, html)) => {
                    let baseline = request.models[request.baseline].clone();
                    let tested = Tested {
                        kind,
                        baseline,
                        models: request.models,
                        metrics: request.metrics,
                        cells,
                        html,
                    };
                    let html = tested.html.clone();
                    super::util::keep_edit(
                        &html,
                        Box::new(move || {
                            state.tested.set(Some(Shared(std::sync::Arc::new(tested))))
                        }),
                    );
                }
                // cancelled or failed: no mark or panel of earlier values stays
                Err(why) => {
                    state.tested.set(None);
                    if !why.is_empty() {
                        state.say(
                            super::state::Level::Error,
                            "The significance tests failed",
                            vec![why],
                        )
                    }
                }
            }
        });
    });
    let tested = move || state.tested.get().filter(|t| t.kind == kind);
    // the controls are in the worker's panel: one listener for them all,
    // and focus back on the control once the new panel is in
    let changed = move |ev: web_sys::Event| {
        if let Some(id) = control_changed(state, &ev) {
            refocus.replace(id);
        }
    };
    // a gain or loss row opens the model's value for that unit in the explanation panel
    let open = move |target: Option<web_sys::EventTarget>| {
        let Some(row) = target
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[data-query]").ok().flatten())
        else {
            return;
        };
        let attr = |k: &str| row.get_attribute(k).unwrap_or_default();
        state.explain.set(Some(Target {
            kind,
            model: attr("data-model"),
            metric: attr("data-metric"),
            query: Some(attr("data-query")),
        }));
        super::util::focus_soon("#explain-close".into());
    };
    // the worker's panel is the whole card (`section#compare`), none without an answer
    view! {
        {move || state.testing.get().map(|p| view! {
            <p class="testing" role="status">{format!("Testing… {} of {} steps ", p.bytes, p.total)}
                <button class="small" on:click=move |_| { super::worker::cancel_compare(); state.testing.set(None); }>"Cancel"</button>
            </p>
        })}
        <div class="compare-body" class:stale=move || state.testing.get().is_some() on:change=changed
            on:click=move |ev| open(ev.target()) on:keydown=move |ev| if ev.key() == "Enter" { open(ev.target()) }
            inner_html=move || tested().map(|t| t.html.clone()).unwrap_or_default()></div>
    }
}
