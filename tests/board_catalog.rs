//! Generated catalogs for the leaderboard page's benchmark
//! (`scripts/bench/board.mjs`: 200 runs × 10,000 queries × 10 metrics, values
//! written directly through the catalog's own API). Run on demand:
//! `BOARD_OUT=dir BOARD_RUNS=50 BOARD_QUERIES=40 BOARD_METRICS=3 cargo test --test board_catalog -- --ignored`.

use rankscope::core::conventions::Conventions;
use rankscope::core::stats::SplitMix64;
use rankscope_io::catalog::{self, Judgments, Manifest, RunEntry, RunValues};

const METRICS: [&str; 10] = [
    "ndcg@10",
    "map",
    "p@10",
    "mrr",
    "ndcg@20",
    "p@5",
    "p@20",
    "recall@100",
    "recall@1000",
    "bpref",
];

fn env(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A uniform number in [0, 1) from the generator.
fn unit(rng: &mut SplitMix64) -> f64 {
    rng.below(1 << 30) as f64 / (1u64 << 30) as f64
}

/// Writes `dir/rankscope-catalog.json` and `dir/values/*.rsv`.
fn write(dir: &std::path::Path, runs: usize, queries: usize, metrics: usize) {
    std::fs::create_dir_all(dir.join("values")).unwrap();
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let metrics: Vec<String> = METRICS[..metrics.min(10)]
        .iter()
        .map(|m| m.to_string())
        .collect();
    let mut manifest = Manifest::new(
        "Generated team runs",
        Conventions::default(),
        metrics.clone(),
    );
    manifest.description = format!("{runs} generated runs over {queries} queries");
    manifest.judgments.push(Judgments {
        id: "qrels".into(),
        file: "qrels.txt".into(),
        sha256: "0".repeat(64),
    });
    manifest.judgments.push(Judgments {
        id: "qrels-2025".into(),
        file: "qrels-2025.txt".into(),
        sha256: "0".repeat(64),
    });
    let mut rng = SplitMix64::new(2026);
    let difficulty: Vec<f64> = (0..queries).map(|_| unit(&mut rng) * 0.5 - 0.25).collect();
    let query_ids: Vec<String> = (0..queries).map(|q| format!("q{}", 101 + q)).collect();
    let authors = ["ana", "bo", "chen"];
    let tags = [&["lexical"][..], &["neural"], &["neural", "hybrid"], &[]];
    for r in 0..runs {
        let id = format!("run{r:03}");
        // quality rises with r, in steps of two (pairs of near ties)
        let quality = 0.3 + 0.35 * (r / 2) as f64 / (runs / 2).max(1) as f64;
        let mut values = Vec::with_capacity(metrics.len() * queries);
        for (m, metric) in metrics.iter().enumerate() {
            for d in &difficulty {
                let noise = (unit(&mut rng) - 0.5) * 0.3;
                let v = (quality + d + noise - 0.02 * m as f64).clamp(0.0, 1.0);
                // p@k-like metrics in tenths
                let v = if metric.starts_with("p@") {
                    (v * 10.0).round() / 10.0
                } else {
                    v
                };
                values.push(v);
            }
        }
        // one undefined value: that query leaves the second metric's matrix
        if r == 1 && metrics.len() > 1 {
            values[queries] = f64::NAN;
        }
        let v = RunValues {
            run: id.clone(),
            judgments: "qrels".into(),
            metrics: metrics.clone(),
            queries: query_ids.clone(),
            conventions: Conventions::default(),
            values,
        };
        std::fs::write(
            dir.join(format!("values/{id}.rsv")),
            catalog::write_values(&v),
        )
        .unwrap();
        let day = 1 + (r * 7) % 28;
        let month = 1 + (r / 4) % 12;
        let mut metadata = serde_json::Map::new();
        metadata.insert(
            "method".into(),
            serde_json::json!(if r % 2 == 0 { "sparse" } else { "dense" }),
        );
        manifest.runs.push(RunEntry {
            id: id.clone(),
            name: format!("system-{r:03}"),
            file: format!("runs/{id}.run"),
            format: "trec_run".into(),
            values: format!("values/{id}.rsv"),
            sha256: "0".repeat(64),
            date: Some(format!("{}-{month:02}-{day:02}", 2025 + r / 48)),
            author: authors[r % 3].into(),
            description: format!("generated run {r}"),
            tags: tags[r % 4].iter().map(|t| t.to_string()).collect(),
            judgments: "qrels".into(),
            metadata,
        });
    }
    std::fs::write(dir.join(catalog::MANIFEST), manifest.to_json()).unwrap();
}

#[test]
#[ignore = "writes a catalog where BOARD_OUT says (the benchmark calls it)"]
fn generated_catalog() {
    let Ok(out) = std::env::var("BOARD_OUT") else {
        return;
    };
    write(
        std::path::Path::new(&out),
        env("BOARD_RUNS", 50),
        env("BOARD_QUERIES", 40),
        env("BOARD_METRICS", 3),
    );
}

#[test]
fn a_generated_catalog_reads_back() {
    let dir = std::env::temp_dir().join(format!("rankscope-board-{}", std::process::id()));
    write(&dir, 6, 12, 3);
    let text = std::fs::read_to_string(dir.join(catalog::MANIFEST)).unwrap();
    let m = catalog::parse_manifest("m.json", &text).unwrap();
    assert_eq!(m.runs.len(), 6);
    let v =
        catalog::read_values("v", &std::fs::read(dir.join("values/run001.rsv")).unwrap()).unwrap();
    assert!(v.values[12].is_nan());
    let _ = std::fs::remove_dir_all(dir);
}
