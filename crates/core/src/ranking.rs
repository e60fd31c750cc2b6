//! Ranking data (TREC run + qrels, or the long CSV) and its prepared form.
//!
//! Flow: parsers fill [`RankingData`] (interned ids, compact columns); [`prepare`]
//! sorts every query of every run once under the chosen tie rule and joins the
//! relevance grades, giving a [`PreparedRun`]; the metric kernels in
//! [`super::ranking_metrics`] read the prepared form through [`QueryView`].

use std::sync::Arc;

use super::ids::{self, Interner, Names};

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
    /// Score descending, then document id ascending (byte-wise): MS MARCO's
    /// `msmarco_eval.py` as ir_measures' `msmarco` provider sorts a run.
    IdAscending,
}

crate::named!(TieRule {
    Trec = "trec",
    File = "file",
    Average = "average",
    IdAscending = "id_ascending",
});

/// Which queries enter the mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuerySet {
    /// Every query of the qrels; a qrels query missing from the run scores 0
    /// (ir_measures, ranx `make_comparable`, trec_eval `-c`).
    Qrels,
    /// Only queries present in both run and qrels (trec_eval's default).
    Intersection,
    /// Every query of the run or the qrels, either missing scoring 0 (Spark's
    /// `RankingMetrics`: a row with an empty ground truth scores 0 and counts).
    Union,
}

crate::named!(QuerySet {
    Qrels = "qrels",
    Intersection = "intersection",
    Union = "union",
});

/// Whether a retrieved document whose id is its query's id is kept: BEIR's
/// and MTEB's `ignore_identical_ids=True` drops it from the run (not from
/// the judgments) before evaluating.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum IdenticalIds {
    #[default]
    Keep,
    Drop,
}

crate::named!(IdenticalIds { Keep = "keep", Drop = "drop" });

/// How a query without a relevant document (at the relevance level) counts.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum NoRelevant {
    /// It scores 0 and counts in the mean (trec_eval, ranx, Spark's
    /// `RankingMetrics`, torchmetrics' `empty_target_action="neg"`).
    #[default]
    Zero,
    /// It is left out of the mean (torchmetrics' `empty_target_action="skip"`;
    /// microsoft/recommenders keeps only users with a relevant item).
    Skip,
}

crate::named!(NoRelevant { Zero = "zero", Skip = "skip" });

/// Which judgments a query's metrics read: every judged document of the
/// query, or only those of the documents the run retrieved (a tool that is
/// given the ranked list and its labels alone: scikit-learn's `ndcg_score`,
/// torchmetrics' retrieval metrics, MLflow's `ndcg_at_k`, whose ideal list is
/// the retrieved one reordered, so nDCG rises when fewer than k come back).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Judgments {
    #[default]
    Qrels,
    Retrieved,
}

crate::named!(Judgments { Qrels = "qrels", Retrieved = "retrieved" });

/// Whether the metrics read the grades, or only relevant or not.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Grades {
    /// The qrels' grades (trec_eval, ranx, scikit-learn, torchmetrics).
    #[default]
    Graded,
    /// 1 for a relevant document (grade ≥ the level), 0 for another judged
    /// one: a tool given label sets (Spark's `RankingMetrics` and
    /// `RankingEvaluator`, microsoft/recommenders' `score_type="binary"`,
    /// MLflow, BEIR's binary qrels).
    Binary,
}

crate::named!(Grades { Graded = "graded", Binary = "binary" });

/// A document's name hash: judgments are ordered by (hash, name), an exact
/// total order in which most comparisons are integer ones.
#[inline]
fn name_hash(names: &Names, i: usize) -> u64 {
    ids::hash(names.get(i).as_bytes())
}

/// `(query, row)` pairs grouped by query, file order kept inside each (a
/// counting sort: O(pairs + queries)): query `q`'s rows are
/// `rows[offsets[q]..offsets[q + 1]]`. Returns `(offsets, rows)`.
fn group_by_query(
    pairs: impl Iterator<Item = (u32, u32)> + Clone,
    num_queries: usize,
) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; num_queries + 1];
    for (q, _) in pairs.clone() {
        offsets[q as usize + 1] += 1;
    }
    for i in 1..offsets.len() {
        offsets[i] += offsets[i - 1];
    }
    let mut rows = vec![0u32; offsets[num_queries] as usize];
    let mut cursor = offsets.clone();
    for (q, row) in pairs {
        let slot = &mut cursor[q as usize];
        rows[*slot as usize] = row;
        *slot += 1;
    }
    (offsets, rows)
}

/// The first row (in file order) whose document an earlier row already has
/// for the same query, with that earlier row: `(query, earlier, later)`.
/// trec_eval stops on such a run or qrels ("duplicate docs"), and so do the
/// parsers (`rankscope_io::parse`).
pub fn first_duplicate(q: &[u32], names: &Names, num_queries: usize) -> Option<(u32, u32, u32)> {
    let (counts, by_query) = group_by_query(
        q.iter()
            .enumerate()
            .map(|(row, &query)| (query, row as u32)),
        num_queries,
    );
    // per query, an open-addressing table of (name hash, row + 1): one hash
    // per row, names compared only when hashes are equal
    let mut slots: Vec<(u64, u32)> = Vec::new();
    let mut first: Option<(u32, u32, u32)> = None;
    for query in 0..num_queries {
        let rows = &by_query[counts[query] as usize..counts[query + 1] as usize];
        let mask = (2 * rows.len()).next_power_of_two().max(16) - 1;
        slots.clear();
        slots.resize(mask + 1, (0, 0));
        for &row in rows {
            let h = name_hash(names, row as usize);
            let mut slot = h as usize & mask;
            let mut earlier = None;
            while slots[slot].1 != 0 {
                let (sh, srow) = slots[slot];
                if sh == h && names.get(srow as usize - 1) == names.get(row as usize) {
                    earlier = Some(srow - 1);
                    break;
                }
                slot = (slot + 1) & mask;
            }
            match earlier {
                // rows are in file order: the first repeat of this query
                Some(e) => {
                    if first.is_none_or(|f| row < f.2) {
                        first = Some((query as u32, e, row));
                    }
                    break;
                }
                None => slots[slot] = (h, row + 1),
            }
        }
    }
    first
}

/// Relevance judgments. Per query, the judged documents sorted by
/// (name hash, name) with one entry per document, so a run joins them per
/// query by merging sorted lists: no global document table is needed.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Qrels {
    /// `offsets[q]..offsets[q + 1]`: query `q`'s judgments (empty past the end).
    #[serde(with = "crate::raw")]
    pub offsets: Vec<u32>,
    #[serde(with = "crate::raw")]
    pub hashes: Vec<u64>,
    pub names: Names,
    #[serde(with = "crate::raw")]
    pub grades: Vec<i32>,
}

impl Qrels {
    /// [`Qrels::build`] from columns: row `i` judges `names[i]` for `queries[i]`.
    pub fn from_columns(
        queries: &[u32],
        names: &Names,
        grades: &[i32],
        num_queries: usize,
    ) -> (Qrels, usize) {
        let entries: Vec<(u32, u32)> = queries
            .iter()
            .enumerate()
            .map(|(row, &q)| (q, row as u32))
            .collect();
        Qrels::build(&entries, names, grades, num_queries)
    }

    /// The same judgments under other query ids: `map[local] = global`
    /// (one pass copying each query's block to its new place; nothing is
    /// copied when the ids are unchanged, as for a first file).
    pub fn remap(self, map: &[u32], num_queries: usize) -> Qrels {
        if map.len() == num_queries && map.iter().enumerate().all(|(i, &g)| g as usize == i) {
            return self;
        }

        let mut local_of = vec![u32::MAX; num_queries];
        for (local, &global) in map.iter().enumerate() {
            if let Some(slot) = local_of.get_mut(global as usize) {
                *slot = local as u32;
            }
        }
        let mut out = Qrels {
            offsets: Vec::with_capacity(num_queries + 1),
            hashes: Vec::with_capacity(self.hashes.len()),
            grades: Vec::with_capacity(self.grades.len()),
            ..Default::default()
        };
        out.offsets.push(0);
        for &local in &local_of {
            if local != u32::MAX {
                let r = self.range(local);
                out.hashes.extend_from_slice(&self.hashes[r.clone()]);
                out.grades.extend_from_slice(&self.grades[r.clone()]);
                for i in r {
                    out.names.push(self.names.get(i));
                }
            }
            out.offsets.push(out.grades.len() as u32);
        }
        out
    }

    /// Whether the invariants hold (for judgments read back from bytes):
    /// offsets ascending within the columns, columns of one length, and at
    /// most `num_queries` queries.
    pub fn is_consistent(&self, num_queries: usize) -> bool {
        let n = self.grades.len();
        self.hashes.len() == n
            && self.names.len() == n
            && self.names.is_consistent()
            && self.offsets.len() <= num_queries + 1
            && self.offsets.first().is_none_or(|&o| o == 0)
            && self.offsets.windows(2).all(|w| w[0] <= w[1])
            && self.offsets.last().is_none_or(|&o| o as usize == n)
    }

    /// Whether every judgment is where a lookup looks for it (for judgments
    /// from a file of unknown origin, on top of [`Qrels::is_consistent`]):
    /// each stored hash is its name's, and each query's judgments are in
    /// strictly ascending (hash, name) order, one per document.
    pub fn is_sound(&self, num_queries: usize) -> bool {
        if !self.is_consistent(num_queries) {
            return false;
        }
        let hashes_right =
            (0..self.hashes.len()).all(|i| self.hashes[i] == name_hash(&self.names, i));
        hashes_right
            && self.offsets.windows(2).all(|w| {
                (w[0] as usize + 1..w[1] as usize).all(|i| {
                    let key = |i: usize| (self.hashes[i], self.names.get(i));
                    key(i - 1) < key(i)
                })
            })
    }

    /// Builds the judgments from `(query, row)` pairs, `row` indexing `names`
    /// and `grades`. A document judged twice keeps its last judgment in the
    /// file (the parsers refuse such files, as trec_eval does: this serves
    /// data read back from older sessions). Returns the judgments and how
    /// many duplicates were dropped.
    pub fn build(
        entries: &[(u32, u32)],
        names: &Names,
        grades: &[i32],
        num_queries: usize,
    ) -> (Qrels, usize) {
        let (counts, by_query) = group_by_query(entries.iter().copied(), num_queries);
        let mut out = Qrels {
            offsets: Vec::with_capacity(num_queries + 1),
            hashes: Vec::with_capacity(entries.len()),
            grades: Vec::with_capacity(entries.len()),
            ..Default::default()
        };
        out.names.try_reserve(entries.len(), names.text_len());
        out.offsets.push(0);
        let mut dropped = 0;
        let mut keyed: Vec<(u64, u32)> = Vec::new();
        for q in 0..num_queries {
            let rows = &by_query[counts[q] as usize..counts[q + 1] as usize];
            keyed.clear();
            keyed.extend(rows.iter().map(|&r| (name_hash(names, r as usize), r)));

            // (hash, name, row): the last row of each name is the last judgment
            keyed.sort_unstable_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| names.get(a.1 as usize).cmp(names.get(b.1 as usize)))
                    .then(a.1.cmp(&b.1))
            });
            for (i, &(h, r)) in keyed.iter().enumerate() {
                let next_same = keyed.get(i + 1).is_some_and(|&(h2, r2)| {
                    h2 == h && names.get(r2 as usize) == names.get(r as usize)
                });
                if next_same {
                    dropped += 1;
                    continue;
                }
                out.hashes.push(h);
                out.names.push(names.get(r as usize));
                out.grades.push(grades[r as usize]);
            }
            out.offsets.push(out.grades.len() as u32);
        }
        (out, dropped)
    }

    fn range(&self, query: u32) -> std::ops::Range<usize> {
        let q = query as usize;
        if q + 1 < self.offsets.len() {
            self.offsets[q] as usize..self.offsets[q + 1] as usize
        } else {
            0..0
        }
    }

    pub fn has_query(&self, query: u32) -> bool {
        !self.range(query).is_empty()
    }

    /// The grade of `doc` for `query`, [`NOT_JUDGED`] if it has none.
    pub fn grade(&self, query: u32, doc: &str) -> i32 {
        let h = ids::hash(doc.as_bytes());
        self.range(query)
            .find(|&i| self.hashes[i] == h && self.names.get(i) == doc)
            .map_or(NOT_JUDGED, |i| self.grades[i])
    }

    /// Every judgment of `query`: (document, grade).
    pub fn judgments(&self, query: u32) -> impl Iterator<Item = (&str, i32)> + '_ {
        self.range(query)
            .map(|i| (self.names.get(i), self.grades[i]))
    }

    pub fn num_judgments(&self) -> usize {
        self.grades.len()
    }

    /// Queries with at least one judgment.
    pub fn num_judged_queries(&self) -> usize {
        self.offsets.windows(2).filter(|w| w[1] > w[0]).count()
    }
}

/// One model's ranked lists: the file's rows (document names and scores, in
/// file order) and, per query, which rows are its (CSR layout).
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub name: String,
    /// The run tag of a TREC run file (its last line's, as trec_eval keeps it).
    pub tag: String,
    /// `offsets[q]..offsets[q + 1]` index `rows`: query `q`'s rows, in file order.
    pub offsets: Vec<u32>,
    pub rows: Vec<u32>,
    /// Document name and score of every file row (shared by the models of one
    /// long CSV; rows a model did not retrieve are simply not in its `rows`).
    pub names: std::sync::Arc<Names>,
    pub scores: std::sync::Arc<Vec<f64>>,
}

impl Run {
    /// Groups the rows where `keep(row)` by query (`queries[row]`), keeping the
    /// file order inside each query (a counting sort: O(rows + queries)).
    pub fn from_rows(
        name: String,
        names: std::sync::Arc<Names>,
        scores: std::sync::Arc<Vec<f64>>,
        queries: &[u32],
        keep: impl Fn(usize) -> bool,
        num_queries: usize,
    ) -> Run {
        let (offsets, rows) = group_by_query(
            queries
                .iter()
                .enumerate()
                .filter(|&(row, _)| keep(row))
                .map(|(row, &q)| (q, row as u32)),
            num_queries,
        );
        Run {
            name,
            tag: String::new(),
            offsets,
            rows,
            names,
            scores,
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

    /// The document name of a file row.
    pub fn doc(&self, row: u32) -> &str {
        self.names.get(row as usize)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Everything loaded for ranking evaluation: one qrels, one or more runs.
#[derive(Clone, Debug, Default)]
pub struct RankingData {
    pub queries: Interner,
    pub qrels: Qrels,
    pub runs: Vec<Run>,
    /// The lists are users' (a file keyed them by a user column:
    /// `rankscope_io::parse::BY_USER`): users and items, not queries and documents.
    pub by_user: bool,
}

/// The queries that enter the evaluation, in byte-wise order of their ids
/// (trec_eval's output order), plus the ones left out and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuerySelection {
    pub evaluated: Vec<u32>,
    /// In the qrels, absent from this run: scored 0 under [`QuerySet::Qrels`], dropped otherwise.
    pub missing_from_run: Vec<u32>,
    /// In the run, absent from the qrels: left out, but scored 0 under [`QuerySet::Union`].
    pub missing_from_qrels: Vec<u32>,
    /// Without a relevant document, left out under [`NoRelevant::Skip`] ([`refine`]).
    pub no_relevant_skipped: Vec<u32>,
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
                    if set != QuerySet::Intersection {
                        sel.evaluated.push(q);
                    }
                }
                (false, true) => {
                    sel.missing_from_qrels.push(q);
                    if set == QuerySet::Union {
                        sel.evaluated.push(q);
                    }
                }
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
    // The tie rule only reorders documents inside groups of equal scores, so
    // `grades` and `rows` depend on it; the columns below do not and are
    // shared (`Arc`) between a run and its re-tied copies ([`retie`]). A
    // document's score is its run's (`run.scores[rows[j]]`): not copied here.
    /// `offsets[i]..offsets[i + 1]`: the ranked rows of `selection.evaluated[i]`.
    pub offsets: Arc<Vec<usize>>,
    pub grades: Vec<i32>,
    /// The file row of each ranked document in its run (`Run::doc` gives its name).
    pub rows: Vec<u32>,
    /// `tied_with_prev[j]`: row j has the same score as row j - 1 of the same query.
    pub tied_with_prev: Arc<Vec<bool>>,
    /// `judged_offsets[i]..judged_offsets[i + 1]` in `judged_desc`: every judged
    /// grade >= 0 of the query, descending (the ideal ranking).
    pub judged_offsets: Arc<Vec<usize>>,
    pub judged_desc: Arc<Vec<i32>>,
    /// Duplicated (query, doc) rows dropped from the run (the first one is kept).
    pub duplicates_dropped: usize,
    /// Indices of the queries where a group of equal scores holds documents of
    /// different grades: the only queries whose values change with the tie
    /// rule. Found once here; the same under every rule ([`retie`] keeps it).
    pub mixed_ties: Vec<usize>,
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
        grades: Vec::with_capacity(rows),
        rows: Vec::with_capacity(rows),
        ..Default::default()
    };
    let mut offsets = Vec::with_capacity(selection.evaluated.len() + 1);
    let mut judged_offsets = Vec::with_capacity(selection.evaluated.len() + 1);
    let mut tied_with_prev = Vec::with_capacity(rows);
    let mut judged_desc: Vec<i32> = Vec::new();
    offsets.push(0);
    judged_offsets.push(0);
    let scores = &run.scores[..];
    let names = &*run.names;
    let name = |row: u32| names.get(row as usize);
    // per query, two small open-addressing tables keyed by name hash (slot =
    // hash bits, entry = index + 1, 0 = empty): the judged documents, and the
    // run's documents seen so far (a repeat is a duplicate: the first one in
    // the file is kept). Names are compared only when hashes are equal.
    let mut judged_slots: Vec<u32> = Vec::new();
    let mut seen_slots: Vec<(u64, u32)> = Vec::new();
    // (descending score key, row, grade) of the query's distinct documents
    let mut kept: Vec<(u64, u32, i32)> = Vec::new();
    for &q in &selection.evaluated {
        let jr = data.qrels.range(q);
        let (jh, jg) = (
            &data.qrels.hashes[jr.clone()],
            &data.qrels.grades[jr.clone()],
        );
        let jname = |i: usize| data.qrels.names.get(jr.start + i);
        let jmask = (2 * jh.len()).next_power_of_two().max(16) - 1;
        judged_slots.clear();
        judged_slots.resize(jmask + 1, 0);
        for (i, &h) in jh.iter().enumerate() {
            let mut slot = h as usize & jmask;
            while judged_slots[slot] != 0 {
                slot = (slot + 1) & jmask;
            }
            judged_slots[slot] = i as u32 + 1;
        }
        let rows = &run.rows[run.query_range(q)];
        let smask = (2 * rows.len()).next_power_of_two().max(16) - 1;
        seen_slots.clear();
        seen_slots.resize(smask + 1, (0, 0));
        kept.clear();
        for &row in rows {
            let doc = name(row);
            let h = ids::hash(doc.as_bytes());
            let mut slot = h as usize & smask;
            let mut repeated = false;
            while seen_slots[slot].1 != 0 {
                let (sh, srow) = seen_slots[slot];
                if sh == h && name(srow - 1) == doc {
                    repeated = true;
                    break;
                }
                slot = (slot + 1) & smask;
            }
            if repeated {
                out.duplicates_dropped += 1;
                continue;
            }
            seen_slots[slot] = (h, row + 1);
            let mut slot = h as usize & jmask;
            let mut grade = NOT_JUDGED;
            while judged_slots[slot] != 0 {
                let j = judged_slots[slot] as usize - 1;
                if jh[j] == h && jname(j) == doc {
                    grade = jg[j];
                    break;
                }
                slot = (slot + 1) & jmask;
            }
            kept.push((!super::base::order_key(scores[row as usize]), row, grade));
        }
        // sorted on integer keys (descending score; -0.0 and 0.0 tie, as in
        // trec_eval's comparisons), equal scores in file order (the row number
        // is the file position), then each group of equal scores by the tie rule
        kept.sort_unstable_by_key(|&(key, row, _)| (key, row));
        // trec_eval's order (and the averaged rule's): document id
        // descending, names compared only inside groups of equal scores
        if tie_rule != TieRule::File {
            let ascending = tie_rule == TieRule::IdAscending;
            for group in kept.chunk_by_mut(|a, b| a.0 == b.0) {
                if group.len() > 1 {
                    group.sort_unstable_by(|a, b| {
                        let descending = name(b.1).as_bytes().cmp(name(a.1).as_bytes());
                        if ascending {
                            descending.reverse()
                        } else {
                            descending
                        }
                    });
                }
            }
        }
        let mut prev: Option<f64> = None;
        for &(_, row, grade) in &kept {
            let score = scores[row as usize];
            tied_with_prev.push(prev == Some(score));
            prev = Some(score);
            out.rows.push(row);
            out.grades.push(grade);
        }
        offsets.push(out.grades.len());
        let judged_start = judged_desc.len();
        judged_desc.extend(jg.iter().copied().filter(|&g| g >= 0));
        super::sort_descending(&mut judged_desc[judged_start..]);
        judged_offsets.push(judged_desc.len());
    }
    out.offsets = Arc::new(offsets);
    out.judged_offsets = Arc::new(judged_offsets);
    out.tied_with_prev = Arc::new(tied_with_prev);
    out.judged_desc = Arc::new(judged_desc);
    out.selection = selection;
    out.mixed_ties = (0..out.num_queries())
        .filter(|&i| {
            let r = out.row_range(i);
            // neighbours inside a group all equal <=> the whole group equal
            (r.start + 1..r.end)
                .any(|j| out.tied_with_prev[j] && out.grades[j] != out.grades[j - 1])
        })
        .collect();
    out
}

/// The same prepared run under another tie rule, without preparing again: the
/// documents kept, their grades and the groups of equal scores do not depend on
/// the rule, only the order inside each group does (file order, or document id
/// descending for trec_eval's order and the averaged rule). A copy plus a sort
/// of each tie group: a convention change costs O(rows), not a full prepare.
pub fn retie(p: &PreparedRun, run: &Run, tie_rule: TieRule) -> PreparedRun {
    let mut out = p.clone();
    out.tie_rule = tie_rule;
    let by_id = |rule| matches!(rule, TieRule::Trec | TieRule::Average);
    if by_id(p.tie_rule) && by_id(tie_rule) {
        // the averaged rule keeps trec_eval's order: nothing moves
        return out;
    }
    let n = out.rows.len();
    let tied: &[bool] = &p.tied_with_prev;
    let mut group: Vec<(u32, i32)> = Vec::new();
    let mut s = 0;
    while s < n {
        // the next group of two or more: from the row before the next tied row
        let Some(next) = tied[s + 1..].iter().position(|&t| t) else {
            break;
        };
        s += next;
        let mut e = s + 2;
        while e < n && tied[e] {
            e += 1;
        }
        let size = e - s;
        if tie_rule == TieRule::File && size <= SMALL_GROUP {
            // most groups are pairs or a few documents: ordered in place by
            // file row (distinct in a run), each grade moving with its row
            let (rows, grades) = (&mut out.rows[s..e], &mut out.grades[s..e]);
            for j in 1..size {
                let (row, grade) = (rows[j], grades[j]);
                let mut k = j;
                while k > 0 && rows[k - 1] > row {
                    rows[k] = rows[k - 1];
                    grades[k] = grades[k - 1];
                    k -= 1;
                }
                rows[k] = row;
                grades[k] = grade;
            }
        } else {
            group.clear();
            group.extend((s..e).map(|j| (out.rows[j], out.grades[j])));
            // rows and names are distinct in a group: any sort gives one order
            let by = |a: usize, b: usize| match tie_rule {
                TieRule::File => group[a].0.cmp(&group[b].0),
                TieRule::Trec | TieRule::Average => run
                    .doc(group[b].0)
                    .as_bytes()
                    .cmp(run.doc(group[a].0).as_bytes()),
                TieRule::IdAscending => run
                    .doc(group[a].0)
                    .as_bytes()
                    .cmp(run.doc(group[b].0).as_bytes()),
            };
            for (k, i) in crate::order(group.len(), &by).into_iter().enumerate() {
                (out.rows[s + k], out.grades[s + k]) = group[i];
            }
        }
        s = e;
    }
    out
}

/// The conventions that change what a prepared run holds after its sort:
/// which documents stay (identical ids), which queries count (those without
/// a relevant document) and which judgments the metrics read. Their default
/// values leave a run as [`prepare`] made it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Refine {
    pub identical_ids: IdenticalIds,
    pub no_relevant: NoRelevant,
    pub judgments: Judgments,
    pub grades: Grades,
    /// The relevance level that decides whether a query has a relevant
    /// document, and which grades become 1 under [`Grades::Binary`].
    pub relevance_level: i32,
}

impl Refine {
    /// Whether [`refine`] would change nothing.
    pub fn is_identity(&self) -> bool {
        self.identical_ids == IdenticalIds::Keep
            && self.no_relevant == NoRelevant::Zero
            && self.judgments == Judgments::Qrels
            && self.grades == Grades::Graded
    }
}

/// `p` under the conventions of `r`: the documents whose id is their query's
/// dropped ([`IdenticalIds::Drop`]), each query's judgments limited to its
/// retrieved documents ([`Judgments::Retrieved`]), then the queries without a
/// relevant document (grade ≥ the level) left out ([`NoRelevant::Skip`]),
/// and under [`Grades::Binary`] every grade ≥ the level made 1, every other
/// judged grade 0 (the kernels then read level 1: `Conventions::ranking_ctx`).
/// The order of the documents kept is `p`'s; tie groups, judged grades and
/// the queries of mixed ties are found again.
pub fn refine(p: &PreparedRun, data: &RankingData, run: &Run, r: Refine) -> PreparedRun {
    if r.is_identity() {
        return p.clone();
    }
    let mut out = PreparedRun {
        name: p.name.clone(),
        tie_rule: p.tie_rule,
        duplicates_dropped: p.duplicates_dropped,
        ..Default::default()
    };
    let mut selection = QuerySelection {
        missing_from_run: p.selection.missing_from_run.clone(),
        missing_from_qrels: p.selection.missing_from_qrels.clone(),
        ..Default::default()
    };
    let (mut offsets, mut judged_offsets) = (vec![0], vec![0]);
    let (mut tied, mut judged) = (Vec::new(), Vec::new());
    for (i, &q) in p.selection.evaluated.iter().enumerate() {
        let (start, judged_start) = (out.rows.len(), judged.len());
        let query = data.queries.name(q);
        let mut prev: Option<f64> = None;
        for j in p.row_range(i) {
            let row = p.rows[j];
            if r.identical_ids == IdenticalIds::Drop && run.doc(row) == query {
                continue;
            }
            let score = run.scores[row as usize];
            tied.push(prev == Some(score));
            prev = Some(score);
            out.rows.push(row);
            out.grades.push(p.grades[j]);
        }
        match r.judgments {
            Judgments::Qrels => judged.extend_from_slice(p.query(i).judged_desc),
            Judgments::Retrieved => {
                judged.extend(out.grades[start..].iter().copied().filter(|&g| g >= 0));
                super::sort_descending(&mut judged[judged_start..]);
            }
        }
        let relevant = judged[judged_start..]
            .first()
            .is_some_and(|&g| g >= r.relevance_level);
        if r.no_relevant == NoRelevant::Skip && !relevant {
            out.rows.truncate(start);
            out.grades.truncate(start);
            tied.truncate(start);
            judged.truncate(judged_start);
            selection.no_relevant_skipped.push(q);
            continue;
        }
        if r.grades == Grades::Binary {
            let binary = |g: &mut i32| {
                if *g >= r.relevance_level {
                    *g = 1
                } else if *g >= 0 {
                    *g = 0
                }
            };
            out.grades[start..].iter_mut().for_each(binary);
            judged[judged_start..].iter_mut().for_each(binary);
        }
        selection.evaluated.push(q);
        offsets.push(out.rows.len());
        judged_offsets.push(judged.len());
    }
    out.offsets = Arc::new(offsets);
    out.judged_offsets = Arc::new(judged_offsets);
    out.tied_with_prev = Arc::new(tied);
    out.judged_desc = Arc::new(judged);
    out.selection = selection;
    out.mixed_ties = (0..out.num_queries())
        .filter(|&i| {
            let r = out.row_range(i);
            (r.start + 1..r.end)
                .any(|j| out.tied_with_prev[j] && out.grades[j] != out.grades[j - 1])
        })
        .collect();
    out
}

/// Tie groups up to this size are re-sorted in place by insertion ([`retie`]).
const SMALL_GROUP: usize = 8;

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
        let (mut names, mut entries, mut grades) = (Names::default(), vec![], vec![]);
        for (row, &(q, d, g)) in qrels_rows.iter().enumerate() {
            entries.push((data.queries.intern(q), row as u32));
            names.push(d);
            grades.push(g);
        }
        let (mut qs, mut run_names, mut ss) = (vec![], Names::default(), vec![]);
        for &(q, d, s) in run_rows {
            qs.push(data.queries.intern(q));
            run_names.push(d);
            ss.push(s);
        }
        let n = data.queries.len();
        data.qrels = Qrels::build(&entries, &names, &grades, n).0;
        data.runs.push(Run::from_rows(
            "r".into(),
            run_names.into(),
            ss.into(),
            &qs,
            |_| true,
            n,
        ));
        data
    }

    fn ranked<'a>(data: &'a RankingData, p: &PreparedRun) -> Vec<&'a str> {
        p.rows.iter().map(|&r| data.runs[0].doc(r)).collect()
    }

    #[test]
    fn judgments_join_per_query_and_the_last_judgment_wins() {
        let data = data_with(
            &[("q", "a", 0.9), ("q", "z", 0.8), ("r", "a", 0.7)],
            &[("q", "a", 1), ("q", "b", 2), ("q", "a", 3), ("r", "z", 2)],
        );
        assert_eq!(data.qrels.grade(0, "a"), 3);
        assert_eq!(data.qrels.grade(0, "z"), NOT_JUDGED);
        assert_eq!(data.qrels.num_judgments(), 3);
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Qrels);
        assert_eq!(p.grades, [3, NOT_JUDGED, NOT_JUDGED]);
        assert_eq!(*p.judged_desc, [3, 2, 2]);
    }

    #[test]
    fn trec_order_breaks_ties_by_docid_descending() {
        let data = data_with(
            &[("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 1.0)],
            &[("q", "a", 1)],
        );
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Qrels);
        assert_eq!(ranked(&data, &p), ["c", "b", "a"]);
        assert_eq!(*p.tied_with_prev, [false, true, true]);
        let f = prepare(&data, 0, TieRule::File, QuerySet::Qrels);
        assert_eq!(ranked(&data, &f), ["a", "b", "c"]);
        let up = prepare(&data, 0, TieRule::IdAscending, QuerySet::Qrels);
        assert_eq!(ranked(&data, &up), ["a", "b", "c"]);
        let data = data_with(
            &[
                ("q", "b", 1.0),
                ("q", "c", 1.0),
                ("q", "a", 1.0),
                ("q", "z", 2.0),
            ],
            &[("q", "a", 1)],
        );
        let up = prepare(&data, 0, TieRule::IdAscending, QuerySet::Qrels);
        assert_eq!(ranked(&data, &up), ["z", "a", "b", "c"]);
    }

    #[test]
    fn scores_sort_descending_with_signed_zeros_tied_and_groups_by_name() {
        // trec_eval compares doubles: -0.0 == 0.0, so the docid decides
        let data = data_with(
            &[
                ("q", "a", 0.0),
                ("q", "b", -0.0),
                ("q", "c", -1.5),
                ("q", "d", 2.0),
                ("q", "e", -1.5),
                ("q", "f", f64::INFINITY),
            ],
            &[("q", "a", 1)],
        );
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Qrels);
        assert_eq!(ranked(&data, &p), ["f", "d", "b", "a", "e", "c"]);
        assert_eq!(*p.tied_with_prev, [false, false, false, true, false, true]);
        let f = prepare(&data, 0, TieRule::File, QuerySet::Qrels);
        assert_eq!(ranked(&data, &f), ["f", "d", "a", "b", "c", "e"]);
    }

    #[test]
    fn retie_equals_preparing_again_for_groups_of_every_size() {
        // tie groups of 1..=20 documents (both sides of SMALL_GROUP), names
        // out of file order, grades mixed, in two queries
        let names: Vec<String> = (0..210)
            .map(|i| format!("d{:03}", (i * 37) % 210))
            .collect();
        let mut run = Vec::new();
        let mut qrels = Vec::new();
        let (mut i, mut size) = (0, 1);
        while i < names.len() {
            for (j, name) in names.iter().enumerate().skip(i).take(size) {
                let q = if j % 2 == 0 { "q" } else { "r" };
                run.push((q, name.as_str(), -(size as f64)));
                qrels.push((q, name.as_str(), (j % 3) as i32));
            }
            i += size;
            size += 1;
        }
        let data = data_with(&run, &qrels);
        let rules = [
            TieRule::Trec,
            TieRule::File,
            TieRule::Average,
            TieRule::IdAscending,
        ];
        for from in rules {
            let base = prepare(&data, 0, from, QuerySet::Qrels);
            for to in rules {
                let fast = retie(&base, &data.runs[0], to);
                let fresh = prepare(&data, 0, to, QuerySet::Qrels);
                assert_eq!(
                    (fast.tie_rule, &fast.rows, &fast.grades),
                    (fresh.tie_rule, &fresh.rows, &fresh.grades),
                    "{from:?} -> {to:?}"
                );
            }
        }
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
    fn the_first_duplicate_is_the_earliest_repeat_in_the_file() {
        let mut next = crate::xorshift(11);
        for round in 0..200 {
            let n = (next() % 60) as usize;
            let q: Vec<u32> = (0..n).map(|_| (next() % 4) as u32).collect();
            let mut names = Names::default();
            for _ in 0..n {
                // few names: repeats are common; none in some rounds
                let id = next() % if round % 3 == 0 { 1_000_000 } else { 12 };
                names.push(&format!("d{id}"));
            }
            // the naive answer: the first row whose (query, name) came before
            let mut seen = std::collections::HashMap::new();
            let mut want = None;
            for (row, &query) in q.iter().enumerate() {
                let key = (query, names.get(row).to_string());
                if let Some(&earlier) = seen.get(&key) {
                    want = Some((query, earlier as u32, row as u32));
                    break;
                }
                seen.insert(key, row);
            }
            assert_eq!(first_duplicate(&q, &names, 4), want, "round {round}");
        }
    }

    #[test]
    fn the_union_of_query_sets_counts_run_queries_without_judgments() {
        let data = data_with(
            &[("q1", "a", 1.0), ("q3", "a", 1.0)],
            &[("q1", "a", 1), ("q2", "b", 1)],
        );
        let p = prepare(&data, 0, TieRule::Trec, QuerySet::Union);
        let names: Vec<&str> = (p.selection.evaluated.iter())
            .map(|&q| data.queries.name(q))
            .collect();
        assert_eq!(names, ["q1", "q2", "q3"]);
        assert!(p.query(2).judged_desc.is_empty());
    }

    fn refined(data: &RankingData, r: Refine) -> PreparedRun {
        let p = prepare(data, 0, TieRule::Trec, QuerySet::Qrels);
        refine(&p, data, &data.runs[0], r)
    }

    #[test]
    fn identical_ids_are_dropped_from_the_run_and_ties_found_again() {
        // q's own id ties with b; dropping it leaves a and b tied
        let data = data_with(
            &[
                ("q", "q", 2.0),
                ("q", "b", 2.0),
                ("q", "a", 1.0),
                ("r", "q", 1.0),
            ],
            &[("q", "q", 1), ("q", "a", 2), ("q", "b", 0), ("r", "q", 1)],
        );
        let keep = refined(
            &data,
            Refine {
                relevance_level: 1,
                ..Default::default()
            },
        );
        assert_eq!(ranked(&data, &keep), ["q", "b", "a", "q"]);
        let drop = refined(
            &data,
            Refine {
                identical_ids: IdenticalIds::Drop,
                relevance_level: 1,
                ..Default::default()
            },
        );
        assert_eq!(
            ranked(&data, &drop),
            ["b", "a", "q"],
            "r's document q is not r"
        );
        assert_eq!(drop.grades, [0, 2, 1]);
        assert_eq!(*drop.tied_with_prev, [false, false, false]);
        assert!(drop.mixed_ties.is_empty() && keep.mixed_ties == [0]);
        // the judgments stay: q is still judged relevant for q
        assert_eq!(drop.query(0).judged_desc, [2, 1, 0]);
    }

    #[test]
    fn judgments_of_the_retrieved_documents_only() {
        let data = data_with(
            &[("q", "a", 2.0), ("q", "x", 1.0)],
            &[("q", "a", 1), ("q", "b", 3), ("q", "c", 2), ("q", "x", 0)],
        );
        let all = refined(
            &data,
            Refine {
                relevance_level: 1,
                ..Default::default()
            },
        );
        assert_eq!(all.query(0).judged_desc, [3, 2, 1, 0]);
        let listed = refined(
            &data,
            Refine {
                judgments: Judgments::Retrieved,
                relevance_level: 1,
                ..Default::default()
            },
        );
        assert_eq!(listed.query(0).judged_desc, [1, 0]);
        assert_eq!(listed.grades, all.grades);
    }

    #[test]
    fn binary_grades_are_relevance_at_the_level() {
        let data = data_with(
            &[("q", "a", 2.0), ("q", "b", 1.0), ("q", "x", 0.5)],
            &[("q", "a", 3), ("q", "b", 1), ("q", "c", 2), ("q", "d", 0)],
        );
        let at = |level| {
            let p = refined(
                &data,
                Refine {
                    grades: Grades::Binary,
                    relevance_level: level,
                    ..Default::default()
                },
            );
            (p.grades.clone(), p.query(0).judged_desc.to_vec())
        };
        assert_eq!(at(1), (vec![1, 1, NOT_JUDGED], vec![1, 1, 1, 0]));
        assert_eq!(at(2), (vec![1, 0, NOT_JUDGED], vec![1, 1, 0, 0]));
    }

    #[test]
    fn queries_without_a_relevant_document_are_skipped_at_the_level() {
        let data = data_with(
            &[("q", "a", 2.0), ("r", "a", 1.0), ("s", "b", 1.0)],
            &[("q", "a", 1), ("r", "a", 0), ("s", "b", 2)],
        );
        let skip = |level| {
            let r = Refine {
                no_relevant: NoRelevant::Skip,
                relevance_level: level,
                ..Default::default()
            };
            let p = refined(&data, r);
            let kept: Vec<&str> = p
                .selection
                .evaluated
                .iter()
                .map(|&q| data.queries.name(q))
                .collect();
            let skipped: Vec<&str> = (p.selection.no_relevant_skipped.iter())
                .map(|&q| data.queries.name(q))
                .collect();
            (kept, skipped, p.grades.clone(), p.offsets.len())
        };
        assert_eq!(skip(1), (vec!["q", "s"], vec!["r"], vec![1, 2], 3));
        assert_eq!(skip(2), (vec!["s"], vec!["q", "r"], vec![2], 2));
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
            p.rows
                .iter()
                .map(|&r| data.runs[0].scores[r as usize])
                .collect::<Vec<_>>(),
            [0.5, 0.1, 0.3],
            "a document repeated in another query is not a duplicate"
        );
    }
}
