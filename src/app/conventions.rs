//! The conventions panel: every switch of CONVENTIONS.md that applies to the kind.

use leptos::prelude::*;

use super::state::AppState;
use crate::core::conventions;
use crate::core::registry::Kind;

#[component]
pub fn ConventionsPanel(kind: Kind) -> impl IntoView {
    let state = expect_context::<AppState>();
    let defaults = match kind {
        Kind::Ranking => {
            "Defaults follow trec_eval with -c (TREC input): every qrels query counts."
        }
        Kind::Binary => "Defaults follow scikit-learn, except that a ratio with a zero denominator is shown as undefined (—) rather than 0.",
        Kind::Multiclass => "Defaults: stable descending sort, probabilities.",
        Kind::Ratings => "MAE, RMSE and FCP have no switch; Spearman uses average ranks (scipy).",
    };
    let level = (kind == Kind::Ranking).then(|| view! {
        <label>"Relevant if grade ≥ "
            <input type="number" min="1" max="100" id="conv-relevance_level" prop:value=move || state.conv.with(|c| c.relevance_level.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<i32>() { state.conv.update(|c| c.relevance_level = v.max(1)) } }/>
        </label>
    });
    let tied = move || {
        if kind != Kind::Ranking {
            return None;
        }
        let prepared = state.prepared.get();
        let n: usize = prepared
            .iter()
            .map(|r| r.mixed_ties.len())
            .max()
            .unwrap_or(0);
        (n > 0).then(|| format!("In {n} queries equal scores tie documents of different grades: their values depend on the tie rule."))
    };
    // one switch for another tool's conventions (core::presets), ranking only
    let preset = (kind == Kind::Ranking).then(|| {
        let names = crate::core::presets::PRESETS.iter().map(|p| p.name);
        view! {
            <label>"Preset (another tool's conventions)"
                <select id="conv-preset" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    state.conv.update(|c| if v.is_empty() { c.preset.clear() } else { let _ = crate::core::presets::apply(c, &v); });
                }>
                    <option value="" selected=move || state.conv.with(|c| c.preset.is_empty())>"none (Rankscope's defaults)"</option>
                    {names.map(|n| view! { <option value=n selected=move || state.conv.with(|c| c.preset == n)>{n}</option> }).collect_view()}
                </select>
            </label>
        }
    });
    view! {
        <section class="card conventions">
            <h2>"Conventions"</h2>
            <p class="muted small">{defaults}</p>
            {preset}
            {conventions::of(kind).filter(|ch| !ch.values.is_empty()).map(|ch| {
                let (key, get) = (ch.key, ch.get);
                view! {
                    <label>{ch.label}
                        <select id=format!("conv-{key}") on:change=move |ev| { let v = event_target_value(&ev); state.conv.update(|c| { let _ = conventions::set(c, key, &v); }); }>
                            {ch.values.iter().map(|(value, text)| view! { <option value=*value selected=move || state.conv.with(|c| get(c) == *value)>{*text}</option> }).collect_view()}
                        </select>
                    </label>
                }
            }).collect_view()}
            {level}
            {move || tied().map(|t| view! { <p class="warn small">"⚠ "{t}</p> })}
        </section>
    }
}
