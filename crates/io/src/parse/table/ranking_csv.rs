//! Long ranking CSV: `query,item,score...,relevance` (one score column per model).

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::RankingCsv,
    header: "query_id,item_id,score,relevance (ranking)",
    scores: Scores::Ranked,
    detect,
    row: |t, n, f, _| t.ranked_row(n, f, true),
    columns: |t, names, _, errors| t.ranking_columns(names, errors),
};

/// A header of a query, an item and a relevance grade; every other column
/// is a model's score (or a rank column: [`Roles::ranked`]).
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let (q, i, r) = (h.query().or(h.user())?, h.item()?, h.find(RELEVANCE)?);
    Some(Ok(Roles {
        key_a: q,
        key_b: i,
        truth: r,
        models: h.rest(&[q, i, r]),
        ..Default::default()
    }
    .ranked(h)))
}

impl TableState {
    /// One line: a query, an item, its grade if the table is `judged`
    /// (empty: unjudged) and each model's score (empty: not retrieved).
    #[inline]
    pub(super) fn ranked_row(&mut self, n: u64, f: &Row, judged: bool) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        let (a, b) = self.keys(n, f)?;
        let g = if judged { col(self.truth) } else { b"" };
        let grade = if g.is_empty() {
            None
        } else {
            Some(fields::integer(g).ok_or_else(|| {
                problem(
                    n,
                    self.truth + 1,
                    "an integer relevance grade (or nothing)",
                    shown(g),
                    None,
                )
            })?)
        };
        let value = |c: usize| -> Result<Option<f64>, Problem> {
            let s = col(c);
            if s.is_empty() {
                return Ok(None);
            }
            let expected = if Some(c) == self.rank {
                "a rank (a number, 1 first), or nothing for an item that was not retrieved"
            } else {
                "a score (a number), or nothing for an item that was not retrieved"
            };
            fields::number(s)
                .map(Some)
                .ok_or_else(|| problem(n, c + 1, expected, shown(s), decimal_comma(s)))
        };
        for (m, &c) in self.models.iter().enumerate() {
            let v = value(c)?;
            // a rank orders its list ascending: its score is −rank
            let v = if self.rank_orders { v.map(|r| -r) } else { v };
            self.row_buffer[m] = v.unwrap_or(f64::NAN);
        }
        if let (Some(c), false) = (self.rank, self.rank_orders) {
            let r = value(c)?;
            self.ranks.push(r);
        }
        self.grades.push(grade);
        self.a.push(self.ids_a.intern(a));
        self.names_b.push(b);
        for (m, v) in self.row_buffer.iter().enumerate() {
            self.model_values[m].push((!v.is_nan()).then_some(*v));
        }
        Ok(())
    }

    /// The judgments and each model's scores (a document repeated for a
    /// query is refused), with notes: which column ordered the lists when a
    /// rank column is there (and where it disagrees with the scores), and
    /// judgments that are only the lists' own rows.
    pub(super) fn ranking_columns(
        self,
        names: Vec<String>,
        errors: &mut LoadError,
    ) -> Option<Parsed> {
        if self.a.is_empty() {
            return None;
        }
        if let Err(p) = no_duplicate(&self.ids_a, &self.a, &self.names_b, "table") {
            errors.push(p);
            return None;
        }
        let mut notes = self.rank_notes();
        notes.extend(self.judged_in_lists_note());
        let models = names.into_iter().zip(self.model_values).collect();
        Some(
            Parsed::RankingTable {
                queries: self.ids_a,
                q: self.a,
                docs: self.names_b,
                grade: self.grades,
                models,
            }
            .noted(notes),
        )
    }

    /// Which column ordered the lists, when there is a rank column; and,
    /// beside scores, in how many queries the ranks disagree with each
    /// score column's order.
    fn rank_notes(&self) -> Vec<String> {
        let Some(r) = self.rank else {
            return Vec::new();
        };
        let rank = &self.header[r];
        if self.rank_orders {
            return vec![format!("Ordered by '{rank}', ascending (rank 1 first), as a TREC or MS MARCO run's rank: each item's score is −{rank} (not a model named '{rank}').")];
        }
        self.models
            .iter()
            .zip(&self.model_values)
            .map(|(&c, scores)| {
                let score = &self.header[c];
                let (disagree, queries) = disagreeing_queries(&self.a, scores, &self.ranks);
                let mut note = format!("Ordered by '{score}', descending (trec_eval's rule: scores order a run, its ranks are not read)");
                if disagree > 0 {
                    note += &format!("; '{rank}' disagrees with '{score}' in {disagree} of {queries} queries (an item ranked above another has a lower score): the lists are evaluated in the order of '{score}'.");
                } else {
                    note += &format!("; '{rank}' agrees with it.");
                }
                note
            })
            .collect()
    }

    /// The note of judgments given only for the lists' own rows: every
    /// relevant row is retrieved by every model, so nothing relevant lies
    /// outside a list and recall can only count what was retrieved.
    fn judged_in_lists_note(&self) -> Option<String> {
        let relevant: Vec<usize> = (0..self.grades.len())
            .filter(|&i| self.grades[i].is_some_and(|g| g >= 1))
            .collect();
        let inside = !self.model_values.is_empty()
            && !relevant.is_empty()
            && self
                .model_values
                .iter()
                .all(|m| relevant.iter().all(|&i| m[i].is_some()));
        inside.then(|| "Every relevant judgment is a row of the lists themselves (no relevant item outside them): recall, R-precision, MAP and nDCG's ideal list only see these judged rows, the retrieved items, so recall@k is at most the hit rate. If a user's held-out items are more than those, load them as their own file (user_id,item_id, or qrels) beside the lists as a run (query_id,item_id,score).".to_string())
    }
}

/// Of the queries with a score and a rank on at least two rows, how many
/// order some pair the other way round (a lower rank, the better place,
/// with a strictly lower score), and how many were checked. Ties in either
/// column are no disagreement.
fn disagreeing_queries(q: &[u32], scores: &[Option<f64>], ranks: &[Option<f64>]) -> (usize, usize) {
    let mut rows: Vec<(u32, f64, f64)> = (0..q.len())
        .filter_map(|i| Some((q[i], ranks[i]?, scores[i]?)))
        .collect();
    // by query, rank ascending, score descending: the scores then fall
    // throughout a query unless some pair disagrees
    rows.sort_by(|x, y| {
        x.0.cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(y.2.total_cmp(&x.2))
    });
    let (mut disagree, mut queries) = (0, 0);
    for group in rows.chunk_by(|x, y| x.0 == y.0) {
        queries += 1;
        if group.windows(2).any(|w| w[0].1 < w[1].1 && w[0].2 < w[1].2) {
            disagree += 1;
        }
    }
    (disagree, queries)
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, LoadOptions, Parsed};

    fn read(text: &str) -> (Parsed, Vec<String>) {
        parse_bytes("lists.csv", text.as_bytes(), &LoadOptions::default())
            .unwrap()
            .into_parts()
    }

    /// A rank column alone orders each list ascending: the score is −rank,
    /// the model is named after the file, and the notice says so.
    #[test]
    fn a_rank_column_orders_ascending_and_is_no_model() {
        for header in ["rank", "Rank", "position", "pos"] {
            let text = format!("user_id,item_id,{header}\nu1,a,1\nu1,b,2\nu2,c,3\n");
            let (parsed, notes) = read(&text);
            let Parsed::RankingTable { models, .. } = parsed else {
                panic!("a run");
            };
            assert_eq!(models.len(), 1);
            assert_eq!(models[0].0, "lists");
            assert_eq!(models[0].1, [Some(-1.0), Some(-2.0), Some(-3.0)]);
            assert!(
                (notes.iter()).any(|n| n.starts_with(&format!("Ordered by '{header}', ascending"))),
                "{notes:?}"
            );
        }
    }

    /// Beside a score, the score orders the lists and the rank is checked
    /// against it: q2's ranks put c above d though c scores lower, q3
    /// ties in score (no disagreement), q1 agrees.
    #[test]
    fn a_rank_beside_a_score_is_checked_against_it() {
        let text = "query_id,doc_id,score,rank\nq1,a,0.9,1\nq1,b,0.5,2\nq2,c,0.3,1\nq2,d,0.7,2\nq3,e,0.5,1\nq3,f,0.5,2\n";
        let (parsed, notes) = read(text);
        let Parsed::RankingTable { models, .. } = parsed else {
            panic!("a run");
        };
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].0, "lists");
        assert_eq!(models[0].1[0], Some(0.9));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("Ordered by 'score', descending"));
        assert!(
            notes[0].contains("'rank' disagrees with 'score' in 1 of 3 queries"),
            "{notes:?}"
        );
        let agreeing = "query_id,doc_id,score,rank\nq1,a,0.9,1\nq1,b,0.5,2\n";
        assert!(read(agreeing).1[0].ends_with("'rank' agrees with it."));
    }

    /// Judgments given only for the lists' own rows are said to be so;
    /// one relevant item outside a list (no score) is a held-out set.
    #[test]
    fn judgments_only_of_the_lists_rows_are_named() {
        let inside = "query_id,item_id,score,relevance\nq1,a,0.9,1\nq1,b,0.5,0\nq2,c,0.3,1\n";
        let notes = read(inside).1;
        assert!(
            notes.iter().any(|n| n
                .starts_with("Every relevant judgment is a row of the lists themselves")
                && n.contains("recall, R-precision, MAP and nDCG's ideal list")),
            "{notes:?}"
        );
        let outside = format!("{inside}q2,d,,1\n");
        assert!(read(&outside).1.is_empty());
        // judgments alone (no scores) are no lists
        assert!(read("query_id,item_id,relevance\nq1,a,1\n").1.is_empty());
    }
}
