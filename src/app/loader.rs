//! Loading dropped files: each is parsed in a Web Worker ([`super::worker`])
//! with progress and Cancel, then merged into the workspace only on success.

use leptos::prelude::*;

use super::state::{AppState, Level, Progress};
use super::worker;
use crate::parse::{LoadError, LoadOptions};
use crate::session;
use wasm_bindgen_futures::JsFuture;

pub use super::worker::Source;

thread_local! {
    /// Loaded multi-class files, by source: a one-vs-rest view reads them
    /// again for one class.
    pub static MATRICES: std::cell::RefCell<Vec<(String, Source)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// Files of the current drop that replace their earlier copy's models.
    static REPLACING: std::cell::RefCell<Vec<String>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The multi-class matrices a view reads again, in the order their models
/// were merged: the dropped files whose models are still loaded
/// (`Workspace::origins`: a removed model's file is left out, a renamed
/// one's kept; a file dropped again counts once, as its latest copy), and
/// the names of the bundled example's matrices still loaded.
pub fn matrices(state: AppState) -> (Vec<Source>, Vec<String>) {
    let from: Vec<String> = state.ws.with_untracked(|w| {
        (w.origins.iter())
            .filter(|o| o.1 == crate::core::registry::Kind::Multiclass)
            .map(|o| o.0.clone())
            .collect()
    });
    let mut files: Vec<(String, Source)> = Vec::new();
    MATRICES.with(|m| {
        for (name, source) in m.borrow().iter().filter(|(n, _)| from.contains(n)) {
            files.retain(|f| f.0 != *name);
            files.push((name.clone(), source.clone()));
        }
    });
    let example = if state.example_loaded.get_untracked() {
        let mut names: Vec<String> = (from.into_iter())
            .filter(|n| files.iter().all(|f| f.0 != *n))
            .collect();
        names.dedup();
        names
    } else {
        Vec::new()
    };
    (files.into_iter().map(|f| f.1).collect(), example)
}

/// Loads a drop: sessions are imported, every other file is parsed in a
/// worker, two at a time, and merged in order, qrels before runs, so a run
/// finds its judgments. The qrels (small) parse on the second core while the
/// first run does; a run starts only when the run before it is merged, so at
/// most one large parse holds memory at a time (a 10M-line run and its qrels
/// load 0.8-0.9 s sooner on this 2-core machine, at the same peak memory).
/// Progress sums the bytes and rows of the whole drop.
pub async fn load_files(state: AppState, files: Vec<web_sys::File>) {
    use futures::StreamExt;
    // qrels first, each group in the order dropped (no sort instance in the page)
    let (mut files, runs): (Vec<_>, Vec<_>) =
        files.into_iter().partition(|f| f.name().contains("qrel"));
    files.extend(runs);
    state.cancel.set(false);
    state.fold_messages();
    // a file that brought models already: asked whether it replaces them or
    // adds more (never "name (2)" without asking)
    let replacing: Vec<String> = if state.example_loaded.get_untracked() {
        Vec::new()
    } else {
        files
            .iter()
            .map(|f| f.name())
            .filter(|name| {
                let models = state.ws.with_untracked(|w| {
                    w.origins.iter().filter(|o| &o.0 == name).map(|o| o.2.as_str()).collect::<Vec<_>>().join(", ")
                });
                !models.is_empty()
                    && window()
                        .confirm_with_message(&format!("{name} is loaded already (models: {models}).\n\nOK replaces them with this file's; Cancel adds this file's models beside them."))
                        .unwrap_or(false)
            })
            .collect()
    };
    REPLACING.with(|r| *r.borrow_mut() = replacing);
    let total: u64 = files.iter().map(|f| f.size() as u64).sum();
    // per file: (name, bytes read, rows parsed, still parsing)
    type Meter = Vec<(String, u64, u64, bool)>;
    let meter: std::rc::Rc<std::cell::RefCell<Meter>> = std::rc::Rc::new(std::cell::RefCell::new(
        files.iter().map(|f| (f.name(), 0, 0, false)).collect(),
    ));
    let show = {
        let meter = meter.clone();
        move || {
            let m = meter.borrow();
            let file = m
                .iter()
                .filter(|f| f.3)
                .map(|f| f.0.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            state.progress.set(Some(Progress {
                file,
                bytes: m.iter().map(|f| f.1).sum(),
                total,
                rows: m.iter().map(|f| f.2).sum(),
            }))
        }
    };
    // a file other than qrels waits until the one of its kind before it is
    // merged: only the small qrels parse next to a run
    let is_qrels: Vec<bool> = files.iter().map(|f| f.name().contains("qrel")).collect();
    let (mut merged_tx, mut merged_rx) = (Vec::new(), Vec::new());
    for _ in &files {
        let (tx, rx) = futures::channel::oneshot::channel::<()>();
        merged_tx.push(Some(tx));
        merged_rx.push(Some(rx));
    }
    let jobs = files.into_iter().enumerate().map(|(i, file)| {
        let (meter, show) = (meter.clone(), show.clone());
        let before = (!is_qrels[i])
            .then(|| (0..i).rev().find(|&j| !is_qrels[j]))
            .flatten()
            .and_then(|j| merged_rx[j].take());
        async move {
            if let Some(before) = before {
                let _ = before.await;
            }
            if state.cancel.get_untracked() {
                return (file, Step::Skipped);
            }
            let name = file.name();
            if is_session_file(&file).await {
                // session content replaces the workspace only from a file
                // named as a session (or Import session…), never from a
                // data file that merely starts like one
                if is_session_name(&name) {
                    return (file, Step::Session);
                }
                let refused = LoadError::single(
                    &name,
                    1,
                    0,
                    "a data file",
                    "a Rankscope session's first line",
                    Some("A saved session is restored only from a .rankscope file or with Share ▸ Import session…; nothing was replaced.".into()),
                );
                return (file, Step::Parsed(worker::Ended::Loaded(Err(refused))));
            }
            meter.borrow_mut()[i].3 = true;
            show();
            super::util::mark(&format!("rankscope:start:{name}"));
            let progress = {
                let (meter, show) = (meter.clone(), show.clone());
                move |b, r| {
                    let mut m = meter.borrow_mut();
                    (m[i].1, m[i].2) = (b, r);
                    drop(m);
                    show()
                }
            };
            let ended = worker::parse_file(&file, &LoadOptions::default(), progress).await;
            super::util::mark(&format!("rankscope:parsed:{name}"));
            let mut m = meter.borrow_mut();
            (m[i].1, m[i].3) = (file.size() as u64, false);
            drop(m);
            show();
            (file, Step::Parsed(ended))
        }
    });
    // outcomes come in file order, so a run is merged after its qrels
    let mut parsed = futures::stream::iter(jobs).buffered(2);
    let mut index = 0;
    let mut judgments = false;
    let mut notes = Notes::default();
    while let Some((file, ended)) = parsed.next().await {
        match ended {
            // a file parsed before Cancel is kept; the cancelled one says so
            Step::Parsed(ended) => {
                if !merge(state, Source::File(file), ended, &mut judgments, &mut notes) {
                    break;
                }
            }
            Step::Session if !state.cancel.get_untracked() => import_session(state, file).await,
            Step::Session | Step::Skipped => break,
        }
        if let Some(tx) = merged_tx[index].take() {
            let _ = tx.send(());
        }
        index += 1;
    }
    drop(parsed);
    state.progress.set(None);
    notes.say(state);
    // said once the whole drop is in (its runs come after its qrels)
    if judgments
        && state
            .ws
            .with_untracked(|w| w.ranking.as_ref().is_some_and(|d| d.runs.is_empty()))
    {
        state.say(
            Level::Info,
            "No run yet",
            vec!["Drop one or more TREC runs to evaluate against these judgments.".into()],
        );
    }
}

/// What became of one file of a drop before merging.
enum Step {
    Parsed(worker::Ended),
    Session,
    /// Cancelled before it started.
    Skipped,
}

/// What the files of one drop said as they merged, said once for the drop
/// ([`Notes::say`]): a line per file (its format, what it holds, its
/// models), then each file's warnings.
#[derive(Default)]
pub struct Notes {
    files: Vec<String>,
    lines: Vec<String>,
    warnings: Vec<String>,
    /// A file of the drop was judgments.
    judged: bool,
}

impl Notes {
    /// One notice for the drop: `Loaded NAME`, or `Loaded N files: …`.
    pub fn say(self, state: AppState) {
        let title = match &self.files[..] {
            [] => return,
            [one] => format!("Loaded {one}"),
            all => format!("Loaded {} files", all.len()),
        };
        // a run merged before the drop's judgments has them now
        let mut warnings = self.warnings;
        if self.judged {
            warnings.retain(|w| !w.ends_with(crate::parse::NO_QRELS));
        }
        let level = if warnings.is_empty() {
            Level::Info
        } else {
            Level::Warning
        };
        let mut lines = self.lines;
        lines.extend(warnings);
        state.say(level, title, lines);
    }
}

/// Merges one parsed file into the workspace (or reports why not); false
/// when the load was cancelled. Sets `judgments` when it was qrels; what
/// it says of a file that loaded goes into `notes`.
pub fn merge(
    state: AppState,
    source: Source,
    ended: worker::Ended,
    judgments: &mut bool,
    notes: &mut Notes,
) -> bool {
    let name = match &source {
        Source::File(file) => file.name(),
        Source::Url(_, name) => name.clone(),
    };
    let outcome = match ended {
        worker::Ended::Loaded(outcome) => outcome,
        worker::Ended::Cancelled => {
            cancelled(state, &name);
            return false;
        }
        worker::Ended::Broken(why) => Err(LoadError::single(
            &name,
            0,
            0,
            "a completed load",
            why,
            Some("Drop the file again; if it keeps failing, reload the page (files are read by a Web Worker, served next to index.html).".into()),
        )),
    };
    match outcome {
        Ok(parsed) => {
            // the first file that loads replaces the bundled example; a failure keeps it
            let result = if state.example_loaded.get_untracked() {
                let mut fresh = crate::parse::Workspace::default();
                let added = fresh.add(&name, parsed);
                if added.is_ok() {
                    state.ws.set(fresh);
                    state.example_loaded.set(false);
                    state.hidden.set(Vec::new());
                    state.baseline.set(None);
                }
                Some(added)
            } else {
                let again = REPLACING.with(|r| r.borrow().contains(&name));
                state.ws.try_update(|ws| {
                    if again {
                        ws.add_again(&name, parsed)
                    } else {
                        ws.add(&name, parsed)
                    }
                })
            };
            super::util::mark(&format!("rankscope:merged:{name}"));
            match result {
                Some(Ok(summary)) => {
                    *judgments |= summary.format == "qrels";
                    notes.judged |= summary.format == "qrels";
                    if summary.kind == Some(crate::core::registry::Kind::Multiclass) {
                        MATRICES.with(|m| m.borrow_mut().push((name.clone(), source.clone())));
                    }
                    let mut line = format!(
                        "{name}: read as {}: {}",
                        summary.format,
                        summary.details.join("; ")
                    );
                    if !summary.models_added.is_empty() {
                        line += &format!("; models: {}", summary.models_added.join(", "));
                    }
                    notes.lines.push(line);
                    (notes.warnings)
                        .extend(summary.warnings.iter().map(|w| format!("⚠ {name}: {w}")));
                    notes.files.push(name);
                    if let Some(kind) = summary.kind {
                        state.tab.set(Some(kind));
                    }
                }
                Some(Err(e)) => report_error(state, &e),
                None => {}
            }
        }
        Err(e) => report_error(state, &e),
    }
    true
}

fn cancelled(state: AppState, name: &str) {
    state.say(
        Level::Info,
        format!("Loading {name} cancelled"),
        vec!["Everything loaded before is kept.".into()],
    );
}

pub fn report_error(state: AppState, e: &LoadError) {
    let mut lines: Vec<String> = e.to_string().lines().map(str::to_string).collect();
    lines.push("Nothing already loaded was changed; fix the file and drop it again.".into());
    state.say(
        Level::Error,
        format!(
            "{} could not be loaded ({} problem{})",
            e.file,
            e.count(),
            if e.count() == 1 { "" } else { "s" }
        ),
        lines,
    );
}

thread_local! {
    /// Whether the page has warmed up on the example ([`super::warm`]).
    static WARMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Loads the bundled example: generated and parsed in a worker, merged here.
pub fn load_example(state: AppState) {
    leptos::task::spawn_local(async move {
        let files = match worker::example().await {
            Ok(files) => files,
            Err(why) => {
                state.say(Level::Error, "The example could not be loaded", vec![why]);
                return;
            }
        };
        let mut ws = crate::parse::Workspace::default();
        for (name, outcome) in files {
            if let Err(e) = outcome.and_then(|parsed| ws.add(&name, parsed)) {
                report_error(state, &e);
            }
        }
        // the page's hot code, once, after the first render and before a
        // person's first drop
        if !WARMED.replace(true) {
            let example = ws.clone();
            super::util::later(1000, move || super::warm::warm_up(example));
        }
        state.ws.set(ws);
        state.hidden.set(Vec::new());
        state.baseline.set(None);
        state.example_loaded.set(true);
    });
}

// ---------------------------------------------------------------- saved sessions

/// Whether a dropped file is a saved session (its first line).
pub async fn is_session_file(file: &web_sys::File) -> bool {
    let Ok(head) = file.slice_with_i32_and_i32(0, session::SESSION_MAGIC.len() as i32) else {
        return false;
    };
    match JsFuture::from(head.array_buffer()).await {
        Ok(buffer) => session::is_session(&js_sys::Uint8Array::new(&buffer).to_vec()),
        Err(_) => false,
    }
}

/// Whether a file's name says it is a saved session (`.rankscope`).
pub fn is_session_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".rankscope")
}

/// Whether the workspace holds data a person loaded (not the bundled
/// example): replacing it needs their word.
fn holds_own_data(state: AppState) -> bool {
    !state.example_loaded.get_untracked()
        && state.ws.with_untracked(|w| {
            !w.datasets().is_empty()
                || !w.precomputed.is_empty()
                || !w.relations.is_empty()
                || !w.files.is_empty()
        })
}

/// Replaces the workspace and the view with a saved session's, once the
/// person agrees when their own data is loaded; a damaged session, or a
/// "no", changes nothing.
pub async fn import_session(state: AppState, file: web_sys::File) {
    let name = file.name();
    let bytes = match JsFuture::from(file.array_buffer()).await {
        Ok(buffer) => js_sys::Uint8Array::new(&buffer).to_vec(),
        Err(e) => {
            state.say(
                Level::Error,
                format!("{name} could not be read"),
                vec![super::util::js_text(&e)],
            );
            return;
        }
    };
    match session::decode_session(&bytes) {
        Ok((mut ws, view, skipped)) => {
            if holds_own_data(state) {
                let loaded = state.ws.with_untracked(|w| {
                    w.datasets()
                        .iter()
                        .map(|d| d.model_names().len())
                        .sum::<usize>()
                });
                let question = format!(
                    "Replace what is loaded ({}) and the view with the session {name}?\n\nCancel keeps everything as it is.",
                    crate::parse::error::count(loaded, "model")
                );
                let yes = web_sys::window()
                    .and_then(|w| w.confirm_with_message(&question).ok())
                    .unwrap_or(false);
                if !yes {
                    state.say(
                        Level::Info,
                        format!("Session {name} not restored"),
                        vec!["Nothing loaded was changed.".into()],
                    );
                    return;
                }
            }
            let models: usize = ws.datasets().iter().map(|d| d.model_names().len()).sum();
            ws.files = vec![name.clone()];
            state.ws.set(ws);
            state.example_loaded.set(false);
            state.url_files.set(Vec::new());
            state.apply(&view);
            let mut lines = vec![format!(
                "{models} models and the view they were shown in; what was loaded before was replaced."
            )];
            lines.extend(skipped);
            state.say(Level::Info, format!("Session {name} restored"), lines);
        }
        Err(why) => state.say(
            Level::Error,
            format!("{name} could not be restored"),
            vec![why, "Nothing already loaded was changed.".into()],
        ),
    }
}
