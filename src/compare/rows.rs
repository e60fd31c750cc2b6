//! Per-row values of the metrics of multi-class and ratings data that are
//! means over rows, so that two models are tested on the same rows: a
//! multi-class row's hit for Acc@k (0 or 1: McNemar's exact test applies),
//! its reciprocal rank (MRR), its nDCG term and its cross-entropy term; a
//! rating's absolute and squared error (MAE, MSE). Each column's mean is the
//! table's value (a test checks it). Units are the rows, numbered from 1 in
//! file order: every model of a workspace has the same rows.

use crate::core::evaluate::{Conventions, Dataset, Report};
use crate::core::multiclass::MulticlassPredictions;
use crate::core::registry::{self, Explain, Kind, MetricId};

/// Row `i`'s value of `id` for one multi-class model, `None` for a metric
/// that is not a mean over rows (F1, perplexity) or not defined for the
/// model (cross-entropy of a top-k list).
fn multiclass_column(
    m: &MulticlassPredictions,
    ranks: &[Option<u32>],
    id: &MetricId,
    conv: &Conventions,
) -> Option<Vec<f64>> {
    let k = id.k.map(|k| k as u32);
    // each row's term of the mean, as the metric's explanation shows it
    Some(match registry::info(&id.base, Kind::Multiclass)?.explain {
        Explain::TargetRanks {
            per_row, default_k, ..
        } => {
            let k = k.or(default_k);
            ranks
                .iter()
                .map(|r| r.filter(|&r| k.is_none_or(|k| r <= k)).map_or(0.0, per_row))
                .collect()
        }
        Explain::CrossEntropy { perplexity: false } if !m.is_list() => m
            .rows
            .iter()
            .map(|r| -r.log_prob(conv.class_scale))
            .collect(),
        _ => return None,
    })
}

/// Replaces a multi-class or ratings report's units by its rows, each
/// column that is a mean over rows with its per-row values (the other
/// columns keep none), and returns the unit's name. A ratings report keeps
/// its users when no column is per row (`rmse_per_user` pairs users); one
/// that asks for both is refused, naming the columns. Other kinds are left
/// as they are.
pub fn per_row(
    report: &mut Report,
    data: &Dataset,
    conv: &Conventions,
) -> Result<&'static str, String> {
    let kind = report.kind;
    let ids: Vec<(String, MetricId)> = report
        .columns
        .iter()
        .filter_map(|c| MetricId::parse(c, kind).ok().map(|id| (c.clone(), id)))
        .collect();
    match data {
        Dataset::Multiclass(d) => {
            let rows = row_ids(d.targets.len());
            for model in &mut report.models {
                let Some(m) = d.models.iter().find(|m| m.name == model.name) else {
                    continue;
                };
                let ranks = m.ranks(conv.class_ties);
                model.per_unit.clear();
                for (column, id) in &ids {
                    // an undefined value (Acc@k beyond a top-k list) has no rows to pair
                    if model.metrics.get(column).copied().flatten().is_none() {
                        continue;
                    }
                    if let Some(col) = multiclass_column(m, &ranks, id, conv) {
                        model.per_unit.insert(column.clone(), col);
                    }
                }
                model.unit_ids = rows.clone();
            }
            Ok("row")
        }
        Dataset::Ratings(d) => {
            // the means over rows: their per-row errors, |e| or e²
            let squared_of = |id: &MetricId| match registry::info(&id.base, Kind::Ratings)?.explain
            {
                Explain::RatingErrors {
                    squared,
                    root: false,
                } => Some(squared),
                _ => None,
            };
            let per_row: Vec<(&String, bool)> = ids
                .iter()
                .filter_map(|(c, id)| Some((c, squared_of(id)?)))
                .collect();
            if per_row.is_empty() {
                return Ok(kind.unit());
            }
            let per_user: Vec<&str> = ids
                .iter()
                .filter(|(c, _)| report.models.iter().any(|m| m.per_unit.contains_key(c)))
                .map(|(c, _)| c.as_str())
                .collect();
            if !per_user.is_empty() {
                return Err(format!(
                    "{} pair rows and {} pair users: compare them separately",
                    per_row
                        .iter()
                        .map(|(c, _)| c.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    per_user.join(", ")
                ));
            }
            let rows = row_ids(d.rating.len());
            for model in &mut report.models {
                let Some((_, p)) = d.models.iter().find(|(name, _)| *name == model.name) else {
                    continue;
                };
                for &(column, squared) in &per_row {
                    let errors = d.rating.iter().zip(p).map(|(r, p)| r - p);
                    let col: Vec<f64> = if squared {
                        errors.map(|e| e * e).collect()
                    } else {
                        errors.map(f64::abs).collect()
                    };
                    model.per_unit.insert(column.clone(), col);
                }
                model.unit_ids = rows.clone();
            }
            Ok("row")
        }
        _ => Ok(kind.unit()),
    }
}

/// Rows `1..=n` as unit ids.
fn row_ids(n: usize) -> Vec<String> {
    (1..=n).map(|i| i.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::evaluate::evaluate;
    use crate::core::registry::Kind;
    use crate::parse::{Parser, Workspace};

    fn workspace(files: &[(&str, &str)]) -> Workspace {
        let mut ws = Workspace::default();
        for (name, text) in files {
            let parsed = Parser::new(name, Default::default())
                .read_all(text.as_bytes())
                .unwrap();
            ws.add(name, parsed).unwrap();
        }
        ws
    }

    fn report<'a>(ws: &'a Workspace, kind: Kind, metrics: &[&str]) -> (Report, Dataset<'a>) {
        let data = ws.dataset(kind).unwrap();
        let ids: Vec<MetricId> = metrics
            .iter()
            .map(|m| MetricId::parse(m, kind).unwrap())
            .collect();
        (evaluate(&data, &Conventions::default(), &ids), data)
    }

    /// Every per-row column's mean is the table's value.
    fn means_hold(r: &Report) {
        for m in &r.models {
            for (c, col) in &m.per_unit {
                assert_eq!(col.len(), m.unit_ids.len());
                let mean = col.iter().sum::<f64>() / col.len() as f64;
                let shown = m.metrics[c].unwrap();
                assert!(
                    (mean - shown).abs() <= 1e-12,
                    "{} {c}: {mean} vs {shown}",
                    m.name
                );
            }
        }
    }

    #[test]
    fn multiclass_rows_are_hits_and_terms_whose_means_are_the_table() {
        let a = "target,p_0,p_1,p_2\n0,0.7,0.2,0.1\n1,0.1,0.3,0.6\n2,0.2,0.2,0.6\n2,0.5,0.4,0.1\n";
        let b = "target,p_0,p_1,p_2\n0,0.2,0.5,0.3\n1,0.3,0.6,0.1\n2,0.5,0.1,0.4\n2,0.1,0.1,0.8\n";
        let ws = workspace(&[("a.csv", a), ("b.csv", b)]);
        let (mut r, data) = report(
            &ws,
            Kind::Multiclass,
            &[
                "acc@1",
                "acc@2",
                "mrr",
                "ndcg@2",
                "cross_entropy",
                "f1_macro",
            ],
        );
        assert_eq!(per_row(&mut r, &data, &Conventions::default()), Ok("row"));
        means_hold(&r);
        let a = &r.models[0];
        assert_eq!(a.unit_ids, ["1", "2", "3", "4"]);
        // a: ranks 1, 2, 1, 3
        assert_eq!(a.per_unit["acc@1"], [1.0, 0.0, 1.0, 0.0]);
        assert_eq!(a.per_unit["acc@2"], [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(a.per_unit["mrr"], [1.0, 0.5, 1.0, 1.0 / 3.0]);
        assert!(
            !a.per_unit.contains_key("f1_macro"),
            "F1 is not a mean over rows"
        );
    }

    #[test]
    fn ratings_rows_are_errors_and_users_stay_for_per_user_metrics() {
        let text = "user_id,item_id,rating,svd,knn\nu1,i1,4,3.5,4\nu1,i2,2,2.5,4\nu2,i1,5,4,3\n";
        let ws = workspace(&[("r.csv", text)]);
        let (mut r, data) = report(&ws, Kind::Ratings, &["mae", "mse"]);
        assert_eq!(per_row(&mut r, &data, &Conventions::default()), Ok("row"));
        means_hold(&r);
        assert_eq!(r.models[1].per_unit["mae"], [0.0, 2.0, 2.0]);
        assert_eq!(r.models[0].per_unit["mse"], [0.25, 0.25, 1.0]);
        // per user alone: the users stay
        let (mut r, data) = report(&ws, Kind::Ratings, &["rmse_per_user"]);
        assert_eq!(per_row(&mut r, &data, &Conventions::default()), Ok("user"));
        assert_eq!(r.models[0].unit_ids, ["u1", "u2"]);
        // both: refused, naming each
        let (mut r, data) = report(&ws, Kind::Ratings, &["mae", "rmse_per_user"]);
        let e = per_row(&mut r, &data, &Conventions::default()).unwrap_err();
        assert!(
            e.contains("mae pair rows") && e.contains("rmse_per_user pair users"),
            "{e}"
        );
    }
}
