//! Parsing off the main thread: a dedicated Web Worker runs the same wasm
//! parser on the dropped file and hands back the compact parsed form.
//!
//! Protocol (structured-clone messages):
//! - worker -> page `{type: "ready"}` once its wasm is running;
//! - page -> worker `{file: Blob, name: string, format: string?, positive: string?}`;
//! - worker -> page `{type: "progress", bytes, rows}` at most every 100 ms;
//! - worker -> page `{type: "done", data: Uint8Array}`: [`transfer::encode`] of
//!   the outcome (parsed columns or the load errors), its buffer transferred, not copied.
//!
//! - page -> worker `{type: "compare", data: Uint8Array}`: a
//!   [`crate::compare::page::Request`] as [`crate::compare::page::ask`] writes it; the worker posts progress (`bytes`:
//!   steps done, `rows`: steps in all) and `{type: "done", cells: Float64Array,
//!   html: string}` ([`crate::compare::page::answer`]).
//!
//! One worker per file: terminating it is how Cancel stops a load, and it gives
//! the parser's memory back at once. The bundled example is generated and parsed
//! in a worker too (`{example: true}`), so the page's own wasm carries no parser.

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::binary::BinaryCurve;
use crate::core::raw::{Column, Side};
use crate::parse::split::{self, Part, PartEnd};
use crate::parse::transfer::{self, Outcome};
use crate::parse::{parse_bytes, Format, LoadError, LoadOptions, Parsed, Parser};

/// Bytes fed to the parser per step inside the worker: small enough that the
/// stream keeps reading ahead while the parser works (8 MiB steps left it
/// waiting: a 1.1 GB matrix took 6.9 s, 4.3 s in 1 MiB steps; 256 KiB gained nothing).
const CHUNK: f64 = 1024.0 * 1024.0;
/// The worker's loader script, next to index.html (built by Trunk from `rankscope-worker`).
pub const SCRIPT: &str = "./rankscope-worker_loader.js";

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn message(kind: &str, fields: &[(&str, JsValue)]) -> Object {
    let m = Object::new();
    let _ = Reflect::set(&m, &"type".into(), &kind.into());
    for (k, v) in fields {
        let _ = Reflect::set(&m, &JsValue::from_str(k), v);
    }
    m
}

// ---------------------------------------------------------------- worker side

/// Entry point of the worker binary.
pub fn worker_main() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let data = e.data();
            if get(&data, "type").as_string().as_deref() == Some("compare") {
                answer_compare(&reply, &data);
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("relations") {
                answer_relations(&reply, &data);
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("diagnose") {
                let msg = match answer_diagnose(&data) {
                    Ok(html) => message("done", &[("html", html.into())]),
                    Err(why) => message("failed", &[("why", why.into())]),
                };
                let _ = reply.post_message(&msg);
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("values") {
                let [top, bottom, compare] = answer_values(&data);
                let msg = message(
                    "done",
                    &[
                        ("top", top.into()),
                        ("bottom", bottom.into()),
                        ("compare", compare.into()),
                    ],
                );
                let _ = reply.post_message(&msg);
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("warm") {
                warm_up();
                // for the end-to-end tests: this spare met its job warm
                let _ = Reflect::set(&js_sys::global(), &"rankscopeWarmedUp".into(), &true.into());
                return;
            }
            if get(&data, "example").as_bool() == Some(true) {
                // `only`: the file names wanted (a one-vs-rest re-read asks for the matrices)
                let only: Option<Vec<String>> = get(&data, "only")
                    .dyn_into::<js_sys::Array>()
                    .ok()
                    .map(|a| a.iter().filter_map(|v| v.as_string()).collect());
                let options = options_of(&data);
                let files: Vec<(String, Outcome)> = crate::example::example_files()
                    .into_iter()
                    .filter(|(name, _)| only.as_ref().is_none_or(|o| o.contains(name)))
                    .map(|(name, bytes)| {
                        let outcome = parse_bytes(&name, &bytes, &options);
                        (name, outcome)
                    })
                    .collect();
                let bytes = transfer::encode_many(&files);
                let array = Uint8Array::from(&bytes[..]);
                let msg = message("done", &[("data", array.clone().into())]);
                let _ =
                    reply.post_message_with_transfer(&msg, &js_sys::Array::of1(&array.buffer()));
                return;
            }
            let reply = reply.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let name = get(&data, "name").as_string().unwrap_or_default();
                let t0 = js_sys::Date::now();
                let part = get(&data, "part")
                    .as_string()
                    .and_then(|p| Part::from_id(&p))
                    .unwrap_or(Part::Whole);
                let (
                    PartEnd {
                        outcome,
                        split,
                        lines,
                    },
                    read_ms,
                ) = match (
                    get(&data, "file").dyn_into::<web_sys::Blob>(),
                    get(&data, "url").as_string(),
                ) {
                    (Ok(blob), _) => {
                        parse_blob(&reply, &blob, &name, options_of(&data), part).await
                    }
                    (_, Some(url)) => (load_url(&reply, &url, &name, options_of(&data)).await, 0.0),
                    _ => (
                        PartEnd {
                            outcome: Err(LoadError::single(
                                &name,
                                0,
                                0,
                                "a file",
                                "no file in the request",
                                None,
                            )),
                            split: false,
                            lines: 0,
                        },
                        0.0,
                    ),
                };
                let t1 = js_sys::Date::now();
                // a binary file's curves are sorted or counted here, next to the other part's
                // worker when the file was split, not on the page
                let curves = curves_of(&outcome);
                let t2 = js_sys::Date::now();
                // big columns go straight into their own ArrayBuffers, the rest into one
                // small block; a per-query values file as its models' values, one by one
                let side = JsSide::default();
                let many = transfer::encode_per_query(&outcome);
                let per_query = many.is_some();
                let bytes = many
                    .unwrap_or_else(|| transfer::encode_with(&outcome, Box::new(side.clone())).0);
                drop(outcome);
                let array = Uint8Array::from(&bytes[..]);
                drop(bytes);
                let (block, _) = transfer::encode_curves_with(&curves, Box::new(side.clone()));
                drop(curves);
                let curves = Uint8Array::from(&block[..]);
                drop(block);
                let columns = js_sys::Array::new();
                for c in side.columns.borrow().iter() {
                    columns.push(c);
                }
                let t3 = js_sys::Date::now();
                let msg = message(
                    "done",
                    &[
                        ("data", array.clone().into()),
                        ("curves", curves.clone().into()),
                        ("columns", columns.clone().into()),
                        ("parse_ms", (t1 - t0).into()),
                        ("curves_ms", (t2 - t1).into()),
                        ("encode_ms", (t3 - t2).into()),
                        ("read_ms", read_ms.into()),
                        // when the job began and ended here (ms since the epoch: the
                        // benchmark places the worker's stages on the page's timeline)
                        ("began_at", t0.into()),
                        ("posted_at", js_sys::Date::now().into()),
                        ("split", split.into()),
                        ("lines", (lines as f64).into()),
                        ("per_query", per_query.into()),
                    ],
                );
                let transfer = js_sys::Array::of2(&array.buffer(), &curves.buffer());
                for c in columns.iter() {
                    transfer.push(&c.unchecked_into::<Uint8Array>().buffer());
                }
                let _ = reply.post_message_with_transfer(&msg, &transfer);
            });
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&message("ready", &[]));
}

/// Runs the page's significance tests (off the page: its wasm holds none).
fn answer_compare(reply: &web_sys::DedicatedWorkerGlobalScope, data: &JsValue) {
    use crate::compare::page;
    let bytes = get(data, "data")
        .dyn_into::<Uint8Array>()
        .map(|a| a.to_vec())
        .unwrap_or_default();
    // binary models: ROC AUC by DeLong's test, at once; else the paired tests
    let answer = if get(data, "auc").as_bool() == Some(true) {
        page::AucRequest::decode(&bytes).map(|r| r.answer())
    } else {
        page::Request::decode(&bytes).map(|request| {
            let mut last = 0.0;
            page::answer(&request, &mut |done, total| {
                let now = js_sys::Date::now();
                if now - last >= 100.0 {
                    last = now;
                    let _ = reply.post_message(&message(
                        "progress",
                        &[("bytes", done.into()), ("rows", total.into())],
                    ));
                }
            })
        })
    };
    let msg = match answer {
        Some(answer) => {
            let cells = js_sys::Float64Array::from(&answer.cells[..]);
            message(
                "done",
                &[("cells", cells.into()), ("html", answer.html.into())],
            )
        }
        None => message("failed", &[("why", "the test request is damaged".into())]),
    };
    let _ = reply.post_message(&msg);
}

/// The Diagnostics panel ([`crate::diagnose::html`]) of the request's
/// curves: each model as `[name, colour, thresholds, tps, fps]` (the
/// columns as little-endian bytes), the options' text, the score scale,
/// the threshold rule and the score axis.
fn answer_diagnose(data: &JsValue) -> Result<String, String> {
    use crate::core::binary::BinaryCurve;
    use crate::core::Named;
    use crate::diagnose::{self, html};
    let bytes = |v: JsValue| {
        v.dyn_into::<Uint8Array>()
            .map(|a| a.to_vec())
            .unwrap_or_default()
    };
    let mut curves = Vec::new();
    let mut colors = Vec::new();
    for entry in js_sys::Array::from(&get(data, "curves")).iter() {
        let entry = js_sys::Array::from(&entry);
        let column = |i: u32| -> Vec<u8> { bytes(entry.get(i)) };
        let (t, tp, fp) = (column(2), column(3), column(4));
        let curve = BinaryCurve::from_parts(
            bytemuck::pod_collect_to_vec(&t[..t.len() / 8 * 8]),
            bytemuck::pod_collect_to_vec(&tp[..tp.len() / 8 * 8]),
            bytemuck::pod_collect_to_vec(&fp[..fp.len() / 8 * 8]),
        )?;
        curves.push((
            entry.get(0).as_string().unwrap_or_default(),
            std::sync::Arc::new(curve),
        ));
        colors.push(entry.get(1).as_f64().unwrap_or(0.0) as usize);
    }
    let mut options =
        diagnose::Options::from_text(&get(data, "options").as_string().unwrap_or_default());
    options.logits = get(data, "logits").as_bool().unwrap_or(false);
    options.rule = crate::core::binary::ThresholdRule::named(
        &get(data, "rule").as_string().unwrap_or_default(),
    )
    .unwrap_or(crate::core::binary::ThresholdRule::AtLeast);
    let (lo, hi) = (
        get(data, "lo").as_f64().unwrap_or(0.0),
        get(data, "hi").as_f64().unwrap_or(1.0),
    );
    let at = get(data, "at")
        .as_f64()
        .filter(|a| (0.0..=1.0).contains(a))
        .unwrap_or(0.0);
    let models = diagnose::binary(&curves, &options);
    let groups = diagnose::groups(&curves, &models, &options);
    Ok(html::panel(&html::View {
        curves: &curves,
        colors: &colors,
        models: &models,
        groups: &groups,
        options: &options,
        range: (lo, hi),
        at,
    }))
}

/// The panel of values computed elsewhere ([`crate::values::panel`]) of
/// the request's files (a block of [`transfer::encode_many`], each a
/// `Measures`), measure and filter; its Compare view when `alone`, under
/// the tests' settings and baseline of the request's `view` (a link's
/// fragment).
fn answer_values(data: &JsValue) -> [String; 3] {
    let bytes = get(data, "files")
        .dyn_into::<Uint8Array>()
        .map(|a| a.to_vec())
        .unwrap_or_default();
    let files: Vec<crate::parse::Precomputed> = transfer::decode_many(&bytes)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(_, outcome)| match outcome.map(|p| p.into_parts().0) {
            Ok(Parsed::Measures(p)) => Some(p),
            _ => None,
        })
        .collect();
    let text = |key: &str| get(data, key).as_string().unwrap_or_default();
    let (view, _) = crate::session::ViewState::from_fragment(&text("view"));
    let alone = get(data, "alone").as_bool() == Some(true);
    crate::values::panel(&crate::values::View {
        files: &files,
        measure: &text("measure"),
        filter: &text("filter"),
        compare: alone.then_some((view.baseline.as_deref(), &view.tests)),
    })
}

/// Evaluates the relation files of the request's workspace (a session's
/// bytes) against its runs with
/// `rankscope trec_eval` ([`crate::trec_eval::relations::evaluate`]), and
/// answers with one outcome per (file, run) pair: its values, or what
/// trec_eval said.
fn answer_relations(reply: &web_sys::DedicatedWorkerGlobalScope, data: &JsValue) {
    use crate::core::Named;
    let bytes = get(data, "data")
        .dyn_into::<Uint8Array>()
        .map(|a| a.to_vec())
        .unwrap_or_default();
    let version = get(data, "version")
        .as_string()
        .and_then(|v| crate::core::ranking_metrics::TrecEvalVersion::named(&v))
        .unwrap_or_default();
    let msg = match crate::session::decode_session(&bytes) {
        Ok((ws, _, _)) => {
            let outcomes: Vec<(String, Outcome)> =
                crate::trec_eval::relations::evaluate(&ws.to_files(), version)
                    .into_iter()
                    .map(|(name, result)| {
                        let outcome = result.map(|e| Parsed::Measures(e.values)).map_err(|why| {
                            LoadError::single(
                                &name,
                                0,
                                0,
                                "trec_eval to evaluate it",
                                why.trim_end().to_string(),
                                None,
                            )
                        });
                        (name, outcome)
                    })
                    .collect();
            let array = Uint8Array::from(&transfer::encode_many(&outcomes)[..]);
            message("done", &[("data", array.into())])
        }
        Err(why) => message("failed", &[("why", why.into())]),
    };
    let _ = reply.post_message(&msg);
}

/// Runs a spare worker's hot code once on small files made up for it
/// ([`crate::example::warm_up_files`]: parse, curve, encode), before any job.
/// A browser first runs wasm through its baseline compiler and optimises a
/// function only after it has run for a while, and only for its later calls:
/// a loop run once over a job's 5M rows (the curve's counting) stayed in
/// baseline code the whole way, and so did a 4M-line qrels' grouping (in the
/// parser's finish). Warmed up, the spare's first job starts in optimised code.
fn warm_up() {
    for (name, text) in crate::example::warm_up_files() {
        let outcome = parse_bytes(name, &text, &LoadOptions::default());
        std::hint::black_box(curves_of(&outcome));
        std::hint::black_box(transfer::encode_with(
            &outcome,
            Box::new(transfer::VecSide::default()),
        ));
    }
}

/// A binary file's curves ([`BinaryCurve::new`]), one per model. Never
/// inlined: the warm-up and the job call this one function, so the code
/// the browser optimises during the warm-up (the counting loop, run once
/// per call) is the code the job runs.
#[inline(never)]
fn curves_of(outcome: &Outcome) -> Vec<BinaryCurve> {
    match outcome.as_ref().map(Parsed::data) {
        Ok(Parsed::Binary(b)) => b
            .models
            .iter()
            .map(|(_, scores)| BinaryCurve::new(&b.labels, scores))
            .collect(),
        _ => Vec::new(),
    }
}

/// The side channel of the transfer ([`crate::core::raw::Side`]): on the
/// worker each big column is copied once, from wasm memory into its own
/// `ArrayBuffer`, which is then transferred (not copied) to the page; on the
/// page each is copied once, straight into its final column. With `room`,
/// score columns are read with room for as many rows again (the part of a split
/// file that answers first, which the other part's rows then join in place).
#[derive(Clone, Default)]
struct JsSide {
    columns: std::rc::Rc<std::cell::RefCell<Vec<Uint8Array>>>,
    room: bool,
}

/// Appends the typed array `a` to `v`, which has room for it: copied once
/// into the spare capacity, no zero fill first (80 MB for 10M scores).
fn append(a: &js_sys::Float64Array, v: &mut Vec<f64>) {
    let (at, n) = (v.len(), a.length() as usize);
    v.reserve(n);
    a.copy_to_uninit(&mut v.spare_capacity_mut()[..n]);
    // SAFETY: copy_to_uninit has initialised the n values after `at`
    // (it panics unless the lengths are equal, which they are)
    unsafe { v.set_len(at + n) };
}

impl Side for JsSide {
    fn put(&mut self, bytes: &[u8]) -> u32 {
        let mut arrays = self.columns.borrow_mut();
        arrays.push(Uint8Array::from(bytes));
        arrays.len() as u32 - 1
    }
    fn len(&self, index: u32) -> Option<usize> {
        self.columns
            .borrow()
            .get(index as usize)
            .map(|a| a.length() as usize)
    }
    fn take(&mut self, index: u32, out: &mut [u8]) -> bool {
        match self.columns.borrow().get(index as usize) {
            Some(a) if a.length() as usize == out.len() => {
                a.copy_to(out);
                release(&a.buffer());
                true
            }
            _ => false,
        }
    }
    fn append_f64(&mut self, index: u32, out: &mut Vec<f64>) -> bool {
        let arrays = self.columns.borrow();
        let Some(a) = arrays.get(index as usize) else {
            return false;
        };
        let (offset, bytes) = (a.byte_offset(), a.length());
        if bytes % 8 != 0 {
            return false;
        }
        // a typed view needs an aligned start: a column that has none (never
        // one a worker transferred) is read from an aligned copy
        let (buffer, offset) = match offset % 8 {
            0 => (a.buffer(), offset),
            _ => (a.slice(0, bytes).buffer(), 0),
        };
        let typed =
            js_sys::Float64Array::new_with_byte_offset_and_length(&buffer, offset, bytes / 8);
        append(&typed, out);
        release(&a.buffer());
        true
    }
    /// Reads the column through a typed view of its buffer (`to_vec` fills a
    /// fresh vector once; the byte path would zero it first, 10M rows at a time).
    fn take_typed(&mut self, index: u32, kind: Column) -> Option<Column> {
        let arrays = self.columns.borrow();
        let a = arrays.get(index as usize)?;
        let (buffer, offset, bytes) = (a.buffer(), a.byte_offset(), a.length());
        let view = |size: u32| (offset % size == 0 && bytes % size == 0).then_some(bytes / size);
        let column = match kind {
            Column::F64(_) => {
                let a = js_sys::Float64Array::new_with_byte_offset_and_length(
                    &buffer,
                    offset,
                    view(8)?,
                );
                // the first part of a split file: room for the other part's
                // rows (about as many), which `raw::Joined` then reads in place
                if self.room {
                    let n = a.length() as usize;
                    let mut v = Vec::with_capacity(n + n + n / 32);
                    append(&a, &mut v);
                    Column::F64(v)
                } else {
                    Column::F64(a.to_vec())
                }
            }
            Column::U64(_) => Column::U64(
                js_sys::BigUint64Array::new_with_byte_offset_and_length(&buffer, offset, view(8)?)
                    .to_vec(),
            ),
            Column::U32(_) => Column::U32(
                js_sys::Uint32Array::new_with_byte_offset_and_length(&buffer, offset, view(4)?)
                    .to_vec(),
            ),
            Column::I32(_) => Column::I32(
                js_sys::Int32Array::new_with_byte_offset_and_length(&buffer, offset, view(4)?)
                    .to_vec(),
            ),
            Column::U8(_) => Column::U8(a.to_vec()),
        };
        release(&buffer);
        Some(column)
    }
}

/// Frees a transferred column's buffer as soon as it is copied: detaching it
/// (`ArrayBuffer.prototype.transfer(0)`) hands its memory back at once instead
/// of at the next garbage collection, which for a 10M-line run is 0.2-0.3 GB
/// the tab would otherwise hold next to the wasm columns. Without `transfer`
/// (older browsers) the collector frees it later.
fn release(buffer: &js_sys::ArrayBuffer) {
    if let Ok(transfer) = js_sys::Reflect::get(buffer, &JsValue::from_str("transfer")) {
        if let Some(transfer) = transfer.dyn_ref::<js_sys::Function>() {
            let _ = transfer.call1(buffer, &JsValue::from(0));
        }
    }
}

fn options_of(data: &JsValue) -> LoadOptions {
    LoadOptions {
        format: get(data, "format")
            .as_string()
            .and_then(|f| crate::parse::Format::from_id(&f)),
        positive_label: get(data, "positive").as_string(),
        one_vs_rest: get(data, "one_vs_rest").as_f64().map(|c| c as u32),
    }
}

/// A file read as a stream (`Blob.stream()`), from a byte reader into one
/// buffer used again and again when the browser offers one (`mode: "byob"`),
/// else chunk by chunk. Reads that follow each other continue the stream;
/// a read elsewhere (a split part's header, then its middle) opens a new one.
/// Measured on a 344 MB run in Chromium: 0.21 s, against 0.46-0.69 s for
/// `FileReaderSync` in 8 MB slices (each a fresh ArrayBuffer, read while the
/// parser waits).
pub struct BlobSource<'a> {
    blob: &'a web_sys::Blob,
    name: &'a str,
    /// Whether to ask for a byte reader (else chunks the browser allocates).
    try_byob: bool,
    /// The open reader and the file offset of its next byte.
    reader: Option<(JsValue, u64)>,
    /// The byte reader's buffer, handed back with each chunk read into it.
    byob: Option<js_sys::ArrayBuffer>,
    /// Bytes read past the last request (they start at the reader's offset).
    ahead: Vec<u8>,
    /// Time spent waiting for the browser's reads (ms, for the benchmark).
    read_ms: f64,
}

/// Bytes a byte reader may fill per read.
const STREAM_BUFFER: u32 = 1 << 20;

impl<'a> BlobSource<'a> {
    pub fn new(blob: &'a web_sys::Blob, name: &'a str) -> Self {
        BlobSource {
            blob,
            name,
            try_byob: true,
            reader: None,
            byob: None,
            ahead: Vec::new(),
            read_ms: 0.0,
        }
    }

    /// The same without a byte reader (as in a browser that has none).
    pub fn chunk_by_chunk(blob: &'a web_sys::Blob, name: &'a str) -> Self {
        let mut source = BlobSource::new(blob, name);
        source.try_byob = false;
        source
    }

    /// Whether the reads go through a byte reader (one buffer used again).
    pub fn uses_byte_reader(&self) -> bool {
        self.byob.is_some()
    }

    fn unreadable(&self, e: JsValue) -> LoadError {
        LoadError::single(
            self.name,
            0,
            0,
            "a readable file",
            format!("the browser could not read it ({e:?})"),
            None,
        )
    }

    /// A reader of the file from `start` on: a byte reader if the browser has one.
    fn open(&mut self, start: u64) -> Result<JsValue, JsValue> {
        let size = self.blob.size();
        let stream: JsValue = self
            .blob
            .slice_with_f64_and_f64(start as f64, size)?
            .stream()
            .into();
        let get_reader: js_sys::Function =
            Reflect::get(&stream, &"getReader".into())?.dyn_into()?;
        let mode = Object::new();
        Reflect::set(&mode, &"mode".into(), &"byob".into())?;
        match self.try_byob.then(|| get_reader.call1(&stream, &mode)) {
            Some(Ok(reader)) => {
                if self.byob.is_none() {
                    self.byob = Some(js_sys::ArrayBuffer::new(STREAM_BUFFER));
                }
                Ok(reader)
            }
            _ => {
                self.byob = None;
                get_reader.call0(&stream)
            }
        }
    }

    /// The next chunk of the open reader, `None` at the end of the file.
    async fn next_chunk(&mut self, reader: &JsValue) -> Result<Option<Uint8Array>, JsValue> {
        let read: js_sys::Function = Reflect::get(reader, &"read".into())?.dyn_into()?;
        let lent = self.byob.take();
        let byob = lent.is_some();
        let promise = match lent {
            Some(buffer) => read.call1(reader, &Uint8Array::new(&buffer))?,
            None => read.call0(reader)?,
        };
        let result =
            wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&promise)).await?;
        let chunk = get(&result, "value").dyn_into::<Uint8Array>().ok();
        if byob {
            // a byte reader hands its buffer back under the chunk it read
            // (a fresh one if it did not)
            let buffer = chunk.as_ref().map(|c| JsValue::from(c.buffer()));
            self.byob = Some(
                buffer
                    .and_then(|b| b.dyn_into::<js_sys::ArrayBuffer>().ok())
                    .filter(|b| b.byte_length() == STREAM_BUFFER)
                    .unwrap_or_else(|| js_sys::ArrayBuffer::new(STREAM_BUFFER)),
            );
        }
        Ok(match get(&result, "done").as_bool() {
            Some(true) => None,
            _ => chunk,
        })
    }

    async fn read_range(&mut self, start: u64, end: u64, buf: &mut Vec<u8>) -> Result<(), JsValue> {
        buf.clear();
        let want = (end - start) as usize;
        let reader = match self.reader.take() {
            Some((reader, at)) if at == start => reader,
            other => {
                if let Some((old, _)) = other {
                    cancel_reader(&old);
                }
                self.ahead.clear();
                self.open(start)?
            }
        };
        let take = want.min(self.ahead.len());
        buf.extend(self.ahead.drain(..take));
        while buf.len() < want {
            let Some(chunk) = self.next_chunk(&reader).await? else {
                return Err(JsValue::from_str("the file ended early (did it change?)"));
            };
            let (have, len) = (buf.len(), chunk.length() as usize);
            let used = len.min(want - have);
            buf.resize(have + used, 0);
            chunk.subarray(0, used as u32).copy_to(&mut buf[have..]);
            if used < len {
                self.ahead.resize(len - used, 0);
                chunk
                    .subarray(used as u32, len as u32)
                    .copy_to(&mut self.ahead);
            }
        }
        self.reader = Some((reader, end));
        Ok(())
    }
}

impl Drop for BlobSource<'_> {
    fn drop(&mut self) {
        if let Some((reader, _)) = self.reader.take() {
            cancel_reader(&reader);
        }
    }
}

/// Lets go of a stream no longer read (the browser stops reading ahead).
fn cancel_reader(reader: &JsValue) {
    if let Ok(f) = Reflect::get(reader, &"cancel".into()) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call0(reader);
        }
    }
}

impl split::Source for BlobSource<'_> {
    async fn read(&mut self, start: u64, end: u64, buf: &mut Vec<u8>) -> Result<(), LoadError> {
        let t0 = js_sys::Date::now();
        let read = self.read_range(start, end, buf).await;
        self.read_ms += js_sys::Date::now() - t0;
        read.map_err(|e| self.unreadable(e))
    }
}

/// Posts a job's progress to the page, at most every 100 ms.
struct Reporter<'a> {
    scope: &'a web_sys::DedicatedWorkerGlobalScope,
    last: f64,
}

impl<'a> Reporter<'a> {
    fn new(scope: &'a web_sys::DedicatedWorkerGlobalScope) -> Self {
        Reporter { scope, last: 0.0 }
    }

    fn report(&mut self, bytes: u64, rows: u64) {
        let now = js_sys::Date::now();
        if now - self.last >= 100.0 {
            self.last = now;
            let fields = [
                ("bytes", (bytes as f64).into()),
                ("rows", (rows as f64).into()),
            ];
            let _ = self.scope.post_message(&message("progress", &fields));
        }
    }
}

/// Parses `part` of `blob` ([`split::parse_part`]) in [`CHUNK`] steps from a
/// [`BlobSource`], progress posted at most every 100 ms. Also gives the time
/// spent waiting for the browser's reads (ms, for the benchmark).
async fn parse_blob(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    blob: &web_sys::Blob,
    name: &str,
    options: LoadOptions,
    part: Part,
) -> (PartEnd, f64) {
    let mut source = BlobSource::new(blob, name);
    let mut reporter = Reporter::new(scope);
    let mut progress = |bytes: u64, rows: u64| reporter.report(bytes, rows);
    let end = split::parse_part(
        Parser::new(name, options),
        blob.size() as u64,
        part,
        CHUNK as u64,
        &mut source,
        &mut progress,
    )
    .await;
    (end, source.read_ms)
}

/// The most bytes a URL may send (after the browser's own decompression):
/// the same as the text a gzip file may inflate to. Within it, the parser's
/// value limits apply to the rows as they come, as for a dropped file.
pub const URL_BYTES: u64 = crate::parse::INFLATED_BYTES;
/// How long a download may wait for its next bytes before it is given up.
pub const URL_STALL_MS: i32 = 30_000;

/// Resolves with `undefined` after `ms` milliseconds (a worker's timer).
fn sleep(ms: i32) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(f) = set_timeout {
            let _ = f.call2(&JsValue::NULL, &resolve, &ms.into());
        }
    })
}

/// Downloads `url` in this worker and parses it as it arrives, as a dropped
/// file is (progress posted, the parser's value limits applied to the rows
/// as they come, the whole load ended by terminating the worker): nothing is
/// held but the parsed columns. Refused at once when its Content-Length says
/// it is over [`URL_BYTES`], and when more than that arrives; given up when
/// the server sends nothing for [`URL_STALL_MS`].
async fn load_url(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    url: &str,
    name: &str,
    options: LoadOptions,
) -> PartEnd {
    let outcome = download_and_parse(scope, url, name, options).await;
    PartEnd {
        outcome,
        split: false,
        lines: 0,
    }
}

async fn download_and_parse(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    url: &str,
    name: &str,
    options: LoadOptions,
) -> Result<Parsed, LoadError> {
    use wasm_bindgen_futures::JsFuture;
    let fail = |expected: String, found: String, hint: &str| {
        LoadError::single(name, 0, 0, expected, found, Some(hint.to_string()))
    };
    let what = format!("the file at {url}");
    let network = |e: JsValue| {
        fail(
            what.clone(),
            format!("a failed download ({})", super::util::js_text(&e)),
            "Check that the server is reachable; a file on another host must allow this page to read it (CORS: Access-Control-Allow-Origin).",
        )
    };
    let fetch = Reflect::get(scope, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| network("this browser's workers cannot download".into()))?;
    let promise: js_sys::Promise = fetch
        .call1(scope, &url.into())
        .map_err(network)?
        .dyn_into()
        .map_err(network)?;
    // the server must answer (headers) within the stall time too
    let answered = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(
        &promise,
        &sleep(URL_STALL_MS),
    )))
    .await
    .map_err(network)?;
    let stalled = |stage: &str| {
        fail(
            what.clone(),
            format!("no answer for {} s {stage}", URL_STALL_MS / 1000),
            "The server is too slow or stopped sending; try again, or download the file and drop it.",
        )
    };
    let Ok(response) = answered.dyn_into::<web_sys::Response>() else {
        return Err(stalled("after the request"));
    };
    if !response.ok() {
        return Err(fail(
            what.clone(),
            format!("HTTP {} {}", response.status(), response.status_text()),
            "Check the URL; the file must be published next to the app or on a server that allows CORS.",
        ));
    }
    let length = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.trim().parse::<u64>().ok());
    let too_large = |found: String| {
        fail(
            format!(
                "a download of at most {} bytes ({})",
                crate::parse::grouped(URL_BYTES),
                crate::parse::human_bytes(URL_BYTES)
            ),
            found,
            "Download the file and evaluate it with the command-line tool (rankscope eval FILE), which has no such limit.",
        )
    };
    if let Some(n) = length.filter(|&n| n > URL_BYTES) {
        return Err(too_large(format!(
            "{} bytes (its Content-Length)",
            crate::parse::grouped(n)
        )));
    }
    let mut parser = Parser::new(name, options);
    if let Some(n) = length {
        parser.expect_size(n);
    }
    let Some(body) = response.body() else {
        return parser.finish();
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let (mut bytes, mut reporter) = (0u64, Reporter::new(scope));
    loop {
        let step = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(
            &reader.read(),
            &sleep(URL_STALL_MS),
        )))
        .await
        .map_err(network)?;
        if step.is_undefined() {
            let _ = reader.cancel();
            return Err(stalled(&format!(
                "after {} bytes",
                crate::parse::grouped(bytes)
            )));
        }
        if get(&step, "done").as_bool() == Some(true) {
            break;
        }
        let Ok(chunk) = get(&step, "value").dyn_into::<Uint8Array>() else {
            continue;
        };
        bytes += chunk.length() as u64;
        if bytes > URL_BYTES {
            let _ = reader.cancel();
            return Err(too_large(format!(
                "more: {} bytes had arrived (the server kept sending)",
                crate::parse::grouped(bytes)
            )));
        }
        parser.feed(&chunk.to_vec());
        reporter.report(bytes, parser.rows_parsed());
        if parser.stopped() {
            // refused already (too many values, a broken line): the rest is not needed
            let _ = reader.cancel();
            break;
        }
    }
    parser.finish()
}

// ------------------------------------------------------------------ page side

/// What the page hears from a worker.
pub enum Event {
    Ready,
    Progress {
        bytes: u64,
        rows: u64,
    },
    /// The worker's last message: the encoded outcome and its stage times.
    Done(JsValue),
    /// The worker could not start or died (the load fails and says why).
    Failed(String),
    Cancelled,
}

/// A running worker, the way to tell its reader it was cancelled, and an id.
type Running = (web_sys::Worker, mpsc::UnboundedSender<Event>, u64);

thread_local! {
    /// The running workers (a drop parses its qrels next to its first run).
    static RUNNING: std::cell::RefCell<Vec<Running>> = const { std::cell::RefCell::new(Vec::new()) };
    static NEXT_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The main block of a worker's answer, copied into wasm memory.
fn answer_bytes(data: &JsValue) -> Result<Vec<u8>, String> {
    get(data, "data")
        .dyn_into::<Uint8Array>()
        .map(|a| a.to_vec())
        .map_err(|_| "no data in the worker's answer".to_string())
}

/// The columns of the worker's answer, as a side channel (`room`: its
/// score columns with room for as many rows again).
fn side_of(data: &JsValue, room: bool) -> JsSide {
    let columns: Vec<Uint8Array> = get(data, "columns")
        .dyn_into::<js_sys::Array>()
        .map(|a| {
            a.iter()
                .filter_map(|c| c.dyn_into::<Uint8Array>().ok())
                .collect()
        })
        .unwrap_or_default();
    JsSide {
        columns: std::rc::Rc::new(std::cell::RefCell::new(columns)),
        room,
    }
}

/// The block of curves the worker built, if it sent one.
fn curves_block(data: &JsValue) -> Option<Vec<u8>> {
    get(data, "curves")
        .dyn_into::<Uint8Array>()
        .ok()
        .map(|c| c.to_vec())
}

/// Decodes the worker's result, with its stage times (`room`: see [`side_of`]).
fn decode(data: &JsValue, room: bool) -> (Result<Outcome, String>, Object) {
    let t0 = js_sys::Date::now();
    let bytes = match answer_bytes(data) {
        Ok(b) => b,
        Err(why) => return (Err(why), Object::new()),
    };
    if get(data, "per_query").as_bool() == Some(true) {
        return (transfer::decode_per_query(&bytes), times_of(data, t0));
    }
    let side = side_of(data, room);
    let mut decoded = transfer::decode_with(&bytes, Box::new(side.clone()));
    // the curves the worker built, their columns after the file's
    if let (Ok(outcome), Some(curves)) = (&mut decoded, curves_block(data)) {
        if let Err(why) = transfer::attach_curves_with(outcome, &curves, Box::new(side)) {
            decoded = Err(format!("the worker's curves do not fit its data ({why})"));
        }
    }
    (decoded, times_of(data, t0))
}

/// The worker's stage times and the page's decode (begun at `t0`).
fn times_of(data: &JsValue, t0: f64) -> Object {
    message(
        "times",
        &[
            ("parse_ms", get(data, "parse_ms")),
            ("curves_ms", get(data, "curves_ms")),
            ("read_ms", get(data, "read_ms")),
            ("encode_ms", get(data, "encode_ms")),
            ("began_at", get(data, "began_at")),
            ("posted_at", get(data, "posted_at")),
            ("decode_began_at", t0.into()),
            ("decode_ms", (js_sys::Date::now() - t0).into()),
        ],
    )
}

/// Leaves a load's stage times where the browser benchmark reads them
/// (`globalThis.rankscopeLastLoad`).
fn keep_times(times: &Object) {
    let _ = Reflect::set(&js_sys::global(), &"rankscopeLastLoad".into(), times);
}

/// Stops every running load (nothing loaded before is touched).
pub fn cancel() {
    RUNNING.with(|r| {
        for (worker, tx, _) in r.borrow_mut().drain(..) {
            worker.terminate();
            let _ = tx.unbounded_send(Event::Cancelled);
        }
    });
}

/// How a load in a worker ended.
pub enum Ended {
    Loaded(Outcome),
    Cancelled,
    /// The worker failed or sent something unreadable.
    Broken(String),
}

/// How a job in a worker ended: its answer, or why there is none.
enum Job {
    Done(JsValue),
    Cancelled,
    Broken(String),
}

/// Parses `file` in a worker, calling `progress(bytes, rows)` as it goes; a
/// large binary CSV or multi-class matrix in two workers at once, as a head
/// and a tail ([`split`]).
pub async fn parse_file(
    file: &web_sys::File,
    options: &LoadOptions,
    progress: impl FnMut(u64, u64),
) -> Ended {
    let request = |part: Part| {
        let request = message(
            "load",
            &[
                ("file", file.into()),
                ("name", file.name().into()),
                ("part", part.id().into()),
            ],
        );
        if let Some(f) = options.format {
            let _ = Reflect::set(&request, &"format".into(), &f.id().into());
        }
        if let Some(p) = &options.positive_label {
            let _ = Reflect::set(&request, &"positive".into(), &p.into());
        }
        if let Some(c) = options.one_vs_rest {
            let _ = Reflect::set(&request, &"one_vs_rest".into(), &c.into());
        }
        request
    };
    if !may_split(file, options) {
        let mut progress = progress;
        return whole(&request(Part::Whole), &mut progress).await;
    }
    // both parts' progress, summed
    let shared = std::rc::Rc::new(std::cell::RefCell::new((progress, [(0u64, 0u64); 2])));
    let meter = |i: usize| {
        let shared = shared.clone();
        move |bytes, rows| {
            let (progress, parts) = &mut *shared.borrow_mut();
            parts[i] = (bytes, rows);
            progress(parts[0].0 + parts[1].0, parts[0].1 + parts[1].1);
        }
    };
    let (head, tail) = (request(Part::Head), request(Part::Tail));
    // the part whose worker answers first is decoded at once, while the other
    // may still work; the second is read around the first's rows
    // (`split::join_around`), so the joined columns are written only once
    let half = |job: Job, room: bool| match job {
        Job::Done(data) => {
            let (decoded, times) = decode(&data, room);
            match decoded {
                Ok(outcome) => Half::Decoded(
                    PartEnd {
                        outcome,
                        split: get(&data, "split").as_bool() == Some(true),
                        lines: get(&data, "lines").as_f64().unwrap_or(0.0) as u64,
                    },
                    times,
                ),
                Err(why) => Half::Broken(why),
            }
        }
        Job::Cancelled => Half::Cancelled,
        Job::Broken(why) => Half::Broken(why),
    };
    let name = file.name();
    let both = |head: Half, tail: Half| match (head, tail) {
        (Half::Decoded(head, head_times), Half::Decoded(tail, tail_times)) => {
            let _ = Reflect::set(&head_times, &"tail".into(), &tail_times);
            let _ = Reflect::set(&head_times, &"split".into(), &head.split.into());
            keep_times(&head_times);
            Ended::Loaded(split::join(&name, head, tail))
        }
        (Half::Cancelled, _) | (_, Half::Cancelled) => Ended::Cancelled,
        (Half::Broken(why), _) | (_, Half::Broken(why)) => Ended::Broken(why),
    };
    let first = std::cell::RefCell::new(None);
    let answered = |is_head: bool, job: Job| {
        let Some(other) = first.borrow_mut().take() else {
            *first.borrow_mut() = Some(half(job, true));
            return None;
        };
        Some(match (other, job) {
            (Half::Decoded(end, first_times), Job::Done(data))
                if split::can_join_around(&end, get(&data, "split").as_bool() == Some(true))
                    && get(&data, "curves").is_object() =>
            {
                join_second(&name, end, first_times, is_head, &data)
            }
            (other, job) => {
                let this = half(job, false);
                if is_head {
                    both(this, other)
                } else {
                    both(other, this)
                }
            }
        })
    };
    let (a, b) = futures::join!(
        async { answered(true, run(&head, &mut meter(0), false).await) },
        async { answered(false, run(&tail, &mut meter(1), false).await) }
    );
    a.or(b)
        .unwrap_or_else(|| Ended::Broken("a part of the file never answered".into()))
}

/// Downloads and parses `url` in a worker (shown as `name`), calling
/// `progress(bytes, rows)` as it goes; Cancel terminates the worker and with
/// it the download.
pub async fn parse_url(
    url: &str,
    name: &str,
    options: &LoadOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Ended {
    let request = message("load", &[("url", url.into()), ("name", name.into())]);
    if let Some(f) = options.format {
        let _ = Reflect::set(&request, &"format".into(), &f.id().into());
    }
    if let Some(c) = options.one_vs_rest {
        let _ = Reflect::set(&request, &"one_vs_rest".into(), &c.into());
    }
    whole(&request, progress).await
}

/// One worker's job of a whole file (a drop's file or a URL), decoded.
async fn whole(request: &Object, progress: &mut dyn FnMut(u64, u64)) -> Ended {
    match run(request, progress, false).await {
        Job::Done(data) => {
            let (decoded, times) = decode(&data, false);
            keep_times(&times);
            match decoded {
                Ok(outcome) => Ended::Loaded(outcome),
                Err(why) => Ended::Broken(why),
            }
        }
        Job::Cancelled => Ended::Cancelled,
        Job::Broken(why) => Ended::Broken(why),
    }
}

/// The part of a split file that answered second (`is_head`: the head),
/// read around the rows of the `first`, decoded already
/// ([`split::join_around`]).
fn join_second(
    name: &str,
    first: PartEnd,
    first_times: Object,
    is_head: bool,
    data: &JsValue,
) -> Ended {
    let t0 = js_sys::Date::now();
    let lines = get(data, "lines").as_f64().unwrap_or(0.0) as u64;
    let joined = answer_bytes(data).and_then(|bytes| {
        let curves = curves_block(data).ok_or("no curves in the worker's answer")?;
        let side = Box::new(side_of(data, false));
        split::join_around(name, first, !is_head, (true, lines), &bytes, &curves, side)
    });
    let second_times = times_of(data, t0);
    let (head_times, tail_times) = if is_head {
        (&second_times, &first_times)
    } else {
        (&first_times, &second_times)
    };
    let _ = Reflect::set(head_times, &"tail".into(), tail_times);
    let _ = Reflect::set(head_times, &"split".into(), &true.into());
    keep_times(head_times);
    match joined {
        Ok(outcome) => Ended::Loaded(outcome),
        Err(why) => Ended::Broken(format!("the parts of the file do not join ({why})")),
    }
}

/// One part of a split file, once its worker has answered.
enum Half {
    Decoded(PartEnd, Object),
    Cancelled,
    Broken(String),
}

/// Whether `file` may be a large binary CSV or multi-class matrix worth
/// parsing in two parts (the workers decide from its header; a file that
/// does not split costs the second worker only its header).
fn may_split(file: &web_sys::File, options: &LoadOptions) -> bool {
    let name = file.name().to_ascii_lowercase();
    let other = [".gz", ".json", ".run", ".qrels", ".trec"]
        .iter()
        .any(|ext| name.ends_with(ext))
        || name.contains("qrel");
    file.size() as u64 >= split::SPLIT_MIN
        && !other
        && options.one_vs_rest.is_none()
        && options
            .format
            .is_none_or(|f| matches!(f, Format::BinaryCsv | Format::MulticlassMatrix))
}

/// The bundled example: (file name, outcome) per file. The first time, the
/// build's parsed copy that index.html fetched while this wasm compiled
/// (`rankscopeExample`, a promise of example.bin's bytes); else, or when that
/// file is missing or unreadable, generated and parsed in a worker.
pub async fn example() -> Result<Vec<(String, Outcome)>, String> {
    let global = js_sys::global();
    let ahead = Reflect::get(&global, &"rankscopeExample".into())
        .ok()
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    if let Some(ahead) = ahead {
        let _ = Reflect::delete_property(&global, &"rankscopeExample".into());
        if let Ok(buffer) = wasm_bindgen_futures::JsFuture::from(ahead).await {
            if let Ok(files) = transfer::decode_many(&Uint8Array::new(&buffer).to_vec()) {
                // the spare workers, once the example is shown (as after a job)
                super::util::later(50, warm);
                return Ok(files);
            }
        }
    }
    match run(
        &message("example", &[("example", true.into())]),
        &mut |_, _| {},
        false,
    )
    .await
    {
        Job::Done(data) => transfer::decode_many(&answer_bytes(&data)?),
        Job::Cancelled => Err("cancelled".into()),
        Job::Broken(why) => Err(why),
    }
}

/// One-vs-rest binary data for `class` from every multi-class matrix loaded:
/// the dropped files are read again by a worker (the page keeps only their
/// reduced rows), the bundled example's are generated again.
pub async fn one_vs_rest(
    class: u32,
    files: Vec<super::loader::Source>,
    example_files: Vec<String>,
) -> Result<Vec<crate::core::evaluate::BinaryData>, String> {
    let options = LoadOptions {
        one_vs_rest: Some(class),
        ..Default::default()
    };
    let mut outcomes: Vec<Outcome> = Vec::new();
    for source in &files {
        let ended = match source {
            super::loader::Source::File(file) => parse_file(file, &options, |_, _| {}).await,
            super::loader::Source::Url(url, name) => {
                parse_url(url, name, &options, &mut |_, _| {}).await
            }
        };
        match ended {
            Ended::Loaded(o) => outcomes.push(o),
            Ended::Cancelled => return Err("cancelled".into()),
            Ended::Broken(why) => return Err(why),
        }
    }
    if !example_files.is_empty() {
        let only = js_sys::Array::new();
        for f in &example_files {
            only.push(&f.into());
        }
        let request = message(
            "example",
            &[
                ("example", true.into()),
                ("only", only.into()),
                ("one_vs_rest", class.into()),
            ],
        );
        match run(&request, &mut |_, _| {}, false).await {
            Job::Done(data) => {
                outcomes.extend(
                    transfer::decode_many(&answer_bytes(&data)?)?
                        .into_iter()
                        .map(|(_, o)| o),
                );
            }
            Job::Cancelled => return Err("cancelled".into()),
            Job::Broken(why) => return Err(why),
        }
    }
    outcomes
        .into_iter()
        .map(|o| match o.map(|p| p.into_parts().0) {
            Ok(crate::parse::Parsed::Binary(b)) => Ok(b),
            Ok(_) => Err("not a probability matrix (top-k lists have no per-class scores)".into()),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

thread_local! {
    /// The running significance job's cancel handle: replacing or dropping it
    /// stops that job's worker.
    static COMPARING: std::cell::RefCell<Option<futures::channel::oneshot::Sender<()>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs the significance tests of `request` ([`crate::compare::page::ask`]'s
/// bytes) in a worker: the answer's cells and
/// panel, `Err("")` when cancelled (by [`cancel_compare`] or a newer request).
pub async fn compare(
    request: &[u8],
    auc: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Vec<f64>, String), String> {
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    COMPARING.with(|c| c.replace(Some(tx)));
    let request = message(
        "compare",
        &[
            ("data", Uint8Array::from(request).into()),
            ("auc", auc.into()),
        ],
    );
    // a worker of its own: the spares stay for the next drop
    let job = run(&request, progress, true);
    futures::pin_mut!(job);
    match futures::future::select(job, rx).await {
        futures::future::Either::Left((Job::Done(data), _)) => Ok((
            get(&data, "cells")
                .dyn_into::<js_sys::Float64Array>()
                .map(|a| a.to_vec())
                .unwrap_or_default(),
            get(&data, "html").as_string().unwrap_or_default(),
        )),
        futures::future::Either::Left((Job::Broken(why), _)) => Err(why),
        _ => Err(String::new()),
    }
}

/// Runs `rankscope trec_eval` on the relation files among `files`
/// ([`transfer::encode_many`] bytes) against their runs in a worker of its
/// own: one outcome per (file, run) pair.
pub async fn relations(files: &[u8], version: &str) -> Result<Vec<(String, Outcome)>, String> {
    let request = message(
        "relations",
        &[
            ("data", Uint8Array::from(files).into()),
            ("version", version.into()),
        ],
    );
    match run(&request, &mut |_, _| {}, true).await {
        Job::Done(data) => transfer::decode_many(
            &get(&data, "data")
                .dyn_into::<Uint8Array>()
                .map(|a| a.to_vec())
                .unwrap_or_default(),
        ),
        Job::Broken(why) => Err(why),
        Job::Cancelled => Err(String::new()),
    }
}

/// The panel of values computed elsewhere from a worker of its own
/// ([`answer_values`]): `files` a block of [`transfer::encode_many`], `view`
/// a link's fragment with the tests' settings and the baseline.
pub async fn values(
    files: &[u8],
    measure: &str,
    filter: &str,
    view: &str,
    alone: bool,
) -> Result<[String; 3], String> {
    let request = message(
        "values",
        &[
            ("files", Uint8Array::from(files).into()),
            ("measure", measure.into()),
            ("filter", filter.into()),
            ("view", view.into()),
            ("alone", alone.into()),
        ],
    );
    match run(&request, &mut |_, _| {}, false).await {
        Job::Done(data) => {
            Ok(["top", "bottom", "compare"].map(|k| get(&data, k).as_string().unwrap_or_default()))
        }
        Job::Broken(why) => Err(why),
        Job::Cancelled => Err(String::new()),
    }
}

/// The Diagnostics panel of `models` (name, colour index, curve) from a
/// worker of its own ([`answer_diagnose`]); `Err("")` when it stopped.
pub async fn diagnose(
    models: &[(
        String,
        usize,
        std::sync::Arc<crate::core::binary::BinaryCurve>,
    )],
    options: &str,
    logits: bool,
    rule: &str,
    (lo, hi): (f64, f64),
    at: f64,
) -> Result<String, String> {
    let curves = js_sys::Array::new();
    for (name, color, c) in models {
        let entry = js_sys::Array::new();
        entry.push(&name.into());
        entry.push(&(*color as f64).into());
        entry.push(&Uint8Array::from(bytemuck::cast_slice::<f64, u8>(
            &c.thresholds,
        )));
        entry.push(&Uint8Array::from(bytemuck::cast_slice::<u64, u8>(&c.tps)));
        entry.push(&Uint8Array::from(bytemuck::cast_slice::<u64, u8>(&c.fps)));
        curves.push(&entry);
    }
    let request = message(
        "diagnose",
        &[
            ("curves", curves.into()),
            ("options", options.into()),
            ("logits", logits.into()),
            ("rule", rule.into()),
            ("lo", lo.into()),
            ("hi", hi.into()),
            ("at", at.into()),
        ],
    );
    // a spare: after a drop the spares start as its parse ends, so one is
    // further along than a worker started now (it is not warmed up first)
    match run(&request, &mut |_, _| {}, false).await {
        Job::Done(data) => Ok(get(&data, "html").as_string().unwrap_or_default()),
        Job::Broken(why) => Err(why),
        Job::Cancelled => Err(String::new()),
    }
}

/// Stops the running significance job, if any.
pub fn cancel_compare() {
    COMPARING.with(|c| c.take());
}

/// Workers started ahead of need: starting one (fetching and compiling its
/// wasm) takes 0.1-0.2 s, which a drop would otherwise wait for. Two, as a
/// large binary CSV takes two at once.
const SPARES: usize = 2;

/// A started worker waiting for a job, and whether its wasm is running yet.
struct Spare {
    worker: web_sys::Worker,
    ready: std::rc::Rc<std::cell::Cell<bool>>,
    failed: std::rc::Rc<std::cell::Cell<bool>>,
    _on_message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

thread_local! {
    static SPARE: std::cell::RefCell<Vec<Spare>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Starts workers until [`SPARES`] wait for jobs (called once the page has
/// loaded its example, and after every job: a job's worker is not reused, so
/// its memory goes back at once). Not while another job runs: starting a
/// worker (its script, its wasm compiled on background threads) next to a
/// parse and the page's decode slowed a 10M-line run's load by 0.1-0.5 s;
/// the last job to end starts them.
pub fn warm() {
    if RUNNING.with(|r| !r.borrow().is_empty()) {
        return;
    }
    SPARE.with(|s| {
        let mut spares = s.borrow_mut();
        spares.retain(|w| {
            if w.failed.get() {
                w.worker.terminate();
            }
            !w.failed.get()
        });
        while spares.len() < SPARES {
            let Ok(worker) = web_sys::Worker::new(SCRIPT) else {
                return;
            };
            let ready = std::rc::Rc::new(std::cell::Cell::new(false));
            let failed = std::rc::Rc::new(std::cell::Cell::new(false));
            let (r, w) = (ready.clone(), worker.clone());
            // the warm-up is asked for once the worker's wasm runs: a message
            // that arrives while its wasm still compiles finds no listener and
            // is lost (most spares then met their first job cold)
            let on_message =
                Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    if get(&e.data(), "type").as_string().as_deref() == Some("ready") {
                        r.set(true);
                        let _ = w.post_message(&message("warm", &[]));
                    }
                });
            let f = failed.clone();
            let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
                e.prevent_default();
                f.set(true);
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            spares.push(Spare {
                worker,
                ready,
                failed,
                _on_message: on_message,
                _on_error: on_error,
            });
        }
    });
}

/// A started worker (and whether it is ready), else a new one.
fn take_worker() -> Result<(web_sys::Worker, bool), JsValue> {
    let spare = SPARE.with(|s| {
        let mut spares = s.borrow_mut();
        let i = spares.iter().position(|w| !w.failed.get())?;
        Some(spares.remove(i))
    });
    match spare {
        Some(spare) => Ok((spare.worker.clone(), spare.ready.get())),
        None => web_sys::Worker::new(SCRIPT).map(|w| (w, false)),
    }
}

/// Starts a worker (a spare, or a `fresh` one of its own), sends `request`,
/// relays progress, returns its answer.
async fn run(request: &Object, progress: &mut dyn FnMut(u64, u64), fresh: bool) -> Job {
    let worker = if fresh {
        web_sys::Worker::new(SCRIPT).map(|w| (w, false))
    } else {
        take_worker()
    };
    let (worker, ready) = match worker {
        Ok(w) => w,
        // the browser refuses one to a page opened from a file (a saved
        // report, a notebook's dashboard): say what works instead
        Err(_) => return Job::Broken("the loading worker could not start: a page opened from a file (a saved report, a notebook's dashboard) cannot start one; open the data in Rankscope served over http(s), or use the command line".into()),
    };
    let (tx, mut rx) = mpsc::unbounded::<Event>();
    if ready {
        let _ = tx.unbounded_send(Event::Ready);
    }
    let on_tx = tx.clone();
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let data = e.data();
            let event = match get(&data, "type").as_string().as_deref() {
                Some("ready") => Event::Ready,
                Some("progress") => Event::Progress {
                    bytes: get(&data, "bytes").as_f64().unwrap_or(0.0) as u64,
                    rows: get(&data, "rows").as_f64().unwrap_or(0.0) as u64,
                },
                Some("done") => Event::Done(data),
                Some("failed") => Event::Failed(get(&data, "why").as_string().unwrap_or_default()),
                _ => Event::Failed("unexpected message from the loading worker".into()),
            };
            let _ = on_tx.unbounded_send(event);
        });
    let err_tx = tx.clone();
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        let what = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| {
                format!("the loading worker could not start ({SCRIPT} did not load)")
            });
        let _ = err_tx.unbounded_send(Event::Failed(what));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let id = NEXT_ID.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    // a job of its own (the tests) is no load: the loader's Cancel leaves it,
    // and it keeps no spare from starting
    if !fresh {
        RUNNING.with(|r| r.borrow_mut().push((worker.clone(), tx, id)));
    }
    // the worker stops when this job ends, however it ends (a load dropped
    // half-way by the page too)
    struct Finish(web_sys::Worker, u64);
    impl Drop for Finish {
        fn drop(&mut self) {
            // a message already queued (a progress report) must find no
            // listener: the closures go with this job, even one dropped half-way
            self.0.set_onmessage(None);
            self.0.set_onerror(None);
            self.0.terminate();
            let id = self.1;
            RUNNING.with(|r| r.borrow_mut().retain(|x| x.2 != id));
        }
    }
    let finish = Finish(worker.clone(), id);
    let mut sent = false;
    let result = loop {
        match rx.next().await {
            // the worker's wasm runs: now it can take the request
            Some(Event::Ready) if !sent => {
                sent = true;
                if let Err(e) = worker.post_message(request) {
                    break Job::Broken(format!("the request could not be sent ({e:?})"));
                }
            }
            Some(Event::Ready) => {}
            Some(Event::Progress { bytes, rows }) => progress(bytes, rows),
            // the worker's memory goes back before the page's grows
            Some(Event::Done(data)) => break Job::Done(data),
            Some(Event::Cancelled) | None => break Job::Cancelled,
            Some(Event::Failed(why)) => break Job::Broken(why),
        }
    };
    drop(finish);
    drop((on_message, on_error));
    // after the page has used the answer (a worker starting next to the
    // first render of the example would slow it)
    super::util::later(50, warm);
    result
}
