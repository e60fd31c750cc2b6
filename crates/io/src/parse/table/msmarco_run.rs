//! MS MARCO runs: `qid docid rank`, tab-separated (the passage and document
//! ranking tasks' run files: no score, the rank orders each query's list).
//! Read as a run whose score is −rank, so trec_eval's order (score
//! descending) is the file's ranks; a rank repeated within a query ties, as
//! an equal score does.

use super::*;

impl RunState {
    /// One line: a query, a document and its rank (a whole number from 1).
    #[inline]
    pub(super) fn rank_row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        if f.len() != 3 {
            let hint = (f.len() >= 6).then(|| {
                "This line looks like a TREC run (qid Q0 docid rank score tag): read the file as one (--input-format trec_run).".to_string()
            });
            return Err(problem(
                n,
                f.len().min(3) + 1,
                "3 whitespace-separated fields: qid docid rank (an MS MARCO run)",
                count(f.len(), "field"),
                hint,
            ));
        }
        let q = fields::id(&f[0]).ok_or_else(|| problem(n, 1, "a query id", shown(&f[0]), None))?;
        let d =
            fields::id(&f[1]).ok_or_else(|| problem(n, 2, "a document id", shown(&f[1]), None))?;
        let rank = fields::integer(&f[2])
            .filter(|&r| r >= 1)
            .ok_or_else(|| problem(n, 3, "a rank (a whole number from 1)", shown(&f[2]), None))?;
        self.q.push(self.queries.intern(q));
        self.docs.push(d);
        self.score.push(-f64::from(rank));
        Ok(())
    }
}

/// Whether a first line is an MS MARCO run's: three whitespace fields with a
/// rank last, and a query id that is a number or a file named as such a run
/// (`.tsv`, `msmarco`); trec_eval's output (`map q1 0.25`) has a measure
/// name first.
pub(super) fn looks_like(l: &FirstLine) -> bool {
    let ws = l.ws;
    let numeric_query = !ws[0].is_empty() && ws[0].iter().all(u8::is_ascii_digit);
    !l.csv_like
        && ws.len() == 3
        && fields::integer(&ws[2]).is_some_and(|r| r >= 1)
        && (numeric_query || l.name.ends_with(".tsv") || l.name.contains("msmarco"))
}
