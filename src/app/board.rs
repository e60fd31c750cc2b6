//! The leaderboard page (dist/board/, its own wasm): a team's catalog opened
//! from `?catalog=URL` (relative to the app) or dropped (the manifest and
//! its values files). The table of runs × metrics, its tie group and rank
//! intervals (computed by a loading worker: [`super::worker::job::leaderboard`]),
//! the per-topic heatmap on a canvas (only the visible cells painted), the
//! history chart, the exports. The logic is in [`crate::board`]; here only
//! what the browser needs.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::chart::Chart;
use super::util::download;
use super::worker;
use crate::board::{self as logic, Board, Filter, HistoryBy, QueryOrder, Run, Sort};
use crate::core::conventions::{Conventions, TABLE};
use crate::core::leaderboard::{Settings, Test};
use crate::core::stats::Correction;
use crate::core::Named;
use crate::plot::heatmap::Heatmap;
use crate::protocol::{self, Ranked};
use rankscope_io::catalog::{self, Manifest, RunValues};

pub fn main() {
    worker::set_script("../rankscope-worker_loader.js");
    leptos::mount::mount_to_body(BoardPage);
}

/// A catalog as the page holds it.
struct Loaded {
    manifest: Manifest,
    board: Board,
    /// The judgment set the board shows (its id) and its file's URL.
    judgments: String,
    qrels: Option<String>,
    /// The ids of the runs shown (manifest order); those left out for
    /// other judgments (the exports' note); each metric's queries left out.
    kept: Vec<String>,
    left_out: Vec<String>,
    dropped: Vec<usize>,
}

/// Whatever went wrong, one line each (file, line, column where there is one).
type Problems = Vec<String>;

/// The app's folder (`…/board/` → `…/`), which catalog URLs are relative to.
fn app_base() -> String {
    let href = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    logic::resolve(&href, "../").unwrap_or_default()
}

/// The page address's `catalog=` value and fragment settings.
fn address() -> (Option<String>, String) {
    let loc = web_sys::window().map(|w| w.location());
    let search = loc
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let hash = loc.and_then(|l| l.hash().ok()).unwrap_or_default();
    let catalog = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("catalog="))
        .map(crate::session::percent_decode);
    (catalog, hash.trim_start_matches('#').to_string())
}

/// The view's settings, kept in the address fragment.
#[derive(Clone, Debug, PartialEq)]
struct View {
    metric: String,
    baseline: String,
    filter: String,
    test: Test,
    correction: Correction,
    alpha: f64,
}

impl Default for View {
    fn default() -> Self {
        let s = Settings::default();
        View {
            metric: String::new(),
            baseline: String::new(),
            filter: String::new(),
            test: s.test,
            correction: s.correction,
            alpha: s.alpha,
        }
    }
}

impl View {
    fn read(fragment: &str) -> View {
        let mut v = View::default();
        for pair in fragment.split('&') {
            let (k, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let raw = crate::session::percent_decode(raw);
            match k {
                "metric" => v.metric = raw,
                "baseline" => v.baseline = raw,
                "filter" => v.filter = raw,
                "test" => v.test = Test::named(&raw).unwrap_or(v.test),
                "correction" => v.correction = Correction::named(&raw).unwrap_or(v.correction),
                "alpha" => {
                    if let Some(a) = crate::text::parse_f64(&raw).filter(|a| *a > 0.0 && *a < 1.0) {
                        v.alpha = a;
                    }
                }
                _ => {}
            }
        }
        v
    }

    fn fragment(&self) -> String {
        let d = View::default();
        let enc = crate::session::percent_encode;
        let mut out = Vec::new();
        for (k, v, dv) in [
            ("metric", enc(&self.metric), String::new()),
            ("baseline", enc(&self.baseline), String::new()),
            ("filter", enc(&self.filter), String::new()),
            (
                "test",
                self.test.name().to_string(),
                d.test.name().to_string(),
            ),
            (
                "correction",
                self.correction.name().to_string(),
                d.correction.name().to_string(),
            ),
            ("alpha", self.alpha.to_string(), d.alpha.to_string()),
        ] {
            if v != dv {
                out.push(format!("{k}={v}"));
            }
        }
        out.join("&")
    }

    fn settings(&self) -> Settings {
        Settings {
            test: self.test,
            correction: self.correction,
            alpha: self.alpha,
            ..Settings::default()
        }
    }
}

/// `url`'s bytes, or why not (its status, or the network's failure).
async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| format!("{url}: could not be fetched ({})", super::util::js_text(&e)))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| format!("{url}: no response"))?;
    if !response.ok() {
        return Err(format!(
            "{url}: the server answered {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let buffer = response
        .array_buffer()
        .map_err(|e| format!("{url}: {}", super::util::js_text(&e)))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(buffer)
        .await
        .map_err(|e| format!("{url}: the download failed ({})", super::util::js_text(&e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Where a catalog's bytes come from: URLs, or dropped files by name.
enum Source {
    Url(String),
    Files(Vec<(String, Vec<u8>)>),
}

impl Source {
    /// The manifest's name and bytes.
    async fn manifest(&self) -> Result<(String, Vec<u8>), String> {
        match self {
            Source::Url(url) => Ok((url.clone(), fetch(url).await?)),
            Source::Files(files) => files
                .iter()
                .find(|(n, _)| n.ends_with(".json"))
                .map(|(n, b)| (n.clone(), b.clone()))
                .ok_or_else(|| {
                    "no manifest among the dropped files (a .json file: rankscope-catalog.json)"
                        .into()
                }),
        }
    }

    /// A file the manifest names (`path`, relative to the manifest): its
    /// URL (or name) and bytes.
    async fn file(&self, manifest: &str, path: &str) -> Result<(String, Vec<u8>), String> {
        match self {
            Source::Url(_) => {
                let url = logic::resolve(manifest, path).ok_or_else(|| {
                    format!("{manifest}: {path} is not an http(s) address the page may read")
                })?;
                Ok((url.clone(), fetch(&url).await?))
            }
            Source::Files(files) => {
                let name = path.rsplit('/').next().unwrap_or(path);
                files
                    .iter()
                    .find(|(n, _)| n == path || n == name || n.ends_with(&format!("/{path}")))
                    .map(|(n, b)| (n.clone(), b.clone()))
                    .ok_or_else(|| {
                        format!("{path}: not among the dropped files (drop it with the manifest)")
                    })
            }
        }
    }

    /// The URL a run's own file is reached at (dropped files: none).
    fn url(&self, manifest: &str, path: &str) -> Option<String> {
        match self {
            Source::Url(_) => logic::resolve(manifest, path),
            Source::Files(_) => None,
        }
    }
}

/// Reads a catalog: the manifest, then every run's values file (at most
/// `PARALLEL` downloads at once). A run whose values are missing, damaged,
/// scored against other judgments or under other conventions is left out
/// with its problem; a manifest that cannot be read is an error.
async fn read_catalog(source: Source) -> Result<(Loaded, Problems), String> {
    let t0 = now();
    let (name, bytes) = source.manifest().await?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let manifest = catalog::parse_manifest(&name, &text).map_err(|e| e.to_string())?;
    let mut problems = Problems::new();
    // the board shows one judgment set: the first run's (as the CLI)
    let judgments = manifest
        .runs
        .first()
        .map_or(String::new(), |r| r.judgments.clone());
    let qrels = (manifest.judgments.iter())
        .find(|j| j.id == judgments)
        .and_then(|j| source.url(&name, &j.file));
    // up to PARALLEL downloads ahead, each decoded as it comes (in order)
    const PARALLEL: usize = 12;
    let mut values: Vec<Option<RunValues>> = Vec::with_capacity(manifest.runs.len());
    let reads = manifest.runs.iter().map(|r| source.file(&name, &r.values));
    let mut reads = futures::stream::StreamExt::buffered(futures::stream::iter(reads), PARALLEL);
    let mut entries = manifest.runs.iter();
    while let (Some(read), Some(entry)) =
        (futures::StreamExt::next(&mut reads).await, entries.next())
    {
        let checked = read.and_then(|(file, bytes)| {
            let v = catalog::read_values(&file, &bytes).map_err(|e| e.to_string())?;
            check(&manifest, entry, &file, &v, &judgments)?;
            Ok(v)
        });
        match checked {
            Ok(v) => values.push(Some(v)),
            Err(why) => {
                problems.push(why);
                values.push(None);
            }
        }
    }
    drop(reads);
    let mut runs = Vec::new();
    let mut kept: Vec<&RunValues> = Vec::new();
    let mut kept_ids = Vec::new();
    let mut dropped = Vec::new();
    let left_out = (manifest.runs.iter())
        .filter(|r| r.judgments != judgments)
        .map(|r| r.id.clone())
        .collect();
    for (entry, v) in manifest.runs.iter().zip(&values) {
        let Some(v) = v else { continue };
        kept.push(v);
        kept_ids.push(entry.id.clone());
        let meta = (entry.metadata.iter())
            .map(|(k, v)| (k.clone(), meta_text(v)))
            .collect();
        runs.push(Run {
            name: entry.name.clone(),
            date: entry.date.clone().unwrap_or_default(),
            author: entry.author.clone(),
            description: entry.description.clone(),
            tags: entry.tags.clone(),
            meta,
            file: source.url(&name, &entry.file),
            qrels: qrels.clone(),
        });
    }
    let mut board = Board {
        runs,
        metrics: Vec::new(),
        queries: Vec::new(),
        values: Vec::new(),
        kept_means: Vec::new(),
    };
    for metric in &manifest.metrics {
        match logic::matrix(&kept, metric) {
            Some((queries, values, left)) => {
                board.metrics.push(metric.clone());
                board.queries.push(queries);
                board.values.push(values);
                dropped.push(left);
            }
            None => problems.push(format!(
                "{name}: metric {metric} is missing from a values file"
            )),
        }
    }
    drop(kept);
    drop(values);
    board.keep_means();
    mark("board-loaded", t0);
    Ok((
        Loaded {
            manifest,
            board,
            judgments,
            qrels,
            kept: kept_ids,
            left_out,
            dropped,
        },
        problems,
    ))
}

/// A run's values file agrees with its manifest entry and the board's
/// judgments and conventions, else why not.
fn check(
    manifest: &Manifest,
    entry: &catalog::RunEntry,
    file: &str,
    v: &RunValues,
    judgments: &str,
) -> Result<(), String> {
    if entry.judgments != judgments {
        return Err(format!(
            "{file}: run '{}' was scored against the judgments '{}', not '{judgments}' as the first run: left out (a leaderboard compares runs on the same judgments)",
            entry.id, entry.judgments
        ));
    }
    catalog::check_values(manifest, entry, v).map_err(|why| format!("{why}: left out"))
}

/// A p-value for the table: `= ` and four decimals, or `< 0.0001`.
fn p_text(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("= {p:.4}")
    }
}

/// A metadata value as text (strings as they are, anything else as JSON).
fn meta_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Records a stage's time for the benchmark (`globalThis.rankscopeBoard[name]`, ms).
fn mark(name: &str, since: f64) {
    let global = js_sys::global();
    let key = JsValue::from_str("rankscopeBoard");
    let times = js_sys::Reflect::get(&global, &key)
        .ok()
        .filter(|t| t.is_object())
        .unwrap_or_else(|| {
            let o: JsValue = js_sys::Object::new().into();
            let _ = js_sys::Reflect::set(&global, &key, &o);
            o
        });
    let _ = js_sys::Reflect::set(
        &times,
        &JsValue::from_str(name),
        &JsValue::from_f64(now() - since),
    );
}

/// The conventions that differ from the defaults as fragment entries (the
/// dashboard then computes the values the catalog holds).
fn conventions_fragment(conv: &Conventions) -> Vec<String> {
    let d = Conventions::default();
    TABLE
        .iter()
        .filter(|c| (c.get)(conv) != (c.get)(&d))
        .map(|c| {
            format!(
                "{}={}",
                c.key,
                crate::session::percent_encode(&(c.get)(conv))
            )
        })
        .collect()
}

#[component]
fn BoardPage() -> impl IntoView {
    let (catalog_url, fragment) = address();
    let view_state = RwSignal::new(View::read(&fragment));
    let loaded = RwSignal::new(None::<Arc<Loaded>>);
    let problems = RwSignal::new(Problems::new());
    let status = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let ranked = RwSignal::new(None::<(String, View, Result<Ranked, String>)>);
    let sort = RwSignal::new(None::<(Sort, bool)>);
    let picked = RwSignal::new(Vec::<usize>::new());
    let url_input = RwSignal::new(catalog_url.clone().unwrap_or_default());

    // opens a catalog; what is shown stays until the new one is read whole
    let open = move |source: Source| {
        busy.set(true);
        status.set("Reading the catalog…".into());
        leptos::task::spawn_local(async move {
            match read_catalog(source).await {
                Ok((l, p)) => {
                    let kept = l.board.runs.len();
                    let total = l.manifest.runs.len();
                    status.set(format!(
                        "{}: {kept} of {total} runs, {} metrics, judgments {}",
                        l.manifest.name,
                        l.board.metrics.len(),
                        l.judgments
                    ));
                    problems.set(p);
                    view_state.update(|v| {
                        if !l.board.metrics.contains(&v.metric) {
                            v.metric = l.board.metrics.first().cloned().unwrap_or_default();
                        }
                        if !v.baseline.is_empty()
                            && !l.board.runs.iter().any(|r| r.name == v.baseline)
                        {
                            v.baseline.clear();
                        }
                    });
                    picked.set(Vec::new());
                    ranked.set(None);
                    loaded.set(Some(Arc::new(l)));
                }
                Err(why) => {
                    status.set(if loaded.with_untracked(Option::is_some) {
                        "The catalog could not be read; the board shown is the one read before."
                            .into()
                    } else {
                        "The catalog could not be read.".into()
                    });
                    problems.update(|p| p.insert(0, why));
                }
            }
            busy.set(false);
        });
    };
    if let Some(url) = catalog_url.filter(|u| !u.is_empty()) {
        match logic::resolve(&app_base(), &url) {
            Some(u) => open(Source::Url(u)),
            None => problems.set(vec![format!(
                "catalog={url}: not an http(s) address the page may read"
            )]),
        }
    }

    // the address follows the view
    Effect::new(move |_| {
        let v = view_state.get();
        let Some(w) = web_sys::window() else { return };
        let Ok(history) = w.history() else { return };
        let search = w.location().search().unwrap_or_default();
        let fragment = v.fragment();
        let url = if fragment.is_empty() {
            search
        } else {
            format!("{search}#{fragment}")
        };
        let url = if url.is_empty() {
            "./".to_string()
        } else {
            url
        };
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    });

    // the tests of the chosen metric, in a worker (a newer request stops the older)
    Effect::new(move |_| {
        let v = view_state.get();
        let Some(l) = loaded.get() else { return };
        let Some(m) = l.board.metrics.iter().position(|x| *x == v.metric) else {
            return;
        };
        let current = ranked.with_untracked(|r| {
            r.as_ref().is_some_and(|(metric, old, _)| {
                *metric == v.metric && old.baseline == v.baseline && old.settings() == v.settings()
            })
        });
        if current {
            return;
        }
        let baseline = l.board.runs.iter().position(|r| r.name == v.baseline);
        let runs = l.board.runs.len();
        let queries = l.board.queries[m].len();
        let matrix = l.board.values[m].clone();
        let metric = v.metric.clone();
        leptos::task::spawn_local(async move {
            let t0 = now();
            let tests = protocol::BoardTests {
                runs: runs as u32,
                queries: queries as u32,
                settings: v.settings(),
                baseline: baseline.map(|b| b as u32),
            };
            let answer = worker::leaderboard(&matrix, tests, false).await;
            if let Some(answer) = answer {
                mark("board-ranked", t0);
                ranked.set(Some((metric, v, answer)));
            }
        });
    });

    let settings_bar = move || {
        loaded.get().map(|l| {
            let metrics = l.board.metrics.clone();
            let names: Vec<String> = l.board.runs.iter().map(|r| r.name.clone()).collect();
            let v = view_state.get_untracked();
            view! {
                <div class="board-settings card-head">
                    <label>"Metric "
                        <select id="board-metric" on:change=move |e| { let m = event_target_value(&e); view_state.update(|v| v.metric = m); }>
                            {metrics.iter().map(|m| view! { <option value=m.clone() selected=*m == v.metric>{m.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Test "
                        <select id="board-test" on:change=move |e| { if let Some(t) = Test::named(&event_target_value(&e)) { view_state.update(|v| v.test = t); } }>
                            {[(Test::T, "paired t-test"), (Test::Wilcoxon, "Wilcoxon signed-rank"), (Test::Sign, "sign test")].into_iter().map(|(t, label)| view! { <option value=t.name() selected=t == v.test>{label}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Correction "
                        <select id="board-correction" on:change=move |e| { if let Some(c) = Correction::named(&event_target_value(&e)) { view_state.update(|v| v.correction = c); } }>
                            {[(Correction::Holm, "Holm (family-wise)"), (Correction::BenjaminiHochberg, "Benjamini–Hochberg (FDR)"), (Correction::Bonferroni, "Bonferroni"), (Correction::None, "none")].into_iter().map(|(c, label)| view! { <option value=c.name() selected=c == v.correction>{label}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"α "
                        <select id="board-alpha" on:change=move |e| { if let Ok(a) = event_target_value(&e).parse::<f64>() { view_state.update(|v| v.alpha = a); } }>
                            {[0.01, 0.05, 0.1].into_iter().map(|a| view! { <option value=a.to_string() selected=a == v.alpha>{a.to_string()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Baseline "
                        <select id="board-baseline" on:change=move |e| { let b = event_target_value(&e); view_state.update(|v| v.baseline = b); }>
                            <option value="" selected=v.baseline.is_empty()>"none"</option>
                            {names.iter().map(|n| view! { <option value=n.clone() selected=*n == v.baseline>{n.clone()}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Filter "
                        <input id="board-filter" type="search" placeholder="tag:x author:y date>=2026-01 key=value words"
                            prop:value=v.filter.clone()
                            on:input=move |e| { let f = event_target_value(&e); view_state.update(|v| v.filter = f); }/>
                    </label>
                </div>
            }
        })
    };

    let method = move || {
        let v = view_state.get();
        let state = ranked.with(|r| match r {
            Some((m, old, Ok(_))) if *m == v.metric && *old == v => "",
            Some((m, old, Err(_))) if *m == v.metric && *old == v => "",
            _ if loaded.with(Option::is_some) => " (computing…)",
            _ => "",
        });
        let test = match v.test {
            Test::T => "a paired t-test",
            Test::Wilcoxon => "Wilcoxon's signed-rank test",
            Test::Sign => "a sign test",
        };
        let correction = match v.correction {
            Correction::Holm => "Holm's correction (family-wise error)",
            Correction::BenjaminiHochberg => {
                "the Benjamini–Hochberg correction (false discovery rate)"
            }
            Correction::Bonferroni => "Bonferroni's correction (family-wise error)",
            Correction::None => "no correction",
        };
        let s = Settings::default();
        format!(
            "Tie group (●): the runs not significantly worse than the best on {} under {test} against the best run, p-values adjusted by {correction}, α = {}. Rank interval: the ranks a run holds in 95% of {} paired bootstrap resamples of the queries (seed {}). ▲/▼: significantly better/worse than the baseline (same test and correction).{state}",
            v.metric, v.alpha, s.resamples, s.seed
        )
    };

    let table = move || {
        let l = loaded.get()?;
        let v = view_state.get();
        let b = &l.board;
        let default = (
            b.metrics
                .iter()
                .position(|m| *m == v.metric)
                .map_or(Sort::Catalog, Sort::Metric),
            false,
        );
        let (by, descending) = sort.get().unwrap_or(default);
        let rows = logic::rows(b, &Filter(v.filter.clone()), by, descending);
        let best = logic::best(b, &rows);
        let m = b.metrics.iter().position(|x| *x == v.metric);
        let r = ranked
            .get()
            .filter(|(metric, old, _)| *metric == v.metric && *old == v);
        let (stats, failure) = match r.map(|x| x.2) {
            Some(Ok(s)) => (Some(s), None),
            Some(Err(why)) => (None, Some(why)),
            None => (None, None),
        };
        let baseline = b.runs.iter().position(|x| x.name == v.baseline);
        let head_click = move |s: Sort| {
            move |_| {
                sort.update(|cur| {
                    *cur = Some(match cur.unwrap_or(default) {
                        (old, d) if old == s => (s, !d),
                        _ => (s, false),
                    })
                })
            }
        };
        let metrics = b.metrics.clone();
        let body = rows
            .iter()
            .map(|&r| {
                let run = &b.runs[r];
                let is_picked = move || picked.with(|p| p.contains(&r));
                let toggle = move |_| {
                    picked.update(|p| {
                        if let Some(i) = p.iter().position(|&x| x == r) {
                            p.remove(i);
                        } else {
                            p.push(r);
                            if p.len() > 2 {
                                p.remove(0);
                            }
                        }
                    })
                };
                let interval = stats.as_ref().and_then(|s| s.ranks.get(r).copied());
                let member = stats.as_ref().and_then(|s| s.members.get(r).copied());
                let versus = stats.as_ref().and_then(|s| {
                    s.versus.as_ref()?.iter().find(|c| c.run as usize == r).cloned()
                });
                let cells = (0..metrics.len())
                    .map(|c| {
                        let mean = b.kept_means[c][r];
                        let is_best = best[c] == Some(r);
                        let text = if mean.is_finite() { format!("{mean:.4}") } else { "–".into() };
                        let value = if mean.is_finite() { crate::report::full(mean) } else { String::new() };
                        let chosen = Some(c) == m;
                        let mark = if chosen {
                            versus.as_ref().map_or("", |c| match (c.significant, c.mean_diff > 0.0) {
                                (true, true) => " ▲",
                                (true, false) => " ▼",
                                _ => "",
                            })
                        } else {
                            ""
                        };
                        view! {
                            <td class:best=is_best class:chosen=chosen data-metric=metrics[c].clone() data-run=run.name.clone() data-value=value>
                                {text}{mark}
                            </td>
                        }
                    })
                    .collect_view();
                let (rank, low, high) = interval.map_or((String::new(), String::new(), String::new()), |i| {
                    (i.0.to_string(), i.1.to_string(), i.2.to_string())
                });
                let interval_text = interval.map_or("…".to_string(), |i| {
                    if i.1 == i.2 { format!("{}", i.1) } else { format!("{}–{}", i.1, i.2) }
                });
                let group = member.map_or(String::new(), |g| g.to_string());
                let p_cell = versus.as_ref().map_or(String::new(), |c| format!("p {} (adjusted {})", p_text(c.p), p_text(c.adjusted)));
                view! {
                    <tr data-run=run.name.clone() class:baseline=Some(r) == baseline class:in-group=member == Some(true)>
                        <td><input type="checkbox" class="pick" aria-label=format!("choose {} to compare", run.name) prop:checked=is_picked on:change=toggle/></td>
                        <td class="rank" data-rank=rank>{interval.map(|i| i.0.to_string())}</td>
                        <td class="group" data-group=group>{if member == Some(true) { "●" } else { "" }}</td>
                        <th scope="row" title=run.description.clone()>{run.name.clone()}</th>
                        <td class="interval" data-low=low data-high=high>{interval_text}</td>
                        {cells}
                        <td class="date">{run.date.clone()}</td>
                        <td>{run.author.clone()}</td>
                        <td class="tags">{run.tags.join(", ")}</td>
                        <td class="small muted">{p_cell}</td>
                    </tr>
                }
            })
            .collect_view();
        let arrow = move |s: Sort| match sort.get().unwrap_or(default) {
            (x, d) if x == s => {
                if d {
                    " ▲"
                } else {
                    " ▼"
                }
            }
            _ => "",
        };
        Some(view! {
            {failure.map(|why| view! { <p class="msg error" role="alert" id="board-test-error">{why}</p> })}
            <div class="board-table-wrap">
                <table class="metrics" id="board-table">
                    <thead><tr>
                        <th></th>
                        <th title="the rank by the chosen metric's mean (tied runs share the better rank)">"rank"</th>
                        <th title="in the best run's tie group">"tie"</th>
                        <th><button class="link" on:click=head_click(Sort::Name)>"run"{move || arrow(Sort::Name)}</button></th>
                        <th title="95% rank interval (paired bootstrap)">"rank interval"</th>
                        {metrics.iter().enumerate().map(|(c, name)| view! {
                            <th data-metric=name.clone()><button class="link" on:click=head_click(Sort::Metric(c))>{name.clone()}{move || arrow(Sort::Metric(c))}</button></th>
                        }).collect_view()}
                        <th><button class="link" on:click=head_click(Sort::Date)>"date"{move || arrow(Sort::Date)}</button></th>
                        <th>"author"</th>
                        <th>"tags"</th>
                        <th>"vs baseline"</th>
                    </tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <p class="small muted" id="board-shown">{format!("{} of {} runs shown", rows.len(), b.runs.len())}</p>
        })
    };

    // two chosen runs → the dashboard's Compare view on their files
    let compare = move || {
        let l = loaded.get()?;
        let p = picked.get();
        let v = view_state.get();
        let files: Vec<String> = p
            .iter()
            .filter_map(|&r| l.board.runs.get(r)?.file.clone())
            .collect();
        let text = match p.len() {
            0 | 1 => return Some(view! { <p class="small muted" id="board-compare-hint">"Tick two runs to compare them in the dashboard."</p> }.into_any()),
            _ if files.len() < 2 => return Some(view! { <p class="small muted" id="board-compare-hint">"These runs' files are not reachable (a dropped catalog): open them in the dashboard by hand."</p> }.into_any()),
            _ => format!("Compare {} and {} in the dashboard", l.board.runs[p[0]].name, l.board.runs[p[1]].name),
        };
        let mut fragment = vec![
            "tab=ranking".to_string(),
            format!("test={}", v.test.name()),
            format!("correction={}", v.correction.name()),
            format!("alpha={}", v.alpha),
        ];
        fragment.extend(conventions_fragment(&l.manifest.conventions));
        let refs: Vec<&str> = files.iter().map(String::as_str).collect();
        let href =
            logic::dashboard_link(&app_base(), l.qrels.as_deref(), &refs, &fragment.join("&"));
        Some(view! { <a class="button" id="board-compare" href=href target="_blank" rel="noopener">{text}</a> }.into_any())
    };

    let drop_files = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let Some(list) = ev.data_transfer().and_then(|d| d.files()) else {
            return;
        };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        leptos::task::spawn_local(async move {
            let mut read = Vec::new();
            for f in files {
                let buffer = wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await;
                match buffer {
                    Ok(b) => read.push((f.name(), js_sys::Uint8Array::new(&b).to_vec())),
                    Err(e) => problems.update(|p| {
                        p.push(format!(
                            "{}: could not be read ({})",
                            f.name(),
                            super::util::js_text(&e)
                        ))
                    }),
                }
            }
            open(Source::Files(read));
        });
    };

    view! {
        <div class="app board" on:dragover=|e: web_sys::DragEvent| e.prevent_default() on:drop=drop_files>
            <header class="top">
                <h1>"Rankscope · Leaderboard"</h1>
                <span class="tagline">{move || loaded.with(|l| l.as_ref().map(|l| l.manifest.name.clone())).unwrap_or_else(|| "a team's runs, ranked honestly".into())}</span>
                <span class="spacer"></span>
                <a class="button" href="../" id="to-dashboard">"Open the dashboard"</a>
            </header>
            <main class="board-main">
                <section class="card" id="board-open">
                    <form class="card-head" on:submit=move |e: web_sys::SubmitEvent| {
                        e.prevent_default();
                        let url = url_input.get_untracked();
                        match logic::resolve(&app_base(), url.trim()) {
                            Some(u) => open(Source::Url(u)),
                            None => problems.update(|p| p.insert(0, format!("{url}: not an http(s) address the page may read"))),
                        }
                    }>
                        <label>"Catalog "<input id="board-url" type="text" size="50" placeholder="catalog/rankscope-catalog.json (relative to the app)" prop:value=move || url_input.get() on:input=move |e| url_input.set(event_target_value(&e))/></label>
                        <button type="submit" disabled=move || busy.get()>"Open"</button>
                        <span class="small muted">"or drop the manifest with its values files here"</span>
                    </form>
                    <p id="board-status" class="small" aria-live="polite">{move || status.get()}</p>
                    {move || {
                        let p = problems.get();
                        (!p.is_empty()).then(|| view! {
                            <ul class="msg error" id="board-problems" role="alert">
                                {p.into_iter().map(|x| view! { <li data-problem="">{x}</li> }).collect_view()}
                            </ul>
                        })
                    }}
                </section>
                <section class="card" id="board">
                    {settings_bar}
                    <p class="small" id="board-method">{method}</p>
                    {table}
                    {compare}
                    {move || loaded.get().map(|l| view! { <Exports loaded=l view=view_state/> })}
                </section>
                {move || loaded.get().map(|l| view! { <HeatmapCard loaded=l view=view_state sort=sort/> })}
                {move || loaded.get().map(|l| view! { <HistoryCard loaded=l view=view_state/> })}
            </main>
        </div>
    }
}

/// The exports: the leaderboard as CSV, JSON, Markdown, LaTeX (the ranking
/// metric's tie group and rank intervals written), and the link to this view.
#[component]
fn Exports(loaded: Arc<Loaded>, view: RwSignal<View>) -> impl IntoView {
    let link = RwSignal::new(String::new());
    let running = RwSignal::new(false);
    let failed = RwSignal::new(String::new());
    // the CLI's writers (`rankscope leaderboard --format`) on the runs shown,
    // every metric, the chosen one first (it orders the rows); each metric's
    // tests in a worker
    let export = move |format: crate::report::Export| {
        let l = loaded.clone();
        move |_| {
            let l = l.clone();
            let v = view.get_untracked();
            running.set(true);
            failed.set(String::new());
            leptos::task::spawn_local(async move {
                let text = export_text(&l, &v, format).await;
                running.set(false);
                match text {
                    Ok(t) => download(&format!("leaderboard.{}", format.name()), format.mime(), &t),
                    Err(why) => failed.set(format!("The export failed: {why}")),
                }
            });
        }
    };
    let copy_link = move |_| {
        let href = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        link.set(href.clone());
        if let Some(c) = web_sys::window().map(|w| w.navigator().clipboard()) {
            let _ = c.write_text(&href);
        }
    };
    use crate::report::Export as E;
    view! {
        <div class="board-exports card-head">
            <span class="small">"Export the leaderboard:"</span>
            {[E::Csv, E::Json, E::Markdown, E::Latex].into_iter().map(|f| view! {
                <button class="small" data-export=f.name() disabled=move || running.get() on:click=export(f)>{match f { E::Csv => "CSV", E::Json => "JSON", E::Markdown => "Markdown", E::Latex => "LaTeX" }}</button>
            }).collect_view()}
            <button class="small" id="board-link" on:click=copy_link>"Copy link to this view"</button>
            <code class="small" id="board-link-text">{move || link.get()}</code>
            {move || (!failed.get().is_empty()).then(|| view! { <p class="msg error" role="alert" id="board-export-error">{failed.get()}</p> })}
        </div>
    }
}

/// The leaderboard as `rankscope leaderboard --format` writes it
/// ([`crate::leaderboard::Board`]), over the runs shown, every metric (the
/// chosen first), each metric's tests computed by a worker.
async fn export_text(
    l: &Loaded,
    v: &View,
    format: crate::report::Export,
) -> Result<String, String> {
    use crate::core::leaderboard as lb;
    use crate::leaderboard::{Board as Written, MetricColumn};
    let b = &l.board;
    let baseline = b.runs.iter().position(|r| r.name == v.baseline);
    let chosen = b.metrics.iter().position(|m| *m == v.metric);
    let order = chosen
        .into_iter()
        .chain((0..b.metrics.len()).filter(|&m| Some(m) != chosen));
    let mut columns = Vec::new();
    for m in order {
        let n = b.queries[m].len();
        let Some(matrix) = lb::Matrix::new(b.runs.len(), n, &b.values[m]) else {
            continue;
        };
        let tests = protocol::BoardTests {
            runs: b.runs.len() as u32,
            queries: n as u32,
            settings: v.settings(),
            baseline: baseline.map(|x| x as u32),
        };
        let r = match worker::leaderboard(&b.values[m], tests, true).await {
            Some(r) => r?,
            None => return Err("cancelled".into()),
        };
        let comparisons = |vs: &[protocol::Versus]| -> Vec<lb::Comparison> {
            vs.iter()
                .map(|c| lb::Comparison {
                    run: c.run as usize,
                    mean_diff: c.mean_diff,
                    p: c.p,
                    adjusted: c.adjusted,
                    significant: c.significant,
                })
                .collect()
        };
        columns.push(MetricColumn {
            metric: b.metrics[m].clone(),
            queries: n,
            dropped: l.dropped[m],
            column: lb::Column {
                means: lb::means(&matrix),
                best: r.best as usize,
                ties: lb::TieGroup {
                    best: r.best as usize,
                    comparisons: comparisons(&r.against_best),
                    members: r.members.clone(),
                },
                ranks: (r.ranks.iter())
                    .map(|&(rank, low, high)| lb::RankInterval {
                        rank: rank as usize,
                        low: low as usize,
                        high: high as usize,
                    })
                    .collect(),
                versus: r.versus.as_deref().map(comparisons),
            },
        });
    }
    let written = Written {
        catalog: l.manifest.name.clone(),
        runs: (l.kept.iter().zip(&b.runs))
            .map(|(id, run)| (id.clone(), run.name.clone()))
            .collect(),
        columns,
        settings: v.settings(),
        baseline,
        left_out: l.left_out.clone(),
        conventions: crate::session::non_default_conventions(
            &l.manifest.conventions,
            crate::core::registry::Kind::Ranking,
        ),
    };
    Ok(written.export(format))
}

/// The heatmap's width: the window's less the page's margins (its box,
/// sized by its content, cannot say).
fn available() -> u32 {
    let window = web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|w| w.as_f64());
    window.map_or(1000.0, |w| (w - 80.0).max(200.0)) as u32
}

/// Cell sizes of the heatmap (CSS pixels): each query column's width
/// (the user's choice) and each run row's height.
const CELL_H: u32 = 12;
const HEAT_MAX_H: u32 = 480;

/// The per-topic heatmap: the table's runs (its filter and order) × the
/// ranking metric's queries, on a canvas that paints only what is visible.
#[component]
fn HeatmapCard(
    loaded: Arc<Loaded>,
    view: RwSignal<View>,
    sort: RwSignal<Option<(Sort, bool)>>,
) -> impl IntoView {
    let order = RwSignal::new(QueryOrder::Difficulty);
    let diff = RwSignal::new(false);
    let cell_w = RwSignal::new(0u32);
    let scroller = NodeRef::<leptos::html::Div>::new();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let readout = RwSignal::new(String::new());
    let l = loaded.clone();
    // rows (runs, as the table), columns (queries), the metric and the baseline
    let layout = Memo::new(move |_| {
        let v = view.get();
        let b = &l.board;
        let m = b.metrics.iter().position(|x| *x == v.metric)?;
        let (by, desc) = sort.get().unwrap_or((Sort::Metric(m), false));
        let rows = logic::rows(b, &Filter(v.filter.clone()), by, desc);
        let cols = logic::query_order(b, m, &rows, order.get());
        let baseline = b
            .runs
            .iter()
            .position(|r| r.name == v.baseline)
            .filter(|_| diff.get());
        let mut map = Heatmap {
            values: &b.values[m],
            queries: b.queries[m].len(),
            rows: &rows,
            cols: &cols,
            baseline,
            range: (0.0, 1.0),
            higher_is_better: b.higher_is_better(m),
        };
        map.fit_range();
        let range = map.range;
        Some((m, rows, cols, baseline, range))
    });
    let l = loaded.clone();
    let width_of = move |cols: usize| {
        let chosen = cell_w.get();
        if chosen > 0 {
            return chosen;
        }
        (available() / cols.max(1) as u32).clamp(2, 16)
    };
    // paints the visible window; its time goes to rankscopeHeatFrames
    let paint = {
        let l = l.clone();
        move || {
            let (Some((m, rows, cols, baseline, range)), Some(div), Some(c)) = (
                layout.get_untracked(),
                scroller.get_untracked(),
                canvas.get_untracked(),
            ) else {
                return;
            };
            let t0 = now();
            let b = &l.board;
            let cw = width_of(cols.len());
            let map = Heatmap {
                values: &b.values[m],
                queries: b.queries[m].len(),
                rows: &rows,
                cols: &cols,
                baseline,
                range,
                higher_is_better: b.higher_is_better(m),
            };
            let c: web_sys::HtmlCanvasElement = c;
            let (w, h) = (c.width(), c.height());
            let pixels = map.paint(
                div.scroll_left().max(0) as u32,
                div.scroll_top().max(0) as u32,
                cw,
                CELL_H,
                w,
                h,
            );
            let Ok(image) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
                wasm_bindgen::Clamped(&pixels),
                w,
                h,
            ) else {
                return;
            };
            if let Some(ctx) = c
                .get_context("2d")
                .ok()
                .flatten()
                .and_then(|x| x.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
            {
                let _ = ctx.put_image_data(&image, 0.0, 0.0);
            }
            let global = js_sys::global();
            let key = JsValue::from_str("rankscopeHeatFrames");
            let frames = js_sys::Reflect::get(&global, &key)
                .ok()
                .filter(|f| f.is_object())
                .unwrap_or_else(|| {
                    let a: JsValue = js_sys::Array::new().into();
                    let _ = js_sys::Reflect::set(&global, &key, &a);
                    a
                });
            if let Some(a) = frames.dyn_ref::<js_sys::Array>() {
                a.push(&JsValue::from_f64(now() - t0));
            }
        }
    };
    let paint = Arc::new(paint);
    let sized = Memo::new(move |_| {
        let Some((_, rows, cols, _, _)) = layout.get() else {
            return (0, 0);
        };
        let cw = width_of(cols.len());
        (cols.len() as u32 * cw, rows.len() as u32 * CELL_H)
    });
    {
        let paint = paint.clone();
        Effect::new(move |_| {
            layout.track();
            sized.track();
            let paint = paint.clone();
            // after the layout took the new size
            super::util::later(0, move || paint());
        });
    }
    let on_scroll = {
        let paint = paint.clone();
        move |_| paint()
    };
    let l = loaded.clone();
    let at = move |e: &web_sys::MouseEvent| -> Option<(usize, usize)> {
        let (_, rows, cols, _, _) = layout.get_untracked()?;
        let div = scroller.get_untracked()?;
        let rect = div.get_bounding_client_rect();
        let x = e.client_x() as f64 - rect.left() + div.scroll_left() as f64;
        let y = e.client_y() as f64 - rect.top() + div.scroll_top() as f64;
        let cw = width_of(cols.len()) as f64;
        let (j, i) = ((x / cw) as usize, (y / CELL_H as f64) as usize);
        (i < rows.len() && j < cols.len() && x >= 0.0 && y >= 0.0).then_some((i, j))
    };
    let hover = {
        let l = l.clone();
        move |e: web_sys::MouseEvent| {
            let Some((m, rows, cols, baseline, _)) = layout.get_untracked() else {
                return;
            };
            let Some((i, j)) = at(&e) else {
                return readout.set(String::new());
            };
            let b = &l.board;
            let (r, q) = (rows[i], cols[j]);
            let v = b.row(m, r).get(q).copied().unwrap_or(f64::NAN);
            let mut text = format!(
                "{} · query {} · {} = {}",
                b.runs[r].name,
                b.queries[m][q],
                b.metrics[m],
                crate::report::full(v)
            );
            if let Some(base) = baseline {
                let d = v - b.row(m, base).get(q).copied().unwrap_or(f64::NAN);
                text.push_str(&format!(" ({:+.4} vs {})", d, b.runs[base].name));
            }
            readout.set(text);
        }
    };
    let click = {
        let l = l.clone();
        move |e: web_sys::MouseEvent| {
            let Some((m, rows, cols, _, _)) = layout.get_untracked() else {
                return;
            };
            let Some((i, j)) = at(&e) else { return };
            let b = &l.board;
            let run = &b.runs[rows[i]];
            let Some(file) = run.file.as_deref() else {
                readout.set(format!(
                    "{}'s file is not reachable from here (a dropped catalog)",
                    run.name
                ));
                return;
            };
            let mut fragment = vec!["tab=ranking".to_string(), "per_query=1".to_string()];
            fragment.extend(conventions_fragment(&l.manifest.conventions));
            let href = logic::dashboard_link(
                &app_base(),
                l.qrels.as_deref(),
                &[file],
                &fragment.join("&"),
            );
            readout.set(format!(
                "query {}: opening {}'s ranked lists in the dashboard",
                b.queries[m][cols[j]], run.name
            ));
            if let Some(w) = web_sys::window() {
                let _ = w.open_with_url_and_target(&href, "_blank");
            }
        }
    };
    let export_svg = {
        let l = l.clone();
        move |_| {
            let (Some((m, rows, cols, baseline, range)), Some(div), Some(c)) = (
                layout.get_untracked(),
                scroller.get_untracked(),
                canvas.get_untracked(),
            ) else {
                return;
            };
            // the window on screen, on the whole map's colour scale
            let c: web_sys::HtmlCanvasElement = c;
            let cw = width_of(cols.len());
            let (i0, j0) = (
                div.scroll_top().max(0) as usize / CELL_H as usize,
                div.scroll_left().max(0) as usize / cw as usize,
            );
            let (i1, j1) = (
                (i0 + c.height().div_ceil(CELL_H) as usize).min(rows.len()),
                (j0 + c.width().div_ceil(cw) as usize).min(cols.len()),
            );
            let b = &l.board;
            let map = Heatmap {
                values: &b.values[m],
                queries: b.queries[m].len(),
                rows: &rows[i0.min(i1)..i1],
                cols: &cols[j0.min(j1)..j1],
                baseline,
                range,
                higher_is_better: b.higher_is_better(m),
            };
            download(
                "heatmap.svg",
                "image/svg+xml",
                &crate::plot::heatmap::to_svg(&map, cw, CELL_H),
            );
        }
    };
    let legend = move || {
        let (m, _, _, baseline, _) = layout.get()?;
        Some(if baseline.is_some() {
            format!("{}: blue better than the baseline, red worse, white equal; grey: no value. Columns: queries; rows: runs in the table's order.", loaded.board.metrics[m])
        } else {
            format!("{}: dark purple low to yellow high (viridis); grey: no value. Columns: queries; rows: runs in the table's order.", loaded.board.metrics[m])
        })
    };
    view! {
        <section class="card" id="board-heatmap">
            <div class="card-head">
                <h2>"Per-topic heatmap"</h2>
                <label>"Queries "
                    <select id="heat-order" on:change=move |e| order.set(match event_target_value(&e).as_str() { "catalog" => QueryOrder::Catalog, "spread" => QueryOrder::Spread, _ => QueryOrder::Difficulty })>
                        <option value="difficulty" selected>"hardest first"</option>
                        <option value="spread">"most separating first"</option>
                        <option value="catalog">"catalog order"</option>
                    </select>
                </label>
                <label><input type="checkbox" id="heat-diff" prop:checked=move || diff.get() on:change=move |e| diff.set(event_target_checked(&e))/>" difference from the baseline"</label>
                <label>"Cell width "
                    <select id="heat-cell" on:change=move |e| cell_w.set(event_target_value(&e).parse().unwrap_or(0))>
                        <option value="0" selected>"fit"</option>
                        {[1u32, 2, 4, 8, 16].into_iter().map(|w| view! { <option value=w.to_string()>{format!("{w} px")}</option> }).collect_view()}
                    </select>
                </label>
                <button class="small" data-export="heatmap-svg" on:click=export_svg>"SVG"</button>
            </div>
            <div class="heat-scroll" node_ref=scroller on:scroll=on_scroll on:mousemove=hover on:click=click
                style=move || format!("overflow:auto;position:relative;width:100%;max-height:{HEAT_MAX_H}px;height:{}px", sized.get().1.min(HEAT_MAX_H) + 16)>
                <div style=move || { let (w, h) = sized.get(); format!("width:{w}px;height:{h}px;position:relative") }>
                    <canvas id="heat-canvas" node_ref=canvas style="position:sticky;left:0;top:0;display:block"
                        width=move || { let w = available(); w.min(sized.get().0.max(1)).to_string() }
                        height=move || sized.get().1.clamp(1, HEAT_MAX_H).to_string()></canvas>
                </div>
            </div>
            <p class="small" id="heat-readout" aria-live="polite">{move || readout.get()}</p>
            <p class="small muted">{legend}</p>
        </section>
    }
}

/// The history chart: the ranking metric's mean over the runs' dates, a
/// line per tag or author, and the best so far.
#[component]
fn HistoryCard(loaded: Arc<Loaded>, view: RwSignal<View>) -> impl IntoView {
    let by = RwSignal::new(HistoryBy::Tag);
    let l = loaded.clone();
    let chart = Signal::derive(move || {
        let v = view.get();
        let b = &l.board;
        let m = b.metrics.iter().position(|x| *x == v.metric).unwrap_or(0);
        let rows = logic::rows(b, &Filter(v.filter.clone()), Sort::Catalog, false);
        logic::history(b, m, &rows, by.get())
    });
    let points = move || chart.with(|c| c.series.first().map_or(0, |s| s.points.len()));
    view! {
        <section class="card" id="board-history">
            <div class="card-head">
                <h2>"History"</h2>
                <label>"One line per "
                    <select id="history-by" on:change=move |e| by.set(if event_target_value(&e) == "author" { HistoryBy::Author } else { HistoryBy::Tag })>
                        <option value="tag" selected>"tag"</option>
                        <option value="author">"author"</option>
                    </select>
                </label>
                <span class="small muted" id="history-count">{move || format!("{} dated runs", points())}</span>
            </div>
            <Chart chart=chart label="leaderboard history"/>
        </section>
    }
}
