//! Workers started ahead of need, and running one job on one.

use super::*;

/// Workers started ahead of need: starting one (fetching and compiling its
/// wasm) takes 0.1-0.2 s, which a drop would otherwise wait for. Two, as a
/// large binary CSV takes two at once.
pub(super) const SPARES: usize = 2;

/// One more started for the views' jobs, which loads do not take: the
/// Diagnostics panel a binary drop shows next finds it warm while the
/// loads' spares start again.
pub(super) const VIEW_SPARES: usize = 1;

/// The most bytes a job may send beside it for its worker to be kept
/// ([`Lane::keeps`]): a worker's memory only grows, so one that read more
/// goes when its job ends.
pub(super) const KEEP_BYTES: f64 = 32e6;

/// A worker kept after its job for the next job of its lane.
pub(super) struct Kept {
    lane: Lane,
    worker: web_sys::Worker,
    failed: std::rc::Rc<std::cell::Cell<bool>>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

/// A started worker waiting for a job, and whether its wasm is running yet.
pub(super) struct Spare {
    worker: web_sys::Worker,
    /// Kept for the views' jobs ([`VIEW_SPARES`]).
    view: bool,
    ready: std::rc::Rc<std::cell::Cell<bool>>,
    failed: std::rc::Rc<std::cell::Cell<bool>>,
    _on_message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

thread_local! {
    pub(super) static SPARE: std::cell::RefCell<Vec<Spare>> = const { std::cell::RefCell::new(Vec::new()) };
    pub(super) static KEPT: std::cell::RefCell<Vec<Kept>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The worker kept for `lane`'s jobs, if one is and it has not failed.
fn take_kept(lane: Lane) -> Option<web_sys::Worker> {
    let kept = KEPT.with(|k| {
        let mut kept = k.borrow_mut();
        let i = kept.iter().position(|w| w.lane == lane)?;
        Some(kept.remove(i))
    })?;
    kept.worker.set_onerror(None);
    if kept.failed.get() {
        kept.worker.terminate();
        return None;
    }
    Some(kept.worker)
}

/// Keeps `worker`, its job of `lane` answered, for the lane's next job
/// (its listener gone: a message it sends now is not heard; an error
/// marks it failed, and it is not used again).
fn keep(lane: Lane, worker: web_sys::Worker) {
    if let Some(old) = take_kept(lane) {
        old.terminate();
    }
    let failed = std::rc::Rc::new(std::cell::Cell::new(false));
    let f = failed.clone();
    let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        f.set(true);
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    KEPT.with(|k| {
        k.borrow_mut().push(Kept {
            lane,
            worker,
            failed,
            _on_error: on_error,
        })
    });
}

/// Starts workers until [`SPARES`] wait for jobs (called once the page has
/// loaded its example, and after every job: a job's worker is not reused, so
/// its memory goes back at once). Not while another job runs: starting a
/// worker (its script, its wasm compiled on background threads) next to a
/// parse and the page's decode slowed a 10M-line run's load by 0.1-0.5 s;
/// the last job to end starts them.
pub fn warm() {
    if BOOK.with(|b| b.borrow().busy()) {
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
        let count =
            |spares: &Vec<Spare>, view: bool| spares.iter().filter(|w| w.view == view).count();
        while count(&spares, false) < SPARES || count(&spares, true) < VIEW_SPARES {
            let view = count(&spares, false) >= SPARES;
            let Ok(worker) = web_sys::Worker::new(script()) else {
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
                    if let Ok((_, Reply::Ready, _)) = unwire(&e.data()) {
                        r.set(true);
                        let warm = if view { Job::WarmViews } else { Job::Warm };
                        let _ = w.post_message(&wire(0, &warm, &[]));
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
                view,
                ready,
                failed,
                _on_message: on_message,
                _on_error: on_error,
            });
        }
    });
}

/// How long a view's job runs before its line shows (what, progress,
/// Cancel): a quick answer shows none.
pub(super) const SHOW_AFTER_MS: i32 = 250;

/// A running job's line: its id, what it is ([`Lane::title`]), done and total steps.
type Shown = (Id, &'static str, u64, u64);

thread_local! {
    /// The lines of the running view jobs, [`JobsStatus`]'s signal (set when it is drawn).
    static SHOWN: std::cell::Cell<Option<leptos::prelude::RwSignal<Vec<Shown>>>> = const { std::cell::Cell::new(None) };
}

/// Changes job `id`'s line, if it is shown (`add`: shows it).
fn line(id: Id, add: Option<&'static str>, change: impl FnOnce(&mut Vec<Shown>)) {
    use leptos::prelude::*;
    let Some(lines) = SHOWN.with(|s| s.get()) else {
        return;
    };
    if add.is_some() || lines.with_untracked(|v| v.iter().any(|j| j.0 == id)) {
        lines.update(change);
    }
}

/// Stops job `id` (its line's Cancel): its worker terminated, its caller
/// told it was cancelled; the other jobs go on.
pub fn cancel_job(id: Id) {
    stop(BOOK.with(|b| b.borrow_mut().cancel_job(id)));
}

/// The running view jobs, each a line with its progress and a Cancel, once
/// it has run for [`SHOW_AFTER_MS`] (the loads and the tests have their own).
#[leptos::component]
pub fn JobsStatus() -> impl leptos::IntoView {
    use leptos::prelude::*;
    let lines = RwSignal::new(Vec::<Shown>::new());
    SHOWN.with(|s| s.set(Some(lines)));
    let cancel = move |ev: web_sys::MouseEvent| {
        let button = crate::app::util::clicked(&ev, "button[data-job]");
        if let Some(id) = button.and_then(|b| b.get_attribute("data-job")?.parse().ok()) {
            cancel_job(id);
        }
    };
    let html = move || {
        lines.with(|v| {
            (v.iter())
                .map(|&(id, what, done, total)| {
                    let steps = if total > 0 {
                        format!(" {done} of {total} steps")
                    } else {
                        String::new()
                    };
                    format!(r#"<p class="job" role="status">{what}…{steps} <button class="small" data-job="{id}">Cancel</button></p>"#)
                })
                .collect::<String>()
        })
    };
    view! { <div class="jobs" on:click=cancel inner_html=html></div> }
}

/// A started worker (and whether it is ready) for a job of `lane`, else a
/// new one: a load takes a loads' spare, a view's job the views' spare first.
pub(super) fn take_worker(lane: Lane) -> Result<(web_sys::Worker, bool), JsValue> {
    let spare = SPARE.with(|s| {
        let mut spares = s.borrow_mut();
        let view = lane != Lane::Load;
        let usable = |w: &Spare| !w.failed.get() && (view || !w.view);
        let i = (spares.iter().position(|w| usable(w) && w.view == view))
            .or_else(|| spares.iter().position(usable))?;
        Some(spares.remove(i))
    });
    match spare {
        Some(spare) => Ok((spare.worker.clone(), spare.ready.get())),
        None => web_sys::Worker::new(script()).map(|w| (w, false)),
    }
}

/// Why a job did not run: the browser refused the page a worker (`dist/`
/// opened from a file; a saved report or a notebook's dashboard, which start
/// the worker they carry, in a frame that allows none). Each view says it.
pub const NO_WORKER: &str = "the loading worker could not start: this browser or frame allows the page none (a page of dist/ opened from a file, a sandboxed notebook output); open the data in Rankscope served over http(s), or use the command line";

/// Runs `job` (its `sides` beside it) on a worker: the one kept for its
/// `lane` ([`Lane::keeps`]), else a spare, or one of its own when the lane
/// says so ([`Lane::fresh`]). Relays its progress,
/// returns its answer. A newer job of an exclusive lane cancels this one
/// ([`protocol::Book`]): its worker is terminated, and a reply that arrived
/// meanwhile is not returned.
///
/// A page the browser allows no worker gets [`NO_WORKER`].
pub(super) async fn run(
    job: &Job,
    sides: &[JsValue],
    lane: Lane,
    progress: &mut dyn FnMut(Progress),
) -> Ran {
    let worker = match lane.keeps().then(|| take_kept(lane)).flatten() {
        Some(kept) => Ok((kept, true)),
        None if lane.fresh() => web_sys::Worker::new(script()).map(|w| (w, false)),
        None => take_worker(lane),
    };
    // what the job sends beside it, to decide whether its worker is kept
    let sent_bytes: f64 = (sides.iter())
        .filter_map(|s| s.dyn_ref::<js_sys::Uint8Array>())
        .map(|a| a.byte_length() as f64)
        .sum();
    let (worker, ready) = match worker {
        Ok(w) => w,
        // the browser refuses one (a page of dist/ opened from a file, a
        // sandboxed frame): say what works instead
        Err(_) => return Ran::Broken(NO_WORKER.into()),
    };
    let (tx, mut rx) = mpsc::unbounded::<Event>();
    if ready {
        let _ = tx.unbounded_send(Event::Reply(0, Reply::Ready, Sides::default()));
    }
    let on_tx = tx.clone();
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let event = match unwire(&e.data()) {
                Ok((id, reply, sides)) => Event::Reply(id, reply, sides),
                Err(why) => Event::Failed(why),
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
                format!(
                    "the loading worker could not start ({} did not load)",
                    script()
                )
            });
        let _ = err_tx.unbounded_send(Event::Failed(what));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let (id, superseded) = BOOK.with(|b| b.borrow_mut().start(lane));
    stop(superseded);
    if let Some(what) = lane.title() {
        crate::app::util::later(SHOW_AFTER_MS, move || {
            if BOOK.with(|b| b.borrow().wants(id)) {
                line(id, Some(what), |v| v.push((id, what, 0, 0)));
            }
        });
    }
    RUNNING.with(|r| r.borrow_mut().push((worker.clone(), tx, id)));
    // the worker stops when this job ends, however it ends (a load dropped
    // half-way by the page too), unless its lane keeps it after an answer
    struct Finish(web_sys::Worker, Id, Option<Lane>);
    impl Drop for Finish {
        fn drop(&mut self) {
            // a message already queued (a progress report) must find no
            // listener: the closures go with this job, even one dropped half-way
            self.0.set_onmessage(None);
            self.0.set_onerror(None);
            match self.2 {
                Some(lane) => keep(lane, self.0.clone()),
                None => self.0.terminate(),
            }
            let id = self.1;
            BOOK.with(|b| b.borrow_mut().end(id));
            RUNNING.with(|r| r.borrow_mut().retain(|x| x.2 != id));
            line(id, None, |v| v.retain(|j| j.0 != id));
        }
    }
    let mut finish = Finish(worker.clone(), id, None);
    let mut sent = false;
    let result = loop {
        let event = rx.next().await;
        // cancelled meanwhile: what the worker sent is not wanted
        if !BOOK.with(|b| b.borrow().wants(id)) {
            break Ran::Cancelled;
        }
        match event {
            // the worker's wasm runs: now it can take the job
            Some(Event::Reply(_, Reply::Ready, _)) if !sent => {
                sent = true;
                let message = wire(id, job, sides);
                if let Err(e) = worker.post_message_with_transfer(&message, &transfers(&message)) {
                    break Ran::Broken(format!("the request could not be sent ({e:?})"));
                }
            }
            Some(Event::Reply(_, Reply::Ready, _)) => {}
            // another job's reply (none should reach this worker's
            // listener); 0: a message the worker could not read
            Some(Event::Reply(from, _, _)) if from != id && from != 0 => {}
            Some(Event::Reply(_, Reply::Progress(p), _)) => {
                progress(p);
                line(id, None, |v| {
                    if let Some(j) = v.iter_mut().find(|j| j.0 == id) {
                        (j.2, j.3) = (p.done, p.total);
                    }
                });
            }
            Some(Event::Reply(_, Reply::Failed(why), _)) => break Ran::Broken(why),
            // the worker's memory goes back before the page's grows
            Some(Event::Reply(_, reply, sides)) => break Ran::Done(reply, sides),
            Some(Event::Cancelled) | None => break Ran::Cancelled,
            Some(Event::Failed(why)) => break Ran::Broken(why),
        }
    };
    if matches!(result, Ran::Done(..)) && lane.keeps() && sent_bytes <= KEEP_BYTES {
        finish.2 = Some(lane);
    }
    drop(finish);
    drop((on_message, on_error));
    // after the page has used the answer (a worker starting next to the
    // first render of the example would slow it)
    crate::app::util::later(50, warm);
    result
}

/// Terminates the workers of jobs `ids` (no longer in the book); their
/// callers hear they were cancelled.
pub(super) fn stop(ids: Vec<Id>) {
    RUNNING.with(|r| {
        r.borrow_mut().retain(|(worker, tx, id)| {
            if !ids.contains(id) {
                return true;
            }
            worker.terminate();
            let _ = tx.unbounded_send(Event::Cancelled);
            false
        })
    });
}
