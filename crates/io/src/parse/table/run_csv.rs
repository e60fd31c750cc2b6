//! A run as a table: `query_id,doc_id,score...` with no relevance column
//! (a run DataFrame saved by pandas; one score column per model, empty for
//! a document a model did not retrieve). Its judgments come from a qrels
//! file; the rows are read as a ranking CSV's.

use super::*;

pub(super) const FORMAT: TableFormat = TableFormat {
    format: Format::RunCsv,
    header: "query_id,item_id,score (a run)",
    scores: Scores::Ranked,
    detect,
    row: |t, n, f, _| t.ranked_row(n, f, false),
    columns: |t, names, _, errors| t.ranking_columns(names, errors),
};

/// A header of a query and an item and at least one more column (each a
/// model's score, or a rank column: [`Roles::ranked`]), with no column of
/// judgments (relevance, rating, label).
pub(super) fn detect(h: &Header) -> Option<Result<Roles, Problem>> {
    let (q, i) = (h.query().or(h.user())?, h.item()?);
    if h.truth().is_some() {
        return None;
    }
    let models = h.rest(&[q, i]);
    (!models.is_empty()).then(|| {
        Ok(Roles {
            key_a: q,
            key_b: i,
            models,
            ..Default::default()
        }
        .ranked(h))
    })
}
