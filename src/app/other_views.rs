//! Multi-class (Acc@k curve, rank histogram) and ratings (error histogram) views.

use leptos::prelude::*;

use super::chart::Chart;
use super::state::AppState;
use super::util::ink;
use crate::core::multiclass;
use crate::core::ratings;
use crate::core::registry::Kind;
use crate::markup::histogram;
use crate::plot::{series_css, series_hex, LineChart, Series};
use crate::text::html;
use std::fmt::Write;

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
            bands: Vec::new(),
            markers: vec![],
            diagonal: false,
            ink: ink(),
        }
    });
    view! {
        <section class="card">
            <div class="card-head"><h2>"Accuracy at k and the rank of the target"</h2></div>
            <Chart chart=chart label="accuracy at k"/>
            <div class="hists" inner_html={move || curves.get().into_iter().map(|(name, c, _, hist, n)| {
                let labels = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", ">10", "miss"];
                let bars = labels.iter().zip(hist).map(|(l, v)| (format!("rank {l}: {v} rows"), v as f64 / n.max(1) as f64 * 100.0, Some(v), l.to_string()));
                histogram("hist", "", &series_css(c), &format!("{} — rank of the target", html(&name)), bars, "rank of the target · bar height: rows")
            }).collect::<String>()}></div>
        </section>
    }
}

#[component]
pub fn RatingsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    // (a closure, not a memo: its one reader is the histograms' markup)
    let hists = move || {
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
    };
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
        let mut s = String::new();
        for (name, c, grid, lo, hi, _, _, _) in grids.get() {
            let color = series_hex(c);
            let max = grid.iter().copied().max().unwrap_or(1).max(1) as f64;
            let total: usize = grid.iter().sum();
            let cell = 12.0;
            let side = GRID as f64 * cell;
            let name = html(&name);
            let _ = write!(
                s,
                r#"<figure class="scatter" data-model="{name}" data-total="{total}"><figcaption><span class="swatch" style="background:{color}"></span>{name}</figcaption><svg viewBox="0 0 {} {}" width="{}" role="img" aria-label="predicted against actual rating, binned">"#,
                side + 40.0,
                side + 30.0,
                side + 40.0
            );
            for (i, &n) in grid.iter().enumerate().filter(|(_, &n)| n > 0) {
                let (x, y) = (i % GRID, i / GRID);
                let opacity = ((1.0 + n as f64).ln() / (1.0 + max).ln()).max(0.08);
                let _ = write!(
                    s,
                    r#"<rect x="{}" y="{}" width="{cell}" height="{cell}" fill="{color}" fill-opacity="{opacity:.3}"><title>{n} rows</title></rect>"#,
                    30.0 + x as f64 * cell,
                    (GRID - 1 - y) as f64 * cell
                );
            }
            let _ = write!(
                s,
                r#"<line x1="30" y1="{side}" x2="{}" y2="0" class="diagonal"/><text x="30" y="{}" class="axis">{lo:.1}</text><text x="{}" y="{}" text-anchor="end" class="axis">{hi:.1}</text><text x="{}" y="{}" text-anchor="middle" class="axis">actual rating</text><text x="2" y="10" class="axis">{hi:.1}</text><text x="2" y="{side}" class="axis">{lo:.1}</text></svg></figure>"#,
                30.0 + side,
                side + 14.0,
                30.0 + side,
                side + 14.0,
                30.0 + side / 2.0,
                side + 26.0
            );
        }
        s
    };
    let per_user = move || {
        grids
            .get()
            .into_iter()
            .map(|(name, c, _, _, _, hist, top, users)| {
                let n = hist.iter().copied().max().unwrap_or(1).max(1);
                let bars = hist.iter().enumerate().map(|(i, v)| {
                    let from = top * i as f64 / 20.0;
                    (
                        format!("RMSE {from:.2}–{:.2}: {v} users", from + top / 20.0),
                        *v as f64 / n as f64 * 100.0,
                        None,
                        format!("{from:.1}"),
                    )
                });
                let name = html(&name);
                let attrs = format!(r#" data-model="{name}" data-users="{users}""#);
                histogram(
                    "hist wide",
                    &attrs,
                    &series_css(c),
                    &format!("{name} — {users} users"),
                    bars,
                    "RMSE of the user · bar height: users",
                )
            })
            .collect::<String>()
    };
    view! {
        <section class="card">
            <div class="card-head"><h2>"Predicted against actual rating"</h2><span class="muted small">"rows binned on a 20 × 20 grid (darker = more rows); the diagonal is a perfect prediction"</span></div>
            <div class="scatters" inner_html=scatter></div>
        </section>
        <section class="card">
            <div class="card-head"><h2>"RMSE per user"</h2><span class="muted small">"distribution over users; its mean is rmse_per_user in the table"</span></div>
            <div class="hists" inner_html=per_user></div>
        </section>
        <section class="card">
            <div class="card-head"><h2>"Prediction error (prediction − rating)"</h2></div>
            <div class="hists" inner_html={move || hists().into_iter().map(|(name, c, bins, n)| {
                let bars = bins.iter().enumerate().map(|(i, v)| {
                    let e = (i as f64 - 8.0) / 2.0;
                    (format!("error {e:+.1}: {v} rows"), *v as f64 / n.max(1) as f64 * 100.0, None, format!("{e:+}"))
                });
                histogram("hist wide", "", &series_css(c), &html(&name), bars, "prediction − rating · bar height: rows")
            }).collect::<String>()}></div>
        </section>
    }
}

/// One class of a probability matrix against the rest: the matrices are
/// read again by a worker for that class (only reduced rows are kept after
/// loading), each becomes exact binary curves, and a worker writes their
/// ROC and PR curves, AUC and AP, and the binary diagnostics
/// ([`crate::diagnose::html`], one-vs-rest mode).
#[component]
pub fn OneVsRest() -> impl IntoView {
    let state = expect_context::<AppState>();
    let class = RwSignal::new(0u32);
    // the worker's panel, or what is happening (escaped) in its place
    let result = RwSignal::new(String::new());
    let status = move |text: String| {
        result.set(format!(
            "<p class=\"muted\" role=\"status\">{}</p>",
            crate::text::html(&text)
        ))
    };
    let num_classes = move || {
        state
            .ws
            .with(|w| w.multiclass.as_ref().map_or(0, |d| d.num_classes))
    };
    // `report`: the report of every class, else class `class` against the
    // rest; the files read again by a worker (one task for both)
    let run = move |report: bool| {
        let c = class.get_untracked();
        // the matrices whose models are loaded (a removed model's is not read)
        let (files, example) = super::loader::matrices(state);
        if files.is_empty() && example.is_empty() {
            status("No probability matrix to read again: drop the multi-class file.".into());
            return;
        }
        status(if report {
            "Reading the matrices again for the report of every class…".into()
        } else {
            format!("Reading class {c} against the rest…")
        });
        let zero = state
            .conv
            .with_untracked(|c| crate::core::Named::name(c.zero_division));
        // the models as the page names and colours them, in the merged order
        let shown: Vec<(String, usize)> = (state.ws.with_untracked(|w| {
            (w.dataset(Kind::Multiclass).map(|d| d.model_names())).unwrap_or_default()
        }))
        .into_iter()
        .map(|n| {
            let c = state.color_index(Kind::Multiclass, &n);
            (n, c)
        })
        .collect();
        leptos::task::spawn_local(async move {
            let html = if report {
                super::worker::class_report(files, example, zero, shown).await
            } else {
                match super::worker::one_vs_rest(c, files, example).await {
                    Ok(sets) => {
                        // the page's names and colours when the matrices read
                        // again are its models (as the report's)
                        let count: usize = sets.iter().map(|b| b.models.len()).sum();
                        let page = |k: usize| shown.get(k).filter(|_| count == shown.len());
                        let mut models = Vec::new();
                        for b in &sets {
                            for (i, (name, _)) in b.models.iter().enumerate() {
                                let k = models.len();
                                let (name, color) = page(k)
                                    .map_or((name.clone(), k), |(n, col)| {
                                        (format!("{n} · class {c} vs rest"), *col)
                                    });
                                models.push((name, color, b.curve(i), 0.0));
                            }
                        }
                        let options = format!("{};one_vs_rest:{c}", state.diagnose.get_untracked());
                        let logits = state.conv.with_untracked(|cv| cv.binary_scores_are_logits);
                        let rule = crate::core::binary::ThresholdRule::AtLeast;
                        super::worker::diagnose(
                            &models,
                            &options,
                            logits,
                            rule,
                            (0.0, 1.0),
                            super::worker::protocol::Lane::Classes,
                        )
                        .await
                    }
                    Err(why) => Err(why),
                }
            };
            match html {
                Ok(html) => result.set(html),
                // superseded by a newer one: that one answers
                Err(why) if why.is_empty() => {}
                Err(why) => status(format!(
                    "{} failed: {why}",
                    if report { "The report" } else { "One-vs-rest" }
                )),
            }
        });
    };
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"Classes: one against the rest, and the report"</h2>
                <label>"class "
                    <input type="number" id="ovr-class" min="0" max=move || num_classes().saturating_sub(1).to_string()
                        prop:value=move || class.get().to_string() aria-label="class for one-vs-rest"
                        on:change=move |ev| class.set(event_target_value(&ev).parse().unwrap_or(0))/>
                </label>
                <button id="ovr-run" on:click=move |_| run(false)>"ROC and PR for this class"</button>
                <button id="class-report" on:click=move |_| run(true)>"Report of every class"</button>
                <span class="muted small">"scikit-learn convention: label = (target == class), score = that class's column"</span>
            </div>
            <div class="ovr-body" aria-live="polite" inner_html=move || result.get()></div>
        </section>
    }
}
