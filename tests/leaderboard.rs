//! The leaderboard and the catalog: tie groups and rank intervals against
//! scipy, statsmodels and a numpy implementation of the same bootstrap
//! (`tests/reference/extra/leaderboard.json`, written by
//! `scripts/reference/leaderboard_reference.py`); a catalog's values against
//! `rankscope eval --per-query` and `rankscope trec_eval -q`; the commands'
//! refusals leave the catalog unchanged; the board's formats.

use std::path::{Path, PathBuf};
use std::process::Command;

use rankscope::core::leaderboard::{self as lb, Matrix, Test};
use rankscope::core::stats::Correction;

fn fixture() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/extra/leaderboard.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn rows(case: &serde_json::Value) -> (usize, usize, Vec<f64>) {
    let runs = case["values"].as_array().unwrap();
    let n = runs[0].as_array().unwrap().len();
    let flat = runs
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
        .collect();
    (runs.len(), n, flat)
}

#[test]
fn tie_groups_equal_scipy_and_statsmodels() {
    let f = fixture();
    let mut checked = 0;
    for case in f["cases"].as_array().unwrap() {
        let (runs, n, values) = rows(case);
        let m = Matrix::new(runs, n, &values).unwrap();
        let alpha = case["alpha"].as_f64().unwrap();
        for (key, want) in case["groups"].as_object().unwrap() {
            let (test, correction) = key.split_once('/').unwrap();
            let test = <Test as rankscope::core::Named>::named(test).unwrap();
            let correction = <Correction as rankscope::core::Named>::named(correction).unwrap();
            let g = lb::tie_group(&m, test, correction, alpha).unwrap();
            let name = format!("{} {key}", case["name"]);
            assert_eq!(g.best as u64, want["best"].as_u64().unwrap(), "{name}");
            let runs: Vec<u64> = g.comparisons.iter().map(|c| c.run as u64).collect();
            let want_runs: Vec<u64> = want["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(runs, want_runs, "{name}");
            for (i, c) in g.comparisons.iter().enumerate() {
                let (p, adj) = (
                    want["p"][i].as_f64().unwrap(),
                    want["adjusted"][i].as_f64().unwrap(),
                );
                // the t distribution through statrs: 1e-9 (stats.rs's doctests)
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-3);
                assert!(close(c.p, p), "{name} run {}: p {} vs {p}", c.run, c.p);
                assert!(
                    close(c.adjusted, adj),
                    "{name} run {}: adjusted {} vs {adj}",
                    c.run,
                    c.adjusted
                );
            }
            let members: Vec<bool> = want["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_bool().unwrap())
                .collect();
            assert_eq!(g.members, members, "{name}");
            checked += 1;
        }
    }
    assert_eq!(checked, 24);
}

#[test]
fn rank_intervals_equal_the_numpy_bootstrap() {
    let f = fixture();
    for case in f["cases"].as_array().unwrap() {
        let (runs, n, values) = rows(case);
        let m = Matrix::new(runs, n, &values).unwrap();
        let got = lb::rank_intervals(
            &m,
            case["resamples"].as_u64().unwrap() as usize,
            case["seed"].as_u64().unwrap(),
        );
        let got: Vec<[u64; 3]> = got
            .iter()
            .map(|r| [r.rank as u64, r.low as u64, r.high as u64])
            .collect();
        let want: Vec<[u64; 3]> = case["ranks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let r = r.as_array().unwrap();
                [0, 1, 2].map(|i| r[i].as_u64().unwrap())
            })
            .collect();
        assert_eq!(got, want, "{}", case["name"]);
    }
}

fn rankscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh folder with the example's qrels and two runs under runs/.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rankscope-board-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let gen = dir.join("gen");
    let (ok, _, err) = rankscope(&[
        "generate",
        "--kind",
        "ranking",
        "--out",
        gen.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    std::fs::copy(gen.join("bench.qrels"), dir.join("qrels.txt")).unwrap();
    for run in ["bm25.run", "dense.run"] {
        std::fs::copy(gen.join(run), dir.join("runs").join(run)).unwrap();
    }
    dir
}

/// Every file under `dir` with its bytes (the catalog's state).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn build(dir: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        "catalog",
        "build",
        dir.to_str().unwrap(),
        "--metrics",
        "ndcg@10,map,precision@10,mrr",
    ];
    args.extend(extra);
    let (ok, _, err) = rankscope(&args);
    (ok, err)
}

fn values_of(dir: &Path, id: &str) -> rankscope::catalog::RunValues {
    let file = format!("values/{id}.rsv");
    rankscope::catalog::read_values(&file, &std::fs::read(dir.join(&file)).unwrap()).unwrap()
}

#[test]
fn catalog_values_equal_eval_per_query_and_trec_eval_q() {
    let dir = folder("values");
    let (ok, err) = build(&dir, &[]);
    assert!(ok, "{err}");
    let qrels = dir.join("qrels.txt");
    for id in ["bm25", "dense"] {
        let v = values_of(&dir, id);
        let run = dir.join(format!("runs/{id}.run"));
        // rankscope eval --per-query: every query and metric, to the last bit
        let (ok, csv, err) = rankscope(&[
            "eval",
            "--qrels",
            qrels.to_str().unwrap(),
            run.to_str().unwrap(),
            "--metrics",
            "ndcg@10,map,precision@10,mrr",
            "--per-query",
            "--format",
            "csv",
        ]);
        assert!(ok, "{err}");
        let mut seen = 0;
        for line in csv.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let (q, metric, value) = (f[0], f[2], f[3]);
            let i = v.queries.iter().position(|x| x == q).unwrap();
            let got = v.metric(metric).unwrap()[i];
            let want: f64 = if value.is_empty() {
                f64::NAN
            } else {
                value.parse().unwrap()
            };
            assert!(
                got == want || (got.is_nan() && want.is_nan()),
                "{id} {q} {metric}: {got} vs {want}"
            );
            seen += 1;
        }
        assert_eq!(seen, v.values.len(), "{id}");
        // trec_eval -q (4 decimals): the queries the run has
        let (ok, out, err) = rankscope(&[
            "trec_eval",
            "-q",
            "-m",
            "ndcg_cut.10",
            "-m",
            "map",
            "-m",
            "P.10",
            "-m",
            "recip_rank",
            qrels.to_str().unwrap(),
            run.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        let mut compared = 0;
        for line in out.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f[1] == "all" {
                continue;
            }
            let metric = match f[0] {
                "ndcg_cut_10" => "ndcg@10",
                "map" => "map",
                "P_10" => "precision@10",
                "recip_rank" => "mrr",
                _ => continue,
            };
            let i = v.queries.iter().position(|x| x == f[1]).unwrap();
            let got = v.metric(metric).unwrap()[i];
            let want: f64 = f[2].parse().unwrap();
            assert!(
                (got - want).abs() <= 5e-5 + 1e-12,
                "{id} {} {metric}: {got} vs {want}",
                f[1]
            );
            compared += 1;
        }
        assert!(compared >= 4 * 50, "{id}: {compared}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn catalog_add_appends_one_run_and_keeps_the_others_files() {
    let dir = folder("add");
    std::fs::rename(dir.join("runs/dense.run"), dir.join("dense.run")).unwrap();
    let (ok, err) = build(&dir, &["--name", "team"]);
    assert!(ok, "{err}");
    let bm25 = std::fs::read(dir.join("values/bm25.rsv")).unwrap();
    let (ok, _, err) = rankscope(&[
        "catalog",
        "add",
        dir.to_str().unwrap(),
        dir.join("dense.run").to_str().unwrap(),
        "--name",
        "Dense v1",
        "--author",
        "ana",
        "--date",
        "2026-03-01",
        "--tags",
        "dense,neural",
    ]);
    assert!(ok, "{err}");
    assert_eq!(std::fs::read(dir.join("values/bm25.rsv")).unwrap(), bm25);
    let text = std::fs::read_to_string(dir.join("rankscope-catalog.json")).unwrap();
    let m = rankscope::catalog::parse_manifest("m", &text).unwrap();
    assert_eq!(m.name, "team");
    let d = m.run("dense").unwrap();
    assert_eq!(
        (d.name.as_str(), d.author.as_str(), d.date.as_deref()),
        ("Dense v1", "ana", Some("2026-03-01"))
    );
    assert_eq!(d.tags, ["dense", "neural"]);
    assert_eq!(d.file, "dense.run");
    assert_eq!(d.format, "run");
    // its values are what a build computes
    let added = values_of(&dir, "dense");
    std::fs::rename(dir.join("dense.run"), dir.join("runs/dense.run")).unwrap();
    let (ok, err) = build(&dir, &[]);
    assert!(ok, "{err}");
    assert_eq!(values_of(&dir, "dense").values.len(), added.values.len());
    assert!(values_of(&dir, "dense")
        .values
        .iter()
        .zip(&added.values)
        .all(|(a, b)| a == b || (a.is_nan() && b.is_nan())));
    // a rebuild keeps what the manifest said of a run
    let text = std::fs::read_to_string(dir.join("rankscope-catalog.json")).unwrap();
    let m = rankscope::catalog::parse_manifest("m", &text).unwrap();
    assert_eq!(m.run("bm25").unwrap().name, "bm25");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_runs_are_refused_and_the_catalog_is_unchanged() {
    let dir = folder("refuse");
    let (ok, err) = build(&dir, &[]);
    assert!(ok, "{err}");
    let before = snapshot(&dir);
    let run = std::fs::read_to_string(dir.join("runs/bm25.run")).unwrap();
    let lines: Vec<&str> = run.lines().collect();
    let bad = std::env::temp_dir()
        .join(format!("rankscope-board-{}", std::process::id()))
        .join("bad.run");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    let add = |expect: &str| {
        let (ok, _, err) = rankscope(&[
            "catalog",
            "add",
            dir.to_str().unwrap(),
            bad.to_str().unwrap(),
        ]);
        assert!(!ok, "{expect}: accepted");
        assert!(err.contains(expect), "{expect}: {err}");
        assert!(snapshot(&dir) == before, "{expect}: the catalog changed");
    };
    // a repeated document
    std::fs::write(&bad, format!("{}\n{}\n", lines[..3].join("\n"), lines[0])).unwrap();
    add("bad.run: expected each document at most once per query");
    // a rank twice in a query, with its line and column
    let mut twice: Vec<String> = lines[..3].iter().map(|l| l.to_string()).collect();
    twice[1] = twice[1].replacen(" 2 ", " 1 ", 1);
    std::fs::write(&bad, twice.join("\n") + "\n").unwrap();
    add("runs/bad.run:2:19: expected each rank once per query (rank 1 is on line 1 too), found rank 1 again for query 'q00000'");
    // ranks against the scores
    let mut swapped: Vec<String> = lines[..3].iter().map(|l| l.to_string()).collect();
    swapped[0] = swapped[0].replacen(" 1 ", " 2 ", 1);
    swapped[1] = swapped[1].replacen(" 2 ", " 1 ", 1);
    std::fs::write(&bad, swapped.join("\n") + "\n").unwrap();
    add("expected ranks in the order of the scores");
    // a rank that is not a number
    std::fs::write(&bad, lines[0].replacen(" 1 ", " first ", 1) + "\n").unwrap();
    add("runs/bad.run:1:19: expected a rank (a whole number), found 'first'");
    // a query the judgments do not have
    std::fs::write(&bad, lines[0].replacen("q00000", "q99999", 1) + "\n").unwrap();
    add("runs/bad.run:1:1: expected a query of the catalog's judgments, found query 'q99999'");
    // per-query values computed under other conventions
    std::fs::write(
        &bad,
        "query_id,model,metric,value,conventions\nq00000,x,ndcg@10,0.5,gain=exponential\n",
    )
    .unwrap();
    add("its values were computed under other conventions than the catalog's: gain exponential (the catalog: linear)");
    // per-query values of other judgments' queries
    std::fs::write(&bad, "query_id,model,metric,value\nzz1,x,ndcg@10,0.5\nzz1,x,map,0.5\nzz1,x,precision@10,0.5\nzz1,x,mrr,0.5\n").unwrap();
    add("scored against other judgments: query 'zz1' is not in the catalog's judgments");
    // judgments changed since the build
    std::fs::write(&bad, format!("{}\n", lines[0])).unwrap();
    let qrels = std::fs::read(dir.join("qrels.txt")).unwrap();
    let mut changed = qrels.clone();
    changed.extend_from_slice(b"q00000 0 dnew 1\n");
    std::fs::write(dir.join("qrels.txt"), &changed).unwrap();
    let changed_state = snapshot(&dir);
    let (ok, _, err) = rankscope(&[
        "catalog",
        "add",
        dir.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("the judgments changed since the catalog was built"),
        "{err}"
    );
    assert!(snapshot(&dir) == changed_state, "the catalog changed");
    std::fs::write(dir.join("qrels.txt"), &qrels).unwrap();
    // a build with one wrong run writes nothing
    std::fs::write(
        dir.join("runs/bad.run"),
        format!("{}\n{}\n", lines[0], lines[0]),
    )
    .unwrap();
    let with_bad = snapshot(&dir);
    let (ok, err) = build(&dir, &[]);
    assert!(
        !ok && err.contains("nothing written: 1 of 3 runs refused"),
        "{err}"
    );
    assert!(snapshot(&dir) == with_bad, "a refused build wrote");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_leaderboard_in_every_format() {
    let dir = folder("formats");
    let (ok, err) = build(&dir, &[]);
    assert!(ok, "{err}");
    let m = dir.to_str().unwrap();
    let (ok, md, err) = rankscope(&[
        "leaderboard",
        m,
        "--metrics",
        "ndcg@10,map",
        "--baseline",
        "bm25",
        "--format",
        "markdown",
    ]);
    assert!(ok, "{err}");
    assert!(
        md.starts_with("<!-- leaderboard of rankscope-board-formats"),
        "{md}"
    );
    assert!(
        md.contains("| dense | **0.5226** [1] ▲ | **0.4471** [1] ▲ |"),
        "{md}"
    );
    let (ok, tex, _) = rankscope(&[
        "leaderboard",
        m,
        "--metrics",
        "map",
        "--baseline",
        "bm25",
        "--format",
        "latex",
    ]);
    assert!(
        ok && tex.starts_with("% leaderboard of") && tex.contains("\\begin{tabular}{lr}"),
        "{tex}"
    );
    let (ok, csv, _) = rankscope(&[
        "leaderboard",
        m,
        "--format",
        "csv",
        "--test",
        "wilcoxon",
        "--correction",
        "bh",
    ]);
    assert!(
        ok && csv.starts_with("run,name,metric,mean,rank,rank_low,rank_high,tie_group,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 1 + 2 * 4);
    let (ok, json, _) = rankscope(&[
        "leaderboard",
        m,
        "--format",
        "json",
        "--resamples",
        "200",
        "--seed",
        "3",
        "--alpha",
        "0.01",
    ]);
    assert!(ok);
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (
            j["resamples"].as_u64(),
            j["seed"].as_u64(),
            j["alpha"].as_f64()
        ),
        (Some(200), Some(3), Some(0.01))
    );
    assert_eq!(j["metrics"][0]["runs"][0]["run"], "dense");
    let (ok, text, _) = rankscope(&["leaderboard", m]);
    assert!(
        ok && text.starts_with("run ") && text.contains("# tie group"),
        "{text}"
    );
    // refusals: a bad flag, a damaged manifest, a missing or damaged values file
    let (ok, _, err) = rankscope(&["leaderboard", m, "--test", "z"]);
    assert!(
        !ok && err.contains("--test z: expected one of t, wilcoxon, sign"),
        "{err}"
    );
    let manifest = dir.join("rankscope-catalog.json");
    let good = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        good.replacen("\"rankscope_catalog\": 1,", "\"rankscope_catalog\": 1", 1),
    )
    .unwrap();
    let (ok, _, err) = rankscope(&["leaderboard", m]);
    assert!(
        !ok && err.contains("rankscope-catalog.json:3:3: expected"),
        "{err}"
    );
    std::fs::write(&manifest, &good).unwrap();
    let values = dir.join("values/bm25.rsv");
    let mut bytes = std::fs::read(&values).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&values, &bytes).unwrap();
    let (ok, _, err) = rankscope(&["leaderboard", m]);
    assert!(
        !ok && err.contains("values/bm25.rsv: expected values whose CRC-32 is"),
        "{err}"
    );
    std::fs::remove_file(&values).unwrap();
    let (ok, _, err) = rankscope(&["leaderboard", m]);
    assert!(
        !ok && err.contains("the values of run 'bm25' cannot be read"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
