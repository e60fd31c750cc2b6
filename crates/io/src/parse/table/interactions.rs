//! Held-out interactions: `user_id,item_id[,rating|weight|timestamp]`, the
//! items each user went on to use (a recommender's test split), read as
//! judgments: each row a relevant item of its user (grade 1), or with a
//! rating column relevant from a threshold (default 4), or graded by the
//! rating ([`RatingRelevance`]).

use super::super::RatingRelevance;
use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::Interactions,
    header: "user_id,item_id (held-out interactions)",
    scores: Scores::Reduced,
    detect,
    row: |t, n, f, o| t.interaction_row(n, f, o),
    columns: |t, _, _, _| t.interaction_columns(),
};

/// A header of a user (or query) and an item, and beside them nothing but
/// a rating, a weight or a time (no score column: that is a run).
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let (u, i) = (h.user().or(h.query())?, h.item()?);
    let rest = h.rest(&[u, i]);
    let side = |c: &usize| is_one_of(&h.lower[*c], RATING) || is_one_of(&h.lower[*c], INTERACTION);
    if !rest.iter().all(side) {
        return None;
    }
    Some(Ok(Roles {
        key_a: u,
        key_b: i,
        truth: h.find(RATING).unwrap_or(usize::MAX),
        ..Default::default()
    }))
}

impl TableState {
    /// One line: a user, an item, and its grade (1, or from its rating).
    #[inline]
    pub(super) fn interaction_row(
        &mut self,
        n: u64,
        f: &Row,
        options: &LoadOptions,
    ) -> Result<(), Problem> {
        let (a, b) = self.keys(n, f)?;
        let grade = if self.truth == usize::MAX {
            1
        } else {
            let raw = &f[self.truth];
            let rule = options.relevant_rating.unwrap_or_default();
            self.relevance_rule = rule;
            match rule {
                RatingRelevance::Every => 1,
                RatingRelevance::AtLeast(t) => {
                    let r = fields::number(raw).ok_or_else(|| {
                        problem(
                            n,
                            self.truth + 1,
                            "a rating (a number)",
                            shown(raw),
                            decimal_comma(raw),
                        )
                    })?;
                    i32::from(r >= t)
                }
                RatingRelevance::Graded => fields::integer(raw).ok_or_else(|| {
                    problem(
                        n,
                        self.truth + 1,
                        "a whole-number rating (read as the relevance grade)",
                        shown(raw),
                        Some("Ratings with fractions make relevance from a threshold instead (command line: --relevant-rating 4; Python: relevant_rating=4).".into()),
                    )
                })?,
            }
        };
        self.a.push(self.ids_a.intern(a));
        self.names_b.push(b);
        self.grades.push(Some(grade));
        Ok(())
    }

    /// The judgments, and a note of how they were read. An item a user
    /// interacted with more than once keeps its last row.
    pub(super) fn interaction_columns(self) -> Option<Parsed> {
        if self.a.is_empty() {
            return None;
        }
        let grade: Vec<i32> = self.grades.iter().map(|g| g.unwrap_or(0)).collect();
        let relevant = grade.iter().filter(|&&g| g >= 1).count();
        let users = self.ids_a.len();
        let (judgments, duplicates) =
            rankscope_core::ranking::Qrels::from_columns(&self.a, &self.names_b, &grade, users);
        let how = match self.truth {
            usize::MAX => "each row a relevant item of its user (grade 1)".to_string(),
            c => format!(
                "{}; {relevant} of {} rows relevant (command line: --relevant-rating NUMBER, graded or all; Python: relevant_rating=)",
                self.relevance_rule.describe(&self.header[c]),
                grade.len()
            ),
        };
        let mut notes = vec![format!(
            "Read as held-out interactions: the judgments of the runs loaded with them, {how}."
        )];
        if self.truth != usize::MAX && relevant == 0 {
            notes.push("No rating makes an item relevant: every ranking metric is 0. Choose how ratings count (command line: --relevant-rating; Python: relevant_rating=).".into());
        }
        Some(
            Parsed::Qrels {
                queries: self.ids_a,
                judgments,
                rows: grade.len(),
                duplicates,
            }
            .noted(notes),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, Format, LoadOptions, Parsed, RatingRelevance};

    /// Each user's judged items and grades, in the judgments' order (by name hash).
    fn judged(
        text: &str,
        rule: Option<RatingRelevance>,
    ) -> (Vec<(String, String, i32)>, Vec<String>) {
        let options = LoadOptions {
            relevant_rating: rule,
            ..Default::default()
        };
        let (parsed, notes) = parse_bytes("heldout.csv", text.as_bytes(), &options)
            .unwrap()
            .into_parts();
        let Parsed::Qrels {
            queries, judgments, ..
        } = parsed
        else {
            panic!("judgments, not {parsed:?}");
        };
        let mut out = Vec::new();
        for q in 0..queries.len() {
            let (a, b) = (
                judgments.offsets[q] as usize,
                judgments.offsets[q + 1] as usize,
            );
            for i in a..b {
                out.push((
                    queries.name(q as u32).to_string(),
                    judgments.names.get(i).to_string(),
                    judgments.grades[i],
                ));
            }
        }
        out.sort();
        (out, notes)
    }

    fn row(u: &str, i: &str, g: i32) -> (String, String, i32) {
        (u.into(), i.into(), g)
    }

    /// `user_id,item_id` (and a time or weight beside them): every row a
    /// relevant item, string ids kept; a repeat keeps one judgment.
    #[test]
    fn interactions_are_judgments_of_grade_one() {
        for text in [
            "user_id,item_id\nu1,sku-0001\nu2,sku-0002\nu1,sku-0003\n",
            "user_id,item_id,timestamp\nu1,sku-0001,5\nu2,sku-0002,6\nu1,sku-0003,7\n",
            "userid,product_id,weight\nu1,sku-0001,2\nu2,sku-0002,1\nu1,sku-0003,9\nu1,sku-0001,1\n",
        ] {
            let (rows, notes) = judged(text, None);
            assert_eq!(
                rows,
                [row("u1", "sku-0001", 1), row("u1", "sku-0003", 1), row("u2", "sku-0002", 1)],
                "{text}"
            );
            assert!(notes[0].contains("each row a relevant item of its user (grade 1)"));
        }
    }

    /// A rating column: relevant from 4 by default, from another threshold,
    /// graded, or every row; the notice names the rule.
    #[test]
    fn a_rating_makes_relevance_by_the_rule_chosen() {
        let text = "user_id,item_id,rating\nu1,a,5\nu1,b,3.5\nu2,c,4\nu2,d,1\n";
        let (rows, notes) = judged(text, None);
        assert_eq!(
            rows,
            [
                row("u1", "a", 1),
                row("u1", "b", 0),
                row("u2", "c", 1),
                row("u2", "d", 0)
            ]
        );
        assert!(
            notes[0].contains("relevant when its 'rating' is at least 4 (grade 1)")
                && notes[0].contains("2 of 4 rows relevant"),
            "{notes:?}"
        );
        // MovieLens' ratings.csv (was a ratings CSV of a model named 'timestamp')
        let movielens =
            "userId,movieId,rating,timestamp\nu1,a,5,9\nu1,b,3.5,9\nu2,c,4,9\nu2,d,1,9\n";
        assert_eq!(judged(movielens, None).0, rows);
        let (rows, _) = judged(text, Some(RatingRelevance::AtLeast(3.5)));
        assert_eq!(rows.iter().filter(|r| r.2 == 1).count(), 3);
        let (rows, _) = judged(text, Some(RatingRelevance::Every));
        assert!(rows.iter().all(|r| r.2 == 1));
        let graded = "user_id,item_id,rating\nu1,a,5\nu1,b,3\n";
        let (rows, notes) = judged(graded, Some(RatingRelevance::Graded));
        assert_eq!(rows, [row("u1", "a", 5), row("u1", "b", 3)]);
        assert!(notes[0].contains("'rating' read as the relevance grade"));
        // no rating reaches the threshold: said
        let (_, notes) = judged("user_id,item_id,rating\nu1,a,1\n", None);
        assert!(notes[1].starts_with("No rating makes an item relevant"));
    }

    /// A rating beside a prediction is a ratings CSV, as before; chosen as
    /// one, a file without predictions is refused as before.
    #[test]
    fn a_prediction_column_keeps_the_ratings_csv() {
        let text = "user_id,item_id,rating,pred\nu1,a,5,4.5\n";
        let parsed = parse_bytes("r.csv", text.as_bytes(), &LoadOptions::default()).unwrap();
        assert!(matches!(parsed.data(), Parsed::Ratings(_)));
        let options = LoadOptions {
            format: Some(Format::RatingsCsv),
            ..Default::default()
        };
        let e = parse_bytes("r.csv", b"user_id,item_id,rating\nu1,a,5\n", &options).unwrap_err();
        assert!(
            e.to_string()
                .contains("at least one score or prediction column"),
            "{e}"
        );
    }

    #[test]
    fn rules_read_from_their_names() {
        assert_eq!(
            RatingRelevance::parse("3.5"),
            Some(RatingRelevance::AtLeast(3.5))
        );
        assert_eq!(
            RatingRelevance::parse("graded"),
            Some(RatingRelevance::Graded)
        );
        assert_eq!(RatingRelevance::parse("all"), Some(RatingRelevance::Every));
        assert_eq!(RatingRelevance::parse("many"), None);
        assert_eq!(RatingRelevance::parse("inf"), None);
        assert_eq!(RatingRelevance::default(), RatingRelevance::AtLeast(4.0));
    }
}
