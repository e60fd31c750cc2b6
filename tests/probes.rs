//! The oracle's probes: tiny cases that each isolate one convention, with the
//! value each library gives. Each test fails if that convention changes.

mod common;
use common::*;

use rankscope::core::binary::ThresholdRule;
use rankscope::core::evaluate::Conventions;
use rankscope::core::multiclass::ClassTieRule;
use rankscope::core::ranking::{QuerySet, TieRule};
use rankscope::core::ranking_metrics::{ApDenominator, PrecisionDenominator};

fn probe(pitfall_case_prefix: &str) -> serde_json::Value {
    let o = oracle();
    o["probes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["case"].as_str().unwrap().starts_with(pitfall_case_prefix))
        .cloned()
        .unwrap_or_else(|| panic!("no probe {pitfall_case_prefix}"))
}

fn ranking(qrels: &str, run: &str) -> rankscope::parse::Workspace {
    workspace_from_text(&[("p.qrels", qrels), ("p.run", run)])
}

#[test]
fn ties_abc_first_or_last_relevant() {
    let p = probe("3 docs a,b,c all score 1.0, only 'a'");
    let run = "q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 1.0 t\n";
    let d = ranking("q 0 a 1\nq 0 b 0\nq 0 c 0\n", run);
    close(
        wvalue(&d, &Conventions::default(), "mrr"),
        num(&p, &["pytrec_eval recip_rank"]),
        "trec",
    );
    close(
        wvalue(
            &d,
            &Conventions {
                ties: TieRule::File,
                ..Default::default()
            },
            "mrr",
        ),
        num(&p, &["ranx mrr"]),
        "file",
    );
    close(
        wvalue(
            &d,
            &Conventions {
                ties: TieRule::Average,
                ..Default::default()
            },
            "ndcg@1",
        ),
        num(&p, &["sklearn.ndcg_score k=1 (tie-averaged)"]),
        "avg",
    );
    let p = probe("3 docs a,b,c all score 1.0, only 'c'");
    let d = ranking("q 0 a 0\nq 0 b 0\nq 0 c 1\n", run);
    close(
        wvalue(&d, &Conventions::default(), "mrr"),
        num(&p, &["pytrec_eval recip_rank"]),
        "trec c",
    );
    close(
        wvalue(
            &d,
            &Conventions {
                ties: TieRule::File,
                ..Default::default()
            },
            "mrr",
        ),
        num(&p, &["ranx mrr"]),
        "file c",
    );
}

#[test]
fn large_tie_group_is_deterministic_docid_descending() {
    let p = probe("20 docs d00..d19 all tied");
    let run: String = (0..20)
        .map(|i| format!("q Q0 d{i:02} {} 1.0 t\n", i + 1))
        .collect();
    let d = ranking("q 0 d05 1\n", &run);
    close(
        wvalue(&d, &Conventions::default(), "mrr"),
        num(&p, &["pytrec_eval recip_rank"]),
        "trec",
    );
    // ranx's value here (1/14) is an artifact of numba's unstable argsort; file order puts d05 at rank 6
    assert_ne!(num(&p, &["ranx mrr (inserted d00..d19)"]), 1.0 / 6.0);
    close(
        wvalue(
            &d,
            &Conventions {
                ties: TieRule::File,
                ..Default::default()
            },
            "mrr",
        ),
        1.0 / 6.0,
        "file",
    );
}

#[test]
fn tie_inside_a_long_list() {
    let p = probe("40 docs, distinct scores except d010 and d011");
    let run: String = (0..40)
        .map(|i| {
            format!(
                "q Q0 d{i:03} {} {} t\n",
                i + 1,
                if i == 11 { 100 - 10 } else { 100 - i }
            )
        })
        .collect();
    for (rel, trec_key, file_key) in [
        (
            "d010",
            "pytrec_eval recip_rank, 'd010' relevant",
            "ranx mrr, 'd010' relevant",
        ),
        (
            "d011",
            "pytrec_eval recip_rank, 'd011' relevant",
            "ranx mrr, 'd011' relevant",
        ),
    ] {
        let d = ranking(&format!("q 0 {rel} 1\n"), &run);
        close(
            wvalue(&d, &Conventions::default(), "mrr"),
            num(&p, &[trec_key]),
            trec_key,
        );
        close(
            wvalue(
                &d,
                &Conventions {
                    ties: TieRule::File,
                    ..Default::default()
                },
                "mrr",
            ),
            num(&p, &[file_key]),
            file_key,
        );
    }
}

#[test]
fn k_larger_than_the_list() {
    let p = probe("3 retrieved, 1 relevant at rank 1, k=10");
    let d = ranking("q 0 a 1\n", "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n");
    close(
        wvalue(&d, &Conventions::default(), "precision@10"),
        num(&p, &["pytrec_eval P_10"]),
        "P@10",
    );
    let min = Conventions {
        precision_denominator: PrecisionDenominator::MinKLength,
        ..Default::default()
    };
    close(
        wvalue(&d, &min, "precision@10"),
        num(&p, &["divide by min(k,len)"]),
        "P@10 min",
    );
    close(
        wvalue(&d, &Conventions::default(), "ndcg@10"),
        num(&p, &["pytrec_eval ndcg_cut_10"]),
        "nDCG@10",
    );
}

#[test]
fn which_queries_count() {
    let p = probe("q1 judged but no relevant doc");
    // q1: judged, nothing relevant; q2 perfect; q3 in run only; q4 in qrels only
    let qrels = "q1 0 a 0\nq2 0 b 1\nq4 0 c 1\n";
    let run = "q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\nq3 Q0 x 1 1 t\n";
    let d = ranking(qrels, run);
    close(
        wvalue(&d, &Conventions::default(), "ndcg@10"),
        num(&p, &["ir_measures/pytrec_eval nDCG@10"]),
        "qrels set",
    );
    let inter = Conventions {
        query_set: QuerySet::Intersection,
        ..Default::default()
    };
    close(
        wvalue(&d, &inter, "ndcg@10"),
        num(&p, &["pytrec_eval mean over returned queries"]),
        "trec_eval set",
    );
    let report = rankscope::core::evaluate::evaluate(
        &only_dataset(&d),
        &Conventions::default(),
        &[rankscope::core::registry::MetricId::parse(
            "ndcg@10",
            rankscope::core::registry::Kind::Ranking,
        )
        .unwrap()],
    );
    assert!(
        report.warnings.iter().any(|w| w.contains("q4")),
        "warns about q4: {:?}",
        report.warnings
    );
    assert!(
        report.warnings.iter().any(|w| w.contains("q3")),
        "warns about q3: {:?}",
        report.warnings
    );
}

#[test]
fn ap_denominator() {
    let p = probe("|R|=5 relevant, top-3 all relevant");
    let qrels: String = (0..5).map(|i| format!("q 0 r{i} 1\n")).collect();
    let run = "q Q0 r0 1 9 t\nq Q0 r1 2 8 t\nq Q0 r2 3 7 t\n";
    let d = ranking(&qrels, run);
    close(
        wvalue(&d, &Conventions::default(), "map@3"),
        num(&p, &["pytrec_eval map_cut_3"]),
        "|R|",
    );
    let min = Conventions {
        ap_denominator: ApDenominator::MinRelevantK,
        ..Default::default()
    };
    close(
        wvalue(&d, &min, "map@3"),
        num(&p, &["divide by min(|R|,k)"]),
        "min",
    );
}

#[test]
fn mrr_cutoff_and_relevance_level() {
    let p = probe("first relevant at rank 5");
    let run: String = (0..6)
        .map(|i| format!("q Q0 d{i} {} {} t\n", i + 1, 10 - i))
        .collect();
    let d = ranking("q 0 d4 1\n", &run);
    close(
        wvalue(&d, &Conventions::default(), "mrr"),
        num(&p, &["pytrec_eval recip_rank (no cutoff)"]),
        "mrr",
    );
    close(
        wvalue(&d, &Conventions::default(), "mrr@3"),
        num(&p, &["ranx mrr@3"]),
        "mrr@3",
    );
    let p = probe("a rel 1 at rank 1, b rel 2 at rank 2");
    let d = ranking("q 0 a 1\nq 0 b 2\n", "q Q0 a 1 2 t\nq Q0 b 2 1 t\n");
    close(
        wvalue(&d, &Conventions::default(), "precision@1"),
        num(&p, &["pytrec_eval P_1 (relevance_level=1)"]),
        "level 1",
    );
    let l2 = Conventions {
        relevance_level: 2,
        ..Default::default()
    };
    close(
        wvalue(&d, &l2, "precision@1"),
        num(&p, &["pytrec_eval P_1 (relevance_level=2)"]),
        "level 2",
    );
}

fn binary(labels: &[u8], scores: &[f64]) -> rankscope::parse::Workspace {
    let mut text = String::from("label,score\n");
    for (l, s) in labels.iter().zip(scores) {
        text.push_str(&format!("{l},{s}\n"));
    }
    workspace_from_text(&[("b.csv", &text)])
}

#[test]
fn binary_probes() {
    let p = probe("labels [1,0,1,0], scores [0.5,0.5,0.7,0.2]");
    close(
        wvalue(
            &binary(&[1, 0, 1, 0], &[0.5, 0.5, 0.7, 0.2]),
            &Conventions::default(),
            "roc_auc",
        ),
        num(&p, &["sklearn.roc_auc_score"]),
        "auc ties",
    );
    let p = probe("labels [1,0,1,1,0,0,1,0], strictly decreasing");
    let d = binary(
        &[1, 0, 1, 1, 0, 0, 1, 0],
        &[0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2],
    );
    let c = Conventions::default();
    close(
        wvalue(&d, &c, "average_precision"),
        num(&p, &["sklearn.average_precision_score (step)"]),
        "step",
    );
    close(
        wvalue(&d, &c, "pr_auc_trapezoid"),
        num(&p, &["sklearn.auc(recall, precision) (trapezoid)"]),
        "trapezoid",
    );
    close(
        wvalue(&d, &c, "pr_auc_interpolated"),
        num(&p, &["interpolated (precision envelope)"]),
        "envelope",
    );
    let p = probe("labels [1,0,1,0], scores [0.9,0.5,0.5,0.1]");
    close(
        wvalue(
            &binary(&[1, 0, 1, 0], &[0.9, 0.5, 0.5, 0.1]),
            &c,
            "average_precision",
        ),
        num(
            &p,
            &["sklearn.average_precision_score (tie group = one threshold)"],
        ),
        "ap ties",
    );
    let p = probe("labels [1,0], p [0.0, 0.5]");
    close(
        wvalue(&binary(&[1, 0], &[0.0, 0.5]), &c, "log_loss"),
        num(&p, &["sklearn.log_loss"]),
        "log loss",
    );
    let p = probe("labels [1,1,0], scores [0.5,0.5,0.2]");
    let d = binary(&[1, 1, 0], &[0.5, 0.5, 0.2]);
    close(
        wvalue(&d, &c, "accuracy"),
        num(&p, &["accuracy score>=0.5"]),
        ">=",
    );
    close(
        wvalue(
            &d,
            &Conventions {
                threshold_rule: ThresholdRule::Above,
                ..Default::default()
            },
            "accuracy",
        ),
        num(&p, &["accuracy score>0.5"]),
        ">",
    );
}

#[test]
fn multiclass_and_ratings_probes() {
    let p = probe("2 uniform rows over 4 classes");
    let d = workspace_from_text(&[(
        "m.csv",
        "target,p_0,p_1,p_2,p_3\n0,0.25,0.25,0.25,0.25\n3,0.25,0.25,0.25,0.25\n",
    )]);
    let sk = Conventions {
        class_ties: ClassTieRule::HigherIndexFirst,
        ..Default::default()
    };
    close(
        wvalue(&d, &sk, "acc@1"),
        num(&p, &["sklearn.top_k_accuracy_score k=1"]),
        "sklearn",
    );
    close(
        wvalue(&d, &Conventions::default(), "acc@1"),
        num(&p, &["sklearn.accuracy_score(argmax)"]),
        "argmax",
    );
    let p = probe("x=[1,2,2,3,3,3]");
    let text =
        "user_id,item_id,rating,prediction\nu,a,1,1\nu,b,2,3\nu,c,2,2\nu,d,3,2\nu,e,3,3\nu,f,3,3\n";
    let d = workspace_from_text(&[("r.csv", text)]);
    close(
        wvalue(&d, &Conventions::default(), "spearman"),
        num(&p, &["scipy.spearmanr (Pearson on average ranks)"]),
        "spearman",
    );
    let p = probe("user0 r=[1,2,3] p=[1,1,2]");
    let text = "user_id,item_id,rating,prediction\nu0,a,1,1\nu0,b,2,1\nu0,c,3,2\nu1,a,1,3\nu1,b,2,2\nu1,c,3,1\n";
    let d = workspace_from_text(&[("f.csv", text)]);
    close(
        wvalue(&d, &Conventions::default(), "fcp"),
        num(&p, &["Koren (ties neither)"]),
        "fcp",
    );
}
