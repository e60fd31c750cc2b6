//! The core compiled to wasm gives the same numbers as natively: the reference
//! files are parsed and evaluated inside headless Chromium and compared with
//! the oracle (run by `cargo test --target wasm32-unknown-unknown --test wasm`).
#![cfg(target_arch = "wasm32")]

use rankscope::core::evaluate::{evaluate, Conventions};
use rankscope::core::registry::MetricId;
use rankscope::parse::{LoadOptions, Workspace};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn oracle() -> serde_json::Value {
    serde_json::from_slice(include_bytes!("reference/oracle.json")).unwrap()
}

fn metric(ws: &Workspace, id: &str) -> f64 {
    let d = ws.datasets().remove(0);
    let r = evaluate(
        &d,
        &Conventions::default(),
        &[MetricId::parse(id, d.kind()).unwrap()],
    );
    r.models[0].metrics[id].unwrap()
}

#[wasm_bindgen_test]
fn ranking_in_wasm_matches_trec_eval() {
    let mut ws = Workspace::default();
    ws.load_bytes(
        "ranking.qrels",
        include_bytes!("reference/ranking.qrels"),
        &LoadOptions::default(),
    )
    .unwrap();
    ws.load_bytes(
        "ranking.run",
        include_bytes!("reference/ranking.run"),
        &LoadOptions::default(),
    )
    .unwrap();
    let o = oracle();
    for k in [1, 3, 5, 10, 20] {
        let want = o["ranking"][format!("ndcg@{k} gain=rel")]["pytrec_eval ndcg_cut"]
            .as_f64()
            .unwrap();
        assert!((metric(&ws, &format!("ndcg@{k}")) - want).abs() < 1e-12);
        let want = o["ranking"][format!("map@{k}")]["pytrec_eval map_cut (/|R|)"]
            .as_f64()
            .unwrap();
        assert!((metric(&ws, &format!("map@{k}")) - want).abs() < 1e-12);
    }
}

#[wasm_bindgen_test]
fn binary_and_multiclass_in_wasm_match_scikit_learn() {
    let o = oracle();
    let mut ws = Workspace::default();
    ws.load_bytes(
        "binary.csv",
        include_bytes!("reference/binary.csv"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(
        (metric(&ws, "roc_auc")
            - o["binary"]["roc_auc"]["sklearn.roc_auc_score"]
                .as_f64()
                .unwrap())
        .abs()
            < 1e-12
    );
    assert!(
        (metric(&ws, "log_loss")
            - o["binary"]["log_loss"]["sklearn.log_loss (clip to float64 eps=2.2e-16)"]
                .as_f64()
                .unwrap())
        .abs()
            < 1e-12
    );
    let mut ws = Workspace::default();
    ws.load_bytes(
        "multiclass_probs.csv",
        include_bytes!("reference/multiclass_probs.csv"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(
        (metric(&ws, "cross_entropy")
            - o["multiclass"]["cross_entropy"]
                ["sklearn.log_loss (no renormalisation in 1.9, clip eps)"]
                .as_f64()
                .unwrap())
        .abs()
            < 1e-12
    );
}

#[wasm_bindgen_test]
fn a_malformed_file_is_an_error_not_a_panic() {
    let mut ws = Workspace::default();
    let err = ws
        .load_bytes(
            "bad.run",
            b"q Q0 d 1 notanumber t\n",
            &LoadOptions::default(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.run:1:5: expected a score (a number), found 'notanumber'"
    );
}
