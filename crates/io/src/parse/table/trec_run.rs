//! TREC runs: `qid Q0 docid rank score tag` (trec_eval's results file).

use super::*;

#[derive(Default)]
pub struct RunState {
    pub(super) queries: Interner,
    pub(super) q: Vec<u32>,
    pub(super) docs: Names,
    pub(super) score: Vec<f64>,
    /// The last line's run tag (trec_eval keeps that one).
    pub(super) tag: Vec<u8>,
    /// An MS MARCO run: ranks instead of scores (`msmarco_run.rs`).
    pub(super) ranked: bool,
}

impl RunState {
    pub(super) fn ranked() -> Self {
        RunState {
            ranked: true,
            ..Default::default()
        }
    }
}

impl Lines for RunState {
    #[inline]
    fn row(&mut self, n: u64, f: &Row, options: &LoadOptions) -> Result<(), Problem> {
        if self.ranked {
            return self.rank_row(n, f);
        }
        if f.len() < 6 {
            let hint = if f.len() == 4 {
                Some(options.audience.qrels_as_run_hint().to_string())
            } else {
                None
            };
            return Err(problem(
                n,
                f.len() + 1,
                "6 whitespace-separated fields: qid Q0 docid rank score tag",
                count(f.len(), "field"),
                hint,
            ));
        }
        let (q, d) = trec_ids(n, f)?;
        let s = fields::number(&f[4])
            .ok_or_else(|| problem(n, 5, "a score (a number)", shown(&f[4]), None))?;
        self.q.push(self.queries.intern(q));
        self.docs.push(d);
        self.score.push(s);
        self.tag.clear();
        self.tag.extend_from_slice(&f[5]);
        Ok(())
    }

    fn finish(self, file: &str, errors: &mut LoadError) -> Option<Parsed> {
        if let Err(p) = no_duplicate(&self.queries, &self.q, &self.docs, "run") {
            errors.push(p);
            return None;
        }
        let tag = String::from_utf8_lossy(&self.tag).into_owned();
        // the scores an MS MARCO run lacks are made from its ranks: said
        let notes = if self.ranked {
            vec!["Read as an MS MARCO run (qid, docid, rank): each document's score is −rank, so the rank orders the list, and FCP and Spearman correlate the ranks with the grades.".to_string()]
        } else {
            Vec::new()
        };
        (!self.q.is_empty()).then(|| {
            Parsed::Run {
                // the run's tag names it, as trec_eval's runid; a run
                // without one is named after its file
                name: if tag.is_empty() {
                    model_name_from_file(file)
                } else {
                    tag.clone()
                },
                tag,
                queries: self.queries,
                q: self.q,
                docs: self.docs,
                score: self.score,
            }
            .noted(notes)
        })
    }
}

/// A file named as a run (`.run`, `.trec`, `.res`, `.results`).
pub(super) fn named_run(name: &str) -> bool {
    [".run", ".trec", ".res", ".results"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// Whether a first line is a TREC run's: six whitespace fields with a rank
/// (field 4, a whole number) and a score (field 5, a number) are a run line
/// whatever its text fields hold (a comma in a document id, a semicolon in
/// a query id, `run,v2` as a tag: a CSV's delimiters would sit beside the
/// numbers and make them no numbers); or 6+ fields with `Q0` second, a
/// run's file name, or a rank and a score, without a comma or semicolon.
pub(super) fn looks_like(l: &FirstLine) -> bool {
    let ws = l.ws;
    let rank_and_score = || fields::integer(&ws[3]).is_some() && fields::number(&ws[4]).is_some();
    (ws.len() == 6 && rank_and_score())
        || (!l.csv_like
            && ws.len() >= 6
            && (&ws[1] == b"Q0" || named_run(l.name) || rank_and_score()))
}
