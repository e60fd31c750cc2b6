//! Judgment sets (`rankscope judgments`, `core::judgments`) against the
//! reference values of `scripts/reference/judgments_reference.py`
//! (tests/reference/extra/judgments.json): agreement against scikit-learn
//! and the `krippendorff` package, the orderings' correlations against
//! scipy and the published definitions of τ_AP and RBO, bounds and condensed
//! lists against trec_eval, the pool against the rule computed apart, on
//! the reference files and on generated sets that disagree on a known share.

use std::process::Command;

use serde_json::Value;

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn reference() -> Value {
    let text =
        std::fs::read_to_string(root().join("tests/reference/extra/judgments.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The CLI's JSON for `args` (paths relative to the repository).
fn cli(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn close(got: &Value, want: &Value, tol: f64, what: &str) {
    match (got.as_f64(), want.as_f64()) {
        (Some(g), Some(w)) => assert!((g - w).abs() <= tol, "{what}: {g} against {w}"),
        _ => assert!(
            got.is_null() && want.is_null(),
            "{what}: {got} against {want}"
        ),
    }
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

#[test]
fn agreement_equals_scikit_learn_and_krippendorff() {
    let r = reference();
    for case in r["agreement"].as_array().unwrap() {
        let level = if case == &r["agreement"][2] { "2" } else { "1" };
        let (a, b) = (
            format!("A={}", s(&case["a"])),
            format!("B={}", s(&case["b"])),
        );
        let got = cli(&[
            "judgments",
            "agree",
            &a,
            &b,
            "-l",
            level,
            "--format",
            "json",
        ]);
        for key in ["both", "only_a", "only_b", "grades", "confusion"] {
            assert_eq!(got[key], case[key], "{key} of {a} {b}");
        }
        for key in [
            "same_grade",
            "kappa",
            "kappa_linear",
            "kappa_quadratic",
            "alpha_ordinal",
            "alpha_interval",
        ] {
            close(&got[key], &case[key], 1e-12, key);
        }
        let per_query = got["per_query"].as_array().unwrap();
        let want = case["per_query"].as_object().unwrap();
        assert_eq!(per_query.len(), want.len());
        for q in per_query {
            let w = &want[s(&q["query"])];
            assert_eq!(q["both"], w["both"]);
            close(&q["kappa"], &w["kappa"], 1e-12, s(&q["query"]));
        }
    }
}

#[test]
fn generated_sets_disagree_on_the_share_they_were_made_to() {
    let r = reference();
    let known = &r["known"];
    let n = |k: &str| known[k].as_u64().unwrap();
    let got = cli(&[
        "judgments",
        "agree",
        "tests/reference/extra/judgments/gen_a.qrels",
        "tests/reference/extra/judgments/gen_b.qrels",
        "--format",
        "json",
    ]);
    let both = n("judged_a") - n("removed");
    assert_eq!(got["both"].as_u64(), Some(both));
    assert_eq!(got["only_a"].as_u64(), Some(n("removed")));
    assert_eq!(got["only_b"].as_u64(), Some(n("added")));
    // exactly 20% of A's judgments changed grade, 10% left out
    let same = 1.0 - n("changed") as f64 / both as f64;
    assert!((got["same_grade"].as_f64().unwrap() - same).abs() < 1e-15);
    assert!((got["a_unjudged_by_b"].as_f64().unwrap() - 0.1).abs() < 1e-15);
}

#[test]
fn orderings_equal_scipy_and_the_published_definitions() {
    let r = reference();
    for case in r["rankings"].as_array().unwrap() {
        let (a, b) = (
            format!("A={}", s(&case["a"])),
            format!("B={}", s(&case["b"])),
        );
        let mut args = vec![
            "judgments".to_string(),
            "rankings".into(),
            "--qrels".into(),
            a,
            "--qrels".into(),
            b,
            "--metric".into(),
            s(&case["metric"]).into(),
            "--persistence".into(),
            case["persistence"].to_string(),
            "--resamples".into(),
            case["resamples"].to_string(),
            "--seed".into(),
            case["seed"].to_string(),
            "--format".into(),
            "json".into(),
        ];
        let runs: Vec<String> = case["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| s(r).to_string())
            .collect();
        args.extend(runs.iter().cloned());
        let got = cli(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let name = |i: &Value| {
            let stem = std::path::Path::new(&runs[i.as_u64().unwrap() as usize])
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            Value::String(stem)
        };
        // the runs listed in A's order, each with its means and places
        let rows = got["runs"].as_array().unwrap();
        for (place, i) in case["order_a"].as_array().unwrap().iter().enumerate() {
            let row = &rows[place];
            assert_eq!(row["name"], name(i));
            let k = i.as_u64().unwrap() as usize;
            close(&row["mean_a"], &case["means_a"][k], 1e-12, "mean_a");
            close(&row["mean_b"], &case["means_b"][k], 1e-12, "mean_b");
        }
        for (place, i) in case["order_b"].as_array().unwrap().iter().enumerate() {
            let row = rows.iter().find(|r| r["name"] == name(i)).unwrap();
            assert_eq!(row["rank_b"].as_u64(), Some(place as u64 + 1));
        }
        for key in ["kendall_tau_b", "tau_ap", "spearman", "rbo"] {
            for part in ["value", "low", "high"] {
                close(
                    &got[key][part],
                    &case[key][part],
                    1e-12,
                    &format!("{key} {part}"),
                );
            }
        }
        let flips = got["flips"].as_array().unwrap();
        let want = case["flips"].as_array().unwrap();
        assert_eq!(flips.len(), want.len());
        for (f, w) in flips.iter().zip(want) {
            assert_eq!(
                (&f["ahead_a"], &f["ahead_b"]),
                (&name(&w["ahead_a"]), &name(&w["ahead_b"]))
            );
            // statrs' Student's t against scipy's
            close(&f["p_a"], &w["p_a"], 1e-9, "p_a");
            close(&f["p_b"], &w["p_b"], 1e-9, "p_b");
        }
    }
}

/// trec_eval's measure for each metric id the reference holds.
const METRICS: &str = "ndcg@10,map,precision@5,recall@10,bpref,mrr,r_precision,ndcg";

#[test]
fn bounds_equal_trec_eval_with_unjudged_documents_added() {
    let r = reference();
    for case in r["bounds"].as_array().unwrap() {
        let runs = case["runs"].as_object().unwrap();
        let set = format!("S={}", s(&case["qrels"]));
        let mut args = vec![
            "judgments",
            "bounds",
            "--qrels",
            &set,
            "--metrics",
            METRICS,
            "-k",
            "5,10",
            "--format",
            "json",
        ];
        args.extend(runs.keys().map(String::as_str));
        let got = cli(&args);
        for (run, want) in got["runs"].as_array().unwrap().iter().zip(runs.values()) {
            for (metric, bound) in run["metrics"].as_object().unwrap() {
                for side in ["unjudged_nonrelevant", "unjudged_relevant"] {
                    // trec_eval prints 4 decimals
                    close(
                        &bound[side],
                        &want[side][metric],
                        5.0001e-5,
                        &format!("{} {metric} {side}", run["name"]),
                    );
                }
                close(&bound["value"], &want["today"][metric], 5.0001e-5, metric);
            }
        }
    }
}

#[test]
fn condensed_lists_equal_trec_eval_minus_j() {
    let r = reference();
    for case in r["bounds"].as_array().unwrap() {
        let runs = case["runs"].as_object().unwrap();
        for (run, want) in runs {
            let got = cli(&[
                "eval",
                "--qrels",
                s(&case["qrels"]),
                run,
                "--metrics",
                METRICS,
                "--unjudged",
                "condensed",
                "--format",
                "json",
            ]);
            let kept = cli(&[
                "eval",
                "--qrels",
                s(&case["qrels"]),
                run,
                "--metrics",
                METRICS,
                "--format",
                "json",
            ]);
            let mut differs = false;
            for (metric, v) in got["models"][0]["metrics"].as_object().unwrap() {
                close(
                    v,
                    &want["condensed"][metric],
                    5.0001e-5,
                    &format!("{run} {metric}"),
                );
                differs |= v != &kept["models"][0]["metrics"][metric];
            }
            assert!(differs, "{run}: the condensed lists change a value");
        }
    }
}

#[test]
fn the_pool_is_ranked_by_the_stated_rule() {
    let r = reference();
    for case in r["pool"].as_array().unwrap() {
        let set = format!("S={}", s(&case["qrels"]));
        let depth = case["depth"].to_string();
        let mut args = vec![
            "judgments",
            "pool",
            "--qrels",
            &set,
            "--depth",
            &depth,
            "--format",
            "json",
        ];
        let runs: Vec<&str> = case["runs"].as_array().unwrap().iter().map(s).collect();
        let baseline;
        if let Some(b) = case["baseline"].as_u64() {
            baseline = std::path::Path::new(runs[b as usize])
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            args.extend(["--baseline", &baseline]);
        }
        args.extend(&runs);
        let got = cli(&args);
        let docs = got["documents"].as_array().unwrap();
        let want = case["documents"].as_array().unwrap();
        assert_eq!(docs.len(), want.len());
        // priorities in order; documents whose priorities differ by rounding
        // only (sums in another order) may trade places
        for (d, w) in docs.iter().zip(want) {
            close(&d["priority"], &w["priority"], 1e-12, "priority");
        }
        let key = |d: &Value| {
            let p = (d["priority"].as_f64().unwrap() * 1e9).round() as i64;
            (-p, s(&d["query"]).to_string(), s(&d["doc"]).to_string())
        };
        let mut g: Vec<_> = docs.iter().map(key).collect();
        let mut w: Vec<_> = want.iter().map(key).collect();
        g.sort();
        w.sort();
        assert_eq!(g, w);
    }
}

#[test]
fn a_merge_lists_every_conflict_and_keeps_the_chosen_grade() {
    let dir = std::env::temp_dir().join(format!("rankscope-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("merged.qrels");
    let out_s = out.to_string_lossy().into_owned();
    let r = reference();
    let known = &r["known"];
    let got = cli(&[
        "judgments",
        "merge",
        "tests/reference/extra/judgments/gen_a.qrels",
        "tests/reference/extra/judgments/gen_b.qrels",
        "--prefer",
        "new",
        "--out",
        &out_s,
        "--format",
        "json",
    ]);
    assert_eq!(
        got["conflicts"].as_array().unwrap().len() as u64,
        known["changed"].as_u64().unwrap()
    );
    assert_eq!(got["added"], known["added"]);
    let merged = std::fs::read_to_string(&out).unwrap();
    let lines = merged.lines().count() as u64;
    assert_eq!(
        lines,
        known["judged_a"].as_u64().unwrap() + known["added"].as_u64().unwrap()
    );
    // every conflict keeps the new grade: the merged set agrees with B on what B judges
    let agreed = cli(&[
        "judgments",
        "agree",
        &out_s,
        "tests/reference/extra/judgments/gen_b.qrels",
        "--format",
        "json",
    ]);
    assert_eq!(agreed["same_grade"].as_f64(), Some(1.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_runs_under_the_chosen_set_or_every_set() {
    let a = "human=tests/reference/ranking.qrels";
    let b = "llm=tests/reference/extra/judgments/ref_b.qrels";
    let run = "tests/reference/ranking.run";
    let under = |set: &str| {
        cli(&[
            "eval",
            "--qrels",
            a,
            "--qrels",
            b,
            "--judgments",
            set,
            run,
            "--format",
            "json",
        ])
    };
    let plain = |q: &str| cli(&["eval", "--qrels", q, run, "--format", "json"]);
    assert_eq!(
        under("human")["models"],
        plain("tests/reference/ranking.qrels")["models"]
    );
    let llm = plain("tests/reference/extra/judgments/ref_b.qrels");
    assert_eq!(under("llm")["models"], llm["models"]);
    let all = under("all");
    let models = all["models"].as_array().unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(models[0]["name"], "bench [human]");
    assert_eq!(models[1]["metrics"], llm["models"][0]["metrics"]);
}
