//! What a worker runs: its message loop, the parse of a file or URL, and
//! the answers to the page's other jobs.

use super::*;

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
            if get(&data, "type").as_string().as_deref() == Some("export") {
                let bytes = (get(&data, "table").dyn_into::<Uint8Array>())
                    .map(|a| a.to_vec())
                    .unwrap_or_default();
                let format = get(&data, "format").as_string().unwrap_or_default();
                let format = <crate::report::Export as crate::core::Named>::named(&format);
                let msg = match (postcard::from_bytes::<crate::report::Table>(&bytes), format) {
                    (Ok(t), Some(f)) => message("done", &[("text", t.export(f).into())]),
                    _ => message(
                        "failed",
                        &[("why", "the table did not arrive whole".into())],
                    ),
                };
                let _ = reply.post_message(&msg);
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("trec_eval") {
                let msg = match answer_trec_eval(&data) {
                    Ok(text) => message("done", &[("text", text.into())]),
                    Err(why) => message("failed", &[("why", why.into())]),
                };
                let _ = reply.post_message(&msg);
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("report") {
                let reply = reply.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let msg = match answer_report(&data).await {
                        Ok(text) => message("done", &[("text", text.into())]),
                        Err(why) => message("failed", &[("why", why.into())]),
                    };
                    let _ = reply.post_message(&msg);
                });
                return;
            }
            if get(&data, "type").as_string().as_deref() == Some("class_report") {
                let reply = reply.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let msg = match answer_class_report(&reply, &data).await {
                        Ok(html) => message("done", &[("html", html.into())]),
                        Err(why) => message("failed", &[("why", why.into())]),
                    };
                    let _ = reply.post_message(&msg);
                });
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
pub(super) fn answer_compare(reply: &web_sys::DedicatedWorkerGlobalScope, data: &JsValue) {
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
/// curves: each model as `[name, colour, thresholds, tps, fps, at]` (the
/// columns as little-endian bytes; `at`: its threshold's place on the score
/// axis), the options' text, the score scale, the threshold rule and the
/// score axis.
/// The page's trec_eval `-q` export ([`super::trec_eval_q`]): each run of
/// the session's workspace its view does not hide, under its conventions,
/// with trec_eval's official measures and the table's columns.
pub(super) fn answer_trec_eval(data: &JsValue) -> Result<String, String> {
    use crate::core::registry::{Kind, MetricId};
    let bytes = (get(data, "data").dyn_into::<Uint8Array>())
        .map(|a| a.to_vec())
        .unwrap_or_default();
    let (ws, view, _) = crate::session::decode_session(&bytes)?;
    let columns: Vec<MetricId> = (get(data, "columns").as_string().unwrap_or_default())
        .split(',')
        .filter_map(|c| MetricId::parse(c, Kind::Ranking).ok())
        .collect();
    let measures = crate::trec_format::official_and(&columns);
    let complete = view.conv.query_set == crate::core::ranking::QuerySet::Qrels;
    let d = ws.ranking.as_ref().ok_or("no ranking runs are loaded")?;
    // the conventions trec_eval's defaults would not give, as a comment line
    let comment = crate::trec_format::conventions_comment(&view.conv, complete, true);
    Ok(comment
        + &(0..d.runs.len())
            .filter(|&i| {
                let key = crate::session::hidden_key(Kind::Ranking, &d.runs[i].name);
                !view.hidden.contains(&key)
            })
            .map(|i| crate::trec_format::format_run(d, i, &view.conv, &measures, true, complete))
            .collect::<String>())
}

/// A saved report ([`super::report`]): the app's files fetched again here,
/// and this worker's own glue and wasm ([`WORKER_FILES`], beside its loader).
pub(super) async fn answer_report(data: &JsValue) -> Result<String, String> {
    let text = |key: &str| get(data, key).as_string().unwrap_or_default();
    let session = (get(data, "data").dyn_into::<Uint8Array>())
        .map(|a| a.to_vec())
        .unwrap_or_default();
    let (css, js, wasm) = (
        fetch_all(&text("css")).await?,
        fetch_all(&text("js")).await?,
        fetch_all(&text("wasm")).await?,
    );
    let [worker_js, worker_wasm] = WORKER_FILES;
    let (worker_js, worker_wasm) = (fetch_all(worker_js).await?, fetch_all(worker_wasm).await?);
    crate::session::report_html(
        &text("title"),
        &String::from_utf8_lossy(&css),
        &String::from_utf8_lossy(&js),
        &wasm,
        (&String::from_utf8_lossy(&worker_js), &worker_wasm),
        &session,
    )
}

/// The worker's glue (wasm-bindgen's `no-modules` output) and wasm, as Trunk
/// names them beside [`SCRIPT`] (which loads them), relative to the worker.
pub const WORKER_FILES: [&str; 2] = ["./rankscope-worker.js", "./rankscope-worker_bg.wasm"];

/// The bytes at `url`, fetched from the worker.
async fn fetch_all(url: &str) -> Result<Vec<u8>, String> {
    use wasm_bindgen_futures::JsFuture;
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let failed = |e: JsValue| format!("{url}: {}", crate::app::util::js_text(&e));
    let response: web_sys::Response = JsFuture::from(scope.fetch_with_str(url))
        .await
        .map_err(failed)?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(failed)?)
        .await
        .map_err(failed)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

pub(super) fn answer_diagnose(data: &JsValue) -> Result<String, String> {
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
    let mut ats = Vec::new();
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
        let at = entry.get(5).as_f64().filter(|a| (0.0..=1.0).contains(a));
        ats.push(at.unwrap_or(0.0));
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
    let models = diagnose::binary(&curves, &options);
    let groups = diagnose::groups(&curves, &models, &options);
    Ok(html::panel(&html::View {
        curves: &curves,
        colors: &colors,
        models: &models,
        groups: &groups,
        options: &options,
        range: (lo, hi),
        at: &ats,
    }))
}

/// Most bytes of matrices a report reads again into the worker's memory.
const REPORT_BYTES: f64 = 512e6;

/// The multi-class report ([`crate::diagnose::html::multiclass_report`]) of
/// the request's matrices: `files` (each a `File`, or `[url, name]`) read
/// again whole, and the bundled example's files named in `example_files`, under
/// `zero_division`.
pub(super) async fn answer_class_report(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    data: &JsValue,
) -> Result<String, String> {
    use crate::core::binary::ZeroDivision;
    use crate::core::Named;
    use crate::diagnose::{self, html};
    use wasm_bindgen_futures::JsFuture;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut total = 0.0;
    for entry in js_sys::Array::from(&get(data, "files")).iter() {
        let (name, bytes) = match entry.dyn_into::<web_sys::File>() {
            Ok(file) => {
                total += file.size();
                if total > REPORT_BYTES {
                    return Err(format!("{} and the other matrices are more than the page reads again at once (512 MB); rankscope diagnose reads them a class at a time", file.name()));
                }
                (file.name(), JsFuture::from(file.array_buffer()).await)
            }
            Err(entry) => {
                let pair = js_sys::Array::from(&entry);
                let url = pair.get(0).as_string().unwrap_or_default();
                let response = JsFuture::from(scope.fetch_with_str(&url)).await;
                let body = match response
                    .map(|r| r.unchecked_into::<web_sys::Response>().array_buffer())
                {
                    Ok(Ok(promise)) => JsFuture::from(promise).await,
                    _ => Err(JsValue::NULL),
                };
                (pair.get(1).as_string().unwrap_or(url), body)
            }
        };
        let bytes = bytes.map_err(|_| format!("{name} could not be read again"))?;
        files.push((name, Uint8Array::new(&bytes).to_vec()));
    }
    let wanted: Vec<String> = (js_sys::Array::from(&get(data, "example_files")).iter())
        .filter_map(|v| v.as_string())
        .collect();
    files.extend(
        (crate::example::example_files().into_iter()).filter(|(name, _)| wanted.contains(name)),
    );
    let options = diagnose::Options {
        zero_division: ZeroDivision::named(
            &get(data, "zero_division").as_string().unwrap_or_default(),
        )
        .unwrap_or_default(),
        ..Default::default()
    };
    let mut models = diagnose::multiclass_of_files(&files, &options)?;
    // the page's names (a model renamed there) and colours, given in the
    // order the page merged the files, the order read here
    // (else, a model count that differs: the files' names, colours by order)
    let names = js_sys::Array::from(&get(data, "names"));
    let colors = js_sys::Array::from(&get(data, "colors"));
    let same = names.length() as usize == models.len() && colors.length() == names.length();
    let mut shown = Vec::with_capacity(models.len());
    for (i, m) in models.iter_mut().enumerate() {
        let at = i as u32;
        match (same, names.get(at).as_string(), colors.get(at).as_f64()) {
            (true, Some(name), Some(color)) => {
                m.name = name;
                shown.push(color as usize);
            }
            _ => shown.push(i),
        }
    }
    Ok(html::multiclass_report(&models, &shown))
}

/// The panel of values computed elsewhere ([`crate::values::panel`]) of
/// the request's files (a block of [`transfer::encode_many`], each a
/// `Measures`), measure and filter; its Compare view when `alone`, under
/// the tests' settings and baseline of the request's `view` (a link's
/// fragment).
pub(super) fn answer_values(data: &JsValue) -> [String; 3] {
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
/// `rankscope trec_eval` ([`crate::trec_relations::evaluate`]), and
/// answers with one outcome per (file, run) pair: its values, or what
/// trec_eval said.
pub(super) fn answer_relations(reply: &web_sys::DedicatedWorkerGlobalScope, data: &JsValue) {
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
                crate::trec_relations::evaluate(&ws.to_files(), version)
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
pub(super) fn warm_up() {
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
pub(super) fn curves_of(outcome: &Outcome) -> Vec<BinaryCurve> {
    match outcome.as_ref().map(Parsed::data) {
        Ok(Parsed::Binary(b)) => b
            .models
            .iter()
            .map(|(_, scores)| BinaryCurve::new(&b.labels, scores))
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) fn options_of(data: &JsValue) -> LoadOptions {
    LoadOptions {
        format: get(data, "format")
            .as_string()
            .and_then(|f| crate::parse::Format::from_id(&f)),
        positive_label: get(data, "positive").as_string(),
        one_vs_rest: get(data, "one_vs_rest").as_f64().map(|c| c as u32),
        ..LoadOptions::default()
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
pub(super) const STREAM_BUFFER: u32 = 1 << 20;

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
pub(super) fn cancel_reader(reader: &JsValue) {
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
pub(super) struct Reporter<'a> {
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
pub(super) async fn parse_blob(
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
pub(super) fn sleep(ms: i32) -> js_sys::Promise {
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
pub(super) async fn load_url(
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

pub(super) async fn download_and_parse(
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
            format!("a failed download ({})", crate::app::util::js_text(&e)),
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
