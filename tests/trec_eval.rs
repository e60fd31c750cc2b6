//! Per-query agreement with trec_eval (pytrec_eval) on every measure it shares
//! with Rankscope, at relevance levels 1 and 2, and the `--format trec_eval`
//! lines against trec_eval's formatting of the same values.
//! Reference: tests/reference/extra/trec_eval.json (scripts/reference/trec_eval_reference.py).

mod common;
use common::*;

use rankscope::core::evaluate::{evaluate, Conventions};
use rankscope::core::ranking::QuerySet;
use rankscope::core::registry::{Kind, MetricId};

fn ours(measure: &str) -> Option<String> {
    let (name, k) = match measure.rsplit_once('_') {
        Some((n, k)) if k.chars().all(|c| c.is_ascii_digit()) => (n, Some(k)),
        _ => (measure, None),
    };
    let base = match name {
        "map" => "map",
        "Rprec" => "r_precision",
        "bpref" => "bpref",
        "recip_rank" => "mrr",
        "P" => "precision",
        "recall" => "recall",
        "ndcg" => "ndcg",
        "ndcg_cut" => "ndcg",
        "map_cut" => "map",
        "success" => "hit_rate",
        "num_ret" | "num_rel" | "num_rel_ret" => name,
        _ if measure.starts_with("iprec_at_recall_") => return Some(measure.to_string()),
        _ => return None,
    };
    Some(match k {
        Some(k) => format!("{base}@{k}"),
        None => base.to_string(),
    })
}

#[test]
fn every_shared_measure_matches_trec_eval_per_query() {
    let reference: serde_json::Value =
        serde_json::from_slice(&reference("extra/trec_eval.json")).unwrap();
    let cases = [
        ("ranking", vec!["ranking.qrels", "ranking.run"]),
        (
            "example",
            vec!["extra/example.qrels", "extra/dense.run", "extra/bm25.run"],
        ),
    ];
    let mut checked = 0;
    for (case, files) in cases {
        let ws = workspace(&files);
        let data = only_dataset(&ws);
        for level in [1, 2] {
            let conv = Conventions {
                relevance_level: level,
                query_set: QuerySet::Intersection,
                ..Default::default()
            };
            let per_run = &reference["cases"][case];
            let first = per_run.as_object().unwrap().values().next().unwrap();
            let first_query = first.as_object().unwrap().values().next().unwrap();
            let measures: Vec<(String, String)> = first_query
                .as_object()
                .unwrap()
                .keys()
                .filter_map(|m| ours(m).map(|o| (m.clone(), o)))
                .collect();
            let ids: Vec<MetricId> = measures
                .iter()
                .map(|(_, o)| {
                    if o.starts_with("iprec") {
                        MetricId::new("iprec_at_recall", None)
                    } else {
                        MetricId::parse(o, Kind::Ranking).unwrap()
                    }
                })
                .collect();
            let report = evaluate(&data, &conv, &ids);
            // models come in the order their files were loaded
            let runs = files.iter().filter(|f| f.ends_with(".run"));
            assert_eq!(runs.clone().count(), report.models.len());
            for (model, file) in report.models.iter().zip(runs) {
                let file_name = file.rsplit('/').next().unwrap();
                let theirs = &per_run[format!("{file_name} level={level}")];
                for (i, qid) in model.unit_ids.iter().enumerate() {
                    for (m, o) in &measures {
                        let want = theirs[qid][m]
                            .as_f64()
                            .unwrap_or_else(|| panic!("{case} {qid} {m}"));
                        close(
                            model.per_unit[o][i],
                            want,
                            &format!("{case} {file_name} level={level} {qid} {m}"),
                        );
                        checked += 1;
                    }
                }
                assert_eq!(
                    model.unit_ids.len(),
                    theirs.as_object().unwrap().len(),
                    "same queries evaluated"
                );
            }
        }
    }
    assert!(checked > 10_000, "checked {checked} values");
}

#[test]
fn trec_eval_lines_match_trec_eval_formatting() {
    let reference: serde_json::Value =
        serde_json::from_slice(&reference("extra/trec_eval.json")).unwrap();
    let ws = workspace(&["extra/example.qrels", "extra/dense.run"]);
    let data = ws.ranking.as_ref().unwrap();
    let measures = rankscope::trec_format::parse_measures(&["all_trec".into()]).unwrap();
    let text = rankscope::trec_format::format_run(
        data,
        0,
        &Conventions::default(),
        &measures,
        true,
        false,
    );
    let theirs = &reference["cases"]["example"]["dense.run level=1"];
    let mut per_query_lines = 0;
    let mut sums: std::collections::BTreeMap<String, (f64, usize)> = Default::default();
    for line in text.lines() {
        let parts: Vec<&str> = line.split('\t').collect();
        assert_eq!(parts.len(), 3, "{line}");
        let name = parts[0].trim_end();
        assert_eq!(
            parts[0].len(),
            name.len().max(22),
            "name padded to 22: {line:?}"
        );
        if parts[1] == "all" {
            continue;
        }
        let want = theirs[parts[1]][name]
            .as_f64()
            .unwrap_or_else(|| panic!("{line}"));
        let expected = if name.starts_with("num_") {
            format!("{}", want as i64)
        } else {
            format!("{want:6.4}")
        };
        assert_eq!(parts[2], expected, "{line}");
        let e = sums.entry(name.to_string()).or_default();
        e.0 += want;
        e.1 += 1;
        per_query_lines += 1;
    }
    assert!(per_query_lines > 1000);
    // summary lines: the mean (or the sum for counts) of the per-query values
    for (name, (total, n)) in sums {
        let value = if name.starts_with("num_") {
            format!("{}", total as i64)
        } else {
            format!("{:6.4}", total / n as f64)
        };
        let want = format!("{name:<22}\tall\t{value}");
        assert!(
            text.lines().any(|l| l == want),
            "missing summary line {want:?}"
        );
    }
    // per-query lines come first, then the summary, which starts with runid and num_q
    assert!(
        text.contains("\nrunid                 \tall\tdense\nnum_q                 \tall\t60\n")
    );
}

/// trec_eval `-q` output read as input: every value comes back as written, and
/// our own `--format trec_eval -q` output reads back too.
#[test]
fn trec_eval_output_is_read_back_as_written() {
    let reference: serde_json::Value =
        serde_json::from_slice(&reference("extra/trec_eval.json")).unwrap();
    let theirs = reference["cases"]["example"]["dense.run level=1"]
        .as_object()
        .unwrap();
    let mut text = String::from("runid\tall\tdense_elsewhere\n");
    let mut lines = 0;
    for (qid, measures) in theirs {
        for (name, v) in measures.as_object().unwrap() {
            text.push_str(&format!("{name:<22}\t{qid}\t{}\n", v.as_f64().unwrap()));
            lines += 1;
        }
    }
    text.push_str("map                   \tall\t0.2500\n");
    let ws = workspace_from_text(&[("dense.eval", &text)]);
    assert_eq!(ws.precomputed.len(), 1);
    let p = &ws.precomputed[0];
    assert_eq!(p.name, "dense_elsewhere");
    assert_eq!(p.value.len(), lines + 1);
    for (qid, measures) in theirs {
        for (name, v) in measures.as_object().unwrap() {
            assert_eq!(p.get(name, qid), v.as_f64(), "{name} {qid}");
        }
    }
    assert_eq!(p.get("map", "all"), Some(0.25));
    assert!(ws.datasets().is_empty(), "nothing is recomputed from it");

    let run_ws = workspace(&["extra/example.qrels", "extra/dense.run"]);
    let measures = rankscope::trec_format::parse_measures(&["official".into()]).unwrap();
    let ours = rankscope::trec_format::format_run(
        run_ws.ranking.as_ref().unwrap(),
        0,
        &Conventions::default(),
        &measures,
        true,
        false,
    );
    let back = workspace_from_text(&[("ours.txt", &ours)]);
    let p = &back.precomputed[0];
    assert_eq!(p.name, "dense");
    assert_eq!(
        p.value.len(),
        ours.lines().count() - 1,
        "every line but runid"
    );
}
