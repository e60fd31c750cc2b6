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

/// A header of a query, an item and a relevance grade; every other column is a model's score.
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let (q, i, r) = (h.query().or(h.user())?, h.item()?, h.find(RELEVANCE)?);
    Some(Ok(Roles {
        key_a: q,
        key_b: i,
        truth: r,
        models: h.rest(&[q, i, r]),
        ..Default::default()
    }))
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
        for (m, &c) in self.models.iter().enumerate() {
            let s = col(c);
            let v = if s.is_empty() {
                None
            } else {
                Some(fields::number(s).ok_or_else(|| {
                    problem(
                        n,
                        c + 1,
                        "a score (a number), or nothing for an item that was not retrieved",
                        shown(s),
                        decimal_comma(s),
                    )
                })?)
            };
            self.row_buffer[m] = v.unwrap_or(f64::NAN);
        }
        self.grades.push(grade);
        self.a.push(self.ids_a.intern(a));
        self.names_b.push(b);
        for (m, v) in self.row_buffer.iter().enumerate() {
            self.model_values[m].push((!v.is_nan()).then_some(*v));
        }
        Ok(())
    }

    /// The judgments and each model's scores (a document repeated for a query is refused).
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
        let models = names.into_iter().zip(self.model_values).collect();
        Some(Parsed::RankingTable {
            queries: self.ids_a,
            q: self.a,
            docs: self.names_b,
            grade: self.grades,
            models,
        })
    }
}
