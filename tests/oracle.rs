//! Every default and variant against the values trec_eval, ranx, scikit-learn,
//! scipy and surprise compute on the reference data (tests/reference/oracle.json,
//! a copy of shared/data/reference).

mod common;
use common::*;

use rankscope::core::binary::ThresholdRule;
use rankscope::core::evaluate::Conventions;
use rankscope::core::multiclass::{ClassTieRule, ScoreScale};
use rankscope::core::ranking::TieRule;
use rankscope::core::ranking_metrics::{ApDenominator, PrecisionDenominator};

const KS: [usize; 5] = [1, 3, 5, 10, 20];

fn conv(ties: TieRule) -> Conventions {
    Conventions {
        ties,
        ..Default::default()
    }
}

#[test]
fn ranking_trec_run_matches_trec_eval_ranx_and_naive_variants() {
    let o = oracle();
    let r = &o["ranking"];
    for files in [
        &["ranking.qrels", "ranking.run"][..],
        &["ranking.csv"][..],
        // ranx's JSON layout, written by Python's json module (scripts/reference/json_fixtures.py)
        &["extra/ranking.qrels.json", "extra/ranking.run.json"][..],
        // the run as a pandas DataFrame saved with to_csv (its index first,
        // no relevance column: scripts/reference/run_csv_fixture.py)
        &["ranking.qrels", "extra/ranking.run.csv"][..],
    ] {
        let ws_data = workspace(files);
        let data = only_dataset(&ws_data);
        let trec = conv(TieRule::Trec);
        let file = conv(TieRule::File);
        let avg = conv(TieRule::Average);
        for k in KS {
            let key = |m: &str| format!("{m}@{k}");
            close(
                value(&data, &trec, &key("ndcg")),
                num(r, &[&format!("ndcg@{k} gain=rel"), "pytrec_eval ndcg_cut"]),
                &key("ndcg trec"),
            );
            close(
                value(&data, &file, &key("ndcg")),
                num(r, &[&format!("ndcg@{k} gain=rel"), "ranx ndcg"]),
                &key("ndcg file"),
            );
            close(
                value(&data, &avg, &key("ndcg")),
                num(
                    r,
                    &[
                        &format!("ndcg@{k} gain=rel"),
                        "naive, tie-averaged (sklearn semantics)",
                    ],
                ),
                &key("ndcg avg"),
            );
            close(
                value(&data, &file, &key("ndcg_burges")),
                num(r, &[&format!("ndcg@{k} gain=2^rel-1"), "ranx ndcg_burges"]),
                &key("burges file"),
            );
            close(
                value(&data, &trec, &key("ndcg_burges")),
                num(
                    r,
                    &[
                        &format!("ndcg@{k} gain=2^rel-1"),
                        "naive, ties: docid desc (trec_eval order)",
                    ],
                ),
                &key("burges trec"),
            );
            close(
                value(&data, &avg, &key("ndcg_burges")),
                num(
                    r,
                    &[&format!("ndcg@{k} gain=2^rel-1"), "naive, tie-averaged"],
                ),
                &key("burges avg"),
            );
            close(
                value(&data, &trec, &key("map")),
                num(r, &[&key("map"), "pytrec_eval map_cut (/|R|)"]),
                &key("map trec"),
            );
            close(
                value(&data, &file, &key("map")),
                num(r, &[&key("map"), "ranx map@k (/|R|)"]),
                &key("map file"),
            );
            let min = Conventions {
                ap_denominator: ApDenominator::MinRelevantK,
                ..trec.clone()
            };
            close(
                value(&data, &min, &key("map")),
                num(
                    r,
                    &[
                        &key("map"),
                        "naive, ties: docid desc (trec_eval order) /min(|R|,k)",
                    ],
                ),
                &key("map min trec"),
            );
            let min_file = Conventions {
                ap_denominator: ApDenominator::MinRelevantK,
                ..file.clone()
            };
            close(
                value(&data, &min_file, &key("map")),
                num(
                    r,
                    &[
                        &key("map"),
                        "naive, ties: file order (=rank column, docid asc) /min(|R|,k)",
                    ],
                ),
                &key("map min file"),
            );
            close(
                value(&data, &trec, &key("precision")),
                num(r, &[&key("precision"), "pytrec_eval P (/k)"]),
                &key("P"),
            );
            let pmin = Conventions {
                precision_denominator: PrecisionDenominator::MinKLength,
                ..file.clone()
            };
            close(
                value(&data, &pmin, &key("precision")),
                num(
                    r,
                    &[
                        &key("precision"),
                        "naive, ties: file order (=rank column, docid asc) /min(k,len)",
                    ],
                ),
                &key("P min"),
            );
            close(
                value(&data, &avg, &key("precision")),
                num(r, &[&key("precision"), "naive, tie-averaged /k"]),
                &key("P avg"),
            );
            close(
                value(&data, &trec, &key("recall")),
                num(r, &[&key("recall"), "pytrec_eval recall"]),
                &key("R"),
            );
            close(
                value(&data, &avg, &key("recall")),
                num(r, &[&key("recall"), "naive, tie-averaged"]),
                &key("R avg"),
            );
            close(
                value(&data, &trec, &key("hit_rate")),
                num(r, &[&key("hit_rate"), "pytrec_eval success"]),
                &key("hit"),
            );
            close(
                value(&data, &file, &key("mrr")),
                num(r, &[&key("mrr"), "ranx mrr@k"]),
                &key("mrr@k"),
            );
            close(
                value(&data, &trec, &key("mrr")),
                num(
                    r,
                    &[&key("mrr"), "naive, ties: docid desc (trec_eval order)"],
                ),
                &key("mrr@k trec"),
            );
            // the oracle computes ARHR with ties in file order
            close(
                value(&data, &file, &key("arhr")),
                num(
                    r,
                    &[
                        &key("arhr"),
                        "naive sum of 1/rank over ALL hits in top-k (Deshpande&Karypis)",
                    ],
                ),
                &key("arhr"),
            );
        }
        close(
            value(&data, &trec, "mrr"),
            num(r, &["mrr (no cutoff)", "pytrec_eval recip_rank"]),
            "mrr",
        );
        close(
            value(&data, &trec, "map"),
            num(r, &["map (no cutoff)", "pytrec_eval map"]),
            "map",
        );
        close(
            value(&data, &file, "map"),
            num(r, &["map (no cutoff)", "ranx map"]),
            "map file",
        );
        close(
            value(&data, &trec, "ndcg"),
            num(r, &["ndcg (no cutoff)", "pytrec_eval ndcg"]),
            "ndcg",
        );
        close(
            value(&data, &file, "ndcg"),
            num(r, &["ndcg (no cutoff)", "ranx ndcg"]),
            "ndcg file",
        );
    }
}

#[test]
fn ranking_per_query_values_in_file_order() {
    let o = oracle();
    let per_query = o["ranking"]["_per_query_naive_file_order"]
        .as_object()
        .unwrap();
    let ws_data = workspace(&["ranking.qrels", "ranking.run"]);
    let data = only_dataset(&ws_data);
    let c = conv(TieRule::File);
    let ids: Vec<_> = [
        "ndcg@10",
        "dcg@10",
        "idcg@10",
        "map@10",
        "precision@10",
        "recall@10",
        "mrr@10",
        "num_rel",
        "num_ret",
    ]
    .iter()
    .map(|s| {
        rankscope::core::registry::MetricId::parse(s, rankscope::core::registry::Kind::Ranking)
            .unwrap()
    })
    .collect();
    let report = rankscope::core::evaluate::evaluate(&data, &c, &ids);
    let m = &report.models[0];
    let trec_report = rankscope::core::evaluate::evaluate(&data, &conv(TieRule::Trec), &ids);
    for (i, qid) in m.unit_ids.iter().enumerate() {
        let q = &per_query[qid.as_str()];
        for (ours, theirs) in [
            ("ndcg@10", "ndcg@10"),
            ("dcg@10", "dcg@10"),
            ("idcg@10", "idcg@10"),
            ("map@10", "map@10"),
            ("precision@10", "precision@10"),
            ("recall@10", "recall@10"),
            ("mrr@10", "mrr@10"),
            ("num_rel", "n_relevant"),
            ("num_ret", "list_len"),
        ] {
            close(
                m.per_unit[ours][i],
                q[theirs].as_f64().unwrap(),
                &format!("{qid} {ours}"),
            );
        }
        close(
            trec_report.models[0].per_unit["ndcg@10"][i],
            q["pytrec_eval ndcg_cut_10"].as_f64().unwrap(),
            &format!("{qid} trec ndcg@10"),
        );
    }
}

#[test]
fn binary_matches_scikit_learn() {
    let o = oracle();
    let b = &o["binary"];
    let ws_data = workspace(&["binary.csv"]);
    let data = only_dataset(&ws_data);
    let ge = Conventions::default();
    let gt = Conventions {
        threshold_rule: ThresholdRule::Above,
        ..Default::default()
    };
    close(
        value(&data, &ge, "roc_auc"),
        num(b, &["roc_auc", "sklearn.roc_auc_score"]),
        "roc_auc",
    );
    close(
        value(&data, &ge, "average_precision"),
        num(
            b,
            &[
                "pr_auc",
                "sklearn.average_precision_score (step, ties grouped)",
            ],
        ),
        "AP",
    );
    close(
        value(&data, &ge, "pr_auc_trapezoid"),
        num(b, &["pr_auc", "sklearn.auc(recall, precision) trapezoid"]),
        "trapezoid",
    );
    close(
        value(&data, &ge, "pr_auc_interpolated"),
        num(
            b,
            &[
                "pr_auc",
                "naive interpolated (precision envelope), ties grouped",
            ],
        ),
        "envelope",
    );
    close(
        value(&data, &ge, "log_loss"),
        num(
            b,
            &["log_loss", "sklearn.log_loss (clip to float64 eps=2.2e-16)"],
        ),
        "log_loss",
    );
    for (c, tag, conf_key) in [
        (&ge, "sklearn [score>=0.5]", "confusion[score>=0.5]"),
        (&gt, "sklearn [score>0.5]", "confusion[score>0.5]"),
    ] {
        for m in ["accuracy", "precision", "recall", "f1", "mcc"] {
            close(value(&data, c, m), num(b, &[m, tag]), &format!("{m} {tag}"));
        }
        let weighted_tag = tag.replace("sklearn", "sklearn average='weighted'");
        let macro_tag = tag.replace("sklearn", "sklearn average='macro'");
        close(
            value(&data, c, "f1_weighted"),
            num(b, &["f1_weighted", &weighted_tag]),
            "f1_weighted",
        );
        close(
            value(&data, c, "f1_macro"),
            num(b, &["f1_macro", &macro_tag]),
            "f1_macro",
        );
        for cell in ["tp", "fp", "tn", "fn"] {
            close(value(&data, c, cell), num(b, &[conf_key, cell]), cell);
        }
    }
}

#[test]
fn multiclass_matches_scikit_learn_and_ranx() {
    let o = oracle();
    let m = &o["multiclass"];
    let ws_probs = workspace(&["multiclass_probs.csv"]);
    let probs = only_dataset(&ws_probs);
    let ws_topk = workspace(&["multiclass_topk.csv"]);
    let topk = only_dataset(&ws_topk);
    for k in [1, 3, 5, 10] {
        let key = format!("acc@{k}");
        for (rule, name) in [
            (
                ClassTieRule::LowerIndexFirst,
                "naive ties: lower class index first",
            ),
            (
                ClassTieRule::HigherIndexFirst,
                "sklearn.top_k_accuracy_score (ties: higher class index first)",
            ),
            (ClassTieRule::Optimistic, "naive optimistic (1+#{p_j>p_t})"),
            (ClassTieRule::Pessimistic, "naive pessimistic (#{p_j>=p_t})"),
        ] {
            let c = Conventions {
                class_ties: rule,
                ..Default::default()
            };
            close(
                value(&probs, &c, &key),
                num(m, &[&key, name]),
                &format!("{key} {name}"),
            );
        }
        close(
            value(&topk, &Conventions::default(), &key),
            num(m, &[&key, "top-k list file"]),
            &format!("{key} list"),
        );
    }
    let c = Conventions::default();
    close(
        value(&probs, &c, "cross_entropy"),
        num(
            m,
            &[
                "cross_entropy",
                "sklearn.log_loss (no renormalisation in 1.9, clip eps)",
            ],
        ),
        "CE",
    );
    close(
        value(&probs, &c, "perplexity"),
        num(m, &["perplexity exp(CE)", "naive"]),
        "perplexity",
    );
    close(
        value(&topk, &c, "mrr@10"),
        num(m, &["mrr@10 (top-k list)", "ranx mrr@10"]),
        "mrr@10 list",
    );
    close(
        value(&probs, &c, "mrr@10"),
        num(
            m,
            &[
                "mrr@10 (top-k list)",
                "naive from probs, ties lower index first",
            ],
        ),
        "mrr@10 probs",
    );
    close(
        value(&topk, &c, "ndcg@10"),
        num(m, &["ndcg@10 (top-k list, one relevant)", "ranx ndcg@10"]),
        "ndcg@10 list",
    );
    // logits: log-softmax of ln(p) renormalises the rows
    let logits = Conventions {
        class_scale: ScoreScale::Logits,
        ..Default::default()
    };
    let ce_logits = value(&probs, &logits, "cross_entropy");
    assert!(ce_logits.is_finite());
}

#[test]
fn ratings_match_scikit_learn_scipy_and_koren() {
    let o = oracle();
    let r = &o["ratings"];
    let ws_data = workspace(&["ratings.csv"]);
    let data = only_dataset(&ws_data);
    let c = Conventions::default();
    close(
        value(&data, &c, "mae"),
        num(r, &["mae", "sklearn.mean_absolute_error"]),
        "mae",
    );
    close(
        value(&data, &c, "mse"),
        num(r, &["mse", "sklearn.mean_squared_error"]),
        "mse",
    );
    close(
        value(&data, &c, "rmse"),
        num(r, &["rmse", "sklearn.root_mean_squared_error"]),
        "rmse",
    );
    close(
        value(&data, &c, "spearman"),
        num(
            r,
            &[
                "spearman (global, all rows)",
                "scipy.stats.spearmanr (Pearson on average ranks)",
            ],
        ),
        "spearman",
    );
    close(
        value(&data, &c, "spearman_per_user"),
        num(
            r,
            &[
                "spearman (per-user mean)",
                "scipy per user, users with undefined rho skipped",
            ],
        ),
        "spearman per user",
    );
    close(
        value(&data, &c, "fcp"),
        num(
            r,
            &[
                "fcp",
                "naive Koren (ties in r or p: neither), sum_u nc / sum_u (nc+nd)",
            ],
        ),
        "fcp",
    );
}

#[test]
fn worked_example_from_seed_004() {
    let o = oracle();
    let w = &o["worked_example"];
    let rels: Vec<i64> = w["relevances_in_rank_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let mut run = String::new();
    let mut qrels = String::new();
    for (i, r) in rels.iter().enumerate() {
        run.push_str(&format!("q Q0 d{i} {} {} t\n", i + 1, 10 - i));
        qrels.push_str(&format!("q 0 d{i} {r}\n"));
    }
    let ws_data = workspace_from_text(&[("w.qrels", &qrels), ("w.run", &run)]);
    let data = only_dataset(&ws_data);
    let c = Conventions::default();
    close(
        value(&data, &c, "dcg@5"),
        num(w, &["naive_gain_rel", "dcg@5"]),
        "dcg@5",
    );
    close(
        value(&data, &c, "idcg@5"),
        num(w, &["naive_gain_rel", "idcg@5"]),
        "idcg@5",
    );
    close(
        value(&data, &c, "ndcg@5"),
        num(w, &["pytrec_eval ndcg_cut_5"]),
        "ndcg@5",
    );
    close(
        value(&data, &c, "ndcg_burges@5"),
        num(w, &["ranx ndcg_burges@5"]),
        "ndcg_burges@5",
    );
    let exp = Conventions {
        gain: rankscope::core::ranking_metrics::Gain::Exponential,
        ..Default::default()
    };
    close(
        value(&data, &exp, "dcg@5"),
        num(w, &["ranx dcg_burges@5"]),
        "dcg_burges@5",
    );
}

/// The tie warning flags exactly the queries that can change with the tie rule:
/// every query whose value differs between tie rules is flagged, and the
/// flagged count covers what the reference counts.
#[test]
fn tie_warning_flags_the_queries_whose_values_depend_on_tie_order() {
    use rankscope::core::evaluate::{evaluate_prepared, queries_with_mixed_ties};
    use rankscope::core::ranking::{prepare, QuerySet};
    use rankscope::core::registry::{self, Kind};
    let o = oracle();
    let ws = workspace(&["ranking.qrels", "ranking.run"]);
    let data = ws.ranking.as_ref().unwrap();
    let metrics = registry::all_metrics(Kind::Ranking, &[1, 3, 5, 10, 20]);
    let trec = prepare(data, 0, TieRule::Trec, QuerySet::Qrels);
    let file = prepare(data, 0, TieRule::File, QuerySet::Qrels);
    let flagged = queries_with_mixed_ties(&trec);
    assert_eq!(flagged, queries_with_mixed_ties(&file));
    let a = evaluate_prepared(data, [&trec], &conv(TieRule::Trec), &metrics);
    let b = evaluate_prepared(data, [&file], &conv(TieRule::File), &metrics);
    let mut changed = std::collections::BTreeSet::new();
    for (id, col) in &a.models[0].per_unit {
        for (i, (x, y)) in col.iter().zip(&b.models[0].per_unit[id]).enumerate() {
            if (x - y).abs() > 1e-12 {
                changed.insert(i);
            }
        }
    }
    assert!(
        changed.iter().all(|i| flagged.contains(i)),
        "{changed:?} changed, {flagged:?} flagged"
    );
    assert!(!changed.is_empty());
    let flagged = flagged.len();

    let counted = &o["ranking"]["_info"]["queries_whose_value_depends_on_tie_order"];
    for k in ["k=1", "k=5", "k=10"] {
        for m in ["ndcg", "map", "precision", "mrr"] {
            assert!(counted[k][m].as_u64().unwrap() as usize <= flagged);
        }
    }
    assert!(a
        .warnings
        .iter()
        .any(|w| w.contains("depend on the tie rule")));
}

/// A multi-class matrix read one-vs-rest gives scikit-learn's per-class ROC AUC
/// and average precision (tests/reference/extra/ovr.json).
#[test]
fn one_vs_rest_matches_scikit_learn() {
    use rankscope::parse::LoadOptions;
    let want: serde_json::Value = serde_json::from_slice(&reference("extra/ovr.json")).unwrap();
    let bytes = reference("multiclass_probs.csv");
    for (class, v) in want.as_object().unwrap() {
        let options = LoadOptions {
            one_vs_rest: Some(class.parse().unwrap()),
            ..Default::default()
        };
        let mut ws = rankscope::parse::Workspace::default();
        ws.load_bytes("multiclass_probs.csv", &bytes, &options)
            .unwrap();
        let data = only_dataset(&ws);
        let d = &Conventions::default();
        close(
            value(&data, d, "roc_auc"),
            v["sklearn.roc_auc_score"].as_f64().unwrap(),
            &format!("AUC class {class}"),
        );
        close(
            value(&data, d, "average_precision"),
            v["sklearn.average_precision_score"].as_f64().unwrap(),
            &format!("AP class {class}"),
        );
        let rankscope::core::evaluate::Dataset::Binary(b) = data else {
            panic!()
        };
        assert_eq!(
            b.labels.iter().filter(|&&l| l).count() as u64,
            v["positives"].as_u64().unwrap()
        );
    }
}
