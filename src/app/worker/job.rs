//! The page's side of each job: ask a worker, hear its progress, decode its answer.

use super::*;

/// What the page hears from a worker.
pub(super) enum Event {
    /// A reply of job `id` (0: `Ready`) and what came beside it.
    Reply(Id, Reply, Sides),
    /// The worker could not start or died, or sent something unreadable.
    Failed(String),
    Cancelled,
}

/// A running worker, the way to tell its reader it was cancelled, and its job's id.
pub(super) type Running = (web_sys::Worker, mpsc::UnboundedSender<Event>, Id);

thread_local! {
    /// The running jobs' workers (a drop parses its qrels next to its first run).
    pub(super) static RUNNING: std::cell::RefCell<Vec<Running>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Which jobs run, in which lane ([`protocol::Book`]).
    pub(super) static BOOK: std::cell::RefCell<protocol::Book> = std::cell::RefCell::new(protocol::Book::default());
}

/// The parse's answer `p` decoded, with its stage times (`room`: its
/// score columns with room for as many rows again, see [`JsSide`]).
pub(super) fn decode(
    p: &protocol::Parsed,
    sides: &Sides,
    room: bool,
) -> (Result<Outcome, String>, Object) {
    let t0 = js_sys::Date::now();
    let bytes = sides.bytes(protocol::Parsed::DATA);
    if p.per_query {
        return (transfer::decode_per_query(&bytes), times_of(p, t0));
    }
    let side = side_of(sides, room);
    let mut decoded = transfer::decode_with(&bytes, Box::new(side.clone()));
    // the curves the worker built, their columns after the file's
    if let Ok(outcome) = &mut decoded {
        if let Err(why) = transfer::attach_curves_with(
            outcome,
            &sides.bytes(protocol::Parsed::CURVES),
            Box::new(side),
        ) {
            decoded = Err(format!("the worker's curves do not fit its data ({why})"));
        }
    }
    (decoded, times_of(p, t0))
}

/// The big columns of a parse's answer, as a side channel.
pub(super) fn side_of(sides: &Sides, room: bool) -> JsSide {
    let columns = (sides.0.iter().skip(protocol::Parsed::COLUMNS as usize))
        .filter_map(|c| c.dyn_ref::<Uint8Array>().cloned())
        .collect();
    JsSide {
        columns: std::rc::Rc::new(std::cell::RefCell::new(columns)),
        room,
    }
}

/// The worker's stage times and the page's decode (begun at `t0`).
pub(super) fn times_of(p: &protocol::Parsed, t0: f64) -> Object {
    let t = &p.times;
    object(&[
        ("parse_ms", t.parse_ms.into()),
        ("curves_ms", t.curves_ms.into()),
        ("read_ms", t.read_ms.into()),
        ("encode_ms", t.encode_ms.into()),
        ("began_at", t.began_at.into()),
        ("posted_at", t.posted_at.into()),
        ("decode_began_at", t0.into()),
        ("decode_ms", (js_sys::Date::now() - t0).into()),
    ])
}

/// Leaves a load's stage times where the browser benchmark reads them
/// (`globalThis.rankscopeLastLoad`).
pub(super) fn keep_times(times: &Object) {
    let _ = Reflect::set(&js_sys::global(), &"rankscopeLastLoad".into(), times);
}

/// Stops every running load (nothing loaded before is touched; the views'
/// jobs go on).
pub fn cancel() {
    stop(BOOK.with(|b| b.borrow_mut().cancel_loads()));
}

/// How a load in a worker ended.
pub enum Ended {
    Loaded(Outcome),
    Cancelled,
    /// The worker failed or sent something unreadable.
    Broken(String),
}

/// How a job in a worker ended: its answer and what came beside it, or why
/// there is none.
pub(super) enum Ran {
    Done(Reply, Sides),
    Cancelled,
    Broken(String),
}

/// A job's answer and what came beside it; `cancelled` when it was
/// cancelled, an error when the worker failed.
async fn ask(
    job: Job,
    sides: &[JsValue],
    lane: Lane,
    cancelled: &str,
) -> Result<(Reply, Sides), String> {
    match run(&job, sides, lane, &mut |_| {}).await {
        Ran::Done(reply, sides) => Ok((reply, sides)),
        Ran::Cancelled => Err(cancelled.into()),
        Ran::Broken(why) => Err(why),
    }
}

fn unexpected() -> String {
    "an unexpected answer from the loading worker".into()
}

/// A byte array holding a copy of `bytes` (its buffer transferred to the worker).
fn bytes(bytes: &[u8]) -> JsValue {
    Uint8Array::from(bytes).into()
}

/// Parses `file` in a worker, calling `progress(bytes, rows)` as it goes; a
/// large binary CSV or multi-class matrix in two workers at once, as a head
/// and a tail ([`split`]).
pub async fn parse_file(
    file: &web_sys::File,
    options: &LoadOptions,
    progress: impl FnMut(u64, u64),
) -> Ended {
    let job = |part: Part| Job::Parse {
        input: protocol::Input::File(Side(0)),
        options: options.into(),
        part,
    };
    let sides = [JsValue::from(file)];
    if !may_split(file, options) {
        let mut progress = progress;
        return whole(&job(Part::Whole), &sides, &mut progress).await;
    }
    // both parts' progress, summed
    let shared = std::rc::Rc::new(std::cell::RefCell::new((progress, [(0u64, 0u64); 2])));
    let meter = |i: usize| {
        let shared = shared.clone();
        move |p: Progress| {
            let (progress, parts) = &mut *shared.borrow_mut();
            parts[i] = (p.done, p.rows);
            progress(parts[0].0 + parts[1].0, parts[0].1 + parts[1].1);
        }
    };
    let (head, tail) = (job(Part::Head), job(Part::Tail));
    // the part whose worker answers first is decoded at once, while the other
    // may still work; the second is read around the first's rows
    // (`split::join_around`), so the joined columns are written only once
    let half = |ran: Ran, room: bool| match ran {
        Ran::Done(Reply::Parsed(p), sides) => {
            let (decoded, times) = decode(&p, &sides, room);
            match decoded {
                Ok(outcome) => Half::Decoded(
                    PartEnd {
                        outcome,
                        split: p.split,
                        lines: p.lines,
                    },
                    times,
                ),
                Err(why) => Half::Broken(why),
            }
        }
        Ran::Done(..) => Half::Broken(unexpected()),
        Ran::Cancelled => Half::Cancelled,
        Ran::Broken(why) => Half::Broken(why),
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
    let answered = |is_head: bool, ran: Ran| {
        let Some(other) = first.borrow_mut().take() else {
            *first.borrow_mut() = Some(half(ran, true));
            return None;
        };
        Some(match (other, ran) {
            (Half::Decoded(end, first_times), Ran::Done(Reply::Parsed(p), sides))
                if split::can_join_around(&end, p.split) =>
            {
                join_second(&name, end, first_times, is_head, &p, &sides)
            }
            (other, ran) => {
                let this = half(ran, false);
                if is_head {
                    both(this, other)
                } else {
                    both(other, this)
                }
            }
        })
    };
    let (a, b) = futures::join!(
        async { answered(true, run(&head, &sides, Lane::Load, &mut meter(0)).await) },
        async { answered(false, run(&tail, &sides, Lane::Load, &mut meter(1)).await) }
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
    let job = Job::Parse {
        input: protocol::Input::Url {
            url: url.into(),
            name: name.into(),
        },
        options: options.into(),
        part: Part::Whole,
    };
    whole(&job, &[], progress).await
}

/// One worker's job of a whole file (a drop's file or a URL), decoded.
pub(super) async fn whole(
    job: &Job,
    sides: &[JsValue],
    progress: &mut dyn FnMut(u64, u64),
) -> Ended {
    match run(job, sides, Lane::Load, &mut |p| progress(p.done, p.rows)).await {
        Ran::Done(Reply::Parsed(p), sides) => {
            let (decoded, times) = decode(&p, &sides, false);
            keep_times(&times);
            match decoded {
                Ok(outcome) => Ended::Loaded(outcome),
                Err(why) => Ended::Broken(why),
            }
        }
        Ran::Done(..) => Ended::Broken(unexpected()),
        Ran::Cancelled => Ended::Cancelled,
        Ran::Broken(why) => Ended::Broken(why),
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
    p: &protocol::Parsed,
    sides: &Sides,
) -> Ended {
    let t0 = js_sys::Date::now();
    let joined = split::join_around(
        name,
        first,
        !is_head,
        (true, p.lines),
        &sides.bytes(protocol::Parsed::DATA),
        &sides.bytes(protocol::Parsed::CURVES),
        Box::new(side_of(sides, false)),
    );
    let second_times = times_of(p, t0);
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
    let job = Job::Example {
        only: None,
        one_vs_rest: None,
    };
    let files = files_block(ask(job, &[], Lane::Load, "cancelled").await?)?;
    transfer::decode_many(&files)
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
        let job = Job::Example {
            only: Some(example_files),
            one_vs_rest: Some(class),
        };
        let block = files_block(ask(job, &[], Lane::Load, "cancelled").await?)?;
        outcomes.extend(transfer::decode_many(&block)?.into_iter().map(|(_, o)| o));
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
/// `example`; `Err("")` when a newer job of the view superseded it.
pub async fn class_report(
    files: Vec<Source>,
    example: Vec<String>,
    zero_division: &str,
    models: Vec<(String, usize)>,
) -> Result<String, String> {
    let mut sides = Vec::new();
    let files = (files.into_iter())
        .map(|source| match source {
            Source::File(file) => {
                sides.push(file.into());
                protocol::Input::File(Side(sides.len() as u32 - 1))
            }
            Source::Url(url, name) => protocol::Input::Url { url, name },
        })
        .collect();
    let job = Job::ClassReport {
        files,
        example,
        zero_division: zero_division.into(),
        // the page's names (renamed ones) and colours, in the merged order
        models: (models.into_iter()).map(|(n, c)| (n, c as u32)).collect(),
    };
    text_of(ask(job, &sides, Lane::Classes, "").await?)
}

/// A block of parsed files (`transfer::encode_many`), the answer of the
/// example and the relation files.
fn files_block((reply, sides): (Reply, Sides)) -> Result<Vec<u8>, String> {
    match reply {
        Reply::Files => Ok(sides.bytes(Side(0))),
        _ => Err(unexpected()),
    }
}

/// A text or a panel's HTML, the answer of the jobs that write one.
fn text_of((reply, _): (Reply, Sides)) -> Result<String, String> {
    match reply {
        Reply::Text(text) => Ok(text),
        _ => Err(unexpected()),
    }
}

/// Runs the significance tests of `request` ([`crate::compare::page::ask`]'s
/// bytes) in a worker: the answer's cells and panel, `Err("")` when
/// cancelled (by [`cancel_compare`] or a newer request).
pub async fn compare(
    request: &[u8],
    auc: bool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Vec<f64>, String), String> {
    let job = Job::Compare {
        request: Side(0),
        auc,
    };
    let progress = &mut |p: Progress| progress(p.done, p.total);
    match run(&job, &[bytes(request)], Lane::Compare, progress).await {
        Ran::Done(Reply::Compared { cells, html }, _) => Ok((cells, html)),
        Ran::Done(..) => Err(unexpected()),
        Ran::Broken(why) => Err(why),
        Ran::Cancelled => Err(String::new()),
    }
}

/// Runs `rankscope trec_eval` on the relation files of a workspace (sent
/// as a session's bytes) against its runs in a worker of its own: one
/// outcome per (file, run) pair.
pub async fn relations(
    session: &[u8],
    version: crate::core::ranking_metrics::TrecEvalVersion,
) -> Result<Vec<(String, Outcome)>, String> {
    let job = Job::Relations {
        session: Side(0),
        version,
    };
    let block = files_block(ask(job, &[bytes(session)], Lane::Relations, "").await?)?;
    transfer::decode_many(&block)
}

/// The panel of values computed elsewhere from a worker: `files` a block of
/// [`transfer::encode_many`]; its Compare view (`alone`) under `tests`
/// against `baseline`.
pub async fn values(
    files: &[u8],
    measure: &str,
    filter: &str,
    (tests, baseline): (crate::compare::page::Settings, Option<String>),
    alone: bool,
) -> Result<[String; 3], String> {
    let job = Job::Values {
        files: Side(0),
        measure: measure.into(),
        filter: filter.into(),
        tests,
        baseline,
        alone,
    };
    match ask(job, &[bytes(files)], Lane::Values, "").await? {
        (Reply::Values(parts), _) => Ok(parts),
        _ => Err(unexpected()),
    }
}

/// The Diagnostics panel of `models` (name, colour index, curve, its
/// threshold's place on the score axis) from a worker, for the view of
/// `lane`; `Err("")` when it stopped.
pub async fn diagnose(
    models: &[(
        String,
        usize,
        std::sync::Arc<crate::core::binary::BinaryCurve>,
        f64,
    )],
    options: &str,
    logits: bool,
    rule: crate::core::binary::ThresholdRule,
    range: (f64, f64),
    lane: Lane,
) -> Result<String, String> {
    let mut sides = Vec::new();
    let mut side = |b: &[u8]| {
        sides.push(bytes(b));
        Side(sides.len() as u32 - 1)
    };
    let models = (models.iter())
        .map(|(name, color, c, at)| protocol::Curve {
            name: name.clone(),
            color: *color as u32,
            thresholds: side(bytemuck::cast_slice(&c.thresholds)),
            tps: side(bytemuck::cast_slice(&c.tps)),
            fps: side(bytemuck::cast_slice(&c.fps)),
            at: *at,
        })
        .collect();
    let job = Job::Diagnose {
        models,
        options: options.into(),
        logits,
        rule,
        range,
    };
    // a spare: after a drop the spares start as its parse ends, so one is
    // further along than a worker started now (it is not warmed up first)
    crate::app::util::mark("rankscope:diagnose:asked");
    let answer = ask(job, &sides, lane, "").await;
    crate::app::util::mark("rankscope:diagnose:answered");
    text_of(answer?)
}

/// Metric table `table` in export `format` ([`crate::report::Table::export`]),
/// written by a spare worker.
pub async fn export(
    table: crate::report::Table,
    format: crate::report::Export,
) -> Result<String, String> {
    let job = Job::Export { table, format };
    text(job, &[]).await
}

/// A text a worker writes; `Err("")` when cancelled (its line's Cancel).
async fn text(job: Job, sides: &[JsValue]) -> Result<String, String> {
    text_of(ask(job, sides, Lane::Export, "").await?)
}

/// trec_eval's `-q` output of a workspace sent as a session (its view's
/// conventions and hidden runs): trec_eval's official measures and the
/// table's `columns`, written in a worker.
pub async fn trec_eval_q(
    session: &[u8],
    columns: Vec<crate::core::registry::MetricId>,
) -> Result<String, String> {
    let job = Job::TrecEval {
        session: Side(0),
        columns,
    };
    text(job, &[bytes(session)]).await
}

/// A saved report's HTML ([`crate::session::report_html`]): the session
/// and the app's files at `urls` (stylesheet, JavaScript, wasm), fetched
/// again and written in a worker.
pub async fn report(title: &str, urls: [String; 3], session: &[u8]) -> Result<String, String> {
    let job = Job::Report {
        title: title.into(),
        urls,
        session: Side(0),
    };
    text(job, &[bytes(session)]).await
}

/// Stops the running significance job, if any.
pub fn cancel_compare() {
    stop(BOOK.with(|b| b.borrow_mut().cancel(Lane::Compare)));
}

/// The leaderboard's tests of one metric's runs × queries `matrix`; in
/// the board's lane (`export` false) a newer request stops this one, which
/// then returns `None`; an export's run side by side.
pub async fn leaderboard(
    matrix: &[f64],
    tests: protocol::BoardTests,
    export: bool,
) -> Option<Result<protocol::Ranked, String>> {
    let lane = if export { Lane::Export } else { Lane::Board };
    let values: Vec<u8> = matrix.iter().flat_map(|v| v.to_le_bytes()).collect();
    let job = Job::Leaderboard {
        request: Side(0),
        values: Side(1),
    };
    let sides = [bytes(&protocol::encode_board(&tests)), bytes(&values)];
    match run(&job, &sides, lane, &mut |_| {}).await {
        Ran::Done(Reply::Board, sides) => Some(protocol::decode_board(&sides.bytes(Side(0)))),
        Ran::Done(..) => Some(Err(unexpected())),
        Ran::Broken(why) => Some(Err(why)),
        Ran::Cancelled => None,
    }
}
