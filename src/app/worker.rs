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
//! One worker per file: terminating it is how Cancel stops a load, and it gives
//! the parser's memory back at once. The bundled example is generated and parsed
//! in a worker too (`{example: true}`), so the page's own wasm carries no parser.

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::raw::{Column, Side};
use crate::parse::transfer::{self, Outcome};
use crate::parse::{parse_bytes, LoadError, LoadOptions, Parser};

/// Bytes read per step inside the worker (synchronous reads).
const CHUNK: f64 = 8.0 * 1024.0 * 1024.0;
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
            let name = get(&data, "name").as_string().unwrap_or_default();
            let t0 = js_sys::Date::now();
            let outcome = match get(&data, "file").dyn_into::<web_sys::Blob>() {
                Ok(blob) => parse_blob(&reply, &blob, &name, options_of(&data)),
                Err(_) => Err(LoadError::single(
                    &name,
                    0,
                    0,
                    "a file",
                    "no file in the request",
                    None,
                )),
            };
            let t1 = js_sys::Date::now();
            // big columns go straight into their own ArrayBuffers, the rest into one small block
            let side = JsSide::default();
            let (bytes, _) = transfer::encode_with(&outcome, Box::new(side.clone()));
            drop(outcome);
            let array = Uint8Array::from(&bytes[..]);
            drop(bytes);
            let columns = js_sys::Array::new();
            for c in side.0.borrow().iter() {
                columns.push(c);
            }
            let t2 = js_sys::Date::now();
            let msg = message(
                "done",
                &[
                    ("data", array.clone().into()),
                    ("columns", columns.clone().into()),
                    ("parse_ms", (t1 - t0).into()),
                    ("encode_ms", (t2 - t1).into()),
                ],
            );
            let transfer = js_sys::Array::of1(&array.buffer());
            for c in columns.iter() {
                transfer.push(&c.unchecked_into::<Uint8Array>().buffer());
            }
            let _ = reply.post_message_with_transfer(&msg, &transfer);
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&message("ready", &[]));
}

/// The side channel of the transfer ([`crate::core::raw::Side`]): on the
/// worker each big column is copied once, from wasm memory into its own
/// `ArrayBuffer`, which is then transferred (not copied) to the page; on the
/// page each is copied once, straight into its final column.
#[derive(Clone, Default)]
struct JsSide(std::rc::Rc<std::cell::RefCell<Vec<Uint8Array>>>);

impl Side for JsSide {
    fn put(&mut self, bytes: &[u8]) -> u32 {
        let mut arrays = self.0.borrow_mut();
        arrays.push(Uint8Array::from(bytes));
        arrays.len() as u32 - 1
    }
    fn len(&self, index: u32) -> Option<usize> {
        self.0
            .borrow()
            .get(index as usize)
            .map(|a| a.length() as usize)
    }
    fn take(&mut self, index: u32, out: &mut [u8]) -> bool {
        match self.0.borrow().get(index as usize) {
            Some(a) if a.length() as usize == out.len() => {
                a.copy_to(out);
                release(&a.buffer());
                true
            }
            _ => false,
        }
    }
    /// Reads the column through a typed view of its buffer (`to_vec` fills a
    /// fresh vector once; the byte path would zero it first, 10M rows at a time).
    fn take_typed(&mut self, index: u32, kind: Column) -> Option<Column> {
        let arrays = self.0.borrow();
        let a = arrays.get(index as usize)?;
        let (buffer, offset, bytes) = (a.buffer(), a.byte_offset(), a.length());
        let view = |size: u32| (offset % size == 0 && bytes % size == 0).then_some(bytes / size);
        let column = match kind {
            Column::F64(_) => Column::F64(
                js_sys::Float64Array::new_with_byte_offset_and_length(&buffer, offset, view(8)?)
                    .to_vec(),
            ),
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

fn parse_blob(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    blob: &web_sys::Blob,
    name: &str,
    options: LoadOptions,
) -> Outcome {
    let unreadable = |e: JsValue| {
        LoadError::single(
            name,
            0,
            0,
            "a readable file",
            format!("the browser could not read it ({e:?})"),
            None,
        )
    };
    let reader = web_sys::FileReaderSync::new().map_err(unreadable)?;
    let total = blob.size();
    let mut parser = Parser::new(name, options);
    parser.expect_size(total as u64);
    let mut buf = Vec::new();
    let mut offset = 0.0;
    let mut last_report = 0.0;
    // a refused file (too large, a line without end, broken gzip) is not read further
    while offset < total && !parser.stopped() {
        let end = (offset + CHUNK).min(total);
        let slice = blob
            .slice_with_f64_and_f64(offset, end)
            .map_err(unreadable)?;
        let buffer: JsValue = reader
            .read_as_array_buffer(&slice)
            .map_err(unreadable)?
            .into();
        let array = Uint8Array::new(&buffer);
        buf.resize(array.length() as usize, 0);
        array.copy_to(&mut buf);
        parser.feed(&buf);
        offset = end;
        let now = js_sys::Date::now();
        if now - last_report >= 100.0 {
            last_report = now;
            let _ = scope.post_message(&message(
                "progress",
                &[
                    ("bytes", offset.into()),
                    ("rows", (parser.rows_parsed() as f64).into()),
                ],
            ));
        }
    }
    drop(buf);
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

/// Decodes the worker's result, leaving its stage times where the browser
/// benchmark reads them (`globalThis.rankscopeLastLoad`).
fn decode(data: &JsValue) -> Result<Outcome, String> {
    let t0 = js_sys::Date::now();
    let bytes = answer_bytes(data)?;
    let columns: Vec<Uint8Array> = get(data, "columns")
        .dyn_into::<js_sys::Array>()
        .map(|a| {
            a.iter()
                .filter_map(|c| c.dyn_into::<Uint8Array>().ok())
                .collect()
        })
        .unwrap_or_default();
    let side = JsSide(std::rc::Rc::new(std::cell::RefCell::new(columns)));
    let decoded = transfer::decode_with(&bytes, Box::new(side));
    let times = message(
        "times",
        &[
            ("parse_ms", get(data, "parse_ms")),
            ("encode_ms", get(data, "encode_ms")),
            ("decode_ms", (js_sys::Date::now() - t0).into()),
        ],
    );
    let _ = Reflect::set(&js_sys::global(), &"rankscopeLastLoad".into(), &times);
    decoded
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

/// Parses `file` in a worker, calling `progress(bytes, rows)` as it goes.
pub async fn parse_file(
    file: &web_sys::File,
    options: &LoadOptions,
    progress: impl FnMut(u64, u64),
) -> Ended {
    let request = message(
        "load",
        &[("file", file.into()), ("name", file.name().into())],
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
    match run(&request, progress).await {
        Job::Done(data) => match decode(&data) {
            Ok(outcome) => Ended::Loaded(outcome),
            Err(why) => Ended::Broken(why),
        },
        Job::Cancelled => Ended::Cancelled,
        Job::Broken(why) => Ended::Broken(why),
    }
}

/// The bundled example, generated and parsed in a worker: (file name, outcome) per file.
pub async fn example() -> Result<Vec<(String, Outcome)>, String> {
    match run(&message("example", &[("example", true.into())]), |_, _| {}).await {
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
    files: Vec<web_sys::File>,
    example_files: Vec<String>,
) -> Result<Vec<crate::core::evaluate::BinaryData>, String> {
    let options = LoadOptions {
        one_vs_rest: Some(class),
        ..Default::default()
    };
    let mut outcomes: Vec<Outcome> = Vec::new();
    for file in &files {
        match parse_file(file, &options, |_, _| {}).await {
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
        match run(&request, |_, _| {}).await {
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
        .map(|o| match o {
            Ok(crate::parse::Parsed::Binary(b)) => Ok(b),
            Ok(_) => Err("not a probability matrix (top-k lists have no per-class scores)".into()),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

/// Starts a worker, sends `request`, relays progress, returns its answer.
async fn run(request: &Object, mut progress: impl FnMut(u64, u64)) -> Job {
    let worker = match web_sys::Worker::new(SCRIPT) {
        Ok(w) => w,
        Err(e) => return Job::Broken(format!("the loading worker could not start ({e:?})")),
    };
    let (tx, mut rx) = mpsc::unbounded::<Event>();
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
    RUNNING.with(|r| r.borrow_mut().push((worker.clone(), tx, id)));
    // the worker stops when this job ends, however it ends (a load dropped
    // half-way by the page too)
    struct Finish(web_sys::Worker, u64);
    impl Drop for Finish {
        fn drop(&mut self) {
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
    result
}
