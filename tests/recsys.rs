//! Recommender files as recommenders write them, evaluated by `rankscope
//! eval`: top-k lists per user (wide columns, one cell, a long CSV with a
//! rank column), held-out interactions as the judgments (by `--qrels` or
//! given beside the lists), next-item targets beside the lists, relevance
//! given only on the lists' rows. Each value is held to the one numpy
//! computes from the same data (`scripts/reference/recsys_reference.py` →
//! `tests/reference/extra/recsys/recsys.json`), to 1e-12.

use std::path::{Path, PathBuf};
use std::process::Command;

const METRICS: [&str; 7] = [
    "mrr",
    "hit_rate@5",
    "recall@5",
    "ndcg@5",
    "hit_rate@10",
    "recall@10",
    "ndcg@10",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/extra/recsys")
}

fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(dir().join("recsys.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `rankscope eval --format json` with `args` (file names are in the
/// reference folder): the one model's metrics and the warnings.
fn eval(args: &[&str]) -> (serde_json::Value, Vec<String>) {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .current_dir(dir())
        .args(["eval", "--format", "json", "--metrics", &METRICS.join(",")])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let models = doc["models"].as_array().unwrap();
    assert_eq!(models.len(), 1, "{args:?}: one model");
    let warnings = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    (models[0]["metrics"].clone(), warnings)
}

/// Every metric of `got` within 1e-12 of the reference's `case`.
fn check(what: &str, got: &serde_json::Value, case: &str) {
    let expected = &reference()[case];
    for m in METRICS {
        let (g, e) = (got[m].as_f64(), expected[m].as_f64().unwrap());
        let g = g.unwrap_or_else(|| panic!("{what}: no {m}"));
        assert!((g - e).abs() <= 1e-12, "{what}: {m} = {g}, numpy {e}");
    }
}

/// The three shapes of the same lists against the held-out interactions,
/// as --qrels and as a file beside them, in either order: numpy's values.
#[test]
fn top_k_lists_against_held_out_interactions_give_numpys_values() {
    for lists in ["recs_wide.csv", "recs_items.csv", "recs_long.csv"] {
        let (got, warnings) = eval(&[lists, "--qrels", "heldout.csv"]);
        check(&format!("{lists} --qrels heldout.csv"), &got, "heldout");
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("heldout.csv: Read as held-out interactions")),
            "{warnings:?}"
        );
        let (got, _) = eval(&["heldout.csv", lists]);
        check(&format!("heldout.csv {lists}"), &got, "heldout");
        let (got, warnings) = eval(&[lists, "heldout.csv"]);
        check(&format!("{lists} heldout.csv"), &got, "heldout");
        // the lists came before their judgments: they have them now
        assert!(
            warnings
                .iter()
                .all(|w| !w.contains("No relevance judgments yet")),
            "{warnings:?}"
        );
    }
}

/// A rank column orders each list ascending and says so; read as a score
/// (higher first, as before) the lists were reversed: numpy's values of
/// the reversed lists differ, and the file's are the unreversed ones.
#[test]
fn a_rank_column_is_read_ascending_not_as_a_score() {
    let (got, warnings) = eval(&["recs_long.csv", "--qrels", "heldout.csv"]);
    check("recs_long.csv", &got, "heldout");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("recs_long.csv: Ordered by 'rank', ascending (rank 1 first)")),
        "{warnings:?}"
    );
    let (right, reversed) = (&reference()["heldout"], &reference()["reversed"]);
    for m in ["mrr", "ndcg@5", "ndcg@10"] {
        let (r, w) = (right[m].as_f64().unwrap(), reversed[m].as_f64().unwrap());
        assert!((r - w).abs() > 0.01, "{m}: the reversed lists must differ");
        assert!((got[m].as_f64().unwrap() - w).abs() > 0.01, "{m}");
    }
}

/// `user_id,target,pred_1,...` (read before as a binary CSV): the lists,
/// each target its user's one relevant item.
#[test]
fn next_item_targets_beside_the_lists_are_their_judgments() {
    let (got, warnings) = eval(&["next_item.csv"]);
    check("next_item.csv", &got, "next_item");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("'target' holds each user's relevant items")),
        "{warnings:?}"
    );
}

/// Relevance given only on the lists' own rows: recall@10 is the hit rate
/// (numpy's, with the relevant set cut to the lists), and the notice says
/// why and what to load instead.
#[test]
fn relevance_only_on_the_lists_rows_is_said_to_limit_recall() {
    let (got, warnings) = eval(&["recs_judged.csv"]);
    check("recs_judged.csv", &got, "judged_in_lists");
    assert_eq!(got["recall@10"], got["hit_rate@10"]);
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "recs_judged.csv: Every relevant judgment is a row of the lists themselves"
        ) && w.contains("load them as their own file")),
        "{warnings:?}"
    );
    // with the held-out interactions loaded after it, recall sees them all
    let (got, warnings) = eval(&["recs_judged.csv", "heldout.csv"]);
    check("recs_judged.csv heldout.csv", &got, "heldout");
    assert!(warnings
        .iter()
        .any(|w| w.contains("These judgments replace the qrels loaded before")));
}

/// --qrels takes judgments in any format (TREC qrels, JSON qrels, a CSV of
/// relevance, interactions, with a rating read by --relevant-rating) and
/// refuses a file that holds none.
#[test]
fn qrels_take_every_judgment_format() {
    let tmp = std::env::temp_dir().join(format!("rankscope-recsys-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let run = tmp.join("run.csv");
    std::fs::write(
        &run,
        "user_id,item_id,rank\nu1,a,1\nu1,b,2\nu1,c,3\nu2,d,1\nu2,e,2\n",
    )
    .unwrap();
    // u1's relevant item is c (RR 1/3), u2's is d (RR 1): MRR 2/3
    let judgments = [
        ("trec.txt", "u1 0 c 1\nu2 0 d 1\nu2 0 e 0\n"),
        ("qrels.json", "{\"u1\": {\"c\": 1}, \"u2\": {\"d\": 1}}"),
        ("rel.csv", "query_id,doc_id,relevance\nu1,c,1\nu2,d,1\n"),
        ("held.tsv", "user_id\titem_id\nu1\tc\nu2\td\n"),
        (
            "rated.csv",
            "user_id,item_id,rating\nu1,c,5\nu2,d,4\nu2,e,2\n",
        ),
    ];
    let mrr = |args: &[&Path], extra: &[&str]| -> f64 {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args(["eval", "--format", "json", "--metrics", "mrr"])
            .args(extra)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["models"][0]["metrics"]["mrr"].as_f64().unwrap()
    };
    for (name, text) in judgments {
        let path = tmp.join(name);
        std::fs::write(&path, text).unwrap();
        let got = mrr(&[&run, Path::new("--qrels"), &path], &[]);
        assert!((got - 2.0 / 3.0).abs() < 1e-15, "{name}: {got}");
    }
    // ratings relevant from 5: only u1's c; graded: c and d (and e at 2)
    let rated = tmp.join("rated.csv");
    let from_five = mrr(
        &[&run, Path::new("--qrels"), &rated],
        &["--relevant-rating", "5"],
    );
    assert!((from_five - 1.0 / 6.0).abs() < 1e-15, "{from_five}");
    let graded = mrr(
        &[&run, Path::new("--qrels"), &rated],
        &["--relevant-rating", "graded"],
    );
    assert!((graded - 2.0 / 3.0).abs() < 1e-15, "{graded}");
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval", "--relevant-rating", "most"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "--relevant-rating most: expected a number (a rating of at least it is relevant), graded or all"
    ));
    // a run given as the qrels is refused, saying what it is
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .arg("eval")
        .arg(&run)
        .arg("--qrels")
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected judgments: TREC qrels") && err.contains("found a run"),
        "{err}"
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// `rankscope metrics` lists each metric of each kind once (issue 57 saw
/// `rmse_per_user` and `spearman_per_user` twice): every row of the
/// registry, none twice, the ratings' per-user ones among them.
#[test]
fn metrics_lists_each_metric_of_each_kind_once() {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .arg("metrics")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut rows: Vec<(&str, &str)> = text
        .lines()
        .map(|l| {
            let mut f = l.split_whitespace();
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), rankscope::core::registry::METRICS.len());
    for id in ["rmse_per_user", "spearman_per_user"] {
        assert_eq!(rows.iter().filter(|r| r.1 == id).count(), 1, "{id}");
    }
    let n = rows.len();
    rows.sort();
    rows.dedup();
    assert_eq!(rows.len(), n, "a (kind, id) listed twice");
}
