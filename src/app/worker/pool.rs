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
pub(super) fn take_worker() -> Result<(web_sys::Worker, bool), JsValue> {
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

/// Why a job did not run: the browser refused the page a worker (`dist/`
/// opened from a file; a saved report or a notebook's dashboard, which start
/// the worker they carry, in a frame that allows none). Each view says it.
pub const NO_WORKER: &str = "the loading worker could not start: this browser or frame allows the page none (a page of dist/ opened from a file, a sandboxed notebook output); open the data in Rankscope served over http(s), or use the command line";

/// Starts a worker (a spare, or a `fresh` one of its own), sends `request`,
/// relays progress, returns its answer.
///
/// A page the browser allows no worker gets [`NO_WORKER`].
pub(super) async fn run(request: &Object, progress: &mut dyn FnMut(u64, u64), fresh: bool) -> Job {
    let worker = if fresh {
        web_sys::Worker::new(SCRIPT).map(|w| (w, false))
    } else {
        take_worker()
    };
    let (worker, ready) = match worker {
        Ok(w) => w,
        // the browser refuses one (a page of dist/ opened from a file, a
        // sandboxed frame): say what works instead
        Err(_) => return Job::Broken(NO_WORKER.into()),
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
    crate::app::util::later(50, warm);
    result
}
