//! Loading dropped files: each is parsed in a Web Worker ([`super::worker`])
//! with progress and Cancel, then merged into the workspace only on success.

use leptos::prelude::*;

use super::state::{AppState, Level, Progress};
use super::worker;
use crate::parse::{LoadError, LoadOptions};

thread_local! {
    /// Dropped multi-class files, kept as `File` handles (no bytes are held):
    /// a one-vs-rest view reads them again for one class.
    pub static MATRICES: std::cell::RefCell<Vec<(String, web_sys::File)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The dropped multi-class files (their handles) whose models are still loaded.
pub fn matrices(state: AppState) -> Vec<web_sys::File> {
    let loaded: Vec<String> = state.ws.with_untracked(|w| {
        w.multiclass
            .as_ref()
            .map(|d| d.models.iter().map(|m| m.name.clone()).collect())
            .unwrap_or_default()
    });
    MATRICES.with(|m| {
        m.borrow()
            .iter()
            .filter(|(name, _)| loaded.contains(&crate::parse::model_name_from_file(name)))
            .map(|(_, f)| f.clone())
            .collect()
    })
}

/// Loads files one after another: sessions as they come, the rest parsed in a
/// worker and merged in order, qrels before runs, so a run finds its
/// judgments. Progress sums the bytes and rows of the whole drop. (Two workers
/// at once load a 10M-line run and its qrels 10 % sooner on this 2-core
/// machine but hold both parsed files at once, +0.5 GB: one at a time keeps the
/// tab's memory down.)
pub async fn load_files(state: AppState, mut files: Vec<web_sys::File>) {
    files.sort_by_key(|f| if f.name().contains("qrel") { 0 } else { 1 });
    state.cancel.set(false);
    let total: u64 = files.iter().map(|f| f.size() as u64).sum();
    let (mut done_bytes, mut done_rows) = (0u64, 0u64);
    for file in files {
        if state.cancel.get_untracked() {
            break;
        }
        if super::share::is_session_file(&file).await {
            super::share::import_session(state, file).await;
            continue;
        }
        let name = file.name();
        let (before_bytes, before_rows) = (done_bytes, done_rows);
        let label = name.clone();
        let show = move |bytes: u64, rows: u64| {
            state.progress.set(Some(Progress {
                file: label.clone(),
                bytes: before_bytes + bytes,
                total,
                rows: before_rows + rows,
            }))
        };
        show(0, 0);
        let rows = std::rc::Rc::new(std::cell::Cell::new(0u64));
        let counted = rows.clone();
        super::util::mark(&format!("rankscope:start:{name}"));
        let ended = worker::parse_file(&file, &LoadOptions::default(), move |b, r| {
            counted.set(r);
            show(b, r)
        })
        .await;
        super::util::mark(&format!("rankscope:parsed:{name}"));
        done_bytes += file.size() as u64;
        done_rows += rows.get();
        if !merge(state, file, ended) {
            break;
        }
    }
    state.progress.set(None);
}

/// Merges one parsed file into the workspace (or reports why not); false
/// when the load was cancelled.
fn merge(state: AppState, file: web_sys::File, ended: worker::Ended) -> bool {
    let name = file.name();
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
                state.ws.try_update(|ws| ws.add(&name, parsed))
            };
            super::util::mark(&format!("rankscope:merged:{name}"));
            match result {
                Some(Ok(summary)) => {
                    if summary.kind == Some(crate::core::registry::Kind::Multiclass) {
                        MATRICES.with(|m| m.borrow_mut().push((name.clone(), file.clone())));
                    }
                    let mut lines = vec![format!(
                        "Read as {}: {}",
                        summary.format,
                        summary.details.join("; ")
                    )];
                    if !summary.models_added.is_empty() {
                        lines.push(format!("Models: {}", summary.models_added.join(", ")));
                    }
                    lines.extend(summary.warnings.iter().map(|w| format!("⚠ {w}")));
                    let level = if summary.warnings.is_empty() {
                        Level::Info
                    } else {
                        Level::Warning
                    };
                    state.say(level, format!("Loaded {name}"), lines);
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
        state.ws.set(ws);
        state.hidden.set(Vec::new());
        state.baseline.set(None);
        state.example_loaded.set(true);
    });
}
