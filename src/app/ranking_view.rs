//! Ranking: the elbow curves and the reciprocal-rank table with drill-down.

use leptos::prelude::*;
use std::fmt::Write;

use super::chart::{bands_toggle, Chart};
use super::state::{AppState, Shared, Target};
use super::util::ink;
use crate::core::curves::{group_lines, mean_band, query_curve, CurveLine, CurveMetric};
use crate::core::evaluate::Report;
use crate::core::per_query::{difference, RrIndex, RrValues, RANK_BUCKETS};
use crate::core::registry::{Kind, RECIPROCAL_RANK};
use crate::core::Named;
use crate::markup::{elbow_rows, histogram, per_query_rows};
use crate::plot::{elbow_chart, series_css, Band, Series};

#[component]
pub fn ElbowPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let metric = state.curve;
    let max_p_input = state.max_p; // 0: automatic
                                   // the longest list (capped at 1000): a walk over the queries' lengths,
                                   // cheaper than a memo's 1 KB of wasm
    let longest = move || {
        state.prepared.with(|p| {
            p.iter()
                .flat_map(|r| (0..r.num_queries()).map(move |i| r.query(i).len()))
                .max()
                .unwrap_or(1)
                .clamp(1, 1000)
        })
    };
    let max_p = move || match max_p_input.get() {
        0 => longest(),
        p => p.clamp(1, 1000),
    };
    let lines = Memo::new(move |_| {
        let prepared = state.prepared.get();
        let conv = state.conv.get();
        let m = metric.get();
        let p = max_p();
        (prepared.iter())
            .filter(|r| !state.is_hidden(Kind::Ranking, &r.name))
            .map(|r| CurveLine::of_run(r, &conv, m, p, state.color_index(Kind::Ranking, &r.name)))
            .collect::<Vec<_>>()
    });
    // groups of runs: the members' mean with a ±1 sd band; members faint
    let groups = move || {
        let spec = crate::diagnose::groups_of(&state.diagnose.get());
        lines.with(|ls| group_lines(ls, &spec))
    };
    let per_query = state.per_query;
    // (closures, not memos: only the chart reads them)
    let faint = move || {
        if per_query.get() {
            faint_lines(state, metric.get(), max_p())
        } else {
            vec![]
        }
    };
    // each mean curve's 95% band (bootstrap over queries, the tests' seed),
    // while the 95% intervals are on
    let bands = move || {
        let (on, seed) = state.tests.with(|t| (t.ci, t.seed));
        if on {
            curve_bands(state, metric.get(), max_p(), seed)
        } else {
            vec![]
        }
    };
    let chart = Signal::derive(move || {
        let groups = groups();
        let (m, p) = (metric.get(), max_p());
        lines.with(|ls| elbow_chart(ls, &groups, faint(), bands(), &m.label(), p, ink()))
    });
    // hover: the cutoff under the pointer and every model's value there
    let hover_p = RwSignal::new(None::<usize>);
    let on_hover = Callback::new(move |(x, _): (f64, f64)| {
        hover_p.set(x.is_finite().then(|| x.round().max(1.0) as usize))
    });
    // click: explain the nearest model's value at that cutoff
    let on_pick = Callback::new(move |(x, y): (f64, f64)| {
        let p = (x.round().max(1.0) as usize).min(untrack(max_p));
        let nearest = lines.with_untracked(|ls| {
            ls.iter()
                .filter_map(|l| l.values.get(p - 1).map(|v| ((v - y).abs(), l.name.clone())))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, n)| n)
        });
        if let Some(model) = nearest {
            state.explain.set(Some(Target {
                kind: Kind::Ranking,
                model,
                metric: format!("{}@{p}", metric.get_untracked().name()),
                query: None,
            }));
        }
    });
    let readout = move || {
        let p = hover_p.get()?;
        let label = metric.get().label().trim_end_matches("@p").to_string();
        let mut parts = Vec::new();
        for l in lines.get().iter().chain(&groups()) {
            if let Some(v) = l.values.get(p - 1) {
                parts.push(match l.sd.get(p - 1) {
                    Some(sd) => format!("{} {v:.4} ± {sd:.4}", l.name),
                    None => format!("{} {v:.4}", l.name),
                });
            }
        }
        (!parts.is_empty()).then(|| format!("{label}@{p}: {}", parts.join(" · ")))
    };
    let select_metric = move |ev| {
        let v = event_target_value(&ev);
        if let Some(m) = CurveMetric::named(&v) {
            metric.set(m);
        }
    };
    // the elbow table as markup (one listener: a value at the elbow explains itself)
    let elbow_rows = move || {
        let mut rows = lines.get();
        rows.extend(groups());
        elbow_rows(&rows)
    };
    let elbow_clicked = move |ev: web_sys::MouseEvent| {
        let Some(button) = super::util::clicked(&ev, "button[data-explain-elbow]") else {
            return;
        };
        let e = button
            .get_attribute("data-explain-elbow")
            .unwrap_or_default();
        let model = button
            .closest("tr")
            .ok()
            .flatten()
            .and_then(|r| r.get_attribute("data-elbow-model"));
        if let Some(model) = model {
            let metric = format!("{}@{e}", metric.get_untracked().name());
            state.explain.set(Some(Target {
                kind: Kind::Ranking,
                model,
                metric,
                query: None,
            }));
        }
    };
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"Cutoff curve and elbow"</h2>
                <label>"Metric "
                    <select on:change=select_metric aria-label="curve metric">
                        {CurveMetric::ALL.iter().map(|&m| view! { <option value=m.name() selected=move || metric.get() == m>{m.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label><input type="checkbox" id="per-query-lines" prop:checked=move || per_query.get()
                    on:change=move |ev| per_query.set(event_target_checked(&ev))/>" per-query lines"</label>
                {bands_toggle("curve-bands", "percentile bootstrap over queries (200 resamples, the tests' seed); the normal interval beyond 200,000 query-cutoff values")}
                <label>"P "
                    <input type="number" min="1" max="1000" prop:value=move || max_p().to_string()
                        on:change=move |ev| max_p_input.set(event_target_value(&ev).parse().unwrap_or(0)) aria-label="largest cutoff"/>
                </label>
            </div>
            <Chart chart=chart label="elbow curve" on_hover=on_hover on_pick=on_pick/>
            <p class="readout" data-readout="elbow" aria-live="polite">{readout}</p>
            <table class="small-table">
                <thead><tr><th>"model"</th><th>"elbow (Kneedle)"</th><th>{move || metric.get().label()}" at the elbow"</th><th>{move || format!("{}@{}", metric.get().label().trim_end_matches("@p"), max_p())}</th></tr></thead>
                <tbody on:click=elbow_clicked inner_html=elbow_rows></tbody>
            </table>
            <p class="muted small">"The elbow is where showing more items starts to pay less. It is found on the metric's cumulative form, which only rises (DCG@p for nDCG, relevant retrieved for P@p, Σ P@i·rel for MAP; recall and Hit as they are): the p where that curve, scaled to [0, 1], lies farthest above the line from its first to its last point (Kneedle, Satopaa et al. 2011). Below 0.2 of the scale there is no clear elbow (the log2 discount alone bends DCG by about 0.1). The curve drawn is the mean over queries of the metric at every cutoff, under the conventions above. A group of runs (the Models card's groups: folds, seeds) is drawn as its members' mean with a ±1 sd band, its members faint; its elbow is on their mean cumulative form."</p>
        </section>
    }
}

/// Faint per-query lines of every shown run, evenly spaced: 40 queries a
/// run, fewer when many runs are shown (160 lines in all, at least 8 a run).
fn faint_lines(state: AppState, m: CurveMetric, p: usize) -> Vec<Series> {
    let prepared = state.prepared.get();
    let conv = state.conv.get();
    let shown: Vec<_> = (prepared.iter())
        .filter(|r| !state.is_hidden(Kind::Ranking, &r.name))
        .collect();
    let faint = (160 / shown.len().max(1)).clamp(8, 40);
    let mut out = Vec::new();
    for r in shown {
        let n = r.num_queries();
        let color = state.color_index(Kind::Ranking, &r.name);
        for k in 0..n.min(faint) {
            let i = k * n / n.min(faint);
            let values = query_curve(&r.query(i), &conv, m, p);
            out.push(Series {
                name: String::new(),
                color,
                faint: true,
                steps: false,
                points: (values.iter().enumerate())
                    .map(|(j, &v)| ((j + 1) as f64, v))
                    .collect(),
            });
        }
    }
    out
}

/// Each shown run's mean curve's 95% band (bootstrap over queries, `seed`).
fn curve_bands(state: AppState, m: CurveMetric, p: usize, seed: u64) -> Vec<Band> {
    let prepared = state.prepared.get();
    let conv = state.conv.get();
    (prepared.iter())
        .filter(|r| !state.is_hidden(Kind::Ranking, &r.name))
        .map(|r| Band {
            color: state.color_index(Kind::Ranking, &r.name),
            points: (mean_band(r, &conv, m, p, seed).into_iter().enumerate())
                .map(|(i, (lo, hi))| ((i + 1) as f64, lo, hi))
                .collect(),
        })
        .collect()
}

const PAGE: usize = 50;

/// Per query and model: the first relevant rank and a metric's value
/// (reciprocal rank by default, any per-query metric of the table on
/// request), sortable, filterable, exported as CSV.
#[component]
pub fn ReciprocalRankPanel(report: Memo<Option<Shared<Report>>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    // the reciprocal rank with no cutoff, from the runs themselves
    let metric = RwSignal::new(RECIPROCAL_RANK.to_string());
    let sort = RwSignal::new((0usize, false)); // column (0 = query id), descending
    let filter = RwSignal::new(String::new());
    let page = RwSignal::new(0usize);
    let open = RwSignal::new(None::<String>);
    let index = Memo::new(move |_| {
        // the runs in trec_eval's order: the same queries under every tie rule
        let all = state.base.get();
        let runs: Vec<_> = (all.iter().enumerate())
            .filter(|(_, r)| !state.is_hidden(Kind::Ranking, &r.name))
            .collect();
        state.ws.with(|w| {
            (w.ranking.as_ref()).map_or_else(RrIndex::default, |d| RrIndex::new(&d.queries, &runs))
        })
    });
    let data = Memo::new(move |_| {
        let prepared = state.prepared.get();
        let level = state.conv.with(|c| c.relevance_level);
        let chosen = metric.get();
        // the report only for another metric: reciprocal ranks come from the runs
        let report = (chosen != RECIPROCAL_RANK).then(|| report.get()).flatten();
        index.with(|ix| {
            let mut v = RrValues::from_runs(ix, &prepared, level);
            if let Some(r) = report {
                v.use_report(ix, &r, &chosen);
            }
            v
        })
    });
    let label = move || {
        let m = metric.get();
        if m == RECIPROCAL_RANK {
            "RR".to_string()
        } else {
            m
        }
    };
    // the shown order as indices of rows: filtering and sorting never copy
    // the rows (100,000 queries each with a name and per-model values)
    let view_rows = Memo::new(move |_| {
        let f = filter.get();
        let (col, desc) = sort.get();
        index.with(|ix| data.with(|v| v.order(ix, &f, col, desc)))
    });
    // every row in the shown order, as CSV
    let export = move |_| {
        let label = label();
        // the conventions in force that are not the defaults travel with the values
        let conventions = state.conv.with_untracked(|c| {
            crate::session::non_default_conventions(c, crate::core::registry::Kind::Ranking)
        });
        let csv = index.with(|ix| {
            data.with(|v| {
                view_rows.with(|idx| crate::report::rr_table_csv(ix, v, idx, &label, &conventions))
            })
        });
        super::util::download(
            &format!("rankscope-per-query-{}.csv", label.replace('@', "-")),
            "text/csv",
            &csv,
        );
    };
    let difference = move |names: &[String]| difference(names, state.baseline.get().as_deref());
    // users where the lists are users' (a user_id key column), else queries
    let unit = move || {
        if state
            .ws
            .with(|w| w.ranking.as_ref().is_some_and(|d| d.by_user))
        {
            ("user", "users")
        } else {
            ("query", "queries")
        }
    };
    let header = move || {
        let names = index.with(|ix| ix.names.clone());
        let th = move |col: usize, label: String| {
            let aria = move || match sort.get() {
                (c, true) if c == col => "descending",
                (c, false) if c == col => "ascending",
                _ => "none",
            };
            view! { <th scope="col" aria-sort=aria><button class="sort" tabindex="-1" data-sort-col=col.to_string() on:click=move |_| sort.update(|s| *s = if s.0 == col { (col, !s.1) } else { (col, false) })>{label}</button></th> }
        };
        let label = label();
        let mut cells = vec![th(0, unit().0.into())];
        for (m, n) in names.iter().enumerate() {
            cells.push(th(1 + 2 * m, format!("{n}: first rel. rank")));
            cells.push(th(2 + 2 * m, format!("{n}: {label}")));
        }
        let diff = difference(&names).map(
            |(o, b)| view! { <th scope="col">{format!("{label} {} − {}", names[o], names[b])}</th> },
        );
        view! { <tr>{cells}{diff}</tr> }
    };
    let body = move || {
        let start = page.get() * PAGE;
        let pair = index.with(|ix| difference(&ix.names));
        // only the shown page's rows are written
        index.with(|ix| {
            data.with(|v| {
                view_rows.with(|idx| {
                    let page = &idx[start.min(idx.len())..(start + PAGE).min(idx.len())];
                    per_query_rows(ix, v, page, pair)
                })
            })
        })
    };
    // a query's button opens its lists, a value's explains it
    let rows_clicked = move |ev: web_sys::MouseEvent| {
        let Some(button) = super::util::clicked(&ev, "button") else {
            return;
        };
        let query = button
            .closest("tr[data-query]")
            .ok()
            .flatten()
            .and_then(|r| r.get_attribute("data-query"));
        let Some(query) = query else { return };
        match button.get_attribute("data-model") {
            Some(model) => state.explain.set(Some(Target {
                kind: Kind::Ranking,
                model,
                metric: metric.get_untracked(),
                query: Some(query),
            })),
            None => open.set(Some(query)),
        }
    };
    let pages = move || view_rows.with(|r| r.len().div_ceil(PAGE).max(1));
    let histogram = move || {
        // per model: the rank distribution and the MRR, read in place
        let names = index.with(|ix| ix.names.clone());
        // the rows the filter shows (the values read first: a memo read
        // inside another's read can leave this unaware that it changed)
        let (n, stats) =
            data.with(|v| view_rows.with(|rows| (rows.len().max(1), v.rank_histograms(rows))));
        let units = unit().1;
        names
            .into_iter()
            .zip(stats)
            .map(|(name, (counts, mrr))| {
                let bars = RANK_BUCKETS.iter().zip(counts).map(|(label, c)| {
                    (
                        format!("first relevant rank {label}: {c} {units}"),
                        c as f64 / n as f64 * 100.0,
                        Some(c),
                        label.to_string(),
                    )
                });
                let name_html = crate::text::html(&name);
                histogram(
                    "hist",
                    &format!(r#" data-hist-model="{name_html}""#),
                    &series_css(state.color_index(Kind::Ranking, &name)),
                    &format!(r#"{name_html} — MRR <b data-mrr="{mrr:?}">{mrr:.4}</b>"#),
                    bars,
                    &format!("first relevant rank · bar height: {units}"),
                )
            })
            .collect::<String>()
    };
    view! {
        <section class="card">
            <div class="card-head">
                <h2>{move || format!("Per {}", unit().0)}</h2>
                <select aria-label="metric per query" id="per-query-metric" on:change=move |ev| metric.set(event_target_value(&ev))>
                    <option value=RECIPROCAL_RANK>"reciprocal rank"</option>
                    {move || report.get().and_then(|r| r.models.first().map(|m| m.per_unit.keys().filter(|k| *k != RECIPROCAL_RANK).map(|k| view! { <option value=k.clone()>{k.clone()}</option> }).collect_view()))}
                </select>
                <button class="small" data-export="per-query" on:click=export>"CSV"</button>
                <input type="search" placeholder=move || format!("{} id (* for any text)", unit().0) aria-label="filter query id" title="the query id, or a pattern: * for any text, | between alternatives" on:input=move |ev| { filter.set(event_target_value(&ev)); page.set(0); }/>
            </div>
            <div class="hists" inner_html=histogram></div>
            <div class="table-scroll"><table class="rr" on:keydown=super::util::grid_keys><thead>{header}</thead><tbody on:click=rows_clicked inner_html=body></tbody></table></div>
            <div class="pager">
                <button class="small" on:click=move |_| page.update(|p| *p = p.saturating_sub(1)) disabled={move || page.get() == 0}>"‹ prev"</button>
                <span>{move || format!("page {} of {} ({} {})", page.get() + 1, pages(), view_rows.with(Vec::len), unit().1)}</span>
                <button class="small" on:click=move |_| page.update(|p| if *p + 1 < pages() { *p += 1 }) disabled={move || page.get() + 1 >= pages()}>"next ›"</button>
            </div>
            {move || open.get().map(|q| view! { <DrillDown qid=q on_close=move || open.set(None)/> })}
        </section>
    }
}

/// The ranked lists of one query, with grades, per visible model.
#[component]
fn DrillDown(qid: String, on_close: impl Fn() + 'static + Send + Sync) -> impl IntoView {
    let state = expect_context::<AppState>();
    let level = state.conv.with_untracked(|c| c.relevance_level);
    let (unit, doc) = if state
        .ws
        .with_untracked(|w| w.ranking.as_ref().is_some_and(|d| d.by_user))
    {
        ("User ", "item")
    } else {
        ("Query ", "document")
    };
    let lists = state.ws.with_untracked(|w| {
        let Some(d) = &w.ranking else { return vec![] };
        let q = d.queries.get(&qid);
        state
            .prepared
            .get_untracked()
            .iter()
            .filter(|r| !state.is_hidden(Kind::Ranking, &r.name))
            .filter_map(|r| {
                let i = r.selection.evaluated.iter().position(|&x| Some(x) == q)?;
                let run = d.runs.iter().find(|x| x.name == r.name)?;
                let range = r.row_range(i);
                let rows: Vec<(usize, String, f64, i32)> = range
                    .clone()
                    .take(30)
                    .enumerate()
                    .map(|(k, j)| {
                        (
                            k + 1,
                            run.doc(r.rows[j]).to_string(),
                            run.scores[r.rows[j] as usize],
                            r.grades[j],
                        )
                    })
                    .collect();
                Some((r.name.clone(), rows, range.len()))
            })
            .collect::<Vec<_>>()
    });
    // static markup: written as a string
    let mut drill = String::new();
    for (name, rows, total) in lists {
        let _ = write!(
            drill,
            r#"<table class="small-table"><caption>{} ({total} retrieved)</caption><thead><tr><th>rank</th><th>{doc}</th><th>score</th><th>grade</th></tr></thead><tbody>"#,
            crate::text::html(&name)
        );
        for (k, doc, score, grade) in rows {
            let rel = grade != crate::core::ranking::NOT_JUDGED && grade >= level;
            let g = if grade == crate::core::ranking::NOT_JUDGED {
                "unjudged".to_string()
            } else {
                grade.to_string()
            };
            let _ = write!(
                drill,
                r#"<tr{}><td class="num">{k}</td><td>{}</td><td class="num">{score}</td><td class="num">{g}</td></tr>"#,
                if rel { r#" class="relevant""# } else { "" },
                crate::text::html(&doc)
            );
        }
        drill.push_str("</tbody></table>");
    }
    // the lists open below the pager: focus moves to them, which scrolls
    // them into view wherever the clicked row was
    super::util::focus_soon("#drill-close".into());
    view! {
        <div class="drill" role="dialog" aria-label=format!("ranked lists of {qid}")>
            <div class="card-head"><h3>{unit}{qid.clone()}</h3><span class="spacer"></span><button class="small" id="drill-close" on:click=move |_| on_close()>"close"</button></div>
            <div class="drill-lists" inner_html=drill></div>
        </div>
    }
}
