//! Ratings CSV: `user,item,rating,prediction...` (one prediction column per model).

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::RatingsCsv,
    header: "user_id,item_id,rating,prediction (ratings)",
    scores: Scores::Dense,
    detect,
    row: |t, n, f, _| t.ratings_row(n, f),
    columns: |t, names, _, _| t.ratings_columns(names),
};

/// A header of a user, an item and a rating; every other column is a
/// model's prediction (without one, the file is held-out interactions,
/// unless this format is chosen).
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let (u, i, r) = (h.user().or(h.query())?, h.item()?, h.find(RATING)?);
    let models = h.rest(&[u, i, r]);
    if models.is_empty() && h.forced != Some(Format::RatingsCsv) {
        return None;
    }
    Some(Ok(Roles {
        key_a: u,
        key_b: i,
        truth: r,
        models,
        ..Default::default()
    }))
}

impl TableState {
    /// One line: a user, an item, the rating and each model's prediction.
    #[inline]
    pub(super) fn ratings_row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let col = |c: usize| -> &[u8] { &f[c] };
        let (a, b) = self.keys(n, f)?;
        let r = fields::number(col(self.truth)).ok_or_else(|| {
            problem(
                n,
                self.truth + 1,
                "a rating (a number)",
                shown(col(self.truth)),
                decimal_comma(col(self.truth)),
            )
        })?;
        for (m, &c) in self.models.iter().enumerate() {
            self.row_buffer[m] = fields::number(col(c)).ok_or_else(|| {
                problem(
                    n,
                    c + 1,
                    "a predicted rating (a number)",
                    shown(col(c)),
                    decimal_comma(col(c)),
                )
            })?;
        }
        self.truth_values.push(r);
        self.a.push(self.ids_a.intern(a));
        self.b.push(self.ids_b.intern(b));
        for (m, &v) in self.row_buffer.iter().enumerate() {
            self.dense_values[m].push(v);
        }
        Ok(())
    }

    /// The ratings and each model's predictions.
    pub(super) fn ratings_columns(self, names: Vec<String>) -> Option<Parsed> {
        if self.a.is_empty() {
            return None;
        }
        let models = names.into_iter().zip(self.dense_values).collect();
        Some(Parsed::Ratings(RatingsData {
            users: self.ids_a,
            items: self.ids_b,
            user: self.a,
            item: self.b,
            rating: self.truth_values,
            models,
        }))
    }
}
