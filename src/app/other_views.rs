//! Multi-class (Acc@k curve, rank histogram) and ratings (error histogram) views.

use leptos::prelude::*;

use super::chart::Chart;
use super::state::AppState;
use super::util::ink;
use crate::core::multiclass;
use crate::core::ratings;
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
                .map(|(n, col, pts, _, _)| Series::line(n.clone(), *col, pts.as_slice().into()))
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
                            <div class="bar" title=format!("rank {l}: {v} rows")><div class="fill" style=format!("height:{:.1}%;background:{color}", v as f64 / n.max(1) as f64 * 100.0)></div><span class="count">{super::util::short_count(v)}</span><span class="label">{*l}</span></div>
                        }).collect_view()}</div><div class="axis-x">"rank of the target · bar height: rows"</div></div> }
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
    // predicted vs actual, binned (bounded for any number of rows), and the
    // distribution of per-user RMSE (whose mean is rmse_per_user)
    const GRID: usize = 20;
    let grids = Memo::new(move |_| {
        state.ws.with(|w| {
            let Some(d) = &w.ratings else { return vec![] };
            let all = d
                .rating
                .iter()
                .chain(d.models.iter().flat_map(|m| m.1.iter()));
            let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
            d.models
                .iter()
                .filter(|m| !state.is_hidden(Kind::Ratings, &m.0))
                .map(|(name, p)| {
                    let grid = ratings::scatter_grid(&d.rating, p, lo, hi, GRID);
                    let per_user: Vec<f64> = ratings::rmse_per_group(&d.user, &d.rating, p)
                        .into_iter()
                        .map(|(_, v)| v)
                        .collect();
                    let top = per_user.iter().copied().fold(0.0f64, f64::max).max(1e-12);
                    let user_hist = ratings::histogram(per_user.iter().copied(), 0.0, top, 20);
                    (
                        name.clone(),
                        state.color_index(Kind::Ratings, name),
                        grid,
                        lo,
                        hi,
                        user_hist,
                        top,
                        per_user.len(),
                    )
                })
                .collect::<Vec<_>>()
        })
    });
    let scatter = move || {
        grids.get().into_iter().map(|(name, c, grid, lo, hi, _, _, _)| {
        let color = series_hex(c);
        let max = grid.iter().copied().max().unwrap_or(1).max(1) as f64;
        let total: usize = grid.iter().sum();
        let cell = 12.0;
        let cells = grid.iter().enumerate().filter(|(_, &n)| n > 0).map(|(i, &n)| {
            let (x, y) = (i % GRID, i / GRID);
            let opacity = ((1.0 + n as f64).ln() / (1.0 + max).ln()).max(0.08);
            view! { <rect x=format!("{}", 30.0 + x as f64 * cell) y=format!("{}", (GRID - 1 - y) as f64 * cell) width=format!("{cell}") height=format!("{cell}")
                fill=color.clone() fill-opacity=format!("{opacity:.3}")><title>{format!("{n} rows")}</title></rect> }
        }).collect_view();
        let side = GRID as f64 * cell;
        let label = name.clone();
        view! { <figure class="scatter" data-model=name data-total=total.to_string()>
            <figcaption><span class="swatch" style=format!("background:{color}")></span>{label}</figcaption>
            <svg viewBox=format!("0 0 {} {}", side + 40.0, side + 30.0) width=format!("{}", side + 40.0) role="img" aria-label="predicted against actual rating, binned">
                {cells}
                <line x1="30" y1=format!("{side}") x2=format!("{}", 30.0 + side) y2="0" class="diagonal"/>
                <text x="30" y=format!("{}", side + 14.0) class="axis">{format!("{lo:.1}")}</text>
                <text x=format!("{}", 30.0 + side) y=format!("{}", side + 14.0) text-anchor="end" class="axis">{format!("{hi:.1}")}</text>
                <text x=format!("{}", 30.0 + side / 2.0) y=format!("{}", side + 26.0) text-anchor="middle" class="axis">"actual rating"</text>
                <text x="2" y="10" class="axis">{format!("{hi:.1}")}</text>
                <text x="2" y=format!("{side}") class="axis">{format!("{lo:.1}")}</text>
            </svg>
        </figure> }
    }).collect_view()
    };
    let per_user = move || {
        grids.get().into_iter().map(|(name, c, _, _, _, hist, top, users)| {
        let color = series_hex(c);
        let n = hist.iter().copied().max().unwrap_or(1).max(1);
        let label = format!("{name} — {users} users");
        view! { <div class="hist wide" data-model=name data-users=users.to_string()><div class="hist-title"><span class="swatch" style=format!("background:{color}")></span>{label}</div>
            <div class="bars">{hist.iter().enumerate().map(|(i, v)| { let from = top * i as f64 / 20.0; view! {
                <div class="bar" title=format!("RMSE {from:.2}–{:.2}: {v} users", from + top / 20.0)><div class="fill" style=format!("height:{:.1}%;background:{color}", *v as f64 / n as f64 * 100.0)></div><span class="label">{format!("{from:.1}")}</span></div>
            } }).collect_view()}</div><div class="axis-x">"RMSE of the user · bar height: users"</div></div> }
    }).collect_view()
    };
    view! {
        <section class="card">
            <div class="card-head"><h2>"Predicted against actual rating"</h2><span class="muted small">"rows binned on a 20 × 20 grid (darker = more rows); the diagonal is a perfect prediction"</span></div>
            <div class="scatters">{scatter}</div>
        </section>
        <section class="card">
            <div class="card-head"><h2>"RMSE per user"</h2><span class="muted small">"distribution over users; its mean is rmse_per_user in the table"</span></div>
            <div class="hists">{per_user}</div>
        </section>
        <section class="card">
            <div class="card-head"><h2>"Prediction error (prediction − rating)"</h2></div>
            <div class="hists">
                {move || hists.get().into_iter().map(|(name, c, bins, n)| {
                    let color = series_hex(c);
                    view! { <div class="hist wide"><div class="hist-title"><span class="swatch" style=format!("background:{color}")></span>{name}</div>
                        <div class="bars">{bins.iter().enumerate().map(|(i, v)| { let e = (i as f64 - 8.0) / 2.0; view! {
                            <div class="bar" title=format!("error {e:+.1}: {v} rows")><div class="fill" style=format!("height:{:.1}%;background:{color}", *v as f64 / n.max(1) as f64 * 100.0)></div><span class="label">{format!("{e:+}")}</span></div>
                        } }).collect_view()}</div><div class="axis-x">"prediction − rating · bar height: rows"</div></div> }
                }).collect_view()}
            </div>
        </section>
    }
}

/// One-vs-rest ROC and PR curves for one class of a probability matrix: the
/// matrices are read again by a worker for that class (only reduced rows are
/// kept after loading), then each becomes exact binary curves in the core.
#[component]
pub fn OneVsRest() -> impl IntoView {
    use crate::core::evaluate::{prepare_binary, BinaryPrepared};
    let state = expect_context::<AppState>();
    let class = RwSignal::new(0u32);
    let status = RwSignal::new(String::new());
    let result = RwSignal::new(None::<(u32, std::sync::Arc<Vec<BinaryPrepared>>)>);
    let num_classes = move || {
        state
            .ws
            .with(|w| w.multiclass.as_ref().map_or(0, |d| d.num_classes))
    };
    let run = move |_| {
        let c = class.get_untracked();
        let files = super::loader::matrices(state);
        let example = if state.example_loaded.get_untracked() {
            vec!["transformer.csv".to_string(), "markov.csv".to_string()]
        } else {
            vec![]
        };
        if files.is_empty() && example.is_empty() {
            status.set("No probability matrix to read again: drop the multi-class file.".into());
            return;
        }
        status.set(format!("Reading class {c} against the rest…"));
        leptos::task::spawn_local(async move {
            match super::worker::one_vs_rest(c, files, example).await {
                Ok(sets) => {
                    let logits = state.conv.with_untracked(|cv| cv.binary_scores_are_logits);
                    let prepared: Vec<BinaryPrepared> = sets
                        .iter()
                        .flat_map(|b| prepare_binary(b, logits))
                        .collect();
                    status.set(String::new());
                    result.set(Some((c, std::sync::Arc::new(prepared))));
                }
                Err(why) => status.set(format!("One-vs-rest failed: {why}")),
            }
        });
    };
    let charts = move || {
        let (c, prepared) = result.get()?;
        let series = |roc: bool| -> Vec<Series> {
            prepared
                .iter()
                .enumerate()
                .map(|(i, p)| Series {
                    name: p.name.clone(),
                    color: i,
                    faint: false,
                    steps: !roc,
                    points: if roc {
                        p.curve.roc_points()
                    } else {
                        p.curve.pr_points()
                    }
                    .into(),
                })
                .collect()
        };
        let chart = |roc: bool| LineChart {
            title: if roc {
                format!("ROC, class {c} vs rest")
            } else {
                format!("Precision–recall, class {c} vs rest")
            },
            x_label: if roc { "false positive rate" } else { "recall" }.into(),
            y_label: if roc {
                "true positive rate"
            } else {
                "precision"
            }
            .into(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            series: series(roc),
            markers: vec![],
            diagonal: roc,
            ink: ink(),
        };
        let (roc, pr) = (chart(true), chart(false));
        let rows = prepared
            .iter()
            .map(|p| {
                let auc = p.curve.roc_auc();
                let ap = p.curve.average_precision();
                let show = |v: Option<f64>| v.map_or("undefined (one class only)".into(), |v| format!("{v:.4}"));
                let raw = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
                view! { <tr><td>{p.name.clone()}</td>
                    <td class="num" data-ovr-metric="roc_auc" data-ovr-class=c.to_string() data-value=raw(auc)>{show(auc)}</td>
                    <td class="num" data-ovr-metric="average_precision" data-ovr-class=c.to_string() data-value=raw(ap)>{show(ap)}</td>
                    <td class="num">{format!("{} of {}", p.curve.positives, p.curve.positives + p.curve.negatives)}</td></tr> }
            })
            .collect_view();
        Some(view! {
            <div class="charts">
                <Chart chart=Signal::derive(move || roc.clone()) label=format!("one-vs-rest ROC class {c}")/>
                <Chart chart=Signal::derive(move || pr.clone()) label=format!("one-vs-rest PR class {c}")/>
            </div>
            <table class="small-table"><thead><tr><th>"model"</th><th>"ROC AUC"</th><th>"average precision"</th><th>"positives"</th></tr></thead>
                <tbody>{rows}</tbody></table>
        })
    };
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"One class against the rest"</h2>
                <label>"class "
                    <input type="number" id="ovr-class" min="0" max=move || num_classes().saturating_sub(1).to_string()
                        prop:value=move || class.get().to_string() aria-label="class for one-vs-rest"
                        on:change=move |ev| class.set(event_target_value(&ev).parse().unwrap_or(0))/>
                </label>
                <button id="ovr-run" on:click=run>"ROC and PR for this class"</button>
                <span class="muted small">"scikit-learn convention: label = (target == class), score = that class's column"</span>
            </div>
            <p class="muted" aria-live="polite">{move || status.get()}</p>
            {charts}
        </section>
    }
}
