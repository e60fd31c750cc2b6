//! Teaching: a classification playground. Scored examples sit on a score axis
//! (drag one, or focus it and press ←/→), a threshold splits them, and the
//! confusion matrix, the ROC and PR curves and every threshold metric follow
//! live, computed by the same core as the dashboard.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::explain_view::Breakdown;
use super::util::focus_soon;
use crate::core::binary::{self, BinaryCurve, Confusion, ThresholdRule, ZeroDivision};
use crate::core::explain::{self, Explanation};
use crate::core::registry::{self, Compute, Explain, Kind, MetricInfo};
use crate::plot::{self, LineChart, Marker, Series};

/// One point of the axis: `count` examples of one class with one score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Example {
    pub positive: bool,
    pub score: f64,
    pub count: u32,
}

const fn ex(positive: bool, score: f64, count: u32) -> Example {
    Example {
        positive,
        score,
        count,
    }
}

/// Six of each class, overlapping in the middle.
pub const BALANCED: &[Example] = &[
    ex(true, 0.95, 1),
    ex(true, 0.8, 1),
    ex(true, 0.7, 1),
    ex(true, 0.55, 1),
    ex(true, 0.4, 1),
    ex(true, 0.3, 1),
    ex(false, 0.75, 1),
    ex(false, 0.5, 1),
    ex(false, 0.35, 1),
    ex(false, 0.2, 1),
    ex(false, 0.1, 1),
    ex(false, 0.05, 1),
];

/// Seed 000's example: location A, 1000 samples of which the model gets 60 %
/// right, and location B, 10 samples of which it gets 10 % right. B is the
/// positive class; at the threshold 0.5, 600 A and 1 B are classified
/// correctly (accuracy 601 / 1010, as in the seed).
pub const IMBALANCE: &[Example] = &[
    ex(true, 0.85, 1),
    ex(true, 0.45, 4),
    ex(true, 0.35, 3),
    ex(true, 0.2, 2),
    ex(false, 0.75, 200),
    ex(false, 0.6, 200),
    ex(false, 0.4, 100),
    ex(false, 0.3, 100),
    ex(false, 0.15, 200),
    ex(false, 0.05, 200),
];

const RULE: ThresholdRule = ThresholdRule::AtLeast;

/// The metrics table: every binary metric that explains itself, in the
/// registry's order.
fn metrics() -> impl Iterator<Item = &'static MetricInfo> {
    registry::METRICS
        .iter()
        .filter(|m| m.kind == Kind::Binary && !matches!(m.explain, Explain::None))
}

struct Computed {
    confusion: Confusion,
    values: Vec<(&'static str, &'static str, Option<f64>)>,
    roc: String,
    pr: String,
    explanation: Result<Explanation, String>,
}

fn compute(points: &[Example], t: f64, explained: &str, dark: bool) -> Computed {
    let mut labels = Vec::new();
    let mut scores = Vec::new();
    for p in points {
        for _ in 0..p.count {
            labels.push(p.positive);
            scores.push(p.score);
        }
    }
    let curve = BinaryCurve::new(&labels, &scores);
    let c = curve.confusion_at(t, RULE);
    let value = |id: &str| -> Option<f64> {
        let info = registry::info(id, Kind::Binary)?;
        match info.compute {
            Compute::Curve(f) => f(&curve),
            Compute::Calibrated(f) => f(&curve, false),
            Compute::Loss { brier: false } => binary::log_loss(&labels, &scores).ok(),
            Compute::Loss { brier: true } => binary::brier(&labels, &scores).ok(),
            _ => info.at_threshold(&c, ZeroDivision::default()).flatten(),
        }
    };
    let values = metrics()
        .map(|m| (m.title, m.base, value(m.base)))
        .collect();
    let ink = if dark { (226, 232, 240) } else { (30, 41, 59) };
    let chart =
        |title: &str, x: &str, y: &str, points: Vec<(f64, f64)>, at: (f64, f64), roc: bool| {
            let chart = LineChart {
                title: title.into(),
                x_label: x.into(),
                y_label: y.into(),
                x_range: (0.0, 1.0),
                y_range: (0.0, 1.0),
                series: vec![Series {
                    name: "toy model".into(),
                    color: 0,
                    points: points.into(),
                    faint: false,
                    steps: !roc,
                }],
                bands: Vec::new(),
                markers: vec![Marker {
                    x: at.0,
                    y: at.1,
                    color: 5,
                    label: format!("t = {t:.2}"),
                    hollow: false,
                }],
                diagonal: roc,
                ink,
            };
            plot::to_svg(&chart, 300, 260)
        };
    let roc = chart(
        "ROC",
        plot::ROC_AXES.0,
        plot::ROC_AXES.1,
        curve.roc_points(),
        c.roc_point(),
        true,
    );
    let pr = chart(
        "Precision–recall",
        plot::PR_AXES.0,
        plot::PR_AXES.1,
        curve.pr_points(),
        c.pr_point(),
        false,
    );
    let rule = format!("score ≥ {t:.2}");
    let explanation = match registry::info(explained, Kind::Binary).map(|m| (m.title, m.explain)) {
        Some((title, Explain::Curve(terms))) => explain::curve_terms(terms, &curve).ok_or(format!("{title} needs both classes: add a positive and a negative example.")),
        Some((_, Explain::Loss)) => Err("Log loss and the Brier score judge the scores themselves, not the threshold: the closer each score is to its label (1 for positive, 0 for negative), the lower they are.".into()),
        _ => explain::threshold_metric(explained, &c, &rule, ZeroDivision::default()).ok_or(format!("{explained} has no breakdown")),
    };
    Computed {
        confusion: c,
        values,
        roc,
        pr,
        explanation,
    }
}

/// Axis geometry of the SVG (viewBox units).
const AXIS_LEFT: f64 = 40.0;
const AXIS_WIDTH: f64 = 560.0;
const POS_Y: f64 = 48.0;
const NEG_Y: f64 = 118.0;

fn x_of(score: f64) -> f64 {
    AXIS_LEFT + score * AXIS_WIDTH
}

/// The score under a pointer at `client_x` over `svg`.
fn score_at(svg: &web_sys::Element, client_x: i32) -> Option<f64> {
    let r = svg.get_bounding_client_rect();
    if r.width() <= 0.0 {
        return None;
    }
    let x = (client_x as f64 - r.left()) / r.width() * 640.0;
    Some((((x - AXIS_LEFT) / AXIS_WIDTH).clamp(0.0, 1.0) * 100.0).round() / 100.0)
}

#[derive(Clone, Copy, PartialEq)]
enum Drag {
    Point(usize),
    Threshold,
}

#[component]
pub fn ClassificationPlayground(start: &'static [Example], threshold: f64) -> impl IntoView {
    let points = RwSignal::new(start.to_vec());
    let t = RwSignal::new(threshold);
    // the first metric of the confusion matrix (accuracy) to begin with
    let first = metrics().find(|m| matches!(m.explain, Explain::Threshold(_)));
    let explained = RwSignal::new(first.map_or("", |m| m.base));
    let drag = RwSignal::new(None::<Drag>);
    let svg_ref = NodeRef::<leptos::svg::Svg>::new();
    let dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    let computed = Memo::new(move |_| {
        let c = compute(&points.get(), t.get(), explained.get(), dark);
        (
            c.confusion,
            c.values,
            c.roc,
            c.pr,
            c.explanation.map_err(|e| e.to_string()),
        )
    });
    let set_score = move |i: usize, s: f64| {
        points.update(|v| {
            if let Some(p) = v.get_mut(i) {
                p.score = (s.clamp(0.0, 1.0) * 100.0).round() / 100.0;
            }
        })
    };
    let on_move = move |ev: web_sys::PointerEvent| {
        let Some(d) = drag.get_untracked() else {
            return;
        };
        let Some(svg) = svg_ref.get_untracked() else {
            return;
        };
        let Some(s) = score_at(&svg, ev.client_x()) else {
            return;
        };
        match d {
            Drag::Point(i) => set_score(i, s),
            Drag::Threshold => t.set(s),
        }
    };
    let start_drag = move |ev: &web_sys::PointerEvent, d: Drag| {
        ev.prevent_default();
        if let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
        drag.set(Some(d));
    };
    let add = move |positive: bool| {
        points.update(|v| {
            if v.len() < 40 {
                v.push(ex(positive, 0.5, 1))
            }
        })
    };
    view! {
        <section class="card playground" id="classification-playground">
            <div class="card-head">
                <h2>"Scored examples and a threshold"</h2>
                <label>"threshold " <input type="range" id="clf-threshold" min="0" max="1" step="0.01"
                    prop:value=move || format!("{:.2}", t.get())
                    on:input=move |ev| t.set(event_target_value(&ev).parse::<f64>().unwrap_or(0.5).clamp(0.0, 1.0))/>
                    <output id="clf-threshold-value">{move || format!("{:.2}", t.get())}</output></label>
            </div>
            <p class="muted small">"Positives sit on the upper line, negatives on the lower one. Drag an example along the score axis, or focus it and press ←/→ (Shift: ×10), Delete to remove it, C to change its class. An example is predicted positive when its score ≥ the threshold (the dashed line; drag it too). Every number is computed by Rankscope's core, the same code as the dashboard."</p>
            <div class="toy-buttons">
                <button id="clf-balanced" on:click=move |_| { points.set(BALANCED.to_vec()); t.set(0.5); }>"Balanced example"</button>
                <button id="clf-imbalance" on:click=move |_| { points.set(IMBALANCE.to_vec()); t.set(0.5); }>"1000 A vs 10 B"</button>
                <button id="clf-majority" on:click=move |_| t.set(1.0) title="threshold 1: every example scored below 1 is predicted negative">"Always predict the majority"</button>
                <button id="clf-add-pos" on:click=move |_| add(true)>"+ positive"</button>
                <button id="clf-add-neg" on:click=move |_| add(false)>"+ negative"</button>
            </div>
            <svg class="clf-axis" viewBox="0 0 640 160" role="group" aria-label="examples on the score axis" node_ref=svg_ref
                on:pointermove=on_move on:pointerup=move |_| drag.set(None) on:pointercancel=move |_| drag.set(None)>
                <rect class="predicted-positive" x=move || x_of(t.get()) y="18" width=move || (x_of(1.0) - x_of(t.get())).max(0.0) height="124"></rect>
                <text x="4" y=POS_Y + 4.0 class="axis-label">"pos"</text>
                <text x="4" y=NEG_Y + 4.0 class="axis-label">"neg"</text>
                <line x1=AXIS_LEFT y1="150" x2=x_of(1.0) y2="150" class="axis"></line>
                {[0.0, 0.25, 0.5, 0.75, 1.0].map(|s| view! { <text x=x_of(s) y="158" text-anchor="middle" class="axis-label">{format!("{s}")}</text> }).collect_view()}
                {move || points.get().into_iter().enumerate().map(|(i, p)| {
                    let r = 7.0 + 2.5 * (p.count as f64).log2();
                    let class = if p.positive { "example positive" } else { "example negative" };
                    let label = format!("{} example{}, score {:.2}", if p.positive { "positive" } else { "negative" }, if p.count > 1 { format!(" ×{}", p.count) } else { String::new() }, p.score);
                    view! {
                        <g class=class data-example=i.to_string() data-score=format!("{:.2}", p.score) data-count=p.count.to_string() data-positive=p.positive.to_string() tabindex="0" role="slider"
                            aria-label=label aria-valuemin="0" aria-valuemax="1" aria-valuenow=format!("{:.2}", p.score)
                            on:pointerdown=move |ev: web_sys::PointerEvent| start_drag(&ev, Drag::Point(i))
                            on:keydown=move |ev: web_sys::KeyboardEvent| {
                                let step = if ev.shift_key() { 0.1 } else { 0.01 };
                                let mut focus = i;
                                match ev.key().as_str() {
                                    "ArrowLeft" | "ArrowDown" => { ev.prevent_default(); set_score(i, p.score - step); }
                                    "ArrowRight" | "ArrowUp" => { ev.prevent_default(); set_score(i, p.score + step); }
                                    "Delete" | "Backspace" => { ev.prevent_default(); points.update(|v| if i < v.len() { v.remove(i); }); focus = i.min(points.with_untracked(|v| v.len().saturating_sub(1))); }
                                    "c" | "C" => points.update(|v| if let Some(x) = v.get_mut(i) { x.positive = !x.positive; }),
                                    _ => return,
                                }
                                // the examples are drawn anew: keep the keyboard on this one
                                focus_soon(format!("svg.clf-axis g.example[data-example=\"{focus}\"]"));
                            }>
                            <circle cx=x_of(p.score) cy=if p.positive { POS_Y } else { NEG_Y } r=r></circle>
                            {(p.count > 1).then(|| view! { <text x=x_of(p.score) y=(if p.positive { POS_Y } else { NEG_Y }) + 4.0 text-anchor="middle" class="count">{p.count}</text> })}
                        </g>
                    }
                }).collect_view()}
                <g class="clf-cut" on:pointerdown=move |ev: web_sys::PointerEvent| start_drag(&ev, Drag::Threshold)>
                    <line x1=move || x_of(t.get()) y1="14" x2=move || x_of(t.get()) y2="146"></line>
                    <rect x=move || x_of(t.get()) - 8.0 y="14" width="16" height="132" class="handle"></rect>
                </g>
            </svg>
            {move || {
                let (c, values, roc, pr, e) = computed.get();
                view! {
                    <div class="toy">
                        <table class="small-table confusion" aria-label="confusion matrix">
                            <thead><tr><th></th><th scope="col">"predicted positive"</th><th scope="col">"predicted negative"</th></tr></thead>
                            <tbody>
                                <tr><th scope="row">"positive"</th><td data-cm="tp">"TP "{c.tp}</td><td data-cm="fn">"FN "{c.fn_}</td></tr>
                                <tr><th scope="row">"negative"</th><td data-cm="fp">"FP "{c.fp}</td><td data-cm="tn">"TN "{c.tn}</td></tr>
                            </tbody>
                        </table>
                        <table class="small-table toy-metrics">
                            <tbody>
                                {values.into_iter().map(|(label, id, v)| view! {
                                    <tr class:chosen=move || explained.get() == id>
                                        <th scope="row">{label}</th>
                                        <td class="num explainable" tabindex="0" data-clf-metric=id data-value=v.map(|v| format!("{v:?}")).unwrap_or_default()
                                            on:click=move |_| explained.set(id)
                                            on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" { explained.set(id) }>
                                            {v.map_or("undefined (one class only)".into(), |v| format!("{v:.4}"))}
                                        </td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                        <div class="clf-charts">
                            <div class="chart-svg" inner_html=roc></div>
                            <div class="chart-svg" inner_html=pr></div>
                        </div>
                    </div>
                    <div class="toy-explain" id="clf-explain">
                        {match e {
                            Ok(e) => view! { <Breakdown e=e digits=4/> }.into_any(),
                            Err(why) => view! { <p class="muted">{why}</p> }.into_any(),
                        }}
                    </div>
                }
            }}
        </section>
    }
}
