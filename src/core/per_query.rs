//! The per-query table of ranking runs (the page's "Per query" card): every
//! shown run's queries once, in name order, with each run's first relevant
//! rank and its reciprocal rank (or another metric's per-query values from
//! a report), sorted and filtered without copying rows (`report::rr_table_csv`
//! writes them), and each run's distribution of first relevant ranks.

use super::evaluate::Report;
use super::ids::Interner;
use super::ranking::PreparedRun;

/// The rows of the table: every shown run's queries once, in name order,
/// and where each run's queries land among them. It depends on the data,
/// the query set and the shown runs, not on the tie rule or the relevance
/// level, so a convention change only refills [`RrValues`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RrIndex {
    pub names: Vec<String>,
    /// Each shown run's place among the prepared runs.
    pub runs: Vec<usize>,
    pub qids: Vec<String>,
    /// `rows[m][i]`: the row of run m's i-th evaluated query.
    pub rows: Vec<Vec<u32>>,
}

impl RrIndex {
    /// The index of `runs` (each with its place among the prepared runs),
    /// their queries named by `queries`.
    pub fn new(queries: &Interner, runs: &[(usize, &PreparedRun)]) -> RrIndex {
        let mut ids: Vec<u32> = runs
            .iter()
            .flat_map(|r| r.1.selection.evaluated.iter().copied())
            .collect();
        queries.sort_by_name(&mut ids);
        ids.dedup();
        let mut row_of = vec![0u32; queries.len()];
        for (row, &q) in ids.iter().enumerate() {
            row_of[q as usize] = row as u32;
        }
        RrIndex {
            names: runs.iter().map(|r| r.1.name.clone()).collect(),
            runs: runs.iter().map(|r| r.0).collect(),
            qids: ids.iter().map(|&q| queries.name(q).to_string()).collect(),
            rows: runs
                .iter()
                .map(|r| {
                    (r.1.selection.evaluated.iter())
                        .map(|&q| row_of[q as usize])
                        .collect()
                })
                .collect(),
        }
    }
}

/// Per row and shown run (`row * models + m`): the first relevant rank
/// (None: no relevant document retrieved, or the query is not the run's)
/// and the value (the reciprocal rank, or another metric's; NaN: none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RrValues {
    pub models: usize,
    pub ranks: Vec<Option<usize>>,
    pub rr: Vec<f64>,
}

/// The buckets of the first relevant rank's distribution.
pub const RANK_BUCKETS: [&str; 8] = ["1", "2", "3", "4", "5", "6–10", ">10", "none"];

fn bucket(rank: Option<usize>) -> usize {
    match rank {
        Some(r @ 1..=5) => r - 1,
        Some(6..=10) => 5,
        Some(_) => 6,
        None => 7,
    }
}

impl RrValues {
    /// Each run's first relevant ranks and reciprocal ranks (no cutoff) at
    /// relevance `level`, from the prepared runs the index points into.
    pub fn from_runs(ix: &RrIndex, prepared: &[PreparedRun], level: i32) -> RrValues {
        let models = ix.names.len();
        let mut v = RrValues {
            models,
            ranks: vec![None; ix.qids.len() * models],
            rr: vec![0.0; ix.qids.len() * models],
        };
        for (m, &at) in ix.runs.iter().enumerate() {
            let Some(r) = prepared.get(at) else {
                continue;
            };
            for (i, &row) in ix.rows[m].iter().enumerate().take(r.num_queries()) {
                let q = r.query(i);
                let at = row as usize * models + m;
                v.ranks[at] = q.first_relevant_rank(level);
                v.rr[at] = q.reciprocal_rank(None, level);
            }
        }
        v
    }

    /// The values become `metric`'s per-query values from `report` (NaN
    /// where a run has no value for the query); the ranks stay.
    pub fn use_report(&mut self, ix: &RrIndex, report: &Report, metric: &str) {
        self.rr.fill(f64::NAN);
        for (m, name) in ix.names.iter().enumerate() {
            let Some(model) = report.models.iter().find(|x| &x.name == name) else {
                continue;
            };
            let Some(column) = model.per_unit.get(metric) else {
                continue;
            };
            // query ids are in name order: found by binary search
            for (id, &x) in model.unit_ids.iter().zip(column) {
                if let Ok(row) = ix
                    .qids
                    .binary_search_by(|q| q.as_bytes().cmp(id.as_bytes()))
                {
                    self.rr[row * self.models + m] = x;
                }
            }
        }
    }

    pub fn row(&self, row: usize) -> (&[Option<usize>], &[f64]) {
        let r = row * self.models..(row + 1) * self.models;
        (&self.ranks[r.clone()], &self.rr[r])
    }

    /// The table's rows.
    pub fn rows(&self) -> usize {
        self.ranks.len().checked_div(self.models).unwrap_or(0)
    }

    /// The shown rows: those whose query id is `filter` (`*` for any text,
    /// `|` between alternatives: `user_1*`, `q1|q7`; empty: every row), sorted by
    /// column `col` (0: the query id; 1 + 2m: run m's first relevant rank,
    /// none last; 2 + 2m: its value), `desc` reversing the order. Rows are
    /// in name order already, so sorting by name reads no values.
    pub fn order(&self, ix: &RrIndex, filter: &str, col: usize, desc: bool) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..ix.qids.len())
            .filter(|&i| filter.is_empty() || crate::text::glob(filter, &ix.qids[i]))
            .collect();
        if col == 0 {
            if desc {
                idx.reverse();
            }
            return idx;
        }
        let m = (col - 1) / 2;
        let o = super::order(idx.len(), &|a, b| {
            let ((ra, ea), (rb, eb)) = (self.row(idx[a]), self.row(idx[b]));
            let o = if (col - 1) % 2 == 0 {
                (ra[m].unwrap_or(usize::MAX)).cmp(&rb[m].unwrap_or(usize::MAX))
            } else {
                ea[m].total_cmp(&eb[m])
            };
            if desc {
                o.reverse()
            } else {
                o
            }
        });
        o.into_iter().map(|i| idx[i]).collect()
    }

    /// Each run's count of `rows` (the shown ones, [`RrValues::order`])
    /// per [`RANK_BUCKETS`] and its mean value over them (the MRR when the
    /// values are reciprocal ranks).
    pub fn rank_histograms(&self, rows: &[usize]) -> Vec<([usize; 8], f64)> {
        (0..self.models)
            .map(|m| {
                let mut counts = [0usize; 8];
                for &r in rows {
                    counts[bucket(self.row(r).0[m])] += 1;
                }
                let sum: f64 = rows.iter().map(|&r| self.row(r).1[m]).sum();
                (counts, sum / rows.len().max(1) as f64)
            })
            .collect()
    }
}

/// The difference column of the table: (the run shown, the run it is
/// compared with): the first run other than the chosen `baseline`, minus
/// it; none chosen (or not shown), the first run minus the second.
pub fn difference(names: &[String], baseline: Option<&str>) -> Option<(usize, usize)> {
    let base = baseline
        .and_then(|b| names.iter().position(|n| n == b))
        .unwrap_or(1);
    let other = (0..names.len()).find(|&i| i != base)?;
    (base < names.len()).then_some((other, base))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evaluate::{evaluate, Conventions, Dataset};
    use crate::core::ranking::{self, QuerySet, TieRule};
    use crate::core::registry::{MetricId, RECIPROCAL_RANK};
    use crate::parse::{LoadOptions, Workspace};

    /// Run a has queries q1, q10, q2, run b q1, q2, q3; the qrels judge d1
    /// relevant everywhere. d1's ranks: run a q1 1, q10 3, q2 none; run b
    /// q1 2, q2 1, q3 12.
    fn workspace() -> Workspace {
        let run_a = "q1 Q0 d1 1 9 a\nq1 Q0 d5 2 8 a\n\
                     q10 Q0 d5 1 9 a\nq10 Q0 d6 2 8 a\nq10 Q0 d1 3 7 a\n\
                     q2 Q0 d7 1 9 a\nq2 Q0 d8 2 8 a\n";
        let mut run_b = String::from("q1 Q0 d5 1 9 b\nq1 Q0 d1 2 8 b\nq2 Q0 d1 1 9 b\n");
        for r in 1..=12 {
            let doc = if r == 12 { 1 } else { r + 1 };
            run_b += &format!("q3 Q0 d{doc} {r} {} b\n", 100 - r);
        }
        let qrels = "q1 0 d1 1\nq10 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n";
        let mut ws = Workspace::default();
        let o = LoadOptions::default();
        ws.load_bytes("qrels.txt", qrels.as_bytes(), &o).unwrap();
        ws.load_bytes("a.run", run_a.as_bytes(), &o).unwrap();
        ws.load_bytes("b.run", run_b.as_bytes(), &o).unwrap();
        ws
    }

    fn table(ws: &Workspace) -> (RrIndex, RrValues, Vec<PreparedRun>) {
        let d = ws.ranking.as_ref().unwrap();
        let runs: Vec<PreparedRun> = (0..d.runs.len())
            .map(|i| ranking::prepare(d, i, TieRule::Trec, QuerySet::Intersection))
            .collect();
        let shown: Vec<(usize, &PreparedRun)> = runs.iter().enumerate().collect();
        let ix = RrIndex::new(&d.queries, &shown);
        let v = RrValues::from_runs(&ix, &runs, 1);
        (ix, v, runs)
    }

    #[test]
    fn rows_are_every_runs_queries_once_in_name_order_with_hand_ranks() {
        let ws = workspace();
        let (ix, v, _) = table(&ws);
        assert_eq!(ix.names, ["a", "b"]);
        assert_eq!(ix.qids, ["q1", "q10", "q2", "q3"]);
        let want: [([Option<usize>; 2], [f64; 2]); 4] = [
            ([Some(1), Some(2)], [1.0, 0.5]),
            ([Some(3), None], [1.0 / 3.0, 0.0]),
            ([None, Some(1)], [0.0, 1.0]),
            ([None, Some(12)], [0.0, 1.0 / 12.0]),
        ];
        for (row, (ranks, rr)) in want.iter().enumerate() {
            assert_eq!(v.row(row).0, ranks, "row {row}");
            assert_eq!(v.row(row).1, rr, "row {row}");
        }
        // unfiltered, the histograms count every row; the mean is over every row
        let h = v.rank_histograms(&v.order(&ix, "", 0, false));
        assert_eq!(h[0].0, [1, 0, 1, 0, 0, 0, 0, 2]);
        assert_eq!(h[1].0, [1, 1, 0, 0, 0, 0, 1, 1]);
        assert!((h[1].1 - (0.5 + 1.0 + 1.0 / 12.0) / 4.0).abs() < 1e-15);
        // filtered, only the shown rows: q1 and q10
        let h = v.rank_histograms(&v.order(&ix, "q1*", 0, false));
        assert_eq!(h[0].0, [1, 0, 1, 0, 0, 0, 0, 0]);
        assert_eq!(h[1].0, [0, 1, 0, 0, 0, 0, 0, 1]);
        assert!((h[1].1 - 0.5 / 2.0).abs() < 1e-15);
    }

    #[test]
    fn order_filters_and_sorts_without_losing_rows() {
        let ws = workspace();
        let (ix, v, _) = table(&ws);
        assert_eq!(v.order(&ix, "", 0, true), [3, 2, 1, 0]);
        // a query id is matched whole (q1 is not q10), `*` for any text
        assert_eq!(v.order(&ix, "q1", 0, false), [0]);
        assert_eq!(v.order(&ix, "q1*", 0, false), [0, 1]);
        assert_eq!(v.order(&ix, "q3|q10", 0, false), [1, 3]);
        assert!(v.order(&ix, "q", 0, false).is_empty());
        // run b's first relevant rank: 1 (q2), 2 (q1), 12 (q3), none (q10) last
        assert_eq!(v.order(&ix, "", 3, false), [2, 0, 3, 1]);
        // run a's value, descending; equal values keep name order
        assert_eq!(v.order(&ix, "", 2, true), [0, 1, 2, 3]);
        let shown = v.order(&ix, "q1*", 0, false);
        let csv = crate::report::rr_table_csv(&ix, &v, &shown, "RR", &[]);
        assert_eq!(
            csv,
            "query,a: RR,b: RR\nq1,1.0,0.5\nq10,0.3333333333333333,0.0\n"
        );
        // the conventions that are not the defaults in a last column, as the table's CSV
        let conventions = ["relevance_level=2".to_string(), "ties=average".to_string()];
        let csv = crate::report::rr_table_csv(&ix, &v, &shown, "RR", &conventions);
        assert_eq!(
            csv,
            "query,a: RR,b: RR,conventions\nq1,1.0,0.5,relevance_level=2; ties=average\nq10,0.3333333333333333,0.0,relevance_level=2; ties=average\n"
        );
    }

    #[test]
    fn another_metric_comes_from_the_report_and_is_nan_where_a_run_has_none() {
        let ws = workspace();
        let (ix, mut v, runs) = table(&ws);
        let d = ws.ranking.as_ref().unwrap();
        let id = MetricId::new(RECIPROCAL_RANK, Some(10));
        let conv = Conventions {
            query_set: QuerySet::Intersection,
            ..Conventions::default()
        };
        let report = evaluate(&Dataset::Ranking(d), &conv, std::slice::from_ref(&id));
        v.use_report(&ix, &report, &id.to_string());
        let rr: Vec<f64> = (0..4).flat_map(|r| v.row(r).1.to_vec()).collect();
        // run a has no q3, run b no q10; b's q3 rank 12 is past the cutoff
        let want = [1.0, 0.5, 1.0 / 3.0, f64::NAN, 0.0, 1.0, f64::NAN, 0.0];
        for (got, want) in rr.iter().zip(want) {
            assert!(got.to_bits() == want.to_bits() || got == &want, "{rr:?}");
        }
        assert_eq!(runs.len(), 2);
    }

    #[test]
    fn the_difference_is_the_first_other_run_minus_the_baseline() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(difference(&names, None), Some((0, 1)));
        assert_eq!(difference(&names, Some("c")), Some((0, 2)));
        assert_eq!(difference(&names, Some("a")), Some((1, 0)));
        assert_eq!(difference(&names, Some("gone")), Some((0, 1)));
        assert_eq!(difference(&names[..1], None), None);
    }
}
