//! The paired tests of `core::stats` against scipy 1.17's values on the
//! cases of `tests/reference/extra/stats.json` (written by
//! `scripts/reference/stats_reference.py`): exact, permutation and normal
//! Wilcoxon branches, ties and zeros, tiny p-values; and against the
//! peers' values of `tests/reference/extra/stats_peers.json`
//! (`scripts/reference/stats_peers_reference.py`): statsmodels'
//! `multipletests` and exact `mcnemar`, ranx's Fisher randomization test,
//! the randomization test's exact enumeration, DeLong's O(m n) definition
//! on tied scores, and the intervals of the means.

use rankscope::core::stats;

fn near(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1e-300),
        "{what}: {got} vs scipy {want}"
    );
}

#[test]
fn paired_tests_match_scipy() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/extra/stats.json"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    let list = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let (a, b) = (list(&c["a"]), list(&c["b"]));
        let p = stats::Paired::new(&a, &b);
        let t = stats::paired_t(&p).unwrap();
        let want = &c["ttest_rel"];
        near(
            t.t,
            want["t"].as_f64().unwrap(),
            1e-12,
            &format!("{name} t"),
        );
        near(
            t.p,
            want["p"].as_f64().unwrap(),
            1e-9,
            &format!("{name} t-test p"),
        );
        near(
            t.ci_low,
            want["ci"][0].as_f64().unwrap(),
            1e-9,
            &format!("{name} CI low"),
        );
        // the t interval of a mean, on the differences, is scipy's CI of ttest_rel
        let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| y - x).collect();
        let (lo, hi) = stats::t_interval(&d).unwrap();
        near(
            lo,
            want["ci"][0].as_f64().unwrap(),
            1e-9,
            &format!("{name} t interval low"),
        );
        near(
            hi,
            want["ci"][1].as_f64().unwrap(),
            1e-9,
            &format!("{name} t interval high"),
        );
        near(
            t.ci_high,
            want["ci"][1].as_f64().unwrap(),
            1e-9,
            &format!("{name} CI high"),
        );
        let w = stats::wilcoxon(&a, &b).unwrap();
        near(
            w.statistic,
            c["wilcoxon"]["statistic"].as_f64().unwrap(),
            1e-12,
            &format!("{name} W"),
        );
        near(
            w.p,
            c["wilcoxon"]["p"].as_f64().unwrap(),
            1e-9,
            &format!("{name} Wilcoxon p ({:?})", w.method),
        );
        near(
            stats::sign_test(&p).unwrap(),
            c["binomtest"].as_f64().unwrap(),
            1e-9,
            &format!("{name} sign test"),
        );
    }
}

/// The randomization test's p-value estimates the exact one within a few
/// Monte Carlo standard errors, and the bootstrap test and interval are
/// reproducible from their seed.
#[test]
fn resampling_tests_are_consistent_and_reproducible() {
    let a: Vec<f64> = (0..20).map(|i| ((i * 37) % 11) as f64 / 10.0).collect();
    let b: Vec<f64> = a
        .iter()
        .enumerate()
        .map(|(i, x)| x + [0.1, -0.05, 0.2, 0.0][i % 4])
        .collect();
    let exact = stats::randomization(&a, &b, 0, 1).unwrap();
    assert!(exact.exact);
    // the same question with more units than EXACT_FLIPS: repeat the data
    let (a2, b2) = (
        [a.clone(), a.clone()].concat(),
        [b.clone(), b.clone()].concat(),
    );
    let sampled = stats::randomization(&a2, &b2, 20_000, 9).unwrap();
    assert!(!sampled.exact && sampled.standard_error > 0.0);
    assert_eq!(sampled, stats::randomization(&a2, &b2, 20_000, 9).unwrap());
    let t = stats::paired_t(&stats::Paired::new(&a2, &b2)).unwrap();
    // the randomization and t-test p-values agree roughly on a clear effect
    assert!((sampled.p - t.p).abs() < 0.05, "{} vs {}", sampled.p, t.p);
    let boot = stats::bootstrap_test(&a2, &b2, 5_000, 3).unwrap();
    assert_eq!(boot, stats::bootstrap_test(&a2, &b2, 5_000, 3).unwrap());
    let (lo, hi) = stats::bootstrap_ci(&b2, 2_000, 5).unwrap();
    let mean = b2.iter().sum::<f64>() / b2.len() as f64;
    assert!(lo < mean && mean < hi);
}

/// DeLong's test by the midrank algorithm equals DeLong's definition computed
/// pair by pair (numpy, `delong_pairwise` in the reference script), with and
/// without tied scores, and its AUCs equal scikit-learn's.
#[test]
fn delong_matches_the_pairwise_definition() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/extra/stats.json"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = json["delong"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let labels: Vec<bool> = c["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        let list = |k: &str| -> Vec<f64> {
            c[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let d = stats::delong(&labels, &list("a"), &list("b")).unwrap();
        let want = &c["delong"];
        let w = |k: &str| want[k].as_f64().unwrap();
        near(d.auc_a, w("sklearn_auc_a"), 1e-12, &format!("{name} AUC a"));
        near(d.auc_b, w("sklearn_auc_b"), 1e-12, &format!("{name} AUC b"));
        for (got, key) in [
            (d.var_a, "var_a"),
            (d.var_b, "var_b"),
            (d.cov, "cov"),
            (d.z, "z"),
            (d.p, "p"),
        ] {
            near(got, w(key), 1e-9, &format!("{name} {key}"));
        }
        assert!(d.ci_a.0 < d.auc_a && d.auc_a < d.ci_a.1);
    }
    // one class: no test
    assert!(stats::delong(&[true, true], &[0.1, 0.2], &[0.3, 0.4]).is_none());
}

/// The bootstrap interval of a mean covers the true mean at its nominal
/// 95% (±2%) over 400 seeded samples of 200 values from a skewed
/// distribution of known mean (an exponential, mean 1): the page's
/// intervals of the means, checked against the truth rather than a peer.
#[test]
fn bootstrap_intervals_cover_the_mean_at_their_nominal_rate() {
    let mut rng = stats::SplitMix64::new(2026);
    let mut uniform = move || ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let samples = 400;
    let mut covered = 0;
    for k in 0..samples {
        let x: Vec<f64> = (0..200).map(|_| -uniform().ln()).collect();
        let (lo, hi) = stats::bootstrap_ci(&x, 1_000, k).unwrap();
        covered += (lo <= 1.0 && 1.0 <= hi) as usize;
    }
    let rate = covered as f64 / samples as f64;
    assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
}

/// The peers' values of `tests/reference/extra/stats_peers.json` (written
/// by `scripts/reference/stats_peers_reference.py`).
fn peers() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/extra/stats_peers.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect()
}

/// Holm, Bonferroni and Benjamini–Hochberg equal statsmodels'
/// `multipletests(p, method="holm" | "bonferroni" | "fdr_bh")`.
#[test]
fn corrections_equal_statsmodels_multipletests() {
    use stats::Correction;
    let json = peers();
    let cases = json["multipletests"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for (i, c) in cases.iter().enumerate() {
        let p = floats(&c["p"]);
        for (key, correction) in [
            ("holm", Correction::Holm),
            ("bonferroni", Correction::Bonferroni),
            ("bh", Correction::BenjaminiHochberg),
        ] {
            let got = stats::adjust(&p, correction);
            for (g, w) in got.iter().zip(floats(&c[key])) {
                near(*g, w, 1e-12, &format!("case {i} {key}"));
            }
        }
    }
}

/// McNemar's exact test of paired hits (the one `rankscope compare` runs on
/// 0/1 values, Acc@k's hits) equals statsmodels' `mcnemar(table,
/// exact=True)`; the core offers no chi-square form.
#[test]
fn mcnemar_equals_statsmodels_exact() {
    use rankscope::compare::Comparison;
    let json = peers();
    let cases = json["mcnemar"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for (i, c) in cases.iter().enumerate() {
        let (a, b) = (floats(&c["a"]), floats(&c["b"]));
        let got = Comparison::quick("acc@1", "b", "a", &a, &b)
            .mcnemar
            .unwrap();
        near(
            got,
            c["exact_p"].as_f64().unwrap(),
            1e-12,
            &format!("case {i}"),
        );
    }
}

/// The randomization test enumerates every sign flip up to 20 units: its p
/// is the exact share of the 2^n flips (numpy's enumeration), bit for bit.
#[test]
fn randomization_up_to_twenty_units_is_the_exact_enumeration() {
    let json = peers();
    let cases = json["randomization_exact"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let (a, b) = (floats(&c["a"]), floats(&c["b"]));
        let r = stats::randomization(&a, &b, 10, 7).unwrap();
        assert!(r.exact && r.resamples == 1 << a.len(), "{name}");
        assert_eq!(r.p, c["p"].as_f64().unwrap(), "{name}");
    }
}

/// ranx's `fisher_randomization_test` (its permutations, p = hits / B)
/// and the core's (every flip up to 20 units, else seeded flips, (1 +
/// hits) / (1 + B)) estimate the same p: they agree within four of their
/// Monte Carlo standard errors combined (and the core's 1 / (1 + B)).
#[test]
fn randomization_agrees_with_ranx_within_monte_carlo_error() {
    let json = peers();
    let cases = json["ranx"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let (a, b) = (floats(&c["a"]), floats(&c["b"]));
        let ranx = c["p"].as_f64().unwrap();
        let perms = c["permutations"].as_f64().unwrap();
        let r = stats::randomization(&a, &b, 100_000, 42).unwrap();
        let p = (ranx + r.p) / 2.0;
        let se = (p * (1.0 - p) / perms + r.standard_error.powi(2)).sqrt();
        let allowed = 4.0 * se + 1.0 / (1.0 + r.resamples as f64) + 1.0 / perms;
        assert!(
            (r.p - ranx).abs() <= allowed,
            "{name}: {} vs ranx {ranx} (allowed {allowed})",
            r.p
        );
    }
}

/// DeLong's variances, covariance, z, p and each AUC's interval equal the
/// O(m n) definition (placement values counting a tie ½) on heavily tied
/// scores; the ROC legend's interval, read off one model's curve, too.
#[test]
fn delong_on_tied_scores_equals_the_pairwise_definition() {
    use rankscope::core::binary::BinaryCurve;
    let json = peers();
    let cases = json["delong_ties"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let labels: Vec<bool> = (c["labels"].as_array().unwrap().iter())
            .map(|v| v.as_bool().unwrap())
            .collect();
        let (a, b) = (floats(&c["a"]), floats(&c["b"]));
        let d = stats::delong(&labels, &a, &b).unwrap();
        let want = &c["delong"];
        let w = |k: &str| want[k].as_f64().unwrap();
        for (got, key) in [
            (d.auc_a, "auc_a"),
            (d.auc_b, "auc_b"),
            (d.var_a, "var_a"),
            (d.var_b, "var_b"),
            (d.cov, "cov"),
            (d.z, "z"),
            (d.p, "p"),
            (d.ci_a.0, "ci_a"),
            (d.ci_b.1, "ci_b"),
        ] {
            let want = match key {
                "ci_a" => want["ci_a"][0].as_f64().unwrap(),
                "ci_b" => want["ci_b"][1].as_f64().unwrap(),
                _ => w(key),
            };
            near(got, want, 1e-9, &format!("{name} {key}"));
        }
        near(d.ci_a.1, want["ci_a"][1].as_f64().unwrap(), 1e-9, name);
        near(d.ci_b.0, want["ci_b"][0].as_f64().unwrap(), 1e-9, name);
        let (lo, hi) = BinaryCurve::new(&labels, &a).delong_interval().unwrap();
        near(
            lo,
            want["ci_a"][0].as_f64().unwrap(),
            1e-9,
            &format!("{name} curve's interval"),
        );
        near(
            hi,
            want["ci_a"][1].as_f64().unwrap(),
            1e-9,
            &format!("{name} curve's interval"),
        );
    }
}

/// Each mean's 95% interval, as the page's table shows it: the percentile
/// bootstrap (1,000 resamples, seed 42) equals the reference's resampling
/// by the same SplitMix64 stream with numpy's percentiles; beyond 20,000
/// units Student's t, scipy's `t.interval`. `rankscope compare` prints the
/// same in `mean_intervals` (JSON) and its text, for a per-query values
/// file of the reference's values.
#[test]
fn the_intervals_of_the_means_equal_the_references_and_compare_prints_them() {
    use rankscope::compare::page::mean_interval;
    let json = peers();
    let want = &json["mean_intervals"];
    let (resamples, seed) = (
        want["resamples"].as_u64().unwrap() as usize,
        want["seed"].as_u64().unwrap(),
    );
    let models = want["models"].as_array().unwrap();
    let mut csv = String::from("query_id,model,metric,value\n");
    for m in models {
        let name = m["model"].as_str().unwrap();
        let values = floats(&m["values"]);
        let (lo, hi, bootstrap) = mean_interval(&values, resamples, seed).unwrap();
        assert!(bootstrap, "{name}");
        let boot = floats(&m["bootstrap"]);
        near(lo, boot[0], 1e-12, &format!("{name} bootstrap low"));
        near(hi, boot[1], 1e-12, &format!("{name} bootstrap high"));
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let (tl, th) = stats::t_interval(&finite).unwrap();
        let t = floats(&m["t"]);
        near(tl, t[0], 1e-9, &format!("{name} t low"));
        near(th, t[1], 1e-9, &format!("{name} t high"));
        for (q, v) in values.iter().enumerate() {
            let v = if v.is_finite() {
                v.to_string()
            } else {
                String::new()
            };
            csv.push_str(&format!("q{q:02},{name},ndcg@10,{v}\n"));
        }
    }
    let large = &want["large"];
    let big: Vec<f64> = (0..large["n"].as_u64().unwrap())
        .map(|i| ((i * 7919) % 1000) as f64 / 1000.0 + ((i * 104729) % 17) as f64 / 170.0)
        .collect();
    let (lo, hi, bootstrap) = mean_interval(&big, resamples, seed).unwrap();
    assert!(!bootstrap);
    let t = floats(&large["t"]);
    near(lo, t[0], 1e-9, "20,001 units: t low");
    near(hi, t[1], 1e-9, "20,001 units: t high");
    // rankscope compare on the values as a per-query file: the same numbers
    let dir = std::env::temp_dir().join(format!("rankscope-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("values.csv");
    std::fs::write(&file, csv).unwrap();
    let run = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args(["compare", "--format", format])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let doc: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let got = doc["mean_intervals"].as_array().unwrap();
    assert_eq!(got.len(), models.len());
    let text = run("table");
    for (g, m) in got.iter().zip(models) {
        let name = m["model"].as_str().unwrap();
        assert_eq!(
            (g["model"].as_str(), g["metric"].as_str()),
            (Some(name), Some("ndcg@10"))
        );
        assert_eq!(g["units"], m["units"], "{name}");
        assert_eq!(
            (
                g["method"].as_str(),
                g["resamples"].as_u64(),
                g["seed"].as_u64()
            ),
            (Some("bootstrap"), Some(1000), Some(42))
        );
        let boot = floats(&m["bootstrap"]);
        near(
            g["mean"].as_f64().unwrap(),
            m["mean"].as_f64().unwrap(),
            1e-12,
            name,
        );
        near(g["low"].as_f64().unwrap(), boot[0], 1e-12, name);
        near(g["high"].as_f64().unwrap(), boot[1], 1e-12, name);
        let line = format!("[{:.4}, {:.4}]", boot[0], boot[1]);
        assert!(text.contains(&line), "{line} not in\n{text}");
    }
    assert!(text.contains(
        "# 95% intervals of each model's mean: percentile bootstrap, 1000 resamples, seed 42"
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
