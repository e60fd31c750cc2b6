//! Classifier diagnostics against scikit-learn, scipy and numpy on the cases
//! of `tests/reference/extra/diagnostics.json` (written by
//! `scripts/reference/diagnostics_reference.py`): calibration bins, ECE,
//! MCE and Murphy's decomposition, KS, gains and lift, the DET curve,
//! operating points; the multi-class report, confusion matrix and AUCs.

use rankscope::core::binary::{BinaryCurve, ZeroDivision};
use rankscope::core::diagnostics::{self, BinStrategy, Target};
use rankscope::core::multiclass;
use rankscope::core::Named;
use serde_json::Value;

fn near(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: {got} vs reference {want}"
    );
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::INFINITY))
        .collect()
}

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/extra/diagnostics.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn binary_diagnostics_match_the_references() {
    let json = reference();
    let cases = json["binary"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let labels: Vec<bool> = floats(&case["labels"]).iter().map(|&y| y == 1.0).collect();
        let curve = BinaryCurve::new(&labels, &floats(&case["scores"]));
        for want in case["calibration"].as_array().unwrap() {
            let bins = want["bins"].as_u64().unwrap() as usize;
            let strategy = BinStrategy::named(want["strategy"].as_str().unwrap()).unwrap();
            let what = format!("{name}, {bins} {} bins", strategy.name());
            let cal = diagnostics::calibration(&curve, bins, strategy, |p| p).unwrap();
            let got = |f: fn(&diagnostics::CalibrationBin) -> f64| -> Vec<f64> {
                cal.bins.iter().map(f).collect()
            };
            let counts: Vec<f64> = cal.bins.iter().map(|b| b.rows as f64).collect();
            assert_eq!(counts, floats(&want["counts"]), "{what}: counts");
            for (key, values) in [
                ("prob_true", got(|b| b.fraction_positive)),
                ("prob_pred", got(|b| b.mean_predicted)),
            ] {
                for (g, w) in values.iter().zip(floats(&want[key])) {
                    near(*g, w, &format!("{what}: {key}"));
                }
            }
            for (key, value) in [
                ("ece", cal.ece),
                ("mce", cal.mce),
                ("reliability", cal.reliability),
                ("resolution", cal.resolution),
                ("uncertainty", cal.uncertainty),
                ("brier_binned", cal.brier_binned),
            ] {
                near(
                    value,
                    want[key].as_f64().unwrap(),
                    &format!("{what}: {key}"),
                );
            }
            identity_holds(&cal, &what);
        }
        let (ks, _) = diagnostics::ks(&curve).unwrap();
        near(ks, case["ks"].as_f64().unwrap(), &format!("{name}: KS"));
        for (q, want) in case["gains"].as_object().unwrap() {
            let fraction = q.parse::<f64>().unwrap() / 100.0;
            let want = want.as_f64().unwrap();
            near(
                diagnostics::gains_at(&curve, fraction).unwrap(),
                want,
                &format!("{name}: gains@{q}"),
            );
            let lift = diagnostics::lift_at(&curve, fraction).unwrap();
            near(lift, want / fraction, &format!("{name}: lift@{q}"));
        }
        let det = diagnostics::det_points(&curve).unwrap();
        let want = &case["det"];
        let columns = [
            floats(&want["fpr"]),
            floats(&want["fnr"]),
            floats(&want["thresholds"]),
        ];
        assert_eq!(det.len(), columns[0].len(), "{name}: DET points");
        for (i, &(fpr, fnr, t)) in det.iter().enumerate() {
            near(fpr, columns[0][i], &format!("{name}: DET fpr {i}"));
            near(fnr, columns[1][i], &format!("{name}: DET fnr {i}"));
            assert_eq!(t, columns[2][i], "{name}: DET threshold {i}");
        }
        let ops = &case["operating_points"];
        let check = |key: &str, target: Target| {
            let got = diagnostics::operating_point(&curve, target);
            let want = &ops[key];
            match (got, want) {
                (None, Value::Null) => {}
                (Some(p), Value::Array(pair)) => {
                    near(
                        p.value,
                        pair[0].as_f64().unwrap(),
                        &format!("{name}: {key}"),
                    );
                    assert_eq!(
                        p.threshold,
                        pair[1].as_f64().unwrap(),
                        "{name}: {key} threshold"
                    );
                }
                (Some(p), Value::Number(w)) => {
                    near(p.value, w.as_f64().unwrap(), &format!("{name}: {key}"))
                }
                (got, want) => panic!("{name}: {key}: {got:?} vs {want}"),
            }
        };
        check("precision_at_recall_0.5", Target::PrecisionAtRecall(0.5));
        check("precision_at_recall_0.9", Target::PrecisionAtRecall(0.9));
        check("recall_at_precision_0.5", Target::RecallAtPrecision(0.5));
        check("recall_at_precision_0.8", Target::RecallAtPrecision(0.8));
        check("fpr_at_tpr_0.95", Target::FprAtTpr(0.95));
        check("youden", Target::Youden);
        check("max_f_1.0", Target::MaxF(1.0));
        check("max_f_2.0", Target::MaxF(2.0));
        let cost = |prevalence| Target::MinCost {
            fp: 1.0,
            fn_: 5.0,
            prevalence,
        };
        check("min_cost_1_5", cost(None));
        check("min_cost_1_5_prevalence_0.1", cost(Some(0.1)));
    }
}

/// Murphy's identity: the Brier score of the binned probabilities (each
/// replaced by its bin's mean), computed from the bins' counts, equals
/// reliability − resolution + uncertainty.
fn identity_holds(cal: &diagnostics::Calibration, what: &str) {
    let terms = cal.reliability - cal.resolution + cal.uncertainty;
    assert!(
        (cal.brier_binned - terms).abs() <= 1e-12,
        "{what}: binned Brier {} vs reliability − resolution + uncertainty {terms}",
        cal.brier_binned
    );
}

/// The identity on random data (a fixed xorshift stream): distinct
/// probabilities, probabilities tied to 2 decimals, and some on 0 and 1,
/// in several bin counts under both strategies.
#[test]
fn the_binned_brier_equals_the_three_terms_on_random_data() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for case in 0..60 {
        let n = 5 + (next() * 2000.0) as usize;
        let rows: Vec<(f64, bool)> = (0..n)
            .map(|_| {
                let mut p = next();
                if case % 3 == 1 {
                    p = (p * 100.0).round() / 100.0;
                } else if case % 3 == 2 && next() < 0.1 {
                    p = (next() < 0.5) as u8 as f64;
                }
                (p, next() < p.clamp(0.05, 0.95))
            })
            .collect();
        let (s, l): (Vec<f64>, Vec<bool>) = rows.iter().copied().unzip();
        let curve = BinaryCurve::new(&l, &s);
        for bins in [1, 2, 5, 10, 15, 37] {
            for strategy in [BinStrategy::Uniform, BinStrategy::Quantile] {
                let cal = diagnostics::calibration(&curve, bins, strategy, |p| p).unwrap();
                identity_holds(
                    &cal,
                    &format!("case {case}, {bins} {} bins", strategy.name()),
                );
            }
        }
    }
}

/// The reference matrix: targets and one score column per class.
fn matrix() -> (Vec<u32>, Vec<Vec<f64>>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/multiclass_probs.csv"
    );
    let mut reader = csv::Reader::from_path(path).unwrap();
    let (mut targets, mut columns) = (Vec::new(), Vec::<Vec<f64>>::new());
    for row in reader.records() {
        let row = row.unwrap();
        targets.push(row[0].parse().unwrap());
        columns.resize(row.len() - 1, Vec::new());
        for (c, v) in row.iter().skip(1).enumerate() {
            columns[c].push(v.parse().unwrap());
        }
    }
    (targets, columns)
}

#[test]
fn multiclass_report_and_aucs_match_scikit_learn() {
    let json = reference();
    let want = &json["multiclass"];
    let (targets, columns) = matrix();
    let argmax = |r: usize| {
        (0..columns.len()).fold(0, |best, c| {
            if columns[c][r] > columns[best][r] {
                c
            } else {
                best
            }
        }) as u32
    };
    let predicted: Vec<u32> = (0..targets.len()).map(argmax).collect();
    let labels: Vec<u32> = floats(&want["labels"]).iter().map(|&c| c as u32).collect();
    let matrix = multiclass::confusion_matrix(&targets, &predicted, &labels);
    let want_matrix: Vec<Vec<u64>> =
        serde_json::from_value(want["confusion_matrix"].clone()).unwrap();
    assert_eq!(matrix, want_matrix);
    for (rule, key) in [
        (ZeroDivision::Zero, "zero"),
        (ZeroDivision::Undefined, "undefined"),
    ] {
        let report = multiclass::classification_report(&targets, &predicted, rule);
        let sk = &want["report"][key];
        assert_eq!(report.classes.len(), labels.len());
        let value = |v: Option<f64>, w: &Value, what: &str| match (v, w.as_f64()) {
            (Some(v), Some(w)) => near(v, w, what),
            (None, None) => {}
            (v, _) => panic!("{what}: {v:?} vs {w}"),
        };
        for line in &report.classes {
            let s = &sk[line.class.to_string()];
            let what = format!("{key}: class {}", line.class);
            value(line.precision, &s["precision"], &what);
            value(line.recall, &s["recall"], &what);
            value(line.f1, &s["f1-score"], &what);
            assert_eq!(
                line.support as f64,
                s["support"].as_f64().unwrap(),
                "{what}"
            );
        }
        near(
            report.accuracy,
            sk["accuracy"].as_f64().unwrap(),
            "accuracy",
        );
        for (avg, name) in [
            (report.macro_avg, "macro avg"),
            (report.weighted_avg, "weighted avg"),
        ] {
            for (v, m) in avg.iter().zip(["precision", "recall", "f1-score"]) {
                value(*v, &sk[name][m], &format!("{key}: {name} {m}"));
            }
        }
    }
    // scikit-learn wants a column per class present, rows summing to 1
    let present: Vec<u32> = floats(&want["present"]).iter().map(|&c| c as u32).collect();
    let mut sub: Vec<Vec<f64>> = present
        .iter()
        .map(|&c| columns[c as usize].clone())
        .collect();
    for r in 0..targets.len() {
        let total: f64 = sub.iter().map(|col| col[r]).sum();
        sub.iter_mut().for_each(|col| col[r] /= total);
    }
    let index: Vec<u32> = targets
        .iter()
        .map(|t| present.binary_search(t).unwrap() as u32)
        .collect();
    for (ovo, weighted, key) in [
        (false, false, "ovr_macro"),
        (false, true, "ovr_weighted"),
        (true, false, "ovo_macro"),
        (true, true, "ovo_weighted"),
    ] {
        let got = multiclass::multiclass_roc_auc(&index, &sub, ovo, weighted).unwrap();
        near(got, want["roc_auc"][key].as_f64().unwrap(), key);
    }
}

/// `rankscope diagnose FILE --format json ARGS`, which must succeed.
fn diagnose(file: &str, args: &[&str]) -> Value {
    let path = format!("{}/tests/reference/{file}", env!("CARGO_MANIFEST_DIR"));
    let mut all = vec!["diagnose", &path, "--format", "json"];
    all.extend(args);
    succeeded(rankscope(&all))
}

/// The command line run with `args`.
fn rankscope(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(args)
        .output()
        .unwrap()
}

/// The JSON a run printed, which must have succeeded.
fn succeeded(out: std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_command_line_prints_the_references_values() {
    let json = reference();
    let case = &json["binary"][0];
    let model = &diagnose(
        "binary.csv",
        &["--bins", "15", "--strategy", "quantile", "--cost-fn", "5"],
    )["models"][0];
    let want = &case["calibration"][5];
    assert_eq!(
        (want["bins"].as_u64(), want["strategy"].as_str()),
        (Some(15), Some("quantile"))
    );
    let cal = &model["calibration"];
    for key in [
        "ece",
        "mce",
        "reliability",
        "resolution",
        "uncertainty",
        "brier_binned",
    ] {
        near(cal[key].as_f64().unwrap(), want[key].as_f64().unwrap(), key);
    }
    near(
        model["brier"].as_f64().unwrap(),
        case["brier"].as_f64().unwrap(),
        "brier",
    );
    near(
        model["ks"][0].as_f64().unwrap(),
        case["ks"].as_f64().unwrap(),
        "ks",
    );
    for top in model["top"].as_array().unwrap() {
        let q = top[0].as_u64().unwrap().to_string();
        near(
            top[1].as_f64().unwrap(),
            case["gains"][&q].as_f64().unwrap(),
            "gains",
        );
    }
    let point = |m: &Value, name: &str| -> Value {
        m["operating_points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap()
            .clone()
    };
    let ops = &case["operating_points"];
    let cost = point(model, "min_cost");
    near(
        cost["value"].as_f64().unwrap(),
        ops["min_cost_1_5"][0].as_f64().unwrap(),
        "min_cost",
    );
    assert_eq!(cost["threshold"], ops["min_cost_1_5"][1]);
    assert!(
        point(model, "recall_at_precision")["value"].is_null(),
        "precision 0.9 is never reached"
    );
    // the text says which Brier score the three terms add up to: the binned
    // probabilities', with the probabilities' own beside it, named
    let path = format!("{}/tests/reference/binary.csv", env!("CARGO_MANIFEST_DIR"));
    let out = rankscope(&["diagnose", &path]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let ten = &case["calibration"][2];
    assert_eq!(
        (ten["bins"].as_u64(), ten["strategy"].as_str()),
        (Some(10), Some("uniform"))
    );
    let f = |key: &str| format!("{:.4}", ten[key].as_f64().unwrap());
    let line = format!(
        "  Brier {:.4} of the probabilities; of the binned probabilities (each its bin's mean p) {} = reliability {} − resolution {} + uncertainty {}\n",
        case["brier"].as_f64().unwrap(),
        f("brier_binned"),
        f("reliability"),
        f("resolution"),
        f("uncertainty"),
    );
    assert!(text.contains(&line), "{line} not in\n{text}");
    // the same predictions under the > rule: the next lower score as threshold
    let strict = &diagnose("binary.csv", &["--threshold-rule", ">"])["models"][0];
    let (at_least, above) = (point(model, "youden"), point(strict, "youden"));
    assert_eq!(at_least["confusion"], above["confusion"]);
    assert!(above["threshold"].as_f64().unwrap() < at_least["threshold"].as_f64().unwrap());
    // logits: the calibration of the sigmoid of the scores
    let logits = &diagnose("binary.csv", &["--logits"])["models"][0];
    let plain = &diagnose("binary.csv", &[])["models"][0];
    assert_ne!(logits["calibration"]["ece"], plain["calibration"]["ece"]);
    assert_eq!(logits["ks"], plain["ks"]);
    // multi-class: the report and, from the matrix's own columns, the AUCs
    let model = &diagnose("multiclass_probs.csv", &["--zero-division", "0"])["models"][0];
    let sk = &json["multiclass"]["report"]["zero"];
    near(
        model["report"]["accuracy"].as_f64().unwrap(),
        sk["accuracy"].as_f64().unwrap(),
        "accuracy",
    );
    near(
        model["report"]["macro_avg"][2].as_f64().unwrap(),
        sk["macro avg"]["f1-score"].as_f64().unwrap(),
        "macro F1",
    );
    assert_eq!(
        model["confusion_matrix"],
        json["multiclass"]["confusion_matrix"]
    );
    // each class against the rest, from its own column
    let want = json["multiclass"]["per_class"].as_array().unwrap();
    let got = model["per_class"].as_array().unwrap();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g["class"], w["class"]);
        assert_eq!(g["positives"], w["positives"]);
        for key in ["roc_auc", "average_precision", "ece", "mce", "brier", "ks"] {
            let what = format!("class {} {key}", w["class"]);
            near(g[key].as_f64().unwrap(), w[key].as_f64().unwrap(), &what);
        }
    }
    let columns = floats(&json["multiclass"]["roc_auc_columns"]);
    for (got, want) in model["roc_auc"].as_array().unwrap().iter().zip(columns) {
        near(got.as_f64().unwrap(), want, "multi-class ROC AUC");
    }
}

/// The reference's five folds (labels and scores), as curves.
fn reference_folds(json: &Value) -> Vec<BinaryCurve> {
    (json["averaged_roc"]["folds"].as_array().unwrap().iter())
        .map(|f| {
            let labels: Vec<bool> = floats(&f["labels"]).iter().map(|&y| y == 1.0).collect();
            BinaryCurve::new(&labels, &floats(&f["scores"]))
        })
        .collect()
}

/// Each of `lines` (key, values) equal to `want[key]`, point by point.
fn near_lines(want: &Value, lines: [(&str, &Vec<f64>); 3]) {
    for (key, values) in lines {
        let w = floats(&want[key]);
        assert_eq!(values.len(), w.len());
        for (i, (g, w)) in values.iter().zip(w).enumerate() {
            near(*g, w, &format!("{key}[{i}]"));
        }
    }
}

#[test]
fn folds_average_as_scikit_learns_cross_validation_example() {
    let json = reference();
    let want = &json["averaged_roc"];
    let curves = reference_folds(&json);
    let refs: Vec<&BinaryCurve> = curves.iter().collect();
    let got = diagnostics::averaged_roc(&refs, 100).unwrap();
    near_lines(
        want,
        [
            ("mean_tpr", &got.mean_tpr),
            ("lower", &got.lower),
            ("upper", &got.upper),
        ],
    );
    for (key, value) in [
        ("auc_of_mean", got.auc_of_mean),
        ("auc_mean", got.auc_mean),
        ("auc_sd", got.auc_sd),
    ] {
        near(value, want[key].as_f64().unwrap(), key);
    }
}

/// The same folds' precision–recall curves: numpy's `interp` at 100
/// recalls on scikit-learn's curves reversed, mean ± sd, and the mean and sd
/// of their average precisions.
#[test]
fn folds_average_their_precision_recall_curves_as_the_common_recipe() {
    let json = reference();
    let want = &json["averaged_pr"];
    let curves = reference_folds(&json);
    let refs: Vec<&BinaryCurve> = curves.iter().collect();
    let got = diagnostics::averaged_pr(&refs, 100).unwrap();
    near_lines(
        want,
        [
            ("mean_precision", &got.mean_precision),
            ("lower", &got.lower),
            ("upper", &got.upper),
        ],
    );
    near(got.ap_mean, want["ap_mean"].as_f64().unwrap(), "ap_mean");
    near(got.ap_sd, want["ap_sd"].as_f64().unwrap(), "ap_sd");
    // a fold without a positive has no curve to average
    let none = BinaryCurve::new(&[false, false], &[0.2, 0.7]);
    assert_eq!(diagnostics::averaged_pr(&[&curves[0], &none], 100), None);
}

#[test]
fn five_seed_columns_group_into_one_model() {
    let json = reference();
    let want = &json["grouped_seeds"];
    let out = diagnose("extra/seeds.csv", &["--group", "model_a=model_a_seed*"]);
    let group = &out["groups"][0];
    let members: Vec<&str> = group["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        members,
        (1..=5)
            .map(|k| format!("model_a_seed{k}"))
            .collect::<Vec<_>>()
    );
    for row in group["mean_sd"].as_array().unwrap() {
        let key = row[0].as_str().unwrap();
        if let Some(w) = want.get(key) {
            near(
                row[1].as_f64().unwrap(),
                w[0].as_f64().unwrap(),
                &format!("{key} mean"),
            );
            near(
                row[2].as_f64().unwrap(),
                w[1].as_f64().unwrap(),
                &format!("{key} sd"),
            );
        }
    }
    let mean_tpr = floats(&group["averaged_roc"]["mean_tpr"]);
    for (g, w) in mean_tpr.iter().zip(floats(&want["mean_tpr"])) {
        near(*g, w, "averaged ROC");
    }
    // a pattern nothing matches is refused, naming the models
    let path = format!(
        "{}/tests/reference/extra/seeds.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = rankscope(&["diagnose", &path, "--group", "c=model_c*"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("no model matches 'model_c*' (the models: model_a_seed1"));
}

#[test]
fn eval_groups_show_mean_and_sd_as_numpy_over_scikit_learn_values() {
    let json = reference();
    let want = &json["grouped_seeds"];
    let path = format!(
        "{}/tests/reference/extra/seeds.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc = succeeded(rankscope(&[
        "eval",
        &path,
        "--format",
        "json",
        "--group",
        "model_a=model_a_seed*",
        "--metrics",
        "roc_auc,average_precision,brier",
    ]));
    let group = &doc["groups"][0];
    assert_eq!(group["members"].as_array().unwrap().len(), 5);
    for row in group["metrics"].as_array().unwrap() {
        let key = row[0].as_str().unwrap();
        near(
            row[1][0].as_f64().unwrap(),
            want[key][0].as_f64().unwrap(),
            &format!("{key} mean"),
        );
        near(
            row[1][1].as_f64().unwrap(),
            want[key][1].as_f64().unwrap(),
            &format!("{key} sd"),
        );
        assert_eq!(row[2].as_array().unwrap().len(), 5);
    }
    // the CSV's group rows (mean, sd) and the Markdown's (mean ± sd)
    let args = |format| {
        let out = rankscope(&[
            "eval",
            &path,
            "--format",
            format,
            "--group",
            "model_a=model_a_seed*",
            "--metrics",
            "roc_auc,average_precision,brier",
        ]);
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = args("csv");
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let header = &lines[0];
    for (what, i) in [("mean", 0), ("sd", 1)] {
        let row = (lines.iter())
            .find(|r| r[0] == format!("model_a ({what})"))
            .unwrap_or_else(|| panic!("no {what} row in {csv}"));
        for key in ["roc_auc", "average_precision", "brier"] {
            let c = header.iter().position(|h| *h == key).unwrap();
            near(
                row[c].parse().unwrap(),
                want[key][i].as_f64().unwrap(),
                &format!("{key} {what} (CSV)"),
            );
        }
    }
    let md = args("markdown");
    assert!(md.contains("| model\\_a (mean ± sd, 5 models) | "), "{md}");
    assert!(
        !md.contains("group model_a"),
        "no text block under a Markdown table"
    );
    // compare runs no groups
    let out = rankscope(&[
        "compare",
        &path,
        "--metrics",
        "roc_auc",
        "--group",
        "a=model_a*",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// ECE, KS and lift at the top 10% as metrics of the table, the CLI and
/// The table's lift columns are the cutoffs `rankscope diagnose` prints,
/// with its numbers: for every model of the seeds file, `eval`'s `lift_q`
/// equals `diagnose`'s lift at the top q% (and its gains over q).
#[test]
fn the_tables_lift_columns_are_diagnoses_cutoffs_and_numbers() {
    use rankscope::core::registry::{info, Kind};
    let ids: Vec<String> = rankscope::diagnose::TOP_PERCENT
        .iter()
        .map(|q| format!("lift_{q}"))
        .collect();
    for id in &ids {
        assert!(info(id, Kind::Binary).is_some(), "{id} is no table column");
    }
    let path = format!(
        "{}/tests/reference/extra/seeds.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let eval = succeeded(rankscope(&[
        "eval",
        &path,
        "--format",
        "json",
        "--metrics",
        &ids.join(","),
    ]));
    let diag = diagnose("extra/seeds.csv", &[]);
    let models = diag["models"].as_array().unwrap();
    assert_eq!(models.len(), 6);
    for (m, e) in models.iter().zip(eval["models"].as_array().unwrap()) {
        assert_eq!(m["name"], e["name"]);
        let top = m["top"].as_array().unwrap();
        assert_eq!(top.len(), ids.len());
        for t in top {
            let q = t[0].as_u64().unwrap();
            let got = e["metrics"][format!("lift_{q}")].as_f64().unwrap();
            assert_eq!(got, t[2].as_f64().unwrap(), "{} lift_{q}", m["name"]);
            near(got * q as f64 / 100.0, t[1].as_f64().unwrap(), "gains");
        }
    }
}

/// Python (registry rows evaluated like every other): the references'
/// ECE of 10 uniform bins (scikit-learn's `calibration_curve` bins), the
/// KS statistic (scipy's `ks_2samp`) and the gains at 10% over 0.1 (numpy);
/// scores marked as logits are read through the sigmoid first.
#[test]
fn ece_ks_and_lift_are_table_metrics_equal_to_the_references() {
    use rankscope::core::evaluate::{self, BinaryData, Conventions};
    use rankscope::core::registry::MetricId;
    let json = reference();
    let ids: Vec<MetricId> = ["ece", "ks", "lift_1", "lift_5", "lift_10", "lift_20"]
        .map(|m| MetricId::new(m, None))
        .to_vec();
    for case in json["binary"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let labels: Vec<bool> = floats(&case["labels"]).iter().map(|&y| y == 1.0).collect();
        let scores = floats(&case["scores"]);
        let data = |scores: Vec<f64>| BinaryData {
            labels: labels.clone(),
            models: vec![("m".into(), scores)],
            ..Default::default()
        };
        let value = |d: &BinaryData, conv: &Conventions, id: &str| {
            let prepared = evaluate::prepare_binary(d, conv.binary_scores_are_logits);
            let report = evaluate::evaluate_binary_prepared(prepared.iter(), conv, &ids);
            report.models[0].metrics[id]
        };
        let plain = Conventions::default();
        let ece = case["calibration"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["bins"] == 10 && c["strategy"] == "uniform")
            .unwrap()["ece"]
            .as_f64()
            .unwrap();
        let d = data(scores.clone());
        near(
            value(&d, &plain, "ece").unwrap(),
            ece,
            &format!("{name}: ece"),
        );
        near(
            value(&d, &plain, "ks").unwrap(),
            case["ks"].as_f64().unwrap(),
            &format!("{name}: ks"),
        );
        for q in [1, 5, 10, 20] {
            let gains = case["gains"][q.to_string()].as_f64().unwrap();
            near(
                value(&d, &plain, &format!("lift_{q}")).unwrap(),
                gains / (q as f64 / 100.0),
                &format!("{name}: lift_{q}"),
            );
        }
        // scores marked as logits: the ECE of their sigmoids as
        // probabilities (a round trip through the logit moves a score on a
        // bin edge, so the sigmoids are the reference here), KS unchanged
        let logits: Vec<f64> = scores.iter().map(|&p| 4.0 * p - 2.0).collect();
        let sigmoids: Vec<f64> = logits.iter().map(|&z| 1.0 / (1.0 + (-z).exp())).collect();
        let as_logits = Conventions {
            binary_scores_are_logits: true,
            ..Default::default()
        };
        let (l, s) = (data(logits), data(sigmoids));
        near(
            value(&l, &as_logits, "ece").unwrap(),
            value(&s, &plain, "ece").unwrap(),
            &format!("{name}: ece of logits"),
        );
        assert_ne!(
            value(&l, &plain, "ece"),
            value(&l, &as_logits, "ece"),
            "{name}"
        );
        near(
            value(&l, &as_logits, "ks").unwrap(),
            case["ks"].as_f64().unwrap(),
            &format!("{name}: ks of logits"),
        );
    }
}
