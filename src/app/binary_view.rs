//! Binary classification: ROC and PR curves with a movable threshold and the
//! confusion matrix at it (O(log n) per move: the curves are sorted once).

use leptos::prelude::*;

use super::chart::{bands_toggle, Chart};
use super::state::{AppState, Level};
use super::util::ink;
use wasm_bindgen::JsCast;

use crate::core::binary::{nearest_point, ThresholdRule};
use crate::core::registry::Kind;
use crate::markup::confusion_table;
use crate::plot::{binary_series, series_css, LineChart, Marker, PR_AXES, ROC_AXES};
use crate::report::fixed;

#[component]
pub fn BinaryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let models = move || shown_models(state);
    // each model's threshold: its own (a threshold per model) or the shared one
    let threshold = move |name: &str| state.conv.with(|c| c.threshold_for(name));
    let rule = move || state.conv.with(|c| c.threshold_rule);
    // the curves change with the models, not with the threshold: built once
    // (a moved threshold redraws them from the shared points)
    let curves = Memo::new(move |_| {
        let ms = models();
        let refs: Vec<_> = (ms.iter())
            .map(|(n, c, p)| (n.as_str(), *c, &*p.curve))
            .collect();
        binary_series(&refs, state.tests.with(|t| t.ci))
    });
    // hover: the operating point nearest the pointer's x on either curve
    let hover = RwSignal::new(None::<(bool, f64)>);
    // each model's operating point at the threshold (filled) and, while the
    // pointer is over a chart, the one nearest it (hollow), on both charts
    let markers = move |roc: bool| -> Vec<Marker> {
        let (r, near) = (rule(), hover.get());
        let mut out = Vec::new();
        for (name, color, p) in models() {
            let hovered = near.and_then(|(by_recall, x)| p.curve.point_near(x, by_recall));
            let at = std::iter::once((p.curve.confusion_at(threshold(&name), r), false));
            for (m, hollow) in at.chain(hovered.map(|(_, m)| (m, true))) {
                let (x, y) = if roc { m.roc_point() } else { m.pr_point() };
                out.push(Marker {
                    x,
                    y,
                    color,
                    label: String::new(),
                    hollow,
                });
            }
        }
        out
    };
    // the two charts differ in their axes, their curves and the chance line
    let chart = move |roc: bool| {
        let (title, x, y) = if roc {
            ("ROC", ROC_AXES.0, ROC_AXES.1)
        } else {
            ("Precision–recall", PR_AXES.0, PR_AXES.1)
        };
        LineChart {
            title: title.into(),
            x_label: x.into(),
            y_label: y.into(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            series: curves.with(|c| if roc { c.0.clone() } else { c.1.clone() }),
            bands: Vec::new(),
            markers: markers(roc),
            diagonal: roc,
            ink: ink(),
        }
    };
    let roc = Signal::derive(move || chart(true));
    let pr = Signal::derive(move || chart(false));
    let hover_roc =
        Callback::new(move |(x, _): (f64, f64)| hover.set(x.is_finite().then_some((false, x))));
    let hover_pr =
        Callback::new(move |(x, _): (f64, f64)| hover.set(x.is_finite().then_some((true, x))));
    let set_t = move |name: &str, v: f64| set_threshold(state, name, v);
    // a click sets the threshold to the operating point nearest it: on each
    // curve the point nearest the click's x, of these the nearest in y
    let pick = move |by_recall: bool| {
        Callback::new(move |at: (f64, f64)| {
            let ms = models();
            if let Some((i, t)) = nearest_point(ms.iter().map(|m| &*m.2.curve), at, by_recall) {
                set_t(&ms[i].0, t);
            }
        })
    };
    let readout = move || {
        let (by_recall, x) = hover.get()?;
        let parts: Vec<String> = models()
            .iter()
            .filter_map(|(name, _, p)| {
                let (t, m) = p.curve.point_near(x, by_recall)?;
                let fpr = m.roc_point().0;
                let (recall, precision) = (fixed("", m.recall(), 4), fixed("", m.precision(), 4));
                Some(format!(
                    "{name}: threshold {t}, TPR {recall}, FPR {fpr:.4}, precision {precision}, recall {recall}"
                ))
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(" · "))
    };
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"ROC and precision–recall"</h2>
                <ThresholdControls/>
                {bands_toggle("pr-bands", "precision's Wilson score interval at each threshold, its predicted positives as trials")}
            </div>
            <div class="charts">
                <Chart chart=roc label="ROC curve" on_hover=hover_roc on_pick=pick(false)/>
                <Chart chart=pr label="precision-recall curve" on_hover=hover_pr on_pick=pick(true)/>
            </div>
            <p class="readout" data-readout="binary" aria-live="polite">{readout}</p>
            <div class="confusions" inner_html={move || models().into_iter().map(|(name, c, p)| {
                confusion_table(&name, &series_css(c), &p.curve.confusion_at(threshold(&name), rule()))
            }).collect::<String>()}></div>
        </section>
        <DiagnosticsCard/>
    }
}

/// The shown binary models as (name, colour, prepared model): the Arc is
/// shared, nothing is copied.
fn shown_models(state: AppState) -> Vec<(String, usize, Model)> {
    let prepared = state.binary.get();
    (0..prepared.len())
        .filter(|&i| !state.is_hidden(Kind::Binary, &prepared[i].name))
        .map(|i| {
            (
                prepared[i].name.clone(),
                state.color_index(Kind::Binary, &prepared[i].name),
                Model(prepared.clone(), i),
            )
        })
        .collect()
}

/// Sets model `name`'s threshold when each model has its own, else the shared one.
fn set_threshold(state: AppState, name: &str, v: f64) {
    state.conv.update(|c| {
        let own = !c.thresholds.is_empty() && !name.is_empty();
        c.set_threshold(own.then_some(name), v)
    })
}

/// The threshold's slider and box (one per model, each over its own
/// scores' range, when each has its own), the switch between the two, and
/// the rule in words.
#[component]
fn ThresholdControls() -> impl IntoView {
    let state = expect_context::<AppState>();
    let models = move || shown_models(state);
    let threshold = move |name: &str| state.conv.with(|c| c.threshold_for(name));
    let set_t = move |name: &str, v: f64| set_threshold(state, name, v);
    // (cheap: the ends of each sorted curve; a memo is 1 KB of wasm)
    let range = move || score_range(&state.binary.get());
    // (a memo: the sliders are made again only when this changes, never
    // while one is dragged)
    let each = Memo::new(move |_| state.conv.with(|c| !c.thresholds.is_empty()));
    let rule = move || state.conv.with(|c| c.threshold_rule);
    // a threshold's slider and box over `lo..hi`: the shared one (`None`),
    // or model `name`'s own, after its colour
    let set = move |name: &str, ev: web_sys::Event| {
        if let Some(v) = crate::text::parse_f64(&event_target_value(&ev)).filter(|v| v.is_finite())
        {
            set_t(name, v)
        }
    };
    let slider = move |name: Option<(String, usize)>, (lo, hi): (f64, f64)| {
        let (key, color) = name.unwrap_or_default();
        let (k1, k2, k3) = (key.clone(), key.clone(), key.clone());
        let shown = move || threshold(&k3).to_string();
        view! {
            <label class="threshold">
                {(!key.is_empty()).then(|| view! { <span class="swatch" style=format!("background:{}", series_css(color))></span> })}
                {format!("threshold {key} ")}
                <input type="range" id=key.is_empty().then_some("threshold") data-threshold-model=(!key.is_empty()).then(|| key.clone())
                    min=lo.to_string() max=hi.to_string() step=((hi - lo) / 1000.0).max(1e-6).to_string()
                    prop:value=shown.clone() aria-label=format!("decision threshold {key}") on:input=move |ev| set(&k1, ev)/>
                <input type="number" class="threshold-value" step="any" prop:value=shown
                    aria-label="threshold value" on:change=move |ev| set(&k2, ev)/>
            </label>
        }
    };
    // a threshold per model: each starts at the shared one
    let toggle_each = move |ev: web_sys::Event| {
        let on = event_target_checked(&ev);
        let names: Vec<String> = models().into_iter().map(|m| m.0).collect();
        state.conv.update(|c| {
            let t = c.threshold;
            c.thresholds = names.into_iter().filter(|_| on).map(|n| (n, t)).collect();
        })
    };
    view! {
        {move || if each.get() {
            // each model's over its own scores' range
            let sliders = models().into_iter().map(|(n, c, p)| slider(Some((n, c)), score_range(std::slice::from_ref(&*p)))).collect_view();
            view! { <div class="own-thresholds">{sliders}</div> }.into_any()
        } else {
            slider(None, range()).into_any()
        }}
        <label class="small"><input type="checkbox" id="threshold-each" prop:checked=move || each.get() on:change=toggle_each/>"a threshold per model"</label>
        <span class="muted">{move || if rule() == ThresholdRule::AtLeast { "positive iff score ≥ t" } else { "positive iff score > t" }}</span>
    }
}

/// The Diagnostics card: the worker's markup ([`crate::diagnose::html`]);
/// its options write the link's `diag`, an operating point's "set
/// threshold" moves its model's threshold.
#[component]
fn DiagnosticsCard() -> impl IntoView {
    let state = expect_context::<AppState>();
    let set_t = move |name: &str, v: f64| set_threshold(state, name, v);
    let option_changed = move |ev: web_sys::Event| {
        let id = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|e| e.id())
            .unwrap_or_default();
        if let Some(key) = id.strip_prefix(crate::diagnose::html::CONTROL_PREFIX) {
            set_option(state, key, &event_target_value(&ev));
        }
    };
    // "set threshold" of an operating point
    // (the row names the model)
    let point_clicked = move |ev: web_sys::MouseEvent| {
        let attr = |e: Option<web_sys::Element>, a: &str| e.and_then(|e| e.get_attribute(a));
        let button = super::util::clicked(&ev, "button[data-threshold]");
        let t = attr(button, "data-threshold").and_then(|t| crate::text::parse_f64(&t));
        let row = super::util::clicked(&ev, "tr[data-model]");
        if let Some(t) = t.filter(|t| t.is_finite()) {
            set_t(&attr(row, "data-model").unwrap_or_default(), t);
        }
    };
    view! {
        <section class="card" id="diagnostics">
            <div class="diag-body" on:change=option_changed on:click=point_clicked
                inner_html=move || state.diagnostics.get()></div>
        </section>
    }
}

/// Sets one Diagnostics option (the link's `diag`): `key:value` replaces the
/// key's pair; the worker reads the text (`diagnose::Options::from_text`)
/// and skips what is not valid. The groups (`group`) are the metric table's too.
pub fn set_option(state: AppState, key: &str, value: &str) {
    let mut text = String::new();
    for pair in state.diagnose.get_untracked().split(';') {
        if pair
            .split(':')
            .next()
            .is_some_and(|k| !k.is_empty() && k != key)
        {
            text += pair;
            text.push(';');
        }
    }
    text += key;
    text.push(':');
    text += &value.replace(';', ",");
    state.diagnose.set(text);
}

/// One prepared model inside the shared list.
#[derive(Clone)]
struct Model(
    super::state::Shared<Vec<crate::core::evaluate::BinaryPrepared>>,
    usize,
);

impl std::ops::Deref for Model {
    type Target = crate::core::evaluate::BinaryPrepared;
    fn deref(&self) -> &Self::Target {
        &self.0[self.1]
    }
}

/// The threshold slider's range, which the Diagnostics panel's score axis
/// shares: [0, 1] for probabilities, else the scores' own range.
fn score_range(prepared: &[crate::core::evaluate::BinaryPrepared]) -> (f64, f64) {
    let lo = prepared
        .iter()
        .filter_map(|p| p.curve.thresholds.last().copied())
        .fold(f64::INFINITY, f64::min);
    let hi = prepared
        .iter()
        .filter_map(|p| p.curve.thresholds.first().copied())
        .fold(f64::NEG_INFINITY, f64::max);
    if lo >= 0.0 && hi <= 1.0 || !lo.is_finite() {
        (0.0, 1.0)
    } else {
        (lo, hi)
    }
}

/// Asks a worker for the Diagnostics panel ([`crate::diagnose::html`]) of
/// the shown binary models, from the page-wide effect (`app/mod.rs`) while
/// the binary tab is open: again when the models, their colours, the
/// options, the score scale or the threshold rule change, not when the
/// threshold moves (the panel's threshold line follows `--thr`).
#[derive(Clone, Copy)]
pub struct Diagnostics {
    /// What the last request was of (a hash), 0 for none.
    last: StoredValue<u64>,
}

impl Default for Diagnostics {
    fn default() -> Self {
        Diagnostics {
            last: StoredValue::new(0),
        }
    }
}

impl Diagnostics {
    /// Also places the panel's threshold lines: the panel's own style
    /// rule for them ([`crate::diagnose::html::threshold_rule`]), so a moved
    /// threshold restyles those lines only.
    pub fn watch(self, state: AppState, open: bool) {
        if !open {
            return;
        }
        let prepared = state.binary.get();
        let range = score_range(&prepared);
        let at = |name: &str| {
            let t = state.conv.with(|c| c.threshold_for(name));
            ((t - range.0) / (range.1 - range.0)).clamp(0.0, 1.0)
        };
        let options = state.diagnose.get();
        let (logits, rule) = state
            .conv
            .with(|c| (c.binary_scores_are_logits, c.threshold_rule));
        let mut models = Vec::new();
        for p in prepared.iter() {
            if !state.is_hidden(Kind::Binary, &p.name) {
                let color = state.color_index(Kind::Binary, &p.name);
                models.push((p.name.clone(), color, p.curve.clone(), at(&p.name)));
            }
        }
        let ats: Vec<f64> = models.iter().map(|m| m.3).collect();
        if let Some(rule) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(crate::diagnose::html::THRESHOLD_RULE_ID))
        {
            rule.set_text_content(Some(&crate::diagnose::html::threshold_rule(&ats)));
        }
        // FNV-1a over what the panel depends on (the curves by address: a
        // changed curve is a new one)
        let mut key = 0xcbf2_9ce4_8422_2325u64;
        let mut mix = |v: u64| key = (key ^ v).wrapping_mul(0x0100_0000_01b3);
        options.bytes().for_each(|b| mix(b as u64));
        mix(logits as u64 | (rule as u64) << 1);
        for (name, color, curve, _) in &models {
            name.bytes().for_each(|b| mix(b as u64));
            mix(*color as u64);
            mix(std::sync::Arc::as_ptr(curve) as usize as u64);
        }
        let key = key | 1;
        if key == self.last.get_value() {
            return;
        }
        self.last.set_value(key);
        let last = self.last;
        wasm_bindgen_futures::spawn_local(async move {
            let html = super::worker::diagnose(
                &models,
                &options,
                logits,
                rule,
                range,
                super::worker::protocol::Lane::Diagnostics,
            )
            .await;
            if last.get_value() == key {
                match html {
                    Ok(html) => super::util::keep_edit(
                        &html.clone(),
                        Box::new(move || state.diagnostics.set(html)),
                    ),
                    Err(why) if !why.is_empty() => {
                        state.say(Level::Error, "The diagnostics failed", vec![why])
                    }
                    Err(_) => {}
                }
            }
        });
    }
}
