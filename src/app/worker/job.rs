//! The page's side of each job: ask a worker, hear its progress, decode its answer.

use super::*;

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
pub(super) type Running = (web_sys::Worker, mpsc::UnboundedSender<Event>, u64);

thread_local! {
    /// The running workers (a drop parses its qrels next to its first run).
    pub(super) static RUNNING: std::cell::RefCell<Vec<Running>> = const { std::cell::RefCell::new(Vec::new()) };
    pub(super) static NEXT_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The main block of a worker's answer, copied into wasm memory.
pub(super) fn answer_bytes(data: &JsValue) -> Result<Vec<u8>, String> {
    get(data, "data")
        .dyn_into::<Uint8Array>()
        .map(|a| a.to_vec())
        .map_err(|_| "no data in the worker's answer".to_string())
}

/// The columns of the worker's answer, as a side channel (`room`: its
/// score columns with room for as many rows again).
pub(super) fn side_of(data: &JsValue, room: bool) -> JsSide {
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
pub(super) fn curves_block(data: &JsValue) -> Option<Vec<u8>> {
    get(data, "curves")
        .dyn_into::<Uint8Array>()
        .ok()
        .map(|c| c.to_vec())
}

/// Decodes the worker's result, with its stage times (`room`: see [`side_of`]).
pub(super) fn decode(data: &JsValue, room: bool) -> (Result<Outcome, String>, Object) {
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
pub(super) fn times_of(data: &JsValue, t0: f64) -> Object {
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
pub(super) fn keep_times(times: &Object) {
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
pub(super) enum Job {
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
pub(super) async fn whole(request: &Object, progress: &mut dyn FnMut(u64, u64)) -> Ended {
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
pub(super) fn join_second(
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
pub(super) enum Half {
    Decoded(PartEnd, Object),
    Cancelled,
    Broken(String),
}

/// Whether `file` may be a large binary CSV or multi-class matrix worth
/// parsing in two parts (the workers decide from its header; a file that
/// does not split costs the second worker only its header).
pub(super) fn may_split(file: &web_sys::File, options: &LoadOptions) -> bool {
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
                crate::app::util::later(50, warm);
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
    files: Vec<Source>,
    example_files: Vec<String>,
) -> Result<Vec<crate::core::evaluate::BinaryData>, String> {
    let options = LoadOptions {
        one_vs_rest: Some(class),
        ..Default::default()
    };
    let mut outcomes: Vec<Outcome> = Vec::new();
    for source in &files {
        let ended = match source {
            Source::File(file) => parse_file(file, &options, |_, _| {}).await,
            Source::Url(url, name) => parse_url(url, name, &options, &mut |_, _| {}).await,
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

/// The multi-class report of every loaded matrix (classification report,
/// confusion matrix, ROC AUCs, each class against the rest), from a worker
/// that reads the files again, and the bundled example's files named in
/// `example` ([`answer_class_report`]).
pub async fn class_report(
    files: Vec<Source>,
    example: Vec<String>,
    zero_division: &str,
    models: Vec<(String, usize)>,
) -> Result<String, String> {
    let list = js_sys::Array::new();
    for source in &files {
        match source {
            Source::File(file) => list.push(file),
            Source::Url(url, name) => list.push(&js_sys::Array::of2(&url.into(), &name.into())),
        };
    }
    let request = message(
        "class_report",
        &[
            ("files", list.into()),
            (
                "example_files",
                (example.iter())
                    .map(JsValue::from)
                    .collect::<js_sys::Array>()
                    .into(),
            ),
            ("zero_division", zero_division.into()),
            // the page's names (renamed ones) and colours, in the merged order
            (
                "names",
                models
                    .iter()
                    .map(|m| JsValue::from(&m.0))
                    .collect::<js_sys::Array>()
                    .into(),
            ),
            (
                "colors",
                models
                    .iter()
                    .map(|m| JsValue::from(m.1 as u32))
                    .collect::<js_sys::Array>()
                    .into(),
            ),
        ],
    );
    match run(&request, &mut |_, _| {}, false).await {
        Job::Done(data) => Ok(get(&data, "html").as_string().unwrap_or_default()),
        Job::Broken(why) => Err(why),
        Job::Cancelled => Err("cancelled".into()),
    }
}

thread_local! {
    /// The running significance job's cancel handle: replacing or dropping it
    /// stops that job's worker.
    pub(super) static COMPARING: std::cell::RefCell<Option<futures::channel::oneshot::Sender<()>>> =
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

/// The Diagnostics panel of `models` (name, colour index, curve, its
/// threshold's place on the score axis) from a
/// worker of its own ([`answer_diagnose`]); `Err("")` when it stopped.
pub async fn diagnose(
    models: &[(
        String,
        usize,
        std::sync::Arc<crate::core::binary::BinaryCurve>,
        f64,
    )],
    options: &str,
    logits: bool,
    rule: &str,
    (lo, hi): (f64, f64),
) -> Result<String, String> {
    let curves = js_sys::Array::new();
    for (name, color, c, at) in models {
        let entry = js_sys::Array::new();
        entry.push(&name.into());
        entry.push(&(*color as f64).into());
        entry.push(&Uint8Array::from(bytemuck::cast_slice::<f64, u8>(
            &c.thresholds,
        )));
        entry.push(&Uint8Array::from(bytemuck::cast_slice::<u64, u8>(&c.tps)));
        entry.push(&Uint8Array::from(bytemuck::cast_slice::<u64, u8>(&c.fps)));
        entry.push(&(*at).into());
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

/// Metric table `table` in export `format` ([`crate::report::Table::export`]),
/// written by a spare worker.
pub async fn export(
    table: &crate::report::Table,
    format: crate::report::Export,
) -> Result<String, String> {
    let bytes = postcard::to_allocvec(table).map_err(|_| "the table could not be sent")?;
    let request = message(
        "export",
        &[
            ("table", Uint8Array::from(&bytes[..]).into()),
            ("format", crate::core::Named::name(format).into()),
        ],
    );
    text(request).await
}

/// A text a worker writes (its answer's `text`).
async fn text(request: Object) -> Result<String, String> {
    match run(&request, &mut |_, _| {}, false).await {
        Job::Done(data) => Ok(get(&data, "text").as_string().unwrap_or_default()),
        Job::Broken(why) => Err(why),
        Job::Cancelled => Err("cancelled".into()),
    }
}

/// trec_eval's `-q` output of a workspace sent as a session (its view's
/// conventions and hidden runs): trec_eval's official measures and the
/// table's `columns` (ids, comma-separated), written in a worker
/// ([`answer_trec_eval`]).
pub async fn trec_eval_q(session: &[u8], columns: &str) -> Result<String, String> {
    let request = message(
        "trec_eval",
        &[
            ("data", Uint8Array::from(session).into()),
            ("columns", columns.into()),
        ],
    );
    text(request).await
}

/// A saved report's HTML ([`crate::session::report_html`]): the session
/// and the app's files at `urls` (stylesheet, JavaScript, wasm), fetched
/// again and written in a worker ([`answer_report`]).
pub async fn report(title: &str, urls: [String; 3], session: &[u8]) -> Result<String, String> {
    let [css, js, wasm] = urls;
    let request = message(
        "report",
        &[
            ("title", title.into()),
            ("css", css.into()),
            ("js", js.into()),
            ("wasm", wasm.into()),
            ("data", Uint8Array::from(session).into()),
        ],
    );
    text(request).await
}

/// Stops the running significance job, if any.
pub fn cancel_compare() {
    COMPARING.with(|c| c.take());
}
