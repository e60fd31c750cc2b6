//! Workers started ahead of need, and running one job on one.

use super::*;

/// Workers started ahead of need: starting one (fetching and compiling its
/// wasm) takes 0.1-0.2 s, which a drop would otherwise wait for. Two, as a
/// large binary CSV takes two at once.
pub(super) const SPARES: usize = 2;

/// A started worker waiting for a job, and whether its wasm is running yet.
pub(super) struct Spare {
    worker: web_sys::Worker,
    ready: std::rc::Rc<std::cell::Cell<bool>>,
    failed: std::rc::Rc<std::cell::Cell<bool>>,
    _on_message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::Event)>,
}

thread_local! {
    pub(super) static SPARE: std::cell::RefCell<Vec<Spare>> = const { std::cell::RefCell::new(Vec::new()) };
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
        while spares.len() < SPARES {
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
                        let _ = w.post_message(&wire(0, &Job::Warm, &[]));
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
pub(super) fn take_worker() -> Result<(web_sys::Worker, bool), JsValue> {
    let spare = SPARE.with(|s| {
        let mut spares = s.borrow_mut();
        let i = spares.iter().position(|w| !w.failed.get())?;
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

/// Runs `job` (its `sides` beside it) on a worker: a spare, or one of its
/// own when its `lane` says so ([`Lane::fresh`]). Relays its progress,
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
    let worker = if lane.fresh() {
        web_sys::Worker::new(script()).map(|w| (w, false))
    } else {
        take_worker()
    };
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
    RUNNING.with(|r| r.borrow_mut().push((worker.clone(), tx, id)));
    // the worker stops when this job ends, however it ends (a load dropped
    // half-way by the page too)
    struct Finish(web_sys::Worker, Id);
    impl Drop for Finish {
        fn drop(&mut self) {
            // a message already queued (a progress report) must find no
            // listener: the closures go with this job, even one dropped half-way
            self.0.set_onmessage(None);
            self.0.set_onerror(None);
            self.0.terminate();
            let id = self.1;
            BOOK.with(|b| b.borrow_mut().end(id));
            RUNNING.with(|r| r.borrow_mut().retain(|x| x.2 != id));
        }
    }
    let finish = Finish(worker.clone(), id);
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
            Some(Event::Reply(_, Reply::Progress(p), _)) => progress(p),
            Some(Event::Reply(_, Reply::Failed(why), _)) => break Ran::Broken(why),
            // the worker's memory goes back before the page's grows
            Some(Event::Reply(_, reply, sides)) => break Ran::Done(reply, sides),
            Some(Event::Cancelled) | None => break Ran::Cancelled,
            Some(Event::Failed(why)) => break Ran::Broken(why),
        }
    };
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
