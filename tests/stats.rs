//! The paired tests of `core::stats` against scipy 1.17's values on the
//! cases of `tests/reference/extra/stats.json` (written by
//! `scripts/reference/stats_reference.py`): exact, permutation and normal
//! Wilcoxon branches, ties and zeros, tiny p-values.

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
