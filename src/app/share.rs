//! Links, sessions, reports and offline use: the browser's side of
//! [`crate::session`].
//!
//! - At start-up the page reads, in order: a saved report's embedded session;
//!   data URLs of the address (`?qrels=…&run=…`, fetched and loaded like
//!   dropped files); the view of the fragment, else the settings remembered in
//!   localStorage. Without data it loads the bundled example.
//! - A change of the view rewrites the fragment (`history.replaceState`:
//!   no navigation, nothing sent) and the remembered settings, at most every
//!   200 ms (and at once when the link is copied).
//! - The service worker (`sw.js`) keeps the app's files for offline use.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::loader;
use super::state::{AppState, Level, Progress};
use crate::parse::LoadError;
use crate::session::{self, ViewState};

/// The localStorage key of the remembered view settings.
const STORAGE_KEY: &str = "rankscope.view";

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

fn storage() -> Option<web_sys::Storage> {
    window()?.local_storage().ok().flatten()
}

/// The embedded session of a saved report, if this page is one.
fn report_text() -> Option<String> {
    window()?
        .document()?
        .get_element_by_id(session::REPORT_DATA_ID)?
        .text_content()
}

/// Whether this page is a saved report (data built in, no loading).
pub fn is_report() -> bool {
    report_text().is_some()
}

/// Start-up: report, data URLs, view from the fragment or the remembered
/// settings, else the example; then keep the address in step with the view.
pub fn startup(state: AppState) {
    let location = window().map(|w| w.location());
    let hash = location
        .as_ref()
        .and_then(|l| l.hash().ok())
        .unwrap_or_default();
    let search = location
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let remembered = storage()
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .unwrap_or_default();
    let from_link = !hash.trim_start_matches('#').is_empty();
    let (view, skipped) = ViewState::from_fragment(if from_link { &hash } else { &remembered });
    if !skipped.is_empty() {
        state.say(
            Level::Warning,
            "Some view settings of the address were not understood",
            skipped,
        );
    }

    if let Some(text) = report_text() {
        match session::open_report(&text) {
            Ok((ws, saved, notes)) => {
                let files = ws.files.clone();
                state.ws.set(ws);
                state.url_files.set(files);
                state.apply(if from_link { &view } else { &saved });
                if !notes.is_empty() {
                    state.say(
                        Level::Warning,
                        "Some view settings of the report were not understood",
                        notes,
                    );
                }
            }
            Err(why) => state.say(Level::Error, "This report could not be read", vec![why]),
        }
    } else {
        state.apply(&view);
        let urls = session::data_urls(&search);
        if urls.is_empty() {
            loader::load_example(state);
        } else {
            let tab = view.tab;
            leptos::task::spawn_local(async move {
                load_urls(state, urls).await;
                if tab.is_some() {
                    state.tab.set(tab);
                }
            });
        }
        if from_link && !view.files.is_empty() {
            state.say(
                Level::Info,
                "This link's view was made with local files it does not include",
                vec![format!(
                    "Drop {} to see the same data.",
                    view.files.join(", ")
                )],
            );
        }
        register_service_worker("./sw.js");
    }

    // the view -> the address fragment and the remembered settings, at most
    // every 200 ms: `history.replaceState` takes ~5 ms, which a threshold
    // slider being dragged would pay on every step
    let pending = std::rc::Rc::new(std::cell::Cell::new(false));
    Effect::new(move |_| {
        let _ = state.view();
        if !pending.replace(true) {
            let pending = pending.clone();
            super::util::later(200, move || {
                pending.set(false);
                save_view(&untrack(|| state.view()));
            });
        }
    });
    // a fragment edited by hand (or a link followed inside the page) applies at once
    if let Some(w) = window() {
        let on_hash = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            let hash = window()
                .and_then(|w| w.location().hash().ok())
                .unwrap_or_default();
            let (view, skipped) = ViewState::from_fragment(&hash);
            if !skipped.is_empty() {
                state.say(
                    Level::Warning,
                    "Some view settings were not understood",
                    skipped,
                );
            }
            if view != state.view() {
                state.apply(&view);
            }
        });
        let _ = w.add_event_listener_with_callback("hashchange", on_hash.as_ref().unchecked_ref());
        on_hash.forget();
    }
}

/// Writes `view` into the address fragment and the remembered settings.
fn save_view(view: &ViewState) {
    write_fragment(&view.to_fragment());
    if let Some(s) = storage() {
        let remembered = ViewState {
            files: Vec::new(),
            ..view.clone()
        };
        let _ = s.set_item(STORAGE_KEY, &remembered.to_fragment());
    }
}

fn write_fragment(fragment: &str) {
    let Some(w) = window() else { return };
    let location = w.location();
    let current = location.hash().unwrap_or_default();
    if current.trim_start_matches('#') == fragment {
        return;
    }
    let base = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    let url = if fragment.is_empty() {
        base
    } else {
        format!("{base}#{fragment}")
    };
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Forgets the remembered settings and puts the defaults back.
pub fn forget_settings(state: AppState) {
    if let Some(s) = storage() {
        let _ = s.remove_item(STORAGE_KEY);
    }
    // the view effect then stores the defaults' fragment: empty, nothing remembered
    state.apply(&ViewState::default());
    state.say(
        Level::Info,
        "Settings forgotten",
        vec!["The view is back to its defaults and nothing is remembered in this browser.".into()],
    );
}

/// Registers the offline service worker at `script` (relative to the page;
/// its folder is the scope: the dashboard and the teaching page below it).
pub fn register_service_worker(script: &str) {
    let Some(w) = window() else { return };
    let protocol = w.location().protocol().unwrap_or_default();
    if protocol != "http:" && protocol != "https:" {
        return;
    }
    let container = w.navigator().service_worker();
    let _ = container.register(script);
}

// ---------------------------------------------------------------- data URLs

/// What the person has loaded: a URL load that finishes after it changed (a
/// drop, a clear, a session) is discarded, not merged into it.
fn fingerprint(state: AppState) -> String {
    // every load adds its file's name; a clear empties the list; a session sets it
    let files = state.ws.with_untracked(|w| w.files.join("\u{1}"));
    if state.example_loaded.get_untracked() {
        files + "\u{2}example"
    } else {
        files
    }
}

/// Downloads and loads every URL, judgments first, each streamed into a
/// loading worker and parsed as it arrives (`worker::parse_url`: the size
/// limits of a dropped file, a download limit, a stall timeout), with
/// progress and Cancel from the first byte. A URL that fails is reported and
/// changes nothing; one that finishes after the workspace changed (the
/// person dropped or cleared meanwhile) is discarded and said so.
pub async fn load_urls(state: AppState, urls: Vec<String>) {
    state.cancel.set(false);
    let mut judgments = false;
    let base = window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    for url in urls {
        if state.cancel.get_untracked() {
            break;
        }
        let name = session::file_name_of_url(&url);
        let refuse = |expected: &str, found: String, hint: &str| {
            loader::report_error(
                state,
                &LoadError::single(&name, 0, 0, expected, found, Some(hint.to_string())),
            )
        };
        let Ok(absolute) = web_sys::Url::new_with_base(&url, &base).map(|u| u.href()) else {
            refuse(
                "a URL",
                format!("'{url}'"),
                "Check the link's run= / qrels= parameters.",
            );
            continue;
        };
        if let Err(why) = session::check_url_scheme(&absolute) {
            refuse("an http(s) URL", format!("'{absolute}'"), &why);
            continue;
        }
        let before = fingerprint(state);
        let label = format!("{name} (downloading)");
        state.progress.set(Some(Progress {
            file: label.clone(),
            bytes: 0,
            total: 0,
            rows: 0,
        }));
        let ended = super::worker::parse_url(
            &absolute,
            &name,
            &crate::parse::LoadOptions::default(),
            &mut |bytes, rows| {
                state.progress.set(Some(Progress {
                    file: label.clone(),
                    bytes,
                    total: bytes,
                    rows,
                }))
            },
        )
        .await;
        state.progress.set(None);
        if fingerprint(state) != before && !matches!(ended, super::worker::Ended::Cancelled) {
            state.say(
                Level::Warning,
                format!("{name} was not loaded: the data changed while it downloaded"),
                vec![
                    "It arrived after you loaded or cleared data, and would have mixed with or replaced it; what you loaded is kept as it is.".into(),
                    "Reload the link to load it.".into(),
                ],
            );
            continue;
        }
        let loaded = matches!(ended, super::worker::Ended::Loaded(Ok(_)));
        let source = loader::Source::Url(absolute, name.clone());
        let mut notes = loader::Notes::default();
        let merged = loader::merge(state, source, ended, &mut judgments, &mut notes);
        notes.say(state);
        if !merged {
            break;
        }
        if loaded {
            state.url_files.update(|u| u.push(name));
        }
    }
}

// ---------------------------------------------------------------- sessions and reports

pub(super) fn session_bytes(state: AppState) -> Vec<u8> {
    let view = state.view();
    state
        .ws
        .with_untracked(|ws| session::encode_session(ws, &view))
}

fn stamp() -> String {
    let d = js_sys::Date::new_0();
    format!(
        "{:04}-{:02}-{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date()
    )
}

pub fn export_session(state: AppState) {
    let bytes = session_bytes(state);
    super::util::download_bytes(
        &format!("rankscope-session-{}.rankscope", stamp()),
        "application/octet-stream",
        &bytes,
    );
}

/// The URL of the page's asset matched by `selector` (a `<link>` Trunk wrote).
fn asset(selector: &str) -> Option<String> {
    let el = window()?.document()?.query_selector(selector).ok()??;
    Some(el.dyn_into::<web_sys::HtmlLinkElement>().ok()?.href())
}

/// Writes one HTML file with the app, its loading worker, the data and the
/// view: it opens offline and every view works in it (written in a worker,
/// which fetches the app's files and its own again).
pub async fn save_report(state: AppState) {
    let assets = (
        asset("link[rel=stylesheet]"),
        asset("link[rel=modulepreload]"),
        asset("link[rel=preload][as=fetch]"),
    );
    let (Some(css), Some(js), Some(wasm)) = assets else {
        state.say(
            Level::Error,
            "The report could not be saved",
            vec!["The app's own files were not found in the page (a saved report cannot save another).".into()],
        );
        return;
    };
    let title = format!("Rankscope report {}", stamp());
    match super::worker::report(&title, [css, js, wasm], &session_bytes(state)).await {
        Ok(html) => super::util::download(
            &format!("rankscope-report-{}.html", stamp()),
            "text/html",
            &html,
        ),
        Err(why) if why.is_empty() => {}
        Err(why) => state.say(Level::Error, "The report could not be saved", vec![why]),
    }
}

/// Copies the address (view fragment and data URLs) and says what it holds.
pub fn copy_link(state: AppState) {
    let Some(w) = window() else { return };
    let view = state.view();
    // the address may not have caught up with the last change yet
    save_view(&view);
    let href = w.location().href().unwrap_or_default();
    let _ = w.navigator().clipboard().write_text(&href);
    let mut lines = vec![
        "The address holds the view (tab, metrics, cutoffs, conventions, threshold, theme); the part after # is never sent to a server.".to_string(),
    ];
    let from_urls = state.url_files.get_untracked();
    if !from_urls.is_empty() {
        lines.push(format!(
            "Loaded again from their URLs: {}.",
            from_urls.join(", ")
        ));
    }
    if !view.files.is_empty() {
        lines.push(format!(
            "Not in the link (local files): {}. The recipient must drop them, or send a session or a report instead.",
            view.files.join(", ")
        ));
    }
    state.say(Level::Info, "Link copied", lines);
}

#[component]
pub fn ShareMenu() -> impl IntoView {
    let state = expect_context::<AppState>();
    let report = is_report();
    let on_import = move |ev: web_sys::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        let file = input
            .as_ref()
            .and_then(|i| i.files())
            .and_then(|l| l.get(0));
        if let Some(i) = input {
            i.set_value("");
        }
        if let Some(file) = file {
            leptos::task::spawn_local(loader::import_session(state, file));
        }
    };
    view! {
        <details class="menu" id="share-menu">
            <summary class="button">"Share ▾"</summary>
            // a choice closes the menu (it would cover the notice it brings)
            <div class="menu-items" on:click=move |ev: web_sys::MouseEvent| {
                let menu = (ev.current_target()).and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                if let Some(Ok(Some(menu))) = menu.map(|m| m.closest("details")) {
                    let _ = menu.remove_attribute("open");
                }
            }>
                <button id="copy-link" on:click=move |_| copy_link(state)>"Copy link to this view"</button>
                {(!report).then(|| view! {
                    <button id="save-report" on:click=move |_| leptos::task::spawn_local(save_report(state))>"Save report (one HTML file)"</button>
                })}
                <button id="export-session" on:click=move |_| export_session(state)>"Export session"</button>
                <label class="button">"Import session…"<input type="file" id="import-session" accept=".rankscope" on:change=on_import/></label>
                <button id="forget-settings" on:click=move |_| forget_settings(state)>"Forget remembered settings"</button>
            </div>
        </details>
    }
}
