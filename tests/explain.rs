//! Every explanation ends on the value the tables show, and its terms combine
//! into it as its steps say: for every metric with per-query values (the mean
//! over queries), for the per-query breakdowns (nDCG, DCG, AP, RR, P, R, hit),
//! and for ROC AUC, AP and the threshold metrics of binary classification.

mod common;
use common::*;

use rankscope::core::evaluate::{self, Conventions};
use rankscope::core::explain;
use rankscope::core::ranking::{self, TieRule};
use rankscope::core::registry::{self, Cutoff, Kind, MetricId};

/// The formula of an explanation is TeX the page can typeset.
fn typesets(e: &explain::Explanation) {
    if let Err(why) = rankscope::math::to_mathml(&e.formula, true) {
        panic!("{}: {why} in {:?}", e.title, e.formula);
    }
}

fn near(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1.0),
        "{what}: {a} vs {b}"
    );
}

fn ranking_ids() -> Vec<MetricId> {
    let mut ids = Vec::new();
    for m in registry::METRICS.iter().filter(|m| m.kind == Kind::Ranking) {
        if m.cutoff != Cutoff::Required {
            ids.push(MetricId::new(m.base, None));
        }
        if m.cutoff != Cutoff::None {
            ids.extend([1, 5, 10, 20].map(|k| MetricId::new(m.base, Some(k))));
        }
    }
    ids
}

#[test]
fn ranking_explanations_add_up_to_the_shown_values() {
    let ws = workspace(&["ranking.qrels", "ranking.run"]);
    let d = ws.ranking.as_ref().unwrap();
    let ids = ranking_ids();
    for ties in [TieRule::Trec, TieRule::File] {
        let conv = Conventions {
            ties,
            ..Default::default()
        };
        let ctx = conv.ranking_ctx();
        let p = ranking::prepare(d, 0, ties, conv.query_set);
        let report = evaluate::evaluate_prepared(d, [&p], &conv, &ids);
        let model = &report.models[0];
        let mut means = 0;
        let mut breakdowns = 0;
        for id in &ids {
            let key = id.to_string();
            let Some(per_query) = model.per_unit.get(&key) else {
                continue;
            };
            let Some(Some(shown)) = model.metrics.get(&key).copied() else {
                continue;
            };
            if id.base == "gm_map" {
                continue; // a geometric mean: not a mean of per-query values
            }

            let is_mean = registry::info(&id.base, Kind::Ranking).is_none_or(|m| m.is_mean);
            if !is_mean && !id.base.starts_with("num_") {
                continue; // pooled over queries (FCP): not built from per-query values
            }
            let e = explain::mean(&key, "query", &model.unit_ids, per_query, shown, is_mean);
            typesets(&e);
            let terms: Vec<f64> = e.rows.iter().filter_map(|r| r.term).collect();
            let n = if is_mean { terms.len() as f64 } else { 1.0 };
            near(terms.iter().sum::<f64>() / n, e.value, &key);
            near(e.value, shown, &key);
            means += 1;
            for (i, &v) in per_query.iter().enumerate() {
                let docs = explain::ranked_docs(&p, &d.runs[0], i);
                let Some(q) = explain::query(&p.query(i), &docs, id, &ctx) else {
                    continue;
                };
                typesets(&q);
                let what = format!("{key} of {}", model.unit_ids[i]);
                near(q.value, v, &what);
                let sum: f64 = q.rows.iter().filter_map(|r| r.term).sum();
                match id.base.as_str() {
                    "ndcg" | "ndcg_burges" => {
                        near(sum, q.steps[0].value, &what);
                        let idcg = q.steps[1].value;
                        near(if idcg > 0.0 { sum / idcg } else { 0.0 }, v, &what);
                    }
                    "dcg" => near(sum, v, &what),
                    "map" => {
                        near(sum, q.steps[0].value, &what);
                        let den = p.query(i).ap_denominator(id.k, &ctx) as f64;
                        near(if den > 0.0 { sum / den } else { 0.0 }, v, &what);
                    }
                    "precision" => near(sum / id.k.unwrap_or(q.rows.len().max(1)) as f64, v, &what),
                    "recall" => {
                        let r = p.query(i).num_relevant(1) as f64;
                        near(if r > 0.0 { sum / r } else { 0.0 }, v, &what);
                    }
                    "mrr" => {
                        let first = q.rows.iter().position(|r| r.cells[3] == "relevant");
                        near(first.map_or(0.0, |f| 1.0 / (f + 1) as f64), v, &what);
                    }
                    _ => {}
                }
                breakdowns += 1;
            }
        }
        assert!(means >= 50, "{means} means explained");
        assert!(breakdowns >= 700, "{breakdowns} per-query breakdowns");
    }
}

#[test]
fn binary_explanations_add_up_to_the_shown_values() {
    let ws = workspace(&["binary.csv"]);
    let b = ws.binary.as_ref().unwrap();
    for threshold in [0.1, 0.5, 0.77] {
        let conv = Conventions {
            threshold,
            ..Default::default()
        };
        let prepared = evaluate::prepare_binary(b, false);
        let ids: Vec<MetricId> = [
            "roc_auc",
            "average_precision",
            "accuracy",
            "precision",
            "recall",
            "f1",
            "mcc",
            "f1_weighted",
            "f1_macro",
            "log_loss",
            "brier",
        ]
        .map(|m| MetricId::new(m, None))
        .to_vec();
        let report = evaluate::evaluate_binary_prepared(prepared.iter(), &conv, &ids);
        for (p, model) in prepared.iter().zip(&report.models) {
            let shown = |m: &str| model.metrics[m].unwrap();
            let auc = explain::roc_auc(&p.curve).unwrap();
            let sum: f64 = auc.rows.iter().filter_map(|r| r.term).sum();
            near(
                sum / (p.curve.positives * p.curve.negatives) as f64,
                shown("roc_auc"),
                "auc pairs",
            );
            near(auc.value, shown("roc_auc"), "auc");
            typesets(&auc);
            let ap = explain::average_precision(&p.curve).unwrap();
            typesets(&ap);
            near(
                ap.rows.iter().filter_map(|r| r.term).sum(),
                shown("average_precision"),
                "ap terms",
            );
            let c = p.curve.confusion_at(threshold, conv.threshold_rule);
            for m in ["accuracy", "precision", "recall", "f1", "mcc"] {
                let e = explain::threshold_metric(m, &c, "score ≥ t", conv.zero_division).unwrap();
                typesets(&e);
                let (num, den) = (e.steps[0].value, e.steps[1].value);
                match model.metrics[m] {
                    // undefined: a zero denominator (MCC's is 0 by scikit-learn's rule)
                    None => assert!(e.value.is_nan() && den == 0.0, "{m} undefined"),
                    Some(v) if den == 0.0 => near(e.value, v, m),
                    Some(v) => {
                        near(num / den, v, m);
                        near(e.value, v, m);
                    }
                }
            }
            for m in ["log_loss", "brier"] {
                let e = explain::probability_loss(m, &p.curve, |z| z).unwrap();
                typesets(&e);
                let n = b.labels.len() as f64;
                near(
                    e.rows.iter().filter_map(|r| r.term).sum::<f64>() / n,
                    shown(m),
                    m,
                );
                assert_eq!(
                    e.value,
                    shown(m),
                    "{m}: the explanation ends on the shown value"
                );
                // the class sums are the row terms' sums
                let scores = &b.models.iter().find(|x| x.0 == p.name).unwrap().1;
                let row_mean = if m == "log_loss" {
                    rankscope::core::binary::log_loss(&b.labels, scores)
                } else {
                    rankscope::core::binary::brier(&b.labels, scores)
                };
                near(row_mean.unwrap(), shown(m), m);
            }
            for m in ["f1_weighted", "f1_macro"] {
                let e = explain::threshold_metric(m, &c, "score ≥ t", conv.zero_division).unwrap();
                typesets(&e);
                near(e.rows.iter().filter_map(|r| r.term).sum(), shown(m), m);
                near(e.value, shown(m), m);
            }
        }
    }
}

/// A model's own threshold: its threshold metrics, in the table and in
/// their explanation (through the panel's dispatch), are those of a shared
/// threshold of the same value.
#[test]
fn a_models_own_threshold_is_explained_as_the_shared_one() {
    let ws = workspace(&["binary.csv"]);
    let b = ws.binary.as_ref().unwrap();
    let prepared = evaluate::prepare_binary(b, false);
    let ids: Vec<MetricId> = ["accuracy", "precision", "recall", "f1", "mcc"]
        .map(|m| MetricId::new(m, None))
        .to_vec();
    let shared = Conventions {
        threshold: 0.77,
        ..Default::default()
    };
    let own = Conventions {
        thresholds: vec![(prepared[0].name.clone(), 0.77)],
        ..Default::default()
    };
    let want = evaluate::evaluate_binary_prepared(prepared.iter(), &shared, &ids);
    let got = evaluate::evaluate_binary_prepared(prepared.iter(), &own, &ids);
    assert_eq!(got.models[0].metrics, want.models[0].metrics);
    let p = &prepared[0];
    for id in &ids {
        let e = explain::binary(id, &p.name, &p.curve, &own).unwrap();
        let shown = got.models[0].metrics[&id.to_string()];
        assert_eq!(e.value, shown.unwrap_or(f64::NAN), "{id}");
        assert_eq!(e, explain::binary(id, &p.name, &p.curve, &shared).unwrap());
        // another model's own threshold changes nothing here
        let other = Conventions {
            thresholds: vec![("other".into(), 0.1)],
            ..Default::default()
        };
        assert_eq!(
            explain::binary(id, &p.name, &p.curve, &other),
            explain::binary(id, &p.name, &p.curve, &Conventions::default())
        );
    }
}

#[test]
fn multiclass_explanations_add_up_to_the_shown_values() {
    use rankscope::core::multiclass::ClassTieRule;
    for file in ["multiclass_probs.csv", "multiclass_topk.csv"] {
        let ws = workspace(&[file]);
        let data = only_dataset(&ws);
        let d = ws.multiclass.as_ref().unwrap();
        let ids: Vec<MetricId> = [
            "acc@1",
            "acc@3",
            "acc@5",
            "mrr",
            "mrr@3",
            "ndcg@5",
            "ndcg@10",
            "f1_weighted",
            "f1_macro",
            "cross_entropy",
            "perplexity",
        ]
        .iter()
        .filter_map(|s| MetricId::parse(s, Kind::Multiclass).ok())
        .collect();
        for ties in [
            ClassTieRule::LowerIndexFirst,
            ClassTieRule::HigherIndexFirst,
            ClassTieRule::Optimistic,
            ClassTieRule::Pessimistic,
        ] {
            let conv = Conventions {
                class_ties: ties,
                ..Default::default()
            };
            let report = evaluate::evaluate(&data, &conv, &ids);
            for (m, model) in d.models.iter().zip(&report.models) {
                let ranks = m.ranks(ties);
                let predicted = m.predicted();
                for id in &ids {
                    let key = id.to_string();
                    let Some(shown) = model.metrics.get(&key).copied().flatten() else {
                        continue; // acc@k beyond a top-k list's length
                    };
                    if id.base == "cross_entropy" || id.base == "perplexity" {
                        let e = explain::cross_entropy(&id.base, &m.rows, conv.class_scale, &|c| {
                            c.to_string()
                        })
                        .unwrap();
                        typesets(&e);
                        let ce =
                            e.rows.iter().filter_map(|r| r.term).sum::<f64>() / m.rows.len() as f64;
                        near(
                            if id.base == "perplexity" {
                                ce.exp()
                            } else {
                                ce
                            },
                            shown,
                            &key,
                        );
                        near(e.value, shown, &key);
                        continue;
                    }
                    let e = if id.base.starts_with("f1_") {
                        explain::class_f1(&d.targets, &predicted, id.base == "f1_weighted", &|c| {
                            c.to_string()
                        })
                    } else {
                        explain::target_ranks(id, &ranks).unwrap()
                    };
                    typesets(&e);
                    let sum: f64 = e.rows.iter().filter_map(|r| r.term).sum();
                    let what = format!("{file} {ties:?} {key}");
                    if id.base.starts_with("f1_") {
                        near(sum, shown, &what);
                    } else {
                        near(sum / ranks.len() as f64, shown, &what);
                        let rows: u64 = e
                            .rows
                            .iter()
                            .map(|r| r.cells[1].parse::<u64>().unwrap())
                            .sum();
                        assert_eq!(rows as usize, ranks.len(), "{what}: every row in one group");
                    }
                    near(e.value, shown, &what);
                }
            }
        }
    }
}

#[test]
fn ratings_explanations_add_up_to_the_shown_values() {
    let ws = workspace(&["ratings.csv"]);
    let data = only_dataset(&ws);
    let d = ws.ratings.as_ref().unwrap();
    let ids: Vec<MetricId> = ["mae", "mse", "rmse", "rmse_per_user"]
        .iter()
        .map(|s| MetricId::parse(s, Kind::Ratings).unwrap())
        .collect();
    let report = evaluate::evaluate(&data, &Conventions::default(), &ids);
    for ((_, p), model) in d.models.iter().zip(&report.models) {
        for base in ["mae", "mse", "rmse"] {
            let shown = model.metrics[base].unwrap();
            let e = explain::rating_errors(
                base,
                &d.user,
                &|u| d.users.name(u).to_string(),
                &d.rating,
                p,
                shown,
            )
            .unwrap();
            typesets(&e);
            let mean = e.rows.iter().filter_map(|r| r.term).sum::<f64>() / d.rating.len() as f64;
            near(if base == "rmse" { mean.sqrt() } else { mean }, shown, base);
            let rows: usize = e
                .rows
                .iter()
                .map(|r| r.cells[1].parse::<usize>().unwrap())
                .sum();
            assert_eq!(rows, d.rating.len());
        }
        let shown = model.metrics["rmse_per_user"].unwrap();
        let e = explain::mean(
            "rmse_per_user",
            "user",
            &model.unit_ids,
            &model.per_unit["rmse_per_user"],
            shown,
            true,
        );
        typesets(&e);
        let terms: Vec<f64> = e.rows.iter().filter_map(|r| r.term).collect();
        near(
            terms.iter().sum::<f64>() / terms.len() as f64,
            shown,
            "rmse_per_user",
        );
    }
}
