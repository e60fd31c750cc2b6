//! What a worker runs: its message loop, the parse of a file or URL, and
//! the answers to the page's other jobs.

use super::*;

/// Entry point of the worker binary: each message is one [`Job`], answered
/// by [`dispatch`].
pub fn worker_main() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply = scope.clone();
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let (id, job, sides) = match unwire::<Job>(&e.data()) {
                Ok(message) => message,
                Err(why) => return Out::new(&reply, 0).finish(Err(why)),
            };
            let out = Out::new(&reply, id);
            wasm_bindgen_futures::spawn_local(dispatch(job, sides, out));
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&wire(0, &Reply::Ready, &[]));
}

/// The one dispatch: each job to its handler, its answer (or why there is
/// none) posted back. A new job is a [`Job`] variant, its arm here and its
/// handler below.
async fn dispatch(job: Job, sides: Sides, mut out: Out) {
    if !matches!(job, Job::Warm) {
        // a worker that takes a job is no longer a warm spare
        let _ = Reflect::set(
            &js_sys::global(),
            &"rankscopeWarmedUp".into(),
            &false.into(),
        );
    }
    let reply = match job {
        Job::Warm => return warm(),
        Job::WarmViews => return warm_views(),
        Job::Parse {
            input,
            options,
            part,
        } => parse(input, options.into(), part, &sides, &mut out).await,
        Job::Example { only, one_vs_rest } => example(only, one_vs_rest, &mut out),
        Job::Compare { request, auc } => compare(&sides.bytes(request), auc, &mut out),
        Job::Relations { session, version } => relations(&sides.bytes(session), version, &mut out),
        Job::Diagnose {
            models,
            options,
            logits,
            rule,
            range,
        } => diagnose(&models, &sides, &options, logits, rule, range, &mut out).map(Reply::Text),
        Job::ClassReport {
            files,
            example,
            zero_division,
            models,
        } => class_report(&files, &sides, &example, &zero_division, &models, &mut out)
            .await
            .map(Reply::Text),
        Job::Values {
            files,
            measure,
            filter,
            tests,
            baseline,
            alone,
        } => Ok(Reply::Values(values(
            &sides.bytes(files),
            &measure,
            &filter,
            alone.then_some((baseline.as_deref(), &tests)),
        ))),
        Job::Export { table, format } => Ok(Reply::Text(table.export(format))),
        Job::TrecEval { session, columns } => {
            trec_eval(&sides.bytes(session), &columns).map(Reply::Text)
        }
        Job::Report {
            title,
            urls,
            session,
        } => report(&title, &urls, &sides.bytes(session))
            .await
            .map(Reply::Text),
        Job::Leaderboard { request, values } => {
            leaderboard(&sides.bytes(request), &sides.bytes(values), &mut out)
        }
    };
    out.finish(reply)
}

/// Where a job's replies go: its id, the values to send beside its answer,
/// and when it last posted progress.
pub(super) struct Out {
    scope: web_sys::DedicatedWorkerGlobalScope,
    id: Id,
    sides: Vec<JsValue>,
    last: f64,
}

impl Out {
    fn new(scope: &web_sys::DedicatedWorkerGlobalScope, id: Id) -> Self {
        Out {
            scope: scope.clone(),
            id,
            sides: Vec::new(),
            last: 0.0,
        }
    }

    /// `value` sent beside the answer (a byte array's buffer transferred).
    fn side(&mut self, value: impl Into<JsValue>) -> Side {
        self.sides.push(value.into());
        Side(self.sides.len() as u32 - 1)
    }

    /// Posts the job's progress, at most every 100 ms.
    fn progress(&mut self, progress: Progress) {
        let now = js_sys::Date::now();
        if now - self.last >= 100.0 {
            self.last = now;
            self.post(&Reply::Progress(progress), &[]);
        }
    }

    /// [`Out::progress`] of a job of `total` steps.
    fn step(&mut self, done: usize, total: usize) {
        let (done, total) = (done as u64, total as u64);
        self.progress(Progress {
            done,
            total,
            rows: 0,
        });
    }

    fn post(&self, reply: &Reply, sides: &[JsValue]) {
        let message = wire(self.id, reply, sides);
        let _ = (self.scope).post_message_with_transfer(&message, &transfers(&message));
    }

    /// Posts the job's answer with what goes beside it.
    fn finish(self, reply: Result<Reply, String>) {
        self.post(&reply.unwrap_or_else(Reply::Failed), &self.sides);
    }
}

/// [`Job::Warm`]: [`warm_up`], and a flag the end-to-end tests read (this
/// spare met its job warm).
fn warm() {
    warm_up();
    let _ = Reflect::set(&js_sys::global(), &"rankscopeWarmedUp".into(), &true.into());
}

/// [`Job::Parse`]: a file or URL parsed, its outcome's block, its curves'
/// block and its big columns sent beside ([`protocol::Parsed`]).
async fn parse(
    input: protocol::Input,
    options: LoadOptions,
    part: Part,
    sides: &Sides,
    out: &mut Out,
) -> Result<Reply, String> {
    let t0 = js_sys::Date::now();
    let (end, read_ms) = match input {
        protocol::Input::File(side) => {
            let file = sides.file(side).ok_or("no file in the request")?;
            parse_blob(out, &file, &file.name(), options, part).await
        }
        protocol::Input::Url { url, name } => (load_url(out, &url, &name, options).await, 0.0),
    };
    let PartEnd {
        outcome,
        split,
        lines,
    } = end;
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
    let bytes = many.unwrap_or_else(|| transfer::encode_with(&outcome, Box::new(side.clone())).0);
    drop(outcome);
    // beside: the data, the curves, the columns (`protocol::Parsed`)
    out.side(Uint8Array::from(&bytes[..]));
    drop(bytes);
    let (block, _) = transfer::encode_curves_with(&curves, Box::new(side.clone()));
    drop(curves);
    out.side(Uint8Array::from(&block[..]));
    drop(block);
    for c in side.columns.borrow().iter() {
        out.side(c.clone());
    }
    let t3 = js_sys::Date::now();
    Ok(Reply::Parsed(protocol::Parsed {
        times: protocol::Times {
            parse_ms: t1 - t0,
            curves_ms: t2 - t1,
            encode_ms: t3 - t2,
            read_ms,
            // when the job began and ended here (ms since the epoch: the
            // benchmark places the worker's stages on the page's timeline)
            began_at: t0,
            posted_at: js_sys::Date::now(),
        },
        split,
        lines,
        per_query,
    }))
}

/// [`Job::Example`]: the bundled example's files generated and parsed (those
/// named in `only`: a one-vs-rest re-read asks for the matrices), a step per file.
fn example(
    only: Option<Vec<String>>,
    one_vs_rest: Option<u32>,
    out: &mut Out,
) -> Result<Reply, String> {
    let options = LoadOptions {
        one_vs_rest,
        ..LoadOptions::default()
    };
    let files: Vec<(String, Vec<u8>)> = (crate::example::example_files().into_iter())
        .filter(|(name, _)| only.as_ref().is_none_or(|o| o.contains(name)))
        .collect();
    let n = files.len();
    let mut parsed = Vec::with_capacity(n);
    for (i, (name, bytes)) in files.into_iter().enumerate() {
        out.step(i, n);
        let outcome = parse_bytes(&name, &bytes, &options);
        parsed.push((name, outcome));
    }
    let block = transfer::encode_many(&parsed);
    out.side(Uint8Array::from(&block[..]));
    Ok(Reply::Files)
}

/// [`Job::Compare`]: the page's significance tests (its wasm holds none),
/// a step per test. Binary models: ROC AUC by DeLong's test, at once.
fn compare(request: &[u8], auc: bool, out: &mut Out) -> Result<Reply, String> {
    use crate::compare::page;
    let answer = if auc {
        page::AucRequest::decode(request).map(|r| r.answer())
    } else {
        let request = page::Request::decode(request);
        request.map(|r| page::answer(&r, &mut |done, total| out.step(done, total)))
    };
    let answer = answer.ok_or("the test request is damaged")?;
    Ok(Reply::Compared {
        cells: answer.cells,
        html: answer.html,
    })
}

/// [`Job::Leaderboard`]: one metric's column of the leaderboard (tie group,
/// rank intervals, each run against the baseline) from its matrix's bytes;
/// the answer encoded beside.
fn leaderboard(request: &[u8], bytes: &[u8], out: &mut Out) -> Result<Reply, String> {
    use crate::core::leaderboard::{column, Matrix};
    let r: protocol::BoardTests = protocol::decode_board(request)?;
    let values: Vec<f64> = (bytes.chunks_exact(8))
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    let m = Matrix::new(r.runs as usize, r.queries as usize, &values)
        .ok_or("the leaderboard's values do not fill its runs × queries")?;
    let c = column(&m, &r.settings, r.baseline.map(|b| b as usize))
        .ok_or("a leaderboard without runs")?;
    let answer = protocol::encode_board(&protocol::Ranked::from(&c));
    out.side(Uint8Array::from(&answer[..]));
    Ok(Reply::Board)
}

/// [`Job::TrecEval`]: the page's trec_eval `-q` export ([`super::trec_eval_q`]):
/// each run of the session's workspace its view does not hide, under its
/// conventions, with trec_eval's official measures and the table's `columns`.
fn trec_eval(
    session: &[u8],
    columns: &[crate::core::registry::MetricId],
) -> Result<String, String> {
    use crate::core::registry::{Kind, MetricId};
    let (ws, view, _) = crate::session::decode_session(session)?;
    // the ids the registry knows for ranking runs (a damaged request's others skipped)
    let columns: Vec<MetricId> = (columns.iter())
        .filter_map(|c| MetricId::parse(&c.to_string(), Kind::Ranking).ok())
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

/// [`Job::Report`]: a saved report ([`super::report`]), the app's files
/// (stylesheet, JavaScript, wasm) fetched again here, and this worker's own
/// glue and wasm ([`WORKER_FILES`], beside its loader).
async fn report(title: &str, urls: &[String; 3], session: &[u8]) -> Result<String, String> {
    let [css, js, wasm] = urls;
    let (css, js, wasm) = (
        fetch_all(css).await?,
        fetch_all(js).await?,
        fetch_all(wasm).await?,
    );
    let [worker_js, worker_wasm] = WORKER_FILES;
    let (worker_js, worker_wasm) = (fetch_all(worker_js).await?, fetch_all(worker_wasm).await?);
    crate::session::report_html(
        title,
        &String::from_utf8_lossy(&css),
        &String::from_utf8_lossy(&js),
        &wasm,
        (&String::from_utf8_lossy(&worker_js), &worker_wasm),
        session,
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

/// [`Job::Diagnose`]: the Diagnostics panel ([`crate::diagnose::html`]) of
/// the request's curves (each model's columns beside, `at`: its threshold's
/// place on the score axis), the options' text, the score scale, the
/// threshold rule and the score axis; a step per model.
fn diagnose(
    models: &[protocol::Curve],
    sides: &Sides,
    options: &str,
    logits: bool,
    rule: crate::core::binary::ThresholdRule,
    range: (f64, f64),
    out: &mut Out,
) -> Result<String, String> {
    let mut curves = Vec::new();
    let mut colors = Vec::new();
    let mut ats = Vec::new();
    for m in models {
        let curve = BinaryCurve::from_parts(
            sides.column(m.thresholds),
            sides.column(m.tps),
            sides.column(m.fps),
        )?;
        curves.push((m.name.clone(), std::sync::Arc::new(curve)));
        colors.push(m.color as usize);
        ats.push(
            Some(m.at)
                .filter(|a| (0.0..=1.0).contains(a))
                .unwrap_or(0.0),
        );
    }
    let mut options = crate::diagnose::Options::from_text(options);
    options.logits = logits;
    options.rule = rule;
    diagnostics_panel(&curves, &colors, &ats, &options, range, &mut |i, n| {
        out.step(i, n)
    })
}

/// The Diagnostics panel of `curves` (coloured `colors`, their thresholds
/// at `ats` on the score axis `range`) under `options`, a step per model.
/// Never inlined: the warm-up ([`warm_up`]) and the job call this one
/// function, so the browser has optimised its code when a job comes.
#[inline(never)]
pub(super) fn diagnostics_panel(
    curves: &[(String, std::sync::Arc<BinaryCurve>)],
    colors: &[usize],
    ats: &[f64],
    options: &crate::diagnose::Options,
    range: (f64, f64),
    step: &mut dyn FnMut(usize, usize),
) -> Result<String, String> {
    use crate::diagnose::{self, html};
    let n = curves.len();
    let mut models = Vec::with_capacity(n);
    for (i, (name, curve)) in curves.iter().enumerate() {
        step(i, n + 1);
        models.push(diagnose::binary_model(name, curve, options));
    }
    step(n, n + 1);
    let groups = diagnose::groups(curves, &models, options);
    Ok(html::panel(&html::View {
        curves,
        colors,
        models: &models,
        groups: &groups,
        options,
        range,
        at: ats,
    }))
}

/// Most bytes of matrices a report reads again into the worker's memory.
const REPORT_BYTES: f64 = 512e6;

/// [`Job::ClassReport`]: the multi-class report
/// ([`crate::diagnose::html::multiclass_report`]) of the request's matrices,
/// `files` read again whole (a step each), and the bundled example's files
/// named in `example`, under `zero_division`, the models named and coloured
/// as the page does.
async fn class_report(
    files: &[protocol::Input],
    sides: &Sides,
    example: &[String],
    zero_division: &str,
    names: &[(String, u32)],
    out: &mut Out,
) -> Result<String, String> {
    use crate::core::binary::ZeroDivision;
    use crate::core::Named;
    use crate::diagnose::{self, html};
    use wasm_bindgen_futures::JsFuture;
    let mut read: Vec<(String, Vec<u8>)> = Vec::new();
    let mut total = 0.0;
    for (i, input) in files.iter().enumerate() {
        out.step(i, files.len() + 1);
        let (name, bytes) = match input {
            protocol::Input::File(side) => {
                let file = sides.file(*side).ok_or("no file in the request")?;
                total += file.size();
                if total > REPORT_BYTES {
                    return Err(format!("{} and the other matrices are more than the page reads again at once (512 MB); rankscope diagnose reads them a class at a time", file.name()));
                }
                (file.name(), JsFuture::from(file.array_buffer()).await)
            }
            protocol::Input::Url { url, name } => {
                let response = JsFuture::from(out.scope.fetch_with_str(url)).await;
                let body = match response
                    .map(|r| r.unchecked_into::<web_sys::Response>().array_buffer())
                {
                    Ok(Ok(promise)) => JsFuture::from(promise).await,
                    _ => Err(JsValue::NULL),
                };
                (name.clone(), body)
            }
        };
        let bytes = bytes.map_err(|_| format!("{name} could not be read again"))?;
        read.push((name, Uint8Array::new(&bytes).to_vec()));
    }
    out.step(files.len(), files.len() + 1);
    read.extend(
        (crate::example::example_files().into_iter()).filter(|(name, _)| example.contains(name)),
    );
    let options = diagnose::Options {
        zero_division: ZeroDivision::named(zero_division).unwrap_or_default(),
        ..Default::default()
    };
    let mut models = diagnose::multiclass_of_files(&read, &options)?;
    // the page's names (a model renamed there) and colours, given in the
    // order the page merged the files, the order read here
    // (else, a model count that differs: the files' names, colours by order)
    let same = names.len() == models.len();
    let mut shown = Vec::with_capacity(models.len());
    for (i, m) in models.iter_mut().enumerate() {
        match names.get(i).filter(|_| same) {
            Some((name, color)) => {
                m.name = name.clone();
                shown.push(*color as usize);
            }
            None => shown.push(i),
        }
    }
    Ok(html::multiclass_report(&models, &shown))
}

/// [`Job::Values`]: the panel of values computed elsewhere
/// ([`crate::values::panel`]) of `files` (a block of
/// [`transfer::encode_many`], each a `Measures`), measure and filter; its
/// Compare view when `alone` (`compare`: the baseline and the tests'
/// settings).
fn values(
    files: &[u8],
    measure: &str,
    filter: &str,
    compare: Option<(Option<&str>, &crate::compare::page::Settings)>,
) -> [String; 3] {
    let files: Vec<crate::parse::Precomputed> = transfer::decode_many(files)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(_, outcome)| match outcome.map(|p| p.into_parts().0) {
            Ok(Parsed::Measures(p)) => Some(p),
            _ => None,
        })
        .collect();
    crate::values::panel(&crate::values::View {
        files: &files,
        measure,
        filter,
        compare,
    })
}

/// [`Job::Relations`]: the relation files of a workspace (a session's
/// bytes) evaluated against its runs with `rankscope trec_eval`
/// ([`crate::trec_relations::evaluate`]): one outcome per (file, run)
/// pair, its values or what trec_eval said.
fn relations(
    session: &[u8],
    version: crate::core::ranking_metrics::TrecEvalVersion,
    out: &mut Out,
) -> Result<Reply, String> {
    let (ws, _, _) = crate::session::decode_session(session)?;
    let outcomes: Vec<(String, Outcome)> = crate::trec_relations::evaluate(&ws.to_files(), version)
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
    let block = transfer::encode_many(&outcomes);
    out.side(Uint8Array::from(&block[..]));
    Ok(Reply::Files)
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

/// [`Job::WarmViews`]: the views' spare's hot code run once, as
/// [`warm_up`] does for the loads': the Diagnostics panel (its curves too,
/// drawn from the same loops) of a curve of 2^17 made-up rows.
fn warm_views() {
    let (mut labels, mut scores) = (Vec::new(), Vec::new());
    let mut x = 0x2545_f491u32;
    for _ in 0..1 << 17 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        labels.push(x % 3 == 0);
        scores.push((x % 1_000_000) as f64 / 1e6);
    }
    let curves = [(
        String::new(),
        std::sync::Arc::new(BinaryCurve::new(&labels, &scores)),
    )];
    let options = crate::diagnose::Options {
        curves: true,
        ..Default::default()
    };
    let panel = diagnostics_panel(&curves, &[0], &[0.5], &options, (0.0, 1.0), &mut |_, _| {});
    std::hint::black_box(panel.ok());
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

/// Parses `part` of `blob` ([`split::parse_part`]) in [`CHUNK`] steps from a
/// [`BlobSource`], progress posted at most every 100 ms. Also gives the time
/// spent waiting for the browser's reads (ms, for the benchmark).
pub(super) async fn parse_blob(
    out: &mut Out,
    blob: &web_sys::Blob,
    name: &str,
    options: LoadOptions,
    part: Part,
) -> (PartEnd, f64) {
    let mut source = BlobSource::new(blob, name);
    let total = blob.size() as u64;
    let mut progress = |done: u64, rows: u64| out.progress(Progress { done, total, rows });
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
    out: &mut Out,
    url: &str,
    name: &str,
    options: LoadOptions,
) -> PartEnd {
    let outcome = download_and_parse(out, url, name, options).await;
    PartEnd {
        outcome,
        split: false,
        lines: 0,
    }
}

pub(super) async fn download_and_parse(
    out: &mut Out,
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
    let scope = out.scope.clone();
    let fetch = Reflect::get(&scope, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| network("this browser's workers cannot download".into()))?;
    let promise: js_sys::Promise = fetch
        .call1(&scope, &url.into())
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
    let (mut bytes, total) = (0u64, length.unwrap_or(0));
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
        let rows = parser.rows_parsed();
        out.progress(Progress {
            done: bytes,
            total,
            rows,
        });
        if parser.stopped() {
            // refused already (too many values, a broken line): the rest is not needed
            let _ = reader.cancel();
            break;
        }
    }
    parser.finish()
}
