//! The teaching page's toy ranking: its table of metrics, each computed by
//! its registry row's kernel (the dashboard's code) under trec_eval's
//! defaults (relevant: grade ≥ 1, linear gain, log2 discount).

use super::evaluate::{ranking_query_value, Conventions};
use super::ranking::QueryView;
use super::registry::{id, MetricId};

/// One row of the toy's table.
#[derive(Clone, Debug, PartialEq)]
pub struct ToyRow {
    /// What the reader sees, e.g. `nDCG@5 (gain rel)`.
    pub label: String,
    /// The page's key of the row (`data-toy-metric`).
    pub key: &'static str,
    pub value: f64,
}

/// (registry id, the page's key when it is not the id, at the cutoff?,
/// label with `{k}` for the cutoff).
const TOY: &[(&str, Option<&str>, bool, &str)] = &[
    (id::PRECISION, None, true, "P@{k}"),
    (id::RECALL, None, true, "R@{k}"),
    (id::MAP, Some("ap"), true, "AP@{k}"),
    (id::NDCG, None, true, "nDCG@{k} (gain rel)"),
    (id::NDCG_BURGES, None, true, "nDCG@{k} (gain 2^rel − 1)"),
    (id::DCG, None, true, "DCG@{k}"),
    (id::IDCG, None, true, "IDCG@{k}"),
    (id::MRR, Some("rr"), false, "RR"),
    (id::ARHR, None, true, "ARHR@{k}"),
];

/// The metrics the toy explains term by term (nDCG and AP at the cutoff).
pub const TOY_EXPLAINED: [&str; 2] = [id::NDCG, id::MAP];

/// The toy ranking `q`'s metrics at cutoff `k` (at least 1).
pub fn toy_metrics(q: &QueryView, k: usize) -> Vec<ToyRow> {
    let conv = Conventions::default();
    let k = k.max(1);
    TOY.iter()
        .filter_map(|&(base, key, cut, label)| {
            let id = MetricId::new(base, cut.then_some(k));
            Some(ToyRow {
                label: label.replace("{k}", &k.to_string()),
                key: key.unwrap_or(base),
                value: ranking_query_value(q, &conv, &id)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_004_toy_rows_equal_the_worked_example() {
        // seed 004's grades in ranked order; values by hand (Python, float64)
        let grades = [0, 5, 1, 4, 2];
        let ideal = [5, 4, 2, 1, 0];
        let q = QueryView {
            grades: &grades,
            tied_with_prev: &[false; 5],
            judged_desc: &ideal,
            average_ties: false,
        };
        let rows = toy_metrics(&q, 5);
        let want = [
            ("precision", 0.8),
            ("recall", 1.0),
            ("ap", 0.6791666666666667),
            ("ndcg", 0.6869319726735409),
            ("ndcg_burges", 0.6529018843699065),
            ("dcg", 6.151060614619943),
            ("idcg", 8.954395572359225),
            ("rr", 0.5),
            ("arhr", 1.2833333333333332),
        ];
        assert_eq!(rows.len(), want.len(), "every row has its registry kernel");
        for (row, (key, v)) in rows.iter().zip(want) {
            assert_eq!(row.key, key);
            assert!((row.value - v).abs() < 1e-12, "{key}: {} vs {v}", row.value);
        }
        assert_eq!(rows[3].label, "nDCG@5 (gain rel)");
        assert_eq!(rows[7].label, "RR");
    }
}
