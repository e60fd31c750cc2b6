//! Teaching: a toy ranking to reorder (drag and drop, or Alt+↑/↓ on a focused
//! item, or its buttons) and regrade, with every ranking metric and the nDCG
//! explanation updating live, computed by the same core as the dashboard.

use leptos::prelude::*;

use super::explain_view::Breakdown;
use super::util::focus_soon;
use crate::core::ranking::QueryView;
use crate::core::ranking_metrics::Ctx;
use crate::core::registry::MetricId;
use crate::core::{explain, lessons};

/// Seed 004's example: relevances [0, 5, 1, 4, 2] give DCG 6.151, IDCG 8.954, nDCG 0.687.
pub const SEED_004: [i32; 5] = [0, 5, 1, 4, 2];

fn items_of(grades: &[i32]) -> Vec<(String, i32)> {
    grades
        .iter()
        .enumerate()
        .map(|(i, &g)| (format!("d{}", i + 1), g))
        .collect()
}

/// The toy ranking, starting from `grades` (in ranked order) at cutoff `k`.
#[component]
pub fn RankingPlayground(grades: &'static [i32], k: usize) -> impl IntoView {
    let start = grades;
    let items = RwSignal::new(items_of(start));
    let k = RwSignal::new(k.clamp(1, 20));
    let dragged = RwSignal::new(None::<usize>);
    let seed = StoredValue::new(0x2545_f491_4f6c_dd1du64);
    let move_item = move |from: usize, to: usize| {
        items.update(|v| {
            if from < v.len() && to < v.len() && from != to {
                let it = v.remove(from);
                v.insert(to, it);
            }
        })
    };
    let metrics = Memo::new(move |_| {
        let list = items.get();
        let kk = k.get().max(1);
        let k = Some(kk);
        let grades: Vec<i32> = list.iter().map(|x| x.1).collect();
        let mut ideal = grades.clone();
        ideal.sort_unstable_by(|a, b| b.cmp(a));
        let ties = vec![false; grades.len()];
        let q = QueryView {
            grades: &grades,
            tied_with_prev: &ties,
            judged_desc: &ideal,
            average_ties: false,
        };
        let rows = lessons::toy_metrics(&q, kk);
        let docs: Vec<String> = list.iter().map(|x| x.0.clone()).collect();
        let c = Ctx::default();
        let explained = lessons::TOY_EXPLAINED
            .map(|base| explain::query(&q, &docs, &MetricId::new(base, k), &c));
        (rows, explained)
    });
    let shuffle = move |_| {
        items.update(|v| {
            // xorshift, seeded: the same sequence of shuffles on every visit
            let mut s = seed.get_value();
            for i in (1..v.len()).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                v.swap(i, (s % (i as u64 + 1)) as usize);
            }
            seed.set_value(s);
        })
    };
    view! {
        <section class="card playground" id="ranking-playground">
            <div class="card-head">
                <h2>"A toy ranking"</h2>
                <label>"k " <input type="number" min="1" max="20" id="toy-k" prop:value=move || k.get().to_string()
                    on:change=move |ev| k.set(event_target_value(&ev).parse().unwrap_or(5).clamp(1, 20))/></label>
            </div>
            <p class="muted small">"Drag a document, or focus it and press Alt+↑ / Alt+↓; edit its relevance grade. Every metric below is computed by Rankscope's core, the same code as the dashboard (relevant: grade ≥ 1)."</p>
            <div class="toy-buttons">
                <button id="toy-ideal" on:click=move |_| items.update(|v| v.sort_by_key(|x| std::cmp::Reverse(x.1)))>"Ideal order"</button>
                <button id="toy-reverse" on:click=move |_| items.update(|v| v.reverse())>"Reverse"</button>
                <button id="toy-shuffle" on:click=shuffle>"Shuffle"</button>
                <button id="toy-reset" on:click=move |_| items.set(items_of(start))>"Start again"</button>
                <button id="toy-seed004" on:click=move |_| { items.set(items_of(&SEED_004)); k.set(5); }>"Worked example"</button>
                <button on:click=move |_| items.update(|v| if v.len() < 20 { let n = v.len() + 1; v.push((format!("d{n}"), 0)); }) disabled=move || items.with(|v| v.len() >= 20)>"+ document"</button>
                <button on:click=move |_| items.update(|v| if v.len() > 5 { v.pop(); }) disabled=move || items.with(|v| v.len() <= 5)>"− document"</button>
            </div>
            <div class="toy">
                <ol class="toy-list" aria-label="toy ranking">
                    {move || items.get().into_iter().enumerate().map(|(i, (id, grade))| {
                        let n = items.with_untracked(|v| v.len());
                        view! {
                            <li draggable="true" tabindex="0" data-doc=id.clone() data-grade=grade.to_string()
                                class:relevant={grade >= 1}
                                on:dragstart=move |_| dragged.set(Some(i))
                                on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); }
                                on:drop=move |e: web_sys::DragEvent| { e.prevent_default(); e.stop_propagation(); if let Some(from) = dragged.get_untracked() { move_item(from, i); } dragged.set(None); }
                                on:keydown=move |e: web_sys::KeyboardEvent| {
                                    let to = match e.key().as_str() {
                                        "ArrowUp" if e.alt_key() && i > 0 => i - 1,
                                        "ArrowDown" if e.alt_key() && i + 1 < n => i + 1,
                                        _ => return,
                                    };
                                    e.prevent_default();
                                    move_item(i, to);
                                    // the list is drawn anew: keep the keyboard on the moved document
                                    focus_soon(format!("ol.toy-list li:nth-child({})", to + 1));
                                }>
                                <span class="rank">{i + 1}</span>
                                <span class="doc">{id.clone()}</span>
                                <label>"grade "<input type="number" min="0" max="10" prop:value=grade.to_string() aria-label=format!("grade of {id}")
                                    on:change=move |ev| { let g = event_target_value(&ev).parse::<i32>().unwrap_or(0).clamp(0, 10); items.update(|v| if let Some(x) = v.get_mut(i) { x.1 = g; }); }/></label>
                                <button class="small" aria-label=format!("move {id} up") disabled={i == 0} on:click=move |_| move_item(i, i.saturating_sub(1))>"↑"</button>
                                <button class="small" aria-label=format!("move {id} down") disabled={i + 1 == n} on:click=move |_| move_item(i, i + 1)>"↓"</button>
                            </li>
                        }
                    }).collect_view()}
                </ol>
                <table class="small-table toy-metrics">
                    <tbody>
                        {move || metrics.get().0.into_iter().map(|r| view! {
                            <tr><th scope="row">{r.label}</th><td class="num" data-toy-metric=r.key data-value=format!("{:?}", r.value)>{format!("{:.4}", r.value)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            {move || metrics.get().1.into_iter().flatten().map(|e| view! {
                <div class="toy-explain"><Breakdown e=e digits=4/></div>
            }).collect_view()}
        </section>
    }
}
