//! `rankscope trec_eval` on files and standard input with both cores: the
//! judgments read on one thread while the run is read on the other; a run
//! grouped by query streamed a block at a time (never held whole), a file
//! cut in two at a query boundary and its parts read and evaluated at
//! once; each query evaluated as soon as its lines are read; then the
//! per-query values printed and summed in trec_eval's order
//! ([`Eval::report`]), so the bytes out are the one-thread path's.
//!
//! A run whose queries are not grouped (a query's lines apart) is read
//! again whole and evaluated as before, with its queries on both cores; on
//! standard input that is possible while at most [`KEPT`] bytes have come
//! (they are kept), past that the message says how to group it (`sort`).
//! trec_eval 9.0.x with judgments whose every value is negative also takes
//! the whole-file path (what it carries from query to query then depends on
//! which queries the run has, known only at its end).

use super::input::{self, RelInfo};
use super::stream::{self, End, Stop};
use super::{
    evaluate_on_threads, init_measures, mark_measure, read_file, read_rel_info, Epi, Eval, Exit,
    Outcome, Sink, Version,
};
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Bytes of standard input kept so that an ungrouped run there can still
/// be evaluated whole.
pub const KEPT: usize = 64 << 20;

/// The smallest file read as two parts.
const SPLIT_MIN: u64 = 1 << 20;

/// Bytes of a part read ahead (copied aside) while the judgments are still
/// being read, before that part waits for them.
const AHEAD: usize = 192 << 20;

/// The run's bytes: a regular file (cut in two when large), or a stream
/// (standard input, a pipe).
enum Source {
    File(std::fs::File, u64),
    Stream,
    Unreadable,
}

/// A stream's first [`KEPT`] bytes kept.
struct Keep<'a> {
    inner: &'a mut dyn Read,
    kept: Option<Vec<u8>>,
}

impl Read for Keep<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(kept) = &mut self.kept {
            if kept.len() + n > KEPT {
                self.kept = None;
            } else {
                kept.extend_from_slice(&buf[..n]);
            }
        }
        Ok(n)
    }
}

/// What one reader of the run found.
#[derive(Default)]
struct Part {
    end: End,
    stop: Option<Stop>,
    /// each judged query read, by its index among the judged queries, with
    /// its outcome (absent when it was not evaluated)
    outcomes: Vec<(usize, Option<Outcome>)>,
    /// a judged query came as two groups
    ungrouped: bool,
}

/// What the evaluation reads, once the judgments are in.
struct Ready<'a> {
    eval: Option<Eval<'a>>,
    /// the judged queries' ids, for the lookup of each group's
    qids: Vec<&'a [u8]>,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    epi: &mut Epi,
    marked: &mut [bool],
    any_marked: bool,
    rel_file: &str,
    results_file: &str,
    stdin: &mut dyn Read,
    sink: Sink,
) -> Result<(), Exit> {
    let quit = |m: String| Exit(format!("{m}trec_eval: Quit in file '{results_file}'\n"), 2);
    let cannot_read = || {
        quit(format!(
            "trec_eval.get_results: Cannot read results file '{results_file}'\n"
        ))
    };
    let malformed = |line: usize| quit(format!("trec_eval.get_results: Malformed line {line}\n"));
    // what trec_eval does after reading the files, done first (it reads
    // none of them); its failures are reported in trec_eval's order below
    let z_bytes;
    let zscores = match &epi.zscore_file {
        Some(path) => {
            let cannot = || {
                Exit(
                    format!("trec_eval.get_zscores: Cannot read zscores file '{path}'\n"),
                    255,
                )
            };
            match read_file(path) {
                None => Err(cannot()),
                Some(bytes) => {
                    z_bytes = bytes;
                    input::zscores(&z_bytes).map(Some).map_err(|line| {
                        Exit(
                            format!("trec_eval.get_zscores: Malformed line {line}\n"),
                            255,
                        )
                    })
                }
            }
        }
        None => Ok(None),
    };
    let measures = if any_marked {
        Ok(())
    } else {
        mark_measure(epi, marked, "official")
    }
    .and_then(|()| init_measures(epi, marked));
    let epi: &Epi = epi;

    let mut pipe = None;
    let source = if results_file.starts_with('-') {
        Source::Stream
    } else {
        match std::fs::File::open(results_file).and_then(|f| Ok((f.metadata()?, f))) {
            Ok((meta, file)) if meta.is_file() && meta.len() > 0 => Source::File(file, meta.len()),
            Ok((meta, _)) if meta.is_file() => Source::Unreadable,
            Ok((_, file)) => {
                // a pipe (`<(zcat run.gz)`), a FIFO: read once, in order
                pipe = Some(file);
                Source::Stream
            }
            Err(_) => Source::Unreadable,
        }
    };
    let rel_bytes = OnceLock::new();
    let rel_info: OnceLock<Result<RelInfo, Exit>> = OnceLock::new();
    // a file read as two parts: the judgments first, as two halves at once
    // (no part then waits for them, nor copies what it read ahead)
    if matches!(source, Source::File(_, len) if len >= SPLIT_MIN) && epi.rel_format == "qrels" {
        let _ = rel_info.set(read_rel_info(epi, rel_file, read_file, &rel_bytes, true));
    }
    let ready: OnceLock<Ready> = OnceLock::new();
    // set when the parts' work is moot: the whole-file path takes over
    let stop = AtomicBool::new(false);
    let mut kept = Keep {
        inner: match &mut pipe {
            Some(file) => file,
            None => stdin,
        },
        kept: Some(Vec::new()),
    };

    let (head, tail) = std::thread::scope(|s| {
        // the head's part ends where the tail's starts: about where the
        // two threads' work (the judgments and the tail; the head) is even
        let split = match &source {
            Source::File(file, len) if *len >= SPLIT_MIN => {
                // the judgments already read: halves; else the judgments'
                // thread reads less of the run
                let rel_len = match rel_info.get() {
                    Some(_) => 0,
                    None => std::fs::metadata(rel_file).map_or(0, |m| m.len()),
                };
                let at = (*len as f64 + 1.2 * rel_len as f64) / 2.0;
                let at = (at as u64).clamp(*len / 2, *len * 4 / 5);
                let mut file = file;
                stream::split_point(&mut file, at)
            }
            _ => None,
        };
        let (source, rel_info, rel_bytes, ready, stop) =
            (&source, &rel_info, &rel_bytes, &ready, &stop);
        let (measures, zscores) = (&measures, &zscores);
        let judgments = s.spawn(move || {
            // should this thread fail, the parts stop waiting for it
            struct Unblock<'r, 'a>(&'r OnceLock<Ready<'a>>, &'r AtomicBool);
            impl Drop for Unblock<'_, '_> {
                fn drop(&mut self) {
                    if self.0.get().is_none() {
                        self.1.store(true, Ordering::Relaxed);
                        let _ = self.0.set(Ready {
                            eval: None,
                            qids: Vec::new(),
                        });
                    }
                }
            }
            let _unblock = Unblock(ready, stop);
            let info =
                rel_info.get_or_init(|| read_rel_info(epi, rel_file, read_file, rel_bytes, false));
            let eval = match (info, measures, zscores) {
                (Ok(info), Ok(measures), Ok(zscores)) if streamable(epi, info) => {
                    Some(Eval::new(epi, measures, info, zscores.as_ref(), |qi| {
                        super::formed(epi, info, qi, true)
                    }))
                }
                (Ok(_), Ok(_), Ok(_)) => {
                    // 9.0.x's carry needs the whole run
                    stop.store(true, Ordering::Relaxed);
                    None
                }
                _ => None,
            };
            let qids = match info {
                Ok(info) => (0..info.len()).map(|qi| info.qid(qi)).collect(),
                Err(_) => {
                    stop.store(true, Ordering::Relaxed);
                    Vec::new()
                }
            };
            let _ = ready.set(Ready { eval, qids });
            let (Source::File(file, _), Some(split)) = (source, split) else {
                return None;
            };
            let _ = file;
            // its own handle: a clone would share the head's offset
            let mut file = std::fs::File::open(results_file).ok()?;
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(split)).ok()?;
            Some(read_part(&mut file, ready, stop))
        });
        let head = match source {
            Source::File(..) => match std::fs::File::open(results_file) {
                Ok(file) => {
                    let mut part = file.take(split.unwrap_or(u64::MAX));
                    read_part(&mut part, ready, stop)
                }
                Err(_) => Part {
                    stop: Some(Stop::Read),
                    ..Part::default()
                },
            },
            Source::Stream => read_part(&mut kept, ready, stop),
            Source::Unreadable => Part::default(),
        };
        let tail = judgments
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (head, tail)
    });

    // trec_eval's order: the judgments, the results, the z-scores, the measures
    let rel_info = match rel_info.get() {
        Some(Ok(info)) => info,
        Some(Err(e)) => return Err(e.clone()),
        None => unreachable!("the judgments were read"),
    };
    if epi.results_format != "trec_results" {
        return Err(Exit(
            format!(
                "trec_eval: Illegal retrieval results format '{}'\n",
                epi.results_format
            ),
            2,
        ));
    }
    let tail = tail.filter(|_| !head.end.nul);
    let whole_file = stop.load(Ordering::Relaxed)
        || head.ungrouped
        || tail.as_ref().is_some_and(|t| {
            t.ungrouped || {
                let mut seen = vec![false; rel_info.len()];
                head.outcomes.iter().for_each(|o| seen[o.0] = true);
                t.outcomes.iter().any(|o| seen[o.0])
            }
        });
    if whole_file {
        let bytes = match source {
            Source::File(..) => read_file(results_file),
            Source::Unreadable => None,
            Source::Stream => match kept.kept.take() {
                Some(mut bytes) => {
                    let _ = kept.inner.read_to_end(&mut bytes);
                    (!bytes.is_empty()).then(|| input::prepare(bytes))
                }
                None => {
                    return Err(quit(format!(
                        "trec_eval.get_results: the results on standard input are not grouped by query (a query's lines apart) and more than {} MiB long: group them first, as in `LC_ALL=C sort -s -b -k1,1 RUN | rankscope trec_eval QRELS -`\n",
                        KEPT >> 20
                    )))
                }
            },
        }
        .ok_or_else(cannot_read)?;
        let results = input::results(&bytes).map_err(malformed)?;
        let zscores = zscores.as_ref().map_err(Exit::clone)?;
        let measures = measures.as_ref().map_err(Exit::clone)?;
        return evaluate_on_threads(epi, measures, rel_info, &results, zscores.as_ref(), sink);
    }
    if matches!(source, Source::Unreadable) || head.end.bytes == 0 {
        return Err(cannot_read());
    }
    // the tail's lines are numbered after the head's
    for (part, before) in
        std::iter::once((&head, 0)).chain(tail.iter().map(|t| (t, head.end.lines)))
    {
        match part.stop {
            Some(Stop::Malformed(n)) => return Err(malformed(before + n + 1)),
            Some(Stop::Read) => return Err(cannot_read()),
            None => {}
        }
    }
    zscores.as_ref().map_err(Exit::clone)?;
    measures.as_ref().map_err(Exit::clone)?;
    let Some(Ready {
        eval: Some(eval), ..
    }) = ready.get()
    else {
        unreachable!("evaluated: the judgments, measures and z-scores were read")
    };
    let run_id = tail
        .as_ref()
        .and_then(|t| t.end.run_id.clone())
        .or_else(|| head.end.run_id.clone())
        .unwrap_or_default();
    let mut slots: Vec<Option<Outcome>> = (0..rel_info.len()).map(|_| None).collect();
    for part in std::iter::once(head).chain(tail) {
        for (qi, outcome) in part.outcomes {
            slots[qi] = outcome;
        }
    }
    eval.report(|qi| slots[qi].take(), &run_id, sink)
}

/// Whether the carry into each query is known from the judgments alone:
/// always in 10.0 (every judged query is joined, or the run fails); in
/// 9.0.x, which skips queries the run lacks, unless some query's
/// judgments are all negative (the only ones that read the carry).
fn streamable(epi: &Epi, info: &RelInfo) -> bool {
    epi.version == Version::V10
        || match info {
            RelInfo::Qrels(queries) => queries.iter().all(|q| q.docs.iter().any(|d| d.1 >= 0)),
            _ => true,
        }
}

/// One reader: the groups of `src`, each judged query evaluated when its
/// lines are read (groups read before the judgments are in are copied
/// aside, up to [`AHEAD`] bytes, and evaluated when they are).
fn read_part(src: &mut dyn Read, ready: &OnceLock<Ready>, stop: &AtomicBool) -> Part {
    let mut part = Part::default();
    let mut seen: Vec<bool> = Vec::new();
    // groups read ahead: their qid and documents in `arena`
    let mut arena: Vec<u8> = Vec::new();
    type Waiting = Vec<((usize, usize), Vec<(usize, usize, f64)>)>;
    let mut waiting: Waiting = Vec::new();
    let mut take = |ready: &Ready, part: &mut Part, qid: &[u8], docs: &[(&[u8], f64)]| {
        let Ok(qi) = ready.qids.binary_search(&qid) else {
            return;
        };
        if seen.is_empty() {
            seen = vec![false; ready.qids.len()];
        }
        if std::mem::replace(&mut seen[qi], true) {
            part.ungrouped = true;
            return;
        }
        let outcome = ready
            .eval
            .as_ref()
            .filter(|e| e.wanted(qi))
            .map(|e| e.query(qi, docs, false));
        part.outcomes.push((qi, outcome));
    };
    let (end, why) = stream::groups(src, |qid, docs| {
        if part.ungrouped || stop.load(Ordering::Relaxed) {
            return;
        }
        let mut now = ready.get();
        if now.is_none() && arena.len() >= AHEAD {
            while ready.get().is_none() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            now = ready.get();
        }
        let Some(now) = now else {
            let at = |arena: &mut Vec<u8>, s: &[u8]| {
                arena.extend_from_slice(s);
                (arena.len() - s.len(), s.len())
            };
            let q = at(&mut arena, qid);
            let d = docs.iter().map(|d| {
                let (a, n) = at(&mut arena, d.0);
                (a, n, d.1)
            });
            let d = d.collect();
            waiting.push((q, d));
            return;
        };
        for ((q, n), docs) in waiting.drain(..) {
            let docs: Vec<(&[u8], f64)> = docs
                .iter()
                .map(|&(a, n, sim)| (&arena[a..a + n], sim))
                .collect();
            take(now, &mut part, &arena[q..q + n], &docs);
        }
        arena = Vec::new();
        take(now, &mut part, qid, docs);
    });
    // a part shorter than the judgments' reading
    if !waiting.is_empty() {
        while ready.get().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let now = ready.get().expect("set");
        for ((q, n), docs) in waiting.drain(..) {
            let docs: Vec<(&[u8], f64)> = docs
                .iter()
                .map(|&(a, n, sim)| (&arena[a..a + n], sim))
                .collect();
            take(now, &mut part, &arena[q..q + n], &docs);
        }
    }
    part.end = end;
    part.stop = why;
    part
}
