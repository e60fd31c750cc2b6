//! TREC qrels: `qid iter docid relevance` (trec_eval's judgments).

use super::*;

#[derive(Default)]
pub struct QrelsState {
    pub(super) queries: Interner,
    pub(super) q: Vec<u32>,
    pub(super) docs: Names,
    pub(super) grade: Vec<i32>,
}

impl Lines for QrelsState {
    #[inline]
    fn row(&mut self, n: u64, f: &Row, options: &LoadOptions) -> Result<(), Problem> {
        if f.len() != 4 {
            let hint = if f.len() >= 6 {
                Some(options.audience.run_as_qrels_hint().to_string())
            } else {
                None
            };
            let prefs_like = f.len() == 5 && fields::number(&f[4]).is_some();
            let hint = hint.or_else(|| prefs_like.then(|| "Five fields are trec_eval's preferences (qid jg subgroup docno rel_level): read it as such (--input-format trec_prefs, or as a file of its own rather than --qrels).".to_string()));
            return Err(problem(
                n,
                f.len().min(4) + 1,
                "4 whitespace-separated fields: qid iter docid relevance",
                count(f.len(), "field"),
                hint,
            ));
        }
        let (q, d) = trec_ids(n, f)?;
        let g = fields::integer(&f[3])
            .ok_or_else(|| problem(n, 4, "an integer relevance grade", shown(&f[3]), None))?;
        self.q.push(self.queries.intern(q));
        self.docs.push(d);
        self.grade.push(g);
        Ok(())
    }

    fn finish(self, _file: &str, errors: &mut LoadError) -> Option<Parsed> {
        if self.q.is_empty() {
            return None;
        }
        qrels_parsed(self.queries, &self.q, &self.docs, &self.grade)
            .map_err(|p| errors.push(p))
            .ok()
    }
}

/// Whether a first line is TREC qrels': four whitespace fields with whole
/// numbers second and last (whatever the ids hold: a comma in a document
/// id is no CSV's delimiter beside those numbers), or four fields without a
/// comma or semicolon in a file named as qrels.
pub(super) fn looks_like(l: &FirstLine) -> bool {
    let ws = l.ws;
    ws.len() == 4
        && ((fields::integer(&ws[3]).is_some() && fields::integer(&ws[1]).is_some())
            || (!l.csv_like && l.name.contains("qrel")))
}
