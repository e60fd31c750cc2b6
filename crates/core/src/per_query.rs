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
