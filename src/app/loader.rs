//! Reading dropped files in chunks (`Blob.slice`), feeding the incremental
//! parser, reporting progress, and merging into the workspace only on success.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::state::{AppState, Level, Progress};
use super::worker;
use crate::parse::{LoadError, LoadOptions, Parser};

/// 4 MiB: large enough for parse speed, small enough for >= 4 progress updates a second.
const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;

/// Loads files one after another (qrels before runs, so a run finds its judgments).
pub async fn load_files(state: AppState, mut files: Vec<web_sys::File>) {
    if state.example_loaded.get_untracked() {
        state.ws.set(Default::default());
        state.example_loaded.set(false);
        state.hidden.set(Vec::new());
        state.baseline.set(None);
    }
    files.sort_by_key(|f| if f.name().contains("qrel") { 0 } else { 1 });
    state.cancel.set(false);
    for file in files {
        if state.cancel.get_untracked() {
            break;
        }
        load_one(state, file).await;
    }
    state.progress.set(None);
}

async fn load_one(state: AppState, file: web_sys::File) {
    let name = file.name();
    let total = file.size() as u64;
    let label = name.clone();
    let show = move |bytes: u64, rows: u64| {
        state.progress.set(Some(Progress {
            file: label.clone(),
            bytes,
            total,
            rows,
        }))
    };
    show(0, 0);
    super::util::mark(&format!("rankscope:start:{name}"));
    let options = LoadOptions::default();
    let outcome = match worker::parse_file(&file, &options, show.clone()).await {
        Some(worker::Ended::Loaded(outcome)) => outcome,
        Some(worker::Ended::Cancelled) => return cancelled(state, &name),
        Some(worker::Ended::Broken(why)) => Err(LoadError::single(
            &name,
            0,
            0,
            "a completed load",
            why,
            Some("Drop the file again; if it keeps failing, reload the page.".into()),
        )),
        // no worker here (e.g. opened from file://): parse on the page, chunk by chunk
        None => match parse_here(state, &file, options, show).await {
            Some(outcome) => outcome,
            None => return cancelled(state, &name),
        },
    };
    super::util::mark(&format!("rankscope:parsed:{name}"));
    match outcome {
        Ok(parsed) => {
            let result = state.ws.try_update(|ws| ws.add(&name, parsed));
            super::util::mark(&format!("rankscope:merged:{name}"));
            match result {
                Some(Ok(summary)) => {
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
}

fn cancelled(state: AppState, name: &str) {
    state.say(
        Level::Info,
        format!("Loading {name} cancelled"),
        vec!["Everything loaded before is kept.".into()],
    );
}

/// The fallback without a worker: 4 MiB slices read asynchronously, parsed
/// between event-loop turns. `None` when cancelled.
async fn parse_here(
    state: AppState,
    file: &web_sys::File,
    options: LoadOptions,
    mut show: impl FnMut(u64, u64),
) -> Option<Result<crate::parse::Parsed, LoadError>> {
    let name = file.name();
    let total = file.size();
    let mut parser = Parser::new(&name, options);
    let mut offset = 0.0;
    while offset < total {
        if state.cancel.get_untracked() {
            return None;
        }
        let end = (offset + CHUNK).min(total);
        match read_slice(file, offset, end).await {
            Ok(bytes) => parser.feed(&bytes),
            Err(msg) => {
                return Some(Err(LoadError::single(
                    &name,
                    0,
                    0,
                    "a readable file",
                    format!("the browser could not read it ({msg})"),
                    None,
                )))
            }
        }
        offset = end;
        show(offset as u64, parser.rows_parsed());
    }
    Some(parser.finish())
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

async fn read_slice(file: &web_sys::File, start: f64, end: f64) -> Result<Vec<u8>, String> {
    let blob = file
        .slice_with_f64_and_f64(start, end)
        .map_err(|e| format!("{e:?}"))?;
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| format!("{e:?}"))?;
    let buffer: js_sys::ArrayBuffer = buffer
        .dyn_into()
        .map_err(|_| "not an ArrayBuffer".to_string())?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Loads the bundled example (a few hundred KB, parsed synchronously).
pub fn load_example(state: AppState) {
    let mut ws = crate::parse::Workspace::default();
    for (name, bytes) in crate::example::example_files() {
        if let Err(e) = ws.load_bytes(&name, &bytes, &LoadOptions::default()) {
            report_error(state, &e);
        }
    }
    state.ws.set(ws);
    state.hidden.set(Vec::new());
    state.baseline.set(None);
    state.example_loaded.set(true);
    state.tab.set(Some(crate::core::registry::Kind::Ranking));
}
