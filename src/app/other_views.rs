//! Multi-class (Acc@k curve, rank histogram) and ratings (error histogram) views.

use leptos::prelude::*;

use super::chart::Chart;
use super::state::AppState;
use super::util::ink;
use crate::core::multiclass;
use crate::core::registry::Kind;
use crate::plot::{series_hex, LineChart, Series};

#[component]
pub fn MulticlassPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let curves = Memo::new(move |_| {
        let rule = state.conv.with(|c| c.class_ties);
        state.ws.with(|w| {
            let Some(d) = &w.multiclass else {
                return vec![];
            };
            let max_k = d.num_classes.clamp(1, 50) as u32;
            d.models
                .iter()
                .filter(|m| !state.is_hidden(Kind::Multiclass, &m.name))
                .map(|m| {
                    let ranks = m.ranks(rule);
                    let limit = if m.is_list() {
                        m.list_len as u32
                    } else {
                        max_k
                    };
                    let curve: Vec<(f64, f64)> = (1..=limit)
                        .map(|k| (k as f64, multiclass::accuracy_at(&ranks, k)))
                        .collect();
                    let mut hist = [0usize; 12];
                    for r in &ranks {
                        hist[match r {
                            Some(r) if *r <= 10 => *r as usize - 1,
                            Some(_) => 10,
                            None => 11,
                        }] += 1;
                    }
                    (
                        m.name.clone(),
                        state.color_index(Kind::Multiclass, &m.name),
                        curve,
                        hist,
                        ranks.len(),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    let chart = Signal::derive(move || {
        let c = curves.get();
        let max_k = c.iter().map(|x| x.2.len()).max().unwrap_or(2).max(2);
        LineChart {
            title: String::new(),
            x_label: "k".into(),
            y_label: "Acc@k".into(),
            x_range: (1.0, max_k as f64),
            y_range: (0.0, 1.0),
            series: c
                .iter()
                .map(|(n, col, pts, _, _)| Series {
                    name: n.clone(),
                    color: *col,
                    faint: false,
                    points: pts.clone(),
                })
                .collect(),
            markers: vec![],
            diagonal: false,
            ink: ink(),
        }
    });
    view! {
        <section class="card">
            <div class="card-head"><h2>"Accuracy at k and the rank of the target"</h2></div>
            <Chart chart=chart label="accuracy at k"/>
            <div class="hists">
                {move || curves.get().into_iter().map(|(name, c, _, hist, n)| {
                    let color = series_hex(c);
                    let labels = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", ">10", "miss"];
                    view! { <div class="hist"><div class="hist-title"><span class="swatch" style=format!("background:{color}")></span>{name}" — rank of the target"</div>
                        <div class="bars">{labels.iter().zip(hist).map(|(l, v)| view! {
                            <div class="bar" title=format!("rank {l}: {v} rows")><div class="fill" style=format!("height:{:.1}%;background:{color}", v as f64 / n.max(1) as f64 * 100.0)></div><span class="count">{v}</span><span class="label">{*l}</span></div>
                        }).collect_view()}</div></div> }
                }).collect_view()}
            </div>
        </section>
    }
}

#[component]
pub fn RatingsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let hists = Memo::new(move |_| {
        state.ws.with(|w| {
            let Some(d) = &w.ratings else { return vec![] };
            d.models
                .iter()
                .filter(|m| !state.is_hidden(Kind::Ratings, &m.0))
                .map(|(name, p)| {
                    let mut bins = [0usize; 17];
                    for (r, p) in d.rating.iter().zip(p) {
                        let e = ((p - r) * 2.0).round().clamp(-8.0, 8.0) as i64 + 8;
                        bins[e as usize] += 1;
                    }
                    (
                        name.clone(),
                        state.color_index(Kind::Ratings, name),
                        bins,
                        d.rating.len(),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="card">
            <div class="card-head"><h2>"Prediction error (prediction − rating)"</h2></div>
            <div class="hists">
                {move || hists.get().into_iter().map(|(name, c, bins, n)| {
                    let color = series_hex(c);
                    view! { <div class="hist wide"><div class="hist-title"><span class="swatch" style=format!("background:{color}")></span>{name}</div>
                        <div class="bars">{bins.iter().enumerate().map(|(i, v)| { let e = (i as f64 - 8.0) / 2.0; view! {
                            <div class="bar" title=format!("error {e:+.1}: {v} rows")><div class="fill" style=format!("height:{:.1}%;background:{color}", *v as f64 / n.max(1) as f64 * 100.0)></div><span class="label">{format!("{e:+}")}</span></div>
                        } }).collect_view()}</div></div> }
                }).collect_view()}
            </div>
        </section>
    }
}
