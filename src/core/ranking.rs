//! Ranking data (TREC run + qrels, or the long CSV) and its prepared form.
//!
//! Flow: parsers fill [`RankingData`] (interned ids, compact columns); [`prepare`]
//! sorts every query of every run once under the chosen tie rule and joins the
//! relevance grades, giving a [`PreparedRun`]; the metric kernels in
//! [`super::ranking_metrics`] read the prepared form through [`QueryView`].

use super::ids::Interner;

/// Grade of a retrieved document that is absent from the qrels
/// (trec_eval's `RELVALUE_NONPOOL`): not relevant, not judged.
pub const NOT_JUDGED: i32 = i32::MIN;

/// How equal scores inside one query are ordered.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    /// trec_eval: score descending, then document id descending (byte-wise).
    #[default]
    Trec,
    /// Score descending, ties kept in the order of the file.
    File,
    /// Expected value over all orderings of each tie group (McSherry & Najork 2008;
    /// sklearn `ndcg_score`). Exact for every metric except bpref and the
    /// interpolated precisions, which use the trec order.
    Average,
}

/// Which queries enter the mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuerySet {
    /// Every query of the qrels; a qrels query missing from the run scores 0
    /// (ir_measures, ranx `make_comparable`, trec_eval `-c`).
    Qrels,
    /// Only queries present in both run and qrels (trec_eval's default).
    Intersection,
}

/// Relevance judgments: for every query id, its judged documents.
#[derive(Clone, Debug, Default)]
pub struct Qrels {
    /// Indexed by query id; `(doc id, grade)` sorted by doc id after [`Qrels::finish`].
    pub judgments: Vec<Vec<(u32, i32)>>,
}

impl Qrels {
    pub fn add(&mut self, query: u32, doc: u32, grade: i32) {
        let q = query as usize;
        if self.judgments.len() <= q {
            self.judgments.resize_with(q + 1, Vec::new);
        }
        self.judgments[q].push((doc, grade));
    }

    /// Sorts each query's judgments by doc id and removes duplicates (the last
    /// judgment of a document wins). Returns how many duplicates were dropped.
    pub fn finish(&mut self) -> usize {
        let mut dropped = 0;
        for list in &mut self.judgments {
            // stable sort keeps file order among duplicates; keep the last one
            list.sort_by_key(|&(d, _)| d);
            let before = list.len();
            let mut out: Vec<(u32, i32)> = Vec::with_capacity(list.len());
            for &(d, g) in list.iter() {
                match out.last_mut() {
                    Some(last) if last.0 == d => last.1 = g,
                    _ => out.push((d, g)),
                }
            }
            dropped += before - out.len();
            *list = out;
        }
        dropped
    }

    pub fn has_query(&self, query: u32) -> bool {
        self.judgments
            .get(query as usize)
            .is_some_and(|l| !l.is_empty())
    }

    pub fn grade(&self, query: u32, doc: u32) -> i32 {
        match self.judgments.get(query as usize) {
            Some(list) => match list.binary_search_by_key(&doc, |&(d, _)| d) {
                Ok(i) => list[i].1,
                Err(_) => NOT_JUDGED,
            },
            None => NOT_JUDGED,
        }
    }

    pub fn num_judgments(&self) -> usize {
        self.judgments.iter().map(Vec::len).sum()
    }
}

/// One model's ranked lists, stored as columns grouped by query (CSR layout).
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub name: String,
    /// The run tag of a TREC run file (its last line's, as trec_eval keeps it).
    pub tag: String,
    /// `offsets[q]..offsets[q + 1]` are query `q`'s rows, in file order.
    pub offsets: Vec<u32>,
    pub docs: Vec<u32>,
    pub scores: Vec<f64>,
}

impl Run {
    /// Groups `(query, doc, score)` columns in file order by query, keeping the
    /// file order inside each query (a counting sort: O(rows + queries)).
    pub fn from_columns(
        name: String,
        queries: &[u32],
        docs: &[u32],
        scores: &[f64],
        num_queries: usize,
    ) -> Run {
        let mut counts = vec![0u32; num_queries + 1];
        for &q in queries {
            counts[q as usize + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let offsets = counts.clone();
        let mut cursor = counts;
        let mut out_docs = vec![0u32; docs.len()];
        let mut out_scores = vec![0f64; scores.len()];
        for ((&q, &d), &s) in queries.iter().zip(docs).zip(scores) {
            let slot = &mut cursor[q as usize];
            out_docs[*slot as usize] = d;
            out_scores[*slot as usize] = s;
            *slot += 1;
        }
        Run {
            name,
            tag: String::new(),
            offsets,
            docs: out_docs,
            scores: out_scores,
        }
    }

    pub fn query_range(&self, query: u32) -> std::ops::Range<usize> {
        let q = query as usize;
        if q + 1 < self.offsets.len() {
            self.offsets[q] as usize..self.offsets[q + 1] as usize
        } else {
            0..0
        }
    }

    pub fn has_query(&self, query: u32) -> bool {
        !self.query_range(query).is_empty()
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// Everything loaded for ranking evaluation: one qrels, one or more runs.
#[derive(Clone, Debug, Default)]
pub struct RankingData {
    pub queries: Interner,
    pub docs: Interner,
    pub qrels: Qrels,
    pub runs: Vec<Run>,
}

/// The queries that enter the evaluation, in byte-wise order of their ids
/// (trec_eval's output order), plus the ones left out and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuerySelection {
    pub evaluated: Vec<u32>,
    /// In the qrels, absent from this run: scored 0 under [`QuerySet::Qrels`], dropped otherwise.
    pub missing_from_run: Vec<u32>,
    /// In the run, absent from the qrels: always left out.
    pub missing_from_qrels: Vec<u32>,
}

impl RankingData {
    pub fn select_queries(&self, run: &Run, set: QuerySet) -> QuerySelection {
        let mut sel = QuerySelection::default();
        for q in self.queries.ids_sorted_by_name() {
            let in_qrels = self.qrels.has_query(q);
            let in_run = run.has_query(q);
            match (in_qrels, in_run) {
                (true, true) => sel.evaluated.push(q),
                (true, false) => {
                    sel.missing_from_run.push(q);
                    if set == QuerySet::Qrels {
                        sel.evaluated.push(q);
                    }
                }
                (false, true) => sel.missing_from_qrels.push(q),
                (false, false) => {}
            }
        }
        sel
    }
}

/// A run sorted and joined with the qrels, ready for the metric kernels.
#[derive(Clone, Debug, Default)]
pub struct PreparedRun {
    pub name: String,
    pub tie_rule: TieRule,
    pub selection: QuerySelection,
    /// `offsets[i]..offsets[i + 1]`: the ranked rows of `selection.evaluated[i]`.
    pub offsets: Vec<usize>,
    pub grades: Vec<i32>,
    pub docs: Vec<u32>,
    pub scores: Vec<f64>,
    /// `tied_with_prev[j]`: row j has the same score as row j - 1 of the same query.
    pub tied_with_prev: Vec<bool>,
    /// `judged_offsets[i]..judged_offsets[i + 1]` in `judged_desc`: every judged
    /// grade >= 0 of the query, descending (the ideal ranking).
    pub judged_offsets: Vec<usize>,
    pub judged_desc: Vec<i32>,
    /// Duplicated (query, doc) rows dropped from the run (the first one is kept).
    pub duplicates_dropped: usize,
}

/// Sorts every evaluated query of `run` under `tie_rule` and joins the grades.
pub fn prepare(
    data: &RankingData,
    run_index: usize,
    tie_rule: TieRule,
    set: QuerySet,
) -> PreparedRun {
    let run = &data.runs[run_index];
    let selection = data.select_queries(run, set);
    let rows = selection
        .evaluated
        .iter()
        .map(|&q| run.query_range(q).len())
        .sum::<usize>();
    let mut out = PreparedRun {
        name: run.name.clone(),
        tie_rule,
        offsets: Vec::with_capacity(selection.evaluated.len() + 1),
        judged_offsets: Vec::with_capacity(selection.evaluated.len() + 1),
        grades: Vec::with_capacity(rows),
        docs: Vec::with_capacity(rows),
        scores: Vec::with_capacity(rows),
        tied_with_prev: Vec::with_capacity(rows),
        ..Default::default()
    };
    out.offsets.push(0);
    out.judged_offsets.push(0);
    let scores = &run.scores;
    let docs = &run.docs;
    // last query (index + 1) each document was seen in: duplicates in O(1)
    let mut seen_in = vec![0u32; data.docs.len()];
    let mut order: Vec<usize> = Vec::new();
    for (qi, &q) in selection.evaluated.iter().enumerate() {
        let stamp = qi as u32 + 1;
        order.clear();
        // keep the first occurrence of a repeated document (file order)
        for row in run.query_range(q) {
            let d = docs[row] as usize;
            if seen_in[d] == stamp {
                out.duplicates_dropped += 1;
            } else {
                seen_in[d] = stamp;
                order.push(row);
            }
        }
        match tie_rule {
            TieRule::File => order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a])),
            // names are compared only on equal scores, so ties cost string compares, the rest none
            TieRule::Trec | TieRule::Average => order.sort_unstable_by(|&a, &b| {
                scores[b].total_cmp(&scores[a]).then_with(|| {
                    data.docs
                        .name(docs[b])
                        .as_bytes()
                        .cmp(data.docs.name(docs[a]).as_bytes())
                })
            }),
        }
        let start = out.grades.len();
        let judgments = data
            .qrels
            .judgments
            .get(q as usize)
            .map_or(&[][..], Vec::as_slice);
        for &row in &order {
            let doc = docs[row];
            let grade = match judgments.binary_search_by_key(&doc, |&(d, _)| d) {
                Ok(i) => judgments[i].1,
                Err(_) => NOT_JUDGED,
            };
            let tied = out.scores.len() > start && out.scores[out.scores.len() - 1] == scores[row];
            out.docs.push(doc);
            out.scores.push(scores[row]);
            out.grades.push(grade);
            out.tied_with_prev.push(tied);
        }
        out.offsets.push(out.grades.len());
        let judged_start = out.judged_desc.len();
        out.judged_desc
            .extend(judgments.iter().map(|&(_, g)| g).filter(|&g| g >= 0));
        out.judged_desc[judged_start..].sort_unstable_by(|a, b| b.cmp(a));
        out.judged_offsets.push(out.judged_desc.len());
    }
    out.selection = selection;
    out
}

/// One evaluated query, as the kernels see it.
#[derive(Clone, Copy, Debug)]
pub struct QueryView<'a> {
    /// Grades in ranked order ([`NOT_JUDGED`] for documents absent from the qrels).
    pub grades: &'a [i32],
    pub tied_with_prev: &'a [bool],
    /// Every judged grade >= 0 of the query, descending.
    pub judged_desc: &'a [i32],
    /// Whether tie groups are averaged over ([`TieRule::Average`]).
    pub average_ties: bool,
}

impl PreparedRun {
    pub fn num_queries(&self) -> usize {
        self.selection.evaluated.len()
    }

    pub fn query(&self, i: usize) -> QueryView<'_> {
        let r = self.offsets[i]..self.offsets[i + 1];
        let j = self.judged_offsets[i]..self.judged_offsets[i + 1];
        QueryView {
            grades: &self.grades[r.clone()],
            tied_with_prev: &self.tied_with_prev[r],
            judged_desc: &self.judged_desc[j],
            average_ties: self.tie_rule == TieRule::Average,
        }
    }

    pub fn row_range(&self, i: usize) -> std::ops::Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_with(run_rows: &[(&str, &str, f64)], qrels_rows: &[(&str, &str, i32)]) -> RankingData {
        let mut data = RankingData::default();
        for &(q, d, g) in qrels_rows {
            let q = data.queries.intern(q);
            let d = data.docs.intern(d);
            data.qrels.add(q, d, g);
        }
        data.qrels.finish();
        let (mut qs, mut ds, mut ss) = (vec![], vec![], vec![]);
        for &(q, d, s) in run_rows {
            qs.push(data.queries.intern(q));
            ds.push(data.docs.intern(d));
            ss.push(s);
        }
        let n = data.queries.len();
        data.runs
            .push(Run::from_columns("r".into(), &qs, &ds, &ss, n));
        data
    }

    #[test]
    fn trec_order_breaks_ties_by_docid_descending() {
        let data = data_with(
            &[("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0)],
            &[("q", "a", 1)],
        );
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Qrels);
        let names: Vec<&str> = p.docs.iter().map(|&d| data.docs.name(d)).collect();
        assert_eq!(names, ["c", "b", "a"]);
        assert_eq!(p.tied_with_prev, [false, true, true]);
        let f = prepare(&data, 0, TieRule::File, QuerySet::Qrels);
        let names: Vec<&str> = f.docs.iter().map(|&d| data.docs.name(d)).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn query_sets_follow_the_convention() {
        let data = data_with(
            &[("q1", "a", 1.0), ("q3", "a", 1.0)],
            &[("q1", "a", 1), ("q2", "b", 1)],
        );
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Qrels);
        let names: Vec<&str> = p
            .selection
            .evaluated
            .iter()
            .map(|&q| data.queries.name(q))
            .collect();
        assert_eq!(names, ["q1", "q2"]);
        assert_eq!(p.selection.missing_from_qrels.len(), 1);
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Intersection);
        assert_eq!(p.num_queries(), 1);
    }

    #[test]
    fn duplicate_documents_keep_the_first_in_the_file() {
        let data = data_with(
            &[
                ("q", "a", 0.5),
                ("q", "a", 0.9),
                ("q", "b", 0.1),
                ("r", "a", 0.3),
            ],
            &[("q", "a", 1), ("r", "a", 1)],
        );
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Qrels);
        assert_eq!(p.duplicates_dropped, 1);
        assert_eq!(
            p.scores,
            [0.5, 0.1, 0.3],
            "a document repeated in another query is not a duplicate"
        );
    }
}
